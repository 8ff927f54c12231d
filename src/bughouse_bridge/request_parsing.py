"""Arbiter requests, parsed with limits: no payload can make the bridge raise or hang. Pure.

An arbiter request arrives as raw MQTT bytes from anyone who can publish on the request topic.
``json.loads`` alone is not safe for that: deep nesting raises ``RecursionError``, an integer with
thousands of digits raises a plain ``ValueError`` (CPython's ``int_max_str_digits``), ``NaN`` is
accepted, and a ``\\ud800`` escape gives a string that cannot be encoded again — which used to
surface only later, when the echoed transaction or a stored ``reason`` was published. Every limit
is checked here, before anything else sees the request, and each violation is one
``RequestError`` with a sentence for the arbiter.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from collections.abc import Callable

MAX_PAYLOAD_BYTES = 16 * 1024  # the largest real request (set_pocket, set_result) is < 300 B
MAX_DEPTH = 4  # no verb takes nested arguments; 4 leaves room for a structured transaction id
MAX_KEYS = 32  # per object
MAX_STRING_CHARS = 1024
MAX_NUMBER_CHARS = 24  # an int64 has 19 digits; floats in requests are times in seconds
MAX_TRANSACTION_CHARS = 256
MAX_VERB_CHARS = 64


class RequestError(ValueError):
    """A request that breaks a limit or is not a JSON object; the sentence goes back as is."""


@dataclass(frozen=True, slots=True)
class Limits:
    payload_bytes: int = MAX_PAYLOAD_BYTES
    depth: int = MAX_DEPTH
    keys: int = MAX_KEYS
    string_chars: int = MAX_STRING_CHARS
    number_chars: int = MAX_NUMBER_CHARS


DEFAULT_LIMITS = Limits()


def parse_request(payload: bytes, limits: Limits = DEFAULT_LIMITS) -> dict[str, Any]:
    """The request object, or ``RequestError``. An empty payload is the empty request ``{}``."""
    if len(payload) > limits.payload_bytes:
        raise RequestError(
            f"the request is {len(payload)} bytes; at most {limits.payload_bytes} are accepted"
        )
    try:
        text = bytes(payload).decode("utf-8") if payload else "{}"
    except UnicodeDecodeError as error:
        raise RequestError(f"the request is not valid UTF-8: {error}") from error
    _check_depth(text, limits.depth)
    try:
        request = json.loads(
            text,
            parse_int=_number_parser(int, limits.number_chars),
            parse_float=_number_parser(float, limits.number_chars),
            parse_constant=_reject_constant,
            object_pairs_hook=_object_builder(limits.keys),
        )
    except RequestError:
        raise
    except (json.JSONDecodeError, ValueError, RecursionError) as error:
        raise RequestError(f"the request is not valid JSON: {error}") from error
    if not isinstance(request, dict):
        raise RequestError("the request must be a JSON object")
    _check_strings(request, limits.string_chars)
    return request


def transaction_of(request: dict[str, Any]) -> str | int | None:
    """The transaction to echo; ``RequestError`` when it is neither a short string nor an int."""
    transaction = request.get("transaction")
    if transaction is None or (isinstance(transaction, int) and not isinstance(transaction, bool)):
        return transaction
    if isinstance(transaction, str) and len(transaction) <= MAX_TRANSACTION_CHARS:
        return transaction
    raise RequestError(
        f"'transaction' must be a string of at most {MAX_TRANSACTION_CHARS} characters"
    )


def printable_verb(verb: str) -> str:
    """The verb as it may appear in an error sentence: escaped and cut short."""
    shown = ascii(verb[:MAX_VERB_CHARS])
    return shown if len(verb) <= MAX_VERB_CHARS else shown + "…"


def _check_depth(text: str, limit: int) -> None:
    """Reject nesting deeper than ``limit`` before the recursive decoder meets it."""
    depth = 0
    in_string = escaped = False
    for char in text:
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "[{":
            depth += 1
            if depth > limit:
                raise RequestError(f"the request nests deeper than {limit} levels")
        elif char in "]}":
            depth -= 1


def _number_parser(kind: type[int | float], limit: int) -> Callable[[str], int | float]:
    def parse(literal: str) -> int | float:
        if len(literal) > limit:
            raise RequestError(f"a number in the request is longer than {limit} characters")
        value = kind(literal)
        if isinstance(value, float) and not math.isfinite(value):
            raise RequestError("a number in the request is out of range")
        return value

    return parse


def _reject_constant(name: str) -> None:
    raise RequestError(f"{name} is not a JSON number")


def _object_builder(limit: int) -> Callable[[list[tuple[str, Any]]], dict[str, Any]]:
    def build(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        if len(pairs) > limit:
            raise RequestError(f"an object in the request has more than {limit} keys")
        built = dict(pairs)
        if len(built) != len(pairs):
            raise RequestError("an object in the request repeats a key")
        return built

    return build


def _check_strings(value: object, limit: int) -> None:
    """Every key and string must be short and encodable (no lone UTF-16 surrogates)."""
    if isinstance(value, dict):
        for key, item in value.items():
            _check_string(key, limit)
            _check_strings(item, limit)
    elif isinstance(value, list):
        for item in value:
            _check_strings(item, limit)
    elif isinstance(value, str):
        _check_string(value, limit)


def _check_string(text: str, limit: int) -> None:
    if len(text) > limit:
        raise RequestError(f"a string in the request is longer than {limit} characters")
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as error:
        raise RequestError(
            "a string in the request is not valid Unicode (a lone UTF-16 surrogate?)"
        ) from error
