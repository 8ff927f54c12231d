"""What the clocks say about a gap: the side on move, and how many plies each side can have made.

Pure values built from clock readings the reconstructor already has (``ClockTracker`` readings:
White's and Black's remaining milliseconds and the running side). A side whose clock shows the
same time before and after the gap, and does not run now, made no move in it (with an increment
its time would have changed too). A side whose time went down by ``s`` seconds made at most
``s / min_ply_seconds + 1`` moves (each of its plies ran its clock a little; the one it may be
thinking about now is the ``+ 1``). The running side is the side on move only when the reading is
trusted (``turn_trusted``): as a link returns, a reading is often a press in flight.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import chess

if TYPE_CHECKING:
    from collections.abc import Mapping

    from bughouse_bridge.bughouse.types import BoardId

__all__ = ["BoardClock", "ClockReading", "GapEvidence", "board_clock"]

ClockReading = tuple[int, int, chess.Color | None]  # white_ms, black_ms, running side
_STILL_MS = 50  # a clock's readings of an unchanged time differ by no more than this


@dataclass(frozen=True, slots=True)
class BoardClock:
    """One board's clock evidence for a gap."""

    turn: chess.Color | None = None  # the side on move at the return, when trusted
    most: Mapping[chess.Color, int | None] = field(default_factory=dict)  # plies at most, per side

    def allows(self, mover: chess.Color, plies: int) -> bool:
        """Can ``plies`` plies starting with ``mover`` have been played?"""
        own = {mover: (plies + 1) // 2, not mover: plies // 2}
        return all(
            self.most.get(color) is None or own[color] <= (self.most.get(color) or 0)
            for color in chess.COLORS
        )


@dataclass(frozen=True, slots=True)
class GapEvidence:
    """Everything beyond the placements that a gap's solver may use, per cut board."""

    clocks: Mapping[BoardId, BoardClock] = field(default_factory=dict)

    def clock(self, board: BoardId) -> BoardClock:
        return self.clocks.get(board) or BoardClock()


def board_clock(
    before: ClockReading | None,
    after: ClockReading | None,
    *,
    increment_ms: int = 0,
    min_ply_seconds: float = 0.1,
    turn_trusted: bool = False,
) -> BoardClock:
    """The evidence of one clock read as the gap began (``before``) and as the link returned."""
    if before is None or after is None:
        return BoardClock()
    running = after[2]
    spent_ms = {chess.WHITE: before[0] - after[0], chess.BLACK: before[1] - after[1]}
    most: dict[chess.Color, int | None] = {}
    for color, spent in spent_ms.items():
        if running is not color and abs(spent) <= _STILL_MS:
            most[color] = 0
        elif increment_ms == 0 and spent >= 0:
            most[color] = int(spent / 1000 / min_ply_seconds) + 1
        else:
            most[color] = None
    return BoardClock(turn=running if turn_trusted else None, most=most)
