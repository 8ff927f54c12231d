"""The composition root: settings → drivers + the pure ``Bridge``, run under one TaskGroup.

Tasks: one reader per serial link, one MQTT link (publisher + request listener), one core
consumer that owns the ``Bridge`` and is the only code that touches it, and the watchdog (the
core consumer pings systemd after every step, so a stuck pipeline is noticed).

Every input the core consumes — received bytes, link changes, timer firings, arbiter commands — is
appended to the journal *before* it is processed, with the pipeline time it was processed at.
Replaying the journal through a fresh ``Bridge`` therefore rebuilds the exact same state and the
same event numbers, which is how the daemon resumes after a SIGKILL or a power cut.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import logging
import signal
import time
import uuid
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from bughouse_bridge import __version__
from bughouse_bridge.bridge import READ_ONLY_VERBS, Bridge, Output
from bughouse_bridge.daemon import systemd
from bughouse_bridge.daemon.archive import GameArchive
from bughouse_bridge.daemon.wiring import bridge_config
from bughouse_bridge.drivers.broker import EmbeddedBroker
from bughouse_bridge.drivers.journal import EntryKind, Journal
from bughouse_bridge.drivers.mqtt import MqttLink, Request
from bughouse_bridge.drivers.outbox import Outbox
from bughouse_bridge.drivers.serial_link import LinkState, SerialLink, handshake
from bughouse_bridge.drivers.trace_recorder import TraceRecorder
from bughouse_bridge.hall.naming import round_topic

if TYPE_CHECKING:
    from collections.abc import AsyncIterator, Callable

    from bughouse_bridge.config import Settings
    from bughouse_bridge.drivers.journal import JournalEntry

logger = logging.getLogger(__name__)
STOP_GRACE = 8.0  # seconds MQTT may take to drain and say "offline" after a stop is asked

ORIGIN_KEY = "origin_epoch"


@dataclass(frozen=True, slots=True)
class Received:
    link: str
    data: bytes
    t: float


@dataclass(frozen=True, slots=True)
class LinkChange:
    link: str
    connected: bool
    port: str | None
    t: float


@dataclass(slots=True)
class ArbiterRequest:
    request: Request
    answer: asyncio.Future[bytes]
    t: float  # when it arrived: the core may be busy with earlier inputs when it is carried out
    response: dict[str, Any] | None = None  # the bridge's answer, once carried out


Inbound = Received | LinkChange | ArbiterRequest


class PipelineClock:
    """Seconds since the match's origin, monotonic within a process, continued across restarts."""

    def __init__(self, origin_epoch: float, not_before: float = 0.0) -> None:
        since_origin = max(time.time() - origin_epoch, not_before)
        self._offset = since_origin - time.monotonic()
        self.origin_epoch = origin_epoch

    def now(self) -> float:
        return time.monotonic() + self._offset

    def from_monotonic(self, monotonic: float) -> float:
        return monotonic + self._offset


class Daemon:
    """One bridge process serving one match."""

    def __init__(self, settings: Settings, *, on_ready: Callable[[], None] | None = None) -> None:
        self.settings = settings
        self.boot_id = uuid.uuid4().hex
        self._on_ready = on_ready
        state_dir = settings.state_dir
        self.journal = Journal(state_dir / "journal.sqlite")
        self.outbox = Outbox(state_dir / "outbox.sqlite")
        self.clock = self._pipeline_clock()
        self.archive = GameArchive(settings.state_dir)
        self.bridge = Bridge(
            bridge_config(
                settings, boot_id=self.boot_id, clock_origin_epoch=self.clock.origin_epoch
            )
        )
        self._inbound: asyncio.Queue[Inbound] = asyncio.Queue()
        self._held: Inbound | None = None  # taken from the queue, due after a timer
        self._last_t = 0.0  # pipeline time of the last input the core was given
        # The pure core runs in one thread of its own: a long step (a gap solved after a restart
        # takes seconds on a small box) must not stop the event loop, which keeps reading the
        # boards (timestamped as they arrive), talking MQTT and pinging the watchdogs meanwhile.
        self._core = concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="core")
        self._stopping = asyncio.Event()
        self._recorder = self._trace_recorder()
        self.links: dict[str, SerialLink] = {}
        self._link_up: dict[str, bool] = {}
        self._core_waiting = True  # the core consumer is idle, awaiting input or a timer
        self._core_stepped = time.monotonic()  # when the core consumer last finished a step
        self.mqtt: MqttLink | None = None

    # -- start-up -----------------------------------------------------------------------------

    def _trace_recorder(self) -> TraceRecorder | None:
        if self.settings.record is None:
            return None
        meta = {
            "bridge": self.settings.bridge_id,
            "match": self.settings.match_id,
            "rules": self.settings.rules.preset,
            "boot_id": self.boot_id,
            "version": __version__,
        }
        return TraceRecorder(self.settings.record, meta=meta, clock=self.clock.now)

    def _pipeline_clock(self) -> PipelineClock:
        stored = self.journal.meta(ORIGIN_KEY)
        if stored is None:
            origin = time.time()
            self.journal.set_meta(ORIGIN_KEY, repr(origin))
            return PipelineClock(origin)
        return PipelineClock(float(stored), not_before=self.journal.last_t() or 0.0)

    def resume(self) -> int:
        """Rebuild the pipeline from the journal; return how many inputs were replayed.

        Events the outbox already holds are not queued again; events the crash cut off between
        the journal and the outbox are (they get their original ``seq``).
        """
        already_queued = self.outbox.last_seq() or 0
        self.bridge.mute_until(already_queued + 1)
        replayed = 0
        for entry in self.journal.entries():
            self._route(self._replay_entry(entry))
            replayed += 1
        self.bridge.mute_until(0)
        self._last_t = self.clock.now()
        self.bridge.process_restarted()
        self.journal.begin_boot(self.boot_id, self._last_t)
        if replayed:
            logger.info(
                "resumed from %d journal entries, last seq %d", replayed, self.bridge.last_seq
            )
        return replayed

    def _replay_entry(self, entry: JournalEntry) -> Output:
        """One journal record through the bridge; a record that fails is skipped with an alert
        (exactly as it was when it first failed live), so no record can stop a start-up."""
        match entry.kind:
            case EntryKind.RX if entry.link is not None and entry.data is not None:
                link, data = entry.link, entry.data
                return self._guarded(
                    "rx", entry.t, lambda: self.bridge.receive(link, data, entry.t), link=link
                )
            case EntryKind.TIMER:
                return self._guarded("timer", entry.t, lambda: self.bridge.on_timer(entry.t))
            case EntryKind.LINK if entry.link is not None:
                link = entry.link
                return self._guarded(
                    "link",
                    entry.t,
                    lambda: self.bridge.link_state(
                        link, entry.t, connected=bool(entry.connected), port=None
                    ),
                    link=link,
                )
            case EntryKind.BOOT:
                self.bridge.process_restarted()  # as it was when that process started
                return Output()
            case EntryKind.COMMAND if entry.text is not None:
                # Journals written before requests were journalled only on success may hold a
                # poisoned request: ``command`` answers it ok: false and it changes nothing.
                _, output = self.bridge.command(entry.text, entry.data or b"", entry.t)
                return output
            case _:
                return Output()

    def _guarded(
        self, what: str, t: float, step: Callable[[], Output], *, link: str | None = None
    ) -> Output:
        """Run one pipeline step; a step that raises (a bug) is logged, alerted and skipped.

        The same input fails the same way when the journal is replayed, so the alert (and every
        event number after it) comes out identical on resume.
        """
        try:
            return step()
        except Exception as error:
            logger.exception("the bridge failed on one %s input at t=%.3f; skipped", what, t)
            return self.bridge.input_failed(what, error, t, link=link)

    # -- running ------------------------------------------------------------------------------

    async def run(self) -> int:
        self.resume()
        async with self._broker(), asyncio.TaskGroup() as tasks:
            self.mqtt = self._mqtt_link()
            mqtt_task = tasks.create_task(self.mqtt.run(), name="mqtt")
            for link in self._serial_links():
                self.links[link.name] = link
                tasks.create_task(link.run(), name=f"serial-{link.name}")
            self._publish_retained_snapshot()
            core = tasks.create_task(self._consume(), name="core")
            watchdog = systemd.watchdog_interval()
            if watchdog is not None:
                tasks.create_task(self._watchdog(watchdog), name="watchdog")
            self._announce_ready()
            await self._stopping.wait()
            logger.info("stopping: the core, the serial links, then MQTT drains")
            core.cancel()
            for task in tasks._tasks:  # noqa: SLF001 - cancel readers and watchdog, MQTT drains
                if task.get_name().startswith(("serial-", "watchdog")):
                    task.cancel()
            self.mqtt.stop()
            # The drain is bounded; a broker that stops answering mid-drain is not: past the
            # grace the MQTT task is cancelled (the outbox keeps what was not acknowledged).
            asyncio.get_running_loop().call_later(STOP_GRACE, mqtt_task.cancel)
        logger.info("stopping: MQTT done; waiting for the core's step in progress")
        self._core.shutdown(wait=True, cancel_futures=True)
        logger.info("stopped")
        self.journal.close()
        self.outbox.close()
        if self._recorder is not None:
            self._recorder.close()
        return 0

    def stop(self) -> None:
        systemd.stopping()
        self._stopping.set()

    def _announce_ready(self) -> None:
        systemd.ready()
        systemd.status(f"serving match {self.settings.match_id}")
        if self._on_ready is not None:
            self._on_ready()

    @contextlib.asynccontextmanager
    async def _broker(self) -> AsyncIterator[None]:
        mqtt = self.settings.mqtt
        if not mqtt.embedded:
            yield
            return
        async with EmbeddedBroker(
            host=mqtt.embedded_host, port=mqtt.embedded_port, ws_port=mqtt.embedded_ws_port
        ):
            yield

    def _mqtt_link(self) -> MqttLink:
        mqtt = self.settings.mqtt
        return MqttLink(
            host=mqtt.connect_host,
            port=mqtt.connect_port,
            root=mqtt.root,
            bridge_id=self.settings.bridge_id,
            outbox=self.outbox,
            boot_id=self.boot_id,
            version=__version__,
            on_request=self._on_request,
            client_id=mqtt.client_id,
            username=mqtt.username,
            password=mqtt.password,
            tls_context=mqtt.ssl_context(),
            keepalive=mqtt.keepalive,
            mqtt5=mqtt.protocol == "5" and not mqtt.embedded,
            also_subscribe=self._hall_subscriptions(),
        )

    def _hall_subscriptions(self) -> dict[str, str]:
        """A hall box takes its pairings from the retained round (as the ``hall_round`` verb,
        so that the journal replays them like any command)."""
        if self.settings.hall is None:
            return {}
        return {round_topic(self.settings.mqtt.root): "hall_round"}

    def _serial_links(self) -> list[SerialLink]:
        return [
            SerialLink(
                link.name,
                link.port,
                self._on_bytes,
                self._on_link_state,
                on_tx=self._on_tx,
                handshake=handshake,
                silence_timeout=self.settings.timings.link_silence_timeout,
            )
            for link in self.settings.links
        ]

    # -- driver callbacks: everything goes through the one queue -------------------------------

    # The trace takes each input as it arrives (with the tx lines, in wall-clock order); the
    # journal takes it when the core does (with the timers, in processing order).

    def _on_bytes(self, link: str, data: bytes, monotonic: float) -> None:
        t = self.clock.from_monotonic(monotonic)
        if self._recorder is not None:
            self._recorder.rx(link, data, t)
        self._inbound.put_nowait(Received(link, data, t))

    def _on_tx(self, link: str, data: bytes, monotonic: float) -> None:
        t = self.clock.from_monotonic(monotonic)
        if self._recorder is not None:
            self._recorder.tx(link, data, t)

    def _on_link_state(self, state: LinkState) -> None:
        # The driver reports "port open" and "board identified" separately; the pipeline only
        # cares whether the board talks to us, so pass on transitions alone.
        if self._link_up.get(state.link) == state.connected:
            return
        self._link_up[state.link] = state.connected
        change = LinkChange(state.link, state.connected, state.port, self.clock.now())
        if self._recorder is not None:
            self._recorder.link(change.link, change.t, connected=change.connected)
        self._inbound.put_nowait(change)

    async def _on_request(self, request: Request) -> bytes:
        answer: asyncio.Future[bytes] = asyncio.get_running_loop().create_future()
        self._inbound.put_nowait(ArbiterRequest(request, answer, self.clock.now()))
        return await answer

    # -- the core consumer ---------------------------------------------------------------------

    async def _consume(self) -> None:
        """Inputs in the order they arrived, each with the time it arrived: the journal and the
        trace get them here, on the event loop; the core's step runs in the core thread."""
        loop = asyncio.get_running_loop()
        while True:
            self._core_waiting = True
            item = await self._next_input()
            self._core_waiting = False
            step = (
                self._prepare(item)
                if item is not None
                else self._prepare_timer(backlog=bool(self._held))
            )
            output = await loop.run_in_executor(self._core, step)
            if isinstance(item, ArbiterRequest):
                self._finish_answer(item)
            self._route(output)
            self._core_stepped = time.monotonic()

    async def _watchdog(self, interval: float) -> None:
        """Tell systemd we are alive every ``interval`` — only while the core is healthy.

        The pings come from this loop, so a blocked event loop stops them; a core consumer that
        is neither waiting for input nor finishing steps (stuck inside one) stops them too.
        Boards that go silent do not: an idle core is a healthy core.
        """
        while True:
            if self._core_waiting or time.monotonic() - self._core_stepped < 2 * interval:
                systemd.watchdog()
            await asyncio.sleep(interval)

    async def _next_input(self) -> Inbound | None:
        """The next input, or None when a timer is due before it.

        After a long step the queue holds inputs from the past: a timer that fell due between
        them fires between them, at its deadline, so the core sees one timeline in time order
        (and a resume from the journal sees the same one)."""
        item, self._held = self._held, None
        if item is None and not self._inbound.empty():
            item = self._inbound.get_nowait()
        deadline = self.bridge.deadline()
        if item is not None:
            if deadline is not None and deadline < item.t:
                self._held = item
                return None
            return item
        if deadline is None:
            return await self._inbound.get()
        try:
            return await asyncio.wait_for(
                self._inbound.get(), max(0.0, deadline - self.clock.now())
            )
        except TimeoutError:
            return None

    def _prepare_timer(self, *, backlog: bool) -> Callable[[], Output]:
        """A timer fires at the time it is noticed, or at its deadline when inputs from after
        the deadline are already waiting (the core was busy)."""
        deadline = self.bridge.deadline()
        due = deadline if backlog and deadline is not None else self.clock.now()
        t = max(self._last_t, due)
        self._last_t = t
        self.journal.append_timer(t)
        return lambda: self._guarded("timer", t, lambda: self.bridge.on_timer(t))

    def _prepare(self, item: Inbound) -> Callable[[], Output]:
        """Journal and record one input (event loop); return its core step (core thread)."""
        self._last_t = max(self._last_t, item.t)
        match item:
            case Received():
                self.journal.append_rx(item.link, item.data, item.t)
                received = item
                return lambda: self._guarded(
                    "rx",
                    received.t,
                    lambda: self.bridge.receive(received.link, received.data, received.t),
                    link=received.link,
                )
            case LinkChange():
                self.journal.append_link_state(item.link, connected=item.connected, t=item.t)
                change = item
                return lambda: self._guarded(
                    "link",
                    change.t,
                    lambda: self.bridge.link_state(
                        change.link, change.t, connected=change.connected, port=change.port
                    ),
                    link=change.link,
                )
            case ArbiterRequest():
                request = item
                return lambda: self._answer(request)

    def _answer(self, item: ArbiterRequest) -> Output:
        """Carry out a request (core thread); ``_finish_answer`` journals it if it was carried out.

        ``Bridge.command`` validates the request fully (limits, arguments) and rolls back a
        handler that fails, so a refused or failed request changed nothing: leaving it out of the
        journal keeps a resume exact and means a poisoned request is never replayed. Nothing else
        runs between the two steps (one core consumer), so the journal order stays the order of
        processing; ``_route`` flushes the journal before the events reach the outbox.
        """
        request = item.request
        response, output = self.bridge.command(request.verb, request.payload, item.t)
        item.response = response
        if not response["ok"] and self.bridge.last_command_failure is not None:
            failure = self.bridge.last_command_failure
            logger.error(
                "request %r failed: %s", request.verb[:64], response["error"], exc_info=failure
            )
        elif not response["ok"]:
            logger.info("request %r refused: %s", request.verb[:64], response["error"])
        return output

    def _finish_answer(self, item: ArbiterRequest) -> None:
        """Journal a request that was carried out (on the event loop, before its events are
        routed), then answer it."""
        response = item.response
        if response is None:
            return
        if response["ok"] and item.request.verb not in READ_ONLY_VERBS:
            self.journal.append_command(item.request.verb, item.request.payload, item.t)
        if not item.answer.done():
            item.answer.set_result(self.bridge.encode_response(response))

    def _route(self, output: Output) -> None:
        durable = [p for p in output.publications if p.qos > 0 or p.retain]
        if durable:
            # The inputs behind these events must be on disk before the events can go out:
            # otherwise a SIGKILL could leave published events that a resume cannot rebuild.
            self.journal.flush()
            self.outbox.append(durable, seq=self.bridge.last_seq)
        if self.mqtt is not None:
            for publication in output.publications:
                if publication.qos == 0 and not publication.retain:
                    self.mqtt.publish_ephemeral(publication.topic, publication.payload)
            if durable:
                self.mqtt.notify()
        for link_name, data in output.writes:
            link = self.links.get(link_name)
            if link is not None:
                link.write(data)
        self.archive.update(output)

    def _publish_retained_snapshot(self) -> None:
        now = self.clock.now()
        self.outbox.append(self.bridge.retained_publications(now), seq=self.bridge.last_seq)


async def serve(settings: Settings, *, on_ready: Callable[[], None] | None = None) -> int:
    """Run the daemon until SIGTERM or SIGINT; return the exit status."""
    daemon = Daemon(settings, on_ready=on_ready)
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(signum, daemon.stop)
    try:
        return await daemon.run()
    finally:
        for signum in (signal.SIGTERM, signal.SIGINT):
            loop.remove_signal_handler(signum)
