"""``bughouse-bridge emulate``: the cross-board order at any speed, and ``--unplug``."""

from __future__ import annotations

import asyncio
import random
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from bughouse_bridge.bridge import Bridge, BridgeConfig, replay_chunks
from bughouse_bridge.bughouse.bpgn import parse_bpgn
from bughouse_bridge.bughouse.rules import get_preset
from bughouse_bridge.bughouse.types import BoardId
from bughouse_bridge.daemon.emulate import (
    UnplugSpec,
    board_configs,
    emulation_plan,
    parse_unplug,
    play_plan,
    unplug_actions,
)
from bughouse_bridge.data import bundled_game
from bughouse_bridge.drivers.pty_emulator import PtyEmulator
from bughouse_bridge.emulator.actions import Replug, TimedAction, Unplug
from bughouse_bridge.emulator.board import EmulatedBoard
from bughouse_bridge.emulator.playback import run_scenario
from bughouse_bridge.reconstruct import ReconstructorConfig


@pytest.mark.parametrize(
    ("text", "spec"),
    [
        ("A:30:10", UnplugSpec("A", 30.0, 10.0)),
        ("b:0:0.5", UnplugSpec("B", 0.0, 0.5)),
        ("A:12.5:40", UnplugSpec("A", 12.5, 40.0)),
    ],
)
def test_parse_unplug_reads_link_at_for(text, spec):
    assert parse_unplug(text) == spec


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("A:30", "not LINK:AT:FOR"),
        ("C:1:2", "must be A or B"),
        ("A:x:2", "are seconds"),
        ("A:-1:2", "AT must be >= 0"),
        ("A:1:0", "FOR > 0"),
        ("A:nan:2", "AT must be >= 0"),
        ("A:1:inf", "FOR > 0"),
    ],
)
def test_parse_unplug_names_what_is_wrong(text, reason):
    with pytest.raises(ValueError, match=reason):
        parse_unplug(text)


def test_unplug_actions_pull_and_replug_after_the_clock_start():
    actions = unplug_actions([UnplugSpec("A", 3.0, 2.0), UnplugSpec("B", 1.0, 4.0)], start=10.0)
    assert [(a.t, a.link, type(a.action)) for a in actions] == [
        (13.0, "A", Unplug),
        (15.0, "A", Replug),
        (11.0, "B", Unplug),
        (15.0, "B", Replug),
    ]
    assert all(isinstance(a, TimedAction) for a in actions)


def replayed_events(speed: float) -> tuple[list[dict], dict[BoardId, list[str]]]:
    game = parse_bpgn(bundled_game())[0]
    plan = emulation_plan(
        game,
        rules=get_preset("fics"),
        configs=board_configs("3000"),
        seed=2,
        speed=speed,
        with_host=True,
    )
    records = run_scenario(plan.scenario).records
    chunks = [(r.t, r.link, r.data) for r in records if r.direction == "rx"]
    bridge = Bridge(
        BridgeConfig(
            bridge_id="t",
            match_id="m",
            rules=get_preset("fics"),
            reconstructor=ReconstructorConfig(),
            links={"A": BoardId.A, "B": BoardId.B},
        )
    )
    events = list(replay_chunks(bridge, chunks).events)
    return events, {board: [m.san for m in game.moves if m.board is board] for board in BoardId}


@pytest.mark.parametrize("speed", [1.0, 40.0])
def test_emulate_keeps_the_cross_board_order_at_any_speed(speed):
    """At high speed the old pace dropped pieces before the capture that supplied them."""
    events, sans = replayed_events(speed)
    codes = [e["code"] for e in events if e["type"] == "alert"]
    assert "drop_not_in_pocket" not in codes
    for board in BoardId:
        moves = [e["san"] for e in events if e["type"] == "move" and e["board"] == board]
        assert moves == sans[board]


@pytest.mark.pty
async def test_unplug_pulls_the_pty_for_the_time_asked(tmp_path):
    game = parse_bpgn(bundled_game())[0]
    game = replace(game, moves=game.moves[:4])
    configs = board_configs("3000")
    plan = emulation_plan(game, rules=get_preset("fics"), configs=configs, seed=1, speed=8.0)
    runners = {
        link: PtyEmulator(
            EmulatedBoard(config, random.Random(link)),
            link=link,
            symlink=tmp_path / f"board-{link.lower()}",
        )
        for link, config in configs.items()
    }
    seen: list[tuple[bool, bool]] = []
    loop = asyncio.get_running_loop()
    pulls: list[float] = []  # when A's cable was pulled and plugged back, on the loop's clock
    for name in ("unplug", "replug"):
        action = getattr(runners["A"], name)
        setattr(runners["A"], name, lambda action=action: (pulls.append(loop.time()), action()))

    async def watch() -> None:
        while True:
            seen.append((runners["A"].connected, runners["B"].connected))
            await asyncio.sleep(0.05)

    try:
        extra = unplug_actions([UnplugSpec("A", 0.2, 0.6)], plan.start)
        watcher = asyncio.create_task(watch())
        await asyncio.wait_for(play_plan(plan, runners, announce=False, extra=extra), 60)
        watcher.cancel()
        link_target = (tmp_path / "board-a").resolve()
        assert link_target == Path(runners["A"].path)  # the symlink follows the new pty
    finally:
        for runner in runners.values():
            runner.close()
    pulled = [index for index, state in enumerate(seen) if state == (False, True)]
    assert pulled, "A was gone while B stayed"
    unplugged, replugged = pulls
    # For the 0.6 s asked (of emulated time: the game plays at 8x, the pull does not). Timed
    # by the actions themselves, not by counting samples, which a busy machine makes fewer.
    assert 0.55 <= replugged - unplugged <= 1.5
    assert seen[0] == seen[-1] == (True, True)  # plugged in before, plugged back in after


@pytest.mark.parametrize("value", ["C:1:1", "A:30", "A:1:0"])
def test_the_cli_refuses_a_bad_unplug_before_it_starts(tmp_path, value):
    game = tmp_path / "game.bpgn"
    game.write_text(bundled_game())
    argv = [str(Path(sys.executable).parent / "bughouse-bridge"), "emulate", str(game)]
    done = subprocess.run(
        [*argv, "--unplug", value], capture_output=True, text=True, timeout=60, check=False
    )
    assert done.returncode == 2
    assert "--unplug" in done.stderr
    assert value in done.stderr
