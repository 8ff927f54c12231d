"""Playing a scenario in-process: every action against emulated boards, the wire traffic back.

:func:`run_scenario` plays a :class:`~bughouse_bridge.emulator.scenario.Scenario`'s timed actions
in time order against fresh (or given) :class:`~bughouse_bridge.emulator.board.EmulatedBoard`
instances, draining what the boards send between actions, and returns a :class:`ScenarioResult`:
the wire traffic as :class:`~bughouse_bridge.trace.TraceRecord` values (the contract §1 trace
format), the cable events and the boards. The pty runner in ``drivers/pty_emulator.py`` plays the
same actions in real time.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from bughouse_bridge.emulator.actions import HostWrite, Replug, Unplug, apply_action
from bughouse_bridge.trace import TraceRecord, format_record

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping

    from bughouse_bridge.emulator.board import EmulatedBoard
    from bughouse_bridge.emulator.scenario import Scenario


@dataclass(frozen=True, slots=True)
class LinkEvent:
    t: float
    link: str
    connected: bool


@dataclass(frozen=True, slots=True)
class ScenarioResult:
    records: tuple[TraceRecord, ...]
    link_events: tuple[LinkEvent, ...]
    boards: Mapping[str, EmulatedBoard]

    def rx(self, link: str) -> list[TraceRecord]:
        return [r for r in self.records if r.link == link and r.direction == "rx"]


def run_scenario(
    scenario: Scenario,
    *,
    until: float | None = None,
    boards: Mapping[str, EmulatedBoard] | None = None,
) -> ScenarioResult:
    """Play every action against fresh boards and collect the wire traffic in time order."""
    emulated = dict(boards) if boards is not None else scenario.build_boards()
    records: list[TraceRecord] = []
    link_events: list[LinkEvent] = []

    def drain(t: float) -> None:
        for link, board in emulated.items():
            records.extend(TraceRecord(when, link, "rx", data) for when, data in board.poll(t))

    for timed in scenario.sorted_actions():
        drain(timed.t)
        board = emulated[timed.link]
        if isinstance(timed.action, HostWrite):
            records.append(TraceRecord(timed.t, timed.link, "tx", timed.action.data))
        if isinstance(timed.action, Unplug | Replug):
            link_events.append(LinkEvent(timed.t, timed.link, isinstance(timed.action, Replug)))
        apply_action(board, timed.action, timed.t)
    end = until if until is not None else scenario.t + 1.0
    drain(end)
    records.sort(key=lambda record: record.t)
    return ScenarioResult(tuple(records), tuple(link_events), emulated)


def trace_lines(records: Iterable[TraceRecord]) -> list[str]:
    """The contract §1 JSON lines (without newlines) of ``records``."""
    return [format_record(record) for record in records]


__all__ = ["LinkEvent", "ScenarioResult", "run_scenario", "trace_lines"]
