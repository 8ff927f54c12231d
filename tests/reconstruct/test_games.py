"""Whole real games through the emulator, under many seeds and handling styles: every board
must come out move for move, and the event stream must carry the right pockets at every point.

``RECONSTRUCT_SEEDS`` (default 20) sets the number of seeds per game and style;
``RECONSTRUCT_FAST_SEEDS`` (default 8) the same for the fast, messy styles and random games.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

import pytest
from trace_gen import (
    KNOCKED,
    MESSY,
    NOISY,
    RESTLESS,
    Replay,
    Table,
    all_per_board,
    expected_per_board,
    game_trace,
    per_board,
    random_game,
    real_games,
    replay,
)

from bughouse_bridge.bughouse.events import Alert, MovePlayed, Takeback
from bughouse_bridge.bughouse.match import Match
from bughouse_bridge.bughouse.rules import get_preset
from bughouse_bridge.dgt.messages import LeverSide
from bughouse_bridge.emulator.game import Pace
from bughouse_bridge.emulator.handling import Handling

if TYPE_CHECKING:
    from bughouse_bridge.bughouse.bpgn import BpgnGame

SEEDS = int(os.environ.get("RECONSTRUCT_SEEDS", "20"))
FAST_SEEDS = int(os.environ.get("RECONSTRUCT_FAST_SEEDS", "8"))  # the messy styles cost more
GAMES = real_games()
STYLES = {
    "clean": {},
    "noisy": {"noise": NOISY},
    "restless": {"handling": RESTLESS},
    # Blitz: six times the real pace, the cross-board order of the game kept, replies reaching
    # the board 0.3 s after the opponent's press (about the fastest a person manages). A press
    # can reach us before the scanner has reported the move's last square, and whole exchanges
    # pass without any position settling for a full stability window.
    "blitz": {"pace": Pace(speed=6, partner_order=True, min_reply=0.3)},
    # Fast, messy hands (see trace_gen.MESSY) at blitz pace.
    "messy": {"handling": MESSY, "pace": Pace(speed=6, partner_order=True, min_reply=0.3)},
    # The same with pieces knocked over and set up again.
    "knocked": {
        "handling": MESSY,
        "noise": KNOCKED,
        "pace": Pace(speed=6, partner_order=True, min_reply=0.3),
    },
    # Premove speed: replies 0.25 s after the last piece is down, presses often early; the board
    # is never still and the scanner reports a press's move after the next hand is on the board.
    # (A piece that stands less than one scan, 0.225 s, may never be reported at all: no reader
    # can see it, so replies are kept just above that.)
    "premove": {
        "handling": Handling(early_press_probability=0.5),
        "pace": Pace(speed=12, partner_order=True, min_reply=0.25),
    },
    "turned": {
        "table": Table(
            rotated={"A": True, "B": False},
            white_side={"A": LeverSide.RIGHT, "B": LeverSide.LEFT},
        )
    },
}
# Alerts a clean game may raise: the emulator times each board on its own, so a drop can come
# before the capture that supplies it; the rules core reports pending mates.
CLEAN_ALERTS = {"drop_not_in_pocket", "mate_pending", "stalemate_waiting", "flag"}
FAST_STYLES = {"messy", "knocked", "premove"}
# At premove speed two presses can fall between two clock reports (the board relays the clock
# about every 0.25 s): both plies are read, but the clock seems not pressed for them.
TOLERATED = {"premove": {"move_without_clock"}}
# Styles whose alerts are checked: no false illegal (or unexplained) alert may come out.
CHECKED_ALERTS = {"clean", "blitz", "messy", "premove"}


def check_pockets(result: Replay) -> None:
    """Replaying the stream's own moves on a fresh match gives each event's pockets."""
    match = Match(get_preset("fics"))
    for outcome in result.outcomes:
        if isinstance(outcome, MovePlayed):
            match.play(outcome.move, t=outcome.t, force=outcome.forced)
            assert match.pockets() == outcome.pockets, outcome
        elif isinstance(outcome, Takeback):
            match.takeback(outcome.board, t=outcome.t)


@pytest.mark.parametrize("style", list(STYLES))
@pytest.mark.parametrize("name", list(GAMES))
def test_game_comes_out_move_for_move(name: str, style: str) -> None:
    game = GAMES[name]
    for seed in range(FAST_SEEDS if style in FAST_STYLES else SEEDS):
        check_game(game, seed, style)


# Random games are full of drops: played in real time each board on its own, a drop would come
# before the capture that supplies it, so the cross-board order of the game is kept.
RANDOM_STYLES = {
    "clean": {"pace": Pace(speed=2, partner_order=True)},
    "messy": STYLES["messy"],
    "premove": STYLES["premove"],
}


@pytest.mark.parametrize("style", list(RANDOM_STYLES))
def test_random_games_come_out_move_for_move(style: str) -> None:
    for seed in range(FAST_SEEDS):
        check_game(random_game(seed), seed, style, RANDOM_STYLES[style])


def check_game(
    game: BpgnGame, seed: int, style: str, knobs: dict[str, object] | None = None
) -> None:
    knobs = STYLES[style] if knobs is None else knobs
    plan, records = game_trace(game, seed, **knobs)  # type: ignore[arg-type]
    result = replay(records)
    before = per_board(result.moves(until_result=True))
    assert before == expected_per_board(game, plan), f"seed {seed}"
    # A result never blinds the reader: the moves made after it are read all the same.
    assert per_board(result.moves()) == all_per_board(game), f"seed {seed}"
    check_pockets(result)
    if style in CHECKED_ALERTS:
        codes = {str(alert.code) for alert in result.of_type(Alert)}  # type: ignore[union-attr]
        assert codes <= CLEAN_ALERTS | TOLERATED.get(style, set()), f"seed {seed}: {codes}"
