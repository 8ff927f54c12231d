"""Emulator throughput: how fast a real bughouse game is turned into a two-board wire trace.

Run: .venv/bin/python bench/bench_emulator.py
"""

from __future__ import annotations

import statistics
import time

from bughouse_bridge.bughouse.bpgn import parse_bpgn
from bughouse_bridge.data import bundled_game
from bughouse_bridge.emulator.game import game_scenario
from bughouse_bridge.emulator.handling import Noise
from bughouse_bridge.emulator.playback import run_scenario

ROUNDS = 5


def main() -> None:
    game = parse_bpgn(bundled_game("1934301"))[0]
    noise = Noise(knock_over=0.05, misread=0.05, garbage=0.05)
    plan_times, run_times = [], []
    records = 0
    simulated = 0.0
    for seed in range(ROUNDS):
        started = time.perf_counter()
        plan = game_scenario(game, seed=seed, noise=noise)
        planned = time.perf_counter()
        result = run_scenario(plan.scenario)
        done = time.perf_counter()
        plan_times.append(planned - started)
        run_times.append(done - planned)
        records = len(result.records)
        simulated = plan.end
    run = statistics.median(run_times)
    print(f"game 1934301: {len(game.moves)} half-moves, {simulated:.0f} s simulated")
    print(f"plan  median {statistics.median(plan_times) * 1000:.1f} ms")
    print(f"run   median {run * 1000:.1f} ms for {records} trace records")
    print(f"speed {simulated / run:,.0f}x real time")


if __name__ == "__main__":
    main()
