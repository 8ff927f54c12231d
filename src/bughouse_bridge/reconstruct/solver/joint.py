"""Both boards' gaps as one: which per-board explanations fit together, in which playing order.

Each cut board is searched alone (``search.BoardSearch``), fewest plies first; the boards meet
only through the pockets, so their outcomes are combined afterwards: the drops of one board must
be paid by its pocket before the gap plus what the other board's captures delivered *before* each
drop (``interleave`` finds such a playing order, or proves there is none). Every combination that
fits is replayed once through the ``Match`` (``play_quietly``), which alone decides legality under
the configured rules, and gives the end state the candidates are grouped by.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import islice, product
from typing import TYPE_CHECKING

import chess

from bughouse_bridge.bughouse.board import BughouseBoard
from bughouse_bridge.bughouse.types import BoardId, BughouseMove
from bughouse_bridge.reconstruct.solver.outcome import Outcome, drops

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    from bughouse_bridge.bughouse.match import Match
    from bughouse_bridge.reconstruct.solver.search import BoardSearch, Key

__all__ = ["Explained", "Level", "combine", "end_state", "interleave"]

_KINDS = (chess.PAWN, chess.KNIGHT, chess.BISHOP, chess.ROOK, chess.QUEEN)
_PATHS_TRIED = 6  # sequences per board tried for one combination of outcomes (rules, pockets)
_ALTERNATIVES = 4  # other orders kept for the arbiter (choose_recovery)


@dataclass(frozen=True, slots=True)
class Level:
    """One board's explanations of one length."""

    board: BoardId
    plies: int
    search: BoardSearch
    root: Key
    outcomes: Mapping[Outcome, object]


@dataclass(frozen=True, slots=True)
class Explained:
    """One end state and how the gap reaches it: the most plausible order first."""

    moves: tuple[BughouseMove, ...]
    end: tuple[str, ...]
    plies: int  # in all boards
    orders: int  # how many per-board move orders reach this end state
    alternatives: tuple[tuple[BughouseMove, ...], ...]  # other orders, for the arbiter


def end_state(match: Match) -> tuple[str, ...]:
    """What a gap's explanation decides: placements, pockets, side to move, castling, en passant
    of both boards (the move counters are not part of it)."""
    return tuple(" ".join(match.fen(board).split()[:4]) for board in BoardId)


def combine(match: Match, levels: Sequence[Level], found: dict[tuple[str, ...], Explained]) -> None:
    """Add to ``found`` every end state the levels' outcomes reach together (one level per
    board), keeping the first (most plausible) explanation of each."""
    pockets = {level.board: BughouseBoard(match.fen(level.board)) for level in levels}
    for outcomes in product(*(list(level.outcomes) for level in levels)):
        if not _pockets_suffice(levels, outcomes, pockets):
            continue
        _explain(match, levels, outcomes, pockets, found)


def _pockets_suffice(
    levels: Sequence[Level], outcomes: Sequence[Outcome], positions: Mapping[BoardId, BughouseBoard]
) -> bool:
    """The drops of each board, counted, are no more than its pocket plus the other board's
    captures (only the boards solved deliver during the gap: a connected board's moves are in
    the match already)."""
    by_board = dict(zip((level.board for level in levels), outcomes, strict=True))
    for board, outcome in by_board.items():
        partner = by_board.get(board.other)
        for color in chess.COLORS:
            for kind in _KINDS:
                came = 0 if partner is None else partner[10 + int(not color) * 5 + kind - 1]
                if drops(outcome, color, kind) > positions[board].pockets[color].count(kind) + came:
                    return False
    return True


def _explain(
    match: Match,
    levels: Sequence[Level],
    outcomes: Sequence[Outcome],
    positions: Mapping[BoardId, BughouseBoard],
    found: dict[tuple[str, ...], Explained],
) -> None:
    paths = [
        list(islice(level.search.paths(level.root, outcome), _PATHS_TRIED))
        for level, outcome in zip(levels, outcomes, strict=True)
    ]
    orders = 1
    for level, outcome in zip(levels, outcomes, strict=True):
        orders *= level.search.count(level.root, outcome, {})
    plies = sum(level.plies for level in levels)
    first: tuple[str, ...] | None = None
    for choice in product(*paths):
        sequences = {
            level.board: [BughouseMove(level.board, move) for move in path]
            for level, path in zip(levels, choice, strict=True)
        }
        order = interleave(positions, sequences)
        if order is None:
            continue
        replay = match.copy()
        if not all(replay.play_quietly(move) for move in order):
            continue  # legal in crazyhouse, not under these rules
        end = end_state(replay)
        known = found.get(end)
        if known is None:
            found[end] = Explained(tuple(order), end, plies, orders, ())
        elif first is None:  # another combination of outcomes reaching a known end state
            found[end] = _with(known, tuple(order), orders, plies)
        elif end == first:
            found[end] = _with(known, tuple(order), 0, plies)
        first = first or end
        if orders == 1 or len(found[end].alternatives) >= _ALTERNATIVES:
            return


def _with(known: Explained, order: tuple[BughouseMove, ...], orders: int, plies: int) -> Explained:
    """``known`` with another order of its end state (of the same length) as an alternative."""
    if order == known.moves or order in known.alternatives:
        return known
    alternatives = known.alternatives
    if known.plies == plies and len(alternatives) < _ALTERNATIVES:
        alternatives = (*alternatives, order)
    elif known.plies != plies:
        orders = max(orders, 1)  # a longer sequence to the same end state: the plies are a guess
    return Explained(known.moves, known.end, plies, known.orders + orders, alternatives)


def interleave(
    positions: Mapping[BoardId, BughouseBoard], sequences: Mapping[BoardId, list[BughouseMove]]
) -> list[BughouseMove] | None:
    """A playing order of the boards' sequences in which every drop finds its piece in the
    pocket (the other board's captures deliver theirs when played), both boards keeping pace
    as evenly as the pockets allow. ``None``: no such order."""
    boards = list(sequences)
    if len(boards) == 1:
        return list(sequences[boards[0]])
    first, second = boards
    flows = {board: _flows(positions[board], sequences[board]) for board in boards}
    n, m = len(sequences[first]), len(sequences[second])
    pocket = {
        (board, color, kind): positions[board].pockets[color].count(kind)
        for board in boards
        for color in chess.COLORS
        for kind in _KINDS
    }

    def can(board: BoardId, index: int, done: dict[BoardId, int]) -> bool:
        dropped, _ = flows[board][index]
        if dropped is None:
            return True
        color, kind = dropped
        had = pocket[board, color, kind]
        had -= sum(1 for d, _ in flows[board][: done[board]] if d == dropped)
        had += sum(1 for _, c in flows[board.other][: done[board.other]] if c == dropped)
        return had > 0

    reach = [[False] * (m + 1) for _ in range(n + 1)]
    reach[n][m] = True
    for i in range(n, -1, -1):
        for j in range(m, -1, -1):
            if (i, j) == (n, m):
                continue
            done = {first: i, second: j}
            reach[i][j] = (i < n and can(first, i, done) and reach[i + 1][j]) or (
                j < m and can(second, j, done) and reach[i][j + 1]
            )
    if not reach[0][0]:
        return None
    order: list[BughouseMove] = []
    i = j = 0
    while (i, j) != (n, m):
        done = {first: i, second: j}
        ahead = j >= m or (i < n and i * m <= j * n)
        take_first = i < n and can(first, i, done) and reach[i + 1][j]
        take_second = j < m and can(second, j, done) and reach[i][j + 1]
        if take_first and (ahead or not take_second):
            order.append(sequences[first][i])
            i += 1
        else:
            order.append(sequences[second][j])
            j += 1
    return order


Flow = tuple[tuple[chess.Color, chess.PieceType] | None, tuple[chess.Color, chess.PieceType] | None]


def _flows(start: BughouseBoard, sequence: list[BughouseMove]) -> list[Flow]:
    """Per ply: the piece it drops (colour, kind) and the piece it delivers to the other board
    (the colour it is delivered to, kind)."""
    board = start.copy(stack=False)
    for color in chess.COLORS:
        for kind in _KINDS:
            for _ in range(len(sequence)):
                board.pockets[color].add(kind)  # the pocket is checked by ``interleave``
    flows: list[Flow] = []
    for move in sequence:
        mover = board.turn
        dropped = (mover, move.move.drop) if move.move.drop else None
        board.push(move.move)
        captured = board.captured
        delivered = None if captured is None else (not mover, captured.piece_type)
        flows.append((dropped, delivered))
    return flows
