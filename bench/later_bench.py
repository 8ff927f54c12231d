"""bench_resync's "decided by later evidence, recommended": a gap left to the arbiter, weighed by
the true continuation of both boards (``reconstruct.gap_later``), as the live reconstructor does
after every move committed (``reconstruct.later_recommend``: the candidate the later moves decide
for is recommended to the arbiter, who settles the gap with ``choose_recovery``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from bughouse_bridge.reconstruct.gap import end_state
from bughouse_bridge.reconstruct.gap_later import (
    LaterMove,
    LaterVerdict,
    among_shortest,
    each_board_moved,
    settleable,
    weigh_later,
)

if TYPE_CHECKING:
    from collections.abc import Iterable

    from bughouse_bridge.bughouse.match import Match
    from bughouse_bridge.bughouse.types import BoardId, BughouseMove
    from bughouse_bridge.reconstruct.gap import GapSolution

HORIZON = 20  # later plies played (both boards), or up to the game's end


def after_return(
    known: Match,
    truth: Match,
    solution: GapSolution,
    continuation: list[BughouseMove],
    boards: Iterable[BoardId],
) -> tuple[str, int | None]:
    """What the later moves make of a gap left to the arbiter: ``recommended`` (the candidate
    recommended is the truth), ``recommended_wrong`` (must never be), ``contradicted`` (no
    candidate fits), ``longer_only`` (only a story longer than the shortest fits: nothing
    recommended), ``open`` (nothing decisive within ``HORIZON`` plies) or ``not_weighed`` (not
    ``settleable``), and after how many later plies it was decided (``None``: it was not)."""
    if not settleable(solution):
        return "not_weighed", None
    later = [LaterMove(move) for move in continuation[:HORIZON]]
    for plies in range(1, len(later) + 1):
        evidence = weigh_later(known, solution.candidates, later[:plies])
        if evidence.verdict is LaterVerdict.CONTRADICTED:
            return "contradicted", plies
        chosen = evidence.chosen
        if chosen is not None and each_board_moved(boards, later[:plies]):  # as live
            if not among_shortest(solution.candidates, chosen):
                return "longer_only", plies
            right = solution.candidates[chosen].end == end_state(truth)
            return ("recommended" if right else "recommended_wrong"), plies
    return "open", None
