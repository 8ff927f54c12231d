"""Gaps: a link back (or a board nothing explains while on a gap's guess) is reconciled with the
game (``gap.solve_gap``): its plies recovered, or the boards set to what they show and the gap
left to the arbiter. Recoveries and fills are guesses, and the side on move they leave is one:
``review`` is the one door through which a later reading is weighed as their evidence.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, TypeGuard

from bughouse_bridge.bughouse.events import (
    LinkChanged,
    MovePlayed,
)
from bughouse_bridge.bughouse.types import AlertCode, BoardId
from bughouse_bridge.reconstruct.alerts import alert
from bughouse_bridge.reconstruct.gap import (
    Candidate,
    GapSolution,
    filled_positions,
    gap_details,
    solve_gap,
)
from bughouse_bridge.reconstruct.link import (
    AwaitDump,
    Deferred,
    Live,
    Reconciled,
    Settling,
)
from bughouse_bridge.reconstruct.presses import (
    Absorbed,
    StillOwed,
)
from bughouse_bridge.reconstruct.readings import (
    Correction,
    Firmness,
    Illegal,
    Legal,
    Reading,
    Remedy,
    Waiting,
)

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    import chess

    from bughouse_bridge.reconstruct.outcomes import Outcome

from bughouse_bridge.reconstruct.board_state import (
    RecoveredTurn,
)
from bughouse_bridge.reconstruct.commit import Committer


class Resync(Committer):
    """Resync: see the module docstring."""

    def _settle_gap(self, board: BoardId, now: float) -> list[Outcome]:
        state = self._boards[board]
        due = state.changed_at + self.config.stability_window
        if now < due:
            self._wake(board, due)
            return []
        settling = state.link
        assert isinstance(settling, Settling)
        state.link_event(Reconciled())
        return self._reconcile(board, now, settling)

    def _explain_later(
        self, board: BoardId, solution: GapSolution, now: float, settling: Settling | None
    ) -> bool:
        """Nothing explains what the board shows as it comes back: as in normal reading, an
        unexplained placement is given ``unexplained_limit`` before anyone is told — the dump
        often catches a hand in the middle of a move (a piece lifted, its square empty), which no
        sequence of whole plies leads to. The gap stays open and the next settled placement is
        tried; after the limit the position is published as it stands. Only after a short gap
        (a restart, a cable reseated): there the plies missed are few, so an answer that fails is
        a hand in motion; after a long one, waiting would only let more plies pile up."""
        if settling is None:
            return False
        short = settling.unheard_for < self.config.unexplained_limit
        if solution.unique is not None or solution.candidates or not short:
            return False
        deadline = settling.back_at + self.config.unexplained_limit
        if now >= deadline:
            return False
        self._boards[board].link_event(Deferred(settling))
        self._wake(board, deadline)
        return True

    def _hold(self, board: BoardId, reading: Reading) -> bool:
        """While the other board's link is down, a board whose drop waits for a piece may wait
        for a capture nobody saw, and a placement that reads as an illegal move may be a drop
        of such a piece answered at once: it is held, without alerts, and solved together with
        the other board's gap when that link returns."""
        state = self._boards[board]
        other = self._boards[board.other]
        settled = isinstance(other.link, Live | AwaitDump)
        if settled or not isinstance(reading, Waiting | Illegal):
            return False
        state.held = True
        return True

    def _reconcile(
        self, board: BoardId, now: float, settling: Settling | None = None
    ) -> list[Outcome]:
        """A link is back (or the dump asked for by ``resync``/a start-up): find the plies that
        lead from the game to what the boards show now (``gap.solve_gap``)."""
        link = str(board)
        boards = [board, *([board.other] if self._boards[board.other].held else [])]
        targets = {b: self._physical(b) for b in boards}
        known = {b: placement for b, placement in targets.items() if placement is not None}
        if targets[board] is None or all(
            placement == self._match.board_fen(b) for b, placement in known.items()
        ):
            for b in boards:
                self._boards[b].held = False
            return [
                LinkChanged(now, link, "resynced", {"missing_plies": 0}),
                *self._nudge_all(boards, now),
            ]
        # The clock's running side is not used as the side on move: read as the link returns it
        # is often a press in flight (or a White side learned wrong), and a wrong parity gives a
        # wrong answer. The shortest explanation decides the side on move instead.
        solution = solve_gap(self._match, known)
        if self._explain_later(board, solution, now, settling):
            return []
        return self._settle(board, known, dict.fromkeys(boards), solution, now)

    def _settle(
        self,
        board: BoardId,
        targets: Mapping[BoardId, str],
        turns: Mapping[BoardId, chess.Color | None],
        solution: GapSolution,
        now: float,
    ) -> list[Outcome]:
        """The gap's solution applied: its plies recovered, or the boards set to ``targets``
        and the gap left to the arbiter. ``turns`` names the boards solved and the side on
        move each is known to have (``None``: the shortest explanation's, a guess)."""
        boards = list(turns)
        for b in boards:
            self._boards[b].held = False
        if solution.unique is not None:
            if not solution.confirmed:
                self._unconfirmed.update(boards)
            return self._recovered(board, solution.unique, now) + self._nudge_all(boards, now)
        # Either way the boards are read again at once: a move made on top of the placements
        # solved (the one that disproved a recovery) waits for no later sensor change.
        left = self._left_to_arbiter(board, targets, turns, solution, now)
        return left + self._nudge_all(boards, now)

    def _nudge_all(self, boards: Sequence[BoardId], now: float) -> list[Outcome]:
        out: list[Outcome] = []
        for b in boards:
            self._boards[b].stuck = True
            out += self._nudge(b, now)
        return out

    def _recovered(self, board: BoardId, candidate: Candidate, now: float) -> list[Outcome]:
        out: list[Outcome] = []
        for move in candidate.moves:
            events = [
                replace(event, recovered=True) if isinstance(event, MovePlayed) else event
                for event in self._match.play(move, t=now)
            ]
            out += self._after_commit(move.board, move, events, now)
            self._boards[move.board].correctable = None
        for b in {board, *(move.board for move in candidate.moves)}:
            self._presses_absorbed(b, now)
            self._press_still_owed(b)
        self._turn_guessed(candidate)
        details = {
            "missing_plies": len(candidate.moves),
            "recovered": {str(b): [m.uci for m in candidate.on(b)] for b in BoardId},
        }
        return [*out, LinkChanged(now, str(board), "resynced", details)]

    def _left_to_arbiter(
        self,
        board: BoardId,
        targets: Mapping[BoardId, str],
        turns: Mapping[BoardId, chess.Color | None],
        solution: GapSolution,
        now: float,
    ) -> list[Outcome]:
        """Nothing settles the gap: the boards are set to what they show (the broadcast is
        right at once), the log keeps the gap, and the arbiter may choose a candidate."""
        self._gap_count += 1  # ids are never reused in a game, settled gaps included
        gap = self._gap_count
        details = gap_details(gap, self._match, solution)
        fens = filled_positions(self._match, targets, turns, solution)
        self._match.fill_gap(gap, fens, boards=targets, t=now)
        self._gaps[gap] = solution
        self._gap_targets[gap] = dict(targets)
        for b in targets:
            self._after_gap(b, now)
            # A guess (the first candidate's, or the old side on move): a move of the other
            # side right after the gap corrects it instead of being called a wrong turn.
            if turns.get(b) is None:
                self._boards[b].turn_unknown = gap
            if not solution.candidates:  # perhaps a hand in motion: see ``_redo_fill``
                self._boards[b].provisional = gap
                self._boards[b].provisional_until = now + self.config.unexplained_limit
        count = len(solution.candidates)
        message = (
            f"Board {board} is back; {count} different sequences of moves explain the gap: "
            "the position is published as it stands; choose one with choose_recovery."
            if count
            else f"Board {board} is back; no legal moves explain the gap ({solution.verdict}): "
            "the position is published as it stands."
        )
        return [
            alert(now, board, None, AlertCode.GAP_AMBIGUOUS, message, **details),
            LinkChanged(now, str(board), "resynced", {"missing_plies": None, "gap": gap}),
        ]

    def _wrong_guess(self, board: BoardId, reading: Reading) -> bool:
        """After a gap nothing explained, the side on move was a guess: the first move of the
        other side corrects it (the gap's log entry is amended)."""
        state = self._boards[board]
        gap = state.turn_unknown
        if isinstance(reading, Legal | Correction | Remedy):
            state.turn_unknown = None  # the guess was right
        if gap is None or not _wrong_turn(reading):
            return False
        self._flip_guess(board, gap)
        return True

    def _flip_guess(self, board: BoardId, gap: int) -> None:
        self._boards[board].turn_unknown = None
        if gap in self._match.open_gaps():
            self._match.gap_turn(gap, board, not self._match.turn(board))

    def _turn_guessed(self, candidate: Candidate) -> None:
        """The plies just recovered are the shortest explanation, and so is the side on move
        they leave: a guess on every board they were played on, until a move confirms it."""
        plies = {move.board: self._match.ply(move.board) for move in candidate.moves}
        guess = RecoveredTurn(candidate.moves, plies)
        for b in guess.boards:
            self._boards[b].recovered_turn = guess

    def _recovery_disproved(
        self, board: BoardId, reading: Reading, now: float
    ) -> list[Outcome] | None:
        """Nothing committed since a recovery, and the other side has moved (a wrong turn): the
        gap had a ply more (or fewer) than its shortest explanation. The recovered plies are
        taken back (``takeback`` events) and the gap is solved again from the game before them,
        to the same placements, now with the side on move the move shows: its mover's (the
        solver then searches only plies of that parity, fewer than the placement with the move
        on it would need). Recovered (published ``recovered``, ply numbers continuing; the move
        is then read as usual) or left to the arbiter, as after any gap. ``None``: no such
        recovery, or it cannot be taken back; read as usual."""
        guess = self._boards[board].recovered_turn
        if guess is None or not _wrong_turn(reading):
            return None
        for b in guess.boards:
            self._boards[b].recovered_turn = None
        if not self._can_take_back(guess):
            return None
        # The placements the recovery reached were right; the side on move was not.
        targets = {b: self._match.board_fen(b) for b in guess.boards}
        turns: dict[BoardId, chess.Color | None] = dict.fromkeys(targets)
        turns[board] = reading.color
        out: list[Outcome] = []
        for move in reversed(guess.moves):
            out += self._match.takeback(move.board, t=now)
        for b in guess.boards:
            self._after_gap(b, now)
        solution = solve_gap(self._match, targets, turns=turns)
        return out + self._settle(board, targets, turns, solution, now)

    def _can_take_back(self, guess: RecoveredTurn) -> bool:
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

    def _forget_gap(self, gap: int, now: float) -> None:
        """A gap settled by its plies: nothing is provisional or guessed about it any more."""
        del self._gaps[gap]
        self._gap_targets.pop(gap, None)
        for b in BoardId:
            state = self._boards[b]
            if gap in {state.provisional, state.turn_unknown}:
                state.provisional = state.turn_unknown = None
            self._after_gap(b, now)

    def _after_gap(self, board: BoardId, now: float) -> None:
        state = self._boards[board]
        state.pending = state.waiting = state.correctable = state.parent = None
        state.standing_drop = None
        state.recovered_turn = None
        self._presses_absorbed(board, now)
        state.trail.clear()
        state.seen.clear()
        state.committed_ply = self._match.ply(board)
        state.moved_at = now
        state.stuck = False

    def _presses_absorbed(self, board: BoardId, now: float) -> None:
        """A gap settled (recovered or filled as it stands) absorbs every press and sensor
        change before it: the presses of plies nobody saw never come, and those a held board
        counted belong to plies inside the gap. Left over, they would be read as plies (or owed
        presses) of the moves after the gap. Nothing before the gap is revised; a run of
        readings that committed nothing starts anew."""
        state = self._boards[board]
        state.lost_track_at = None
        state.press_event(Absorbed())
        state.firmness = Firmness.FINAL
        state.confirmed_at = now
        state.changes.clear()
        state.changes_of_last = ()

    def _press_still_owed(self, board: BoardId) -> None:
        """After a gap the board often shows the last ply before its mover has hit the clock:
        while the clock (its first reading since the link returned) still runs for that mover,
        the press is owed, as for a move read before its press, and is not taken for a press of
        the side now on move (which no move follows)."""
        state = self._boards[board]
        mover = not self._match.turn(board)
        if self._match.ply(board) and state.clock.running_color() == mover:
            state.press_event(StillOwed())

    def choose_recovery(self, gap: int, index: int, now: float) -> list[Outcome]:
        """The arbiter's choice for a gap left open: its plies replace the gap in the log.
        ValueError for an unknown gap or candidate, or plies that no longer replay."""
        solution = self._gaps.get(gap)
        if solution is None:
            raise ValueError(f"there is no open gap {gap}; open gaps: {sorted(self._gaps)}")
        if not 0 <= index < len(solution.candidates):
            raise ValueError(f"gap {gap} has candidates 0-{len(solution.candidates) - 1}")
        candidate = solution.candidates[index]
        events = self._match.resolve_gap(gap, list(candidate.moves), t=now)
        self._forget_gap(gap, now)
        return [*events, *self._resolved(BoardId.A, now, ""), *self._resolved(BoardId.B, now, "")]


def _wrong_turn(reading: Reading) -> TypeGuard[Illegal]:
    """The reading is a move of the side not on move."""
    return isinstance(reading, Illegal) and reading.judgement.code is AlertCode.WRONG_TURN
