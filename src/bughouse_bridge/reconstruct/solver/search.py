"""One board's gap: every ply sequence of a given length that turns its position into the placement.

Pure, python-chess only (no ``Match``, no events). A depth-first search with a memo per position:
``(position, plies left)`` maps to the *outcomes* reachable from there — what a sequence changes
beyond the placement (``Outcome``: the pieces dropped, the pieces captured, the castling rights,
en passant and promoted pieces at the end) — each with the moves that lead to it. Orders of the
same moves that reach the same position are explored once, so a gap of ten independent moves per
side costs the positions, not the orders (the orders are counted, not listed). The lower bounds
(``bound.slack``, ``departures``) cut every branch that cannot reach the placement in the plies
left, priced before a move is played (``price.fits``): most moves cut are never played. Moves
are pseudo-legal until played; a piece on a detour is followed (``detours``).

Drops are searched from a *supply* (the pocket as far as this board alone can know it: abundant
for every kind the pocket or the partner board may provide); whether the drops of an outcome were
really in the pocket, and when, is decided with both boards together (``joint``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import chess

from bughouse_bridge.reconstruct.solver.bound import Goal, at_goal, improving, near, slack
from bughouse_bridge.reconstruct.solver.departures import departures_within, goal_squares
from bughouse_bridge.reconstruct.solver.detours import (
    RETURNS_WITH_PREY,
    no_detours,
    pseudo_legal,
    wandered,
)
from bughouse_bridge.reconstruct.solver.outcome import (
    Outcome,
    bumped,
    capture_index,
    drop_index,
    ending,
)
from bughouse_bridge.reconstruct.solver.price import CUT, UNPRICED, Terms, fits, terms

if TYPE_CHECKING:
    from collections.abc import Iterable, Iterator

    from bughouse_bridge.bughouse.board import BughouseBoard
    from bughouse_bridge.reconstruct.solver.budget import Budget

__all__ = ["BoardSearch", "Edge", "Key"]

_MOST_CHANGED, _NARROW = 4, 12  # squares one ply changes at most; where ``_key`` puts ``narrow``
_EXPANDING = 16  # work units of a position's expansion (its moves generated), per move tried
_PRICING = 4  # of which its terms and ``departures`` (a position cut there costs these only)
_ABUNDANT = 16  # pieces of a supplied kind put in the search's pocket: never runs out in a gap

Key = tuple[int, ...]
Edge = tuple[chess.Move, Key, Outcome]  # the move, the position after it, the outcome it leads to


@dataclass(slots=True)
class BoardSearch:
    """The memoised search of one board; ``explain(plies)`` may be asked for several lengths."""

    start: BughouseBoard
    goal: Goal
    supply: dict[chess.Color, tuple[chess.PieceType, ...]]  # kinds that may be dropped
    budget: Budget
    memo: dict[Key, dict[Outcome, list[Edge]]] = field(default_factory=dict)
    narrow: bool = False  # a ply to spare only for moves that change the outcome (confirming)
    _board: BughouseBoard | None = None
    _wander: int = -1  # ``_wandered``'s state: a placed piece away from its square
    _wanted: dict[chess.Color, dict[chess.PieceType, chess.Bitboard]] = field(default_factory=dict)
    _goal_co: tuple[chess.Bitboard, chess.Bitboard] = (0, 0)

    def __post_init__(self) -> None:
        self._goal_co = goal_squares(self.goal)
        self._wanted = {
            color: {kind: mask for c, kind, mask in self.goal if c == color and kind != chess.KING}
            for color in chess.COLORS
        }

    def explain(self, plies: int) -> dict[Outcome, list[Edge]]:
        """The outcomes of the ``plies``-ply sequences that reach the goal, with their first
        moves (``paths`` lists the sequences)."""
        board = self.start.copy(stack=False)
        for color in chess.COLORS:
            pocket = board.pockets[color]
            pocket.reset()
            for piece_type in self.supply[color]:
                for _ in range(_ABUNDANT):
                    pocket.add(piece_type)
        self._board = board
        self._wander = -1
        return self._node(self._key(plies), plies, slack(board, self.goal, plies, refills=False))

    def root(self, plies: int) -> Key:
        board, self._board = self._board, self.start.copy(stack=False)
        wander, self._wander = self._wander, -1
        try:
            return self._key(plies)
        finally:
            self._board = board
            self._wander = wander

    def _key(self, left: int) -> Key:
        b = self._board
        assert b is not None
        return (
            b.pawns,
            b.knights,
            b.bishops,
            b.rooks,
            b.queens,
            b.kings,
            b.occupied_co[chess.WHITE],
            b.turn,
            b.castling_rights,
            -1 if b.ep_square is None else b.ep_square,
            b.promoted,
            left,
            self.narrow,
            self._wander,
        )

    def _node(
        self, key: Key, left: int, spare: int | None, *, priced: bool = False
    ) -> dict[Outcome, list[Edge]]:
        known = self.memo.get(key)
        if known is None and self.narrow:
            # The full search of the same position (made before the narrow one) found all
            # that the narrow one would, and more: take it.
            known = self.memo.get((*key[:_NARROW], False, *key[_NARROW + 1 :]))
            if known is not None:
                self.memo[key] = known  # ``paths`` follows the narrow key
        if known is not None:
            return known
        board = self._board
        assert board is not None
        result: dict[Outcome, list[Edge]] = {}
        parts = self._priced(board, left, departed=priced)
        if parts is None:
            if not left and at_goal(board, self.goal):
                result[ending(board)] = []
            self.memo[key] = result
            return result
        checked = board.is_check()  # else moves are pseudo-legal: checked once played
        for move in self._moves(board, left, spare, checked=checked, differ=parts.differ):
            self.budget.spend()
            after = fits(parts, board, move, left - 1)
            if after is CUT:
                continue  # the bound cuts the child: not worth playing
            wander = wandered(board, move, self._wander, parts.differ)
            if wander == RETURNS_WITH_PREY:
                continue
            board.push(move)
            if checked or move.drop or not board.was_into_check():
                outer, self._wander = self._wander, wander
                self._child(move, left - 1, after, result)
                self._wander = outer
            board.pop()
        self.memo[key] = result
        return result

    def _priced(self, board: BughouseBoard, left: int, *, departed: bool) -> Terms | None:
        """The bound's terms of a position to expand, its work counted; ``None`` at the end or
        where its squares to empty cannot be emptied in time (``departures``, on the root and
        after unpriced moves; ``departed``: the price of the move that led here asked it)."""
        if left == 0:
            return None
        self.budget.spend(_PRICING)
        parts = terms(board, self.goal, self.supply)
        if not departed and not departures_within(
            board, self.goal, self._goal_co, parts.differ, left
        ):
            return None
        self.budget.spend(_EXPANDING - _PRICING)
        return parts

    def _child(
        self, move: chess.Move, left: int, after: int | None, result: dict[Outcome, list[Edge]]
    ) -> None:
        """Search the position ``move`` just led to; its outcomes, with ``move``'s own drop
        or capture counted, join ``result``."""
        board = self._board
        assert board is not None
        priced = after != UNPRICED
        if not priced:
            after = slack(board, self.goal, left, refills=False)
        if after is None:
            return
        mover = not board.turn
        captured = board.captured  # read now: the search below plays other moves
        child_key = self._key(left)
        child = self._node(child_key, left, after, priced=priced)
        if not child:
            return
        index = (
            drop_index(mover, move.drop)
            if move.drop
            else None
            if captured is None
            else capture_index(mover, captured.piece_type)
        )
        for outcome in child:
            mine = outcome if index is None else bumped(outcome, index)
            result.setdefault(mine, []).append((move, child_key, outcome))

    def _moves(
        self,
        board: BughouseBoard,
        left: int,
        spare: int | None,
        *,
        checked: bool,
        differ: chess.Bitboard,
    ) -> list[chess.Move]:
        """The moves worth trying: on the last ply, only those within the squares that still
        differ from the goal; a drop, only onto a square the goal wants its kind on unless the
        mover has a ply to spare (a drop elsewhere must then be taken, or interpose). Out of
        check the moves are pseudo-legal (``_node`` drops those that leave the king attacked,
        once played: most are cut by the bound before)."""
        mover = board.turn
        wanted = self._wanted[mover]
        generate = chess.Board.generate_legal_moves if checked else pseudo_legal
        if left == 1:
            if differ.bit_count() > _MOST_CHANGED:
                return []
            moves = list(generate(board, differ, differ))
            drop_to = {kind: mask & differ for kind, mask in wanted.items()}
        elif spare is not None and spare > 0:
            own = board.occupied_co[mover]
            if checked:
                moves = list(generate(board))
            else:  # the pieces where the goal has them move only on a detour
                placed = own & ~differ
                moves = list(generate(board, chess.BB_ALL & ~placed))
                moves += no_detours(board, placed, spare)
            drop_to = self._spare_drops(board, differ, spare, checked=checked)
            if self.narrow and not checked:
                moves = self._productive(board, moves, spare=True)
        else:
            from_mask, to_mask = self._reach(board)
            moves = list(generate(board, from_mask, to_mask))
            moves = self._productive(board, moves)
            drop_to = wanted
        drops = board.legal_drop_squares_mask() & ~board.occupied
        for kind in self.supply[mover]:
            squares = drops & drop_to[kind]
            if kind == chess.PAWN:
                squares &= ~chess.BB_BACKRANKS
            moves += [
                chess.Move(square, square, drop=kind) for square in chess.scan_forward(squares)
            ]
        return moves

    def _spare_drops(
        self, board: BughouseBoard, differ: chess.Bitboard, spare: int, *, checked: bool
    ) -> dict[chess.PieceType, chess.Bitboard]:
        """Where a spare ply may drop each kind: where the goal has another piece (it is taken
        there later), where it can still walk to a goal square of its kind, where it can take
        an enemy piece that must leave (``P@g5`` then ``gxf6``: a ply more), or, in check,
        anywhere it interposes. A drop elsewhere would need more plies to clear its square
        than are to spare (not searched)."""
        mover = board.turn
        own = board.occupied_co[mover]
        doomed = board.occupied_co[not mover] & differ
        drop_to = {}
        for kind, mask in self._wanted[mover].items():
            if checked:
                drop_to[kind] = chess.BB_ALL
                continue
            missing = mask & ~(board.pieces_mask(kind, mover) & own)
            drop_to[kind] = differ | near(mover, kind, missing, spare)
            if spare > 1 and doomed:
                drop_to[kind] |= near(mover, kind, doomed, spare - 1)
        return drop_to

    def _productive(
        self, board: BughouseBoard, moves: list[chess.Move], *, spare: bool = False
    ) -> list[chess.Move]:
        """With no ply to spare every ply must lower the bound's cost: the moved piece gets
        closer to a goal square of its kind (``bound.improving``), or it promotes or castles.
        ``spare`` (a narrow search): a ply to spare may also capture, move the king (it steps
        aside so that a dropped piece can be taken, or takes it), or move a rook that may still
        castle — the moves that change what the gap ends in (the pockets, the castling rights);
        another quiet detour does not."""
        castles = bool(board.castling_rights & (chess.BB_RANK_1 if board.turn else chess.BB_RANK_8))
        mover = board.turn
        own = board.occupied_co[mover]
        missing = {
            kind: wanted & ~(board.pieces_mask(kind, mover) & own)
            for color, kind, wanted in self.goal
            if color == mover
        }
        kept = []
        for move in moves:
            kind = board.piece_type_at(move.from_square)
            if kind is None:
                continue
            if (
                move.promotion
                or (kind == chess.KING and abs(move.to_square - move.from_square) == 2)
                or (
                    spare
                    and (
                        board.is_capture(move)
                        or kind == chess.KING
                        or (castles and kind == chess.ROOK)
                    )
                )
            ):
                kept.append(move)
                continue
            gaps = missing[kind]
            if (
                gaps
                and improving(mover, kind, move.from_square, gaps)
                & chess.BB_SQUARES[move.to_square]
            ):
                kept.append(move)
        return kept

    def _reach(self, board: BughouseBoard) -> tuple[chess.Bitboard, chess.Bitboard]:
        """The squares productive moves leave from and go to (``_productive`` picks the moves
        among them): a superset, so that only these moves are generated and checked."""
        mover = board.turn
        sources = targets = 0
        for color, kind, wanted in self.goal:
            if color != mover:
                continue
            pieces = board.pieces_mask(kind, mover)
            missing = wanted & ~pieces
            if not missing:
                continue
            for square in chess.scan_forward(pieces):
                closer = improving(mover, kind, square, missing)
                if closer:
                    sources |= chess.BB_SQUARES[square]
                    targets |= closer
        seventh = chess.BB_RANK_7 if mover else chess.BB_RANK_2
        promoting = board.pawns & board.occupied_co[mover] & seventh
        if promoting:
            sources |= promoting
            targets |= chess.BB_BACKRANKS
        if board.castling_rights & (chess.BB_RANK_1 if mover else chess.BB_RANK_8):
            sources |= board.kings & board.occupied_co[mover]
            targets |= chess.BB_ALL
        return sources, targets

    def count(self, key: Key, outcome: Outcome, cache: dict[tuple[Key, Outcome], int]) -> int:
        """How many sequences lead from ``key`` to ``outcome``."""
        edges = self.memo[key][outcome]
        if not edges:
            return 1
        known = cache.get((key, outcome))
        if known is None:
            known = sum(self.count(child, sub, cache) for _, child, sub in edges)
            cache[key, outcome] = known
        return known

    def paths(self, key: Key, outcome: Outcome) -> Iterator[list[chess.Move]]:
        """The sequences from ``key`` to ``outcome``, the most plausible first (``_ranked``)."""
        yield from self._paths(key, outcome, None)

    def _paths(
        self, key: Key, outcome: Outcome, last: chess.Move | None
    ) -> Iterator[list[chess.Move]]:
        edges = self.memo[key][outcome]
        if not edges:
            yield []
            return
        for move, child, sub in _ranked(edges, last):
            for rest in self._paths(child, sub, move):
                yield [move, *rest]


def _ranked(edges: Iterable[Edge], last: chess.Move | None) -> list[Edge]:
    """Most plausible first: a recapture on the square just moved to, then moves before drops
    (a drop is a choice of timing the players rarely delay), then the search's order."""

    def rank(edge: Edge) -> tuple[int, int]:
        move = edge[0]
        answers = last is not None and move.to_square == last.to_square and not move.drop
        return (0 if answers else 1, 1 if move.drop else 0)

    return sorted(edges, key=rank)
