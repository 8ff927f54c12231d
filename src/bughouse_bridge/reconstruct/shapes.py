"""The shape of a change between two placements, and the moves that could have made it.

Whole placements are compared (dgt-protocol §5.6): the difference between the match position and
the settled physical placement is read as one move (a drop, a move or capture, en passant,
castling, a promotion). Legality is not decided here: only physics (the placement after the
candidate equals what the sensors show). ``Match.judge`` decides the rest.
"""

from __future__ import annotations

from dataclasses import dataclass

import chess

from bughouse_bridge.bughouse.board import placement_of

_CASTLING_MOVES = {
    (chess.E1, chess.G1): chess.H1,
    (chess.E1, chess.C1): chess.A1,
    (chess.E8, chess.G8): chess.H8,
    (chess.E8, chess.C8): chess.A8,
}


@dataclass(frozen=True, slots=True)
class Diff:
    """Squares where ``physical`` differs from ``current``."""

    removed: dict[chess.Square, chess.Piece]  # occupied before, empty now
    added: dict[chess.Square, chess.Piece]  # empty before, occupied now
    changed: dict[chess.Square, chess.Piece]  # occupied before and now, by another piece (now)

    @property
    def squares(self) -> frozenset[chess.Square]:
        return frozenset(self.removed) | frozenset(self.added) | frozenset(self.changed)

    @property
    def arrivals(self) -> dict[chess.Square, chess.Piece]:
        return self.added | self.changed

    @property
    def empty(self) -> bool:
        return not (self.removed or self.added or self.changed)


def diff(current: str, physical: str) -> Diff:
    removed, added, changed = {}, {}, {}
    for square, before, after in differing_squares(current, physical):
        if after == ".":
            removed[square] = chess.Piece.from_symbol(before)
        elif before == ".":
            added[square] = chess.Piece.from_symbol(after)
        else:
            changed[square] = chess.Piece.from_symbol(after)
    return Diff(removed, added, changed)


def expand(placement: str) -> str:
    """64 characters, a8..h8 then a7..h1 (FEN order), ``.`` for an empty square."""
    return "".join(
        "." * int(char) if char.isdigit() else char for char in placement if char not in "/~"
    )


def differing_squares(current: str, physical: str) -> list[tuple[chess.Square, str, str]]:
    """(square, symbol before, symbol after) where two placements differ; ``.`` is empty."""
    return [
        (chess.square(index % 8, 7 - index // 8), before, after)
        for index, (before, after) in enumerate(zip(expand(current), expand(physical), strict=True))
        if before != after
    ]


@dataclass(frozen=True, slots=True)
class Shape:
    """A chess move the change could be, and the colour that would have made it."""

    move: chess.Move
    color: chess.Color


def shapes(change: Diff) -> list[Shape]:
    """Every one-move reading of a change (unverified): drop, move, promotion, e.p., castling."""
    removed, arrivals = change.removed, change.arrivals
    if not removed and len(change.added) == 1 and not change.changed:
        ((square, piece),) = change.added.items()
        return [Shape(chess.Move(square, square, drop=piece.piece_type), piece.color)]
    if len(removed) == 1 and len(arrivals) == 1:
        return _simple(removed, arrivals)
    if len(removed) == 2 and len(change.added) == 1 and not change.changed:
        return _en_passant(removed, change.added)
    if len(removed) == 2 and len(change.added) == 2 and not change.changed:
        return _castling(removed, change.added)
    return []


def _simple(
    removed: dict[chess.Square, chess.Piece], arrivals: dict[chess.Square, chess.Piece]
) -> list[Shape]:
    ((origin, piece),) = removed.items()
    ((target, placed),) = arrivals.items()
    if placed == piece:
        return [Shape(chess.Move(origin, target), piece.color)]
    last_rank = 7 if piece.color == chess.WHITE else 0
    promotes = piece.piece_type == chess.PAWN and chess.square_rank(target) == last_rank
    if (
        promotes
        and placed.color == piece.color
        and placed.piece_type not in {chess.PAWN, chess.KING}
    ):
        return [Shape(chess.Move(origin, target, promotion=placed.piece_type), piece.color)]
    return []


def _en_passant(
    removed: dict[chess.Square, chess.Piece], added: dict[chess.Square, chess.Piece]
) -> list[Shape]:
    ((target, placed),) = added.items()
    origins = [sq for sq, piece in removed.items() if piece == placed]
    if placed.piece_type != chess.PAWN or len(origins) != 1:
        return []
    return [Shape(chess.Move(origins[0], target), placed.color)]


def _castling(
    removed: dict[chess.Square, chess.Piece], added: dict[chess.Square, chess.Piece]
) -> list[Shape]:
    for (king_from, king_to), rook_from in _CASTLING_MOVES.items():
        king = removed.get(king_from)
        moved = king is not None and king.piece_type == chess.KING and added.get(king_to) == king
        if moved and king is not None and rook_from in removed:
            return [Shape(chess.Move(king_from, king_to), king.color)]
    return []


def placement_after(position: chess.Board, shape: Shape) -> str:
    """The placement after ``shape`` on ``position``, pockets and legality ignored."""
    board = position.copy(stack=False)
    board.turn = shape.color
    if shape.move.drop is not None:
        board.set_piece_at(shape.move.to_square, chess.Piece(shape.move.drop, shape.color))
        return placement_of(board)
    if board.piece_at(shape.move.from_square) is None:
        return ""
    # The base class's push: placement only, whatever variant bookkeeping a subclass adds.
    chess.Board.push(board, shape.move)
    return placement_of(board)


def explaining_shapes(position: chess.Board, physical: str) -> list[Shape]:
    """The shapes whose resulting placement is exactly ``physical``."""
    change = diff(placement_of(position), physical)
    return [shape for shape in shapes(change) if placement_after(position, shape) == physical]


def lone_removal(current: str, physical: str) -> tuple[chess.Square, chess.Piece] | None:
    """The one piece taken off (nothing else changed): a possible steal or a removed drop."""
    change = diff(current, physical)
    if len(change.removed) == 1 and not change.arrivals:
        ((square, piece),) = change.removed.items()
        return square, piece
    return None
