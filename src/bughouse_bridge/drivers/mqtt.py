"""MQTT link (aiomqtt 2.5, paho underneath): reconnects forever and never loses an outbox item.

Per connection, in this order: the retained ``online`` status (the will says ``lost``), the
subscription to ``<root>/bridge/<bridge>/request/+``, every retained topic from the outbox's
retained table (brokers without persistence forget them), then the outbox in order. An item is
acknowledged in the outbox only once ``await client.publish`` returned, i.e. after the broker's
PUBACK for QoS 1. A clean stop drains the outbox (briefly), publishes ``offline`` and disconnects.

One publisher loop per connection (aiomqtt#365: no task per message); :meth:`MqttLink.notify`
wakes it when the caller has appended to the outbox. QoS 0 clock readings bypass the outbox and
are dropped while disconnected: they are stale a second later anyway.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import random
from collections import deque
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from enum import StrEnum
from typing import TYPE_CHECKING

import aiomqtt
from paho.mqtt.packettypes import PacketTypes
from paho.mqtt.properties import Properties

from bughouse_bridge.drivers.cancellation import raise_if_cancelled
from bughouse_bridge.drivers.mqtt_session import session

if TYPE_CHECKING:
    import ssl

    from bughouse_bridge.drivers.outbox import Outbox, OutboxItem

logger = logging.getLogger(__name__)

PUBLISH_TIMEOUT = 10.0  # seconds to wait for a PUBACK before treating the connection as broken
STOP_DRAIN_TIMEOUT = 3.0  # a clean stop sends what it can in this time, the rest waits on disk
EPHEMERAL_BACKLOG = 32  # QoS 0 messages held while the publisher is busy
ACK_BATCH = 100  # outbox items published per acknowledging transaction


class ConnectionState(StrEnum):
    CONNECTING = "connecting"
    CONNECTED = "connected"
    DISCONNECTED = "disconnected"
    STOPPED = "stopped"


@dataclass(frozen=True, slots=True)
class Request:
    """An arbiter request received on ``…/request/<verb>``."""

    verb: str
    payload: bytes
    response_topic: str | None = None  # MQTT 5 Response Topic
    correlation_data: bytes | None = None  # MQTT 5 Correlation Data
    reply: bool = True  # False for messages of ``also_subscribe`` topics: nobody awaits an answer


# Returns the response payload, or None for no response.
RequestHandler = Callable[[Request], Awaitable[bytes | None]]


@dataclass(frozen=True, slots=True)
class Backoff:
    """Exponential backoff with jitter: ``initial`` doubling up to ``maximum``, ±``jitter``."""

    initial: float = 1.0
    maximum: float = 30.0
    jitter: float = 0.2

    def delays(self) -> Backoff._Iterator:
        return Backoff._Iterator(self)

    class _Iterator:
        def __init__(self, backoff: Backoff) -> None:
            self._backoff = backoff
            self._next = backoff.initial

        def __next__(self) -> float:
            delay = self._next
            self._next = min(self._next * 2, self._backoff.maximum)
            spread = delay * self._backoff.jitter
            return max(0.0, delay + random.uniform(-spread, spread))  # noqa: S311

        def reset(self) -> None:
            self._next = self._backoff.initial


def utc_timestamp() -> str:
    """UTC ISO-8601 with milliseconds, the contract's ``ts``."""
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


class MqttLink:
    """The bridge's one MQTT connection. Run :meth:`run` as a task; :meth:`stop` ends it cleanly."""

    def __init__(  # noqa: PLR0913 - plain keyword arguments, by design of the drivers
        self,
        *,
        host: str,
        port: int,
        root: str,
        bridge_id: str,
        outbox: Outbox,
        boot_id: str,
        version: str,
        on_request: RequestHandler | None = None,
        on_state: Callable[[ConnectionState], None] | None = None,
        client_id: str | None = None,
        username: str | None = None,
        password: str | None = None,
        tls_context: ssl.SSLContext | None = None,
        keepalive: int = 30,
        mqtt5: bool = False,
        backoff: Backoff | None = None,
        publish_timeout: float = PUBLISH_TIMEOUT,
        also_subscribe: Mapping[str, str] | None = None,
    ) -> None:
        self._host, self._port = host, port
        self._outbox = outbox
        self._boot_id, self._version = boot_id, version
        self._on_request = on_request
        self._on_state = on_state
        self._client_id = client_id or f"bughouse-bridge-{bridge_id}"
        self._username, self._password = username, password
        self._tls_context = tls_context
        self._keepalive = keepalive
        self._mqtt5 = mqtt5
        self._backoff = backoff or Backoff()
        self._publish_timeout = publish_timeout
        self._bridge_topic = f"{root}/bridge/{bridge_id}"
        # topic -> verb: e.g. the hall's retained round, handed to on_request as that verb.
        self._also_subscribe = dict(also_subscribe or {})
        self._wake = asyncio.Event()
        self._stopping = asyncio.Event()
        self._ephemeral: deque[tuple[str, bytes]] = deque(maxlen=EPHEMERAL_BACKLOG)
        self._state = ConnectionState.DISCONNECTED
        self._last_error: str | None = None

    # -- public ------------------------------------------------------------------------------

    @property
    def status_topic(self) -> str:
        return f"{self._bridge_topic}/status"

    @property
    def state(self) -> ConnectionState:
        return self._state

    @property
    def connected(self) -> bool:
        return self._state is ConnectionState.CONNECTED

    @property
    def last_error(self) -> str | None:
        """Why the last connection attempt or connection failed (for status lines)."""
        return self._last_error

    def notify(self) -> None:
        """New items are in the outbox: wake the publisher."""
        self._wake.set()

    def publish_ephemeral(self, topic: str, payload: bytes | str) -> bool:
        """Send a QoS 0, non-retained message if connected; return False if it was dropped."""
        if not self.connected:
            return False
        data = payload.encode() if isinstance(payload, str) else payload
        self._ephemeral.append((topic, data))
        self._wake.set()
        return True

    def stop(self) -> None:
        """Ask :meth:`run` to drain, say ``offline``, disconnect and return."""
        self._stopping.set()
        self._wake.set()

    async def run(self) -> None:
        """Connect, publish, reconnect with backoff — until :meth:`stop` or cancellation."""
        delays = self._backoff.delays()
        try:
            while not self._stopping.is_set():
                raise_if_cancelled()
                self._set_state(ConnectionState.CONNECTING)
                try:
                    await self._session(delays)
                except aiomqtt.MqttError as error:
                    self._last_error = str(error)
                    logger.warning("MQTT %s:%s: %s", self._host, self._port, error)
                if self._stopping.is_set():
                    break
                self._set_state(ConnectionState.DISCONNECTED)
                delay = next(delays)
                logger.info("MQTT reconnecting in %.1f s", delay)
                with contextlib.suppress(TimeoutError):
                    async with asyncio.timeout(delay):
                        await self._stopping.wait()
        finally:
            self._set_state(ConnectionState.STOPPED)

    # -- one connection ----------------------------------------------------------------------

    def _client(self) -> aiomqtt.Client:
        return aiomqtt.Client(
            self._host,
            self._port,
            identifier=self._client_id,
            username=self._username,
            password=self._password,
            tls_context=self._tls_context,
            keepalive=self._keepalive,
            protocol=aiomqtt.ProtocolVersion.V5 if self._mqtt5 else aiomqtt.ProtocolVersion.V311,
            will=aiomqtt.Will(self.status_topic, self._status("lost"), qos=1, retain=True),
            timeout=self._publish_timeout,
            clean_session=None if self._mqtt5 else True,
        )

    async def _session(self, delays: Backoff._Iterator) -> None:
        # A fresh Client per attempt: aiomqtt's context manager is reusable but not reentrant,
        # and a new one carries a will with a fresh timestamp.
        client = self._client()
        async with session(client):
            delays.reset()
            self._last_error = None
            await client.publish(self.status_topic, self._status("online"), qos=1, retain=True)
            await client.subscribe(f"{self._bridge_topic}/request/+", qos=1)
            for topic in self._also_subscribe:
                await client.subscribe(topic, qos=1)
            self._ephemeral.clear()
            self._set_state(ConnectionState.CONNECTED)
            logger.info("MQTT connected to %s:%s", self._host, self._port)
            try:
                await self._serve(client)
            except asyncio.CancelledError:
                await self._say_offline_on_cancel(client)
                raise

    async def _serve(self, client: aiomqtt.Client) -> None:
        try:
            async with asyncio.TaskGroup() as tasks:
                tasks.create_task(self._serve_requests(client), name="mqtt-requests")
                await self._republish_retained(client)
                await self._publish_outbox(client)
                # Stopping: the outbox is drained; say goodbye while still connected.
                await client.publish(self.status_topic, self._status("offline"), qos=1, retain=True)
                raise _Stopped  # noqa: TRY301 - leaves the TaskGroup, cancelling the reader
        except* _Stopped:
            logger.info("MQTT stopped cleanly")
        except* aiomqtt.MqttError as group:
            raise group.exceptions[0] from None

    async def _republish_retained(self, client: aiomqtt.Client) -> None:
        for item in self._outbox.retained():
            await client.publish(item.topic, item.payload, qos=item.qos, retain=True)

    async def _publish_outbox(self, client: aiomqtt.Client) -> None:
        drain_deadline: float | None = None
        loop = asyncio.get_running_loop()
        while True:
            raise_if_cancelled()  # a publish may have swallowed it (aiomqtt under 3.11)
            self._wake.clear()
            items = self._outbox.pending(limit=ACK_BATCH)
            await self._publish_items(client, items)
            await self._publish_ephemeral(client)
            if self._stopping.is_set():
                drain_deadline = drain_deadline or loop.time() + STOP_DRAIN_TIMEOUT
                if not items or loop.time() > drain_deadline:
                    return
            elif not items:
                await self._wake.wait()

    async def _publish_items(self, client: aiomqtt.Client, items: list[OutboxItem]) -> None:
        acknowledged: list[int] = []
        try:
            for item in items:
                await client.publish(item.topic, item.payload, qos=item.qos, retain=item.retain)
                acknowledged.append(item.id)
                raise_if_cancelled()
        finally:
            # Whatever the broker acknowledged is done, even if the connection broke mid-batch.
            if acknowledged:
                self._outbox.ack_many(acknowledged)

    async def _publish_ephemeral(self, client: aiomqtt.Client) -> None:
        while self._ephemeral:
            topic, payload = self._ephemeral.popleft()
            await client.publish(topic, payload, qos=0, retain=False)

    async def _serve_requests(self, client: aiomqtt.Client) -> None:
        async for message in client.messages:
            raise_if_cancelled()
            request = _request_from(message, self._also_subscribe)
            if self._on_request is None:
                continue
            try:
                response = await self._on_request(request)
            except Exception:
                logger.exception("request %r failed in its handler", request.verb)
                continue
            if response is not None and request.reply:
                await self._respond(client, request, response)

    async def _respond(self, client: aiomqtt.Client, request: Request, response: bytes) -> None:
        topic = response_topic(self._bridge_topic, request)
        if request.response_topic is not None and topic != request.response_topic:
            logger.warning(
                "request %r named response topic %r outside %s/response/; answered on %s",
                request.verb[:64],
                request.response_topic[:200],
                self._bridge_topic,
                topic,
            )
        properties = None
        if self._mqtt5 and request.correlation_data is not None:
            properties = Properties(PacketTypes.PUBLISH)  # type: ignore[no-untyped-call]
            properties.CorrelationData = request.correlation_data
        try:
            await client.publish(topic, response, qos=1, properties=properties)
        except ValueError:  # paho refuses the topic or payload: the request is lost, not the link
            logger.exception("could not answer request %r on %r", request.verb[:64], topic)

    async def _say_offline_on_cancel(self, client: aiomqtt.Client) -> None:
        # Cancelled (e.g. the TaskGroup is shutting down): best effort, a short wait at most.
        with contextlib.suppress(aiomqtt.MqttError, TimeoutError):
            async with asyncio.timeout(2.0):
                await client.publish(self.status_topic, self._status("offline"), qos=1, retain=True)

    def _status(self, state: str) -> bytes:
        payload = {
            "state": state,
            "boot_id": self._boot_id,
            "version": self._version,
            "ts": utc_timestamp(),
        }
        return json.dumps(payload, separators=(",", ":")).encode()

    def _set_state(self, state: ConnectionState) -> None:
        if state is self._state:
            return
        self._state = state
        if self._on_state is not None:
            self._on_state(state)


class _Stopped(Exception):  # noqa: N818 - a signal inside the session, not an error
    pass


def response_topic(bridge_topic: str, request: Request) -> str:
    """Where the answer goes: the MQTT 5 response topic only when it lies under the bridge's own
    ``…/response/`` prefix, else the default ``…/response/<verb>``.

    A requester must not make the bridge publish on a match's ``events`` or ``state`` topic, or
    on anybody else's; wildcards and NUL are not publishable at all.
    """
    prefix = f"{bridge_topic}/response/"
    asked = request.response_topic
    if (
        asked is not None
        and asked.startswith(prefix)
        and len(asked) > len(prefix)
        and len(asked.encode("utf-8", "replace")) <= MAX_TOPIC_BYTES
        and not any(char in asked for char in "+#\0")
    ):
        return asked
    return prefix + request.verb


MAX_TOPIC_BYTES = 65_535  # MQTT's limit for a topic name


def _request_from(message: aiomqtt.Message, also_subscribed: Mapping[str, str]) -> Request:
    payload = message.payload  # paho hands over bytes (aiomqtt types it bytes | bytearray)
    verb = also_subscribed.get(message.topic.value)
    if verb is not None:
        return Request(verb=verb, payload=bytes(payload), reply=False)
    verb = message.topic.value.rsplit("/", 1)[-1]
    response_topic = getattr(message.properties, "ResponseTopic", None)
    correlation = getattr(message.properties, "CorrelationData", None)
    return Request(
        verb=verb,
        payload=bytes(payload),
        response_topic=response_topic or None,
        correlation_data=bytes(correlation) if correlation else None,
    )
