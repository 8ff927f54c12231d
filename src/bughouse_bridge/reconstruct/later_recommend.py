"""A gap left to the arbiter weighed by the moves played after it: later evidence recommends, the
arbiter decides (issue 19).

After every move committed (on either board) each open gap whose candidates are every story the
solver could tell (``gap_later.settleable``) is weighed again with the moves played since
(``gap_later.weigh_later``). When the candidates still consistent lead to one game state, one of
the shortest stories (``gap_later.among_shortest``), and each board of the gap has moved since
(its side on move was the shortest explanation's guess until then: ``gap_later.each_board_moved``),
the arbiter is told which candidate fits (``recommended``: its ``choose_recovery`` index, its
plies) and which move decided (``settled_by``: the one that ruled out the last other candidate).
The gap is not resolved here: its plies would go before moves already published, renumbering and
replaying them, and a published move is rewritten only by an arbiter's act (issue 18). The board
stays uncertain until he chooses; ``Resync.choose_recovery`` then does what it always does.
When none is consistent, or only a story longer than the shortest, the arbiter is told that
instead, once: the gap is concluded and no longer weighed. A recommended gap is still weighed
against its candidate (the gap's ``LaterState`` in the ``GapBook``: weighing, recommended,
concluded): a later move it does not fit withdraws the recommendation (the solver missed the
truth, or a move was misread), so that the arbiter is not left with a stale one.
``LaterRecommends`` is a part of the gaps' component (``resync.Resync`` holds one and asks
``weigh_later``), made of what the parts share (``gap_doors.GapWork``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from bughouse_bridge.reconstruct.alerts import gap_alert
from bughouse_bridge.reconstruct.gap import listed_candidates
from bughouse_bridge.reconstruct.gap_book import Concluded, Recommended
from bughouse_bridge.reconstruct.gap_later import (
    LaterEvidence,
    LaterMove,
    LaterVerdict,
    among_shortest,
    each_board_moved,
    later_moves,
    settleable,
    weigh_later,
)

if TYPE_CHECKING:
    from bughouse_bridge.bughouse.match import Match
    from bughouse_bridge.reconstruct.gap import GapSolution
    from bughouse_bridge.reconstruct.gap_doors import GapWork
    from bughouse_bridge.reconstruct.outcomes import Outcome

# Later moves weighed per gap: the evidence (a drop of the piece in question) comes within a few
# moves or not at all, and each weighing replays them all for every candidate.
LATER_WINDOW = 40


@dataclass(frozen=True, slots=True)
class WeighedGap:
    """A gap and the moves after it, weighed: the match before it, its solution, the verdict."""

    before: Match
    solution: GapSolution
    evidence: LaterEvidence
    later: list[LaterMove]


class LaterRecommends:
    """Gaps the later moves decide, recommended to the arbiter: see the module docstring."""

    def __init__(self, work: GapWork) -> None:
        self._work = work
        self._gaps = work.gaps

    @property
    def _match(self) -> Match:
        return self._work.match

    def weigh_later(self, now: float) -> list[Outcome]:
        """A move was committed: each open gap it may decide is weighed again."""
        out: list[Outcome] = []
        for gap in self._gaps.weighable():
            out += self._weigh_gap(gap, now)
        return out

    def _weigh_gap(self, gap: int, now: float) -> list[Outcome]:
        solution = self._gaps.solution(gap)
        if solution is None or not settleable(solution):
            return []
        later = later_moves(self._match.after_gap(gap))
        if not later or len(later) > LATER_WINDOW:
            return []
        before = self._match.before_gap(gap)
        state = self._gaps.later(gap)
        if isinstance(state, Recommended):
            chosen = solution.candidates[state.candidate : state.candidate + 1]
            return self._still_fits(gap, state, weigh_later(before, chosen, later), later, now=now)
        evidence = weigh_later(before, solution.candidates, later)
        return self._weighed(gap, WeighedGap(before, solution, evidence, later), now=now)

    def _weighed(self, gap: int, weighed: WeighedGap, *, now: float) -> list[Outcome]:
        """A gap weighed for the first time, or again: what its later moves decide."""
        evidence, later = weighed.evidence, weighed.later
        decider = _described(_decider(evidence, later))
        if evidence.verdict is LaterVerdict.CONTRADICTED:
            self._gaps.weighed(gap, Concluded())
            return [self._contradicted_alert(gap, decider, now)]
        chosen = evidence.chosen
        if chosen is None or not each_board_moved(self._gaps.targets(gap), later):
            return []
        candidates = weighed.solution.candidates
        if not among_shortest(candidates, chosen):
            self._gaps.weighed(gap, Concluded())
            return [self._longer_alert(gap, chosen, decider, now)]
        self._gaps.weighed(gap, Recommended(chosen))
        # As the gap's alert listed it, ``differs`` included (it needs all the candidates).
        recommended = listed_candidates(weighed.before, weighed.solution)[chosen]
        return [self._recommendation(gap, recommended, decider, now)]

    def _still_fits(
        self,
        gap: int,
        state: Recommended,
        alone: LaterEvidence,
        later: list[LaterMove],
        *,
        now: float,
    ) -> list[Outcome]:
        """A recommended gap, its candidate weighed ``alone``: the recommendation is withdrawn
        once a later move does not fit it (the other candidates were ruled out before: none
        fits then)."""
        if alone.verdict is not LaterVerdict.CONTRADICTED:
            return []
        self._gaps.weighed(gap, Concluded())
        decider = _described(_decider(alone, later))
        return [self._withdrawal(gap, state.candidate, decider, now)]

    def _recommendation(
        self,
        gap: int,
        recommended: dict[str, object],
        decider: dict[str, str] | None,
        now: float,
    ) -> Outcome:
        """One candidate fits the moves played since: the arbiter is asked to choose it. A
        warning, not an info: the gap is still open, the board's broadcast uncertain and its
        record without the gap's plies until he does (an info reads as "nothing to do")."""
        index = recommended["index"]
        san = recommended["san"]
        assert isinstance(san, dict)
        plies = "; ".join(f"{b}: {' '.join(moves)}" for b, moves in sorted(san.items()) if moves)
        told = (
            f"the moves played since{_by(decider)} decide the gap ({gap}): only candidate "
            f"{index} ({plies}) fits them. Recommended: choose_recovery gap {gap} candidate "
            f"{index}; the board stays uncertain until the arbiter chooses."
        )
        return self._news(gap, told, now, recommended=recommended, settled_by=decider)

    def _contradicted_alert(self, gap: int, decider: dict[str, str] | None, now: float) -> Outcome:
        told = (
            f"no candidate of the gap ({gap}) fits the moves played since{_by(decider)}; "
            "it stays with the arbiter (choose_recovery, or correct the position)."
        )
        return self._news(gap, told, now, contradicted=True, contradicted_by=decider)

    def _withdrawal(
        self, gap: int, candidate: int, decider: dict[str, str] | None, now: float
    ) -> Outcome:
        told = (
            f"the recommendation for the gap ({gap}) is withdrawn: candidate {candidate} does "
            f"not fit the moves played since{_by(decider)}, and no other does; it stays with "
            "the arbiter (choose_recovery, or correct the position)."
        )
        return self._news(gap, told, now, withdrawn=candidate, withdrawn_by=decider)

    def _longer_alert(
        self, gap: int, chosen: int, decider: dict[str, str] | None, now: float
    ) -> Outcome:
        """Only a story longer than the shortest fits the moves played since: the arbiter is
        told which, with no recommendation (a story longer still may fit as well)."""
        told = (
            f"of the gap's ({gap}) candidates only {chosen}, a longer story than the "
            "shortest, fits the moves played since; it stays with the arbiter (choose_recovery)."
        )
        return self._news(gap, told, now, fits=chosen, ruled_out_by=decider)

    def _news(self, gap: int, told: str, now: float, **details: object) -> Outcome:
        """What the later moves told of ``gap``: a warning on its first board."""
        board = min(self._gaps.targets(gap))
        return gap_alert(now, board, f"Board {board}: {told}", gap=gap, **details)


def _decider(evidence: LaterEvidence, later: list[LaterMove]) -> LaterMove | None:
    index = evidence.decided_by
    return later[index] if index is not None and index >= 0 else None


def _described(move: LaterMove | None) -> dict[str, str] | None:
    return None if move is None else {"board": str(move.move.board), "uci": move.move.uci}


def _by(decider: dict[str, str] | None) -> str:
    return "" if decider is None else f" ({decider['uci']} on board {decider['board']})"
