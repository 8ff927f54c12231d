"""What a reading of a board is (``readings.read``): the values it returns, each naming what a
settled placement means for the match, the context it is read in, and how firmly a committed
move stands. Data only: the reconstructor acts on these values.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import TYPE_CHECKING

import chess

if TYPE_CHECKING:
    from bughouse_bridge.bughouse.types import BughouseMove, Judgement

# Every square change since the last commit, in order (``None``: the square emptied).
Changes = tuple[tuple[chess.Square, chess.Piece | None], ...]


@dataclass(frozen=True, slots=True)
class Legal:
    """Moves to commit in order. ``standing`` is set for an illegal drop that stands (row 9)."""

    moves: tuple[BughouseMove, ...]
    standing: Judgement | None = None

    @property
    def several(self) -> bool:
        return len(self.moves) > 1


@dataclass(frozen=True, slots=True)
class Correction:
    """The last move on the board is replaced (a slide, a change of mind).

    ``moves`` is the replacement, followed by the opponent's reply when he has already answered:
    a slide committed one square short by a press that beat the scanner, then a blitz reply.
    """

    moves: tuple[BughouseMove, ...]


@dataclass(frozen=True, slots=True)
class Remedy:
    """The illegal drop was taken off (row 9); ``then`` is the remover's move, if made already."""

    then: BughouseMove | None


@dataclass(frozen=True, slots=True)
class Waiting:
    """A move that becomes legal when the other board catches up (drop grace, pending steal)."""

    move: BughouseMove
    judgement: Judgement


@dataclass(frozen=True, slots=True)
class Illegal:
    move: BughouseMove
    color: chess.Color
    judgement: Judgement


@dataclass(frozen=True, slots=True)
class Signal:
    result: str


@dataclass(frozen=True, slots=True)
class Unexplained:
    pass


Reading = Legal | Correction | Remedy | Waiting | Illegal | Signal | Unexplained


class Firmness(Enum):
    """How firmly a board's last committed move stands: what a human arbiter would still revise.

    A move is revised only by its own mover's hand (a slide, a change of mind, a press that beat
    the scanner); once it has stood while the opponent's clock ran, no later placement rewrites it
    (a transient during the opponent's move can fit "the position before it plus another move").
    """

    OPEN = "open"  # committed without its press (no clock, or none yet): revisable until replied
    HASTY = "hasty"  # committed by a press before the board settled: the scanner may lag behind
    PRESSED = "pressed"  # committed with its press on a settled board
    FINAL = "final"  # stood ``press_grace`` after its press, or the reply was pressed on it

    @property
    def pressed_not_final(self) -> bool:
        """Pressed, but the press may have beaten the scanner or the mover's own hand."""
        return self in {Firmness.HASTY, Firmness.PRESSED}


@dataclass(frozen=True, slots=True)
class Context:
    """What the reconstructor remembers about the board's last move."""

    now: float
    correctable: BughouseMove | None = None  # the last move, if it may still be replaced
    parent: chess.Board | None = None  # the position before ``correctable``
    standing_drop: BughouseMove | None = None  # an illegal drop the opponent may take off
    pressed: bool = False  # the side to move pressed the clock since the last commit
    pending: BughouseMove | None = None  # a legal move seen settled, waiting for the press
    trail: frozenset[tuple[chess.Square, chess.Piece]] = frozenset()  # seen since last commit
    firmness: Firmness = Firmness.OPEN  # how firmly the last move stands
    presses: int = 0  # clock presses since the last commit: plies made, by the clock's count
    # Every square change since the last commit, in order (``None``: the square emptied).
    changes: Changes = ()
    changes_of_last: Changes = ()  # the changes that led to the last commit
