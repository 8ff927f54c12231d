"""Decisions in physical time: flags against the moves made before them (rules note I).

A flag counts at the clock's own zero crossing, not when its message came; it waits while a move
that may have come first is still on its way (a press before it, or a placement of the flagged
player's set down before it and not settled yet). A mating move needs no press (FIDE blitz 6.2.1,
5.1.1; DSB 2.1): released before the flag, it decides.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from bughouse_bridge.bughouse.events import (
    Clocks,
    ClocksStatus,
    Flag,
    Mate,
    MateStatus,
    ResultDecided,
)
from bughouse_bridge.bughouse.referee import arbiter_call_alert

if TYPE_CHECKING:
    import chess

    from bughouse_bridge.bughouse.types import BoardId, BughouseMove
    from bughouse_bridge.reconstruct.board_state import (
        HeldFlag,
    )
    from bughouse_bridge.reconstruct.outcomes import Outcome
from bughouse_bridge.reconstruct.core import ReconstructorCore


class FlagOrder(ReconstructorCore):
    """FlagOrder: see the module docstring."""

    @property
    def _flag_hold(self) -> float:
        """How long a flag waits for the move of a press that came before it."""
        return self.config.press_grace + self.config.stability_window

    def _release_flags(self, now: float, *, before: BoardId | None = None) -> list[Outcome]:
        """Decisions in physical time (rules note I): a flag counts at the clock's own zero
        crossing, not when its message came. It waits while a move that may have come first is
        still on its way: a press made before the flag message whose move the scanner has not
        reported yet, or a placement of the flagged side set down before the zero crossing and
        not settled yet (it may be a mating move, which needs no press: FIDE blitz 6.2.1).
        ``before``: a move on that board is about to be committed; the flags that fell before
        it was made are released first."""
        out: list[Outcome] = []
        for held in list(self._held_flags):
            if before is not None:
                if not self._fell_before(held, before):
                    continue
            elif self._flag_waits(held, now):
                continue
            self._held_flags.remove(held)
            out += self._flag(held.board, held.color, now, held.at)
        return out

    def _flag_waits(self, held: HeldFlag, now: float) -> bool:
        if self._press_open(held.seen) and now < held.seen + self._flag_hold:
            return True
        return self._placed_before(held, now)

    def _placed_before(self, held: HeldFlag, now: float) -> bool:
        """The flagged player's board shows a placement his hand may have left before the flag
        fell, not settled yet: it is read first."""
        state = self._boards[held.board]
        if not state.connected or self._match.turn(held.board) != held.color:
            return False
        if now < held.seen + self.config.stability_window:
            return True  # its last square may not have been scanned yet
        if self._placed_at(held.board) > held.at or self._at_rest_now(held.board):
            return False
        return now < state.changed_at + self.config.stability_window

    def _placed_at(self, board: BoardId) -> float:
        """The earliest moment the board's last sensor change can have happened: the scanner
        reports a square up to one full scan (``stability_window``) after the hand left it.
        The flag's moment is an upper bound (the countdown polled every 0.25 s): a placement
        reported less than a scan after it may have come first, and a mate, which needs no
        press, is given that benefit (rules note I)."""
        return self._boards[board].changed_at - self.config.stability_window

    def _press_open(self, before: float) -> bool:
        return any(
            state.press is not None and state.press.t <= before for state in self._boards.values()
        )

    def _fell_before(self, held: HeldFlag, board: BoardId) -> bool:
        """The flag fell before the move about to be committed on ``board`` was made: the move
        was not pressed before the flag's message came, and its placement's last sensor change
        came after the flag. Against a flag of its own board's clock the placement is allowed
        its scan (``_placed_at``); across the boards the messages' order stands."""
        state = self._boards[board]
        if state.press is not None and state.press.t <= held.seen:
            return False
        placed = self._placed_at(board) if board == held.board else state.changed_at
        return held.at <= placed

    def _flag(self, board: BoardId, color: chess.Color, now: float, at: float) -> list[Outcome]:
        events = self._match.flag(board, color, t=now, at=at)
        if any(isinstance(event, Flag) for event in events):
            return list(events)
        return [Flag(now, board, color, at), *events]

    def _flag_held(self, board: BoardId) -> bool:
        """A flag of the side on move on ``board`` waits to be published."""
        turn = self._match.turn(board)
        return any(held.board == board and held.color == turn for held in self._held_flags)

    def _ends_the_game(self, move: BughouseMove) -> bool:
        """The move mates for good: it needs no press (FIDE blitz 6.2.1 "unless the move that
        was made ends the game", 5.1.1; DSB 2.1, Olite 1). With its mover's flag fallen it is
        committed as soon as its placement has settled (the flag waits for it); without, it
        still waits for its press like any move, so that a move on the other board pressed
        before it comes first, but is not alerted as a move without a press."""
        position = self._match.position(move.board)
        position.push(move.move)
        if not position.is_checkmate():
            return False
        trial = self._match.copy()
        try:
            events = trial.play(move, t=0.0)
        except ValueError:
            return False
        return any(
            isinstance(event, ResultDecided)
            or (isinstance(event, Mate) and event.status is MateStatus.FINAL)
            for event in events
        )

    def _both_clocks(self, now: float) -> list[Outcome]:
        clocks = [state.clock for state in self._boards.values()]
        stopped = all(clock.has_run and not clock.running for clock in clocks)
        if stopped and not self._both_stopped:
            self._both_stopped = True
            call = arbiter_call_alert(self._match.rules, now)
            if self._match.result is not None or call is None:
                return [Clocks(now, ClocksStatus.BOTH_STOPPED)]
            return [Clocks(now, ClocksStatus.BOTH_STOPPED), call]
        if self._both_stopped and any(clock.running for clock in clocks):
            self._both_stopped = False
            return [Clocks(now, ClocksStatus.RUNNING)]
        return []
