"""The next game at a table: the last game's clock may still run while the pieces are set up.

After a mate nobody need stop the clock: the loser's time runs on while the players put the
pieces back, and the next game begins (``new_game``) when the boards stand in the start position.
A running clock seen then belongs to the last game, so it must not teach which side is White
(the side to move would be White, the running side is the loser's). It taught the wrong side in
the hall's three-games test: every press of game 2 was then read as the other player's, in
some runs (2 of 12 under load) its mate went unread, and game 3 was read as more of game 2.
"""

from __future__ import annotations

import chess
from sensors import A, Table, clock_times

from bughouse_bridge.bughouse.events import Alert, MovePlayed
from bughouse_bridge.dgt.messages import LeverSide
from bughouse_bridge.reconstruct.clocks import ClockTracker

SCHOLARS_MATE = ["e2e4", "e7e5", "f1c4", "b8c6", "d1h5", "g8f6", "h5f7"]
# From the mate back to the start position, one square at a time: (square, piece or None).
SET_UP_AGAIN = [
    ("f7", "p"),
    ("d1", "Q"),
    ("c4", None),
    ("f1", "B"),
    ("c6", None),
    ("b8", "n"),
    ("f6", None),
    ("g8", "n"),
    ("e4", None),
    ("e2", "P"),
    ("e5", None),
    ("e7", "p"),
]


def play_with_presses(table: Table, moves: list[str]) -> None:
    for uci in moves:
        table.move(A, uci).wait(0.1)
        table.press(A)
        table.wait(0.6)


def next_game_on_the_last_games_clock() -> tuple[Table, int]:
    """Scholar's mate (Black's time runs on), the pieces set up again, a new game, and a
    reading of the last game's clock still running for its loser; with the outcomes' count
    before the new game."""
    table = Table("fics").start_clocks()
    play_with_presses(table, SCHOLARS_MATE)
    assert table.rec.match.result is not None  # White mated: Black's time runs on
    assert table.running[A] == chess.BLACK
    table.settle()
    for square, symbol in SET_UP_AGAIN:
        table.put(A, square, symbol).wait(0.1)
    table.settle()
    table.out += table.rec.new_game(table.t)
    since = len(table.out)
    table.times[A][1] -= 1000
    table.clock(A, chess.BLACK)
    table.settle()
    return table, since


def test_the_last_games_running_clock_does_not_teach_whites_side() -> None:
    table, since = next_game_on_the_last_games_clock()
    table.times[A] = [300_000, 300_000]
    table.clock(A, None)  # the arbiter sets the clock for the game...
    table.wait(1.0)
    table.clock(A, chess.WHITE)  # ...and starts it: White's time runs
    table.wait(1.0)
    play_with_presses(table, ["e2e4", "e7e5"])
    table.settle()
    new = table.out[since:]
    played = [o for o in new if isinstance(o, MovePlayed)]
    assert [(p.move.uci, p.clock_ms) for p in played] == [("e2e4", 299_000), ("e7e5", 299_000)]
    assert [o for o in new if isinstance(o, Alert)] == []
    assert table.rec._boards[A].clock.white_side is LeverSide.LEFT


def _at_rest(tracker: ClockTracker, t: float, running: chess.Color | None) -> None:
    """A reading of a clock set for a new game, the board on its position (White to move)."""
    times = clock_times(300_000, 300_000, running)
    tracker.feed(times, t, turn=chess.WHITE, at_rest=True, presser=chess.WHITE)


def test_a_clock_running_from_the_last_game_teaches_once_it_was_stopped() -> None:
    last_game = ClockTracker(LeverSide.LEFT)
    last_game.feed(
        clock_times(250_000, 241_000, chess.BLACK),
        0.0,
        turn=chess.WHITE,
        at_rest=False,
        presser=chess.WHITE,
    )
    tracker = ClockTracker(None)
    tracker.carry_over(last_game)
    black_runs = clock_times(250_000, 240_000, chess.BLACK)
    tracker.feed(black_runs, 1.0, turn=chess.WHITE, at_rest=True, presser=chess.WHITE)
    assert tracker.white_side is None
    _at_rest(tracker, 2.0, None)  # stopped: set for the new game
    _at_rest(tracker, 3.0, chess.WHITE)
    assert tracker.white_side is LeverSide.LEFT


def test_a_fresh_clock_running_at_rest_still_teaches_at_once() -> None:
    tracker = ClockTracker(None)
    _at_rest(tracker, 1.0, chess.WHITE)
    assert tracker.white_side is LeverSide.LEFT


def test_a_press_at_rest_on_the_last_games_clock_says_nobody_s_side() -> None:
    """The clock is never stopped: Black presses the still running clock so that White's time
    runs. At rest before any move, who pressed is unknown (the side to move is White, but Black
    starting White's time is the custom), so only the first move's press teaches the side."""
    table, since = next_game_on_the_last_games_clock()
    table.press(A)  # Black presses the running clock: White's time runs
    table.wait(1.0)
    assert table.rec._boards[A].clock.white_side is None
    play_with_presses(table, ["e2e4", "e7e5"])
    table.settle()
    new = table.out[since:]
    played = [o for o in new if isinstance(o, MovePlayed)]
    assert [p.move.uci for p in played] == ["e2e4", "e7e5"]
    assert [p.clock_ms is not None for p in played] == [True, True]
    assert table.rec._boards[A].clock.white_side is LeverSide.LEFT
