"""The last move read on a board, as one value: the move, the position before it, the sensor
changes that led to it, the ply it left, and how firmly it stands (``reading_values.Firmness``).

Only a move that is not final may be revised, only while no takeback has changed the board
since (``ply``), and only by its own mover's hand; an illegal drop that stands (``standing``)
is revised by nobody, but the opponent may take it off (row 9). After a gap nothing before it
is revised: the record is ``absorbed`` (no move, final).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from bughouse_bridge.reconstruct.reading_values import Changes, Firmness

if TYPE_CHECKING:
    import chess

    from bughouse_bridge.bughouse.types import BughouseMove


@dataclass(frozen=True, slots=True)
class LastMove:
    move: BughouseMove | None = None  # None: nothing to revise (a start, a gap, a removal)
    standing: bool = False  # ``move`` is an illegal drop that stands (row 9)
    parent: chess.Board | None = None  # the position before ``move``, when it may be replaced
    changes: Changes = ()  # the sensor changes that led to it
    ply: int = 0  # the board's ply right after it (an arbiter's takeback since: not ours)
    firmness: Firmness = Firmness.OPEN
    confirmed_at: float = 0.0  # when its press came (or its commit, if pressed)

    @property
    def correctable(self) -> BughouseMove | None:
        """The move its own mover may still be revising (a legal move, not final)."""
        return None if self.standing else self.move

    @property
    def standing_drop(self) -> BughouseMove | None:
        return self.move if self.standing else None

    def stands_at(self, changed_at: float, press_grace: float) -> float | None:
        """When a pressed move, not final yet, is final if it still stands: ``press_grace``
        after its press and the placement's last change (``standing.Standing._firm_up``)."""
        if not self.firmness.pressed_not_final:
            return None
        return max(changed_at, self.confirmed_at) + press_grace

    def pressed_late(self, at: float) -> LastMove:
        """The press of a move read before it: the move now waits to stand."""
        if self.firmness is not Firmness.OPEN:
            return self
        return replace(self, firmness=Firmness.PRESSED, confirmed_at=at)

    def final(self) -> LastMove:
        return replace(self, firmness=Firmness.FINAL)

    def absorbed(self, at: float) -> LastMove:
        """A gap settled: nothing before it is revised."""
        return replace(self, firmness=Firmness.FINAL, confirmed_at=at, changes=())

    def forgotten(self, ply: int) -> LastMove:
        """No move of this board is revisable any more (a gap's plies, a removed drop)."""
        return replace(self, move=None, standing=False, parent=None, ply=ply)
