"""What a ply sequence of a gap changes beyond the placement it reaches: its *outcome*.

A flat tuple, so that the search can use it as a key: the pieces dropped per (colour, kind)
[0:10], the pieces captured per (capturer's colour, kind) [10:20], then the castling rights, the
en passant square (-1: none) and the promoted pieces' mask at the end. Two sequences with the same
outcome end in the same game state; the boards' searches meet through it (``joint``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import chess

    from bughouse_bridge.bughouse.board import BughouseBoard

Outcome = tuple[int, ...]
_COUNTS = 20  # the drop and capture counters before the end state


def drop_index(color: chess.Color, piece_type: chess.PieceType) -> int:
    return int(color) * 5 + piece_type - 1


def capture_index(capturer: chess.Color, piece_type: chess.PieceType) -> int:
    return 10 + int(capturer) * 5 + piece_type - 1


def bumped(outcome: Outcome, index: int) -> Outcome:
    """The outcome with one more drop or capture counted at ``index``."""
    return (*outcome[:index], outcome[index] + 1, *outcome[index + 1 :])


def ending(board: BughouseBoard) -> Outcome:
    """The outcome of the empty sequence from ``board``: no drops, no captures, its end state."""
    ep = board.ep_square if board.ep_square is not None and board.has_legal_en_passant() else -1
    return (*((0,) * _COUNTS), board.clean_castling_rights(), ep, board.promoted)


def drops(outcome: Outcome, color: chess.Color, piece_type: chess.PieceType) -> int:
    return outcome[drop_index(color, piece_type)]
