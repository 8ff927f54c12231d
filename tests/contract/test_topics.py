"""The MQTT contract (docs/contract.md §2–3): topics and event payload shapes, pinned."""

from __future__ import annotations

import json

import chess
import pytest

from bughouse_bridge.bughouse.events import (
    Alert,
    Check,
    Clocks,
    ClocksStatus,
    Flag,
    LinkChanged,
    Mate,
    MateStatus,
    MovePlayed,
    Pockets,
    ResultDecided,
    Severity,
    Stalemate,
    StalemateStatus,
    StealInfo,
    Takeback,
)
from bughouse_bridge.bughouse.types import AlertCode, BoardId, BughouseMove, RuleRef
from bughouse_bridge.topics import (
    Envelope,
    Teams,
    Topics,
    event_payload,
    event_publications,
    format_ts,
)

ENVELOPE = Envelope(bridge="table-7", match="round-1-table-7", boot_id="boot-1")
TEAMS = Teams(ids=("lions", "tigers"))
TOPICS = Topics(root="bughouse/v1", bridge="table-7", match="round-1-table-7")

STEAL_MOVE = MovePlayed(
    t=12.5,
    board=BoardId.A,
    color=chess.WHITE,
    ply=31,
    move=BughouseMove(BoardId.A, chess.Move.from_uci("e7e8q"), steal_square=chess.D1),
    san="e8=Q+",
    fen="4Q3/8/8/8/8/8/8/4K2k[] b - - 0 16",
    pockets=Pockets(a_white="PN", b_white="P"),
    clock_ms=61000,
    steal=StealInfo(BoardId.B, chess.D1, chess.Piece(chess.QUEEN, chess.WHITE)),
)
DROP_MOVE = MovePlayed(
    t=3.0,
    board=BoardId.B,
    color=chess.BLACK,
    ply=8,
    move=BughouseMove(BoardId.B, chess.Move(chess.F6, chess.F6, drop=chess.KNIGHT)),
    san="N@f6",
    fen="x",
    pockets=Pockets(),
)


@pytest.mark.parametrize(
    ("event", "kind", "fields"),
    [
        (
            STEAL_MOVE,
            "move",
            {
                "board": "A",
                "color": "white",
                "ply": 31,
                "uci": "e7e8q",
                "san": "e8=Q+",
                "clock_ms": 61000,
                "steal": {"board": "B", "square": "d1", "piece": "Q"},
                "pockets": {"A": {"white": "PN", "black": ""}, "B": {"white": "P", "black": ""}},
                "forced": False,
            },
        ),
        (DROP_MOVE, "move", {"uci": "N@f6", "color": "black", "steal": None, "clock_ms": None}),
        (
            Alert(
                t=1.0,
                board=BoardId.B,
                color=chess.BLACK,
                code=AlertCode.DROP_MATE,
                severity=Severity.ILLEGAL,
                rule=RuleRef("dsj", 2, "3.2"),
                message="Black dropped a knight on f2 that mates; DSJ 3.2 forbids it.",
                details={"square": "f2"},
            ),
            "alert",
            {"board": "B", "color": "black", "code": "drop_mate", "rule": "dsj row 2 (3.2)"},
        ),
        (
            Alert(
                1.0, None, None, AlertCode.LINK_LOST, Severity.WARNING, None, "Board B is silent."
            ),
            "alert",
            {"board": None, "color": None, "rule": None, "details": {}},
        ),
        (Check(1.0, BoardId.A, chess.BLACK), "check", {"board": "A", "color": "black"}),
        (
            Mate(1.0, BoardId.A, chess.BLACK, MateStatus.PENDING, "partner may capture a knight"),
            "mate",
            {"status": "pending", "color": "black"},
        ),
        (
            Stalemate(1.0, BoardId.B, chess.WHITE, StalemateStatus.WAITING),
            "stalemate",
            {"status": "waiting", "board": "B"},
        ),
        (Flag(9.0, BoardId.B, chess.WHITE, at=8.4), "flag", {"at": 8.4, "color": "white"}),
        (Clocks(2.0, ClocksStatus.BOTH_STOPPED), "clocks", {"status": "both_stopped"}),
        (
            ResultDecided(5.0, 1, BoardId.B, "checkmate", "1-0"),
            "result",
            {"winner": "tigers", "board": "B", "reason": "checkmate", "bpgn_result": "1-0"},
        ),
        (
            ResultDecided(5.0, None, BoardId.A, "draw", "1/2-1/2"),
            "result",
            {"winner": None},
        ),
        (
            LinkChanged(4.0, "A", "disconnected", {"reason": "unplugged"}),
            "link",
            {"link": "A", "status": "disconnected", "details": {"reason": "unplugged"}},
        ),
        (Takeback(4.0, BoardId.A, 11), "takeback", {"board": "A", "ply": 11}),
    ],
    ids=lambda value: value if isinstance(value, str) else "",
)
def test_event_payload_has_envelope_and_type_fields(event, kind, fields):
    payload = event_payload(
        event, envelope=ENVELOPE, seq=42, ts="2026-11-21T09:00:00.000Z", teams=TEAMS
    )
    assert payload["schema"] == 1
    assert payload["bridge"] == "table-7"
    assert payload["match"] == "round-1-table-7"
    assert payload["boot_id"] == "boot-1"
    assert payload["seq"] == 42
    assert payload["t"] == event.t
    assert payload["type"] == kind
    for key, value in fields.items():
        assert payload[key] == value, key
    json.dumps(payload)  # everything must be JSON-serialisable


def test_alerts_also_go_to_the_bridge_wide_alert_topic():
    alert = Alert(1.0, BoardId.A, chess.WHITE, AlertCode.FLAG, Severity.INFO, None, "flag")
    payload = event_payload(alert, envelope=ENVELOPE, seq=1, ts="x", teams=TEAMS)
    topics = [(p.topic, p.qos, p.retain) for p in event_publications(TOPICS, payload)]
    assert topics == [
        ("bughouse/v1/match/round-1-table-7/events", 1, False),
        ("bughouse/v1/alerts", 1, False),
    ]


def test_moves_go_only_to_the_match_event_stream():
    payload = event_payload(DROP_MOVE, envelope=ENVELOPE, seq=1, ts="x", teams=TEAMS)
    assert [p.topic for p in event_publications(TOPICS, payload)] == [TOPICS.events]


@pytest.mark.parametrize(
    ("topic", "expected"),
    [
        (TOPICS.status, "bughouse/v1/bridge/table-7/status"),
        (TOPICS.device("A"), "bughouse/v1/bridge/table-7/device/A"),
        (TOPICS.request("takeback"), "bughouse/v1/bridge/table-7/request/takeback"),
        (TOPICS.response("takeback"), "bughouse/v1/bridge/table-7/response/takeback"),
        (TOPICS.request_filter, "bughouse/v1/bridge/table-7/request/+"),
        (TOPICS.state, "bughouse/v1/match/round-1-table-7/state"),
        (TOPICS.events, "bughouse/v1/match/round-1-table-7/events"),
        (TOPICS.clock, "bughouse/v1/match/round-1-table-7/clock"),
        (TOPICS.bpgn, "bughouse/v1/match/round-1-table-7/bpgn"),
        (TOPICS.alerts, "bughouse/v1/alerts"),
    ],
)
def test_topic_names(topic, expected):
    assert topic == expected


@pytest.mark.parametrize(
    ("epoch", "text"),
    [(0.0, "1970-01-01T00:00:00.000Z"), (1795252671.1234, "2026-11-21T09:17:51.123Z")],
)
def test_timestamps_are_utc_iso_with_milliseconds(epoch, text):
    assert format_ts(epoch) == text
