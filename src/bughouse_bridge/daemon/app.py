"""The composition root: settings → drivers + the pure ``Bridge``, run under one TaskGroup.

Tasks: one reader per serial link, one MQTT link (publisher + request listener), one core
consumer (:class:`~bughouse_bridge.daemon.core_runner.CoreRunner`, which owns the ``Bridge`` and
is the only code that touches it, journals every input before it is processed and resumes from the
journal), and the watchdog (the core consumer finishes steps, so a stuck pipeline is noticed).
The drivers' callbacks stamp their inputs with pipeline time and put them on the core's one queue.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
import time
import uuid
from typing import TYPE_CHECKING

from bughouse_bridge import __version__
from bughouse_bridge.bridge import Bridge
from bughouse_bridge.daemon import systemd
from bughouse_bridge.daemon.archive import GameArchive
from bughouse_bridge.daemon.core_runner import CoreRunner
from bughouse_bridge.daemon.inputs import ArbiterRequest, LinkChange, PipelineClock, Received
from bughouse_bridge.daemon.stop_report import SlowStopReport
from bughouse_bridge.daemon.wiring import bridge_config
from bughouse_bridge.drivers.broker import EmbeddedBroker
from bughouse_bridge.drivers.handshake import handshake
from bughouse_bridge.drivers.journal import Journal
from bughouse_bridge.drivers.mqtt import MqttLink, Request
from bughouse_bridge.drivers.outbox import Outbox
from bughouse_bridge.drivers.serial_link import LinkState, SerialLink
from bughouse_bridge.drivers.trace_recorder import TraceRecorder
from bughouse_bridge.hall.naming import round_topic

if TYPE_CHECKING:
    from collections.abc import AsyncIterator, Callable

    from bughouse_bridge.config import Settings

logger = logging.getLogger(__name__)
STOP_GRACE = 8.0  # seconds MQTT may take to drain and say "offline" after a stop is asked
STOP_REPORT_AFTER = 5.0  # seconds into a stop after which what it waits on is logged

ORIGIN_KEY = "origin_epoch"


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
        bridge = Bridge(
            bridge_config(
                settings, boot_id=self.boot_id, clock_origin_epoch=self.clock.origin_epoch
            )
        )
        self.core = CoreRunner(
            bridge, journal=self.journal, outbox=self.outbox, archive=self.archive, clock=self.clock
        )
        self._stopping = asyncio.Event()
        self._recorder = self._trace_recorder()
        self._link_up: dict[str, bool] = {}

    @property
    def bridge(self) -> Bridge:
        """The pure core (owned by :attr:`core`)."""
        return self.core.bridge

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
        """Rebuild the pipeline from the journal; return how many inputs were replayed."""
        return self.core.resume(self.boot_id)

    # -- running ------------------------------------------------------------------------------

    async def run(self) -> int:
        self.resume()
        with SlowStopReport(asyncio.get_running_loop(), after=STOP_REPORT_AFTER) as report:
            await self._serve(report)
        self.journal.close()
        self.outbox.close()
        if self._recorder is not None:
            self._recorder.close()
        return 0

    async def _serve(self, report: SlowStopReport) -> None:
        """Serve until :meth:`stop`, then stop in order, telling ``report`` where the stop is."""
        async with self._broker(report), asyncio.TaskGroup() as tasks:
            mqtt = self.core.mqtt = self._mqtt_link()
            mqtt_task = tasks.create_task(mqtt.run(), name="mqtt")
            for link in self._serial_links():
                self.core.links[link.name] = link
                tasks.create_task(link.run(), name=f"serial-{link.name}")
            self.core.publish_retained_snapshot()
            core = tasks.create_task(self.core.consume(), name="core")
            watchdog = systemd.watchdog_interval()
            if watchdog is not None:
                tasks.create_task(self._watchdog(watchdog), name="watchdog")
            self._announce_ready()
            await self._stopping.wait()
            report.start()
            report.phase = "cancelling the core and the serial links, draining MQTT"
            logger.info("stopping: the core, the serial links, then MQTT drains")
            core.cancel()
            for task in tasks._tasks:  # noqa: SLF001 - cancel readers and watchdog, MQTT drains
                if task.get_name().startswith(("serial-", "watchdog")):
                    task.cancel()
            mqtt.stop()
            # The drain is bounded; a broker that stops answering mid-drain is not: past the
            # grace the MQTT task is cancelled (the outbox keeps what was not acknowledged).
            asyncio.get_running_loop().call_later(STOP_GRACE, mqtt_task.cancel)
        report.phase = "waiting for the core's step in progress"
        logger.info("stopping: MQTT done; waiting for the core's step in progress")
        await self.core.shutdown()
        logger.info("stopped")

    def stop(self) -> None:
        systemd.stopping()
        self._stopping.set()

    def _announce_ready(self) -> None:
        systemd.ready()
        systemd.status(f"serving match {self.settings.match_id}")
        if self._on_ready is not None:
            self._on_ready()

    @contextlib.asynccontextmanager
    async def _broker(self, report: SlowStopReport) -> AsyncIterator[None]:
        mqtt = self.settings.mqtt
        if not mqtt.embedded:
            yield
            return
        async with EmbeddedBroker(
            host=mqtt.embedded_host, port=mqtt.embedded_port, ws_port=mqtt.embedded_ws_port
        ):
            yield
            report.phase = "shutting the embedded broker down"

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
        self.core.inbound.put_nowait(Received(link, data, t))

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
        self.core.inbound.put_nowait(change)

    async def _on_request(self, request: Request) -> bytes:
        answer: asyncio.Future[bytes] = asyncio.get_running_loop().create_future()
        self.core.inbound.put_nowait(ArbiterRequest(request, answer, self.clock.now()))
        return await answer

    async def _watchdog(self, interval: float) -> None:
        """Tell systemd we are alive every ``interval`` — only while the core is healthy.

        The pings come from this loop, so a blocked event loop stops them; a core consumer that
        is neither waiting for input nor finishing steps (stuck inside one) stops them too.
        Boards that go silent do not: an idle core is a healthy core.
        """
        while True:
            if self.core.healthy(interval):
                systemd.watchdog()
            await asyncio.sleep(interval)


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


__all__ = ["Daemon", "serve"]
