"""``accept`` through the reconstructor: the log and ply numbering go on, and so does reading."""

from __future__ import annotations

from sensors import A, B, Table

from bughouse_bridge.bughouse.events import PositionAccepted
from bughouse_bridge.bughouse.types import AlertCode


def test_an_accepted_position_keeps_the_plies_and_the_other_board():
    table = Table()
    table.move(A, "e2e4").settle().move(A, "e7e5").settle()
    table.move(B, "d2d4").settle()
    other = table.rec.match.fen(B)
    table.move(A, "g1g3").wait(1.5)  # no legal move explains it
    assert table.codes() == [AlertCode.ILLEGAL_MOVE]
    outcomes = table.rec.accept(A, table.t)
    table.out += outcomes
    (accepted,) = [o for o in outcomes if isinstance(o, PositionAccepted)]
    assert accepted.ply == 2
    match = table.rec.match
    assert match.board_fen(A) == table.physical[A].board_fen()
    assert (match.ply(A), match.ply(B), match.fen(B)) == (2, 1, other)
    table.move(A, "d2d4").settle()  # still White's move on A: the arbiter changed no turn
    assert [event.ply for event in table.played() if event.board is A] == [1, 2, 3]
    assert table.moves(A) == ["e2e4", "e7e5", "d2d4"]


def test_accepting_the_position_the_match_already_has_changes_nothing():
    table = Table()
    table.move(A, "e2e4").settle()
    assert table.rec.accept(A, table.t) == []
    assert table.rec.match.ply(A) == 1
