"""Malformed arbiter commands over a real mosquitto: each is answered, none changes anything."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import aiomqtt
import pytest
from e2e_harness import Subscriber, running_daemon, settings_overrides, unique_id

pytestmark = [pytest.mark.pty, pytest.mark.broker, pytest.mark.timeout(90)]

BAD_REQUESTS: list[tuple[str, bytes, Any]] = [
    ("status", b"{not json", None),
    ("status", b"[1, 2, 3]", None),
    ("frobnicate", b'{"transaction": "t-unknown-verb"}', "t-unknown-verb"),
    ("takeback", b'{"transaction": "t-bad-board", "board": "C"}', "t-bad-board"),
    ("accept", b'{"transaction": "t-missing-board"}', "t-missing-board"),
    ("resync", b'{"transaction": "t-unknown-arg", "board": "A", "colour": 1}', "t-unknown-arg"),
    (
        "set_result",
        b'{"transaction": "t-bad-winner", "winner": "nobody", "board": "A", "reason": "x"}',
        "t-bad-winner",
    ),
    ("set_result", b'{"transaction": "t-no-board", "winner": null}', "t-no-board"),
]


def stable(state: dict[str, Any]) -> dict[str, Any]:
    """The parts of the snapshot a request could change (not clocks or timestamps)."""
    boards = {
        name: {key: value for key, value in board.items() if key != "clock"}
        for name, board in state["boards"].items()
    }
    return {
        "boards": boards,
        "pockets": state["pockets"],
        "result": state["result"],
        "last_seq": state["last_seq"],
    }


async def test_malformed_requests_are_answered_and_change_nothing(tmp_path, shared_broker, table):
    bridge = unique_id("bridge")
    overrides = settings_overrides(
        workdir=tmp_path,
        port=shared_broker,
        root=f"test/{unique_id('commands')}",
        bridge=bridge,
        match=unique_id("match"),
        links=table.links,
    )
    base = f"{overrides['mqtt.root']}/bridge/{bridge}"
    events_topic = f"{overrides['mqtt.root']}/match/{overrides['match_id']}/events"
    async with (
        Subscriber(shared_broker, [f"{base}/response/#", events_topic]) as sub,
        running_daemon(overrides),
        aiomqtt.Client("127.0.0.1", shared_broker) as client,
    ):
        await table.wait_for_host()

        async def ask(verb: str, payload: bytes) -> dict[str, Any]:
            count = len(sub.on(f"/response/{verb}"))
            await client.publish(f"{base}/request/{verb}", payload, qos=1)
            await sub.wait_for(lambda: len(sub.on(f"/response/{verb}")) > count, 15, verb)
            answer: dict[str, Any] = sub.on(f"/response/{verb}")[count].json()
            return answer

        before = await ask("status", b'{"transaction": "t-before"}')
        assert before["ok"] is True
        events_before = len(sub.events())
        for verb, payload, transaction in BAD_REQUESTS:
            answer = await ask(verb, payload)
            assert answer["ok"] is False, (verb, payload, answer)
            assert answer["transaction"] == transaction
            assert isinstance(answer["error"], str)
            assert " " in answer["error"].strip(), answer["error"]
        after = await ask("status", b'{"transaction": "t-after"}')
        await asyncio.sleep(0.5)
        events_after = len(sub.events())
    assert after["ok"] is True
    assert after["transaction"] == "t-after"
    assert set(after["devices"]) == {"A", "B"} or len(after["devices"]) == 2
    assert stable(after["state"]) == stable(before["state"])
    assert events_after == events_before, "a bad request produced events"
    print(json.dumps([a.json()["error"] for a in sub.messages if "error" in a.json()], indent=1))
