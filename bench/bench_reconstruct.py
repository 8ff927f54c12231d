"""Reconstructor speed: replay throughput and the cost of the clock press that commits a move.

Games: the real BPGN games bundled with the package (src/bughouse_bridge/data/games, copies of
../shared/data/bpgn), turned into noisy two-board traces by the emulator
(tests/reconstruct/trace_gen.py) under several seeds, decoded up front so that only the
reconstructor is timed. Throughput = sensor messages (field updates, dumps, clock messages) per
second of CPU, timers included. Press latency = the time spent inside ``on_message`` for the clock
message whose lever flip commits a move, compared with the 10.4 ms one clock message takes on the
wire at 9600 baud (10 bytes x 10 bits).

Run: ``.venv/bin/python bench/bench_reconstruct.py [--seeds N]`` (rewrites its README section).
"""

from __future__ import annotations

import argparse
import os
import platform
import re
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests" / "reconstruct"))

from trace_gen import NOISY, game_trace, real_games  # noqa: E402

from bughouse_bridge.bughouse.events import MovePlayed  # noqa: E402
from bughouse_bridge.bughouse.match import Match  # noqa: E402
from bughouse_bridge.bughouse.rules import get_preset  # noqa: E402
from bughouse_bridge.bughouse.types import BoardId  # noqa: E402
from bughouse_bridge.dgt.decoder import DgtDecoder  # noqa: E402
from bughouse_bridge.dgt.messages import ClockTimes, Message  # noqa: E402
from bughouse_bridge.reconstruct import MatchReconstructor, ReconstructorConfig  # noqa: E402

WIRE_MS_PER_CLOCK_MESSAGE = 10 * 10 / 9600 * 1000  # 10 bytes, 10 bits each, 9600 baud
Feed = list[tuple[float, BoardId, Message]]


def decoded(records: list) -> Feed:
    decoders = {board: DgtDecoder() for board in BoardId}
    feed: Feed = []
    for record in records:
        if record.direction == "rx":
            board = BoardId(record.link)
            feed += [(record.t, board, m) for m in decoders[board].feed(record.data)]
    return feed


def run(feed: Feed) -> tuple[float, list[float], int]:
    """Seconds for the whole replay, the press latencies (s) and the moves committed."""
    rec = MatchReconstructor(Match(get_preset("fics")), ReconstructorConfig())
    presses: list[float] = []
    moves = 0
    start = time.perf_counter()
    for t, board, message in feed:
        while (deadline := rec.deadline()) is not None and deadline <= t:
            moves += sum(isinstance(o, MovePlayed) for o in rec.on_timer(deadline))
        before = time.perf_counter()
        out = rec.on_message(board, message, t)
        spent = time.perf_counter() - before
        committed = sum(isinstance(o, MovePlayed) for o in out)
        if committed and isinstance(message, ClockTimes):
            presses.append(spent)
        moves += committed
    while (deadline := rec.deadline()) is not None and deadline <= feed[-1][0] + 10:
        moves += sum(isinstance(o, MovePlayed) for o in rec.on_timer(deadline))
    return time.perf_counter() - start, presses, moves


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seeds", type=int, default=10)
    seeds = parser.parse_args().seeds
    games = real_games()
    feeds = [
        decoded(game_trace(game, seed, noise=NOISY)[1])
        for game in games.values()
        for seed in range(seeds)
    ]
    messages = sum(len(feed) for feed in feeds)
    best = float("inf")
    presses: list[float] = []
    moves = 0
    for _ in range(3):
        results = [run(feed) for feed in feeds]
        total = sum(seconds for seconds, _, _ in results)
        if total < best:
            best, presses = total, [p for _, ps, _ in results for p in ps]
            moves = sum(m for _, _, m in results)
    per_game = best / len(feeds)
    rate = messages / best
    ms = sorted(p * 1000 for p in presses)
    p95, median = ms[int(len(ms) * 0.95)], statistics.median(ms)
    median_ratio = median / WIRE_MS_PER_CLOCK_MESSAGE
    worst_ratio = ms[-1] / WIRE_MS_PER_CLOCK_MESSAGE
    section = f"""## Reconstructor

Run: `.venv/bin/python bench/bench_reconstruct.py --seeds {seeds}` (rewrites this section).

Traces: {len(games)} real games (bughousedb) x {seeds} seeds, emulated on two boards with the noisy
handling knobs (knocked-over pieces, misreads, line garbage, forgotten presses), decoded up front;
{messages:,} sensor messages, {moves:,} moves committed; best of 3 runs, timers included.

| measure | value |
|---|---:|
| replay throughput | {rate:,.0f} messages/s |
| one game (both boards, ~{messages // len(feeds):,} messages) | {per_game * 1000:.0f} ms |
| press → committed move, median | {median:.3f} ms ({median_ratio:.3f}x one clock message) |
| press → committed move, p95 / max | {p95:.3f} / {ms[-1]:.3f} ms ({worst_ratio:.2f}x at worst) |

Press latency = time inside `on_message` for the clock message whose lever flip commits the move
(the 10-byte BWTIME message takes {WIRE_MS_PER_CLOCK_MESSAGE:.1f} ms on the wire at 9600 baud).
Machine: {os.cpu_count()} CPUs, {_cpu()}, Python {platform.python_version()}.
"""
    print(section)
    _write_section(section)


def _cpu() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


def _write_section(section: str) -> None:
    readme = ROOT / "bench" / "README.md"
    text = readme.read_text() if readme.exists() else "# Benchmarks\n"
    pattern = re.compile(r"## Reconstructor\n.*?(?=\n## |\Z)", re.DOTALL)
    if pattern.search(text):
        text = pattern.sub(lambda _: section.rstrip("\n"), text)
    else:
        text = text.rstrip("\n") + "\n\n" + section
    readme.write_text(text.rstrip("\n") + "\n")


if __name__ == "__main__":
    main()
