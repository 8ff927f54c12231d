"""How firmly the last move stands (``reading_values.Firmness``), and whether a move's piece still
stands: a move that stood after its press, or whose reply was pressed while its piece still stood,
is final and never revised.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import chess

from bughouse_bridge.reconstruct.chains import arrival_of
from bughouse_bridge.reconstruct.presses import (
    Paid,
)
from bughouse_bridge.reconstruct.reading_values import Firmness
from bughouse_bridge.reconstruct.readings import one_ply

if TYPE_CHECKING:
    from bughouse_bridge.bughouse.types import BoardId, BughouseMove
from bughouse_bridge.reconstruct.core import ReconstructorCore


class Standing(ReconstructorCore):
    """Standing: see the module docstring."""

    def _still_standing(self, board: BoardId, move: BughouseMove) -> bool:
        """The piece ``move`` (not played yet) puts down is on its target square now."""
        return self._stands(board, arrival_of(self._match.position(board), move.move))

    def _still_standing_after(self, board: BoardId, move: BughouseMove) -> bool:
        """The piece the last move put down is on its target square now."""
        square = move.move.to_square
        return self._stands(board, (square, self._match.position(board).piece_at(square)))

    def _stands(self, board: BoardId, arrival: tuple[chess.Square, chess.Piece | None]) -> bool:
        physical = self._physical(board)
        if physical is None or arrival[1] is None:
            return False
        return chess.BaseBoard(physical).piece_at(arrival[0]) == arrival[1]

    def _moved_in_passing(self, board: BoardId) -> bool:
        """Since the last commit the board showed a legal move of the side to move (for less
        than the stability window): the press was for it, the board went back under the
        opponent's hand (a victim lifted first and held)."""
        state = self._boards[board]
        placements = self._placements()
        turn = self._match.turn(board)
        for placement in set(state.seen):
            readings = one_ply(self._match, board, {**placements, board: placement})
            if any(color == turn and judgement.legal for _move, color, judgement in readings):
                return True
        return False

    def _firmness_at_commit(self, board: BoardId, now: float) -> Firmness:
        state = self._boards[board]
        if state.press is None:
            return Firmness.OPEN
        if now < state.changed_at + self.config.stability_window:
            return Firmness.HASTY
        return Firmness.PRESSED

    def _confirmed_late(self, board: BoardId, now: float) -> None:
        """The press of a move committed before it came: the move now waits to stand."""
        state = self._boards[board]
        if state.firmness is Firmness.OPEN:
            state.last = state.last.pressed_late(now)  # to see it stand

    def _owed_presser(self, board: BoardId) -> chess.Color:
        """Who owes the next press: the mover of the oldest move committed before its press."""
        turn = self._match.turn(board)
        return (not turn) if self._boards[board].owed % 2 else turn

    def _paid(self, board: BoardId, now: float) -> None:
        state = self._boards[board]
        state.press_event(Paid())
        if not state.owed:
            self._confirmed_late(board, now)

    def _final_on_reply(self, board: BoardId) -> None:
        """The opponent pressed his reply: a last move whose piece still stands on its square
        is final (what the hands do from now on is the reply, or the next move)."""
        state = self._boards[board]
        last = state.correctable
        pressed = state.firmness.pressed_not_final
        if pressed and last is not None and self._still_standing_after(board, last):
            state.last = state.last.final()

    def _firm_up(self, board: BoardId, now: float) -> None:
        """A pressed move that has stood ``press_grace`` on the board since its press (so while
        the opponent's clock ran) is final; ``press_grace`` also covers a scanner that lags."""
        state = self._boards[board]
        if not state.firmness.pressed_not_final:
            return
        due = state.last.stands_at(state.changed_at, self.config.press_grace)
        if due is not None and now >= due:
            state.last = state.last.final()
