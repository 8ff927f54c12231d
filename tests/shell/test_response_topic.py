"""MQTT 5 response topics: only under the bridge's own ``…/response/`` prefix (contract §5)."""

from __future__ import annotations

import asyncio

import aiomqtt
import pytest
from paho.mqtt.packettypes import PacketTypes
from paho.mqtt.properties import Properties
from test_mqtt import SHARED_PORT, Collector, make_link, wait_until

from bughouse_bridge.drivers.mqtt import Request, response_topic
from bughouse_bridge.drivers.outbox import Outbox

BRIDGE = "bughouse/v1/bridge/t1"
DEFAULT = f"{BRIDGE}/response/status"


@pytest.mark.parametrize(
    ("asked", "answered_on"),
    [
        (None, DEFAULT),
        (f"{BRIDGE}/response/console-7/r1", f"{BRIDGE}/response/console-7/r1"),
        (f"{BRIDGE}/response/status", DEFAULT),
        (f"{BRIDGE}/response/", DEFAULT),  # the bare prefix names nothing
        ("bughouse/v1/match/m-1/events", DEFAULT),  # a match's event stream
        ("bughouse/v1/match/m-1/state", DEFAULT),
        ("bughouse/v1/bridge/t2/response/x", DEFAULT),  # another bridge's responses
        (f"{BRIDGE}/responsex/y", DEFAULT),
        (f"{BRIDGE}/response/+", DEFAULT),  # wildcards cannot be published
        (f"{BRIDGE}/response/#", DEFAULT),
        (f"{BRIDGE}/response/a\0b", DEFAULT),
        (f"{BRIDGE}/response/" + "x" * 70_000, DEFAULT),
    ],
)
def test_the_response_topic_stays_under_the_bridges_prefix(asked, answered_on):
    request = Request(verb="status", payload=b"{}", response_topic=asked)
    assert response_topic(BRIDGE, request) == answered_on


@pytest.mark.broker
async def test_a_foreign_response_topic_is_answered_on_the_default_topic(tmp_path, topic_root):
    outbox = Outbox(tmp_path / "outbox.db")

    async def handler(request: Request) -> bytes:
        return b'{"ok": true}'

    link = make_link(outbox, SHARED_PORT, topic_root, on_request=handler, mqtt5=True)
    task = asyncio.create_task(link.run(), name="mqtt")
    await wait_until(lambda: link.connected)
    events = f"{topic_root}/match/m/events"
    bridge = f"{topic_root}/bridge/t1"
    async with (
        Collector(SHARED_PORT, events, v5=True) as hijacked,
        Collector(SHARED_PORT, f"{bridge}/response/#", v5=True) as responses,
    ):
        protocol = aiomqtt.ProtocolVersion.V5
        async with aiomqtt.Client("127.0.0.1", SHARED_PORT, protocol=protocol) as client:
            properties = Properties(PacketTypes.PUBLISH)
            properties.ResponseTopic = events
            await client.publish(f"{bridge}/request/status", b"{}", qos=1, properties=properties)
        await responses.wait_for(lambda: responses.messages)
        await asyncio.sleep(0.3)  # a stray answer on the events topic would have arrived by now
    assert responses.messages == [(f"{bridge}/response/status", b'{"ok": true}', False)]
    assert hijacked.messages == []
    link.stop()
    await asyncio.wait_for(task, 10)
    outbox.close()
