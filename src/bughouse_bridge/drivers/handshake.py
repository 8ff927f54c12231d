"""The DGT start-up sequence of dgt-protocol.md §4.7 over a :class:`SerialLink`.

Reset, version, serial numbers, dump, UPDATE_NICE, clock version, clock read: each request waits
for its answer on a tap of the link (unmatched messages wait for a later question); the answers
also reach the pipeline through the link's ``on_bytes``. A device that never reports its version
is not a DGT board (:class:`HandshakeError`, which ends the connection).
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

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
from bughouse_bridge.drivers.board_ports import LinkIdentity

if TYPE_CHECKING:
    from collections.abc import Callable

    from bughouse_bridge.drivers.serial_link import SerialLink


class HandshakeError(Exception):
    """The device did not answer like a DGT board."""


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
                async with asyncio.timeout(remaining):
                    chunk = await self.queue.get()
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


__all__ = ["HandshakeError", "handshake"]
