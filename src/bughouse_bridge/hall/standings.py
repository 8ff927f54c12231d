"""Team standings of a bughouse event: per round the pairings and results, and the table (pure).

A *match* is what a pairing plays in one round at one table: one or more bughouse games (each
won by a team or drawn). Game points (GP): 1 for a won game, ½ for a draw (FIDE C.07 Art.
11.1.2). Match points (MP): ``win``/``draw``/``loss`` of the hall's scoring by comparing the two
teams' game points in the match (Art. 11.1.1). A match counts for MP and the tie-breaks once it is
*complete*: it has ``games_per_match`` results, or a later round has been paired. Game points
count every finished game at once, so the table moves while a round is played.

The tie-breaks (docs/standings.md gives the formulas with their source), over complete matches,
MP being the score of reference (C.07 Art. 13): ``game_points``; ``buchholz`` (Art. 8.1, the
opponents' MP); ``buchholz_cut1`` (Art. 14.1, without the lowest of them);
``sonneborn_berger`` (Art. 9.1, each opponent's MP times the MP scored against it);
``sonneborn_berger_gp`` (each opponent's MP times the game points scored against it, the
Olympiad's team Sonneborn-Berger).

``web/static/js/standings.js`` is the same computation for the hall view; both are checked
against the same vectors (``tests/hall/standings_vectors.json``), so they cannot drift.
"""

from __future__ import annotations

import csv
import io
import json
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from bughouse_bridge.hall.naming import parse_match_id

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping

    from bughouse_bridge.hall.rounds import Round
    from bughouse_bridge.hall.scoring import Scoring


@dataclass(frozen=True, slots=True)
class Pairing:
    round: int
    table: int
    first: str  # team id of the first-named team
    second: str


@dataclass(frozen=True, slots=True)
class GameResult:
    """One finished game: ``winner`` is a team id, ``None`` for a draw."""

    round: int
    table: int
    game: int
    first: str
    second: str
    winner: str | None


@dataclass(frozen=True, slots=True)
class _Match:
    pairing: Pairing
    games: tuple[GameResult, ...]
    complete: bool

    def points(self, team: str) -> float:
        return sum(
            1.0 if g.winner == team else 0.5 if g.winner is None else 0.0 for g in self.games
        )

    def opponent(self, team: str) -> str:
        return self.pairing.second if team == self.pairing.first else self.pairing.first

    def match_points(self, team: str, scoring: Scoring) -> float:
        mine, theirs = self.points(team), self.points(self.opponent(team))
        if mine > theirs:
            return scoring.win
        return scoring.draw if mine == theirs else scoring.loss


def pairings_of_round(parsed: Round) -> tuple[list[Pairing], dict[str, str]]:
    """A published round's pairings and team names."""
    pairings = [Pairing(p.round, p.table, p.first.id, p.second.id) for p in parsed.pairings]
    names = {t.id: t.name for p in parsed.pairings for t in (p.first, p.second)}
    return pairings, names


def game_of_state(state: Mapping[str, Any]) -> tuple[GameResult, dict[str, str]] | None:
    """A finished hall game from its match's retained state (contract §4), with team names;
    None for a game without a result or a match id outside the hall's naming."""
    match, result = state.get("match"), state.get("result")
    parsed = parse_match_id(match) if isinstance(match, str) else None
    if parsed is None or not isinstance(result, dict):
        return None
    teams = [t for t in state.get("teams", []) if isinstance(t, dict) and "id" in t]
    first = next((t for t in teams if "black_a" in t.get("seats", ())), None)  # DSJ 8.2
    second = next((t for t in teams if t is not first), None)
    if first is None or second is None:
        return None
    winner = result.get("winner")
    names = {str(t["id"]): str(t.get("name") or t["id"]) for t in (first, second)}
    game = GameResult(*parsed, str(first["id"]), str(second["id"]), winner)
    return game, names


def _matches(
    pairings: Iterable[Pairing], games: Iterable[GameResult], scoring: Scoring
) -> list[_Match]:
    by_key: dict[tuple[int, int], Pairing] = {(p.round, p.table): p for p in pairings}
    played: dict[tuple[int, int], list[GameResult]] = {}
    for game in games:
        key = (game.round, game.table)
        by_key.setdefault(key, Pairing(game.round, game.table, game.first, game.second))
        teams = {by_key[key].first, by_key[key].second}
        if game.winner is None or game.winner in teams:
            played.setdefault(key, []).append(game)
    last_round = max((r for r, _ in by_key), default=0)
    matches = []
    for key in sorted(by_key):
        done = tuple(sorted(played.get(key, []), key=lambda g: g.game))
        later = key[0] < last_round
        complete = bool(done) and (len(done) >= scoring.games_per_match or later)
        matches.append(_Match(by_key[key], done, complete))
    return matches


def _tiebreak(name: str, team: str, mine: list[_Match], context: _Context) -> float:
    """One tie-break of ``team`` over its complete matches ``mine`` (docs/standings.md)."""
    mp, scoring = context.match_points, context.scoring
    opponents = [mp[m.opponent(team)] for m in mine]
    if name == "game_points":
        return context.game_points[team]
    if name == "buchholz":
        return sum(opponents)
    if name == "buchholz_cut1":
        return sum(opponents) - min(opponents, default=0.0)
    if name == "sonneborn_berger":
        return sum(mp[m.opponent(team)] * m.match_points(team, scoring) for m in mine)
    if name == "sonneborn_berger_gp":
        return sum(mp[m.opponent(team)] * m.points(team) for m in mine)
    raise ValueError(f"unknown tie-break {name}")


@dataclass(frozen=True, slots=True)
class _Context:
    scoring: Scoring
    match_points: Mapping[str, float]
    game_points: Mapping[str, float]


def standings(
    scoring: Scoring,
    pairings: Iterable[Pairing],
    games: Iterable[GameResult],
    names: Mapping[str, str],
) -> dict[str, Any]:
    """The report ``hall results`` writes as standings.json and the hall view shows."""
    matches = _matches(pairings, games, scoring)
    teams = sorted({t for m in matches for t in _sides(m)})
    complete = {t: [m for m in matches if m.complete and t in _sides(m)] for t in teams}
    context = _Context(
        scoring,
        {t: sum(m.match_points(t, scoring) for m in complete[t]) for t in teams},
        {t: sum(m.points(t) for m in matches if t in _sides(m)) for t in teams},
    )
    rows = [_row(team, complete[team], names, context) for team in teams]
    return {
        "tiebreaks": list(scoring.tiebreaks),
        "rounds": _rounds(matches, scoring),
        "table": _ranked(rows, scoring.tiebreaks),
    }


def _row(
    team: str, mine: list[_Match], names: Mapping[str, str], context: _Context
) -> dict[str, Any]:
    margins = [m.points(team) - m.points(m.opponent(team)) for m in mine]
    return {
        "team": team,
        "name": names.get(team, team),
        "played": len(mine),
        "won": sum(1 for margin in margins if margin > 0),
        "drawn": sum(1 for margin in margins if margin == 0),
        "lost": sum(1 for margin in margins if margin < 0),
        "match_points": context.match_points[team],
        "game_points": context.game_points[team],
        "tiebreaks": {
            name: _tiebreak(name, team, mine, context) for name in context.scoring.tiebreaks
        },
    }


def _sides(match: _Match) -> tuple[str, str]:
    return (match.pairing.first, match.pairing.second)


def _rounds(matches: list[_Match], scoring: Scoring) -> list[dict[str, Any]]:
    rounds: dict[int, list[dict[str, Any]]] = {}
    for m in matches:
        first, second = _sides(m)
        rounds.setdefault(m.pairing.round, []).append(
            {
                "table": m.pairing.table,
                "first": first,
                "second": second,
                "games": [{"game": g.game, "winner": g.winner} for g in m.games],
                "points": [m.points(first), m.points(second)],
                "match_points": (
                    [m.match_points(first, scoring), m.match_points(second, scoring)]
                    if m.complete
                    else None
                ),
                "complete": m.complete,
            }
        )
    return [{"round": number, "matches": rounds[number]} for number in sorted(rounds)]


def _ranked(rows: list[dict[str, Any]], tiebreaks: tuple[str, ...]) -> list[dict[str, Any]]:
    """Highest MP first, then each tie-break in order; a tie that nothing breaks shares the
    place (C.07 Art. 4.2 leaves it to lots, which are the arbiter's), listed by name."""

    def key(row: dict[str, Any]) -> tuple[float, ...]:
        return (row["match_points"], *(row["tiebreaks"][name] for name in tiebreaks))

    ordered = sorted(rows, key=lambda row: (row["name"], row["team"]))
    ordered.sort(key=key, reverse=True)
    for index, row in enumerate(ordered):
        tied = index > 0 and key(ordered[index - 1]) == key(row)
        row["rank"] = ordered[index - 1]["rank"] if tied else index + 1
    return [{"rank": row.pop("rank"), **row} for row in ordered]


def standings_json(report: Mapping[str, Any]) -> str:
    return json.dumps(report, indent=2, ensure_ascii=False) + "\n"


def standings_csv(report: Mapping[str, Any]) -> str:
    """One row per team, in rank order: what tournament software imports (a tie-break that is
    already a column, ``game_points``, is not repeated)."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    fixed = ["played", "won", "drawn", "lost", "match_points", "game_points"]
    tiebreaks = [name for name in report["tiebreaks"] if name not in fixed]
    writer.writerow(["rank", "team", "name", *fixed, *tiebreaks])
    for row in report["table"]:
        values = [row[column] for column in fixed] + [row["tiebreaks"][t] for t in tiebreaks]
        writer.writerow([row["rank"], row["team"], row["name"], *map(_number, values)])
    return out.getvalue()


def _number(value: float) -> str:
    return f"{value:g}"
