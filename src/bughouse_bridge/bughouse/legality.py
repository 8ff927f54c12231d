"""Legal moves: every board move, promotion (a steal, or a piece named), and drop the rules allow.

Functions here take the rule set and the two boards; :class:`~bughouse_bridge.bughouse.match.Match`
keeps the state and the log and turns results into events. Why a candidate is illegal is
``judging.py``; what a move does to both boards is ``effects.py``; its notation ``notation.py``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import chess

from bughouse_bridge.bughouse.board import STEALABLE, checking_squares, rank_mask
from bughouse_bridge.bughouse.effects import applied_copy
from bughouse_bridge.bughouse.plight import Plight, classify
from bughouse_bridge.bughouse.rules import NoStealTarget, Permission, PromotionPolicy, RuleSet
from bughouse_bridge.bughouse.steals import steal_squares
from bughouse_bridge.bughouse.types import BoardId, BughouseMove

if TYPE_CHECKING:
    from collections.abc import Iterator

    from bughouse_bridge.bughouse.board import Boards


_POCKET_TYPES = (chess.PAWN, chess.KNIGHT, chess.BISHOP, chess.ROOK, chess.QUEEN)


def legal_moves(rules: RuleSet, boards: Boards, board_id: BoardId) -> list[BughouseMove]:
    """Every move the player on move may make: board moves, steals, drops."""
    return [*_board_moves(rules, boards, board_id), *_drops(rules, boards, board_id)]


def _board_moves(rules: RuleSet, boards: Boards, board_id: BoardId) -> Iterator[BughouseMove]:
    for move in chess.Board.generate_legal_moves(boards[board_id]):
        if not move.promotion:
            yield BughouseMove(board_id, move)
        elif move.promotion == chess.QUEEN:
            yield from _promotions(rules, boards, board_id, move)


def _promotions(
    rules: RuleSet, boards: Boards, board_id: BoardId, queen_move: chess.Move
) -> Iterator[BughouseMove]:
    if rules.promotion is PromotionPolicy.STEAL:
        squares = steal_squares(rules, boards[board_id.other], boards[board_id].turn)
        if squares:
            yield from _steals(rules, boards, board_id, queen_move, squares)
            return
        if rules.no_steal_target is NoStealTarget.ILLEGAL:
            return
    for piece in STEALABLE:
        yield BughouseMove(board_id, promotion(queen_move, piece))


def promotion(move: chess.Move, piece: chess.PieceType) -> chess.Move:
    """``move`` promoting to ``piece``."""
    return chess.Move(move.from_square, move.to_square, promotion=piece)


def _steals(
    rules: RuleSet,
    boards: Boards,
    board_id: BoardId,
    queen_move: chess.Move,
    squares: list[chess.Square],
) -> Iterator[BughouseMove]:
    target = boards[board_id.other]
    for square in squares:
        piece = target.piece_type_at(square)
        assert piece is not None
        steal = BughouseMove(board_id, promotion(queen_move, piece), steal_square=square)
        if rules.steal_mate is Permission.ALLOWED or not mates(rules, boards, steal):
            yield steal


def _drops(rules: RuleSet, boards: Boards, board_id: BoardId) -> Iterator[BughouseMove]:
    board = boards[board_id]
    squares = board.drop_squares()
    pocket = board.pockets[board.turn]
    for piece in _POCKET_TYPES:
        if pocket.count(piece) and squares:
            yield from _drops_of(rules, boards, board_id, piece, squares)


def _drops_of(
    rules: RuleSet, boards: Boards, board_id: BoardId, piece: chess.PieceType, squares: int
) -> Iterator[BughouseMove]:
    board = boards[board_id]
    if piece == chess.PAWN:
        squares &= rank_mask(board.turn, rules.pawn_drop_ranks)
    checking = checking_squares(board, piece)
    for square in chess.scan_forward(squares):
        drop = BughouseMove(board_id, chess.Move(square, square, drop=piece))
        if not chess.BB_SQUARES[square] & checking or _checking_drop_allowed(rules, boards, drop):
            yield drop


def _checking_drop_allowed(rules: RuleSet, boards: Boards, drop: BughouseMove) -> bool:
    if rules.drop_check is Permission.ILLEGAL:
        return False
    return rules.drop_mate is Permission.ALLOWED or not mates(rules, boards, drop)


def mates(rules: RuleSet, boards: Boards, move: BughouseMove) -> bool:
    """Would ``move`` leave the opponent mated for good (row 7's definition, used by row 2)?"""
    after = applied_copy(rules, boards, move)
    return classify(rules, after, move.board, partner_moved=False).plight is Plight.MATE_FINAL


__all__ = ["legal_moves", "mates", "promotion"]
