"""A drop of a piece not held that stands (forced, row 9) is a debt the next delivery settles."""

from __future__ import annotations

import chess

from bughouse_bridge.bughouse.match import Match
from bughouse_bridge.bughouse.rules import get_preset
from bughouse_bridge.bughouse.types import AlertCode, BoardId, BughouseMove

A, B = BoardId.A, BoardId.B
# Board B: Black B can take two white knights, one after the other; each goes to White A.
FENS = {
    A: "4k3/8/8/8/8/8/8/4K3[] w - - 0 1",
    B: "4k3/8/4p1p1/3N1N2/8/8/8/4K3[] b - - 0 1",
}
KNIGHT_DROP = BughouseMove(A, chess.Move(chess.F3, chess.F3, drop=chess.KNIGHT))


def play(match: Match, board: BoardId, uci: str) -> None:
    match.play(BughouseMove(board, chess.Move.from_uci(uci)), t=1.0)


def indebted_match() -> Match:
    match = Match(get_preset("dsj"), fens=FENS)
    assert match.judge(KNIGHT_DROP).code is AlertCode.DROP_NOT_IN_POCKET
    match.play(KNIGHT_DROP, t=1.0, force=True)
    return match


def test_the_partners_capture_settles_a_forced_drop_instead_of_filling_the_pocket():
    match = indebted_match()
    assert match.pockets().a_white == ""
    play(match, B, "e6d5")  # the first knight pays for the one already on f3
    assert match.pockets().a_white == ""
    play(match, B, "e1e2")
    play(match, B, "g6f5")  # the second knight is White A's to keep
    assert match.pockets().a_white == "N"


def test_copies_keep_the_debt_apart():
    match = indebted_match()
    copy = match.copy()
    play(copy, B, "e6d5")
    play(match, B, "e6d5")
    play(match, B, "e1e2")
    play(match, B, "g6f5")
    assert copy.pockets().a_white == ""
    assert match.pockets().a_white == "N"


def test_a_takeback_of_the_settling_capture_restores_the_debt():
    match = indebted_match()
    play(match, B, "e6d5")
    match.takeback(B, t=2.0)
    assert match.pockets().a_white == ""
    play(match, B, "e6d5")
    assert match.pockets().a_white == ""
