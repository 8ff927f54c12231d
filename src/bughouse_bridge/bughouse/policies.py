"""The values each row of the rule matrix (docs/rules.md) can take: one string enum per policy.

Each enum names the row or note it decides and, per value, the articles that chose it; a
:class:`~bughouse_bridge.bughouse.rules.RuleSet` holds one value of each. The values are strings,
so a configuration file or the state snapshot spells them as they are.
"""

from __future__ import annotations

from enum import StrEnum


class Permission(StrEnum):
    """Rows 1, 2 and 6: whether a drop (or a steal) may give check or mate."""

    ALLOWED = "allowed"
    ILLEGAL = "illegal"


class PromotionPolicy(StrEnum):
    """Row 4: where the new piece comes from and where the pawn goes."""

    STEAL = "steal"  # DSJ 4.1, DSB 5.1: a real piece from the neighbour board; pawn to its owner
    CHOICE_PAWN_TO_NEIGHBOUR = "choice_pawn_to_neighbour"  # Olite 7-8: real piece from the box
    CHOICE_MARKED = "choice_marked"  # FICS: promoted piece, returns as a pawn when captured


class NoStealTarget(StrEnum):
    """Note D: a steal promotion when the neighbour board holds nothing that may be stolen."""

    ILLEGAL = "illegal"
    CHOICE_MARKED = "choice_marked"


class StealRestriction(StrEnum):
    """Row 5: what removing the stolen piece from the neighbour board may not do."""

    NONE = "none"
    NO_KING_IN_CHECK = "no_king_in_check"  # DSJ 4.2: no king there may be in check afterwards
    NO_UNCOVERED_CHECK = "no_uncovered_check"  # DSB 5.2: no check the removed piece blocked


class MateRule(StrEnum):
    """Row 7 (notes B, E): when a check the player cannot answer ends the match."""

    ANY_DROP_BLOCKS = "any_drop_blocks"  # not final while a drop of any piece could block
    ANY_DROP_OR_PARTNER_STEAL = "any_drop_or_partner_steal"  # DSB 7d
    PARTNER_NEXT_MOVE = "partner_next_move"  # DSJ 5.3.1/5.3.2 as read by note E


class StalemateRule(StrEnum):
    """Row 8."""

    WAIT = "wait"  # the player waits for a piece or for a steal that frees him
    DRAW = "draw"


class DropRemovalTurn(StrEnum):
    """Row 9: who is on move after an illegal drop was taken off the board."""

    REMOVER_ON_MOVE = "remover_on_move"  # DSJ 3.4 / DSB 4.3 (both leave the remover to move)
    OFFENDER_ON_MOVE = "offender_on_move"  # Olite 11: the offender keeps the turn


class RemovedDrop(StrEnum):
    """Row 9 / note C: where a removed illegal drop goes."""

    TO_OPPONENT_PARTNER = "to_opponent_partner"  # as if the remover had captured it
    OUT_OF_PLAY = "out_of_play"


class IllegalMovePolicy(StrEnum):
    """Row 10: any other illegal move (the bridge alerts; the arbiter decides)."""

    CLAIMABLE = "claimable"
    LOSES_IF_CLAIMED = "loses_if_claimed"
    PIECE_REMOVED = "piece_removed"
    REFUSED = "refused"


class BothMated(StrEnum):
    """Row 11 / note G: mates against both teams within one pending window."""

    DRAW = "draw"
    FIRST_WINS = "first_wins"


class BothFlagged(StrEnum):
    """Row 12 / note H."""

    DRAW_IF_ORDER_UNKNOWN = "draw_if_order_unknown"
    DRAW_IF_DIFFERENT_TEAMS = "draw_if_different_teams"
    FIRST_WINS = "first_wins"


class FlagClaims(StrEnum):
    """Row 13."""

    ANY_PLAYER = "any_player"
    AUTOMATIC = "automatic"


class ArbiterCall(StrEnum):
    """Row 14."""

    BOTH_CLOCKS_STOPPED = "both_clocks_stopped"
    BOTH_OR_COUNTER_STOP = "both_or_counter_stop"
    NONE = "none"


class DrawRule(StrEnum):
    """Row 15."""

    AGREEMENT_ONLY = "agreement_only"
    FIDE = "fide"


class PocketVisibility(StrEnum):
    """Row 16."""

    OPEN = "open"


class StallingRule(StrEnum):
    """Row 17."""

    ARBITER_MAY_PUNISH = "arbiter_may_punish"
    PENALTY_UP_TO_LOSS = "penalty_up_to_loss"
    NONE = "none"


__all__ = [
    "ArbiterCall",
    "BothFlagged",
    "BothMated",
    "DrawRule",
    "DropRemovalTurn",
    "FlagClaims",
    "IllegalMovePolicy",
    "MateRule",
    "NoStealTarget",
    "Permission",
    "PocketVisibility",
    "PromotionPolicy",
    "RemovedDrop",
    "StalemateRule",
    "StallingRule",
    "StealRestriction",
]
