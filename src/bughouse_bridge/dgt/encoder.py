"""Board-to-host messages back into bytes: the exact inverse of ``decoder.py``.

The emulator speaks with it and the tests use it for round trips. Every payload byte is masked to
7 bits so the frame stays well formed (dgt-protocol.md §3.1); a message whose values are out of
range still encodes, and the decoder then reports it as ``Garbage`` — noise is data.
"""

from __future__ import annotations

from functools import singledispatch

from bughouse_bridge.dgt.constants import MessageId
from bughouse_bridge.dgt.messages import (
    BatteryStatus,
    BoardDump,
    BusAddress,
    ClockAck,
    ClockFace,
    ClockTimes,
    FieldUpdate,
    Garbage,
    LongSerialNumber,
    Message,
    NullClock,
    SerialNumber,
    Trademark,
    UnknownMessage,
    Version,
)

HEADER_SIZE = 3
MAX_MESSAGE_SIZE = 0x3FFF  # 14-bit length, header included
_ACK_HOUR_NIBBLE = 0x0A


def frame(message_id: int, payload: bytes) -> bytes:
    """One message: id with MSB set, 14-bit total length, payload bytes with MSB clear."""
    size = min(HEADER_SIZE + len(payload), MAX_MESSAGE_SIZE)
    body = bytes(byte & 0x7F for byte in payload[: size - HEADER_SIZE])
    return bytes((0x80 | message_id, (size >> 7) & 0x7F, size & 0x7F)) + body


def to_bcd(value: int) -> int:
    """0..59 as two BCD nibbles (values beyond 79 wrap, as on a broken clock)."""
    return ((value // 10) % 8) << 4 | value % 10


def encode_message(message: Message) -> bytes:
    """The bytes a board sends for ``message``; ``Garbage`` is its raw bytes."""
    return _encode(message)


@singledispatch
def _encode(message: object) -> bytes:
    raise TypeError(f"not a DGT message: {message!r}")


@_encode.register
def _(message: BoardDump) -> bytes:
    return frame(MessageId.BOARD_DUMP, bytes(message.squares))


@_encode.register
def _(message: FieldUpdate) -> bytes:
    piece = (message.piece & 0x0F) | (message.extra_bits & 0x70)
    return frame(MessageId.FIELD_UPDATE, bytes((message.field & 0x7F, piece)))


def _clock_face(face: ClockFace) -> bytes:
    hours = (
        (face.hours & 0x0F)
        | (0x10 if face.flag_fallen else 0)
        | (0x20 if face.time_per_move else 0)
        | (0x40 if face.flag_shown else 0)
    )
    return bytes((hours, to_bcd(face.minutes), to_bcd(face.seconds)))


@_encode.register
def _(message: ClockTimes) -> bytes:
    # Real hardware sends the right-hand triplet first (dgt-protocol.md §3.6).
    payload = _clock_face(message.right) + _clock_face(message.left) + bytes((message.status,))
    return frame(MessageId.BWTIME, payload)


def _msb_to_bit(byte: int, bit: int) -> int:
    return ((byte >> 7) & 1) << bit


@_encode.register
def _(message: ClockAck) -> bytes:
    # The inverse of §3.7: the four MSBs of the ack bytes hide in bits 4/5 of the hour bytes.
    p0 = _ACK_HOUR_NIBBLE | _msb_to_bit(message.ack2, 4) | _msb_to_bit(message.ack3, 5)
    p3 = _ACK_HOUR_NIBBLE | _msb_to_bit(message.ack0, 4) | _msb_to_bit(message.ack1, 5)
    payload = (p0, message.ack0, message.ack1, p3, message.ack2, message.ack3, 0)
    return frame(MessageId.BWTIME, bytes(payload))


@_encode.register
def _(_message: NullClock) -> bytes:
    return frame(MessageId.BWTIME, bytes(7))


@_encode.register
def _(message: Version) -> bytes:
    return frame(MessageId.VERSION, bytes((message.major, message.minor)))


def _ascii(text: str) -> bytes:
    return text.encode("ascii", errors="replace")


@_encode.register
def _(message: SerialNumber) -> bytes:
    return frame(MessageId.SERIALNR, _ascii(message.text))


@_encode.register
def _(message: LongSerialNumber) -> bytes:
    return frame(MessageId.LONG_SERIALNR, _ascii(message.text))


@_encode.register
def _(message: Trademark) -> bytes:
    return frame(MessageId.TRADEMARK, _ascii(message.text))


@_encode.register
def _(message: BusAddress) -> bytes:
    return frame(MessageId.BUSADRES, bytes(((message.value >> 7) & 0x7F, message.value & 0x7F)))


@_encode.register
def _(message: BatteryStatus) -> bytes:
    return frame(MessageId.BATTERY_STATUS, message.payload)


@_encode.register
def _(message: UnknownMessage) -> bytes:
    return frame(message.message_id, message.payload)


@_encode.register
def _(message: Garbage) -> bytes:
    return message.data
