"""Steal promotions (rows 4-6): which pieces on the neighbour board may be taken.

The promoting player takes a queen, rook, bishop or knight *of his own colour* from his opponent
on the neighbour board (White A steals from White B). Row 5 limits what the removal may do there.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import chess

from bughouse_bridge.bughouse.rules import RuleSet, StealRestriction

if TYPE_CHECKING:
    from bughouse_bridge.bughouse.board import BughouseBoard


def stealable_mask(target: chess.Board, color: chess.Color) -> chess.Bitboard:
    """Queens, rooks, bishops and knights of ``color`` on the neighbour board."""
    pieces = target.queens | target.rooks | target.bishops | target.knights
    return pieces & target.occupied_co[color]


def steal_squares(rules: RuleSet, target: BughouseBoard, color: chess.Color) -> list[chess.Square]:
    """Squares on the neighbour board whose piece ``color`` may steal under row 5."""
    return [
        square
        for square in chess.scan_forward(stealable_mask(target, color))
        if steal_allowed(rules, target, square)
    ]


def steal_allowed(rules: RuleSet, target: chess.Board, square: chess.Square) -> bool:
    """Row 5: may the piece on ``square`` be removed from the neighbour board?"""
    if rules.steal_restriction is StealRestriction.NO_KING_IN_CHECK:
        return not any(_attackers_after(target, square, color) for color in chess.COLORS)
    if rules.steal_restriction is StealRestriction.NO_UNCOVERED_CHECK:
        return not any(_uncovered(target, square, color) for color in chess.COLORS)
    return True


def _attackers_after(
    target: chess.Board, removed: chess.Square, king_color: chess.Color
) -> chess.Bitboard:
    king = target.king(king_color)
    if king is None:
        return chess.BB_EMPTY
    removed_bb = chess.BB_SQUARES[removed]
    occupied = target.occupied & ~removed_bb
    return target.attackers_mask(not king_color, king, occupied) & ~removed_bb


def _uncovered(target: chess.Board, removed: chess.Square, king_color: chess.Color) -> bool:
    """A check on ``king_color`` that the removed piece blocked (DSB 5.2)."""
    king = target.king(king_color)
    if king is None:
        return False
    before = target.attackers_mask(not king_color, king)
    return bool(_attackers_after(target, removed, king_color) & ~before)
