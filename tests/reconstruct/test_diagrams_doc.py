"""docs/architecture.md shows the reconstructor's machines as generated from their tables."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from bughouse_bridge.reconstruct.fsm import TransitionError
from bughouse_bridge.reconstruct.link import LINK, Live, Reconciled
from bughouse_bridge.reconstruct.presses import PRESSES, Ahead, Idle, Paid, Press, Pressed
from bughouse_bridge.reconstruct.reading_machine import READING, TRACK
from bughouse_bridge.reconstruct.stall_watch import STALL

ROOT = Path(__file__).resolve().parents[2]


def test_the_state_diagrams_in_the_docs_are_current() -> None:
    check = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "diagrams.py"), "--check"], check=False
    )
    assert check.returncode == 0, "run: .venv/bin/python scripts/diagrams.py"


def test_every_edge_of_a_diagram_is_a_transition_of_its_table() -> None:
    for machine in (LINK, PRESSES, READING, TRACK, STALL):
        edges = machine.mermaid().splitlines()[2:]
        assert len(edges) == len(machine.table)
        for (source, event), line in zip(machine.table, edges, strict=True):
            assert line.strip().startswith(f"{source.__name__} --> ")
            assert f": {event.__name__}" in line


def test_an_event_without_a_transition_is_an_error_not_ignored() -> None:
    with pytest.raises(TransitionError, match="Live"):
        LINK.fire(Live(), Reconciled())
    with pytest.raises(TransitionError, match="from Idle on Paid"):
        PRESSES.fire(Idle(), Paid())  # nothing is owed: no press can pay
    ahead = PRESSES.fire(Idle(), Pressed(Press(1.0, None)))
    assert PRESSES.fire(ahead, Pressed(Press(2.0, None))) == Ahead(
        (Press(1.0, None), Press(2.0, None))
    )
