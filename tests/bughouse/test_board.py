"""The board's own placement renderer against python-chess's, on positions of random playouts
(drops, promotions, promoted pieces captured and dropped again) and on hand-picked edge cases."""

from __future__ import annotations

import chess
import chess.variant
import pytest
from hypothesis import given
from hypothesis import strategies as st

from bughouse_bridge.bughouse.board import BughouseBoard, placement_of, render_placement

POCKET_TYPES = (chess.PAWN, chess.KNIGHT, chess.BISHOP, chess.ROOK, chess.QUEEN)


@st.composite
def playouts(draw: st.DrawFn) -> chess.variant.CrazyhouseBoard:
    """A crazyhouse position after random moves; pieces appear in the pockets at random, so
    drops are frequent, and pawns near promotion are favoured to get promoted pieces."""
    board = chess.variant.CrazyhouseBoard()
    for _ in range(draw(st.integers(0, 80))):
        if draw(st.booleans()):
            board.pockets[board.turn].add(draw(st.sampled_from(POCKET_TYPES)))
        moves = sorted(board.legal_moves, key=lambda move: (move.promotion is None, move.uci()))
        if not moves:
            break
        board.push(moves[draw(st.integers(0, len(moves) - 1))])
    return board


@given(playouts())
def test_the_placement_is_python_chess_text(board: chess.variant.CrazyhouseBoard) -> None:
    for promoted in (False, True):
        assert render_placement(board, promoted=promoted) == chess.BaseBoard.board_fen(
            board, promoted=promoted
        )
    assert placement_of(board) == chess.BaseBoard.board_fen(board, promoted=False)


@pytest.mark.parametrize(
    "fen",
    [
        chess.variant.CrazyhouseBoard.starting_fen,
        "8/8/8/8/8/8/8/8[] w - - 0 1",  # no piece at all: eight runs of eight
        "Q~Q~Q~Q~Q~Q~Q~Q~/8/8/8/8/8/8/k6K[] w - - 0 1",  # a rank of promoted pieces
        "1k4r1/8/2N~5/8/8/8/6q~1/K7[Pp] b - - 0 40",  # runs of one and six around promoted ones
    ],
)
def test_the_bughouse_board_writes_the_fen_as_python_chess_does(fen: str) -> None:
    ours, theirs = BughouseBoard(fen), chess.variant.CrazyhouseBoard(fen)
    assert ours.fen() == theirs.fen()
    assert ours.board_fen() == theirs.board_fen()
    assert ours.board_fen(promoted=False) == theirs.board_fen(promoted=False)
