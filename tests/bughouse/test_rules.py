"""RuleSet: presets, articles, overrides, description."""

from __future__ import annotations

import dataclasses
from enum import StrEnum

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bughouse_bridge.bughouse.rules import (
    NOTE_FIELDS,
    PRESETS,
    ROW_FIELDS,
    MateRule,
    RuleSet,
    get_preset,
)
from bughouse_bridge.bughouse.types import RuleRef

POLICY_FIELDS = [
    f.name for f in dataclasses.fields(RuleSet) if f.name not in {"preset", "overridden"}
]


@pytest.mark.parametrize(
    ("preset", "row", "expected"),
    [
        ("dsj", 2, "dsj row 2 (3.2)"),
        ("dsb", 2, "dsb row 2 (4.2)"),
        ("olite", 2, "olite row 2 (6a)"),
        ("fics", 2, "fics row 2"),
        ("dsj", 4, "dsj row 4 (4.1)"),
        ("dsb", 5, "dsb row 5 (5.2)"),
        ("dsj", 7, "dsj row 7 (5.3)"),
        ("dsb", 7, "dsb row 7 (7.1d)"),
        ("olite", 9, "olite row 9 (11)"),
        ("dsj", 12, "dsj row 12 (6.4)"),
    ],
)
def test_ref_names_preset_row_and_article(preset, row, expected):
    assert str(get_preset(preset).ref(row)) == expected


def test_every_row_and_note_is_carried_by_fields():
    assert sorted(ROW_FIELDS) == list(range(1, 18))
    carried = {name for names in ROW_FIELDS.values() for name in names}
    carried |= {name for names in NOTE_FIELDS.values() for name in names}
    assert carried == set(POLICY_FIELDS)
    assert sorted(NOTE_FIELDS) == list("ABCDEFGH")


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_presets_carry_their_name(name):
    rules = get_preset(name)
    assert (rules.preset, rules.name, rules.overridden) == (name, name, ())
    assert rules.describe() == {
        "preset": name,
        "overrides": {},
        "overridden_rows": [],
        "informational": {
            "draws": str(rules.draws),
            "pocket_visibility": str(rules.pocket_visibility),
        },
    }


def test_presets_differ_only_in_data():
    differing = {
        field
        for field in POLICY_FIELDS
        if len({getattr(rules, field) for rules in PRESETS.values()}) > 1
    }
    assert {"drop_mate", "promotion", "mate_rule", "steal_restriction"} <= differing


def test_unknown_preset_lists_the_valid_names():
    with pytest.raises(ValueError, match="dsj, dsb, olite, fics"):
        get_preset("uscf")


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        ({"drop_mates": "allowed"}, "unknown rule 'drop_mates'"),
        (
            {"drop_mate": "sometimes"},
            "rule 'drop_mate': bad value 'sometimes'; valid values: allowed, illegal",
        ),
        ({"pawn_drop_ranks": "0-7"}, "rule 'pawn_drop_ranks'"),
        ({"pawn_drop_ranks": [3]}, "rule 'pawn_drop_ranks'"),
        ({"pawn_drop_ranks": 5}, "rule 'pawn_drop_ranks'"),
        ({"flag_order_resolution_ms": -1}, "rule 'flag_order_resolution_ms'"),
        ({"flag_order_resolution_ms": True}, "rule 'flag_order_resolution_ms'"),
    ],
)
def test_bad_overrides_name_key_and_value(overrides, message):
    with pytest.raises(ValueError, match=message.replace("(", r"\(")):
        get_preset("dsj").with_overrides(overrides)


@pytest.mark.parametrize(
    ("overrides", "field", "expected", "rows"),
    [
        ({"pawn_drop_ranks": "1-7"}, "pawn_drop_ranks", (1, 7), [3]),
        ({"pawn_drop_ranks": [1, 7]}, "pawn_drop_ranks", (1, 7), [3]),
        ({"mate_rule": "any_drop_blocks"}, "mate_rule", MateRule.ANY_DROP_BLOCKS, [7]),
        ({"flag_order_resolution_ms": 2000}, "flag_order_resolution_ms", 2000, [12]),
    ],
)
def test_overrides_replace_one_policy(overrides, field, expected, rows):
    rules = get_preset("olite").with_overrides(overrides)
    assert getattr(rules, field) == expected
    assert rules.describe()["overridden_rows"] == rows
    assert rules.ref(rows[0]) == RuleRef("olite", rows[0], "override")
    untouched = [name for name in POLICY_FIELDS if name != field]
    assert all(getattr(rules, name) == getattr(PRESETS["olite"], name) for name in untouched)


def _values(field: str) -> st.SearchStrategy[object]:
    sample = getattr(PRESETS["dsj"], field)
    if isinstance(sample, StrEnum):
        return st.sampled_from([member.value for member in type(sample)])
    if isinstance(sample, tuple):
        return st.tuples(st.integers(1, 4), st.integers(4, 7))
    return st.integers(0, 10_000)


@given(st.data())
def test_any_valid_override_round_trips_through_describe(data):
    field = data.draw(st.sampled_from(POLICY_FIELDS))
    value = data.draw(_values(field))
    rules = get_preset("dsj").with_overrides({field: value})
    described = rules.describe()["overrides"][field]
    assert get_preset("dsj").with_overrides({field: described}) == rules


def test_ref_rejects_rows_outside_the_matrix():
    with pytest.raises(ValueError, match="no row 18"):
        get_preset("dsj").ref(18)
