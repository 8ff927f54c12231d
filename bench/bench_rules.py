"""Rules core per-move cost (judge + play, which classifies mates) against pyffish, same moves.

Run: ``.venv/bin/python bench/bench_rules.py`` (rewrites its section of bench/README.md).

Games: random two-board playouts (fixed seed) under ``fics`` and ``dsj``, plus the bundled real
bughousedb games when the BPGN module can replay them. pyffish does the same positions:
``sf.legal_moves`` + ``sf.get_fen`` per move. Best of 3 runs.
"""

from __future__ import annotations

import os
import platform
import random
import statistics
import sys
import time
from pathlib import Path

import pyffish as sf

from bughouse_bridge.bughouse.match import Match
from bughouse_bridge.bughouse.rules import get_preset
from bughouse_bridge.bughouse.types import BoardId, BughouseMove
from readme_section import write_section

GAMES = 30
MAX_PLIES = 160
RUNS = 3
HEADING = "## Rules core per-move cost"
TABLE_HEAD = (
    "| games | rules | moves | ours µs/move | pyffish µs/move | pyffish/ours "
    "| successors µs median / p99 |"
)

Record = list[tuple[BughouseMove, str]]  # each move with the FEN of its board before it


def random_game(preset: str, seed: int) -> Record:
    rng = random.Random(seed)
    match = Match(get_preset(preset))
    record: Record = []
    for _ in range(MAX_PLIES):
        board = rng.choice(list(BoardId))
        moves = match.legal_moves(board) or match.legal_moves(board.other)
        if not moves or match.result is not None:
            break
        move = rng.choice(moves)
        record.append((move, match.fen(move.board)))
        match.play(move, t=0.0)
    return record


def real_games() -> list[Record]:
    try:
        from bughouse_bridge.bughouse.bpgn import parse_bpgn_game  # noqa: PLC0415
        from bughouse_bridge.data import bundled_game, bundled_game_names  # noqa: PLC0415
    except ImportError:
        return []
    records = []
    for name in bundled_game_names():
        match = Match(get_preset("fics"))
        record: Record = []
        for bpgn_move in parse_bpgn_game(bundled_game(name)).moves:
            move = match.parse_san(bpgn_move.board, bpgn_move.san)
            record.append((move, match.fen(move.board)))
            match.play(move, t=0.0)
        records.append(record)
    return records


def time_ours(preset: str, games: list[Record]) -> float:
    start = time.perf_counter()
    for game in games:
        match = Match(get_preset(preset))
        for move, _ in game:
            match.judge(move)
            match.play(move, t=0.0)
    return time.perf_counter() - start


def time_pyffish(games: list[Record]) -> float:
    start = time.perf_counter()
    for game in games:
        for move, fen in game:
            sf.legal_moves("bughouse", fen, [])
            sf.get_fen("bughouse", fen, [move.uci])
    return time.perf_counter() - start


def time_successors(preset: str, games: list[Record]) -> list[float]:
    costs = []
    for game in games:
        match = Match(get_preset(preset))
        for move, _ in game:
            start = time.perf_counter()
            match.successors(move.board)
            costs.append(time.perf_counter() - start)
            match.play(move, t=0.0)
    return costs


def measure(label: str, preset: str, games: list[Record]) -> str:
    moves = sum(len(game) for game in games)
    ours = min(time_ours(preset, games) for _ in range(RUNS)) / moves * 1e6
    theirs = (
        min(time_pyffish(games) for _ in range(RUNS)) / moves * 1e6 if preset == "fics" else None
    )
    successors = time_successors(preset, games)
    median = statistics.median(successors) * 1e6
    p99 = statistics.quantiles(successors, n=100)[98] * 1e6
    pyffish = f"{theirs:,.0f}" if theirs else "-"
    ratio = f"{theirs / ours:.1f}x" if theirs else "-"
    cells = [
        label,
        preset,
        f"{moves:,}",
        f"{ours:,.0f}",
        pyffish,
        ratio,
        f"{median:,.0f} / {p99:,.0f}",
    ]
    return "| " + " | ".join(cells) + " |"


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
            "Run: `.venv/bin/python bench/bench_rules.py` (rewrites this section).",
            "",
            "Per move: ours = `Match.judge` + `Match.play` (legality, SAN with the bughouse `#`,",
            "capture routing, steals, mate/stalemate classification of both boards); pyffish =",
            "`legal_moves` + `get_fen` on the same position (legality only, no two-board logic).",
            "`successors()` is what the reconstructor asks on each settle. Best of 3 runs.",
            "",
            TABLE_HEAD,
            "|---|---|---:|---:|---:|---:|---:|",
            *rows,
            "",
            f"Machine: {machine()}",
            "",
        ]
    )


def main() -> None:
    rows = []
    for preset in ("fics", "dsj"):
        games = [random_game(preset, seed) for seed in range(GAMES)]
        rows.append(measure(f"{GAMES} random playouts", preset, games))
        print(rows[-1], flush=True)
    real = real_games()
    if real:
        rows.append(measure(f"{len(real)} real bughousedb games", "fics", real))
        print(rows[-1])
    write_section(HEADING, section(rows))
    print(f"Machine: {machine()}", file=sys.stderr)


if __name__ == "__main__":
    main()
