"""What the reconstructor remembers about a board."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

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
    import chess

    from bughouse_bridge.bughouse.types import AlertCode, BughouseMove
    from bughouse_bridge.reconstruct.clocks import ClockTracker
    from bughouse_bridge.reconstruct.occupancy import (
        Occupancy,
    )
    from bughouse_bridge.reconstruct.reading_values import (
        Firmness,
    )


CLOCK_SIDES = {"left": LeverSide.LEFT, "right": LeverSide.RIGHT}
SEEN_KEPT = 64  # placements remembered since the last commit (a move makes a handful)


@dataclass(slots=True)
class Board:
    """Everything the reconstructor remembers about one board: the values of its machines
    (link, presses, reading, track, stalling watch), the last move, and data
    (what the sensors showed and when, the alerts raised, when it was last read)."""

    occupancy: Occupancy
    rotated: bool | None
    clock: ClockTracker
    link: LinkState = field(default_factory=Live)
    presses: Ledger = field(default_factory=Idle)
    last: LastMove = field(default_factory=LastMove)
    reading: ReadingState = field(default_factory=Ready)  # what the reading awaits
    track: Track = field(default_factory=OnTrack)  # whether the readings follow the game
    stall: Stall = field(default_factory=Unwatched)  # the stalling watch (row 17)
    seen: list[str] = field(default_factory=list)  # placements since the last commit, in order
    trail: set[tuple[chess.Square, chess.Piece]] = field(default_factory=set)  # since commit
    changes: list[tuple[chess.Square, chess.Piece | None]] = field(default_factory=list)
    changed_at: float = 0.0  # the placement's last sensor change
    moved_at: float = 0.0  # the last move committed (or gap settled): stalling counts from it
    # Alerts raised about placements, each once; one open makes the board's return announced.
    alerted: set[tuple[AlertCode, str]] = field(default_factory=set)
    signal: str | None = None  # the result the magic pieces showed last
    # The board's last reading: the dues its values carry up to then were read, and the next
    # reading is the earliest due after it (``deadlines.board_deadline``).
    read_at: float = -math.inf

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
