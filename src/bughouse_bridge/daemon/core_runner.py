"""The one consumer of the pure core: every input in arrival order, journalled before it is
processed, each step run in the core's own thread, and the outputs routed.

Every input the core consumes — received bytes, link changes, timer firings, arbiter commands — is
appended to the journal *before* it is processed, with the pipeline time it was processed at.
Replaying the journal through a fresh ``Bridge`` (:meth:`CoreRunner.resume`) therefore rebuilds
the exact same state and the same event numbers, which is how the daemon resumes after a SIGKILL
or a power cut. Outputs go to the outbox (durable publications, after the journal is flushed),
MQTT, the boards and the game archive.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import logging
import time
from typing import TYPE_CHECKING

from bughouse_bridge.bridge import READ_ONLY_VERBS, Output
from bughouse_bridge.daemon.inputs import ArbiterRequest, Inbound, LinkChange, Received
from bughouse_bridge.drivers.journal import EntryKind

if TYPE_CHECKING:
    from collections.abc import Callable

    from bughouse_bridge.bridge import Bridge
    from bughouse_bridge.daemon.archive import GameArchive
    from bughouse_bridge.daemon.inputs import PipelineClock
    from bughouse_bridge.drivers.journal import Journal, JournalEntry
    from bughouse_bridge.drivers.mqtt import MqttLink
    from bughouse_bridge.drivers.outbox import Outbox
    from bughouse_bridge.drivers.serial_link import SerialLink

logger = logging.getLogger(__name__)


class CoreRunner:
    """Owns the ``Bridge`` and is the only code that touches it; drivers only fill ``inbound``."""

    def __init__(
        self,
        bridge: Bridge,
        *,
        journal: Journal,
        outbox: Outbox,
        archive: GameArchive,
        clock: PipelineClock,
    ) -> None:
        self.bridge = bridge
        self.journal = journal
        self.outbox = outbox
        self.archive = archive
        self.clock = clock
        self.inbound: asyncio.Queue[Inbound] = asyncio.Queue()
        self._held: Inbound | None = None  # taken from the queue, due after a timer
        self._last_t = 0.0  # pipeline time of the last input the core was given
        # The pure core runs in one thread of its own: a long step (a gap solved after a restart
        # takes seconds on a small box) must not stop the event loop, which keeps reading the
        # boards (timestamped as they arrive), talking MQTT and pinging the watchdogs meanwhile.
        self.executor = concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="core")
        self.links: dict[str, SerialLink] = {}
        self.mqtt: MqttLink | None = None
        self._waiting = True  # the consumer is idle, awaiting input or a timer
        self._stepped = time.monotonic()  # when the consumer last finished a step

    # -- resuming from the journal -------------------------------------------------------------

    def resume(self, boot_id: str) -> int:
        """Rebuild the pipeline from the journal; return how many inputs were replayed.

        Events the outbox already holds are not queued again; events the crash cut off between
        the journal and the outbox are (they get their original ``seq``).
        """
        already_queued = self.outbox.last_seq() or 0
        self.bridge.mute_until(already_queued + 1)
        replayed = 0
        for entry in self.journal.entries():
            self.route(self._replay_entry(entry))
            replayed += 1
        self.bridge.mute_until(0)
        self._last_t = self.clock.now()
        self.bridge.process_restarted()
        self.journal.begin_boot(boot_id, self._last_t)
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

    # -- the consumer --------------------------------------------------------------------------

    def healthy(self, interval: float) -> bool:
        """Waiting for input, or finished a step within two watchdog intervals."""
        return self._waiting or time.monotonic() - self._stepped < 2 * interval

    async def consume(self) -> None:
        """Inputs in the order they arrived, each with the time it arrived: the journal and the
        trace get them here, on the event loop; the core's step runs in the core thread."""
        loop = asyncio.get_running_loop()
        while True:
            self._waiting = True
            item = await self._next_input()
            self._waiting = False
            step = (
                self.prepare(item)
                if item is not None
                else self._prepare_timer(backlog=bool(self._held))
            )
            output = await loop.run_in_executor(self.executor, step)
            if isinstance(item, ArbiterRequest):
                self._finish_answer(item)
            self.route(output)
            self._stepped = time.monotonic()

    async def _next_input(self) -> Inbound | None:
        """The next input, or None when a timer is due before it.

        After a long step the queue holds inputs from the past: a timer that fell due between
        them fires between them, at its deadline, so the core sees one timeline in time order
        (and a resume from the journal sees the same one)."""
        item, self._held = self._held, None
        if item is None and not self.inbound.empty():
            item = self.inbound.get_nowait()
        deadline = self.bridge.deadline()
        if item is not None:
            if deadline is not None and deadline < item.t:
                self._held = item
                return None
            return item
        if deadline is None:
            return await self.inbound.get()
        # asyncio.timeout, not wait_for: Python 3.11's wait_for returns the input when the task
        # is cancelled just as the input arrives, and the cancellation is lost — a stop then
        # waited for this consumer for ever (found by the slow-stop report of a SIGTERM test).
        try:
            async with asyncio.timeout_at(self._loop_time_of(deadline)):
                return await self.inbound.get()
        except TimeoutError:
            return None

    def _loop_time_of(self, t: float) -> float:
        """The event loop's time at pipeline time ``t``."""
        return asyncio.get_running_loop().time() + max(0.0, t - self.clock.now())

    def _prepare_timer(self, *, backlog: bool) -> Callable[[], Output]:
        """A timer fires at the time it is noticed, or at its deadline when inputs from after
        the deadline are already waiting (the core was busy)."""
        deadline = self.bridge.deadline()
        due = deadline if backlog and deadline is not None else self.clock.now()
        t = max(self._last_t, due)
        self._last_t = t
        self.journal.append_timer(t)
        return lambda: self._guarded("timer", t, lambda: self.bridge.on_timer(t))

    def prepare(self, item: Inbound) -> Callable[[], Output]:
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
        processing; ``route`` flushes the journal before the events reach the outbox.
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

    def route(self, output: Output) -> None:
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

    def publish_retained_snapshot(self) -> None:
        now = self.clock.now()
        self.outbox.append(self.bridge.retained_publications(now), seq=self.bridge.last_seq)

    async def shutdown(self) -> None:
        """Wait for the core's step in progress; the steps not begun are dropped.

        Waited for off the event loop, which meanwhile still answers a second Ctrl-C and lets
        the slow-stop report name the step."""
        await asyncio.to_thread(self.executor.shutdown, wait=True, cancel_futures=True)


__all__ = ["CoreRunner"]
