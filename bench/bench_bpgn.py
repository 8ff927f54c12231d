"""The cost of writing and reading a whole game's BPGN at once.

Run: ``.venv/bin/python bench/bench_bpgn.py`` (rewrites its section of bench/README.md).

Writing = ``game_from_match_log`` + ``write_bpgn`` over the whole game (the whole-game writer of
an event list: replays, tools; until issue 20 the bridge did this after every move — it now
writes one half-move at a time, see ``bench_record.py``); reading = ``parse_bpgn`` of the
written text. Best of 5 runs.
"""

from __future__ import annotations

import os
import platform
import random
import sys
import timeit
from pathlib import Path
from typing import TYPE_CHECKING

from bughouse_bridge.bughouse.bpgn import (
    game_from_match_log,
    parse_bpgn_game,
    replay,
    write_bpgn,
)
from bughouse_bridge.bughouse.match import Match
from bughouse_bridge.bughouse.rules import get_preset
from bughouse_bridge.bughouse.types import BoardId
from bughouse_bridge.data import bundled_game
from readme_section import write_section

if TYPE_CHECKING:
    from bughouse_bridge.bughouse.events import MatchEvent

HEADING = "## BPGN record"
RUNS = 5


def real_game() -> list[MatchEvent]:
    steps = replay(parse_bpgn_game(bundled_game("1934301")), Match(get_preset("fics")))
    return [event for step in steps for event in step.events]


def random_game(plies: int, seed: int = 1) -> list[MatchEvent]:
    """A long legal playout (no result stops it: both boards keep moving while they can)."""
    rng = random.Random(seed)
    match = Match(get_preset("fics"))
    events: list[MatchEvent] = []
    clocks = dict.fromkeys(BoardId, 600_000)
    for index in range(plies):
        board = rng.choice(list(BoardId))
        moves = match.legal_moves(board) or match.legal_moves(board.other)
        if not moves or match.result is not None:
            break
        move = rng.choice(moves)
        clocks[move.board] -= rng.randrange(100, 3000)
        events += match.play(move, t=float(index), clock_ms=clocks[move.board])
    return events


def measure(label: str, events: list[MatchEvent]) -> str:
    tags = {"Event": "bench", "WhiteA": "a", "BlackA": "b", "WhiteB": "c", "BlackB": "d"}
    game = game_from_match_log(events, tags=tags)
    text = write_bpgn(game)

    def publish() -> None:
        write_bpgn(game_from_match_log(events, tags=tags))

    number = 50
    publication = min(timeit.repeat(publish, number=number, repeat=RUNS)) / number
    reading = min(timeit.repeat(lambda: parse_bpgn_game(text), number=number, repeat=RUNS))
    reading /= number
    return (
        f"| {label} | {len(game.moves)} | {len(text):,} | {publication * 1000:.2f} "
        f"| {publication / len(game.moves) * 1e6:.0f} | {reading * 1000:.2f} |"
    )


def machine() -> str:
    cpu = next(
        (
            line.split(":", 1)[1].strip()
            for line in Path("/proc/cpuinfo").read_text().splitlines()
            if line.startswith("model name")
        ),
        platform.processor() or "unknown CPU",
    )
    return f"{os.cpu_count()} CPUs, {cpu}, Python {platform.python_version()}."


def section(rows: list[str]) -> str:
    return "\n".join(
        [
            HEADING,
            "",
            "Run: `.venv/bin/python bench/bench_bpgn.py` (rewrites this section).",
            "",
            "The whole game written at once (`game_from_match_log` + `write_bpgn`, O(half-moves))",
            "and read back (`parse_bpgn`). Until issue 20 the bridge did this after every move;",
            'it now writes one half-move at a time ("Publishing a move" below). Best of 5 runs.',
            "",
            "| game | half-moves | bytes | ms to write | µs per half-move | parse ms |",
            "|---|---:|---:|---:|---:|---:|",
            *rows,
            "",
            f"Machine: {machine()}",
            "",
        ]
    )


def main() -> None:
    rows = [measure("1934301 (real, fics)", real_game())]
    print(rows[-1], flush=True)
    for plies in (200, 400):
        rows.append(measure(f"random playout, {plies} plies asked", random_game(plies)))
        print(rows[-1], flush=True)
    write_section(HEADING, section(rows))
    print(f"Machine: {machine()}", file=sys.stderr)


if __name__ == "__main__":
    main()
