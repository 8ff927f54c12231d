"""Headless Chromium (Debian's, never a downloaded build) driven by Playwright, and the web app
served on a spare port: shared by the browser tests and ``bench/bench_web.py``.

``scripts/ensure-chromium`` installs the browser; without it (or without Playwright) the browser
tests skip with a reason.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Any

from bughouse_bridge.drivers.web_server import WebServer, page_config

if TYPE_CHECKING:
    from collections.abc import AsyncIterator, Iterator

CHROMIUM = Path(os.environ.get("BUGHOUSE_CHROMIUM", "/usr/bin/chromium"))
# Quiet and self-contained: no GPU, no QUIC, no background calls home, no first-run dialogs.
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
VIEWPORT = {"width": 1400, "height": 900}
# A spectator's phone (the size of a common one): small screen, touch, a phone's user agent.
PHONE = {
    "viewport": {"width": 390, "height": 844},
    "device_scale_factor": 2,
    "is_mobile": True,
    "has_touch": True,
    "user_agent": "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko)"
    " Chrome/120.0 Mobile Safari/537.36",
}

# Records every value the page gives data-fen / data-letters, in order (installed before the
# page's scripts run, so nothing is missed however fast the states come).
RECORDER = """
window.__shown = [];
new MutationObserver((records) => {
  for (const r of records) {
    const el = r.target;
    const key = el.dataset.board ?? el.dataset.pocket;
    const value = r.attributeName === "data-fen" ? el.dataset.fen : el.dataset.letters;
    window.__shown.push([key, value]);
  }
}).observe(document, {
  subtree: true, attributes: true, attributeFilter: ["data-fen", "data-letters"],
});
"""


def artefacts(prefix: str) -> Path:
    """A folder for a test's screenshots: ``$BUGHOUSE_ARTEFACTS`` when set (the README's
    screenshots are copied from there), else a fresh temporary one."""
    chosen = os.environ.get("BUGHOUSE_ARTEFACTS")
    if chosen:
        folder = Path(chosen)
        folder.mkdir(parents=True, exist_ok=True)
        return folder
    return Path(tempfile.mkdtemp(prefix=prefix))


def browser_missing() -> str | None:
    """Why the browser tests cannot run here, or None."""
    if not CHROMIUM.exists():
        return f"no Chromium at {CHROMIUM} (scripts/ensure-chromium installs it)"
    try:
        import playwright.async_api  # noqa: F401, PLC0415
    except ImportError:
        return "playwright is not installed (pip install -e '.[test]')"
    return None


@contextlib.asynccontextmanager
async def chromium(user_data_dir: Path | None = None, **options: Any) -> AsyncIterator[Any]:
    """A fresh browser context (its own user-data-dir) on the system Chromium; ``options`` are
    Playwright's context options (e.g. PHONE)."""
    from playwright.async_api import async_playwright  # noqa: PLC0415

    with contextlib.ExitStack() as stack:
        if user_data_dir is None:
            user_data_dir = Path(stack.enter_context(tempfile.TemporaryDirectory()))
        async with async_playwright() as playwright:
            context = await playwright.chromium.launch_persistent_context(
                str(user_data_dir),
                executable_path=str(CHROMIUM),
                args=CHROMIUM_ARGS[1:],  # headless=True adds the first
                headless=True,
                **({"viewport": VIEWPORT} | options),
            )
            try:
                yield context
            finally:
                await context.close()


@contextlib.contextmanager
def web_server(ws_port: int, root: str, static_dir: Path | None = None) -> Iterator[WebServer]:
    """The app (or the one in ``static_dir``) on a spare port, pointed at the broker's
    WebSocket listener."""
    config = page_config(broker_ws=f"ws://127.0.0.1:{ws_port}", ws_port=ws_port, root=root)
    folder = {} if static_dir is None else {"static_dir": static_dir}
    with WebServer(port=0, config=config, **folder) as server:
        yield server


async def shown(page: Any) -> list[tuple[str, str]]:
    """The values the page has shown so far (see RECORDER)."""
    return [tuple(item) for item in await page.evaluate("window.__shown")]


def distinct_runs(values: list[str]) -> list[str]:
    """Values with consecutive repeats (re-renders of the same picture) removed."""
    runs: list[str] = []
    for value in values:
        if not runs or runs[-1] != value:
            runs.append(value)
    return runs
