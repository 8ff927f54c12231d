"""Host-to-board commands: encoding (for the bridge) and decoding (for the emulator).

One-byte board commands, the clock envelope ``2B <size> 03 <cmd> <data> 00`` (size = bytes after
the size byte) and the Revelation II LED command (dgt-protocol.md §2). Encoding raises only on
programmer errors (a forbidden command, an argument out of range); decoding never raises.
"""

from __future__ import annotations

from dataclasses import dataclass

from bughouse_bridge.dgt.constants import (
    CLOCK_END_MARKER,
    CLOCK_START_MARKER,
    FORBIDDEN_COMMANDS,
    ClockCommand,
    Command,
)

MAX_CLOCK_SECONDS = 9 * 3600 + 59 * 60 + 59
ASCII_DISPLAY_WIDTH = 8
XL_DISPLAY_WIDTH = 6
MAX_ASCII_BEEP = 15
# Envelope sizes seen in the protocol range from 3 (no data) to 15 (Rev II ASCII); a size byte
# outside this range cannot start a real envelope, so it is not allowed to swallow later commands.
MIN_ENVELOPE_SIZE = 3
MAX_ENVELOPE_SIZE = 16
_MULTI_BYTE_COMMANDS = frozenset({Command.SET_LEDS, Command.CLOCK_MESSAGE})


class ForbiddenCommandError(ValueError):
    """The command writes the board's EEPROM or starts its boot loader."""


# --- encoding ---------------------------------------------------------------------------------


def encode_command(command: Command) -> bytes:
    """A one-byte board command. Raises for EEPROM writes and the boot loader."""
    if command in FORBIDDEN_COMMANDS:
        raise ForbiddenCommandError(f"{command.name} (0x{command:02X}) is never sent to a board")
    if command in _MULTI_BYTE_COMMANDS:
        raise ValueError(f"{command.name} takes data: use set_leds() or the clock_*() functions")
    return bytes((command,))


def _byte(name: str, value: int, high: int = 0xFF) -> int:
    if not 0 <= value <= high:
        raise ValueError(f"{name} must be in 0..{high}, got {value}")
    return value


def clock_message(command: ClockCommand, data: bytes = b"") -> bytes:
    """The clock envelope around ``data``."""
    size = len(data) + 3
    return bytes(
        (Command.CLOCK_MESSAGE, size, CLOCK_START_MARKER, command, *data, CLOCK_END_MARKER)
    )


def _hms(name: str, seconds: int) -> tuple[int, int, int]:
    _byte(name, seconds, MAX_CLOCK_SECONDS)
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    return hours, minutes, secs


def clock_set_and_run(  # noqa: PLR0913 - the four flags are the protocol's
    left_seconds: int,
    right_seconds: int,
    *,
    left_counts_down: bool,
    right_counts_down: bool,
    pause: bool = False,
    toggle_on_lever: bool = False,
) -> bytes:
    """CLOCK_SETNRUN with binary h/m/s (0..9:59:59 per side)."""
    flags = (
        (0x01 if left_counts_down else 0)
        | (0x02 if right_counts_down else 0)
        | (0x04 if pause else 0)
        | (0x08 if toggle_on_lever else 0)
    )
    data = (*_hms("left_seconds", left_seconds), *_hms("right_seconds", right_seconds), flags)
    return clock_message(ClockCommand.SETNRUN, bytes(data))


def clock_end() -> bytes:
    """Back to the time display."""
    return clock_message(ClockCommand.END)


def clock_version() -> bytes:
    return clock_message(ClockCommand.VERSION)


def clock_button_query() -> bytes:
    return clock_message(ClockCommand.BUTTON)


def clock_beep(units_of_64ms: int) -> bytes:
    """Beep for ``units_of_64ms`` x 64 ms (16 → 1.024 s)."""
    return clock_message(ClockCommand.BEEP, bytes((_byte("units_of_64ms", units_of_64ms),)))


def clock_ascii(text: str, beep: int = 0) -> bytes:
    """DGT 3000 text: 8 ASCII characters (padded or truncated), beep 0..15."""
    shown = text[:ASCII_DISPLAY_WIDTH].ljust(ASCII_DISPLAY_WIDTH)
    data = shown.encode("ascii", errors="replace") + bytes((_byte("beep", beep, MAX_ASCII_BEEP),))
    return clock_message(ClockCommand.ASCII, data)


# Seven-segment masks: 0x01 top, 0x02 top right, 0x04 bottom right, 0x08 bottom, 0x10 bottom left,
# 0x20 top left, 0x40 middle (dgt-protocol.md §2.2). Letters have one glyph whatever their case.
XL_SEGMENTS: dict[str, int] = {
    " ": 0x00,
    "0": 0x3F,
    "1": 0x06,
    "2": 0x5B,
    "3": 0x4F,
    "4": 0x66,
    "5": 0x6D,
    "6": 0x7D,
    "7": 0x07,
    "8": 0x7F,
    "9": 0x6F,
    "a": 0x77,
    "b": 0x7C,
    "c": 0x39,
    "d": 0x5E,
    "e": 0x79,
    "f": 0x71,
    "g": 0x3D,
    "h": 0x76,
    "i": 0x30,
    "j": 0x1E,
    "l": 0x38,
    "n": 0x54,
    "o": 0x5C,
    "p": 0x73,
    "q": 0x67,
    "r": 0x50,
    "s": 0x6D,
    "t": 0x78,
    "u": 0x3E,
    "y": 0x6E,
    "-": 0x40,
    "_": 0x08,
    "=": 0x48,
}


def xl_segments(char: str) -> int:
    """The segment mask of one character; characters a 7-segment digit cannot show are blank."""
    return XL_SEGMENTS.get(char.lower(), 0x00)


def clock_display_xl(text: str, *, icons: int = 0, beep: bool = False) -> bytes:
    """DGT XL 7-segment text "A:BC D:EF" from 6 characters (padded or truncated)."""
    a, b, c, d, e, f = (xl_segments(char) for char in text[:XL_DISPLAY_WIDTH].ljust(6))
    data = (c, b, a, f, e, d, _byte("icons", icons, 0x3F), 0x03 if beep else 0x01)
    return clock_message(ClockCommand.DISPLAY, bytes(data))


def clock_icons(
    left: int = 0,
    right: int = 0,
    left_period: int = 0,
    right_period: int = 0,
    special: int = 0,
) -> bytes:
    """CLOCK_ICONS: the icon bytes i0..i3 and the special byte of dgt-protocol.md §2.2."""
    icon_bytes = (
        _byte("left", left, 0x7F),
        _byte("right", right, 0x7F),
        _byte("left_period", left_period, 0x7F),
        _byte("right_period", right_period, 0x7F),
        _byte("special", special, 0x7F),
    )
    return clock_message(ClockCommand.ICONS, bytes((*icon_bytes, 0, 0, 0)))


def set_leds(pattern: int, from_field: int, to_field: int) -> bytes:
    """Revelation II LEDs: ``60 04 <pattern> <from> <to> 00``; ``set_leds(0, 64, 64)`` clears."""
    data = (_byte("pattern", pattern, 0x7F), _byte("from_field", from_field, 64))
    return bytes((Command.SET_LEDS, 4, *data, _byte("to_field", to_field, 64), 0))


# --- decoding ---------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class BoardCommand:
    """A one-byte board command (forbidden ones included: the emulator decides what to do)."""

    command: Command


@dataclass(frozen=True, slots=True)
class ClockCommandMessage:
    """A well-framed clock envelope; ``data`` excludes the start/command/end bytes."""

    command: ClockCommand
    data: bytes


@dataclass(frozen=True, slots=True)
class SetAndRun:
    """A parsed CLOCK_SETNRUN envelope (binary h/m/s; hour bit 0x10 = count up)."""

    left_seconds: int
    right_seconds: int
    flags: int
    data: bytes

    @property
    def left_counts_down(self) -> bool:
        return bool(self.flags & 0x01)

    @property
    def right_counts_down(self) -> bool:
        return bool(self.flags & 0x02)

    @property
    def pause(self) -> bool:
        return bool(self.flags & 0x04)

    @property
    def toggle_on_lever(self) -> bool:
        return bool(self.flags & 0x08)


@dataclass(frozen=True, slots=True)
class UnknownClockCommand:
    """A well-framed clock envelope with a command byte we do not know (e.g. Rev II ASCII 0x0D)."""

    code: int
    data: bytes


@dataclass(frozen=True, slots=True)
class SetLeds:
    """DGT_SET_LEDS; ``data`` is every byte after the size byte (pattern, from, to, 00)."""

    data: bytes


@dataclass(frozen=True, slots=True)
class UnknownCommandByte:
    """A byte that starts no command, or starts a malformed envelope."""

    value: int


HostCommand = (
    BoardCommand
    | ClockCommandMessage
    | SetAndRun
    | UnknownClockCommand
    | SetLeds
    | UnknownCommandByte
)

_CLOCK_COMMANDS = frozenset(int(command) for command in ClockCommand)
_BOARD_COMMANDS = frozenset(int(command) for command in Command) - _MULTI_BYTE_COMMANDS
_SETNRUN_DATA_SIZE = 7


def _clock_seconds(hours: int, minutes: int, seconds: int) -> int:
    return (hours & 0x0F) * 3600 + minutes * 60 + seconds


def _clock_command(code: int, data: bytes) -> HostCommand:
    if code not in _CLOCK_COMMANDS:
        return UnknownClockCommand(code, data)
    command = ClockCommand(code)
    if command is ClockCommand.SETNRUN and len(data) == _SETNRUN_DATA_SIZE:
        left = _clock_seconds(data[0], data[1], data[2])
        right = _clock_seconds(data[3], data[4], data[5])
        return SetAndRun(left, right, data[6], data)
    return ClockCommandMessage(command, data)


class CommandDecoder:
    """Host-to-board bytes → ``HostCommand`` values, in any chunking. Never raises."""

    def __init__(self) -> None:
        self._buffer = bytearray()

    def feed(self, data: bytes) -> list[HostCommand]:
        self._buffer += data
        commands: list[HostCommand] = []
        while self._buffer:
            step = self._next_command()
            if step is None:
                break
            command, consumed = step
            del self._buffer[:consumed]
            commands.append(command)
        return commands

    def _next_command(self) -> tuple[HostCommand, int] | None:
        """The first command in the buffer and its size, or None when more bytes are needed."""
        first = self._buffer[0]
        if first == Command.CLOCK_MESSAGE:
            return self._envelope(first, clock=True)
        if first == Command.SET_LEDS:
            return self._envelope(first, clock=False)
        if first in _BOARD_COMMANDS:
            return BoardCommand(Command(first)), 1
        return UnknownCommandByte(first), 1

    def _envelope(self, first: int, *, clock: bool) -> tuple[HostCommand, int] | None:
        if len(self._buffer) < 2:
            return None
        size = self._buffer[1]
        low = MIN_ENVELOPE_SIZE if clock else 1
        if not low <= size <= MAX_ENVELOPE_SIZE:
            return UnknownCommandByte(first), 1
        if len(self._buffer) < 2 + size:
            return None
        body = bytes(self._buffer[2 : 2 + size])
        if not clock:
            return SetLeds(body), 2 + size
        if body[0] != CLOCK_START_MARKER or body[-1] != CLOCK_END_MARKER:
            return UnknownCommandByte(first), 1
        return _clock_command(body[1], body[2:-1]), 2 + size
