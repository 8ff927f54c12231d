"""Fast, messy hands on one board, square by square: a confirmed move is never rewritten by a
transient of the opponent's move; slid drops, slid captures and early presses read right."""

from __future__ import annotations

import pytest
from sensors import A, Table

from bughouse_bridge.bughouse.events import Takeback
from bughouse_bridge.bughouse.types import AlertCode

# White drops a knight on e4 next to (a knight's move from) its knight on c3; Black's bishop
# takes c3. Lifting the victim first shows "before the drop + Nc3-e4".
KNIGHTS = "4k3/8/8/8/1b6/2N5/8/6K1[N] w - - 0 1"


@pytest.mark.parametrize(
    ("stood", "held"),
    [
        (0.8, 0.5),  # the drop stood while Black's clock ran: final
        (0.3, 0.5),  # premove speed: Black's hand comes 0.3 s after the press
        (0.1, 0.3),  # the victim lifted while the drop was still being scanned
        (0.8, 2.0),  # the victim held a long time
    ],
)
def test_a_confirmed_drop_survives_the_victim_lifted_first(stood: float, held: float) -> None:
    table = Table("fics", fens={A: KNIGHTS}).start_clocks(A)
    table.drop(A, "N", "e4").wait(0.4)
    table.press(A)
    table.wait(stood)
    table.lift(A, "c3").wait(held).lift(A, "b4").wait(0.2).put(A, "c3", "b")
    table.press(A)
    table.settle()
    assert table.moves() == ["N@e4", "b4c3"]
    assert table.of(Takeback) == []
    assert str(table.rec.match.pockets().b_white) == "N"  # the knight went to the partner
    assert table.alerts() == []


def test_a_move_that_stood_is_final() -> None:
    """The same placement that corrects a move before it stood is the opponent's business after:
    a pawn pushed on after its move was pressed and stood is an illegal change, not a slide."""
    table = Table("fics").start_clocks(A)
    table.move(A, "e2e3").wait(0.4)
    table.press(A)
    table.wait(1.0)
    table.move(A, "e3e4").wait(2.0)
    assert table.moves() == ["e2e3"]
    assert table.of(Takeback) == []
    assert [alert.code for alert in table.alerts()] == [AlertCode.WRONG_TURN]


def test_a_move_pressed_early_is_still_completed_by_the_slide() -> None:
    table = Table("fics").start_clocks(A)
    table.move(A, "e2e3")
    table.press(A)
    table.wait(0.1)
    table.move(A, "e3e4").settle()
    assert table.moves() == ["e2e4"]
    assert table.alerts() == []


@pytest.mark.parametrize("press_early", [True, False])
def test_a_drop_set_next_to_its_square_and_slid(press_early: bool) -> None:
    table = Table("fics", fens={A: "4k3/8/8/8/8/8/8/4K3[N] w - - 0 1"}).start_clocks(A)
    table.drop(A, "N", "d4")
    if press_early:
        table.press(A)
        table.wait(0.1)
    else:
        table.wait(0.35)
    table.lift(A, "d4").put(A, "d5", "N")
    if not press_early:
        table.press(A)
    table.settle()
    assert table.moves() == ["N@d5"]
    assert table.alerts() == []


@pytest.mark.parametrize("victim_first", [True, False])
@pytest.mark.parametrize("rest", [0.0, 0.3])
def test_a_capture_slid_in_after_an_early_press(victim_first: bool, rest: float) -> None:
    table = Table("fics", fens={A: "4k3/8/8/p7/8/8/8/R3K3[] w - - 0 1"}).start_clocks(A)
    table.lift(A, "a1").put(A, "a4", "R").wait(rest)
    table.press(A)
    table.wait(0.1)
    if victim_first:
        table.lift(A, "a5").wait(0.15)
    table.lift(A, "a4").put(A, "a5", "R").settle()
    assert table.moves() == ["a1a5"]
    assert table.alerts() == []
