"""The hall view and the arbiter consoles in the real browser on a hall broker from ``hall init``.

- a hall run of two rounds at one table (a box daemon, emulated boards on ptys, the round files
  published with ``hall round``): the hall view shows ONE card for the table — its current match
  with round and game, the finished games of both rounds under it, nothing for the pre-pairing
  match — and standings after two rounds that equal ``hall results``' standings.json;
- two arbiters' consoles: an alert acknowledged in one is shown acknowledged (by whom) in the
  other; the filter by table; an illegal alert vibrates when the arbiter switched it on.

The first test uses the real bridge throughout (states, the record topics, the games index,
BPGN and the hall topics), and a spectator's phone opens a finished game from the hall view and
steps through it.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import shutil
from typing import TYPE_CHECKING, Any

import pytest
from hall_harness import Hall, Recorder
from scholars import scholars_mate
from test_hall_e2e import box, play, wait_for_file_rows

from browser_harness import PHONE, artefacts, browser_missing, chromium, web_server
from bughouse_bridge.daemon.hall_mqtt import HallConnection
from bughouse_bridge.daemon.hall_results import ResultsCollector, run_collector
from bughouse_bridge.daemon.hall_round import publish_round
from e2e.e2e_harness import Table
from private_mosquitto import MOSQUITTO

if TYPE_CHECKING:
    from pathlib import Path

    from bughouse_bridge.emulator.game import GamePlan

pytestmark = [
    pytest.mark.timeout(240),
    pytest.mark.skipif(not MOSQUITTO.exists(), reason="mosquitto is not installed"),
    pytest.mark.skipif(shutil.which("openssl") is None, reason="openssl is not installed"),
]

ROUNDS = {
    1: """round = 1
[[tables]]
table = 1
first = { name = "Lions", black_a = "Anna", white_b = "Ben" }
second = { name = "Tigers", white_a = "Carl", black_b = "Dora" }
""",
    2: """round,table,team,white_a,black_a,white_b,black_b
2,1,Tigers,,Carl,Dora,
2,1,Lions,Anna,,,Ben
""",
}


@pytest.fixture
def browser_needed() -> None:
    reason = browser_missing()
    if reason:
        pytest.skip(reason)


def artefact_folder() -> Path:
    folder = artefacts("bughouse-hall-web-")
    print(f"\nhall web artefacts (screenshots): {folder}")
    return folder


async def standings_on(page: Any) -> list[dict[str, Any]]:
    """The team table as the page shows it, numbers as computed (data-value)."""
    return await page.eval_on_selector_all(
        "[data-standings-table] tbody tr",
        """rows => rows.map((row) => ({
            rank: Number(row.dataset.rank), team: row.dataset.team,
            values: Object.fromEntries([...row.querySelectorAll('[data-value]')].map(
                (cell) => [cell.dataset.col, Number(cell.dataset.value)])),
        }))""",
    )


def standings_in(report: dict[str, Any]) -> list[dict[str, Any]]:
    columns = ("played", "won", "drawn", "lost", "match_points", "game_points")
    return [
        {
            "rank": row["rank"],
            "team": row["team"],
            "values": {c: row[c] for c in columns}
            | {k: v for k, v in row["tiebreaks"].items() if k != "game_points"},
        }
        for row in report["table"]
    ]


@pytest.mark.pty
@pytest.mark.slow
async def test_hall_view_one_card_per_table_and_standings_after_two_rounds(
    tmp_path, hall_home, browser_needed
):
    hall = Hall.create(hall_home / "hall", tables=1)
    hall.start()
    table = Table(tmp_path, seed=3)
    out = tmp_path / "results"
    collector = ResultsCollector(out)
    folder = artefact_folder()
    try:
        with web_server(hall.plan.ws_port, hall.plan.root) as web:
            async with (
                Recorder(
                    hall.client("arbiter"),
                    [hall.topic("match/+/state"), hall.topic("match/r1-t1/record/+")],
                ) as states,
                box(hall, 1, table, tmp_path / "box-1"),
                chromium(tmp_path / "profile") as browser,
            ):
                service = asyncio.create_task(
                    run_collector(HallConnection.from_hall(hall.directory), collector, until=None)
                )
                view = await browser.new_page()
                await view.goto(f"{web.url}?lang=en#/hall")
                await table.wait_for_host()
                await view.wait_for_selector('[data-table-card="table-1"][data-current="r0-t1"]')
                plan: GamePlan | None = None
                for number in (1, 2):
                    await publish_round_file(hall, tmp_path, number)
                    if number == 1:
                        await states.wait_for(lambda: taken(states, "r1-t1"), 20, "round 1")
                    plan = play(table, scholars_mate(), seed=10 + number, after=plan)
                    await table.finished(plan)
                    await wait_for_file_rows(out / f"round-{number}.csv", 1)
                await wait_for_standings(out, rounds=2)
                await check_the_hall_view(view, out, folder)
                await check_a_phone_opens_a_finished_game(web.url, states, tmp_path, folder)
                service.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await service
    finally:
        table.close()
        hall.stop()


async def publish_round_file(hall: Hall, folder: Path, number: int) -> None:
    """``hall round`` as the arbiter runs it: also every round and the scoring, retained."""
    path = folder / f"round-{number}.{'toml' if number == 1 else 'csv'}"
    path.write_text(ROUNDS[number])
    args = argparse.Namespace(file=path, hall=hall.directory, host=None, port=None)
    assert await publish_round(args) == 0


def taken(states: Recorder, match: str) -> bool:
    return any(f"/{match}/" in topic for topic, _ in states.messages)


async def wait_for_standings(out: Path, *, rounds: int) -> None:
    def complete() -> bool:
        path = out / "standings.json"
        if not path.exists():
            return False
        report = json.loads(path.read_text())
        return sum(1 for r in report["rounds"] for m in r["matches"] if m["complete"]) == rounds

    async with asyncio.timeout(30):
        while not complete():  # noqa: ASYNC110 - polling the service's files
            await asyncio.sleep(0.2)


async def check_the_hall_view(view: Any, out: Path, folder: Path) -> None:
    card = view.locator('[data-table-card="table-1"]')
    await view.wait_for_selector('[data-table-card="table-1"][data-current="r2-t1"]')
    await view.wait_for_function("document.querySelectorAll('[data-game]').length === 2")
    assert await view.locator("[data-table-card]").count() == 1  # r0, r1 and r2: one table
    games = await card.locator("[data-game]").evaluate_all("els => els.map(e => e.dataset.game)")
    assert games == ["r1-t1", "r2-t1"]  # the pre-pairing r0-t1 was never played: not listed
    assert "round 2 · game 1" in await card.inner_text()
    # Standings after two rounds: the page's computation equals `hall results`' file.
    report = json.loads((out / "standings.json").read_text())
    await view.wait_for_function(
        "document.querySelectorAll('[data-standings-round] [data-complete=\"true\"]').length === 2"
    )
    assert await standings_on(view) == standings_in(report)
    assert {row["team"]: row["match_points"] for row in report["table"]} == {
        "lions": 2.0,
        "tigers": 2.0,
    }
    first = await view.inner_text('[data-pairing="1-1"]')
    assert "Lions – Tigers" in first
    assert "0 : 1" in first  # scholar's mate: White A, the second-named team, wins
    await view.screenshot(path=folder / "hall.png", full_page=True)
    standings = await view.context.new_page()
    await standings.goto(view.url.replace("#/hall", "#/standings"))
    await standings.wait_for_selector('[data-standings-table] tr[data-team="lions"]')
    assert await standings_on(standings) == standings_in(report)
    await standings.screenshot(path=folder / "standings.png")
    await standings.close()


def record_entries(states: Recorder, match: str) -> dict[int, dict[str, Any]]:
    """The record entries the box published for ``match``, the last of each n."""
    prefix = f"/match/{match}/record/"
    return {
        int(topic.rsplit("/", 1)[1]): json.loads(payload)
        for topic, payload in states.messages
        if prefix in topic and payload
    }


async def check_a_phone_opens_a_finished_game(
    url: str, states: Recorder, tmp_path: Path, folder: Path
) -> None:
    """A spectator's phone: the hall view, a tap on round 1's game, its record stepped through."""
    entries = record_entries(states, "r1-t1")
    assert [entries[n]["kind"] for n in sorted(entries)] == ["move"] * 7 + ["result"]
    async with chromium(tmp_path / "phone", **PHONE) as browser:
        phone = await browser.new_page()
        await phone.goto(f"{url}?lang=en#/hall")
        await phone.locator('[data-game="r1-t1"]').tap()
        await phone.wait_for_function("document.querySelectorAll('[data-entry]').length === 8")
        assert await phone.locator(".mv").count() == 7  # the moves; the 8th is the result
        result = "Tigers win — board A, checkmate (1-0)"  # scholar's mate by White A
        assert await phone.inner_text('[data-entry="8"]') == result
        assert await phone.inner_text("[data-result]") == result
        assert await phone.inner_text('[data-banner="A"]') == "checkmate"
        assert await phone.inner_text(".match-title") == "Lions vs Tigers"  # first-named first
        for n in (7, 6, 5):
            await phone.tap('[data-review-step="previous"]')
            await phone.wait_for_selector(f'.match[data-review="{n}"]')
            fen = await phone.get_attribute('[data-board="A"]', "data-fen")
            assert fen == entries[n]["boards"]["A"]["fen"]
        await phone.tap('[data-review-step="first"]')
        await phone.wait_for_selector('.match[data-review="0"]')
        await phone.tap('[data-entry="3"]')
        await phone.wait_for_selector('.match[data-review="3"]')
        fen = await phone.get_attribute('[data-board="A"]', "data-fen")
        assert fen == entries[3]["boards"]["A"]["fen"]
        await phone.screenshot(path=folder / "hall-review-phone.png", full_page=True)


async def publish_alert(client: Any, hall: Hall, bridge: str, seq: int, **fields: Any) -> None:
    alert = {
        "schema": 1,
        "bridge": bridge,
        "match": f"r1-{bridge.replace('table-', 't')}",
        "boot_id": "boot-7",
        "seq": seq,
        "ts": "2026-11-23T10:15:00.000Z",
        "t": 15.0,
        "type": "alert",
        "board": "A",
        "color": "white",
        "rule": "dsj row 3 (3.3)",
        "details": {},
        **fields,
    }
    await client.publish(hall.topic("alerts"), json.dumps(alert).encode(), qos=1)


ILLEGAL = {"code": "pawn_drop_rank", "severity": "illegal", "message": "Board A: P@h8."}
WARNING = {"code": "clock_without_move", "severity": "warning", "message": "Board A: a press."}
VIBRATIONS = (
    "window.__vibrations = []; navigator.vibrate = (p) => { __vibrations.push(p); return true; };"
)


async def console(browser: Any, url: str, password: str, name: str, lang: str = "en") -> Any:
    page = await browser.new_page()
    await page.add_init_script(VIBRATIONS)
    await page.goto(f"{url}?lang={lang}#/console")
    await page.fill("[name=username]", "arbiter")
    await page.fill("[name=password]", password)
    await page.fill("[name=name]", name)
    await page.click("[data-login] button")
    await page.wait_for_selector("[data-console]")
    await page.wait_for_selector('[data-connection="connected"]')
    return page


async def test_an_acknowledgement_is_shared_by_every_console(hall, browser_needed):
    password = hall.password("arbiter")
    folder = artefact_folder()
    with web_server(hall.plan.ws_port, hall.plan.root) as web:
        async with (
            chromium() as browser,
            hall.client("table-1") as box1,
            hall.client("table-2") as box2,
        ):
            eva = await console(browser, web.url, password, "Eva")
            jon = await console(browser, web.url, password, "Jon", lang="de")
            await jon.set_viewport_size({"width": 390, "height": 844})  # walking the hall
            await jon.check("[data-alarm]")  # the arbiter's touch: sound and vibration on
            await asyncio.sleep(0.5)  # both subscribed
            await publish_alert(box1, hall, "table-1", 1, **ILLEGAL)
            await publish_alert(box2, hall, "table-2", 1, **WARNING)
            for page in (eva, jon):
                await page.wait_for_function("document.querySelectorAll('.alert').length === 2")
            assert await jon.evaluate("window.__vibrations") == [[200, 100, 200]]  # the illegal one
            assert await eva.evaluate("window.__vibrations") == []  # not switched on there

            illegal = '[data-alert-code="pawn_drop_rank"]'
            await eva.locator(f'{illegal} [data-action="ack"]').click()
            await jon.wait_for_selector(f'{illegal}[data-acknowledged-by="Eva"]')
            assert "bestätigt von Eva" in await jon.inner_text(f"{illegal} [data-ack-status]")
            assert "Bauern dürfen nur auf der 2. - 7. Reihe" in await jon.inner_text(illegal)
            await eva.wait_for_selector(f"{illegal}[data-acknowledged]")

            await jon.screenshot(path=folder / "console-de.png", full_page=True)
            await jon.select_option("[data-filter]", "table-2")
            assert await jon.locator(illegal).is_hidden()
            assert await jon.locator('[data-alert-code="clock_without_move"]').is_visible()
            # A console that opens later gets the retained acknowledgement too (not the alert,
            # which is not retained, but the next repeat of it would show acknowledged).
            late = await console(browser, web.url, password, "Ute")
            await publish_alert(box1, hall, "table-1", 1, **ILLEGAL)  # a QoS 1 repeat
            await late.wait_for_selector(f'{illegal}[data-acknowledged-by="Eva"]')
