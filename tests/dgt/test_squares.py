"""DGT fields and piece codes ↔ python-chess, orientation and magic pieces."""

from __future__ import annotations

import chess
import pytest

from bughouse_bridge.dgt.constants import PieceCode
from bughouse_bridge.dgt.messages import BoardDump
from bughouse_bridge.dgt.squares import (
    Orientation,
    board_to_dump,
    code_to_piece,
    detect_orientation,
    dump_to_board,
    field_to_square,
    is_magic,
    magic_pieces,
    piece_to_code,
    square_to_field,
)

START = (8, 9, 10, 12, 11, 10, 9, 8, *[7] * 8, *[0] * 32, *[1] * 8, 2, 3, 4, 6, 5, 4, 3, 2)
ROTATED_START = (2, 3, 4, 5, 6, 4, 3, 2, *[1] * 8, *[0] * 32, *[7] * 8, 8, 9, 10, 11, 12, 10, 9, 8)


@pytest.mark.parametrize(
    ("field", "rotated", "square"),
    [
        (0, False, chess.A8),
        (7, False, chess.H8),
        (8, False, chess.A7),
        (36, False, chess.E4),
        (52, False, chess.E2),
        (56, False, chess.A1),
        (63, False, chess.H1),
        (0, True, chess.H1),
        (3, True, chess.E1),
        (63, True, chess.A8),
        (52, True, chess.D7),
    ],
)
def test_field_to_square(field: int, rotated: bool, square: chess.Square):
    assert field_to_square(field, rotated=rotated) == square
    assert square_to_field(square, rotated=rotated) == field


@pytest.mark.parametrize("rotated", [False, True])
def test_square_mapping_is_a_bijection(rotated: bool):
    squares = [field_to_square(field, rotated=rotated) for field in range(64)]
    assert sorted(squares) == list(chess.SQUARES)
    assert [square_to_field(s, rotated=rotated) for s in squares] == list(range(64))


PIECES = [
    (0x00, None),
    (0x01, "P"),
    (0x02, "R"),
    (0x03, "N"),
    (0x04, "B"),
    (0x05, "K"),
    (0x06, "Q"),
    (0x07, "p"),
    (0x08, "r"),
    (0x09, "n"),
    (0x0A, "b"),
    (0x0B, "k"),
    (0x0C, "q"),
]


@pytest.mark.parametrize(("code", "symbol"), PIECES)
def test_piece_codes(code: int, symbol: str | None):
    piece = None if symbol is None else chess.Piece.from_symbol(symbol)
    assert code_to_piece(code) == piece
    assert piece_to_code(piece) == code
    assert not is_magic(code)


@pytest.mark.parametrize("code", [0x0D, 0x0E, 0x0F])
def test_magic_codes_are_no_piece(code: int):
    assert is_magic(code)
    assert code_to_piece(code) is None


@pytest.mark.parametrize("code", [0x10, 0x3F, 0x7F])
def test_unknown_codes_are_no_piece(code: int):
    assert code_to_piece(code) is None
    assert not is_magic(code)


@pytest.mark.parametrize(("squares", "rotated"), [(START, False), (ROTATED_START, True)])
def test_real_start_dumps_give_the_start_position(squares: tuple[int, ...], rotated: bool):
    dump = BoardDump(squares)
    assert dump_to_board(dump, rotated=rotated) == chess.BaseBoard()
    assert board_to_dump(chess.BaseBoard(), rotated=rotated) == dump


def _with(squares: tuple[int, ...], field: int, code: int) -> tuple[int, ...]:
    return (*squares[:field], code, *squares[field + 1 :])


@pytest.mark.parametrize(
    ("squares", "orientation"),
    [
        (START, Orientation.NORMAL),
        (ROTATED_START, Orientation.ROTATED),
        ((0,) * 64, None),
        (_with(_with(START, 52, 0), 36, 1), None),  # after 1. e4
        (_with(START, 36, PieceCode.MAGIC_DRAW), None),
        (START[:63], None),  # a short dump never matches
    ],
)
def test_detect_orientation(squares: tuple[int, ...], orientation: Orientation | None):
    assert detect_orientation(BoardDump(squares)) is orientation


@pytest.mark.parametrize(
    ("field", "code", "rotated", "square"),
    [
        (36, PieceCode.MAGIC_DRAW, False, chess.E4),
        (27, PieceCode.MAGIC_WHITE_WIN, False, chess.D5),
        (27, PieceCode.MAGIC_BLACK_WIN, True, chess.E4),
    ],
)
def test_magic_pieces_are_found_and_read_as_empty(field, code, rotated, square):
    dump = BoardDump(_with(START, field, code))
    assert magic_pieces(dump, rotated=rotated) == [(square, code)]
    assert dump_to_board(dump, rotated=rotated).piece_at(square) is None


@pytest.mark.parametrize("rotated", [False, True])
@pytest.mark.parametrize(
    "fen",
    ["rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR", "8/8/3k4/8/8/4Q3/4K3/8", "8/8/8/8/8/8/8/8"],
)
def test_board_dump_round_trip(fen: str, rotated: bool):
    board = chess.BaseBoard(fen)
    assert dump_to_board(board_to_dump(board, rotated=rotated), rotated=rotated) == board
