"""The work budget every search of one gap shares: the solver's only notion of time, counted in
units so that the same gap gives the same verdict on any machine and at any load."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Budget", "OutOfWorkError"]


class OutOfWorkError(Exception):
    """The search's budget of work is spent."""


@dataclass(slots=True)
class Budget:
    """Work done, shared by every search of one gap; ``OutOfWorkError`` beyond ``limit``. A
    move tried (priced by the bound, played if it may lead to the goal) is one unit, a
    position expanded (its moves generated) ``search._EXPANDING``: a unit is about the same CPU
    time whatever the gap (some 3-4 µs here)."""

    limit: int
    spent: int = 0

    def spend(self, work: int = 1) -> None:
        self.spent += work
        if self.spent > self.limit:
            self.spent = self.limit + 1  # the cap, as a count: never more than one over it
            raise OutOfWorkError
