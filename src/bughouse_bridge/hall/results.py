"""Results tables and status lines from what the boxes publish (pure).

A match's retained ``state`` carries its result (contract §4); the hall's match ids say round,
table and game (:mod:`naming`). ``first_team`` is the team seated Black A + White B — the
first-named team of the pairing when the seating follows DSJ 8.2 / DSB 10.2.
"""

from __future__ import annotations

import csv
import io
import json
from dataclasses import asdict, dataclass
from datetime import datetime
from typing import Any

from bughouse_bridge.hall.naming import parse_match_id

RESULT_COLUMNS = (
    "round",
    "table",
    "game",
    "match",
    "first_team",
    "second_team",
    "winner",
    "winner_name",
    "reason",
    "board",
    "bpgn_result",
)


@dataclass(frozen=True, slots=True)
class ResultRow:
    round: int
    table: int
    game: int
    match: str
    first_team: str
    second_team: str
    winner: str | None  # team id, None for a draw
    winner_name: str | None
    reason: str
    board: str  # the deciding board
    bpgn_result: str

    @classmethod
    def from_state(cls, state: dict[str, Any]) -> ResultRow | None:
        """The row of a finished hall match, or None (no result yet, or not a hall match)."""
        match = state.get("match")
        result = state.get("result")
        if not isinstance(match, str) or not isinstance(result, dict):
            return None
        parsed = parse_match_id(match)
        if parsed is None:
            return None
        teams = {team["id"]: team for team in state.get("teams", []) if isinstance(team, dict)}
        first = next((t for t in teams.values() if "black_a" in t.get("seats", ())), None)
        second = next((t for t in teams.values() if t is not first), None)
        winner = result.get("winner")
        return cls(
            round=parsed[0],
            table=parsed[1],
            game=parsed[2],
            match=match,
            first_team=_label(first),
            second_team=_label(second),
            winner=winner,
            winner_name=teams[winner].get("name") if winner in teams else None,
            reason=str(result.get("reason", "")),
            board=str(result.get("board", "")),
            bpgn_result=str(result.get("bpgn_result", "")),
        )


def _label(team: dict[str, Any] | None) -> str:
    if team is None:
        return ""
    return str(team.get("name") or team.get("id", ""))


def sorted_rows(rows: list[ResultRow]) -> list[ResultRow]:
    return sorted(rows, key=lambda row: (row.round, row.table, row.game))


def results_csv(rows: list[ResultRow]) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(RESULT_COLUMNS)
    for row in sorted_rows(rows):
        writer.writerow(["" if value is None else value for value in asdict(row).values()])
    return out.getvalue()


def results_json(round_number: int, rows: list[ResultRow]) -> str:
    body = {"round": round_number, "results": [asdict(row) for row in sorted_rows(rows)]}
    return json.dumps(body, indent=2, ensure_ascii=False) + "\n"


def round_file_stem(round_number: int) -> str:
    return f"round-{round_number}"


def bpgn_file_name(match: str) -> str:
    """``r2-t5.bpgn``: the game of round 2 at table 5 (``r2-t5-g2.bpgn`` for a second game)."""
    return f"{match}.bpgn"


# -- status lines ----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class BoxView:
    """What the broker holds for one box: its status, its devices, its newest match state."""

    bridge: str
    status: dict[str, Any] | None
    devices: dict[str, dict[str, Any]]
    state: dict[str, Any] | None


def status_line(view: BoxView, now: datetime) -> str:
    state = (view.status or {}).get("state", "unknown")
    devices = " ".join(_device(link, view.devices.get(link)) for link in ("A", "B"))
    return f"{view.bridge:<10} {state:<7} {devices}  {_game(view.state, now)}"


def _device(link: str, device: dict[str, Any] | None) -> str:
    if device is None:
        return f"{link}:?"
    board = "up" if device.get("connected") else "DOWN"
    clock = device.get("clock") or "no-clock"
    firmware = device.get("firmware") or "?"
    return f"{link}:{board}[fw {firmware}, clock {clock}, battery {_battery(device)}]"


def _battery(device: dict[str, Any]) -> str:
    # A wired DGT clock reports only a "battery low" bit (BWTIME status D2), no level.
    low = device.get("clock_battery_low")
    return "?" if low is None else ("LOW" if low else "ok")


def _game(state: dict[str, Any] | None, now: datetime) -> str:
    if state is None:
        return "no match yet"
    boards = state.get("boards", {})
    plies = "/".join(str(boards.get(b, {}).get("ply", "?")) for b in ("A", "B"))
    result = state.get("result")
    status = "finished" if result else "playing"
    age = _age(state.get("ts"), now)
    return f"{state.get('match')} {status} plies {plies} last event {age}"


def _age(ts: object, now: datetime) -> str:
    if not isinstance(ts, str):
        return "?"
    try:
        then = datetime.fromisoformat(ts)
    except ValueError:
        return "?"
    seconds = max(0, int((now - then).total_seconds()))
    return f"{seconds}s ago" if seconds < 120 else f"{seconds // 60}min ago"
