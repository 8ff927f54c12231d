"""The browser tests that draw hand-made payloads (``test_page_render``: a banner, a steal mark, an
alert the console offers actions for) stay true to the contract: each hand-made payload has the
shape of what the real ``Bridge`` publishes — the same keys, nested the same way, with values of
the same JSON kinds — so a change of the contract cannot leave those tests drawing a payload no
bridge sends any more."""

from __future__ import annotations

import json
from typing import Any

import pytest
from bridge_record import BridgeGame, Ply
from test_page_render import ALERT, ROOT, STATE


def shape(value: Any) -> Any:
    """The JSON kinds of a payload, keys kept: what a consumer relies on."""
    if isinstance(value, dict):
        return {key: shape(item) for key, item in value.items()}
    if isinstance(value, list):
        return [shape(value[0])] if value else []
    if value is None:
        return None
    return type(value).__name__


def same_shape(hand: Any, real: Any, path: str = "$") -> list[str]:
    """Where the hand-made payload differs from the real one (``None`` fits any kind: a value
    that is null in one of them, as a running clock's side is between moves)."""
    if hand is None or real is None:
        return []
    if isinstance(hand, dict) and isinstance(real, dict):
        differing = sorted(set(hand) ^ set(real))
        problems = [f"{path}: keys {differing}"] if differing else []
        for key in set(hand) & set(real):
            problems += same_shape(hand[key], real[key], f"{path}.{key}")
        return problems
    if isinstance(hand, list) and isinstance(real, list):
        if hand and real:
            return same_shape(hand[0], real[0], f"{path}[0]")
        return []
    return [] if type(hand) is type(real) else [f"{path}: {type(hand).__name__}"]


@pytest.fixture(scope="module")
def real() -> BridgeGame:
    game = BridgeGame(root=ROOT, preset="dsj", match_id="round-1-table-1")
    game.play([Ply("A", "e4", 299.0), Ply("B", "d4", 299.0), Ply("A", "e5", 295.0)])
    game.illegal_drop("B", "P@e3")  # an alert, as the console receives it
    return game


def test_the_hand_made_state_has_the_real_state_s_shape(real: BridgeGame) -> None:
    state = real.retained()[f"{ROOT}/match/round-1-table-1/state"]
    assert same_shape(shape(STATE), shape(state)) == []


def test_the_hand_made_alert_has_the_real_alert_s_shape(real: BridgeGame) -> None:
    alerts = [json.loads(p.payload) for p in real.published if p.topic == f"{ROOT}/alerts"]
    assert alerts, "the illegal drop raised an alert"
    # The details are the code's own (contract §4): the envelope and the alert's fields are
    # what every alert shares.
    hand, found = dict(ALERT), dict(alerts[0])
    assert isinstance(hand.pop("details"), dict)
    assert isinstance(found.pop("details"), dict)
    assert same_shape(shape(hand), shape(found)) == []
