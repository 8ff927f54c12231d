"""Roles enforced by a real mosquitto running the configuration ``hall init`` wrote."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import subprocess
import sys
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

import aiomqtt
import pytest
from hall_harness import Hall, Recorder

from bughouse_bridge.config import load_settings
from bughouse_bridge.daemon.app import Daemon
from bughouse_bridge.daemon.hall_mqtt import HallConnection
from bughouse_bridge.daemon.hall_results import gather_boxes
from bughouse_bridge.daemon.hall_round import publish_round
from bughouse_bridge.hall.results import status_line

if TYPE_CHECKING:
    from collections.abc import AsyncIterator
    from pathlib import Path

pytestmark = [pytest.mark.timeout(90)]

SETTLE = 1.0  # a refused publish is dropped silently; wait this long before asserting absence


async def publish(client: aiomqtt.Client, topic: str, payload: bytes) -> None:
    # QoS 1 is acknowledged by the broker even when the ACL drops the message (MQTT 3.1.1).
    await client.publish(topic, payload, qos=1)


@contextlib.asynccontextmanager
async def box_daemon(hall: Hall, table: int, state_dir: Path) -> AsyncIterator[Daemon]:
    settings = load_settings(
        hall.directory / f"table-{table}.toml", overrides={"state_dir": str(state_dir)}
    )
    daemon = Daemon(settings)
    task = asyncio.create_task(daemon.run())
    try:
        yield daemon
    finally:
        daemon.stop()
        await asyncio.wait_for(task, 20)


async def test_anonymous_and_viewer_read_the_broadcast_but_cannot_publish(hall):
    events = hall.topic("match/r1-t1/events")
    box_payload = b'{"from": "table-1"}'
    async with (
        Recorder(hall.client("arbiter"), [hall.topic("#")]) as everything,
        Recorder(hall.client(None), [events]) as anonymous,
        Recorder(hall.client("viewer", websockets=True), [events]) as viewer,
        hall.client("table-1") as box,
    ):
        await publish(box, events, box_payload)
        for reader in (anonymous, viewer, everything):
            await reader.wait_for(lambda r=reader: box_payload in r.payloads(), what="broadcast")
        for intruder in (anonymous.client, viewer.client):
            await publish(intruder, events, b"forged event")
            await publish(intruder, hall.topic("bridge/table-1/request/set_result"), b"{}")
            await publish(intruder, hall.topic("hall/round"), b"forged round")
            await publish(intruder, hall.topic("hall/rounds/1"), b"forged round")
            await publish(intruder, hall.topic("ack/table-1/boot/1"), b"forged ack")
        await asyncio.sleep(SETTLE)
    for reader in (anonymous, viewer, everything):
        assert reader.payloads().count(box_payload) == 1
    assert [m for m in everything.messages if m[1] != box_payload] == []


async def test_viewers_read_the_game_record_and_a_box_writes_only_its_own(hall):
    """Issue 20: the record topics and the games index are broadcast; only their box writes."""
    own = [
        hall.topic("match/r1-t1/record"),
        hall.topic("match/r1-t1/record/7"),
        hall.topic("bridge/table-1/games"),
    ]
    async with (
        Recorder(
            hall.client(None), [hall.topic("match/+/record/#"), hall.topic("bridge/+/games")]
        ) as anonymous,
        hall.client("table-1") as box,
    ):
        for topic in own:
            await publish(box, topic, b"mine")
        await publish(box, hall.topic("match/r1-t2/record/1"), b"not my table")
        await publish(box, hall.topic("bridge/table-2/games"), b"not my bridge")
        await publish(anonymous.client, hall.topic("match/r1-t1/record/8"), b"forged")
        await anonymous.wait_for(lambda: len(anonymous.messages) >= len(own), what="record")
        await asyncio.sleep(SETTLE)
    assert sorted(anonymous.messages) == sorted((topic, b"mine") for topic in own)


async def test_anonymous_cannot_read_alerts_or_requests(hall):
    async with (
        Recorder(
            hall.client(None), [hall.topic("alerts"), hall.topic("bridge/+/request/+")]
        ) as anonymous,
        hall.client("table-1") as box,
        hall.client("arbiter") as arbiter,
    ):
        await publish(box, hall.topic("alerts"), b"alert")
        await publish(arbiter, hall.topic("bridge/table-1/request/status"), b"{}")
        await asyncio.sleep(SETTLE)
    assert anonymous.messages == []


async def test_a_box_cannot_command_nor_write_another_tables_match(hall):
    async with (
        Recorder(hall.client("arbiter"), [hall.topic("#")]) as everything,
        hall.client("table-1") as box,
    ):
        await publish(box, hall.topic("bridge/table-2/request/new_game"), b"{}")
        await publish(box, hall.topic("bridge/table-1/request/new_game"), b"{}")
        await publish(box, hall.topic("match/r1-t2/events"), b"not my table")
        await publish(box, hall.topic("bridge/table-2/status"), b"not my bridge")
        await publish(box, hall.topic("hall/round"), b"not my round")
        await publish(box, hall.topic("ack/table-1/boot/1"), b"not my acknowledgement")
        await publish(box, hall.topic("match/r1-t1/state"), b"mine")
        await everything.wait_for(lambda: b"mine" in everything.payloads(), what="own topic")
        await asyncio.sleep(SETTLE)
    assert everything.payloads() == [b"mine"]


async def test_the_arbiter_commands_and_the_box_answers(hall, tmp_path):
    response = hall.topic("bridge/table-1/response/status")
    async with (
        box_daemon(hall, 1, tmp_path / "box-1"),
        Recorder(hall.client("arbiter"), [response, hall.topic("bridge/table-1/status")]) as rec,
    ):
        await rec.wait_for(lambda: any(b'"online"' in p for p in rec.payloads()), 15, "online")
        request = json.dumps({"transaction": "hall-acl"}).encode()
        await publish(rec.client, hall.topic("bridge/table-1/request/status"), request)
        await rec.wait_for(lambda: any(t == response for t, _ in rec.messages), 15, "response")
    answers: list[dict[str, Any]] = [json.loads(p) for t, p in rec.messages if t == response]
    assert answers[0]["transaction"] == "hall-acl"
    assert answers[0]["ok"] is True
    assert answers[0]["state"]["boards"]["A"]["ply"] == 0


@pytest.mark.parametrize("user", ["table-1", "arbiter", "viewer"])
async def test_a_wrong_password_is_refused(hall, user):
    with pytest.raises(aiomqtt.MqttError):
        async with hall.client(user, password="not-the-password"):  # noqa: S106 - wrong on purpose
            pass


async def test_a_box_with_its_generated_config_connects_over_tls(hall, tmp_path):
    async with (
        Recorder(hall.client("viewer"), [hall.topic("bridge/+/status")]) as viewer,
        box_daemon(hall, 2, tmp_path / "box-2"),
    ):
        await viewer.wait_for(
            lambda: any(t.endswith("table-2/status") for t, _ in viewer.messages), 15, "status"
        )
    assert json.loads(viewer.messages[0][1])["state"] == "online"


async def test_hall_status_sees_the_box_online_with_its_match(hall, tmp_path):
    connection = HallConnection.from_hall(hall.directory, role="viewer")
    async with box_daemon(hall, 1, tmp_path / "box-1"):
        await asyncio.sleep(2.0)
        views = await gather_boxes(connection, 2.0)
    assert [view.bridge for view in views] == ["table-1"]
    line = status_line(views[0], datetime.now(UTC))
    assert "online" in line
    assert "r0-t1 playing plies 0/0" in line


async def test_websockets_over_tls_with_ws_tls(hall_home):
    secure = Hall.create(hall_home / "wss", tables=1, ws_tls=True)
    secure.start()
    try:
        events = secure.topic("match/r1-t1/events")
        async with (
            Recorder(secure.client(None, websockets=True), [events]) as browser,
            secure.client("table-1") as box,
        ):
            await publish(box, events, b"over wss")
            await browser.wait_for(lambda: b"over wss" in browser.payloads(), what="wss delivery")
            await publish(browser.client, events, b"forged over wss")
            await asyncio.sleep(SETTLE)
    finally:
        secure.stop()
    assert browser.payloads() == [b"over wss"]


async def test_a_restarted_box_resumes_in_its_round(hall, tmp_path):
    """The pairing is journaled like a command: after a restart the box replays into r1-t1."""
    round_file = tmp_path / "round-1.csv"
    round_file.write_text(
        "round,table,team,white_a,black_a,white_b,black_b\n1,1,Lions,,a,b,\n1,1,Tigers,c,,,d\n"
    )
    state_dir = tmp_path / "box-1"
    args = argparse.Namespace(file=round_file, hall=hall.directory, host=None, port=None)
    async with Recorder(hall.client("arbiter"), [hall.topic("match/+/state")]) as states:
        assert await publish_round(args) == 0
        async with box_daemon(hall, 1, state_dir):
            await states.wait_for(
                lambda: any("/r1-t1/" in t for t, _ in states.messages), 15, "r1-t1"
            )
    settings = load_settings(
        hall.directory / "table-1.toml", overrides={"state_dir": str(state_dir)}
    )
    restarted = Daemon(settings)
    assert restarted.resume() > 0
    assert restarted.bridge.topics.state == hall.topic("match/r1-t1/state")
    assert restarted.bridge.snapshot()["players"]["black_a"] == "a"
    restarted.journal.close()
    restarted.outbox.close()


async def test_hall_results_one_shot_writes_what_the_broker_retains(hall, tmp_path):
    state = {
        "match": "r2-t1",
        "bridge": "table-1",
        "ts": "2026-11-23T04:00:00.000Z",
        "teams": [
            {"id": "tigers", "name": "Tigers", "seats": ["white_a", "black_b"]},
            {"id": "lions", "name": "Lions", "seats": ["black_a", "white_b"]},
        ],
        "result": {"winner": "lions", "board": "B", "reason": "flag", "bpgn_result": "0-1"},
    }
    async with hall.client("table-1") as box:
        await box.publish(hall.topic("match/r2-t1/bpgn"), b"[Event]\n", 1, retain=True)
        await box.publish(hall.topic("match/r2-t1/state"), json.dumps(state), 1, retain=True)
    out = tmp_path / "results"
    command = [sys.executable, "-m", "bughouse_bridge", "hall", "results"]
    options = ["--hall", str(hall.directory), "--out", str(out), "--listen", "2"]
    done = await asyncio.to_thread(
        subprocess.run, [*command, *options], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr
    assert "1 finished game(s)" in done.stdout
    assert (out / "round-2.csv").read_text().splitlines()[1].startswith("2,1,1,r2-t1,Lions,Tigers")
    assert (out / "round-2" / "r2-t1.bpgn").read_text() == "[Event]\n"
    standings = (out / "standings.csv").read_text().splitlines()  # the hall.toml's tie-breaks
    assert (
        standings[0]
        == "rank,team,name,played,won,drawn,lost,match_points,game_points,buchholz,sonneborn_berger"
    )
    assert standings[1:] == ["1,lions,Lions,1,1,0,0,2,1,0,0", "2,tigers,Tigers,1,0,0,1,0,0,2,0"]


async def test_hall_round_keeps_every_round_and_the_scoring_retained(hall, tmp_path):
    for number in (1, 2):
        path = tmp_path / f"round-{number}.csv"
        path.write_text(
            "round,table,team,white_a,black_a,white_b,black_b\n"
            f"{number},1,Lions,,a,b,\n{number},1,Tigers,c,,,d\n"
        )
        args = argparse.Namespace(file=path, hall=hall.directory, host=None, port=None)
        assert await publish_round(args) == 0
    topics = [hall.topic("hall/rounds/+"), hall.topic("hall/scoring"), hall.topic("hall/round")]
    async with Recorder(hall.client("viewer"), topics) as viewer:  # a late reader: retained
        await viewer.wait_for(lambda: len(viewer.messages) == 4, what="rounds and scoring")
    got = {topic.removeprefix(hall.topic("")): json.loads(body) for topic, body in viewer.messages}
    assert [got[f"hall/rounds/{n}"]["round"] for n in (1, 2)] == [1, 2]
    assert got["hall/round"]["round"] == 2
    assert got["hall/scoring"]["tiebreaks"] == ["game_points", "buchholz", "sonneborn_berger"]
