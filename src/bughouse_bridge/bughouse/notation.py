"""Bughouse SAN: writing a move (``#`` only for a final mate, ``P@e4``, steals ``b8=Q(d1)``) and
reading one back, checked against the rules.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

import chess

from bughouse_bridge.bughouse.effects import applied_copy
from bughouse_bridge.bughouse.judging import IllegalMoveError, judge
from bughouse_bridge.bughouse.plight import Plight, classify
from bughouse_bridge.bughouse.rules import PromotionPolicy, RuleSet
from bughouse_bridge.bughouse.steals import steal_squares
from bughouse_bridge.bughouse.types import BoardId, BughouseMove

if TYPE_CHECKING:
    from bughouse_bridge.bughouse.board import Boards, BughouseBoard


_STEAL_TAG = re.compile(r"\(([a-h][1-8])\)")


def san(rules: RuleSet, boards: Boards, move: BughouseMove) -> str:
    """SAN with bughouse suffixes: ``#`` only for a final mate; ``P@e4``; steals ``b8=Q(d1)``."""
    body = _san_body(boards[move.board], move)
    after = applied_copy(rules, boards, move)
    board = after[move.board]
    if not board.is_check():
        return body
    final = classify(rules, after, move.board, partner_moved=False).plight is Plight.MATE_FINAL
    return body + ("#" if final else "+")


def _san_body(board: BughouseBoard, move: BughouseMove) -> str:
    chess_move = move.move
    if chess_move.drop is not None:
        letter = chess.piece_symbol(chess_move.drop).upper()
        return f"{letter}@{chess.square_name(chess_move.to_square)}"
    # python-chess's suffix counts any unanswerable check as mate; ours follows row 7.
    body = board._algebraic_without_suffix(chess_move)  # noqa: SLF001
    if move.steal_square is None:
        return body
    return f"{body}({chess.square_name(move.steal_square)})"


def parse_san(rules: RuleSet, boards: Boards, board_id: BoardId, text: str) -> BughouseMove:
    """Read SAN (``N@f3``, ``@e4``, ``exd8=Q+``, ``b8=Q(d1)``) and check it is legal here."""
    tag = _STEAL_TAG.search(text)
    core = _STEAL_TAG.sub("", text).strip().rstrip("+#!?")
    if "@" in core:
        move = _parse_drop(board_id, core)
    else:
        steal = chess.parse_square(tag.group(1)) if tag else None
        move = _parse_board_move(rules, boards, board_id, core, steal)
    verdict = judge(rules, boards, move)
    if not verdict.legal:
        raise IllegalMoveError(verdict)
    return move


def _parse_drop(board_id: BoardId, core: str) -> BughouseMove:
    letter, _, square_name = core.partition("@")
    try:
        piece = chess.PIECE_SYMBOLS.index((letter or "P").lower())
        square = chess.parse_square(square_name)
    except ValueError:
        raise chess.InvalidMoveError(f"not a drop: {core!r}") from None
    return BughouseMove(board_id, chess.Move(square, square, drop=piece))


def _parse_board_move(
    rules: RuleSet, boards: Boards, board_id: BoardId, core: str, steal: chess.Square | None
) -> BughouseMove:
    board = boards[board_id]
    move = chess.Board.parse_san(board, core)
    if move.promotion and rules.promotion is PromotionPolicy.STEAL and steal is None:
        steal = _only_steal(rules, boards, board_id, move.promotion)
    return BughouseMove(board_id, move, steal_square=steal)


def _only_steal(
    rules: RuleSet, boards: Boards, board_id: BoardId, piece: chess.PieceType
) -> chess.Square | None:
    target = boards[board_id.other]
    squares = [
        square
        for square in steal_squares(rules, target, boards[board_id].turn)
        if target.piece_type_at(square) == piece
    ]
    if len(squares) > 1:
        names = ", ".join(chess.square_name(square) for square in squares)
        raise chess.AmbiguousMoveError(f"which {chess.piece_name(piece)} is stolen? ({names})")
    return squares[0] if squares else None


__all__ = ["parse_san", "san"]
