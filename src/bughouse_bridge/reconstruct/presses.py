"""The press ledger, one per board: clock presses against the moves read.

``Idle`` — every press matched a move. ``Ahead(presses)`` — the side on move pressed and no move
has matched yet; presses on top of it are replies: a board that fell plies behind is read as
exactly that many plies. ``Owed(n)`` — the last ``n`` moves were read before their presses came
(a settled move without a press, a recovered ply whose mover still has to hit the clock).
A press ahead and a press owed exclude each other: one value, not three fields.
"""

from __future__ import annotations

from dataclasses import dataclass

from bughouse_bridge.reconstruct.fsm import Edge, Machine


@dataclass(frozen=True, slots=True)
class Press:
    t: float
    clock_ms: int | None


@dataclass(frozen=True, slots=True)
class Idle:
    pass


@dataclass(frozen=True, slots=True)
class Ahead:
    presses: tuple[Press, ...]  # never empty; the first is the side on move's

    @property
    def first(self) -> Press:
        return self.presses[0]


@dataclass(frozen=True, slots=True)
class Owed:
    n: int  # at least 1


Ledger = Idle | Ahead | Owed


@dataclass(frozen=True, slots=True)
class Pressed:
    """A press by the side on move, or (while ahead) one more press on top."""

    press: Press


@dataclass(frozen=True, slots=True)
class Paid:
    """The late press of the oldest move read before its press."""


@dataclass(frozen=True, slots=True)
class Forgiven:
    """The other side pressed: whatever was owed is void."""


@dataclass(frozen=True, slots=True)
class Committed:
    """A move was read. ``unpressed``: with no press ahead, and a clock may still send one."""

    unpressed: bool


@dataclass(frozen=True, slots=True)
class StillOwed:
    """After a gap the clock still runs for the last ply's mover: its press is owed."""


@dataclass(frozen=True, slots=True)
class Absorbed:
    """A gap settled, or the link was lost: presses before it belong to plies nobody saw."""


@dataclass(frozen=True, slots=True)
class Unheard:
    """The link was lost: presses ahead wait for moves nobody will see (what is owed stays)."""


PressEvent = Pressed | Paid | Forgiven | Committed | StillOwed | Absorbed | Unheard


def _ahead(state: Ledger, event: Pressed) -> Ledger:
    if isinstance(state, Ahead):
        return Ahead((*state.presses, event.press))
    return Ahead((event.press,))


def _paid(state: Ledger, _event: Paid) -> Ledger:
    assert isinstance(state, Owed)
    return Owed(state.n - 1) if state.n > 1 else Idle()


def _committed(state: Ledger, event: Committed) -> Ledger:
    if isinstance(state, Ahead):
        rest = state.presses[1:]
        return Ahead(rest) if rest else Idle()
    if not event.unpressed:
        return Idle()
    return Owed(state.n + 1 if isinstance(state, Owed) else 1)


def _still_owed(state: Ledger, _event: StillOwed) -> Ledger:
    return state if isinstance(state, Owed) else Owed(1)


def _idle(_state: Ledger, _event: PressEvent) -> Ledger:
    return Idle()


def _same(state: Ledger, _event: PressEvent) -> Ledger:
    return state


_TABLE: dict[tuple[type, type], Edge[Ledger, PressEvent]] = {
    (Idle, Pressed): Edge(Ahead, _ahead),  # type: ignore[arg-type]
    (Ahead, Pressed): Edge(Ahead, _ahead, "a reply on top"),  # type: ignore[arg-type]
    (Owed, Pressed): Edge(Ahead, _ahead, "the debt void"),  # type: ignore[arg-type]
    (Owed, Paid): Edge(Owed, _paid, "Idle when the last is paid"),  # type: ignore[arg-type]
    (Idle, Forgiven): Edge(Idle, _idle),
    (Owed, Forgiven): Edge(Idle, _idle),
    (Idle, Committed): Edge(Owed, _committed, "Idle without a clock"),  # type: ignore[arg-type]
    (Owed, Committed): Edge(Owed, _committed, "one more"),  # type: ignore[arg-type]
    (Ahead, Committed): Edge(Ahead, _committed, "Idle when none is left"),  # type: ignore[arg-type]
    (Idle, StillOwed): Edge(Owed, _still_owed),  # type: ignore[arg-type]
    (Owed, StillOwed): Edge(Owed, _still_owed),  # type: ignore[arg-type]
    (Ahead, StillOwed): Edge(Ahead, _still_owed, "a press ahead stays"),  # type: ignore[arg-type]
    (Idle, Absorbed): Edge(Idle, _idle),
    (Ahead, Absorbed): Edge(Idle, _idle),
    (Owed, Absorbed): Edge(Idle, _idle),
    (Idle, Unheard): Edge(Idle, _same),
    (Ahead, Unheard): Edge(Idle, _idle),
    (Owed, Unheard): Edge(Owed, _same),
}

PRESSES: Machine[Ledger, PressEvent] = Machine("Presses", Idle, _TABLE)


def first_press(ledger: Ledger) -> Press | None:
    return ledger.first if isinstance(ledger, Ahead) else None


def owed(ledger: Ledger) -> int:
    return ledger.n if isinstance(ledger, Owed) else 0
