"""Hypothesis strategies for DGT messages, shared by the codec tests."""

from __future__ import annotations

from hypothesis import strategies as st

from bughouse_bridge.dgt.constants import MessageId
from bughouse_bridge.dgt.encoder import encode_message
from bughouse_bridge.dgt.messages import (
    BatteryStatus,
    BoardDump,
    BusAddress,
    ClockAck,
    ClockFace,
    ClockTimes,
    FieldUpdate,
    LongSerialNumber,
    Message,
    NullClock,
    SerialNumber,
    Trademark,
    UnknownMessage,
    Version,
)

seven_bit = st.integers(0, 0x7F)
printable = st.text(st.characters(min_codepoint=0x20, max_codepoint=0x7E), max_size=200)

KNOWN_IDS = {int(message_id) for message_id in MessageId} - {
    MessageId.NONE,
    MessageId.EE_MOVES,
    MessageId.BOARD_DUMP_50B,
    MessageId.BOARD_DUMP_50W,
}
unknown_ids = st.integers(0x80, 0xFF).filter(lambda value: value not in KNOWN_IDS)

clock_faces = st.builds(
    ClockFace,
    hours=st.integers(0, 9),
    minutes=st.integers(0, 59),
    seconds=st.integers(0, 59),
    flag_fallen=st.booleans(),
    time_per_move=st.booleans(),
    flag_shown=st.booleans(),
)


def _not_null(times: ClockTimes) -> bool:
    return any(encode_message(times)[3:])


messages: st.SearchStrategy[Message] = st.one_of(
    st.builds(BoardDump, st.tuples(*[seven_bit] * 64)),
    st.builds(
        FieldUpdate,
        field=st.integers(0, 63),
        piece=st.integers(0, 15),
        extra_bits=st.sampled_from(range(0, 0x80, 0x10)),
    ),
    st.builds(ClockTimes, right=clock_faces, left=clock_faces, status=seven_bit).filter(_not_null),
    st.builds(ClockAck, *[st.integers(0, 0xFF)] * 4),
    st.just(NullClock()),
    st.builds(Version, seven_bit, seven_bit),
    st.builds(SerialNumber, printable.filter(lambda text: 1 <= len(text) <= 17)),
    st.builds(LongSerialNumber, printable.filter(lambda text: 1 <= len(text) <= 21)),
    st.builds(Trademark, printable),
    st.builds(BusAddress, st.integers(0, 0x3FFF)),
    st.builds(
        BatteryStatus, st.binary(min_size=1, max_size=9).map(lambda b: bytes(x & 0x7F for x in b))
    ),
    st.builds(
        UnknownMessage,
        unknown_ids,
        st.binary(max_size=100).map(lambda data: bytes(byte & 0x7F for byte in data)),
    ),
)


def splits(data: bytes) -> st.SearchStrategy[list[bytes]]:
    """``data`` cut into consecutive chunks at arbitrary places."""
    cut_points = st.lists(st.integers(0, len(data)), max_size=20).map(sorted)
    return cut_points.map(
        lambda cuts: [data[a:b] for a, b in zip([0, *cuts], [*cuts, len(data)], strict=True)]
    )
