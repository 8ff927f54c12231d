"""Verdicts on candidate moves: is a move legal now, and if not, the alert code, the rule and one
sentence why (a wrong turn, a pawn dropped on a forbidden rank, a missing or illegal steal…).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import chess

from bughouse_bridge.bughouse.board import STEALABLE, checking_squares
from bughouse_bridge.bughouse.legality import mates, promotion
from bughouse_bridge.bughouse.rules import NoStealTarget, Permission, PromotionPolicy, RuleSet
from bughouse_bridge.bughouse.steals import steal_allowed, steal_squares
from bughouse_bridge.bughouse.types import AlertCode, BughouseMove, Judgement, Seat

if TYPE_CHECKING:
    from bughouse_bridge.bughouse.board import Boards


class IllegalMoveError(chess.IllegalMoveError):
    """A move the rules do not allow here; ``judgement`` says why (code, rule, sentence)."""

    def __init__(self, judgement: Judgement) -> None:
        super().__init__(judgement.message)
        self.judgement = judgement


def seat_name(seat: Seat) -> str:
    """``"White A"``: how the alert sentences name a player."""
    return f"{'White' if seat.color == chess.WHITE else 'Black'} {seat.board}"


def judge(
    rules: RuleSet, boards: Boards, move: BughouseMove, color: chess.Color | None = None
) -> Judgement:
    """Is ``move`` legal now? If not: the alert code, the rule and one sentence why."""
    mover = boards[move.board].turn
    seat = Seat(move.board, mover)
    if color is not None and color != mover:
        return _wrong_turn(rules, Seat(move.board, color))
    if move.is_drop:
        return _judge_drop(rules, boards, move, seat)
    return _judge_board_move(rules, boards, move, seat)


def _illegal(rules: RuleSet, code: AlertCode, row: int, message: str) -> Judgement:
    return Judgement(legal=False, code=code, rule=rules.ref(row), message=message)


def _wrong_turn(rules: RuleSet, seat: Seat) -> Judgement:
    message = f"{seat_name(seat)} moved, but {seat_name(seat.opponent)} is on move."
    return _illegal(rules, AlertCode.WRONG_TURN, 10, message)


def _judge_drop(rules: RuleSet, boards: Boards, move: BughouseMove, seat: Seat) -> Judgement:
    board = boards[move.board]
    piece, square = move.move.drop, move.move.to_square
    assert piece is not None
    name = f"{seat_name(seat)} dropped {move.uci}"
    if piece == chess.PAWN and not rules.pawn_rank_allowed(_own_rank(seat.color, square)):
        low, high = rules.pawn_drop_ranks
        text = (
            f"{name}: pawns may be dropped only on ranks {low}-{high}; the opponent may remove it."
        )
        return _illegal(rules, AlertCode.PAWN_DROP_RANK, 3, text)
    if piece == chess.KING or board.piece_at(square) is not None:
        return _illegal(rules, AlertCode.ILLEGAL_MOVE, 10, f"{name} on an occupied square.")
    if not board.pockets[seat.color].count(piece):
        text = f"{name}, but his pocket holds no {chess.piece_name(piece)}."
        return _illegal(rules, AlertCode.DROP_NOT_IN_POCKET, 10, text)
    if not chess.BB_SQUARES[square] & board.drop_squares():
        return _illegal(
            rules, AlertCode.ILLEGAL_MOVE, 10, f"{name}, which leaves his king in check."
        )
    return _judge_checking_drop(rules, boards, move, name)


def _judge_checking_drop(
    rules: RuleSet, boards: Boards, move: BughouseMove, name: str
) -> Judgement:
    piece = move.move.drop
    assert piece is not None
    board = boards[move.board]
    if not chess.BB_SQUARES[move.move.to_square] & checking_squares(board, piece):
        return Judgement.ok()
    if rules.drop_check is Permission.ILLEGAL:
        text = f"{name} giving check, which these rules forbid."
        return _illegal(rules, AlertCode.ILLEGAL_MOVE, 1, text)
    if rules.drop_mate is Permission.ILLEGAL and mates(rules, boards, move):
        text = f"{name} giving mate, which is illegal; the opponent may remove the piece."
        return _illegal(rules, AlertCode.DROP_MATE, 2, text)
    return Judgement.ok()


def _own_rank(color: chess.Color, square: chess.Square) -> int:
    rank = chess.square_rank(square) + 1
    return rank if color == chess.WHITE else 9 - rank


def _judge_board_move(rules: RuleSet, boards: Boards, move: BughouseMove, seat: Seat) -> Judgement:
    board = boards[move.board]
    chess_move = move.move
    piece = board.piece_at(chess_move.from_square)
    name = f"{seat_name(seat)} played {chess_move.uci()}"
    if piece is None:
        return _illegal(rules, AlertCode.ILLEGAL_MOVE, 10, f"{name} from an empty square.")
    if piece.color != seat.color:
        return _wrong_turn(rules, seat.opponent)
    if is_promotion(board, chess_move):
        return _judge_promotion(rules, boards, move, seat)
    if move.steal_square is not None:
        return _illegal(rules, AlertCode.STEAL_ILLEGAL, 4, f"{name}: only a promotion steals.")
    if chess_move.promotion or not board.is_legal(chess_move):
        return _illegal(rules, AlertCode.ILLEGAL_MOVE, 10, f"{name}, which is not a legal move.")
    return Judgement.ok()


def is_promotion(board: chess.Board, move: chess.Move) -> bool:
    """A pawn move to the last rank, whatever piece it names."""
    from_pawn = board.pawns & chess.BB_SQUARES[move.from_square]
    return bool(from_pawn and chess.BB_SQUARES[move.to_square] & chess.BB_BACKRANKS)


def _judge_promotion(rules: RuleSet, boards: Boards, move: BughouseMove, seat: Seat) -> Judgement:
    board = boards[move.board]
    name = f"{seat_name(seat)} promoted with {move.move.uci()}"
    if not board.is_legal(promotion(move.move, chess.QUEEN)):
        return _illegal(rules, AlertCode.ILLEGAL_MOVE, 10, f"{name}, which is not a legal move.")
    if rules.promotion is PromotionPolicy.STEAL and move.steal_square is not None:
        return _judge_steal(rules, boards, move, seat)
    if move.steal_square is not None:
        return _illegal(rules, AlertCode.STEAL_ILLEGAL, 4, f"{name}: these rules have no steals.")
    if rules.promotion is PromotionPolicy.STEAL:
        missing = _judge_missing_steal(rules, boards, seat, name)
        if not missing.legal:
            return missing
    if move.move.promotion not in STEALABLE:
        return _illegal(
            rules, AlertCode.ILLEGAL_MOVE, 10, f"{name}: name a queen, rook, bishop or knight."
        )
    return Judgement.ok()


def _judge_missing_steal(rules: RuleSet, boards: Boards, seat: Seat, name: str) -> Judgement:
    neighbour = seat_name(Seat(seat.board.other, seat.color))
    if steal_squares(rules, boards[seat.board.other], seat.color):
        text = f"{name} without taking a piece from {neighbour}; a promotion must steal one."
        return _illegal(rules, AlertCode.STEAL_MISSING, 4, text)
    if rules.no_steal_target is NoStealTarget.ILLEGAL:
        text = (
            f"{name}, but {neighbour} has no piece that may be stolen, so the pawn may not promote."
        )
        return _illegal(rules, AlertCode.STEAL_MISSING, 4, text)
    return Judgement.ok()


def _judge_steal(rules: RuleSet, boards: Boards, move: BughouseMove, seat: Seat) -> Judgement:
    square = move.steal_square
    assert square is not None
    target = boards[seat.board.other]
    piece = target.piece_at(square)
    where = f"{chess.square_name(square)} on board {seat.board.other}"
    name = f"{seat_name(seat)} promoted stealing from {where}"
    if piece is None or piece.color != seat.color or piece.piece_type not in STEALABLE:
        text = f"{name}, where there is no queen, rook, bishop or knight of his colour."
        return _illegal(rules, AlertCode.STEAL_ILLEGAL, 4, text)
    if piece.piece_type != move.move.promotion:
        text = f"{name}: the promotion names another piece than the one stolen."
        return _illegal(rules, AlertCode.STEAL_ILLEGAL, 4, text)
    if not steal_allowed(rules, target, square):
        text = f"{name}, which would expose a king to check there; steal another piece."
        return _illegal(rules, AlertCode.STEAL_ILLEGAL, 5, text)
    if rules.steal_mate is Permission.ILLEGAL and mates(rules, boards, move):
        return _illegal(rules, AlertCode.STEAL_ILLEGAL, 6, f"{name}, giving mate with it.")
    return Judgement.ok()


__all__ = ["IllegalMoveError", "is_promotion", "judge", "seat_name"]
