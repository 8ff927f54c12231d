"""Inputs at their virtual times, timers in between: the replay semantics of contract §1."""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from bughouse_bridge.pipeline.output import Output

if TYPE_CHECKING:
    from collections.abc import Iterable


class Pipeline(Protocol):
    """The shell's side of the ``Bridge``."""

    def deadline(self) -> float | None: ...

    def on_timer(self, now: float) -> Output: ...

    def receive(self, link: str, data: bytes, now: float) -> Output: ...

    def link_state(
        self, link: str, now: float, *, connected: bool, port: str | None = None
    ) -> Output: ...


# A timer that keeps firing at the same instant would be a reconstructor bug; never spin on it.
_MAX_TIMERS_PER_STEP = 10_000


def run_to(bridge: Pipeline, until: float) -> Output:
    """Fire every timer due up to ``until`` on the pipeline clock, in deadline order."""
    output = Output()
    for _ in range(_MAX_TIMERS_PER_STEP):
        deadline = bridge.deadline()
        if deadline is None or deadline > until:
            return output
        output += bridge.on_timer(deadline)
    return output


def replay_chunks(
    bridge: Pipeline, chunks: Iterable[tuple[float, str, bytes | bool]], *, tail: float = 30.0
) -> Output:
    """Feed received chunks ``(t, link, data)`` at their virtual times, timers in between;
    ``data`` ``True``/``False`` is a link coming back / going away (a trace's link events).

    The timers of the pipeline run on the trace clock, so an hour-long game replays in well
    under a second. ``tail`` lets settle timers that are pending after the last chunk run out.
    """
    output = Output()
    last_t = 0.0
    for t, link, data in chunks:
        output += run_to(bridge, t)
        if isinstance(data, bool):
            output += bridge.link_state(link, t, connected=data)
        else:
            output += bridge.receive(link, data, t)
        last_t = t
    return output + run_to(bridge, last_t + tail)
