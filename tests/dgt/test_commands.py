"""Host-to-board commands: golden bytes, argument checks, and the command decoder."""

from __future__ import annotations

import pytest
from dgt_strategies import splits
from hypothesis import given
from hypothesis import strategies as st

from bughouse_bridge.dgt.commands import (
    MAX_CLOCK_SECONDS,
    BoardCommand,
    ClockCommandMessage,
    CommandDecoder,
    ForbiddenCommandError,
    HostCommand,
    SetAndRun,
    SetLeds,
    UnknownClockCommand,
    UnknownCommandByte,
    clock_ascii,
    clock_beep,
    clock_button_query,
    clock_display_xl,
    clock_end,
    clock_icons,
    clock_set_and_run,
    clock_version,
    encode_command,
    set_leds,
    xl_segments,
)
from bughouse_bridge.dgt.constants import FORBIDDEN_COMMANDS, ClockCommand, Command

ONE_BYTE = sorted(set(Command) - FORBIDDEN_COMMANDS - {Command.SET_LEDS, Command.CLOCK_MESSAGE})


@pytest.mark.parametrize("command", ONE_BYTE)
def test_one_byte_commands_are_their_value(command: Command):
    assert encode_command(command) == bytes((command.value,))


@pytest.mark.parametrize("command", sorted(FORBIDDEN_COMMANDS))
def test_forbidden_commands_raise(command: Command):
    with pytest.raises(ForbiddenCommandError, match="never sent"):
        encode_command(command)
    assert issubclass(ForbiddenCommandError, ValueError)


@pytest.mark.parametrize("command", [Command.SET_LEDS, Command.CLOCK_MESSAGE])
def test_commands_with_data_are_not_one_byte(command: Command):
    with pytest.raises(ValueError, match="takes data"):
        encode_command(command)


GOLDEN_COMMANDS: list[tuple[bytes, str]] = [
    (clock_end(), "2B 03 03 03 00"),
    (clock_version(), "2B 03 03 09 00"),
    (clock_button_query(), "2B 03 03 08 00"),
    (clock_beep(16), "2B 04 03 0B 10 00"),
    (
        clock_set_and_run(300, 3723, left_counts_down=True, right_counts_down=False),
        "2B 0A 03 0A 00 05 00 01 02 03 01 00",
    ),
    (
        clock_set_and_run(
            MAX_CLOCK_SECONDS,
            0,
            left_counts_down=True,
            right_counts_down=True,
            pause=True,
            toggle_on_lever=True,
        ),
        "2B 0A 03 0A 09 3B 3B 00 00 00 0F 00",
    ),
    (
        clock_set_and_run(0, 59, left_counts_down=False, right_counts_down=False, pause=True),
        "2B 0A 03 0A 00 00 00 00 00 3B 04 00",
    ),
    (clock_ascii("hello"), "2B 0C 03 0C 68 65 6C 6C 6F 20 20 20 00 00"),
    (clock_ascii("bughouse-bridge", beep=3), "2B 0C 03 0C 62 75 67 68 6F 75 73 65 03 00"),
    (clock_ascii("é"), "2B 0C 03 0C 3F 20 20 20 20 20 20 20 00 00"),
    (clock_display_xl("123456"), "2B 0B 03 01 4F 5B 06 7D 6D 66 00 01 00"),
    (clock_display_xl("PAUSE", icons=0x12, beep=True), "2B 0B 03 01 3E 77 73 00 79 6D 12 03 00"),
    (clock_icons(0x01, 0x02, 0x20, 0x10, 0x01), "2B 0B 03 02 01 02 20 10 01 00 00 00 00"),
    (set_leds(0, 64, 64), "60 04 00 40 40 00"),
    (set_leds(1, 12, 28), "60 04 01 0C 1C 00"),
]


@pytest.mark.parametrize(("wire", "expected"), GOLDEN_COMMANDS)
def test_command_golden_bytes(wire: bytes, expected: str):
    assert wire == bytes.fromhex(expected)


@pytest.mark.parametrize(
    ("char", "segments"),
    [("0", 0x3F), ("8", 0x7F), ("A", 0x77), ("a", 0x77), ("-", 0x40), (" ", 0), ("?", 0), ("K", 0)],
)
def test_xl_segments(char: str, segments: int):
    assert xl_segments(char) == segments


BAD_ARGUMENTS = [
    lambda: clock_set_and_run(-1, 0, left_counts_down=True, right_counts_down=False),
    lambda: clock_set_and_run(
        0, MAX_CLOCK_SECONDS + 1, left_counts_down=True, right_counts_down=False
    ),
    lambda: clock_beep(-1),
    lambda: clock_beep(256),
    lambda: clock_ascii("x", beep=16),
    lambda: clock_display_xl("x", icons=0x40),
    lambda: clock_icons(special=0x80),
    lambda: set_leds(0, 65, 0),
]


@pytest.mark.parametrize("call", BAD_ARGUMENTS)
def test_arguments_out_of_range_raise_value_error(call):
    with pytest.raises(ValueError, match="must be in"):
        call()


DECODED: list[tuple[str, list[HostCommand]]] = [
    ("4B", [BoardCommand(Command.SEND_UPDATE_NICE)]),
    ("4E", [BoardCommand(Command.START_BOOTLOADER)]),  # decoded; the emulator refuses it
    ("2B 03 03 03 00", [ClockCommandMessage(ClockCommand.END, b"")]),
    ("2B 04 03 0B 10 00", [ClockCommandMessage(ClockCommand.BEEP, b"\x10")]),
    (
        "2B 0A 03 0A 00 05 00 01 02 03 01 00",
        [SetAndRun(300, 3723, 0x01, bytes.fromhex("00 05 00 01 02 03 01"))],
    ),
    (
        "2B 0A 03 0A 10 05 00 00 00 00 00 00",
        [SetAndRun(300, 0, 0, bytes.fromhex("10 05 00 00 00 00 00"))],
    ),
    ("2B 04 03 0A 00 00", [ClockCommandMessage(ClockCommand.SETNRUN, b"\x00")]),  # too short
    ("2B 05 03 0D 41 01 00", [UnknownClockCommand(0x0D, b"\x41\x01")]),
    ("60 04 00 40 40 00", [SetLeds(bytes.fromhex("00 40 40 00"))]),
    ("00 99", [UnknownCommandByte(0x00), UnknownCommandByte(0x99)]),
    # A broken envelope gives up its first byte and the rest is read as commands again.
    (
        "2B 02 4B",
        [
            UnknownCommandByte(0x2B),
            UnknownCommandByte(0x02),
            BoardCommand(Command.SEND_UPDATE_NICE),
        ],
    ),
    (
        "2B 03 04 03 00",
        [
            UnknownCommandByte(0x2B),
            UnknownCommandByte(0x03),
            UnknownCommandByte(0x04),
            UnknownCommandByte(0x03),
            UnknownCommandByte(0x00),
        ],
    ),
    (
        "2B 03 03 03 01",
        [
            UnknownCommandByte(0x2B),
            UnknownCommandByte(0x03),
            UnknownCommandByte(0x03),
            UnknownCommandByte(0x03),
            UnknownCommandByte(0x01),
        ],
    ),
    ("60 00", [UnknownCommandByte(0x60), UnknownCommandByte(0x00)]),
]


@pytest.mark.parametrize(("wire", "expected"), DECODED)
def test_command_decoder_three_ways(wire: str, expected: list[HostCommand]):
    data = bytes.fromhex(wire)
    assert CommandDecoder().feed(data) == expected

    one_by_one = CommandDecoder()
    assert [c for i in range(len(data)) for c in one_by_one.feed(data[i : i + 1])] == expected

    with_tail = CommandDecoder()
    assert with_tail.feed(data + b"\x2b\x03") == expected
    assert with_tail.feed(b"\x03\x09\x00") == [ClockCommandMessage(ClockCommand.VERSION, b"")]


@given(
    st.integers(0, MAX_CLOCK_SECONDS),
    st.integers(0, MAX_CLOCK_SECONDS),
    st.tuples(st.booleans(), st.booleans(), st.booleans(), st.booleans()),
)
def test_set_and_run_round_trip(left, right, flags):
    left_down, right_down, pause, toggle = flags
    wire = clock_set_and_run(
        left,
        right,
        left_counts_down=left_down,
        right_counts_down=right_down,
        pause=pause,
        toggle_on_lever=toggle,
    )
    (command,) = CommandDecoder().feed(wire)
    assert isinstance(command, SetAndRun)
    assert (command.left_seconds, command.right_seconds) == (left, right)
    views = (command.left_counts_down, command.right_counts_down, command.pause)
    assert (*views, command.toggle_on_lever) == flags


@given(st.data(), st.binary(max_size=300))
def test_command_decoder_never_raises_and_ignores_chunking(data, noise):
    decoder = CommandDecoder()
    chunked = [c for chunk in data.draw(splits(noise)) for c in decoder.feed(chunk)]
    assert chunked == CommandDecoder().feed(noise)
