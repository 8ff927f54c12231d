"""The hall's pure parts: names, broker files, round files, pairings in the bridge, results."""

from __future__ import annotations

import base64
import hashlib
import json
import shutil
import subprocess
from datetime import UTC, datetime

import pytest
from scholars import games_in_a_row, hasty_set_up

from bughouse_bridge.bridge import Bridge, BridgeConfig, Output, replay_chunks
from bughouse_bridge.bughouse.bpgn import parse_bpgn_game
from bughouse_bridge.bughouse.rules import get_preset
from bughouse_bridge.bughouse.types import BoardId
from bughouse_bridge.daemon.hall_results import ResultsCollector
from bughouse_bridge.hall.broker import (
    HallPaths,
    HallPlan,
    Uplink,
    acl,
    box_config,
    box_match_ids,
    mosquitto_conf,
    password_line,
)
from bughouse_bridge.hall.naming import match_id, parse_match_id
from bughouse_bridge.hall.progress import HallTable
from bughouse_bridge.hall.results import BoxView, ResultRow, results_csv, status_line
from bughouse_bridge.hall.rounds import (
    Pairing,
    RoundFileError,
    parse_round_csv,
    parse_round_toml,
    round_from_payload,
    round_payload,
    seating_problems,
)
from bughouse_bridge.reconstruct import ReconstructorConfig

ROUND_TOML = """
round = 2
[[tables]]
table = 1
first = { name = "Lions", black_a = "Anna", white_b = "Ben" }
second = { name = "Tigers", white_a = "Carl", black_b = "Dora" }
[[tables]]
table = 2
first = { id = "owls", name = "Night Owls", black_a = "Eve", white_b = "Finn" }
second = { name = "Foxes", white_a = "Gus", black_b = "Hana" }
"""

ROUND_CSV = """round,table,team,white_a,black_a,white_b,black_b
2,1,Lions,,Anna,Ben,
2,1,Tigers,Carl,,,Dora
"""


# -- names -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("round_number", "table", "game", "expected"),
    [(0, 1, 1, "r0-t1"), (3, 12, 1, "r3-t12"), (3, 12, 2, "r3-t12-g2")],
)
def test_match_ids_round_trip(round_number, table, game, expected):
    assert match_id(round_number, table, game) == expected
    assert parse_match_id(expected) == (round_number, table, game)


@pytest.mark.parametrize("other", ["match-1", "r1t2", "r1-t2-x", "R1-T2"])
def test_other_match_ids_are_not_hall_ids(other):
    assert parse_match_id(other) is None


# -- broker files ----------------------------------------------------------------------------


@pytest.mark.skipif(shutil.which("mosquitto_passwd") is None, reason="no mosquitto_passwd")
def test_password_lines_are_what_mosquitto_passwd_writes(tmp_path):
    reference = tmp_path / "passwd"
    reference.touch()
    subprocess.run(["mosquitto_passwd", "-b", str(reference), "box", "s3cret"], check=True)
    line = reference.read_text().strip()
    salt = base64.b64decode(line.split("$")[3])
    assert password_line("box", "s3cret", salt) == line


def test_password_line_is_pbkdf2_sha512():
    line = password_line("viewer", "pw", b"0123456789ab")
    user, _, seven, iterations, salt, digest = line.replace(":", "$", 1).split("$")
    assert (user, seven, iterations) == ("viewer", "7", "101")
    expected = hashlib.pbkdf2_hmac("sha512", b"pw", base64.b64decode(salt), 101, 64)
    assert base64.b64decode(digest) == expected


def _sections(text: str) -> dict[str | None, list[str]]:
    sections: dict[str | None, list[str]] = {None: []}
    user = None
    for line in text.splitlines():
        if line.startswith("user "):
            user = line.removeprefix("user ")
            sections[user] = []
        elif line.startswith("topic "):
            sections[user].append(line)
    return sections


def test_acl_roles():
    plan = HallPlan(tables=3, rounds=2, games_per_round=2, root="bh")
    sections = _sections(acl(plan))
    assert set(sections) == {None, "viewer", "arbiter", "table-1", "table-2", "table-3"}
    # Anonymous and viewers only read; nobody but the arbiter writes a request or the round.
    for reader in (None, "viewer"):
        assert all(line.startswith("topic read ") for line in sections[reader])
        assert "topic read bh/hall/round" in sections[reader]
        assert "topic read bh/hall/rounds/+" in sections[reader]
        assert "topic read bh/hall/scoring" in sections[reader]
        assert "topic read bh/match/+/record/+" in sections[reader]
        assert "topic read bh/bridge/+/games" in sections[reader]
        assert "topic read bh/alerts" not in sections[reader]
        assert not [line for line in sections[reader] if "/ack/" in line]
    for box in ("table-1", "table-2", "table-3"):
        writes = [line for line in sections[box] if line.startswith("topic write")]
        assert not [line for line in writes if "/request/" in line or "/hall/" in line]
        assert not [line for line in writes if "/ack/" in line]
        assert f"topic read bh/bridge/{box}/request/+" in sections[box]
    assert "topic write bh/bridge/+/request/+" in sections["arbiter"]
    assert "topic write bh/ack/#" in sections["arbiter"]  # the shared acknowledgement
    assert "topic write bh/hall/rounds/+" in sections["arbiter"]
    table_2 = " ".join(sections["table-2"])
    assert "topic write bh/match/r2-t2-g2/#" in sections["table-2"]
    assert "-t1/" not in table_2
    assert "-t3/" not in table_2


def test_box_match_ids_cover_round_zero_to_the_last_round():
    plan = HallPlan(tables=1, rounds=2, games_per_round=2)
    assert box_match_ids(plan, 1) == ["r0-t1", "r0-t1-g2", "r1-t1", "r1-t1-g2", "r2-t1", "r2-t1-g2"]


def test_conf_has_tls_websockets_persistence_and_no_anonymous_write():
    plan = HallPlan(tables=2, mqtt_port=8883, ws_port=9001)
    conf = mosquitto_conf(plan, HallPaths.under("/srv/hall"))
    assert "listener 8883 0.0.0.0\nprotocol mqtt\ncafile /srv/hall/tls/ca.crt" in conf
    assert "listener 9001 0.0.0.0\nprotocol websockets" in conf
    assert "persistence true" in conf
    assert "acl_file /srv/hall/acl" in conf
    assert "connection uplink" not in conf


def test_uplink_forwards_broadcast_one_way_at_qos_1():
    plan = HallPlan(tables=1, uplink=Uplink.parse("relay.example.org:1884"), root="bh")
    conf = mosquitto_conf(plan, HallPaths.under("/h"))
    topics = [line for line in conf.splitlines() if line.startswith("topic ")]
    assert "address relay.example.org:1884" in conf
    assert topics
    assert all(line.endswith(" out 1") for line in topics)
    assert not [line for line in topics if "request" in line or "response" in line]
    assert "topic bh/match/+/events out 1" in topics


@pytest.mark.parametrize("bad", ["relay", "relay:", ":1883", "relay:http", "relay:70000"])
def test_bad_uplinks_are_refused(bad):
    with pytest.raises(ValueError, match="HOST:PORT"):
        Uplink.parse(bad)


def test_box_config_names_table_match_and_credentials():
    text = box_config(HallPlan(tables=4, host="hall.lan"), HallPaths.under("/h"), 4)
    assert 'bridge_id = "table-4"' in text
    assert 'match_id = "r0-t4"' in text
    assert "[hall]\ntable = 4" in text
    assert 'password_file = "/h/boxes/table-4.password"' in text


# -- round files -----------------------------------------------------------------------------


def test_toml_and_csv_round_files_agree():
    from_toml = parse_round_toml(ROUND_TOML)
    from_csv = parse_round_csv(ROUND_CSV)
    assert from_toml.number == from_csv.number == 2
    assert from_toml.pairing(1) == from_csv.pairing(1)
    assert from_toml.pairing(2) is not None
    assert from_toml.pairing(2).first.id == "owls"
    assert from_toml.pairing(3) is None


def test_the_payload_round_trips():
    parsed = parse_round_toml(ROUND_TOML)
    assert round_from_payload(round_payload(parsed, ts="2026-11-23T04:00:00.000Z")) == parsed


def test_pairing_teams_put_white_a_first():
    teams = parse_round_toml(ROUND_TOML).pairing(1).teams()
    assert teams.ids == ("tigers", "lions")
    assert dict(teams.players) == {
        "white_a": "Carl",
        "black_a": "Anna",
        "white_b": "Ben",
        "black_b": "Dora",
    }


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("round = 0\n[[tables]]\ntable = 1", "round: expected a positive"),
        ("round = 1", "at least one"),
        ("round = 1\nfoo = 2\n[[tables]]\ntable = 1", "unknown key"),
        ('round = 1\n[[tables]]\ntable = 1\nfirst = { name = "X", white_a = "a" }', "two players"),
        ("round = 1\n[[tables]]\ntable = 1\nfirst = { white_a = 'a', black_b = 'b' }", "name"),
        ("round = [", "invalid TOML"),
    ],
)
def test_bad_toml_round_files_are_explained(text, message):
    with pytest.raises(RoundFileError, match=message):
        parse_round_toml(text)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("round,table,team\n", "header lacks"),
        (ROUND_CSV + "3,2,Owls,,Eve,Finn,\n3,2,Foxes,Gus,,,Hana\n", "one round number"),
        (ROUND_CSV.replace("2,1,Tigers", "2,x,Tigers"), "line 3: table"),
        (ROUND_CSV + "2,1,Owls,,Eve,Finn,\n", "two team rows"),
    ],
)
def test_bad_csv_round_files_are_explained(text, message):
    with pytest.raises(RoundFileError, match=message):
        parse_round_csv(text)


@pytest.mark.parametrize(
    ("first", "second", "problem"),
    [
        ("black_a = 'A', white_b = 'B'", "white_a = 'C', black_b = 'D'", None),
        ("white_a = 'A', black_b = 'B'", "black_a = 'C', white_b = 'D'", "DSJ 8.2"),
        ("white_a = 'A', black_a = 'B'", "white_b = 'C', black_b = 'D'", "one partner pair"),
        ("black_a = 'A', white_b = 'B'", "black_a = 'C', white_b = 'D'", "both teams on"),
    ],
)
def test_seating_is_checked_against_dsj_8_2(first, second, problem):
    text = (
        f"round = 1\n[[tables]]\ntable = 1\nfirst = {{ name = 'X', {first} }}\n"
        f"second = {{ name = 'Y', {second} }}\n"
    )
    problems = seating_problems(parse_round_toml(text).pairing(1))
    if problem is None:
        assert problems == []
    else:
        assert any(problem in line for line in problems), problems


# -- the bridge of a hall box ----------------------------------------------------------------


def hall_bridge(table: int | None = 1) -> Bridge:
    return Bridge(
        BridgeConfig(
            bridge_id="table-1",
            match_id="r0-t1",
            rules=get_preset("fics"),
            reconstructor=ReconstructorConfig(),
            links={"A": BoardId.A, "B": BoardId.B},
            table=table,
        )
    )


def round_command(bridge: Bridge, text: str, now: float) -> tuple[dict, Output]:
    payload = round_payload(parse_round_toml(text), ts="2026-11-23T04:00:00.000Z")
    return bridge.command("hall_round", payload, now)


SWAPS = (
    ('black_a = "Anna", white_b = "Ben"', 'white_a = "Anna", black_b = "Ben"'),
    ('white_a = "Carl", black_b = "Dora"', 'black_a = "Carl", white_b = "Dora"'),
)


def round_text(number: int, *, swapped: bool = False) -> str:
    """Round ``number`` of ROUND_TOML; ``swapped`` seats the first-named team on White A."""
    text = ROUND_TOML.replace("round = 2", f"round = {number}")
    if swapped:
        text = text.replace(
            'black_a = "Anna", white_b = "Ben"', 'white_a = "Anna", black_b = "Ben"'
        )
        text = text.replace(
            'white_a = "Carl", black_b = "Dora"', 'black_a = "Carl", white_b = "Dora"'
        )
    return text


def test_an_untouched_box_takes_its_pairing_at_once():
    bridge = hall_bridge()
    response, output = round_command(bridge, round_text(1), 0.0)
    assert response == {"transaction": None, "ok": True, "taken": True, "match": "r1-t1"}
    state = json.loads(next(p.payload for p in output.publications if p.topic.endswith("/state")))
    assert state["match"] == "r1-t1"
    assert [team["id"] for team in state["teams"]] == ["tigers", "lions"]
    assert state["players"]["black_a"] == "Anna"
    assert bridge.topics.events.endswith("/match/r1-t1/events")


def test_the_same_round_again_or_an_older_one_changes_nothing():
    bridge = hall_bridge()
    round_command(bridge, round_text(2), 0.0)
    for number in (2, 1):
        response, output = round_command(bridge, round_text(number), 1.0)
        assert response["taken"] is False
        assert output == Output()
    assert bridge.topics.state.endswith("/r2-t1/state")


def test_a_bridge_outside_a_hall_refuses_pairings():
    response, _ = round_command(hall_bridge(table=None), round_text(1), 0.0)
    assert response["ok"] is False
    assert "not a hall box" in response["error"]


def test_a_table_without_a_pairing_keeps_its_match():
    bridge = Bridge(
        BridgeConfig(
            bridge_id="table-9",
            match_id="r0-t9",
            rules=get_preset("fics"),
            reconstructor=ReconstructorConfig(),
            links={"A": BoardId.A, "B": BoardId.B},
            table=9,
        )
    )
    response, output = round_command(bridge, round_text(1), 0.0)
    assert response["taken"] is False
    assert output == Output()


def test_wrong_seating_raises_seating_wrong_on_the_new_match():
    bridge = hall_bridge()
    _, output = round_command(bridge, round_text(1, swapped=True), 0.0)
    alerts = [e for e in output.events if e["type"] == "alert"]
    assert [(a["code"], a["match"]) for a in alerts] == [("seating_wrong", "r1-t1")]
    assert "DSJ 8.2" in alerts[0]["message"]


def test_the_next_game_starts_by_itself_with_the_next_pairing():
    first_game, second_game, third_game = games_in_a_row(3)
    bridge = hall_bridge()
    round_command(bridge, round_text(1), 0.0)
    output = replay_chunks(bridge, first_game[: len(first_game) // 2], tail=0.0)
    # Round 2 arrives mid-game: it waits for the result and the start position.
    response, _ = round_command(bridge, round_text(2), first_game[len(first_game) // 2][0])
    assert response["taken"] is True
    assert response["match"] == "r1-t1"
    output += replay_chunks(bridge, first_game[len(first_game) // 2 :])
    output += replay_chunks(bridge, second_game)
    # No new pairing: the third game is the second of round 2 at this table.
    output += replay_chunks(bridge, third_game)
    events = list(output.events)
    # Issue 20: every game after the first was published "after the result" and archived
    # under the first game's name and number, which it overwrote.
    decided: set[str] = set()
    for event in events:
        assert event.get("after_result", False) == (event["match"] in decided), event
        if event["type"] == "result":
            decided.add(event["match"])
    files = {f.name: parse_bpgn_game(f.text) for f in output.files}
    assert sorted(files) == [
        "1970-01-01_r1-t1_round-1_table-1_game-1.bpgn",
        "1970-01-01_r2-t1-g2_round-2_table-1_game-2.bpgn",
        "1970-01-01_r2-t1_round-2_table-1_game-1.bpgn",
    ]
    for game in files.values():
        assert (game.result, game.tags["BlackA"], game.tags["WhiteB"]) == ("1-0", "Anna", "Ben")
        assert len(game.moves) == 7
    assert {game.tags["Round"] for game in files.values()} == {"1", "2"}
    results = [(e["match"], e["winner"], e["reason"]) for e in events if e["type"] == "result"]
    assert results == [
        ("r1-t1", "tigers", "checkmate"),
        ("r2-t1", "tigers", "checkmate"),
        ("r2-t1-g2", "tigers", "checkmate"),
    ]
    moves = {
        m: [e["san"] for e in events if e["type"] == "move" and e["match"] == m]
        for m in ("r1-t1", "r2-t1", "r2-t1-g2")
    }
    assert all(line == ["e4", "e5", "Bc4", "Nc6", "Qh5", "Nf6", "Qxf7#"] for line in moves.values())
    seqs = [e["seq"] for e in events]
    assert seqs == list(range(1, len(seqs) + 1))


def test_the_arbiter_can_still_start_a_new_game():
    bridge = hall_bridge()
    round_command(bridge, round_text(1), 0.0)
    response, _ = bridge.command("new_game", b"{}", 1.0)
    assert response["ok"] is True
    assert bridge.topics.state.endswith("/r1-t1/state")


# -- results ---------------------------------------------------------------------------------


def finished_state(match: str = "r2-t5") -> dict:
    return {
        "match": match,
        "ts": "2026-11-23T04:00:00.000Z",
        "teams": [
            {"id": "tigers", "name": "Tigers", "seats": ["white_a", "black_b"]},
            {"id": "lions", "name": "Lions", "seats": ["black_a", "white_b"]},
        ],
        "boards": {"A": {"ply": 7}, "B": {"ply": 0}},
        "result": {"winner": "tigers", "board": "A", "reason": "checkmate", "bpgn_result": "1-0"},
    }


def test_a_finished_state_is_a_results_row():
    row = ResultRow.from_state(finished_state())
    assert row is not None
    assert (row.round, row.table, row.game) == (2, 5, 1)
    assert (row.first_team, row.second_team) == ("Lions", "Tigers")
    assert (row.winner, row.winner_name, row.board, row.reason) == (
        "tigers",
        "Tigers",
        "A",
        "checkmate",
    )
    assert results_csv([row]).splitlines() == [
        "round,table,game,match,first_team,second_team,winner,winner_name,reason,board,bpgn_result",
        "2,5,1,r2-t5,Lions,Tigers,tigers,Tigers,checkmate,A,1-0",
    ]


@pytest.mark.parametrize(
    "state",
    [
        {**finished_state(), "result": None},
        {**finished_state(), "match": "match-1"},
        {"match": 3},
    ],
)
def test_unfinished_or_foreign_states_give_no_row(state):
    assert ResultRow.from_state(state) is None


def test_the_collector_writes_csv_json_and_bpgn_per_round(tmp_path):
    collector = ResultsCollector(tmp_path)
    assert collector.on_message("bh/match/r2-t5/bpgn", b"[Event]\n") == set()
    changed = collector.on_message("bh/match/r2-t5/state", json.dumps(finished_state()).encode())
    assert changed == {2}
    collector.write(changed)
    assert (tmp_path / "round-2.csv").read_text().count("\n") == 2
    assert json.loads((tmp_path / "round-2.json").read_text())["results"][0]["match"] == "r2-t5"
    assert (tmp_path / "round-2" / "r2-t5.bpgn").read_text() == "[Event]\n"
    # Written once: the same messages again need no writing.
    assert collector.on_message("bh/match/r2-t5/bpgn", b"[Event]\n") == set()
    assert collector.on_message("bh/match/r2-t5/state", b"not json") == set()


def test_status_line_shows_link_clock_firmware_and_game():
    view = BoxView(
        "table-5",
        {"state": "online"},
        {
            "A": {
                "connected": True,
                "clock": "3000 1.1",
                "firmware": "1.2",
                "clock_battery_low": True,
            }
        },
        finished_state(),
    )
    line = status_line(view, datetime(2026, 11, 23, 4, 0, 30, tzinfo=UTC))
    assert line.startswith("table-5    online")
    assert "A:up[fw 1.2, clock 3000 1.1, battery LOW]" in line
    assert "B:?" in line
    assert "r2-t5 finished plies 7/0 last event 30s ago" in line


# -- a box's progress through rounds ---------------------------------------------------------


def pairing_of(number: int) -> Pairing:
    found = parse_round_toml(round_text(number)).pairing(1)
    assert found is not None
    return found


@pytest.mark.parametrize(
    ("configured", "steps", "expected"),
    [
        # (pending round or None, next_game) per step -> the match ids that start
        ("r0-t1", [(1, False)], ["r1-t1"]),
        ("r0-t1", [(1, False), (None, True), (None, True)], ["r1-t1", "r1-t1-g2", "r1-t1-g3"]),
        ("r0-t1", [(1, False), (2, True)], ["r1-t1", "r2-t1"]),
        ("r0-t1", [(1, False), (None, True), (2, True)], ["r1-t1", "r1-t1-g2", "r2-t1"]),
        ("match-1", [(3, False)], ["r3-t1"]),
        ("r2-t1-g2", [(None, True)], ["r2-t1-g3"]),
    ],
)
def test_hall_progress_names_each_game(configured, steps, expected):
    progress = HallTable.of(configured)
    started = []
    for pending, next_game in steps:
        if pending is not None:
            progress.pending = pairing_of(pending)
        started.append(progress.advance(1, next_game=next_game)[0])
    assert started == expected


@pytest.mark.parametrize(
    ("current", "offered", "untouched", "wanted"),
    [(1, 2, False, True), (1, 1, True, True), (1, 1, False, False), (2, 1, True, False)],
)
def test_hall_progress_wants_newer_rounds_only(current, offered, untouched, wanted):
    progress = HallTable.of(f"r{current}-t1")
    assert progress.wants(pairing_of(offered), untouched=untouched) is wanted


def test_hall_progress_ignores_the_pairing_it_plays():
    progress = HallTable.of("r0-t1")
    progress.pending = pairing_of(1)
    progress.advance(1, next_game=False)
    assert progress.wants(pairing_of(1), untouched=True) is False


@pytest.mark.parametrize(
    ("payload", "error"),
    [
        (b"not json", "not valid JSON"),
        (b"[]", "JSON object"),
        (b'{"round": 1}', "'round' and 'tables'"),
        (b'{"round": 0, "tables": {}}', "positive"),
        (b'{"round": 1, "tables": {"1": {"first": {}}}}', "id, name and players"),
    ],
)
def test_a_garbled_round_is_refused_and_changes_nothing(payload, error):
    bridge = hall_bridge()
    response, output = bridge.command("hall_round", payload, 0.0)
    assert response["ok"] is False
    assert error in response["error"]
    assert output == Output()
    assert bridge.topics.state.endswith("/r0-t1/state")


def test_the_next_game_starts_when_each_board_was_set_up_one_after_the_other():
    """After a result the boards are set up again one at a time; board A's players do not wait
    and play e4 before board B stands ready. Each board has been seen in the start position
    since the result: the next game starts, and e4 is its first move, not a move after the
    result of the game before."""
    first_game, hasty = hasty_set_up()
    bridge = hall_bridge()
    round_command(bridge, round_text(1), 0.0)
    output = replay_chunks(bridge, first_game)
    output += replay_chunks(bridge, hasty)
    events = list(output.events)
    results = [e["match"] for e in events if e["type"] == "result"]
    assert results == ["r1-t1"]
    assert bridge.game.id.match == "r1-t1-g2"
    moves = [(e["match"], e["san"]) for e in events if e["type"] == "move"]
    assert moves[-1] == ("r1-t1-g2", "e4")
    assert not [e for e in events if e["match"] == "r1-t1-g2" and e.get("after_result")]
