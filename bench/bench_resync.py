"""Re-synchronisation after a link gap: how often the gap solver recovers the game, and how fast.

Run: ``.venv/bin/python bench/bench_resync.py [--quick]`` (rewrites the "Gap recovery" section of
bench/README.md).

Positions come from the real games in ``src/bughouse_bridge/data/games`` and ``../shared/data/bpgn``
(the shared folder beside the project, when present): every ``STRIDE``-th point of each game starts
a gap of 1-20 plies on board A, on board B, or on both. As live: the connected board's moves during
the gap are already in the match, except from the first one that needs a piece only the missing
board can have delivered (the reconstructor holds that board back, and the two are solved
together: a joint cut whose other board drops pieces captured in the gap). The evidence is what the
clocks show: the side on move (the running clock) and both sides' remaining times before and
after the gap (from the games' clock stamps; a side whose time did not move made no move).

Outcomes per gap: *certain* (``unique``: the game state is certain and published, the plies
recovered), of which *exact order* (the very plies played), *arbiter* (ambiguous, none, or the
work cap: the position is published and the arbiter asked; *truth among candidates* must be
100 %), *wrong* (``unique`` and not the truth's end state: must be 0). *Certain or decided by
later evidence, recommended*: the gaps certain at the return plus those left to the arbiter that
the true continuation of both boards (up to ``later_bench.HORIZON`` plies) decides, as the live
reconstructor weighs them after every move (``reconstruct/later_recommend.py``: the candidate is
recommended to the arbiter, not published until he chooses it), with the median number of later
plies it took; *recommended wrong* (a recommended candidate that is not the truth) must be 0.
"""

from __future__ import annotations

import argparse
import os
import platform
import re
import statistics
import sys
import time
from collections import defaultdict

from bughouse_bridge.reconstruct.gap import (
    GapLimits,
    GapSolution,
    Verdict,
    end_state,
    solve_gap,
)
from later_bench import HORIZON, after_return  # the bench's own helpers (bench/ is on the path)
from resync_cases import GAPS, ROOT, STRIDE, Game, Gap, every_gap

LIMITS = GapLimits()  # the live default
OUTCOMES = (
    "certain",
    "exact",
    "unconfirmed",
    "unconfirmed_wrong",
    "arbiter",
    "among",
    "wrong",
    "recommended",
    "recommended_wrong",
    "contradicted",
    "longer_only",
    "open",
    "not_weighed",
    "proven",
    "proven_same_plies",
)
SPANS = ((1, 20), (21, 99))  # plies in all (both boards): the targets are for 1-20


def classify(solution: GapSolution, gap: Gap) -> set[str]:
    truth = end_state(gap.truth)
    if solution.verdict is not Verdict.UNIQUE:
        among = any(candidate.end == truth for candidate in solution.candidates)
        outcomes = {"arbiter", "among"} if among else {"arbiter"}
        if solution.verdict is Verdict.AMBIGUOUS:
            # Each candidate is a legal story (replayed through the rules) that reaches the
            # placements within the plies the side on move and the clocks allow, and they end
            # in different game states: the evidence cannot decide, whatever the solver.
            outcomes.add("proven")
            if _same_plies(solution, gap) > 1:
                # ...even stories of the truth's own plies per board and side: no clock, however
                # exact, tells those apart.
                outcomes.add("proven_same_plies")
        return outcomes
    (candidate, *_) = solution.candidates
    if not solution.confirmed:  # the shortest, its confirmation out of work: published
        return {"unconfirmed"} if candidate.end == truth else {"unconfirmed_wrong"}
    if candidate.end != truth:
        return {"wrong"}
    exact = all(candidate.on(board) == moves for board, moves in gap.played.items())
    return {"certain", "exact"} if exact else {"certain"}


def _same_plies(solution: GapSolution, gap: Gap) -> int:
    """How many candidates have as many plies on each board as the truth."""
    counts = {board: len(moves) for board, moves in gap.played.items()}
    return sum(
        all(len(candidate.on(board)) == count for board, count in counts.items())
        for candidate in solution.candidates
    )


def run(*, quick: bool, evidence: bool = True) -> dict[str, object]:
    tally: dict[tuple[int, str], dict[str, int]] = defaultdict(lambda: dict.fromkeys(OUTCOMES, 0))
    counts: dict[tuple[int, str], int] = defaultdict(int)
    times: dict[str, list[float]] = defaultdict(list)
    later_plies: dict[tuple[int, str], list[int]] = defaultdict(list)
    spans: dict[tuple[int, int], dict[str, int]] = defaultdict(lambda: dict.fromkeys(OUTCOMES, 0))
    span_cpu: dict[tuple[int, int], list[float]] = defaultdict(list)
    for game, plies, gap in every_gap(quick=quick):
        began, cpu = time.perf_counter(), time.process_time()
        solution = solve_gap(
            gap.known,
            gap.targets,
            turns=gap.turns,
            limits=LIMITS,
            evidence=gap.evidence if evidence else None,
        )
        kind = "both" if len(gap.targets) > 1 else "one"
        times[kind].append(time.perf_counter() - began)
        times["cpu"].append(time.process_time() - cpu)
        span = _span(gap)
        span_cpu[span].append(times["cpu"][-1])
        key = (plies, kind)
        counts[key] += 1
        outcomes = classify(solution, gap)
        if "wrong" in outcomes:
            print("wrong:", plies, sorted(gap.targets), gap.resume, file=sys.stderr)
        if "arbiter" in outcomes:  # the true continuation weighed (issue 19)
            outcomes.add(_later(game, gap, solution, later_plies[key]))
        for outcome in outcomes:
            tally[key][outcome] += 1
            spans[span][outcome] += 1
    return {
        "tally": tally,
        "counts": counts,
        "times": times,
        "later_plies": later_plies,
        "spans": spans,
        "span_cpu": span_cpu,
    }


def _span(gap: Gap) -> tuple[int, int]:
    """The row of the second table: the gap's plies in all (both boards)."""
    total = sum(len(moves) for moves in gap.played.values())
    return next(span for span in SPANS if span[0] <= total <= span[1])


def _later(game: Game, gap: Gap, solution: GapSolution, decided_after: list[int]) -> str:
    later, after = after_return(
        gap.known, gap.truth, solution, game.moves[gap.resume :], gap.targets
    )
    if later == "recommended" and after is not None:
        decided_after.append(after)
    if later == "recommended_wrong":
        print("recommended wrong:", gap.resume, gap.targets, file=sys.stderr)
    return later


def _percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * share))] * 1000


def table(result: dict[str, object]) -> tuple[str, dict[str, float]]:
    tally: dict[tuple[int, str], dict[str, int]] = result["tally"]  # type: ignore[assignment]
    counts: dict[tuple[int, str], int] = result["counts"]  # type: ignore[assignment]
    times: dict[str, list[float]] = result["times"]  # type: ignore[assignment]
    later_plies: dict[tuple[int, str], list[int]] = result["later_plies"]  # type: ignore[assignment]
    lines = [
        (
            "| plies per cut board | boards | gaps | state certain, published | exact order "
            "| published unconfirmed (wrong) | to the arbiter | truth among candidates | wrong "
            "| certain or decided by later evidence, recommended (median later plies) "
            "| recommended wrong "
            "| solver p50 / p99 |"
        ),
        "|---:|:---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    totals = dict.fromkeys(OUTCOMES, 0)
    for kind in ("one", "both"):
        for plies in GAPS:
            n = counts.get((plies, kind), 0)
            if not n:
                continue
            row = tally[plies, kind]
            for outcome in OUTCOMES:
                totals[outcome] += row[outcome]
            among = f"{row['among']}/{row['arbiter']}" if row["arbiter"] else "-"
            after = later_plies.get((plies, kind))
            median = f" ({statistics.median(after):g})" if after else ""
            lines.append(
                f"| {plies} | {kind} | {n} | {100 * row['certain'] / n:.0f} % "
                f"| {100 * row['exact'] / n:.0f} % "
                f"| {row['unconfirmed'] + row['unconfirmed_wrong']} ({row['unconfirmed_wrong']}) "
                f"| {row['arbiter']} | {among} | {row['wrong']} "
                f"| {100 * (row['certain'] + row['recommended']) / n:.0f} %{median} "
                f"| {row['recommended_wrong']} | |"
            )
        if times.get(kind):
            p50 = statistics.median(times[kind]) * 1000
            lines.append(
                f"| all | {kind} | {len(times[kind])} | | | | | | | | | "
                f"{p50:.1f} / {_percentile(times[kind], 0.99):.0f} ms |"
            )
    every = [t for kind in ("one", "both") for t in times.get(kind, [])]
    cpu = times.get("cpu", [0.0])
    figures = {
        "gaps": float(len(every)),
        "certain": 100 * totals["certain"] / max(1, len(every)),
        "exact": 100 * totals["exact"] / max(1, len(every)),
        "arbiter": float(totals["arbiter"]),
        "among": float(totals["among"]),
        "wrong": float(totals["wrong"]),
        "p50": statistics.median(every) * 1000 if every else 0.0,
        "p99": _percentile(every, 0.99) if every else 0.0,
        "worst": max(every) * 1000 if every else 0.0,
        "cpu_p50": statistics.median(cpu) * 1000,
        "cpu_p99": _percentile(cpu, 0.99),
        "unconfirmed": float(totals["unconfirmed"] + totals["unconfirmed_wrong"]),
        "unconfirmed_wrong": float(totals["unconfirmed_wrong"]),
        "later": 100 * (totals["certain"] + totals["recommended"]) / max(1, len(every)),
        "recommended": float(totals["recommended"]),
        "recommended_wrong": float(totals["recommended_wrong"]),
        "contradicted": float(totals["contradicted"]),
        "longer_only": float(totals["longer_only"]),
        "later_p50": statistics.median(decided) if (decided := _all(later_plies)) else 0.0,
    }
    return "\n".join(lines), figures


def span_table(result: dict[str, object]) -> tuple[str, dict[str, float]]:
    """The gaps by their plies in all, against the issue's targets (1-20 plies): how many are
    certain, how many no solver can make certain (``proven``: several end states fit all the
    evidence), the truth among the candidates of the rest, the CPU time."""
    spans: dict[tuple[int, int], dict[str, int]] = result["spans"]  # type: ignore[assignment]
    span_cpu: dict[tuple[int, int], list[float]] = result["span_cpu"]  # type: ignore[assignment]
    lines = [
        (
            "| plies in all | gaps | state certain, published | several end states fit all "
            "the evidence | so certain at most | to the arbiter | truth among candidates "
            "| wrong | solver CPU p50 / p99 |"
        ),
        "|:---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    figures: dict[str, float] = {}
    for span in SPANS:
        row, cpu = spans.get(span), span_cpu.get(span)
        if not row or not cpu:
            continue
        n = len(cpu)
        ceiling = 100 * (n - row["proven"]) / n
        label = f"{span[0]}-{span[1]}" if span[1] < SPANS[-1][1] else f"{span[0]} or more"
        lines.append(
            f"| {label} | {n} | {100 * row['certain'] / n:.1f} % "
            f"| {row['proven']} ({100 * row['proven'] / n:.1f} %; "
            f"{row['proven_same_plies']} of them with the truth's own plies) | {ceiling:.1f} % "
            f"| {row['arbiter']} | {row['among']}/{row['arbiter']} | {row['wrong']} "
            f"| {statistics.median(cpu) * 1000:.0f} / {_percentile(cpu, 0.99):.0f} ms |"
        )
        if span == SPANS[0]:
            figures |= {
                "short_gaps": float(n),
                "short_certain": 100 * row["certain"] / n,
                "short_ceiling": ceiling,
                "short_proven": float(row["proven"]),
                "short_same_plies": float(row["proven_same_plies"]),
                "short_arbiter": float(row["arbiter"]),
                "short_among": float(row["among"]),
                "short_p99": _percentile(cpu, 0.99),
            }
    return "\n".join(lines), figures


def _all(per_row: dict[tuple[int, str], list[int]]) -> list[int]:
    return [value for values in per_row.values() for value in values]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a few cases only (a smoke run)")
    args = parser.parse_args()
    load_before = os.getloadavg()[0]
    result = run(quick=args.quick)
    rows, figures = table(result)
    spans, span_figures = span_table(result)
    figures |= span_figures
    figures["load_before"], figures["load_after"] = load_before, os.getloadavg()[0]
    print(rows)
    print(spans)
    print({key: round(value, 1) for key, value in figures.items()})
    if not args.quick:
        write_readme(rows, spans, figures)


def write_readme(rows: str, spans: str, figures: dict[str, float]) -> None:
    section = f"""## Gap recovery

Run: `.venv/bin/python bench/bench_resync.py` (rewrites this section).

Real games, a gap every {STRIDE} plies of {len(GAPS)} lengths ({", ".join(map(str, GAPS))} plies per
cut board) on board A, board B and both, with the clocks' evidence (side on move, both sides'
times before and after): {figures["gaps"]:.0f} gaps. "both" includes joint cuts where the connected
board dropped a piece captured in the gap (held, then solved together). Limits: the live default
({LIMITS.max_nodes:,} units of work for the shortest explanations, {LIMITS.confirm_nodes:,} more
looking for a longer one that ends otherwise).

{rows}

In all: game state certain and published {figures["certain"]:.1f} %, exact order
{figures["exact"]:.1f} %, published unconfirmed {figures["unconfirmed"]:.0f} gaps (of which wrong
{figures["unconfirmed_wrong"]:.0f}), to the arbiter {figures["arbiter"]:.0f} gaps (truth among the
candidates in {figures["among"]:.0f}), wrong {figures["wrong"]:.0f}. After later evidence (the true
continuation of both boards, up to {HORIZON} plies, weighed after every ply as live): certain or
decided {figures["later"]:.1f} % ({figures["recommended"]:.0f} gaps decided, their candidate
recommended to the arbiter, median {figures["later_p50"]:g} later plies; recommended wrong
{figures["recommended_wrong"]:.0f}; no candidate fits {figures["contradicted"]:.0f}; only a story
longer than the shortest fits, nothing recommended, {figures["longer_only"]:.0f}). Solver time
per gap (wall clock): p50 {figures["p50"]:.1f} ms, p99 {figures["p99"]:.0f} ms, worst
{figures["worst"]:.0f} ms; CPU time p50 {figures["cpu_p50"]:.1f} ms, p99 {figures["cpu_p99"]:.0f} ms
(on the core's thread, not the event loop).

The same gaps by their plies in all (both boards together; issue 19's targets are for gaps of
1-20 plies). "Several end states fit all the evidence": the solver listed at least two
candidates, each a legal story under the rules that reaches the placements seen within the plies
the side on move and the clocks allow, ending in different game states (most often a piece
dropped and taken at once, whose kind the board cannot show). No solver can make those certain
from what the boards and clocks report, so "certain at most" is the ceiling of the first column
(the gaps the search gave up on count as possible: a ceiling, not a forecast; checked by an
independent oracle with `bench/resync_ceiling.py`):

{spans}

Gaps of 1-20 plies: certain {figures["short_certain"]:.1f} % of {figures["short_gaps"]:.0f}, at
most {figures["short_ceiling"]:.1f} % possible ({figures["short_proven"]:.0f} gaps where several end
states fit; in {figures["short_same_plies"]:.0f} of them even stories with the truth's own number of
plies per board, which no clock reading can tell apart); to the arbiter
{figures["short_arbiter"]:.0f} (truth among the candidates in {figures["short_among"]:.0f});
solver CPU p99 {figures["short_p99"]:.0f} ms.

Machine: {platform.machine()}, 2 CPUs AMD EPYC, Python {platform.python_version()}; load average
(1 min) {figures["load_before"]:.1f} as the run began, {figures["load_after"]:.1f} as it ended (the
machine is shared with other developers' test runs).
"""
    readme = ROOT / "bench/README.md"
    text = readme.read_text()
    pattern = re.compile(r"## Gap recovery\n.*?(?=\n## |\Z)", re.DOTALL)
    text = (
        pattern.sub(section.rstrip("\n") + "\n", text)
        if pattern.search(text)
        else text.rstrip("\n") + "\n\n" + section
    )
    readme.write_text(text.rstrip("\n") + "\n")


if __name__ == "__main__":
    main()
