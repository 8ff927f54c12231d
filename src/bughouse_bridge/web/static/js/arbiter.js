// Pure logic of the arbiter console: the verbs and their arguments, the actions an alert offers,
// an alert's text in the arbiter's language, the rule it cites, and the shared acknowledgement
// (contract §2, <root>/ack/<bridge>/<boot_id>/<seq>). Unit-tested in tests/web/test_web_logic.py
// (what a gap's candidates say: test_web_logic_candidates.py).

import { language, t } from "./i18n.js";
import { colorName, pocketCounts } from "./model.js";

// Arbiter verbs and the arguments the console asks for (rules as data; `?` = optional).
export const VERBS = {
  takeback: ["board"],
  accept: ["board"],
  resync: ["board?"],
  set_result: ["winner", "board", "reason"],
  revoke_result: ["reason?"],
  set_pocket: ["board", "color", "pieces"],
  confirm_claim: ["board", "color", "claim"],
  choose_recovery: ["gap", "candidate"],
  new_game: [],
  status: [],
};

// A request body from form values: drops empty optional fields, types gap/candidate/winner.
export function requestBody(verb, values, transaction) {
  const body = { transaction };
  for (const spec of VERBS[verb] ?? []) {
    const optional = spec.endsWith("?");
    const name = spec.replace("?", "");
    let value = values[name];
    if (value === undefined || value === "") {
      if (optional) continue;
      if (name === "winner") value = null;
      else throw new Error(t("form.needs", { verb, name }));
    }
    if (name === "gap" || name === "candidate") value = Number(value);
    body[name] = value;
  }
  return body;
}

// What may be done about each alert (data, not branches per code): "claim" = its
// details.claim, "candidates" = choose_recovery per details.candidates, the others the verb on
// the alert's board. A code the console does not know yet offers what its details carry.
export const ALERT_ACTIONS = {
  drop_mate: ["claim", "takeback"],
  pawn_drop_rank: ["claim", "takeback"],
  drop_not_in_pocket: ["takeback", "resync"],
  steal_missing: ["takeback", "accept", "resync"],
  steal_illegal: ["takeback", "accept", "resync"],
  illegal_move: ["claim", "takeback", "accept", "resync"],
  wrong_turn: ["takeback", "accept", "resync"],
  clock_without_move: ["resync"],
  move_without_clock: [],
  unexplained_position: ["accept", "resync", "takeback"],
  illegal_drop_removed: [],
  flag: ["claim"],
  arbiter_call: [],
  mate_pending: [],
  stalemate_waiting: [],
  stalling: [],
  result_signal: [],
  link_lost: [],
  link_back: ["resync"],
  input_failed: ["resync"],
  seating_wrong: [],
  gap_ambiguous: ["candidates", "accept", "resync"],
};
const UNKNOWN_CODE_ACTIONS = ["claim", "candidates"];
const BOARD_VERBS = ["takeback", "accept", "resync"];

// The actions an alert offers the arbiter: [{label, verb, args}]; a choose_recovery of the
// candidate the later moves decide for carries `recommended: true`. An alert that tells a gap
// resolved (details.resolved: a better look explained it) offers none. An alert recommending a
// candidate (details.recommended, contract §3) offers that one, beside the board's verbs.
export function alertActions(alert) {
  const details = alert.details ?? {};
  if (details.resolved) return [];
  const onBoard = alert.board === "A" || alert.board === "B";
  const actions = [];
  for (const kind of ALERT_ACTIONS[alert.code] ?? UNKNOWN_CODE_ACTIONS) {
    if (kind === "claim" && details.claim) {
      actions.push({ label: t("action.claim"), verb: "confirm_claim", args: details.claim });
    } else if (kind === "candidates" && details.gap !== undefined) {
      const recommended = details.recommended?.index;
      for (const candidate of details.candidates ?? (details.recommended ? [details.recommended] : [])) {
        const args = { gap: details.gap, candidate: candidate.index };
        const about = { moves: candidateMoves(candidate), pockets: candidatePockets(candidate) };
        const action = { label: candidateLabel(candidate.index, false), verb: "choose_recovery", args, ...about };
        if (candidate.index === recommended) Object.assign(action, { label: candidateLabel(candidate.index, true), recommended: true });
        actions.push(action);
      }
    } else if (BOARD_VERBS.includes(kind) && onBoard) {
      actions.push({ label: t(`action.${kind}`, { board: alert.board }), verb: kind, args: { board: alert.board } });
    }
  }
  return actions;
}

// "choose candidate 1", or "later moves decide: candidate 1, recommended".
export function candidateLabel(index, recommended) {
  return t(recommended ? "action.candidate_recommended" : "action.candidate", { index });
}

// A candidate's plies per board, in SAN (UCI where the SAN is missing): "A: N@f4 exf4 · B: e4",
// or "" for none.
export function candidateMoves(candidate) {
  const boards = [];
  for (const board of ["A", "B"]) {
    const plies = candidate?.san?.[board]?.length ? candidate.san[board] : candidate?.moves?.[board] ?? [];
    if (plies.length) boards.push(`${board}: ${plies.join(" ")}`);
  }
  return boards.join(" · ");
}

// What a candidate leaves in the pockets that tell the gap's candidates apart (contract §3:
// a candidate's `pockets` and `differs`; the arbiter sees the physical pockets, the sensors do
// not): [{key: "A/white", board, color, letters, text}], in the order of `differs`.
export function candidatePockets(candidate) {
  const shown = [];
  for (const key of candidate?.differs ?? []) {
    const [board, color] = String(key).split("/");
    const letters = candidate.pockets?.[board]?.[color];
    if (typeof letters !== "string") continue;
    const text = t("candidate.pocket", { color: colorName(color), board, pieces: piecesText(letters) });
    shown.push({ key, board, color, letters, text });
  }
  return shown;
}

// "PPN" -> "2 × pawn, knight"; "" -> "nothing" (letters in any case and order).
export function piecesText(letters) {
  const counts = pocketCounts(String(letters).toUpperCase());
  if (counts.length === 0) return t("pocket.empty");
  const named = ({ role, count }) => {
    const piece = t(`piece.${role}`);
    return count > 1 ? t("pocket.count", { count, piece }) : piece;
  };
  return counts.map(named).join(", ");
}

// The side an alert is about, as its sentence needs it ("white", "a player").
function side(color) {
  return color === "white" || color === "black" ? t(`side.${color}`) : t("side.unknown");
}

// An alert's sentence from its code and parameters (the payload's English `message` stays for
// other consumers; the console shows it too, folded).
export function alertText(alert) {
  const recommended = recommendation(alert);
  const withdrawn = withdrawnGap(alert) !== null;
  const key = recommended ? "alert.gap_recommended" : withdrawn ? "alert.gap_withdrawn" : `alert.${alert.code}`;
  const moves = Object.values(alert.details?.recommended?.san ?? {}).flat().join(" ");
  const index = recommended?.index ?? alert.details?.withdrawn;
  const by = alert.details?.withdrawn_by?.uci ?? "";
  const text = t(key, { board: alert.board ?? "?", side: side(alert.color), index, moves, by });
  return text === key ? String(alert.message ?? alert.code) : text;
}

// "2026-11-23T10:15:00.000Z" -> "11:15:00" in Berlin: the hall's own clock, not UTC.
export function localTime(ts) {
  const when = new Date(String(ts ?? ""));
  if (Number.isNaN(when.getTime())) return "";
  return when.toLocaleTimeString(language(), { hour: "2-digit", minute: "2-digit", second: "2-digit", hour12: false });
}

// The one line above the sentence: time, match, board, colour and the move, when there is one.
export function alertWhere(alert) {
  const parts = [localTime(alert.ts), alert.match];
  if (alert.board) parts.push(t("match.board", { board: alert.board }));
  if (alert.color) parts.push(colorName(alert.color));
  if (alert.details?.move) parts.push(t("alert.move", { move: alert.details.move }));
  return parts.filter(Boolean).join(" · ");
}

export const PRESET_SOURCES = {
  dsj: "DSJ Tandemschach-Regeln",
  dsb: "DSB Tandemordnung",
  olite: "Olite Chess 2014 reglamento",
  fics: "FICS",
};

// "dsj row 2 (3.2)" -> "dsj row 2 (3.2): drop giving mate — DSJ Tandemschach-Regeln, article 3.2"
export function ruleText(rule) {
  if (!rule) return "";
  const match = /^(\w+) row (\d+)(?: \(([^)]*)\))?/.exec(rule);
  if (!match) return rule;
  const [, preset, row, article] = match;
  const title = t(`rule.row.${row}`);
  const source = preset === "fics" ? t("rule.fics") : PRESET_SOURCES[preset] ?? preset;
  let where = "";
  if (article === "override") where = t("rule.override");
  else if (article) where = t("rule.article", { article });
  return `${rule}: ${title} — ${source}${where}`;
}

function citation(rule) {
  const match = /^(\w+) row \d+ \(([^)]*)\)/.exec(rule ?? "");
  return match ? { preset: match[1], article: match[2] } : null;
}

// The cited article's own words from rules.json ({preset: {article: text}}), or "".
export function articleText(rule, texts) {
  const cited = citation(rule);
  return cited ? texts?.[cited.preset]?.[cited.article] ?? "" : "";
}

// The article in the reader's language, beside the original (i18n/articles.json:
// {"languages": {preset: lang}, "translations": {lang: {preset: {article: text}}}}); "" when
// the reader reads the rule text's own language or no translation is known.
export function articleTranslation(rule, articles, lang) {
  const cited = citation(rule);
  if (!cited || articles?.languages?.[cited.preset] === lang) return "";
  return articles?.translations?.[lang]?.[cited.preset]?.[cited.article] ?? "";
}

// The retained acknowledgement of one alert: where it goes and what it says (contract §2).
const TOPIC_LEVEL = /^[^/+#]+$/;

export function ackTopic(root, alert) {
  const levels = [alert.bridge, alert.boot_id, alert.seq].map((level) => String(level ?? ""));
  return levels.every((level) => TOPIC_LEVEL.test(level)) ? `${root}/ack/${levels.join("/")}` : null;
}

export function ackPayload(alert, by, ts) {
  return { schema: 1, by, ts, bridge: alert.bridge, boot_id: alert.boot_id, seq: alert.seq };
}

// The gap an alert tells resolved ("bridge/match/gap"), or null: the earlier alerts of that
// gap no longer offer its candidates.
export function settledGap(alert) {
  const details = alert.details ?? {};
  return details.resolved && details.gap !== undefined ? gapKey(alert) : null;
}

// The candidate the later moves decide for, recommended to the arbiter: {gap: gapKey, index},
// or null. The gap stays open: its alerts keep their candidates, that one highlighted.
export function recommendation(alert) {
  const index = alert.details?.recommended?.index;
  const gap = gapKey(alert);
  return gap === null || index === undefined || index === null ? null : { gap, index };
}

// The gap whose recommendation an alert withdraws (a later move does not fit it), or null.
export function withdrawnGap(alert) {
  const details = alert.details ?? {};
  return details.withdrawn !== undefined && details.withdrawn !== null ? gapKey(alert) : null;
}

// The gap an alert is about ("bridge/match/gap"), or null.
export function gapKey(alert) {
  const gap = alert.details?.gap;
  return gap === undefined || gap === null ? null : `${alert.bridge}/${alert.match}/${gap}`;
}

// The key an alert and its acknowledgement share: bridge, boot and seq.
export function alertKey(message) {
  return `${message.bridge}/${message.boot_id}/${message.seq}`;
}

// Which alerts sound and vibrate (when the arbiter has switched it on): the illegal ones.
export function alarms(alert) {
  return alert.severity === "illegal";
}

// "table-3" -> "table 3"; any other bridge name as it is.
export function tableName(bridge, table = null) {
  const number = table ?? /^table-(\d+)$/.exec(bridge ?? "")?.[1];
  return number === undefined || number === null ? String(bridge ?? "?") : t("hall.table", { table: number });
}
