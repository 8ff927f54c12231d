"""Serial link to one DGT board (and the clock cabled to it), via pyserial-asyncio-fast.

:class:`SerialLink` opens the port (9600 8N1, no flow control, exclusive), hands every received
chunk with a monotonic timestamp to a callback, and survives a pulled cable: a read error
("device reports readiness to read but returned no data"), an OSError, end of file or silence
longer than ``silence_timeout`` reports the link lost, then it reopens with backoff (0.5 s → 5 s)
and reports it connected again. Ports given as ``serial:<number>`` are found by asking every
candidate port for its board serial number (``board_ports.find_port``).

The DGT start-up sequence (dgt-protocol.md §4.7) is ``handshake.py``; it is passed in as
``handshake`` and runs on every new connection.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from enum import StrEnum
from typing import TYPE_CHECKING

import serial
import serial_asyncio_fast

from bughouse_bridge.dgt.commands import encode_command
from bughouse_bridge.dgt.constants import Command
from bughouse_bridge.drivers.board_ports import (
    BAUD_RATE,
    DEFAULT_DISCOVERY_GLOBS,
    READ_SIZE,
    SERIAL_PREFIX,
    LinkIdentity,
    PortNotFoundError,
    find_port,
)
from bughouse_bridge.drivers.handshake import HandshakeError

if TYPE_CHECKING:
    from collections.abc import Iterator, Sequence

logger = logging.getLogger(__name__)


class LinkPhase(StrEnum):
    CONNECTED = "connected"  # port open; bytes may flow
    IDENTIFIED = "identified"  # the handshake told us which board this is
    DISCONNECTED = "disconnected"


@dataclass(frozen=True, slots=True)
class LinkState:
    """What :class:`SerialLink` reports through ``on_state``."""

    link: str
    phase: LinkPhase
    t: float
    port: str | None = None
    identity: LinkIdentity | None = None
    reason: str | None = None

    @property
    def connected(self) -> bool:
        return self.phase is not LinkPhase.DISCONNECTED


OnBytes = Callable[[str, bytes, float], None]  # (link name, data, monotonic time)
OnState = Callable[[LinkState], None]
Handshake = Callable[["SerialLink"], Awaitable[LinkIdentity]]


@dataclass(frozen=True, slots=True)
class Backoff:
    initial: float = 0.5
    maximum: float = 5.0


class SerialLink:
    """One board's serial link. Run :meth:`run` as a task; cancel it to close the port."""

    def __init__(  # noqa: PLR0913 - plain keyword arguments, by design of the drivers
        self,
        name: str,
        port_spec: str,
        on_bytes: OnBytes,
        on_state: OnState,
        *,
        on_tx: OnBytes | None = None,
        handshake: Handshake | None = None,
        silence_timeout: float | None = 10.0,
        keepalive_interval: float | None = 2.0,
        backoff: Backoff | None = None,
        discovery_globs: Sequence[str] = DEFAULT_DISCOVERY_GLOBS,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.name = name
        self.port_spec = port_spec
        self._on_bytes = on_bytes
        self._on_state = on_state
        self._on_tx = on_tx
        self._handshake = handshake
        self._silence_timeout = silence_timeout
        self._keepalive_interval = keepalive_interval
        self._backoff = backoff or Backoff()
        self._discovery_globs = tuple(discovery_globs)
        self._clock = clock
        self._writer: asyncio.StreamWriter | None = None
        self._taps: list[asyncio.Queue[bytes]] = []
        self.port: str | None = None
        self.identity: LinkIdentity | None = None

    @property
    def connected(self) -> bool:
        return self._writer is not None

    def write(self, data: bytes) -> bool:
        """Send bytes to the board; False (and nothing sent) while disconnected."""
        writer = self._writer
        if writer is None or writer.is_closing():
            return False
        writer.write(data)
        if self._on_tx is not None:
            self._on_tx(self.name, data, self._clock())
        return True

    @contextlib.contextmanager
    def tap(self) -> Iterator[asyncio.Queue[bytes]]:
        """A copy of every received chunk while the context is open (for request/response)."""
        queue: asyncio.Queue[bytes] = asyncio.Queue()
        self._taps.append(queue)
        try:
            yield queue
        finally:
            self._taps.remove(queue)

    async def run(self) -> None:
        """Open, read, reopen — forever (until cancelled)."""
        delay = self._backoff.initial
        down_reported = False
        while True:
            worked, reason = await self._one_connection()
            if worked or not down_reported:
                self._report(LinkPhase.DISCONNECTED, reason=reason)
                down_reported = True
            if worked:
                delay = self._backoff.initial
            logger.info("link %s: %s; retrying in %.1f s", self.name, reason, delay)
            await asyncio.sleep(delay)
            delay = min(delay * 2, self._backoff.maximum)

    async def _one_connection(self) -> tuple[bool, str]:
        """Run one connection; return whether it worked and why it ended."""
        try:
            self.port = await self._resolve_port()
            reader, writer = await serial_asyncio_fast.open_serial_connection(
                url=self.port,
                baudrate=BAUD_RATE,
                bytesize=serial.EIGHTBITS,
                parity=serial.PARITY_NONE,
                stopbits=serial.STOPBITS_ONE,
                xonxoff=False,
                rtscts=False,
                dsrdtr=False,
                exclusive=True,
            )
        except (OSError, serial.SerialException, PortNotFoundError) as error:
            logger.debug("link %s: cannot open %s: %s", self.name, self.port_spec, error)
            return False, f"cannot open {self.port_spec}: {error}"
        self._writer = writer
        self.identity = None
        self._report(LinkPhase.CONNECTED)
        try:
            reason = await self._serve(reader)
        finally:
            self._writer = None
            writer.close()
            with contextlib.suppress(Exception):
                async with asyncio.timeout(1.0):
                    await writer.wait_closed()
        logger.warning("link %s lost: %s", self.name, reason)
        return self._handshake is None or self.identity is not None, reason

    async def _serve(self, reader: asyncio.StreamReader) -> str:
        reason = "closed"
        try:
            async with asyncio.TaskGroup() as tasks:
                reading = tasks.create_task(self._read(reader), name=f"serial-{self.name}-read")
                if self._handshake is not None:
                    tasks.create_task(self._identify(reading), name=f"serial-{self.name}-hello")
                if self._keepalive_interval is not None:
                    tasks.create_task(self._keepalive(reading), name=f"serial-{self.name}-alive")
        except* TimeoutError:
            reason = f"silent for {self._silence_timeout} s"
        except* (OSError, serial.SerialException, HandshakeError) as group:
            reason = str(group.exceptions[0])
        return reason

    async def _read(self, reader: asyncio.StreamReader) -> None:
        while True:
            async with asyncio.timeout(self._silence_timeout):
                data = await reader.read(READ_SIZE)
            if not data:
                raise OSError("end of file: the device went away")
            now = self._clock()
            for queue in self._taps:
                queue.put_nowait(data)
            self._on_bytes(self.name, data, now)

    async def _identify(self, reading: asyncio.Task[None]) -> None:
        del reading  # a HandshakeError ends the whole connection through the TaskGroup
        assert self._handshake is not None
        self.identity = await self._handshake(self)
        self._report(LinkPhase.IDENTIFIED)

    async def _keepalive(self, reading: asyncio.Task[None]) -> None:
        # In UPDATE_NICE a board with a stopped clock is silent; a cheap request proves it is
        # alive and keeps the silence timeout meaningful.
        assert self._keepalive_interval is not None
        while not reading.done():
            await asyncio.sleep(self._keepalive_interval)
            self.write(encode_command(Command.RETURN_SERIALNR))

    async def _resolve_port(self) -> str:
        if not self.port_spec.startswith(SERIAL_PREFIX):
            return self.port_spec
        wanted = self.port_spec.removeprefix(SERIAL_PREFIX)
        found = await find_port(wanted, globs=self._discovery_globs)
        if found is None:
            raise PortNotFoundError(f"no board with serial number {wanted} on any port")
        return found

    def _report(self, phase: LinkPhase, *, reason: str | None = None) -> None:
        state = LinkState(
            link=self.name,
            phase=phase,
            t=self._clock(),
            port=self.port,
            identity=self.identity,
            reason=reason,
        )
        self._on_state(state)
