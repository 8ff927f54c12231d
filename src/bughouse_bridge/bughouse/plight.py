"""Rows 7 and 8: is the player on move free, stalemated, or mated — and is the mate final?

A player with no legal move is *mated* when in check and *stalemated* otherwise. Whether a mate is
final depends on row 7 (``RuleSet.mate_rule``):

- ``any_drop_blocks`` (fics, olite): final only when no drop of any piece could block the check.
- ``any_drop_or_partner_steal`` (dsb 7d): the same, and not while the mated player's partner is
  on move and can promote, stealing a piece whose removal frees the mated player.
- ``partner_next_move`` (dsj 5.3.1/5.3.2, note E): pending while the partner's next move could
  supply a blocking piece (a capture on the other board) or steal a piece that frees the player;
  final at once when nothing the partner could do in one move helps, and final after the
  partner's move when it did not help.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import TYPE_CHECKING

import chess

from bughouse_bridge.bughouse.board import Boards, BughouseBoard, rank_mask
from bughouse_bridge.bughouse.rules import MateRule, NoStealTarget, PromotionPolicy, RuleSet
from bughouse_bridge.bughouse.steals import steal_squares

if TYPE_CHECKING:
    from collections.abc import Iterator

    from bughouse_bridge.bughouse.types import BoardId


class Plight(StrEnum):
    FREE = "free"
    STALEMATE = "stalemate"
    MATE_PENDING = "mate_pending"
    MATE_FINAL = "mate_final"


@dataclass(frozen=True, slots=True)
class Verdict:
    plight: Plight
    reason: str = ""


FREE = Verdict(Plight.FREE)


def classify(rules: RuleSet, boards: Boards, board_id: BoardId, *, partner_moved: bool) -> Verdict:
    """The plight of the player on move on ``board_id``.

    ``partner_moved``: the mate was pending and the mated player's partner has moved since
    (note E: the partner's chance is used up).
    """
    if has_any_move(rules, boards, board_id):
        return FREE
    board = boards[board_id]
    if not board.is_check():
        return Verdict(Plight.STALEMATE, "no legal move and not in check: waits for a piece")
    return _mate_verdict(rules, boards, board_id, partner_moved=partner_moved)


def has_any_move(rules: RuleSet, boards: Boards, board_id: BoardId) -> bool:
    """Any board move or drop, with the real pocket (rows 1 and 2 are not applied here)."""
    board = boards[board_id]
    return _has_drop(rules, board) or any(
        _promotion_possible(rules, boards, board_id, move) for move in _board_moves(board)
    )


def blockable(board: BughouseBoard) -> bool:
    """Could a drop of *some* piece, held or not, block the check?"""
    return bool(board.drop_squares())


def _board_moves(board: BughouseBoard) -> Iterator[chess.Move]:
    return chess.Board.generate_legal_moves(board)


def _has_drop(rules: RuleSet, board: BughouseBoard) -> bool:
    squares = board.drop_squares()
    if not squares:
        return False
    pocket = board.pockets[board.turn]
    if any(pocket.count(piece) for piece in (chess.KNIGHT, chess.BISHOP, chess.ROOK, chess.QUEEN)):
        return True
    return bool(pocket.count(chess.PAWN) and squares & rank_mask(board.turn, rules.pawn_drop_ranks))


def _promotion_possible(
    rules: RuleSet, boards: Boards, board_id: BoardId, move: chess.Move
) -> bool:
    if not move.promotion or rules.promotion is not PromotionPolicy.STEAL:
        return True
    if rules.no_steal_target is NoStealTarget.CHOICE_MARKED:
        return True
    mover = boards[board_id].turn
    return bool(steal_squares(rules, boards[board_id.other], mover))


def _mate_verdict(
    rules: RuleSet, boards: Boards, board_id: BoardId, *, partner_moved: bool
) -> Verdict:
    board = boards[board_id]
    if rules.mate_rule is MateRule.PARTNER_NEXT_MOVE:
        return _partner_next_move_verdict(rules, boards, board_id, partner_moved=partner_moved)
    if blockable(board):
        return Verdict(Plight.MATE_PENDING, "a drop could still block the check: waits for a piece")
    if rules.mate_rule is MateRule.ANY_DROP_OR_PARTNER_STEAL and _partner_steals_mater(
        rules, boards, board_id
    ):
        return Verdict(Plight.MATE_PENDING, "the partner can promote and steal the mating piece")
    return Verdict(Plight.MATE_FINAL, "no drop of any piece could block the check")


def _partner_next_move_verdict(
    rules: RuleSet, boards: Boards, board_id: BoardId, *, partner_moved: bool
) -> Verdict:
    if partner_moved:
        return Verdict(Plight.MATE_FINAL, "the partner's move did not avert the mate")
    if partner_capture_supplies(rules, boards, board_id):
        return Verdict(Plight.MATE_PENDING, "the partner's next move could supply a blocking piece")
    if partner_steal_frees(rules, boards, board_id):
        return Verdict(Plight.MATE_PENDING, "the partner's next move could steal a mating piece")
    return Verdict(Plight.MATE_FINAL, "nothing the partner could do in one move averts the mate")


def _partner_steals_mater(rules: RuleSet, boards: Boards, board_id: BoardId) -> bool:
    """DSB 7d: the partner is on move and can promote, stealing the mating piece."""
    partner_on_move = boards[board_id.other].turn != boards[board_id].turn
    checkers = boards[board_id].checkers_mask()
    return partner_on_move and partner_steal_frees(rules, boards, board_id, among=checkers)


def partner_capture_supplies(rules: RuleSet, boards: Boards, board_id: BoardId) -> bool:
    """Could one capture by the mated player's partner supply a piece that blocks the check?"""
    mated = boards[board_id]
    squares = mated.drop_squares()
    if not squares:
        return False
    pawn_squares = squares & rank_mask(mated.turn, rules.pawn_drop_ranks)
    supplied = _capturable_types(boards[board_id.other].as_mover(not mated.turn))
    return any(piece != chess.PAWN or pawn_squares for piece in supplied)


def _capturable_types(partner_board: BughouseBoard) -> set[chess.PieceType]:
    victims = partner_board.occupied_co[not partner_board.turn] & ~partner_board.kings
    types = {
        _demoted(partner_board, move.to_square)
        for move in chess.Board.generate_legal_moves(partner_board, to_mask=victims)
    }
    if partner_board.has_legal_en_passant():
        types.add(chess.PAWN)
    return types


def _demoted(board: chess.Board, square: chess.Square) -> chess.PieceType:
    if board.promoted & chess.BB_SQUARES[square]:
        return chess.PAWN
    piece = board.piece_type_at(square)
    assert piece is not None
    return piece


def partner_steal_frees(
    rules: RuleSet, boards: Boards, board_id: BoardId, among: chess.Bitboard = chess.BB_ALL
) -> bool:
    """Could the partner promote now and steal a piece whose removal frees the mated player?

    ``among``: the squares that count (DSB 7d: only the mating piece; DSJ 5.3.2: any piece).
    """
    if rules.promotion is not PromotionPolicy.STEAL:
        return False
    mated = boards[board_id]
    partner_board = boards[board_id.other].as_mover(not mated.turn)
    if not any(move.promotion for move in _board_moves(partner_board)):
        return False
    return any(
        _freed_without(rules, boards, board_id, square)
        for square in steal_squares(rules, mated, not mated.turn)
        if chess.BB_SQUARES[square] & among
    )


def _freed_without(rules: RuleSet, boards: Boards, board_id: BoardId, square: chess.Square) -> bool:
    after = {
        board_id: boards[board_id].without_piece(square),
        board_id.other: boards[board_id.other],
    }
    return has_any_move(rules, after, board_id)
