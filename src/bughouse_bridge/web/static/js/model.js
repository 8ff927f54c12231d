// Pure logic of the page: no DOM, no MQTT, no clock of its own (time is passed in); texts come
// from the language files through t(). Unit-tested in the browser (tests/web/test_web_logic.py)
// through page.evaluate.

import { t } from "./i18n.js";

export const BOARDS = ["A", "B"];
export const COLORS = ["white", "black"];
const PIECE_ORDER = "PNBRQ";
const PIECE_NAMES = { P: "pawn", N: "knight", B: "bishop", R: "rook", Q: "queen", K: "king" };

// "rnbq.../RNBQKBNR[Pn] w KQkq - 0 1" -> its parts; the pocket is what is in the brackets.
export function splitFen(fen) {
  const [placementWithPocket, turn = "w", ...rest] = String(fen || "").trim().split(/\s+/);
  const open = placementWithPocket.indexOf("[");
  const placement = open < 0 ? placementWithPocket : placementWithPocket.slice(0, open);
  const pocket = open < 0 ? "" : placementWithPocket.slice(open + 1, placementWithPocket.indexOf("]"));
  return { placement, pocket, turn, rest };
}

// The pocket letters of one seat from the contract's `pockets` object, upper case, P N B R Q order.
export function pocketLetters(pockets, board, color) {
  const letters = String(pockets?.[board]?.[color] ?? "").toUpperCase();
  return [...letters].sort((a, b) => PIECE_ORDER.indexOf(a) - PIECE_ORDER.indexOf(b)).join("");
}

// "PPN" -> [{letter: "P", role: "pawn", count: 2}, {letter: "N", role: "knight", count: 1}]
export function pocketCounts(letters) {
  const counts = [];
  for (const letter of PIECE_ORDER) {
    const count = [...letters].filter((l) => l === letter).length;
    if (count > 0) counts.push({ letter, role: PIECE_NAMES[letter], count });
  }
  return counts;
}

// Where the board stands in the hall: partners sit on the same side, so B is turned.
export function boardOrientation(board) {
  return board === "A" ? "white" : "black";
}

// The two seats of a board from top to bottom as seen by the viewer.
export function seatsTopDown(board) {
  return boardOrientation(board) === "white" ? ["black", "white"] : ["white", "black"];
}

export function seatKey(board, color) {
  return `${color}_${board.toLowerCase()}`;
}

// Remaining time now, from the last reading and when it was received (ms, monotonic).
// Only the running side's clock moves; never below zero.
export function clockAt(clock, receivedAt, now) {
  if (!clock) return { white_ms: null, black_ms: null, running: null };
  const elapsed = Math.max(0, now - receivedAt);
  const tick = (color) => {
    const ms = clock[`${color}_ms`];
    if (ms === null || ms === undefined) return null;
    return clock.running === color ? Math.max(0, ms - elapsed) : ms;
  };
  return { white_ms: tick("white"), black_ms: tick("black"), running: clock.running ?? null };
}

// A snapshot's clock is the bridge's last reading, up to a second old; a clock message is fresh.
// Keep the running estimate unless the snapshot changes who runs or disagrees by more than the
// reading interval (a correction), so the display never jumps back on every event.
export const CLOCK_SLACK_MS = 1500;

export function snapshotClock(current, incoming, now) {
  if (!current || !incoming) return { clock: incoming, receivedAt: now };
  const estimate = clockAt(current.clock, current.receivedAt, now);
  const sameRunner = (current.clock?.running ?? null) === (incoming.running ?? null);
  const close = ["white", "black"].every((color) => {
    const shown = estimate[`${color}_ms`];
    const read = incoming[`${color}_ms`];
    if (shown === null || read === null || read === undefined) return shown === (read ?? null);
    return Math.abs(shown - read) <= CLOCK_SLACK_MS;
  });
  return sameRunner && close ? current : { clock: incoming, receivedAt: now };
}

// 5:03, 0:59, and tenths in the last ten seconds (9.4); a dash when unknown.
export function formatClock(ms) {
  if (ms === null || ms === undefined) return "–";
  if (ms < 10000) return (Math.floor(ms / 100) / 10).toFixed(1);
  const seconds = Math.floor(ms / 1000);
  return `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, "0")}`;
}

export function isDrop(uci) {
  return typeof uci === "string" && uci.includes("@");
}

// The squares to highlight for the last move: a drop marks its square only.
export function lastMoveKeys(uci) {
  if (typeof uci !== "string" || uci.length < 4) return [];
  if (isDrop(uci)) return [uci.slice(uci.indexOf("@") + 1, uci.indexOf("@") + 3)];
  return [uci.slice(0, 2), uci.slice(2, 4)];
}

// QoS 1 is at-least-once: drop repeats by (boot_id, seq). Bounded memory per boot.
export class Dedupe {
  constructor(limit = 5000) {
    this.limit = limit;
    this.seen = new Map(); // boot_id -> Set of seq
  }

  // True the first time (boot_id, seq) is offered; events without a seq always pass.
  fresh(event) {
    if (event?.seq === undefined || event?.seq === null) return true;
    const boot = String(event.boot_id ?? "");
    if (!this.seen.has(boot)) this.seen.set(boot, new Set());
    const seqs = this.seen.get(boot);
    if (seqs.has(event.seq)) return false;
    seqs.add(event.seq);
    if (seqs.size > this.limit) seqs.delete(seqs.values().next().value);
    return true;
  }
}

// The moves of a BPGN text in their order: [{number, board: "A"|"B", color, san, label}].
export function parseBpgnMoves(text) {
  const body = String(text || "")
    .split("\n")
    .filter((line) => !line.trimStart().startsWith("["))
    .join(" ")
    .replace(/\{[^}]*\}/g, " ");
  const moves = [];
  for (const match of body.matchAll(/(\d+)([AaBb])\.\s*([^\s]+)/g)) {
    const [, number, letter, san] = match;
    moves.push({
      number: Number(number),
      board: letter.toUpperCase(),
      color: letter === letter.toUpperCase() ? "white" : "black",
      san,
      label: `${number}${letter}.`,
    });
  }
  return moves;
}

// The side in check on a board, from its last SAN ("+" or "#"): the side to move then.
export function checkedSide(moves, board) {
  const mine = moves.filter((move) => move.board === board);
  const last = mine[mine.length - 1];
  if (!last || !/[+#]/.test(last.san)) return null;
  return last.color === "white" ? "black" : "white";
}

// The side mated on a board by its last SAN ("#"), for a finished board whose snapshot no
// longer says "mated".
export function matedSide(moves, board) {
  const mine = moves.filter((move) => move.board === board);
  const last = mine[mine.length - 1];
  if (!last || !last.san.includes("#")) return null;
  return last.color === "white" ? "black" : "white";
}

export function moveKind(san) {
  if (san.includes("@")) return "drop";
  if (san.includes("(")) return "steal";
  return "move";
}

export function colorName(color) {
  return color === "white" || color === "black" ? t(`color.${color}`) : String(color ?? "");
}

// A banner for a board from the snapshot (and the flag seen on the event stream, if any). A
// decided match says how it ended: on the deciding board the result's reason (checkmate, time,
// illegal move, the arbiter's words), on the other board that the game is over.
export function boardBanner(boardState, checked, flagged, mated = null, result = null, board = null) {
  const banner = (kind, key, params = {}) => ({ kind, text: t(key, params) });
  if (flagged) return banner("flag", "banner.flag", { color: colorName(flagged) });
  const status = boardState?.status;
  if (status === "mated" || (mated && status === "finished")) return banner("mate", "banner.mate");
  if (result && board !== null) {
    if (result.board === board) return banner("result", "banner.result", { reason: reasonText(result.reason) });
    return banner("over", "banner.over", { board: result.board });
  }
  if (status === "mate_pending") return banner("mate-pending", "banner.mate_pending");
  if (status === "stalemate") return banner("stalemate", "banner.stalemate");
  if (boardState?.link === "disconnected") return banner("link", "banner.offline");
  if (checked) return banner("check", "banner.check", { color: colorName(checked) });
  return null;
}

// A result's reason in the viewer's language when it is one the bridge decides itself; an
// arbiter's own words stay as they are.
export function reasonText(reason) {
  const key = `reason.${String(reason ?? "").replaceAll(" ", "_")}`;
  const text = t(key);
  return text === key ? String(reason ?? "").replaceAll("_", " ") : text;
}

// The two teams of a match in the order the rules name them: the first-named team is the one
// that plays Black on board A and White on board B (DSJ 8.2, DSB 10.2), whatever order a payload
// lists them in (the bridge's own order is White A's team first). The hall view, the standings
// and the page all name a match this way.
export function namedTeams(teams) {
  const list = (Array.isArray(teams) ? teams : []).filter((team) => team && typeof team === "object");
  const first = list.find((team) => (team.seats ?? []).includes("black_a"));
  if (!first) return list.slice(0, 2);
  return [first, ...list.filter((team) => team !== first).slice(0, 1)];
}

// "Lions vs Tigers" (first-named first); null without two teams.
export function versusText(teams) {
  const [first, second] = namedTeams(teams);
  if (!first || !second) return null;
  return t("match.versus", { first: first.name || first.id, second: second.name || second.id });
}

export function resultText(result, teams) {
  if (!result) return null;
  const team = (teams || []).find((entry) => entry.id === result.winner);
  const who = result.winner === null ? t("result.draw") : t("result.win", { team: team?.name ?? result.winner });
  return t("result.text", { who, board: result.board, reason: reasonText(result.reason), bpgn: result.bpgn_result });
}
