"""What each kind of reading does (``readings.Reading``): commit a legal move (at its press, or
after ``no_press_commit_after``), correct a move, apply the row-9 remedy, wait for a drop's piece,
report an illegal or unexplained placement once it has had its time.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from bughouse_bridge.bughouse.types import AlertCode, BoardId, color_name
from bughouse_bridge.reconstruct.alerts import alert, describe, fix_details
from bughouse_bridge.reconstruct.flags import ends_the_game
from bughouse_bridge.reconstruct.occupancy import (
    distance,
)
from bughouse_bridge.reconstruct.reading_machine import (
    AwaitPiece,
    PieceAwaited,
    PressAwaited,
    Strayed,
    Timed,
)
from bughouse_bridge.reconstruct.reading_values import (
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

if TYPE_CHECKING:
    from bughouse_bridge.reconstruct.outcomes import Outcome
from bughouse_bridge.reconstruct.commit import Committer


class Handlers(Committer):
    """Handlers: see the module docstring."""

    def _on_legal(
        self, board: BoardId, reading: Reading, physical: str, now: float
    ) -> list[Outcome]:
        assert isinstance(reading, Legal)
        state = self._boards[board]
        if reading.several:
            return self._commit_several(board, reading.moves, physical, now)
        move = reading.moves[0]
        if reading.standing is not None and self._hand_may_be_on_it(board, now):
            return []
        # A flag of the mover's fell meanwhile: a mating move set down before it decides.
        flagged = self._flags.waiting(board, self._match.turn(board))
        ends = flagged and reading.standing is None and ends_the_game(self._match, move)
        if state.press is not None or not self._press_expected(board) or ends:
            clock_ms = state.press.clock_ms if state.press is not None else None
            return self._commit(board, move, now, clock_ms=clock_ms, standing=reading.standing)
        due = state.changed_at + self.config.no_press_commit_after
        if now < due:
            state.reading_event(PressAwaited(move, due))
            return []
        color = self._match.turn(board)
        mates = reading.standing is None and ends_the_game(self._match, move)
        out = self._commit(board, move, now, clock_ms=None, standing=reading.standing)
        return out if mates else [*out, self._no_press_alert(board, move, color, now)]

    def _hand_may_be_on_it(self, board: BoardId, now: float) -> bool:
        """An illegal drop pressed early stands only once the hand is surely off it: a piece
        held over a neighbouring square, or set down there, is slid in after the press."""
        state = self._boards[board]
        if state.press is None:
            return False
        due = max(state.changed_at, state.press.t) + self.config.press_grace
        return now < due  # the press carries the due (``deadlines.board_dues``)

    def _on_correction(
        self, board: BoardId, reading: Reading, physical: str, now: float
    ) -> list[Outcome]:
        assert isinstance(reading, Correction)
        state = self._boards[board]
        clock_ms = state.press.clock_ms if state.press is not None else None
        events = list(self._match.takeback(board, t=now))
        parent = self._match.position(board)
        replacement, *reply = reading.moves
        pressed, ledger = state.firmness.pressed_not_final, state.presses
        try:
            events += self._match.play(replacement, t=now, clock_ms=clock_ms)
        except ValueError:  # nothing committed after all: the run of such readings is timed
            state.track_event(Strayed(now))
            return [*events, *self._on_unexplained(board, Unexplained(), physical, now)]
        out = self._after_commit(board, replacement, events, now)
        state.last = replace(state.last, parent=parent)
        if pressed and state.firmness is Firmness.OPEN:
            # The replacement completes a pressed move: pressed, not yet standing.
            state.last, state.presses = state.last.pressed_late(now), ledger  # to see it stand
        for move in reply:
            out += self._commit(board, move, now, clock_ms=None)
        return out

    def _on_remedy(
        self,
        board: BoardId,
        reading: Reading,
        physical: str,  # noqa: ARG002 - the handlers' common signature
        now: float,
    ) -> list[Outcome]:
        assert isinstance(reading, Remedy)
        state = self._boards[board]
        events: list[Outcome] = list(self._match.remove_illegal_drop(board, t=now))
        state.last = replace(state.last, standing=False)
        if not any(
            getattr(event, "code", None) is AlertCode.ILLEGAL_DROP_REMOVED for event in events
        ):
            message = f"Board {board}: the illegal drop was taken off the board (row 9)."
            events.append(
                alert(
                    now,
                    board,
                    self._match.turn(board),
                    AlertCode.ILLEGAL_DROP_REMOVED,
                    message,
                    rule=self._match.rules.ref(9),
                )
            )
        if reading.then is None:
            state.last = state.last.forgotten(state.last.ply)
            return [*events, *self._resolved(board, now, "")]
        return [*events, *self._commit(board, reading.then, now, clock_ms=None)]

    def _on_waiting(
        self, board: BoardId, reading: Reading, physical: str, now: float
    ) -> list[Outcome]:
        assert isinstance(reading, Waiting)
        state = self._boards[board]
        state.reading_event(PieceAwaited(reading.move, state.changed_at))
        waiting = state.reading
        assert isinstance(waiting, AwaitPiece)
        due = waiting.since + self.config.drop_grace
        if now < due:
            return []
        code = reading.judgement.code or AlertCode.DROP_NOT_IN_POCKET
        if code is AlertCode.DROP_NOT_IN_POCKET:
            # Past the grace the drop stands (an illegal move stands unless the arbiter acts);
            # otherwise a board would wait forever on a capture that never comes.
            press = self._boards[board].press
            clock_ms = press.clock_ms if press is not None else None
            return self._commit(
                board, reading.move, now, clock_ms=clock_ms, standing=reading.judgement
            )
        color = self._match.turn(board)
        what = describe(reading.move, color)
        message = f"Board {board}: {what} but no piece was taken from board {board.other}."
        event = alert(
            now,
            board,
            color,
            code,
            message,
            rule=reading.judgement.rule,
            move=reading.move.uci,
            **fix_details(physical, self._match.board_fen(board)),
        )
        return self._once(board, physical, event)

    def _on_illegal(
        self, board: BoardId, reading: Reading, physical: str, now: float
    ) -> list[Outcome]:
        assert isinstance(reading, Illegal)
        state = self._boards[board]
        # A press reports an illegal move sooner, yet not at once: the press may come before the
        # mover's hand is done (a piece set down next to its square, then slid in).
        due = state.changed_at + self.config.illegal_after
        if state.press is not None:
            due = min(due, max(state.changed_at, state.press.t) + self.config.press_grace)
        if isinstance(state.reading, AwaitPiece):
            # A drop waits for its piece and the opponent has replied on top of it: once the
            # drop stands (``_overdue_drop``) the reply reads as the next move, not a wrong turn.
            due = max(due, state.reading.since + self.config.drop_grace)
        if now < due:
            state.track_event(Timed(due))
            return []
        judgement = reading.judgement
        code = judgement.code or AlertCode.ILLEGAL_MOVE
        what = describe(reading.move, reading.color)
        if code is AlertCode.WRONG_TURN:
            turn = color_name(self._match.turn(board))
            message = f"Board {board}: {what}, but {turn} is on move."
        else:
            reason = f" ({judgement.message})" if judgement.message else ""
            message = f"Board {board}: {what} is not a legal move{reason}."
        details = fix_details(physical, self._match.board_fen(board))
        if code is AlertCode.ILLEGAL_MOVE and (code, physical) not in state.alerted:
            claim, claim_details = self._match.note_illegal(
                board, reading.color, reading.move.uci, t=now
            )
            message += claim
            details.update(claim_details)
        event = alert(
            now,
            board,
            reading.color,
            code,
            message,
            rule=judgement.rule,
            move=reading.move.uci,
            **details,
        )
        return self._once(board, physical, event)

    def _on_signal(
        self, board: BoardId, reading: Reading, physical: str, now: float
    ) -> list[Outcome]:
        assert isinstance(reading, Signal)
        message = f"Board {board}: the kings show the result {reading.result} (a suggestion)."
        event = alert(now, board, None, AlertCode.RESULT_SIGNAL, message, result=reading.result)
        return self._once(board, physical, event)

    def _on_unexplained(
        self,
        board: BoardId,
        reading: Reading,  # noqa: ARG002 - the handlers' common signature
        physical: str,
        now: float,
    ) -> list[Outcome]:
        state = self._boards[board]
        more_of_a_gap = self._resync.unexplained(board, now)
        if more_of_a_gap is not None:
            return more_of_a_gap
        due = state.changed_at + self.config.unexplained_limit
        if now < due:
            state.track_event(Timed(due))
            return []
        return self._once(board, physical, self._unexplained_alert(board, physical, now, ""))

    def _unexplained_alert(self, board: BoardId, physical: str, now: float, reason: str) -> Outcome:
        target, label = self._nearest(board, physical)
        details = fix_details(physical, target)
        todo = ", ".join(details["fix"])
        message = f"Board {board}: no legal move explains the position; to reach {label}: {todo}."
        return alert(
            now,
            board,
            self._match.turn(board),
            AlertCode.UNEXPLAINED_POSITION,
            message,
            reason=reason or "no legal continuation",
            nearest=label,
            **details,
        )

    def _nearest(self, board: BoardId, physical: str) -> tuple[str, str]:
        """The placement closest to the physical one: the game's, or one legal move away."""
        best = (self._match.board_fen(board), "the game position")
        best_distance = distance(physical, best[0])
        for successor in self._match.successors(board):
            placement = successor.placements.get(board)
            if placement is not None and distance(physical, placement) < best_distance:
                best = (placement, f"the game after {successor.move.uci}")
                best_distance = distance(physical, placement)
        return best

    def _unknown_orientation(self, board: BoardId, now: float) -> list[Outcome]:
        state = self._boards[board]
        due = state.changed_at + self.config.unexplained_limit
        if now < due:
            return []
        physical = state.occupancy.placement(rotated=False)
        event = self._unexplained_alert(board, physical, now, "orientation unknown")
        return self._once(board, physical, event)
