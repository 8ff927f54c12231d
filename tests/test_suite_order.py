"""The suite's own schedule (``suite_order``): twice it silently went wrong and cost minutes of
every run -- both whole-game tests dealt to one worker, then a refactor that left the demo's
``whole_game`` marker on a helper -- so it is tested like any other logic."""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from suite_order import dealt_to_workers, run_order

TESTS = Path(__file__).parent


@dataclass(frozen=True)
class FakeItem:
    """What the ordering reads of a pytest item: its path and its markers."""

    name: str
    folder: str = "bughouse"
    markers: frozenset[str] = field(default_factory=frozenset)

    @property
    def path(self) -> Path:
        return TESTS / self.folder / f"test_{self.name}.py"

    def get_closest_marker(self, name: str) -> object | None:
        return name if name in self.markers else None


def names(items: list[FakeItem]) -> list[str]:
    return [item.name for item in items]


@pytest.mark.parametrize(
    ("count", "workers", "expected"),
    [
        # Worker k starts with item k and gets one of the last items as the second of its
        # first chunk of two; the rest follows in order.
        (10, 3, [0, 7, 1, 8, 2, 9, 3, 4, 5, 6]),
        (8, 4, [0, 4, 1, 5, 2, 6, 3, 7]),
        # Fewer items than two chunks' worth: left as they are.
        (5, 3, [0, 1, 2, 3, 4]),
    ],
)
def test_each_worker_starts_with_its_own_test_and_a_short_one_second(
    count: int, workers: int, expected: list[int]
) -> None:
    assert dealt_to_workers(list(range(count)), workers) == expected


def test_whole_games_first_then_real_time_and_cpu_bound_alternating_then_the_rest() -> None:
    items = [
        FakeItem("unit"),
        FakeItem("hall", folder="hall"),
        FakeItem("games", folder="reconstruct"),
        FakeItem("demo", folder="e2e", markers=frozenset({"whole_game", "slow"})),
        FakeItem("garbage", folder="e2e", markers=frozenset({"slow"})),
        FakeItem("pyffish", markers=frozenset({"slow"})),
        FakeItem("pty", folder="emulator", markers=frozenset({"pty"})),
        FakeItem("gap_games", folder="reconstruct"),
        FakeItem("full_game", folder="e2e", markers=frozenset({"whole_game", "slow"})),
    ]
    assert names(run_order(items)) == [
        "demo",
        "full_game",
        "garbage",  # real time, slow first ...
        "pyffish",  # ... alternating with CPU-bound, slow first
        "hall",
        "games",
        "pty",
        "gap_games",
        "unit",
    ]


def _markers_of(path: Path, function: str) -> set[str]:
    """The ``pytest.mark.<name>`` decorators of a test function, read from its source (importing
    the end-to-end modules here would import them a second time under another name)."""
    tree = ast.parse(path.read_text())
    for node in ast.walk(tree):
        if isinstance(node, ast.AsyncFunctionDef | ast.FunctionDef) and node.name == function:
            return {
                ast.unparse(decorator).removeprefix("pytest.mark.").split("(")[0]
                for decorator in node.decorator_list
            }
    raise AssertionError(f"{function} is not in {path}")


@pytest.mark.parametrize(
    ("module", "function"),
    [
        ("e2e/test_game_e2e.py", "test_full_game_arrives_complete_and_in_order"),
        ("e2e/test_process_e2e.py", "test_demo_plays_to_the_result_and_keeps_the_page_up"),
    ],
)
def test_the_whole_game_tests_carry_their_markers(module: str, function: str) -> None:
    assert {"whole_game", "slow"} <= _markers_of(TESTS / module, function)


def test_only_the_two_whole_game_tests_are_marked_whole_game() -> None:
    marked = [
        path.name
        for path in TESTS.rglob("test_*.py")
        if "pytest.mark.whole_game" in path.read_text() and path.name != Path(__file__).name
    ]
    assert sorted(marked) == ["test_game_e2e.py", "test_process_e2e.py"]
