"""A private mosquitto on a spare port, for tests that stop and restart their broker.

The shared broker on 127.0.0.1:1883 is never stopped by a test; outage tests use one of these.
"""

from __future__ import annotations

import contextlib
import os
import random
import socket
import subprocess
import time
from pathlib import Path

MOSQUITTO = Path("/usr/sbin/mosquitto")
MOSQUITTO_PASSWD = Path("/usr/bin/mosquitto_passwd")


def free_port() -> int:
    """A port nothing listens on, for a server a test starts.

    Not one the kernel hands out (``bind(0)``): those come from the ephemeral range, from which
    every outgoing connection of every test worker also takes its local port, so one of them
    could take it before the server binds it (a hall broker under load once found its port
    taken: "nothing listens"). Below that range only another test's ``free_port`` could."""
    low = _ephemeral_low()
    for _ in range(100):
        port = random.randrange(_LOWEST_PORT, low)
        if port in _HANDED_OUT:
            continue  # a server of this worker may not have bound it yet
        with socket.socket() as sock:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            try:
                sock.bind(("127.0.0.1", port))
            except OSError:
                continue
            _HANDED_OUT.add(port)
            return port
    raise RuntimeError(f"no free port between {_LOWEST_PORT} and {low}")


_HANDED_OUT: set[int] = set()
_LOWEST_PORT = 20_000  # above the well-known and the usual registered servers' ports


def _ephemeral_low() -> int:
    try:
        text = Path("/proc/sys/net/ipv4/ip_local_port_range").read_text()
        return int(text.split()[0])
    except (OSError, ValueError, IndexError):
        return 32_768  # Linux's default


class Mosquitto:
    """A private broker on a spare port that a test may stop and start again."""

    def __init__(
        self,
        workdir: Path,
        *,
        persistence: bool = False,
        websockets: bool = False,
        users: dict[str, str] | None = None,
        acl: str | None = None,
    ) -> None:
        """``websockets`` adds an MQTT-over-WebSocket listener on ``ws_port`` (for the web page);
        ``users`` (name -> password) and ``acl`` (a mosquitto ACL file's text) apply to every
        listener; anonymous clients stay allowed (the ACL decides what they may do)."""
        self.workdir = workdir
        self.persistence = persistence
        self.websockets = websockets
        self.conf = workdir / "mosquitto.conf"
        self._access = self._access_lines(users, acl)
        self._configure()
        self.process: subprocess.Popen[bytes] | None = None
        self._started_once = False

    def _access_lines(self, users: dict[str, str] | None, acl: str | None) -> list[str]:
        lines = []
        if users:
            passwords = self.workdir / "mosquitto.passwd"
            passwords.write_text("")
            for name, password in users.items():
                subprocess.run(
                    [str(MOSQUITTO_PASSWD), "-b", str(passwords), name, password], check=True
                )
            lines.append(f"password_file {passwords}")
        if acl is not None:
            acl_file = self.workdir / "mosquitto.acl"
            acl_file.write_text(acl)
            lines.append(f"acl_file {acl_file}")
        return lines

    def _configure(self) -> None:
        self.port = free_port()
        self.ws_port = free_port() if self.websockets else None
        # With persistence the broker saves its sessions when stopped and loads them again.
        kept = f"true\npersistence_location {self.workdir}/" if self.persistence else "false"
        lines = [
            "per_listener_settings false",
            f"listener {self.port} 127.0.0.1",
            "allow_anonymous true",
            f"persistence {kept}",
            "log_dest none",
        ]
        if self.ws_port is not None:
            lines += [f"listener {self.ws_port} 127.0.0.1", "protocol websockets"]
        if os.geteuid() == 0:
            # Started as root, mosquitto drops to its own user, who cannot read our 0700 tmp dir.
            lines.append("user root")
        self.conf.write_text("\n".join([*lines, *self._access]) + "\n")

    def start(self) -> None:
        """Start the broker. Under pytest-xdist another worker may take a spare port between
        ``free_port()`` and mosquitto's bind: the first start then tries new ports (a restart
        keeps its ports, since clients reconnect to them)."""
        for _ in range(3):
            if self._try_start():
                self._started_once = True
                return
            if self._started_once:
                break
            self._configure()
        raise RuntimeError("mosquitto did not start")

    def _try_start(self) -> bool:
        self.process = subprocess.Popen([str(MOSQUITTO), "-c", str(self.conf)])
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            if self.process.poll() is not None:  # exited: most likely a port was taken
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
