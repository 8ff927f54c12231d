"""The real CLI as a subprocess: SIGKILL and resume, broken config files, the demo command."""

from __future__ import annotations

import asyncio
import re
import signal
import subprocess
import sys
import urllib.request
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from e2e_harness import (
    FAST_SPEED,
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

if TYPE_CHECKING:
    from bughouse_bridge.emulator.game import GamePlan

CLI = str(Path(sys.executable).parent / "bughouse-bridge")
PREFIX = 36
RESTART_SPEED = FAST_SPEED / 2
EXACT_WITHIN = 5.0  # issue 8: back this many seconds of play later, the game continues exactly


async def _start(config: Path, record: Path) -> asyncio.subprocess.Process:
    """The daemon as systemd runs it; its trace is kept so that a failure can be replayed."""
    return await asyncio.create_subprocess_exec(
        CLI,
        "run",
        "--config",
        str(config),
        "--record",
        str(record),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )


async def _kill_mid_game(
    table: Table, plan: GamePlan, config: Path, *, kill_at: float, back_at: float
) -> None:
    """Start the daemon, play until ``kill_at``, SIGKILL it; the play after ``back_at`` waits."""
    first = await _start(config, config.parent / "first.trace.jsonl")
    await table.wait_for_host()
    table.start(plan, hold_after=back_at)
    await asyncio.sleep(max(0.0, table.offset + kill_at - table.runners["A"].now()))
    first.kill()
    assert await first.wait() == -9
    for runner in table.runners.values():
        runner.host_seen.clear()


@pytest.mark.pty
@pytest.mark.broker
@pytest.mark.slow
@pytest.mark.timeout(180)
@pytest.mark.parametrize("down_for", [5.0, 30.0], ids=["back-5s-later", "back-30s-later"])
async def test_sigkill_mid_game_resumes_with_seq_continuing(tmp_path, shared_broker, down_for):
    """kill -9 a third into the game; the box is back ``down_for`` seconds of play later.

    The game is played RESTART_SPEED times faster than the real one, so the play missed is
    ``down_for / RESTART_SPEED`` seconds of the plan; after that the players think (the clocks
    run, nothing moves) until the new process reads the boards: how long a start-up takes on a
    busy machine is not part of the game. Duplicates are allowed only as QoS-1 redeliveries of
    the same (boot_id, seq), which the contract tells consumers to drop; after that the stream
    must be 1..N with no seq twice, and every move of the game must be there.
    """
    table = Table(tmp_path)
    try:
        overrides = settings_overrides(
            workdir=tmp_path,
            port=shared_broker,
            root=f"test/{unique_id('sigkill')}",
            bridge=unique_id("bridge"),
            match=unique_id("match"),
            links=table.links,
        )
        config = tmp_path / "bridge.toml"
        config.write_text(config_toml(overrides))
        events_topic = f"{overrides['mqtt.root']}/match/{overrides['match_id']}/events"
        game = the_game(PREFIX)
        plan = table.plan(game, speed=RESTART_SPEED)
        kill_at = plan.moves[len(plan.moves) // 3].pressed + 0.1
        back_at = kill_at + down_for / RESTART_SPEED
        missed = [m for m in plan.moves if kill_at < m.pressed <= back_at]
        assert missed, "the box is down while moves are made"
        async with Subscriber(shared_broker, [events_topic], persistent=True) as sub:
            await _kill_mid_game(table, plan, config, kill_at=kill_at, back_at=back_at)
            killed_after = len(dedupe(sub.events()))
            second = await _start(config, tmp_path / "second.trace.jsonl")
            try:
                await table.wait_for_host()
                table.resume_held()
                await table.finished(plan)
                await sub.wait_for(
                    lambda: (
                        _tails(moves_by_board(dedupe(sub.events())))
                        == _tails(expected_by_board(game))
                    ),
                    30,
                    "the last move of each board after the restart",
                )
                await asyncio.sleep(1.0)
            finally:
                second.terminate()
                _, stderr = await second.communicate()
            assert second.returncode == 0, stderr.decode()
        raw = sub.events()
    finally:
        table.close()
    events = dedupe(raw)
    boots = list(dict.fromkeys(e["boot_id"] for e in events))
    assert len(boots) == 2, "a new boot_id after the restart"
    seqs = [e["seq"] for e in events]
    assert seqs == list(range(1, len(seqs) + 1)), f"seq gap-free across boots: {seqs}"
    first_boot = [e["seq"] for e in events if e["boot_id"] == boots[0]]
    second_boot = [e["seq"] for e in events if e["boot_id"] == boots[1]]
    assert killed_after > 0
    assert second_boot
    assert max(first_boot) < min(second_boot), "the new boot continues the old one's numbering"
    alerts = [e for e in events if e["type"] == "alert"]
    if down_for <= EXACT_WITHIN:
        assert moves_by_board(events) == expected_by_board(game)
        assert not alerts, [(a["code"], a["t"], a["message"]) for a in alerts]  # a clean recovery
    else:  # 30 s: recovered, or handed to the arbiter; every later move exact either way
        _assert_exact_or_offered(events, expected_by_board(game))
        assert {a["code"] for a in alerts} <= {"gap_ambiguous"}, alerts


def _tails(sans_by_board: dict[str, list[str]]) -> dict[str, list[str]]:
    """The last move of each board."""
    return {board: sans[-1:] for board, sans in sans_by_board.items()}


def _assert_exact_or_offered(events: list[dict[str, Any]], expected: dict[str, list[str]]) -> None:
    """Every move is published; or the plies of the gap are not, and ``gap_ambiguous`` alerts
    hand them to the arbiter (one per gap: the boards may come back apart, one gap each): what
    is published is the game with one block of plies missing per board, a complete search
    (verdict ``ambiguous``) offers the true block of its boards, and the moves played since
    may recommend a candidate (contract §3): the true one."""
    published = moves_by_board(events)
    gap_news = [e for e in events if e["type"] == "alert" and e["code"] == "gap_ambiguous"]
    recommended = [e["details"] for e in gap_news if "recommended" in e["details"]]
    # The tally of issue 19 (recovered with no arbiter decision; or one click on the candidate
    # the later moves recommend): run with -s to read it.
    outcome = "recovered" if published == expected else "recommended" if recommended else "arbiter"
    print("restart outcome:", outcome)
    if published == expected:
        return
    missing = {}
    for board, sans in expected.items():
        got = published[board]
        kept = next(
            (i for i, (a, b) in enumerate(zip(got, sans, strict=False)) if a != b),
            min(len(got), len(sans)),
        )
        after = len(got) - kept
        assert got == sans[:kept] + sans[len(sans) - after :], f"board {board}: {got}"
        missing[board] = sans[kept : len(sans) - after]
    opened = {e["details"]["gap"]: e["details"] for e in gap_news if "verdict" in e["details"]}
    assert opened, f"plies missing ({missing}) and no gap left to the arbiter: {gap_news}"
    truths = {gap: _truth_of(details, missing) for gap, details in opened.items()}
    for gap, details in opened.items():
        if details["verdict"] == "ambiguous":
            offered = [c["san"] for c in details["candidates"]]
            assert truths[gap] in offered, (gap, truths[gap], offered)
    for details in recommended:
        assert details["recommended"]["san"] == truths[details["gap"]], (details, truths)


def _truth_of(gap: dict[str, Any], missing: dict[str, list[str]]) -> dict[str, list[str]]:
    """The true block of plies of the boards ``gap``'s candidates are about."""
    boards = {b for c in gap["candidates"] for b, sans in c["san"].items() if sans}
    return {board: sans if board in boards else [] for board, sans in missing.items()}


CONFIG_CASES = {
    "typo-key": ('bridge_idd = "x"\n', "bridge_idd"),
    "wrong-type": ('[mqtt]\nport = "not a port"\n', "mqtt.port"),
    "malformed-toml": ("[mqtt\nport = 1883\n", None),
}


@pytest.mark.parametrize("check", [True, False], ids=["check-config", "run"])
@pytest.mark.parametrize("case", sorted(CONFIG_CASES))
def test_broken_config_exits_2_naming_key_and_file(tmp_path, case, check):
    text, key = CONFIG_CASES[case]
    config = tmp_path / f"{case}.toml"
    config.write_text(text)
    argv = [CLI, "run", "--config", str(config), *(["--check-config"] if check else [])]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=30, check=False)
    assert done.returncode == 2, done.stderr
    assert str(config) in done.stderr
    if key is not None:
        assert key in done.stderr
    assert "Traceback" not in done.stderr


@pytest.mark.parametrize("check", [True, False], ids=["check-config", "run"])
def test_missing_config_file_exits_2(tmp_path, check):
    config = tmp_path / "nowhere.toml"
    argv = [CLI, "run", "--config", str(config), *(["--check-config"] if check else [])]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=30, check=False)
    assert done.returncode == 2, done.stderr
    assert str(config) in done.stderr
    assert "not found" in done.stderr


def _start_demo() -> subprocess.Popen[str]:
    return subprocess.Popen(
        [CLI, "demo", "--speed", str(FAST_SPEED), "--web-port", "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        # A Ctrl-C must reach it (a child of a non-interactive shell may inherit SIGINT ignored).
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),  # noqa: PLW1509
    )


def _stop(demo: subprocess.Popen[str], signum: signal.Signals, timeout: float) -> tuple[str, str]:
    """Send ``signum`` and collect the output; a demo that does not stop in time is killed
    (never left running after the test) and the test fails, showing what the demo said."""
    demo.send_signal(signum)
    try:
        return demo.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        demo.kill()
        _, stderr = demo.communicate()
        # The demo's slow-stop report (after 5 s) says what the stop was waiting on.
        pytest.fail(f"the demo did not stop within {timeout} s; its stderr:\n{stderr[-6000:]}")


# A move line of the demo's feed: "[    5.2s] #5    B  1.    e4  ...". Not merely "1.", which
# the time stamp of an earlier line has once its second is 1 ("[    1.2s] ... link A resynced").
FIRST_MOVE = re.compile(r"\] #\d+\s+[AB]\s+1\.\s+\S")


def _lines_until(demo: subprocess.Popen[str], marker: str | re.Pattern[str]) -> list[str]:
    """The demo's output up to and including the first line with ``marker``."""
    assert demo.stdout is not None
    lines: list[str] = []
    for line in demo.stdout:
        lines.append(line)
        if marker.search(line) if isinstance(marker, re.Pattern) else marker in line:
            break
    return lines


@pytest.mark.pty
@pytest.mark.slow
@pytest.mark.whole_game
@pytest.mark.timeout(280)
def test_demo_plays_to_the_result_and_keeps_the_page_up():
    demo = _start_demo()
    try:
        lines = _lines_until(demo, "game over")
        page = next(line.split()[-1] for line in lines if "watch it live" in line)
        with urllib.request.urlopen(page.split("#")[0], timeout=10) as response:  # noqa: S310
            assert b"bughouse-bridge live" in response.read()
    finally:
        stdout, stderr = _stop(demo, signal.SIGINT, 30)
    assert demo.returncode == 0, stderr[-2000:]
    output = "".join(lines) + stdout
    result_lines = [line for line in output.splitlines() if "RESULT" in line]
    assert len(result_lines) == 1, output[-3000:]
    assert "board B" in result_lines[0]
    # The page's address comes before the first move.
    page_line = next(i for i, line in enumerate(lines) if "watch it live" in line)
    first_move = next(i for i, line in enumerate(lines) if FIRST_MOVE.search(line))
    assert page_line < first_move
    assert page.endswith("#/match/demo-game")


@pytest.mark.pty
@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_the_demo_stops_in_order_when_interrupted_mid_game(signum: signal.Signals):
    """Ctrl-C (or a SIGTERM) in the middle of the game stops the show, the daemon and the
    embedded broker in order: status 0, within seconds, no traceback."""
    demo = _start_demo()
    try:
        lines = _lines_until(demo, FIRST_MOVE)  # the first move is on the feed: mid-game
    finally:
        stdout, stderr = _stop(demo, signum, 20)
    assert demo.returncode == 0, stderr[-2000:]
    assert "Traceback" not in stderr, stderr[-2000:]
    assert any(FIRST_MOVE.search(line) for line in lines), "".join(lines)[-2000:]
    assert "interrupted: stopping the daemon and the broker." in stdout
    assert stdout.rstrip().endswith("demo finished."), stdout[-2000:]


@pytest.mark.pty
def test_the_demo_stops_quietly_when_its_reader_goes_away():
    """``bughouse-bridge demo | head``: once the reader has gone, the demo stops (status 141, as
    a shell reports a writer whose reader left) without a traceback, and nothing stays up."""
    demo = _start_demo()
    assert demo.stdout is not None
    _lines_until(demo, "watch it live")
    demo.stdout.close()  # the reader goes away; the next event the demo prints has nowhere to go
    try:
        _, stderr = demo.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        demo.kill()
        _, stderr = demo.communicate()
        pytest.fail(f"the demo stayed up after its reader left; its stderr:\n{stderr[-6000:]}")
    assert demo.returncode == 141, stderr[-2000:]
    assert "Traceback" not in stderr, stderr[-2000:]
