"""The BPGN tags the bridge writes beyond the players: the rule set and the date. Pure.

``[Rules "dsj"]`` names the preset and ``[RulesOverrides "key=value;..."]`` its overrides
(:func:`ruleset_tags` writes them, :func:`ruleset_from_game` reads them back); ``Date`` and
``Time`` say when the first move was played (:func:`record_date_tags`).
"""

from __future__ import annotations

from datetime import UTC, datetime
from enum import Enum
from typing import TYPE_CHECKING

from bughouse_bridge.bughouse.bpgn_model import (
    RULES_OVERRIDES_TAG,
    RULES_TAG,
    TAG_NAME_RE,
    BpgnError,
)
from bughouse_bridge.bughouse.rules import RuleSet, get_preset

if TYPE_CHECKING:
    from collections.abc import Mapping

    from bughouse_bridge.bughouse.bpgn_model import BpgnGame


def rules_tags(preset: str, overrides: Mapping[str, object] | None = None) -> dict[str, str]:
    """The tags that name a rule set: ``{"Rules": preset}`` plus ``RulesOverrides`` if any."""
    tags = {RULES_TAG: preset}
    if overrides:
        tags[RULES_OVERRIDES_TAG] = format_overrides(overrides)
    return tags


def format_overrides(overrides: Mapping[str, object]) -> str:
    parts = []
    for key, value in overrides.items():
        text = _override_text(value)
        if TAG_NAME_RE.fullmatch(key) is None or any(c in text for c in ";="):
            raise BpgnError(f"override {key}={text} cannot be written in RulesOverrides")
        parts.append(f"{key}={text}")
    return ";".join(parts)


def _override_text(value: object) -> str:
    if isinstance(value, Enum):
        return str(value.value)
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, tuple | list):  # pawn drop ranks, as rules.py reads them: "2-7"
        return "-".join(_override_text(item) for item in value)
    return str(value)


def ruleset_tags(rules: RuleSet) -> dict[str, str]:
    """``Rules`` and ``RulesOverrides`` tags; :func:`ruleset_from_game` reads them back."""
    return rules_tags(rules.name, {key: getattr(rules, key) for key in rules.overridden})


def ruleset_from_game(game: BpgnGame) -> RuleSet | None:
    """The rule set a game's tags name, or None if it has no ``Rules`` tag.

    Raises ``ValueError`` (from ``rules.py``) naming an unknown preset, rule or value.
    """
    described = game.rules
    if described is None:
        return None
    preset, overrides = described
    values = {key: int(text) if text.isdigit() else text for key, text in overrides.items()}
    return get_preset(preset).with_overrides(values)


def record_date_tags(origin_epoch: float, t: float) -> dict[str, str]:
    """``Date`` (``2026.11.23``) and ``Time`` (``09:17:51``, UTC) of the pipeline time ``t``.

    ``origin_epoch`` is the wall-clock epoch of ``t = 0``; 0 (a replayed trace without one) gives
    PGN's unknown date ``????.??.??`` and no ``Time``.
    """
    if origin_epoch <= 0:
        return {"Date": "????.??.??"}
    moment = datetime.fromtimestamp(origin_epoch + t, tz=UTC)
    return {"Date": moment.strftime("%Y.%m.%d"), "Time": moment.strftime("%H:%M:%S")}
