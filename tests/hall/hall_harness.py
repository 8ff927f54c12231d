"""A hall broker started from ``hall init``'s own output, on free ports.

The files are the ones an organiser gets (the choices a test makes are those ``hall init``
offers: free ports, a loopback listener), and the broker starts exactly as the printed next
steps say — the tests run as root, so mosquitto switches to the user ``hall init`` handed its
files to. Like an organiser's ``/srv/bughouse-hall``, the hall lives in a folder that user can
enter (``hall_home``), not in pytest's private tmp folders.
"""

from __future__ import annotations

import asyncio
import contextlib
import shlex
import shutil
import socket
import ssl
import subprocess
import time
import tomllib
import uuid
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Self

import aiomqtt

from bughouse_bridge.daemon.hall_init import next_steps, write_hall
from bughouse_bridge.hall.broker import HallPlan, Uplink
from private_mosquitto import free_port

if TYPE_CHECKING:
    from pathlib import Path


def wait_for_port(
    port: int, process: subprocess.Popen[bytes] | None = None, within: float = 30.0
) -> None:
    """Until a server listens on ``port``; at once an error naming the exit status when
    ``process`` (the server) exits first."""
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port)):
            return
        if process is not None and process.poll() is not None:
            status = process.returncode
            raise RuntimeError(f"the server exited ({status}) before listening on {port}")
        time.sleep(0.05)
    raise RuntimeError(f"nothing listens on {port} after {within:g} s")


@dataclass
class Hall:
    """``hall init`` output plus the running mosquitto."""

    directory: Path
    plan: HallPlan
    process: subprocess.Popen[bytes] | None = None

    @classmethod
    def create(
        cls,
        directory: Path,
        *,
        tables: int = 2,
        uplink: Uplink | None = None,
        rounds: int = 3,
        ws_tls: bool = False,
    ) -> Self:
        plan = HallPlan(
            tables=tables,
            host="127.0.0.1",
            mqtt_port=free_port(),
            ws_port=free_port(),
            ws_tls=ws_tls,
            root=f"test/hall-{uuid.uuid4().hex[:8]}",
            rounds=rounds,
            uplink=uplink,
            listen="127.0.0.1",
        )
        _, written = write_hall(directory, plan)
        return cls(directory.resolve(), written)

    @property
    def credentials(self) -> dict[str, Any]:
        return tomllib.loads((self.directory / "credentials.toml").read_text())

    def password(self, user: str) -> str:
        credentials = self.credentials
        if user in ("arbiter", "viewer"):
            return str(credentials[user]["password"])
        return str(credentials["boxes"][user]["password"])

    def tls(self) -> ssl.SSLContext:
        return ssl.create_default_context(cafile=str(self.directory / "tls/ca.crt"))

    def start_command(self) -> list[str]:
        """Step 1 of the next steps ``hall init`` prints, word for word."""
        steps = next_steps(self.directory, self.plan)
        line = next(line for line in steps.splitlines() if "Start the broker:" in line)
        return shlex.split(line.split("Start the broker:", 1)[1])

    def start(self) -> None:
        command = self.start_command()
        command[0] = shutil.which(command[0]) or command[0]
        self.process = subprocess.Popen(command)
        wait_for_port(self.plan.mqtt_port, self.process)
        wait_for_port(self.plan.ws_port, self.process)

    def stop(self) -> None:
        if self.process is not None:
            self.process.terminate()
            self.process.wait(10)
            self.process = None

    def client(
        self, user: str | None, *, password: str | None = None, websockets: bool = False
    ) -> aiomqtt.Client:
        """A client of the hall broker: ``user`` None is anonymous; TLS on the MQTT port."""
        if websockets:
            return aiomqtt.Client(
                "127.0.0.1",
                self.plan.ws_port,
                username=user,
                password=password if password is not None else self._password_of(user),
                transport="websockets",
                tls_context=self.tls() if self.plan.ws_tls else None,
                identifier=f"test-{uuid.uuid4().hex[:10]}",
            )
        return aiomqtt.Client(
            "127.0.0.1",
            self.plan.mqtt_port,
            username=user,
            password=password if password is not None else self._password_of(user),
            tls_context=self.tls(),
            identifier=f"test-{uuid.uuid4().hex[:10]}",
        )

    def _password_of(self, user: str | None) -> str | None:
        return None if user is None else self.password(user)

    def topic(self, rest: str) -> str:
        return f"{self.plan.root}/{rest}"


@dataclass
class Recorder:
    """Subscribes with one client and records (topic, payload) pairs."""

    client: aiomqtt.Client
    topics: list[str]
    messages: list[tuple[str, bytes]] = field(default_factory=list)
    _task: asyncio.Task[None] | None = None

    async def __aenter__(self) -> Self:
        await self.client.__aenter__()
        for topic in self.topics:
            await self.client.subscribe(topic, qos=1)
        self._task = asyncio.create_task(self._read())
        return self

    async def __aexit__(self, *exc: object) -> None:
        assert self._task is not None
        self._task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await self._task
        await self.client.__aexit__(None, None, None)

    async def _read(self) -> None:
        async for message in self.client.messages:
            payload = message.payload
            data = payload if isinstance(payload, bytes) else str(payload).encode()
            self.messages.append((message.topic.value, data))

    def payloads(self) -> list[bytes]:
        return [payload for _, payload in self.messages]

    async def wait_for(self, predicate: Any, within: float = 10.0, what: str = "") -> None:
        deadline = time.monotonic() + within
        while not predicate():
            if time.monotonic() > deadline:
                raise AssertionError(f"timed out waiting for {what}; got {self.messages[-5:]}")
            await asyncio.sleep(0.05)
