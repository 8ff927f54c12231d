"""Trace recorder, sd_notify over a real datagram socket, journald logging, the unit file."""

from __future__ import annotations

import io
import json
import logging
import os
import shutil
import socket
import subprocess
from pathlib import Path

import pytest

from bughouse_bridge.daemon import systemd
from bughouse_bridge.daemon.logging import JournalFormatter, setup_logging, syslog_priority
from bughouse_bridge.drivers.trace_recorder import TraceRecorder

ROOT = Path(__file__).parents[2]


class FakeClock:
    def __init__(self, now: float) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


def test_trace_recorder_writes_contract_lines(tmp_path):
    clock = FakeClock(100.0)
    path = tmp_path / "traces" / "game.jsonl"
    with TraceRecorder(path, meta={"rules": "dsj"}, clock=clock) as trace:
        trace.rx("A", b"\x8e\x00\x05\x34\x00", 100.5)
        trace.tx("B", b"\x42", 101.25)
        trace.rx("A", b"", 101.5)  # nothing to record
        trace.rx("A", b"\x01", 101.0)  # stamped out of order: t never goes backwards
        # Line-buffered: readable before close, as a crash would leave it.
        lines = path.read_text().splitlines()
    assert json.loads(lines[0]) == {"trace": 1, "meta": {"rules": "dsj"}}
    records = [json.loads(line) for line in lines[1:]]
    assert records == [
        {"t": 0.5, "link": "A", "dir": "rx", "hex": "8e00053400"},
        {"t": 1.25, "link": "B", "dir": "tx", "hex": "42"},
        {"t": 1.25, "link": "A", "dir": "rx", "hex": "01"},
    ]


@pytest.fixture
def notify_socket(tmp_path, monkeypatch):
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    path = tmp_path / "notify.sock"
    sock.bind(str(path))
    sock.settimeout(2)
    monkeypatch.setenv("NOTIFY_SOCKET", str(path))
    yield sock
    sock.close()


def test_sd_notify_messages(notify_socket):
    assert systemd.ready("boards: 0/2") is True
    assert notify_socket.recv(1024) == b"READY=1\nSTATUS=boards: 0/2"
    assert systemd.watchdog() is True
    assert notify_socket.recv(1024) == b"WATCHDOG=1"
    assert systemd.status("broker up\nboard A ok") is True
    assert notify_socket.recv(1024) == b"STATUS=broker up board A ok"
    assert systemd.stopping() is True
    assert notify_socket.recv(1024) == b"STOPPING=1"


def test_sd_notify_abstract_socket(monkeypatch):
    name = f"bughouse-test-{os.getpid()}"
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as sock:
        sock.bind("\0" + name)
        sock.settimeout(2)
        monkeypatch.setenv("NOTIFY_SOCKET", "@" + name)
        assert systemd.ready() is True
        assert sock.recv(1024) == b"READY=1"


def test_sd_notify_is_a_noop_without_systemd(monkeypatch, tmp_path):
    monkeypatch.delenv("NOTIFY_SOCKET", raising=False)
    assert systemd.ready() is False
    assert systemd.watchdog() is False
    monkeypatch.setenv("NOTIFY_SOCKET", str(tmp_path / "gone.sock"))  # stale: still no crash
    assert systemd.watchdog() is False


def test_watchdog_interval(monkeypatch):
    monkeypatch.delenv("WATCHDOG_PID", raising=False)
    monkeypatch.delenv("WATCHDOG_USEC", raising=False)
    assert systemd.watchdog_interval() is None
    monkeypatch.setenv("WATCHDOG_USEC", "15000000")
    assert systemd.watchdog_interval() == 7.5
    monkeypatch.setenv("WATCHDOG_PID", "1")  # meant for another process
    assert systemd.watchdog_interval() is None
    monkeypatch.setenv("WATCHDOG_PID", str(os.getpid()))
    assert systemd.watchdog_interval() == 7.5
    monkeypatch.setenv("WATCHDOG_USEC", "garbage")
    assert systemd.watchdog_interval() is None


def test_journal_formatter_prefixes_every_line():
    assert syslog_priority(logging.ERROR) == 3
    assert syslog_priority(logging.WARNING) == 4
    assert syslog_priority(logging.INFO) == 6
    assert syslog_priority(logging.DEBUG) == 7
    record = logging.LogRecord("bridge", logging.WARNING, __file__, 1, "two\nlines", None, None)
    assert JournalFormatter().format(record) == "<4>bridge: two\n<4>lines"


def test_setup_logging_detects_the_journal_stream(tmp_path, monkeypatch):
    root = logging.getLogger()
    saved_handlers, saved_level = list(root.handlers), root.level
    try:
        with (tmp_path / "stream").open("w+") as stream:
            info = os.fstat(stream.fileno())
            monkeypatch.setenv("JOURNAL_STREAM", f"{info.st_dev}:{info.st_ino}")
            setup_logging("info", stream=stream)
            logging.getLogger("bughouse").warning("board A lost")
            stream.seek(0)
            assert stream.read() == "<4>bughouse: board A lost\n"
        monkeypatch.delenv("JOURNAL_STREAM")
        human = io.StringIO()
        setup_logging("debug", stream=human)
        logging.getLogger("bughouse").info("hello")
        assert "INFO    bughouse: hello" in human.getvalue()
    finally:
        for handler in list(root.handlers):
            root.removeHandler(handler)
        for handler in saved_handlers:
            root.addHandler(handler)
        root.setLevel(saved_level)


def test_unit_file_has_the_required_settings():
    unit = (ROOT / "systemd/bughouse-bridge.service").read_text()
    for line in (
        "Type=notify",
        "NotifyAccess=main",
        "WatchdogSec=15",
        "Restart=on-failure",
        "DynamicUser=yes",
        "SupplementaryGroups=dialout",
        "DevicePolicy=closed",
        "DeviceAllow=char-ttyACM rw",
        "DeviceAllow=char-ttyUSB rw",
        "LoadCredential=mqtt_password:/etc/bughouse-bridge/mqtt_password",
    ):
        assert line in unit.splitlines()
    assert not [line for line in unit.splitlines() if line.startswith("PrivateDevices")]


@pytest.mark.skipif(shutil.which("systemd-analyze") is None, reason="no systemd-analyze")
def test_systemd_analyze_verify_accepts_the_unit(tmp_path):
    unit = (ROOT / "systemd/bughouse-bridge.service").read_text()
    # verify checks that ExecStart exists: point it at a stand-in in a temporary copy.
    fake_exec = tmp_path / "bughouse-bridge"
    fake_exec.write_text("#!/bin/sh\n")
    fake_exec.chmod(0o755)
    unit = unit.replace("/opt/bughouse-bridge/venv/bin/bughouse-bridge", str(fake_exec))
    copy = tmp_path / "bughouse-bridge.service"
    copy.write_text(unit)
    result = subprocess.run(
        ["systemd-analyze", "verify", "--man=no", str(copy)],
        capture_output=True,
        text=True,
        check=False,
    )
    problems = [
        line
        for line in result.stderr.splitlines()
        if "bughouse-bridge.service" in line and "Failed to" not in line
        # containers without a running systemd complain about the environment, not the unit
    ]
    assert result.returncode == 0 or not problems, result.stderr
    assert not [line for line in problems if "Unknown key" in line or "Invalid" in line]
