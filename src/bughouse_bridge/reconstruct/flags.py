"""Decisions in physical time: flags against the moves made before them (rules note I).

A flag counts at the clock's own zero crossing, not when its message came; it waits while a move
that may have come first is still on its way (a press before it, or a placement of the flagged
player's set down before it and not settled yet). A mating move needs no press (FIDE blitz 6.2.1,
5.1.1; DSB 2.1): released before the flag, it decides.

``Flags`` is a plain object the reconstructor holds, with the flags waiting as its own state; it
reads the table (``Table``: the match, the boards' states, whether a board shows the game) when
it decides, and tells the reconstructor when it is next due (``deadline``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from bughouse_bridge.bughouse.events import (
    Flag,
    Mate,
    MateStatus,
    ResultDecided,
)

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping

    import chess

    from bughouse_bridge.bughouse.match import Match
    from bughouse_bridge.bughouse.types import BoardId, BughouseMove
    from bughouse_bridge.reconstruct.board_state import Board
    from bughouse_bridge.reconstruct.config import ReconstructorConfig
    from bughouse_bridge.reconstruct.outcomes import Outcome


@dataclass(frozen=True, slots=True)
class HeldFlag:
    """A flag reported while a move that may have come before it is still on its way."""

    board: BoardId
    color: chess.Color
    at: float  # the clock-derived zero crossing
    seen: float  # when the flag message came


@dataclass(frozen=True, slots=True)
class Table:
    """What the flags read of the table when they decide."""

    match: Match
    boards: Mapping[BoardId, Board]
    at_rest: Callable[[BoardId], bool]  # the board shows the game's position


class Flags:
    """The flags fallen and not yet decided, held against the moves made before them."""

    def __init__(self, config: ReconstructorConfig) -> None:
        self._config = config
        self._held: list[HeldFlag] = []

    @property
    def hold(self) -> float:
        """How long a flag waits for the move of a press that came before it."""
        return self._config.press_grace + self._config.stability_window

    def fell(self, flag: HeldFlag) -> None:
        self._held.append(flag)

    def deadline(self) -> float | None:
        """When a flag waiting for a press's move is released without it."""
        return min((held.seen + self.hold for held in self._held), default=None)

    def board_due(self, board: BoardId) -> float | None:
        """When ``board`` is read for a flag held on it: the flagged player's last placement
        is scanned ``stability_window`` after the flag's message (``_placed_before``)."""
        window = self._config.stability_window
        return min((held.seen + window for held in self._held if held.board == board), default=None)

    def waiting(self, board: BoardId, color: chess.Color) -> bool:
        """A flag of ``color`` on ``board`` waits to be published."""
        return any(held.board == board and held.color == color for held in self._held)

    def release(self, table: Table, now: float, *, before: BoardId | None = None) -> list[Outcome]:
        """Decisions in physical time (rules note I): a flag counts at the clock's own zero
        crossing, not when its message came. It waits while a move that may have come first is
        still on its way: a press made before the flag message whose move the scanner has not
        reported yet, or a placement of the flagged side set down before the zero crossing and
        not settled yet (it may be a mating move, which needs no press: FIDE blitz 6.2.1).
        ``before``: a move on that board is about to be committed; the flags that fell before
        it was made are released first."""
        out: list[Outcome] = []
        for held in list(self._held):
            if before is not None:
                if not self._fell_before(table, held, before):
                    continue
            elif self._waits(table, held, now):
                continue
            self._held.remove(held)
            out += _flag(table.match, held, now)
        return out

    def _waits(self, table: Table, held: HeldFlag, now: float) -> bool:
        if _press_open(table, held.seen) and now < held.seen + self.hold:
            return True
        return self._placed_before(table, held, now)

    def _placed_before(self, table: Table, held: HeldFlag, now: float) -> bool:
        """The flagged player's board shows a placement his hand may have left before the flag
        fell, not settled yet: it is read first."""
        state = table.boards[held.board]
        if not state.connected or table.match.turn(held.board) != held.color:
            return False
        window = self._config.stability_window
        if now < held.seen + window:
            return True  # its last square may not have been scanned yet
        if self._placed_at(state) > held.at or table.at_rest(held.board):
            return False
        return now < state.changed_at + window

    def _placed_at(self, state: Board) -> float:
        """The earliest moment the board's last sensor change can have happened: the scanner
        reports a square up to one full scan (``stability_window``) after the hand left it.
        The flag's moment is an upper bound (the countdown polled every 0.25 s): a placement
        reported less than a scan after it may have come first, and a mate, which needs no
        press, is given that benefit (rules note I)."""
        return state.changed_at - self._config.stability_window

    def _fell_before(self, table: Table, held: HeldFlag, board: BoardId) -> bool:
        """The flag fell before the move about to be committed on ``board`` was made: the move
        was not pressed before the flag's message came, and its placement's last sensor change
        came after the flag. Against a flag of its own board's clock the placement is allowed
        its scan (``_placed_at``); across the boards the messages' order stands."""
        state = table.boards[board]
        if state.press is not None and state.press.t <= held.seen:
            return False
        placed = self._placed_at(state) if board == held.board else state.changed_at
        return held.at <= placed


def _press_open(table: Table, before: float) -> bool:
    return any(
        state.press is not None and state.press.t <= before for state in table.boards.values()
    )


def _flag(match: Match, held: HeldFlag, now: float) -> list[Outcome]:
    events = match.flag(held.board, held.color, t=now, at=held.at)
    if any(isinstance(event, Flag) for event in events):
        return list(events)
    return [Flag(now, held.board, held.color, held.at), *events]


def ends_the_game(match: Match, move: BughouseMove) -> bool:
    """The move mates for good: it needs no press (FIDE blitz 6.2.1 "unless the move that
    was made ends the game", 5.1.1; DSB 2.1, Olite 1). With its mover's flag fallen it is
    committed as soon as its placement has settled (the flag waits for it); without, it
    still waits for its press like any move, so that a move on the other board pressed
    before it comes first, but is not alerted as a move without a press."""
    position = match.position(move.board)
    position.push(move.move)
    if not position.is_checkmate():
        return False
    trial = match.copy()
    try:
        events = trial.play(move, t=0.0)
    except ValueError:
        return False
    return any(
        isinstance(event, ResultDecided)
        or (isinstance(event, Mate) and event.status is MateStatus.FINAL)
        for event in events
    )
