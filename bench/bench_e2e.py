"""End-to-end figures: press-to-subscriber latency, CPU and memory for 1 and 8 matches.

Run: ``.venv/bin/python bench/bench_e2e.py`` (about 6 minutes; rewrites its section of
bench/README.md). ``--tables 1 8`` picks the load runs, ``--no-readme`` only prints.

* Latency: one match in one process. The emulated boards sit on ptys; the time the BWTIME message
  that follows each clock-lever press is written to the pty master, and the time a subscriber on a
  private mosquitto holds the move event, both ``time.monotonic()``; median and p99 over the game.
* Load: N daemons (distinct bridge/match ids and state dirs) in ONE process, the 2N emulated boards
  in a second process, one private mosquitto. CPU (utime+stime from /proc) of the daemon process
  over the played game, per minute of play, and its peak RSS (VmHWM).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import re
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from readme_section import write_section

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parent / "tests" / "e2e"), str(HERE.parent / "tests")]

from e2e_harness import (  # noqa: E402 - the harness lives with the e2e tests
    FAST_SPEED,
    Subscriber,
    Table,
    daemon_settings,
    dedupe,
    expected_by_board,
    moves_by_board,
    running_daemon,
    settings_overrides,
    the_game,
)

from bughouse_bridge.daemon.app import Daemon  # noqa: E402
from bughouse_bridge.daemon.logging import setup_logging  # noqa: E402
from bughouse_bridge.emulator.actions import PressClock  # noqa: E402
from private_mosquitto import Mosquitto  # noqa: E402

BWTIME = 0x8D
TICK = os.sysconf("SC_CLK_TCK")
SECTION = "## End-to-end latency and load"


# --- latency ----------------------------------------------------------------------------------


def instrument(table: Table, clock=time.monotonic) -> dict[str, list[float]]:
    """Per link, the times (``clock``) the first BWTIME after each lever press left for the pty."""
    presses: dict[str, list[float]] = {link: [] for link in table.runners}
    for link, runner in table.runners.items():
        pending = [False]
        apply, write = runner._apply, runner._write  # noqa: SLF001

        def on_apply(timed, now, *, _apply=apply, _pending=pending):
            if isinstance(timed.action, PressClock):
                _pending[0] = True
            _apply(timed, now)

        def on_write(data, *, _write=write, _pending=pending, _link=link):
            if _pending[0] and BWTIME in data:
                _pending[0] = False
                presses[_link].append(clock())
            _write(data)

        runner._apply = on_apply  # noqa: SLF001
        runner._write = on_write  # noqa: SLF001
    return presses


async def latency(workdir: Path) -> dict[str, object]:
    broker = Mosquitto(workdir)
    broker.start()
    table = Table(workdir)
    try:
        presses = instrument(table)
        overrides = settings_overrides(
            workdir=workdir, port=broker.port, root="bench/latency", bridge="bench",
            match="latency", links=table.links,
        )  # fmt: skip
        game = the_game()
        topic = "bench/latency/match/latency/events"
        async with (
            Subscriber(broker.port, [topic], persistent=True) as sub,
            running_daemon(overrides),
        ):
            await table.wait_for_host()
            plan = table.plan(game)
            table.start(plan)
            await table.finished(plan)
            await asyncio.sleep(3)
        events = dedupe(sub.events())
        received: dict[tuple[str, int], float] = {}
        for message in sub.on("/events"):
            event = message.json()
            if event["type"] == "move":  # the first copy counts (QoS 1 may repeat)
                received.setdefault((event["board"], event["ply"]), message.at)
    finally:
        table.close()
        broker.stop()
    samples = []
    for link, times in presses.items():
        for ply, pressed in enumerate(times, start=1):
            got = received.get((link, ply))
            if got is not None:
                samples.append((got - pressed) * 1000)
    samples.sort()
    ok = moves_by_board(events) == expected_by_board(game)
    return {
        "moves": len(samples),
        "median_ms": statistics.median(samples),
        "p99_ms": samples[min(len(samples) - 1, round(0.99 * (len(samples) - 1)))],
        "max_ms": samples[-1],
        "reconstructed": ok,
    }


# --- load: emulators and daemons in two processes ---------------------------------------------


async def role_emulators(directory: Path, tables: int) -> None:
    setup_logging("warning")
    for i in range(tables):
        (directory / f"t{i}").mkdir(parents=True, exist_ok=True)
    boards = [Table(directory / f"t{i}", seed=i + 1) for i in range(tables)]
    try:
        print("ready", flush=True)
        await asyncio.gather(*(t.wait_for_host(60) for t in boards))
        plans = [t.plan(the_game()) for t in boards]
        print("start", flush=True)
        for table, plan in zip(boards, plans, strict=True):
            table.start(plan)
        await asyncio.gather(*(t.finished(p) for t, p in zip(boards, plans, strict=True)))
        print(f"end {max(p.end - p.start for p in plans):.3f}", flush=True)
    finally:
        for table in boards:
            table.close()


async def role_daemons(directory: Path, tables: int, port: int) -> None:
    setup_logging("warning")
    daemons = []
    for i in range(tables):
        workdir = directory / f"t{i}"
        links = {link: str(workdir / f"board-{link.lower()}") for link in ("A", "B")}
        overrides = settings_overrides(
            workdir=workdir, port=port, root="bench/load", bridge=f"bridge-{i}",
            match=f"match-{i}", links=links,
        )  # fmt: skip
        daemons.append(Daemon(daemon_settings(overrides)))

    def stop_all() -> None:
        for daemon in daemons:
            daemon.stop()

    asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, stop_all)
    await asyncio.gather(*(daemon.run() for daemon in daemons))


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK


def vm_hwm_mib(pid: int) -> float:
    match = re.search(r"VmHWM:\s+(\d+) kB", Path(f"/proc/{pid}/status").read_text())
    assert match is not None
    return int(match.group(1)) / 1024


def _readline(process: subprocess.Popen[str], expect: str, timeout: float) -> str:
    deadline = time.monotonic() + timeout
    assert process.stdout is not None
    while time.monotonic() < deadline:
        line = process.stdout.readline()
        if line.startswith(expect):
            return line.strip()
        if not line and process.poll() is not None:
            break
    raise RuntimeError(f"emulators: no {expect!r}")


async def count_moves(port: int, tables: int, stop: asyncio.Event) -> dict[str, int]:
    async with Subscriber(port, ["bench/load/match/+/events"], persistent=True) as sub:
        await stop.wait()
        await asyncio.sleep(3)
    counts = dict.fromkeys((f"match-{i}" for i in range(tables)), 0)
    for event in dedupe(sub.events()):
        if event["type"] == "move":
            counts[event["match"]] += 1
    return counts


async def load(workdir: Path, tables: int) -> dict[str, object]:
    broker = Mosquitto(workdir)
    broker.start()
    me = [sys.executable, str(HERE / "bench_e2e.py")]
    emulators = subprocess.Popen(  # noqa: S603, ASYNC220 - this script, once, before timing
        [*me, "--role", "emulators", "--dir", str(workdir), "--tables", str(tables)],
        stdout=subprocess.PIPE,
        text=True,
    )
    daemons: subprocess.Popen[str] | None = None
    stop = asyncio.Event()
    counter = asyncio.create_task(count_moves(broker.port, tables, stop))
    try:
        await asyncio.to_thread(_readline, emulators, "ready", 30)
        daemons = subprocess.Popen(  # noqa: S603, ASYNC220 - idem
            [*me, "--role", "daemons", "--dir", str(workdir), "--tables", str(tables),
             "--port", str(broker.port)],
        )  # fmt: skip
        await asyncio.to_thread(_readline, emulators, "start", 90)
        cpu_start, wall_start = cpu_seconds(daemons.pid), time.monotonic()
        end = await asyncio.to_thread(_readline, emulators, "end", 600)
        cpu = cpu_seconds(daemons.pid) - cpu_start
        wall = time.monotonic() - wall_start
        peak = vm_hwm_mib(daemons.pid)
        stop.set()
        counts = await counter
    finally:
        if daemons is not None:
            daemons.send_signal(signal.SIGTERM)
            daemons.wait(30)
        emulators.wait(30)
        broker.stop()
    expected = len(the_game().moves)
    return {
        "tables": tables,
        "boards": 2 * tables,
        "played_s": float(end.split()[1]),
        "wall_s": wall,
        "cpu_s": cpu,
        "cpu_s_per_game_min": cpu / (wall / 60),
        "cpu_percent": 100 * cpu / wall,
        "peak_rss_mib": peak,
        "complete": sum(count == expected for count in counts.values()),
    }


# --- report -----------------------------------------------------------------------------------


def machine() -> str:
    cpu = "unknown CPU"
    for line in Path("/proc/cpuinfo").read_text().splitlines():
        if line.startswith("model name"):
            cpu = line.split(":", 1)[1].strip()
            break
    mosquitto = subprocess.run(
        ["/usr/sbin/mosquitto", "-h"], capture_output=True, text=True, check=False
    ).stdout.splitlines()[0]
    return f"{os.cpu_count()} CPUs, {cpu}, Python {platform.python_version()}, {mosquitto}"


def section(lat: dict[str, object], loads: list[dict[str, object]]) -> str:
    lines = [
        SECTION,
        "",
        "Run: `.venv/bin/python bench/bench_e2e.py` (about 6 minutes; rewrites this section).",
        "",
        (
            f"The bundled game 1934301 (110 half-moves) at `Pace.fast({FAST_SPEED:g})`, emulated "
            "boards on ptys, the daemon reading them through pyserial, a private mosquitto, "
            "`time.monotonic()` on both ends."
        ),
        "",
        (
            "Latency: from the BWTIME bytes that follow a lever press written to the pty master "
            "until a subscriber holds the move event (one match, all in one process)."
        ),
        "",
        "| moves | median ms | p99 ms | max ms | reconstructed move for move |",
        "|---:|---:|---:|---:|---|",
        (
            f"| {lat['moves']} | {lat['median_ms']:.1f} | {lat['p99_ms']:.1f} | "
            f"{lat['max_ms']:.1f} | {'yes' if lat['reconstructed'] else 'NO'} |"
        ),
        "",
        (
            "Load: N `Daemon`s in one process (`asyncio.gather`), the 2N emulated boards in "
            "another, one mosquitto. CPU = utime+stime of the daemon process over the played game; "
            "a game-minute is a minute of play (wall clock), which at this pace holds about 55 "
            "half-moves, some 3x the move rate of the real 5-minute game, so per real "
            "game-minute these are upper bounds; RSS = VmHWM."
        ),
        "",
        (
            "| matches | boards | play s | CPU s | CPU s / game-minute | CPU % of one core | "
            "peak RSS MiB | matches complete |"
        ),
        "|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    lines += [
        f"| {r['tables']} | {r['boards']} | {r['wall_s']:.0f} | {r['cpu_s']:.1f} | "
        f"{r['cpu_s_per_game_min']:.2f} | {r['cpu_percent']:.1f} | {r['peak_rss_mib']:.0f} | "
        f"{r['complete']}/{r['tables']} |"
        for r in loads
    ]
    lines += ["", f"Machine: {machine()}.", ""]
    return "\n".join(lines)


async def main(args: argparse.Namespace) -> None:
    setup_logging("error")
    with tempfile.TemporaryDirectory(prefix="bench-e2e-") as tmp:
        workdir = Path(tmp)
        (workdir / "latency").mkdir()
        lat = await latency(workdir / "latency")
        print(json.dumps(lat), flush=True)
        loads = []
        for tables in args.tables:
            (workdir / f"load{tables}").mkdir()
            result = await load(workdir / f"load{tables}", tables)
            print(json.dumps(result), flush=True)
            loads.append(result)
    text = section(lat, loads)
    print(text)
    if not args.no_readme:
        write_section(SECTION, text)


def cli() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--tables", type=int, nargs="+", default=[1, 8])
    parser.add_argument("--no-readme", action="store_true")
    parser.add_argument("--role", choices=["emulators", "daemons"])
    parser.add_argument("--dir", type=Path)
    parser.add_argument("--port", type=int)
    args = parser.parse_args()
    if args.role == "emulators":
        asyncio.run(role_emulators(args.dir, args.tables[0]))
    elif args.role == "daemons":
        asyncio.run(role_daemons(args.dir, args.tables[0], args.port))
    else:
        asyncio.run(main(args))


if __name__ == "__main__":
    cli()
