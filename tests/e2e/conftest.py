"""Fixtures of the end-to-end tests: a private mosquitto and a table of two emulated boards."""

from __future__ import annotations

import socket
from typing import TYPE_CHECKING

import pytest
from e2e_harness import SHARED_PORT, Table

from private_mosquitto import MOSQUITTO, Mosquitto

if TYPE_CHECKING:
    from collections.abc import AsyncIterator, Iterator
    from pathlib import Path


@pytest.fixture
def mosquitto(tmp_path: Path) -> Iterator[Mosquitto]:
    if not MOSQUITTO.exists():
        pytest.skip("mosquitto is not installed")
    broker = Mosquitto(tmp_path)
    broker.start()
    yield broker
    broker.stop()


@pytest.fixture
def shared_broker() -> int:
    try:
        socket.create_connection(("127.0.0.1", SHARED_PORT), timeout=2).close()
    except OSError:
        pytest.skip("no mosquitto on 127.0.0.1:1883")
    return SHARED_PORT


@pytest.fixture
async def table(tmp_path: Path) -> AsyncIterator[Table]:
    boards = Table(tmp_path)
    yield boards
    boards.close()


@pytest.fixture
def persistent_mosquitto(tmp_path: Path) -> Iterator[Mosquitto]:
    """A private broker that keeps client sessions across its own restart."""
    if not MOSQUITTO.exists():
        pytest.skip("mosquitto is not installed")
    broker = Mosquitto(tmp_path, persistence=True)
    broker.start()
    yield broker
    broker.stop()
