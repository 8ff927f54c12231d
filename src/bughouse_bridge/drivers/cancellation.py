"""A cancellation a library lost, raised again where our loops can see it.

Python 3.11's ``asyncio.wait_for`` returns its result when the task is cancelled just as that
result arrives, and the ``CancelledError`` is lost (fixed in 3.12). The package does not use it
(ruff bans it), but its libraries do: aiomqtt's publish and subscribe, amqtt throughout. The
request is still counted on the task (``Task.cancelling``), so a loop that calls
:func:`raise_if_cancelled` between its awaits stops as it was asked to, instead of waiting on
for ever: the demo once hung so, its MQTT link cancelled during a publish and then waiting for
outbox items that no longer came.
"""

from __future__ import annotations

import asyncio


def raise_if_cancelled() -> None:
    """Raise ``CancelledError`` when the current task was asked to stop and is still running
    (the request swallowed on the way: see the module docstring)."""
    task = asyncio.current_task()
    if task is not None and task.cancelling():
        raise asyncio.CancelledError


__all__ = ["raise_if_cancelled"]
