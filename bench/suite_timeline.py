"""Where a test run's time goes: a pytest plugin that writes one JSON line per test, and a summary.

Record (every xdist worker appends to the same file; a line is one short write)::

    PYTHONPATH=bench scripts/test -p suite_timeline

Summarise::

    .venv/bin/python bench/suite_timeline.py suite-timeline.jsonl

A line holds the test's id, its worker, start and end (wall clock) and the CPU seconds its worker
spent in it, itself (``cpu``) and in child processes it waited for (``child_cpu``: daemons, CLIs,
Chromium). The summary shows the span, each worker's end with its long tests (the critical path
is the worker that ends last), and the test files that cost the most CPU. This is how the suite's
critical path was found (bench/README.md, "Test suite").
"""

from __future__ import annotations

import json
import os
import resource
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from collections.abc import Generator

OUTPUT = Path(os.environ.get("SUITE_TIMELINE", "suite-timeline.jsonl"))
LONG = 10.0  # seconds: the tests a worker's line names


def _cpu(who: int) -> float:
    usage = resource.getrusage(who)
    return usage.ru_utime + usage.ru_stime


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item: pytest.Item) -> Generator[None, object, object]:
    cpu, child_cpu, start = _cpu(resource.RUSAGE_SELF), _cpu(resource.RUSAGE_CHILDREN), time.time()
    try:
        return (yield)
    finally:
        line = {
            "id": item.nodeid,
            "worker": os.environ.get("PYTEST_XDIST_WORKER", "main"),
            "start": start,
            "end": time.time(),
            "cpu": _cpu(resource.RUSAGE_SELF) - cpu,
            "child_cpu": _cpu(resource.RUSAGE_CHILDREN) - child_cpu,
        }
        with OUTPUT.open("a", encoding="utf-8") as out:
            out.write(json.dumps(line) + "\n")


def _name(row: dict[str, Any]) -> str:
    return str(row["id"]).rsplit("::", 1)[-1][:40]


def summary(rows: list[dict[str, Any]]) -> list[str]:
    begin = min(row["start"] for row in rows)
    end = max(row["end"] for row in rows)
    cpu = sum(row["cpu"] for row in rows)
    child_cpu = sum(row["child_cpu"] for row in rows)
    summed = sum(row["end"] - row["start"] for row in rows)
    totals = f"CPU {cpu:.0f} s + children {child_cpu:.0f} s, test time summed {summed:.0f} s"
    lines = [
        f"span {end - begin:.1f} s, {len(rows)} tests, {totals}",
        "",
        "worker  ends at  long tests (start +duration)",
    ]
    by_worker: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for row in rows:
        by_worker[row["worker"]].append(row)
    for worker, own in sorted(by_worker.items(), key=lambda pair: max(r["end"] for r in pair[1])):
        long_tests = ", ".join(
            f"{_name(row)} ({row['start'] - begin:.0f} +{row['end'] - row['start']:.0f})"
            for row in sorted(own, key=lambda row: row["start"])
            if row["end"] - row["start"] > LONG
        )
        lines.append(f"{worker:7} {max(r['end'] for r in own) - begin:7.1f}  {long_tests}")
    lines += ["", "CPU s   children  wall s  tests  file"]
    by_file: dict[str, list[float]] = defaultdict(lambda: [0.0, 0.0, 0.0, 0.0])
    for row in rows:
        totals = by_file[row["id"].split("::", 1)[0]]
        totals[0] += row["cpu"]
        totals[1] += row["child_cpu"]
        totals[2] += row["end"] - row["start"]
        totals[3] += 1
    costliest = sorted(by_file.items(), key=lambda pair: -(pair[1][0] + pair[1][1]))[:15]
    lines += [
        f"{cpu:6.1f}  {child:8.1f}  {wall:6.1f}  {count:5.0f}  {name}"
        for name, (cpu, child, wall, count) in costliest
    ]
    return lines


def main(argv: list[str]) -> int:
    path = Path(argv[1]) if len(argv) > 1 else OUTPUT
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]
    if not rows:
        print(f"{path}: no tests recorded", file=sys.stderr)
        return 1
    print("\n".join(summary(rows)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
