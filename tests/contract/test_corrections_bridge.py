"""Corrections through the arbiter verbs (contract §5): set_pocket, accept, takeback."""

from __future__ import annotations

import pytest
from test_bridge import game_chunks, make_bridge

from bughouse_bridge.bridge import replay_chunks
from bughouse_bridge.bughouse.bpgn import parse_bpgn


def played_bridge(chunks: int = 300):
    bridge = make_bridge()
    output = replay_chunks(bridge, game_chunks()[:chunks])
    return bridge, output


def test_set_pocket_publishes_the_event_state_and_bpgn():
    bridge, _ = played_bridge()
    plies = {board: bridge.snapshot()["boards"][board]["ply"] for board in "AB"}
    request = b'{"transaction": "p1", "board": "B", "color": "black", "pieces": "NPP"}'
    response, output = bridge.command("set_pocket", request, now=900.0)
    assert response["ok"] is True, response
    assert response["pockets"]["B"]["black"] == "PPN"
    (event,) = [e for e in output.events if e["type"] == "pocket_set"]
    assert (event["board"], event["color"], event["pieces"]) == ("B", "black", "PPN")
    assert event["pockets"] == response["pockets"]
    topics = [p.topic for p in output.publications]
    assert bridge.topics.state in topics
    assert bridge.topics.bpgn in topics
    assert "{pocket B black: PPN}" in bridge.bpgn_text()
    snapshot = bridge.snapshot()
    assert snapshot["pockets"]["B"]["black"] == "PPN"
    assert {board: snapshot["boards"][board]["ply"] for board in "AB"} == plies


@pytest.mark.parametrize(
    ("payload", "error_part"),
    [
        (b'{"board": "B", "color": "black"}', "'pieces'"),
        (b'{"board": "B", "color": "red", "pieces": ""}', "'color'"),
        (b'{"board": "C", "color": "white", "pieces": ""}', "'board'"),
        (b'{"board": "A", "color": "white", "pieces": "PK"}', "not 'K'"),
        (b'{"board": "A", "color": "white", "pieces": 3}', "'pieces'"),
        (b'{"board": "A", "color": "white", "pieces": "", "x": 1}', "unknown argument"),
    ],
)
def test_set_pocket_refuses_bad_arguments_and_changes_nothing(payload, error_part):
    bridge, _ = played_bridge(100)
    before = (bridge.snapshot(), bridge.last_seq, bridge.bpgn_text())
    response, output = bridge.command("set_pocket", payload, now=900.0)
    assert response["ok"] is False
    assert error_part in response["error"]
    assert output.events == ()
    assert (bridge.snapshot(), bridge.last_seq, bridge.bpgn_text()) == before


def test_takeback_on_one_board_leaves_the_others_plies_and_bpgn_consistent():
    bridge, output = played_bridge()
    moves = [e for e in output.events if e["type"] == "move"]
    last_a = [e for e in moves if e["board"] == "A"][-1]
    ply_b = bridge.snapshot()["boards"]["B"]["ply"]
    response, _ = bridge.command("takeback", b'{"board": "A"}', now=900.0)
    assert response["ply"] == last_a["ply"] - 1
    assert bridge.snapshot()["boards"]["B"]["ply"] == ply_b
    sans = [e["san"] for e in moves if e is not last_a]
    assert [move.san for move in parse_bpgn(bridge.bpgn_text())[0].moves] == sans
