"""A journal record the bridge cannot process is skipped with an alert, live and on resume."""

from __future__ import annotations

import json

import pytest

from bughouse_bridge.bridge import Bridge
from bughouse_bridge.config import load_settings
from bughouse_bridge.daemon.app import Daemon
from bughouse_bridge.daemon.inputs import Received

POISON = b"\x99poison"


def make_daemon(tmp_path) -> Daemon:
    overrides = {
        "bridge_id": "t1",
        "match_id": "m1",
        "state_dir": str(tmp_path / "state"),
        "links": [{"name": "A", "port": str(tmp_path / "a")}, {"name": "B", "port": "/x/b"}],
    }
    return Daemon(load_settings(None, overrides=overrides))


@pytest.fixture
def buggy_receive(monkeypatch):
    """The bridge raises on one particular chunk, as a reconstructor bug would."""
    receive = Bridge.receive

    def receive_or_fail(self, link, data, now):
        if data == POISON:
            raise KeyError("bug")
        return receive(self, link, data, now)

    monkeypatch.setattr(Bridge, "receive", receive_or_fail)


def alerts(daemon: Daemon) -> list[dict]:
    events = [item for item in daemon.outbox.pending() if item.topic.endswith("/events")]
    payloads = [json.loads(item.payload) for item in events]
    return [p for p in payloads if p.get("type") == "alert"]


@pytest.mark.usefixtures("buggy_receive")
def test_a_failing_input_is_alerted_live_and_identically_on_resume(tmp_path):
    live = make_daemon(tmp_path)
    live.resume()
    live.core.route(live.core.prepare(Received("A", POISON, 1.0))())
    live.core.route(live.core.prepare(Received("B", b"\x8e", 2.0))())
    (alert,) = alerts(live)
    assert (alert["code"], alert["board"], alert["seq"]) == ("input_failed", "A", 1)
    assert alert["details"] == {"input": "rx", "link": "A", "error": "KeyError"}
    live_seq = live.bridge.last_seq
    live.journal.close()
    live.outbox.close()

    resumed = make_daemon(tmp_path)
    assert resumed.resume() == 3  # the boot mark, both chunks: nothing stops the start-up
    assert resumed.bridge.last_seq == live_seq
    resumed.journal.close()
    resumed.outbox.close()


@pytest.mark.usefixtures("buggy_receive")
def test_an_old_journal_with_a_failing_record_starts_and_alerts(tmp_path):
    old = make_daemon(tmp_path)
    old.journal.append_rx("A", POISON, 1.0)  # journalled, then the old process died on it
    old.journal.close()
    old.outbox.close()

    daemon = make_daemon(tmp_path)
    daemon.resume()
    (alert,) = alerts(daemon)
    assert alert["code"] == "input_failed"
    daemon.journal.close()
    daemon.outbox.close()
