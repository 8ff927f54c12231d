"""Standings (hall/standings.py) and the hall's scoring settings (hall/scoring.py), pure.

The vectors in standings_vectors.json are shared with the hall view's JavaScript port
(tests/web/test_web_logic.py runs js/standings.js on the same cases).
"""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest

from bughouse_bridge.hall.rounds import parse_round_toml
from bughouse_bridge.hall.scoring import (
    HALL_TOML,
    TIEBREAKS,
    Scoring,
    ScoringError,
    scoring_from_dict,
    scoring_from_toml,
    scoring_payload,
)
from bughouse_bridge.hall.standings import (
    GameResult,
    Pairing,
    game_of_state,
    pairings_of_round,
    standings,
    standings_csv,
)

VECTORS = json.loads((Path(__file__).parent / "standings_vectors.json").read_text())["cases"]


@pytest.mark.parametrize("case", VECTORS, ids=[case["name"] for case in VECTORS])
def test_standings_vectors(case):
    got = standings(
        scoring_from_dict(case["scoring"]),
        [Pairing(**p) for p in case["pairings"]],
        [GameResult(**g) for g in case["games"]],
        case["names"],
    )
    assert got == case["expected"]


def test_the_order_of_the_games_does_not_matter():
    case = VECTORS[1]
    games = [GameResult(**g) for g in case["games"]]
    args = (scoring_from_dict(case["scoring"]), [Pairing(**p) for p in case["pairings"]])
    assert standings(*args, games[::-1], case["names"]) == case["expected"]


def test_every_tiebreak_is_in_a_vector():
    named = {name for case in VECTORS for name in case["scoring"]["tiebreaks"]}
    assert named == set(TIEBREAKS)


def test_the_generated_hall_toml_is_the_default_scoring():
    assert scoring_from_toml(HALL_TOML) == Scoring()
    assert scoring_from_toml("") == Scoring()


def test_the_published_scoring_reads_back():
    scoring = Scoring(win=3, draw=1, loss=0, games_per_match=2, tiebreaks=("buchholz",))
    assert scoring_from_dict(json.loads(scoring_payload(scoring))) == scoring


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("[standings\n", "invalid TOML"),
        ("[event]\nname = 'x'\n", "unknown table(s) event"),
        ("[standings]\ntiebreak = []\n", "unknown key(s) tiebreak"),
        ("[standings]\ntiebreaks = ['median']\n", "unknown median; known: game_points"),
        ("[standings]\ntiebreaks = ['buchholz', 'buchholz']\n", "named twice"),
        ("[standings]\ntiebreaks = 'buchholz'\n", "expected a list of names"),
        ("[standings]\ngames_per_match = 0\n", "games_per_match: expected a whole number"),
        ("[standings]\nmatch_points = { win = 2 }\n", "match_points: expected"),
        ("[standings]\nmatch_points = { win = 2, draw = -1, loss = 0 }\n", "draw: expected a num"),
    ],
)
def test_bad_scoring_names_the_key(text, message):
    with pytest.raises(ScoringError, match=r"hall\.toml") as raised:
        scoring_from_toml(text)
    assert message in str(raised.value)


STATE = {
    "match": "r2-t3-g2",
    "teams": [
        {"id": "tigers", "name": "Tigers", "seats": ["white_a", "black_b"]},
        {"id": "lions", "name": "Lions", "seats": ["black_a", "white_b"]},
    ],
    "result": {"winner": "tigers", "board": "A", "reason": "checkmate", "bpgn_result": "1-0"},
}


def test_a_finished_hall_state_is_a_game_with_the_first_named_team_on_black_a():
    assert game_of_state(STATE) == (
        GameResult(2, 3, 2, "lions", "tigers", "tigers"),
        {"lions": "Lions", "tigers": "Tigers"},
    )


@pytest.mark.parametrize(
    "state",
    [
        {**STATE, "result": None},
        {**STATE, "match": "demo"},
        {**STATE, "teams": []},
        {"match": "r1-t1"},
    ],
)
def test_states_that_are_no_finished_hall_game(state):
    assert game_of_state(state) is None


def test_pairings_of_a_round_file():
    parsed = parse_round_toml(
        "round = 4\n[[tables]]\ntable = 2\n"
        'first = { name = "Lions", black_a = "Anna", white_b = "Ben" }\n'
        'second = { name = "Tigers", white_a = "Carl", black_b = "Dora" }\n'
    )
    assert pairings_of_round(parsed) == (
        [Pairing(4, 2, "lions", "tigers")],
        {"lions": "Lions", "tigers": "Tigers"},
    )


def test_standings_csv_for_tournament_software():
    case = VECTORS[1]
    report = standings(
        scoring_from_dict(case["scoring"]),
        [Pairing(**p) for p in case["pairings"]],
        [GameResult(**g) for g in case["games"]],
        case["names"],
    )
    rows = list(csv.DictReader(io.StringIO(standings_csv(report))))
    assert [row["team"] for row in rows] == ["d", "b", "a", "c"]
    assert rows[2] == {
        "rank": "3",
        "team": "a",
        "name": "Anna's",
        "played": "3",
        "won": "1",
        "drawn": "1",
        "lost": "1",
        "match_points": "3",
        "game_points": "2.5",
        "buchholz": "9",
        "sonneborn_berger_gp": "6",
        "sonneborn_berger": "7",
        "buchholz_cut1": "7",
    }
