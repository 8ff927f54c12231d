"""The Link machine, one per board: is the board heard, and has what it shows since been checked
against the game?

``Live`` — heard and checked: its placements are read. ``Lost`` — silent (the cable pulled, or
a new process took over from the journal); ``announced`` says whether the loss was published, so
that only a link that went silent comes "back". ``AwaitDump`` — heard again, its dump asked
for; nothing is read until it comes. ``Settling`` — the dump came: once the placement has
settled the gap is reconciled (``resync.py``), and the board is ``Live`` again.
"""

from __future__ import annotations

from dataclasses import dataclass

from bughouse_bridge.reconstruct.fsm import Edge, Machine


@dataclass(frozen=True, slots=True)
class Live:
    pass


@dataclass(frozen=True, slots=True)
class Lost:
    since: float | None  # None: lost with the process that ran before (a restart)
    announced: bool


@dataclass(frozen=True, slots=True)
class AwaitDump:
    since: float | None  # when the link went silent (None: unknown, as after a restart)
    announced: bool  # the loss was published: the return is published too


@dataclass(frozen=True, slots=True)
class Settling:
    back_at: float  # when the dump came
    unheard_for: float  # how long the board was unheard: from losing it (or its last change)


LinkState = Live | Lost | AwaitDump | Settling


@dataclass(frozen=True, slots=True)
class LinkLost:
    now: float


@dataclass(frozen=True, slots=True)
class Restarted:
    """A new process took over: the old one's links died with it, unannounced."""


@dataclass(frozen=True, slots=True)
class LinkBack:
    now: float


@dataclass(frozen=True, slots=True)
class DumpCame:
    now: float
    last_change: float  # the board's last sensor change before it (when no loss was seen)


@dataclass(frozen=True, slots=True)
class Reconciled:
    """The gap was settled from the settled placement."""


@dataclass(frozen=True, slots=True)
class Deferred:
    """Nothing explained the settled placement as the link came back (a hand in motion): the
    reconciliation is tried again with the next settled placement."""

    settling: Settling


LinkEvent = LinkLost | Restarted | LinkBack | DumpCame | Reconciled | Deferred


def _lost(_state: LinkState, event: LinkLost) -> LinkState:
    return Lost(event.now, announced=True)


def _restarted(_state: LinkState, _event: Restarted) -> LinkState:
    return Lost(None, announced=False)


def _asked(state: LinkState, _event: LinkBack) -> LinkState:
    if isinstance(state, Lost | AwaitDump):
        return AwaitDump(state.since, state.announced)
    return AwaitDump(None, announced=False)  # a (re)connect of a board never lost: start-up


def _dumped(state: LinkState, event: DumpCame) -> LinkState:
    assert isinstance(state, AwaitDump)
    since = event.last_change if state.since is None else state.since
    return Settling(event.now, event.now - since)


def _same(state: LinkState, _event: LinkEvent) -> LinkState:
    return state


def _live(_state: LinkState, _event: LinkEvent) -> LinkState:
    return Live()


def _deferred(_state: LinkState, event: Deferred) -> LinkState:
    return event.settling


_TABLE: dict[tuple[type, type], Edge[LinkState, LinkEvent]] = {}
for _source in (Live, Lost, AwaitDump, Settling):
    _TABLE[_source, LinkLost] = Edge(Lost, _lost)  # type: ignore[arg-type]
    _TABLE[_source, Restarted] = Edge(Lost, _restarted)  # type: ignore[arg-type]
    _TABLE[_source, LinkBack] = Edge(AwaitDump, _asked)  # type: ignore[arg-type]
_TABLE[AwaitDump, DumpCame] = Edge(Settling, _dumped)  # type: ignore[arg-type]
_TABLE[Live, DumpCame] = Edge(Live, _same, "a dump asked for otherwise")
_TABLE[Settling, DumpCame] = Edge(Settling, _same, "read as it stands")
_TABLE[Lost, DumpCame] = Edge(Lost, _same, "nothing is read while lost")
_TABLE[Settling, Reconciled] = Edge(Live, _live)
_TABLE[Live, Deferred] = Edge(Settling, _deferred)  # type: ignore[arg-type]

LINK: Machine[LinkState, LinkEvent] = Machine("Link", Live, _TABLE)


def heard(state: LinkState) -> bool:
    """The board's messages are coming (its own or the partner board's hold depends on it)."""
    return not isinstance(state, Lost)
