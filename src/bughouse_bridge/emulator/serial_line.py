"""The emulated board's serial line: messages leave one after another at 9600 baud.

Each message is stamped with the time its last byte has crossed the wire, so two messages never
overlap; a message ready while the line is busy waits for it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

SECONDS_PER_BYTE = 10 / 9600  # 8N1 at 9600 baud


@dataclass(slots=True)
class SerialLine:
    """The serial line: messages leave one after another at 9600 baud."""

    wire_free: float = 0.0
    queue: list[tuple[float, bytes]] = field(default_factory=list)

    def send(self, ready: float, data: bytes) -> None:
        start = max(ready, self.wire_free)
        self.wire_free = start + len(data) * SECONDS_PER_BYTE
        self.queue.append((self.wire_free, data))

    def take(self, now: float) -> list[tuple[float, bytes]]:
        due = [item for item in self.queue if item[0] <= now]
        self.queue = [item for item in self.queue if item[0] > now]
        return due

    def next_deadline(self) -> float | None:
        return self.queue[0][0] if self.queue else None

    def clear(self, now: float) -> None:
        self.queue.clear()
        self.wire_free = now


__all__ = ["SECONDS_PER_BYTE", "SerialLine"]
