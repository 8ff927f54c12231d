"""The JavaScript of review, hall, standings, languages and acknowledgements, unit-tested in
headless Chromium (js/record.js, js/hallmodel.js, js/standings.js, js/i18n.js, js/arbiter.js).

The standings run the same vectors as hall/standings.py (tests/hall/standings_vectors.json).
"""

from __future__ import annotations

import json
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from bughouse_bridge.hall.rounds import parse_round_toml, round_payload
from web.bridge_record import BridgeGame, Ply, round_file
from web.js_logic import run

pytestmark = [pytest.mark.timeout(120), pytest.mark.asyncio(loop_scope="module")]

VECTORS = json.loads((Path(__file__).parent.parent / "hall" / "standings_vectors.json").read_text())
# A steal under dsj: black B's capture gives white A a pawn, dropped on c7, promoting on b8 with
# the queen stolen from d1 on board B.
STEAL_GAME = [
    Ply("A", "e4", 299),
    Ply("A", "c5", 298),
    Ply("B", "e4", 297),
    Ply("B", "d5", 296),
    Ply("B", "Nc3", 295),
    Ply("B", "dxe4", 294),
    Ply("A", "P@c7", 290),
    Ply("A", "a6", 288),
    Ply("A", "cxb8=Q(d1)", 280),
]


async def moments(page: Any, messages: list[tuple[str, Any]], points: list[int]) -> Any:
    script = """([messages, points]) => import('./js/record.js').then((m) => {
        const store = new m.RecordStore();
        for (const [tail, data] of messages) store.apply(tail, data);
        return {count: store.count(), moments: points.map((n) => m.momentAt(store, n))};
    })"""
    return await page.evaluate(script, [messages, points])


def record_messages(game: BridgeGame) -> list[tuple[str, Any]]:
    """The record topics the bridge published, in its order (tail, payload; None: cleared)."""
    base = f"{game.root}/match/{game.match_id}/"
    return [
        (p.topic.removeprefix(base), json.loads(p.payload) if p.payload else None)
        for p in game.published
        if p.topic.startswith(f"{base}record")
    ]


def steal_game() -> BridgeGame:
    game = BridgeGame(root="t", match_id="m", preset="dsj")
    game.play(STEAL_GAME)
    return game


async def test_a_moment_is_what_the_entry_says_and_the_other_boards_last_move(page):
    game = steal_game()
    _, entries = game.record()
    got = await moments(page, record_messages(game), [0, 6, 7, 9])
    assert got["count"] == 9
    start, drop, after_drop, steal = got["moments"]
    assert start["boards"]["A"]["fen"].startswith("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR")
    assert start["entry"] is None
    assert drop["boards"]["B"] == {"fen": entries[5]["boards"]["B"]["fen"], "lastMove": "d5e4",
                                   "checked": None, "mated": None}  # fmt: skip
    assert drop["boards"]["A"]["lastMove"] == "c7c5"  # board A's last move before it
    assert drop["pockets"] == entries[5]["pockets"]
    assert drop["clocks"] == entries[5]["clocks"]
    assert after_drop["boards"]["A"]["lastMove"] == "P@c7"
    assert steal["steal"] == {"board": "B", "square": "d1", "piece": "Q"}
    assert steal["boards"]["B"]["fen"] == entries[8]["boards"]["B"]["fen"]
    assert "Q" not in steal["boards"]["B"]["fen"].split(" ")[0].split("/")[-1]  # d1 emptied


async def test_entries_beyond_the_headers_count_are_stale_and_holes_stop_the_count(page):
    game = steal_game()
    before = record_messages(game)
    game.command("takeback", board="A")
    after = record_messages(game)[len(before) :]
    assert ("record/9", None) in after  # the bridge clears the entry taken back
    got = await moments(page, before + after, [9])
    assert (got["count"], got["moments"][0]["n"]) == (8, 8)
    # The new header before the cleared entry (another subscriber's order): 9 is stale.
    header = next(message for message in after if message[0] == "record")
    got = await moments(page, [*before, header], [9])
    assert (got["count"], got["moments"][0]["n"]) == (8, 8)
    # Without a header, entries count until the first hole (a cleared entry is null).
    entries = [message for message in before if message[0] != "record"]
    assert (await moments(page, [*entries, ("record/4", None)], [9]))["count"] == 3


@pytest.mark.parametrize(
    ("key", "n", "count", "target"),
    [
        ("ArrowLeft", None, 9, 8),  # from live: the move before the last
        ("ArrowLeft", 0, 9, 0),
        ("ArrowRight", 8, 9, 9),
        ("ArrowRight", 9, 9, 9),
        ("Home", 5, 9, 0),
        ("End", 2, 9, 9),
        ("x", 2, 9, None),
    ],
)
async def test_review_keys(page, key, n, count, target):
    assert await run(page, "record.js", "stepTo", key, n, count) == target


async def test_entry_labels_follow_bpgn_numbering_and_only_moves_have_one(page):
    game = steal_game()
    game.command("set_pocket", board="B", color="black", pieces="N")
    _, entries = game.record()
    got = [
        [await run(page, "record.js", f, entries[n - 1]) for f in ("entryLabel", "entryKind")]
        for n in (1, 6, 7, 9, 10)
    ]
    assert got == [
        ["1A.", "move"],  # e4
        ["2b.", "move"],  # dxe4, black's second move on board B
        ["2A.", "drop"],  # P@c7
        ["3A.", "steal"],  # cxb8=Q(d1)
        ["", "pocket_set"],  # no move number: it says what happened in words
    ]


async def hall_tables(page: Any, states: list[Any], indexes: list[Any] | None = None) -> Any:
    script = """([states, indexes]) => import('./js/hallmodel.js').then((m) => {
        const hall = new m.HallModel();
        for (const s of states) hall.applyState(s.match, s);
        for (const [bridge, index] of indexes) hall.applyGames(bridge, index);
        return hall.tables().map((t) => ({...t, finished: t.finished.map((g) => g.match)}));
    })"""
    return await page.evaluate(script, [states, indexes or []])


def hall_box(table: int, *, rounds: int = 1) -> BridgeGame:
    """A hall box as the real bridge runs it: r0 until the pairing; in round 1 a game won and
    a game drawn (the boards set up again after each), then round 2's pairing taken."""
    box = BridgeGame(root="t", bridge_id=f"table-{table}", match_id=f"r0-t{table}", table=table)
    box.hall_round(round_file(1, table))
    if rounds == 1:
        return box
    box.play([Ply("A", "e4"), Ply("A", "e5")])
    box.command("set_result", winner="tigers", board="A", reason="resign")
    box.boards_set_up_again()
    box.play([Ply("B", "d4")])
    box.command("set_result", winner=None, board="B", reason="agreement")
    box.boards_set_up_again()
    box.hall_round(round_file(2, table))
    return box


def retained_states(*boxes: BridgeGame) -> list[dict[str, Any]]:
    return [v for box in boxes for k, v in box.retained().items() if k.endswith("/state")]


def games_index(box: BridgeGame) -> dict[str, Any]:
    return box.retained()[f"{box.root}/bridge/{box.bridge.topics.bridge}/games"]


async def test_one_table_per_box_from_the_retained_states_of_an_older_bridge(page):
    """Without a games index: the newest state is current, those with a result finished."""
    boxes = [hall_box(1, rounds=2), hall_box(10), hall_box(2)]
    states = retained_states(*boxes)
    assert {s["match"] for s in states} >= {"r0-t1", "r1-t1", "r1-t1-g2", "r2-t1"}
    got = await hall_tables(page, states)
    assert [(t["bridge"], t["table"], t["current"], t["round"], t["game"]) for t in got] == [
        ("table-1", 1, "r2-t1", 2, 1),
        ("table-2", 2, "r1-t2", 1, 1),
        ("table-10", 10, "r1-t10", 1, 1),
    ]
    assert got[0]["finished"] == ["r1-t1", "r1-t1-g2"]


async def test_a_games_index_decides_the_current_match_and_the_list(page):
    box = hall_box(3, rounds=2)
    index = games_index(box)
    assert [g["match"] for g in index["games"]] == ["r1-t3", "r1-t3-g2"]  # r0, g3: not played
    got = await hall_tables(page, retained_states(box), [["table-3", index]])
    assert [(t["current"], t["round"], t["game"], t["finished"]) for t in got] == [
        ("r2-t3", 2, 1, ["r1-t3", "r1-t3-g2"])
    ]


@pytest.mark.parametrize("case", VECTORS["cases"], ids=[c["name"] for c in VECTORS["cases"]])
async def test_standings_vectors_in_javascript(page, case):
    got = await run(
        page, "standings.js", "standings", case["scoring"], case["pairings"], case["games"],
        case["names"],
    )  # fmt: skip
    assert got == case["expected"]


async def test_standings_inputs_from_the_games_index_and_the_rounds(page):
    box = hall_box(3, rounds=2)
    won, drawn = games_index(box)["games"]
    got = await run(page, "standings.js", "gameOfSummary", won)
    assert got == {
        "game": {"round": 1, "table": 3, "game": 1, "first": "tigers", "second": "lions",
                 "winner": "tigers"},
        "names": {"tigers": "Tigers", "lions": "Lions"},
    }  # fmt: skip
    assert (await run(page, "standings.js", "gameOfSummary", drawn))["game"]["winner"] is None
    assert await run(page, "standings.js", "gameOfSummary", {**won, "match": "demo"}) is None
    payload = json.loads(round_payload(parse_round_toml(round_file(4, 2)), ts="T"))
    assert await run(page, "standings.js", "pairingsOfRound", payload) == {
        "pairings": [{"round": 4, "table": 2, "first": "tigers", "second": "lions"}],
        "names": {"tigers": "Tigers", "lions": "Lions"},
    }


async def test_one_naming_rule_the_first_named_team_plays_black_a(page):
    """DSJ 8.2: the bridge lists White A's team first; the page, the hall and the standings
    all name the Tigers (Black A + White B) first, as the pairing does."""
    box = hall_box(3, rounds=2)
    teams = games_index(box)["games"][0]["teams"]
    assert [team["id"] for team in teams] == ["lions", "tigers"]  # the bridge's order
    named = await run(page, "model.js", "namedTeams", teams)
    assert [team["id"] for team in named] == ["tigers", "lions"]
    assert await run(page, "model.js", "versusText", teams) == "Tigers  vs  Lions"


@pytest.mark.parametrize(
    ("query", "stored", "preferred", "chosen"),
    [
        ("de", "es", ["en-GB"], "de"),
        (None, "es", ["de-AT"], "es"),
        (None, None, ["de-AT", "en"], "de"),
        (None, None, ["fr-FR", "es-MX"], "es"),
        ("xx", None, ["fr"], "en"),
    ],
)
async def test_language_from_query_then_stored_then_browser(page, query, stored, preferred, chosen):
    assert await run(page, "i18n.js", "chooseLanguage", query, stored, preferred) == chosen


async def test_format_leaves_unknown_names_visible(page):
    got = await run(page, "i18n.js", "format", "{a} and {b}", {"a": 1})
    assert got == "1 and {b}"


async def test_alert_text_from_code_and_parameters(page):
    alert = {"code": "illegal_move", "board": "A", "color": "black", "message": "English."}
    assert await run(page, "arbiter.js", "alertText", alert) == (
        "Board A: black made an illegal move."
    )
    nobody = {**alert, "color": None}
    assert "a player made" in await run(page, "arbiter.js", "alertText", nobody)
    future = {"code": "new_code", "message": "A future alert."}
    assert await run(page, "arbiter.js", "alertText", future) == "A future alert."


async def test_the_acknowledgement_topic_and_payload(page):
    alert = {"bridge": "table-2", "boot_id": "b0", "seq": 17}
    assert await run(page, "arbiter.js", "ackTopic", "bh", alert) == "bh/ack/table-2/b0/17"
    assert await run(page, "arbiter.js", "ackTopic", "bh", {**alert, "boot_id": "a/b"}) is None
    assert await run(page, "arbiter.js", "ackPayload", alert, "Eva", "T") == {
        "schema": 1, "by": "Eva", "ts": "T", "bridge": "table-2", "boot_id": "b0", "seq": 17,
    }  # fmt: skip


@pytest.mark.parametrize(
    ("rule", "lang", "text"),
    [
        ("dsj row 2 (3.2)", "en", "Pieces may be dropped with check, but not with mate."),
        ("dsj row 2 (3.2)", "de", ""),  # the rule text's own language: no translation beside
        ("olite row 2 (6a)", "de", "Eine Figur mit Schachmatt einzusetzen"),
        ("fics row 10", "en", ""),
    ],
)
async def test_article_translation_beside_the_original(page, rule, lang, text):
    script = """([rule, lang]) => Promise.all([import('./js/arbiter.js'),
        fetch('i18n/articles.json').then((r) => r.json())]).then(
        ([m, articles]) => m.articleTranslation(rule, articles, lang))"""
    got = await page.evaluate(script, [rule, lang])
    assert got.startswith(text) if text else got == ""


@pytest.mark.parametrize("ts", ["2026-11-23T10:15:07.000Z", "not a time", None])
async def test_alert_times_in_the_halls_own_time_zone(page, ts):
    got = await page.evaluate("(ts) => import('./js/arbiter.js').then((m) => m.localTime(ts))", ts)
    if ts is None or not ts[0].isdigit():
        assert got == ""
        return
    # The browser's zone (the machine's): UTC minus its offset, not the UTC of the payload.
    offset = await page.evaluate(f"new Date('{ts}').getTimezoneOffset()")
    local = datetime.fromisoformat(ts) - timedelta(minutes=offset)
    assert got == local.strftime("%H:%M:%S")
