"""The referee's policy decisions that are not moves: claims (rows 10 and 13), the arbiter call
(row 14), stalling (row 17) and the informational rows (15, 16). Pure, rules as data.

Every function here reads a ``RuleSet`` field and returns what the bridge publishes; none asks
which preset is active. ``Match`` keeps the record a claim is checked against (flags, illegal
moves seen); this module words the alerts and says which claims a rule set allows.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from bughouse_bridge.bughouse.events import Alert, Severity
from bughouse_bridge.bughouse.judging import seat_name
from bughouse_bridge.bughouse.rules import (
    ArbiterCall,
    FlagClaims,
    IllegalMovePolicy,
    RuleSet,
    StallingRule,
)
from bughouse_bridge.bughouse.types import AlertCode, BoardId, Seat, color_name

if TYPE_CHECKING:
    import chess

CLAIM_KINDS = ("flag", "illegal_move")
"""The claims ``confirm_claim`` knows (contract §5)."""


_CLAIMABLE_ILLEGAL = {
    IllegalMovePolicy.CLAIMABLE: "claimable by the opponent until he has moved; the arbiter "
    "decides (FIDE blitz)",
    IllegalMovePolicy.LOSES_IF_CLAIMED: "the offender loses if the opponent claims before he "
    "has moved (FIDE blitz)",
}


def flag_is_claimed(rules: RuleSet) -> bool:
    """Row 13: a flag waits for a claim (and the match goes on) instead of deciding at once."""
    return rules.flag_claims is FlagClaims.ANY_PLAYER


def illegal_move_is_claimed(rules: RuleSet) -> bool:
    """Row 10: an illegal move (other than a drop, row 9) may be claimed to decide the match."""
    return rules.illegal_move in _CLAIMABLE_ILLEGAL


def claim_arguments(seat: Seat, claim: str) -> dict[str, Any]:
    """The exact arguments of ``confirm_claim`` for this claim (an alert's ``details.claim``)."""
    return {"board": str(seat.board), "color": color_name(seat.color), "claim": claim}


def flag_alert(  # noqa: PLR0913 - the flag, its rival and whether a claim is still open
    rules: RuleSet, seat: Seat, at: float, rival: float | None, t: float, *, decided: bool
) -> Alert:
    """The alert for a fallen flag: a verdict under ``automatic``, a claimable fact otherwise
    (while the match is undecided)."""
    text = f"{seat_name(seat)} overstepped the time (the flag fell at {at:.1f} s)."
    if rival is not None:
        text += f" A player of the other team flagged too ({rival:.1f} s vs {at:.1f} s)."
    details: dict[str, Any] = {"at": at, "other_team_at": rival}
    row = 12
    if decided and flag_is_claimed(rules):
        text += " The match is already decided; nothing to claim."
    elif flag_is_claimed(rules) and rival is None:
        text += (
            " Claimable by any player, either board, until the match is decided; "
            "the arbiter confirms with confirm_claim."
        )
        details["claim"] = claim_arguments(seat, "flag")
        row = 13
    elif flag_is_claimed(rules):
        text += " The arbiter decides a claim by row 12."
        details["claim"] = claim_arguments(seat, "flag")
    return Alert(
        t=t,
        board=seat.board,
        color=seat.color,
        code=AlertCode.FLAG,
        severity=Severity.WARNING,
        rule=rules.ref(row),
        message=text,
        details=details,
    )


def illegal_claim_note(rules: RuleSet, seat: Seat) -> tuple[str, dict[str, Any]]:
    """Row 10: the sentence and details an illegal-move alert gains when a claim is possible."""
    if not illegal_move_is_claimed(rules):
        return "", {}
    sentence = f" Row 10: {_CLAIMABLE_ILLEGAL[rules.illegal_move]}; confirm with confirm_claim."
    return sentence, {"claim": claim_arguments(seat, "illegal_move")}


def arbiter_call_alert(rules: RuleSet, t: float) -> Alert | None:
    """Row 14: both clocks stopped means a player calls the arbiter (or nothing, if the rules
    know no such call)."""
    if rules.arbiter_call is ArbiterCall.NONE:
        return None
    text = "Both clocks are stopped: a player calls the arbiter."
    if rules.arbiter_call is ArbiterCall.BOTH_OR_COUNTER_STOP:
        text += " (Row 14: if one team stopped one clock, the other team may stop the other.)"
    return Alert(
        t=t,
        board=None,
        color=None,
        code=AlertCode.ARBITER_CALL,
        severity=Severity.WARNING,
        rule=rules.ref(14),
        message=text,
    )


_STALLING_REMEDY = {
    StallingRule.ARBITER_MAY_PUNISH: "the arbiter may punish stalling",
    StallingRule.PENALTY_UP_TO_LOSS: "stalling may be penalised, up to the loss of the game",
}


def stalling_alert(
    rules: RuleSet, board: BoardId, color: chess.Color, seconds: float, t: float
) -> Alert | None:
    """Row 17: a player who does not move while a mate or stalemate is pending (none if the rules
    know no stalling)."""
    remedy = _STALLING_REMEDY.get(rules.stalling)
    if remedy is None:
        return None
    text = (
        f"Board {board}: {color_name(color)} has not moved for {seconds:g} s while a mate or "
        f"stalemate is pending; {remedy} (row 17)."
    )
    return Alert(
        t=t,
        board=board,
        color=color,
        code=AlertCode.STALLING,
        severity=Severity.WARNING,
        rule=rules.ref(17),
        message=text,
    )
