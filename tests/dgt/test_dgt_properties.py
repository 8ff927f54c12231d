"""Hypothesis properties of the board-to-host codec."""

from __future__ import annotations

from dgt_strategies import messages, splits
from hypothesis import given
from hypothesis import strategies as st

from bughouse_bridge.dgt.decoder import DgtDecoder
from bughouse_bridge.dgt.encoder import encode_message
from bughouse_bridge.dgt.messages import Garbage, Message


def _decode_chunks(chunks: list[bytes]) -> list[Message]:
    decoder = DgtDecoder()
    decoded = [message for chunk in chunks for message in decoder.feed(chunk)]
    return decoded + decoder.flush()


@given(st.data(), st.binary(max_size=600))
def test_any_bytes_in_any_chunks_yield_messages_that_account_for_every_byte(data, noise):
    decoded = _decode_chunks(data.draw(splits(noise)))
    assert all(isinstance(message, Message) for message in decoded)
    # Each message re-encodes to as many bytes as it consumed: nothing is lost or invented.
    assert sum(len(encode_message(message)) for message in decoded) == len(noise)


@given(messages)
def test_encode_then_decode_is_the_identity(message):
    assert _decode_chunks([encode_message(message)]) == [message]


@given(st.data(), st.lists(messages, max_size=8), st.binary(max_size=100))
def test_chunking_never_changes_the_result(data, stream_messages, noise):
    stream = b"".join(encode_message(message) for message in stream_messages) + noise
    assert _decode_chunks(data.draw(splits(stream))) == _decode_chunks([stream])


def _noise() -> st.SearchStrategy[bytes]:
    """Noise that cannot complete a message: 7-bit bytes, or a cut-off frame."""
    seven_bit_bytes = st.binary(min_size=1, max_size=30).map(lambda b: bytes(x & 0x7F for x in b))
    cut_frame = st.tuples(messages, st.floats(0, 0.99)).map(
        lambda pair: (frame := encode_message(pair[0]))[: max(1, int(len(frame) * pair[1]))]
    )
    return st.one_of(seven_bit_bytes, cut_frame)


@given(st.data(), st.lists(messages, min_size=1, max_size=8))
def test_garbage_between_messages_loses_no_message(data, stream_messages):
    noises = data.draw(
        st.lists(
            st.one_of(st.just(b""), _noise()),
            min_size=len(stream_messages) + 1,
            max_size=len(stream_messages) + 1,
        )
    )
    parts = [noises[0]]
    for message, noise in zip(stream_messages, noises[1:], strict=True):
        parts += [encode_message(message), noise]
    stream = b"".join(parts)

    decoded = _decode_chunks(data.draw(splits(stream)))

    assert [m for m in decoded if not isinstance(m, Garbage)] == stream_messages
    garbage = b"".join(m.data for m in decoded if isinstance(m, Garbage))
    assert garbage == b"".join(noises)
