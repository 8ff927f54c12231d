"""Reading a board: when it is due (settled, or pressed), what it shows is read
(``readings.read``), weighed against the gaps' guesses, and handled.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import chess

from bughouse_bridge.bughouse.types import AlertCode, BoardId, BughouseMove, color_name
from bughouse_bridge.reconstruct.alerts import alert
from bughouse_bridge.reconstruct.link import (
    Settling,
)
from bughouse_bridge.reconstruct.passing import through_passing_positions
from bughouse_bridge.reconstruct.presses import (
    Absorbed,
    Ahead,
)
from bughouse_bridge.reconstruct.reading_machine import (
    Asked,
    AwaitPiece,
    DropVoid,
    Followed,
    GlimpsedRest,
    Released,
    Resolved,
    Strayed,
)
from bughouse_bridge.reconstruct.reading_values import (
    Context,
    Correction,
    Firmness,
    Illegal,
    Legal,
    Reading,
    Remedy,
    Signal,
    Unexplained,
    Waiting,
)
from bughouse_bridge.reconstruct.readings import read

if TYPE_CHECKING:
    from collections.abc import Callable

    from bughouse_bridge.reconstruct.outcomes import Outcome
from bughouse_bridge.reconstruct.gap_doors import Handled, Reread
from bughouse_bridge.reconstruct.handlers import Handlers


class Reader(Handlers):
    """Reader: see the module docstring."""

    def _evaluate(
        self, board: BoardId, now: float, *, pressed_now: bool = False, cascade: bool = True
    ) -> list[Outcome]:
        state = self._boards[board]
        # The dues up to now are read (``deadlines.board_deadline``).
        state.read_at = max(state.read_at, now)
        if not state.occupancy.known or not state.connected:
            return []  # a board whose link is down is read again when it is back
        if isinstance(state.link, Settling):
            return self._resync.settle_gap(board, now)
        physical = self._physical(board)
        out = self._magic(board, now)
        if physical is None:
            out += self._unknown_orientation(board, now)
        elif physical == self._match.board_fen(board):
            out += self._at_rest(board, now)
        elif pressed_now or now >= state.changed_at + self.config.stability_window:
            # Settled (else read at the placement's due); also after a result: it never blinds
            # the bridge (the arbiter may revoke it).
            out += self._act(board, physical, now, cascade=cascade)
        return out + self._stalling(board, now)

    def _act(self, board: BoardId, physical: str, now: float, *, cascade: bool) -> list[Outcome]:
        state = self._boards[board]
        waiting = state.reading
        if isinstance(waiting, AwaitPiece) and self._no_drop_after_all(
            board, waiting.drop, physical
        ):
            state.reading_event(DropVoid())
        if isinstance(state.reading, AwaitPiece):
            return self._overdue_drop(board, now) or self._read(board, physical, now, cascade)
        return self._read(board, physical, now, cascade)

    def _no_drop_after_all(self, board: BoardId, drop: BughouseMove, physical: str) -> bool:
        """The piece of a waiting drop has left its square and one move of the side on move
        from the game explains the board: it was set down on its way, no drop (a rook slid
        d1-d2-...-d7, set down on d2 before it left d1). A drop whose piece moved on in a
        later ply (P@g5, a reply, gxf6) is not explained so, and still waits."""
        if chess.BaseBoard(physical).piece_at(drop.move.to_square) is not None:
            return False
        return any(
            successor.placements.get(board) == physical
            for successor in self._match.successors(board)
        )

    def _overdue_drop(self, board: BoardId, now: float) -> list[Outcome]:
        """A drop whose piece never came stands once its grace is over, even if the opponent
        has replied on top of it meanwhile (then the reply reads as the next move)."""
        state = self._boards[board]
        waiting = state.reading
        assert isinstance(waiting, AwaitPiece)
        move, since = waiting.drop, waiting.since
        judgement = self._match.judge(move)
        if judgement.code is not AlertCode.DROP_NOT_IN_POCKET:
            state.reading_event(DropVoid())
            return []
        if now < since + self.config.drop_grace:
            return []
        press = state.press
        clock_ms = press.clock_ms if press is not None else None
        out = self._commit(board, move, now, clock_ms=clock_ms, standing=judgement)
        return out + self._evaluate(board, now)

    def _read(self, board: BoardId, physical: str, now: float, cascade: bool) -> list[Outcome]:  # noqa: FBT001
        state = self._boards[board]
        if self._flipped(board, physical):
            return self._at_rest(board, now)
        # No takeback by the arbiter since, and the last move not yet final.
        last = state.last
        unchanged = self._match.ply(board) == last.ply
        ours = unchanged and last.firmness is not Firmness.FINAL
        context = Context(
            now,
            last.correctable if ours else None,
            last.parent if ours else None,
            # An illegal drop stands until the opponent takes it off (row 9), however long it
            # stood: its removal is the opponent's move, not a revision of the drop.
            last.standing_drop if unchanged else None,
            pressed=state.press is not None,
            presses=len(state.presses.presses) if isinstance(state.presses, Ahead) else 0,
            pending=state.pending,
            trail=frozenset(state.trail),
            changes=tuple(state.changes),
            changes_of_last=last.changes if ours else (),
            firmness=last.firmness if ours else Firmness.FINAL,
        )
        reading = read(self._match, board, self._placements(), context)
        if isinstance(reading, Unexplained):
            placements = self._placements()
            passing = through_passing_positions(
                self._match, board, placements, state.seen, now, tuple(state.changes)
            )
            reading = passing or reading
        following = not isinstance(reading, Unexplained | Illegal | Waiting)
        state.track_event(Followed() if following else Strayed(now))
        weighed = self._resync.review(board, reading, now)
        if isinstance(weighed, Reread):
            return self._read(board, physical, now, cascade)
        if isinstance(weighed, Handled):
            return weighed.out
        state.track_event(Released() if following else Asked())
        out = self._handler(reading)(board, reading, physical, now)
        # The other board may be the one waiting (a drop's piece, a steal's removal).
        return out + self._nudge(board.other, now) if cascade else out

    def _nudge(self, board: BoardId, now: float) -> list[Outcome]:
        if not self._boards[board].stuck:
            return []
        return self._reread(board, now)

    def _reread(self, board: BoardId, now: float) -> list[Outcome]:
        self._boards[board].track_event(Released())
        return self._evaluate(board, now, cascade=False)

    def _handler(self, reading: Reading) -> Callable[[BoardId, Reading, str, float], list[Outcome]]:
        handlers: dict[type, Callable[[BoardId, Reading, str, float], list[Outcome]]] = {
            Legal: self._on_legal,
            Correction: self._on_correction,
            Remedy: self._on_remedy,
            Waiting: self._on_waiting,
            Illegal: self._on_illegal,
            Signal: self._on_signal,
            Unexplained: self._on_unexplained,
        }
        return handlers[type(reading)]

    def _at_rest(self, board: BoardId, now: float) -> list[Outcome]:
        state = self._boards[board]
        state.track_event(Released())
        self._firm_up(board, now)
        settled = now >= state.changed_at + self.config.stability_window
        # The drop's piece, or (once settled) the move awaiting its press, taken back.
        state.reading_event(Resolved() if settled else GlimpsedRest())
        out = self._resolved(board, now, "")
        if state.press is None:
            return out
        due = state.press.t + self.config.press_grace
        if now < due:
            return out  # the press ahead carries its due
        if self._moved_in_passing(board):
            return out  # the move was shown, then its piece lifted by the opponent to capture it
        state.press_event(Absorbed())
        if self._resync.pressed_without_move(board):
            return out  # the end of a gap's last ply: the side on move it guessed is corrected
        color = self._match.turn(board)
        message = f"Board {board}: {color_name(color)} pressed the clock without moving."
        return [*out, alert(now, board, color, AlertCode.CLOCK_WITHOUT_MOVE, message)]
