"""The web page in a real browser: a game played on emulated boards through the daemon and a real
mosquitto with a WebSocket listener and an ACL (viewers read, the arbiter may ask the bridge).

- the broadcast page shows the bridge's state after every move (position and all four pockets);
- a page opened late shows the right position at once (retained state);
- the hall view shows the table; viewer pages have no controls, and the broker refuses viewers;
- an alert appears in the arbiter console, a takeback from the console reaches the bridge, its
  answer is shown, and the broadcast page changes;
- a wrong password is refused with a message.

Screenshots of the three views go to an artefacts folder printed by the test.
"""

from __future__ import annotations

import asyncio
import json
import re
import tempfile
from pathlib import Path
from typing import Any

import aiomqtt
import pytest
from browser_harness import RECORDER, browser_missing, chromium, distinct_runs, shown, web_server
from e2e_harness import Subscriber, running_daemon, settings_overrides, the_game, unique_id

from bughouse_bridge.emulator.scenario import PressClock, TimedAction
from private_mosquitto import MOSQUITTO, MOSQUITTO_PASSWD, Mosquitto

pytestmark = [pytest.mark.pty, pytest.mark.slow, pytest.mark.timeout(240)]

HALF_MOVES = 24  # enough for captures, drops and full pockets on both boards (game 1934301)
CONTROLS = "button, input, select, textarea, form"


def acl(root: str) -> str:
    # Lines before any `user` apply to anonymous clients: the spectators.
    return (
        f"topic read {root}/#\n\n"
        f"user bridge\ntopic readwrite {root}/#\n\n"
        f"user arbiter\ntopic read {root}/#\ntopic write {root}/bridge/+/request/#\n"
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
    folder = Path(tempfile.mkdtemp(prefix="bughouse-web-artefacts-"))
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
        await page.wait_for_selector(f'{scope} [data-board="{board}"][data-fen={fen}]', timeout=15000)
        for color in ("white", "black"):
            letters = json.dumps(state["pockets"][board][color])
            await page.wait_for_selector(
                f'{scope} [data-pocket="{board}-{color}"][data-letters={letters}]',
                state="attached",
                timeout=15000,
            )


async def test_broadcast_hall_and_console_follow_the_bridge(tmp_path, broker, table, artefacts):
    root = broker.root
    match = unique_id("match")
    bridge = unique_id("bridge")
    overrides = settings_overrides(
        workdir=tmp_path, port=broker.port, root=root, bridge=bridge, match=match, links=table.links
    )
    password = tmp_path / "bridge.password"
    password.write_text("bridge-secret\n")
    overrides |= {"mqtt.username": "bridge", "mqtt.password_file": str(password)}
    base = f"{root}/match/{match}"
    with web_server(broker.ws_port, root) as web:
        async with (
            Subscriber(broker.port, [f"{base}/#", f"{root}/bridge/{bridge}/response/#"]) as sub,
            running_daemon(overrides),
            chromium(tmp_path / "profile") as browser,
        ):
            await table.wait_for_host()
            viewer = await page_at(browser, f"{web.url}#/match/{match}", record=True)
            await viewer.wait_for_selector('[data-connection="connected"]')

            plan = table.plan(the_game(HALF_MOVES))
            table.start(plan)
            await table.finished(plan)
            moves = lambda: [e for e in sub.events() if e["type"] == "move"]  # noqa: E731
            await sub.wait_for(lambda: len(moves()) >= HALF_MOVES, 30, "every move")
            await asyncio.sleep(1.0)  # the last states
            final = states(sub)[-1]
            await wait_for_picture(viewer, final)

            # 1. Every position and every pocket the bridge published, in order, on the page.
            expected = expected_runs(states(sub))
            seen = shown_runs(await shown(viewer))
            for key, runs in expected.items():
                assert seen.get(key) == runs, key
            assert any(e["uci"].find("@") > 0 for e in moves()), "the cut has drops"
            assert await viewer.locator(CONTROLS).count() == 0

            # 2. A late joiner sees the same at once, with the move list in BPGN order.
            late = await page_at(browser, f"{web.url}#/match/{match}")
            await wait_for_picture(late, final)
            await late.wait_for_function(f"document.querySelectorAll('.mv').length === {HALF_MOVES}")
            labels = await late.eval_on_selector_all(".mv .label", "els => els.map(e => e.textContent)")
            bpgn = sub.last("/bpgn")
            assert bpgn is not None
            body = re.sub(r"\{[^}]*\}|\[[^\]]*\]", " ", bpgn.payload.decode())
            assert labels == re.findall(r"\d+[AaBb]\.", body)  # the bridge's BPGN, in its order
            assert await late.locator(CONTROLS).count() == 0
            await late.wait_for_timeout(300)  # piece animation
            await late.screenshot(path=artefacts / "broadcast.png")

            # 3. The hall: the table as a small double board, a link to its broadcast.
            hall = await page_at(browser, f"{web.url}#/hall")
            await wait_for_picture(hall, final, scope=f'[data-table="{match}"]')
            assert await hall.locator(CONTROLS).count() == 0
            href = await hall.get_attribute(f'[data-table="{match}"]', "href")
            assert href is not None
            assert href.endswith(f"#/match/{match}")
            await hall.screenshot(path=artefacts / "hall.png")

            # 4. The broker refuses a viewer's request: the bridge never answers it.
            async with aiomqtt.Client("127.0.0.1", broker.port) as anonymous:
                await anonymous.publish(
                    f"{root}/bridge/{bridge}/request/status", b'{"transaction": "viewer"}', qos=1
                )
            await asyncio.sleep(1.5)
            assert not sub.on("/response/status")

            # 5. Arbiter: wrong password refused; right one logs in; an alert; a takeback.
            wrong = await page_at(browser, f"{web.url}#/console")
            await wrong.fill("[name=username]", "arbiter")
            await wrong.fill("[name=password]", "not-the-password")
            await wrong.click("[data-login] button")
            await wrong.wait_for_selector("[data-login-error]:not(:empty)", timeout=15000)
            await wrong.close()

            console = await page_at(browser, f"{web.url}#/console")
            await console.fill("[name=username]", "arbiter")
            await console.fill("[name=password]", "arbiter-secret")
            await console.click("[data-login] button")
            await console.wait_for_selector("[data-console]")
            await asyncio.sleep(0.5)  # subscribed

            # A lever press without a move on board A: clock_without_move.
            runner = table.runners["A"]
            runner.play([TimedAction(runner.now() + 0.1, 0, "A", PressClock())])
            alert = console.locator('[data-alert-code="clock_without_move"]').first
            await alert.wait_for(timeout=20000)
            await console.screenshot(path=artefacts / "console.png")

            ply_before = final["boards"]["A"]["ply"]
            await alert.locator('[data-action="takeback"]').click()
            await console.wait_for_selector("[data-confirm]:not([hidden])")
            await console.click("[data-confirm-yes]")
            answer = console.locator('[data-responses] li[data-verb="takeback"]').first
            await console.wait_for_selector('[data-responses] li[data-ok="true"]', timeout=15000)
            assert "ply" in await answer.inner_text()

            await sub.wait_for(
                lambda: any(e["type"] == "takeback" for e in sub.events()), 15, "the takeback"
            )
            await asyncio.sleep(0.5)
            after = states(sub)[-1]
            assert after["boards"]["A"]["ply"] == ply_before - 1
            await wait_for_picture(viewer, after)
            assert await fen_of(viewer, "A") == after["boards"]["A"]["fen"]
            await console.screenshot(path=artefacts / "console-answered.png")

            for page in (viewer, late, hall, console):
                assert page.errors == []
