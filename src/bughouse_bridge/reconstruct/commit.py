"""Committing a move read on a board: the match plays it, the press ledger and the last move's
firmness follow, flags that fell before it are released first, the other board is nudged.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from bughouse_bridge.bughouse.types import AlertCode, BoardId, BughouseMove, Judgement, color_name
from bughouse_bridge.reconstruct.alerts import alert, describe
from bughouse_bridge.reconstruct.presses import (
    Committed,
)
from bughouse_bridge.reconstruct.reading_machine import Released, Resolved
from bughouse_bridge.reconstruct.stall_watch import MoveMade

if TYPE_CHECKING:
    from collections.abc import Sequence

    import chess

    from bughouse_bridge.bughouse.events import (
        Alert,
        MatchEvent,
    )
    from bughouse_bridge.reconstruct.outcomes import Outcome
    from bughouse_bridge.reconstruct.reading_values import Changes

from bughouse_bridge.reconstruct.last_move import LastMove
from bughouse_bridge.reconstruct.standing import Standing


class Committer(Standing):
    """Committer: see the module docstring."""

    def _commit(
        self,
        board: BoardId,
        move: BughouseMove,
        now: float,
        *,
        clock_ms: int | None,
        standing: Judgement | None = None,
    ) -> list[Outcome]:
        parent = self._match.position(board)
        earlier = self._flags.release(self._table(), now, before=board)
        supplied = self._resync.supplied(board, move, standing, now)
        if supplied is not None:
            standing = None
        try:
            events = list(
                self._match.play(move, t=now, clock_ms=clock_ms, force=standing is not None)
            )
        except ValueError as error:
            message = f"Board {board}: {move.uci} could not be played ({error})."
            return [
                *earlier,
                alert(now, board, None, AlertCode.ILLEGAL_MOVE, message, move=move.uci),
            ]
        if standing is not None and not _has_alert(events, standing.code):
            events.append(self._standing_alert(board, move, standing, now))
        if supplied is not None:
            events = [*supplied, *events]
        out = self._after_commit(board, move, events, now)
        state = self._boards[board]
        state.last = replace(state.last, standing=standing is not None, parent=parent)
        return earlier + out + self._resync.weigh_later(now)  # issue 19: a gap's evidence

    def _standing_alert(
        self, board: BoardId, move: BughouseMove, standing: Judgement, now: float
    ) -> Alert:
        code = standing.code or AlertCode.ILLEGAL_MOVE
        color = not self._match.turn(board)
        message = (
            f"Board {board}: {describe(move, color)} is illegal ({standing.message}); it stands "
            "unless the opponent takes the piece off (row 9)."
        )
        return alert(now, board, color, code, message, rule=standing.rule, move=move.uci)

    def _after_commit(
        self, board: BoardId, move: BughouseMove, events: Sequence[MatchEvent], now: float
    ) -> list[Outcome]:
        state = self._boards[board]
        unpressed = state.press is None and self._clock_expected(board)
        # By the press it matches; a pressed move is seen to stand (``LastMove.stands_at``).
        firmness = self._firmness_at_commit(board, now)
        state.press_event(Committed(unpressed=unpressed))
        state.reading_event(Resolved())
        state.trail.clear()
        # Changes after the move's piece arrived belong to what follows (a reply made on top of
        # a drop that waited for its piece): they stay to be read as the next plies.
        square = move.move.to_square
        arrival = (square, self._match.position(board).piece_at(square))
        changes_of_last, state.changes = _split_after(state.changes, arrival)
        state.last = LastMove(
            move,
            changes=changes_of_last,
            ply=self._match.ply(board),
            firmness=firmness,
            confirmed_at=now,
        )
        state.seen.clear()
        self._resync.move_committed(board)
        state.moved_at = now
        state.stall_event(MoveMade())
        state.track_event(Released())
        self._watch(events)
        out: list[Outcome] = [*events, *self._resolved(board, now, "")]
        if move.is_steal:  # the other board's promotion waited for this steal's removal
            return out + self._reread(board.other, now)
        return out + self._nudge(board.other, now)

    def _commit_several(
        self, board: BoardId, moves: Sequence[BughouseMove], physical: str, now: float
    ) -> list[Outcome]:
        state = self._boards[board]
        expected = self._press_expected(board) and state.press is None
        color = self._match.turn(board)
        out: list[Outcome] = []
        for move in moves:
            if self._match.board_fen(board) == physical:  # the reply vanished meanwhile
                break
            clock_ms = state.press.clock_ms if state.press is not None else None
            out += self._commit(board, move, now, clock_ms=clock_ms)
        return out + ([self._no_press_alert(board, moves[0], color, now)] if expected else [])

    def _no_press_alert(
        self, board: BoardId, move: BughouseMove, color: chess.Color, now: float
    ) -> Outcome:
        message = (
            f"Board {board}: {color_name(color)} played {move.uci} without pressing the clock."
        )
        return alert(now, board, color, AlertCode.MOVE_WITHOUT_CLOCK, message, move=move.uci)


def _split_after(
    changes: Sequence[tuple[chess.Square, chess.Piece | None]],
    arrival: tuple[chess.Square, chess.Piece | None],
) -> tuple[Changes, list[tuple[chess.Square, chess.Piece | None]]]:
    """The changes up to the last arrival of ``arrival``, and those after it (all of them
    before, none after, when it was not seen arriving)."""
    ends = [index for index, change in enumerate(changes) if change == arrival]
    cut = ends[-1] + 1 if ends else len(changes)
    return tuple(changes[:cut]), list(changes[cut:])


def _has_alert(events: Sequence[MatchEvent], code: AlertCode | None) -> bool:
    return any(getattr(event, "code", None) is code for event in events)
