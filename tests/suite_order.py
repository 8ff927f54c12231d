"""The order in which the workers (pytest-xdist, ``--dist load --maxschedchunk 1`` in
scripts/test) take the tests (bench/README, "Test suite"): the two that play a whole game in real
time first, one per worker; then the other real-time tests (which mostly wait) alternating with
the CPU-bound ones, so that the two cores are kept busy while the games play instead of the
CPU-bound tests piling up at the end; then the short ones. Pure functions of the collected items
(``tests/conftest.py`` applies them), tested in ``test_suite_order.py``.
"""

from itertools import chain, zip_longest

import pytest

_REAL_TIME_FOLDERS = ("e2e", "hall", "web")
# xdist's load scheduler hands each worker its first tests in a chunk of (at least) two
# consecutive items before it hands out one at a time: worker k starts items 2k and 2k+1.
_FIRST_CHUNK = 2


def _real_time(item: pytest.Item) -> bool:
    in_folder = any(f"/{folder}/" in str(item.path) for folder in _REAL_TIME_FOLDERS)
    return in_folder or item.get_closest_marker("pty") is not None


def _cpu_bound(item: pytest.Item) -> bool:
    return (
        item.get_closest_marker("slow") is not None
        or "test_gap" in item.path.name
        or "test_games" in item.path.name
    )


def _slow_first(item: pytest.Item) -> int:
    return 0 if item.get_closest_marker("slow") is not None else 1


def run_order(items: list) -> list:
    """Whole games, then real-time and CPU-bound tests alternating (each with its ``slow`` ones
    first), then the rest, in collection order otherwise (the sorts are stable)."""
    whole = [item for item in items if item.get_closest_marker("whole_game") is not None]
    rest = [item for item in items if item.get_closest_marker("whole_game") is None]
    real_time = sorted((item for item in rest if _real_time(item)), key=_slow_first)
    cpu = sorted(
        (item for item in rest if not _real_time(item) and _cpu_bound(item)), key=_slow_first
    )
    taken = {id(item) for item in chain(real_time, cpu)}
    short = [item for item in rest if id(item) not in taken]
    mixed = [item for pair in zip_longest(real_time, cpu) for item in pair if item is not None]
    return whole + mixed + short


def dealt_to_workers(items: list, workers: int) -> list:
    """The order rearranged for the first chunks: the ``workers`` first tests each open a
    different worker, and the second test of every first chunk is one of the shortest (taken
    from the end of the order). In plain order the first chunk of two gave one worker both
    whole-game tests back to back (2 x 2 minutes, the run's critical path); and a long test
    dealt second waited behind a whole game, to start two minutes late."""
    per_worker = _FIRST_CHUNK - 1
    tail = len(items) - workers * per_worker
    if tail < workers:
        return items
    firsts, middle, seconds = items[:workers], items[workers:tail], items[tail:]
    dealt = []
    for index, first in enumerate(firsts):
        dealt.append(first)
        dealt.extend(seconds[index * per_worker : (index + 1) * per_worker])
    return dealt + middle
