"""A recovered gap whose order is a guess, and the arbiter's re-ordering of it (issue 19).

When every explanation of a gap ends in the same positions, pockets and side on move, the game
goes on exactly and the plies of the most plausible order are published (``recovered``,
``order_certain: false`` when other orders fit). The arbiter may know better: ``choose_recovery``
with the recovery's id and an order's index (0 is the one published) takes the plies back and
plays the chosen order, as long as nothing was played on those boards since (later plies would
have to be re-read; the order is then left as published).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from bughouse_bridge.bughouse.events import MatchEvent
    from bughouse_bridge.bughouse.match import Match
    from bughouse_bridge.bughouse.types import BoardId, BughouseMove
    from bughouse_bridge.reconstruct.gap import GapSolution

__all__ = ["OrderedRecovery", "reorder"]


@dataclass(frozen=True, slots=True)
class OrderedRecovery:
    """The orders a recovery could have been played in; ``orders[0]`` was published."""

    orders: tuple[tuple[BughouseMove, ...], ...]
    plies: tuple[tuple[BoardId, int], ...]  # each board's ply count right after the recovery

    @classmethod
    def of(cls, match: Match, solution: GapSolution) -> OrderedRecovery:
        """The recovery just played on ``match`` (its plies are the solution's first)."""
        orders = tuple(candidate.moves for candidate in solution.candidates[:1])
        orders += tuple(candidate.moves for candidate in solution.alternatives)
        boards = {move.board for move in orders[0]}
        return cls(orders, tuple((board, match.ply(board)) for board in sorted(boards)))


def reorder(match: Match, recovery: OrderedRecovery, index: int, *, t: float) -> list[MatchEvent]:
    """Replace the published order of ``recovery`` by its order ``index``: ``takeback`` events,
    then the plies (``recovered``, their order now certain). ValueError, nothing changed, for
    an unknown index, or when the boards moved on since the recovery."""
    if not 0 <= index < len(recovery.orders):
        raise ValueError(f"the recovery has orders 0-{len(recovery.orders) - 1}")
    if any(match.ply(board) != plies for board, plies in recovery.plies):
        raise ValueError("moves were played since the recovery: its order can no longer change")
    trial = match.copy()
    _replay(trial, recovery, index, t)  # ValueError here leaves the match untouched
    return _replay(match, recovery, index, t)


def _replay(match: Match, recovery: OrderedRecovery, index: int, t: float) -> list[MatchEvent]:
    events: list[MatchEvent] = []
    for move in reversed(recovery.orders[0]):
        events += match.takeback(move.board, t=t)
    for move in recovery.orders[index]:
        events += match.play(move, t=t, recovered=True)
    return events
