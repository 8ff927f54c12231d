"""Lever press on the emulated board -> the move drawn in the web page, measured in the browser.

Run: ``.venv/bin/python bench/bench_web.py`` (about 2 minutes; rewrites its section of
bench/README.md; ``--no-readme`` only prints; ``--static DIR`` serves another version of the page,
e.g. ``git archive main src/bughouse_bridge/web/static | tar -x -C /tmp/old``, to compare two
pages run after run on the same machine). Needs mosquitto and Debian's Chromium
(``scripts/ensure-mosquitto``, ``scripts/ensure-chromium``).

The bundled game at the e2e pace, emulated boards on ptys, the daemon, a private mosquitto with a
WebSocket listener, the page in headless Chromium (Playwright). Press time: the BWTIME bytes that
follow a lever press written to the pty master (``time.time()``). Drawn time: the page's
``data-fen`` changes to the move's position, and the next animation frame runs (the frame that
paints it), as ``performance.timeOrigin + performance.now()``. Both are this machine's wall clock.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE), str(HERE.parent / "tests" / "e2e"), str(HERE.parent / "tests")]

from e2e_harness import (  # noqa: E402
    FAST_SPEED,
    Subscriber,
    Table,
    dedupe,
    running_daemon,
    settings_overrides,
    the_game,
)

from bench_e2e import instrument, machine  # noqa: E402
from browser_harness import CHROMIUM, browser_missing, chromium, web_server  # noqa: E402
from bughouse_bridge.daemon.logging import setup_logging  # noqa: E402
from private_mosquitto import Mosquitto  # noqa: E402
from readme_section import write_section  # noqa: E402

SECTION = "## Web page: lever press to move drawn"
DRAWN = """
window.__drawn = [];
new MutationObserver((records) => {
  for (const r of records) {
    const board = r.target.dataset.board, fen = r.target.dataset.fen;
    requestAnimationFrame(() =>
      window.__drawn.push([board, fen, performance.timeOrigin + performance.now()]));
  }
}).observe(document, {subtree: true, attributes: true, attributeFilter: ["data-fen"]});
"""


async def measure(workdir: Path, static_dir: Path | None = None) -> dict[str, Any]:
    broker = Mosquitto(workdir, websockets=True)
    broker.start()
    table = Table(workdir)
    try:
        presses = instrument(table, clock=time.time)
        overrides = settings_overrides(
            workdir=workdir, port=broker.port, root="bench/web", bridge="bench",
            match="web", links=table.links,
        )  # fmt: skip
        async with (
            Subscriber(broker.port, ["bench/web/match/web/events"]) as sub,
            running_daemon(overrides),
            chromium(workdir / "profile") as browser,
        ):
            assert broker.ws_port is not None
            with web_server(broker.ws_port, "bench/web", static_dir) as web:
                page = await browser.new_page()
                await page.add_init_script(DRAWN)
                await page.goto(f"{web.url}#/match/web")
                await page.wait_for_selector('[data-connection="connected"]')
                await table.wait_for_host()
                plan = table.plan(the_game())
                table.start(plan)
                await table.finished(plan)
                await asyncio.sleep(3)
                drawn = await page.evaluate("window.__drawn")
    finally:
        table.close()
        broker.stop()
    first_drawn: dict[tuple[str, str], float] = {}
    for board, fen, at in drawn:
        first_drawn.setdefault((board, fen), at / 1000)
    samples, moves = [], []
    for event in dedupe(sub.events()):
        if event["type"] != "move":
            continue
        times = presses[event["board"]]
        shown = first_drawn.get((event["board"], event["fen"]))
        if event["ply"] <= len(times) and shown is not None:
            samples.append((shown - times[event["ply"] - 1]) * 1000)
            moves.append((samples[-1], f"{event['board']}{event['ply']} {event['san']}"))
    samples.sort()
    return {
        "slowest": sorted(moves, reverse=True)[:5],
        "moves": len(samples),
        "median_ms": statistics.median(samples),
        "p99_ms": samples[min(len(samples) - 1, round(0.99 * (len(samples) - 1)))],
        "max_ms": samples[-1],
    }


def section(result: dict[str, Any]) -> str:
    lines = [
        SECTION,
        "",
        "Run: `.venv/bin/python bench/bench_web.py` (about 2 minutes; rewrites this section).",
        "",
        (
            f"The bundled game 1934301 (110 half-moves) at `Pace.fast({FAST_SPEED:g})`, emulated "
            "boards on ptys, the daemon, a private mosquitto with a WebSocket listener, the "
            "broadcast page in headless Chromium. From the BWTIME bytes that follow a lever press "
            "written to the pty master (`time.time()`) until the animation frame after the page's "
            "`data-fen` shows the move (`performance.timeOrigin + performance.now()`, the same "
            "wall clock). Anchor: lichess broadcasts relay moves every few seconds."
        ),
        "",
        "| moves | median ms | p99 ms | max ms |",
        "|---:|---:|---:|---:|",
        (
            f"| {result['moves']} | {result['median_ms']:.1f} | {result['p99_ms']:.1f} | "
            f"{result['max_ms']:.1f} |"
        ),
        "",
        (
            f"Machine: {machine()}, {chromium_version()}; load average "
            f"{os.getloadavg()[0]:.1f} at the end of the run (a shared machine: other jobs add "
            "to these figures)."
        ),
        "",
    ]
    return "\n".join(lines)


def chromium_version() -> str:
    done = subprocess.run(  # noqa: S603 - the configured system browser, no shell
        [str(CHROMIUM), "--version"], capture_output=True, text=True, check=False
    )
    return done.stdout.strip().split(" built")[0] or "Chromium"


async def main(args: argparse.Namespace) -> None:
    reason = browser_missing()
    if reason:
        sys.exit(f"bench_web: {reason}")
    setup_logging("error")
    with tempfile.TemporaryDirectory(prefix="bench-web-") as tmp:
        result = await measure(Path(tmp), args.static)
    text = section(result)
    print(text)
    slowest = ", ".join(f"{name}: {ms:.0f} ms" for ms, name in result["slowest"])
    print(f"slowest moves (board, ply, SAN): {slowest}")
    if not args.no_readme:
        write_section(SECTION, text)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--no-readme", action="store_true", help="print only")
    parser.add_argument("--static", type=Path, help="serve the page from this folder")
    asyncio.run(main(parser.parse_args()))
