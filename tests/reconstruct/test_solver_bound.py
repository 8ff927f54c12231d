"""The solver's bound: priced before a move as after it, and never more than the truth."""

from __future__ import annotations

import chess
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bughouse_bridge.bughouse.board import BughouseBoard
from bughouse_bridge.reconstruct.solver.bound import Goal, goal_of, slack, touched
from bughouse_bridge.reconstruct.solver.price import UNPRICED, fits, terms

_KINDS = (chess.PAWN, chess.KNIGHT, chess.BISHOP, chess.ROOK, chess.QUEEN)


@st.composite
def walks(draw: st.DrawFn) -> tuple[BughouseBoard, list[chess.Move]]:
    """A crazyhouse position with a pocket of every kind for both sides (as the search's
    supply), then a walk of 1-8 plies from it (drops, captures, castling, promotions)."""
    board = BughouseBoard()
    for color in chess.COLORS:
        for kind in _KINDS:
            for _ in range(40):  # never runs out, as the search's supply
                board.pockets[color].add(kind)
    for _ in range(draw(st.integers(0, 30))):
        moves = list(board.legal_moves)
        if not moves:
            break
        board.push(draw(st.sampled_from(moves)))
    start = board.copy(stack=False)
    walk = []
    for _ in range(draw(st.integers(1, 8))):
        moves = list(board.legal_moves)
        if not moves:
            break
        walk.append(draw(st.sampled_from(moves)))
        board.push(walk[-1])
    return start, walk


_SUPPLY: dict[chess.Color, tuple[int, ...]] = dict.fromkeys(chess.COLORS, _KINDS)


def _reached(start: BughouseBoard, moves: list[chess.Move]) -> Goal:
    """The goal the walk reaches: its end placement."""
    end = start.copy(stack=False)
    for move in moves:
        end.push(move)
    return goal_of(end.board_fen())


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(walks())
def test_a_move_priced_before_it_is_played_has_the_slack_it_has_once_played(
    walk: tuple[BughouseBoard, list[chess.Move]],
) -> None:
    start, moves = walk
    goal = _reached(start, moves)
    parts = terms(start, goal, _SUPPLY)
    plies = len(moves) - 1
    for move in start.legal_moves:
        priced = fits(parts, start, move, plies)
        start.push(move)
        after = slack(start, goal, plies, refills=False)
        start.pop()
        assert priced in {UNPRICED, after}, move.uci()


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(walks())
def test_the_bound_never_cuts_the_walk_that_reached_the_goal(
    walk: tuple[BughouseBoard, list[chess.Move]],
) -> None:
    start, moves = walk
    goal = _reached(start, moves)
    board = start.copy(stack=False)
    for played, move in enumerate(moves):
        left = len(moves) - played
        assert slack(board, goal, left, refills=False) is not None
        assert fits(terms(board, goal, _SUPPLY), board, move, left - 1) is not None
        board.push(move)


def test_the_squares_a_ply_can_change() -> None:
    assert touched(3, 0, ep=False) == 6  # from and to
    assert touched(1, 1, ep=False) == 4  # a castling: king and rook
    assert touched(1, 0, ep=True) == 3  # en passant right away: the taken pawn's square too
    assert touched(0, 2, ep=True) == 4
