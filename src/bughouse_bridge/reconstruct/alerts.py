"""The reconstructor's alerts: one sentence for a person, the rule, and details to act on."""

from __future__ import annotations

from typing import Any

import chess

from bughouse_bridge.bughouse.events import Alert, Severity
from bughouse_bridge.bughouse.types import AlertCode, BoardId, BughouseMove, RuleRef, color_name
from bughouse_bridge.reconstruct.occupancy import fixes

_SEVERITY = {
    AlertCode.DROP_MATE: Severity.ILLEGAL,
    AlertCode.PAWN_DROP_RANK: Severity.ILLEGAL,
    AlertCode.DROP_NOT_IN_POCKET: Severity.ILLEGAL,
    AlertCode.STEAL_MISSING: Severity.ILLEGAL,
    AlertCode.STEAL_ILLEGAL: Severity.ILLEGAL,
    AlertCode.ILLEGAL_MOVE: Severity.ILLEGAL,
    AlertCode.WRONG_TURN: Severity.ILLEGAL,
    AlertCode.RESULT_SIGNAL: Severity.INFO,
    AlertCode.LINK_BACK: Severity.INFO,
    AlertCode.ILLEGAL_DROP_REMOVED: Severity.INFO,
}


def alert(  # noqa: PLR0913 - an alert has this many parts
    t: float,
    board: BoardId | None,
    color: chess.Color | None,
    code: AlertCode,
    message: str,
    *,
    rule: RuleRef | None = None,
    severity: Severity | None = None,
    **details: Any,  # noqa: ANN401 - free-form JSON details
) -> Alert:
    chosen = severity if severity is not None else _SEVERITY.get(code, Severity.WARNING)
    return Alert(t, board, color, code, chosen, rule, message, details)


def gap_alert(t: float, board: BoardId, message: str, **details: Any) -> Alert:  # noqa: ANN401
    """A ``gap_ambiguous`` alert (its gap, candidates or news in ``details``)."""
    return alert(t, board, None, AlertCode.GAP_AMBIGUOUS, message, **details)


def left_to_arbiter(board: BoardId, count: int, verdict: str) -> str:
    """The message of a gap left to the arbiter with ``count`` candidates (none: ``verdict``)."""
    if count:
        return (
            f"Board {board} is back; {count} different sequences of moves explain the gap: "
            "the position is published as it stands; choose one with choose_recovery."
        )
    return (
        f"Board {board} is back; no legal moves explain the gap ({verdict}): "
        "the position is published as it stands."
    )


def gap_resolved(t: float, board: BoardId, gap: int, message: str, **details: Any) -> Alert:  # noqa: ANN401
    """The info ``gap_ambiguous`` alert that tells gap ``gap`` settled (``resolved: true``)."""
    return alert(
        t,
        board,
        None,
        AlertCode.GAP_AMBIGUOUS,
        message,
        severity=Severity.INFO,
        resolved=True,
        gap=gap,
        **details,
    )


def describe(move: BughouseMove, color: chess.Color) -> str:
    """``"white knight g1-e3"``, ``"black N@f3"``, ``"white e7-e8=Q stealing from B d1"``."""
    side = color_name(color)
    if move.move.drop is not None:
        return f"{side} {move.uci}"
    text = f"{chess.square_name(move.move.from_square)}-{chess.square_name(move.move.to_square)}"
    if move.move.promotion is not None:
        text += f"={chess.piece_symbol(move.move.promotion).upper()}"
    if move.steal_square is not None:
        text += f" stealing from {move.board.other} {chess.square_name(move.steal_square)}"
    return f"{side} {text}"


def fix_details(physical: str, target: str) -> dict[str, Any]:
    """The squares that differ and what would make the board match ``target``."""
    todo = fixes(physical, target)
    return {
        "squares": [chess.square_name(fix.square) for fix in todo],
        "fix": [str(fix) for fix in todo],
        "physical": physical,
        "target": target,
    }
