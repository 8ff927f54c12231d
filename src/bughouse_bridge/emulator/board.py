"""One emulated DGT e-board with the clock cabled to it, speaking the real wire protocol.

Host bytes go in through ``receive(data, now)``; board bytes come out of ``poll(now)`` as
``(t, bytes)`` pairs stamped with the time their last byte has crossed the 9600-baud wire, so
messages never overlap. ``next_deadline()`` tells a runner when to poll next. Physical actions
(``set_field``, ``press_clock``, ``press_button``, ``unplug``…) are applied at the time given.

Behaviour follows dgt-protocol.md §2, §3 and the emulator specification §9: power-up in bus mode,
four update modes, identity answers, the scanner (``scanner.py``), BWTIME cadence per mode, clock
commands in the ``2B`` envelope acknowledged only in UPDATE/UPDATE_NICE after a delay, one clock
command at a time (a second one before the ack is dropped, picochess#142). The board's
configuration is ``board_config.py``, its 9600-baud line ``outbox.py``, its move memory
(``SEND_EE_MOVES``) ``eeprom.py``.
"""

from __future__ import annotations

import heapq
import logging
import math
from dataclasses import dataclass
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
    ClockCommand,
    Command,
    MessageId,
)
from bughouse_bridge.dgt.encoder import encode_message
from bughouse_bridge.dgt.messages import (
    BatteryStatus,
    BoardDump,
    BusAddress,
    ClockAck,
    ClockFace,
    ClockTimes,
    ClockType,
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
from bughouse_bridge.emulator.clock import ClockModel, ClockSetting
from bughouse_bridge.emulator.eeprom import MoveMemory
from bughouse_bridge.emulator.outbox import Outbox
from bughouse_bridge.emulator.scanner import Scanner

if TYPE_CHECKING:
    import random

    from bughouse_bridge.emulator.board_config import BoardConfig

logger = logging.getLogger(__name__)

_NO_CLOCK_STATUS = 0x20  # D5: no clock connected
_CLOCK_STATE_EVERY = 1.0  # UPDATE mode sends BWTIME at least this often ("Fritz5 compatible")


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


@dataclass(frozen=True, slots=True)
class _PendingClockCommand:
    due: float
    ack: ClockAck | None


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
        self._outbox = Outbox(wire_free=now)
        self._replies: list[tuple[float, int, bytes]] = []  # (ready, seq, bytes), a heap
        self._seq = 0
        self._now = now
        self._mode = Mode.BUS if config.power_up_bus_mode else Mode.IDLE
        self._clock_command: _PendingClockCommand | None = None
        self._next_clock_poll: float | None = None
        self._clock_phase = rng.uniform(0, config.clock_poll_interval)
        self._last_clock_sent: ClockTimes | None = None
        self._last_clock_time = -math.inf
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
        return self._outbox.take(now)

    def next_deadline(self) -> float | None:
        candidates = [
            self.scanner.next_deadline(),
            self._next_clock_poll,
            self._clock_command.due if self._clock_command else None,
            self._replies[0][0] if self._replies else None,
            self._outbox.next_deadline(),
            self.clock.flag_time() if self._next_clock_poll is not None else None,
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
        self._outbox.clear(now)
        self._replies.clear()
        self._clock_command = None
        self._next_clock_poll = None

    def replug(self, now: float) -> None:
        """Power comes back: a fresh boot that reads what is physically on the squares."""
        self._advance(now)
        self._plugged = True
        self._decoder = CommandDecoder()
        self._mode = Mode.BUS if self.config.power_up_bus_mode else Mode.IDLE
        self._last_clock_sent = None
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
        while self._clock_command is not None and self._clock_command.due <= now:
            pending, self._clock_command = self._clock_command, None
            if pending.ack is not None and self._mode in _CLOCK_MODES:
                self._reply(pending.due, encode_message(pending.ack))
        while self._next_clock_poll is not None and self._next_clock_poll <= now:
            self._poll_clock(self._next_clock_poll)
            self._next_clock_poll += self.config.clock_poll_interval
        while self._replies and self._replies[0][0] <= now:
            ready, _, data = heapq.heappop(self._replies)
            if self._plugged and ready >= self._silent_until:
                self._outbox.send(ready, data)
        self._now = now

    def _reply(self, ready: float, data: bytes) -> None:
        self._seq += 1
        heapq.heappush(self._replies, (ready, self._seq, data))

    def _poll_clock(self, t: float) -> None:
        reading = self.clock.reading(t)
        changed = reading != self._last_clock_sent
        overdue = t - self._last_clock_time >= _CLOCK_STATE_EVERY - 1e-9
        if changed or (self._mode is Mode.UPDATE and overdue):
            self._last_clock_sent = reading
            self._last_clock_time = t
            self._reply(t, encode_message(reading))

    def _set_mode(self, mode: Mode, now: float) -> None:
        self._mode = mode
        if mode in _CLOCK_MODES and self.clock.present:
            if self._next_clock_poll is None:
                interval = self.config.clock_poll_interval
                self._next_clock_poll = self._clock_phase + interval * (
                    math.floor((now - self._clock_phase) / interval) + 1
                )
                self._last_clock_sent = None
        else:
            self._next_clock_poll = None

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
                self._clock_envelope(command, now)
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
            return self._clock_reading()
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

    def _clock_reading(self) -> ClockTimes:
        if not self.clock.present:
            zero = ClockFace(0, 0, 0)
            return ClockTimes(right=zero, left=zero, status=_NO_CLOCK_STATUS)
        return self.clock.reading(self._now)

    def _clock_envelope(
        self, command: SetAndRun | ClockCommandMessage | UnknownClockCommand, now: float
    ) -> None:
        if not self.clock.present:
            self.ignored.append((now, "clock command without a clock"))
            return
        if self._clock_command is not None:
            # The clock is still busy with the previous command: this one is lost (picochess#142).
            self.ignored.append((now, f"clock busy, dropped {command!r}"))
            return
        ack = self._apply_clock_command(command, now)
        low, high = self.config.ack_delay
        self._clock_command = _PendingClockCommand(now + self._rng.uniform(low, high), ack)

    def _apply_clock_command(
        self, command: SetAndRun | ClockCommandMessage | UnknownClockCommand, now: float
    ) -> ClockAck | None:
        kind = self.config.clock.kind
        if isinstance(command, UnknownClockCommand):
            return None
        if isinstance(command, SetAndRun):
            if kind is ClockType.XL and not self.config.clock.xl_mode_23:
                return ClockAck(AckStatus.ERROR, ClockCommand.SETNRUN, 0, 0)
            self.clock.set(_setting(command, self.clock.lever), now)
            self.clock.text = None
            return ClockAck(AckStatus.OK, ClockCommand.SETNRUN, 0, 0)
        code = command.command
        if code is ClockCommand.ASCII:
            if kind is not ClockType.DGT3000:
                return None  # an XL does not know the ASCII command: it never answers
            self.clock.text = command.data[:8].decode("ascii", errors="replace")
        elif code is ClockCommand.DISPLAY:
            self.clock.text = command.data.hex()
        elif code is ClockCommand.END:
            self.clock.text = None
        major, minor = self.config.clock.firmware
        ack2 = (major << 4 | minor) if code is ClockCommand.VERSION else 0
        return ClockAck(AckStatus.OK, code, ack2, 0)


def _setting(command: SetAndRun, lever: LeverSide) -> ClockSetting:
    running: LeverSide | None
    if command.pause or not (command.left_counts_down or command.right_counts_down):
        running = None
    elif command.left_counts_down and command.right_counts_down:
        running = lever
    else:
        running = LeverSide.LEFT if command.left_counts_down else LeverSide.RIGHT
    return ClockSetting(
        left_ms=command.left_seconds * 1000, right_ms=command.right_seconds * 1000, running=running
    )
