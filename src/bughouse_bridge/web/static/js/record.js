// The game record of one match (contract §2: the retained header <match>/record and one
// retained message per entry <match>/record/<n>), and what the page shows at entry n. Pure: each
// entry carries both boards, all four pockets and both clocks as they stood, so reviewing needs
// no chess logic. Unit-tested in tests/web/test_web_logic.py.

import { t } from "./i18n.js";
import { BOARDS, colorName, resultText } from "./model.js";

export class RecordStore {
  constructor() {
    this.header = null;
    this.entries = new Map(); // n -> entry
  }

  // A header or an entry (null: a retained message cleared). Returns the n that changed, 0 for
  // the header, or null when the message is not the record's.
  apply(topicTail, data) {
    if (topicTail === "record") {
      this.header = data && typeof data === "object" ? data : null;
      return 0;
    }
    const n = Number(/^record\/(\d+)$/.exec(topicTail)?.[1]);
    if (!Number.isInteger(n) || n < 1) return null;
    if (data && typeof data === "object" && data.n === n) this.entries.set(n, data);
    else this.entries.delete(n);
    return n;
  }

  // Entries 1..count are shown: the header's count when there is one (entries beyond it are
  // stale), else as many as have come in without a hole.
  count() {
    if (this.header && Number.isInteger(this.header.entries)) {
      let n = 0;
      while (n < this.header.entries && this.entries.has(n + 1)) n += 1;
      return n;
    }
    let n = 0;
    while (this.entries.has(n + 1)) n += 1;
    return n;
  }

  entry(n) {
    return n >= 1 && n <= this.count() ? this.entries.get(n) : undefined;
  }

  get started() {
    return this.header !== null || this.entries.size > 0;
  }

  get finished() {
    return Boolean(this.header?.result);
  }
}

// "12A." / "12a." from the board's ply after the entry: the BPGN move number and board letter.
// Only a move has one; the other entries say what happened in words (entryText).
export function entryLabel(entry) {
  if (!entry?.board || entry.kind !== "move") return "";
  const number = Math.max(1, Math.ceil((entry.ply ?? 1) / 2));
  const letter = entry.color === "black" ? entry.board.toLowerCase() : entry.board.toUpperCase();
  return `${number}${letter}.`;
}

// How an entry reads in the move list: its SAN, or the name of what the arbiter did.
export function entryKind(entry) {
  if (entry?.kind !== "move") return String(entry?.kind ?? "");
  if (entry.steal) return "steal";
  if (typeof entry.uci === "string" && entry.uci.includes("@")) return "drop";
  return "move";
}

// What an entry says in the move list, in the viewer's language: a move its SAN; a removal, a
// correction, a gap, a result or its revocation what the record's details say about it (kinds
// of contract §2, "The game record"; an unknown kind by its name).
export function entryText(entry, teams = []) {
  const details = entry?.details ?? {};
  const params = { board: entry?.board ?? "", color: colorName(entry?.color) };
  switch (entry?.kind) {
    case "move":
      return entry.san ?? entry.uci ?? "";
    case "removal":
      return t("record.removal", { ...params, piece: String(details.piece ?? "?").toUpperCase(), square: details.square ?? "?" });
    case "accepted":
      return t("record.accepted", params);
    case "pocket_set":
      return t("record.pocket_set", { ...params, pieces: details.pieces || "–" });
    case "result":
      return resultText(details, teams) ?? t("record.result");
    case "result_revoked":
      return details.reason ? t("record.result_revoked_because", { reason: details.reason }) : t("record.result_revoked");
    case "gap":
      return t("record.gap", { gap: details.gap ?? "?" });
    default:
      return String(entry?.kind ?? "");
  }
}

function checkedBy(entry) {
  if (!entry || entry.kind !== "move" || !/[+#]/.test(entry.san ?? "")) return null;
  return entry.color === "white" ? "black" : "white";
}

// Everything the page shows at entry n (0 = the start): both boards with their last move before
// or at n, the pockets and clocks as the entry has them, and the steal if entry n made one.
export function momentAt(store, n) {
  const count = store.count();
  const at = Math.max(0, Math.min(n, count));
  const entry = store.entry(at);
  const boards = {};
  for (const board of BOARDS) {
    let last = null;
    for (let k = at; k >= 1 && !last; k -= 1) {
      const earlier = store.entry(k);
      if (earlier?.board === board && earlier.kind === "move") last = earlier;
    }
    const fen = entry ? entry.boards?.[board]?.fen : store.header?.start?.[board];
    const checked = checkedBy(last);
    const mated = checked && (last.san ?? "").includes("#") ? checked : null;
    boards[board] = { fen: fen ?? null, lastMove: last?.uci ?? null, checked, mated };
  }
  return {
    n: at,
    count,
    entry: entry ?? null,
    boards,
    pockets: entry?.pockets ?? null,
    clocks: entry?.clocks ?? null,
    steal: entry?.kind === "move" ? entry.steal ?? null : null,
    result: entry?.kind === "result" ? entry.details ?? null : null,
    teams: store.header?.teams ?? [],
  };
}

// Where a key takes the review from n (null: live, i.e. the last entry of a running game).
export function stepTo(key, n, count) {
  const from = n ?? count;
  const target = { ArrowLeft: from - 1, ArrowRight: from + 1, Home: 0, End: count }[key];
  return target === undefined ? undefined : Math.max(0, Math.min(count, target));
}
