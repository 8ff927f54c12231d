"""Shared by every test folder: this file puts ``tests/`` on the import path (pytest's default
import mode), so helpers such as ``private_mosquitto`` are importable from any folder."""

import pytest

# Longest first: the workers (pytest-xdist, ``--dist load --maxschedchunk 1`` in scripts/test)
# take tests one at a time in this order, so the few that play a whole game in real time start
# at once on different workers instead of being the tail of the run (bench/README, "Test suite").
_REAL_TIME_FOLDERS = ("e2e", "hall", "web")


def _weight(item: pytest.Item) -> int:
    if item.get_closest_marker("slow") is not None:
        return 0
    if any(f"/{folder}/" in str(item.path) for folder in _REAL_TIME_FOLDERS):
        return 1
    if item.get_closest_marker("pty") is not None or "test_games" in item.path.name:
        return 2
    return 3


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    items.sort(key=_weight)
