"""The actions of a scenario: what hands, a host or a cable do to one board, as timed values.

An :class:`Action` is one physical or host action on a board (a sensor sees a piece, a lever is
pressed, the host writes a command…); a :class:`LinkAction` unplugs or replugs its cable. A
:class:`TimedAction` places one on a link's timeline. :func:`apply_action` applies one to an
:class:`~bughouse_bridge.emulator.board.EmulatedBoard`; both players of a scenario use it: the
in-process ``run_scenario`` and the real-time pty runner (``drivers/pty_emulator.py``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from bughouse_bridge.dgt.constants import ClockButton
    from bughouse_bridge.dgt.messages import LeverSide
    from bughouse_bridge.emulator.board import EmulatedBoard
    from bughouse_bridge.emulator.clock import ClockSetting


@dataclass(frozen=True, slots=True)
class SetField:
    field: int
    code: int


@dataclass(frozen=True, slots=True)
class PressClock:
    side: LeverSide | None = None


@dataclass(frozen=True, slots=True)
class PressButton:
    button: ClockButton


@dataclass(frozen=True, slots=True)
class SetClock:
    setting: ClockSetting


@dataclass(frozen=True, slots=True)
class StartClock:
    side: LeverSide


@dataclass(frozen=True, slots=True)
class HostWrite:
    data: bytes


@dataclass(frozen=True, slots=True)
class Inject:
    data: bytes


@dataclass(frozen=True, slots=True)
class Silence:
    duration: float


@dataclass(frozen=True, slots=True)
class Unplug:
    pass


@dataclass(frozen=True, slots=True)
class Replug:
    pass


Action = SetField | PressClock | PressButton | SetClock | StartClock | HostWrite | Inject | Silence
LinkAction = Unplug | Replug


@dataclass(frozen=True, slots=True)
class TimedAction:
    t: float
    seq: int
    link: str
    action: Action | LinkAction


def apply_action(board: EmulatedBoard, action: Action | LinkAction, t: float) -> None:  # noqa: C901
    """Apply one physical or host action to a board at ``t`` (shared with the pty runner)."""
    match action:
        case SetField(field=index, code=code):
            board.set_field(index, code, t)
        case PressClock(side=side):
            board.press_clock(t, side)
        case PressButton(button=button):
            board.press_button(button, t)
        case SetClock(setting=setting):
            board.set_clock(setting, t)
        case StartClock(side=side):
            board.start_clock(side, t)
        case HostWrite(data=data):
            board.receive(data, t)
        case Inject(data=data):
            board.inject(data, t)
        case Silence(duration=duration):
            board.silence(t + duration, t)
        case Unplug():
            board.unplug(t)
        case Replug():
            board.replug(t)


__all__ = [
    "Action",
    "HostWrite",
    "Inject",
    "LinkAction",
    "PressButton",
    "PressClock",
    "Replug",
    "SetClock",
    "SetField",
    "Silence",
    "StartClock",
    "TimedAction",
    "apply_action",
]
