"""The arbiter console's gap alerts (contract §3, ``gap_ambiguous``), drawn in the real browser
from payloads sent through the embedded broker as ``test_page_render`` sends them: one button per
candidate, under it what the candidate leaves in the pockets that tell the candidates apart; a
gap settled since (its candidates disabled); a gap the later moves decide (its candidate
recommended, on the gap's alert and on the recommendation), and that recommendation withdrawn.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

import chess
import pytest
from test_page_render import ALERT, ROOT, STATE, _console, page_scene, publish, text

from browser_harness import artefacts
from bughouse_bridge.bughouse.match import Match
from bughouse_bridge.bughouse.rules import get_preset
from bughouse_bridge.bughouse.types import BoardId, BughouseMove
from bughouse_bridge.reconstruct.gap import gap_details, listed_candidates, solve_gap

if TYPE_CHECKING:
    from collections.abc import AsyncIterator

    import aiomqtt

pytestmark = [pytest.mark.timeout(120)]


@pytest.fixture
async def scene() -> AsyncIterator[tuple[Any, aiomqtt.Client, str]]:
    async with page_scene() as made:
        yield made


GAP_ALERT: dict[str, Any] = {
    **{k: ALERT[k] for k in ("schema", "bridge", "match", "boot_id", "ts", "t")},
    "type": "alert",
    "board": "A",
    "color": None,
    "code": "gap_ambiguous",
    "rule": None,
}


def _ambiguous_gap(gap: int, candidates: list[dict[str, object]]) -> dict[str, object]:
    return {
        **GAP_ALERT,
        "seq": 50,
        "severity": "warning",
        "message": f"Board A is back; {len(candidates)} different sequences of moves explain it.",
        "details": {"gap": gap, "verdict": "ambiguous", "candidates": candidates},
    }


async def _gap_and_news(client, choices, alerts, *, news_first, alone) -> None:
    """The gap's alert and later news of it (``alerts``), in either order (retained or
    reordered delivery: the news may come first); with the gap's alert alone, each of its
    candidates is offered and ``alone()`` checks the rest."""
    opened, news = alerts
    first, second = (news, opened) if news_first else (opened, news)
    await client.publish(f"{ROOT}/alerts", json.dumps(first).encode(), qos=1)
    if not news_first:
        await choices.first.wait_for()
        assert await choices.count() == len(opened["details"]["candidates"])
        await alone()
    await client.publish(f"{ROOT}/alerts", json.dumps(second).encode(), qos=1)


@pytest.mark.parametrize("news_first", [False, True], ids=["gap-then-news", "news-then-gap"])
async def test_a_gap_settled_since_no_longer_offers_its_candidates(scene, news_first):
    """A better look at the boards explained an ambiguous gap after all (contract §3, a fill's
    later look): the gap's alert keeps its text, its candidate buttons are disabled and say
    why; the alert telling the settlement offers nothing to do."""
    browser, client, url = scene
    await publish(client, "state", STATE)
    console = await _console(browser, url)
    candidates = [{"index": 0, "moves": {}, "san": {}}, {"index": 1, "moves": {}, "san": {}}]
    opened = _ambiguous_gap(3, candidates)
    settled = {
        **GAP_ALERT,
        "seq": 57,
        "severity": "info",
        "message": "Board A: the gap is explained after all; its moves are recovered.",
        "details": {"gap": 3, "resolved": True},
    }
    gap_alerts = console.locator('[data-alert-code="gap_ambiguous"]')
    choices = console.locator('[data-action="choose_recovery"]')

    async def all_enabled() -> None:
        assert await choices.evaluate_all("els => els.every(e => !e.disabled)")

    await _gap_and_news(
        client, choices, (opened, settled), news_first=news_first, alone=all_enabled
    )
    await console.wait_for_selector("[data-alert-code='gap_ambiguous'][data-settled]")
    assert await choices.count() == 2
    assert await choices.evaluate_all("els => els.every(e => e.disabled)")
    assert await console.locator("[data-settled]").count() == 1  # the gap's alert, not the news
    assert "its candidates can no longer be chosen" in await text(console, "[data-settled]")
    assert await gap_alerts.count() == 2
    news = console.locator("[data-alert-code='gap_ambiguous']:not([data-settled])")
    actions = await news.locator("[data-action]").evaluate_all(
        "els => els.map(e => e.dataset.action)"
    )
    assert actions == ["ack"]


def _knight_recommended() -> tuple[dict[str, Any], dict[str, Any]]:
    """Gap 3's alert (two candidates) and the later moves' recommendation of its knight."""
    knight = {"index": 1, "moves": {"A": ["N@f4", "e5f4"], "B": []}, "san": {"A": ["N@f4", "exf4"]}}
    opened = _ambiguous_gap(3, [{"index": 0, "moves": {}, "san": {}}, knight])
    recommended = {
        **GAP_ALERT,
        "seq": 57,
        "severity": "warning",
        "message": "Board A: the moves played since (N@e4 on board B) decide the gap (3).",
        "details": {"gap": 3, "recommended": knight, "settled_by": {"board": "B", "uci": "N@e4"}},
    }
    return opened, recommended


@pytest.mark.parametrize("news_first", [False, True], ids=["gap-then-news", "news-then-gap"])
async def test_a_gap_the_later_moves_decide_recommends_its_candidate(scene, news_first):
    """The moves played after an ambiguous gap leave one candidate (contract §3, later
    evidence): the gap stays open, so every candidate button stays enabled; the recommended
    one is highlighted and says so, on the gap's alert and on the recommendation, which
    offers it for one click."""
    browser, client, url = scene
    await publish(client, "state", STATE)
    console = await _console(browser, url)
    opened, recommended = _knight_recommended()
    gap_alerts = console.locator('[data-alert-code="gap_ambiguous"]')
    choices = console.locator('[data-action="choose_recovery"]')

    async def none_recommended() -> None:
        assert await console.locator("[data-recommended]").count() == 0

    await _gap_and_news(
        client, choices, (opened, recommended), news_first=news_first, alone=none_recommended
    )
    await console.wait_for_function("document.querySelectorAll('[data-recommended]').length === 2")
    assert await gap_alerts.count() == 2
    assert await choices.count() == 3  # both of the gap's, and the recommendation's one
    assert await choices.evaluate_all("els => els.every(e => !e.disabled)")
    assert await console.locator("[data-settled]").count() == 0  # nothing was settled
    marked = console.locator("[data-recommended]")
    assert await marked.evaluate_all("els => els.map(e => e.dataset.candidate)") == ["1", "1"]
    labels = await marked.evaluate_all("els => els.map(e => e.textContent)")
    assert labels == ["later moves decide: candidate 1, recommended"] * 2
    assert await marked.evaluate_all("els => els.every(e => e.classList.contains('recommended'))")
    plain = console.locator('[data-action="choose_recovery"]:not([data-recommended])')
    assert await plain.evaluate_all("els => els.map(e => e.textContent)") == ["choose candidate 0"]
    news = console.locator("[data-alert-key$=':57'] .alert-message")
    assert "only candidate 1 (N@f4 exf4) fits them" in await news.inner_text()


@pytest.mark.parametrize("withdrawal_first", [False, True], ids=["in-order", "withdrawal-first"])
async def test_a_withdrawn_recommendation_is_no_longer_highlighted(scene, withdrawal_first):
    """A later move does not fit the recommended candidate (contract §3): the withdrawal
    un-marks it on every alert of the gap, also when it is delivered before the
    recommendation; every candidate stays enabled (the gap is open)."""
    browser, client, url = scene
    await publish(client, "state", STATE)
    console = await _console(browser, url)
    opened, recommended = _knight_recommended()
    withdrawn = {
        **GAP_ALERT,
        "seq": 58,
        "severity": "warning",
        "message": "Board A: the recommendation for the gap (3) is withdrawn.",
        "details": {"gap": 3, "withdrawn": 1, "withdrawn_by": {"board": "B", "uci": "P@d4"}},
    }
    if withdrawal_first:
        for alert in (opened, withdrawn, recommended):
            await client.publish(f"{ROOT}/alerts", json.dumps(alert).encode(), qos=1)
    else:
        for alert in (opened, recommended):
            await client.publish(f"{ROOT}/alerts", json.dumps(alert).encode(), qos=1)
        await console.wait_for_function(
            "document.querySelectorAll('[data-recommended]').length === 2"
        )
        await client.publish(f"{ROOT}/alerts", json.dumps(withdrawn).encode(), qos=1)
    choices = console.locator('[data-action="choose_recovery"]')
    await console.wait_for_function(
        "document.querySelectorAll('[data-action=\"choose_recovery\"]').length === 3"
    )
    await console.locator("[data-alert-key$=':58']").wait_for()
    assert await console.locator("[data-recommended]").count() == 0
    assert await choices.count() == 3
    assert await choices.evaluate_all("els => els.every(e => !e.disabled)")
    labels = await choices.evaluate_all("els => els.map(e => e.textContent)")
    assert labels == ["choose candidate 1", "choose candidate 0", "choose candidate 1"]
    news = console.locator("[data-alert-key$=':58'] .alert-message")
    assert "candidate 1 does not fit the move P@d4" in await news.inner_text()


# White on A holds a pawn, a knight and a bishop; Black's e-pawn on A can take on f4.
FENS = {
    BoardId.A: "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR[PNB] w KQkq - 0 2",
    BoardId.B: "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPP1/R1BQK1NR w KQkq - 0 1",
}
# What each story of the gap leaves in the pockets that tell them apart, by the piece dropped
# on f4: it left White's pocket on A; taken at once, it went to White on B.
LEFT = {
    "P": [
        ["A/white", "leaves white's pocket on board A with: knight, bishop"],
        ["B/white", "leaves white's pocket on board B with: pawn"],
    ],
    "N": [
        ["A/white", "leaves white's pocket on board A with: pawn, bishop"],
        ["B/white", "leaves white's pocket on board B with: knight"],
    ],
    "B": [
        ["A/white", "leaves white's pocket on board A with: pawn, knight"],
        ["B/white", "leaves white's pocket on board B with: bishop"],
    ],
}


def dropped_and_taken() -> tuple[dict[str, Any], dict[str, Any]]:
    """A's link was cut while White dropped a piece on f4 and Black took it: the bridge's own
    details of the gap's alert, and of a recommendation of its knight story."""
    before = Match(get_preset("dsj"), fens=FENS)
    truth = before.copy()
    for uci in ("N@f4", "e5f4"):
        truth.play(BughouseMove(BoardId.A, chess.Move.from_uci(uci)), t=0.0)
    targets = {BoardId.A: truth.board_fen(BoardId.A)}
    solution = solve_gap(before, targets, turns={BoardId.A: truth.turn(BoardId.A)})
    details = gap_details(3, before, solution)
    (knight,) = [c for c in listed_candidates(before, solution) if c["moves"]["A"][0] == "N@f4"]
    return details, {"gap": 3, "recommended": knight, "settled_by": {"board": "B", "uci": "N@e4"}}


async def _left(item: Any) -> dict[str, Any]:
    """Under each candidate button of an alert (by its index): its plies, and the pockets
    listed (key and text, each highlighted); the lines describe the button above them."""
    return await item.locator(".candidate").evaluate_all(
        """blocks => Object.fromEntries(blocks.map(block => {
            const button = block.querySelector('[data-action="choose_recovery"]');
            const about = button.nextElementSibling;
            const pockets = [...about.querySelectorAll('li')].map(li => [
                li.dataset.differs, li.querySelector('mark').textContent]);
            const moves = about.querySelector('[data-candidate-moves]').textContent;
            const described = button.getAttribute('aria-describedby') === about.id;
            return [button.dataset.candidate, described ? [moves, pockets] : 'not described'];
        }))"""
    )


def _under(piece: str) -> list[Any]:
    return [f"moves A: {piece}@f4 exf4", LEFT[piece]]


@pytest.mark.parametrize("news_first", [False, True], ids=["gap-then-news", "news-then-gap"])
async def test_each_candidate_shows_the_pockets_it_leaves_where_they_differ(scene, news_first):
    """A piece dropped and taken at once (contract §3, ``pockets`` and ``differs``): the
    stories differ only in the pockets, which the arbiter sees and the sensors do not. Under
    each candidate's button, its plies and what it leaves in the two pockets that differ; the
    recommendation of one candidate keeps them, under its own button too."""
    browser, client, url = scene
    await publish(client, "state", STATE)
    console = await _console(browser, url)
    details, recommendation = dropped_and_taken()
    opened = _ambiguous_gap(3, details["candidates"])
    news = {
        **GAP_ALERT,
        "seq": 57,
        "severity": "warning",
        "message": "Board A: the moves played since (N@e4 on board B) decide the gap (3).",
        "details": recommendation,
    }
    expected = {str(c["index"]): _under(c["moves"]["A"][0][0]) for c in details["candidates"]}
    assert len(expected) == 3
    gap_item = console.locator("[data-alert-key$=':50']")
    choices = console.locator('[data-action="choose_recovery"]')

    async def pockets_shown() -> None:
        assert await _left(gap_item) == expected

    await _gap_and_news(client, choices, (opened, news), news_first=news_first, alone=pockets_shown)
    await console.wait_for_function("document.querySelectorAll('[data-recommended]').length === 2")
    assert await _left(gap_item) == expected  # the highlight changed the button, not its pockets
    knight = str(recommendation["recommended"]["index"])
    assert await _left(console.locator("[data-alert-key$=':57']")) == {knight: _under("N")}
    recommended = gap_item.locator("[data-recommended]")
    assert await recommended.get_attribute("data-candidate") == knight
    assert "recommended" in await text(console, "[data-alert-key$=':50'] [data-recommended]")
    folder = artefacts("bughouse-web-candidates-")
    await gap_item.screenshot(path=folder / "candidates.png")
    print(f"\ncandidates screenshot: {folder / 'candidates.png'}")
