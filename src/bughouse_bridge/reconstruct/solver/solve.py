"""The gap solver's driver: fewest plies first, per board, then the boards together.

For each cut board the lengths the evidence allows (the side on move fixes the parity, the
clocks cap each side's plies) are searched in increasing order, each board alone
(``search.BoardSearch``: the placement difference prunes, a memo per position merges the orders);
the combinations of lengths are then taken fewest plies in all first, the shorter board of each
searched first (a board no length that short explains ends it at once; ``joint.combine``). The
first total that explains the placements is the shortest; every end state it reaches is a
candidate. A longer explanation (two plies more) is looked for only where it could end
differently — a drop whose piece is taken at once, a capture answered by a drop of the same
kind, leave the placement alone but not the pockets — and only within a budget of its own: when
that runs out the shortest answer stands, marked unconfirmed.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import product
from typing import TYPE_CHECKING

import chess
import chess.variant

from bughouse_bridge.bughouse.board import BughouseBoard
from bughouse_bridge.bughouse.types import BoardId
from bughouse_bridge.reconstruct.solver.bound import goal_of, reachable
from bughouse_bridge.reconstruct.solver.budget import Budget, OutOfWorkError
from bughouse_bridge.reconstruct.solver.joint import Explained, Level, combine
from bughouse_bridge.reconstruct.solver.search import BoardSearch

if TYPE_CHECKING:
    from collections.abc import Mapping

    from bughouse_bridge.bughouse.match import Match
    from bughouse_bridge.reconstruct.solver.evidence import GapEvidence

__all__ = ["Explanations", "explain_gap"]

_KINDS = (chess.PAWN, chess.KNIGHT, chess.BISHOP, chess.ROOK, chess.QUEEN)
CONFIRM = 2  # plies more than the shortest explanation searched for another end state


@dataclass(slots=True)
class Explanations:
    """What the search found: end states, most plausible first, and how complete it was."""

    found: list[Explained] = field(default_factory=list)
    nodes: int = 0
    complete: bool = True  # every length up to the confirmation was searched
    shortest_complete: bool = True  # every explanation of the shortest length was found


def explain_gap(  # noqa: PLR0913 - the gap's parts
    match: Match,
    targets: Mapping[BoardId, str],
    turns: Mapping[BoardId, chess.Color | None],
    evidence: GapEvidence,
    *,
    max_plies: int,
    max_nodes: int,
    confirm_nodes: int,
    max_listed: int | None = None,
) -> Explanations:
    """``max_listed``: the end states the caller lists at most; when the shortest
    explanations already reach more, no longer one is looked for (it could neither be listed
    nor make the answer complete: ``complete`` is then False)."""
    boards = tuple(board for board in BoardId if board in targets)
    driver = _Driver(match, targets, Budget(max_nodes), confirm_nodes, max_listed)
    lengths = [_lengths(match, board, turns.get(board), evidence, max_plies) for board in boards]
    result = Explanations()
    try:
        for combo in sorted(product(*lengths), key=sum):
            if not driver.step(dict(zip(boards, combo, strict=True))):
                break
    except OutOfWorkError:
        result.complete = False
        result.shortest_complete = driver.confirming
    if driver.unlisted:
        result.complete = False
    result.found = sorted(driver.found.values(), key=lambda explained: explained.plies)
    result.nodes = driver.budget.spent
    return result


@dataclass(slots=True)
class _Driver:
    """The combinations of per-board lengths, taken fewest plies in all first."""

    match: Match
    targets: Mapping[BoardId, str]
    budget: Budget
    confirm_nodes: int
    max_listed: int | None = None
    searches: dict[BoardId, BoardSearch] = field(default_factory=dict)
    levels: dict[tuple[BoardId, int], Level] = field(default_factory=dict)
    found: dict[tuple[str, ...], Explained] = field(default_factory=dict)
    shortest: int | None = None
    parities: set[tuple[int, ...]] = field(default_factory=set)
    confirming: bool = False  # the shortest explanations are all found; looking for longer ones
    unlisted: bool = False  # more shortest end states than are listed: no longer one looked for

    def __post_init__(self) -> None:
        self.searches = {
            board: _search(self.match, self.targets, board, self.budget) for board in self.targets
        }

    def step(self, plies: Mapping[BoardId, int]) -> bool:
        """Search one combination of lengths; False when nothing longer is worth searching."""
        total = sum(plies.values())
        parity = tuple(count % 2 for count in plies.values())
        if self.shortest is not None and total > self.shortest:
            longer = self._longer(total, parity)
            if longer is not None:
                return longer
        # A board already known to have no explanation of its length ends the combination
        # before any other board is searched; then the shortest lengths first (a board whose
        # placement no length this short explains is known at once): a long search of one
        # board is never made for nothing.
        if any(not known.outcomes for known in map(self.levels.get, plies.items()) if known):
            return True
        levels = {}
        for board, count in sorted(plies.items(), key=lambda item: item[1]):
            level = self._level(board, count)
            if not level.outcomes:
                return True
            levels[board] = level
        combine(self.match, [levels[board] for board in plies], self.found)
        if self.found and self.shortest is None:
            self.shortest = total
        if total == self.shortest:
            self.parities.add(parity)
        return True

    def _longer(self, total: int, parity: tuple[int, ...]) -> bool | None:
        """A combination longer than the shortest explanation: ``step``'s answer when it is
        not searched, ``None`` when it is (the confirmation, on its own budget)."""
        assert self.shortest is not None
        if total > self.shortest + CONFIRM or not _drops_possible(self.match, self.targets):
            return False
        if self.max_listed is not None and len(self.found) > self.max_listed:
            self.unlisted = True  # a longer end state would be neither listed nor conclusive
            return False
        if parity not in self.parities:
            return True  # an unknown side on move is the shortest explanation's
        if not self.confirming:
            self.confirming = True
            self.budget.limit = self.budget.spent + self.confirm_nodes
        return None

    def _level(self, board: BoardId, plies: int) -> Level:
        """One board's explanations of ``plies`` plies (cached); narrow while confirming."""
        level = self.levels.get((board, plies))
        if level is None:
            search = self.searches[board]
            search.narrow = self.confirming
            outcomes = search.explain(plies) if _feasible(search, plies) else {}
            level = Level(board, plies, search, search.root(plies), outcomes)
            self.levels[board, plies] = level
        return level


def _search(
    match: Match, targets: Mapping[BoardId, str], board: BoardId, budget: Budget
) -> BoardSearch:
    start = BughouseBoard(match.fen(board))
    partner = match.position(board.other)
    delivered = _deliverable(partner, targets.get(board.other))
    supply = {
        color: tuple(
            kind for kind in _KINDS if start.pockets[color].count(kind) or kind in delivered[color]
        )
        for color in chess.COLORS
    }
    return BoardSearch(start, goal_of(targets[board]), supply, budget)


def _deliverable(
    partner: chess.variant.CrazyhouseBoard, placement: str | None
) -> dict[chess.Color, set[chess.PieceType]]:
    """The kinds the partner board can deliver to each colour during the gap: none when it was
    connected (its moves are in the match), else those of that colour's pieces that leave
    their squares there (they may be captured; a promoted one comes as a pawn) or that its
    pocket holds (dropped there, then captured)."""
    kinds: dict[chess.Color, set[chess.PieceType]] = {color: set() for color in chess.COLORS}
    if placement is None:
        return kinds
    goal = chess.BaseBoard(placement)
    for square, piece in partner.piece_map().items():
        if goal.piece_at(square) != piece:
            promoted = bool(partner.promoted & chess.BB_SQUARES[square])
            kinds[piece.color].add(chess.PAWN if promoted else piece.piece_type)
    for color in chess.COLORS:
        kinds[color].update(kind for kind in _KINDS if partner.pockets[color].count(kind))
    return kinds


def _feasible(search: BoardSearch, plies: int) -> bool:
    refills = any(search.supply[color] for color in chess.COLORS)
    return reachable(search.start, search.goal, plies, refills=refills)


def _lengths(
    match: Match,
    board: BoardId,
    turn: chess.Color | None,
    evidence: GapEvidence,
    max_plies: int,
) -> list[int]:
    """The ply counts the side on move and the clock allow, fewest first."""
    mover = match.turn(board)
    clock = evidence.clock(board)
    turn = turn if turn is not None else clock.turn
    return [
        plies
        for plies in range(max_plies + 1)
        if (turn is None or plies % 2 == int(turn != mover)) and clock.allows(mover, plies)
    ]


def _drops_possible(match: Match, targets: Mapping[BoardId, str]) -> bool:
    if len(targets) > 1:
        return True  # the boards feed each other's pockets
    pockets = match.pockets()
    return any(pockets.of(board, color) for board in targets for color in chess.COLORS)
