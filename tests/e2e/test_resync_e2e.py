"""A board's pty pulled for several moves of real play: the daemon recovers what it missed."""

from __future__ import annotations

import asyncio
import json
from typing import TYPE_CHECKING

import pytest
from e2e_harness import Subscriber, Table, expected_by_board, running_daemon, the_game
from test_game_e2e import PREFIX, assert_gap_free, match_topic, overrides_for

if TYPE_CHECKING:
    from pathlib import Path

pytestmark = [pytest.mark.pty, pytest.mark.slow, pytest.mark.timeout(240)]


@pytest.mark.broker
async def test_a_board_unplugged_for_several_moves_comes_back_right(
    tmp_path: Path, shared_broker: int, table: Table
) -> None:
    overrides = overrides_for(tmp_path, shared_broker, table, "resync")
    overrides["record"] = str(tmp_path / "trace.jsonl")  # kept for a replay when it fails
    topics = [match_topic(overrides, "events"), f"{overrides['mqtt.root']}/alerts"]
    game = the_game(PREFIX)
    async with Subscriber(shared_broker, topics, persistent=True) as sub:
        async with running_daemon(overrides):
            await table.wait_for_host()
            plan = table.plan(game)
            on_a = [m for m in plan.moves if m.board.name == "A"]
            first, last = on_a[4], on_a[8]  # five plies of board A pass unseen
            table.start(plan)
            table.unplug_during("A", first.started - 0.5, last.pressed + 0.3)
            await table.finished(plan)
            await asyncio.sleep(3.0)
        events = sub.events()
        alerts = [m.json() for m in sub.on("/alerts")]
    (tmp_path / "events.jsonl").write_text("".join(f"{json.dumps(e)}\n" for e in events))
    assert_gap_free(events)
    expected = expected_by_board(game)["A"]
    moves_a = [e for e in events if e["type"] == "move" and e["board"] == "A"]
    recovered = [e for e in moves_a if e.get("recovered")]
    gaps = [a for a in alerts if a["code"] == "gap_ambiguous"]
    assert recovered or gaps, "the gap is recovered or handed to the arbiter"
    if recovered:  # the order of moves that do not interact cannot be known; the set can
        assert [e["ply"] for e in moves_a] == list(range(1, len(moves_a) + 1))
        assert sorted(e["san"] for e in moves_a) == sorted(expected)
    # The moves after the gap (the game goes on well past it) are exact.
    assert len(expected) > on_a.index(last) + 5
    assert [e["san"] for e in moves_a][-5:] == expected[-5:]
    assert not [a for a in alerts if a["severity"] == "illegal"]
