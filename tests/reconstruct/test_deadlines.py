"""The next deadline is derived from the boards' values (``reconstruct/deadlines.py``): every due
lives in the state that needs it, and a due read once is never due again (no timer spins)."""

from __future__ import annotations

import math

import chess
import pytest
from sensors import A, Table

from bughouse_bridge.bughouse.types import AlertCode, BoardId, BughouseMove
from bughouse_bridge.reconstruct.board_state import Board
from bughouse_bridge.reconstruct.clocks import ClockTracker
from bughouse_bridge.reconstruct.config import ReconstructorConfig
from bughouse_bridge.reconstruct.deadlines import board_deadline
from bughouse_bridge.reconstruct.last_move import LastMove
from bughouse_bridge.reconstruct.link import Lost, Settling
from bughouse_bridge.reconstruct.occupancy import Occupancy
from bughouse_bridge.reconstruct.presses import Ahead, Owed, Press
from bughouse_bridge.reconstruct.reading_machine import (
    Astray,
    AwaitPiece,
    AwaitPress,
    Blocked,
    Recheck,
    Stuck,
)
from bughouse_bridge.reconstruct.reading_values import Firmness
from bughouse_bridge.reconstruct.stall_watch import Reported, Watching

CONFIG = ReconstructorConfig()  # window 0.25, drop 2, unexplained 4, stalling 30, press 0.6
E4 = BughouseMove(BoardId.A, chess.Move.from_uci("e2e4"))
N_AT_F3 = BughouseMove(BoardId.A, chess.Move.from_uci("N@f3"))
CHANGED = 10.0
SETTLED = CHANGED + CONFIG.stability_window  # the placement's own due


def board(**values: object) -> Board:
    """A board whose placement changed at ``CHANGED`` and was read once settled."""
    state = Board(Occupancy(), rotated=False, clock=ClockTracker(None), changed_at=CHANGED)
    state.read_at = SETTLED
    for name, value in values.items():
        setattr(state, name, value)
    return state


DUES = [
    ({}, None),  # read once settled: nothing more is due
    ({"read_at": -math.inf}, SETTLED),  # a change not read yet
    ({"read_at": CHANGED + 0.1}, SETTLED),  # read before it settled (a press): read again
    ({"reading": AwaitPress(E4, 13.0)}, 13.0),
    ({"reading": AwaitPiece(N_AT_F3, CHANGED)}, CHANGED + CONFIG.drop_grace),
    ({"reading": Blocked()}, None),  # held: solved with the other board's gap
    ({"track": Astray(9.0, 14.0)}, 14.0),
    ({"track": Stuck(9.0, 11.0)}, 11.0),
    ({"track": Astray(9.0)}, None),  # astray, its last reading held (or nothing to report)
    ({"track": Recheck()}, None),  # read again when the other board moves: no time
    ({"rotated": None}, CHANGED + CONFIG.unexplained_limit),
    ({"presses": Ahead((Press(10.5, None),))}, 10.5 + CONFIG.press_grace),
    ({"presses": Ahead((Press(9.0, None),))}, CHANGED + CONFIG.press_grace),  # hand on it
    ({"presses": Owed(1)}, None),
    ({"last": LastMove(E4, firmness=Firmness.PRESSED, confirmed_at=10.5)}, 11.1),
    ({"last": LastMove(E4, firmness=Firmness.HASTY, confirmed_at=9.0)}, CHANGED + 0.6),
    ({"last": LastMove(E4, firmness=Firmness.FINAL, confirmed_at=10.5)}, None),
    ({"stall": Watching(5.0), "moved_at": 20.0}, 20.0 + CONFIG.stalling_limit),
    ({"stall": Reported(5.0), "moved_at": 20.0}, None),  # reported once per move
    ({"link": Settling(back_at=11.0, unheard_for=2.0)}, 11.0 + CONFIG.unexplained_limit),
    ({"link": Settling(back_at=11.0, unheard_for=30.0)}, None),  # a long gap: published at once
    ({"link": Lost(9.0, announced=True)}, None),
]


@pytest.mark.parametrize(("values", "due"), DUES)
def test_each_state_carries_its_due(values: dict[str, object], due: float | None) -> None:
    deadline = board_deadline(board(**values), CONFIG, decided=False, flag_due=None)
    if due is None:
        assert deadline is None
    else:
        assert deadline == pytest.approx(due)


def test_a_decided_game_reports_no_stalling_and_a_held_flag_wakes_its_board() -> None:
    watching = board(stall=Watching(5.0), moved_at=20.0)
    assert board_deadline(watching, CONFIG, decided=True, flag_due=None) is None
    assert board_deadline(watching, CONFIG, decided=False, flag_due=12.0) == 12.0


@pytest.mark.parametrize(("values", "_due"), [case for case in DUES if case[1] is not None])
def test_a_due_is_read_once(values: dict[str, object], _due: float) -> None:
    """A reading at (or after) a due has dealt with it, or waits on a due of its own: a passed
    due never brings the board back (the timer would spin on it)."""
    state = board(**values)
    due = board_deadline(state, CONFIG, decided=False, flag_due=None)
    assert due is not None
    state.read_at = due
    later = board_deadline(state, CONFIG, decided=False, flag_due=None)
    assert later is None or later > due


def test_an_unexplained_placement_is_reported_at_its_due_and_then_nothing_is_due() -> None:
    table = Table()
    table.lift(A, "a1")  # nothing explains a rook gone
    changed = table.t - 0.05
    table.wait(1.0)
    assert table.rec.deadline() == pytest.approx(changed + CONFIG.unexplained_limit)
    table.wait(CONFIG.unexplained_limit)
    assert [a.code for a in table.alerts()] == [AlertCode.UNEXPLAINED_POSITION]
    assert table.rec.deadline() is None


def test_a_move_awaiting_its_press_is_committed_at_its_due() -> None:
    table = Table().start_clocks()
    table.move(A, "e2e4")
    changed = table.t - 0.05
    table.wait(1.0)
    assert table.moves(A) == []
    assert table.rec.deadline() == pytest.approx(changed + CONFIG.no_press_commit_after)
    table.wait(CONFIG.no_press_commit_after)
    assert table.moves(A) == ["e2e4"]
    assert AlertCode.MOVE_WITHOUT_CLOCK in [a.code for a in table.alerts()]


@pytest.mark.parametrize("name", ["stability_window", "press_grace", "illegal_after"])
def test_a_duration_that_is_not_positive_is_refused(name: str) -> None:
    """A due made at a reading must lie after it, or it would never be read."""
    with pytest.raises(ValueError, match="positive"):
        ReconstructorConfig(**{name: 0.0})
