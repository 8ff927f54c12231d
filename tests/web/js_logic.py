"""Helpers of the JavaScript unit tests: one page of the app, not started, speaking English,
on which exported functions of js/*.js are called with ``page.evaluate``."""

from __future__ import annotations

import contextlib
from typing import TYPE_CHECKING, Any

from browser_harness import chromium, web_server

if TYPE_CHECKING:
    from collections.abc import AsyncIterator


@contextlib.asynccontextmanager
async def logic_page() -> AsyncIterator[Any]:
    with web_server(1, "bughouse/v1") as web:  # nothing connects: the app does not start
        async with chromium() as browser:
            tab = await browser.new_page()
            await tab.add_init_script("window.__bughouseNoAutostart = true")
            await tab.goto(web.url)
            await tab.evaluate("async () => (await import('./js/i18n.js')).useLanguage('en')")
            yield tab


async def call(page: Any, module: str, expression: str) -> Any:
    """Evaluate ``expression`` with the module's exports in scope as ``m``."""
    return await page.evaluate(
        f"async () => {{ const m = await import('./js/{module}'); return ({expression}); }}"
    )


async def run(page: Any, module: str, function: str, *args: Any) -> Any:
    """Call one exported function with JSON arguments."""
    return await page.evaluate(
        "async ([module, name, args]) => (await import(`./js/${module}`))[name](...args)",
        [module, function, list(args)],
    )
