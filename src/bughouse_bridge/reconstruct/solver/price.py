"""The bound of a move's child, priced without playing the move (the search's filter).

``bound.slack`` of a position is a sum of terms per colour and kind of piece. A plain move
changes at most two of them (the moved kind, the captured kind), so the child's bound is the
parent's with those two terms recomputed (and the squares that differ, with the two squares
the move changes, and the squares to empty): most moves the bound would cut after ``push``
are cut here, at a fraction of the cost of playing and taking them back. Exactly the same
arithmetic as ``slack``; a move that changes anything else the bound reads (castling rights, a
king that may still castle, a promotion, en passant, the last pawn of a colour) is not priced
here (``fits`` says ``UNPRICED``; the search plays it and asks ``slack``).
"""

from __future__ import annotations

from dataclasses import dataclass

import chess

from bughouse_bridge.reconstruct.solver.bound import (
    Goal,
    arrivals_cost,
    castling_spare,
    castlings,
    emptied,
    touched,
)
from bughouse_bridge.reconstruct.solver.departures import both_suffice, goal_squares, shortfall

__all__ = ["CUT", "UNPRICED", "Terms", "fits", "terms"]

CUT = None  # the bound cuts the child (``slack`` would say None)
UNPRICED = -1  # not priced here: play the move and ask ``slack`` (a slack is never negative)

_KINDS = 7  # index 0 unused, then chess.PAWN .. chess.KING
_DOUBLE_STEP = 16  # squares between a pawn's double step's ends


@dataclass(slots=True)
class Terms:
    """One position's bound, per colour (``chess.WHITE`` is 1) and kind."""

    there: list[int]  # piece masks, by colour * 7 + kind
    wanted: list[int]
    cost: list[int]
    cost_sum: list[int]  # per colour
    leave_sum: list[int]
    droppable: list[bool]
    pawns: tuple[bool, bool]
    castles: tuple[bool, bool]
    spare: tuple[int, int]  # castling's spare move, per colour
    differ: int  # the squares whose piece is not the goal's
    castlings: int  # ``bound.castlings``
    occupied: int  # the goal's occupied squares
    emptying: int  # the squares occupied now that the goal has empty (``bound.emptied``)
    occupied_co: tuple[int, int]  # the pieces per colour (black first), for ``departures``
    goal_co: tuple[int, int]  # the goal's
    kings: int
    goal: Goal


def terms(board: chess.Board, goal: Goal, supply: dict[chess.Color, tuple[int, ...]]) -> Terms:
    """The parts of ``slack(board, goal, ..., refills=False)`` when the pocket holds
    ``supply``'s kinds (the search's pocket never runs out of them)."""
    occupied_co = board.occupied_co
    by_type = (0, board.pawns, board.knights, board.bishops, board.rooks, board.queens, board.kings)
    pawns = (bool(board.pawns & occupied_co[0]), bool(board.pawns & occupied_co[1]))
    castles = (board.has_castling_rights(chess.BLACK), board.has_castling_rights(chess.WHITE))
    there = [0] * (2 * _KINDS)
    wanted = [0] * (2 * _KINDS)
    cost = [0] * (2 * _KINDS)
    droppable = [False] * (2 * _KINDS)
    cost_sum = [0, 0]
    leave_sum = [0, 0]
    differ = occupied = 0
    for color, kind, want in goal:
        index = int(color) * _KINDS + kind
        mask = by_type[kind] & occupied_co[color]
        differ |= mask ^ want
        occupied |= want
        there[index] = mask
        wanted[index] = want
        droppable[index] = kind in supply[color]
        leave_sum[color] += (mask & ~want).bit_count()
        if want & ~mask:
            cost[index] = arrivals_cost(
                color, kind, want, mask, droppable[index], pawns[color], castles[color]
            )
            cost_sum[color] += cost[index]
    spare = (castling_spare(board, goal, chess.BLACK), castling_spare(board, goal, chess.WHITE))
    return Terms(
        there,
        wanted,
        cost,
        cost_sum,
        leave_sum,
        droppable,
        pawns,
        castles,
        spare,
        differ,
        castlings(board, goal, castles),
        occupied,
        board.occupied & ~occupied,
        (occupied_co[0], occupied_co[1]),
        goal_squares(goal),
        board.kings,
        goal,
    )


def fits(parts: Terms, board: chess.Board, move: chess.Move, plies: int) -> int | None:
    """``slack`` of the child of ``move`` (``plies`` more plies): ``CUT`` when the bound cuts
    it, ``UNPRICED`` when the move is not priced here (see the module)."""
    if board.castling_rights & chess.BB_SQUARES[move.to_square]:
        return UNPRICED
    if move.drop:
        return _drop(parts, board, move.drop, move.to_square, plies)
    return _move(parts, board, move, plies)


def _drop(
    parts: Terms, board: chess.Board, kind: chess.PieceType, to: int, plies: int
) -> int | None:
    mover = board.turn
    if kind == chess.PAWN and not parts.pawns[mover]:
        return UNPRICED
    to_bb = chess.BB_SQUARES[to]
    moved = int(mover) * _KINDS + kind
    differ = parts.differ & ~to_bb | (to_bb & ~parts.wanted[moved])
    if differ.bit_count() > touched(plies, parts.castlings, ep=False):
        return CUT
    emptying = parts.emptying | (to_bb & ~parts.occupied)
    if emptying.bit_count() > emptied(plies, parts.castlings, ep=False):
        return CUT
    occupied_co = list(parts.occupied_co)
    occupied_co[mover] |= to_bb
    if not _departing(parts, board, occupied_co, differ, (to, kind), plies=plies, ep=False):
        return CUT
    cost = list(parts.cost_sum)
    leave = list(parts.leave_sum)
    _retally(parts, cost, leave, index=moved, mask=parts.there[moved] | to_bb)
    return _within(parts, cost, leave, turn=not mover, plies=plies)


def _move(parts: Terms, board: chess.Board, move: chess.Move, plies: int) -> int | None:
    from_bb = chess.BB_SQUARES[move.from_square]
    to_bb = chess.BB_SQUARES[move.to_square]
    kind = board.piece_type_at(move.from_square)
    enemy = not board.turn
    victim = board.piece_type_at(move.to_square)
    if (
        kind is None
        or (kind == chess.KING and parts.castles[board.turn])
        or move.promotion
        or board.castling_rights & from_bb
        or (kind == chess.PAWN and move.to_square == board.ep_square)
        or (victim == chess.PAWN and not board.pawns & board.occupied_co[enemy] & ~to_bb)
    ):
        return UNPRICED
    moved = int(board.turn) * _KINDS + kind
    differ = (
        parts.differ & ~(from_bb | to_bb)
        | (from_bb & parts.occupied)
        | (to_bb & ~parts.wanted[moved])
    )
    double_step = kind == chess.PAWN and abs(move.to_square - move.from_square) == _DOUBLE_STEP
    if differ.bit_count() > touched(plies, parts.castlings, ep=double_step):
        return CUT
    emptying = parts.emptying & ~from_bb | (to_bb & ~parts.occupied)
    if emptying.bit_count() > emptied(plies, parts.castlings, ep=double_step):
        return CUT
    occupied_co = list(parts.occupied_co)
    occupied_co[board.turn] = occupied_co[board.turn] & ~from_bb | to_bb
    occupied_co[enemy] &= ~to_bb
    placed = (move.to_square, kind)
    if not _departing(parts, board, occupied_co, differ, placed, plies=plies, ep=double_step):
        return CUT
    cost = list(parts.cost_sum)
    leave = list(parts.leave_sum)
    _retally(parts, cost, leave, index=moved, mask=parts.there[moved] ^ from_bb ^ to_bb)
    if victim is not None:
        taken = int(enemy) * _KINDS + victim
        _retally(parts, cost, leave, index=taken, mask=parts.there[taken] & ~to_bb)
    return _within(parts, cost, leave, turn=enemy, plies=plies)


def _departing(  # noqa: PLR0913 - the child's parts
    parts: Terms,
    board: chess.Board,
    occupied_co: list[int],
    differ: int,
    moved: tuple[chess.Square, chess.PieceType],
    *,
    plies: int,
    ep: bool,
) -> bool:
    """``departures`` of the child of the move that puts ``moved`` on its square."""
    turn = not board.turn
    own = [0, 0]
    own[turn] = (plies + 1) // 2
    own[not turn] = plies // 2
    goal_co = parts.goal_co
    empty = (occupied_co[0] & differ & ~goal_co[1], occupied_co[1] & differ & ~goal_co[0])
    missing = (goal_co[0] & differ, goal_co[1] & differ)
    for side in (0, 1):
        if missing[side].bit_count() + empty[side].bit_count() <= own[side]:
            continue  # its plies suffice whatever they do (``shortfall``'s first answer)
        short = shortfall(side, own, empty, missing, parts.castles, parts.kings, ep=ep)
        if not both_suffice(board, parts.goal, side, empty[side], missing[side], short, moved):
            return False
    return True


def _retally(parts: Terms, cost: list[int], leave: list[int], *, index: int, mask: int) -> None:
    """Replace the term ``index`` (colour * 7 + kind) of the sums by that of ``mask``."""
    color = index >= _KINDS
    want = parts.wanted[index]
    old = parts.there[index]
    leave[color] += (mask & ~want).bit_count() - (old & ~want).bit_count()
    new_cost = 0
    if want & ~mask:
        new_cost = arrivals_cost(
            color,
            index - int(color) * _KINDS,
            want,
            mask,
            parts.droppable[index],
            parts.pawns[color],
            parts.castles[color],
        )
    cost[color] += new_cost - parts.cost[index]


def _within(
    parts: Terms, cost: list[int], leave: list[int], *, turn: bool, plies: int
) -> int | None:
    own = [0, 0]
    own[turn] = (plies + 1) // 2
    own[not turn] = plies // 2
    for color in (0, 1):
        budget = own[color] + parts.spare[color]
        if cost[color] > budget or leave[color] > budget + own[1 - color]:
            return CUT
    return own[turn] + parts.spare[turn] - cost[turn]
