"""The guesses gaps leave, and what they absorb: the side on move a fill or a recovery guessed
(corrected by the first move of the other side), the presses and sensor changes before a gap
(none is read after it), and a board held while the other board's link is down.

``Guesses`` is a part of the gaps' component (``resync.Resync`` holds one, and hands it to
``refill.Refills``), made of what the parts share (``gap_doors.GapWork``). Its interface:
``hold`` and ``wrong_guess`` (a reading weighed), ``pressed_without_move`` and
``press_still_owed`` (a press), ``turn_guessed`` (a recovery's side on move), ``can_take_back``,
``forget_gap``, ``after_gap`` and ``presses_absorbed`` (a gap settled).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, TypeGuard

from bughouse_bridge.bughouse.types import AlertCode, BoardId
from bughouse_bridge.reconstruct.link import (
    AwaitDump,
    Live,
)
from bughouse_bridge.reconstruct.presses import (
    Absorbed,
    StillOwed,
)
from bughouse_bridge.reconstruct.reading_machine import Followed, Held, Released, Resolved
from bughouse_bridge.reconstruct.reading_values import (
    Correction,
    Illegal,
    Legal,
    Reading,
    Remedy,
    Waiting,
)

if TYPE_CHECKING:
    from bughouse_bridge.bughouse.match import Match
    from bughouse_bridge.reconstruct.gap import (
        Candidate,
    )
    from bughouse_bridge.reconstruct.gap_doors import GapWork

from bughouse_bridge.reconstruct.gap_guess import RecoveredTurn


class Guesses:
    """The guesses a gap leaves: see the module docstring."""

    def __init__(self, work: GapWork) -> None:
        self._work = work
        self._gaps = work.gaps
        self._boards = work.boards

    @property
    def _match(self) -> Match:
        return self._work.match

    def hold(self, board: BoardId, reading: Reading) -> bool:
        """While the other board's link is down, a board whose drop waits for a piece may wait
        for a capture nobody saw, and a placement that reads as an illegal move may be a drop
        of such a piece answered at once: it is held, without alerts, and solved together with
        the other board's gap when that link returns."""
        state = self._boards[board]
        other = self._boards[board.other]
        settled = isinstance(other.link, Live | AwaitDump)
        if settled or not isinstance(reading, Waiting | Illegal):
            return False
        state.reading_event(Held())
        return True

    def wrong_guess(self, board: BoardId, reading: Reading) -> bool:
        """After a gap nothing explained, the side on move was a guess: the first move of the
        other side corrects it (the gap's log entry is amended)."""
        gap = self._gaps.turn_unknown(board)
        if isinstance(reading, Legal | Correction | Remedy):
            self._gaps.turn_confirmed(board)  # the guess was right
        if gap is None or not wrong_turn(reading):
            return False
        self._flip_guess(board, gap)
        return True

    def pressed_without_move(self, board: BoardId) -> bool:
        """A press with no move of the side thought on move: after a gap nothing explained,
        that side was a guess, and the press is the end of the gap's last ply (its mover
        pressing late): the other side is on move. False: no such guess, the press is the
        players' own (``clock_without_move``)."""
        gap = self._gaps.turn_unknown(board)
        if gap is None:
            return False
        self._flip_guess(board, gap)
        return True

    def _flip_guess(self, board: BoardId, gap: int) -> None:
        self._gaps.turn_confirmed(board)
        if gap in self._match.open_gaps():
            self._match.gap_turn(gap, board, not self._match.turn(board))

    def turn_guessed(self, candidate: Candidate) -> None:
        """The plies just recovered are the shortest explanation, and so is the side on move
        they leave: a guess on every board they were played on, until a move confirms it."""
        plies = {move.board: self._match.ply(move.board) for move in candidate.moves}
        guess = RecoveredTurn(candidate.moves, plies)
        for b in guess.boards:
            self._gaps.recovered(b, guess)

    def can_take_back(self, guess: RecoveredTurn) -> bool:
        """Nothing was played on the recovery's boards since it (an arbiter's takeback
        included), and the game after it still replays without its plies."""
        if any(self._match.ply(b) != ply for b, ply in guess.plies.items()):
            return False
        trial = self._match.copy()
        try:
            for move in reversed(guess.moves):
                trial.takeback(move.board, t=0.0)
        except ValueError:
            return False
        return True

    def forget_gap(self, gap: int, now: float) -> None:
        """A gap settled by its plies: nothing is provisional or guessed about it any more."""
        self._gaps.forget(gap)
        self._gaps.fill_settled(gap)
        for b in BoardId:
            self.after_gap(b, now)

    def after_gap(self, board: BoardId, now: float) -> None:
        state = self._boards[board]
        state.reading_event(Resolved())
        self._gaps.recovery_confirmed(board)
        self.presses_absorbed(board, now)
        state.trail.clear()
        state.seen.clear()
        state.last = state.last.forgotten(self._match.ply(board))
        state.moved_at = now
        state.track_event(Released())

    def presses_absorbed(self, board: BoardId, now: float) -> None:
        """A gap settled (recovered or filled as it stands) absorbs every press and sensor
        change before it: the presses of plies nobody saw never come, and those a held board
        counted belong to plies inside the gap. Left over, they would be read as plies (or owed
        presses) of the moves after the gap. Nothing before the gap is revised; a run of
        readings that committed nothing starts anew."""
        state = self._boards[board]
        state.track_event(Followed())
        state.press_event(Absorbed())
        state.last = state.last.absorbed(now)
        state.changes.clear()

    def press_still_owed(self, board: BoardId) -> None:
        """After a gap the board often shows the last ply before its mover has hit the clock:
        while the clock (its first reading since the link returned) still runs for that mover,
        the press is owed, as for a move read before its press, and is not taken for a press of
        the side now on move (which no move follows)."""
        state = self._boards[board]
        mover = not self._match.turn(board)
        if self._match.ply(board) and state.clock.running_color() == mover:
            state.press_event(StillOwed())


def wrong_turn(reading: Reading) -> TypeGuard[Illegal]:
    """The reading is a move of the side not on move."""
    return isinstance(reading, Illegal) and reading.judgement.code is AlertCode.WRONG_TURN


def lacking_drop(reading: Reading) -> bool:
    """The reading is a drop of a piece its dropper's pocket lacks (waiting for it, standing
    as a forced drop, or illegal)."""
    judgement = reading.standing if isinstance(reading, Legal) else None
    if isinstance(reading, Waiting | Illegal):
        judgement = reading.judgement
    return judgement is not None and judgement.code is AlertCode.DROP_NOT_IN_POCKET
