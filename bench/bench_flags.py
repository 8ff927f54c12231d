"""How close the bridge's flag time (note H) comes to the true zero crossing, per clock model.

Run: ``.venv/bin/python bench/bench_flags.py`` (prints the table of bench/README.md "Flag timing").

Each run lets an emulated clock (``emulator/clock.py``) run out between 3 and 20 s; the board
polls it every 0.25 s and sends a reading when it changed; each message reaches the host up to
0.5 s late (uniform, in order) and goes through the real DGT codec into ``ClockTracker``. We
compare two estimates of when the time ran out: the arrival of the flag message, and the
tracker's ``at`` (the clock's own countdown). Errors are ``estimate - true crossing`` in seconds.
"""

from __future__ import annotations

import os
import platform
import random
import statistics

import chess

from bughouse_bridge.dgt.decoder import DgtDecoder
from bughouse_bridge.dgt.encoder import encode_message
from bughouse_bridge.dgt.messages import ClockTimes, ClockType, LeverSide
from bughouse_bridge.emulator.clock import ClockConfig, ClockModel, ClockSetting
from bughouse_bridge.reconstruct.clocks import ClockTracker

RUNS = 2000
POLL = 0.25
MAX_DELAY = 0.5


def one_run(kind: ClockType, told: ClockType | None, rng: random.Random) -> tuple[float, float]:
    """(countdown error, flag-message error) of one clock running out."""
    seconds = rng.uniform(3.0, 20.0)
    clock = ClockModel(ClockConfig(kind=kind, white_side=LeverSide.LEFT))
    clock.set(ClockSetting(int(seconds * 1000), 300_000, LeverSide.LEFT), 0.0)
    tracker = ClockTracker(LeverSide.LEFT)
    tracker.model = told
    decoder = DgtDecoder()
    last: ClockTimes | None = None
    arrival = 0.0
    t = rng.uniform(0.0, POLL)
    while True:
        reading = clock.reading(t)
        if reading != last:
            last = reading
            arrival = max(arrival, t + rng.uniform(0.0, MAX_DELAY))
            (times,) = decoder.feed(encode_message(reading))
            assert isinstance(times, ClockTimes)
            update = tracker.feed(
                times, arrival, turn=chess.WHITE, at_rest=True, presser=chess.BLACK
            )
            if update.flags:
                ((_, at),) = update.flags
                return at - seconds, arrival - seconds
        t += POLL


def main() -> None:
    rng = random.Random(20261123)
    print("| clock | model known | countdown mean / p95 / max | flag message mean / p95 / max |")
    print("|---|---|---:|---:|")
    for kind in (ClockType.DGT3000, ClockType.XL):
        for told in (kind, None):
            pairs = [one_run(kind, told, rng) for _ in range(RUNS)]
            cells = [_stats([pair[i] for pair in pairs]) for i in (0, 1)]
            print(f"| {kind.value} | {'yes' if told else 'no'} | {cells[0]} | {cells[1]} |")
    print(f"\nMachine: {os.cpu_count()} CPUs, Python {platform.python_version()}.")


def _stats(errors: list[float]) -> str:
    ordered = sorted(errors)
    p95 = ordered[int(0.95 * len(ordered))]
    return f"{statistics.mean(errors):.3f} / {p95:.3f} / {ordered[-1]:.3f}"


if __name__ == "__main__":
    main()
