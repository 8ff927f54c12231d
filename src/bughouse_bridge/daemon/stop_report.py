"""What a slow stop still waits for, logged while it waits.

A stop (systemd's SIGTERM, the demo's Ctrl-C) normally takes well under a second; one that does
not ends with systemd's SIGKILL or an impatient arbiter, and then nobody knows why. Past
``after`` seconds this report logs, once, every task of the event loop still pending with the
line it waits on, and every thread with the line it runs — from a thread of its own, so that it
still comes when the event loop itself is blocked (joining the core's thread, say).
"""

from __future__ import annotations

import asyncio
import logging
import sys
import threading
import traceback
from typing import TYPE_CHECKING, Self

if TYPE_CHECKING:
    from types import FrameType

logger = logging.getLogger(__name__)


class SlowStopReport:
    """``with SlowStopReport(loop, after=5.0) as report:`` around the stop; ``report.phase``
    says which part of the stop is under way."""

    def __init__(self, loop: asyncio.AbstractEventLoop, *, after: float) -> None:
        self._loop = loop
        self._timer = threading.Timer(after, self._report)
        self._timer.daemon = True  # never keeps a stopping process alive
        self._after = after
        self.phase = "starting to stop"

    def __enter__(self) -> Self:
        return self

    def start(self) -> None:
        """The stop begins: the report comes ``after`` seconds from now unless it ends first."""
        self._timer.start()

    def __exit__(self, *exc_info: object) -> None:
        self._timer.cancel()

    def _report(self) -> None:
        logger.warning(
            "the stop has taken over %.0f s, still %s; waiting on:\n%s",
            self._after,
            self.phase,
            "\n".join(pending_tasks(self._loop) + running_threads()),
        )


def pending_tasks(loop: asyncio.AbstractEventLoop) -> list[str]:
    """Each pending task of ``loop`` and the line its innermost coroutine waits on."""
    lines = []
    # all_tasks copes with the loop adding tasks meanwhile (it retries a changing set).
    for task in asyncio.all_tasks(loop):
        stack = task.get_stack()
        where = _frame_line(stack[-1]) if stack else "(not started)"
        lines.append(f"  task {task.get_name()}: {where}")
    return sorted(lines)


def running_threads() -> list[str]:
    """Each thread and the line it runs (the report's own thread left out)."""
    names = {thread.ident: thread.name for thread in threading.enumerate()}
    me = threading.get_ident()
    return [
        f"  thread {names.get(ident, ident)}: {_frame_line(frame, depth=4)}"
        for ident, frame in sys._current_frames().items()  # noqa: SLF001 - the documented way
        if ident != me
    ]


def _frame_line(frame: FrameType, depth: int = 1) -> str:
    """The ``depth`` innermost calls at ``frame``, innermost first."""
    calls = reversed(traceback.extract_stack(frame, limit=depth))
    return " < ".join(f"{call.filename}:{call.lineno} in {call.name}" for call in calls)


__all__ = ["SlowStopReport", "pending_tasks", "running_threads"]
