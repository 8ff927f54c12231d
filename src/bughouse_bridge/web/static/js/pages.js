// The viewer pages: the broadcast of one match and the hall of every table. No controls here:
// viewers only subscribe (and the broker refuses them anything else anyway).

import { openFeed } from "./feed.js";
import { MatchView } from "./match.js";
import { Dedupe } from "./model.js";

const TICK_MS = 100;

function matchOf(topic, root) {
  const rest = topic.slice(root.length + 1).split("/"); // match/<id>/<kind>
  return rest[0] === "match" ? { match: rest[1], kind: rest[2] } : null;
}

// The broadcast view of one match (#/match/<id>).
export function showMatch(main, config, matchId, setStatus) {
  const view = new MatchView(main, matchId);
  const dedupe = new Dedupe();
  const base = `${config.root}/match/${matchId}`;
  openFeed({
    url: config.url,
    topics: [`${base}/state`, `${base}/events`, `${base}/clock`, `${base}/bpgn`],
    onStatus: setStatus,
    onMessage(topic, data) {
      const now = performance.now();
      const kind = topic.slice(base.length + 1);
      if (kind === "state") view.applyState(data, now);
      else if (kind === "clock") view.applyClock(data, now);
      else if (kind === "bpgn") view.applyBpgn(data);
      else if (kind === "events" && dedupe.fresh(data)) view.applyEvent(data);
    },
  });
  setInterval(() => view.tick(performance.now()), TICK_MS);
  return view;
}

// The retained round pairing of the hall (issue 10), if the hall publishes one.
export function roundTitle(round) {
  if (!round || typeof round !== "object") return null;
  const parts = [round.event ?? round.name, round.round !== undefined ? `round ${round.round}` : null];
  return parts.filter(Boolean).join(" — ") || null;
}

function showRound(heading, round) {
  const title = roundTitle(round);
  heading.hidden = !title;
  heading.textContent = title ?? "";
}

// The hall: every table as a small double board; a click opens its broadcast.
export function showHall(main, config, setStatus) {
  const heading = document.createElement("h1");
  heading.className = "hall-round";
  heading.dataset.round = "";
  heading.hidden = true;
  const grid = document.createElement("div");
  grid.className = "hall";
  grid.dataset.hall = "";
  const empty = document.createElement("p");
  empty.className = "hall-empty";
  empty.textContent = "waiting for tables…";
  main.append(heading, grid, empty);
  const views = new Map();
  const viewFor = (match) => {
    if (!views.has(match)) {
      const link = document.createElement("a");
      link.className = "table-link";
      link.href = `${location.search}#/match/${encodeURIComponent(match)}`;
      link.dataset.table = match;
      // Tables in the order of their ids (r1-t2 before r1-t10), however they come in.
      const next = [...grid.children].find(
        (other) => other.dataset.table.localeCompare(match, undefined, { numeric: true }) > 0,
      );
      grid.insertBefore(link, next ?? null);
      views.set(match, new MatchView(link, match, { compact: true }));
      empty.hidden = true;
    }
    return views.get(match);
  };
  openFeed({
    url: config.url,
    topics: [
      `${config.root}/match/+/state`,
      `${config.root}/match/+/clock`,
      `${config.root}/match/+/bpgn`,
      `${config.root}/hall/round`,
    ],
    onStatus: setStatus,
    onMessage(topic, data) {
      if (topic === `${config.root}/hall/round`) {
        showRound(heading, data);
        return;
      }
      const where = matchOf(topic, config.root);
      if (!where) return;
      const now = performance.now();
      if (where.kind === "state") viewFor(where.match).applyState(data, now);
      else if (views.has(where.match) && where.kind === "clock") views.get(where.match).applyClock(data, now);
      else if (views.has(where.match) && where.kind === "bpgn") views.get(where.match).applyBpgn(data);
    },
  });
  setInterval(() => {
    const now = performance.now();
    for (const view of views.values()) view.tick(now);
  }, TICK_MS);
  return views;
}
