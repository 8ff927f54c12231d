"""Round files: per table the two teams (first-named first) and the four players by seat.

TOML::

    round = 1
    [[tables]]
    table = 1
    first = { name = "Lions", black_a = "Anna", white_b = "Ben" }
    second = { name = "Tigers", white_a = "Carl", black_b = "Dora" }

CSV, one row per team, the first-named team of a table first::

    round,table,team,white_a,black_a,white_b,black_b
    1,1,Lions,,Anna,Ben,
    1,1,Tigers,Carl,,,Dora

A team may carry an ``id`` (TOML key or an ``id`` CSV column); otherwise it is the name in lower
case with dashes. The round is published as JSON (:func:`round_payload`) on ``<root>/hall/round``.

What can be checked of the seating (DSJ 8.2, DSB 10.2: the first-named team plays Black on board
1, i.e. Black A and White B): a box cannot see who sits on which chair, so the check is on the
pairing itself — each team on one partner pair, the first-named team on Black A + White B.
"""

from __future__ import annotations

import csv
import io
import json
import re
import tomllib
from dataclasses import dataclass
from typing import Any

from bughouse_bridge.topics import Teams

SEATS = ("white_a", "black_a", "white_b", "black_b")
FIRST_TEAM_SEATS = frozenset({"black_a", "white_b"})  # DSJ 8.2 / DSB 10.2
WHITE_A_PAIR = frozenset({"white_a", "black_b"})
PAIRS = (WHITE_A_PAIR, FIRST_TEAM_SEATS)
ROUND_SCHEMA = 1


class RoundFileError(ValueError):
    """A round file or payload that cannot be read; the message says where and why."""


@dataclass(frozen=True, slots=True)
class TeamEntry:
    id: str
    name: str
    seats: tuple[tuple[str, str], ...]  # (seat, player) in SEATS order

    @property
    def seat_names(self) -> frozenset[str]:
        return frozenset(seat for seat, _ in self.seats)

    def as_dict(self) -> dict[str, Any]:
        return {"id": self.id, "name": self.name, "players": dict(self.seats)}


@dataclass(frozen=True, slots=True)
class Pairing:
    round: int
    table: int
    first: TeamEntry
    second: TeamEntry

    def as_dict(self) -> dict[str, Any]:
        return {"first": self.first.as_dict(), "second": self.second.as_dict()}

    def teams(self) -> Teams:
        """The core's order: team 0 plays White on board A (the first-named team when it
        sits on the White A pair, which DSJ 8.2 forbids but an arbiter may still allow)."""
        first_white_a = bool(self.first.seat_names) and self.first.seat_names <= WHITE_A_PAIR
        ordered = (self.first, self.second) if first_white_a else (self.second, self.first)
        players = {seat: name for team in ordered for seat, name in team.seats}
        return Teams(
            ids=(ordered[0].id, ordered[1].id),
            names=(ordered[0].name, ordered[1].name),
            players={seat: players[seat] for seat in SEATS if seat in players},
        )


@dataclass(frozen=True, slots=True)
class Round:
    number: int
    pairings: tuple[Pairing, ...]

    def pairing(self, table: int) -> Pairing | None:
        return next((p for p in self.pairings if p.table == table), None)


def slug(name: str) -> str:
    text = re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")
    return text[:64] or "team"


def seating_problems(pairing: Pairing) -> list[str]:
    """Sentences for an arbiter; empty when the pairing seats both teams by the rules."""
    problems = []
    for label, team in (("first-named", pairing.first), ("second", pairing.second)):
        if team.seat_names and not any(team.seat_names <= pair for pair in PAIRS):
            problems.append(
                f"table {pairing.table}: the {label} team {team.name} is on "
                f"{', '.join(sorted(team.seat_names))}, not on one partner pair"
            )
    taken = pairing.first.seat_names & pairing.second.seat_names
    if taken:
        problems.append(f"table {pairing.table}: both teams on {', '.join(sorted(taken))}")
    first = pairing.first.seat_names
    if first and any(first <= pair for pair in PAIRS) and not first <= FIRST_TEAM_SEATS:
        problems.append(
            f"table {pairing.table}: the first-named team {pairing.first.name} must play Black "
            "on board A and White on board B (DSJ 8.2, DSB 10.2)"
        )
    return problems


# -- reading files ---------------------------------------------------------------------------


def parse_round_file(name: str, text: str) -> Round:
    """A ``.toml`` or ``.csv`` round file (by its name)."""
    if name.lower().endswith(".csv"):
        return parse_round_csv(text)
    if name.lower().endswith(".toml"):
        return parse_round_toml(text)
    raise RoundFileError(f"{name}: a round file ends in .toml or .csv")


def parse_round_toml(text: str) -> Round:
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise RoundFileError(f"invalid TOML: {error}") from error
    unknown = sorted(set(data) - {"round", "tables"})
    if unknown:
        raise RoundFileError(f"unknown key(s) {', '.join(unknown)}; expected round, tables")
    number = _positive(data.get("round"), "round")
    tables = data.get("tables")
    if not isinstance(tables, list) or not tables:
        raise RoundFileError("expected at least one [[tables]] entry")
    pairings = []
    for index, entry in enumerate(tables, start=1):
        where = f"tables[{index}]"
        if not isinstance(entry, dict):
            raise RoundFileError(f"{where}: expected a table")
        extra = sorted(set(entry) - {"table", "first", "second"})
        if extra:
            raise RoundFileError(f"{where}: unknown key(s) {', '.join(extra)}")
        table = _positive(entry.get("table"), f"{where}.table")
        first = _team(entry.get("first"), f"{where}.first")
        second = _team(entry.get("second"), f"{where}.second")
        pairings.append(Pairing(number, table, first, second))
    return _checked(Round(number, tuple(pairings)))


def parse_round_csv(text: str) -> Round:
    reader = csv.DictReader(io.StringIO(text))
    fields = set(reader.fieldnames or ())
    missing = sorted({"round", "table", "team", *SEATS} - fields)
    if missing:
        raise RoundFileError(f"CSV header lacks {', '.join(missing)}")
    teams: dict[int, list[TeamEntry]] = {}
    numbers = set()
    for row in reader:
        where = f"line {reader.line_num}"
        numbers.add(_positive(_int(row["round"], f"{where}: round"), f"{where}: round"))
        table = _positive(_int(row["table"], f"{where}: table"), f"{where}: table")
        raw = {"name": row["team"], **{seat: row[seat] for seat in SEATS if row[seat]}}
        if row.get("id"):
            raw["id"] = row["id"]
        teams.setdefault(table, []).append(_team(raw, where))
    if len(numbers) != 1:
        raise RoundFileError(f"expected one round number in the file, got {sorted(numbers)}")
    number = numbers.pop()
    pairings = []
    for table, entries in teams.items():
        if len(entries) != 2:
            raise RoundFileError(f"table {table}: expected two team rows, got {len(entries)}")
        pairings.append(Pairing(number, table, entries[0], entries[1]))
    return _checked(Round(number, tuple(pairings)))


def _checked(parsed: Round) -> Round:
    tables = [p.table for p in parsed.pairings]
    duplicates = sorted({t for t in tables if tables.count(t) > 1})
    if duplicates:
        raise RoundFileError(f"table(s) {', '.join(map(str, duplicates))} paired twice")
    for pairing in parsed.pairings:
        if pairing.first.id == pairing.second.id:
            raise RoundFileError(
                f"table {pairing.table}: both teams have the id {pairing.first.id}"
            )
    return parsed


def _team(raw: object, where: str) -> TeamEntry:
    if not isinstance(raw, dict):
        raise RoundFileError(f"{where}: expected a team with name and seats")
    extra = sorted(set(raw) - {"id", "name", *SEATS})
    if extra:
        raise RoundFileError(f"{where}: unknown key(s) {', '.join(extra)}")
    name = raw.get("name")
    if not isinstance(name, str) or not name.strip():
        raise RoundFileError(f"{where}: the team needs a name")
    team_id = raw.get("id", slug(name))
    if not isinstance(team_id, str) or not re.fullmatch(r"[a-z0-9-]{1,64}", team_id):
        raise RoundFileError(f"{where}: team id {team_id!r} must be [a-z0-9-]")
    seats = []
    for seat in SEATS:
        player = raw.get(seat)
        if player is None:
            continue
        if not isinstance(player, str) or not player.strip():
            raise RoundFileError(f"{where}.{seat}: expected a player's name")
        seats.append((seat, player.strip()))
    if len(seats) != 2:
        raise RoundFileError(f"{where}: team {name} needs exactly two players (seats)")
    return TeamEntry(team_id, name.strip(), tuple(seats))


def _int(value: str | None, where: str) -> int:
    try:
        return int(value or "")
    except ValueError:
        raise RoundFileError(f"{where}: expected a number, got {value!r}") from None


def _positive(value: object, where: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise RoundFileError(f"{where}: expected a positive whole number, got {value!r}")
    return value


# -- the MQTT payload ------------------------------------------------------------------------


def round_payload(parsed: Round, *, ts: str) -> bytes:
    body = {
        "schema": ROUND_SCHEMA,
        "round": parsed.number,
        "ts": ts,
        "tables": {str(p.table): p.as_dict() for p in parsed.pairings},
    }
    return json.dumps(body, separators=(",", ":"), ensure_ascii=False).encode()


def round_from_payload(payload: bytes) -> Round:
    try:
        body = json.loads(payload)
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise RoundFileError(f"the round is not valid JSON: {error}") from error
    return round_from_dict(body)


def round_from_dict(body: object) -> Round:
    """The round as published (:func:`round_payload`), already decoded from JSON."""
    if not isinstance(body, dict) or not isinstance(body.get("tables"), dict):
        raise RoundFileError("the round must be an object with 'round' and 'tables'")
    number = _positive(body.get("round"), "round")
    pairings = []
    for key, entry in body["tables"].items():
        table = _positive(_int(key, "table"), "table")
        if not isinstance(entry, dict):
            raise RoundFileError(f"table {key}: expected first and second teams")
        teams = [
            _team({**_players(entry.get(side), f"table {key}.{side}")}, f"table {key}.{side}")
            for side in ("first", "second")
        ]
        pairings.append(Pairing(number, table, teams[0], teams[1]))
    return _checked(Round(number, tuple(pairings)))


def _players(raw: object, where: str) -> dict[str, Any]:
    if not isinstance(raw, dict) or not isinstance(raw.get("players"), dict):
        raise RoundFileError(f"{where}: expected id, name and players")
    return {"id": raw.get("id"), "name": raw.get("name"), **raw["players"]}
