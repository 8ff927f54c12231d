"""What the gaps' component (``resync.Resync``) may see and ask of the reader that holds it.

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
from bughouse_bridge.reconstruct.gap_pockets import GapPockets

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping, Sequence

    from bughouse_bridge.bughouse.events import MatchEvent
    from bughouse_bridge.bughouse.match import Match
    from bughouse_bridge.bughouse.types import BoardId, BughouseMove, Judgement
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


class GapWork:
    """The base of the gaps' component: its book, and the doors it reaches the reader by."""

    def __init__(self, doors: GapDoors) -> None:
        self._doors = doors
        self._gaps = GapBook()  # a new game starts a new component, and so a new book
        self._boards = doors.boards
        self.config = doors.config

    @property
    def _match(self) -> Match:
        return self._doors.match()

    def supplied(
        self, board: BoardId, move: BughouseMove, standing: Judgement | None, now: float
    ) -> list[MatchEvent] | None:
        """A drop its pockets lack, weighed as a gap's evidence (``gap_pockets.GapPockets``)."""
        return GapPockets(self._match, self._gaps).supplied(board, move, standing, now)

    def guessed(self) -> set[BoardId]:
        """The boards whose position or pockets are (partly) a gap's guess."""
        return self._gaps.guessed()

    def move_committed(self, board: BoardId) -> None:
        """A move committed after a recovery confirms the side on move it guessed."""
        self._gaps.recovery_confirmed(board)
