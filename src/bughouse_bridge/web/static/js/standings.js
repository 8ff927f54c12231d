// Team standings (pure): the JavaScript twin of src/bughouse_bridge/hall/standings.py, which has
// the definitions (docs/standings.md has the formulas and their FIDE source). Both run the same
// vectors (tests/hall/standings_vectors.json) in the tests, so the hall view and
// `hall results` cannot disagree.

import { parseMatchId } from "./hallmodel.js";
import { namedTeams } from "./model.js";

export const DEFAULT_SCORING = {
  match_points: { win: 2, draw: 1, loss: 0 },
  games_per_match: 1,
  tiebreaks: ["game_points", "buchholz", "sonneborn_berger"],
};

// A finished hall game (a state's or a games index's) as the standings take it: the
// first-named team is the one on Black A (DSJ 8.2, js/model.js namedTeams, the rule the page
// and the hall view name a match by). Null when it is not one.
export function gameOfSummary(summary) {
  const parsed = parseMatchId(summary?.match);
  const teams = (summary?.teams ?? []).filter((team) => team && team.id !== undefined);
  const [first, second] = (teams.some((team) => (team.seats ?? []).includes("black_a")) ? namedTeams(teams) : []);
  if (!parsed || !summary.result || !first || !second) return null;
  return {
    game: { ...parsed, first: String(first.id), second: String(second.id), winner: summary.result.winner ?? null },
    names: { [first.id]: String(first.name || first.id), [second.id]: String(second.name || second.id) },
  };
}

// A published round (<root>/hall/rounds/<n>, contract §2) -> its pairings and team names.
export function pairingsOfRound(payload) {
  const pairings = [];
  const names = {};
  const number = Number(payload?.round);
  if (!Number.isInteger(number) || typeof payload.tables !== "object" || payload.tables === null) return { pairings, names };
  for (const [table, entry] of Object.entries(payload.tables)) {
    const first = entry?.first;
    const second = entry?.second;
    if (!first?.id || !second?.id) continue;
    pairings.push({ round: number, table: Number(table), first: first.id, second: second.id });
    names[first.id] = first.name ?? first.id;
    names[second.id] = second.name ?? second.id;
  }
  return { pairings, names };
}

function points(match, team) {
  let sum = 0;
  for (const game of match.games) sum += game.winner === team ? 1 : game.winner === null ? 0.5 : 0;
  return sum;
}

function opponent(match, team) {
  return team === match.first ? match.second : match.first;
}

function matchPoints(match, team, scoring) {
  const mine = points(match, team);
  const theirs = points(match, opponent(match, team));
  const table = scoring.match_points;
  if (mine > theirs) return table.win;
  return mine === theirs ? table.draw : table.loss;
}

function matches(pairings, games, scoring) {
  const byKey = new Map();
  const key = (round, table) => `${round}/${table}`;
  for (const p of pairings) byKey.set(key(p.round, p.table), { round: p.round, table: p.table, first: p.first, second: p.second, games: [] });
  for (const game of games) {
    const k = key(game.round, game.table);
    if (!byKey.has(k)) byKey.set(k, { round: game.round, table: game.table, first: game.first, second: game.second, games: [] });
    const match = byKey.get(k);
    if (game.winner === null || game.winner === match.first || game.winner === match.second) match.games.push(game);
  }
  const all = [...byKey.values()].sort((a, b) => a.round - b.round || a.table - b.table);
  const lastRound = Math.max(0, ...all.map((match) => match.round));
  for (const match of all) {
    match.games.sort((a, b) => a.game - b.game);
    const later = match.round < lastRound;
    match.complete = match.games.length > 0 && (match.games.length >= scoring.games_per_match || later);
  }
  return all;
}

const TIEBREAKS = {
  game_points: (team, mine, context) => context.gamePoints[team],
  buchholz: (team, mine, context) => sum(mine.map((m) => context.matchPoints[opponent(m, team)])),
  buchholz_cut1: (team, mine, context) => {
    const opponents = mine.map((m) => context.matchPoints[opponent(m, team)]);
    return sum(opponents) - (opponents.length ? Math.min(...opponents) : 0);
  },
  sonneborn_berger: (team, mine, context) =>
    sum(mine.map((m) => context.matchPoints[opponent(m, team)] * matchPoints(m, team, context.scoring))),
  sonneborn_berger_gp: (team, mine, context) =>
    sum(mine.map((m) => context.matchPoints[opponent(m, team)] * points(m, team))),
};

function sum(values) {
  return values.reduce((total, value) => total + value, 0);
}

function row(team, mine, names, context) {
  const margins = mine.map((m) => points(m, team) - points(m, opponent(m, team)));
  const tiebreaks = {};
  for (const name of context.scoring.tiebreaks) tiebreaks[name] = TIEBREAKS[name]?.(team, mine, context) ?? 0;
  return {
    team,
    name: names[team] ?? team,
    played: mine.length,
    won: margins.filter((m) => m > 0).length,
    drawn: margins.filter((m) => m === 0).length,
    lost: margins.filter((m) => m < 0).length,
    match_points: context.matchPoints[team],
    game_points: context.gamePoints[team],
    tiebreaks,
  };
}

function ranked(rows, tiebreaks) {
  const key = (r) => [r.match_points, ...tiebreaks.map((name) => r.tiebreaks[name])];
  const compareKeys = (a, b) => {
    for (let i = 0; i < a.length; i += 1) if (a[i] !== b[i]) return b[i] - a[i];
    return 0;
  };
  const byName = (a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : a.team < b.team ? -1 : a.team > b.team ? 1 : 0);
  const ordered = [...rows].sort((a, b) => compareKeys(key(a), key(b)) || byName(a, b));
  let rank = 0;
  return ordered.map((r, index) => {
    if (index === 0 || compareKeys(key(ordered[index - 1]), key(r)) !== 0) rank = index + 1;
    return { rank, ...r };
  });
}

// The report: {tiebreaks, rounds: [{round, matches}], table: [{rank, team, name, …}]}.
export function standings(scoring, pairings, games, names) {
  const all = matches(pairings, games, scoring);
  const teams = [...new Set(all.flatMap((m) => [m.first, m.second]))].sort();
  const mine = Object.fromEntries(teams.map((t) => [t, all.filter((m) => m.complete && (m.first === t || m.second === t))]));
  const context = {
    scoring,
    matchPoints: Object.fromEntries(teams.map((t) => [t, sum(mine[t].map((m) => matchPoints(m, t, scoring)))])),
    gamePoints: Object.fromEntries(
      teams.map((t) => [t, sum(all.filter((m) => m.first === t || m.second === t).map((m) => points(m, t)))]),
    ),
  };
  const rounds = [];
  for (const match of all) {
    if (rounds.at(-1)?.round !== match.round) rounds.push({ round: match.round, matches: [] });
    rounds.at(-1).matches.push({
      table: match.table,
      first: match.first,
      second: match.second,
      games: match.games.map((game) => ({ game: game.game, winner: game.winner })),
      points: [points(match, match.first), points(match, match.second)],
      match_points: match.complete ? [matchPoints(match, match.first, scoring), matchPoints(match, match.second, scoring)] : null,
      complete: match.complete,
    });
  }
  return {
    tiebreaks: [...scoring.tiebreaks],
    rounds,
    table: ranked(teams.map((t) => row(t, mine[t], names, context)), scoring.tiebreaks),
  };
}
