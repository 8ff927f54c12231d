"""The web page in a real browser: a game played on emulated boards through the daemon and a real
mosquitto with a WebSocket listener and an ACL (viewers read, the arbiter may ask the bridge).

- the broadcast page shows the bridge's state after every move (position and all four pockets);
- a page opened late shows the right position at once (retained state);
- the hall view shows the table; viewer pages have no controls, and the broker refuses viewers;
- an alert appears in the arbiter console with only the actions that apply to it (a press
  without a move: resync), a takeback sent from the console's form reaches the bridge, its
  answer is shown, and the broadcast page changes;
- a wrong password is refused with a message.

Screenshots of the three views go to an artefacts folder printed by the test.
"""

from __future__ import annotations

import asyncio
import json
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import aiomqtt
import pytest
from e2e_harness import Subscriber, running_daemon, settings_overrides, the_game, unique_id

from browser_harness import RECORDER, browser_missing, chromium, distinct_runs, shown, web_server
from browser_harness import artefacts as artefact_folder
from bughouse_bridge.emulator.actions import PressClock, TimedAction
from private_mosquitto import MOSQUITTO, MOSQUITTO_PASSWD, Mosquitto

if TYPE_CHECKING:
    from pathlib import Path

pytestmark = [pytest.mark.pty, pytest.mark.slow, pytest.mark.timeout(240)]

HALF_MOVES = 24  # enough for captures, drops and full pockets on both boards (game 1934301)
# What could act on a game; a viewer page has only the review buttons and the language menu.
CONTROLS = (
    "form, input, textarea, select:not([data-lang]),"
    " button:not([data-review-step]):not([data-live])"
)


def acl(root: str) -> str:
    # Lines before any `user` apply to anonymous clients: the spectators.
    return (
        f"topic read {root}/#\n\n"
        f"user bridge\ntopic readwrite {root}/#\n\n"
        f"user arbiter\ntopic read {root}/#\ntopic write {root}/bridge/+/request/#\n"
        f"topic write {root}/ack/#\n"
    )


@pytest.fixture
def broker(tmp_path: Path) -> Any:
    if not MOSQUITTO.exists() or not MOSQUITTO_PASSWD.exists():
        pytest.skip("mosquitto is not installed")
    reason = browser_missing()
    if reason:
        pytest.skip(reason)
    root = f"test/{unique_id('web')}"
    server = Mosquitto(
        tmp_path,
        websockets=True,
        users={"bridge": "bridge-secret", "arbiter": "arbiter-secret"},
        acl=acl(root),
    )
    server.root = root  # type: ignore[attr-defined]
    server.start()
    yield server
    server.stop()


@pytest.fixture
def artefacts() -> Path:
    folder = artefact_folder("bughouse-web-artefacts-")
    print(f"\nweb test artefacts (screenshots): {folder}")
    return folder


def states(sub: Subscriber) -> list[dict[str, Any]]:
    return [m.json() for m in sub.on("/state")]


def expected_runs(all_states: list[dict[str, Any]]) -> dict[str, list[str]]:
    """What the page must have shown, element by element: the bridge's state after every event."""
    series: dict[str, list[str]] = {}
    for state in all_states:
        for board in ("A", "B"):
            series.setdefault(board, []).append(state["boards"][board]["fen"])
            for color in ("white", "black"):
                series.setdefault(f"{board}-{color}", []).append(state["pockets"][board][color])
    return {key: distinct_runs(values) for key, values in series.items()}


def shown_runs(records: list[tuple[str, str]]) -> dict[str, list[str]]:
    series: dict[str, list[str]] = {}
    for key, value in records:
        series.setdefault(key, []).append(value)
    return {key: distinct_runs(values) for key, values in series.items()}


async def page_at(context: Any, url: str, *, record: bool = False) -> Any:
    page = await context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.errors = errors
    if record:
        await page.add_init_script(RECORDER)
    await page.goto(url)
    return page


async def fen_of(page: Any, board: str) -> str:
    return str(await page.get_attribute(f'[data-board="{board}"]', "data-fen"))


async def wait_for_picture(page: Any, state: dict[str, Any], scope: str = "") -> None:
    """Until the page shows this snapshot's positions and pockets."""
    for board in ("A", "B"):
        fen = json.dumps(state["boards"][board]["fen"])
        await page.wait_for_selector(
            f'{scope} [data-board="{board}"][data-fen={fen}]', timeout=15000
        )
        for color in ("white", "black"):
            letters = json.dumps(state["pockets"][board][color])
            await page.wait_for_selector(
                f'{scope} [data-pocket="{board}-{color}"][data-letters={letters}]',
                state="attached",
                timeout=15000,
            )


@dataclass
class Scene:
    """What every step of the test works with."""

    root: str
    match: str
    bridge: str
    url: str  # the web server's
    sub: Subscriber
    browser: Any
    table: Any
    artefacts: Path

    def moves(self) -> list[dict[str, Any]]:
        return [e for e in self.sub.events() if e["type"] == "move"]

    def final(self) -> dict[str, Any]:
        return states(self.sub)[-1]


async def test_broadcast_hall_and_console_follow_the_bridge(tmp_path, broker, table, artefacts):
    match, bridge = unique_id("match"), unique_id("bridge")
    overrides = settings_overrides(
        workdir=tmp_path,
        port=broker.port,
        root=broker.root,
        bridge=bridge,
        match=match,
        links=table.links,
    )
    password = tmp_path / "bridge.password"
    password.write_text("bridge-secret\n")
    overrides |= {"mqtt.username": "bridge", "mqtt.password_file": str(password)}
    topics = [f"{broker.root}/match/{match}/#", f"{broker.root}/bridge/{bridge}/response/#"]
    with web_server(broker.ws_port, broker.root) as web:
        async with (
            Subscriber(broker.port, topics) as sub,
            running_daemon(overrides),
            chromium(tmp_path / "profile") as browser,
        ):
            scene = Scene(broker.root, match, bridge, web.url, sub, browser, table, artefacts)
            await table.wait_for_host()
            viewer = await every_state_is_shown(scene)
            late = await late_joiner_sees_it_at_once(scene)
            hall = await hall_shows_the_table(scene)
            await viewer_requests_are_refused(scene, broker.port)
            await wrong_password_is_refused(scene)
            console = await console_takeback_reaches_the_page(scene, viewer)
            for page in (viewer, late, hall, console):
                assert page.errors == []


async def every_state_is_shown(scene: Scene) -> Any:
    """Every position and every pocket the bridge published, in order, on the page."""
    viewer = await page_at(scene.browser, f"{scene.url}#/match/{scene.match}", record=True)
    await viewer.wait_for_selector('[data-connection="connected"]')
    plan = scene.table.plan(the_game(HALF_MOVES))
    scene.table.start(plan)
    await scene.table.finished(plan)
    await scene.sub.wait_for(lambda: len(scene.moves()) >= HALF_MOVES, 30, "every move")
    await asyncio.sleep(1.0)  # the last states
    await wait_for_picture(viewer, scene.final())
    seen = shown_runs(await shown(viewer))
    for key, runs in expected_runs(states(scene.sub)).items():
        assert seen.get(key) == runs, key
    assert any("@" in e["uci"] for e in scene.moves()), "the cut has drops"
    assert await viewer.locator(CONTROLS).count() == 0
    return viewer


async def late_joiner_sees_it_at_once(scene: Scene) -> Any:
    """The retained state and BPGN: right position, pockets and move list in BPGN order."""
    late = await page_at(scene.browser, f"{scene.url}#/match/{scene.match}")
    await wait_for_picture(late, scene.final())
    await late.wait_for_function(f"document.querySelectorAll('.mv').length === {HALF_MOVES}")
    labels = await late.eval_on_selector_all(".mv .label", "els => els.map(e => e.textContent)")
    bpgn = scene.sub.last("/bpgn")
    assert bpgn is not None
    body = re.sub(r"\{[^}]*\}|\[[^\]]*\]", " ", bpgn.payload.decode())
    assert labels == re.findall(r"\d+[AaBb]\.", body)  # the bridge's BPGN, in its order
    assert await late.locator(CONTROLS).count() == 0
    await late.wait_for_timeout(300)  # piece animation
    await late.screenshot(path=scene.artefacts / "broadcast.png")
    return late


async def hall_shows_the_table(scene: Scene) -> Any:
    hall = await page_at(scene.browser, f"{scene.url}#/hall")
    await wait_for_picture(hall, scene.final(), scope=f'[data-table="{scene.match}"]')
    assert await hall.locator(CONTROLS).count() == 0
    href = await hall.get_attribute(f'[data-table="{scene.match}"]', "href")
    assert href is not None
    assert href.endswith(f"#/match/{scene.match}")
    await hall.screenshot(path=scene.artefacts / "hall.png")
    return hall


async def viewer_requests_are_refused(scene: Scene, port: int) -> None:
    """The broker's ACL drops an anonymous request: the bridge never answers it."""
    async with aiomqtt.Client("127.0.0.1", port) as anonymous:
        topic = f"{scene.root}/bridge/{scene.bridge}/request/status"
        await anonymous.publish(topic, b'{"transaction": "viewer"}', qos=1)
    await asyncio.sleep(1.5)
    assert not scene.sub.on("/response/status")


async def wrong_password_is_refused(scene: Scene) -> None:
    page = await page_at(scene.browser, f"{scene.url}#/console")
    await log_in(page, "not-the-password")
    await page.wait_for_selector("[data-login-error]:not(:empty)", timeout=15000)
    assert await page.locator("[data-console]").count() == 0
    await page.close()


async def log_in(page: Any, password: str) -> None:
    await page.fill("[name=username]", "arbiter")
    await page.fill("[name=password]", password)
    await page.click("[data-login] button")


async def console_takeback_reaches_the_page(scene: Scene, viewer: Any) -> Any:
    console = await page_at(scene.browser, f"{scene.url}#/console")
    await log_in(console, "arbiter-secret")
    await console.wait_for_selector("[data-console]")
    await asyncio.sleep(0.5)  # subscribed

    # A lever press without a move on board A: clock_without_move.
    runner = scene.table.runners["A"]
    runner.play([TimedAction(runner.now() + 0.1, 0, "A", PressClock())])
    alert = console.locator('[data-alert-code="clock_without_move"]').first
    await alert.wait_for(timeout=20000)
    await console.screenshot(path=scene.artefacts / "console.png")

    assert await alert.locator('[data-action="takeback"]').count() == 0  # not what a press needs
    assert await alert.locator('[data-action="resync"]').count() == 1
    ply_before = scene.final()["boards"]["A"]["ply"]
    await console.select_option('[data-manual] [data-field="bridge"]', scene.bridge)
    await console.select_option('[data-manual] [data-field="verb"]', "takeback")
    await console.select_option('[data-manual] select[name="board"]', "A")
    await console.click("[data-manual] button[type=submit]")
    await console.wait_for_selector("[data-confirm]:not([hidden])")
    assert not scene.sub.on("/response/takeback"), "nothing is sent before it is confirmed"
    await console.click("[data-confirm-yes]")
    await console.wait_for_selector('[data-responses] li[data-ok="true"]', timeout=15000)
    answer = console.locator('[data-responses] li[data-verb="takeback"]').first
    assert f'"ply":{ply_before - 1}' in await answer.inner_text()

    await scene.sub.wait_for(
        lambda: any(e["type"] == "takeback" for e in scene.sub.events()), 15, "the takeback"
    )
    await asyncio.sleep(0.5)
    after = scene.final()
    assert after["boards"]["A"]["ply"] == ply_before - 1
    await wait_for_picture(viewer, after)
    await console.screenshot(path=scene.artefacts / "console-answered.png")
    return console
