"""DGT boards on serial ports: the line's parameters, what a board says it is, and finding the
port of a board by its serial number.

:class:`LinkIdentity` is what a board tells about itself (firmware, serial numbers, the clock
cabled to it), from the handshake or from a probe. Ports given as ``serial:<number>`` are found by
asking every candidate port for its board serial number (:func:`find_port`); ports already open
exclusively (by us or another process) are skipped.
"""

from __future__ import annotations

import asyncio
import contextlib
import glob
import logging
import os
from dataclasses import dataclass
from typing import TYPE_CHECKING, Self

import serial
import serial_asyncio_fast

from bughouse_bridge.dgt.commands import encode_command
from bughouse_bridge.dgt.constants import Command
from bughouse_bridge.dgt.decoder import DgtDecoder
from bughouse_bridge.dgt.messages import LongSerialNumber, Message, SerialNumber

if TYPE_CHECKING:
    from collections.abc import Sequence

logger = logging.getLogger(__name__)

BAUD_RATE = 9600
SERIAL_PREFIX = "serial:"
DEFAULT_DISCOVERY_GLOBS: tuple[str, ...] = (
    "/dev/serial/by-id/*",
    "/dev/ttyACM*",
    "/dev/ttyUSB*",
)
READ_SIZE = 4096


@dataclass(frozen=True, slots=True)
class LinkIdentity:
    version: str | None = None  # board firmware, e.g. "3.10"
    serial: str | None = None  # 5-digit serial number
    long_serial: str | None = None  # 10-character long serial number
    clock_type: str | None = None  # "DGT 3000", "DGT XL", or None when no clock answered

    def matches(self, serial_number: str) -> bool:
        return serial_number in {self.serial, self.long_serial}


class PortNotFoundError(Exception):
    """No candidate port answered with the wanted board serial number."""


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
            async with asyncio.timeout(1.0):
                await writer.wait_closed()


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


__all__ = [
    "BAUD_RATE",
    "DEFAULT_DISCOVERY_GLOBS",
    "READ_SIZE",
    "SERIAL_PREFIX",
    "LinkIdentity",
    "PortNotFoundError",
    "candidate_ports",
    "find_port",
    "probe_port",
]
