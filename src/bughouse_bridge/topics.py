"""The MQTT contract (``docs/contract.md`` §2–4): topics, envelopes and payloads. Pure.

This is the one module that knows what goes on the wire to broadcasts and arbiters. Changing a
payload shape here is a contract change and needs a new schema version.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

import chess

from bughouse_bridge.bughouse.events import (
    Alert,
    Check,
    Clocks,
    Flag,
    LinkChanged,
    Mate,
    MovePlayed,
    PocketSet,
    PositionAccepted,
    ResultDecided,
    ResultRevoked,
    Stalemate,
    Takeback,
)
from bughouse_bridge.bughouse.types import color_name

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping

    from bughouse_bridge.bughouse.events import MatchEvent

SCHEMA_VERSION = 1
DEFAULT_ROOT = "bughouse/v1"


@dataclass(frozen=True, slots=True)
class Publication:
    topic: str
    payload: bytes
    qos: int
    retain: bool


@dataclass(frozen=True, slots=True)
class Topics:
    """Every topic of one bridge serving one match."""

    root: str
    bridge: str
    match: str

    @property
    def status(self) -> str:
        return f"{self.root}/bridge/{self.bridge}/status"

    def device(self, link: str) -> str:
        return f"{self.root}/bridge/{self.bridge}/device/{link}"

    def request(self, verb: str) -> str:
        return f"{self.root}/bridge/{self.bridge}/request/{verb}"

    def response(self, verb: str) -> str:
        return f"{self.root}/bridge/{self.bridge}/response/{verb}"

    @property
    def request_filter(self) -> str:
        return f"{self.root}/bridge/{self.bridge}/request/+"

    @property
    def state(self) -> str:
        return f"{self.root}/match/{self.match}/state"

    @property
    def events(self) -> str:
        return f"{self.root}/match/{self.match}/events"

    @property
    def clock(self) -> str:
        return f"{self.root}/match/{self.match}/clock"

    @property
    def bpgn(self) -> str:
        return f"{self.root}/match/{self.match}/bpgn"

    @property
    def record(self) -> str:
        """The record's header (contract §2, "The game record")."""
        return f"{self.root}/match/{self.match}/record"

    def record_entry(self, n: int) -> str:
        return f"{self.root}/match/{self.match}/record/{n}"

    @property
    def games(self) -> str:
        """The games this bridge played (contract §2, "A box's games")."""
        return f"{self.root}/bridge/{self.bridge}/games"

    @property
    def alerts(self) -> str:
        return f"{self.root}/alerts"


_SEATS = (["white_a", "black_b"], ["black_a", "white_b"])


@dataclass(frozen=True, slots=True)
class Teams:
    """Team ids and player names. Team 0 is White A with Black B; team 1 is Black A with White B."""

    ids: tuple[str, str] = ("team-1", "team-2")
    names: tuple[str, str] = ("", "")
    players: Mapping[str, str] = field(default_factory=dict)  # "white_a" -> name, …

    def id_of(self, team: int | None) -> str | None:
        return None if team is None else self.ids[team]

    def as_dict(self) -> dict[str, Any]:
        return {
            "teams": [
                {"id": team_id, "name": name, "seats": seats}
                for team_id, name, seats in zip(self.ids, self.names, _SEATS, strict=True)
            ],
            "players": dict(self.players),
        }


def format_ts(epoch_seconds: float) -> str:
    """UTC ISO-8601 with milliseconds, e.g. ``2026-11-21T09:17:51.123Z``."""
    moment = datetime.fromtimestamp(epoch_seconds, tz=UTC)
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def encode_json(payload: Mapping[str, Any]) -> bytes:
    return json.dumps(payload, separators=(",", ":"), ensure_ascii=False).encode()


def piece_letter(piece: chess.Piece) -> str:
    return piece.symbol()


def event_type(event: MatchEvent) -> str:
    return _EVENT_TYPES[type(event)]


def event_fields(event: MatchEvent, teams: Teams) -> dict[str, Any]:
    """The type-specific fields of an event payload (contract §3)."""
    return _FIELD_BUILDERS[type(event)](event, teams)


def _move_fields(event: MovePlayed, _teams: Teams) -> dict[str, Any]:
    steal = None
    if event.steal is not None:
        steal = {
            "board": str(event.steal.board),
            "square": chess.square_name(event.steal.square),
            "piece": piece_letter(event.steal.piece),
        }
    return {
        "board": str(event.board),
        "color": color_name(event.color),
        "ply": event.ply,
        "uci": event.move.uci,
        "san": event.san,
        "fen": event.fen,
        "pockets": event.pockets.as_dict(),
        "clock_ms": event.clock_ms,
        "steal": steal,
        "forced": event.forced,
    } | ({"recovered": True} if event.recovered else {})


def _alert_fields(event: Alert, _teams: Teams) -> dict[str, Any]:
    return {
        "board": None if event.board is None else str(event.board),
        "color": None if event.color is None else color_name(event.color),
        "code": str(event.code),
        "severity": str(event.severity),
        "rule": None if event.rule is None else str(event.rule),
        "message": event.message,
        "details": event.details,
    }


def _seat_fields(event: Check | Mate | Stalemate | Flag) -> dict[str, Any]:
    return {"board": str(event.board), "color": color_name(event.color)}


def _check_fields(event: Check, _teams: Teams) -> dict[str, Any]:
    return _seat_fields(event)


def _mate_fields(event: Mate, _teams: Teams) -> dict[str, Any]:
    return {**_seat_fields(event), "status": str(event.status), "reason": event.reason}


def _stalemate_fields(event: Stalemate, _teams: Teams) -> dict[str, Any]:
    return {**_seat_fields(event), "status": str(event.status)}


def _flag_fields(event: Flag, _teams: Teams) -> dict[str, Any]:
    return {**_seat_fields(event), "at": event.at}


def _clocks_fields(event: Clocks, _teams: Teams) -> dict[str, Any]:
    return {"status": str(event.status)}


def _result_fields(event: ResultDecided, teams: Teams) -> dict[str, Any]:
    return {
        "winner": teams.id_of(event.winner_team),
        "board": str(event.board),
        "reason": event.reason,
        "bpgn_result": event.bpgn_result,
    }


def _revoked_fields(event: ResultRevoked, teams: Teams) -> dict[str, Any]:
    return {"reason": event.reason, "revoked": _result_fields(event.revoked, teams)}


def _link_fields(event: LinkChanged, _teams: Teams) -> dict[str, Any]:
    return {"link": event.link, "status": event.status, "details": event.details}


def _takeback_fields(event: Takeback, _teams: Teams) -> dict[str, Any]:
    return {"board": str(event.board), "ply": event.ply}


def _accepted_fields(event: PositionAccepted, _teams: Teams) -> dict[str, Any]:
    return {
        "board": str(event.board),
        "ply": event.ply,
        "fen": event.fen,
        "pockets": event.pockets.as_dict(),
    }


def _pocket_set_fields(event: PocketSet, _teams: Teams) -> dict[str, Any]:
    return {
        "board": str(event.board),
        "color": color_name(event.color),
        "pieces": event.pieces,
        "fen": event.fen,
        "pockets": event.pockets.as_dict(),
    }


_EVENT_TYPES: dict[type, str] = {
    MovePlayed: "move",
    Alert: "alert",
    Check: "check",
    Mate: "mate",
    Stalemate: "stalemate",
    Flag: "flag",
    Clocks: "clocks",
    ResultDecided: "result",
    ResultRevoked: "result_revoked",
    LinkChanged: "link",
    Takeback: "takeback",
    PositionAccepted: "accepted",
    PocketSet: "pocket_set",
}

# Each builder takes the event of its own type; the table is the one place that pairs them.
_FIELD_BUILDERS: dict[type, Callable[[Any, Teams], dict[str, Any]]] = {
    MovePlayed: _move_fields,
    Alert: _alert_fields,
    Check: _check_fields,
    Mate: _mate_fields,
    Stalemate: _stalemate_fields,
    Flag: _flag_fields,
    Clocks: _clocks_fields,
    ResultDecided: _result_fields,
    ResultRevoked: _revoked_fields,
    LinkChanged: _link_fields,
    Takeback: _takeback_fields,
    PositionAccepted: _accepted_fields,
    PocketSet: _pocket_set_fields,
}


@dataclass(frozen=True, slots=True)
class Envelope:
    """The fields every payload carries (contract §3)."""

    bridge: str
    match: str
    boot_id: str

    def wrap(self, *, seq: int | None, ts: str, t: float, kind: str) -> dict[str, Any]:
        envelope: dict[str, Any] = {
            "schema": SCHEMA_VERSION,
            "bridge": self.bridge,
            "match": self.match,
            "boot_id": self.boot_id,
        }
        if seq is not None:
            envelope["seq"] = seq
        envelope.update({"ts": ts, "t": round(t, 4), "type": kind})
        return envelope


def event_payload(
    event: MatchEvent, *, envelope: Envelope, seq: int, ts: str, teams: Teams
) -> dict[str, Any]:
    payload = envelope.wrap(seq=seq, ts=ts, t=event.t, kind=event_type(event))
    payload.update(event_fields(event, teams))
    return payload


def event_publications(topics: Topics, payload: Mapping[str, Any]) -> list[Publication]:
    """An event goes to the match's one ordered stream; alerts also to the bridge-wide feed."""
    body = encode_json(payload)
    publications = [Publication(topics.events, body, qos=1, retain=False)]
    if payload["type"] == "alert":
        publications.append(Publication(topics.alerts, body, qos=1, retain=False))
    return publications


@dataclass(frozen=True, slots=True)
class Wire:
    """One bridge serving one match, on the wire: each method turns one thing the core knows
    into its publication (topic, envelope, payload, QoS, retain), so that the core crosses into
    this module once per message."""

    topics: Topics
    boot_id: str
    origin_epoch: float = 0.0  # wall-clock epoch of t = 0, only used for ``ts``

    @property
    def envelope(self) -> Envelope:
        return Envelope(self.topics.bridge, self.topics.match, self.boot_id)

    def ts(self, t: float) -> str:
        return format_ts(self.origin_epoch + t)

    def event(
        self, event: MatchEvent, *, seq: int, teams: Teams, after_result: bool
    ) -> tuple[dict[str, Any], list[Publication]]:
        """An event's payload (contract §3) and where it goes."""
        payload = event_payload(
            event, envelope=self.envelope, seq=seq, ts=self.ts(event.t), teams=teams
        )
        if after_result:
            payload["after_result"] = True
        return payload, event_publications(self.topics, payload)

    def state(self, snapshot: Mapping[str, Any], t: float) -> Publication:
        payload = self.envelope.wrap(seq=None, ts=self.ts(t), t=t, kind="state")
        payload.update(snapshot)
        return Publication(self.topics.state, encode_json(payload), qos=1, retain=True)

    def clock(self, board: str, t: float, now: float, clock: Mapping[str, Any]) -> Publication:
        payload = self.envelope.wrap(seq=None, ts=self.ts(now), t=t, kind="clock")
        payload.update({"board": board, **clock})
        return Publication(self.topics.clock, encode_json(payload), qos=0, retain=False)

    def device(self, link: str, info: Mapping[str, Any]) -> Publication:
        return Publication(self.topics.device(link), encode_json(info), qos=1, retain=True)

    def bpgn(self, text: str) -> Publication:
        return Publication(self.topics.bpgn, text.encode(), qos=1, retain=True)

    def record_entry(self, n: int, t: float, fields: Mapping[str, Any]) -> Publication:
        """Entry ``n`` of the game record (contract §2, "The game record")."""
        payload = {
            "schema": SCHEMA_VERSION,
            "match": self.topics.match,
            "n": n,
            "t": round(t, 4),
            "ts": self.ts(t),
            **fields,
        }
        return Publication(self.topics.record_entry(n), encode_json(payload), qos=1, retain=True)

    def record_cleared(self, n: int) -> Publication:
        """Entry ``n`` is no longer part of the record: its retained message goes."""
        return Publication(self.topics.record_entry(n), b"", qos=1, retain=True)

    def record_header(self, fields: Mapping[str, Any]) -> Publication:
        payload = {"schema": SCHEMA_VERSION, "match": self.topics.match, **fields}
        return Publication(self.topics.record, encode_json(payload), qos=1, retain=True)

    def games(self, fields: Mapping[str, Any]) -> Publication:
        payload = {"schema": SCHEMA_VERSION, "bridge": self.topics.bridge, **fields}
        return Publication(self.topics.games, encode_json(payload), qos=1, retain=True)
