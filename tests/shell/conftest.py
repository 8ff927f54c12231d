"""Fixtures for the imperative shell: a private mosquitto, a scripted fake DGT board on a pty."""

from __future__ import annotations

import re
import uuid
from typing import TYPE_CHECKING

import pytest
from shell_fakes import FakeBoard

from private_mosquitto import MOSQUITTO, Mosquitto

if TYPE_CHECKING:
    from pathlib import Path


def unique_root(request: pytest.FixtureRequest) -> str:
    name = re.sub(r"[^a-z0-9]+", "-", request.node.name.lower()).strip("-")
    return f"test/{name}-{uuid.uuid4().hex[:8]}"


@pytest.fixture
def topic_root(request: pytest.FixtureRequest) -> str:
    return unique_root(request)


@pytest.fixture
def mosquitto(tmp_path: Path):
    if not MOSQUITTO.exists():
        pytest.skip("mosquitto is not installed")
    broker = Mosquitto(tmp_path)
    broker.start()
    yield broker
    broker.stop()


@pytest.fixture
def persistent_mosquitto(tmp_path: Path):
    """A private broker that keeps its sessions across a stop and start."""
    if not MOSQUITTO.exists():
        pytest.skip("mosquitto is not installed")
    broker = Mosquitto(tmp_path, persistence=True)
    broker.start()
    yield broker
    broker.stop()


@pytest.fixture
async def fake_board(tmp_path: Path):
    board = FakeBoard(tmp_path / "dgt-board-a")
    board.plug()
    yield board
    board.unplug()
