"""DGT fields and piece codes ↔ python-chess squares and pieces (dgt-protocol.md §3.3).

Field 0 is a8, 7 is h8, 56 is a1 and 63 is h1 as seen with the connector on White's left. A board
turned by 180° reports field ``i`` for the square a normal board calls ``63 - i``.
"""

from __future__ import annotations

from enum import Enum

import chess

from bughouse_bridge.dgt.constants import PieceCode
from bughouse_bridge.dgt.messages import BoardDump

FIELD_COUNT = 64
_LAST_FIELD = FIELD_COUNT - 1

# Note the DGT order P R N B K Q: king before queen.
_CODE_TO_PIECE: dict[int, chess.Piece] = {
    PieceCode.WPAWN: chess.Piece(chess.PAWN, chess.WHITE),
    PieceCode.WROOK: chess.Piece(chess.ROOK, chess.WHITE),
    PieceCode.WKNIGHT: chess.Piece(chess.KNIGHT, chess.WHITE),
    PieceCode.WBISHOP: chess.Piece(chess.BISHOP, chess.WHITE),
    PieceCode.WKING: chess.Piece(chess.KING, chess.WHITE),
    PieceCode.WQUEEN: chess.Piece(chess.QUEEN, chess.WHITE),
    PieceCode.BPAWN: chess.Piece(chess.PAWN, chess.BLACK),
    PieceCode.BROOK: chess.Piece(chess.ROOK, chess.BLACK),
    PieceCode.BKNIGHT: chess.Piece(chess.KNIGHT, chess.BLACK),
    PieceCode.BBISHOP: chess.Piece(chess.BISHOP, chess.BLACK),
    PieceCode.BKING: chess.Piece(chess.KING, chess.BLACK),
    PieceCode.BQUEEN: chess.Piece(chess.QUEEN, chess.BLACK),
}
_PIECE_TO_CODE: dict[chess.Piece, int] = {piece: code for code, piece in _CODE_TO_PIECE.items()}
MAGIC_CODES = frozenset(
    {PieceCode.MAGIC_DRAW, PieceCode.MAGIC_WHITE_WIN, PieceCode.MAGIC_BLACK_WIN}
)


class Orientation(Enum):
    NORMAL = "normal"
    ROTATED = "rotated"


def field_to_square(field: int, *, rotated: bool = False) -> chess.Square:
    """The python-chess square a DGT field (0..63) shows."""
    if rotated:
        field = _LAST_FIELD - field
    return chess.square(field % 8, 7 - field // 8)


def square_to_field(square: chess.Square, *, rotated: bool = False) -> int:
    """The DGT field (0..63) that reports ``square``."""
    field = (7 - chess.square_rank(square)) * 8 + chess.square_file(square)
    return _LAST_FIELD - field if rotated else field


def code_to_piece(code: int) -> chess.Piece | None:
    """The piece of a DGT code; None for an empty square, a magic piece or an unknown code."""
    return _CODE_TO_PIECE.get(code)


def piece_to_code(piece: chess.Piece | None) -> int:
    """The DGT code of a piece; 0 for an empty square."""
    return PieceCode.EMPTY if piece is None else _PIECE_TO_CODE[piece]


def is_magic(code: int) -> bool:
    """A result-signalling "magic piece": 0x0D draw, 0x0E white wins, 0x0F black wins."""
    return code in MAGIC_CODES


def dump_to_board(dump: BoardDump, *, rotated: bool = False) -> chess.BaseBoard:
    """The placement a dump shows; magic pieces and unknown codes count as empty squares."""
    board = chess.BaseBoard.empty()
    for field, code in enumerate(dump.squares[:FIELD_COUNT]):
        piece = code_to_piece(code)
        if piece is not None:
            board.set_piece_at(field_to_square(field, rotated=rotated), piece)
    return board


def board_to_dump(board: chess.BaseBoard, *, rotated: bool = False) -> BoardDump:
    """The dump a board would send for ``board``."""
    return BoardDump(
        tuple(
            piece_to_code(board.piece_at(field_to_square(field, rotated=rotated)))
            for field in range(FIELD_COUNT)
        )
    )


def magic_pieces(dump: BoardDump, *, rotated: bool = False) -> list[tuple[chess.Square, int]]:
    """Every magic piece on the board, as (square, code), in field order."""
    return [
        (field_to_square(field, rotated=rotated), code)
        for field, code in enumerate(dump.squares[:FIELD_COUNT])
        if is_magic(code)
    ]


_START_DUMP = board_to_dump(chess.BaseBoard())
_ROTATED_START_DUMP = board_to_dump(chess.BaseBoard(), rotated=True)


def detect_orientation(dump: BoardDump) -> Orientation | None:
    """NORMAL or ROTATED when the dump is exactly the standard start position, else None."""
    if dump.squares == _START_DUMP.squares:
        return Orientation.NORMAL
    if dump.squares == _ROTATED_START_DUMP.squares:
        return Orientation.ROTATED
    return None
