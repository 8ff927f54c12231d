// The hall (#/hall): one card per table with its current match (round and game on it), that
// table's finished games under it for review, and the standings, updated as results come.
// #/standings shows the standings alone (a projector between rounds).

import { tableName } from "./arbiter.js";
import { element } from "./dom.js";
import { openFeed } from "./feed.js";
import { t } from "./i18n.js";
import { HallModel } from "./hallmodel.js";
import { MatchView } from "./match.js";
import { resultText, versusText } from "./model.js";
import { DEFAULT_SCORING, gameOfSummary, pairingsOfRound, standings } from "./standings.js";
import { StandingsView } from "./standingsview.js";

const TICK_MS = 100;
const STANDINGS_DELAY_MS = 200; // results come in bursts (a round ends): one computation each

// The retained round pairing of the hall, if the hall publishes one.
export function roundTitle(round) {
  if (!round || typeof round !== "object") return null;
  const number = round.round !== undefined ? t("hall.round", { round: round.round }) : null;
  return [round.event ?? round.name, number].filter(Boolean).join(" — ") || null;
}

function matchLink(match) {
  return `${location.search}#/match/${encodeURIComponent(match)}`;
}

function gameLine(game) {
  const teams = versusText(game.teams) ?? game.match;
  const when = game.round === null ? game.match : t("hall.round_game", { round: game.round, game: game.game });
  return `${when} — ${teams}: ${resultText(game.result, game.teams)}`;
}

class TableCard {
  constructor() {
    this.head = element("b", {});
    this.where = element("span", { class: "table-card-where" });
    this.link = element("a", { class: "table-link" });
    this.finished = element("ul", { class: "finished", "data-finished": "" });
    this.root = element(
      "article",
      { class: "table-card" },
      element("header", { class: "table-card-head" }, this.head, " ", this.where),
      this.link,
      this.finished,
    );
    this.view = null;
    this.shownFinished = "";
  }

  // The box's current match and finished games (from js/hallmodel.js).
  update(table, states) {
    this.root.dataset.tableCard = table.bridge;
    this.root.dataset.current = table.current ?? "";
    this.head.textContent = tableName(table.bridge, table.table);
    this.where.textContent = table.round === null ? "" : t("hall.round_game", { round: table.round, game: table.game });
    if (table.current && this.view?.matchId !== table.current) {
      this.link.replaceChildren();
      this.link.href = matchLink(table.current);
      this.link.dataset.table = table.current;
      this.view = new MatchView(this.link, table.current, { compact: true });
      const state = states.get(table.current);
      if (state) this.view.applyState(state, performance.now());
    }
    const signature = table.finished.map((game) => `${game.match}:${JSON.stringify(game.result)}`).join("|");
    if (signature !== this.shownFinished) {
      this.shownFinished = signature;
      this.finished.replaceChildren(
        ...table.finished.map((game) =>
          element("li", {}, element("a", { href: matchLink(game.match), "data-game": game.match }, gameLine(game))),
        ),
      );
    }
  }
}

class HallPage {
  constructor(main, { standingsOnly }) {
    this.standingsOnly = standingsOnly;
    this.model = new HallModel();
    this.cards = new Map(); // bridge -> TableCard
    this.rounds = new Map(); // round number -> {pairings, names}
    this.scoring = DEFAULT_SCORING;
    this.results = new Map(); // match -> JSON of its result: the standings change only with them
    this.heading = element("h1", { class: "hall-round", "data-round": "", hidden: "" });
    this.grid = element("div", { class: "hall", "data-hall": "" });
    this.empty = element("p", { class: "hall-empty" }, t("hall.waiting"));
    main.append(this.heading);
    if (!standingsOnly) main.append(this.grid, this.empty);
    this.standings = new StandingsView(main, { always: standingsOnly });
    this.pending = null;
  }

  receive(topic, data, root) {
    const parts = topic.slice(root.length + 1).split("/");
    if (parts[0] === "match" && parts.length === 3) this.matchMessage(parts[1], parts[2], data);
    else if (parts[0] === "bridge" && parts[2] === "games") this.gamesIndex(parts[1], data);
    else if (parts[0] === "hall") this.hallMessage(parts, data);
  }

  matchMessage(match, kind, data) {
    if (kind === "state") {
      this.model.applyState(match, data);
      const result = JSON.stringify(data?.result ?? null);
      if (this.results.get(match) !== result) {
        this.results.set(match, result);
        this.standingsChanged();
      }
      this.refresh(this.model.bridgeOf(match));
      const card = this.cards.get(this.model.bridgeOf(match));
      if (card?.view?.matchId === match && data) card.view.applyState(data, performance.now());
      return;
    }
    const card = this.cards.get(this.model.bridgeOf(match));
    if (card?.view?.matchId !== match) return;
    if (kind === "clock" && data) card.view.applyClock(data, performance.now());
    else if (kind === "bpgn" && typeof data === "string") card.view.applyBpgn(data);
  }

  gamesIndex(bridge, data) {
    this.model.applyGames(bridge, data);
    this.refresh(bridge);
    this.standingsChanged();
  }

  hallMessage(parts, data) {
    if (parts[1] === "round") {
      const title = roundTitle(data);
      this.heading.hidden = !title;
      this.heading.textContent = title ?? "";
      this.takeRound(data);
    } else if (parts[1] === "rounds") {
      this.takeRound(data);
    } else if (parts[1] === "scoring" && data && Array.isArray(data.tiebreaks)) {
      this.scoring = { ...DEFAULT_SCORING, ...data };
      this.standingsChanged();
    }
  }

  takeRound(data) {
    const round = pairingsOfRound(data);
    if (!round.pairings.length) return;
    this.rounds.set(round.pairings[0].round, round);
    this.standingsChanged();
  }

  refresh(bridge) {
    if (this.standingsOnly) return;
    const table = this.model.table(bridge);
    if (!table.current) return;
    let card = this.cards.get(bridge);
    if (!card) {
      card = new TableCard();
      this.cards.set(bridge, card);
      this.empty.hidden = true;
    }
    card.update(table, this.model.states);
    this.order();
  }

  // Cards in table order (table 2 before table 10), however the boxes come in.
  order() {
    const wanted = this.model.tables().map((table) => this.cards.get(table.bridge)?.root).filter(Boolean);
    if (wanted.some((node, index) => this.grid.children[index] !== node)) this.grid.append(...wanted);
  }

  standingsChanged() {
    if (this.pending !== null) return;
    this.pending = setTimeout(() => {
      this.pending = null;
      this.standings.render(this.report());
    }, STANDINGS_DELAY_MS);
  }

  report() {
    const names = {};
    const pairings = [];
    for (const round of this.rounds.values()) {
      pairings.push(...round.pairings);
      Object.assign(names, round.names);
    }
    const games = [];
    for (const summary of this.model.finishedGames()) {
      const game = gameOfSummary(summary);
      if (!game) continue;
      games.push(game.game);
      for (const [id, name] of Object.entries(game.names)) names[id] ??= name;
    }
    return standings(this.scoring, pairings, games, names);
  }

  tick(now) {
    for (const card of this.cards.values()) card.view?.tick(now);
  }
}

export function showHall(main, config, setStatus, { standingsOnly = false } = {}) {
  const page = new HallPage(main, { standingsOnly });
  const root = config.root;
  const live = standingsOnly ? [] : [`${root}/match/+/clock`, `${root}/match/+/bpgn`];
  openFeed({
    url: config.url,
    topics: [
      `${root}/match/+/state`,
      ...live,
      `${root}/bridge/+/games`,
      `${root}/hall/round`,
      `${root}/hall/rounds/+`,
      `${root}/hall/scoring`,
    ],
    onStatus: setStatus,
    onMessage: (topic, data) => page.receive(topic, data, root),
  });
  if (!standingsOnly) setInterval(() => page.tick(performance.now()), TICK_MS);
  return page;
}
