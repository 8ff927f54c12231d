// Game review on the broadcast page: the move list of both boards in record order (= the order
// they were played), a click or the arrow keys (Home/End for the ends, Escape for live) show both
// boards as they stood at that entry, with pockets and clocks; "back to live" while the game runs.
// The list grows by one item per entry: the live path never redraws the whole list.

import { element } from "./dom.js";
import { t } from "./i18n.js";
import { moveKind, parseBpgnMoves } from "./model.js";
import { RecordStore, entryKind, entryLabel, entryText, momentAt, stepTo } from "./record.js";

const STEPS = [
  ["first", "◀◀", "Home"],
  ["previous", "◀", "ArrowLeft"],
  ["next", "▶", "ArrowRight"],
  ["last", "▶▶", "End"],
];

export class ReviewController {
  constructor(view, container, { keys = true } = {}) {
    this.view = view;
    this.store = new RecordStore();
    this.n = null; // the entry shown in review, null when live
    this.items = []; // the list's <li> of entry k at k - 1
    this.list = element("ol", { class: "move-list", "data-moves": "" });
    this.status = element("span", { class: "review-status", "data-review-status": "" });
    this.liveButton = element("button", { type: "button", class: "review-live", "data-live": "", hidden: "" }, t("review.live"));
    this.liveButton.addEventListener("click", () => this.live());
    const bar = element("div", { class: "review-bar", "data-review-bar": "" });
    for (const [name, symbol, key] of STEPS) {
      const button = element("button", { type: "button", "data-review-step": name, title: t(`review.${name}`), "aria-label": t(`review.${name}`) }, symbol);
      button.addEventListener("click", () => this.key(key));
      bar.append(button);
    }
    bar.append(this.liveButton, this.status);
    this.list.addEventListener("click", (click) => {
      const item = click.target.closest("[data-entry]");
      if (item) this.go(Number(item.dataset.entry));
    });
    this.scroller = element("div", { class: "moves" }, this.list);
    container.append(bar, this.scroller);
    if (keys) document.addEventListener("keydown", (event) => this.onKey(event));
    this.update();
  }

  get running() {
    return !this.store.finished && !this.view.state?.result;
  }

  // <match>/record or <match>/record/<n> (data null: a cleared retained message).
  applyRecord(tail, data) {
    const changed = this.store.apply(tail, data);
    if (changed === null) return;
    if (this.items.length === 0 && this.list.childElementCount) this.list.replaceChildren();
    this.syncList(changed);
    if (changed === 0) this.refreshNotes();
    if (this.n !== null && (changed === 0 || changed <= this.n)) this.go(this.n);
    this.update();
  }

  // Until the bridge publishes a record (an older bridge), the list comes from the BPGN.
  applyBpgn(text) {
    if (this.store.started) return;
    this.list.replaceChildren(
      ...parseBpgnMoves(text).map((move) =>
        element(
          "li",
          { class: `mv board-${move.board} ${move.color} ${moveKind(move.san)}`, "data-move-board": move.board },
          element("span", { class: "label" }, move.label),
          " ",
          move.san,
        ),
      ),
    );
    this.scrollToEnd();
  }

  syncList(changed) {
    const count = this.store.count();
    while (this.items.length > count) this.items.pop().remove();
    if (changed >= 1 && changed <= this.items.length) {
      const fresh = this.item(changed);
      this.items[changed - 1].replaceWith(fresh);
      this.items[changed - 1] = fresh;
    }
    const added = this.items.length < count;
    while (this.items.length < count) {
      const item = this.item(this.items.length + 1);
      this.items.push(item);
      this.list.append(item);
    }
    if (added && this.n === null) this.scrollToEnd();
  }

  get teams() {
    return this.view.state?.teams ?? this.store.header?.teams ?? [];
  }

  // The header names the teams a result entry speaks of (it may come after the entries).
  refreshNotes() {
    this.items.forEach((item, index) => {
      if (!item.classList.contains("note")) return;
      const fresh = this.item(index + 1);
      item.replaceWith(fresh);
      this.items[index] = fresh;
    });
  }

  // A move is `.mv` (its BPGN label and SAN); any other entry (a removal, a correction, a gap, a
  // result, its revocation) is a `.note` in words. Both are reviewable entries.
  item(n) {
    const entry = this.store.entry(n);
    const kind = entryKind(entry);
    const label = entryLabel(entry);
    const classes = [entry.kind === "move" ? "mv" : "note", `board-${entry.board ?? "none"}`, entry.color ?? "", kind];
    // Marked, with the reason on hover: a move found after a link gap (nobody saw it played),
    // one whose order across the boards could not be told, an illegal move that stood.
    const hints = [];
    if (entry.recovered) hints.push("recovered");
    if (entry.order_certain === false) hints.push("uncertain");
    if (entry.forced) hints.push("forced");
    classes.push(...hints);
    if (this.n === n) classes.push("current");
    const title = hints.map((hint) => t(`record.hint_${hint}`)).join("; ");
    return element(
      "li",
      { class: classes.filter(Boolean).join(" "), "data-entry": String(n), "data-kind": entry.kind ?? "", "data-move-board": entry.board ?? "", tabindex: "-1", ...(title ? { title } : {}) },
      ...(label ? [element("span", { class: "label" }, label), " "] : []),
      entryText(entry, this.teams),
    );
  }

  onKey(event) {
    if (event.target.closest?.("input, select, textarea")) return;
    if (event.key === "Escape") this.live();
    else if (!this.key(event.key)) return;
    event.preventDefault();
  }

  // One of the review keys; false for any other.
  key(name) {
    const count = this.store.count();
    if (!count) return false;
    const target = stepTo(name, this.n, count);
    if (target === undefined) return false;
    this.go(target);
    return true;
  }

  // Entry n (0: the start), or live when n is the last entry.
  go(n) {
    const count = this.store.count();
    if (n >= count) {
      this.live();
      return;
    }
    this.mark(n);
    this.view.showMoment(momentAt(this.store, n));
    this.update();
  }

  live() {
    this.mark(null);
    this.view.showLive();
    this.update();
    this.scrollToEnd();
  }

  mark(n) {
    if (this.n !== null) this.items[this.n - 1]?.classList.remove("current");
    this.n = n;
    const item = n === null ? null : this.items[n - 1];
    item?.classList.add("current");
    item?.scrollIntoView?.({ block: "nearest" });
    this.list.classList.toggle("reviewing", n !== null);
    this.view.root.dataset.review = n === null ? "" : String(n);
  }

  update() {
    const count = this.store.count();
    this.liveButton.hidden = this.n === null || !this.running;
    if (this.n === null) {
      this.status.textContent = count ? t(this.running ? "review.is_live" : "review.final") : "";
      return;
    }
    const entry = this.store.entry(this.n);
    const what = entry ? [entryLabel(entry), entryText(entry, this.teams)].filter(Boolean).join(" ") : t("review.start");
    this.status.textContent = t("review.at", { what, n: this.n, count });
  }

  scrollToEnd() {
    this.scroller.scrollTop = this.scroller.scrollHeight;
  }
}
