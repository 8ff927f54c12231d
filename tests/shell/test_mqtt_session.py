"""``drivers.mqtt_session.session`` against a real mosquitto that stops answering (SIGSTOP), and
the link's publisher when a publish swallows its cancellation (``drivers.cancellation``).

The reason for it, kept as a canary: aiomqtt's own ``async with client`` replaces the exception
that leaves the block with an ``MqttError`` when the DISCONNECT is not acknowledged, and a loop
that reconnects on ``MqttError`` then ignores a cancellation (the demo once went on reconnecting
for over 20 s after Ctrl-C).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
from typing import TYPE_CHECKING

import aiomqtt
import pytest

from bughouse_bridge.drivers.mqtt import MqttLink
from bughouse_bridge.drivers.mqtt_session import session
from bughouse_bridge.drivers.outbox import Outbox
from bughouse_bridge.topics import Publication

if TYPE_CHECKING:
    from collections.abc import Awaitable, Callable, Iterator

    from private_mosquitto import Mosquitto

pytestmark = pytest.mark.asyncio

TIMEOUT = 0.5  # the client's own timeout: how long a DISCONNECT waits for the broker


def _client(broker: Mosquitto) -> aiomqtt.Client:
    return aiomqtt.Client("127.0.0.1", broker.port, timeout=TIMEOUT)


@contextlib.contextmanager
def frozen(broker: Mosquitto) -> Iterator[None]:
    """The broker process stopped (it keeps its sockets and answers nothing) for the block."""
    with thawed_at_the_end(broker) as freeze:
        freeze()
        yield


@contextlib.contextmanager
def thawed_at_the_end(broker: Mosquitto) -> Iterator[Callable[[], None]]:
    """Gives ``freeze()``, which stops the broker process until the block ends."""
    assert broker.process is not None
    pid = broker.process.pid
    try:
        yield lambda: os.kill(pid, signal.SIGSTOP)
    finally:
        os.kill(pid, signal.SIGCONT)


async def _listen_until_left(enter: Callable[[aiomqtt.Client], object], client, connected):
    async with enter(client):  # type: ignore[attr-defined]
        connected.set()
        async for _ in client.messages:
            pass


def _stuff_the_socket(client: aiomqtt.Client) -> list[asyncio.Task[None]]:
    """Fill the socket's send buffers towards a frozen broker with publications that are
    never written (their tasks end with a timeout, ignored): the DISCONNECT queued behind
    them is never written either, so it is never acknowledged."""
    return [
        asyncio.create_task(_ignoring_errors(client.publish("test/stuffing", b"x" * 65536)))
        for _ in range(64)
    ]


async def _ignoring_errors(publication: Awaitable[None]) -> None:
    with contextlib.suppress(aiomqtt.MqttError):
        await publication


async def test_aiomqtt_alone_turns_a_cancellation_into_an_mqtt_error(mosquitto):
    client = _client(mosquitto)
    connected = asyncio.Event()
    task = asyncio.create_task(_listen_until_left(lambda c: c, client, connected))
    await asyncio.wait_for(connected.wait(), 10)
    with frozen(mosquitto):
        _stuff_the_socket(client)
        task.cancel()
        with pytest.raises(aiomqtt.MqttError):
            await asyncio.wait_for(asyncio.shield(task), 10 * TIMEOUT)


async def test_a_reconnecting_listener_stops_when_cancelled_though_the_broker_is_silent(mosquitto):
    client = _client(mosquitto)
    connected = asyncio.Event()
    reconnects = 0

    async def listen_and_reconnect() -> None:
        nonlocal reconnects
        while True:
            try:
                await _listen_until_left(session, client, connected)
            except aiomqtt.MqttError:
                reconnects += 1
                await asyncio.sleep(0.05)

    task = asyncio.create_task(listen_and_reconnect())
    await asyncio.wait_for(connected.wait(), 10)
    with frozen(mosquitto):
        _stuff_the_socket(client)
        task.cancel()
        done, _ = await asyncio.wait([task], timeout=10 * TIMEOUT)
    assert done == {task}, "the listener went on after it was cancelled"
    assert task.cancelled()
    assert reconnects == 0


async def _leave_frozen(broker: Mosquitto, client: aiomqtt.Client, leave: Awaitable[None]) -> None:
    """Connect, freeze the broker until after the exit (the DISCONNECT is never written), leave."""
    with thawed_at_the_end(broker) as freeze:
        async with session(client):
            freeze()
            _stuff_the_socket(client)
            await leave


async def _raise(error: BaseException) -> None:
    raise error


@pytest.mark.parametrize("raised", [ValueError("the block's own error"), KeyboardInterrupt()])
async def test_the_error_that_left_the_block_is_the_one_raised(mosquitto, raised):
    with pytest.raises(type(raised)) as caught:
        await _leave_frozen(mosquitto, _client(mosquitto), _raise(raised))
    assert caught.value is raised


async def test_a_timeout_around_a_session_is_a_timeout(mosquitto):
    with pytest.raises(TimeoutError):
        async with asyncio.timeout(1.0):
            await _leave_frozen(mosquitto, _client(mosquitto), asyncio.sleep(10))


async def test_a_clean_exit_disconnects(mosquitto):
    client = _client(mosquitto)
    async with session(client):
        await client.publish("test/session", b"x", qos=1)
    with pytest.raises(aiomqtt.MqttError):
        await client.publish("test/session", b"y", qos=1)


class SwallowingClient:
    """Publishes as aiomqtt does under Python 3.11 when the task is cancelled just as the
    broker's acknowledgement arrives: ``wait_for`` returns, the cancellation is lost."""

    def __init__(self) -> None:
        self.published: list[str] = []
        self.publishing = asyncio.Event()

    async def publish(self, topic: str, _payload: bytes, **_: object) -> None:
        self.publishing.set()
        with contextlib.suppress(asyncio.CancelledError):
            await asyncio.sleep(10)
        self.published.append(topic)


async def test_the_links_publisher_stops_though_a_publish_swallowed_its_cancellation(tmp_path):
    outbox = Outbox(tmp_path / "outbox.sqlite")
    outbox.append([Publication("test/a", b"1", 1, False)], seq=1)
    link = MqttLink(
        host="127.0.0.1",
        port=1,
        root="test",
        bridge_id="t",
        outbox=outbox,
        boot_id="b",
        version="0",
    )
    client = SwallowingClient()
    publisher = asyncio.create_task(link._publish_outbox(client))  # type: ignore[arg-type]
    await asyncio.wait_for(client.publishing.wait(), 5)
    publisher.cancel()
    done, _ = await asyncio.wait([publisher], timeout=5)
    outbox.close()
    assert done == {publisher}, "the publisher waited on after it was cancelled"
    assert publisher.cancelled()
    assert client.published == ["test/a"]  # the publication the cancellation came during
