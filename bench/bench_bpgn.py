"""The cost of writing and reading a whole game's BPGN at once.

Run: ``.venv/bin/python bench/bench_bpgn.py`` (rewrites its section of bench/README.md).

Writing = the one writer over a whole game at once: the match's facts followed by a new
``GameRecord`` and every entry appended to a new ``BpgnDocument``, then its text (what a box
would do to write a game it had not followed; live, the bridge appends one entry a move, see
``bench_record.py``); reading = ``parse_bpgn`` of the written text. Best of 5 runs.
"""

from __future__ import annotations

import os
import platform
import random
import sys
import timeit
from pathlib import Path
from typing import TYPE_CHECKING

from bughouse_bridge.bughouse.bpgn import BpgnDocument, parse_bpgn_game, replay
from bughouse_bridge.bughouse.match import Match
from bughouse_bridge.bughouse.record import GameRecord
from bughouse_bridge.bughouse.rules import get_preset
from bughouse_bridge.bughouse.types import BoardId
from bughouse_bridge.data import bundled_game
from readme_section import write_section

if TYPE_CHECKING:
    from collections.abc import Mapping

HEADING = "## BPGN record"
RUNS = 5


def real_game() -> Match:
    match = Match(get_preset("fics"))
    replay(parse_bpgn_game(bundled_game("1934301")), match)
    return match


def random_game(plies: int, seed: int = 1) -> Match:
    """A long legal playout (no result stops it: both boards keep moving while they can)."""
    rng = random.Random(seed)
    match = Match(get_preset("fics"))
    clocks = dict.fromkeys(BoardId, 600_000)
    for index in range(plies):
        board = rng.choice(list(BoardId))
        moves = match.legal_moves(board) or match.legal_moves(board.other)
        if not moves or match.result is not None:
            break
        move = rng.choice(moves)
        clocks[move.board] -= rng.randrange(100, 3000)
        match.play(move, t=float(index), clock_ms=clocks[move.board])
    return match


def write_whole(match: Match, tags: Mapping[str, str]) -> str:
    """The game's BPGN written from nothing by the one writer, entry after entry."""
    record = GameRecord()
    record.sync(match.record)
    document = BpgnDocument()
    document.update(record.entries, 0)
    return document.text(tags, record.result)


def measure(label: str, match: Match) -> str:
    tags = {"Event": "bench", "WhiteA": "a", "BlackA": "b", "WhiteB": "c", "BlackB": "d"}
    text = write_whole(match, tags)
    moves = len(parse_bpgn_game(text).moves)
    number = 50
    writing = min(timeit.repeat(lambda: write_whole(match, tags), number=number, repeat=RUNS))
    writing /= number
    reading = min(timeit.repeat(lambda: parse_bpgn_game(text), number=number, repeat=RUNS))
    reading /= number
    return (
        f"| {label} | {moves} | {len(text):,} | {writing * 1000:.2f} "
        f"| {writing / moves * 1e6:.0f} | {reading * 1000:.2f} |"
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
    load = os.getloadavg()[0]
    return f"{os.cpu_count()} CPUs, {cpu}, Python {platform.python_version()}, load {load:.1f}."


def section(rows: list[str]) -> str:
    return "\n".join(
        [
            HEADING,
            "",
            "Run: `.venv/bin/python bench/bench_bpgn.py` (rewrites this section).",
            "",
            "The whole game written at once by the one writer (the match's facts into a new",
            "`GameRecord`, every entry appended to a new `BpgnDocument`, its text; O(half-moves))",
            "and read back (`parse_bpgn`). Until issue 20 the bridge wrote the whole game after",
            'every move; it now appends one half-move a move ("Publishing a move" below). Best of',
            "5 runs.",
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
