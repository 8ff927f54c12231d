"""A gap left to the arbiter settled by the moves played after it, as an arbiter would (issue 19).

After every move committed (on either board) each open gap whose candidates are every story the
solver could tell (``gap_later.settleable``) is weighed again with the moves played since
(``gap_later.weigh_later``). When the candidates still consistent lead to one game state, and
each board of the gap has moved since (its side on move was the shortest explanation's guess
until then: ``gap_later.each_board_moved``), the gap is settled exactly as the arbiter's
``choose_recovery`` settles it: the candidate's plies replace the gap in the log
(``Match.resolve_gap``), the moves after it are replayed on them (the positions and pockets
published become the candidate's, the ply numbers and the record follow), and the arbiter is
told which move decided (``settled_by``: the one that ruled out the last other candidate). When
none is consistent, or only a story longer than the shortest (``gap_later.among_shortest``), the
gap stays with the arbiter, who is told once. ``LaterSettles`` is a part of the gaps' component
(``resync.Resync`` holds one and asks ``weigh_later``), made of what the parts share
(``gap_doors.GapWork``). A gap settled so has both boards read again (``GapBook.reread``).
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from bughouse_bridge.bughouse.events import LinkChanged
from bughouse_bridge.bughouse.types import BoardId
from bughouse_bridge.reconstruct.alerts import gap_alert, gap_resolved
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
    from bughouse_bridge.reconstruct.gap import Candidate
    from bughouse_bridge.reconstruct.gap_doors import GapWork
    from bughouse_bridge.reconstruct.outcomes import Outcome

# Later moves weighed per gap: the evidence (a drop of the piece in question) comes within a few
# moves or not at all, and each weighing replays them all for every candidate.
LATER_WINDOW = 40


class LaterSettles:
    """Gaps settled by later moves: see the module docstring."""

    def __init__(self, work: GapWork) -> None:
        self._work = work
        self._gaps = work.gaps
        self._boards = work.boards
        self._doors = work.doors

    @property
    def _match(self) -> Match:
        return self._work.match

    def weigh_later(self, now: float) -> list[Outcome]:
        """A move was committed: each open gap it may settle is weighed again."""
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
        evidence = weigh_later(self._match.before_gap(gap), solution.candidates, later)
        decider = _decider(evidence, later)
        if evidence.verdict is LaterVerdict.CONTRADICTED:
            self._gaps.concluded(gap)
            return [self._contradicted_alert(gap, decider, now)]
        chosen = evidence.chosen
        if chosen is None or not each_board_moved(self._gaps.targets(gap), later):
            return []
        if not among_shortest(solution.candidates, chosen):
            self._gaps.concluded(gap)
            return [self._longer_alert(gap, chosen, decider, now)]
        return self._settled_later(gap, solution.candidates[chosen], decider, now)

    def _settled_later(
        self, gap: int, candidate: Candidate, decider: LaterMove | None, now: float
    ) -> list[Outcome]:
        """``gap`` settled by ``candidate`` as ``choose_recovery`` would settle it. The boards'
        last moves stay revisable by their movers (their ply numbers follow the plies put
        before them), and both boards are read again (a drop that waited for its piece may
        find it in the pockets the candidate leaves)."""
        board = min(self._gaps.targets(gap))
        plies = {b: self._match.ply(b) for b in BoardId}
        try:
            events = self._match.resolve_gap(gap, list(candidate.moves), t=now)
        except ValueError:  # the log after it no longer replays: left to the arbiter
            self._gaps.concluded(gap)
            return []
        settled_by = _described(decider)
        how = "the moves played since" + (
            f" ({settled_by['uci']} on board {settled_by['board']})" if settled_by else ""
        )
        self._gaps.settled_later(gap, how)
        self._gaps.fill_settled(gap)
        for b in BoardId:
            state, added = self._boards[b], self._match.ply(b) - plies[b]
            if added and state.last.ply == plies[b]:
                state.last = replace(state.last, ply=state.last.ply + added)
            self._gaps.reread(b, now)
        message = (
            f"Board {board}: the gap ({gap}) is settled by {how}: only one of its candidates "
            "fits them; its moves are recovered."
        )
        resolved = gap_resolved(now, board, gap, message, settled_by=settled_by)
        details = {
            "missing_plies": len(candidate.moves),
            "recovered": {str(b): [m.uci for m in candidate.on(b)] for b in BoardId},
            "gap": gap,
            "settled_by": settled_by,
        }
        return [
            *events,
            resolved,
            LinkChanged(now, str(board), "resynced", details),
            *self._doors.resolved(BoardId.A, now, ""),
            *self._doors.resolved(BoardId.B, now, ""),
        ]

    def _contradicted_alert(self, gap: int, decider: LaterMove | None, now: float) -> Outcome:
        board = min(self._gaps.targets(gap))
        settled_by = _described(decider)
        message = (
            f"Board {board}: no candidate of the gap ({gap}) fits the moves played since"
            + (f" ({settled_by['uci']} on board {settled_by['board']})" if settled_by else "")
            + "; it stays with the arbiter (choose_recovery, or correct the position)."
        )
        return gap_alert(
            now,
            board,
            message,
            gap=gap,
            contradicted=True,
            contradicted_by=settled_by,
        )

    def _longer_alert(
        self, gap: int, chosen: int, decider: LaterMove | None, now: float
    ) -> Outcome:
        """Only a story longer than the shortest fits the moves played since: the arbiter is
        told which (it is not settled alone: a story longer still may fit as well)."""
        board = min(self._gaps.targets(gap))
        ruled_out_by = _described(decider)
        message = (
            f"Board {board}: of the gap's ({gap}) candidates only {chosen}, a longer story than "
            "the shortest, fits the moves played since; it stays with the arbiter "
            "(choose_recovery)."
        )
        return gap_alert(
            now,
            board,
            message,
            gap=gap,
            fits=chosen,
            ruled_out_by=ruled_out_by,
        )


def _decider(evidence: LaterEvidence, later: list[LaterMove]) -> LaterMove | None:
    index = evidence.decided_by
    return later[index] if index is not None and index >= 0 else None


def _described(move: LaterMove | None) -> dict[str, str] | None:
    return None if move is None else {"board": str(move.move.board), "uci": move.move.uci}
