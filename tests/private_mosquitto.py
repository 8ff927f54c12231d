"""A private mosquitto on a spare port, for tests that stop and restart their broker.

The shared broker on 127.0.0.1:1883 is never stopped by a test; outage tests use one of these.
"""

from __future__ import annotations

import contextlib
import socket
import subprocess
import time
from pathlib import Path

MOSQUITTO = Path("/usr/sbin/mosquitto")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class Mosquitto:
    """A private broker on a spare port that a test may stop and start again."""

    def __init__(self, workdir: Path, *, persistence: bool = False) -> None:
        self.workdir = workdir
        self.persistence = persistence
        self.conf = workdir / "mosquitto.conf"
        self._configure(free_port())
        self.process: subprocess.Popen[bytes] | None = None
        self._started_once = False

    def _configure(self, port: int) -> None:
        self.port = port
        # With persistence the broker saves its sessions when stopped and loads them again.
        kept = f"true\npersistence_location {self.workdir}/" if self.persistence else "false"
        self.conf.write_text(
            f"listener {self.port} 127.0.0.1\nallow_anonymous true\n"
            f"persistence {kept}\nlog_dest none\n"
        )

    def start(self) -> None:
        """Start the broker. Under pytest-xdist another worker may take the spare port between
        ``free_port()`` and mosquitto's bind: the first start then tries a new port (a restart
        keeps its port, since clients reconnect to it)."""
        for _ in range(3):
            if self._try_start():
                self._started_once = True
                return
            if self._started_once:
                break
            self._configure(free_port())
        raise RuntimeError("mosquitto did not start")

    def _try_start(self) -> bool:
        self.process = subprocess.Popen([str(MOSQUITTO), "-c", str(self.conf)])
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            if self.process.poll() is not None:  # exited: most likely the port was taken
                self.process = None
                return False
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", self.port)):
                return True
            time.sleep(0.05)
        self.process.kill()
        self.process.wait(10)
        self.process = None
        return False

    def stop(self) -> None:
        if self.process is not None:
            self.process.terminate()
            self.process.wait(10)
            self.process = None
