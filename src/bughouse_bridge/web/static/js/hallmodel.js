// The hall as tables, not matches (pure): one entry per box with its current match and its
// finished games. A box's games index (contract §2, <root>/bridge/<bridge>/games) says which
// match is current and which games were played; for a box that publishes none (an older bridge)
// the retained match states stand in: the newest is current, those with a result are finished.
// Matches that a pairing or the next game replaced untouched are listed nowhere.

const MATCH_ID = /^r(\d+)-t(\d+)(?:-g(\d+))?$/;

// "r2-t5-g2" -> {round: 2, table: 5, game: 2}; null for a match id outside the hall's naming.
export function parseMatchId(match) {
  const found = MATCH_ID.exec(String(match ?? ""));
  return found ? { round: Number(found[1]), table: Number(found[2]), game: Number(found[3] ?? 1) } : null;
}

function gameSummary(match, teams, result, known = {}) {
  const parsed = parseMatchId(match) ?? {};
  return {
    match,
    round: known.round ?? parsed.round ?? null,
    table: known.table ?? parsed.table ?? null,
    game: known.game ?? parsed.game ?? null,
    teams: Array.isArray(teams) ? teams : [],
    result: result ?? null,
  };
}

function byRoundAndGame(a, b) {
  return (a.round ?? 0) - (b.round ?? 0) || (a.game ?? 0) - (b.game ?? 0) || a.match.localeCompare(b.match);
}

function fromIndex(bridge, index) {
  const games = index.games
    .filter((game) => game && typeof game.match === "string")
    .map((game) => gameSummary(game.match, game.teams, game.result, game));
  const current = typeof index.current === "string" ? index.current : games.at(-1)?.match ?? null;
  const now = games.find((game) => game.match === current) ?? gameSummary(current, [], null);
  return {
    bridge,
    table: index.table ?? now.table ?? null,
    current,
    round: now.round,
    game: now.game,
    finished: games.filter((game) => game.result).sort(byRoundAndGame),
  };
}

function fromStates(bridge, states) {
  let newest = null;
  for (const [match, state] of states) {
    const ts = String(state.ts ?? "");
    if (!newest || ts > newest.ts || (ts === newest.ts && match.localeCompare(newest.match, undefined, { numeric: true }) > 0)) {
      newest = { match, ts };
    }
  }
  const finished = states
    .filter(([, state]) => state.result)
    .map(([match, state]) => gameSummary(match, state.teams, state.result))
    .sort(byRoundAndGame);
  const now = gameSummary(newest?.match ?? null, [], null);
  return { bridge, table: now.table, current: newest?.match ?? null, round: now.round, game: now.game, finished };
}

function byTable(a, b) {
  const left = a.table ?? Number.MAX_SAFE_INTEGER;
  const right = b.table ?? Number.MAX_SAFE_INTEGER;
  return left - right || a.bridge.localeCompare(b.bridge, undefined, { numeric: true });
}

export class HallModel {
  constructor() {
    this.indexes = new Map(); // bridge -> games index
    this.states = new Map(); // match -> retained state
  }

  applyGames(bridge, index) {
    if (index && typeof index === "object" && Array.isArray(index.games)) this.indexes.set(bridge, index);
    else this.indexes.delete(bridge);
  }

  applyState(match, state) {
    if (state && typeof state === "object") this.states.set(match, state);
    else this.states.delete(match);
  }

  // The box a match belongs to: its state's bridge, else the index listing it.
  bridgeOf(match) {
    const bridge = this.states.get(match)?.bridge;
    if (bridge) return bridge;
    for (const [name, index] of this.indexes) {
      if (index.current === match || index.games.some((game) => game?.match === match)) return name;
    }
    return match;
  }

  table(bridge) {
    const index = this.indexes.get(bridge);
    if (index) return fromIndex(bridge, index);
    const states = [...this.states].filter(([match, state]) => (state.bridge ?? match) === bridge);
    return fromStates(bridge, states);
  }

  tables() {
    const bridges = new Set(this.indexes.keys());
    for (const [match, state] of this.states) bridges.add(state.bridge ?? match);
    return [...bridges].map((bridge) => this.table(bridge)).sort(byTable);
  }

  // Every finished hall game of every box, for the standings (see standings.js).
  finishedGames() {
    const games = new Map();
    for (const index of this.indexes.values()) {
      for (const game of index.games) {
        if (game?.result && typeof game.match === "string") games.set(game.match, gameSummary(game.match, game.teams, game.result, game));
      }
    }
    // A state is the freshest word on a result (a revocation reaches it first).
    for (const [match, state] of this.states) {
      if (state.result) games.set(match, gameSummary(match, state.teams, state.result));
      else games.delete(match);
    }
    return [...games.values()];
  }
}
