"""Records every byte exchanged with the serial links as a contract §1 JSONL trace.

``{"trace": 1, "meta": {...}}`` first, then ``{"t", "link", "dir", "hex"}`` per chunk, ``t`` in
seconds since the recording started (non-decreasing). The file is line-buffered: each chunk costs
one small ``write`` and no fsync, so the event loop is never held up for long, and a crash loses
at most the line being written (the replay skips a torn last line with a warning).
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from bughouse_bridge.drivers.closing import ClosesOnExit

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping

Direction = Literal["rx", "tx"]


def format_line(t: float, link: str, direction: Direction, data: bytes) -> str:
    record = {"t": round(t, 4), "link": link, "dir": direction, "hex": data.hex()}
    return json.dumps(record, separators=(", ", ": ")) + "\n"


class TraceRecorder(ClosesOnExit):
    """``with TraceRecorder(path, meta=...) as trace: link = SerialLink(..., on_tx=trace.tx)``.

    :meth:`rx` and :meth:`tx` take ``(link, data, t)`` with ``t`` on the caller's clock (the
    serial link's monotonic stamps); the recorder subtracts the start time.
    """

    def __init__(
        self,
        path: Path | str,
        *,
        meta: Mapping[str, Any] | None = None,
        clock: Callable[[], float] = time.monotonic,
        append: bool = False,
    ) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._start = clock()
        self._last_t = 0.0
        # buffering=1: line-buffered text, each line reaches the OS as soon as it is complete.
        self._file = self.path.open("a" if append else "w", encoding="utf-8", buffering=1)
        header = {"trace": 1, "meta": dict(meta or {})}
        self._file.write(json.dumps(header, separators=(", ", ": "), default=str) + "\n")

    def rx(self, link: str, data: bytes, t: float) -> None:
        self.record(link, "rx", data, t)

    def tx(self, link: str, data: bytes, t: float) -> None:
        self.record(link, "tx", data, t)

    def link(self, link: str, t: float, *, connected: bool) -> None:
        """A link lost or back: ``{"t", "link", "event": "disconnected" | "connected"}``."""
        if self._file.closed:
            return
        self._last_t = max(self._last_t, t - self._start)
        event = "connected" if connected else "disconnected"
        line = {"t": round(self._last_t, 4), "link": link, "event": event}
        self._file.write(json.dumps(line, separators=(", ", ": ")) + "\n")

    def record(self, link: str, direction: Direction, data: bytes, t: float) -> None:
        if not data or self._file.closed:
            return
        # Callers stamp chunks in arrival order, but keep the contract's "non-decreasing" exact.
        self._last_t = max(self._last_t, t - self._start)
        self._file.write(format_line(self._last_t, link, direction, data))

    def close(self) -> None:
        if not self._file.closed:
            self._file.close()
