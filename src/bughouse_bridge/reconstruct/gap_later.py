"""A gap left to the arbiter, weighed again by what was played after it (issue 19). Pure.

A gap nothing settles alone is usually ambiguous only in the pockets: a piece dropped and taken
at once, whose kind the placement cannot show (``P@f4 exf4`` or ``N@f4 exf4``). An arbiter
decides it from what happens next, on either board: the captured piece went to the capturer's
partner, so a later drop of a piece only some candidates put in a pocket (the dropper's own, or
the partner's on the other board) rules the others out, and so does any later move that is
illegal after a candidate's end state (a wrong side on move, a castling right gone).

``weigh_later(before, candidates, later)`` replays each candidate's plies from the match before
the gap, then the moves committed since (both boards, in playing order) through a copy of the
``Match``, which alone decides legality under the configured rules. The candidates still
consistent are grouped by the game state they lead to now (``solver.joint.end_state`` of both
boards: placements, pockets, side on move, castling, en passant): *settled* when exactly one
such state remains, *contradicted* when none does (the truth was not among the candidates),
*open* otherwise. A move that stood although illegal (``forced``, an illegal drop before the
row-9 remedy) is replayed as it stood: it tells nothing.

What later moves may decide (the policy, the same live and in the bench): a gap whose candidates
are every story the solver could tell (``settleable``), for a survivor that is one of the shortest
stories (``among_shortest``), once each board of the gap has moved since (``each_board_moved``:
the side on move the gap left is a guess until then). Decided is not resolved: the survivor is
recommended to the arbiter, whose ``choose_recovery`` resolves the gap
(``later_recommend.LaterRecommends``).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import TYPE_CHECKING

from bughouse_bridge.bughouse.judging import IllegalMoveError
from bughouse_bridge.bughouse.match_log import (
    ClaimConfirmed,
    FlagFell,
    IllegalSeen,
    Played,
    ResultSet,
    ResultWithdrawn,
)
from bughouse_bridge.reconstruct.gap import Verdict
from bughouse_bridge.reconstruct.solver.joint import end_state

if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence

    from bughouse_bridge.bughouse.match import Match
    from bughouse_bridge.bughouse.match_log import Entry
    from bughouse_bridge.bughouse.types import BoardId, BughouseMove
    from bughouse_bridge.reconstruct.gap import Candidate, GapSolution

__all__ = [
    "LaterEvidence",
    "LaterMove",
    "LaterVerdict",
    "among_shortest",
    "each_board_moved",
    "later_moves",
    "settleable",
    "weigh_later",
]

# Entries after a gap that change no board: replaying the moves alone replays the game.
_BESIDE_THE_BOARDS = (FlagFell, IllegalSeen, ClaimConfirmed, ResultSet, ResultWithdrawn)


class LaterVerdict(StrEnum):
    SETTLED = "settled"  # the survivors agree on one game state now
    OPEN = "open"  # several game states remain
    CONTRADICTED = "contradicted"  # no candidate replays the later moves


@dataclass(frozen=True, slots=True)
class LaterMove:
    """A move committed after the gap; ``forced``: an illegal move that stood (row 9)."""

    move: BughouseMove
    forced: bool = False


@dataclass(frozen=True, slots=True)
class LaterEvidence:
    """What the later moves leave of a gap's candidates."""

    verdict: LaterVerdict
    survivors: tuple[int, ...]  # indices of the candidates still consistent, in their order
    states: tuple[tuple[str, ...], ...]  # the distinct game states they lead to now
    # The index (in ``later``) of the move that ruled out the last rival (settled) or the last
    # candidate (contradicted); ``None`` when nothing was ruled out.
    decided_by: int | None

    @property
    def chosen(self) -> int | None:
        """The candidate the later moves decide for: the most plausible survivor (``None``: not
        settled)."""
        return self.survivors[0] if self.verdict is LaterVerdict.SETTLED else None


def settleable(solution: GapSolution) -> bool:
    """Whether later moves may decide the gap: its candidates are every end state that its
    shortest explanations and the confirmation (two plies longer) reach. Not so after the work
    cap (``unknown``) or a confirmation that ran out of work: the truth may be a story nobody
    listed, which the later moves would not rule out while they ruled out the others."""
    return solution.verdict is Verdict.AMBIGUOUS and solution.confirmed


def among_shortest(candidates: Sequence[Candidate], index: int) -> bool:
    """Whether the candidate is one of the shortest explanations. Only those are recommended on
    the later moves' evidence: the candidates list every story up to two plies longer than the
    shortest, so a shortest one left alone has been weighed against every story two plies
    longer, as a unique explanation is before it is published; a longer one has not (the truth
    may be two plies longer still, and fit the later moves as well)."""
    fewest = min(len(candidate.moves) for candidate in candidates)
    return len(candidates[index].moves) == fewest


def each_board_moved(boards: Iterable[BoardId], later: Sequence[LaterMove]) -> bool:
    """Whether each of the gap's ``boards`` has a move since. The solver searches the side on
    move that its shortest explanation leaves (the clock is not trusted as a link returns), so
    the candidates may all have the other side on move than the truth: the first move on that
    board rules them all out. Before it, a decision by the other board's moves could pick a
    candidate with the wrong side on move."""
    moved = {played.move.board for played in later}
    return all(board in moved for board in boards)


def later_moves(entries: Sequence[Entry]) -> list[LaterMove] | None:
    """The moves of the log's ``entries`` after a gap, in playing order. ``None`` when an entry
    changes a board otherwise (an arbiter's correction, a removed illegal drop, another gap):
    the moves alone no longer tell what the boards went through."""
    moves: list[LaterMove] = []
    for entry in entries:
        if isinstance(entry, Played):
            moves.append(LaterMove(entry.move, forced=entry.force))
        elif not isinstance(entry, _BESIDE_THE_BOARDS):
            return None
    return moves


def weigh_later(
    before: Match, candidates: Sequence[Candidate], later: Sequence[LaterMove]
) -> LaterEvidence:
    """The candidates of a gap (their plies played from ``before``, the match just before it)
    that the moves committed since (``later``) leave standing; see the module docstring."""
    survivors: list[int] = []
    states: list[tuple[str, ...]] = []
    failures: list[int] = []
    for index, candidate in enumerate(candidates):
        failed, state = _replay(before, candidate, later)
        if failed is not None:
            failures.append(failed)
            continue
        survivors.append(index)
        if state not in states:
            states.append(state)
    decided_by = max(failures, default=None)
    if not survivors:
        return LaterEvidence(LaterVerdict.CONTRADICTED, (), (), decided_by)
    verdict = LaterVerdict.SETTLED if len(states) == 1 else LaterVerdict.OPEN
    if verdict is LaterVerdict.SETTLED and len(candidates) == 1:
        decided_by = None  # nothing to choose between: the gap was never ambiguous
    return LaterEvidence(verdict, tuple(survivors), tuple(states), decided_by)


def _replay(
    before: Match, candidate: Candidate, later: Sequence[LaterMove]
) -> tuple[int | None, tuple[str, ...]]:
    """The index of the first later move the candidate makes impossible (``-1``: its own plies
    no longer replay), or ``None`` and the game state it leads to."""
    replay = before.copy()
    if not all(replay.play_quietly(move) for move in candidate.moves):
        return -1, ()
    for index, played in enumerate(later):
        if played.forced:
            try:
                replay.play(played.move, t=0.0, force=True)
            except IllegalMoveError:
                return index, ()
        elif not replay.play_quietly(played.move):
            return index, ()
    return None, end_state(replay)
