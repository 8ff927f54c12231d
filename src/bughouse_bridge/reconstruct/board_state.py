"""What the reconstructor remembers about a board, and the values it keeps about flags and
recoveries."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from bughouse_bridge.bughouse.types import AlertCode, BoardId, BughouseMove
from bughouse_bridge.dgt.messages import (
    LeverSide,
)
from bughouse_bridge.reconstruct.last_move import LastMove
from bughouse_bridge.reconstruct.link import (
    LINK,
    LinkEvent,
    LinkState,
    Live,
    heard,
)
from bughouse_bridge.reconstruct.presses import (
    PRESSES,
    Idle,
    Ledger,
    Press,
    PressEvent,
    first_press,
    owed,
)
from bughouse_bridge.reconstruct.reading_machine import (
    READING,
    TRACK,
    AwaitPress,
    Blocked,
    OnTrack,
    ReadingEvent,
    ReadingState,
    Ready,
    Track,
    TrackEvent,
    asks_reread,
    astray_since,
)
from bughouse_bridge.reconstruct.stall_watch import STALL, Stall, StallEvent, Unwatched

if TYPE_CHECKING:
    from collections.abc import Mapping

    import chess

    from bughouse_bridge.reconstruct.clocks import ClockTracker
    from bughouse_bridge.reconstruct.occupancy import (
        Occupancy,
    )
    from bughouse_bridge.reconstruct.reading_values import (
        Firmness,
    )


CLOCK_SIDES = {"left": LeverSide.LEFT, "right": LeverSide.RIGHT}
SEEN_KEPT = 64  # placements remembered since the last commit (a move makes a handful)


@dataclass(frozen=True, slots=True)
class RecoveredTurn:
    """A recovery whose side on move only the shortest explanation decided (the clock is not
    trusted as a link returns): a guess until a move committed after it confirms it."""

    moves: tuple[BughouseMove, ...]  # the recovered plies, in playing order
    plies: Mapping[BoardId, int]  # each board's ply right after them (a takeback since: void)

    @property
    def boards(self) -> list[BoardId]:
        return [board for board in BoardId if board in self.plies]


@dataclass(frozen=True, slots=True)
class FillGuess:
    """A gap left to the arbiter and filled as the boards stood: the side on move it left may be
    a guess (corrected by the first move of the other side), and until ``doubtful_until`` a
    later settled look may show the fill caught a hand in motion (``Resync._redo_fill``)."""

    gap: int
    turn_guessed: bool
    doubtful_until: float | None

    def settled(self, *, turn: bool = False, doubt: bool = False) -> FillGuess | None:
        turn_guessed = self.turn_guessed and not turn
        doubtful_until = None if doubt else self.doubtful_until
        if not turn_guessed and doubtful_until is None:
            return None
        return FillGuess(self.gap, turn_guessed, doubtful_until)


@dataclass(frozen=True, slots=True)
class RecoveryGuess:
    """A recovery whose side on move only the shortest explanation decided: a guess until a
    move committed after it confirms it, or a move of the other side disproves it."""

    recovery: RecoveredTurn


@dataclass(slots=True)
class Board:
    """Everything the reconstructor remembers about one board: the values of its machines
    (link, presses, reading, track, stalling watch), the last move, the gaps' guesses, and data
    (what the sensors showed and when, the alerts raised, when it is to be read again)."""

    occupancy: Occupancy
    rotated: bool | None
    clock: ClockTracker
    link: LinkState = field(default_factory=Live)
    presses: Ledger = field(default_factory=Idle)
    last: LastMove = field(default_factory=LastMove)
    reading: ReadingState = field(default_factory=Ready)  # what the reading awaits
    track: Track = field(default_factory=OnTrack)  # whether the readings follow the game
    stall: Stall = field(default_factory=Unwatched)  # the stalling watch (row 17)
    guess: FillGuess | RecoveryGuess | None = None  # what the last gap left to be confirmed
    seen: list[str] = field(default_factory=list)  # placements since the last commit, in order
    trail: set[tuple[chess.Square, chess.Piece]] = field(default_factory=set)  # since commit
    changes: list[tuple[chess.Square, chess.Piece | None]] = field(default_factory=list)
    changed_at: float = 0.0  # the placement's last sensor change
    moved_at: float = 0.0  # the last move committed (or gap settled): stalling counts from it
    # Alerts raised about placements, each once; one open makes the board's return announced.
    alerted: set[tuple[AlertCode, str]] = field(default_factory=set)
    signal: str | None = None  # the result the magic pieces showed last
    # When the board is to be read again: reset by every reading, which asks again for what it
    # still waits on (re-reading is idempotent); a sensor change asks for the stability window.
    wake_at: float | None = None

    @property
    def turn_unknown(self) -> int | None:
        """The gap whose fill left the side on move a guess."""
        guess = self.guess
        return guess.gap if isinstance(guess, FillGuess) and guess.turn_guessed else None

    @property
    def recovered_turn(self) -> RecoveredTurn | None:
        return self.guess.recovery if isinstance(self.guess, RecoveryGuess) else None

    @property
    def provisional(self) -> int | None:
        """The gap whose fill a later settled look may still redo."""
        guess = self.guess
        doubtful = isinstance(guess, FillGuess) and guess.doubtful_until is not None
        return guess.gap if doubtful else None  # type: ignore[union-attr]

    @property
    def provisional_until(self) -> float:
        guess = self.guess
        if isinstance(guess, FillGuess) and guess.doubtful_until is not None:
            return guess.doubtful_until
        return 0.0

    def turn_confirmed(self) -> None:
        """The side on move the fill guessed is right (or corrected): no longer a guess."""
        if isinstance(self.guess, FillGuess):
            self.guess = self.guess.settled(turn=True)

    def fill_confirmed(self) -> None:
        """The fill was whole (or has stood long enough): no later look redoes it."""
        if isinstance(self.guess, FillGuess):
            self.guess = self.guess.settled(doubt=True)

    def recovery_confirmed(self) -> None:
        if isinstance(self.guess, RecoveryGuess):
            self.guess = None

    @property
    def firmness(self) -> Firmness:
        return self.last.firmness

    @property
    def correctable(self) -> BughouseMove | None:
        return self.last.correctable

    @property
    def pending(self) -> BughouseMove | None:
        """A settled legal move waiting for its press."""
        return self.reading.move if isinstance(self.reading, AwaitPress) else None

    @property
    def held(self) -> bool:
        """The reading waits on the other board's link: solved with its gap."""
        return isinstance(self.reading, Blocked)

    @property
    def problem(self) -> bool:
        """An alert about the placement is open: the board's return to the game is announced."""
        return bool(self.alerted)

    @property
    def stuck(self) -> bool:
        """The board is to be read again when the other board moves."""
        return asks_reread(self.track)

    @property
    def lost_track_at(self) -> float | None:
        """The first reading of a run that commits nothing."""
        return astray_since(self.track)

    @property
    def press(self) -> Press | None:
        """The side on move's press no move has matched yet."""
        return first_press(self.presses)

    @property
    def owed(self) -> int:
        return owed(self.presses)

    @property
    def connected(self) -> bool:
        return heard(self.link)

    def press_event(self, event: PressEvent) -> None:
        self.presses = PRESSES.fire(self.presses, event)

    def link_event(self, event: LinkEvent) -> None:
        self.link = LINK.fire(self.link, event)

    def reading_event(self, event: ReadingEvent) -> None:
        self.reading = READING.fire(self.reading, event)

    def track_event(self, event: TrackEvent) -> None:
        self.track = TRACK.fire(self.track, event)

    def stall_event(self, event: StallEvent) -> None:
        self.stall = STALL.fire(self.stall, event)
