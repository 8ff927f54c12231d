"""Fixtures of the hall tests: a hall broker from ``hall init`` on free ports."""

from __future__ import annotations

import shutil
from typing import TYPE_CHECKING

import pytest
from hall_harness import Hall

from private_mosquitto import MOSQUITTO

if TYPE_CHECKING:
    from collections.abc import Iterator
    from pathlib import Path


@pytest.fixture
def hall(hall_home: Path) -> Iterator[Hall]:
    if not MOSQUITTO.exists():
        pytest.skip("mosquitto is not installed")
    if shutil.which("openssl") is None:
        pytest.skip("openssl is not installed (hall init makes the TLS files with it)")
    broker = Hall.create(hall_home / "hall")
    broker.start()
    yield broker
    broker.stop()
