"""The pages built from the game record, in the real browser (one browser for the module):

- game review: a finished game and a live one, stepped through with clicks, the arrow keys,
  Home/End and the review buttons; at chosen moments both boards, all four pockets and all four
  clocks equal what the record says about that moment; drops and steals are marked; "back to
  live" while the game runs; every kind of record entry (a forced illegal drop and its removal,
  a pocket set, a position accepted, a link gap, a result and its revocation) in words;
- a spectator's phone: the hall lists a table's finished games under its one card (from the
  box's games index), a tap opens one, the buttons step through it;
- the three languages on the page, the hall (with its standings) and the console, chosen by
  ?lang=, remembered, else the browser's; screenshots of each.

Every record topic, state, BPGN and games index the page reads here is what the real bridge
published for the game (tests/web/bridge_record.py plays it through the bridge's pipeline),
sent to a real broker in the bridge's order.
"""

from __future__ import annotations

import json
import uuid
from typing import TYPE_CHECKING, Any

import aiomqtt
import chess
import pytest
import pytest_asyncio

from browser_harness import PHONE, artefacts, browser_missing, chromium, web_server
from bughouse_bridge.bughouse.types import BoardId
from bughouse_bridge.hall.rounds import parse_round_toml, round_payload
from bughouse_bridge.web import STATIC_DIR
from e2e.e2e_harness import the_game
from private_mosquitto import MOSQUITTO, Mosquitto
from web.bridge_record import BridgeGame, Ply, plies_of, round_file

if TYPE_CHECKING:
    from collections.abc import AsyncIterator

pytestmark = [pytest.mark.timeout(120), pytest.mark.asyncio(loop_scope="module")]

# dsj: a drop (7, P@c7) and a steal-promotion (9, the queen taken from d1 on board B).
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
    Ply("B", "Nxe4", 270),
    Ply("A", "e6", 268),
]


class Scene:
    def __init__(self, broker: Mosquitto, client: aiomqtt.Client, browser: Any, url: str) -> None:
        self.broker, self.client, self.browser, self.url = broker, client, browser, url
        self.artefacts = artefacts("bughouse-review-")
        self.new_root()

    def new_root(self) -> None:
        """Each test's topics under a root of their own: no retained message of another."""
        self.root = f"test/review-{uuid.uuid4().hex[:8]}"

    def page_url(self, route: str, query: str = "") -> str:
        return f"{self.url}?root={self.root}{query}#/{route}"

    def game(self, **config: Any) -> BridgeGame:
        return BridgeGame(root=self.root, **config)

    async def publish(self, topic: str, payload: bytes) -> None:
        await self.client.publish(f"{self.root}/{topic}", payload, 1, retain=True)

    async def hall_round(self, game: BridgeGame, number: int, table: int) -> None:
        """`hall round`: the round retained for viewers, and the box takes its pairing."""
        text = round_file(number, table)
        payload = round_payload(parse_round_toml(text), ts="2026-11-23T09:00:00.000Z")
        await self.publish(f"hall/rounds/{number}", payload)
        await self.publish("hall/round", payload)
        game.hall_round(text)


@pytest.fixture(scope="module")
def needs() -> None:
    if not MOSQUITTO.exists():
        pytest.skip("mosquitto is not installed")
    reason = browser_missing()
    if reason:
        pytest.skip(reason)


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def scene(needs: None, tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Scene]:
    broker = Mosquitto(tmp_path_factory.mktemp("review-broker"), websockets=True)
    broker.start()
    try:
        assert broker.ws_port is not None
        async with (
            aiomqtt.Client("127.0.0.1", broker.port) as client,
            chromium() as browser,
        ):
            with web_server(broker.ws_port, "unused") as web:
                yield Scene(broker, client, browser, web.url)
    finally:
        broker.stop()


def shown_clock(ms: int | None) -> str:
    """What formatClock (js/model.js) shows."""
    if ms is None:
        return "–"
    if ms < 10000:
        return f"{ms // 100 / 10:.1f}"
    return f"{ms // 60000}:{ms // 1000 % 60:02d}"


async def assert_shows(page: Any, entry: dict[str, Any]) -> None:
    """Both boards, the four pockets and the four clocks are what the entry says."""
    await page.wait_for_selector(f'.match[data-review="{entry["n"]}"]')
    for board in ("A", "B"):
        fen = await page.get_attribute(f'[data-board="{board}"]', "data-fen")
        assert fen == entry["boards"][board]["fen"], (entry["n"], board)
        for color in ("white", "black"):
            letters = await page.get_attribute(f'[data-pocket="{board}-{color}"]', "data-letters")
            assert letters == entry["pockets"][board][color], (entry["n"], board, color)
            clock = await page.inner_text(f'[data-clock="{board}-{color}"]')
            assert clock == shown_clock(entry["clocks"][board][f"{color}_ms"]), (entry["n"], board)


async def open_match(scene: Scene, match: str, count: int, *, lang: str = "en") -> Any:
    page = await scene.browser.new_page()
    page.errors = []
    page.on("pageerror", lambda error: page.errors.append(str(error)))
    await page.goto(scene.page_url(f"match/{match}", f"&lang={lang}"))
    await page.wait_for_function(f"document.querySelectorAll('[data-entry]').length === {count}")
    return page


async def test_review_of_a_finished_game(scene):
    game = scene.game(match_id="r1-t1")
    game.play(plies_of(the_game()))  # ends with 23B. B@g7#: the bridge decides the result
    header, entries = game.record()
    assert [e["kind"] for e in entries[-2:]] == ["move", "result"]
    await game.publish_to(scene.client)
    page = await open_match(scene, "r1-t1", len(entries))
    assert await page.get_attribute(".match", "data-review") in (None, "")
    assert await page.locator("[data-live]").is_hidden()  # a finished game has no live
    assert await page.inner_text(".match-title") == "Tigers vs Lions"  # first-named first
    assert await page.locator(".mv").count() == len(entries) - 1  # the moves
    result = "Tigers win — board B, checkmate (0-1)"
    assert await page.inner_text(f'[data-entry="{len(entries)}"]') == result
    assert await page.inner_text("[data-result]") == result
    # How the boards ended: mate on B, A over with it; the clocks stand as they were read.
    assert await page.inner_text('[data-banner="B"]') == "checkmate"
    assert await page.inner_text('[data-banner="A"]') == "game over (board B)"
    read_clocks = "els => els.map(e => e.textContent)"
    clocks = await page.eval_on_selector_all("[data-clock]", read_clocks)
    await page.wait_for_timeout(1200)
    assert await page.eval_on_selector_all("[data-clock]", read_clocks) == clocks

    for n in (5, 40, 77):  # three moments, by a click in the move list
        await page.click(f'[data-entry="{n}"]')
        await assert_shows(page, entries[n - 1])
        assert "current" in (await page.get_attribute(f'[data-entry="{n}"]', "class") or "")
        assert await page.locator("[data-result]").is_hidden()  # not decided at that moment
    drop = next(e for e in entries if "@" in (e["uci"] or ""))
    await page.click(f'[data-entry="{drop["n"]}"]')
    await page.wait_for_selector(f".board-{drop['board']}.last-drop")

    await page.click('[data-entry="40"]')
    await page.keyboard.press("ArrowLeft")
    await assert_shows(page, entries[38])
    for _ in range(2):
        await page.keyboard.press("ArrowRight")
    await assert_shows(page, entries[40])
    await page.keyboard.press("Home")
    await page.wait_for_selector('.match[data-review="0"]')
    start = await page.get_attribute('[data-board="A"]', "data-fen")
    assert start == header["start"]["A"]
    await page.keyboard.press("End")  # the last entry of a finished game: its final state
    await page.wait_for_selector('.match[data-review=""]')
    assert (
        await page.get_attribute('[data-board="B"]', "data-fen")
        == entries[-1]["boards"]["B"]["fen"]
    )
    assert "Tigers win" in await page.inner_text("[data-result]")
    await page.keyboard.press("ArrowLeft")  # the mating drop: mate shown on its board
    await assert_shows(page, entries[-2])
    assert await page.inner_text('[data-banner="B"]') == "checkmate"
    await page.click('[data-entry="60"]')
    await page.wait_for_timeout(300)  # the pieces' animation
    await page.screenshot(path=scene.artefacts / "review.png")
    print(f"\nreview screenshot: {scene.artefacts / 'review.png'}")
    assert page.errors == []
    await page.close()


async def test_review_of_a_live_game_and_back_to_live(scene):
    game = scene.game(match_id="r1-t2", preset="dsj")
    game.play(STEAL_GAME[:6])
    await game.publish_to(scene.client)
    page = await open_match(scene, "r1-t2", 6)
    _, entries = game.record()
    await page.keyboard.press("ArrowLeft")  # from live: the entry before the last
    await assert_shows(page, entries[4])
    await page.click('[data-entry="3"]')
    await assert_shows(page, entries[2])
    await page.wait_for_selector("[data-live]:not([hidden])")

    game.play(STEAL_GAME[6:])  # the game goes on while the viewer reviews
    await game.publish_to(scene.client)
    _, entries = game.record()
    await page.wait_for_function(
        f"document.querySelectorAll('[data-entry]').length === {len(entries)}"
    )
    await assert_shows(page, entries[2])  # still the reviewed moment

    await page.click('[data-entry="7"]')  # the drop: circled on its square
    await assert_shows(page, entries[6])
    await page.wait_for_selector(".board-A.last-drop")
    await page.click('[data-entry="9"]')  # the steal: circled where the queen was taken
    await assert_shows(page, entries[8])
    assert entries[8]["steal"] == {"board": "B", "square": "d1", "piece": "Q"}
    circles = "document.querySelectorAll('.board-B svg circle').length"
    await page.wait_for_function(f"{circles} > 0")
    assert "steal" in (await page.get_attribute('[data-entry="9"]', "class") or "")
    await page.click('[data-review-step="next"]')
    await assert_shows(page, entries[9])
    assert await page.evaluate(circles) == 0

    await page.click("[data-live]")
    await page.wait_for_selector('.match[data-review=""]')
    assert await page.locator("[data-live]").is_hidden()
    assert (
        await page.get_attribute('[data-board="A"]', "data-fen")
        == entries[-1]["boards"]["A"]["fen"]
    )

    # The arbiter takes the last ply back: the bridge clears its entry and counts one less.
    game.command("takeback", board="A")
    await game.publish_to(scene.client)
    _, shorter = game.record()
    assert len(shorter) == len(entries) - 1
    await page.wait_for_function(
        f"document.querySelectorAll('[data-entry]').length === {len(shorter)}"
    )
    fen = json.dumps(shorter[-1]["boards"]["A"]["fen"])
    await page.wait_for_function(
        f"document.querySelector('[data-board=\"A\"]').dataset.fen === {fen}"
    )
    await page.keyboard.press("ArrowLeft")  # from live: the entry before the (new) last
    await assert_shows(page, shorter[-2])
    assert page.errors == []
    await page.close()


def every_kind_of_entry(game: BridgeGame) -> None:
    """Moves, a forced illegal drop and its removal (row 9), a pocket set, a position accepted,
    a link gap set to what the boards showed, a result and its revocation (dsj)."""
    game.play(STEAL_GAME[:10])
    game.illegal_drop("A", "N@e5")  # black has no knight: it stands until taken off
    game.remove_illegal_drop("A")
    game.command("set_pocket", board="B", color="white", pieces="PN")
    placement = chess.BaseBoard(game.bridge.reconstructor.match.board_fen(BoardId.B))
    placement.remove_piece_at(chess.H2)  # a pawn knocked off board B: the arbiter accepts it
    game.accept("B", placement.board_fen())
    game.gap(7, [Ply("B", "Nf6"), Ply("A", "Nc3")])
    game.command("set_result", winner="lions", board="A", reason="resign")
    game.command("revoke_result", reason="wrong board")


KIND_TEXTS = {
    11: ("move", "N@e5"),
    12: ("removal", "board A: illegal drop N@e5 taken off"),
    13: ("pocket_set", "board B: white's pocket set to PN"),
    14: ("accepted", "board B: position accepted by the arbiter"),
    15: ("gap", "link gap 7: boards set to what they showed"),
    16: ("result", "Lions win — board A, resign (1-0)"),
    17: ("result_revoked", "result revoked: wrong board"),
}


async def test_every_kind_of_record_entry_is_shown_in_words_and_reviewable(scene):
    game = scene.game(match_id="r2-t2", preset="dsj")
    every_kind_of_entry(game)
    _, entries = game.record()
    assert {n: entries[n - 1]["kind"] for n in KIND_TEXTS} == {
        n: kind for n, (kind, _) in KIND_TEXTS.items()
    }
    await game.publish_to(scene.client)
    page = await open_match(scene, "r2-t2", len(entries))
    for n, (kind, words) in KIND_TEXTS.items():
        item = page.locator(f'[data-entry="{n}"]')
        assert await item.get_attribute("data-kind") == kind
        assert (await item.inner_text()).endswith(words), n
    assert "forced" in (await page.get_attribute('[data-entry="11"]', "class") or "")
    assert await page.locator(".note").count() == 6  # everything but the moves
    for n in (11, 12, 13, 14, 15, 16):  # the moment of each: what the record says
        await page.click(f'[data-entry="{n}"]')
        await assert_shows(page, entries[n - 1])
    # At the result's moment the result is shown, and how the board ended.
    assert await page.inner_text("[data-result]") == KIND_TEXTS[16][1]
    assert await page.inner_text('[data-banner="A"]') == "resign"
    assert await page.inner_text('[data-banner="B"]') == "game over (board A)"
    await page.click("[data-live]")  # revoked: the game goes on, live again
    await page.wait_for_selector('.match[data-review=""]')
    assert await page.locator("[data-result]").is_hidden()
    assert await page.get_attribute('[data-entry="11"]', "title") == "an illegal move that stood"

    # The arbiter chooses the gap's explanation: the record is rewritten from the gap on, its
    # plies come in as recovered moves (nobody saw them played).
    game.command("choose_recovery", gap=7, candidate=0)
    await game.publish_to(scene.client)
    _, rewritten = game.record()
    recovered = [entry["n"] for entry in rewritten if entry["recovered"]]
    assert recovered == [15, 16]
    await page.wait_for_function("document.querySelectorAll('.mv.recovered').length === 2")
    assert await page.locator("[data-entry]").count() == len(rewritten) == 18
    assert await page.get_attribute('[data-entry="15"]', "title") == (
        "recovered after a link gap: nobody saw it played"
    )
    await page.click('[data-entry="16"]')
    await assert_shows(page, rewritten[15])
    assert await page.inner_text('[data-entry="17"]') == KIND_TEXTS[16][1]
    assert page.errors == []
    await page.close()


async def a_hall_box_with_a_finished_game(scene: Scene, table: int, plies: int | None) -> Any:
    """A hall box from before the pairing (r0) through round 3's game 1, decided, to game 2."""
    game = scene.game(bridge_id=f"table-{table}", match_id=f"r0-t{table}", table=table)
    await scene.hall_round(game, 3, table)
    game.play(plies_of(the_game(plies)))
    if game.bridge.game.result is None:
        game.command("set_result", winner="tigers", board="A", reason="time")
    finished = game.match_id
    game.boards_set_up_again()  # the hall's next game begins by itself
    assert (finished, game.match_id) == (f"r3-t{table}", f"r3-t{table}-g2")
    return game, finished


async def test_a_phone_opens_a_finished_game_from_the_hall_and_steps_through_it(scene):
    scene.new_root()
    game, finished = await a_hall_box_with_a_finished_game(scene, 4, 30)
    _, entries = game.record(finished)
    assert len(entries) == 31  # 30 plies and the result
    await game.publish_to(scene.client)
    async with chromium(**PHONE) as phone_browser:
        phone = await phone_browser.new_page()
        await phone.goto(scene.page_url("hall", "&lang=en"))
        card = phone.locator('[data-table-card="table-4"]')
        await card.wait_for()
        await phone.wait_for_selector(f'[data-game="{finished}"]')
        assert await phone.locator("[data-table-card]").count() == 1  # r0, g1 and g2: one table
        assert await card.get_attribute("data-current") == "r3-t4-g2"
        assert "round 3 · game 2" in await card.inner_text()
        assert "Tigers vs Lions" in await card.locator(f'[data-game="{finished}"]').inner_text()
        await phone.screenshot(path=scene.artefacts / "hall-phone.png", full_page=True)
        await card.locator(f'[data-game="{finished}"]').tap()
        await phone.wait_for_function("document.querySelectorAll('[data-entry]').length === 31")
        assert "Tigers win" in await phone.inner_text("[data-result]")
        for _ in range(4):
            await phone.tap('[data-review-step="previous"]')
        await assert_shows(phone, entries[26])
        await phone.tap('[data-review-step="first"]')
        await phone.wait_for_selector('.match[data-review="0"]')
        await phone.tap('[data-review-step="next"]')
        await assert_shows(phone, entries[0])
        await phone.tap('[data-review-step="last"]')
        await phone.wait_for_selector('.match[data-review=""]')
        assert await phone.locator("[data-live]").is_hidden()  # a finished game
        await phone.tap('[data-entry="12"]')
        await assert_shows(phone, entries[11])
        # The boards fit the phone's width: no sideways scrolling to see board B.
        width = await phone.evaluate("document.documentElement.scrollWidth")
        assert width <= PHONE["viewport"]["width"]
        await phone.wait_for_timeout(300)  # the pieces' animation
        await phone.screenshot(path=scene.artefacts / "review-phone.png", full_page=True)
        print(f"\nphone screenshots: {scene.artefacts}")


TEXTS = {
    lang: json.loads((STATIC_DIR / "i18n" / f"{lang}.json").read_text())
    for lang in ("en", "de", "es")
}
ILLEGAL_DROP = {
    "schema": 1,
    "bridge": "table-1",
    "match": "r3-t1-g2",
    "boot_id": "boot-3",
    "seq": 5,
    "ts": "2026-11-23T10:05:00.000Z",
    "t": 5.0,
    "type": "alert",
    "board": "A",
    "color": "white",
    "code": "pawn_drop_rank",
    "severity": "illegal",
    "rule": "dsj row 3 (3.3)",
    "message": "Board A: white dropped P@h8: pawns may be dropped only on ranks 2-7.",
    "details": {"move": "P@h8"},
}


async def publish_a_finished_hall_game(scene: Scene) -> list[dict[str, Any]]:
    game, finished = await a_hall_box_with_a_finished_game(scene, 1, None)
    await game.publish_to(scene.client)
    return game.record(finished)[1]


def text(lang: str, key: str, **params: Any) -> str:
    return TEXTS[lang][key].format(**params)


@pytest.mark.parametrize("lang", ["en", "de", "es"])
async def test_the_page_the_hall_and_the_console_in_three_languages(scene, lang):
    scene.new_root()
    entries = await publish_a_finished_hall_game(scene)
    page = await open_match(scene, "r3-t1", len(entries), lang=lang)
    assert await page.evaluate("document.documentElement.lang") == lang
    label = await page.inner_text(".board-A .board-label")  # upper case by the style
    assert text(lang, "match.board", board="A").lower() in label.lower()
    result = text(lang, "result.win", team="Tigers")
    assert result in await page.inner_text("[data-result]")
    await page.click('[data-entry="42"]')
    status = await page.inner_text("[data-review-status]")
    assert status.endswith(text(lang, "review.at", what="", n=42, count=len(entries)).strip())
    await page.wait_for_timeout(300)  # the pieces' animation
    await page.screenshot(path=scene.artefacts / f"review-{lang}.png")

    await page.goto(scene.page_url("hall", f"&lang={lang}"))
    card = page.locator('[data-table-card="table-1"]')
    await card.wait_for()
    assert text(lang, "hall.table", table=1) in await card.inner_text()
    await page.wait_for_selector("[data-standings]:not([hidden])")
    assert await page.inner_text("[data-standings] h2") == text(lang, "standings.title")
    assert await page.get_attribute('[data-team="tigers"]', "data-rank") == "1"
    await page.screenshot(path=scene.artefacts / f"hall-{lang}.png", full_page=True)

    await page.goto(scene.page_url("console", f"&lang={lang}"))
    assert await page.inner_text("[data-login] h2") == text(lang, "console.title")
    await page.fill("[name=username]", "arbiter")
    await page.fill("[name=name]", "Eva")
    await page.click("[data-login] button")
    await page.wait_for_selector('[data-connection="connected"]')
    await page.wait_for_timeout(300)  # subscribed
    await scene.client.publish(f"{scene.root}/alerts", json.dumps(ILLEGAL_DROP).encode(), 1)
    alert = page.locator('[data-alert-code="pawn_drop_rank"]')
    await alert.wait_for()
    message = text(lang, "alert.pawn_drop_rank", board="A", side=TEXTS[lang]["side.white"])
    assert await alert.locator(".alert-message").inner_text() == message
    await page.wait_for_selector(".alert-article:not(:empty)")
    assert "Bauern dürfen nur" in await alert.locator(".alert-article").inner_text()
    beside = await alert.locator(".alert-translation").inner_text()
    assert bool(beside) == (lang != "de")  # German is the rule text's own language
    await page.screenshot(path=scene.artefacts / f"console-{lang}.png")
    print(f"\n{lang} screenshots: {scene.artefacts}")
    assert page.errors == []
    await page.close()


async def test_the_language_is_remembered_else_the_browsers(scene):
    scene.new_root()
    page = await scene.browser.new_page()
    await page.goto(scene.page_url("hall", "&lang=de"))
    await page.wait_for_selector('[data-connection="connected"]')
    await page.goto(scene.page_url("hall"))  # no ?lang=: the one chosen before
    await page.wait_for_selector('[data-connection="connected"]')
    assert await page.inner_text("[data-connection]") == TEXTS["de"]["connection.connected"]
    await page.evaluate("localStorage.clear()")
    await page.add_init_script(
        "Object.defineProperty(navigator, 'languages', {get: () => ['es-MX', 'en']})"
    )
    await page.goto(scene.page_url("standings"))
    await page.wait_for_selector('[data-connection="connected"]')
    assert await page.evaluate("document.documentElement.lang") == "es"
    assert await page.inner_text("[data-standings] h2") == TEXTS["es"]["standings.title"]
    await page.close()
