"""MqttLink against real mosquitto: order, outage, will, clean stop, retained replay, requests."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import time
import uuid
from dataclasses import dataclass
from typing import Self

import aiomqtt
import pytest
from paho.mqtt.packettypes import PacketTypes
from paho.mqtt.properties import Properties

from bughouse_bridge.drivers.mqtt import Backoff, ConnectionState, MqttLink, Request
from bughouse_bridge.drivers.outbox import Outbox

SHARED_PORT = 1883
FAST = Backoff(initial=0.3, maximum=1.0, jitter=0.1)


@dataclass(frozen=True)
class Pub:
    topic: str
    payload: bytes | str
    qos: int = 1
    retain: bool = False


class Collector:
    """A subscriber that reconnects by itself and records (topic, payload, retain)."""

    def __init__(
        self, port: int, topic: str, *, v5: bool = False, persistent: bool = False
    ) -> None:
        self.port, self.topic, self.v5 = port, topic, v5
        # A persistent session (fixed client id, clean_session=False) lets the broker queue what
        # arrives while this subscriber is reconnecting, so a race with the publisher's own
        # reconnect cannot hide messages.
        self.persistent = persistent
        self.client_id = f"collector-{uuid.uuid4().hex[:12]}" if persistent else None
        self.messages: list[tuple[str, bytes, bool]] = []
        self.connected = asyncio.Event()
        self._task: asyncio.Task[None] | None = None

    async def __aenter__(self) -> Self:
        self._task = asyncio.create_task(self._run(), name="collector")
        await asyncio.wait_for(self.connected.wait(), 5)
        return self

    async def __aexit__(self, *exc: object) -> None:
        assert self._task is not None
        self._task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await self._task

    async def _run(self) -> None:
        protocol = aiomqtt.ProtocolVersion.V5 if self.v5 else aiomqtt.ProtocolVersion.V311
        while True:
            try:
                client = aiomqtt.Client(
                    "127.0.0.1",
                    self.port,
                    protocol=protocol,
                    identifier=self.client_id,
                    clean_session=False if self.persistent else None,
                )
                async with client:
                    await client.subscribe(self.topic, qos=1)
                    self.connected.set()
                    async for message in client.messages:
                        payload = bytes(message.payload)  # type: ignore[arg-type]
                        self.messages.append((message.topic.value, payload, message.retain))
            except aiomqtt.MqttError:
                self.connected.clear()
                await asyncio.sleep(0.2)

    def payloads(self, topic: str) -> list[bytes]:
        return [payload for name, payload, _ in self.messages if name == topic]

    async def wait_for(self, predicate, within: float = 10.0) -> None:
        deadline = time.monotonic() + within
        while not predicate():
            if time.monotonic() > deadline:
                raise AssertionError(f"timed out; got {self.messages[-5:]}")
            await asyncio.sleep(0.02)


def make_link(outbox: Outbox, port: int, root: str, **kwargs) -> MqttLink:
    return MqttLink(
        host="127.0.0.1",
        port=port,
        root=root,
        bridge_id="t1",
        outbox=outbox,
        boot_id="boot-1",
        version="0.1.0",
        backoff=FAST,
        keepalive=5,
        client_id=f"bughouse-test-{root.rsplit('/', 1)[-1]}",
        **kwargs,
    )


def closed_port() -> int:
    """A port nothing listens on (bound, then released)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


async def wait_until(predicate, within: float = 10.0) -> None:
    deadline = time.monotonic() + within
    while not predicate():
        assert time.monotonic() < deadline, "timed out"
        await asyncio.sleep(0.02)


async def retained_status(port: int, topic: str) -> dict[str, str]:
    async with aiomqtt.Client("127.0.0.1", port) as client:
        await client.subscribe(topic, qos=1)
        async with asyncio.timeout(5):
            async for message in client.messages:
                return json.loads(bytes(message.payload))  # type: ignore[arg-type]
    raise AssertionError("no retained status")


@pytest.mark.broker
async def test_500_events_arrive_in_order(tmp_path, topic_root):
    outbox = Outbox(tmp_path / "outbox.db")
    events = f"{topic_root}/match/m/events"
    async with Collector(SHARED_PORT, f"{topic_root}/#") as collector:
        link = make_link(outbox, SHARED_PORT, topic_root)
        task = asyncio.create_task(link.run(), name="mqtt")
        for seq in range(1, 501):
            outbox.append([Pub(events, json.dumps({"seq": seq}))], seq=seq)
            link.notify()
            if seq % 50 == 0:
                await asyncio.sleep(0)
        await collector.wait_for(lambda: len(collector.payloads(events)) >= 500)
        seqs = [json.loads(payload)["seq"] for payload in collector.payloads(events)]
        assert seqs == list(range(1, 501))
        await wait_until(lambda: outbox.pending_count() == 0)
        link.stop()
        await asyncio.wait_for(task, 10)
    outbox.close()


@pytest.mark.broker
@pytest.mark.slow
async def test_broker_down_for_10_s_loses_nothing(tmp_path, persistent_mosquitto, topic_root):
    # The broker keeps its sessions across the restart and the subscriber's session is
    # persistent: whatever the bridge sends after the restart reaches the subscriber even if the
    # subscriber reconnects later than the bridge does.
    mosquitto = persistent_mosquitto
    outbox = Outbox(tmp_path / "outbox.db")
    events = f"{topic_root}/match/m/events"
    states: list[ConnectionState] = []
    async with Collector(mosquitto.port, events, persistent=True) as collector:
        link = make_link(outbox, mosquitto.port, topic_root, on_state=states.append)
        task = asyncio.create_task(link.run(), name="mqtt")
        seq = 0

        async def produce(seconds: float) -> None:
            nonlocal seq
            end = time.monotonic() + seconds
            while time.monotonic() < end:
                seq += 1
                outbox.append([Pub(events, json.dumps({"seq": seq}))], seq=seq)
                link.notify()
                await asyncio.sleep(0.02)

        await produce(1.5)
        # Let the subscriber catch up first: a message the broker acknowledged but had not yet
        # forwarded when it died is lost by the broker (no persistence), not by the bridge.
        await collector.wait_for(lambda: len(set(collector.payloads(events))) >= seq, 10)
        mosquitto.stop()
        await produce(10.0)  # the bridge keeps producing while the broker is away
        assert outbox.pending_count() > 100
        assert not link.connected
        mosquitto.start()
        await produce(1.5)
        await collector.wait_for(lambda: len(set(collector.payloads(events))) >= seq, 20)
        received = [json.loads(payload)["seq"] for payload in collector.payloads(events)]
        deduped = list(dict.fromkeys(received))  # QoS 1 may repeat; consumers dedupe by seq
        assert deduped == list(range(1, seq + 1))  # gap-free and in order
        await wait_until(lambda: outbox.pending_count() == 0)
        link.stop()
        await asyncio.wait_for(task, 10)
    assert ConnectionState.DISCONNECTED in states
    assert states.count(ConnectionState.CONNECTED) >= 2
    outbox.close()


@pytest.mark.broker
async def test_retained_topics_are_republished_after_a_broker_restart(
    tmp_path, mosquitto, topic_root
):
    outbox = Outbox(tmp_path / "outbox.db")
    state = f"{topic_root}/match/m/state"
    outbox.append([Pub(state, '{"last_seq": 7}', retain=True)], seq=7)
    link = make_link(outbox, mosquitto.port, topic_root)
    task = asyncio.create_task(link.run(), name="mqtt")
    await wait_until(lambda: link.connected and outbox.pending_count() == 0)
    mosquitto.stop()  # no persistence: the broker forgets every retained message
    await wait_until(lambda: not link.connected)
    mosquitto.start()
    await wait_until(lambda: link.connected, 10)
    async with Collector(mosquitto.port, state) as late_joiner:
        await late_joiner.wait_for(lambda: late_joiner.messages)
        assert late_joiner.messages[0] == (state, b'{"last_seq": 7}', True)
    link.stop()
    await asyncio.wait_for(task, 10)
    outbox.close()


@pytest.mark.broker
async def test_clean_stop_publishes_offline_and_online_on_connect(tmp_path, topic_root):
    outbox = Outbox(tmp_path / "outbox.db")
    link = make_link(outbox, SHARED_PORT, topic_root)
    task = asyncio.create_task(link.run(), name="mqtt")
    await wait_until(lambda: link.connected)
    online = await retained_status(SHARED_PORT, link.status_topic)
    assert online["state"] == "online"
    assert online["boot_id"] == "boot-1"
    assert online["version"] == "0.1.0"
    assert online["ts"].endswith("Z")
    outbox.append([Pub(f"{topic_root}/last", "bye")])
    link.notify()
    link.stop()
    await asyncio.wait_for(task, 10)
    assert outbox.pending_count() == 0  # drained before saying goodbye
    assert (await retained_status(SHARED_PORT, link.status_topic))["state"] == "offline"
    assert link.state is ConnectionState.STOPPED
    outbox.close()


@pytest.mark.broker
async def test_cancelling_the_task_also_says_offline(tmp_path, topic_root):
    outbox = Outbox(tmp_path / "outbox.db")
    link = make_link(outbox, SHARED_PORT, topic_root)
    task = asyncio.create_task(link.run(), name="mqtt")
    await wait_until(lambda: link.connected)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert (await retained_status(SHARED_PORT, link.status_topic))["state"] == "offline"
    outbox.close()


KILLED_BRIDGE = """
import asyncio, sys
from bughouse_bridge.drivers.mqtt import MqttLink
from bughouse_bridge.drivers.outbox import Outbox

async def main():
    link = MqttLink(host="127.0.0.1", port=int(sys.argv[1]), root=sys.argv[2], bridge_id="t1",
                    outbox=Outbox(sys.argv[3]), boot_id="boot-k", version="0", keepalive=5,
                    on_state=lambda state: print(state.value, flush=True))
    await link.run()

asyncio.run(main())
"""


@pytest.mark.broker
async def test_will_says_lost_when_the_process_dies(tmp_path, topic_root):
    process = subprocess.Popen(  # noqa: ASYNC220 - the test owns this child
        [sys.executable, "-c", KILLED_BRIDGE, str(SHARED_PORT), topic_root, tmp_path / "o.db"],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert process.stdout is not None
    loop = asyncio.get_running_loop()
    while (line := await loop.run_in_executor(None, process.stdout.readline)) != "connected\n":
        assert line, "the bridge process ended"
    topic = f"{topic_root}/bridge/t1/status"
    assert (await retained_status(SHARED_PORT, topic))["state"] == "online"
    os.kill(process.pid, signal.SIGKILL)  # no DISCONNECT packet: the broker fires the will
    process.wait()
    await asyncio.sleep(0.3)
    status = await retained_status(SHARED_PORT, topic)
    assert status["state"] == "lost"
    assert status["boot_id"] == "boot-k"


@pytest.mark.broker
async def test_requests_reach_the_handler_and_get_responses(tmp_path, topic_root):
    outbox = Outbox(tmp_path / "outbox.db")
    seen: list[Request] = []

    async def handler(request: Request) -> bytes | None:
        seen.append(request)
        if request.verb == "crash":
            raise RuntimeError("handler bug")
        return json.dumps({"ok": True, "verb": request.verb}).encode()

    link = make_link(outbox, SHARED_PORT, topic_root, on_request=handler)
    task = asyncio.create_task(link.run(), name="mqtt")
    await wait_until(lambda: link.connected)
    bridge = f"{topic_root}/bridge/t1"
    async with Collector(SHARED_PORT, f"{bridge}/response/#") as responses:
        async with aiomqtt.Client("127.0.0.1", SHARED_PORT) as client:
            await client.publish(f"{bridge}/request/crash", b"{}", qos=1)
            await client.publish(f"{bridge}/request/status", b'{"transaction":"x"}', qos=1)
        await responses.wait_for(lambda: responses.messages)
    assert responses.messages == [
        (f"{bridge}/response/status", b'{"ok": true, "verb": "status"}', False)
    ]
    assert [request.verb for request in seen] == ["crash", "status"]
    assert seen[1].payload == b'{"transaction":"x"}'
    assert link.connected  # a failing handler does not break the link
    link.stop()
    await asyncio.wait_for(task, 10)
    outbox.close()


@pytest.mark.broker
async def test_mqtt5_response_topic_and_correlation_data(tmp_path, topic_root):
    outbox = Outbox(tmp_path / "outbox.db")

    async def handler(request: Request) -> bytes:
        assert request.correlation_data == b"corr-1"
        return b'{"ok": true}'

    link = make_link(outbox, SHARED_PORT, topic_root, on_request=handler, mqtt5=True)
    task = asyncio.create_task(link.run(), name="mqtt")
    await wait_until(lambda: link.connected)
    reply_topic = f"{topic_root}/bridge/t1/response/console-7/r1"
    protocol = aiomqtt.ProtocolVersion.V5
    async with aiomqtt.Client("127.0.0.1", SHARED_PORT, protocol=protocol) as client:
        await client.subscribe(reply_topic, qos=1)
        properties = Properties(PacketTypes.PUBLISH)
        properties.ResponseTopic = reply_topic
        properties.CorrelationData = b"corr-1"
        request_topic = f"{topic_root}/bridge/t1/request/status"
        await client.publish(request_topic, b"{}", qos=1, properties=properties)
        async with asyncio.timeout(5):
            async for message in client.messages:
                assert message.payload == b'{"ok": true}'
                assert message.properties is not None
                assert message.properties.CorrelationData == b"corr-1"
                break
    link.stop()
    await asyncio.wait_for(task, 10)
    outbox.close()


@pytest.mark.broker
async def test_ephemeral_clock_messages_bypass_the_outbox_and_drop_when_offline(
    tmp_path, topic_root
):
    outbox = Outbox(tmp_path / "outbox.db")
    link = make_link(outbox, SHARED_PORT, topic_root)
    clock = f"{topic_root}/match/m/clock"
    assert link.publish_ephemeral(clock, "tick-0") is False  # not connected yet: dropped
    async with Collector(SHARED_PORT, clock) as collector:
        task = asyncio.create_task(link.run(), name="mqtt")
        await wait_until(lambda: link.connected)
        assert link.publish_ephemeral(clock, "tick-1") is True
        await collector.wait_for(lambda: collector.messages)
        assert collector.payloads(clock) == [b"tick-1"]
        assert outbox.pending_count() == 0
        link.stop()
        await asyncio.wait_for(task, 10)
    outbox.close()


async def test_unreachable_broker_keeps_retrying_and_stops_on_request(tmp_path):
    outbox = Outbox(tmp_path / "outbox.db")
    states: list[ConnectionState] = []
    link = make_link(outbox, closed_port(), "test/unreachable", on_state=states.append)
    task = asyncio.create_task(link.run(), name="mqtt")
    await asyncio.sleep(1.5)
    assert link.last_error is not None
    assert states.count(ConnectionState.CONNECTING) >= 2
    link.stop()
    await asyncio.wait_for(task, 5)
    outbox.close()


def test_backoff_grows_to_the_maximum_with_jitter():
    delays = Backoff(initial=1.0, maximum=30.0, jitter=0.2).delays()
    values = [next(delays) for _ in range(8)]
    assert 0.8 <= values[0] <= 1.2
    assert 1.6 <= values[1] <= 2.4
    assert all(24.0 <= value <= 36.0 for value in values[5:])
    delays.reset()
    assert next(delays) <= 1.2
