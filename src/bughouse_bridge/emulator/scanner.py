"""The board's sensor scan (dgt-protocol.md §3.9, §5.1, §9).

The *physical* contents of a square change at exact times; the board samples the squares one by
one in field order 0 → 63, one full pass per ``period`` seconds, and reports a square when its
sampled value differs from the last one it sampled. Every artefact real boards show follows from
that alone: a moving piece seen on both squares, the new square reported before the old one
empties (c7 → c6: field 10 is sampled before field 18), captures without an empty step, every
square of a slow slide, and ghosts of pieces carried over squares for longer than a scan step.

Only the first sample after each physical change can differ from the previous sample, so the
scanner schedules exactly those samples instead of simulating all 64 per pass.
"""

from __future__ import annotations

import bisect
import heapq
import math
from dataclasses import dataclass

FIELDS = 64
DEFAULT_SCAN_PERIOD = 0.225


@dataclass(frozen=True, slots=True)
class Sample:
    """A square whose sampled value changed: what the board would report at ``t``."""

    t: float
    field: int
    code: int


class Scanner:
    """Physical square contents over time, and the scan that samples them."""

    def __init__(
        self, initial: tuple[int, ...], *, period: float = DEFAULT_SCAN_PERIOD, phase: float = 0.0
    ) -> None:
        if len(initial) != FIELDS:
            raise ValueError("a board has 64 fields")
        self.period = period
        self.phase = phase
        self._physical: list[list[tuple[float, int]]] = [[(-math.inf, code)] for code in initial]
        self._sampled = list(initial)
        self._due: list[tuple[float, int]] = []  # (sample time, field), a heap
        self._scheduled: set[tuple[float, int]] = set()
        self._now = -math.inf

    @property
    def sampled(self) -> tuple[int, ...]:
        """What the board last read on every square (a dump reports this)."""
        return tuple(self._sampled)

    def physical(self, field: int) -> int:
        """What is on the square right now (after every change set so far)."""
        return self._physical[field][-1][1]

    @property
    def physical_state(self) -> tuple[int, ...]:
        return tuple(self.physical(field) for field in range(FIELDS))

    def set(self, field: int, code: int, t: float) -> None:
        """The content of ``field`` becomes ``code`` at ``t`` (clamped to the last poll)."""
        t = max(t, self._now)
        history = self._physical[field]
        if t < history[-1][0]:
            raise ValueError("physical changes of a square must be set in time order")
        history.append((t, code))
        key = (self.next_sample_time(field, t), field)
        if key not in self._scheduled:
            self._scheduled.add(key)
            heapq.heappush(self._due, key)

    def next_sample_time(self, field: int, t: float) -> float:
        """The first time at or after ``t`` at which the scan samples ``field``."""
        offset = self.phase + field * self.period / FIELDS
        sample = offset + math.ceil((t - offset) / self.period) * self.period
        # Floating-point rounding may land a hair before ``t``: that pass is already over.
        return sample if sample >= t else sample + self.period

    def next_deadline(self) -> float | None:
        return self._due[0][0] if self._due else None

    def advance(self, now: float) -> list[Sample]:
        """Sample everything due up to ``now``; return the squares whose sampled value changed."""
        changes: list[Sample] = []
        while self._due and self._due[0][0] <= now:
            key = heapq.heappop(self._due)
            self._scheduled.discard(key)
            sample_time, field = key
            code = self._value_at(field, sample_time)
            self._forget_before(field, sample_time)
            if code != self._sampled[field]:
                self._sampled[field] = code
                changes.append(Sample(sample_time, field, code))
        self._now = max(self._now, now)
        return changes

    def resample_all(self, now: float) -> None:
        """After a power cycle the board starts from what is physically there."""
        self._sampled = [self._value_at(field, now) for field in range(FIELDS)]

    def _value_at(self, field: int, t: float) -> int:
        history = self._physical[field]
        index = bisect.bisect_right(history, t, key=lambda entry: entry[0]) - 1
        return history[max(index, 0)][1]

    def _forget_before(self, field: int, t: float) -> None:
        history = self._physical[field]
        index = bisect.bisect_right(history, t, key=lambda entry: entry[0]) - 1
        if index > 0:
            del history[:index]
