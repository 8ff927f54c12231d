"""The trace file format of contract §1: JSON Lines of the bytes on each serial link. Pure.

One record a line: ``{"t": 12.3456, "link": "A", "dir": "rx", "hex": "8e00053400"}`` — ``t``
seconds since the start of the recording (non-decreasing), ``link`` the configured link name,
``dir`` ``"rx"`` (board → host) or ``"tx"`` (host → board), ``hex`` the bytes in lower-case hex
without separators, in any chunking. An optional first line ``{"trace": 1, "meta": {...}}``
carries free-form metadata.

Reading never raises: a line that is not valid JSON, lacks a key, has a bad value or a ``t``
that goes back is reported as a :class:`TraceProblem` with its 1-based line number and skipped.
Unknown keys are ignored; blank lines are skipped silently.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Final, Literal, TypeGuard

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping

Direction = Literal["rx", "tx"]
DIRECTIONS: Final[tuple[Direction, ...]] = ("rx", "tx")
TRACE_VERSION: Final = 1
_HEX_RE: Final = re.compile(r"(?:[0-9a-fA-F]{2})*")


class TraceFormatError(ValueError):
    """A record or metadata that cannot be written as a trace line."""


@dataclass(frozen=True, slots=True)
class TraceRecord:
    """Bytes that travelled on one link at trace time ``t``."""

    t: float
    link: str
    direction: Direction
    data: bytes

    def __post_init__(self) -> None:
        if isinstance(self.t, bool) or not math.isfinite(self.t):
            raise TraceFormatError(f"t must be a finite number of seconds, not {self.t!r}")
        if not self.link:
            raise TraceFormatError("link must be a non-empty name")
        if self.direction not in DIRECTIONS:
            raise TraceFormatError(f"dir must be 'rx' or 'tx', not {self.direction!r}")


@dataclass(frozen=True, slots=True)
class TraceLinkEvent:
    """A link lost (``connected`` false) or back at trace time ``t``."""

    t: float
    link: str
    connected: bool


LINK_EVENTS: Final = {"connected": True, "disconnected": False}


@dataclass(frozen=True, slots=True)
class TraceMeta:
    """The free-form metadata of the optional first line (rules, config summary, start time)."""

    meta: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class TraceProblem:
    """A line that was skipped, and why."""

    line_number: int  # 1-based
    message: str

    def __str__(self) -> str:
        return f"line {self.line_number}: {self.message}"


@dataclass(frozen=True, slots=True)
class TraceParse:
    """What a trace holds: its records in order, the metadata if any, and the skipped lines."""

    records: list[TraceRecord]
    meta: TraceMeta | None
    problems: list[TraceProblem]
    timeline: list[TraceRecord | TraceLinkEvent] = field(default_factory=list, compare=False)
    """The byte records and the link events together, in file order."""

    @property
    def link_events(self) -> list[TraceLinkEvent]:
        return [item for item in self.timeline if isinstance(item, TraceLinkEvent)]

    @property
    def links(self) -> list[str]:
        """The link names in order of first appearance."""
        return list(dict.fromkeys(record.link for record in self.records))


# --------------------------------------------------------------------------------------------
# Writing


def format_record(record: TraceRecord) -> str:
    """One JSON line (without the newline) in the contract's key order."""
    line = {"t": record.t, "link": record.link, "dir": record.direction, "hex": record.data.hex()}
    return json.dumps(line)


def format_link_event(event: TraceLinkEvent) -> str:
    """``{"t", "link", "event": "connected" | "disconnected"}`` without the newline."""
    state = "connected" if event.connected else "disconnected"
    return json.dumps({"t": event.t, "link": event.link, "event": state})


def format_meta(meta: TraceMeta | Mapping[str, Any]) -> str:
    """The optional first line, ``{"trace": 1, "meta": {...}}``, without the newline."""
    content = meta.meta if isinstance(meta, TraceMeta) else dict(meta)
    try:
        return json.dumps({"trace": TRACE_VERSION, "meta": content}, allow_nan=False)
    except (TypeError, ValueError) as error:
        raise TraceFormatError(f"trace metadata is not plain JSON: {error}") from error


# --------------------------------------------------------------------------------------------
# Reading


class _LineError(Exception):
    """A reason to skip the current line (internal; becomes a TraceProblem)."""


def parse_trace_lines(lines: Iterable[str]) -> TraceParse:
    """Records, metadata and problems from the lines of a trace (numbered from 1)."""
    records: list[TraceRecord] = []
    timeline: list[TraceRecord | TraceLinkEvent] = []
    problems: list[TraceProblem] = []
    meta: TraceMeta | None = None
    for line_number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            parsed = _parse_line(
                line,
                meta_allowed=not timeline and meta is None,
                last_t=timeline[-1].t if timeline else -math.inf,
            )
        except _LineError as error:
            problems.append(TraceProblem(line_number, str(error)))
        else:
            if isinstance(parsed, TraceMeta):
                meta = parsed
            else:
                timeline.append(parsed)
                if isinstance(parsed, TraceRecord):
                    records.append(parsed)
    return TraceParse(records, meta, problems, timeline)


def _parse_line(
    line: str, *, meta_allowed: bool, last_t: float
) -> TraceRecord | TraceLinkEvent | TraceMeta:
    item = _json_object(line)
    if "trace" in item:
        if not meta_allowed:
            raise _LineError("the metadata line may only come first")
        return _meta(item)
    record = _link_event(item) if "event" in item and "dir" not in item else _record(item)
    if record.t < last_t:
        raise _LineError(f"t {record.t!r} goes back from {last_t!r}")
    return record


def parse_trace_text(text: str) -> TraceParse:
    """:func:`parse_trace_lines` of a whole file's text (``\\n`` or ``\\r\\n`` line ends)."""
    return parse_trace_lines(text.split("\n"))


def _json_object(line: str) -> dict[str, Any]:
    try:
        item = json.loads(line)
    except ValueError as error:  # JSONDecodeError
        raise _LineError(f"not valid JSON ({error})") from error
    except RecursionError as error:  # a hostile line of thousands of nested brackets
        raise _LineError("not valid JSON (nested too deeply)") from error
    if not _is_object(item):
        raise _LineError(f"a line must be a JSON object, not {type(item).__name__}")
    return item


def _is_object(item: object) -> TypeGuard[dict[str, Any]]:
    return isinstance(item, dict)


def _meta(item: dict[str, Any]) -> TraceMeta:
    version = item["trace"]
    if version != TRACE_VERSION or isinstance(version, bool):
        raise _LineError(f"trace version {version!r} is not supported (expected {TRACE_VERSION})")
    content = item.get("meta", {})
    if not _is_object(content):
        raise _LineError("meta must be a JSON object")
    return TraceMeta(content)


def _record(item: dict[str, Any]) -> TraceRecord:
    missing = [key for key in ("t", "link", "dir", "hex") if key not in item]
    if missing:
        raise _LineError(f"missing key {', '.join(missing)}")
    t, link, direction, hex_text = item["t"], item["link"], item["dir"], item["hex"]
    if isinstance(t, bool) or not isinstance(t, int | float) or not math.isfinite(t):
        raise _LineError(f"t must be a number of seconds, not {t!r}")
    if not isinstance(link, str) or not link:
        raise _LineError(f"link must be a non-empty string, not {link!r}")
    if direction not in DIRECTIONS:
        raise _LineError(f"dir must be 'rx' or 'tx', not {direction!r}")
    if not isinstance(hex_text, str) or _HEX_RE.fullmatch(hex_text) is None:
        raise _LineError(f"hex must be pairs of hex digits without separators, not {hex_text!r}")
    return TraceRecord(float(t), link, direction, bytes.fromhex(hex_text))


def _link_event(item: dict[str, Any]) -> TraceLinkEvent:
    t, link, event = item.get("t"), item.get("link"), item.get("event")
    if isinstance(t, bool) or not isinstance(t, int | float) or not math.isfinite(t):
        raise _LineError(f"t must be a finite number, not {t!r}")
    if not isinstance(link, str) or not link:
        raise _LineError(f"link must be a non-empty string, not {link!r}")
    if event not in LINK_EVENTS:
        raise _LineError(f"event must be 'connected' or 'disconnected', not {event!r}")
    return TraceLinkEvent(float(t), link, LINK_EVENTS[event])
