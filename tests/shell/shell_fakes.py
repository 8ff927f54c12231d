"""Test doubles for the shell tests: a scripted fake DGT board on a pty."""

from __future__ import annotations

import asyncio
import contextlib
import os
from typing import TYPE_CHECKING

from bughouse_bridge.dgt.commands import BoardCommand, ClockCommandMessage, CommandDecoder
from bughouse_bridge.dgt.constants import ClockCommand, Command
from bughouse_bridge.dgt.encoder import encode_message
from bughouse_bridge.dgt.messages import (
    BoardDump,
    ClockAck,
    ClockFace,
    ClockTimes,
    LongSerialNumber,
    SerialNumber,
    Version,
)

if TYPE_CHECKING:
    from pathlib import Path

START_POSITION = (
    (8, 9, 10, 12, 11, 10, 9, 8) + (7,) * 8 + (0,) * 32 + (1,) * 8 + (2, 3, 4, 6, 5, 4, 3, 2)
)


class FakeBoard:
    """A scripted DGT board on the master side of a pty (answers 4D/55/45/42/4B/2B/41).

    ``symlink`` plays the stable /dev/serial/by-id name: unplug removes it, replug points it at
    a new pty — as udev does when a USB board comes back as a different ttyACM.
    """

    def __init__(self, symlink: Path, *, long_serial: str = "3000147740", serial: str = "12345"):
        self.symlink = symlink
        self.long_serial = long_serial
        self.serial = serial
        self.master: int | None = None
        self.slave: int | None = None
        self.received: list[object] = []
        self.clock_present = True
        self._decoder = CommandDecoder()

    def plug(self) -> None:
        self.master, self.slave = os.openpty()
        os.set_blocking(self.master, False)
        with contextlib.suppress(FileNotFoundError):
            self.symlink.unlink()
        self.symlink.symlink_to(os.ttyname(self.slave))
        asyncio.get_running_loop().add_reader(self.master, self._on_readable)

    def unplug(self) -> None:
        if self.master is None:
            return
        asyncio.get_running_loop().remove_reader(self.master)
        with contextlib.suppress(FileNotFoundError):
            self.symlink.unlink()
        os.close(self.master)
        assert self.slave is not None
        os.close(self.slave)
        self.master = self.slave = None

    def send(self, data: bytes) -> None:
        assert self.master is not None
        os.write(self.master, data)

    def _on_readable(self) -> None:
        assert self.master is not None
        try:
            data = os.read(self.master, 1024)
        except OSError:
            return
        for command in self._decoder.feed(data):
            self.received.append(command)
            answer = self._answer(command)
            if answer:
                self.send(answer)

    def _answer(self, command: object) -> bytes:
        if isinstance(command, BoardCommand):
            return self._answer_board(command.command)
        if (
            isinstance(command, ClockCommandMessage)
            and command.command is ClockCommand.VERSION
            and self.clock_present
        ):
            return encode_message(ClockAck(0x10, 0x09, 0x20, 0x00))
        return b""

    def _answer_board(self, command: Command) -> bytes:
        face = ClockFace(0, 5, 0)
        answers = {
            Command.SEND_VERSION: Version(3, 10),
            Command.RETURN_LONG_SERIALNR: LongSerialNumber(self.long_serial),
            Command.RETURN_SERIALNR: SerialNumber(self.serial),
            Command.SEND_BRD: BoardDump(START_POSITION),
            Command.SEND_CLK: ClockTimes(face, face, 0x08),
        }
        message = answers.get(command)
        return b"" if message is None else encode_message(message)
