"""What a move does to both boards: the capture goes to the partner's pocket, a steal is carried
out, a promoted pawn goes to the neighbour (row 4). No legality check here (``judging.py``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import chess

from bughouse_bridge.bughouse.events import StealInfo
from bughouse_bridge.bughouse.rules import PromotionPolicy, RuleSet

if TYPE_CHECKING:
    from bughouse_bridge.bughouse.board import Boards, BughouseBoard
    from bughouse_bridge.bughouse.types import BoardId, BughouseMove


@dataclass(frozen=True, slots=True)
class Applied:
    """What a move did beyond its own board: the piece it captured, the piece it stole."""

    captured: chess.Piece | None
    steal: StealInfo | None


def applied_copy(
    rules: RuleSet, boards: Boards, move: BughouseMove
) -> dict[BoardId, BughouseBoard]:
    """Both boards after ``move``, leaving ``boards`` untouched."""
    copies = {board_id: board.copy(stack=False) for board_id, board in boards.items()}
    apply(rules, copies, move)
    return copies


def apply(rules: RuleSet, boards: Boards, move: BughouseMove) -> Applied:
    """Play ``move`` on ``boards`` (no legality check): route the capture, carry out the steal."""
    board = boards[move.board]
    mover = board.turn
    drop = move.move.drop
    if drop is not None and not board.pockets[mover].count(drop):
        board.borrow(mover, drop)  # a forced drop of a piece not held (row 9)
    board.push(move.move)
    steal = _after_promotion(rules, boards, move, mover) if move.move.promotion else None
    captured = board.captured
    if captured is not None:
        boards[move.board.other].deliver(captured.color, captured.piece_type)
    return Applied(captured, steal)


def _after_promotion(
    rules: RuleSet, boards: Boards, move: BughouseMove, mover: chess.Color
) -> StealInfo | None:
    board, neighbour = boards[move.board], boards[move.board.other]
    if move.steal_square is not None:
        board.promoted &= ~chess.BB_SQUARES[move.move.to_square]
        return _steal(neighbour, move.board.other, move.steal_square, mover)
    if rules.promotion is PromotionPolicy.CHOICE_PAWN_TO_NEIGHBOUR:
        board.promoted &= ~chess.BB_SQUARES[move.move.to_square]
        neighbour.deliver(mover, chess.PAWN)
    return None


def _steal(
    neighbour: BughouseBoard, board_id: BoardId, square: chess.Square, mover: chess.Color
) -> StealInfo:
    piece = neighbour.piece_at(square)
    assert piece is not None
    neighbour.remove_piece_at(square)
    # A rook dropped back on its corner later must not revive castling (note F keeps the turn).
    neighbour.castling_rights &= ~chess.BB_SQUARES[square]
    neighbour.deliver(mover, chess.PAWN)
    return StealInfo(board_id, square, piece)


__all__ = ["Applied", "applied_copy", "apply"]
