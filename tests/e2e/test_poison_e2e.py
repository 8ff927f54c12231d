"""Poisoned arbiter requests against the real daemon process (ptys + mosquitto).

Each payload once crashed the daemon, and since it had been journalled first, every restart
replayed it and crashed again. Now each is answered ``ok: false``, the daemon keeps answering
``status``, and a restart — even over a journal that already holds such a request, as one written
by an older version would — comes back with the same state and numbering.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import signal
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import aiomqtt
import pytest
from e2e_harness import Subscriber, Table, config_toml, settings_overrides, unique_id

pytestmark = [pytest.mark.pty, pytest.mark.broker, pytest.mark.timeout(150)]

CLI = str(Path(sys.executable).parent / "bughouse-bridge")

POISON: list[tuple[str, bytes]] = [
    ("status", b"[" * 50_000 + b"]" * 50_000),
    ("set_result", b'{"winner": null, "board": "A", "reason": "' + b"[" * 3000 + b'"}'),
    ("takeback", b'{"board": ' + b"9" * 5000 + b"}"),
    ("status", b'{"transaction": 1' + b"0" * 5000 + b"}"),
    ("set_result", b'{"transaction": "\\ud800", "winner": null, "board": "A", "reason": "x"}'),
    ("set_result", b'{"winner": null, "board": "A", "reason": "\\udfff"}'),
    ("accept", b'{"board": "A", "\\ud83d": 1}'),
    ("resync", b'{"board": NaN}'),
    ("takeback", b"\xed\xa0\x80\xff"),
    ("new_game", b" " * 100_000),
    ("\u00e9" * 300, b"{}"),
]


def journalled_commands(state_dir: Path) -> list[str]:
    with sqlite3.connect(state_dir / "journal.sqlite") as db:
        rows = db.execute("SELECT text FROM entries WHERE kind = 'command' ORDER BY id")
        return [row[0] for row in rows]


def plant_poison_in_journal(state_dir: Path) -> None:
    """What an older version journalled before it crashed on the request."""
    with sqlite3.connect(state_dir / "journal.sqlite") as db:
        db.execute(
            "INSERT INTO entries (kind, t, data, text) VALUES ('command', "
            "(SELECT max(t) FROM entries), ?, 'takeback')",
            (b'{"board": ' + b"9" * 5000 + b"}",),
        )


async def start(
    config: Path, started: list[asyncio.subprocess.Process]
) -> asyncio.subprocess.Process:
    """The daemon as a user starts it; ``started`` keeps it for ``kill_left_running``."""
    process = await asyncio.create_subprocess_exec(
        CLI, "run", "--config", str(config), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    started.append(process)
    return process


async def stop(process: asyncio.subprocess.Process) -> str:
    """SIGTERM, as systemd stops it: a clean exit well within systemd's stop timeout. If it
    hangs, its log so far tells where (the daemon logs each step of its shutdown)."""
    process.send_signal(signal.SIGTERM)
    communicating = asyncio.ensure_future(process.communicate())
    done, _ = await asyncio.wait({communicating}, timeout=30)
    if not done:
        process.kill()
        _, stderr = await communicating
        raise AssertionError("no exit 30 s after SIGTERM:\n" + stderr.decode()[-5000:])
    _, stderr = communicating.result()
    assert process.returncode == 0, stderr.decode()[-3000:]
    return stderr.decode()


async def kill_left_running(daemons: list[asyncio.subprocess.Process]) -> None:
    """A test that fails half-way leaves no daemon behind."""
    for daemon in daemons:
        if daemon.returncode is None:
            daemon.kill()
            await daemon.wait()


async def test_poisoned_requests_are_refused_and_the_daemon_restarts_cleanly(
    tmp_path, shared_broker
):
    table = Table(tmp_path)
    overrides = settings_overrides(
        workdir=tmp_path,
        port=shared_broker,
        root=f"test/{unique_id('poison')}",
        bridge=unique_id("bridge"),
        match=unique_id("match"),
        links=table.links,
    )
    config = tmp_path / "bridge.toml"
    config.write_text(config_toml(overrides))
    base = f"{overrides['mqtt.root']}/bridge/{overrides['bridge_id']}"
    state_dir = Path(overrides["state_dir"])
    daemons: list[asyncio.subprocess.Process] = []  # killed if the test fails half-way
    try:
        async with (
            Subscriber(shared_broker, [f"{base}/response/#"]) as sub,
            aiomqtt.Client("127.0.0.1", shared_broker) as client,
        ):

            async def ask(verb: str, payload: bytes) -> dict[str, Any]:
                count = len(sub.on(f"/response/{verb}"))
                await client.publish(f"{base}/request/{verb}", payload, qos=1)
                await sub.wait_for(lambda: len(sub.on(f"/response/{verb}")) > count, 20, verb)
                answer: dict[str, Any] = sub.on(f"/response/{verb}")[count].json()
                return answer

            async def ask_until_answered(process: asyncio.subprocess.Process) -> dict[str, Any]:
                """A request sent before the restarted daemon subscribed is lost: ask again."""
                for attempt in range(30):
                    assert process.returncode is None, "the restarted daemon died"
                    await client.publish(
                        f"{base}/request/status", b'{"transaction": %d}' % attempt, qos=1
                    )
                    with contextlib.suppress(AssertionError):
                        await sub.wait_for(functools.partial(answered, attempt), 2.0, "status")
                        answer: dict[str, Any] = answered(attempt)[0].json()
                        return answer
                raise AssertionError("the restarted daemon never answered status")

            def answered(attempt: int) -> list[Any]:
                return [m for m in sub.on("/response/status") if m.json()["transaction"] == attempt]

            first = await start(config, daemons)
            await table.wait_for_host()
            before = await ask("status", b'{"transaction": "before"}')
            assert before["ok"] is True
            for verb, payload in POISON:
                answer = await ask(verb, payload)
                assert answer["ok"] is False, (verb, payload[:60], answer)
                assert first.returncode is None, "the daemon died"
            during = await ask("status", b'{"transaction": "during"}')
            assert during["ok"] is True
            assert during["state"]["last_seq"] == before["state"]["last_seq"]
            log = await stop(first)
            assert "Traceback" not in log
            assert journalled_commands(state_dir) == []  # refused requests are never replayed

            plant_poison_in_journal(state_dir)
            second = await start(config, daemons)
            after = await ask_until_answered(second)
            assert after["ok"] is True
            # The restart adds only the links' own events (lost at the stop, back now).
            assert after["state"]["last_seq"] >= before["state"]["last_seq"]
            assert after["state"]["pockets"] == before["state"]["pockets"]
            assert after["state"]["boards"]["B"]["fen"] == before["state"]["boards"]["B"]["fen"]
            assert after["state"]["boards"]["A"]["fen"] == before["state"]["boards"]["A"]["fen"]
            await stop(second)
    finally:
        await kill_left_running(daemons)
        table.close()
