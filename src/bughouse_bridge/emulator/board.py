"""One emulated DGT e-board with the clock cabled to it, speaking the real wire protocol.

Host bytes go in through ``receive(data, now)``; board bytes come out of ``poll(now)`` as
``(t, bytes)`` pairs stamped with the time their last byte has crossed the 9600-baud wire, so
messages never overlap. ``next_deadline()`` tells a runner when to poll next. Physical actions
(``set_field``, ``press_clock``, ``press_button``, ``unplug``…) are applied at the time given.

Behaviour follows dgt-protocol.md §2, §3 and the emulator specification §9: power-up in bus mode,
four update modes, identity answers, the scanner (``scanner.py``), BWTIME cadence per mode, clock
commands in the ``2B`` envelope acknowledged only in UPDATE/UPDATE_NICE after a delay, one clock
command at a time (a second one before the ack is dropped, picochess#142). The board's
configuration is ``board_config.py``, its end of the clock cable (readings, the ``2B`` envelope
and its acks) ``clock_port.py``, its 9600-baud line ``serial_line.py``, its move memory
(``SEND_EE_MOVES``) ``eeprom.py``.
"""

from __future__ import annotations

import heapq
import logging
import math
from enum import Enum
from typing import TYPE_CHECKING

from bughouse_bridge.dgt.commands import (
    BoardCommand,
    ClockCommandMessage,
    CommandDecoder,
    HostCommand,
    SetAndRun,
    SetLeds,
    UnknownClockCommand,
    UnknownCommandByte,
)
from bughouse_bridge.dgt.constants import (
    FORBIDDEN_COMMANDS,
    AckStatus,
    AutoAck,
    ClockButton,
    Command,
    MessageId,
)
from bughouse_bridge.dgt.encoder import encode_message
from bughouse_bridge.dgt.messages import (
    BatteryStatus,
    BoardDump,
    BusAddress,
    ClockAck,
    FieldUpdate,
    Garbage,
    LeverSide,
    LongSerialNumber,
    Message,
    SerialNumber,
    Trademark,
    UnknownMessage,
    Version,
)
from bughouse_bridge.emulator.board_config import START_POSITION_FIELDS, Profile
from bughouse_bridge.emulator.clock import ClockModel
from bughouse_bridge.emulator.clock_port import ClockPort
from bughouse_bridge.emulator.eeprom import MoveMemory
from bughouse_bridge.emulator.scanner import Scanner
from bughouse_bridge.emulator.serial_line import SerialLine

if TYPE_CHECKING:
    import random

    from bughouse_bridge.emulator.board_config import BoardConfig
    from bughouse_bridge.emulator.clock import ClockSetting

logger = logging.getLogger(__name__)


class Mode(Enum):
    BUS = "bus"
    IDLE = "idle"
    UPDATE = "update"
    UPDATE_BOARD = "update_board"
    UPDATE_NICE = "update_nice"


_FIELD_UPDATE_MODES = frozenset({Mode.UPDATE, Mode.UPDATE_BOARD, Mode.UPDATE_NICE})
_CLOCK_MODES = frozenset({Mode.UPDATE, Mode.UPDATE_NICE})
_MODE_COMMANDS = {
    Command.SEND_UPDATE: Mode.UPDATE,
    Command.SEND_UPDATE_BRD: Mode.UPDATE_BOARD,
    Command.SEND_UPDATE_NICE: Mode.UPDATE_NICE,
    Command.RESET: Mode.IDLE,
}


class EmulatedBoard:
    """A DGT board (and its clock): host bytes in, board bytes out, physical actions applied."""

    def __init__(
        self,
        config: BoardConfig,
        rng: random.Random,
        *,
        placement: tuple[int, ...] = START_POSITION_FIELDS,
        now: float = 0.0,
    ) -> None:
        self.config = config
        self._rng = rng
        self.clock = ClockModel(config.clock)
        phase = config.scan_phase
        if phase is None:
            phase = now + rng.uniform(0, config.scan_period)
        self.scanner = Scanner(placement, period=config.scan_period, phase=phase)
        self.ignored: list[tuple[float, str]] = []  # what the board ignored, for tests and logs
        self.leds: bytes = b""
        self._decoder = CommandDecoder()
        self._line = SerialLine(wire_free=now)
        self._replies: list[tuple[float, int, bytes]] = []  # (ready, seq, bytes), a heap
        self._seq = 0
        self._now = now
        self._mode = Mode.BUS if config.power_up_bus_mode else Mode.IDLE
        self._clock_port = ClockPort(self.clock, config, rng)
        self._silent_until = -math.inf
        self._plugged = True
        self._memory = MoveMemory()

    # --- the host side ------------------------------------------------------------------------

    @property
    def mode(self) -> Mode:
        return self._mode

    @property
    def plugged(self) -> bool:
        return self._plugged

    def receive(self, data: bytes, now: float) -> None:
        """Bytes written by the host arrive at ``now``."""
        self._advance(now)
        if not self._plugged or now < self._silent_until:
            self.ignored.append((now, f"deaf: {data.hex()}"))
            return
        for command in self._decoder.feed(data):
            self._execute(command, now)

    def poll(self, now: float) -> list[tuple[float, bytes]]:
        """Every board → host chunk whose last byte has left the wire by ``now``."""
        self._advance(now)
        return self._line.take(now)

    def next_deadline(self) -> float | None:
        candidates = [
            self.scanner.next_deadline(),
            self._clock_port.next_deadline(),
            self._replies[0][0] if self._replies else None,
            self._line.next_deadline(),
        ]
        due = [t for t in candidates if t is not None]
        return min(due) if due else None

    # --- the physical side --------------------------------------------------------------------

    def set_field(self, field_index: int, code: int, now: float) -> None:
        """The physical content of a DGT field (0 = a8 seen from the connector side) changes."""
        self._advance(now)
        self.scanner.set(field_index, code, now)

    def press_clock(self, now: float, side: LeverSide | None = None) -> None:
        self._advance(now)
        self.clock.press(now, side)

    def set_clock(self, setting: ClockSetting, now: float) -> None:
        """The arbiter sets the clock by hand (no ack: nothing went over the wire)."""
        self._advance(now)
        self.clock.set(setting, now)

    def start_clock(self, side: LeverSide, now: float) -> None:
        self._advance(now)
        self.clock.start(side, now)

    def press_button(self, button: ClockButton, now: float) -> None:
        """A clock button: the clock sends an automatic ack (ack1 0x88, ack3 the button)."""
        self._advance(now)
        if self.clock.present and self._mode in _CLOCK_MODES:
            ack = ClockAck(AckStatus.OK, AutoAck.BUTTON, 0, int(button))
            self._reply(now + self.config.reply_latency, encode_message(ack))

    def inject(self, data: bytes, now: float) -> None:
        """Raw bytes on the line (noise, a truncated frame): sent as they are."""
        self._advance(now)
        self._reply(now, encode_message(Garbage(data, "injected")))

    def silence(self, until: float, now: float) -> None:
        """The board hangs: it neither answers nor reports anything until ``until``."""
        self._advance(now)
        self._silent_until = until

    def unplug(self, now: float) -> None:
        """The cable is pulled: the board loses power; the clock runs on its batteries."""
        self._advance(now)
        self._plugged = False
        self._line.clear(now)
        self._replies.clear()
        self._clock_port.power_off()

    def replug(self, now: float) -> None:
        """Power comes back: a fresh boot that reads what is physically on the squares."""
        self._advance(now)
        self._plugged = True
        self._decoder = CommandDecoder()
        self._mode = Mode.BUS if self.config.power_up_bus_mode else Mode.IDLE
        self._clock_port.power_on()
        self.scanner.resample_all(now)
        self._memory.power_up()

    # --- time ---------------------------------------------------------------------------------

    def _advance(self, now: float) -> None:
        now = max(now, self._now)
        for sample in self.scanner.advance(now):
            self._memory.record(sample.t, sample.field, sample.code)
            if self._mode in _FIELD_UPDATE_MODES:
                update = FieldUpdate(sample.field, sample.code)
                self._reply(sample.t, encode_message(update))
        forward, every_second = self._mode in _CLOCK_MODES, self._mode is Mode.UPDATE
        for ready, message in self._clock_port.due(now, forward=forward, every_second=every_second):
            self._reply(ready, encode_message(message))
        while self._replies and self._replies[0][0] <= now:
            ready, _, data = heapq.heappop(self._replies)
            if self._plugged and ready >= self._silent_until:
                self._line.send(ready, data)
        self._now = now

    def _reply(self, ready: float, data: bytes) -> None:
        self._seq += 1
        heapq.heappush(self._replies, (ready, self._seq, data))

    def _set_mode(self, mode: Mode, now: float) -> None:
        self._mode = mode
        self._clock_port.follow(now, forwarding=mode in _CLOCK_MODES)

    # --- commands -----------------------------------------------------------------------------

    def _execute(self, command: HostCommand, now: float) -> None:
        if self._mode is Mode.BUS and not isinstance(command, UnknownCommandByte):
            # §2.1: the first single-board command leaves bus mode *and sets IDLE*; a mode command
            # sent first is therefore lost, requests are still answered.
            self._set_mode(Mode.IDLE, now)
            if isinstance(command, BoardCommand) and command.command in _MODE_COMMANDS:
                self.ignored.append((now, f"bus mode: {command.command.name} only woke the board"))
                return
        match command:
            case BoardCommand(command=board_command):
                self._board_command(board_command, now)
            case SetAndRun() | ClockCommandMessage() | UnknownClockCommand():
                ignored = self._clock_port.envelope(command, now)
                if ignored is not None:
                    self.ignored.append((now, ignored))
            case SetLeds(data=data):
                self.leds = data
            case UnknownCommandByte(value=value):
                self.ignored.append((now, f"unknown byte 0x{value:02X}"))

    def _board_command(self, command: Command, now: float) -> None:
        if command in FORBIDDEN_COMMANDS:
            logger.warning("emulated board ignores forbidden command 0x%02X", command)
            self.ignored.append((now, f"forbidden {command.name}"))
            return
        if command in _MODE_COMMANDS:
            self._set_mode(_MODE_COMMANDS[command], now)
            return
        if command is Command.TO_BUSMODE:
            self._set_mode(Mode.BUS, now)
            return
        message = self._answer(command)
        if message is None:
            self.ignored.append((now, f"no answer to {command.name}"))
            return
        self._reply(now + self.config.reply_latency, encode_message(message))

    def _answer(self, command: Command) -> Message | None:  # noqa: PLR0911 - one answer per request
        config = self.config
        if command is Command.SEND_CLK:
            return self._clock_port.reading(self._now)
        if command is Command.SEND_BRD:
            return BoardDump(self.scanner.sampled)
        if command is Command.RETURN_SERIALNR:
            return SerialNumber(config.serial)
        if command is Command.RETURN_BUSADRES:
            return BusAddress(int(config.serial) & 0x3FFF if config.serial.isdigit() else 0)
        if command is Command.SEND_TRADEMARK:
            return Trademark(config.trademark)
        if command is Command.SEND_VERSION:
            return Version(*config.version)
        if command is Command.RETURN_LONG_SERIALNR:
            return LongSerialNumber(config.long_serial)
        if command is Command.SEND_EE_MOVES:
            return UnknownMessage(MessageId.EE_MOVES, self._memory.payload())
        if command is Command.SEND_BATTERY_STATUS and config.profile is Profile.BLUETOOTH:
            return BatteryStatus(bytes((config.battery_percent, 0x7F, 0x7F, 0, 0, 0, 0, 0, 0x02)))
        return None
