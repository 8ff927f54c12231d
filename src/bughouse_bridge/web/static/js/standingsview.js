// The standings drawn: the team table with the hall's tie-breaks, then every round's pairings
// and results (newest first). The numbers come from js/standings.js; `data-value` carries each
// number as computed, for tests and scrapers.

import { element } from "./dom.js";
import { t } from "./i18n.js";

// 2 -> "2", 2.5 -> "2½", 0.5 -> "½".
export function formatPoints(value) {
  if (value === null || value === undefined) return "–";
  const whole = Math.floor(value);
  const rest = value - whole;
  if (rest === 0) return String(whole);
  if (rest === 0.5) return whole ? `${whole}½` : "½";
  return value.toFixed(2);
}

const COLUMNS = [
  ["played", "standings.played"],
  ["won", "standings.won"],
  ["drawn", "standings.drawn"],
  ["lost", "standings.lost"],
  ["match_points", "standings.match_points"],
  ["game_points", "standings.game_points"],
];

function cell(value, column) {
  return element("td", { "data-col": column, "data-value": String(value) }, formatPoints(value));
}

function header(key, column) {
  return element("th", { "data-col": column, title: t(`${key}.long`) }, t(key));
}

export class StandingsView {
  constructor(container, { always = false } = {}) {
    this.always = always;
    this.table = element("table", { class: "standings-table", "data-standings-table": "" });
    this.rounds = element("div", { class: "standings-rounds", "data-standings-rounds": "" });
    this.empty = element("p", { class: "hall-empty" }, t("standings.none"));
    this.root = element(
      "section",
      { class: "standings", "data-standings": "", hidden: "" },
      element("h2", {}, t("standings.title")),
      this.empty,
      this.table,
      this.rounds,
    );
    this.root.hidden = !always;
    container.append(this.root);
  }

  render(report) {
    const names = Object.fromEntries(report.table.map((row) => [row.team, row.name]));
    // A hall without pairings or results (a single box, the demo) has no standings to show.
    this.root.hidden = report.table.length === 0 && !this.always;
    this.empty.hidden = report.table.length > 0;
    this.table.hidden = report.table.length === 0;
    const extra = report.tiebreaks.filter((name) => name !== "game_points");
    const head = element(
      "tr",
      {},
      element("th", {}, t("standings.rank")),
      element("th", {}, t("standings.team")),
      ...COLUMNS.map(([column, key]) => header(key, column)),
      ...extra.map((name) => header(`tiebreak.${name}`, name)),
    );
    const rows = report.table.map((row) =>
      element(
        "tr",
        { "data-team": row.team, "data-rank": String(row.rank) },
        element("td", {}, String(row.rank)),
        element("td", { class: "team" }, row.name),
        ...COLUMNS.map(([column]) => cell(row[column], column)),
        ...extra.map((name) => cell(row.tiebreaks[name], name)),
      ),
    );
    this.table.replaceChildren(element("thead", {}, head), element("tbody", {}, ...rows));
    this.rounds.replaceChildren(...[...report.rounds].reverse().map((round) => this.round(round, names)));
  }

  round(round, names) {
    const items = round.matches.map((match) => {
      const [first, second] = match.points;
      const score = match.games.length ? `${formatPoints(first)} : ${formatPoints(second)}` : "–";
      const games = match.games.map((game) => (game.winner === null ? "½" : game.winner === match.first ? "1-0" : "0-1"));
      return element(
        "li",
        { "data-pairing": `${round.round}-${match.table}`, "data-complete": String(match.complete) },
        element("span", { class: "pairing-table" }, t("hall.table", { table: match.table })),
        ` ${names[match.first] ?? match.first} – ${names[match.second] ?? match.second} `,
        element("b", { class: match.complete ? "score" : "score pending" }, score),
        games.length ? element("span", { class: "games" }, ` (${games.join(", ")})`) : "",
      );
    });
    return element(
      "section",
      { class: "standings-round", "data-standings-round": String(round.round) },
      element("h3", {}, t("hall.round", { round: round.round })),
      element("ul", {}, ...items),
    );
  }
}
