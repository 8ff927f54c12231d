"""What the clocks say about a gap: the side on move, and how many plies each side can have made.

Pure values built from clock readings the reconstructor already has (``ClockTracker`` readings:
White's and Black's remaining milliseconds and the running side). A side whose clock shows the
same time before and after the gap, read exactly, and whose clock did not run as the gap began,
made no move in it. A side whose time went down by ``s`` seconds made at most
``s / min_ply_seconds`` moves (each of its plies ran its clock a little), one more if its clock
ran as the gap began. A DGT clock shows whole seconds, so live the bound allows a second more
(``gap_evidence``); with an increment nothing is inferred. The running side is the side on move
only when the reading is trusted (``turn_trusted``): as a link returns, a reading is often a press
in flight.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import chess

if TYPE_CHECKING:
    from collections.abc import Mapping

    from bughouse_bridge.bughouse.types import BoardId
    from bughouse_bridge.reconstruct.clocks import ClockTracker

__all__ = ["BoardClock", "ClockReading", "GapEvidence", "board_clock", "gap_evidence"]

ClockReading = tuple[int, int, chess.Color | None]  # white_ms, black_ms, running side


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


def board_clock(  # noqa: PLR0913 - the two readings and how to read them
    before: ClockReading | None,
    after: ClockReading | None,
    *,
    increment_ms: int = 0,
    resolution_ms: int = 0,
    min_ply_seconds: float = 0.1,
    turn_trusted: bool = False,
) -> BoardClock:
    """The evidence of one clock read as the gap began (``before``) and as the link returned.

    Each ply of a side in the gap ran that side's clock for at least ``min_ply_seconds``,
    except the first ply of the side whose clock already ran as the gap began (its thinking
    started before); a reading is exact to ``resolution_ms`` (a DGT clock shows seconds). So a
    side whose time did not move, read exactly, made no move."""
    if before is None or after is None or increment_ms:
        return BoardClock(turn=None if after is None or not turn_trusted else after[2])
    spent_ms = {chess.WHITE: before[0] - after[0], chess.BLACK: before[1] - after[1]}
    most: dict[chess.Color, int | None] = {}
    for color, spent in spent_ms.items():
        if spent < -resolution_ms:
            most[color] = None  # the time went up: set by hand, not played
            continue
        plies = int((max(spent, 0) + resolution_ms) / (min_ply_seconds * 1000))
        most[color] = plies + (1 if before[2] == color else 0)
    return BoardClock(turn=after[2] if turn_trusted else None, most=most)


def gap_evidence(clocks: Mapping[BoardId, ClockTracker]) -> GapEvidence:
    """The evidence of the cut boards' clocks: each read before the link was lost and now."""
    return GapEvidence(
        {
            board: board_clock(
                clock.before_gap,
                clock.reading(),
                resolution_ms=_DGT_RESOLUTION_MS,
                min_ply_seconds=_OVER_THE_BOARD_PLY_SECONDS,
            )
            for board, clock in clocks.items()
        }
    )


_DGT_RESOLUTION_MS = 1000  # a DGT clock reports whole seconds
_OVER_THE_BOARD_PLY_SECONDS = 0.5  # see the board, move a piece, press the clock: never faster
