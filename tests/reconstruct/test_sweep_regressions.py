"""Runs the reconstruction sweep (bench/sweep_reconstruct.py) once failed, kept as a table: each is
a game, a handling style and a seed, checked like every run of ``test_games`` (both boards move
for move, the pockets, no false alert)."""

from __future__ import annotations

import pytest
from test_games import GAMES, check_game

# A move pressed before its mover's hand was done (a slid drop or capture with an early press),
# then a piece lifted: only a board read in full may revise the committed move, never a board
# supposed to lack a piece still in the hand.
SWEEP_FAILURES = [
    # 8a. P@f4 set down on g5, pressed, slid on after the press: read as P@g5 plus 9A. Bf4
    # with a pawn lifted unseen, and board A lost from there.
    ("1934301", "messy", 52),
    ("1934301", "messy", 55),
    # 31A. Qxe8 slid in from d8 after the press: the capturer still in the hand read as
    # "30a. Q@d8 instead, then Qxd8" (and 32A. c8=Q as another move after it).
    ("1934301", "messy", 46),
    # 20B. Q@f7 slid in from f8 after the press: a false move_without_clock.
    ("1934301", "messy", 33),
    # 10B. N@e6 slid in from d5 after the press, then knocked over: it read as a bishop for
    # 0.9 s, taken for "B@e6 instead" (no square emptied between), and the pockets were wrong
    # for the rest of the game. A piece turning into another of its colour is a misread.
    ("1934301", "knocked", 23),
]


@pytest.mark.parametrize(("name", "style", "seed"), SWEEP_FAILURES)
def test_a_sweep_failure_reads_right(name: str, style: str, seed: int) -> None:
    check_game(GAMES[name], seed, style)
