"""The device front: the serial links' decoders and what each board and clock said about
itself (the retained device topic), board dump requests, inputs the shell could not process."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from bughouse_bridge.bughouse.events import Alert, Severity
from bughouse_bridge.bughouse.types import AlertCode, BoardId
from bughouse_bridge.dgt.commands import encode_command
from bughouse_bridge.dgt.constants import Command
from bughouse_bridge.dgt.decoder import DgtDecoder
from bughouse_bridge.dgt.messages import (
    ClockAck,
    ClockTimes,
    LongSerialNumber,
    SerialNumber,
    Version,
)

if TYPE_CHECKING:
    from collections.abc import Mapping

    from bughouse_bridge.dgt.messages import Message

Writes = tuple[tuple[str, bytes], ...]  # (link, bytes for the board)


@dataclass(slots=True)
class DeviceInfo:
    """What the bridge knows of one link's board and clock (the retained device topic)."""

    link: str
    board: BoardId
    connected: bool = False
    port: str | None = None
    serial: str | None = None
    long_serial: str | None = None
    firmware: str | None = None
    clock: str | None = None
    clock_battery_low: bool | None = None  # the clock's status bit; None before its first reading
    last_seen: float | None = None

    def as_dict(self) -> dict[str, Any]:
        return {
            "link": self.link,
            "board": str(self.board),
            "connected": self.connected,
            "port": self.port,
            "serial": self.long_serial or self.serial,
            "firmware": self.firmware,
            "clock": self.clock,
            "clock_battery_low": self.clock_battery_low,
            "last_seen": self.last_seen,
        }

    def identity(self) -> dict[str, Any]:
        """Everything but ``last_seen``: what a change republishes."""
        return {key: value for key, value in self.as_dict().items() if key != "last_seen"}

    def note(self, message: Message) -> bool:
        """Take what ``message`` says about the device; whether its identity changed."""
        before = self.identity()
        match message:
            case Version():
                self.firmware = str(message)
            case SerialNumber():
                self.serial = message.text
            case LongSerialNumber():
                self.long_serial = message.text
            case ClockTimes():
                self.clock_battery_low = message.battery_low
            case ClockAck() if message.clock_type is not None:
                version = message.version
                kind = message.clock_type.value
                self.clock = f"{kind} {version[0]}.{version[1]}" if version else None
            case _:
                return False
        return self.identity() != before


class DeviceFront:
    """The links of one table: bytes in, typed messages per board out."""

    __slots__ = ("_decoders", "_failed", "devices")

    def __init__(self, links: Mapping[str, BoardId]) -> None:
        self._decoders = {link: DgtDecoder() for link in links}
        self.devices = {link: DeviceInfo(link, board) for link, board in links.items()}
        self._failed: set[tuple[str, str | None, str]] = set()

    def read(self, link: str, data: bytes, now: float) -> list[tuple[BoardId, Message, bool]]:
        """The messages in ``data`` (a link we do not serve gives none), each with its board and
        whether it changed what the device topic shows."""
        device = self.devices.get(link)
        if device is None:
            return []
        messages = []
        for message in self._decoders[link].feed(data):
            device.last_seen = now
            messages.append((device.board, message, device.note(message)))
        return messages

    def connect(self, link: str, *, connected: bool, port: str | None) -> DeviceInfo | None:
        """A link came or went (None: a link we do not serve)."""
        device = self.devices.get(link)
        if device is None:
            return None
        device.connected = connected
        device.port = port or device.port
        if not connected:
            self._decoders[link].flush()
        return device

    def process_restarted(self) -> None:
        for device in self.devices.values():
            device.connected = False

    def connected(self, board: BoardId) -> bool:
        return any(d.connected for d in self.devices.values() if d.board is board)

    def dump_requests(self, *boards: BoardId) -> Writes:
        """Ask the boards (all if none named) for their whole position."""
        wanted = boards or tuple(BoardId)
        return tuple(
            (link, encode_command(Command.SEND_BRD))
            for board in wanted
            for link, device in self.devices.items()
            if device.board is board
        )

    def input_failed(
        self, what: str, error: Exception, now: float, link: str | None
    ) -> Alert | None:
        """The alert for an input the shell could not process; only the first failure of each
        kind (input, link, exception type) is alerted — a part that keeps failing must not flood
        the arbiters (the shell logs every one)."""
        kind = (what, link, type(error).__name__)
        if kind in self._failed:
            return None
        self._failed.add(kind)
        device = self.devices.get(link) if link is not None else None
        return Alert(
            t=now,
            board=None if device is None else device.board,
            color=None,
            code=AlertCode.INPUT_FAILED,
            severity=Severity.WARNING,
            rule=None,
            message=(
                f"The bridge could not process one input ({what}) and skipped it; "
                "if a board looks wrong, ask for a resync. Further failures of this kind are "
                "only logged."
            ),
            details={"input": what, "link": link, "error": type(error).__name__},
        )
