// The console's alert feed: every alert of every table in the arbiter's language, filtered by
// table, with only the actions that apply to it; an acknowledgement is published retained (who,
// when) and shown in every console; an illegal move sounds and vibrates when switched on (a
// browser allows both only after the arbiter touched the page, hence the switch).

import {
  alarms,
  alertActions,
  alertKey,
  alertText,
  alertWhere,
  articleText,
  articleTranslation,
  candidateLabel,
  gapKey,
  localTime,
  recommendation,
  withdrawnGap,
  ruleText,
  settledGap,
  tableName,
} from "./arbiter.js";
import { element } from "./dom.js";
import { language, t } from "./i18n.js";

const ALARM_KEY = "bughouse-bridge.alarm";
const VIBRATION = [200, 100, 200];

function remembered(key) {
  try {
    return localStorage.getItem(key);
  } catch {
    return null;
  }
}

function remember(key, value) {
  try {
    localStorage.setItem(key, value);
  } catch {
    // storage disabled: the choice lasts for this page
  }
}

let descriptions = 0; // ids of the candidates' descriptions, unique on the page

// A candidate's button with, under it, its plies and what it leaves in the pockets that tell
// the gap's candidates apart: the arbiter compares them with the pockets beside the board. The
// text says which pocket and what is in it; the highlight only repeats it. The lines are the
// button's description for a screen reader.
function described(button, { moves, pockets = [] }) {
  descriptions += 1;
  const id = `candidate-about-${descriptions}`;
  const about = element("div", { class: "candidate-about", id });
  if (moves) about.append(element("p", { class: "candidate-moves", "data-candidate-moves": "" }, t("candidate.moves", { moves })));
  if (pockets.length) {
    const lines = pockets.map((pocket) => element("li", { "data-differs": pocket.key }, element("mark", {}, pocket.text)));
    about.append(element("ul", { class: "candidate-pockets", "data-candidate-pockets": button.dataset.candidate }, ...lines));
  }
  button.setAttribute("aria-describedby", id);
  return element("div", { class: "candidate" }, button, about);
}

export class AlertFeed {
  constructor({ ask, acknowledge }) {
    this.ask = ask; // (bridge, verb, args): the console confirms and sends
    this.acknowledge = acknowledge; // (alert): the console publishes the acknowledgement
    this.items = new Map(); // alertKey -> {item, alert}
    this.acks = new Map(); // alertKey -> acknowledgement (it may come before its alert)
    // The news about a gap may come before the gap's alert (retained or reordered delivery).
    this.settled = new Set(); // gapKey of the gaps resolved
    // gapKey -> the candidate index the later moves decide for; null once withdrawn.
    this.recommended = new Map();
    this.texts = {};
    this.translations = {};
    this.alarmCount = 0;
    this.list = element("ol", { class: "alert-feed", "data-alerts": "" });
    this.filter = element("select", { "data-filter": "", "aria-label": t("console.filter") }, element("option", { value: "" }, t("console.all_tables")));
    this.filter.addEventListener("change", () => this.applyFilter());
    this.alarm = element("input", { type: "checkbox", "data-alarm": "" });
    this.alarm.checked = remembered(ALARM_KEY) === "on";
    this.alarm.addEventListener("change", () => {
      remember(ALARM_KEY, this.alarm.checked ? "on" : "off");
      if (this.alarm.checked) this.unlockSound();
    });
    // Browsers start sound only after a touch: the first one after a reload unlocks it.
    document.addEventListener("pointerdown", () => this.alarm.checked && this.unlockSound(), { once: true });
    const bar = element(
      "div",
      { class: "alert-bar" },
      this.filter,
      element("label", { class: "alarm-switch" }, this.alarm, ` ${t("console.alarm")}`),
    );
    this.root = element("section", { class: "feed", "data-alarms": "0" }, element("h2", {}, t("console.alerts")), bar, this.list);
    this.bridges = new Set();
  }

  setArticles(texts, translations) {
    this.texts = texts ?? {};
    this.translations = translations ?? {};
    for (const { item, alert } of this.items.values()) this.fillArticle(item, alert);
  }

  addBridge(bridge, table = null) {
    if (!bridge || this.bridges.has(bridge)) return;
    this.bridges.add(bridge);
    this.filter.append(element("option", { value: bridge }, tableName(bridge, table)));
  }

  add(alert) {
    const key = alertKey(alert);
    if (this.items.has(key)) return; // QoS 1 repeats
    this.addBridge(alert.bridge);
    const actions = element("div", { class: "actions" });
    const item = element(
      "li",
      {
        class: `alert severity-${alert.severity}`,
        "data-alert-code": alert.code,
        "data-alert-key": `${alert.boot_id}:${alert.seq}`,
        "data-bridge": alert.bridge ?? "",
      },
      element("div", { class: "alert-head" }, element("b", {}, alert.code), ` ${alertWhere(alert)}`),
      element("div", { class: "alert-message" }, alertText(alert)),
      element(
        "div",
        { class: "alert-rule", "data-rule": alert.rule ?? "" },
        ruleText(alert.rule),
        element("blockquote", { class: "alert-article" }),
        element("blockquote", { class: "alert-translation" }),
      ),
      element("details", { class: "alert-original" }, element("summary", {}, t("alert.original")), alert.message ?? ""),
      actions,
      element("p", { class: "ack-status", "data-ack-status": "" }),
    );
    const ack = element("button", { type: "button", "data-action": "ack" }, t("alert.acknowledge"));
    ack.addEventListener("click", () => {
      ack.disabled = true;
      this.acknowledge(alert);
    });
    actions.append(ack);
    for (const action of alertActions(alert)) {
      const button = element("button", { type: "button", "data-action": action.verb }, action.label);
      if (action.verb === "choose_recovery") button.dataset.candidate = String(action.args.candidate);
      if (action.recommended) this.markRecommended(button);
      button.addEventListener("click", () => this.ask(alert.bridge, action.verb, action.args));
      actions.append(action.moves || action.pockets?.length ? described(button, action) : button);
    }
    this.items.set(key, { item, alert });
    this.fillArticle(item, alert);
    item.hidden = Boolean(this.filter.value) && this.filter.value !== alert.bridge;
    this.list.prepend(item);
    if (this.acks.has(key)) this.showAck(item, this.acks.get(key));
    this.applySettled(alert);
    this.applyRecommended(alert);
    if (alarms(alert)) this.sound();
  }

  // A gap resolved (a better look at it explained it): its earlier alerts keep their text, but
  // their candidates can no longer be chosen (the bridge would refuse them).
  applySettled(alert) {
    const settled = settledGap(alert);
    if (settled) {
      this.settled.add(settled);
      for (const { item, alert: shown } of this.items.values()) {
        if (gapKey(shown) === settled) this.markSettled(item, shown);
      }
    } else if (this.settled.has(gapKey(alert))) {
      this.markSettled(this.items.get(alertKey(alert)).item, alert); // the news came first
    }
  }

  // The later moves decide a gap (contract §3): the gap stays open and its candidates can all
  // still be chosen, but the alerts offering them highlight the recommended one, until a later
  // move that does not fit it withdraws the recommendation.
  applyRecommended(alert) {
    const withdrawn = withdrawnGap(alert);
    const told = recommendation(alert);
    if (withdrawn) this.recommended.set(withdrawn, null);
    else if (told && this.recommended.get(told.gap) !== null) this.recommended.set(told.gap, told.index);
    const gap = withdrawn ?? told?.gap;
    if (gap) {
      for (const { item, alert: shown } of this.items.values()) {
        if (gapKey(shown) === gap) this.markGap(item, gap);
      }
    } else if (this.recommended.has(gapKey(alert))) {
      this.markGap(this.items.get(alertKey(alert)).item, gapKey(alert)); // the news came first
    }
  }

  // An alert of a gap as the later moves left it: its recommended candidate highlighted, or
  // none once the recommendation was withdrawn.
  markGap(item, gap) {
    const index = this.recommended.get(gap);
    if (index === null) this.unhighlight(item);
    else this.highlight(item, index);
  }

  highlight(item, index) {
    const button = item.querySelector(`[data-action="choose_recovery"][data-candidate="${index}"]`);
    if (button && !("recommended" in button.dataset)) this.markRecommended(button);
  }

  unhighlight(item) {
    for (const button of item.querySelectorAll('[data-action="choose_recovery"][data-recommended]')) {
      delete button.dataset.recommended;
      button.classList.remove("recommended");
      button.textContent = candidateLabel(Number(button.dataset.candidate), false);
    }
  }

  markRecommended(button) {
    button.dataset.recommended = "";
    button.classList.add("recommended");
    button.textContent = candidateLabel(Number(button.dataset.candidate), true);
  }

  markSettled(item, alert) {
    if (settledGap(alert) || "settled" in item.dataset) return;
    item.dataset.settled = "";
    item.classList.add("settled");
    for (const button of item.querySelectorAll('[data-action="choose_recovery"]')) button.disabled = true;
    item.querySelector("[data-ack-status]").before(element("p", { class: "settled-status" }, t("alert.gap_settled")));
  }

  fillArticle(item, alert) {
    const original = articleText(alert.rule, this.texts);
    const quote = item.querySelector(".alert-article");
    quote.textContent = original;
    const lang = this.translations.languages?.[/^\w+/.exec(alert.rule ?? "")?.[0]];
    if (lang) quote.lang = lang;
    const translation = item.querySelector(".alert-translation");
    translation.textContent = original ? articleTranslation(alert.rule, this.translations, language()) : "";
    translation.lang = language();
  }

  // An acknowledgement from the broker (this console's own or another's; retained ones too).
  applyAck(ack) {
    if (!ack || typeof ack !== "object") return;
    const key = alertKey(ack);
    this.acks.set(key, ack);
    const shown = this.items.get(key);
    if (shown) this.showAck(shown.item, ack);
  }

  showAck(item, ack) {
    item.classList.add("acknowledged");
    item.dataset.acknowledged = "";
    item.dataset.acknowledgedBy = String(ack.by ?? "");
    const time = localTime(ack.ts);
    item.querySelector("[data-ack-status]").textContent = t("alert.acknowledged", { by: ack.by ?? "?", time });
    const button = item.querySelector('[data-action="ack"]');
    button.disabled = true;
  }

  applyFilter() {
    const wanted = this.filter.value;
    for (const { item, alert } of this.items.values()) item.hidden = Boolean(wanted) && wanted !== alert.bridge;
  }

  unlockSound() {
    try {
      this.audio ??= new AudioContext();
      this.audio.resume();
    } catch {
      this.audio = null; // no Web Audio: vibration only
    }
  }

  // Two short beeps and a vibration, when the arbiter asked for them.
  sound() {
    if (!this.alarm.checked) return;
    this.alarmCount += 1;
    this.root.dataset.alarms = String(this.alarmCount);
    navigator.vibrate?.(VIBRATION);
    const audio = this.audio;
    if (!audio || audio.state !== "running") return;
    for (const start of [0, 0.3]) {
      const tone = audio.createOscillator();
      const gain = audio.createGain();
      tone.frequency.value = 880;
      gain.gain.value = 0.2;
      tone.connect(gain).connect(audio.destination);
      tone.start(audio.currentTime + start);
      tone.stop(audio.currentTime + start + 0.18);
    }
  }
}
