"""The composed pure pipeline: commands, ordering, snapshot, determinism (contract §3–5)."""

from __future__ import annotations

import json
from functools import cache

import pytest

from bughouse_bridge.bridge import Bridge, BridgeConfig, replay_chunks, run_to
from bughouse_bridge.bughouse.bpgn import parse_bpgn
from bughouse_bridge.bughouse.rules import get_preset
from bughouse_bridge.bughouse.types import BoardId
from bughouse_bridge.data import bundled_game
from bughouse_bridge.emulator.game import game_scenario
from bughouse_bridge.emulator.playback import run_scenario
from bughouse_bridge.reconstruct import ReconstructorConfig
from bughouse_bridge.topics import Teams


def make_bridge(**changes) -> Bridge:
    config = BridgeConfig(
        bridge_id="table-1",
        match_id="m-1",
        rules=get_preset("fics"),
        reconstructor=ReconstructorConfig(),
        links={"A": BoardId.A, "B": BoardId.B},
        teams=Teams(ids=("white-a-team", "black-a-team")),
        **changes,
    )
    return Bridge(config)


@cache
def game_chunks(seed: int = 3) -> tuple[tuple[float, str, bytes], ...]:
    """The bundled real game played on the emulator: what the two links received."""
    game = parse_bpgn(bundled_game())[0]
    plan = game_scenario(game, rules=get_preset("fics"), seed=seed)
    records = run_scenario(plan.scenario).records
    return tuple((r.t, r.link, r.data) for r in records if r.direction == "rx")


def replayed(bridge: Bridge, chunks=None):
    return replay_chunks(bridge, chunks if chunks is not None else game_chunks())


def test_events_are_numbered_gap_free_from_one():
    output = replayed(make_bridge())
    seqs = [event["seq"] for event in output.events]
    assert seqs == list(range(1, len(seqs) + 1))
    assert sum(event["type"] == "move" for event in output.events) > 20


def test_replay_is_deterministic():
    first = replayed(make_bridge())
    second = replayed(make_bridge())
    assert first.events == second.events
    assert first.publications == second.publications


def test_each_step_publishes_one_retained_state_after_its_events():
    """Contract §2, "What is published when": the state follows the events it reflects, once
    per step (a mating move's move, check, mate and result events share one state)."""
    bridge = make_bridge()
    steps = []
    for t, link, data in game_chunks():
        steps += [run_to(bridge, t), bridge.receive(link, data, t)]
    steps.append(run_to(bridge, 10_000.0))
    with_events = [step for step in steps if step.events]
    assert len(with_events) > 20
    for step in with_events:
        topics = [p.topic for p in step.publications]
        assert topics.count(bridge.topics.state) == 1
        last_event = max(i for i, topic in enumerate(topics) if topic == bridge.topics.events)
        assert topics.index(bridge.topics.state) > last_event


def test_muted_events_keep_their_numbers_but_are_not_published():
    quiet = make_bridge()
    quiet.mute_until(10)
    output = replayed(quiet)
    published = [
        json.loads(p.payload)["seq"] for p in output.publications if p.topic == quiet.topics.events
    ]
    assert published
    assert min(published) == 10
    assert [e["seq"] for e in output.events] == [e["seq"] for e in replayed(make_bridge()).events]


def test_restart_as_continues_the_numbering_under_the_new_boot_id():
    bridge = make_bridge()
    chunks = game_chunks()
    half = len(chunks) // 2
    before = replay_chunks(bridge, chunks[:half], tail=0.0)
    bridge.restart_as("boot-2", next_seq=before.events[-1]["seq"] + 1)
    after = replay_chunks(bridge, chunks[half:])
    assert after.events[0]["seq"] == before.events[-1]["seq"] + 1
    assert {event["boot_id"] for event in after.events} == {"boot-2"}


def test_snapshot_shows_both_boards_pockets_and_last_seq():
    bridge = make_bridge()
    replayed(bridge)
    snapshot = bridge.snapshot()
    assert set(snapshot["boards"]) == {"A", "B"}
    for board in snapshot["boards"].values():
        assert {"fen", "turn", "ply", "last_move", "status", "clock", "link"} <= set(board)
        assert set(board["clock"]) == {"white_ms", "black_ms", "running"}
    assert set(snapshot["pockets"]) == {"A", "B"}
    assert snapshot["last_seq"] == bridge.last_seq
    assert snapshot["rules"]["preset"] == "fics"
    assert [team["id"] for team in snapshot["teams"]] == ["white-a-team", "black-a-team"]


def test_bpgn_topic_holds_the_moves_so_far():
    bridge = make_bridge()
    output = replayed(bridge)
    moves = [event for event in output.events if event["type"] == "move"]
    text = bridge.bpgn_text()
    game = parse_bpgn(text)[0]
    assert len(game.moves) == len(moves)
    assert [m.san for m in game.moves] == [event["san"] for event in moves]


@pytest.mark.parametrize(
    ("verb", "payload", "error_part"),
    [
        ("takeback", b"{not json", "not valid JSON"),
        ("takeback", b"[1, 2]", "JSON object"),
        ("fly", b"{}", "unknown verb"),
        ("takeback", b'{"board": "C"}', "'board'"),
        ("takeback", b'{"board": "A", "colour": "white"}', "unknown argument"),
        ("set_result", b'{"winner": "nobody", "board": "A", "reason": "resign"}', "'winner'"),
        ("set_result", b'{"winner": null, "board": "A", "reason": ""}', "'reason'"),
        ("accept", b"{}", "'board'"),
        ("status", b'{"verbose": true}', "unknown argument"),
        ("choose_recovery", b'{"gap": 1}', "'gap' and 'candidate'"),
        ("choose_recovery", b'{"gap": "1", "candidate": 0}', "'gap' and 'candidate'"),
        ("choose_recovery", b'{"gap": true, "candidate": 0}', "'gap' and 'candidate'"),
        ("choose_recovery", b'{"gap": 1, "candidate": 0}', "no open gap"),
        ("choose_recovery", b'{"gap": 1, "candidate": 0, "x": 1}', "unknown argument"),
    ],
)
def test_bad_requests_get_a_sentence_and_change_nothing(verb, payload, error_part):
    bridge = make_bridge()
    replay_chunks(bridge, game_chunks()[:200])
    before = (bridge.snapshot(), bridge.last_seq, bridge.bpgn_text())
    response, output = bridge.command(verb, payload, now=500.0)
    assert response["ok"] is False
    assert error_part in response["error"]
    assert output.publications == ()
    assert output.writes == ()
    assert (bridge.snapshot(), bridge.last_seq, bridge.bpgn_text()) == before


def test_transaction_is_echoed():
    response, _ = make_bridge().command("status", b'{"transaction": "t-77"}', now=1.0)
    assert response["transaction"] == "t-77"
    assert response["ok"] is True
    assert set(response["state"]["boards"]) == {"A", "B"}


def test_takeback_command_removes_the_last_move_of_that_board():
    bridge = make_bridge()
    output = replay_chunks(bridge, game_chunks()[:300])
    moves_on_a = [e for e in output.events if e["type"] == "move" and e["board"] == "A"]
    assert moves_on_a
    response, result = bridge.command("takeback", b'{"board": "A"}', now=1000.0)
    assert response["ok"] is True
    assert response["ply"] == moves_on_a[-1]["ply"] - 1
    kinds = [event["type"] for event in result.events]
    assert kinds[0] == "takeback"


def test_set_result_decides_the_match_once():
    bridge = make_bridge()
    request = b'{"winner": "black-a-team", "board": "B", "reason": "resign"}'
    response, output = bridge.command("set_result", request, now=3.0)
    assert response["ok"] is True
    result = [event for event in output.events if event["type"] == "result"]
    assert result[0]["winner"] == "black-a-team"
    again, _ = bridge.command("set_result", request, now=4.0)
    assert again["ok"] is False


def test_resync_requests_board_dumps():
    _, output = make_bridge().command("resync", b"{}", now=1.0)
    assert sorted(output.writes) == [("A", b"\x42"), ("B", b"\x42")]
    _, only_b = make_bridge().command("resync", b'{"board": "B"}', now=1.0)
    assert only_b.writes == (("B", b"\x42"),)


def test_unknown_link_bytes_are_ignored():
    bridge = make_bridge()
    assert bridge.receive("C", b"\x8e\x00\x05\x34\x00", 1.0).events == ()
