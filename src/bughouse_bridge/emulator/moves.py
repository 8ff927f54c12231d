"""A chess move made by human hands: the gestures and their order, chosen like a player would.

:func:`play_move` turns one move (a drop, a capture, en passant, castling, a promotion, a slide)
into :class:`~bughouse_bridge.emulator.hands.Hands` gestures. The style of each move (capture
order, castling order, slide, hover) is a :class:`~bughouse_bridge.emulator.handling.MoveStyle`,
its open fields drawn from the scenario's seeded ``random.Random`` and
:class:`~bughouse_bridge.emulator.handling.Handling` weights; the messy-hand styles (a slid drop or
capture, an adjusted piece) are thrown only when their probability is not zero, so the traces of
existing seeds stay as they were.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import chess

from bughouse_bridge.emulator.handling import CaptureOrder, CastlingOrder, MoveStyle
from bughouse_bridge.emulator.hands import neighbour

if TYPE_CHECKING:
    import random

    from bughouse_bridge.emulator.hands import Hands

_BACK_RANKS = chess.SquareSet(chess.BB_RANK_1 | chess.BB_RANK_8)


def play_move(
    hands: Hands, board_before: chess.Board, move: chess.Move, style: MoveStyle | None = None
) -> None:
    """Make ``move`` physically, handling it like a human would (seeded choices)."""
    style = _resolve(hands, board_before, move, style or MoveStyle())
    mover = board_before.piece_at(move.from_square) if move.drop is None else None
    handling = hands.timeline.handling
    if hands.chance(handling.adjust_probability):
        _adjust(hands, board_before)
    if move.drop is not None:
        piece = chess.Piece(move.drop, board_before.turn)
        if hands.chance(handling.slid_drop_probability):
            _slid_drop(hands, move.to_square, piece)
        else:
            hands.drop(move.to_square, piece, hover=bool(style.hover))
        return
    assert mover is not None
    placed = chess.Piece(move.promotion, mover.color) if move.promotion else mover
    if board_before.is_castling(move):
        _castle(hands, board_before, move, style.castling or CastlingOrder.KING_FIRST)
    elif board_before.is_en_passant(move):
        victim = move.to_square - 8 if mover.color == chess.WHITE else move.to_square + 8
        hands.capture(
            move.from_square,
            move.to_square,
            style.capture or CaptureOrder.VICTIM_LAST,
            victim_square=victim,
        )
    elif board_before.is_capture(move):
        if hands.chance(handling.slid_capture_probability):
            _slid_capture(hands, move, placed, style.capture or CaptureOrder.REPLACE)
        elif style.slide:
            path = _path(move.from_square, move.to_square)
            hands.slide(placed, path[:-1])
            hands.capture(path[-2], move.to_square, style.capture or CaptureOrder.REPLACE)
        else:
            hands.capture(
                move.from_square,
                move.to_square,
                style.capture or CaptureOrder.REPLACE,
                piece=placed,
            )
    elif style.slide:
        hands.slide(placed, _path(move.from_square, move.to_square))
    else:
        hover_over = _between_square(move, hands.timeline.rng) if style.hover else None
        hands.move_piece(move.from_square, move.to_square, placed, hover_over=hover_over)


def _slid_drop(hands: Hands, square: chess.Square, piece: chess.Piece) -> None:
    """The dropped piece lands on a free neighbouring square and is slid onto its own."""
    sc = hands.timeline
    near = hands.free_neighbour(square, avoid=square)
    if near is not None and piece.piece_type == chess.PAWN and near in _BACK_RANKS:
        near = None  # nobody sets a pawn down on the first or last rank first
    sc.wait(sc.draw(sc.handling.reach))
    if near is None:
        hands.place(square, piece)
        return
    hands.place(near, piece)
    hands.slide(piece, [near, square])


def _slid_capture(hands: Hands, move: chess.Move, placed: chess.Piece, order: CaptureOrder) -> None:
    """The capturer is set down next to its target, then slid in (the victim swept off, or
    lifted first)."""
    sc = hands.timeline
    near = hands.free_neighbour(move.to_square, avoid=move.from_square)
    if near is None:
        hands.capture(move.from_square, move.to_square, order, piece=placed)
        return
    hands.move_piece(move.from_square, near, placed)
    sc.wait(sc.draw(sc.handling.slide_step))
    hands.capture(near, move.to_square, order)


def _adjust(hands: Hands, board: chess.Board) -> None:
    """J'adoube: one of the mover's pieces is lifted and set back on its square."""
    sc = hands.timeline
    own = list(chess.SquareSet(board.occupied_co[board.turn]))
    if not own:
        return
    square = sc.rng.choice(own)
    hands.lift(square)
    sc.wait(sc.draw(sc.handling.reach))
    hands.place(square)
    sc.wait(sc.draw(sc.handling.reach))


def _castle(hands: Hands, board: chess.Board, move: chess.Move, order: CastlingOrder) -> None:
    king_to = move.to_square
    rook_from = move.to_square
    if board.is_kingside_castling(move):
        king_to = chess.square(6, chess.square_rank(move.from_square))
        rook_to = chess.square(5, chess.square_rank(move.from_square))
        rook_from = chess.square(7, chess.square_rank(move.from_square))
    else:
        king_to = chess.square(2, chess.square_rank(move.from_square))
        rook_to = chess.square(3, chess.square_rank(move.from_square))
        rook_from = chess.square(0, chess.square_rank(move.from_square))
    king = (move.from_square, king_to)
    rook = (rook_from, rook_to)
    first, second = (king, rook) if order is CastlingOrder.KING_FIRST else (rook, king)
    sc = hands.timeline
    hands.move_piece(*first)
    sc.wait(sc.draw(sc.handling.reach))
    hands.move_piece(*second)


def _resolve(hands: Hands, board: chess.Board, move: chess.Move, style: MoveStyle) -> MoveStyle:
    """``style`` with its open fields drawn (in a fixed order, so seeds replay)."""
    rng = hands.timeline.rng
    handling = hands.timeline.handling
    capture = style.capture
    if capture is None:
        if board.is_en_passant(move):
            last = rng.random() < handling.ep_victim_last_probability
            capture = CaptureOrder.VICTIM_LAST if last else CaptureOrder.VICTIM_FIRST
        else:
            capture = rng.choices(list(CaptureOrder), weights=handling.capture_weights)[0]
    castling = style.castling
    if castling is None:
        king_first = rng.random() < handling.king_first_probability
        castling = CastlingOrder.KING_FIRST if king_first else CastlingOrder.ROOK_FIRST
    slide = style.slide
    if slide is None:
        slide = _slidable(board, move) and rng.random() < handling.slide_probability
    hover = style.hover
    if hover is None:
        hover = rng.random() < handling.hover_probability
    return MoveStyle(capture, castling, slide and _slidable(board, move), hover)


def _slidable(board: chess.Board, move: chess.Move) -> bool:
    if move.drop is not None or board.is_castling(move) or board.is_en_passant(move):
        return False
    piece = board.piece_at(move.from_square)
    if piece is None or piece.piece_type not in {chess.ROOK, chess.BISHOP, chess.QUEEN}:
        return False
    return chess.square_distance(move.from_square, move.to_square) >= 3


def _path(from_square: chess.Square, to_square: chess.Square) -> list[chess.Square]:
    """The squares a sliding piece passes, origin and target included."""
    between = list(chess.SquareSet(chess.between(from_square, to_square)))
    between.sort(key=lambda sq: chess.square_distance(sq, from_square))
    return [from_square, *between, to_square]


def _between_square(move: chess.Move, rng: random.Random) -> chess.Square | None:
    between = list(chess.SquareSet(chess.between(move.from_square, move.to_square)))
    return rng.choice(between) if between else neighbour(move.to_square, rng)


__all__ = ["play_move"]
