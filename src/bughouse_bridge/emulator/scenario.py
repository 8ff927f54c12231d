"""Scenarios that read like a game: hands move pieces, press clocks and pull cables over time.

A :class:`Scenario` has a time cursor (``wait``) and one
:class:`~bughouse_bridge.emulator.hands.Hands` per board (link). Hand actions are recorded as
timed :class:`~bughouse_bridge.emulator.actions.Action` values; ``run_scenario``
(``emulator/playback.py``) plays them in-process and the pty runner
(``drivers/pty_emulator.py``) in real time.

Primitive actions (``lift``, ``place``…) take no time; composite ones (``slide``, ``capture``, a
whole move by ``emulator/moves.py``…) advance the cursor by human handling times drawn from a
seeded ``random.Random`` and the :class:`~bughouse_bridge.emulator.handling.Handling` knobs.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import TYPE_CHECKING

import chess

from bughouse_bridge.dgt.commands import clock_version
from bughouse_bridge.dgt.constants import PieceCode
from bughouse_bridge.dgt.squares import piece_to_code, square_to_field
from bughouse_bridge.emulator.actions import HostWrite, TimedAction
from bughouse_bridge.emulator.board import EmulatedBoard
from bughouse_bridge.emulator.board_config import BoardConfig
from bughouse_bridge.emulator.handling import Handling, Noise
from bughouse_bridge.emulator.hands import Hands

if TYPE_CHECKING:
    from collections.abc import Mapping

    from bughouse_bridge.emulator.actions import Action, LinkAction
    from bughouse_bridge.emulator.handling import Span

CLOCK_VERSION = clock_version()
CLOCK_ACK_WAIT = 0.6


@dataclass(slots=True)
class _Table:
    configs: dict[str, BoardConfig]
    placements: dict[str, tuple[int, ...]]


class Scenario:
    """Timed actions on one board or a table of boards, with a shared time cursor."""

    def __init__(  # noqa: PLR0913 - all knobs are keyword-only
        self,
        configs: Mapping[str, BoardConfig] | None = None,
        *,
        seed: int = 0,
        handling: Handling | None = None,
        noise: Noise | None = None,
        placements: Mapping[str, chess.BaseBoard] | None = None,
        start: float = 0.0,
    ) -> None:
        configs = dict(configs) if configs is not None else {"A": BoardConfig()}
        boards = {link: (placements or {}).get(link, chess.BaseBoard()) for link in configs}
        self.seed = seed
        self.rng = random.Random(seed)  # noqa: S311 - a seeded simulation
        self.handling = handling or Handling()
        self.noise = noise or Noise()
        self.t = start
        self.start = start
        self.actions: list[TimedAction] = []
        self._table = _Table(
            dict(configs),
            {link: _fields(board, configs[link].rotated) for link, board in boards.items()},
        )
        self._hands = {
            link: Hands(self, link, board.copy(), rotated=configs[link].rotated)
            for link, board in boards.items()
        }

    @property
    def links(self) -> list[str]:
        return list(self._hands)

    @property
    def configs(self) -> dict[str, BoardConfig]:
        return dict(self._table.configs)

    @property
    def placements(self) -> dict[str, tuple[int, ...]]:
        """Each board's physical placement at power-up, in DGT field order."""
        return dict(self._table.placements)

    def hands(self, link: str | None = None) -> Hands:
        return self._hands[link if link is not None else self.links[0]]

    def wait(self, seconds: float) -> Scenario:
        self.t += max(seconds, 0.0)
        return self

    def at(self, t: float) -> Scenario:
        self.t = max(t, self.t)
        return self

    def draw(self, span: Span) -> float:
        low, high = span
        return self.rng.uniform(low, high)

    def record(self, link: str, action: Action | LinkAction, t: float | None = None) -> None:
        when = self.t if t is None else t
        self.actions.append(TimedAction(when, len(self.actions), link, action))

    def host(self, data: bytes, link: str | None = None) -> Scenario:
        """The host writes ``data`` to a board at the cursor."""
        self.record(link or self.links[0], HostWrite(data))
        return self

    def host_startup(self, link: str | None = None, *, gap: float = 0.1) -> Scenario:
        """A host handshake (dgt-protocol.md §4.7): reset, version, serial, dump, UPDATE_NICE,
        clock version (then a pause for its ack), clock times."""
        for command in (b"\x40", b"\x4d", b"\x55", b"\x42", b"\x4b", CLOCK_VERSION, b"\x41"):
            if command == b"\x41":
                self.wait(CLOCK_ACK_WAIT)
            self.host(command, link)
            self.wait(gap)
        return self

    def sorted_actions(self) -> list[TimedAction]:
        return sorted(self.actions, key=lambda action: (action.t, action.seq))

    def build_boards(self) -> dict[str, EmulatedBoard]:
        """Fresh emulated boards in power-up state, seeded from the scenario seed."""
        return {
            link: EmulatedBoard(
                config,
                random.Random(f"{self.seed}:{link}"),  # noqa: S311
                placement=self._table.placements[link],
                now=self.start,
            )
            for link, config in self._table.configs.items()
        }


def _fields(board: chess.BaseBoard, rotated: bool) -> tuple[int, ...]:  # noqa: FBT001
    codes = [int(PieceCode.EMPTY)] * 64
    for square, piece in board.piece_map().items():
        codes[square_to_field(square, rotated=rotated)] = piece_to_code(piece)
    return tuple(codes)


__all__ = ["Scenario"]
