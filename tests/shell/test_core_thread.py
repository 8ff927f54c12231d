"""The pure core runs beside the event loop: a long step (a gap solved after a restart) never
stops the loop, and the inputs that arrive meanwhile keep their order and their times."""

from __future__ import annotations

import asyncio
import contextlib
import time
from dataclasses import dataclass, field

from test_resume_guard import make_daemon

from bughouse_bridge.bridge import Output
from bughouse_bridge.daemon.inputs import Received
from bughouse_bridge.drivers.journal import EntryKind

SLOW = b"\x8e slow"


@dataclass
class RecordingCore:
    """Stands in for the ``Bridge``: records what it is given; one chunk takes a while."""

    timer_at: float | None = None
    seen: list[tuple[str, float]] = field(default_factory=list)
    last_seq: int = 0

    def receive(self, link: str, data: bytes, now: float) -> Output:
        if data == SLOW:
            time.sleep(1.0)  # a CPU-bound step, as far as the event loop can tell
        self.seen.append((f"rx {link}", now))
        return Output()

    def deadline(self) -> float | None:
        return self.timer_at

    def on_timer(self, now: float) -> Output:
        self.seen.append(("timer", now))
        self.timer_at = None
        return Output()


async def _run_consumer(daemon, until) -> None:
    consumer = asyncio.create_task(daemon.core.consume())
    try:
        async with asyncio.timeout(10):
            while not until():  # noqa: ASYNC110 - the core thread fills the list
                await asyncio.sleep(0.01)
    finally:
        consumer.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await consumer


async def test_a_slow_step_leaves_the_event_loop_running(tmp_path):
    daemon = make_daemon(tmp_path)
    core = RecordingCore()
    daemon.core.bridge = core  # type: ignore[assignment]
    daemon.core.route = lambda _output: None  # type: ignore[method-assign]
    ticks = 0

    async def ticker() -> None:
        nonlocal ticks
        while True:
            await asyncio.sleep(0.02)
            ticks += 1

    ticking = asyncio.create_task(ticker())
    daemon.core.inbound.put_nowait(Received("A", SLOW, 1.0))
    await _run_consumer(daemon, lambda: len(core.seen) == 1)
    ticking.cancel()
    # Blocked, the loop would not have ticked once during the one-second step.
    assert ticks >= 10
    daemon.core.executor.shutdown()


async def test_inputs_queued_during_a_slow_step_keep_their_order_and_times(tmp_path):
    daemon = make_daemon(tmp_path)
    core = RecordingCore(timer_at=2.5)
    daemon.core.bridge = core  # type: ignore[assignment]
    daemon.core.route = lambda _output: None  # type: ignore[method-assign]
    for item in (Received("A", SLOW, 1.0), Received("B", b"x", 2.0), Received("A", b"y", 3.0)):
        daemon.core.inbound.put_nowait(item)
    await _run_consumer(daemon, lambda: len(core.seen) == 4)
    # The timer fell due between the second and third inputs: it fires there, at its deadline,
    # not after the backlog at the wall-clock time it was noticed.
    assert core.seen == [("rx A", 1.0), ("rx B", 2.0), ("timer", 2.5), ("rx A", 3.0)]
    daemon.journal.flush()
    journalled = [(e.kind, e.t) for e in daemon.journal.entries() if e.kind is not EntryKind.BOOT]
    assert journalled == [
        (EntryKind.RX, 1.0),
        (EntryKind.RX, 2.0),
        (EntryKind.TIMER, 2.5),
        (EntryKind.RX, 3.0),
    ]
    daemon.core.executor.shutdown()


async def test_a_stop_as_an_input_arrives_stops_the_consumer(tmp_path):
    """Cancelled in the very step where the input it waits for arrives (the input taken, its
    waiter not yet told), the consumer still stops: Python 3.11's ``wait_for`` returned the
    input there and lost the cancellation, and a SIGTERM then waited for ever."""
    daemon = make_daemon(tmp_path)
    core = RecordingCore(timer_at=daemon.core.clock.now() + 60)  # waiting with a deadline
    daemon.core.bridge = core  # type: ignore[assignment]
    daemon.core.route = lambda _output: None  # type: ignore[method-assign]
    consumer = asyncio.create_task(daemon.core.consume())
    await asyncio.sleep(0.05)  # waiting for input
    daemon.core.inbound.put_nowait(Received("A", b"\x8e", 1.0))
    await asyncio.sleep(0)  # one turn: the queue's getter has its item, the consumer not yet
    consumer.cancel()
    done, _ = await asyncio.wait([consumer], timeout=2)
    daemon.core.executor.shutdown()
    assert done == {consumer}, "the consumer went on after it was cancelled"
    assert consumer.cancelled()
