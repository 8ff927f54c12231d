"""A bundled real game on two emulated boards behind ptys, the daemon, a real mosquitto.

Transport properties (gap-free ``seq``, order, nothing lost or duplicated) are asserted on
whatever events come; the move-for-move comparison with the BPGN checks the reconstruction.
"""

from __future__ import annotations

import asyncio
import itertools
from typing import TYPE_CHECKING, Any

import pytest
from e2e_harness import (
    Subscriber,
    Table,
    dedupe,
    expected_by_board,
    moves_by_board,
    running_daemon,
    settings_overrides,
    the_game,
    unique_id,
)

from bughouse_bridge.bughouse.bpgn import parse_bpgn
from bughouse_bridge.emulator.actions import Inject
from bughouse_bridge.emulator.handling import Noise

if TYPE_CHECKING:
    from pathlib import Path

    from private_mosquitto import Mosquitto

pytestmark = [pytest.mark.pty, pytest.mark.timeout(240)]

PREFIX = 36  # half-moves played by the tests that do not need the whole game


def assert_gap_free(events: list[dict[str, Any]]) -> None:
    """Transport: one boot, ``seq`` 1..N in arrival order, no gap, no duplicate."""
    seqs = [event["seq"] for event in events]
    assert seqs == list(range(1, len(seqs) + 1)), f"seq not gap-free in order: {seqs}"
    assert len({event["boot_id"] for event in events}) == 1


def overrides_for(tmp_path: Path, port: int, table: Table, name: str) -> dict[str, Any]:
    return settings_overrides(
        workdir=tmp_path,
        port=port,
        root=f"test/{unique_id(name)}",
        bridge=unique_id("bridge"),
        match=unique_id("match"),
        links=table.links,
    )


def match_topic(overrides: dict[str, Any], leaf: str) -> str:
    return f"{overrides['mqtt.root']}/match/{overrides['match_id']}/{leaf}"


def assert_moves(events: list[dict[str, Any]], game_moves: int | None) -> None:
    """Reconstruction: the move events per board are the BPGN's (takebacks applied)."""
    assert moves_by_board(events) == expected_by_board(the_game(game_moves))


@pytest.mark.broker
@pytest.mark.slow
@pytest.mark.whole_game
async def test_full_game_arrives_complete_and_in_order(tmp_path, shared_broker, table):
    overrides = overrides_for(tmp_path, shared_broker, table, "full-game")
    topics = [match_topic(overrides, leaf) for leaf in ("events", "state", "bpgn")]
    game = the_game()
    async with Subscriber(shared_broker, topics, persistent=True) as sub:
        async with running_daemon(overrides):
            await table.wait_for_host()
            plan = table.plan(game)
            table.start(plan)
            await table.finished(plan)
            await sub.wait_for(
                lambda: any(e["type"] == "result" for e in sub.events()), 15, "the result"
            )
            await asyncio.sleep(1.0)  # the retained state after the result
        events = sub.events()
    assert_gap_free(events)
    # Every move of the game, in game order per board, SAN as in the BPGN.
    assert_moves(events, None)
    assert not [e for e in events if e["type"] == "takeback"], "a move was guessed and taken back"
    # The mate ends the match: one result, after the last move.
    results = [e for e in events if e["type"] == "result"]
    assert len(results) == 1
    assert results[0]["board"] == "B"
    assert results[0]["winner"] == "team-one"  # White on B: the first team (DSJ 8.2 seating)
    assert results[0]["seq"] > max(e["seq"] for e in events if e["type"] == "move")
    mates = [e for e in events if e["type"] == "mate" and e["status"] == "final"]
    assert [(m["board"], m["color"]) for m in mates] == [("B", "black")]
    # The retained state and BPGN agree with the stream.
    state = sub.last("/state")
    assert state is not None
    snapshot = state.json()
    assert snapshot["last_seq"] == events[-1]["seq"]
    assert snapshot["result"]["winner"] == "team-one"
    last_move = {e["board"]: e for e in events if e["type"] == "move"}
    for board in ("A", "B"):
        assert snapshot["boards"][board]["fen"] == last_move[board]["fen"]
        assert snapshot["boards"][board]["ply"] == last_move[board]["ply"]
    bpgn = sub.last("/bpgn")
    assert bpgn is not None
    parsed = parse_bpgn(bpgn.payload.decode())[0]
    # Across boards the BPGN interleaves the moves as the bridge saw them (the emulation's
    # timing, not the original game's); per board it is the game.
    streamed = [(e["board"], e["san"]) for e in events if e["type"] == "move"]
    assert [(m.board.name, m.san) for m in parsed.moves] == streamed
    assert expected_by_board(parsed) == expected_by_board(game)
    assert parsed.result == results[0]["bpgn_result"]


@pytest.mark.broker
@pytest.mark.slow
async def test_garbage_on_the_wire_changes_nothing(tmp_path, shared_broker, table):
    """Noise bytes before every move on both boards: the decoder resyncs, the game goes on."""
    overrides = overrides_for(tmp_path, shared_broker, table, "garbage")
    topics = [match_topic(overrides, "events")]
    async with Subscriber(shared_broker, topics, persistent=True) as sub:
        async with running_daemon(overrides):
            await table.wait_for_host()
            plan = table.plan(the_game(PREFIX), noise=Noise(garbage=1.0))
            actions = plan.scenario.sorted_actions()
            injected = [a for a in actions if isinstance(a.action, Inject)]
            assert len(injected) >= PREFIX
            table.start(plan)
            await table.finished(plan)
            await asyncio.sleep(2.0)
        events = sub.events()
    assert_gap_free(events)
    assert_moves(events, PREFIX)
    assert not [e for e in events if e["type"] == "alert" and e["severity"] == "illegal"]


@pytest.mark.slow
async def test_broker_outage_loses_nothing(tmp_path, persistent_mosquitto: Mosquitto, table):
    """Our own mosquitto is stopped for 10 s mid-game; the outbox delivers everything later.

    The subscriber keeps a persistent session (clean_session=False, fixed client id, QoS 1) that
    the broker saves across its restart, so whichever of the daemon and the subscriber reconnects
    first, nothing published after the restart can slip past the subscriber. Everything the
    daemon produced during the outage must come from its outbox.
    """
    mosquitto = persistent_mosquitto
    overrides = overrides_for(tmp_path, mosquitto.port, table, "outage")
    topics = [match_topic(overrides, "events"), match_topic(overrides, "state")]
    game = the_game(PREFIX)
    async with Subscriber(mosquitto.port, topics, persistent=True) as sub:
        async with running_daemon(overrides):
            await table.wait_for_host()
            plan = table.plan(game)
            table.start(plan)
            middle = plan.moves[len(plan.moves) // 3].pressed
            await asyncio.sleep(max(0.0, table.offset + middle - table.runners["A"].now()))
            before = len(dedupe(sub.events()))
            outage_from = table.runners["A"].now() - table.offset
            mosquitto.stop()
            await asyncio.sleep(10)
            mosquitto.start()
            outage_to = table.runners["A"].now() - table.offset
            await table.finished(plan)
            expected = len(expected_by_board(game)["A"]) + len(expected_by_board(game)["B"])
            await sub.wait_for(
                lambda: sum(e["type"] == "move" for e in dedupe(sub.events())) >= expected,
                40,
                "all moves after the outage",
            )
            await asyncio.sleep(1.0)
        messages = list(sub.messages)
    events = dedupe([m.json() for m in messages if m.topic.endswith("/events")])
    assert 0 < before < len(events)
    # Moves were made while the broker was away: their events waited in the outbox.
    assert [m for m in plan.moves if outage_from < m.pressed < outage_to]
    assert_gap_free(events)
    assert_moves(events, PREFIX)
    # The retained state was republished after the reconnect and reflects the last event.
    assert sub.connects >= 2
    states = [m.json() for m in messages if m.topic.endswith("/state")]
    assert states[-1]["last_seq"] == events[-1]["seq"]


@pytest.mark.broker
@pytest.mark.slow
async def test_pty_closed_and_reopened_with_a_move_meanwhile(tmp_path, shared_broker, table):
    overrides = overrides_for(tmp_path, shared_broker, table, "unplug")
    topics = [match_topic(overrides, "events"), f"{overrides['mqtt.root']}/alerts"]
    game = the_game(PREFIX)
    async with Subscriber(shared_broker, topics, persistent=True) as sub:
        async with running_daemon(overrides):
            await table.wait_for_host()
            plan = table.plan(game)
            # The A move with the longest pause after it, in the middle of the game.
            on_a = [m for m in plan.moves if m.board.name == "A"]
            candidates = list(itertools.pairwise(on_a[4:-2]))
            missed, following = max(candidates, key=lambda pair: pair[1].started - pair[0].pressed)
            table.start(plan)
            table.unplug_during("A", missed.started - 0.5, missed.pressed + 0.3)
            await table.finished(plan)
            await asyncio.sleep(3.0)
        events = sub.events()
        alerts = [m.json() for m in sub.on("/alerts")]
    assert_gap_free(events)
    links = [(e["link"], e["status"]) for e in events if e["type"] == "link"]
    lost = links.index(("A", "disconnected"))
    assert ("A", "connected") in links[lost:]
    codes = [(a["board"], a["code"]) for a in alerts]
    assert ("A", "link_lost") in codes
    assert ("A", "link_back") in codes[codes.index(("A", "link_lost")) :]
    # The move made while unplugged is reconstructed, and play continued after it.
    assert_moves(events, PREFIX)
    moves_a = [e for e in events if e["type"] == "move" and e["board"] == "A"]
    sans = [e["san"] for e in moves_a]
    index = on_a.index(missed)
    assert sans[index] == missed.san
    assert sans[index + 1] == following.san
