"""The web tests' shared fixture: one headless Chromium page per module with the console's pure
JavaScript modules loaded (``js_logic.logic_page``), for the ``test_web_logic*`` modules."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pytest
import pytest_asyncio

from browser_harness import browser_missing
from web.js_logic import logic_page

if TYPE_CHECKING:
    from collections.abc import AsyncIterator


@pytest.fixture(scope="module")
def skip_without_browser() -> None:
    reason = browser_missing()
    if reason:
        pytest.skip(reason)


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def page(skip_without_browser: None) -> AsyncIterator[Any]:
    async with logic_page() as tab:
        yield tab
