"""The gaps' book: what the reconstructor keeps of the gaps it could not settle alone.

One value instead of loose fields: the gaps left to the arbiter (each with its solution and the
placements its boards were set to), the recoveries whose order the arbiter may still choose
(issue 19), the boards recovered by a shortest explanation nothing confirmed, the id counter
(ids are never reused in a game, settled gaps and re-orderable recoveries included), and per
board what the last gap left to be confirmed (the Guess machine, ``gap_guess.py``: a fill's side
on move or doubt, a recovery's side on move). A new game starts a new book.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from bughouse_bridge.bughouse.types import BoardId
from bughouse_bridge.reconstruct.gap_guess import (
    GUESS,
    FillConfirmed,
    Filled,
    FillGuess,
    GapSettled,
    Guess,
    GuessEvent,
    NoGuess,
    Recovered,
    RecoveredTurn,
    RecoveryConfirmed,
    RecoveryGuess,
    TurnConfirmed,
)

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping

    from bughouse_bridge.bughouse.events import Alert
    from bughouse_bridge.reconstruct.gap import GapSolution
    from bughouse_bridge.reconstruct.reorder import OrderedRecovery


@dataclass(frozen=True, slots=True)
class HeldAlert:
    """A gap's alert held until ``alert.t``: until then a better look at the boards may still
    explain the gap (the dump caught a hand in motion, ``refill.Refills``), and the arbiter is
    not asked to decide a gap that settles itself a second later."""

    alert: Alert


@dataclass(frozen=True, slots=True)
class Weighing:
    """The moves after the gap have not decided it yet: each new one is weighed."""


@dataclass(frozen=True, slots=True)
class Recommended:
    """The moves after the gap left one candidate, recommended to the arbiter; each new move is
    still weighed against it (a move it does not fit withdraws the recommendation)."""

    candidate: int


@dataclass(frozen=True, slots=True)
class Concluded:
    """The moves after the gap told all they can (every candidate ruled out, only a longer story
    left, or the recommendation withdrawn): it is no longer weighed."""


LaterState = Weighing | Recommended | Concluded


@dataclass(frozen=True, slots=True)
class OpenGap:
    """A gap left to the arbiter: its solution (candidates, verdict) and the placements it set."""

    solution: GapSolution
    targets: Mapping[BoardId, str]
    later: LaterState = Weighing()  # what the moves after it said (``later_recommend``)
    held: HeldAlert | None = None  # its alert, not published yet


@dataclass(slots=True)
class GapBook:
    """The gaps left open, the re-orderable recoveries and the unconfirmed boards of a game."""

    _open: dict[int, OpenGap] = field(default_factory=dict)
    _orders: dict[int, OrderedRecovery] = field(default_factory=dict)
    _unconfirmed: set[BoardId] = field(default_factory=set)
    _count: int = 0
    _guesses: dict[BoardId, Guess] = field(default_factory=dict)

    def next_id(self) -> int:
        """A fresh gap id (a gap's log entry is made with it before the gap is opened)."""
        self._count += 1
        return self._count

    def open(
        self,
        gap: int,
        solution: GapSolution,
        targets: Mapping[BoardId, str],
        *,
        held: HeldAlert | None = None,
    ) -> None:
        """``gap`` is left to the arbiter (or filled anew by a later look) with ``solution``,
        its boards set to ``targets``; ``held``: its alert, published at its time."""
        self._open[gap] = OpenGap(solution, dict(targets), held=held)

    def held(self, gap: int) -> HeldAlert | None:
        """``gap``'s alert not published yet (``None``: published, or no such gap)."""
        found = self._open.get(gap)
        return None if found is None else found.held

    def held_due(self) -> float | None:
        """When the next held alert is due."""
        return min((f.held.alert.t for f in self._open.values() if f.held), default=None)

    def release_held(self, now: float) -> list[Alert]:
        """The held alerts due by ``now``, each given up once."""
        due = [g for g, f in sorted(self._open.items()) if f.held and f.held.alert.t <= now]
        released = []
        for gap in due:
            found = self._open[gap]
            assert found.held is not None
            released.append(found.held.alert)
            self._open[gap] = replace(found, held=None)
        return released

    def forget(self, gap: int) -> None:
        """``gap`` is settled by its plies; KeyError when it is not open."""
        del self._open[gap]

    def solution(self, gap: int) -> GapSolution | None:
        found = self._open.get(gap)
        return None if found is None else found.solution

    def weighed(self, gap: int, later: LaterState) -> None:
        """What the moves after ``gap`` said of it (it stays with the arbiter either way).
        KeyError when it is not open."""
        self._open[gap] = replace(self._open[gap], later=later)

    def later(self, gap: int) -> LaterState:
        """What the moves after ``gap`` said so far; KeyError when it is not open."""
        return self._open[gap].later

    def weighable(self) -> list[int]:
        """The open gaps later moves may still decide, or withdraw a recommendation of."""
        return [
            gap
            for gap, found in sorted(self._open.items())
            if not isinstance(found.later, Concluded)
        ]

    def targets(self, gap: int) -> dict[BoardId, str]:
        """The placements ``gap`` set its boards to; KeyError when it is not open."""
        return dict(self._open[gap].targets)

    def open_ids(self) -> list[int]:
        return sorted(self._open)

    def feeding(self, boards: Iterable[BoardId]) -> list[int]:
        """The open gaps that set any of ``boards`` (their pockets are partly its guess)."""
        fed = set(boards)
        return [gap for gap, found in self._open.items() if fed & found.targets.keys()]

    def reorderable(self, recovery: OrderedRecovery) -> int:
        """A recovery other orders fit: kept under a fresh id for ``choose_recovery``."""
        gap = self.next_id()
        self._orders[gap] = recovery
        return gap

    def order(self, gap: int) -> OrderedRecovery | None:
        """The re-orderable recovery ``gap`` (``None``: no such)."""
        return self._orders.get(gap)

    def reordered(self, gap: int) -> None:
        """The recovery ``gap`` was re-ordered: it cannot be again."""
        del self._orders[gap]

    def unconfirmed(self, boards: Iterable[BoardId]) -> None:
        """``boards`` were recovered by a shortest explanation whose confirmation ran out of
        work: their pockets (a drop taken at once) and side on move may still be wrong."""
        self._unconfirmed.update(boards)

    def any_unconfirmed(self, boards: Iterable[BoardId]) -> bool:
        return not self._unconfirmed.isdisjoint(boards)

    def guessed(self) -> set[BoardId]:
        """The boards whose position or pockets are (partly) a gap's guess."""
        boards = set(self._unconfirmed)
        for found in self._open.values():
            boards.update(found.targets)
        return boards

    def guess_of(self, board: BoardId) -> Guess:
        """What the last gap on ``board`` left to be confirmed."""
        return self._guesses.get(board, NoGuess())

    def filled(
        self, board: BoardId, gap: int, *, turn_guessed: bool, doubtful_until: float | None
    ) -> None:
        self._guess_event(board, Filled(gap, turn_guessed, doubtful_until))

    def recovered(self, board: BoardId, recovery: RecoveredTurn) -> None:
        self._guess_event(board, Recovered(recovery))

    def turn_unknown(self, board: BoardId) -> int | None:
        """The gap whose fill left the side on move a guess."""
        guess = self.guess_of(board)
        return guess.gap if isinstance(guess, FillGuess) and guess.turn_guessed else None

    def recovered_turn(self, board: BoardId) -> RecoveredTurn | None:
        guess = self.guess_of(board)
        return guess.recovery if isinstance(guess, RecoveryGuess) else None

    def provisional(self, board: BoardId) -> int | None:
        """The gap whose fill a later settled look may still redo."""
        guess = self.guess_of(board)
        doubtful = isinstance(guess, FillGuess) and guess.doubtful_until is not None
        return guess.gap if doubtful else None  # type: ignore[union-attr]

    def provisional_until(self, board: BoardId) -> float:
        guess = self.guess_of(board)
        if isinstance(guess, FillGuess) and guess.doubtful_until is not None:
            return guess.doubtful_until
        return 0.0

    def turn_confirmed(self, board: BoardId) -> None:
        """The side on move the fill guessed is right (or corrected): no longer a guess."""
        self._guess_event(board, TurnConfirmed())

    def fill_confirmed(self, board: BoardId) -> None:
        """The fill was whole (or has stood long enough): no later look redoes it."""
        self._guess_event(board, FillConfirmed())

    def recovery_confirmed(self, board: BoardId) -> None:
        """A move committed after a recovery (or a look at it) confirms its side on move."""
        self._guess_event(board, RecoveryConfirmed())

    def fill_settled(self, gap: int) -> None:
        """``gap`` is settled by its plies: nothing of its fill is a guess any more."""
        for board in BoardId:
            self._guess_event(board, GapSettled(gap))

    def _guess_event(self, board: BoardId, event: GuessEvent) -> None:
        self._guesses[board] = GUESS.fire(self.guess_of(board), event)
