"""The **Guess** machine, one per board: what the last gap on the board left to be confirmed.

``NoGuess`` — nothing. ``FillGuess(gap, turn_guessed, doubtful_until)`` — a gap left to the
arbiter and filled as the boards stood: the side on move it left may be a guess (corrected by the
first move of the other side), and until ``doubtful_until`` a later settled look may show the
fill caught a hand in motion (``refill.Refills.redo_fill``); a fill with neither is ``NoGuess``.
``RecoveryGuess(recovery)`` — a recovery whose side on move only the shortest explanation
decided (the clock is not trusted as a link returns): a guess until a move committed after it
confirms it, or a move of the other side disproves it. The gaps' book (``gap_book.GapBook``)
holds one per board.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from bughouse_bridge.bughouse.types import BoardId
from bughouse_bridge.reconstruct.fsm import Edge, Machine

if TYPE_CHECKING:
    from collections.abc import Mapping

    from bughouse_bridge.bughouse.types import BughouseMove


@dataclass(frozen=True, slots=True)
class RecoveredTurn:
    """The plies of a recovery, and each board's ply right after them (a takeback since: the
    recovery can no longer be taken back)."""

    moves: tuple[BughouseMove, ...]  # the recovered plies, in playing order
    plies: Mapping[BoardId, int]

    @property
    def boards(self) -> list[BoardId]:
        return [board for board in BoardId if board in self.plies]


@dataclass(frozen=True, slots=True)
class NoGuess:
    pass


@dataclass(frozen=True, slots=True)
class FillGuess:
    gap: int
    turn_guessed: bool
    doubtful_until: float | None

    def __post_init__(self) -> None:
        assert self.turn_guessed or self.doubtful_until is not None, "an empty fill is NoGuess"

    def settled(self, *, turn: bool = False, doubt: bool = False) -> FillGuess | NoGuess:
        turn_guessed = self.turn_guessed and not turn
        doubtful_until = None if doubt else self.doubtful_until
        if not turn_guessed and doubtful_until is None:
            return NoGuess()
        return FillGuess(self.gap, turn_guessed, doubtful_until)


@dataclass(frozen=True, slots=True)
class RecoveryGuess:
    recovery: RecoveredTurn


Guess = NoGuess | FillGuess | RecoveryGuess


@dataclass(frozen=True, slots=True)
class Filled:
    """A gap left to the arbiter filled the board with a guess (side on move, or doubt)."""

    gap: int
    turn_guessed: bool
    doubtful_until: float | None


@dataclass(frozen=True, slots=True)
class Recovered:
    """A recovery's side on move is the shortest explanation's guess."""

    recovery: RecoveredTurn


@dataclass(frozen=True, slots=True)
class TurnConfirmed:
    """The side on move a fill guessed is right (or was corrected)."""


@dataclass(frozen=True, slots=True)
class FillConfirmed:
    """The fill was whole (or has stood long enough): no later look redoes it."""


@dataclass(frozen=True, slots=True)
class RecoveryConfirmed:
    """A move committed after a recovery (or a look at it) confirms its side on move."""


@dataclass(frozen=True, slots=True)
class GapSettled:
    """The gap is settled by its plies: nothing of its fill is a guess any more."""

    gap: int


GuessEvent = Filled | Recovered | TurnConfirmed | FillConfirmed | RecoveryConfirmed | GapSettled


def _filled(_state: Guess, event: Filled) -> Guess:
    return FillGuess(event.gap, event.turn_guessed, event.doubtful_until)


def _recovered(_state: Guess, event: Recovered) -> Guess:
    return RecoveryGuess(event.recovery)


def _same(state: Guess, _event: GuessEvent) -> Guess:
    return state


def _none(_state: Guess, _event: GuessEvent) -> Guess:
    return NoGuess()


def _turn_confirmed(state: Guess, _event: GuessEvent) -> Guess:
    assert isinstance(state, FillGuess)
    return state.settled(turn=True)


def _fill_confirmed(state: Guess, _event: GuessEvent) -> Guess:
    assert isinstance(state, FillGuess)
    return state.settled(doubt=True)


def _gap_settled(state: Guess, event: GapSettled) -> Guess:
    assert isinstance(state, FillGuess)
    return NoGuess() if state.gap == event.gap else state


_TABLE: dict[tuple[type, type], Edge[Guess, GuessEvent]] = {}
for _source in (NoGuess, FillGuess, RecoveryGuess):
    _TABLE[_source, Filled] = Edge(FillGuess, _filled)  # type: ignore[arg-type]
    _TABLE[_source, Recovered] = Edge(RecoveryGuess, _recovered)  # type: ignore[arg-type]
for _source in (NoGuess, RecoveryGuess):
    _TABLE[_source, TurnConfirmed] = Edge(_source, _same)
    _TABLE[_source, FillConfirmed] = Edge(_source, _same)
    _TABLE[_source, GapSettled] = Edge(_source, _same)
_TABLE[FillGuess, TurnConfirmed] = Edge(NoGuess, _turn_confirmed, "or FillGuess while in doubt")
_TABLE[FillGuess, FillConfirmed] = Edge(NoGuess, _fill_confirmed, "or FillGuess, turn guessed")
_TABLE[FillGuess, GapSettled] = Edge(NoGuess, _gap_settled, "its own gap")  # type: ignore[arg-type]
_TABLE[FillGuess, RecoveryConfirmed] = Edge(FillGuess, _same)
_TABLE[NoGuess, RecoveryConfirmed] = Edge(NoGuess, _same)
_TABLE[RecoveryGuess, RecoveryConfirmed] = Edge(NoGuess, _none)

GUESS: Machine[Guess, GuessEvent] = Machine("Guess", NoGuess, _TABLE)
