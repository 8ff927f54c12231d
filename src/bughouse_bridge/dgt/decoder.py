"""Board-to-host bytes → typed messages, sans-IO (dgt-protocol.md §3).

``DgtDecoder.feed`` takes bytes in any chunking and returns the messages they complete. Framing
follows §3.1: a byte with its MSB set starts a message, the next two bytes carry a 14-bit length
that includes the 3-byte header, and every payload byte has its MSB clear. Anything that does not
fit is returned as ``Garbage`` with a reason and the decoder resynchronises on the next header
byte. Every decision depends only on bytes already seen, so the output does not depend on how the
stream was split. Nothing here raises.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

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

if TYPE_CHECKING:
    from collections.abc import Callable

HEADER_SIZE = 3
# A run of bytes outside any message is reported in pieces of at most this size, so a noisy line
# cannot grow the buffer without bound.
MAX_GARBAGE_RUN = 256
_ACK_HOUR_NIBBLE = 0x0A
_FIELD_COUNT = 64
_MAX_HOURS = 9


def _sizes(low: int, high: int) -> range:
    """Accepted total lengths (header included), both ends inclusive."""
    return range(low, high + 1)


# Accepted total lengths per id; ids not listed accept any length >= 3.
_VALID_SIZES: dict[int, range] = {
    MessageId.BOARD_DUMP: _sizes(67, 67),
    MessageId.BWTIME: _sizes(10, 10),
    MessageId.FIELD_UPDATE: _sizes(5, 5),
    MessageId.VERSION: _sizes(5, 5),
    MessageId.BUSADRES: _sizes(5, 5),
    # 8 today; the 1998 header sent 12 ("12345 1.0"). Anything short and ASCII is plausible.
    MessageId.SERIALNR: _sizes(4, 20),
    # 13 today; Revelation II puts its firmware in front ("3.250010001").
    MessageId.LONG_SERIALNR: _sizes(4, 24),
    # The header says 7 bytes but lists 9 data bytes; picochess expects 9 (12 in total).
    MessageId.BATTERY_STATUS: _sizes(4, 12),
}


class DgtDecoder:
    """Board-to-host bytes → ``Message`` values, in any chunking. Never raises."""

    def __init__(self) -> None:
        self._buffer = bytearray()
        # Payload bytes of the message at the front of the buffer already checked for an MSB, so a
        # long message fed byte by byte is scanned once, not once per byte.
        self._checked = HEADER_SIZE

    def feed(self, data: bytes) -> list[Message]:
        """Buffer ``data`` and return every message it completes."""
        self._buffer += data
        messages: list[Message] = []
        while self._buffer:
            step = self._next_message()
            if step is None:
                break
            message, consumed = step
            del self._buffer[:consumed]
            self._checked = HEADER_SIZE
            messages.append(message)
        return messages

    def flush(self) -> list[Message]:
        """Give up on buffered bytes (the link went quiet): they come back as ``Garbage``."""
        if not self._buffer:
            return []
        leftover = Garbage(bytes(self._buffer), "incomplete message when the link went quiet")
        self._buffer.clear()
        self._checked = HEADER_SIZE
        return [leftover]

    def _next_message(self) -> tuple[Message, int] | None:
        """The first message in the buffer and its size, or None when more bytes are needed."""
        buffer = self._buffer
        if not buffer[0] & 0x80:
            return self._skip_to_header()
        if len(buffer) >= 2 and buffer[1] & 0x80:
            return Garbage(bytes(buffer[:1]), "header length byte with MSB set"), 1
        if len(buffer) >= 3 and buffer[2] & 0x80:
            return Garbage(bytes(buffer[:2]), "header length byte with MSB set"), 2
        if len(buffer) < HEADER_SIZE:
            return None
        message_id = buffer[0]
        size = (buffer[1] << 7) | buffer[2]
        if not _valid_size(message_id, size):
            return Garbage(bytes(buffer[:3]), f"length {size} invalid for id 0x{message_id:02X}"), 3
        return self._payload(message_id, size)

    def _skip_to_header(self) -> tuple[Message, int] | None:
        buffer = self._buffer
        end = min(len(buffer), MAX_GARBAGE_RUN)
        for index in range(1, end):
            if buffer[index] & 0x80:
                return Garbage(bytes(buffer[:index]), "bytes outside a message"), index
        if end == MAX_GARBAGE_RUN:
            return Garbage(bytes(buffer[:end]), "bytes outside a message"), end
        return None

    def _payload(self, message_id: int, size: int) -> tuple[Message, int] | None:
        buffer = self._buffer
        available = min(len(buffer), size)
        for index in range(self._checked, available):
            if buffer[index] & 0x80:
                reason = f"message 0x{message_id:02X} cut short by a header byte"
                return Garbage(bytes(buffer[:index]), reason), index
        self._checked = available
        if available < size:
            return None
        return decode_frame(message_id, bytes(buffer[HEADER_SIZE:size])), size


def _valid_size(message_id: int, size: int) -> bool:
    return size >= HEADER_SIZE and size in _VALID_SIZES.get(message_id, range(size, size + 1))


def decode_frame(message_id: int, payload: bytes) -> Message:
    """One well-framed message (the length already checked against the id)."""
    decode = _DECODERS.get(message_id)
    if decode is None:
        return UnknownMessage(message_id, payload)
    return decode(payload)


def _board_dump(payload: bytes) -> Message:
    return BoardDump(tuple(payload))


def _field_update(payload: bytes) -> Message:
    field, piece = payload[0], payload[1]
    if field >= _FIELD_COUNT:
        return Garbage(_reframe(MessageId.FIELD_UPDATE, payload), f"field {field} out of range")
    return FieldUpdate(field, piece & 0x0F, piece & 0x70)


def _from_bcd(byte: int) -> int | None:
    tens, units = byte >> 4, byte & 0x0F
    if tens > 5 or units > 9:
        return None
    return tens * 10 + units


def _clock_face(hours: int, minutes: int, seconds: int) -> ClockFace | None:
    if hours & 0x0F > _MAX_HOURS:
        return None
    decoded_minutes, decoded_seconds = _from_bcd(minutes), _from_bcd(seconds)
    if decoded_minutes is None or decoded_seconds is None:
        return None
    return ClockFace(
        hours=hours & 0x0F,
        minutes=decoded_minutes,
        seconds=decoded_seconds,
        flag_fallen=bool(hours & 0x10),
        time_per_move=bool(hours & 0x20),
        flag_shown=bool(hours & 0x40),
    )


def _bit_to_msb(byte: int, bit: int) -> int:
    return ((byte >> bit) & 1) << 7


def _clock_ack(p: bytes) -> ClockAck:
    # dgt-protocol.md §3.7: the MSBs of the four ack bytes travel in bits 4/5 of the hour bytes.
    return ClockAck(
        ack0=p[1] | _bit_to_msb(p[3], 4),
        ack1=p[2] | _bit_to_msb(p[3], 5),
        ack2=p[4] | _bit_to_msb(p[0], 4),
        ack3=p[5] | _bit_to_msb(p[0], 5),
    )


def _bwtime(payload: bytes) -> Message:
    if (payload[0] & 0x0F) == _ACK_HOUR_NIBBLE or (payload[3] & 0x0F) == _ACK_HOUR_NIBBLE:
        return _clock_ack(payload)
    if not any(payload):
        return NullClock()
    # Real hardware sends the right-hand triplet first (dgt-protocol.md §3.6).
    right = _clock_face(payload[0], payload[1], payload[2])
    left = _clock_face(payload[3], payload[4], payload[5])
    if right is None or left is None:
        return Garbage(_reframe(MessageId.BWTIME, payload), "clock time out of range")
    return ClockTimes(right=right, left=left, status=payload[6])


def _text(payload: bytes) -> str:
    return payload.decode("ascii", errors="replace")


def _version(payload: bytes) -> Message:
    return Version(payload[0], payload[1])


def _serial_number(payload: bytes) -> Message:
    return SerialNumber(_text(payload))


def _long_serial_number(payload: bytes) -> Message:
    return LongSerialNumber(_text(payload))


def _trademark(payload: bytes) -> Message:
    return Trademark(_text(payload))


def _bus_address(payload: bytes) -> Message:
    return BusAddress((payload[0] << 7) | payload[1])


def _battery_status(payload: bytes) -> Message:
    return BatteryStatus(payload)


def _reframe(message_id: int, payload: bytes) -> bytes:
    size = HEADER_SIZE + len(payload)
    return bytes((message_id, size >> 7, size & 0x7F)) + payload


_DECODERS: dict[int, Callable[[bytes], Message]] = {
    MessageId.BOARD_DUMP: _board_dump,
    MessageId.FIELD_UPDATE: _field_update,
    MessageId.BWTIME: _bwtime,
    MessageId.VERSION: _version,
    MessageId.SERIALNR: _serial_number,
    MessageId.LONG_SERIALNR: _long_serial_number,
    MessageId.TRADEMARK: _trademark,
    MessageId.BUSADRES: _bus_address,
    MessageId.BATTERY_STATUS: _battery_status,
}
