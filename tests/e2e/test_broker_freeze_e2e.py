"""A broker that stops answering while the daemon stops: the stop is bounded, nothing is lost.

The broker is frozen with SIGSTOP: its TCP connections stay open, so publishes neither fail
nor are acknowledged (a hung broker, a half-dead network path). The daemon is asked to stop
meanwhile. It must exit within its grace (``STOP_GRACE``: the MQTT drain is cancelled and
the outbox keeps what was not acknowledged), and the next start must deliver every event the
frozen broker never acknowledged, with its original ``seq``.
"""

from __future__ import annotations

import asyncio
import os
import signal
import time
from typing import TYPE_CHECKING

import pytest
from e2e_harness import (
    Subscriber,
    Table,
    config_toml,
    dedupe,
    expected_by_board,
    moves_by_board,
    settings_overrides,
    the_game,
    unique_id,
)
from test_process_e2e import RESTART_SPEED, _start

from bughouse_bridge.daemon.app import STOP_GRACE
from bughouse_bridge.drivers.outbox import Outbox

if TYPE_CHECKING:
    from pathlib import Path

    from bughouse_bridge.emulator.game import GamePlan
    from private_mosquitto import Mosquitto

MOVES = 24
# The stop's bound: the grace, the offline notice's own 2 s, and process exit on a busy machine.
STOP_BOUND = STOP_GRACE + 12.0


@pytest.mark.pty
@pytest.mark.broker
@pytest.mark.slow
@pytest.mark.timeout(180)
async def test_a_broker_that_stops_answering_neither_holds_the_stop_nor_loses_an_event(
    tmp_path, mosquitto: Mosquitto
):
    table = Table(tmp_path)
    assert mosquitto.process is not None
    broker_pid = mosquitto.process.pid
    try:
        overrides = settings_overrides(
            workdir=tmp_path,
            port=mosquitto.port,
            root=f"test/{unique_id('freeze')}",
            bridge=unique_id("bridge"),
            match=unique_id("match"),
            links=table.links,
        )
        config = tmp_path / "bridge.toml"
        config.write_text(config_toml(overrides))
        events_topic = f"{overrides['mqtt.root']}/match/{overrides['match_id']}/events"
        game = the_game(MOVES)
        plan = table.plan(game, speed=RESTART_SPEED)
        freeze_at = plan.moves[len(plan.moves) // 3].pressed + 0.1
        stop_at = plan.moves[2 * len(plan.moves) // 3].pressed + 0.1
        async with Subscriber(mosquitto.port, [events_topic], persistent=True) as sub:
            seen_before_freeze = await _first_box_stopped_with_the_broker_frozen(
                table, plan, config, broker_pid, freeze_at=freeze_at, stop_at=stop_at, sub=sub
            )
            second = await _start(config, tmp_path / "second.trace.jsonl")
            try:
                await table.wait_for_host()
                table.resume_held()
                await table.finished(plan)
                await sub.wait_for(
                    lambda: moves_by_board(dedupe(sub.events())) == expected_by_board(game),
                    30,
                    "every move of the game, those the frozen broker lost included",
                )
            finally:
                second.terminate()
                _, stderr = await second.communicate()
            assert second.returncode == 0, stderr.decode()
        events = dedupe(sub.events())
    finally:
        table.close()
    assert seen_before_freeze > 0
    seqs = [event["seq"] for event in events]
    assert seqs == list(range(1, len(seqs) + 1)), f"seq gap-free across the stop: {seqs}"
    assert moves_by_board(events) == expected_by_board(game)
    alerts = [(e["board"], e["code"], e["message"]) for e in events if e["type"] == "alert"]
    assert not alerts


async def _first_box_stopped_with_the_broker_frozen(  # noqa: PLR0913 - the scene's parts
    table: Table,
    plan: GamePlan,
    config: Path,
    broker_pid: int,
    *,
    freeze_at: float,
    stop_at: float,
    sub: Subscriber,
) -> int:
    """The first daemon plays until ``freeze_at``, the broker freezes, play goes on until
    ``stop_at`` (the players then think), and the daemon is stopped: within its bound, with
    what the broker never acknowledged kept. Returns the events seen before the freeze."""
    first = await _start(config, config.parent / "first.trace.jsonl")
    await table.wait_for_host()
    table.start(plan, hold_after=stop_at)
    await _until(table, freeze_at)
    seen_before_freeze = len(dedupe(sub.events()))
    os.kill(broker_pid, signal.SIGSTOP)
    try:
        await _until(table, stop_at + 1.0)  # moves read, published, never acknowledged
        asked = time.monotonic()
        first.terminate()
        _, stderr = await asyncio.wait_for(first.communicate(), 3 * STOP_BOUND)
        took = time.monotonic() - asked
    finally:
        os.kill(broker_pid, signal.SIGCONT)
    log = stderr.decode(errors="replace")
    assert first.returncode == 0, log
    assert took < STOP_BOUND, f"the stop took {took:.1f} s:\n{log}"
    assert _unacknowledged(config.parent / "state" / "outbox.sqlite") > 0, "the outbox keeps them"
    for runner in table.runners.values():
        runner.host_seen.clear()  # the next start is awaited before play resumes
    return seen_before_freeze


def _unacknowledged(path: Path) -> int:
    outbox = Outbox(path)
    try:
        return outbox.pending_count()
    finally:
        outbox.close()


async def _until(table: Table, plan_t: float) -> None:
    await asyncio.sleep(max(0.0, table.offset + plan_t - table.runners["A"].now()))
