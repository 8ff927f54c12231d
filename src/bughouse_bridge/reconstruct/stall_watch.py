"""The stalling watch, one per board (row 17): a mate pending its press, or a stalemate waiting,
starts it; ``stalling_limit`` after the later of that and the board's last move the side on move
is reported stalling, once per move made.

``Unwatched`` — nothing waits. ``Watching(since)`` — a mate or stalemate waits since ``since``.
``Reported(since)`` — the stalling was reported; the next move made watches again.
"""

from __future__ import annotations

from dataclasses import dataclass

from bughouse_bridge.reconstruct.fsm import Edge, Machine


@dataclass(frozen=True, slots=True)
class Unwatched:
    pass


@dataclass(frozen=True, slots=True)
class Watching:
    since: float


@dataclass(frozen=True, slots=True)
class Reported:
    since: float


Stall = Unwatched | Watching | Reported


@dataclass(frozen=True, slots=True)
class WaitBegan:
    """A mate pending its press, or a stalemate waiting, at ``t``."""

    t: float


@dataclass(frozen=True, slots=True)
class WaitEnded:
    """The mate or stalemate no longer waits (decided, or taken back)."""


@dataclass(frozen=True, slots=True)
class StallReported:
    pass


@dataclass(frozen=True, slots=True)
class MoveMade:
    """A move was committed on the board: a stalling already reported is watched anew."""


StallEvent = WaitBegan | WaitEnded | StallReported | MoveMade


def _watching(_state: Stall, event: WaitBegan) -> Stall:
    return Watching(event.t)


def _unwatched(_state: Stall, _event: StallEvent) -> Stall:
    return Unwatched()


def _reported(state: Stall, _event: StallEvent) -> Stall:
    assert isinstance(state, Watching)
    return Reported(state.since)


def _rearmed(state: Stall, _event: StallEvent) -> Stall:
    return Watching(state.since) if isinstance(state, Reported) else state


_TABLE: dict[tuple[type, type], Edge[Stall, StallEvent]] = {}
for _source in (Unwatched, Watching, Reported):
    _TABLE[_source, WaitBegan] = Edge(Watching, _watching)  # type: ignore[arg-type]
    _TABLE[_source, WaitEnded] = Edge(Unwatched, _unwatched)
_TABLE[Watching, StallReported] = Edge(Reported, _reported)
_TABLE[Unwatched, MoveMade] = Edge(Unwatched, _rearmed)
_TABLE[Watching, MoveMade] = Edge(Watching, _rearmed)
_TABLE[Reported, MoveMade] = Edge(Watching, _rearmed)

STALL: Machine[Stall, StallEvent] = Machine("Stalling", Unwatched, _TABLE)
