"""The translation files (web/static/i18n/*.json) are complete: every key in every language with
the same placeholders, every alert code with its text, every key the code asks for, every rule
article the console quotes translated into the other languages."""

from __future__ import annotations

import json
import re

import pytest

from bughouse_bridge.bughouse.record import EntryKind
from bughouse_bridge.bughouse.types import AlertCode
from bughouse_bridge.hall.scoring import TIEBREAKS
from bughouse_bridge.web import STATIC_DIR

LANGUAGES = ("en", "de", "es")
TEXTS = {lang: json.loads((STATIC_DIR / "i18n" / f"{lang}.json").read_text()) for lang in LANGUAGES}
ARTICLES = json.loads((STATIC_DIR / "i18n" / "articles.json").read_text())
RULES = json.loads((STATIC_DIR / "rules.json").read_text())
SCRIPTS = {path.name: path.read_text() for path in (STATIC_DIR / "js").glob("*.js")}
# Keys built at run time from a value: the families and the values they take.
FAMILIES = {
    "alert": [str(code) for code in AlertCode],
    "color": ["white", "black"],
    "side": ["white", "black", "unknown"],
    "piece": ["pawn", "knight", "bishop", "rook", "queen"],
    "connection": ["connecting", "connected", "offline", "refused"],
    "status": ["online", "offline", "lost"],
    "action": ["claim", "candidate", "takeback", "accept", "resync"],
    "review": ["first", "previous", "next", "last"],
    # every kind of entry the bridge records, but a move (its SAN)
    "record": [str(kind) for kind in EntryKind if kind is not EntryKind.MOVE]
    + [f"hint_{mark}" for mark in ("recovered", "uncertain", "forced")],
    "rule.row": [str(row) for row in range(1, 18)],
    "tiebreak": list(TIEBREAKS) + [f"{name}.long" for name in TIEBREAKS],
    "reason": ["checkmate", "time", "illegal_move", "stalemate"],
    "field": ["board", "color", "pieces", "claim", "gap", "candidate", "winner", "reason"],
    "verb": [
        "takeback",
        "accept",
        "resync",
        "set_result",
        "revoke_result",
        "set_pocket",
        "confirm_claim",
        "choose_recovery",
        "new_game",
        "status",
    ],
    "standings": [f"{c}.long" for c in ("played", "won", "drawn", "lost", "match_points")],
}


def placeholders(text: str) -> set[str]:
    return set(re.findall(r"\{(\w+)\}", text))


@pytest.mark.parametrize("lang", LANGUAGES[1:])
def test_every_key_is_in_every_language(lang):
    assert set(TEXTS[lang]) == set(TEXTS["en"])


@pytest.mark.parametrize("lang", LANGUAGES[1:])
def test_translations_keep_the_placeholders(lang):
    wrong = {
        key: (text, TEXTS["en"][key])
        for key, text in TEXTS[lang].items()
        if placeholders(text) != placeholders(TEXTS["en"][key])
    }
    assert wrong == {}


@pytest.mark.parametrize("lang", LANGUAGES)
def test_no_text_is_empty(lang):
    assert [key for key, text in TEXTS[lang].items() if not text.strip()] == []


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_alert_code_has_a_text(lang):
    assert [code for code in AlertCode if f"alert.{code}" not in TEXTS[lang]] == []


def test_every_key_the_code_names_exists():
    literal = set()
    for source in SCRIPTS.values():
        literal |= set(re.findall(r"""\bt\(\s*["']([\w.?]+)["']""", source))
    families = {f"{family}.{value}" for family, values in FAMILIES.items() for value in values}
    assert sorted((literal | families) - set(TEXTS["en"])) == []


def test_the_languages_agree_with_the_language_menu():
    assert '["en", "de", "es"]' in SCRIPTS["i18n.js"]


@pytest.mark.parametrize("preset", sorted(RULES))
def test_every_quoted_article_is_translated_into_the_other_languages(preset):
    own = ARTICLES["languages"][preset]
    for lang in LANGUAGES:
        translated = ARTICLES["translations"].get(lang, {}).get(preset, {})
        if lang == own:
            assert translated == {}, f"{preset} is written in {lang}: no translation needed"
        else:
            assert set(translated) == set(RULES[preset]), (preset, lang)
            assert all(text.strip() for text in translated.values())
