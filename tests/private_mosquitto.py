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
        self.port = free_port()
        self.conf = workdir / "mosquitto.conf"
        # With persistence the broker saves its sessions when stopped and loads them again.
        kept = f"true\npersistence_location {workdir}/" if persistence else "false"
        self.conf.write_text(
            f"listener {self.port} 127.0.0.1\nallow_anonymous true\n"
            f"persistence {kept}\nlog_dest none\n"
        )
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        self.process = subprocess.Popen([str(MOSQUITTO), "-c", str(self.conf)])
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", self.port)):
                return
            time.sleep(0.05)
        raise RuntimeError("mosquitto did not start")

    def stop(self) -> None:
        if self.process is not None:
            self.process.terminate()
            self.process.wait(10)
            self.process = None
