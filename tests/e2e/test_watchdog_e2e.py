"""systemd supervision of a daemon whose boards are silent: READY, regular WATCHDOG pings from a
healthy idle core, STOPPING at the end — through a real notify socket."""

from __future__ import annotations

import asyncio
import socket

import pytest
from e2e_harness import SHARED_PORT, running_daemon, settings_overrides, unique_id

from bughouse_bridge.daemon import systemd

pytestmark = [pytest.mark.broker]


async def test_an_idle_daemon_keeps_the_systemd_watchdog_fed(tmp_path, monkeypatch):
    notify = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    notify.bind(str(tmp_path / "notify"))
    notify.setblocking(False)
    monkeypatch.setenv("NOTIFY_SOCKET", str(tmp_path / "notify"))
    monkeypatch.setenv("WATCHDOG_USEC", "200000")  # a ping every 0.1 s
    monkeypatch.delenv("WATCHDOG_PID", raising=False)
    name = unique_id("watchdog")
    overrides = settings_overrides(
        workdir=tmp_path,
        port=SHARED_PORT,
        root=f"test/{name}",
        bridge=name,
        match=name,
        links={"A": str(tmp_path / "no-board-a"), "B": str(tmp_path / "no-board-b")},
    )
    received: list[str] = []

    async def listen() -> None:  # read as systemd does, while the daemon runs
        loop = asyncio.get_running_loop()
        while True:
            received.append((await loop.sock_recv(notify, 4096)).decode())

    listener = asyncio.create_task(listen())
    async with running_daemon(overrides):
        await asyncio.sleep(1.5)  # no board answers: nothing reaches the core at all
    await asyncio.sleep(0.2)
    listener.cancel()
    notify.close()
    pings = [message for message in received if "WATCHDOG=1" in message]
    assert any("READY=1" in message for message in received)
    assert len(pings) >= 8, received
    assert any("STOPPING=1" in message for message in received)


def test_a_full_notification_queue_never_blocks(tmp_path, monkeypatch):
    silent = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    silent.bind(str(tmp_path / "notify"))  # nobody reads: the queue fills after a few messages
    monkeypatch.setenv("NOTIFY_SOCKET", str(tmp_path / "notify"))
    sent = [systemd.watchdog() for _ in range(200)]
    silent.close()
    assert sent[0] is True
    assert sent[-1] is False  # dropped, not blocked
