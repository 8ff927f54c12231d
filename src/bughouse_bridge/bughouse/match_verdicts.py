"""What a change of the boards decides: checks, mates, stalemates and the result they make. Pure.

After every move or correction both boards are judged anew (rows 7 and 8: a mate may wait for
the partner, a stalemated player waits for a piece); a mate that became final decides the match
unless a result already stands.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import chess

from bughouse_bridge.bughouse.events import (
    Alert,
    Check,
    Mate,
    MateStatus,
    ResultDecided,
    Severity,
    Stalemate,
    StalemateStatus,
)
from bughouse_bridge.bughouse.judging import seat_name
from bughouse_bridge.bughouse.match_core import MatchCore
from bughouse_bridge.bughouse.plight import Plight, Verdict, classify
from bughouse_bridge.bughouse.rules import BothMated, StalemateRule
from bughouse_bridge.bughouse.types import AlertCode, BoardId, Seat

if TYPE_CHECKING:
    from bughouse_bridge.bughouse.events import MatchEvent

__all__ = ["MatchVerdicts"]


class MatchVerdicts(MatchCore):
    """Judging both boards after a change, and deciding the match."""

    __slots__ = ()

    def _after_change(self, t: float, mover: Seat) -> list[MatchEvent]:
        board = self._state.boards[mover.board]
        events: list[MatchEvent] = []
        if board.is_check():
            events.append(Check(t, mover.board, board.turn))
        finals: list[Seat] = []
        for board_id in (mover.board, mover.board.other):
            events += self._reevaluate(board_id, mover, t, finals)
        return events + self._decide_mates(finals, t)

    def _reevaluate(
        self, board_id: BoardId, mover: Seat, t: float, finals: list[Seat]
    ) -> list[MatchEvent]:
        state = self._state
        player = Seat(board_id, state.boards[board_id].turn)
        old = state.plights[board_id]
        partner_moved = old.plight is Plight.MATE_PENDING and mover == player.partner
        new = classify(self._rules, state.boards, board_id, partner_moved=partner_moved)
        if new.plight is Plight.MATE_FINAL and board_id in state.forced_drops:
            new = Verdict(Plight.MATE_PENDING, "the mating drop was illegal and may be removed")
        state.plights[board_id] = new
        if new.plight is Plight.MATE_FINAL and old.plight is not Plight.MATE_FINAL:
            finals.append(player)
        if old.plight is new.plight:
            return []
        return self._leave(old, new, player, t) + self._enter(new, player, t)

    def _leave(self, old: Verdict, new: Verdict, player: Seat, t: float) -> list[MatchEvent]:
        if old.plight is Plight.STALEMATE:
            return [Stalemate(t, player.board, player.color, StalemateStatus.RESOLVED)]
        if old.plight is not Plight.MATE_PENDING:
            return []
        name = seat_name(player)
        if new.plight is Plight.MATE_FINAL:
            text = f"The pending mate on {name} is final: {new.reason}."
            return [self._alert(AlertCode.MATE_PENDING, player, 7, text, t)]
        averted = Mate(
            t, player.board, player.color, MateStatus.AVERTED, "the player can move again"
        )
        text = f"The mate on {name} was averted: he can move again."
        return [averted, self._alert(AlertCode.MATE_PENDING, player, 7, text, t)]

    def _enter(self, new: Verdict, player: Seat, t: float) -> list[MatchEvent]:
        if new.plight is Plight.MATE_PENDING:
            text = (
                f"{seat_name(player)} has no legal move, but the mate is not final: {new.reason}."
            )
            mate = Mate(t, player.board, player.color, MateStatus.PENDING, new.reason)
            return [mate, self._alert(AlertCode.MATE_PENDING, player, 7, text, t)]
        if new.plight is Plight.MATE_FINAL:
            return [Mate(t, player.board, player.color, MateStatus.FINAL, new.reason)]
        if new.plight is Plight.STALEMATE:
            return self._stalemate(player, t)
        return []

    def _stalemate(self, player: Seat, t: float) -> list[MatchEvent]:
        text = f"{seat_name(player)} is stalemated and waits for a piece from his partner."
        events: list[MatchEvent] = [
            Stalemate(t, player.board, player.color, StalemateStatus.WAITING),
            self._alert(AlertCode.STALEMATE_WAITING, player, 8, text, t),
        ]
        if self._rules.stalemate is StalemateRule.DRAW and self._state.result is None:
            events += self._decide(None, player.board, "stalemate", t)
        return events

    def _alert(self, code: AlertCode, player: Seat, row: int, message: str, t: float) -> Alert:
        return Alert(
            t=t,
            board=player.board,
            color=player.color,
            code=code,
            severity=Severity.INFO,
            rule=self._rules.ref(row),
            message=message,
        )

    def _decide_mates(self, finals: list[Seat], t: float) -> list[MatchEvent]:
        if not finals or self._state.result is not None:
            return []
        losing_teams = {seat.team for seat in finals}
        if len(losing_teams) > 1 and self._rules.both_mated is BothMated.DRAW:
            return self._decide(None, finals[0].board, "checkmate", t)
        first = finals[0]
        return self._decide(first.opponent.team, first.board, "checkmate", t)

    def _decide(
        self, winner_team: int | None, board: BoardId, reason: str, t: float
    ) -> list[MatchEvent]:
        result = ResultDecided(t, winner_team, board, reason, _bpgn_result(winner_team, board))
        self._state.result = result
        return [result]


def _bpgn_result(winner_team: int | None, board: BoardId) -> str:  # noqa: ARG001 - see docstring
    """Team-relative, as the BPGN ``[Result]`` we write (docs/bpgn.md, "The result"): "1-0" =
    White A and Black B won, whichever ``board`` decided (it no longer changes the answer)."""
    if winner_team is None:
        return "1/2-1/2"
    return "1-0" if Seat(BoardId.A, chess.WHITE).team == winner_team else "0-1"
