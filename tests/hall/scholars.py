"""A short bughouse game that ends by itself: scholar's mate on board A (a contact mate no drop
can block), played on the emulator, then the boards set up again and the game played again."""

from __future__ import annotations

from functools import cache

import chess

from bughouse_bridge.bughouse.bpgn import BpgnGame, parse_bpgn
from bughouse_bridge.bughouse.rules import get_preset
from bughouse_bridge.emulator.game import game_scenario
from bughouse_bridge.emulator.playback import run_scenario
from bughouse_bridge.emulator.scenario import Scenario

SCHOLARS_MATE = """[Event "hall test"]
[WhiteA "a"][BlackA "b"][WhiteB "c"][BlackB "d"]
[TimeControl "300+0"]
[Result "1-0"]
1A. e4 1a. e5 2A. Bc4 2a. Nc6 3A. Qh5 3a. Nf6 4A. Qxf7# 1-0
"""

Chunks = tuple[tuple[float, str, bytes], ...]


def scholars_mate() -> BpgnGame:
    return parse_bpgn(SCHOLARS_MATE)[0]


@cache
def games_in_a_row(count: int) -> tuple[Chunks, ...]:
    """What the links receive for ``count`` games, each set up from the last one's end."""
    rules = get_preset("fics")
    games: list[Chunks] = []
    final = None
    offset = 0.0
    for index in range(count):
        plan = game_scenario(scholars_mate(), rules=rules, seed=index + 1, set_up_from=final)
        records = run_scenario(plan.scenario).records
        games.append(tuple((r.t + offset, r.link, r.data) for r in records if r.direction == "rx"))
        final, offset = plan.final, offset + plan.end + 1.0
    return tuple(games)


@cache
def hasty_set_up() -> tuple[Chunks, Chunks]:
    """Scholar's mate, then the boards set up again one after the other: board B's pieces are
    being put away, board A is set up and White A plays e4 (and presses) while board B is
    still not set up again."""
    rules = get_preset("fics")
    plan = game_scenario(scholars_mate(), rules=rules, seed=1)
    records = run_scenario(plan.scenario).records
    first = tuple((r.t, r.link, r.data) for r in records if r.direction == "rx")
    scenario = Scenario(plan.scenario.configs, seed=2, placements=plan.final)
    for link in ("A", "B"):
        scenario.host_startup(link)  # the boards talk to the box from their own start
    start = chess.BaseBoard()
    scenario.hands("B").lift(chess.G1)  # board B's players put their pieces away first
    scenario.wait(0.5)
    scenario.hands("A").arrange(start, 1.5)
    scenario.wait(1.0)
    hands = scenario.hands("A")
    hands.lift(chess.E2)
    scenario.wait(0.3)
    hands.place(chess.E4)
    scenario.wait(0.3)
    hands.press_clock()
    scenario.wait(0.5)
    scenario.hands("B").arrange(start, 1.5)
    scenario.wait(3.0)
    offset = plan.end + 1.0
    second = tuple(
        (r.t + offset, r.link, r.data)
        for r in run_scenario(scenario).records
        if r.direction == "rx"
    )
    return first, second
