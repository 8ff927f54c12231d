"""Outbox and journal: order, atomicity, retained table, survival of SIGKILL, append speed."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING

from bughouse_bridge.drivers.journal import EntryKind, Journal
from bughouse_bridge.drivers.outbox import Outbox

if TYPE_CHECKING:
    from pathlib import Path


@dataclass(frozen=True)
class Pub:
    topic: str
    payload: bytes | str
    qos: int = 1
    retain: bool = False


def test_pending_in_order_and_ack(tmp_path):
    with Outbox(tmp_path / "outbox.db") as outbox:
        ids = outbox.append([Pub("e", f"{n}") for n in range(5)], seq=5)
        assert [item.payload for item in outbox.pending()] == [b"0", b"1", b"2", b"3", b"4"]
        outbox.ack(ids[0])
        outbox.ack(ids[1])
        assert [item.id for item in outbox.pending()] == ids[2:]
        assert outbox.pending(limit=1)[0].id == ids[2]
        assert outbox.last_seq() == 5
        assert outbox.pending_count() == 3


def test_retained_table_keeps_latest_and_supersedes_pending(tmp_path):
    with Outbox(tmp_path / "outbox.db") as outbox:
        outbox.append([Pub("events", "1"), Pub("state", "s1", retain=True)], seq=1)
        outbox.append([Pub("events", "2"), Pub("state", "s2", retain=True)], seq=2)
        pending = outbox.pending()
        assert [(item.topic, item.payload) for item in pending] == [
            ("events", b"1"),
            ("events", b"2"),
            ("state", b"s2"),
        ]
        assert [(item.topic, item.payload) for item in outbox.retained()] == [("state", b"s2")]
        outbox.append([Pub("state", b"", retain=True)])  # an empty retained payload clears
        assert outbox.retained() == []


def test_append_is_atomic_with_seq_and_state(tmp_path):
    outbox = Outbox(tmp_path / "outbox.db")
    outbox.append([Pub("e", "1")], seq=1, state={"match": "snapshot-1"})

    class Boom:
        topic = "e"
        qos = 1
        retain = False

        @property
        def payload(self) -> bytes:
            raise RuntimeError("boom")

    with contextlib.suppress(RuntimeError):
        outbox.append([Pub("e", "2"), Boom()], seq=2, state={"match": "snapshot-2"})
    assert [item.payload for item in outbox.pending()] == [b"1"]
    assert outbox.last_seq() == 1
    assert outbox.get("match") == b"snapshot-1"
    outbox.close()


WRITER = """
import sys
from dataclasses import dataclass
from bughouse_bridge.drivers.outbox import Outbox
from bughouse_bridge.drivers.journal import Journal

@dataclass
class Pub:
    topic: str
    payload: str
    qos: int = 1
    retain: bool = False

outbox = Outbox(sys.argv[1])
journal = Journal(sys.argv[2])
seq = 0
while True:
    seq += 1
    journal.append_rx("A", b"chunk%d" % seq, float(seq))
    journal.flush()  # inputs first, then the events derived from them
    outbox.append([Pub("events", str(seq)), Pub("state", str(seq), retain=True)], seq=seq)
    if seq == 50:
        print("ready", flush=True)
"""


def test_outbox_and_journal_survive_sigkill(tmp_path):
    outbox_path, journal_path = tmp_path / "outbox.db", tmp_path / "journal.db"
    process = subprocess.Popen(
        [sys.executable, "-c", WRITER, str(outbox_path), str(journal_path)],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert process.stdout is not None
    assert process.stdout.readline().strip() == "ready"
    time.sleep(0.2)
    os.kill(process.pid, signal.SIGKILL)
    process.wait()
    with Outbox(outbox_path) as outbox, Journal(journal_path) as journal:
        last = outbox.last_seq()
        assert last is not None
        assert last >= 50
        events = [int(item.payload) for item in outbox.pending() if item.topic == "events"]
        assert events == list(range(1, last + 1))  # complete and in order, no torn batch
        assert [item.payload for item in outbox.retained()] == [str(last).encode()]
        chunks = [entry.data for entry in journal.entries()]
        # Every published event's input is in the journal (maybe one more, never one less).
        assert chunks[:last] == [b"chunk%d" % n for n in range(1, last + 1)]


def test_journal_entries_round_trip_and_reset(tmp_path):
    with Journal(tmp_path / "journal.db") as journal:
        journal.begin_boot("boot-1", 0.0)
        journal.append_link_state("A", connected=True, t=0.1, details="/dev/ttyACM0")
        journal.append_rx("A", b"\x8e\x00\x05\x34\x00", 0.2)
        journal.append_tx("A", b"\x42", 0.25)
        journal.append_command("takeback", b'{"transaction":"1"}', 0.3)
        journal.append_timer(0.5)
        journal.clock_offset = 1234.5
        entries = list(journal.entries())
        assert [entry.kind for entry in entries] == [
            EntryKind.BOOT,
            EntryKind.LINK,
            EntryKind.RX,
            EntryKind.TX,
            EntryKind.COMMAND,
            EntryKind.TIMER,
        ]
        assert entries[1].connected is True
        assert entries[2].data == b"\x8e\x00\x05\x34\x00"
        assert entries[4].text == "takeback"
        assert journal.last_t() == 0.5
        assert journal.boot_ids() == ["boot-1"]
        assert journal.clock_offset == 1234.5
        journal.reset()
        assert list(journal.entries()) == []
        assert journal.clock_offset is None
    with Journal(tmp_path / "journal.db") as reopened:
        assert list(reopened.entries()) == []


async def test_journal_commits_buffered_entries_within_the_interval(tmp_path):
    journal = Journal(tmp_path / "journal.db", commit_interval=0.05)
    journal.append_rx("A", b"x", 1.0)
    other = Journal(tmp_path / "journal.db")  # another connection sees only committed rows
    assert list(other._db.execute("SELECT count(*) FROM entries")) == [(0,)]
    await asyncio.sleep(0.15)
    assert list(other._db.execute("SELECT count(*) FROM entries")) == [(1,)]
    other.close()
    journal.close()


async def test_journal_is_fast_enough_for_every_serial_chunk(tmp_path):
    journal = Journal(tmp_path / "journal.db")
    start = time.perf_counter()
    for n in range(5000):
        journal.append_rx("A", b"\x8e\x00\x05\x34\x00", n * 0.001)
    journal.flush()
    elapsed = time.perf_counter() - start
    print(f"journal: 5000 appends in {elapsed * 1000:.1f} ms")
    assert elapsed < 2.0
    assert sum(1 for _ in journal.entries()) == 5000
    journal.close()


def test_outbox_append_rate(tmp_path):
    outbox = Outbox(tmp_path / "outbox.db")
    start = time.perf_counter()
    for seq in range(1, 201):
        outbox.append([Pub("events", "{}"), Pub("state", "{}", retain=True)], seq=seq)
    elapsed = time.perf_counter() - start
    print(f"outbox: 200 event+state transactions (synchronous=FULL) in {elapsed * 1000:.1f} ms")
    assert elapsed < 10.0
    outbox.close()


def test_paths_are_created(tmp_path: Path):
    Outbox(tmp_path / "deep" / "er" / "outbox.db").close()
    Journal(tmp_path / "deep" / "journal.db").close()
