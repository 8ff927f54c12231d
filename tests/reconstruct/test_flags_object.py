"""``flags.Flags`` on its own: a plain object with a small interface, the flags fallen as its
state, the table read only when it decides."""

from __future__ import annotations

import chess

from bughouse_bridge.bughouse.events import Flag
from bughouse_bridge.bughouse.match import Match
from bughouse_bridge.bughouse.rules import get_preset
from bughouse_bridge.bughouse.types import BoardId
from bughouse_bridge.reconstruct.board_state import Board
from bughouse_bridge.reconstruct.clocks import ClockTracker
from bughouse_bridge.reconstruct.config import ReconstructorConfig
from bughouse_bridge.reconstruct.flags import Flags, HeldFlag, Table
from bughouse_bridge.reconstruct.occupancy import Occupancy
from bughouse_bridge.reconstruct.presses import Press, Pressed

CONFIG = ReconstructorConfig()


def _table(*, at_rest: bool = True) -> Table:
    boards = {board: Board(Occupancy(), False, ClockTracker(None)) for board in BoardId}
    return Table(Match(get_preset("dsj")), boards, lambda _board: at_rest)


def test_nothing_fallen_nothing_due() -> None:
    flags = Flags(CONFIG)
    assert flags.deadline() is None
    assert flags.release(_table(), 10.0) == []


def test_a_flag_waits_for_the_move_of_a_press_made_before_it() -> None:
    flags, table = Flags(CONFIG), _table()
    table.boards[BoardId.B].press_event(Pressed(Press(9.9, None)))  # pressed before the flag
    flags.fell(HeldFlag(BoardId.A, chess.WHITE, at=9.95, seen=10.0))
    assert flags.waiting(BoardId.A, chess.WHITE)
    assert not flags.waiting(BoardId.A, chess.BLACK)
    assert flags.deadline() == 10.0 + flags.hold
    assert flags.release(table, 10.1) == []  # the press's move may still be read
    released = flags.release(table, 10.0 + flags.hold)
    assert [type(event) for event in released][:1] == [Flag]
    assert not flags.waiting(BoardId.A, chess.WHITE)
    assert flags.deadline() is None


def test_a_flag_that_fell_before_a_move_is_released_before_it() -> None:
    """Reported just after the flag: on the flag's own board the placement is given a scan's
    benefit (it may have come first: a mate needs no press); across the boards the order of
    the messages stands."""
    flags, table = Flags(CONFIG), _table()
    for board in BoardId:
        table.boards[board].changed_at = 19.0 + CONFIG.stability_window / 2
    flags.fell(HeldFlag(BoardId.B, chess.WHITE, at=19.0, seen=19.5))
    assert flags.release(table, 20.0, before=BoardId.B) == []
    assert flags.release(table, 20.0, before=BoardId.A) != []
