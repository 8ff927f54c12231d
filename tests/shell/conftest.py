"""Fixtures for the imperative shell: a private mosquitto, a scripted fake DGT board on a pty."""

from __future__ import annotations

import contextlib
import re
import socket
import subprocess
import time
import uuid
from pathlib import Path

import pytest
from shell_fakes import FakeBoard

MOSQUITTO = Path("/usr/sbin/mosquitto")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def unique_root(request: pytest.FixtureRequest) -> str:
    name = re.sub(r"[^a-z0-9]+", "-", request.node.name.lower()).strip("-")
    return f"test/{name}-{uuid.uuid4().hex[:8]}"


@pytest.fixture
def topic_root(request: pytest.FixtureRequest) -> str:
    return unique_root(request)


class Mosquitto:
    """A private broker on a spare port that a test may stop and start."""

    def __init__(self, workdir: Path) -> None:
        self.port = free_port()
        self.conf = workdir / "mosquitto.conf"
        self.conf.write_text(
            f"listener {self.port} 127.0.0.1\nallow_anonymous true\npersistence false\n"
            "log_dest none\n"
        )
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        self.process = subprocess.Popen([str(MOSQUITTO), "-c", str(self.conf)])
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline:
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", self.port)):
                return
            time.sleep(0.05)
        raise RuntimeError("mosquitto did not start")

    def stop(self) -> None:
        if self.process is not None:
            self.process.terminate()
            self.process.wait(5)
            self.process = None


@pytest.fixture
def mosquitto(tmp_path: Path):
    if not MOSQUITTO.exists():
        pytest.skip("mosquitto is not installed")
    broker = Mosquitto(tmp_path)
    broker.start()
    yield broker
    broker.stop()


@pytest.fixture
async def fake_board(tmp_path: Path):
    board = FakeBoard(tmp_path / "dgt-board-a")
    board.plug()
    yield board
    board.unplug()
