"""What the console says under a gap's candidate buttons (js/arbiter.js: ``candidateMoves``,
``candidatePockets``, ``piecesText`` and the actions ``alertActions`` offers), unit-tested in
headless Chromium as ``test_web_logic`` does (one browser for the module, the page in English).
"""

from __future__ import annotations

from typing import Any

import pytest

from web.js_logic import run

pytestmark = [pytest.mark.timeout(120), pytest.mark.asyncio(loop_scope="module")]


@pytest.mark.parametrize(
    ("letters", "text"),
    [
        ("", "nothing"),
        ("P", "pawn"),
        ("PPN", "2 × pawn, knight"),
        ("QRBNP", "pawn, knight, bishop, rook, queen"),  # the contract's order, whatever given
        ("NNNQQ", "3 × knight, 2 × queen"),
        ("pn", "pawn, knight"),  # the contract's letters are upper case; lower case reads alike
    ],
)
async def test_pieces_text(page, letters, text):
    assert await run(page, "arbiter.js", "piecesText", letters) == text


@pytest.mark.parametrize(
    ("candidate", "moves"),
    [
        ({"moves": {"A": ["N@f4", "e5f4"], "B": []}, "san": {"A": ["N@f4", "exf4"], "B": []}},
         "A: N@f4 exf4"),
        ({"moves": {"A": ["e2e4"], "B": ["d7d5"]}, "san": {"A": ["e4"], "B": ["d5"]}},
         "A: e4 · B: d5"),
        ({"moves": {"A": [], "B": ["g1f3"]}}, "B: g1f3"),  # no SAN: the UCI
        ({"moves": {}, "san": {}}, ""),
        ({}, ""),
    ],
)  # fmt: skip
async def test_candidate_moves(page, candidate, moves):
    assert await run(page, "arbiter.js", "candidateMoves", candidate) == moves


POCKETS = {"A": {"white": "NB", "black": ""}, "B": {"white": "P", "black": "PP"}}


@pytest.mark.parametrize(
    ("candidate", "shown"),
    [
        # Only the pockets that tell the gap's candidates apart, in the order of ``differs``.
        (
            {"pockets": POCKETS, "differs": ["A/white", "B/white"]},
            [
                ("A/white", "A", "white", "NB",
                 "leaves white's pocket on board A with: knight, bishop"),
                ("B/white", "B", "white", "P", "leaves white's pocket on board B with: pawn"),
            ],
        ),
        # An empty pocket that differs says so.
        (
            {"pockets": POCKETS, "differs": ["A/black"]},
            [("A/black", "A", "black", "", "leaves black's pocket on board A with: nothing")],
        ),
        ({"pockets": POCKETS, "differs": []}, []),  # one end state: nothing to tell apart
        ({"pockets": POCKETS}, []),  # a bridge from before the pockets were listed
        ({"index": 0, "moves": {}, "san": {}}, []),
        ({"pockets": POCKETS, "differs": ["C/white", "A/red"]}, []),  # no such pocket
    ],
)  # fmt: skip
async def test_candidate_pockets(page, candidate, shown):
    got = await run(page, "arbiter.js", "candidatePockets", candidate)
    assert [(p["key"], p["board"], p["color"], p["letters"], p["text"]) for p in got] == shown


def _candidate(index: int, a_white: str, b_white: str) -> dict[str, Any]:
    pockets = {"A": {"white": a_white, "black": ""}, "B": {"white": b_white, "black": ""}}
    return {"index": index, "pockets": pockets, "differs": ["A/white", "B/white"]}


PAWN, KNIGHT = _candidate(0, "NB", "P"), _candidate(1, "PB", "N")


@pytest.mark.parametrize(
    ("details", "offered"),
    [
        # Each candidate's button carries its own pockets; the board's verbs carry none.
        (
            {"gap": 7, "candidates": [PAWN, KNIGHT]},
            [
                ("choose_recovery", 0, False, ["knight, bishop", "pawn"]),
                ("choose_recovery", 1, False, ["pawn, bishop", "knight"]),
                ("accept", None, False, None),
                ("resync", None, False, None),
            ],
        ),
        # A recommendation names one candidate: its pockets too, and it stays recommended.
        (
            {"gap": 7, "recommended": KNIGHT},
            [("choose_recovery", 1, True, ["pawn, bishop", "knight"]),
             ("accept", None, False, None), ("resync", None, False, None)],
        ),
    ],
)  # fmt: skip
async def test_each_candidate_action_carries_its_pockets(page, details, offered):
    alert = {"code": "gap_ambiguous", "board": "A", "details": details}
    got = await run(page, "arbiter.js", "alertActions", alert)
    assert [_offer(action) for action in got] == offered


def _offer(action: dict[str, Any]) -> tuple[str, int | None, bool, list[str] | None]:
    """An action as the table reads it: verb, candidate, recommended, the pieces listed."""
    pockets = action.get("pockets")
    pieces = None if pockets is None else [p["text"].split(": ")[1] for p in pockets]
    recommended = action.get("recommended", False)
    return action["verb"], action["args"].get("candidate"), recommended, pieces
