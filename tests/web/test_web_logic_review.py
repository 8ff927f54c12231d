"""The JavaScript of review, hall, standings, languages and acknowledgements, unit-tested in
headless Chromium (js/record.js, js/hallmodel.js, js/standings.js, js/i18n.js, js/arbiter.js).

The standings run the same vectors as hall/standings.py (tests/hall/standings_vectors.json).
"""

from __future__ import annotations

import json
from datetime import datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
import pytest_asyncio

from browser_harness import browser_missing
from web.js_logic import logic_page, run
from web.record_standin import Ply, record_entries, record_header

if TYPE_CHECKING:
    from collections.abc import AsyncIterator

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
TEAMS = [
    {"id": "lions", "name": "Lions", "seats": ["white_a", "black_b"]},
    {"id": "tigers", "name": "Tigers", "seats": ["black_a", "white_b"]},
]


@pytest.fixture(scope="module")
def skip_without_browser() -> None:
    reason = browser_missing()
    if reason:
        pytest.skip(reason)


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def page(skip_without_browser: None) -> AsyncIterator[Any]:
    async with logic_page() as tab:
        yield tab


async def moments(page: Any, messages: list[tuple[str, Any]], points: list[int]) -> Any:
    script = """([messages, points]) => import('./js/record.js').then((m) => {
        const store = new m.RecordStore();
        for (const [tail, data] of messages) store.apply(tail, data);
        return {count: store.count(), moments: points.map((n) => m.momentAt(store, n))};
    })"""
    return await page.evaluate(script, [messages, points])


def record_messages(entries: list[dict[str, Any]], count: int | None = None) -> list[Any]:
    header = record_header("m", len(entries) if count is None else count, teams=TEAMS)
    return [*((f"record/{e['n']}", e) for e in entries), ("record", header)]


async def test_a_moment_is_what_the_entry_says_and_the_other_boards_last_move(page):
    entries = record_entries(STEAL_GAME, "m", rules="dsj")
    got = await moments(page, record_messages(entries), [0, 6, 7, 9])
    assert got["count"] == 9
    start, drop, after_drop, steal = got["moments"]
    assert start["boards"]["A"]["fen"].startswith("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR")
    assert start["entry"] is None
    assert drop["boards"]["B"] == {"fen": entries[5]["boards"]["B"]["fen"], "lastMove": "d5e4",
                                   "checked": None}  # fmt: skip
    assert drop["boards"]["A"]["lastMove"] == "c7c5"  # board A's last move before it
    assert drop["pockets"] == entries[5]["pockets"]
    assert drop["clocks"] == entries[5]["clocks"]
    assert after_drop["boards"]["A"]["lastMove"] == "P@c7"
    assert steal["steal"] == {"board": "B", "square": "d1", "piece": "Q"}
    assert steal["boards"]["B"]["fen"] == entries[8]["boards"]["B"]["fen"]
    assert "Q" not in steal["boards"]["B"]["fen"].split(" ")[0].split("/")[-1]  # d1 emptied


async def test_entries_beyond_the_headers_count_are_stale_and_holes_stop_the_count(page):
    entries = record_entries(STEAL_GAME, "m", rules="dsj")
    # A takeback shortened the record to 7: entries 8 and 9 are still retained but not shown.
    got = await moments(page, record_messages(entries, count=7), [9])
    assert got["count"] == 7
    assert got["moments"][0]["n"] == 7
    # Without a header, entries count until the first hole (a cleared entry is null).
    messages = [(f"record/{e['n']}", e) for e in entries] + [("record/4", None)]
    assert (await moments(page, messages, [9]))["count"] == 3


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


@pytest.mark.parametrize(
    ("entry", "label", "kind"),
    [
        ({"board": "A", "color": "white", "ply": 1, "kind": "move", "uci": "e2e4"}, "1A.", "move"),
        ({"board": "B", "color": "black", "ply": 4, "kind": "move", "uci": "N@f3"}, "2b.", "drop"),
        ({"board": "A", "color": "white", "ply": 17, "kind": "move", "uci": "e7e8q",
          "steal": {"board": "B"}}, "9A.", "steal"),
        ({"board": "B", "color": None, "ply": 4, "kind": "pocket_set"}, "2B.", "pocket_set"),
    ],
)  # fmt: skip
async def test_entry_labels_follow_bpgn_numbering(page, entry, label, kind):
    assert await run(page, "record.js", "entryLabel", entry) == label
    assert await run(page, "record.js", "entryKind", entry) == kind


def state(match: str, bridge: str, ts: str, result: Any = None) -> dict[str, Any]:
    return {"match": match, "bridge": bridge, "ts": ts, "teams": TEAMS, "result": result}


WIN = {"winner": "tigers", "board": "A", "reason": "checkmate", "bpgn_result": "0-1"}


async def hall_tables(page: Any, states: list[Any], indexes: list[Any] | None = None) -> Any:
    script = """([states, indexes]) => import('./js/hallmodel.js').then((m) => {
        const hall = new m.HallModel();
        for (const s of states) hall.applyState(s.match, s);
        for (const [bridge, index] of indexes) hall.applyGames(bridge, index);
        return hall.tables().map((t) => ({...t, finished: t.finished.map((g) => g.match)}));
    })"""
    return await page.evaluate(script, [states, indexes or []])


async def test_one_table_per_box_with_its_newest_match_and_finished_games(page):
    states = [
        state("r0-t1", "table-1", "2026-11-23T09:00:00.000Z"),  # replaced by the pairing
        state("r1-t1", "table-1", "2026-11-23T10:00:00.000Z", WIN),
        state("r1-t1-g2", "table-1", "2026-11-23T10:30:00.000Z"),
        state("r1-t10", "table-10", "2026-11-23T10:00:00.000Z"),
        state("r1-t2", "table-2", "2026-11-23T10:00:00.000Z"),
    ]
    got = await hall_tables(page, states)
    assert [(t["bridge"], t["table"], t["current"], t["round"], t["game"]) for t in got] == [
        ("table-1", 1, "r1-t1-g2", 1, 2),
        ("table-2", 2, "r1-t2", 1, 1),
        ("table-10", 10, "r1-t10", 1, 1),
    ]
    assert got[0]["finished"] == ["r1-t1"]


async def test_a_games_index_decides_the_current_match_and_the_list(page):
    states = [state("r2-t3", "table-3", "2026-11-23T11:00:00.000Z")]
    index = {
        "schema": 1,
        "bridge": "table-3",
        "table": 3,
        "current": "r2-t3",
        "games": [
            {"match": "r1-t3", "round": 1, "table": 3, "game": 1, "teams": TEAMS, "result": WIN},
            {"match": "r1-t3-g2", "round": 1, "table": 3, "game": 2, "teams": TEAMS,
             "result": {**WIN, "winner": None, "bpgn_result": "1/2-1/2"}},
            {"match": "r2-t3", "round": 2, "table": 3, "game": 1, "teams": TEAMS, "result": None},
        ],
    }  # fmt: skip
    got = await hall_tables(page, states, [["table-3", index]])
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


async def test_standings_inputs_from_states_and_rounds(page):
    summary = {"match": "r2-t3-g2", "teams": TEAMS, "result": WIN}
    got = await run(page, "standings.js", "gameOfSummary", summary)
    assert got == {
        "game": {"round": 2, "table": 3, "game": 2, "first": "tigers", "second": "lions",
                 "winner": "tigers"},
        "names": {"tigers": "Tigers", "lions": "Lions"},
    }  # fmt: skip
    assert await run(page, "standings.js", "gameOfSummary", {**summary, "match": "demo"}) is None
    round_payload = {
        "schema": 1,
        "round": 4,
        "tables": {"2": {"first": {"id": "owls", "name": "Owls", "players": {}},
                         "second": {"id": "foxes", "name": "Foxes", "players": {}}}},
    }  # fmt: skip
    assert await run(page, "standings.js", "pairingsOfRound", round_payload) == {
        "pairings": [{"round": 4, "table": 2, "first": "owls", "second": "foxes"}],
        "names": {"owls": "Owls", "foxes": "Foxes"},
    }


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
