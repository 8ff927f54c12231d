"""No arbiter request can make the pure bridge raise, hang or change state without saying ok.

Properties feed every verb arbitrary payloads — random bytes, JSON of any shape, huge integers,
deep nesting, lone surrogates — and check the answer: always a response that encodes as valid
UTF-8 JSON, and a refused request leaves snapshot, numbering and BPGN exactly as they were.
"""

from __future__ import annotations

import copy
import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_bridge import game_chunks, make_bridge

from bughouse_bridge.bridge import Bridge, replay_chunks
from bughouse_bridge.bughouse.match import Match
from bughouse_bridge.request_parsing import MAX_PAYLOAD_BYTES, RequestError, parse_request

VERBS = ["status", "new_game", "set_result", "takeback", "resync", "accept", "set_pocket"]
ODD_VERBS = ["", "frobnicate", "\ud800", "x" * 5000, "status/extra"]

SURROGATES = st.characters(min_codepoint=0xD800, max_codepoint=0xDFFF)
TEXT = st.text(st.one_of(st.characters(), SURROGATES), max_size=40)
SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.integers(min_value=10**20, max_value=10**60),
    st.floats(allow_nan=True, allow_infinity=True),
    TEXT,
    st.sampled_from(["A", "B", "C", "white", "black", "PPN", "", "resign"]),
)
JSON_VALUES = st.recursive(
    SCALARS,
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(TEXT, inner, max_size=4)),
    max_leaves=20,
)
KEYS = st.sampled_from(["transaction", "board", "color", "pieces", "winner", "reason", "gap"])
REQUESTS = st.dictionaries(st.one_of(KEYS, TEXT), JSON_VALUES, max_size=6)


def encode(value: object) -> bytes:
    """JSON as a hostile client might send it: NaN allowed, surrogates escaped as ``\\udXXX``."""
    return json.dumps(value, allow_nan=True).encode()


PAYLOADS = st.one_of(
    st.binary(max_size=200),
    REQUESTS.map(encode),
    JSON_VALUES.map(encode),
    st.integers(1, 60_000).map(lambda n: b"[" * n + b"]" * n),
    st.integers(1, 60_000).map(lambda n: b'{"a":' * n + b"1" + b"}" * n),
    st.integers(20, 6000).map(lambda n: b'{"board": ' + b"9" * n + b"}"),
    st.integers(20, 6000).map(lambda n: b'{"transaction": 1e' + b"9" * n + b"}"),
    st.sampled_from(
        [
            b'{"transaction": "\\ud800"}',
            b'{"board": "A", "reason": "\\udfff\\ud800"}',
            b'{"\\ud83d": 1}',
            b'{"board": NaN}',
            b'{"board": Infinity, "transaction": -Infinity}',
            b'{"board": "A", "board": "B"}',
            b"\xed\xa0\x80",  # a surrogate encoded as UTF-8 bytes: not valid UTF-8
            b"\xff\xfe{}",
            b"{" + b'"k": 1,' * 100 + b'"z": 2}',
            b'{"pieces": "' + b"P" * 5000 + b'"}',
            b" " * (MAX_PAYLOAD_BYTES + 1),
        ]
    ),
)


def _played_bridge() -> Bridge:
    bridge = make_bridge()
    replay_chunks(bridge, game_chunks()[:200])
    return bridge


PLAYED = _played_bridge()


def played() -> Bridge:
    """A private copy of a bridge 200 chunks into a game (the frozen config is shared)."""
    config = PLAYED._config
    frozen = (config, config.rules, config.reconstructor)
    return copy.deepcopy(PLAYED, {id(item): item for item in frozen})


def state_of(bridge: Bridge) -> tuple[object, ...]:
    return (bridge.snapshot(), bridge.last_seq, bridge.bpgn_text())


def assert_well_formed(bridge: Bridge, response: dict[str, object]) -> None:
    assert isinstance(response["ok"], bool)
    decoded = json.loads(bridge.encode_response(response).decode("utf-8"))
    assert decoded["ok"] is response["ok"]
    if not response["ok"]:
        assert isinstance(response["error"], str)
        assert response["error"]


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(verb=st.sampled_from(VERBS + ODD_VERBS), payload=PAYLOADS)
def test_no_payload_makes_any_verb_raise_and_a_refusal_changes_nothing(verb, payload):
    bridge = played()
    before = state_of(bridge)
    response, output = bridge.command(verb, payload, now=600.0)
    assert_well_formed(bridge, response)
    assert bridge.last_command_failure is None, bridge.last_command_failure
    if not response["ok"]:
        assert output.publications == output.writes == output.events == ()
        assert state_of(bridge) == before


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(verb=st.sampled_from(VERBS), request=REQUESTS)
def test_arguments_of_any_shape_are_answered(verb, request):
    bridge = played()
    response, _ = bridge.command(verb, encode(request), now=600.0)
    assert_well_formed(bridge, response)
    assert bridge.last_command_failure is None, bridge.last_command_failure


@pytest.mark.parametrize(
    ("payload", "sentence"),
    [
        (b"[" * 5000 + b"]" * 5000, "nests deeper"),
        (b'{"board": ' + b"1" * 5000 + b"}", "number"),
        (b'{"transaction": "\\ud800"}', "not valid Unicode"),
        (b'{"board": NaN}', "NaN is not a JSON number"),
        (b'{"board": 1e999}', "out of range"),
        (b'{"board": "A", "board": "B"}', "repeats a key"),
        (b"\xed\xa0\x80", "not valid UTF-8"),
        (b" " * (MAX_PAYLOAD_BYTES + 1), "bytes; at most"),
        (b'{"reason": "' + b"r" * 2000 + b'"}', "longer than"),
        (b"{" + b",".join(b'"k%d": 1' % i for i in range(40)) + b"}", "more than 32 keys"),
        (b"[1]", "JSON object"),
        (b"{oops", "not valid JSON"),
    ],
)
def test_parse_request_names_the_limit_it_enforces(payload, sentence):
    with pytest.raises(RequestError, match=sentence):
        parse_request(payload)


def test_parse_request_keeps_ordinary_requests_intact():
    payload = b'{"transaction": "t-1", "board": "A", "color": "white", "pieces": "PPN", "n": -3}'
    assert parse_request(payload) == {
        "transaction": "t-1",
        "board": "A",
        "color": "white",
        "pieces": "PPN",
        "n": -3,
    }
    assert parse_request(b"") == {}


@pytest.mark.parametrize("transaction", [{"nested": 1}, [1], "t" * 300, 1.5, True])
def test_an_odd_transaction_is_refused_and_not_echoed(transaction):
    response, _ = make_bridge().command("status", encode({"transaction": transaction}), now=1.0)
    assert response == {
        "transaction": None,
        "ok": False,
        "error": "'transaction' must be a string of at most 256 characters",
    }


def test_a_handler_that_fails_midway_is_rolled_back_and_reported(monkeypatch):
    bridge = played()
    before = state_of(bridge)

    def takeback_then_fail(match, board, *, t):
        match.set_result(None, board, "half-done", t=t)  # a change, then a crash
        raise ZeroDivisionError

    monkeypatch.setattr(Match, "takeback", takeback_then_fail)
    response, output = bridge.command("takeback", b'{"transaction": 7, "board": "A"}', now=700.0)
    assert response == {
        "transaction": 7,
        "ok": False,
        "error": "the bridge failed to carry out 'takeback' (ZeroDivisionError); "
        "nothing was changed",
    }
    assert isinstance(bridge.last_command_failure, ZeroDivisionError)
    assert output.events == ()
    assert state_of(bridge) == before
    assert bridge.command("status", b"{}", now=701.0)[0]["ok"] is True


def test_input_failed_is_a_numbered_alert_for_the_links_board():
    bridge = make_bridge()
    output = bridge.input_failed("rx", KeyError("x"), 5.0, link="B")
    (alert,) = output.events
    assert (alert["type"], alert["code"], alert["board"], alert["seq"]) == (
        "alert",
        "input_failed",
        "B",
        1,
    )
    assert alert["details"] == {"input": "rx", "link": "B", "error": "KeyError"}
    assert bridge.input_failed("rx", KeyError("y"), 6.0, link="B").events == ()  # no flood
    assert len(bridge.input_failed("rx", KeyError("y"), 7.0, link="A").events) == 1
    assert len(bridge.input_failed("timer", ValueError(), 8.0).events) == 1


def test_without_a_checkpoint_a_failure_says_it_may_be_partly_done(monkeypatch):
    bridge = played()

    def takeback_then_fail(match, board, *, t):
        raise ZeroDivisionError

    monkeypatch.setattr(Match, "takeback", takeback_then_fail)
    monkeypatch.setattr(Bridge, "checkpoint", lambda _bridge: None)
    response, _ = bridge.command("takeback", b'{"board": "A"}', now=700.0)
    assert response["ok"] is False
    assert response["error"].endswith("ask for status: it may be partly done")
