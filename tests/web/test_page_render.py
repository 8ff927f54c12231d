"""What the broadcast page draws for hand-made contract payloads (§3, §4; their shape is kept
true to the real bridge's by ``test_payload_shapes``), through the embedded broker's WebSocket
listener (the single-box and demo setup): names, clocks counting down, check / mate-pending /
flag / result banners, drop and steal marks, the move list, the OBS and phone layouts. The
console's gap alerts are drawn the same way in ``test_console_gaps`` (``page_scene``).
"""

from __future__ import annotations

import asyncio
import contextlib
import copy
import json
from typing import TYPE_CHECKING, Any

import aiomqtt
import pytest

from browser_harness import artefacts, browser_missing, chromium, web_server
from bughouse_bridge.drivers.broker import EmbeddedBroker
from private_mosquitto import free_port

if TYPE_CHECKING:
    from collections.abc import AsyncIterator

pytestmark = [pytest.mark.timeout(120)]

ROOT = "bughouse/v1"
MATCH = "round-1-table-1"
START = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR"
STATE: dict[str, Any] = {
    "schema": 1,
    "bridge": "box-1",
    "match": MATCH,
    "boot_id": "boot-1",
    "ts": "2026-11-23T10:00:00.000Z",
    "t": 12.0,
    "type": "state",
    "rules": {
        "preset": "dsj",
        "overrides": {},
        "overridden_rows": [],
        "informational": {"draws": "agreement_only", "pocket_visibility": "open"},
    },
    "teams": [
        {"id": "lions", "name": "Lions", "seats": ["white_a", "black_b"]},
        {"id": "tigers", "name": "Tigers", "seats": ["black_a", "white_b"]},
    ],
    "players": {"white_a": "Anna", "black_a": "Ben", "white_b": "Cleo", "black_b": "Dan"},
    "boards": {
        "A": {
            "fen": "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR[] w KQkq - 0 2",
            "turn": "white",
            "ply": 2,
            "last_move": "e7e5",
            "status": "playing",
            "clock": {"white_ms": 290000, "black_ms": 295000, "running": "white"},
            "link": "connected",
            "uncertain": False,
        },
        "B": {
            "fen": f"{START}[] w KQkq - 0 1",
            "turn": "white",
            "ply": 0,
            "last_move": None,
            "status": "playing",
            "clock": {"white_ms": 300000, "black_ms": 300000, "running": None},
            "link": "connected",
            "uncertain": False,
        },
    },
    "pockets": {"A": {"white": "", "black": ""}, "B": {"white": "", "black": "PN"}},
    "result": None,
    "claims": [],
    "last_seq": 9,
}

# An illegal move the opponent claimed (DSJ 3.2); ``test_payload_shapes`` keeps its shape true.
ALERT: dict[str, Any] = {
    **{k: STATE[k] for k in ("schema", "bridge", "match", "boot_id", "ts", "t")},
    "seq": 42,
    "type": "alert",
    "board": "A",
    "color": "white",
    "code": "illegal_move",
    "severity": "illegal",
    "rule": "dsj row 2 (3.2)",
    "message": "Board A: white's Bb5 is illegal.",
    "details": {"claim": {"board": "A", "color": "black", "claim": "illegal_move"}, "move": "f1b5"},
}


def with_changes(**boards: dict[str, Any]) -> dict[str, Any]:
    state = copy.deepcopy(STATE)
    for board, changes in boards.items():
        state["boards"][board].update(changes)
    return state


@contextlib.asynccontextmanager
async def page_scene() -> AsyncIterator[tuple[Any, aiomqtt.Client, str]]:
    """A browser, a client of the embedded broker and the page's address (skips without a
    browser); ``scene`` here, and in the modules that draw more payloads the same way."""
    reason = browser_missing()
    if reason:
        pytest.skip(reason)
    port, ws_port = free_port(), free_port()
    async with (
        EmbeddedBroker(port=port, ws_port=ws_port),
        aiomqtt.Client("127.0.0.1", port) as client,
        chromium() as browser,
    ):
        with web_server(ws_port, ROOT) as web:
            yield browser, client, web.url


@pytest.fixture
async def scene() -> AsyncIterator[tuple[Any, aiomqtt.Client, str]]:
    async with page_scene() as made:
        yield made


async def publish(client: aiomqtt.Client, kind: str, payload: Any) -> None:
    body = payload if isinstance(payload, str) else json.dumps(payload)
    retain = kind in {"state", "bpgn"}
    await client.publish(f"{ROOT}/match/{MATCH}/{kind}", body.encode(), qos=1, retain=retain)


async def text(page: Any, selector: str) -> str:
    return str(await page.locator(selector).inner_text())


async def test_names_clocks_banners_and_marks(scene):
    browser, client, url = scene
    await publish(client, "state", STATE)
    await publish(client, "bpgn", "1A. e4{299} 1B. d4{299} 1a. e5{295}")
    page = await browser.new_page()
    await page.goto(f"{url}#/match/{MATCH}")
    await page.wait_for_selector('[data-board="A"][data-fen*="4p3"]')

    # Names, teams, pockets with counts.
    assert await text(page, '[data-name="A-white"]') == "Anna"
    assert await text(page, '[data-name="B-black"]') == "Dan"
    assert "Lions" in await text(page, ".match-title")
    assert await page.get_attribute('[data-pocket="B-black"]', "data-letters") == "PN"
    counts = await page.eval_on_selector_all(
        '[data-pocket="B-black"] .pocket-piece', "els => els.map(e => e.dataset.count)"
    )
    assert counts == ["1", "1", "0", "0", "0"]  # fixed slots P N B R Q

    # The running clock counts down between messages; the stopped ones do not.
    first = await text(page, '[data-clock="A-white"]')
    await page.wait_for_timeout(1300)
    assert await text(page, '[data-clock="A-white"]') != first
    assert await text(page, '[data-clock="A-black"]') == "4:55"
    clock = {"type": "clock", "board": "B", "white_ms": 5000, "black_ms": 300000}
    await publish(client, "clock", {**clock, "running": "white"})
    await page.wait_for_selector('[data-clock="B-white"].running.low')

    # Check comes from the last SAN; mate pending from the board's status.
    await publish(client, "bpgn", "1A. e4 1B. d4 1a. e5 2A. Bb5 2a. c6 3A. Bxc6+")
    await page.wait_for_selector('[data-banner="A"]:not([hidden])')
    assert await text(page, '[data-banner="A"]') == "black in check"
    await publish(client, "state", with_changes(B={"status": "mate_pending"}))
    await page.wait_for_selector('[data-banner="B"][data-kind="mate-pending"]:not([hidden])')

    # A drop is circled on its square; a steal on the square it came from, on the other board.
    drop = with_changes(A={"last_move": "N@f3", "fen": STATE["boards"]["A"]["fen"]})
    await publish(client, "state", drop)
    await page.wait_for_selector(".board-A.last-drop")
    steal = {
        "type": "move",
        "boot_id": "boot-1",
        "seq": 10,
        "board": "A",
        "steal": {"board": "B", "square": "d1", "piece": "Q"},
    }
    await publish(client, "events", steal)
    await publish(client, "state", drop)
    await page.wait_for_function("document.querySelectorAll('.board-B svg circle').length > 0")
    await publish(client, "bpgn", "1A. e4 1a. e5 2A. N@f3 1B. d4 1b. b8=Q(d1)")
    await page.wait_for_selector(".mv.drop")
    await page.wait_for_selector(".mv.steal")

    # A flag, then the result.
    flag = {"type": "flag", "boot_id": "boot-1", "seq": 11, "board": "B", "color": "white"}
    await publish(client, "events", flag)
    await page.wait_for_selector('[data-banner="B"][data-kind="flag"]')
    result = {"winner": "tigers", "board": "B", "reason": "flag", "bpgn_result": "0-1"}
    await publish(client, "state", {**with_changes(B={"status": "finished"}), "result": result})
    await page.wait_for_selector("[data-result]:not([hidden])")
    assert await text(page, "[data-result]") == "Tigers win — board B, flag (0-1)"
    await page.close()


async def test_obs_and_phone_layouts(scene):
    browser, client, url = scene
    await publish(client, "state", STATE)
    obs = await browser.new_page()
    await obs.goto(f"{url}?transparent=1#/match/{MATCH}")
    await obs.wait_for_selector('[data-board="A"][data-fen*="4p3"]')
    background = await obs.evaluate("getComputedStyle(document.body).backgroundColor")
    assert background == "rgba(0, 0, 0, 0)"
    assert not await obs.locator(".topbar").is_visible()

    phone = await browser.new_page()
    await phone.set_viewport_size({"width": 390, "height": 844})
    await phone.goto(f"{url}#/match/{MATCH}")
    await phone.wait_for_selector('[data-board="B"][data-fen]')
    await asyncio.sleep(0.2)
    box_a = await phone.locator(".board-A").bounding_box()
    box_b = await phone.locator(".board-B").bounding_box()
    assert box_a is not None
    assert box_b is not None
    assert box_b["y"] >= box_a["y"] + box_a["height"]  # stacked, not squeezed side by side
    assert box_a["width"] <= 390
    folder = artefacts("bughouse-web-phone-")
    await phone.screenshot(path=folder / "phone.png", full_page=True)
    print(f"\nphone screenshot: {folder / 'phone.png'}")


async def test_console_sends_the_alerts_claim_and_shows_the_answer(scene):
    """The verbs other engineers add (confirm_claim, choose_recovery) need nothing from the page
    but the alert's details: the request carries them, and the bridge's answer is shown."""
    browser, client, url = scene
    await publish(client, "state", STATE)
    await client.subscribe(f"{ROOT}/bridge/+/request/#", qos=1)
    console = await _console(browser, url)
    claim = ALERT["details"]["claim"]
    for _ in range(2):  # a QoS 1 repeat shows once
        await client.publish(f"{ROOT}/alerts", json.dumps(ALERT).encode(), qos=1)
    item = console.locator('[data-alert-code="illegal_move"]')
    await item.wait_for()
    await asyncio.sleep(0.3)
    assert await item.count() == 1
    await console.wait_for_selector(".alert-article:not(:empty)")  # the article's own words
    shown = await item.inner_text()
    assert "drop giving mate — DSJ Tandemschach-Regeln, article 3.2" in shown
    assert "nicht aber mit Matt" in shown  # the rule text's own words, German
    assert "but not with mate" in shown  # and their translation beside them
    assert "Board A: white made an illegal move." in shown  # from the code, not the payload
    assert "move f1b5" in shown
    actions = await item.locator("[data-action]").evaluate_all(
        "els => els.map(e => e.dataset.action)"
    )
    assert actions == ["ack", "confirm_claim", "takeback", "accept", "resync"]  # only these apply

    await item.locator('[data-action="confirm_claim"]').click()
    assert "confirm_claim" in await text(console, "[data-confirm-text]")
    await console.click("[data-confirm-yes]")
    async with asyncio.timeout(10):
        request = await anext(aiter(client.messages))
    assert str(request.topic) == f"{ROOT}/bridge/box-1/request/confirm_claim"
    body = json.loads(bytes(request.payload))  # type: ignore[arg-type]
    assert body == {**claim, "transaction": body["transaction"]}
    assert body["transaction"].startswith("web-")

    answer = {"transaction": body["transaction"], "ok": False, "error": "no such claim open."}
    topic = f"{ROOT}/bridge/box-1/response/confirm_claim"
    await client.publish(topic, json.dumps(answer).encode(), qos=1)
    await console.wait_for_selector('[data-responses] li[data-ok="false"]')
    assert "refused: no such claim open." in await text(console, "[data-responses] li")

    folder = artefacts("bughouse-web-console-")
    await console.screenshot(path=folder / "console.png")
    print(f"\nconsole screenshot: {folder / 'console.png'}")
    await item.locator('[data-action="ack"]').click()
    await console.wait_for_selector('[data-alert-code="illegal_move"][data-acknowledged]')
    assert "acknowledged by arbiter" in await item.inner_text()


async def test_hall_orders_tables_and_survives_bad_payloads(scene):
    browser, client, url = scene
    hall = await browser.new_page()
    warnings: list[str] = []
    hall.on("console", lambda message: warnings.append(message.text))
    await hall.goto(f"{url}#/hall")
    await hall.wait_for_selector('[data-connection="connected"]')
    await client.publish(f"{ROOT}/match/r1-t2/state", b"{not json", qos=1)
    for match in ("r1-t10", "r1-t2", "r1-t1"):
        state = {**STATE, "match": match, "bridge": f"box-{match[4:]}"}  # one box a table
        await client.publish(f"{ROOT}/match/{match}/state", json.dumps(state).encode(), qos=1)
    await client.publish(f"{ROOT}/hall/round", json.dumps({"round": 1}).encode(), qos=1)
    await hall.wait_for_function("document.querySelectorAll('[data-table]').length === 3")
    order = await hall.eval_on_selector_all("[data-table]", "els => els.map(e => e.dataset.table)")
    assert order == ["r1-t1", "r1-t2", "r1-t10"]
    await hall.wait_for_selector("[data-round]:not([hidden])")
    assert await text(hall, "[data-round]") == "round 1"
    assert any("not JSON" in warning for warning in warnings)


async def _console(browser: Any, url: str) -> Any:
    """The arbiter console, logged in and subscribed."""
    console = await browser.new_page()
    await console.goto(f"{url}#/console")
    await console.fill("[name=username]", "arbiter")
    await console.click("[data-login] button")
    await console.wait_for_selector("[data-console]")
    await asyncio.sleep(0.3)  # subscribed
    return console
