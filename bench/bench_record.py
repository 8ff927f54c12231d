"""The cost of publishing one move, early and late in a game (issue 20).

Run: ``.venv/bin/python bench/bench_record.py [--instructions]`` (rewrites its section of
bench/README.md; ``--instructions`` adds instruction counts from valgrind's callgrind, which
take a few minutes).

A long random legal playout (``fics``, both boards, clocks on every move) goes through the real
pipeline after the reconstructor: ``Match.play`` (the referee: legality, SAN, mates, and the
record fact of the log entry) and ``Bridge.step`` (numbering, the event payload, the record
entry, header, BPGN and one state). For the plies around 10 and around 200 the figure is
the median CPU time (``time.process_time_ns``: what the process itself spent, not what other
programs on the machine took) — on a busy machine wall-clock timings of a few hundred
microseconds are noise. Bytes: every payload the step publishes, by topic.
"""

from __future__ import annotations

import gc
import os
import platform
import random
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import TYPE_CHECKING

from bughouse_bridge.bridge import Bridge, BridgeConfig
from bughouse_bridge.bughouse.bpgn import BpgnDocument
from bughouse_bridge.bughouse.record import GameRecord
from bughouse_bridge.bughouse.rules import get_preset
from bughouse_bridge.bughouse.types import BoardId
from bughouse_bridge.reconstruct import ReconstructorConfig
from readme_section import write_section

if TYPE_CHECKING:
    from collections.abc import Callable

    from bughouse_bridge.bughouse.events import MatchEvent
    from bughouse_bridge.bughouse.match import Match
    from bughouse_bridge.bughouse.types import BughouseMove

HEADING = "## Publishing a move: cost and bytes"
WINDOWS = {10: range(6, 16), 200: range(195, 205)}
SEEDS = (1, 2, 3, 4, 5)
KINDS = ("events", "record/<n>", "record", "bpgn", "state", "games")


def new_bridge() -> Bridge:
    config = BridgeConfig(
        bridge_id="table-1",
        match_id="m-1",
        rules=get_preset("fics"),
        reconstructor=ReconstructorConfig(),
        links={"A": BoardId.A, "B": BoardId.B},
        clock_origin_epoch=1_763_890_000.0,
    )
    return Bridge(config)


def playout(seed: int, plies: int) -> list[BughouseMove]:
    """Legal moves of both boards in a random order, ``plies`` of them (no result stops it)."""
    rng = random.Random(seed)
    bridge = new_bridge()
    match = bridge.reconstructor.match
    moves: list[BughouseMove] = []
    while len(moves) < plies:
        board = rng.choice(list(BoardId))
        legal = match.legal_moves(board) or match.legal_moves(board.other)
        if not legal or match.result is not None:
            break
        move = rng.choice(legal)
        match.play(move, t=float(len(moves)), clock_ms=600_000 - 1000 * len(moves))
        moves.append(move)
    return moves


def shuffle(_seed: int, plies: int) -> list[BughouseMove]:
    """The knights out and back on both boards: every position comes again and again, so what
    a move costs at ply 200 against ply 10 can only differ by the game's length."""
    bridge = new_bridge()
    match = bridge.reconstructor.match
    cycle = [(BoardId.A, "Nf3"), (BoardId.A, "Nf6"), (BoardId.B, "Nc3"), (BoardId.B, "Nc6")]
    cycle += [(BoardId.A, "Ng1"), (BoardId.A, "Ng8"), (BoardId.B, "Nb1"), (BoardId.B, "Nb8")]
    moves = []
    for index in range(plies):
        board, san = cycle[index % len(cycle)]
        move = match.parse_san(board, san)
        match.play(move, t=float(index))
        moves.append(move)
    return moves


PLAYOUTS = {"random": playout, "knights out and back": shuffle}


def kind(topic: str) -> str:
    leaf = topic.rsplit("/", 2)
    if leaf[-2] == "record":
        return "record/<n>"
    return leaf[-1] if leaf[-1] in KINDS else "other"


def publish(
    bridge: Bridge, move: BughouseMove, ply: int
) -> tuple[int, int, dict[str, int], list[MatchEvent]]:
    """One move through the referee and the publisher: CPU ns of each, bytes by topic."""
    t = 1000.0 + ply
    start = time.process_time_ns()
    events: list[MatchEvent] = bridge.reconstructor.match.play(
        move, t=t, clock_ms=600_000 - 1000 * ply
    )
    played = time.process_time_ns()
    output = bridge.step(events, t)
    done = time.process_time_ns()
    sizes = dict.fromkeys(KINDS, 0)
    for publication in output.publications:
        name = kind(publication.topic)
        sizes[name] = sizes.get(name, 0) + len(publication.payload)
    return played - start, done - played, sizes, events


def measure(games: Callable[[int, int], list[BughouseMove]]) -> dict[int, dict[str, float]]:
    """Every move of each playout published once, in order, as in a game; the moves of each
    window are the samples (a copy of the bridge per sample would be fairer in theory, but
    copying a long game before each step fills the caches and costs the step more than the
    game's length does)."""
    samples: dict[int, dict[str, list[float]]] = {
        ply: {"play": [], "step": [], "rebuild": [], **{k: [] for k in KINDS}} for ply in WINDOWS
    }
    last = max(max(window) for window in WINDOWS.values())
    for seed in SEEDS:
        bridge = new_bridge()
        for ply, move in enumerate(games(seed, last + 1)):
            target = next((p for p, window in WINDOWS.items() if ply in window), None)
            if target is not None:
                samples[target]["rebuild"].append(rebuild_ns(bridge.reconstructor.match))
            play_ns, step_ns, sizes, _ = publish(bridge, move, ply)
            if target is not None:
                samples[target]["play"].append(play_ns)
                samples[target]["step"].append(step_ns)
                for name in KINDS:
                    samples[target][name].append(sizes[name])
    return {
        ply: {name: statistics.median(values) for name, values in by.items()}
        for ply, by in samples.items()
    }


def rebuild_ns(match: Match) -> float:
    """What one publication would cost if the BPGN were written anew each time, as before
    issue 20: the whole record followed and written by the one writer from nothing."""
    start = time.process_time_ns()
    record = GameRecord()
    record.sync(match.record)
    document = BpgnDocument()
    document.update(record.entries, 0)
    document.text({"Event": "bench"}, record.result)
    return time.process_time_ns() - start


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


def section(results: dict[str, dict[int, dict[str, float]]]) -> str:
    rows = []
    for name, by_ply in results.items():
        for ply, figures in by_ply.items():
            rows.append(row(name, ply, figures))
    return text_of(rows)


def row(name: str, ply: int, figures: dict[str, float]) -> str:
    total = sum(figures[kind] for kind in KINDS)
    return (
        f"| {name} | ~{ply} | {figures['play'] / 1000:.0f} | {figures['step'] / 1000:.0f} "
        f"| {figures['rebuild'] / 1000:.0f} | {total:,.0f} | "
        + " | ".join(f"{figures[kind]:,.0f}" for kind in KINDS)
        + " |"
    )


def text_of(rows: list[str]) -> str:
    return "\n".join(
        [
            HEADING,
            "",
            "Run: `.venv/bin/python bench/bench_record.py --instructions` (rewrites this section;",
            "without `--instructions` it leaves out the valgrind counts, which take minutes).",
            "",
            "One move of a random `fics` playout (both boards, clocks), published by the pipeline",
            "after the reconstructor: `Match.play` (the referee, and the record fact of its log",
            "entry) and `Bridge.step` (event, record entry, header, BPGN, one state). Median over",
            f"the plies of each window of {len(SEEDS)} playouts, in **CPU time** (`process_time`):",
            "wall-clock figures of a few hundred µs are noise on a shared machine. `rebuild` is",
            "what the BPGN alone would cost per publication if it were written anew each time,",
            "as before issue 20 (the whole record through the one writer, O(plies)).",
            "",
            "| playout | ply | play µs | step µs | rebuild µs | bytes | "
            + " | ".join(KINDS)
            + " |",
            "|---|---:|---:|---:|---:|---:|" + "---:|" * len(KINDS),
            *rows,
            "",
            "The knights' shuffle repeats the same positions, so its two rows differ only by the",
            "game's length; the random playout's late positions are richer (full pockets). On",
            "this shared machine the CPU times of late plies vary by up to a third from run to",
            "run (other programs' load, caches; the referee's `play` too, which does nothing",
            "more at ply 200); the instruction counts below vary far less (the step's by 1 %,",
            "the referee's by up to a quarter between runs) and do not grow from ply 10 to 200.",
            "Every column but `bpgn` stays the same as the game grows: the record entry, header",
            "and state have a fixed size, the event too. The retained BPGN is the whole game by",
            "nature (a late subscriber finds it complete): its bytes grow by about 15 a half-move,",
            "its cost does not (the half-move is written once and the text joined). A subscriber",
            "that follows a game move by move reads the record entries instead.",
            "",
            f"Machine: {machine()}",
            "",
        ]
    )


# -- instructions (callgrind): the same steps counted by valgrind, free of the machine's load ---

COUNTED = 10  # moves counted after each window's start


def child(name: str, start: int, count: int, stage: str) -> None:
    """Under valgrind: a game to ``start``, then ``count`` moves ``played`` only, played and
    ``stepped``, or not at all (``none``). Differences of the totals are what those cost."""
    moves = long_enough(PLAYOUTS[name], start + count)
    bridge = new_bridge()
    for ply, move in enumerate(moves):
        if ply == start:
            # The same heap in every stage here; no collection inside the counted moves (one
            # stage's extra allocations would move a full collection into or out of them).
            gc.collect()
            gc.disable()
        if ply >= start and stage == "none":
            break
        events = bridge.reconstructor.match.play(move, t=float(ply), clock_ms=1000)
        if ply < start or stage == "stepped":
            bridge.step(events, float(ply))


def long_enough(games: Callable[[int, int], list[BughouseMove]], plies: int) -> list[BughouseMove]:
    """The first playout (by seed) that lasts ``plies`` (a random one may end in a mate)."""
    for seed in range(1, 100):
        moves = games(seed, plies)
        if len(moves) == plies:
            return moves
    raise RuntimeError(f"no playout of {plies} plies")


def instructions(name: str, start: int, stage: str) -> int:
    with tempfile.TemporaryDirectory() as folder:
        command = [
            "valgrind",
            "--tool=callgrind",
            f"--callgrind-out-file={folder}/out",
            sys.executable,
            __file__,
            "--child",
            name,
            str(start),
            str(COUNTED),
            stage,
        ]
        environment = {**os.environ, "PYTHONHASHSEED": "0"}
        done = subprocess.run(command, capture_output=True, text=True, check=True, env=environment)  # noqa: S603
    found = re.search(r"Collected : (\d+)", done.stderr)
    assert found is not None, done.stderr
    return int(found[1])


def counted() -> dict[str, dict[int, dict[str, float]]]:
    """Instructions per move: (played − none) / n for the referee, (stepped − played) / n for
    the publisher."""
    results: dict[str, dict[int, dict[str, float]]] = {}
    for name in PLAYOUTS:
        results[name] = {}
        for start in WINDOWS:
            total = {stage: instructions(name, start, stage) for stage in STAGES}
            results[name][start] = {
                "play": (total["played"] - total["none"]) / COUNTED,
                "step": (total["stepped"] - total["played"]) / COUNTED,
            }
    return results


STAGES = ("none", "played", "stepped")


def instructions_text(results: dict[str, dict[int, dict[str, float]]]) -> str:
    rows = [
        f"| {name} | {start} | {figures['play'] / 1e6:.2f} | {figures['step'] / 1e6:.2f} |"
        for name, by_start in results.items()
        for start, figures in by_start.items()
    ]
    return "\n".join(
        [
            f"Instructions (valgrind's callgrind, `--instructions`): the {COUNTED} moves from ply",
            "10 and from ply 200 of one playout of each kind, counted by difference of whole",
            "runs (a game to that ply, then the moves not played, played, played and published;",
            "no garbage collection among the counted moves).",
            "",
            "| playout | from ply | play M instructions / move | step M instructions / move |",
            "|---|---:|---:|---:|",
            *rows,
        ]
    )


def main() -> None:
    if sys.argv[1:2] == ["--child"]:
        name, start, count, stage = sys.argv[2:6]
        child(name, int(start), int(count), stage)
        return
    results = {name: measure(games) for name, games in PLAYOUTS.items()}
    text = section(results)
    if "--instructions" in sys.argv:
        marker = "\nMachine: "
        head, _, tail = text.rpartition(marker)
        text = f"{head}\n{instructions_text(counted())}\n{marker}{tail}"
    print(text)
    write_section(HEADING, text)


if __name__ == "__main__":
    main()
