"""A small transition table, in the manner of h11's ``_state.py``.

A machine's states are frozen dataclasses carrying their own data; its events are frozen
dataclasses. The table maps (state class, event class) to a function building the next state
from the state and the event: a pair missing from the table is a bug (``TransitionError``),
never silently ignored. The table prints itself as a Mermaid state diagram, so the picture in
docs/architecture.md is generated from the code and cannot drift (``scripts/diagrams``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Generic, TypeVar

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping

S = TypeVar("S")
E = TypeVar("E")


class TransitionError(RuntimeError):
    """An event the machine's table has no transition for in its current state."""


@dataclass(frozen=True, slots=True)
class Edge(Generic[S, E]):
    """One transition: its target state class (for the diagram) and how it is built."""

    target: type
    build: Callable[[S, E], S]
    note: str = ""


@dataclass(frozen=True, slots=True)
class Machine(Generic[S, E]):
    """A named transition table."""

    name: str
    initial: type
    table: Mapping[tuple[type, type], Edge[S, E]]

    def fire(self, state: S, event: E) -> S:
        edge = self.table.get((type(state), type(event)))
        if edge is None:
            raise TransitionError(
                f"{self.name}: no transition from {type(state).__name__} on {type(event).__name__}"
            )
        return edge.build(state, event)

    def accepts(self, state: S, event_type: type) -> bool:
        return (type(state), event_type) in self.table

    def mermaid(self) -> str:
        """The table as a Mermaid ``stateDiagram-v2`` (edges in table order)."""
        lines = ["stateDiagram-v2", f"    [*] --> {self.initial.__name__}"]
        for (source, event), edge in self.table.items():
            label = event.__name__ + (f" ({edge.note})" if edge.note else "")
            lines.append(f"    {source.__name__} --> {edge.target.__name__}: {label}")
        return "\n".join(lines) + "\n"
