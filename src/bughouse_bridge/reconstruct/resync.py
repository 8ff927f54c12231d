"""Gaps: a link back (or a board nothing explains while on a gap's guess) is reconciled with the
game (``gap.solve_gap``): its plies recovered, or the boards set to what they show and the gap
left to the arbiter. Recoveries and fills are guesses, and the side on move they leave is one:
``review`` is the one door through which a later reading is weighed as their evidence.

``Resync`` is a plain object the reconstructor holds (not a layer of it, as ``flags.Flags``): it
owns the gaps' book (``gap_book.GapBook``) and reaches the reconstructor only through its doors
(``gap_doors.GapDoors``). Its interface: ``review`` (a reading: ``Proceed | Reread | Handled``),
``settle_gap`` (a link back, once its board settled), ``unexplained`` (a board on a guess nothing
explains), ``supplied`` (a drop the guessed pockets lack),
``guessed``, ``move_committed`` (a move confirms a recovery's side on move), ``weigh_later`` (a
move committed may decide a gap left to the arbiter, which is then recommended to him:
``later_recommend.LaterRecommends``),
``pressed_without_move`` and ``press_still_owed`` (what a press tells of the side on move after
a gap), ``choose_recovery`` (the arbiter's choice). A new game starts a new one.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from bughouse_bridge.bughouse.events import LinkChanged, MovePlayed
from bughouse_bridge.bughouse.types import BoardId
from bughouse_bridge.reconstruct.alerts import gap_alert, left_to_arbiter
from bughouse_bridge.reconstruct.gap import (
    Candidate,
    GapSolution,
    filled_positions,
    gap_details,
    order_details,
    solve_gap,
)
from bughouse_bridge.reconstruct.gap_book import HeldAlert
from bughouse_bridge.reconstruct.gap_doors import GapWork, Handled, Proceed, Reread, Weighed
from bughouse_bridge.reconstruct.gap_pockets import GapPockets
from bughouse_bridge.reconstruct.guesses import Guesses, lacking_drop, wrong_turn
from bughouse_bridge.reconstruct.later_recommend import LaterRecommends
from bughouse_bridge.reconstruct.link import Deferred, Reconciled, Settling
from bughouse_bridge.reconstruct.reading_machine import Timed, Unheld
from bughouse_bridge.reconstruct.reading_values import Legal
from bughouse_bridge.reconstruct.refill import Refills
from bughouse_bridge.reconstruct.reorder import OrderedRecovery, reorder
from bughouse_bridge.reconstruct.solver.evidence import gap_evidence

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    import chess

    from bughouse_bridge.bughouse.events import MatchEvent
    from bughouse_bridge.bughouse.match import Match
    from bughouse_bridge.bughouse.types import BughouseMove, Judgement
    from bughouse_bridge.reconstruct.gap_doors import GapDoors
    from bughouse_bridge.reconstruct.gap_guess import RecoveredTurn
    from bughouse_bridge.reconstruct.outcomes import Outcome
    from bughouse_bridge.reconstruct.reading_values import Reading


class Resync:
    """The gaps' component: see the module docstring. Made of parts, each with its interface:
    what they share (``gap_doors.GapWork``: the doors, the book, the boards, the game), the
    guesses a gap leaves (``guesses.Guesses``), a fill's later look (``refill.Refills``) and
    the gaps later moves decide, recommended to the arbiter
    (``later_recommend.LaterRecommends``)."""

    def __init__(self, doors: GapDoors) -> None:
        self._work = GapWork(doors)
        self._guesses = Guesses(self._work)
        self._refills = Refills(self._work, self._guesses)
        self._later = LaterRecommends(self._work)
        self._doors = doors
        self._gaps = self._work.gaps
        self._boards = self._work.boards
        self.config = self._work.config

    @property
    def _match(self) -> Match:
        return self._work.match

    def supplied(
        self, board: BoardId, move: BughouseMove, standing: Judgement | None, now: float
    ) -> list[MatchEvent] | None:
        """A drop its pockets lack, weighed as a gap's evidence (``gap_pockets.GapPockets``)."""
        return GapPockets(self._match, self._gaps).supplied(board, move, standing, now)

    def guessed(self) -> set[BoardId]:
        """The boards whose position or pockets are (partly) a gap's guess."""
        return self._gaps.guessed()

    def move_committed(self, board: BoardId) -> None:
        """A move committed after a recovery confirms the side on move it guessed."""
        self._gaps.recovery_confirmed(board)

    def pressed_without_move(self, board: BoardId) -> bool:
        """A press with no move of the side thought on move (``Guesses``)."""
        return self._guesses.pressed_without_move(board)

    def press_still_owed(self, board: BoardId) -> None:
        """After a gap the press of its last ply may still be owed (``Guesses``)."""
        self._guesses.press_still_owed(board)

    def weigh_later(self, now: float) -> list[Outcome]:
        """A move was committed: a gap left to the arbiter it may decide (``LaterRecommends``)."""
        return self._later.weigh_later(now)

    def review(self, board: BoardId, reading: Reading, now: float) -> Weighed:
        """The one door through which the reader asks whether a reading is evidence about a
        gap: a board held while the other link is down, a guessed side on move the reading
        corrects, a recovery it disproves, a fill it shows was made from a hand in motion."""
        if self._guesses.hold(board, reading):
            return Handled([])
        if self._guesses.wrong_guess(board, reading):
            return Reread()
        disproved = self._recovery_disproved(board, reading, now)
        if disproved is not None:
            return Handled(disproved)
        redone = self._refills.redo_fill(board, reading, now)
        if redone is not None:
            return Handled(redone)
        return Proceed()

    def unexplained(self, board: BoardId, now: float) -> list[Outcome] | None:
        """A board nothing explains whose position is a gap's guess (or follows from one): it
        is more of the gap, not a fault of the players; it is solved from the game as it
        stands, so the broadcast never stays behind the board. Timed from the first reading
        that committed nothing, not from the last change: in fast play the placement changes
        every second or two, and would never stand unexplained so long. ``None``: the board is
        on no guess, its placement is the players' (an ``unexplained_position`` alert)."""
        if board not in self._gaps.guessed():
            return None
        state = self._boards[board]
        since = state.changed_at if state.lost_track_at is None else state.lost_track_at
        due = since + self.config.unexplained_limit
        if now < due:
            state.track_event(Timed(due))
            return []
        return self._reconcile(board, now)

    def settle_gap(self, board: BoardId, now: float) -> list[Outcome]:
        state = self._boards[board]
        if now < state.changed_at + self.config.stability_window:
            return []  # settled at the placement's due
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
        self._boards[board].link_event(Deferred(settling))  # ``Settling`` carries the deadline
        return True

    def _reconcile(
        self, board: BoardId, now: float, settling: Settling | None = None
    ) -> list[Outcome]:
        """A link is back (or the dump asked for by ``resync``/a start-up): find the plies that
        lead from the game to what the boards show now (``gap.solve_gap``)."""
        link = str(board)
        boards = [board, *([board.other] if self._boards[board.other].held else [])]
        targets = {b: self._doors.physical(b) for b in boards}
        known = {b: placement for b, placement in targets.items() if placement is not None}
        if targets[board] is None or all(
            placement == self._match.board_fen(b) for b, placement in known.items()
        ):
            for b in boards:
                self._boards[b].reading_event(Unheld())
            return [
                LinkChanged(now, link, "resynced", {"missing_plies": 0}),
                *self._nudge_all(boards, now),
            ]
        # The clock's running side is not used as the side on move: read as the link returns it
        # is often a press in flight (or a White side learned wrong), and a wrong parity gives a
        # wrong answer. The shortest explanation decides the side on move instead.
        clocks = {b: self._boards[b].clock for b in known}
        solution = solve_gap(self._match, known, evidence=gap_evidence(clocks))  # issue 19
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
        and the gap left to the arbiter. ``turns``
        names the boards solved and the side on move each is known to have (``None``: the
        shortest explanation's, a guess)."""
        boards = list(turns)
        for b in boards:
            self._boards[b].reading_event(Unheld())
        if solution.unique is not None:
            if not solution.confirmed:
                self._gaps.unconfirmed(boards)
            recovered = self._recovered(board, solution.unique, now, solution=solution)  # issue 19
            return recovered + self._nudge_all(boards, now)
        # Either way the boards are read again at once: a move made on top of the placements
        # solved (the one that disproved a recovery) waits for no later sensor change.
        left = self._left_to_arbiter(board, targets, turns, solution, now)
        return left + self._nudge_all(boards, now)

    def _nudge_all(self, boards: Sequence[BoardId], now: float) -> list[Outcome]:
        out: list[Outcome] = []
        for b in boards:
            out += self._doors.reread(b, now)
        return out

    def _recovered(
        self,
        board: BoardId,
        candidate: Candidate,
        now: float,
        *,
        solution: GapSolution | None = None,
    ) -> list[Outcome]:
        certain = solution is None or solution.order_certain  # issue 19
        before = self._match.copy()  # issue 19: the other orders' SAN are read from it
        out: list[Outcome] = []
        for move in candidate.moves:
            events = [
                replace(event, recovered=True) if isinstance(event, MovePlayed) else event
                for event in self._match.play(move, t=now, recovered=True, order_certain=certain)
            ]
            out += self._doors.after_commit(move.board, move, events, now)
            last = self._boards[move.board].last
            self._boards[move.board].last = last.forgotten(last.ply)
        for b in {board, *(move.board for move in candidate.moves)}:
            self._guesses.presses_absorbed(b, now)
            self.press_still_owed(b)
        self._guesses.turn_guessed(candidate)
        details = {
            "missing_plies": len(candidate.moves),
            "recovered": {str(b): [m.uci for m in candidate.on(b)] for b in BoardId},
        }
        if solution is not None and not certain:  # issue 19: other orders fit; choose_recovery
            gap = self._gaps.reorderable(OrderedRecovery.of(self._match, solution))
            details |= order_details(gap, before, solution)
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
        right at once), the log keeps the gap, and the arbiter may choose a candidate; he is
        asked at the end of the better looks' window unless one settles the gap before (its
        alert is held, so that no look settles a gap he was asked about)."""
        gap = self._gaps.next_id()  # ids are never reused in a game, settled gaps included
        details = gap_details(gap, self._match, solution)
        fens = filled_positions(self._match, targets, turns, solution)
        self._match.fill_gap(gap, fens, boards=targets, t=now)
        # The dump may have caught a hand in motion, whether nothing explains it or only longer
        # detours do: a better look follows until ``doubtful`` (``Refills.redo_fill``).
        doubtful = now + self.config.unexplained_limit
        message = left_to_arbiter(board, len(solution.candidates), solution.verdict)
        asked = gap_alert(doubtful, board, message, **details)
        self._gaps.open(gap, solution, targets, held=HeldAlert(asked))
        for b in targets:
            self._guesses.after_gap(b, now)
            # A guess (the first candidate's, or the old side on move): a move of the other
            # side right after the gap corrects it instead of being called a wrong turn.
            turn_guessed = turns.get(b) is None
            self._gaps.filled(b, gap, turn_guessed=turn_guessed, doubtful_until=doubtful)
        return [LinkChanged(now, str(board), "resynced", {"missing_plies": None, "gap": gap})]

    def release_held(self, now: float) -> list[Outcome]:
        """The gaps' alerts held for a better look that did not settle them, now due."""
        return list(self._gaps.release_held(now))

    def held_due(self) -> float | None:
        return self._gaps.held_due()

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
        recovery, or it cannot be taken back; read as usual. A drop its pocket lacks is weighed
        by ``_recovery_relooked``."""
        guess = self._gaps.recovered_turn(board)
        if guess is not None and lacking_drop(reading):
            return self._recovery_relooked(board, guess, now)
        if guess is not None and isinstance(reading, Legal):
            return self._recovery_relooked(
                board, guess, now, beat=len(guess.moves) + len(reading.moves)
            )
        if guess is None or not wrong_turn(reading):
            return None
        for b in guess.boards:
            self._gaps.recovery_confirmed(b)
        if not self._guesses.can_take_back(guess):
            return None
        # The placements the recovery reached were right; the side on move was not.
        targets = {b: self._match.board_fen(b) for b in guess.boards}
        turns: dict[BoardId, chess.Color | None] = dict.fromkeys(targets)
        turns[board] = reading.color
        out = self._taken_back(guess, now)
        solution = solve_gap(self._match, targets, turns=turns)
        return out + self._settle(board, targets, turns, solution, now)

    def _taken_back(self, guess: RecoveredTurn, now: float) -> list[Outcome]:
        out: list[Outcome] = []
        for move in reversed(guess.moves):
            out += self._match.takeback(move.board, t=now)
        for b in guess.boards:
            self._guesses.after_gap(b, now)
        return out

    def _recovery_relooked(
        self, board: BoardId, guess: RecoveredTurn, now: float, *, beat: int | None = None
    ) -> list[Outcome] | None:
        """A recovery solved from a dump that caught a hand in motion (a piece lifted, its
        square empty) explains the lifted piece as captured — by a detour of extra plies when
        no capture of it lies on the way: it went into a pocket, and its landing then reads as
        a drop (of a piece the dropper lacks, which a forced drop would lend him: the piece
        counted twice; or of one he holds, which spends it). So the first settled placement
        after a recovery is a better look at the gap: solved again from the game before the
        recovered plies to what the board shows now, an explanation that is unique and — for
        a reading that is a legal move (``beat``: the recovered plies and that move) — shorter
        replaces the recovery, as an arbiter takes the shorter story the board now tells.
        ``None`` (nothing changed; the reading is read as usual) when no such explanation
        exists or the recovery cannot be taken back."""
        if now < self._boards[board].changed_at + self.config.stability_window:
            return []  # looked at once settled: the placement's due
        for b in guess.boards:
            self._gaps.recovery_confirmed(b)  # looked at once: it stands, or is redone
        physical = self._doors.physical(board)
        if physical is None or not self._guesses.can_take_back(guess):
            return None
        targets = {b: self._match.board_fen(b) for b in guess.boards} | {board: physical}
        trial = self._match.copy()
        for move in reversed(guess.moves):
            trial.takeback(move.board, t=now)
        solution = solve_gap(trial, targets)
        unique = solution.unique
        if unique is None or (beat is not None and len(unique.moves) >= beat):
            return None
        out = self._taken_back(guess, now)
        return out + self._settle(board, targets, dict.fromkeys(targets), solution, now)

    def choose_recovery(self, gap: int, index: int, now: float) -> list[Outcome]:
        """The arbiter's choice for a gap left open: its plies replace the gap in the log.
        ValueError for an unknown gap or candidate, or plies that no longer replay."""
        order = self._gaps.order(gap)
        if order is not None:  # issue 19: a recovery's order re-chosen
            events = reorder(self._match, order, index, t=now)
            self._gaps.reordered(gap)
            return list(events)
        solution = self._gaps.solution(gap)
        if solution is None:
            open_gaps = self._gaps.open_ids()
            raise ValueError(f"there is no open gap {gap}; open gaps: {open_gaps}")
        if not 0 <= index < len(solution.candidates):
            raise ValueError(f"gap {gap} has candidates 0-{len(solution.candidates) - 1}")
        candidate = solution.candidates[index]
        events = self._match.resolve_gap(gap, list(candidate.moves), t=now)
        self._guesses.forget_gap(gap, now)
        return [
            *events,
            *self._doors.resolved(BoardId.A, now, ""),
            *self._doors.resolved(BoardId.B, now, ""),
        ]
