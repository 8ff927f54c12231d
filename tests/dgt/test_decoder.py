"""Golden decode tables, each case checked whole, byte by byte and with trailing bytes."""

from __future__ import annotations

import pytest

from bughouse_bridge.dgt.decoder import MAX_GARBAGE_RUN, DgtDecoder
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
    NullClock,
    SerialNumber,
    Trademark,
    UnknownMessage,
    Version,
)

START_DUMP_HEX = (
    "86 00 43 08 09 0A 0C 0B 0A 09 08"
    + " 07" * 8
    + " 00" * 32
    + " 01" * 8
    + " 02 03 04 06 05 04 03 02"
)
ROTATED_START_DUMP_HEX = (
    "86 00 43 02 03 04 05 06 04 03 02"
    + " 01" * 8
    + " 00" * 32
    + " 07" * 8
    + " 08 09 0A 0B 0C 0A 09 08"
)
START_SQUARES = (8, 9, 10, 12, 11, 10, 9, 8, *[7] * 8, *[0] * 32, *[1] * 8, 2, 3, 4, 6, 5, 4, 3, 2)
ROTATED_SQUARES = (
    2,
    3,
    4,
    5,
    6,
    4,
    3,
    2,
    *[1] * 8,
    *[0] * 32,
    *[7] * 8,
    8,
    9,
    10,
    11,
    12,
    10,
    9,
    8,
)
FISCHER_3_02 = ClockFace(0, 3, 2, time_per_move=True)

# (wire bytes, message): valid frames; the encoder must produce exactly these bytes too.
GOLDEN: list[tuple[str, Message]] = [
    ("8E 00 05 34 00", FieldUpdate(52, 0)),  # real: e2 emptied
    ("8E 00 05 24 01", FieldUpdate(36, 1)),  # real: white pawn on e4
    ("8E 00 05 3F 5C", FieldUpdate(63, 0x0C, 0x50)),  # undocumented "S bit" kept aside
    ("8D 00 0A 20 03 02 20 03 02 08", ClockTimes(FISCHER_3_02, FISCHER_3_02, 0x08)),  # real
    ("8D 00 0A 20 03 02 20 03 02 13", ClockTimes(FISCHER_3_02, FISCHER_3_02, 0x13)),  # real
    (
        "8D 00 0A 51 59 00 09 05 47 09",
        ClockTimes(ClockFace(1, 59, 0, flag_fallen=True, flag_shown=True), ClockFace(9, 5, 47), 9),
    ),
    ("8D 00 0A 0A 10 09 0A 20 00 00", ClockAck(0x10, 0x09, 0x20, 0x00)),  # version 2.0
    ("8D 00 0A 0A 10 08 2A 00 31 00", ClockAck(0x10, 0x88, 0x00, 0x31)),  # "Back" button
    ("8D 00 0A 3A 7F 7F 3A 7F 7F 00", ClockAck(0xFF, 0xFF, 0xFF, 0xFF)),
    ("8D 00 0A 0A 40 0A 0A 00 00 00", ClockAck(0x40, 0x0A, 0x00, 0x00)),  # SetNRun refused
    ("8D 00 0A 00 00 00 00 00 00 00", NullClock()),
    ("93 00 05 03 0A", Version(3, 10)),
    ("91 00 08 32 33 39 34 36", SerialNumber("23946")),
    ("91 00 0C 31 32 33 34 35 20 31 2E 30", SerialNumber("12345 1.0")),  # 1998 header
    ("A2 00 0D 33 30 30 30 31 34 37 37 34 30", LongSerialNumber("3000147740")),
    ("92 00 06 44 47 54", Trademark("DGT")),
    ("92 00 03", Trademark("")),
    ("90 00 05 08 01", BusAddress(0x401)),
    ("A0 00 0C 54 01 02 03 04 05 06 07 00", BatteryStatus(bytes((84, 1, 2, 3, 4, 5, 6, 7, 0)))),
    ("94 00 06 01 02 03", UnknownMessage(0x94, bytes((1, 2, 3)))),  # draughts dump
    ("8F 00 05 6A 6B", UnknownMessage(0x8F, bytes((0x6A, 0x6B)))),  # EE_MOVES
    ("80 00 03", UnknownMessage(0x80, b"")),
    ("FF 00 04 7F", UnknownMessage(0xFF, b"\x7f")),
    (START_DUMP_HEX, BoardDump(START_SQUARES)),  # real start position
    (ROTATED_START_DUMP_HEX, BoardDump(ROTATED_SQUARES)),  # real rotated game
]

# Complete frames whose content is impossible: they come back whole, as Garbage.
BAD_FRAMES: list[tuple[str, str]] = [
    ("8D 00 0A 0B 00 00 00 00 00 00", "clock time out of range"),  # hours 11
    ("8D 00 0A 00 60 00 00 00 00 00", "clock time out of range"),  # minutes 60
    ("8D 00 0A 00 00 0A 00 00 00 00", "clock time out of range"),  # seconds not BCD
    ("8D 00 0A 00 00 00 00 00 5A 01", "clock time out of range"),
    ("8E 00 05 40 01", "field 64 out of range"),
]

TAIL = bytes.fromhex("8E 00")  # the start of the next message
TAIL_COMPLETION = bytes.fromhex("05 01 02")


def _check_three_ways(data: bytes, expected: list[Message]) -> None:
    whole = DgtDecoder()
    assert whole.feed(data) == expected
    assert whole.flush() == []

    one_by_one = DgtDecoder()
    early = [one_by_one.feed(data[i : i + 1]) for i in range(len(data) - 1)]
    assert early == [[]] * (len(data) - 1)
    assert one_by_one.feed(data[-1:]) == expected

    with_tail = DgtDecoder()
    assert with_tail.feed(data + TAIL) == expected
    assert with_tail.feed(TAIL_COMPLETION) == [FieldUpdate(1, 2)]


@pytest.mark.parametrize(("wire", "message"), GOLDEN)
def test_golden_messages_decode_three_ways(wire: str, message: Message):
    _check_three_ways(bytes.fromhex(wire), [message])


@pytest.mark.parametrize(("wire", "message"), GOLDEN)
def test_encoder_writes_the_golden_bytes(wire: str, message: Message):
    assert encode_message(message) == bytes.fromhex(wire)


@pytest.mark.parametrize(("wire", "reason"), BAD_FRAMES)
def test_impossible_content_is_garbage_three_ways(wire: str, reason: str):
    data = bytes.fromhex(wire)
    _check_three_ways(data, [Garbage(data, reason)])


# Framing errors: (input, expected). The decoder resynchronises on the next header byte.
FRAMING: list[tuple[str, list[Message]]] = [
    ("01 02 8E 00 05 01 02", [Garbage(b"\x01\x02", "bytes outside a message"), FieldUpdate(1, 2)]),
    (
        "8E 8E 00 05 01 02",
        [Garbage(b"\x8e", "header length byte with MSB set"), FieldUpdate(1, 2)],
    ),
    (
        "8E 00 8E 00 05 01 02",
        [Garbage(b"\x8e\x00", "header length byte with MSB set"), FieldUpdate(1, 2)],
    ),
    (
        "8E 00 05 01 8E 00 05 01 02",
        [
            Garbage(b"\x8e\x00\x05\x01", "message 0x8E cut short by a header byte"),
            FieldUpdate(1, 2),
        ],
    ),
    ("86 00 05 01 02", [Garbage(b"\x86\x00\x05", "length 5 invalid for id 0x86")]),
    ("92 00 02 8E 00 05 01 02", [Garbage(b"\x92\x00\x02", "length 2 invalid for id 0x92")]),
]


@pytest.mark.parametrize(("wire", "expected"), FRAMING)
def test_framing_errors_resynchronise(wire: str, expected: list[Message]):
    decoder = DgtDecoder()
    data = bytes.fromhex(wire)
    messages = decoder.feed(data) + decoder.flush()
    assert messages[: len(expected)] == expected
    assert b"".join(encode_message(m) for m in messages) == data


def test_invalid_length_header_leaves_the_rest_to_resynchronise():
    decoder = DgtDecoder()
    messages = decoder.feed(bytes.fromhex("8E 00 06 01 02 03 8E 00 05 01 02"))
    assert messages == [
        Garbage(b"\x8e\x00\x06", "length 6 invalid for id 0x8E"),
        Garbage(b"\x01\x02\x03", "bytes outside a message"),
        FieldUpdate(1, 2),
    ]


@pytest.mark.parametrize(
    ("wire", "held_back"),
    [
        ("01 02 03", "01 02 03"),
        ("8E 00 05 01", "8E 00 05 01"),
        ("8E", "8E"),
        ("92 00 10 41", "92 00 10 41"),
    ],
)
def test_flush_returns_the_incomplete_tail_as_garbage(wire: str, held_back: str):
    decoder = DgtDecoder()
    assert decoder.feed(bytes.fromhex(wire)) == []
    (leftover,) = decoder.flush()
    assert isinstance(leftover, Garbage)
    assert leftover.data == bytes.fromhex(held_back)
    assert decoder.flush() == []
    assert decoder.feed(bytes.fromhex("8E 00 05 01 02")) == [FieldUpdate(1, 2)]


@pytest.mark.parametrize("run", [MAX_GARBAGE_RUN, MAX_GARBAGE_RUN * 3 + 5])
def test_long_noise_runs_are_reported_in_bounded_pieces(run: int):
    decoder = DgtDecoder()
    pieces = decoder.feed(b"\x01" * run)
    assert pieces == [Garbage(b"\x01" * MAX_GARBAGE_RUN, "bytes outside a message")] * (
        run // MAX_GARBAGE_RUN
    )
    assert len(decoder._buffer) == run % MAX_GARBAGE_RUN


@pytest.mark.parametrize(
    ("status", "expected"),
    [
        (0x08, (False, LeverSide.LEFT, None, False, False)),
        (0x12, (False, LeverSide.RIGHT, None, False, False)),
        (0x09, (True, LeverSide.LEFT, LeverSide.LEFT, False, False)),
        (0x13, (True, LeverSide.RIGHT, LeverSide.RIGHT, False, False)),
        (0x24, (False, LeverSide.LEFT, None, True, True)),
    ],
)
def test_clock_status_bits(status, expected):
    data = bytes.fromhex("8D 00 0A 00 05 00 00 05 00") + bytes((status,))
    (times,) = DgtDecoder().feed(data)
    assert isinstance(times, ClockTimes)
    views = (times.running, times.lever, times.running_side, times.battery_low, times.no_clock)
    assert views == expected
    assert times.right.total_seconds == times.left.total_seconds == 300


@pytest.mark.parametrize(
    ("wire", "expected"),
    [
        ("8D 00 0A 0A 10 09 0A 20 00 00", (True, 0x09, (2, 0), ClockType.DGT3000, None)),
        ("8D 00 0A 0A 10 09 0A 11 00 00", (True, 0x09, (1, 1), ClockType.XL, None)),
        ("8D 00 0A 0A 10 08 2A 00 31 00", (True, None, None, None, 0x31)),
        ("8D 00 0A 0A 40 0A 0A 00 00 00", (False, 0x0A, None, None, None)),
        ("8D 00 0A 0A 20 00 0A 00 00 00", (False, 0x00, None, None, None)),
    ],
)
def test_clock_ack_views(wire, expected):
    (ack,) = DgtDecoder().feed(bytes.fromhex(wire))
    assert isinstance(ack, ClockAck)
    assert (ack.ok, ack.command, ack.version, ack.clock_type, ack.button) == expected


@pytest.mark.parametrize(
    "wire",
    [
        "8D 00 0A 05 00 00 0A 00 00 00",  # ack marker on the left hour only
        "8D 00 0A 4A 00 00 00 00 00 00",  # ack marker with bit 6 set
    ],
)
def test_either_hour_nibble_marks_an_ack(wire: str):
    (ack,) = DgtDecoder().feed(bytes.fromhex(wire))
    assert isinstance(ack, ClockAck)
