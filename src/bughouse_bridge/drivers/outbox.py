"""The on-disk outbox: publications wait here until the broker has acknowledged them.

One SQLite file in WAL mode. An event batch, the sequence number it reached, the latest payload
of every retained topic and any key/value state the caller wants kept with it are written in one
transaction, so after a crash (even SIGKILL or power loss) the outbox, ``last_seq()`` and the
retained table always agree with each other.

``synchronous=FULL`` by default: the rate is a few transactions per second, an fsync each is cheap
at that rate, and with NORMAL a power cut (a tripped plug at a tournament) could roll back the last
transactions after their events had already gone out, which would make ``seq`` repeat.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Literal, Protocol

from bughouse_bridge.drivers.closing import ClosesOnExit

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping
    from types import TracebackType

Synchronous = Literal["NORMAL", "FULL"]

_SCHEMA = """
CREATE TABLE IF NOT EXISTS outbox (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    topic TEXT NOT NULL,
    payload BLOB NOT NULL,
    qos INTEGER NOT NULL,
    retain INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS retained (
    topic TEXT PRIMARY KEY,
    payload BLOB NOT NULL,
    qos INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS kv (
    key TEXT PRIMARY KEY,
    value BLOB NOT NULL
);
"""


class PublicationLike(Protocol):
    """Anything with the four publication fields (``topics.Publication`` fits)."""

    @property
    def topic(self) -> str: ...
    @property
    def payload(self) -> bytes | str: ...
    @property
    def qos(self) -> int: ...
    @property
    def retain(self) -> bool: ...


@dataclass(frozen=True, slots=True)
class OutboxItem:
    id: int
    topic: str
    payload: bytes
    qos: int
    retain: bool


@dataclass(frozen=True, slots=True)
class RetainedItem:
    topic: str
    payload: bytes
    qos: int


def _as_bytes(payload: bytes | str) -> bytes:
    return payload.encode("utf-8") if isinstance(payload, str) else payload


class Outbox(ClosesOnExit):
    """Durable FIFO of publications plus the retained-topic table. Not thread-safe."""

    def __init__(self, path: Path | str, *, synchronous: Synchronous = "FULL") -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        # isolation_level=None: we issue BEGIN/COMMIT ourselves, so one call = one transaction.
        self._db = sqlite3.connect(self.path, isolation_level=None)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute(f"PRAGMA synchronous={synchronous}")
        self._db.executescript(_SCHEMA)

    def append(
        self,
        publications: Iterable[PublicationLike],
        *,
        seq: int | None = None,
        state: Mapping[str, bytes | str] | None = None,
    ) -> list[int]:
        """Queue ``publications`` in order, atomically with ``seq`` and ``state``; return ids.

        A retained publication also replaces its topic's row in the retained table (an empty
        payload deletes it, as on the broker), and supersedes older *pending* publications of
        that topic: only the newest value of a retained topic is worth sending.
        """
        ids: list[int] = []
        with self._transaction() as db:
            for publication in publications:
                payload = _as_bytes(publication.payload)
                if publication.retain:
                    self._remember_retained(db, publication.topic, payload, publication.qos)
                cursor = db.execute(
                    "INSERT INTO outbox (topic, payload, qos, retain) VALUES (?, ?, ?, ?)",
                    (publication.topic, payload, publication.qos, int(publication.retain)),
                )
                assert cursor.lastrowid is not None
                ids.append(cursor.lastrowid)
            if seq is not None:
                db.execute("INSERT OR REPLACE INTO kv VALUES ('last_seq', ?)", (str(seq),))
            for key, value in (state or {}).items():
                db.execute("INSERT OR REPLACE INTO kv VALUES (?, ?)", (key, _as_bytes(value)))
        return ids

    @staticmethod
    def _remember_retained(db: sqlite3.Connection, topic: str, payload: bytes, qos: int) -> None:
        db.execute("DELETE FROM outbox WHERE topic = ? AND retain = 1", (topic,))
        if payload:
            db.execute("INSERT OR REPLACE INTO retained VALUES (?, ?, ?)", (topic, payload, qos))
        else:
            db.execute("DELETE FROM retained WHERE topic = ?", (topic,))

    def pending(self, limit: int | None = None) -> list[OutboxItem]:
        """Unacknowledged publications, oldest first."""
        rows = self._db.execute(
            "SELECT id, topic, payload, qos, retain FROM outbox ORDER BY id LIMIT ?",
            (-1 if limit is None else limit,),
        ).fetchall()
        return [OutboxItem(row[0], row[1], bytes(row[2]), row[3], bool(row[4])) for row in rows]

    def pending_count(self) -> int:
        (count,) = self._db.execute("SELECT count(*) FROM outbox").fetchone()
        return int(count)

    def ack(self, item_id: int) -> None:
        """The broker has the publication: forget it."""
        self.ack_many([item_id])

    def ack_many(self, item_ids: Iterable[int]) -> None:
        """Forget several publications in one transaction (one fsync instead of one each).

        A crash before this commits only means the broker gets them again: QoS 1 is
        at-least-once anyway and consumers dedupe by ``(boot_id, seq)``.
        """
        with self._transaction() as db:
            db.executemany("DELETE FROM outbox WHERE id = ?", ((item_id,) for item_id in item_ids))

    def retained(self) -> list[RetainedItem]:
        """The latest payload of every retained topic, to republish after each reconnect."""
        rows = self._db.execute("SELECT topic, payload, qos FROM retained ORDER BY topic")
        return [RetainedItem(row[0], bytes(row[1]), row[2]) for row in rows]

    def forget_retained(self, topic: str) -> None:
        with self._transaction() as db:
            db.execute("DELETE FROM retained WHERE topic = ?", (topic,))

    def last_seq(self) -> int | None:
        value = self.get("last_seq")
        return None if value is None else int(value)

    def get(self, key: str) -> bytes | None:
        row = self._db.execute("SELECT value FROM kv WHERE key = ?", (key,)).fetchone()
        return None if row is None else _as_bytes(row[0])

    def close(self) -> None:
        self._db.close()

    def _transaction(self) -> _Transaction:
        return _Transaction(self._db)


class _Transaction:
    def __init__(self, db: sqlite3.Connection) -> None:
        self._db = db

    def __enter__(self) -> sqlite3.Connection:
        self._db.execute("BEGIN IMMEDIATE")
        return self._db

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self._db.execute("COMMIT" if exc_type is None else "ROLLBACK")
