"""Flags, the arbiter's results, claims (rows 10, 12, 13) and revoking a result. Pure.

A flag decides by itself or only when claimed, as the rules say; a claim is confirmed only when
the record supports it; a revoked result lets the game go on, and a mate that became final
meanwhile decides at once.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from bughouse_bridge.bughouse.events import Flag, ResultRevoked
from bughouse_bridge.bughouse.judging import seat_name
from bughouse_bridge.bughouse.match_log import (
    ClaimConfirmed,
    FlagFell,
    IllegalSeen,
    ResultSet,
    ResultWithdrawn,
)
from bughouse_bridge.bughouse.match_verdicts import MatchVerdicts
from bughouse_bridge.bughouse.plight import Plight
from bughouse_bridge.bughouse.referee import (
    CLAIM_KINDS,
    claim_arguments,
    flag_alert,
    flag_is_claimed,
    illegal_claim_note,
    illegal_move_is_claimed,
)
from bughouse_bridge.bughouse.rules import BothFlagged
from bughouse_bridge.bughouse.types import BoardId, Seat

if TYPE_CHECKING:
    from typing import Any

    import chess

    from bughouse_bridge.bughouse.events import MatchEvent

__all__ = ["MatchResults"]


class MatchResults(MatchVerdicts):
    """Flags, results set by the arbiter, claims and revocations."""

    __slots__ = ()

    def flag(self, board: BoardId, color: chess.Color, *, t: float, at: float) -> list[MatchEvent]:
        """A clock reached zero (row 12, note H): ``at`` is the clock-derived zero crossing."""
        self._state.log.append(FlagFell(t, Seat(board, color), at))
        return self._recorded(t, self._flag(Seat(board, color), t, at))

    def _flag(self, seat: Seat, t: float, at: float) -> list[MatchEvent]:
        state = self._state
        state.flags.setdefault(seat, at)
        rival = self._rival_flag(seat)
        events: list[MatchEvent] = [
            Flag(t, seat.board, seat.color, at),
            flag_alert(self._rules, seat, at, rival, t, decided=state.result is not None),
        ]
        if flag_is_claimed(self._rules):
            return events  # row 13: only a confirmed claim decides; the match goes on
        if state.result is None:
            return events + self._flag_result(seat, at, rival, t)
        if self._supersedes(at, rival):
            return events + self._decide(None, seat.board, "time", t)
        return events

    def _rival_flag(self, seat: Seat) -> float | None:
        rivals = [at for other, at in self._state.flags.items() if other.team != seat.team]
        return min(rivals) if rivals else None

    def _flag_result(
        self, seat: Seat, at: float, rival: float | None, t: float
    ) -> list[MatchEvent]:
        if rival is None:
            return self._decide(seat.opponent.team, seat.board, "time", t)
        policy = self._rules.both_flagged
        if policy is BothFlagged.DRAW_IF_DIFFERENT_TEAMS or self._order_unknown(at, rival):
            return self._decide(None, seat.board, "time", t)
        loser_team = seat.team if at < rival else 1 - seat.team
        return self._decide(1 - loser_team, seat.board, "time", t)

    def _order_unknown(self, at: float, rival: float) -> bool:
        if self._rules.both_flagged is not BothFlagged.DRAW_IF_ORDER_UNKNOWN:
            return False
        return abs(at - rival) * 1000 < self._rules.flag_order_resolution_ms

    def _supersedes(self, at: float, rival: float | None) -> bool:
        """A late-reported flag of the other team that turns a flag result into a draw."""
        result = self._state.result
        if result is None or result.reason != "time" or result.winner_team is None or rival is None:
            return False
        if self._rules.both_flagged is BothFlagged.DRAW_IF_DIFFERENT_TEAMS:
            return at <= result.t  # both had overstepped when the match was decided
        return self._order_unknown(at, rival)

    def set_result(
        self, winner_team: int | None, board: BoardId, reason: str, *, t: float
    ) -> list[MatchEvent]:
        """The arbiter's decision (resignation, claim, agreement, ...)."""
        if winner_team not in (0, 1, None):
            raise ValueError(f"winner_team must be 0, 1 or None (draw), not {winner_team!r}")
        self._state.log.append(ResultSet(t, winner_team, board, reason))
        return self._recorded(t, self._decide(winner_team, board, reason, t))

    # --- claims (rows 10 and 13) and revoking a result ----------------------------------------

    def note_illegal(
        self, board: BoardId, color: chess.Color, uci: str, *, t: float
    ) -> tuple[str, dict[str, Any]]:
        """Row 10: an illegal move was seen (not played). When the rules make it claimable it is
        put on record; returns the sentence and details its alert gains (empty otherwise)."""
        seat = Seat(board, color)
        if not illegal_move_is_claimed(self._rules) or self._state.result is not None:
            return "", {}
        entry = IllegalSeen(t, seat, uci, self.ply(board))
        self._state.log.append(entry)
        self._recorded(t, [])
        self._state.illegal[seat] = entry
        return illegal_claim_note(self._rules, seat)

    def confirm_claim(
        self, board: BoardId, color: chess.Color, claim: str, *, t: float, at: float | None = None
    ) -> list[MatchEvent]:
        """The arbiter confirms a claim against ``color`` on ``board`` made at ``at`` (default
        ``t``). ValueError says why the record does not support it (no flag before that moment,
        no claimable illegal move, a decided match, a rule set without such claims)."""
        seat = Seat(board, color)
        moment = t if at is None else at
        self._check_claim(seat, claim, moment)
        self._state.log.append(ClaimConfirmed(t, seat, claim, moment))
        return self._recorded(t, self._claim_result(seat, claim, moment, t))

    def _check_claim(self, seat: Seat, claim: str, moment: float) -> None:
        if claim not in CLAIM_KINDS:
            raise ValueError(f"unknown claim {claim!r}; claims: {', '.join(CLAIM_KINDS)}")
        result = self._state.result
        if result is not None:
            raise ValueError(
                f"the match is already decided ({result.reason} on board {result.board}); "
                "revoke the result first"
            )
        if claim == "flag":
            self._check_flag_claim(seat, moment)
        else:
            self._check_illegal_claim(seat, moment)

    def _check_flag_claim(self, seat: Seat, moment: float) -> None:
        if not flag_is_claimed(self._rules):
            raise ValueError(f"{self._rules.ref(13)}: flags decide automatically, not by claim")
        fell = self._state.flags.get(seat)
        if fell is None:
            raise ValueError(f"no flag of {seat_name(seat)} was seen")
        if fell > moment:
            raise ValueError(
                f"{seat_name(seat)}'s flag fell at {fell:.1f} s, after the claim ({moment:.1f} s)"
            )

    def _check_illegal_claim(self, seat: Seat, moment: float) -> None:
        if not illegal_move_is_claimed(self._rules):
            raise ValueError(f"{self._rules.ref(10)}: an illegal move is not decided by claim")
        seen = self._state.illegal.get(seat)
        if seen is None or seen.t > moment:
            raise ValueError(f"no illegal move of {seat_name(seat)} is on record")
        if self.ply(seat.board) > seen.ply + 1:
            raise ValueError(
                f"{seat_name(seat)}'s illegal {seen.uci} is no longer claimable: "
                "the opponent has moved since"
            )

    def _claim_result(self, seat: Seat, claim: str, moment: float, t: float) -> list[MatchEvent]:
        if claim == "illegal_move":
            return self._decide(seat.opponent.team, seat.board, "illegal move", t)
        fell = self._state.flags[seat]
        rivals = [
            at
            for other, at in self._state.flags.items()
            if other.team != seat.team and at <= moment
        ]
        return self._flag_result(seat, fell, min(rivals, default=None), t)

    def open_claims(self) -> list[dict[str, Any]]:
        """The claims the record supports now (the state snapshot lists them for the arbiter):
        each is the arguments of ``confirm_claim`` plus ``since`` (when it became claimable)."""
        if self._state.result is not None:
            return []
        claims = []
        if flag_is_claimed(self._rules):
            claims += [
                {**claim_arguments(seat, "flag"), "since": at}
                for seat, at in self._state.flags.items()
            ]
        if illegal_move_is_claimed(self._rules):
            claims += [
                {**claim_arguments(seat, "illegal_move"), "since": seen.t}
                for seat, seen in self._state.illegal.items()
                if self.ply(seat.board) <= seen.ply + 1
            ]
        return sorted(claims, key=lambda claim: claim["since"])

    def revoke_result(self, *, t: float, reason: str = "") -> list[MatchEvent]:
        """The arbiter withdraws the result: the game goes on, and a mate that became final
        meanwhile on a board other than the revoked decision's decides now."""
        result = self._state.result
        if result is None:
            raise ValueError("the match has no result to revoke")
        self._state.log.append(ResultWithdrawn(t, reason))
        self._state.result = None
        events: list[MatchEvent] = [ResultRevoked(t, reason, result)]
        finals = [
            Seat(board_id, self._state.boards[board_id].turn)
            for board_id in BoardId
            if self._state.plights[board_id].plight is Plight.MATE_FINAL
            and not (result.reason == "checkmate" and result.board is board_id)
        ]
        return self._recorded(t, events + self._decide_mates(finals, t))
