"""Re-synchronisation after a link gap: how often the gap solver recovers the missed plies.

Run: ``.venv/bin/python bench/bench_resync.py [--quick]`` (rewrites the "Gap recovery" section of
bench/README.md).

Positions come from the real games in ``src/bughouse_bridge/data/games`` (and
``/work/shared/data/bpgn`` when present): every ``STRIDE``-th point of each game starts a gap of
1-20 plies on board A, on board B, or on both. As live: the connected board's moves during the gap
are already in the match, except from the first one that needs a piece only the missing board can
have delivered (the reconstructor holds that board back, and the two are solved together). The
side on move comes from the running clock. Outcomes: *exact* (unique and the very plies played),
*equivalent* (unique, other plies, the same positions, pockets and side to move), *arbiter*
(ambiguous, none, or the work cap reached: the position is published and the arbiter asked),
*wrong* (a unique answer that differs from the truth: must be 0).
"""

from __future__ import annotations

import argparse
import platform
import re
import statistics
import sys
import time
from pathlib import Path

from bughouse_bridge.bughouse.bpgn import parse_bpgn
from bughouse_bridge.bughouse.match import Match
from bughouse_bridge.bughouse.rules import get_preset
from bughouse_bridge.bughouse.types import BoardId, BughouseMove
from bughouse_bridge.reconstruct.gap import GapLimits, Verdict, end_state, solve_gap

ROOT = Path(__file__).resolve().parent.parent
GAME_DIRS = (ROOT / "src/bughouse_bridge/data/games", Path("/work/shared/data/bpgn"))
STRIDE = 10
GAPS = (1, 2, 3, 5, 8, 12, 20)
LIMITS = GapLimits()  # the live default (50,000 plies tried at most)


def games() -> list[list[BughouseMove]]:
    seen: dict[str, list[BughouseMove]] = {}
    for folder in GAME_DIRS:
        for path in sorted(folder.glob("*.bpgn")) if folder.is_dir() else []:
            game = parse_bpgn(path.read_text())[0]
            match = Match(get_preset("fics"))
            moves = []
            for bpgn_move in game.moves:
                move = match.parse_san(bpgn_move.board, bpgn_move.san)
                match.play(move, t=0.0)
                moves.append(move)
            seen.setdefault(path.stem, moves)
    return list(seen.values())


def one_gap(moves: list[BughouseMove], start: int, plies: int, cut: frozenset[BoardId]):
    """The match before the gap as the bridge knows it, the targets, the truth."""
    rules = get_preset("fics")
    known = Match(rules)
    for move in moves[:start]:
        known.play(move, t=0.0)
    truth = known.copy()
    counted = dict.fromkeys(cut, 0)
    held: set[BoardId] = set()
    for move in moves[start:]:
        if all(count >= plies for count in counted.values()):
            break
        if move.board in cut:
            counted[move.board] += 1
        elif move.board not in held and known.judge(move).legal:
            known.play(move, t=0.0)
        else:
            held.add(move.board)
        truth.play(move, t=0.0)
    if truth.result is not None:
        return None
    boards = set(cut) | held
    targets = {board: truth.board_fen(board) for board in boards}
    turns = {board: truth.turn(board) for board in boards}
    return known, targets, turns, truth


def run(*, quick: bool) -> dict[str, object]:
    tally = {"exact": 0, "equivalent": 0, "arbiter": 0, "wrong": 0}
    by_length: dict[int, list[int]] = {plies: [0, 0] for plies in GAPS}  # [exact, all]
    times: list[float] = []
    limits = LIMITS
    for moves in games():
        for start in range(0, len(moves) - 1, STRIDE * (3 if quick else 1)):
            for plies in GAPS[:5] if quick else GAPS:
                for cut in (frozenset({BoardId.A}), frozenset({BoardId.B}), frozenset(BoardId)):
                    case = one_gap(moves, start, plies, cut)
                    if case is None:
                        continue
                    known, targets, turns, truth = case
                    began = time.perf_counter()
                    solution = solve_gap(known, targets, turns=turns, limits=limits)
                    times.append(time.perf_counter() - began)
                    verdict = classify(solution, known, truth)
                    tally[verdict] += 1
                    by_length[plies][0] += verdict in {"exact", "equivalent"}
                    by_length[plies][1] += 1
                    if verdict == "wrong":
                        print("wrong:", start, plies, sorted(cut), file=sys.stderr)
    return {"tally": tally, "times": times, "by_length": by_length}


def classify(solution, known: Match, truth: Match) -> str:
    if solution.verdict is not Verdict.UNIQUE:
        return "arbiter"
    (candidate,) = solution.candidates
    if candidate.end != end_state(truth):
        return "wrong"
    played = {board: truth.ply(board) - known.ply(board) for board in BoardId}
    return "exact" if all(len(candidate.on(b)) == n for b, n in played.items()) else "equivalent"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a few cases only (a smoke run)")
    args = parser.parse_args()
    result = run(quick=args.quick)
    tally: dict[str, int] = result["tally"]  # type: ignore[assignment]
    times: list[float] = sorted(result["times"])  # type: ignore[arg-type]
    total = sum(tally.values())
    print(tally, total)
    p50 = statistics.median(times) * 1000
    p99 = times[min(len(times) - 1, int(len(times) * 0.99))] * 1000
    print(f"p50 {p50:.1f} ms, p99 {p99:.1f} ms, max {times[-1] * 1000:.0f} ms")
    by_length: dict[int, list[int]] = result["by_length"]  # type: ignore[assignment]
    lengths = " | ".join(
        f"{plies}: {100 * done / count:.0f} %"
        for plies, (done, count) in by_length.items()
        if count
    )
    print("recovered by plies per missing board:", lengths)
    if not args.quick:
        write_readme(tally, total, (p50, p99, times[-1] * 1000), lengths)


def write_readme(
    tally: dict[str, int], total: int, latency: tuple[float, float, float], lengths: str
) -> None:
    p50, p99, worst = latency
    share = {key: f"{100 * value / total:.1f} % ({value})" for key, value in tally.items()}
    row = " | ".join(share[key] for key in ("exact", "equivalent", "arbiter", "wrong"))
    row = f"| {row} |"
    section = f"""## Gap recovery

Run: `.venv/bin/python bench/bench_resync.py` (rewrites this section).

Real games, a gap every {STRIDE} plies of {len(GAPS)} lengths ({", ".join(map(str, GAPS))} plies per
missing board) on board A, board B and both: {total} gaps. Limits: {LIMITS.max_nodes:,} plies
tried at most per gap, the live default.

| recovered exactly | same position, other plies | left to the arbiter | recovered wrongly |
|---:|---:|---:|---:|
{row}

Recovered (exactly or the same position) by plies per missing board: {lengths}.

Solver time per gap: p50 {p50:.1f} ms, p99 {p99:.0f} ms, worst {worst:.0f} ms (on the core's
thread, not the event loop: the readings of both boards wait that long). "Left to the arbiter" means
the position was published as it stands with one `gap_ambiguous` alert; most of these are the
work cap (verdict `unknown`), not a true ambiguity.

Machine: {platform.machine()}, 2 CPUs AMD EPYC, Python {platform.python_version()}.
"""
    readme = ROOT / "bench/README.md"
    text = readme.read_text()
    pattern = re.compile(r"## Gap recovery\n.*?(?=\n## |\Z)", re.DOTALL)
    text = (
        pattern.sub(section.rstrip("\n"), text)
        if pattern.search(text)
        else text.rstrip("\n") + "\n\n" + section
    )
    readme.write_text(text.rstrip("\n") + "\n")


if __name__ == "__main__":
    sys.exit(main())
