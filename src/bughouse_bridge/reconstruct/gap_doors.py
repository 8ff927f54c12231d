"""What the gaps' component (``resync.Resync``) may see and ask of the reader that holds it, and
what it answers a reading weighed (``Proceed | Reread | Handled``).

``Resync`` is a plain object the reconstructor holds, as it holds ``flags.Flags``: it owns the
gaps' book (``gap_book.GapBook``) and the gaps' business, and reaches the rest of the
reconstructor only through these doors — the match and the boards' states it reads and moves,
the placements the boards show, and the few things it asks the reader to do (read a board
again, follow a move committed, say a board matches the game again). It never asks for a board
to be woken: the states it leaves carry their dues (``deadlines.py``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from bughouse_bridge.reconstruct.gap_book import GapBook

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping, Sequence

    from bughouse_bridge.bughouse.events import MatchEvent
    from bughouse_bridge.bughouse.match import Match
    from bughouse_bridge.bughouse.types import BoardId, BughouseMove
    from bughouse_bridge.reconstruct.board_state import Board
    from bughouse_bridge.reconstruct.config import ReconstructorConfig
    from bughouse_bridge.reconstruct.outcomes import Outcome

    Read = Callable[[BoardId, float], list[Outcome]]


@dataclass(frozen=True, slots=True)
class GapDoors:
    """The reader's side of the gaps' component: what it reads, and what it may be asked."""

    match: Callable[[], Match]  # the game now (a new game replaces it); bound methods only:
    # a copy of the reconstructor (deepcopy, a checkpoint) must reach its own copy, not this one
    boards: Mapping[BoardId, Board]
    config: ReconstructorConfig
    physical: Callable[[BoardId], str | None]  # what the board shows, ``None``: not known yet
    reread: Read  # read the board again now
    nudge: Read  # read the board again now if it waited on the other one
    resolved: Callable[[BoardId, float, str], list[Outcome]]  # the board matches the game again
    after_commit: Callable[[BoardId, BughouseMove, Sequence[MatchEvent], float], list[Outcome]]


@dataclass(frozen=True, slots=True)
class Proceed:
    """The reading is no evidence about a gap: handle it as usual."""


@dataclass(frozen=True, slots=True)
class Reread:
    """The reading corrected a guessed side on move: read the board again."""


@dataclass(frozen=True, slots=True)
class Handled:
    """The gaps' business: these outcomes, and nothing more for this reading."""

    out: list[Outcome]


Weighed = Proceed | Reread | Handled


class GapWork:
    """What the gaps' parts share (``resync.Resync`` makes one and hands it to each of its
    parts, ``guesses.Guesses`` and ``refill.Refills``): the doors, the gaps' book, the boards'
    states and the game now."""

    def __init__(self, doors: GapDoors) -> None:
        self.doors = doors
        self.gaps = GapBook()  # a new game starts a new component, and so a new book
        self.boards = doors.boards
        self.config = doors.config

    @property
    def match(self) -> Match:
        return self.doors.match()
