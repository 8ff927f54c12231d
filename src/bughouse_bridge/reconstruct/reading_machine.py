"""Two machines per board about its reading: what the reading in progress awaits (**Reading**),
and whether the readings follow the game (**Track**).

Reading — ``Ready``: nothing awaited; the next settled placement is read afresh.
``AwaitPress(move, due)``: a settled legal move of the side on move, the clock running for him:
his press commits it (or, at ``due``, ``no_press_commit_after`` after its placement's last change,
a reading does, with an alert), and a press that comes after the board moved on commits it while
its piece still stands. ``AwaitPiece(drop, since)``:
a drop of a piece the pocket does not hold yet, waiting (``drop_grace`` from ``since``) for the
capture on the other board that supplies it. ``Blocked``: the reading waits on the other board
while that board's link is down (a drop's piece, or a drop answered at once, that a capture
nobody saw may explain): held without alerts, it is solved together with the other board's gap.
A blocked board awaits neither a press nor a piece: a reading of its own that does (the other
link being back) ends the block.

Track — ``OnTrack``: the readings follow the game. ``Astray(since)``: the readings since
``since`` commit nothing (illegal, unexplained, or waiting on the other board); a commit or a
return to the game position does not end the run, a reading that follows the game (or a gap
that absorbs what came before it) does. ``Stuck(since)``: astray, and the last reading waits on
the other board: it is read again when the other board moves (``reader.Reader._nudge``).
``Recheck``: following, and read again when the other board moves (a board whose gap was just
filled anew). The two dimensions are independent: every combination is reachable. Astray or
stuck, the board's last reading may be due to be reported (an illegal or unexplained placement,
once it has had its time): ``report_at``, set by its handler (``Timed``) and dropped by the next
reading, or by a move or a return to the game position.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from bughouse_bridge.reconstruct.fsm import Edge, Machine

if TYPE_CHECKING:
    from bughouse_bridge.bughouse.types import BughouseMove


@dataclass(frozen=True, slots=True)
class Ready:
    pass


@dataclass(frozen=True, slots=True)
class AwaitPress:
    move: BughouseMove
    due: float  # committed without its press by the reading at this time


@dataclass(frozen=True, slots=True)
class AwaitPiece:
    drop: BughouseMove
    since: float  # the placement's last change when the drop was first read waiting


@dataclass(frozen=True, slots=True)
class Blocked:
    pass


ReadingState = Ready | AwaitPress | AwaitPiece | Blocked


@dataclass(frozen=True, slots=True)
class PressAwaited:
    """A settled legal move waits for its press (until ``due``)."""

    move: BughouseMove
    due: float


@dataclass(frozen=True, slots=True)
class PieceAwaited:
    """A drop waits for its piece (the same drop read again keeps its ``since``)."""

    drop: BughouseMove
    since: float


@dataclass(frozen=True, slots=True)
class Held:
    """The reading waits on the other board, whose link is down (``guesses.Guesses.hold``)."""


@dataclass(frozen=True, slots=True)
class Unheld:
    """The gap of the other board was settled with this board's placement."""


@dataclass(frozen=True, slots=True)
class Resolved:
    """A move was committed, a gap settled, or the board settled back on the game position:
    what was awaited is over (a block lasts until the other board's gap is settled)."""


@dataclass(frozen=True, slots=True)
class GlimpsedRest:
    """The board shows the game position, not settled yet: a drop's piece was taken back; a
    move awaiting its press may only be lifted for a moment."""


@dataclass(frozen=True, slots=True)
class DropVoid:
    """The waiting drop is no drop after all (its piece moved on, or it waits for nothing)."""


ReadingEvent = PressAwaited | PieceAwaited | Held | Unheld | Resolved | GlimpsedRest | DropVoid


def _await_press(_state: ReadingState, event: PressAwaited) -> ReadingState:
    return AwaitPress(event.move, event.due)


def _await_piece(state: ReadingState, event: PieceAwaited) -> ReadingState:
    if isinstance(state, AwaitPiece) and state.drop == event.drop:
        return state
    return AwaitPiece(event.drop, event.since)


def _blocked(_state: ReadingState, _event: ReadingEvent) -> ReadingState:
    return Blocked()


def _ready(_state: ReadingState, _event: ReadingEvent) -> ReadingState:
    return Ready()


def _same(state: ReadingState, _event: ReadingEvent) -> ReadingState:
    return state


_READING: dict[tuple[type, type], Edge[ReadingState, ReadingEvent]] = {}
for _source in (Ready, AwaitPress, AwaitPiece, Blocked):
    _note = "ends the block" if _source is Blocked else ""
    _again = "the same drop keeps its since" if _source is AwaitPiece else _note
    _READING[_source, PressAwaited] = Edge(AwaitPress, _await_press, _note)  # type: ignore[arg-type]
    _READING[_source, PieceAwaited] = Edge(AwaitPiece, _await_piece, _again)  # type: ignore[arg-type]
    _READING[_source, Held] = Edge(Blocked, _blocked)
for _source in (Ready, AwaitPress, AwaitPiece):
    _READING[_source, Unheld] = Edge(_source, _same)
    _READING[_source, Resolved] = Edge(Ready, _ready)
_READING[Blocked, Unheld] = Edge(Ready, _ready)
_READING[Blocked, Resolved] = Edge(Blocked, _same)
_READING[Ready, GlimpsedRest] = Edge(Ready, _same)
_READING[AwaitPress, GlimpsedRest] = Edge(AwaitPress, _same)
_READING[AwaitPiece, GlimpsedRest] = Edge(Ready, _ready)
_READING[Blocked, GlimpsedRest] = Edge(Blocked, _same)
_READING[AwaitPiece, DropVoid] = Edge(Ready, _ready)

READING: Machine[ReadingState, ReadingEvent] = Machine("Reading", Ready, _READING)


@dataclass(frozen=True, slots=True)
class OnTrack:
    pass


@dataclass(frozen=True, slots=True)
class Recheck:
    pass


@dataclass(frozen=True, slots=True)
class Astray:
    since: float  # the first reading of the run that commits nothing
    report_at: float | None = None  # the last reading is reported then, if nothing changes


@dataclass(frozen=True, slots=True)
class Stuck:
    since: float
    report_at: float | None = None


Track = OnTrack | Recheck | Astray | Stuck


@dataclass(frozen=True, slots=True)
class Followed:
    """A reading followed the game (or a gap absorbed what came before it)."""


@dataclass(frozen=True, slots=True)
class Strayed:
    """A reading committed nothing: the run starts ``now`` unless it has started already."""

    now: float


@dataclass(frozen=True, slots=True)
class Asked:
    """The board is to be read again when the other board moves."""


@dataclass(frozen=True, slots=True)
class Released:
    """The board was read again (or moved, or settled at rest): nothing asked any more."""


@dataclass(frozen=True, slots=True)
class Timed:
    """The last reading (illegal, unexplained) is reported at ``report_at`` if nothing changes."""

    report_at: float


TrackEvent = Followed | Strayed | Asked | Released | Timed


def _strayed(state: Track, event: Strayed) -> Track:
    if isinstance(state, Astray | Stuck):
        return type(state)(state.since)  # the reading's own report, if any, is timed anew
    return Stuck(event.now) if isinstance(state, Recheck) else Astray(event.now)


def _followed(state: Track, _event: TrackEvent) -> Track:
    return Recheck() if isinstance(state, Recheck | Stuck) else OnTrack()


def _asked(state: Track, _event: TrackEvent) -> Track:
    return Stuck(state.since) if isinstance(state, Astray | Stuck) else Recheck()


def _released(state: Track, _event: TrackEvent) -> Track:
    return Astray(state.since) if isinstance(state, Astray | Stuck) else OnTrack()


def _timed(state: Track, event: Timed) -> Track:
    assert isinstance(state, Astray | Stuck)
    return type(state)(state.since, event.report_at)


_TRACK: dict[tuple[type, type], Edge[Track, TrackEvent]] = {
    (OnTrack, Strayed): Edge(Astray, _strayed),  # type: ignore[arg-type]
    (Recheck, Strayed): Edge(Stuck, _strayed),  # type: ignore[arg-type]
    (Astray, Strayed): Edge(Astray, _strayed, "the run goes on"),  # type: ignore[arg-type]
    (Stuck, Strayed): Edge(Stuck, _strayed, "the run goes on"),  # type: ignore[arg-type]
    (OnTrack, Followed): Edge(OnTrack, _followed),
    (Recheck, Followed): Edge(Recheck, _followed),
    (Astray, Followed): Edge(OnTrack, _followed),
    (Stuck, Followed): Edge(Recheck, _followed),
    (OnTrack, Asked): Edge(Recheck, _asked),
    (Recheck, Asked): Edge(Recheck, _asked),
    (Astray, Asked): Edge(Stuck, _asked),
    (Stuck, Asked): Edge(Stuck, _asked),
    (OnTrack, Released): Edge(OnTrack, _released),
    (Recheck, Released): Edge(OnTrack, _released),
    (Astray, Released): Edge(Astray, _released),
    (Stuck, Released): Edge(Astray, _released),
    (Astray, Timed): Edge(Astray, _timed),  # type: ignore[arg-type]
    (Stuck, Timed): Edge(Stuck, _timed),  # type: ignore[arg-type]
}

TRACK: Machine[Track, TrackEvent] = Machine("Track", OnTrack, _TRACK)


def astray_since(track: Track) -> float | None:
    """The first reading of the run that commits nothing, if the board is astray."""
    return track.since if isinstance(track, Astray | Stuck) else None


def asks_reread(track: Track) -> bool:
    """The board is to be read again when the other board moves."""
    return isinstance(track, Recheck | Stuck)
