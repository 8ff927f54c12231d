"""Which plies a gap's search tries, beyond the bound: pseudo-legal moves, and detours.

A piece that stands where the goal has it and walks away is a detour: it spends plies to pass
the move (a tempo) and comes back, but it never takes a piece on its way back home — a piece
that takes and returns is not told from a hand in the middle of a capture, which leaves both
squares empty (that placement stays unexplained until the piece lands; the reconstructor
looks again then).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import chess

if TYPE_CHECKING:
    from collections.abc import Iterator

__all__ = ["RETURNS_WITH_PREY", "no_detours", "pseudo_legal", "wandered"]


def pseudo_legal(
    board: chess.Board,
    from_mask: chess.Bitboard = chess.BB_ALL,
    to_mask: chess.Bitboard = chess.BB_ALL,
) -> Iterator[chess.Move]:
    """python-chess's pseudo-legal moves of the pieces on the board (no drops)."""
    return chess.Board.generate_pseudo_legal_moves(board, from_mask, to_mask)


def wandered(board: chess.Board, move: chess.Move, wander: int, differ: chess.Bitboard) -> int:
    """The detour state after ``move``: a piece (not a pawn) that leaves by a quiet move a
    square where the goal has it (``differ`` does not hold it) is followed — ``home | at << 6
    | took << 12`` — until it is back, taken or another detour begins; once it took a piece
    on its way it may not come back (``RETURNS_WITH_PREY``): a piece that takes and returns
    (``Qd7 …Qxd6 …Qd8``) is not told from a hand in the middle of a capture, which leaves
    both squares empty (see ``no_detours``, which forbids the capture as the first step)."""
    if move.drop:
        return wander
    frm, to = move.from_square, move.to_square
    if wander >= 0:
        home, at, took = wander & 63, (wander >> 6) & 63, wander >> 12
        if frm == at:
            took |= int(board.is_capture(move))
            if to == home:
                return RETURNS_WITH_PREY if took else -1
            return home | to << 6 | took << 12
        if to == at:
            return -1  # taken
    placed = chess.BB_SQUARES[frm] & ~differ
    if placed and not board.is_capture(move) and board.piece_type_at(frm) != chess.PAWN:
        return frm | to << 6
    return wander


RETURNS_WITH_PREY = -2


def no_detours(board: chess.Board, placed: chess.Bitboard, spare: int) -> list[chess.Move]:
    """The moves of the pieces standing where the goal has them (``placed``), pseudo-legal: a
    piece walks away only to come back, two plies spent to pass the move (a tempo the side on
    move needs), never with a capture (a piece that takes and returns is not told from a hand
    in the middle of a capture, which leaves both squares empty: that placement stays
    unexplained until the piece lands; ``wandered`` follows it on its way back)."""
    if spare < _DETOUR:
        return []
    return [
        move
        for move in chess.Board.generate_pseudo_legal_moves(board, placed)
        if not board.is_capture(move)
    ]


_DETOUR = 2  # plies of a piece that goes and comes back
