"""The input journal: everything the pure pipeline was fed, so it can be rebuilt after a crash.

The pipeline is deterministic: the same inputs at the same pipeline times give the same events.
So instead of snapshotting the match, the daemon journals its *inputs* — received byte chunks,
link up/down, arbiter commands, timer firings — each with its pipeline time ``t``, and after a
restart replays them (with publishing switched off) to get back to where it was.

Batching: a serial chunk arrives up to ~100 times a second per link; committing each would cost an
fsync each. Entries are buffered and committed at most every ``commit_interval`` (50 ms) — and
immediately for rare, important entries (link state, commands, boots). The caller must call
:meth:`flush` *before* it commits the events an input produced to the outbox: then an event on
the broker is never derived from an input the journal lost. Losing the last < 50 ms of input
that produced no event yet is harmless: the board will resend its state (dump on reconnect).
"""

from __future__ import annotations

import asyncio
import json
import sqlite3
import time
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from bughouse_bridge.drivers.closing import ClosesOnExit

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator

_SCHEMA = """
CREATE TABLE IF NOT EXISTS entries (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    kind TEXT NOT NULL,
    t REAL NOT NULL,
    link TEXT,
    data BLOB,
    text TEXT
);
CREATE TABLE IF NOT EXISTS meta (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
"""


class EntryKind(StrEnum):
    RX = "rx"  # bytes board -> host
    TX = "tx"  # bytes host -> board (informational; not an input)
    LINK = "link"  # link connected / disconnected
    COMMAND = "command"  # an arbiter command
    TIMER = "timer"  # the pipeline's timer fired at t
    BOOT = "boot"  # a process started (text = boot_id)


@dataclass(frozen=True, slots=True)
class JournalEntry:
    id: int
    kind: EntryKind
    t: float
    link: str | None = None
    data: bytes | None = None  # rx/tx bytes, command payload
    text: str | None = None  # command verb, boot id, link details (JSON)

    @property
    def connected(self) -> bool | None:
        """For link entries: the new state."""
        if self.kind is not EntryKind.LINK or self.text is None:
            return None
        return bool(json.loads(self.text)["connected"])


_Row = tuple[str, float, str | None, bytes | None, str | None]


class Journal(ClosesOnExit):
    """Append-only input log in SQLite (WAL). Not thread-safe; use from the event loop."""

    def __init__(
        self,
        path: Path | str,
        *,
        commit_interval: float = 0.05,
        synchronous: Literal["NORMAL", "FULL"] = "FULL",
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(self.path, isolation_level=None)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute(f"PRAGMA synchronous={synchronous}")
        self._db.executescript(_SCHEMA)
        self._commit_interval = commit_interval
        self._clock = clock
        self._buffer: list[_Row] = []
        self._oldest_buffered: float | None = None
        self._scheduled: asyncio.TimerHandle | None = None

    # -- appending ---------------------------------------------------------------------------

    def append_rx(self, link: str, data: bytes, t: float) -> None:
        self._buffered((EntryKind.RX, t, link, bytes(data), None))

    def append_tx(self, link: str, data: bytes, t: float) -> None:
        self._buffered((EntryKind.TX, t, link, bytes(data), None))

    def append_timer(self, t: float) -> None:
        self._buffered((EntryKind.TIMER, t, None, None, None))

    def append_link_state(
        self, link: str, *, connected: bool, t: float, details: str | None = None
    ) -> None:
        text = json.dumps({"connected": connected, "details": details})
        self._immediate((EntryKind.LINK, t, link, None, text))

    def append_command(self, verb: str, payload: bytes, t: float) -> None:
        self._immediate((EntryKind.COMMAND, t, None, bytes(payload), verb))

    def begin_boot(self, boot_id: str, t: float) -> None:
        """Mark a process start; ``t`` is the pipeline time the new process continues from."""
        self._immediate((EntryKind.BOOT, t, None, None, boot_id))

    # -- metadata ----------------------------------------------------------------------------

    def set_meta(self, key: str, value: str) -> None:
        self.flush()
        self._db.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (key, value))

    def meta(self, key: str) -> str | None:
        row = self._db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return None if row is None else str(row[0])

    @property
    def clock_offset(self) -> float | None:
        """Stored offset between the process clock and the pipeline clock, if any."""
        value = self.meta("clock_offset")
        return None if value is None else float(value)

    @clock_offset.setter
    def clock_offset(self, offset: float) -> None:
        self.set_meta("clock_offset", repr(offset))

    def last_t(self) -> float | None:
        """The latest pipeline time journalled: a restarted process continues from here."""
        self.flush()
        (t,) = self._db.execute("SELECT max(t) FROM entries").fetchone()
        return None if t is None else float(t)

    def boot_ids(self) -> list[str]:
        self.flush()
        rows = self._db.execute("SELECT text FROM entries WHERE kind = 'boot' ORDER BY id")
        return [str(row[0]) for row in rows]

    # -- reading and housekeeping ------------------------------------------------------------

    def entries(self) -> Iterator[JournalEntry]:
        """Every entry in append order (commits the buffer first)."""
        self.flush()
        cursor = self._db.execute("SELECT id, kind, t, link, data, text FROM entries ORDER BY id")
        for row in cursor:
            data = None if row[4] is None else bytes(row[4])
            yield JournalEntry(row[0], EntryKind(row[1]), row[2], row[3], data, row[5])

    def reset(self) -> None:
        """Forget every entry and the clock offset (a new game starts from the boards)."""
        self._buffer.clear()
        self._oldest_buffered = None
        self._db.execute("BEGIN IMMEDIATE")
        self._db.execute("DELETE FROM entries")
        self._db.execute("DELETE FROM meta WHERE key = 'clock_offset'")
        self._db.execute("COMMIT")

    def flush(self) -> None:
        """Commit buffered entries now (one transaction)."""
        if self._scheduled is not None:
            self._scheduled.cancel()
            self._scheduled = None
        if not self._buffer:
            return
        rows, self._buffer = self._buffer, []
        self._oldest_buffered = None
        self._db.execute("BEGIN IMMEDIATE")
        self._db.executemany(
            "INSERT INTO entries (kind, t, link, data, text) VALUES (?, ?, ?, ?, ?)", rows
        )
        self._db.execute("COMMIT")

    def close(self) -> None:
        self.flush()
        self._db.close()

    # -- internals ---------------------------------------------------------------------------

    def _immediate(self, row: _Row) -> None:
        self._buffer.append(row)
        self.flush()

    def _buffered(self, row: _Row) -> None:
        self._buffer.append(row)
        now = self._clock()
        if self._oldest_buffered is None:
            self._oldest_buffered = now
        if now - self._oldest_buffered >= self._commit_interval:
            self.flush()
        elif self._scheduled is None:
            self._schedule_flush()

    def _schedule_flush(self) -> None:
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # no loop (scripts, tests): keep it simple and commit now
            self.flush()
            return
        self._scheduled = loop.call_later(self._commit_interval, self.flush)
