"""Rule sets as data: one frozen field per row of the rule matrix (docs/rules.md) and per note.

Every decision the referee takes reads a field of :class:`RuleSet`; no code anywhere asks which
preset is active. A tournament takes a preset and overrides single fields in its configuration.
The values each field can take are the enums of ``policies.py``, re-exported here: this module is
the rules' public face (``RuleSet``, the matrix's rows and notes, the presets, ``get_preset``).
"""

from __future__ import annotations

import dataclasses
import typing
from dataclasses import dataclass
from enum import StrEnum
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from bughouse_bridge.bughouse.policies import (
    ArbiterCall,
    BothFlagged,
    BothMated,
    DrawRule,
    DropRemovalTurn,
    FlagClaims,
    IllegalMovePolicy,
    MateRule,
    NoStealTarget,
    Permission,
    PocketVisibility,
    PromotionPolicy,
    RemovedDrop,
    StalemateRule,
    StallingRule,
    StealRestriction,
)
from bughouse_bridge.bughouse.types import RuleRef

if TYPE_CHECKING:
    from collections.abc import Mapping


@dataclass(frozen=True, slots=True)
class RuleSet:
    """One policy value per row of the rule matrix and per note, and the preset it came from."""

    preset: str
    drop_check: Permission  # row 1
    drop_mate: Permission  # row 2
    pawn_drop_ranks: tuple[int, int]  # row 3, note A: lowest and highest rank, own perspective
    promotion: PromotionPolicy  # row 4, note F
    no_steal_target: NoStealTarget  # note D
    steal_restriction: StealRestriction  # row 5
    steal_mate: Permission  # row 6
    mate_rule: MateRule  # row 7, notes B and E
    stalemate: StalemateRule  # row 8
    illegal_drop_turn: DropRemovalTurn  # row 9
    removed_drop: RemovedDrop  # row 9, note C
    illegal_move: IllegalMovePolicy  # row 10
    both_mated: BothMated  # row 11, note G
    both_flagged: BothFlagged  # row 12
    flag_order_resolution_ms: int  # note H
    flag_claims: FlagClaims  # row 13
    arbiter_call: ArbiterCall  # row 14
    draws: DrawRule  # row 15
    pocket_visibility: PocketVisibility  # row 16
    stalling: StallingRule  # row 17
    overridden: tuple[str, ...] = ()

    @property
    def name(self) -> str:
        """The preset's name (same as ``preset``)."""
        return self.preset

    def ref(self, row: int) -> RuleRef:
        """The rule's origin, e.g. ``dsj row 2 (3.2)``; an overridden row names no article."""
        if row not in ROW_FIELDS:
            raise ValueError(f"no row {row} in the rule matrix (rows 1-{len(ROW_FIELDS)})")
        if set(ROW_FIELDS[row]) & set(self.overridden):
            return RuleRef(self.preset, row, "override")
        return RuleRef(self.preset, row, ARTICLES.get(self.preset, {}).get(row, ""))

    def with_overrides(self, overrides: Mapping[str, object]) -> RuleSet:
        """A copy with single policies replaced; ValueError names a bad key or value."""
        changes = {key: _coerce(key, value) for key, value in overrides.items()}
        overridden = tuple(sorted(set(self.overridden) | set(changes)))
        return dataclasses.replace(self, **changes, overridden=overridden)  # type: ignore[arg-type]

    def describe(self) -> dict[str, Any]:
        """Preset name, overridden policies and rows: what the state snapshot shows."""
        overrides = {key: _plain(getattr(self, key)) for key in self.overridden}
        rows = sorted(row for row, keys in ROW_FIELDS.items() if set(keys) & set(self.overridden))
        shown = {key: _plain(getattr(self, key)) for key in INFORMATIONAL_FIELDS}
        return {
            "preset": self.preset,
            "overrides": overrides,
            "overridden_rows": rows,
            "informational": shown,
        }

    def pawn_rank_allowed(self, own_rank: int) -> bool:
        """Row 3: may a pawn be dropped on this rank (1-8, the dropping player's perspective)?"""
        low, high = self.pawn_drop_ranks
        return low <= own_rank <= high


INFORMATIONAL_FIELDS = ("draws", "pocket_visibility")
"""Policies the bridge cannot act on (it sees no draw offers or agreements; it always publishes
all four pockets). The state snapshot shows them (``describe()``) so the arbiter knows what
applies; every other policy drives a decision (tests/bughouse/test_matrix.py, row by row)."""

ROW_FIELDS: Mapping[int, tuple[str, ...]] = MappingProxyType(
    {
        1: ("drop_check",),
        2: ("drop_mate",),
        3: ("pawn_drop_ranks",),
        4: ("promotion", "no_steal_target"),
        5: ("steal_restriction",),
        6: ("steal_mate",),
        7: ("mate_rule",),
        8: ("stalemate",),
        9: ("illegal_drop_turn", "removed_drop"),
        10: ("illegal_move",),
        11: ("both_mated",),
        12: ("both_flagged", "flag_order_resolution_ms"),
        13: ("flag_claims",),
        14: ("arbiter_call",),
        15: ("draws",),
        16: ("pocket_visibility",),
        17: ("stalling",),
    }
)
"""Which fields carry each row of the matrix."""

NOTE_FIELDS: Mapping[str, tuple[str, ...]] = MappingProxyType(
    {
        "A": ("pawn_drop_ranks",),
        "B": ("mate_rule", "stalemate", "stalling"),
        "C": ("removed_drop",),
        "D": ("no_steal_target",),
        "E": ("mate_rule",),
        "F": ("promotion",),
        "G": ("both_mated",),
        "H": ("flag_order_resolution_ms",),
    }
)
"""Which fields carry each note (the bridge's decisions where a text is silent)."""

ARTICLES: Mapping[str, Mapping[int, str]] = MappingProxyType(
    {
        "dsj": {
            1: "3.2",
            2: "3.2",
            3: "3.3",
            4: "4.1",
            5: "4.2",
            6: "4.3",
            7: "5.3",
            8: "6.2",
            9: "3.4",
            11: "6.3",
            12: "6.4",
            13: "2.2",
            14: "2.3",
            15: "6.1",
            16: "7.3",
            17: "7.4",
        },
        "dsb": {
            1: "4.2",
            2: "4.2",
            3: "4.2",
            4: "5.1",
            5: "5.2",
            7: "7.1d",
            8: "8.2",
            9: "4.3",
            10: "7.1b",
            11: "8.3",
            12: "8.4",
            13: "3.3",
            14: "3.4",
            15: "8.1",
            16: "6.1",
            17: "9.3",
        },
        "olite": {
            1: "6b",
            2: "6a",
            3: "6d",
            4: "7-8",
            7: "4",
            9: "11",
            10: "11",
            12: "4",
            15: "1",
            16: "9",
            17: "12",
        },
    }
)
"""Article of the seed text behind each row, per preset (``fics`` has no written text)."""

_DSJ = RuleSet(
    preset="dsj",
    drop_check=Permission.ALLOWED,
    drop_mate=Permission.ILLEGAL,
    pawn_drop_ranks=(2, 7),
    promotion=PromotionPolicy.STEAL,
    no_steal_target=NoStealTarget.ILLEGAL,
    steal_restriction=StealRestriction.NO_KING_IN_CHECK,
    steal_mate=Permission.ALLOWED,
    mate_rule=MateRule.PARTNER_NEXT_MOVE,
    stalemate=StalemateRule.WAIT,
    illegal_drop_turn=DropRemovalTurn.REMOVER_ON_MOVE,
    removed_drop=RemovedDrop.TO_OPPONENT_PARTNER,
    illegal_move=IllegalMovePolicy.CLAIMABLE,
    both_mated=BothMated.DRAW,
    both_flagged=BothFlagged.DRAW_IF_ORDER_UNKNOWN,
    flag_order_resolution_ms=1000,
    flag_claims=FlagClaims.ANY_PLAYER,
    arbiter_call=ArbiterCall.BOTH_CLOCKS_STOPPED,
    draws=DrawRule.AGREEMENT_ONLY,
    pocket_visibility=PocketVisibility.OPEN,
    stalling=StallingRule.ARBITER_MAY_PUNISH,
)

_DSB = dataclasses.replace(
    _DSJ,
    preset="dsb",
    steal_restriction=StealRestriction.NO_UNCOVERED_CHECK,
    mate_rule=MateRule.ANY_DROP_OR_PARTNER_STEAL,
    illegal_move=IllegalMovePolicy.LOSES_IF_CLAIMED,
    both_flagged=BothFlagged.DRAW_IF_DIFFERENT_TEAMS,
    arbiter_call=ArbiterCall.BOTH_OR_COUNTER_STOP,
)

_OLITE = dataclasses.replace(
    _DSJ,
    preset="olite",
    promotion=PromotionPolicy.CHOICE_PAWN_TO_NEIGHBOUR,
    steal_restriction=StealRestriction.NONE,
    mate_rule=MateRule.ANY_DROP_BLOCKS,
    illegal_drop_turn=DropRemovalTurn.OFFENDER_ON_MOVE,
    removed_drop=RemovedDrop.OUT_OF_PLAY,
    illegal_move=IllegalMovePolicy.PIECE_REMOVED,
    both_mated=BothMated.FIRST_WINS,
    both_flagged=BothFlagged.FIRST_WINS,
    flag_claims=FlagClaims.AUTOMATIC,
    arbiter_call=ArbiterCall.NONE,
    draws=DrawRule.FIDE,
    stalling=StallingRule.PENALTY_UP_TO_LOSS,
)

_FICS = dataclasses.replace(
    _DSJ,
    preset="fics",
    drop_mate=Permission.ALLOWED,
    promotion=PromotionPolicy.CHOICE_MARKED,
    steal_restriction=StealRestriction.NONE,
    mate_rule=MateRule.ANY_DROP_BLOCKS,
    illegal_move=IllegalMovePolicy.REFUSED,
    both_mated=BothMated.FIRST_WINS,
    both_flagged=BothFlagged.FIRST_WINS,
    flag_claims=FlagClaims.AUTOMATIC,
    arbiter_call=ArbiterCall.NONE,
    stalling=StallingRule.NONE,
)

PRESETS: Mapping[str, RuleSet] = MappingProxyType(
    {"dsj": _DSJ, "dsb": _DSB, "olite": _OLITE, "fics": _FICS}
)
DEFAULT_PRESET = "dsj"


def get_preset(name: str) -> RuleSet:
    """The preset of that name; ValueError lists the valid names."""
    try:
        return PRESETS[name]
    except KeyError:
        raise ValueError(
            f"unknown rules preset {name!r}; valid presets: {', '.join(PRESETS)}"
        ) from None


_POLICY_TYPES: Mapping[str, Any] = MappingProxyType(
    {
        key: hint
        for key, hint in typing.get_type_hints(RuleSet).items()
        if key not in {"preset", "overridden"}
    }
)


def _coerce(key: str, value: object) -> object:
    if key not in _POLICY_TYPES:
        raise ValueError(f"unknown rule {key!r}; valid rules: {', '.join(_POLICY_TYPES)}")
    hint = _POLICY_TYPES[key]
    if isinstance(hint, type) and issubclass(hint, StrEnum):
        return _coerce_enum(key, hint, value)
    if hint is int:
        return _coerce_int(key, value)
    return _coerce_ranks(key, value)


def _coerce_enum(key: str, enum: type[StrEnum], value: object) -> StrEnum:
    try:
        return enum(str(value))
    except ValueError:
        valid = ", ".join(member.value for member in enum)
        raise ValueError(f"rule {key!r}: bad value {value!r}; valid values: {valid}") from None


def _coerce_int(key: str, value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ValueError(f"rule {key!r}: bad value {value!r}; expected a whole number >= 0")
    return value


def _coerce_ranks(key: str, value: object) -> tuple[int, int]:
    try:
        parts = value.split("-") if isinstance(value, str) else list(typing.cast("Any", value))
        low, high = (int(part) for part in parts)
    except (TypeError, ValueError):
        low, high = 0, 0
    if not 1 <= low <= high <= 7:
        raise ValueError(f"rule {key!r}: bad value {value!r}; expected ranks like '2-7' or [1, 7]")
    return (low, high)


def _plain(value: object) -> object:
    if isinstance(value, tuple):
        return list(value)
    return str(value) if isinstance(value, StrEnum) else value


__all__ = [
    "ARTICLES",
    "DEFAULT_PRESET",
    "INFORMATIONAL_FIELDS",
    "NOTE_FIELDS",
    "PRESETS",
    "ROW_FIELDS",
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
    "RuleSet",
    "StalemateRule",
    "StallingRule",
    "StealRestriction",
    "get_preset",
]
