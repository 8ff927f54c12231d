"""What the daemon gives the pure core: the inputs (bytes received, a link's change, an arbiter's
request), each stamped with pipeline time, and that time itself.

Pipeline time is seconds since the match's origin: monotonic within a process and continued
across restarts (never before the last journalled input), so a resumed journal and the live inputs
after it form one timeline.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import asyncio

    from bughouse_bridge.drivers.mqtt import Request


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


__all__ = ["ArbiterRequest", "Inbound", "LinkChange", "PipelineClock", "Received"]
