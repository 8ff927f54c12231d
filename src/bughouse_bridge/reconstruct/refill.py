"""A fill's later look: a gap nothing explained was filled with the boards as they stood, and
that fill is a guess. A later settled look at the boards solves the gap again (``redo_fill``,
``_refill``) and, when it explains the gap after all, its plies replace the fill
(``_recovered_later``). ``Refills`` is a part of the gaps' component: ``resync.Resync`` holds one
and asks ``redo_fill`` when a reading may be that later look; it shares the gaps' work
(``gap_doors.GapWork``) and settles what a refill leaves through ``guesses.Guesses``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from bughouse_bridge.bughouse.events import LinkChanged
from bughouse_bridge.bughouse.match_log import Played
from bughouse_bridge.bughouse.types import BoardId
from bughouse_bridge.reconstruct.alerts import gap_alert, gap_resolved
from bughouse_bridge.reconstruct.gap import (
    GapSolution,
    filled_positions,
    gap_details,
    order_details,
    solve_gap,
)
from bughouse_bridge.reconstruct.reading_machine import Asked
from bughouse_bridge.reconstruct.reading_values import Illegal, Legal, Unexplained, Waiting

if TYPE_CHECKING:
    from bughouse_bridge.bughouse.match import Match
    from bughouse_bridge.reconstruct.gap_doors import GapWork
    from bughouse_bridge.reconstruct.guesses import Guesses
    from bughouse_bridge.reconstruct.outcomes import Outcome
    from bughouse_bridge.reconstruct.reading_values import Reading


class Refills:
    """A fill's later look: see the module docstring."""

    def __init__(self, work: GapWork, guesses: Guesses) -> None:
        self._work = work
        self._guesses = guesses
        self._gaps = work.gaps
        self._boards = work.boards
        self._doors = work.doors
        self.config = work.config

    @property
    def _match(self) -> Match:
        return self._work.match

    def redo_fill(self, board: BoardId, reading: Reading, now: float) -> list[Outcome] | None:
        """A fill made from a placement no plies explain may have caught a hand in motion (a
        capture with both pieces in the air): its pockets count the lifted pieces as captured,
        and the landing would read as a drop. So for ``unexplained_limit`` after such a fill,
        a settled placement that reads as a drop, a drop waiting for its piece or an illegal
        move from it is taken as a better look at the gap: solved again from the game before
        the gap, and recovered or filled anew. A placement nothing explains may be a hand in
        motion again and waits as usual; a plain move ends the doubt. ``None``: read it as
        usual."""
        state = self._boards[board]
        gap = self._gaps.provisional(board)
        if gap is None:
            return None
        if isinstance(reading, Unexplained):
            return None  # perhaps a hand in motion again: wait for more, as usual
        drop = isinstance(reading, Legal) and any(m.is_drop for m in reading.moves)
        suspect = drop or isinstance(reading, Waiting | Illegal)
        if not suspect or now >= self._gaps.provisional_until(board):
            self._gaps.fill_confirmed(board)  # the fill was whole (or has stood long enough)
            return None
        if now < state.changed_at + self.config.stability_window:
            return []  # looked at again once settled: the placement's due
        solution = self._gaps.solution(gap)
        if solution is not None and solution.candidates:
            return self._shorter_story(board, gap, solution, _plies(reading), now)
        return self._refill(board, gap, now)

    def _shorter_story(
        self, board: BoardId, gap: int, solution: GapSolution, plies: int, now: float
    ) -> list[Outcome] | None:
        """A gap the arbiter was offered candidates for, then a suspect reading (a drop, a drop
        waiting for its piece, an illegal move): the dump may have caught a hand in motion,
        which only detours explain (a piece in the hand counted as captured, its landing then a
        drop). Looked at once: an explanation from the game before the gap to what the boards
        show now that is unique and shorter than the candidates' plus the reading's replaces
        the fill, as an arbiter takes the shorter story the board now tells. Else the fill
        stands and the reading is read as usual (``None``)."""
        boards, targets = self._shown_now(gap)
        for b in boards:
            self._gaps.fill_confirmed(b)  # looked at once: it stands, or is redone
        if targets is None:
            return None
        better = solve_gap(self._match.before_gap(gap), targets)
        shortest = min(len(candidate.moves) for candidate in solution.candidates)
        unique = better.unique
        if unique is None or not better.confirmed or len(unique.moves) >= shortest + plies:
            return None
        return self._recovered_later(board, gap, better, now)

    def _refill(self, board: BoardId, gap: int, now: float) -> list[Outcome] | None:
        """Solve ``gap`` again with what its doubtful boards show now. ``None`` when it cannot
        be redone (a placement unknown, or the log after the gap no longer replays on it)."""
        boards, targets = self._shown_now(gap)
        if targets is None:
            return None
        before = self._match.before_gap(gap)
        solution = solve_gap(before, targets)
        if solution.unique is not None:
            recovered = self._recovered_later(board, gap, solution, now)
            if recovered is not None:
                if not solution.confirmed:
                    self._gaps.unconfirmed(targets)
                return recovered
        fens = filled_positions(before, targets, dict.fromkeys(targets), solution)
        try:
            self._match.refill_gap(gap, fens)
        except ValueError:
            for b in boards:
                self._gaps.fill_confirmed(b)
            return None
        # Candidates now: they are asked for at once (below). Still none: the gap's alert, if
        # not out yet, keeps its time (the better looks' window does not grow).
        held = None if solution.candidates else self._gaps.held(gap)
        self._gaps.open(gap, solution, targets, held=held)
        for b in boards:
            self._guesses.after_gap(b, now)
            self._boards[b].track_event(Asked())
            until = self._gaps.provisional_until(b) or None
            self._gaps.filled(b, gap, turn_guessed=True, doubtful_until=until)
        refilled = {"missing_plies": None, "gap": gap, "refilled": True}
        out: list[Outcome] = [LinkChanged(now, str(board), "resynced", refilled)]
        if solution.candidates:
            message = (
                f"Board {board} has settled: {len(solution.candidates)} different sequences "
                "of moves explain the gap; choose one with choose_recovery."
            )
            details = gap_details(gap, before, solution)
            out.insert(0, gap_alert(now, board, message, **details))
        return out + self._doors.nudge(board.other, now)

    def _shown_now(self, gap: int) -> tuple[list[BoardId], dict[BoardId, str] | None]:
        """The boards still in doubt about ``gap`` and its targets with what they show now
        (``None`` while a placement is unknown)."""
        boards = [b for b in BoardId if self._gaps.provisional(b) == gap]
        targets = self._gaps.targets(gap)
        for b in boards:
            physical = self._doors.physical(b)
            if physical is None:
                return boards, None
            targets[b] = physical
        return boards, targets

    def _recovered_later(
        self, board: BoardId, gap: int, solution: GapSolution, now: float
    ) -> list[Outcome] | None:
        """A later look at the boards explains the gap after all: its plies replace the fill.
        When other orders fit as well, the plies say so (``order_certain`` false) and the
        details list the orders; later plies were played on top, so the order is not offered
        for ``choose_recovery`` (a rewrite under them would re-read what the boards showed)."""
        candidate = solution.candidates[0]
        if self._published_since(gap, {move.board for move in candidate.moves}):
            return None
        asked = self._gaps.held(gap) is None  # the arbiter was told of the gap: tell him it is over
        before = self._match.before_gap(gap)
        try:
            events = self._match.resolve_gap(
                gap, list(candidate.moves), t=now, order_certain=solution.order_certain
            )
        except ValueError:
            return None
        self._guesses.forget_gap(gap, now)
        for b in {board, *(move.board for move in candidate.moves)}:
            self._guesses.press_still_owed(b)
        self._guesses.turn_guessed(candidate)
        details: dict[str, object] = {
            "missing_plies": len(candidate.moves),
            "recovered": {str(b): [m.uci for m in candidate.on(b)] for b in BoardId},
            "gap": gap,
        }
        if not solution.order_certain:
            details |= order_details(gap, before, solution) | {"reorderable": False}
        message = f"Board {board}: the gap is explained after all; its moves are recovered."
        resolved = [gap_resolved(now, board, gap, message)] if asked else []
        return [*events, *resolved, LinkChanged(now, str(board), "resynced", details)]

    def _published_since(self, gap: int, boards: set[BoardId]) -> bool:
        """A move of ``boards`` was published after ``gap`` (a board of a joint gap whose doubt
        a plain move ended): the gap's plies would go before it and renumber it, which only the
        arbiter's ``choose_recovery`` may do (a confirmed move is never rewritten)."""
        return any(
            isinstance(entry, Played) and entry.move.board in boards
            for entry in self._match.after_gap(gap)
        )


def _plies(reading: Reading) -> int:
    """The plies a reading would add to the game (an illegal move or a waiting drop: one)."""
    return len(reading.moves) if isinstance(reading, Legal) else 1
