"""The emulated board's end of the clock cable: what the board reads from the clock and sends,
and the clock commands it passes on.

While the board forwards clock data (UPDATE, UPDATE_NICE) it reads the clock 2-4 times a second
and sends BWTIME when the reading changed (in UPDATE also at least once a second, "Fritz5
compatible"). Clock commands come in the ``2B`` envelope, one at a time: a second one before the
previous one's ack is dropped (picochess#142); the ack follows after a delay, and only while the
board forwards clock data. An XL without mode 23 refuses SetAndRun, and never answers ASCII.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

from bughouse_bridge.dgt.commands import ClockCommandMessage, SetAndRun, UnknownClockCommand
from bughouse_bridge.dgt.constants import AckStatus, ClockCommand
from bughouse_bridge.dgt.messages import ClockAck, ClockFace, ClockTimes, ClockType, LeverSide
from bughouse_bridge.emulator.clock import ClockSetting

if TYPE_CHECKING:
    import random

    from bughouse_bridge.emulator.board_config import BoardConfig
    from bughouse_bridge.emulator.clock import ClockModel

_NO_CLOCK_STATUS = 0x20  # D5: no clock connected
_CLOCK_STATE_EVERY = 1.0  # UPDATE mode sends BWTIME at least this often ("Fritz5 compatible")

ClockEnvelope = SetAndRun | ClockCommandMessage | UnknownClockCommand


@dataclass(frozen=True, slots=True)
class _PendingClockCommand:
    due: float
    ack: ClockAck | None


class ClockPort:
    """Reads and commands of one board's clock; the board encodes and sends what this returns."""

    def __init__(self, clock: ClockModel, config: BoardConfig, rng: random.Random) -> None:
        self.clock = clock
        self._config = config
        self._rng = rng
        self._pending: _PendingClockCommand | None = None
        self._next_poll: float | None = None
        self._phase = rng.uniform(0, config.clock_poll_interval)
        self._last_sent: ClockTimes | None = None
        self._last_time = -math.inf

    def next_deadline(self) -> float | None:
        """The next poll, ack or flag fall (a flag only matters while the clock is read)."""
        candidates = [
            self._next_poll,
            self._pending.due if self._pending else None,
            self.clock.flag_time() if self._next_poll is not None else None,
        ]
        due = [t for t in candidates if t is not None]
        return min(due) if due else None

    def due(
        self, now: float, *, forward: bool, every_second: bool
    ) -> list[tuple[float, ClockAck | ClockTimes]]:
        """The acks and readings due by ``now``, in order, each with the time it is ready.

        ``forward``: the board's mode forwards clock acks; ``every_second``: it sends BWTIME at
        least once a second (UPDATE).
        """
        out: list[tuple[float, ClockAck | ClockTimes]] = []
        while self._pending is not None and self._pending.due <= now:
            pending, self._pending = self._pending, None
            if pending.ack is not None and forward:
                out.append((pending.due, pending.ack))
        while self._next_poll is not None and self._next_poll <= now:
            reading = self._poll(self._next_poll, every_second=every_second)
            if reading is not None:
                out.append((self._next_poll, reading))
            self._next_poll += self._config.clock_poll_interval
        return out

    def _poll(self, t: float, *, every_second: bool) -> ClockTimes | None:
        reading = self.clock.reading(t)
        changed = reading != self._last_sent
        overdue = t - self._last_time >= _CLOCK_STATE_EVERY - 1e-9
        if changed or (every_second and overdue):
            self._last_sent = reading
            self._last_time = t
            return reading
        return None

    def follow(self, now: float, *, forwarding: bool) -> None:
        """The board's mode changed: read the clock on the poll grid while ``forwarding``."""
        if forwarding and self.clock.present:
            if self._next_poll is None:
                interval = self._config.clock_poll_interval
                self._next_poll = self._phase + interval * (
                    math.floor((now - self._phase) / interval) + 1
                )
                self._last_sent = None
        else:
            self._next_poll = None

    def power_off(self) -> None:
        """The board lost power: no command in flight, no reading."""
        self._pending = None
        self._next_poll = None

    def power_on(self) -> None:
        """A fresh boot: the first reading is sent whatever it is."""
        self._last_sent = None

    def reading(self, now: float) -> ClockTimes:
        """The answer to SEND_CLK (all zero, status "no clock", without a clock)."""
        if not self.clock.present:
            zero = ClockFace(0, 0, 0)
            return ClockTimes(right=zero, left=zero, status=_NO_CLOCK_STATUS)
        return self.clock.reading(now)

    def envelope(self, command: ClockEnvelope, now: float) -> str | None:
        """Pass a clock command on; the reason it was ignored, if it was."""
        if not self.clock.present:
            return "clock command without a clock"
        if self._pending is not None:
            # The clock is still busy with the previous command: this one is lost (picochess#142).
            return f"clock busy, dropped {command!r}"
        ack = self._apply(command, now)
        low, high = self._config.ack_delay
        self._pending = _PendingClockCommand(now + self._rng.uniform(low, high), ack)
        return None

    def _apply(self, command: ClockEnvelope, now: float) -> ClockAck | None:
        kind = self._config.clock.kind
        if isinstance(command, UnknownClockCommand):
            return None
        if isinstance(command, SetAndRun):
            if kind is ClockType.XL and not self._config.clock.xl_mode_23:
                return ClockAck(AckStatus.ERROR, ClockCommand.SETNRUN, 0, 0)
            self.clock.set(_setting(command, self.clock.lever), now)
            self.clock.text = None
            return ClockAck(AckStatus.OK, ClockCommand.SETNRUN, 0, 0)
        code = command.command
        if code is ClockCommand.ASCII:
            if kind is not ClockType.DGT3000:
                return None  # an XL does not know the ASCII command: it never answers
            self.clock.text = command.data[:8].decode("ascii", errors="replace")
        elif code is ClockCommand.DISPLAY:
            self.clock.text = command.data.hex()
        elif code is ClockCommand.END:
            self.clock.text = None
        major, minor = self._config.clock.firmware
        ack2 = (major << 4 | minor) if code is ClockCommand.VERSION else 0
        return ClockAck(AckStatus.OK, code, ack2, 0)


def _setting(command: SetAndRun, lever: LeverSide) -> ClockSetting:
    running: LeverSide | None
    if command.pause or not (command.left_counts_down or command.right_counts_down):
        running = None
    elif command.left_counts_down and command.right_counts_down:
        running = lever
    else:
        running = LeverSide.LEFT if command.left_counts_down else LeverSide.RIGHT
    return ClockSetting(
        left_ms=command.left_seconds * 1000, right_ms=command.right_seconds * 1000, running=running
    )


__all__ = ["ClockEnvelope", "ClockPort"]
