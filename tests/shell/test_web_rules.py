"""The console's article texts cover every article the rules core cites."""

from __future__ import annotations

import json

import pytest

from bughouse_bridge.bughouse import rules
from bughouse_bridge.web import STATIC_DIR

TEXTS = json.loads((STATIC_DIR / "rules.json").read_text(encoding="utf-8"))


@pytest.mark.parametrize(
    ("preset", "article"),
    sorted({(p, a) for p, m in rules.ARTICLES.items() for a in m.values()}),
)
def test_every_cited_article_has_its_text(preset, article):
    text = TEXTS[preset][article]
    assert len(text.split()) >= 4, text  # a sentence, not a stray fragment


def test_known_article():
    assert (
        TEXTS["dsj"]["3.2"] == "Figuren dürfen mit Schach eingesetzt werden, nicht aber mit Matt."
    )
    assert TEXTS["olite"]["6b"] == "Sí está permitido meter una pieza dando Jaque."
