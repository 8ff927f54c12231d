"""The trace format of contract §1: round trips, and bad lines reported with their numbers."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bughouse_bridge.trace import (
    TraceFormatError,
    TraceMeta,
    TraceParse,
    TraceProblem,
    TraceRecord,
    format_meta,
    format_record,
    parse_trace_lines,
    parse_trace_text,
)

CONTRACT_EXAMPLE = '{"t": 12.3456, "link": "A", "dir": "rx", "hex": "8e00053400"}'

times = st.floats(min_value=0, max_value=1e7, allow_nan=False)
links = st.text(min_size=1, max_size=8)
records_strategy = st.lists(
    st.builds(
        TraceRecord,
        t=times,
        link=links,
        direction=st.sampled_from(["rx", "tx"]),
        data=st.binary(max_size=40),
    ),
    max_size=20,
).map(lambda records: sorted(records, key=lambda record: record.t))
json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=10),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner),
    max_leaves=10,
)
metas = st.dictionaries(st.text(max_size=8), json_values, max_size=4).map(TraceMeta)


def test_contract_example_reads_back_as_written():
    parsed = parse_trace_lines([CONTRACT_EXAMPLE])
    assert parsed.records == [TraceRecord(12.3456, "A", "rx", bytes.fromhex("8e00053400"))]
    assert parsed.problems == []
    assert parsed.meta is None
    assert format_record(parsed.records[0]) == CONTRACT_EXAMPLE


def test_format_record_writes_lower_case_hex_without_separators():
    line = format_record(TraceRecord(0.5, "B", "tx", b"\xab\xcd\x00"))
    assert json.loads(line) == {"t": 0.5, "link": "B", "dir": "tx", "hex": "abcd00"}


@given(records_strategy, st.none() | metas)
def test_round_trip(records, meta):
    lines = ([] if meta is None else [format_meta(meta)]) + [format_record(r) for r in records]
    parsed = parse_trace_text("\n".join(lines) + "\n")
    assert parsed == TraceParse(records, meta, [])


@given(records_strategy, st.integers(1, 7))
def test_any_chunking_of_the_same_bytes_is_allowed(records, chunk):
    """A line may hold part of a message or several: the reader keeps the chunks as they are."""
    stream = b"".join(record.data for record in records)
    chunks = [
        TraceRecord(float(i), "A", "rx", stream[i : i + chunk])
        for i in range(0, len(stream), chunk)
    ]
    parsed = parse_trace_lines(format_record(record) for record in chunks)
    assert b"".join(record.data for record in parsed.records) == stream
    assert parsed.problems == []


GOOD = '{"t": 1.0, "link": "A", "dir": "rx", "hex": "00"}'


@pytest.mark.parametrize(
    ("line", "fragment"),
    [
        ("not json", "not valid JSON"),
        ('{"t": 1.0, "link": "A", "dir": "rx", "hex": "00"', "not valid JSON"),
        ("[1, 2]", "JSON object, not list"),
        ('{"t": 2.0, "link": "A", "dir": "rx"}', "missing key hex"),
        ('{"link": "A", "hex": "00"}', "missing key t, dir"),
        ('{"t": "2", "link": "A", "dir": "rx", "hex": "00"}', "t must be a number"),
        ('{"t": true, "link": "A", "dir": "rx", "hex": "00"}', "t must be a number"),
        ('{"t": NaN, "link": "A", "dir": "rx", "hex": "00"}', "t must be a number"),
        ('{"t": 2.0, "link": "", "dir": "rx", "hex": "00"}', "link must be"),
        ('{"t": 2.0, "link": 7, "dir": "rx", "hex": "00"}', "link must be"),
        ('{"t": 2.0, "link": "A", "dir": "in", "hex": "00"}', "dir must be"),
        ('{"t": 2.0, "link": "A", "dir": "rx", "hex": "0"}', "hex must be"),
        ('{"t": 2.0, "link": "A", "dir": "rx", "hex": "zz"}', "hex must be"),
        ('{"t": 2.0, "link": "A", "dir": "rx", "hex": "00 11"}', "hex must be"),
        ('{"t": 2.0, "link": "A", "dir": "rx", "hex": 17}', "hex must be"),
        ('{"t": 0.5, "link": "A", "dir": "rx", "hex": "00"}', "goes back from 1.0"),
        ('{"trace": 1, "meta": {}}', "may only come first"),
        ("[" * 100_000, "not valid JSON"),
    ],
)
def test_bad_line_is_reported_with_its_number_and_skipped(line, fragment):
    parsed = parse_trace_lines([GOOD, line, GOOD.replace("1.0", "3.0")])
    assert [record.t for record in parsed.records] == [1.0, 3.0]
    assert len(parsed.problems) == 1
    assert parsed.problems[0].line_number == 2
    assert fragment in parsed.problems[0].message


@pytest.mark.parametrize(
    ("line", "fragment"),
    [
        ('{"trace": 2, "meta": {}}', "version 2 is not supported"),
        ('{"trace": true, "meta": {}}', "version True is not supported"),
        ('{"trace": 1, "meta": []}', "meta must be a JSON object"),
    ],
)
def test_bad_meta_line_is_reported(line, fragment):
    parsed = parse_trace_lines([line, GOOD])
    assert parsed.meta is None
    assert [(p.line_number, fragment in p.message) for p in parsed.problems] == [(1, True)]
    assert len(parsed.records) == 1


def test_meta_and_unknown_keys():
    lines = [
        '{"trace": 1, "meta": {"rules": "dsj"}, "extra": 1}',
        '{"t": 0, "link": "B", "dir": "tx", "hex": "45", "note": "ignored"}',
    ]
    parsed = parse_trace_lines(lines)
    assert parsed.meta == TraceMeta({"rules": "dsj"})
    assert parsed.records == [TraceRecord(0.0, "B", "tx", b"\x45")]
    assert parsed.problems == []


def test_blank_lines_and_crlf_are_tolerated():
    parsed = parse_trace_text(f"\r\n{GOOD}\r\n   \r\n{GOOD}\r\n")
    assert len(parsed.records) == 2
    assert parsed.problems == []


def test_links_in_order_of_appearance():
    records = [TraceRecord(float(i), link, "rx", b"") for i, link in enumerate("BABC")]
    assert parse_trace_lines(map(format_record, records)).links == ["B", "A", "C"]


@given(
    records_strategy,
    st.lists(
        st.tuples(st.integers(0, 30), st.sampled_from(["}{", "garbage", '{"t": 1}', "null"])),
        max_size=5,
    ),
)
def test_garbage_lines_are_numbered_and_skipped(records, insertions):
    lines: list[tuple[bool, str]] = [(False, format_record(record)) for record in records]
    for position, garbage in insertions:
        lines.insert(min(position, len(lines)), (True, garbage))
    garbage_numbers = [n for n, (is_garbage, _) in enumerate(lines, start=1) if is_garbage]
    parsed = parse_trace_lines(line for _, line in lines)
    assert parsed.records == records
    assert [problem.line_number for problem in parsed.problems] == garbage_numbers


@given(st.lists(st.text(max_size=30), max_size=10))
def test_never_raises(lines):
    parsed = parse_trace_lines(lines)
    assert len(parsed.records) + len(parsed.problems) <= len(lines)
    assert all(1 <= problem.line_number <= len(lines) for problem in parsed.problems)


@pytest.mark.parametrize(
    ("kwargs", "fragment"),
    [
        ({"t": float("inf")}, "finite"),
        ({"link": ""}, "non-empty"),
        ({"direction": "up"}, "dir must be"),
    ],
)
def test_record_refuses_unwritable_values(kwargs, fragment):
    fields = {"t": 0.0, "link": "A", "direction": "rx", "data": b""} | kwargs
    with pytest.raises(TraceFormatError, match=fragment):
        TraceRecord(**fields)


def test_format_meta_refuses_what_json_cannot_hold():
    with pytest.raises(TraceFormatError, match="not plain JSON"):
        format_meta({"start": object()})


def test_format_meta_accepts_a_plain_mapping():
    assert json.loads(format_meta({"rules": "fics"})) == {"trace": 1, "meta": {"rules": "fics"}}


def test_problem_text_names_the_line():
    assert str(TraceProblem(7, "not valid JSON")) == "line 7: not valid JSON"


def test_link_events_are_parsed_in_file_order_with_the_records() -> None:
    from bughouse_bridge.trace import (  # noqa: PLC0415 - this test only
        TraceLinkEvent,
        format_link_event,
        parse_trace_lines,
    )

    lines = [
        '{"t": 1.0, "link": "A", "dir": "rx", "hex": "00"}',
        format_link_event(TraceLinkEvent(2.0, "A", connected=False)),
        '{"t": 3.0, "link": "A", "event": "plugged"}',
        format_link_event(TraceLinkEvent(4.0, "A", connected=True)),
        '{"t": 3.5, "link": "A", "event": "connected"}',
    ]
    parsed = parse_trace_lines(lines)
    assert parsed.link_events == [
        TraceLinkEvent(2.0, "A", connected=False),
        TraceLinkEvent(4.0, "A", connected=True),
    ]
    assert [type(item).__name__ for item in parsed.timeline] == [
        "TraceRecord",
        "TraceLinkEvent",
        "TraceLinkEvent",
    ]
    assert [problem.line_number for problem in parsed.problems] == [3, 5]
    assert "connected" in parsed.problems[0].message
