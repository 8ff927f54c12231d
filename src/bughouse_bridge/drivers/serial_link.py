"""Serial link to one DGT board (and the clock cabled to it), via pyserial-asyncio-fast.

:class:`SerialLink` opens the port (9600 8N1, no flow control, exclusive), hands every received
chunk with a monotonic timestamp to a callback, and survives a pulled cable: a read error
("device reports readiness to read but returned no data"), an OSError, end of file or silence
longer than ``silence_timeout`` reports the link lost, then it reopens with backoff (0.5 s → 5 s)
and reports it connected again. Ports given as ``serial:<number>`` are found by asking every
candidate port for its board serial number (:func:`find_port`).

:func:`handshake` is the DGT start-up sequence of dgt-protocol.md §4.7.
"""

from __future__ import annotations

import asyncio
import contextlib
import glob
import logging
import os
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from enum import StrEnum
from typing import TYPE_CHECKING, Self

import serial
import serial_asyncio_fast

from bughouse_bridge.dgt.commands import clock_version, encode_command
from bughouse_bridge.dgt.constants import Command
from bughouse_bridge.dgt.decoder import DgtDecoder
from bughouse_bridge.dgt.messages import (
    BoardDump,
    ClockAck,
    ClockTimes,
    LongSerialNumber,
    Message,
    SerialNumber,
    Version,
)

if TYPE_CHECKING:
    from collections.abc import Iterator, Sequence

logger = logging.getLogger(__name__)

BAUD_RATE = 9600
SERIAL_PREFIX = "serial:"
DEFAULT_DISCOVERY_GLOBS: tuple[str, ...] = (
    "/dev/serial/by-id/*",
    "/dev/ttyACM*",
    "/dev/ttyUSB*",
)
READ_SIZE = 4096


class LinkPhase(StrEnum):
    CONNECTED = "connected"  # port open; bytes may flow
    IDENTIFIED = "identified"  # the handshake told us which board this is
    DISCONNECTED = "disconnected"


@dataclass(frozen=True, slots=True)
class LinkIdentity:
    version: str | None = None  # board firmware, e.g. "3.10"
    serial: str | None = None  # 5-digit serial number
    long_serial: str | None = None  # 10-character long serial number
    clock_type: str | None = None  # "DGT 3000", "DGT XL", or None when no clock answered

    def matches(self, serial_number: str) -> bool:
        return serial_number in {self.serial, self.long_serial}


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


class HandshakeError(Exception):
    """The device did not answer like a DGT board."""


class PortNotFoundError(Exception):
    """No candidate port answered with the wanted board serial number."""


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
                await asyncio.wait_for(writer.wait_closed(), 1.0)
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


# -- handshake ---------------------------------------------------------------------------------


@dataclass
class _Conversation:
    """Request/response over a link's tap: unmatched messages wait for a later question."""

    link: SerialLink
    queue: asyncio.Queue[bytes]
    decoder: DgtDecoder = field(default_factory=DgtDecoder)
    unmatched: list[Message] = field(default_factory=list)

    async def ask(
        self,
        request: bytes,
        wanted: Callable[[Message], bool],
        *,
        within: float,
        attempts: int = 1,
    ) -> Message | None:
        for _ in range(attempts):
            if not self.link.write(request):
                raise HandshakeError("the link closed during the handshake")
            answer = await self.wait_for(wanted, within)
            if answer is not None:
                return answer
        return None

    async def wait_for(self, wanted: Callable[[Message], bool], within: float) -> Message | None:
        loop = asyncio.get_running_loop()
        deadline = loop.time() + within
        while True:
            for message in self.unmatched:
                if wanted(message):
                    self.unmatched.remove(message)
                    return message
            remaining = deadline - loop.time()
            if remaining <= 0:
                return None
            try:
                chunk = await asyncio.wait_for(self.queue.get(), remaining)
            except TimeoutError:
                return None
            self.unmatched.extend(self.decoder.feed(chunk))


def _is(kind: type[Message]) -> Callable[[Message], bool]:
    return lambda message: isinstance(message, kind)


def _is_version_ack(message: Message) -> bool:
    return isinstance(message, ClockAck) and message.version is not None


async def handshake(
    link: SerialLink,
    *,
    reply_within: float = 1.0,
    attempts: int = 3,
    clock_reply_within: float = 2.0,
) -> LinkIdentity:
    """Reset, version, serial numbers, dump, UPDATE_NICE, clock version, clock read (§4.7).

    The answers also reach the pipeline through ``on_bytes`` (the dump is its starting position).
    Raises :class:`HandshakeError` when the board never reports its version.
    """
    with link.tap() as queue:
        talk = _Conversation(link, queue)
        if not link.write(encode_command(Command.RESET)):
            raise HandshakeError("the link closed during the handshake")
        version = await talk.ask(
            encode_command(Command.SEND_VERSION),
            _is(Version),
            within=reply_within,
            attempts=attempts,
        )
        if not isinstance(version, Version):
            raise HandshakeError(f"no answer to DGT_SEND_VERSION on {link.port}: not a DGT board?")
        long_serial = await talk.ask(
            encode_command(Command.RETURN_LONG_SERIALNR), _is(LongSerialNumber), within=reply_within
        )
        serial_number = await talk.ask(
            encode_command(Command.RETURN_SERIALNR), _is(SerialNumber), within=reply_within
        )
        await talk.ask(encode_command(Command.SEND_BRD), _is(BoardDump), within=reply_within)
        # UPDATE_NICE must precede clock commands: the board forwards clock acks only in it.
        link.write(encode_command(Command.SEND_UPDATE_NICE))
        # One clock command in flight at a time; the clock may be absent (no ack ever comes).
        ack = await talk.ask(
            clock_version(), _is_version_ack, within=clock_reply_within, attempts=attempts
        )
        await talk.ask(encode_command(Command.SEND_CLK), _is(ClockTimes), within=reply_within)
    clock_type = ack.clock_type if isinstance(ack, ClockAck) else None
    return LinkIdentity(
        version=str(version),
        serial=serial_number.text.strip() if isinstance(serial_number, SerialNumber) else None,
        long_serial=long_serial.text.strip() if isinstance(long_serial, LongSerialNumber) else None,
        clock_type=clock_type.value if clock_type is not None else None,
    )


# -- discovery ---------------------------------------------------------------------------------


def candidate_ports(globs: Sequence[str] = DEFAULT_DISCOVERY_GLOBS) -> list[str]:
    """Existing ports matching ``globs``, in glob order, one name per real device."""
    seen: set[str] = set()
    ports: list[str] = []
    for pattern in globs:
        for path in sorted(glob.glob(pattern)):  # noqa: PTH207 - device globs are absolute
            real = os.path.realpath(path)
            if real not in seen:
                seen.add(real)
                ports.append(path)
    return ports


async def find_port(
    serial_number: str,
    *,
    globs: Sequence[str] = DEFAULT_DISCOVERY_GLOBS,
    probe_within: float = 1.0,
) -> str | None:
    """The first candidate port whose board reports ``serial_number`` (long or short form).

    Ports that are busy (already open exclusively, by us or another process) are skipped.
    """
    for port in candidate_ports(globs):
        identity = await probe_port(port, probe_within=probe_within)
        if identity is not None and identity.matches(serial_number):
            return port
    return None


async def probe_port(port: str, *, probe_within: float = 1.0) -> LinkIdentity | None:
    """Ask the device on ``port`` for its serial numbers; None if busy, absent or silent."""
    try:
        reader, writer = await serial_asyncio_fast.open_serial_connection(
            url=port, baudrate=BAUD_RATE, exclusive=True
        )
    except (OSError, serial.SerialException) as error:
        logger.debug("probe %s: %s", port, error)
        return None
    try:
        writer.write(
            encode_command(Command.RETURN_LONG_SERIALNR) + encode_command(Command.RETURN_SERIALNR)
        )
        return await _read_serial_numbers(reader, probe_within)
    except (OSError, serial.SerialException) as error:
        logger.debug("probe %s: %s", port, error)
        return None
    finally:
        writer.close()
        with contextlib.suppress(Exception):
            await asyncio.wait_for(writer.wait_closed(), 1.0)


async def _read_serial_numbers(reader: asyncio.StreamReader, within: float) -> LinkIdentity:
    decoder = DgtDecoder()
    identity = _SerialAnswers()
    with contextlib.suppress(TimeoutError):
        async with asyncio.timeout(within):
            while identity.long_serial is None or identity.serial is None:
                data = await reader.read(READ_SIZE)
                if not data:
                    break
                identity.take(decoder.feed(data))
    return LinkIdentity(serial=identity.serial, long_serial=identity.long_serial)


@dataclass
class _SerialAnswers:
    serial: str | None = None
    long_serial: str | None = None

    def take(self, messages: list[Message]) -> Self:
        for message in messages:
            if isinstance(message, LongSerialNumber):
                self.long_serial = message.text.strip()
            elif isinstance(message, SerialNumber):
                self.serial = message.text.strip()
        return self
