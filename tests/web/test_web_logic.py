"""The page's pure JavaScript (js/model.js, js/arbiter.js, js/record.js, js/hallmodel.js,
js/standings.js, js/i18n.js and the router) unit-tested in headless Chromium.

One browser for the module; each table row is one ``page.evaluate`` of an exported function.
The page speaks English here (``useLanguage("en")``); tests/web/test_i18n.py checks the other
languages' files.
"""

from __future__ import annotations

import json

import pytest

from bughouse_bridge.bughouse.types import AlertCode
from web.js_logic import call, run

# One browser and one page for the whole module (starting Chromium costs about a second).
pytestmark = [pytest.mark.timeout(120), pytest.mark.asyncio(loop_scope="module")]

START = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[] w KQkq - 0 1"


@pytest.mark.parametrize(
    ("fen", "expected"),
    [
        (START, {"placement": START.split("[", maxsplit=1)[0], "pocket": "", "turn": "w"}),
        (
            "r1bqkb1r/pppp1ppp/2n5/4p3/8/8/PPPP1PPP/R1BQKB1R[NPp] b KQkq - 0 4",
            {
                "placement": "r1bqkb1r/pppp1ppp/2n5/4p3/8/8/PPPP1PPP/R1BQKB1R",
                "pocket": "NPp",
                "turn": "b",
            },
        ),
        ("8/8/8/8/8/8/8/8 w - - 0 1", {"placement": "8/8/8/8/8/8/8/8", "pocket": "", "turn": "w"}),
    ],
)
async def test_split_fen(page, fen, expected):
    got = await run(page, "model.js", "splitFen", fen)
    assert {key: got[key] for key in expected} == expected


@pytest.mark.parametrize(
    ("pockets", "board", "color", "letters"),
    [
        ({"A": {"white": "QPNP", "black": ""}}, "A", "white", "PPNQ"),
        ({"A": {"white": "", "black": "rb"}}, "A", "black", "BR"),
        ({"B": {"white": "N", "black": "P"}}, "B", "black", "P"),
        ({}, "B", "white", ""),
    ],
)
async def test_pocket_letters_in_contract_order(page, pockets, board, color, letters):
    got = await run(page, "model.js", "pocketLetters", pockets, board, color)
    assert got == letters


async def test_pocket_counts(page):
    got = await call(page, "model.js", "m.pocketCounts('PPNQ')")
    assert got == [
        {"letter": "P", "role": "pawn", "count": 2},
        {"letter": "N", "role": "knight", "count": 1},
        {"letter": "Q", "role": "queen", "count": 1},
    ]
    assert await call(page, "model.js", "m.pocketCounts('')") == []


@pytest.mark.parametrize(
    ("clock", "received", "now", "expected"),
    [
        # The running side counts down by the time since the reading arrived…
        ({"white_ms": 60000, "black_ms": 50000, "running": "white"}, 1000, 3500, (57500, 50000)),
        ({"white_ms": 60000, "black_ms": 50000, "running": "black"}, 1000, 3500, (60000, 47500)),
        # …stopped clocks do not move…
        ({"white_ms": 60000, "black_ms": 50000, "running": None}, 1000, 9000, (60000, 50000)),
        # …never below zero, and never up when the page's clock reads earlier than the message.
        ({"white_ms": 800, "black_ms": 50000, "running": "white"}, 0, 5000, (0, 50000)),
        ({"white_ms": 800, "black_ms": 50000, "running": "white"}, 5000, 4000, (800, 50000)),
        ({"white_ms": None, "black_ms": None, "running": None}, 0, 10, (None, None)),
    ],
)
async def test_clock_interpolation(page, clock, received, now, expected):
    got = await run(page, "model.js", "clockAt", clock, received, now)
    assert (got["white_ms"], got["black_ms"]) == expected


@pytest.mark.parametrize(
    ("ms", "text"),
    [(300000, "5:00"), (61999, "1:01"), (10000, "0:10"), (9999, "9.9"), (0, "0.0"), (None, "–")],
)
async def test_format_clock(page, ms, text):
    assert await run(page, "model.js", "formatClock", ms) == text


@pytest.mark.parametrize(
    ("uci", "keys"),
    [("e2e4", ["e2", "e4"]), ("e7e8q", ["e7", "e8"]), ("N@f3", ["f3"]), (None, []), ("", [])],
)
async def test_last_move_keys(page, uci, keys):
    assert await run(page, "model.js", "lastMoveKeys", uci) == keys


async def test_dedupe_by_boot_and_seq(page):
    offered = [
        {"boot_id": "b1", "seq": 1},
        {"boot_id": "b1", "seq": 2},
        {"boot_id": "b1", "seq": 1},  # a QoS 1 repeat
        {"boot_id": "b2", "seq": 1},  # a new process: same seq, new boot
        {"boot_id": "b2", "seq": 1},
        {"type": "clock"},  # no seq: always passes
        {"type": "clock"},
    ]
    script = "(() => { const d = new m.Dedupe(); return OFFERED.map((e) => d.fresh(e)); })()"
    got = await call(page, "model.js", script.replace("OFFERED", json.dumps(offered)))
    assert got == [True, True, False, True, False, True, True]


async def test_dedupe_memory_is_bounded(page):
    script = """(() => {
        const d = new m.Dedupe(3);
        for (let s = 1; s <= 10; s++) d.fresh({boot_id: 'x', seq: s});
        return [d.seen.get('x').size, d.fresh({boot_id: 'x', seq: 10}),
                d.fresh({boot_id: 'x', seq: 1})];
    })()"""
    got = await call(page, "model.js", script)
    assert got == [3, False, True]


async def test_bpgn_moves_in_order_with_check(page):
    text = (
        '[Event "x"]\n[WhiteA "a"]\n{C: opening}\n'
        "1A. e4{299.1} 1B. d4{298} 1a. e5 1b. Nf6 2A. Qh5 2a. Nc6 3A. Bc4 3a. P@f6 4A. Qxf7#\n"
        "{mated} 1-0"
    )
    moves = await run(page, "model.js", "parseBpgnMoves", text)
    assert [m["label"] for m in moves] == [
        "1A.", "1B.", "1a.", "1b.", "2A.", "2a.", "3A.", "3a.", "4A.",
    ]  # fmt: skip
    assert moves[7] == {"number": 3, "board": "A", "color": "black", "san": "P@f6", "label": "3a."}
    assert await run(page, "model.js", "checkedSide", moves, "A") == "black"
    assert await run(page, "model.js", "checkedSide", moves, "B") is None
    assert await run(page, "model.js", "matedSide", moves, "A") == "black"
    assert await run(page, "model.js", "matedSide", moves[:7], "A") is None


@pytest.mark.parametrize(("san", "kind"), [("e4", "move"), ("N@f3", "drop"), ("b8=Q(d1)", "steal")])
async def test_move_kind(page, san, kind):
    assert await run(page, "model.js", "moveKind", san) == kind


async def test_hall_seating(page):
    # Partners sit on the same side: A shows White at the bottom, B is turned.
    got = await call(
        page, "model.js", "['A', 'B'].map((b) => [m.boardOrientation(b), m.seatsTopDown(b)])"
    )
    assert got == [["white", ["black", "white"]], ["black", ["white", "black"]]]


@pytest.mark.parametrize(
    ("verb", "values", "body"),
    [
        ("takeback", {"board": "A"}, {"board": "A"}),
        ("resync", {"board": ""}, {}),
        ("set_result", {"winner": "", "board": "B", "reason": "x"},
         {"winner": None, "board": "B", "reason": "x"}),
        ("choose_recovery", {"gap": "3", "candidate": "1"}, {"gap": 3, "candidate": 1}),
        ("set_pocket", {"board": "A", "color": "white", "pieces": "PN"},
         {"board": "A", "color": "white", "pieces": "PN"}),
        ("new_game", {}, {}),
    ],
)  # fmt: skip
async def test_request_bodies(page, verb, values, body):
    got = await run(page, "arbiter.js", "requestBody", verb, values, "t1")
    assert got == {"transaction": "t1", **body}


async def test_request_body_names_a_missing_argument(page):
    script = (
        "(() => { try { m.requestBody('takeback', {}, 't'); } catch (e) { return e.message; } })()"
    )
    got = await call(page, "arbiter.js", script)
    assert got == "takeback needs board"


CLAIM = {"board": "B", "color": "white", "claim": "illegal_move"}
CANDIDATES = {"gap": 7, "candidates": [{"index": 0}, {"index": 1}]}
# The later moves decide gap 7 for its candidate 1 (contract §3): recommended, not resolved.
KNIGHT = {
    "index": 1,
    "moves": {"A": ["N@f4", "e5f4"], "B": []},
    "san": {"A": ["N@f4", "exf4"], "B": []},
}
RECOMMENDED = {"gap": 7, "recommended": KNIGHT, "settled_by": {"board": "B", "uci": "N@e4"}}
# A later move does not fit it: the recommendation is withdrawn (the gap stays open).
WITHDRAWN = {"gap": 7, "withdrawn": 1, "withdrawn_by": {"board": "B", "uci": "P@d4"}}


@pytest.mark.parametrize(
    ("code", "details", "offered"),
    [
        # An illegal move: its claim, and the board's takeback, accept and resync.
        ("illegal_move", {"claim": CLAIM}, [
            ("confirm_claim", CLAIM), ("takeback", {"board": "B"}), ("accept", {"board": "B"}),
            ("resync", {"board": "B"})]),
        # Without a claim in its details (the rules know none), no claim is offered.
        ("illegal_move", {}, [
            ("takeback", {"board": "B"}), ("accept", {"board": "B"}), ("resync", {"board": "B"})]),
        # A gap's candidates, never a takeback.
        ("gap_ambiguous", CANDIDATES, [
            ("choose_recovery", {"gap": 7, "candidate": 0}),
            ("choose_recovery", {"gap": 7, "candidate": 1}),
            ("accept", {"board": "B"}), ("resync", {"board": "B"})]),
        # A gap resolved since (a better look explained it): nothing to do.
        ("gap_ambiguous", {"gap": 7, "resolved": True}, []),
        # The later moves recommend a candidate: it can be chosen here, and the gap is open.
        ("gap_ambiguous", RECOMMENDED, [
            ("choose_recovery", {"gap": 7, "candidate": 1}),
            ("accept", {"board": "B"}), ("resync", {"board": "B"})]),
        ("flag", {"claim": {"board": "B", "color": "white", "claim": "flag"}},
         [("confirm_claim", {"board": "B", "color": "white", "claim": "flag"})]),
        ("clock_without_move", {}, [("resync", {"board": "B"})]),
        ("mate_pending", {}, []),
        ("link_lost", {}, []),
        # A code the console does not know yet: what its details carry, nothing else.
        ("new_code", {"claim": CLAIM, **CANDIDATES}, [
            ("confirm_claim", CLAIM), ("choose_recovery", {"gap": 7, "candidate": 0}),
            ("choose_recovery", {"gap": 7, "candidate": 1})]),
    ],
)  # fmt: skip
async def test_alert_actions_are_only_those_that_apply(page, code, details, offered):
    alert = {"code": code, "board": "B", "details": details}
    got = await run(page, "arbiter.js", "alertActions", alert)
    assert [(a["verb"], a["args"]) for a in got] == offered


async def test_the_recommended_candidate_is_marked_and_says_so(page):
    alert = {"code": "gap_ambiguous", "board": "A", "details": {**CANDIDATES, **RECOMMENDED}}
    got = await run(page, "arbiter.js", "alertActions", alert)
    choices = [(a["label"], a.get("recommended", False)) for a in got if a["args"].get("gap")]
    assert choices == [
        ("choose candidate 0", False),
        ("later moves decide: candidate 1, recommended", True),
    ]


@pytest.mark.parametrize(
    ("details", "text"),
    [
        (RECOMMENDED, ("Board A: the moves played since decide the gap: only candidate 1 "
         "(N@f4 exf4) fits them. Choose it to record the missed moves; until then the board "
         "stays uncertain.")),
        (CANDIDATES,
         "Board A: moves were missed while the board was away; check how they were recovered."),
        (WITHDRAWN, ("Board A: the recommendation is withdrawn: candidate 1 does not fit the "
         "move P@d4 played since, and no other candidate does. Choose a candidate or correct "
         "the position; the board stays uncertain.")),
    ],
)  # fmt: skip
async def test_a_recommendation_reads_as_one(page, details, text):
    alert = {"code": "gap_ambiguous", "board": "A", "bridge": "b", "match": "m", "details": details}
    assert await run(page, "arbiter.js", "alertText", alert) == text


@pytest.mark.parametrize(
    ("details", "gap", "settled", "recommended"),
    [
        ({"gap": 7, "candidates": []}, "box-1/m-1/7", None, None),
        ({"gap": 7, "resolved": True}, "box-1/m-1/7", "box-1/m-1/7", None),
        ({"gap": 0, "resolved": True}, "box-1/m-1/0", "box-1/m-1/0", None),  # gap 0 is a gap
        ({"claim": CLAIM}, None, None, None),
        ({"resolved": True}, None, None, None),  # an unexplained position resolved: no gap
        # later moves decide: the gap stays open, its candidate 1 recommended
        (RECOMMENDED, "box-1/m-1/7", None, {"gap": "box-1/m-1/7", "index": 1}),
        ({**RECOMMENDED, "gap": 0}, "box-1/m-1/0", None, {"gap": "box-1/m-1/0", "index": 1}),
        ({"recommended": KNIGHT}, None, None, None),  # no gap named: nothing to mark
        (WITHDRAWN, "box-1/m-1/7", None, None),
        ({**WITHDRAWN, "withdrawn": 0}, "box-1/m-1/7", None, None),  # candidate 0 is one
    ],
)
async def test_an_alert_names_its_gap_and_what_it_tells_of_it(
    page, details, gap, settled, recommended
):
    alert = {"code": "gap_ambiguous", "bridge": "box-1", "match": "m-1", "details": details}
    assert await run(page, "arbiter.js", "gapKey", alert) == gap
    assert await run(page, "arbiter.js", "settledGap", alert) == settled
    assert await run(page, "arbiter.js", "recommendation", alert) == recommended
    withdrawn = gap if "withdrawn" in details else None
    assert await run(page, "arbiter.js", "withdrawnGap", alert) == withdrawn


async def test_alert_actions_need_a_board_for_board_verbs(page):
    got = await call(page, "arbiter.js", "m.alertActions({code: 'illegal_move', board: null})")
    assert got == []


async def test_every_alert_code_has_its_actions(page):
    known = await call(page, "arbiter.js", "Object.keys(m.ALERT_ACTIONS)")
    assert set(known) == {str(code) for code in AlertCode}


@pytest.mark.parametrize(
    ("rule", "text"),
    [
        ("dsj row 2 (3.2)", ": drop giving mate — DSJ Tandemschach-Regeln, article 3.2"),
        ("fics row 10", ": other illegal move — online bughouse (FICS)"),
        ("dsb row 3 (override)",
         ": pawn drop ranks — DSB Tandemordnung, overridden by this tournament's configuration"),
        (None, ""),
        ("something else", "something else"),
    ],
)  # fmt: skip
async def test_rule_text(page, rule, text):
    expected = f"{rule}{text}" if text.startswith(":") else text
    assert await run(page, "arbiter.js", "ruleText", rule) == expected


@pytest.mark.parametrize(
    ("hash_", "route"),
    [
        ("", {"view": "hall"}),
        ("#/hall", {"view": "hall"}),
        ("#/match/round-1-table-3", {"view": "match", "match": "round-1-table-3"}),
        ("#/console", {"view": "console"}),
        ("#/match/", {"view": "hall"}),
    ],
)
async def test_route(page, hash_, route):
    assert await run(page, "app.js", "route", hash_) == route


@pytest.mark.parametrize(
    ("search", "url", "transparent"),
    [
        ("", "ws://127.0.0.1:1", False),  # what the server's config.json says
        ("?broker=ws://hall:9001&transparent=1", "ws://hall:9001", True),
    ],
)
async def test_config_from_server_and_query(page, search, url, transparent):
    got = await run(page, "app.js", "loadConfig", search)
    assert got == {"url": url, "root": "bughouse/v1", "transparent": transparent}


RUNNING_WHITE = {"white_ms": 60000, "black_ms": 50000, "running": "white"}


@pytest.mark.parametrize(
    ("incoming", "now", "kept"),
    [
        # A snapshot that agrees with the estimate within a reading: the estimate stays.
        ({"white_ms": 58000, "black_ms": 50000, "running": "white"}, 2000, True),
        # Another side runs now, or a stopped clock was set: the snapshot wins.
        ({"white_ms": 58000, "black_ms": 50000, "running": "black"}, 2000, False),
        ({"white_ms": 58000, "black_ms": 40000, "running": "white"}, 2000, False),
        # Far off the estimate (a clock was corrected): the snapshot wins.
        ({"white_ms": 30000, "black_ms": 50000, "running": "white"}, 2000, False),
    ],
)
async def test_snapshot_clock_never_jumps_back_within_a_reading(page, incoming, now, kept):
    current = {"clock": RUNNING_WHITE, "receivedAt": 0}
    got = await run(page, "model.js", "snapshotClock", current, incoming, now)
    expected = current if kept else {"clock": incoming, "receivedAt": now}
    assert got == expected


async def test_snapshot_clock_without_a_reading_takes_the_snapshot(page):
    got = await run(page, "model.js", "snapshotClock", None, RUNNING_WHITE, 5)
    assert got == {"clock": RUNNING_WHITE, "receivedAt": 5}


@pytest.mark.parametrize(
    ("round_", "title"),
    [
        ({"round": 3}, "round 3"),
        ({"event": "Berlin Open", "round": 1, "tables": []}, "Berlin Open — round 1"),
        ({"tables": []}, None),
        ("not json", None),
    ],
)
async def test_round_title(page, round_, title):
    assert await run(page, "hall.js", "roundTitle", round_) == title


TEXTS = {"dsj": {"3.2": "Figuren dürfen mit Schach eingesetzt werden, nicht aber mit Matt."}}


@pytest.mark.parametrize(
    ("rule", "text"),
    [
        ("dsj row 2 (3.2)", TEXTS["dsj"]["3.2"]),
        ("dsj row 3 (3.3)", ""),  # not in the texts
        ("dsb row 3 (override)", ""),
        ("fics row 10", ""),
        (None, ""),
    ],
)
async def test_article_text(page, rule, text):
    assert await run(page, "arbiter.js", "articleText", rule, TEXTS) == text


@pytest.mark.parametrize(
    ("board", "checked", "flagged", "banner"),
    [
        ({"status": "playing", "link": "connected"}, None, None, None),
        ({"status": "playing", "link": "connected"}, "black", None, ("check", "black in check")),
        ({"status": "mate_pending"}, "black", None, ("mate-pending", "mate pending")),
        ({"status": "mated"}, "black", None, ("mate", "checkmate")),
        ({"status": "stalemate"}, None, None, ("stalemate", "stalemate")),
        ({"status": "playing", "link": "disconnected"}, "white", None, ("link", "board offline")),
        ({"status": "finished"}, None, "white", ("flag", "white flag fell")),
        # A finished board whose last move mated: checkmate, not check.
        ({"status": "finished", "mated": "black"}, "black", None, ("mate", "checkmate")),
        ({"status": "playing", "mated": "black"}, "black", None, ("check", "black in check")),
    ],
)
async def test_board_banner(page, board, checked, flagged, banner):
    mated = board.pop("mated", None)
    got = await run(page, "model.js", "boardBanner", board, checked, flagged, mated)
    assert (None if got is None else (got["kind"], got["text"])) == banner
