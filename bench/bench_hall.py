"""The hall at scale: N box processes, 2N emulated boards, one mosquitto from ``hall init``, and
V WebSocket viewers.

Run: ``.venv/bin/python bench/bench_hall.py --tables 30 --viewers 200`` (a few minutes; rewrites
its section of bench/README.md; ``--tables 3 --viewers 20 --no-readme`` to try it out).

* ``hall init`` writes the broker's files (TLS listener, WebSockets listener, ACL, users); the
  bench starts mosquitto from exactly that configuration, publishes round 1 with ``hall round``'s
  code, and runs each box as its own ``bughouse-bridge run --config table-<n>.toml`` process
  (the generated file plus the two pty boards, a state dir and the fics preset).
* The emulated boards run in a few separate processes (``--emulator-procs``), all games at
  ``Pace.fast`` from the same start; the bundled game 1934301 (110 half-moves, ends in a mate).
* Viewers: anonymous MQTT-over-WebSockets clients (paho via aiomqtt, ``transport="websockets"``),
  each watching one table's events, state and clocks (viewer i watches table i mod N), in one
  process. Latency = viewer's ``time.time()`` on receipt minus the event's ``ts`` (the box's wall
  clock when the event was made, ms resolution): event creation → journal → outbox → TLS →
  broker → WebSocket → viewer, all on this machine.
* CPU = utime+stime from /proc over the played game; memory = VmHWM (peak RSS) per process.
* Complete: a box's match carries every half-move of the game and its result, seen by an
  arbiter client; then ``hall results`` (one-shot) must write one row per table.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import platform
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from datetime import datetime
from pathlib import Path
from typing import Any, Self

from readme_section import write_section

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parent / "tests" / "e2e"), str(HERE.parent / "tests")]

import aiomqtt  # noqa: E402
from e2e_harness import Table, the_game  # noqa: E402

from bughouse_bridge.daemon.hall_init import write_hall  # noqa: E402
from bughouse_bridge.daemon.hall_mqtt import HallConnection  # noqa: E402
from bughouse_bridge.daemon.hall_results import ResultsCollector, run_collector  # noqa: E402
from bughouse_bridge.daemon.logging import setup_logging  # noqa: E402
from bughouse_bridge.drivers.mqtt import utc_timestamp  # noqa: E402
from bughouse_bridge.hall.broker import HallPlan  # noqa: E402
from bughouse_bridge.hall.naming import match_id, round_topic  # noqa: E402
from bughouse_bridge.hall.rounds import Pairing, Round, TeamEntry, round_payload  # noqa: E402
from private_mosquitto import MOSQUITTO, free_port  # noqa: E402

TICK = os.sysconf("SC_CLK_TCK")
SECTION = "## The hall at scale"
ROOT = "bench/hall"


# --- processes --------------------------------------------------------------------------------


async def role_emulators(directory: Path, first: int, count: int, plies: int | None) -> None:
    """Tables first..first+count-1: boards on ptys with symlinks in ``directory/t<n>``."""
    setup_logging("warning")
    numbers = range(first, first + count)
    for n in numbers:
        (directory / f"t{n}").mkdir(parents=True, exist_ok=True)
    boards = [Table(directory / f"t{n}", seed=n) for n in numbers]
    try:
        print("ready", flush=True)
        await asyncio.gather(*(t.wait_for_host(120) for t in boards))
        print("hosts", flush=True)
        # Start together with the other emulator processes: the parent says when.
        await asyncio.to_thread(sys.stdin.readline)
        plans = [t.plan(the_game(plies)) for t in boards]
        for table, plan in zip(boards, plans, strict=True):
            table.start(plan)
        await asyncio.gather(*(t.finished(p) for t, p in zip(boards, plans, strict=True)))
        print(f"end {max(p.end - p.start for p in plans):.3f}", flush=True)
        # Keep the ptys open until the boxes are stopped (else they log I/O errors).
        await asyncio.to_thread(sys.stdin.readline)
    finally:
        for table in boards:
            table.close()


def box_config(hall: Path, workdir: Path, n: int, state_root: Path) -> Path:
    """The generated table-<n>.toml, plus what a real box adds: boards, state dir, preset."""
    generated = (hall / f"table-{n}.toml").read_text()
    links = "".join(
        f'\n[[links]]\nname = "{link}"\nport = "{workdir / f"t{n}" / f"board-{link.lower()}"}"\n'
        for link in ("A", "B")
    )
    text = (
        f'state_dir = "{state_root / f"state-{n}"}"\nlog_level = "warning"\n'
        + generated
        + '\n[rules]\npreset = "fics"\n'
        + links
    )
    path = workdir / f"box-{n}.toml"
    path.write_text(text)
    return path


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK


def vm_hwm_mib(pid: int) -> float:
    match = re.search(r"VmHWM:\s+(\d+) kB", Path(f"/proc/{pid}/status").read_text())
    return int(match.group(1)) / 1024 if match else float("nan")


def readline(process: subprocess.Popen[str], expect: str, timeout: float) -> str:
    deadline = time.monotonic() + timeout
    assert process.stdout is not None
    while time.monotonic() < deadline:
        line = process.stdout.readline()
        if line.startswith(expect):
            return line.strip()
        if not line and process.poll() is not None:
            break
    raise RuntimeError(f"emulators: no {expect!r}")


# --- viewers ----------------------------------------------------------------------------------


class Viewers:
    """``count`` anonymous WebSocket viewers, viewer i on table i mod N."""

    def __init__(self, port: int, tables: int, count: int, *, first: int = 0) -> None:
        self.port, self.tables, self.count, self.first = port, tables, count, first
        self.latencies_ms: list[float] = []
        self.received = 0
        self.connected = 0
        self.errors = 0
        self._ready = asyncio.Event()
        self._tasks: list[asyncio.Task[None]] = []

    async def __aenter__(self) -> Self:
        self._tasks = [
            asyncio.create_task(self._viewer(i % self.tables + 1))
            for i in range(self.first, self.first + self.count)
        ]
        async with asyncio.timeout(120):
            await self._ready.wait()
        return self

    async def __aexit__(self, *exc: object) -> None:
        for task in self._tasks:
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)

    async def _viewer(self, table: int) -> None:
        match = match_id(1, table)
        try:
            async with aiomqtt.Client(
                "127.0.0.1",
                self.port,
                transport="websockets",
                identifier=f"viewer-{uuid.uuid4().hex[:10]}",
                keepalive=60,
            ) as client:
                for leaf in ("events", "state", "clock"):
                    await client.subscribe(f"{ROOT}/match/{match}/{leaf}", qos=1)
                self.connected += 1
                if self.connected == self.count:
                    self._ready.set()
                async for message in client.messages:
                    now = time.time()
                    self.received += 1
                    if message.topic.value.endswith("/events"):
                        event = json.loads(bytes(message.payload))
                        made = _epoch(event["ts"])
                        self.latencies_ms.append((now - made) * 1000)
        except aiomqtt.MqttError:
            self.errors += 1


def _epoch(ts: str) -> float:
    return datetime.fromisoformat(ts).timestamp()


async def role_viewers(port: int, tables: int, first: int, count: int) -> None:
    """Viewers first..first+count-1 in this process; their figures as JSON when told to stop."""
    async with Viewers(port, tables, count, first=first) as viewers:
        print("connected", flush=True)
        await asyncio.to_thread(sys.stdin.readline)
        figures = {
            "latencies_ms": viewers.latencies_ms,
            "received": viewers.received,
            "errors": viewers.errors,
        }
    print("figures " + json.dumps(figures), flush=True)


async def arbiter_events(
    connection: HallConnection,
    stop: asyncio.Event,
    latencies_ms: list[float],
    events: list[dict[str, Any]],
) -> None:
    """Every event of every table, as one TLS client (the arbiter) sees it."""
    async with connection.client("bench-arbiter") as client:
        await client.subscribe(f"{ROOT}/match/+/events", qos=1)

        async def read() -> None:
            async for message in client.messages:
                now = time.time()
                event = json.loads(bytes(message.payload))
                latencies_ms.append((now - _epoch(event["ts"])) * 1000)
                events.append(event)

        reader = asyncio.create_task(read())
        await stop.wait()
        reader.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await reader


async def drained(
    events: list[dict[str, Any]], *, quiet: float = 10.0, cap: float = 240.0
) -> float:
    """Wait until no event has arrived for ``quiet`` seconds; return how long that took."""
    start = time.monotonic()
    seen, since = len(events), time.monotonic()
    while time.monotonic() - since < quiet and time.monotonic() - start < cap:
        await asyncio.sleep(0.5)
        if len(events) != seen:
            seen, since = len(events), time.monotonic()
    return since - start


def round_one(tables: int) -> bytes:
    pairings = tuple(
        Pairing(
            1,
            n,
            TeamEntry(
                f"team-{2 * n - 1}", f"Team {2 * n - 1}", (("black_a", "p1"), ("white_b", "p2"))
            ),
            TeamEntry(f"team-{2 * n}", f"Team {2 * n}", (("white_a", "p3"), ("black_b", "p4"))),
        )
        for n in range(1, tables + 1)
    )
    return round_payload(Round(1, pairings), ts=utc_timestamp())


# --- the run ----------------------------------------------------------------------------------


def spawn(role: list[str], *, stdout_text: bool = True) -> subprocess.Popen[str]:
    return subprocess.Popen(  # noqa: S603 - this script, in another role
        [sys.executable, str(HERE / "bench_hall.py"), *role],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=stdout_text,
    )


def tell(process: subprocess.Popen[str], line: str) -> None:
    assert process.stdin is not None
    with contextlib.suppress(BrokenPipeError):
        process.stdin.write(line + "\n")
        process.stdin.flush()


def split(total: int, parts: int) -> list[tuple[int, int]]:
    """(first, count) for ``parts`` nearly equal slices of range(total)."""
    size = -(-total // parts)
    return [(first, min(size, total - first)) for first in range(0, total, size)]


async def run(workdir: Path, args: argparse.Namespace) -> dict[str, Any]:  # noqa: C901, PLR0912, PLR0915 - the run, start to end, in order
    tables = args.tables
    plan = HallPlan(
        tables=tables,
        host="127.0.0.1",
        mqtt_port=free_port(),
        ws_port=free_port(),
        root=ROOT,
        rounds=1,
        listen="127.0.0.1",
    )
    hall = workdir / "hall"
    write_hall(hall, plan)
    broker = subprocess.Popen([str(MOSQUITTO), "-c", str(hall / "mosquitto.conf")])  # noqa: S603, ASYNC220
    boxes: list[subprocess.Popen[bytes]] = []
    emulators: list[subprocess.Popen[str]] = []
    viewers: list[subprocess.Popen[str]] = []
    plies = ["--plies", str(args.plies)] if args.plies else []
    # --shm: journals and outboxes on tmpfs, where fsync costs nothing (a real hall gives every
    # box its own storage; 30 boxes on one disk queue behind each other's fsyncs).
    state_root = (
        Path(tempfile.mkdtemp(prefix="bench-hall-", dir="/dev/shm")) if args.shm else workdir
    )
    try:
        await asyncio.sleep(1.0)
        connection = HallConnection.from_hall(hall)
        async with connection.client("bench-round") as client:
            await client.publish(round_topic(ROOT), round_one(tables), 1, retain=True)
        for first, count in split(tables, args.emulator_procs):
            role = ["--role", "emulators", "--dir", str(workdir), "--first", str(first + 1)]
            emulators.append(spawn([*role, "--count", str(count), *plies]))
        for first, count in split(args.viewers, args.viewer_procs):
            role = ["--role", "viewers", "--port", str(plan.ws_port), "--tables", str(tables)]
            viewers.append(spawn([*role, "--first", str(first), "--count", str(count)]))
        for process in emulators:
            await asyncio.to_thread(readline, process, "ready", 60)
        for process in viewers:
            await asyncio.to_thread(readline, process, "connected", 180)
        stop = asyncio.Event()
        arbiter_ms: list[float] = []
        events: list[dict[str, Any]] = []
        arbiter = asyncio.create_task(arbiter_events(connection, stop, arbiter_ms, events))
        for n in range(1, tables + 1):
            config = box_config(hall, workdir, n, state_root)
            boxes.append(
                subprocess.Popen(  # noqa: S603, ASYNC220 - once, before timing
                    [sys.executable, "-m", "bughouse_bridge", "run", "--config", str(config)]
                )
            )
        for process in emulators:
            await asyncio.to_thread(readline, process, "hosts", 180)
        await asyncio.sleep(2.0)
        pids = {
            "broker": broker.pid,
            **{f"box-{i}": b.pid for i, b in enumerate(boxes, 1)},
            **{f"emulators-{i}": e.pid for i, e in enumerate(emulators, 1)},
            **{f"viewers-{i}": v.pid for i, v in enumerate(viewers, 1)},
        }
        cpu_start = {name: cpu_seconds(pid) for name, pid in pids.items()}
        own_start = sum(os.times()[:2])
        wall_start = time.monotonic()
        for process in emulators:
            tell(process, "go")
        ends = [await asyncio.to_thread(readline, p, "end", 900) for p in emulators]
        # Every event still queued in an outbox or the broker is delivered before we count.
        drain = await drained(events)
        wall = time.monotonic() - wall_start
        cpu = {name: cpu_seconds(pid) - cpu_start[name] for name, pid in pids.items()}
        cpu["bench (arbiter client)"] = sum(os.times()[:2]) - own_start
        peak = {name: vm_hwm_mib(pid) for name, pid in pids.items()}
        stop.set()
        await arbiter
        figures = []
        for process in viewers:
            tell(process, "stop")
            line = await asyncio.to_thread(readline, process, "figures", 60)
            figures.append(json.loads(line.removeprefix("figures ")))
        collector = ResultsCollector(workdir / "results")
        await run_collector(connection, collector, until=5.0)
        collector.write({row.round for row in collector.rows.values()})
    finally:
        for box in boxes:
            box.send_signal(signal.SIGTERM)
        for box in boxes:
            try:
                box.wait(30)
            except subprocess.TimeoutExpired:
                box.kill()
        for process in [*emulators, *viewers]:
            tell(process, "quit")
            try:
                process.wait(30)
            except subprocess.TimeoutExpired:
                process.kill()
        broker.terminate()
        broker.wait(10)
        if args.shm:
            shutil.rmtree(state_root, ignore_errors=True)
    return summarise(
        args,
        wall=wall,
        ends=ends,
        cpu=cpu,
        peak=peak,
        events=events,
        drain=drain,
        viewer_figures=figures,
        arbiter_ms=arbiter_ms,
        collector=collector,
    )


def percentiles(values: list[float]) -> dict[str, float]:
    ordered = sorted(values)
    if not ordered:
        return {"n": 0, "p50": float("nan"), "p99": float("nan"), "max": float("nan")}
    return {
        "n": len(ordered),
        "p50": statistics.median(ordered),
        "p99": ordered[int(0.99 * (len(ordered) - 1))],
        "max": ordered[-1],
    }


def summarise(  # noqa: PLR0913 - one report from the run's parts
    args: argparse.Namespace,
    *,
    wall: float,
    ends: list[str],
    cpu: dict[str, float],
    peak: dict[str, float],
    events: list[dict[str, Any]],
    drain: float,
    viewer_figures: list[dict[str, Any]],
    arbiter_ms: list[float],
    collector: ResultsCollector,
) -> dict[str, Any]:
    expected = len(the_game(args.plies).moves)
    unique = {(e["boot_id"], e["seq"]): e for e in events}.values()
    moves: dict[str, int] = {}
    results: set[str] = set()
    for event in unique:
        if event["type"] == "move":
            moves[event["match"]] = moves.get(event["match"], 0) + 1
        elif event["type"] == "result":
            results.add(event["match"])
    complete = sum(
        moves.get(match_id(1, n), 0) == expected and match_id(1, n) in results
        for n in range(1, args.tables + 1)
    )
    boxes = [f"box-{n}" for n in range(1, args.tables + 1)]
    viewer_ms = [v for figures in viewer_figures for v in figures["latencies_ms"]]
    helpers = {
        name: value for name, value in cpu.items() if name.startswith(("emul", "view", "ben"))
    }
    return {
        "tables": args.tables,
        "viewers": args.viewers,
        "state_on": "tmpfs" if args.shm else "disk",
        "viewer_procs": len(viewer_figures),
        "plies": expected,
        "play_s": max(float(end.split()[1]) for end in ends),
        "drain_s": drain,
        "wall_s": wall,
        "complete": complete,
        "results_rows": len(collector.rows),
        "incomplete_moves": {
            match_id(1, n): moves.get(match_id(1, n), 0)
            for n in range(1, args.tables + 1)
            if moves.get(match_id(1, n), 0) != expected
        },
        "with_result": len(results),
        "viewer_latency": percentiles(viewer_ms),
        "arbiter_latency": percentiles(arbiter_ms),
        "viewer_messages": sum(figures["received"] for figures in viewer_figures),
        "viewer_errors": sum(figures["errors"] for figures in viewer_figures),
        "box_cpu_s_median": statistics.median(cpu[b] for b in boxes),
        "box_cpu_s_max": max(cpu[b] for b in boxes),
        "box_cpu_pct_median": 100 * statistics.median(cpu[b] for b in boxes) / wall,
        "box_rss_mib_median": statistics.median(peak[b] for b in boxes),
        "box_rss_mib_max": max(peak[b] for b in boxes),
        "broker_cpu_s": cpu["broker"],
        "broker_cpu_pct": 100 * cpu["broker"] / wall,
        "broker_rss_mib": peak["broker"],
        "helpers_cpu_s": {name: round(value, 1) for name, value in helpers.items()},
        "all_cpu_pct": 100 * sum(cpu.values()) / wall,
        "load_avg": os.getloadavg(),
    }


# --- report -----------------------------------------------------------------------------------


def machine() -> str:
    cpu = "unknown CPU"
    for line in Path("/proc/cpuinfo").read_text().splitlines():
        if line.startswith("model name"):
            cpu = line.split(":", 1)[1].strip()
            break
    mosquitto = subprocess.run(  # noqa: S603 - our own broker binary
        [str(MOSQUITTO), "-h"], capture_output=True, text=True, check=False
    ).stdout.splitlines()[0]
    return f"{os.cpu_count()} CPUs, {cpu}, Python {platform.python_version()}, {mosquitto}"


def section(r: dict[str, Any]) -> str:
    intro = (
        f"{r['tables']} box processes (`bughouse-bridge run` with the `table-<n>.toml` that "
        f"`hall init` wrote), {2 * r['tables']} emulated boards on ptys, one mosquitto started "
        "from the generated configuration (TLS for boxes, WebSockets for viewers, ACL, password "
        f"file), {r['viewers']} anonymous WebSocket viewers (viewer i watches table i mod "
        f"{r['tables']}: events, state, clocks). Every table plays the bundled game 1934301 "
        f"({r['plies']} half-moves, ends in a mate) at `Pace.fast(8)`, all at once. Latency: "
        "viewer receipt minus the event's `ts` (made by the box), same clock."
    )
    rows = [
        ("games complete (every move + result, arbiter's view)", f"{r['complete']}/{r['tables']}"),
        ("games with a result / `hall results` rows", f"{r['with_result']} / {r['results_rows']}"),
        (
            "play time + drain (wall)",
            f"{r['wall_s']:.0f} s, of which {r['drain_s']:.0f} s after the last move",
        ),
        _latency_row(
            f"event → WebSocket viewer ({r['viewers']} viewers in {r['viewer_procs']} processes)",
            r["viewer_latency"],
        ),
        _latency_row("event → arbiter (one TLS client, every table)", r["arbiter_latency"]),
        (
            "messages delivered to viewers",
            f"{r['viewer_messages']:,} ({r['viewer_errors']} viewer errors)",
        ),
        (
            "CPU per box, median / max",
            (
                f"{r['box_cpu_s_median']:.1f} / {r['box_cpu_s_max']:.1f} s "
                f"({r['box_cpu_pct_median']:.1f} % of a core)"
            ),
        ),
        (
            "peak RSS per box, median / max",
            f"{r['box_rss_mib_median']:.0f} / {r['box_rss_mib_max']:.0f} MiB",
        ),
        ("broker CPU", f"{r['broker_cpu_s']:.1f} s ({r['broker_cpu_pct']:.1f} % of a core)"),
        ("broker peak RSS", f"{r['broker_rss_mib']:.0f} MiB"),
        (
            "CPU of the bench's own processes",
            ", ".join(f"{k} {v} s" for k, v in r["helpers_cpu_s"].items()),
        ),
        ("all measured processes, % of one core", f"{r['all_cpu_pct']:.0f} %"),
        ("load average at the end (1/5/15 min)", " / ".join(f"{x:.1f}" for x in r["load_avg"])),
    ]
    run_line = (
        "Run: `.venv/bin/python bench/bench_hall.py --tables 30 --viewers 200` "
        "(rewrites this section)."
    )
    return "\n".join(
        [
            SECTION,
            "",
            run_line,
            "",
            intro,
            "",
            "| measure | value |",
            "|---|---:|",
            *(f"| {name} | {value} |" for name, value in rows),
            "",
            f"Machine: {machine()}; the 2 cores were shared with other work during the run.",
            "",
        ]
    )


def _latency_row(name: str, figures: dict[str, float]) -> tuple[str, str]:
    return (
        f"{name}: p50 / p99 / max",
        (
            f"{figures['p50']:.0f} / {figures['p99']:.0f} / {figures['max']:.0f} ms "
            f"({figures['n']:,} deliveries)"
        ),
    )


async def main(args: argparse.Namespace) -> None:
    setup_logging("error")
    with tempfile.TemporaryDirectory(prefix="bench-hall-") as tmp:
        os.chmod(tmp, 0o755)  # noqa: PTH101, S103 - the broker may run as its own user
        result = await run(Path(tmp), args)
    print(json.dumps(result), flush=True)
    text = section(result)
    print(text)
    if not args.no_readme:
        write_section(SECTION, text)


def cli() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--tables", type=int, default=30)
    parser.add_argument("--viewers", type=int, default=200)
    parser.add_argument("--plies", type=int, help="cut the game after this many half-moves")
    parser.add_argument("--emulator-procs", type=int, default=3)
    parser.add_argument("--viewer-procs", type=int, default=2)
    parser.add_argument("--shm", action="store_true", help="box state dirs on /dev/shm")
    parser.add_argument("--no-readme", action="store_true")
    parser.add_argument("--role", choices=["emulators", "viewers"])
    parser.add_argument("--port", type=int)
    parser.add_argument("--dir", type=Path)
    parser.add_argument("--first", type=int, default=1)
    parser.add_argument("--count", type=int, default=1)
    args = parser.parse_args()
    if args.role == "emulators":
        asyncio.run(role_emulators(args.dir, args.first, args.count, args.plies))
    elif args.role == "viewers":
        asyncio.run(role_viewers(args.port, args.tables, args.first, args.count))
    else:
        asyncio.run(main(args))


if __name__ == "__main__":
    cli()
