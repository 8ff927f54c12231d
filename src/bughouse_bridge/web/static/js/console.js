// The arbiter console (#/console): log in with the arbiter's broker credentials, follow the
// alerts of every table (js/alerts.js), act on them. Every action is confirmed first, and the
// bridge's answer (matched by transaction) is shown next to the request. Laid out for a phone
// as much as for a desk.

import { AlertFeed } from "./alerts.js";
import { VERBS, ackPayload, ackTopic, requestBody, tableName } from "./arbiter.js";
import { element } from "./dom.js";
import { openFeed } from "./feed.js";
import { HallModel } from "./hallmodel.js";
import { t } from "./i18n.js";

const FIELD_CHOICES = {
  board: ["A", "B"],
  color: ["white", "black"],
  claim: ["flag", "illegal_move"],
};
const NAME_KEY = "bughouse-bridge.arbiter-name";

function storedName() {
  try {
    return localStorage.getItem(NAME_KEY) ?? "";
  } catch {
    return "";
  }
}

export function showConsole(main, config, setStatus) {
  const field = (label, attributes) => element("label", {}, `${t(label)} `, element("input", attributes));
  const form = element(
    "form",
    { class: "login", "data-login": "" },
    element("h2", {}, t("console.title")),
    field("console.user", { name: "username", autocomplete: "username", required: "" }),
    field("console.password", { name: "password", type: "password", autocomplete: "current-password" }),
    field("console.name", { name: "name", autocomplete: "name", value: storedName() }),
    element("button", { type: "submit" }, t("console.log_in")),
    element("p", { class: "login-error", "data-login-error": "" }),
  );
  main.append(form);
  form.addEventListener("submit", (submit) => {
    submit.preventDefault();
    const data = new FormData(form);
    const name = String(data.get("name") ?? "").trim();
    try {
      localStorage.setItem(NAME_KEY, name);
    } catch {
      // the name lasts for this page
    }
    form.querySelector("button").disabled = true;
    startConsole(main, form, config, setStatus, {
      username: data.get("username"),
      password: data.get("password"),
      name: name || String(data.get("username")),
    });
  });
}

function startConsole(main, form, config, setStatus, { name, ...credentials }) {
  const ui = new ConsoleView(config, name);
  let shown = false;
  const root = config.root;
  const client = openFeed({
    url: config.url,
    ...credentials,
    topics: [
      `${root}/alerts`,
      `${root}/ack/+/+/+`,
      `${root}/bridge/+/response/+`,
      `${root}/bridge/+/status`,
      `${root}/bridge/+/games`,
      `${root}/match/+/state`,
    ],
    onStatus(status, detail) {
      setStatus(status, detail);
      if (status === "connected" && !shown) {
        shown = true;
        form.remove();
        main.append(ui.root);
      } else if (status === "refused") {
        form.querySelector("[data-login-error]").textContent = t("console.refused", { detail });
        form.querySelector("button").disabled = false;
      }
    },
    onMessage: (topic, data) => ui.receive(topic, data),
  });
  ui.publish = (topic, body, retain = false) => client.publish(topic, JSON.stringify(body), { qos: 1, retain });
  return ui;
}

class ConsoleView {
  constructor(config, name) {
    this.config = config;
    this.name = name;
    this.hall = new HallModel();
    this.status = new Map(); // bridge -> its status ("online", "offline", "lost")
    this.pending = new Map(); // transaction -> response node
    this.counter = 0;
    this.feed = new AlertFeed({
      ask: (bridge, verb, args) => this.ask(bridge, verb, args),
      acknowledge: (alert) => this.acknowledge(alert),
    });
    // The cited articles' texts (scripts/web_rules.py) and their translations.
    Promise.all(["rules.json", "i18n/articles.json"].map((file) => fetch(file).then((r) => (r.ok ? r.json() : {}))))
      .then(([texts, translations]) => this.feed.setArticles(texts, translations))
      .catch(() => {});
    this.responses = element("ol", { class: "responses", "data-responses": "" });
    this.tables = element("ul", { class: "tables", "data-tables": "" });
    this.confirm = this.buildConfirm();
    this.manual = this.buildManual();
    this.root = element(
      "div",
      { class: "console", "data-console": "" },
      this.feed.root,
      element(
        "section",
        { class: "side" },
        this.confirm,
        element("h2", {}, t("console.tables")),
        this.tables,
        element("h2", {}, t("console.action")),
        this.manual,
        element("h2", {}, t("console.answers")),
        this.responses,
      ),
    );
  }

  receive(topic, data) {
    const parts = topic.slice(this.config.root.length + 1).split("/");
    if (parts[0] === "alerts" && data) {
      this.addBridge(data.bridge);
      this.feed.add(data);
    }
    else if (parts[0] === "ack") this.feed.applyAck(data);
    else if (parts[0] === "bridge" && parts[2] === "status") this.bridgeStatus(parts[1], data);
    else if (parts[0] === "bridge" && parts[2] === "response") this.showResponse(parts[3], data);
    else if (parts[0] === "bridge" && parts[2] === "games") this.hallChanged(parts[1], () => this.hall.applyGames(parts[1], data));
    else if (parts[0] === "match" && parts[2] === "state") this.hallChanged(data?.bridge, () => this.hall.applyState(parts[1], data));
  }

  bridgeStatus(bridge, status) {
    this.status.set(bridge, status?.state ?? "?");
    this.addBridge(bridge);
    this.drawTables();
  }

  hallChanged(bridge, change) {
    change();
    if (bridge) this.addBridge(bridge);
    this.drawTables();
  }

  addBridge(bridge) {
    if (!bridge) return;
    if (!this.bridgeSelect.querySelector(`option[value="${CSS.escape(bridge)}"]`)) {
      this.bridgeSelect.append(element("option", { value: bridge }, bridge));
    }
    this.feed.addBridge(bridge, this.hall.table(bridge).table);
  }

  // One line per table (box): its current match, round and game, and whether it is online.
  drawTables() {
    const tables = this.hall.tables();
    const signature = JSON.stringify([tables.map(({ finished, ...rest }) => rest), [...this.status]]);
    if (signature === this.drawn) return; // a move changes no line here
    this.drawn = signature;
    const rows = tables.map((table) => {
      const label = tableName(table.bridge, table.table);
      const where = table.round === null ? "" : ` · ${t("hall.round_game", { round: table.round, game: table.game })}`;
      const state = this.status.get(table.bridge);
      const link = table.current
        ? element("a", { href: `#/match/${encodeURIComponent(table.current)}`, target: "_blank" }, table.current)
        : "–";
      return element(
        "li",
        { "data-table-row": table.bridge },
        element("b", {}, label),
        " ",
        link,
        where,
        state ? ` (${t(`status.${state}`)})` : "",
      );
    });
    this.tables.replaceChildren(...rows);
  }

  acknowledge(alert) {
    const topic = ackTopic(this.config.root, alert);
    if (topic) this.publish(topic, ackPayload(alert, this.name, new Date().toISOString()), true);
  }

  buildConfirm() {
    const text = element("p", { "data-confirm-text": "" });
    const yes = element("button", { type: "button", "data-confirm-yes": "" }, t("console.send"));
    const no = element("button", { type: "button", "data-confirm-no": "" }, t("console.cancel"));
    const box = element("div", { class: "confirm", "data-confirm": "", hidden: "" }, text, yes, no);
    no.addEventListener("click", () => {
      box.hidden = true;
    });
    yes.addEventListener("click", () => {
      box.hidden = true;
      if (this.asked) this.send(...this.asked);
    });
    box.text = text;
    return box;
  }

  // Every action asks first: what goes where, with which arguments.
  ask(bridge, verb, args) {
    if (!bridge) return;
    this.asked = [bridge, verb, args];
    this.confirm.text.textContent = t("console.confirm", { verb, args: JSON.stringify(args), bridge });
    this.confirm.hidden = false;
    this.confirm.scrollIntoView?.({ block: "nearest" });
    this.confirm.querySelector("[data-confirm-yes]").focus();
  }

  send(bridge, verb, args) {
    this.counter += 1;
    const transaction = `web-${Date.now().toString(36)}-${this.counter}`;
    const item = element(
      "li",
      { "data-transaction": transaction, "data-verb": verb, "data-ok": "pending" },
      `${verb} ${JSON.stringify(args)} → ${bridge}: `,
      element("span", { class: "answer" }, t("console.waiting")),
    );
    this.responses.prepend(item);
    this.pending.set(transaction, item);
    this.publish(`${this.config.root}/bridge/${bridge}/request/${verb}`, { ...args, transaction });
  }

  showResponse(verb, response) {
    const item = this.pending.get(response?.transaction);
    if (!item) return; // another console's request
    this.pending.delete(response.transaction);
    item.dataset.ok = String(Boolean(response.ok));
    const { transaction, ok, error, state, ...rest } = response;
    const answer = ok
      ? t("console.ok", { detail: JSON.stringify(rest) })
      : t("console.refused_answer", { error: error ?? t("console.no_reason") });
    item.querySelector(".answer").textContent = answer;
  }

  // Any verb by hand: a form whose fields follow VERBS (the data of js/arbiter.js).
  buildManual() {
    const bridge = element("select", { name: "bridge", "data-field": "bridge" });
    const verb = element("select", { name: "verb", "data-field": "verb" });
    for (const name of Object.keys(VERBS)) verb.append(element("option", { value: name }, t(`verb.${name}`)));
    const fields = element("div", { class: "fields" });
    const error = element("p", { class: "form-error" });
    const send = element("button", { type: "submit" }, t("console.send_more"));
    const form = element("form", { class: "manual", "data-manual": "" }, bridge, verb, fields, send, error);
    const drawFields = () => {
      fields.replaceChildren(
        ...VERBS[verb.value].map((spec) => {
          const name = spec.replace("?", "");
          const choices = FIELD_CHOICES[name];
          const input = choices
            ? element("select", { name }, ...(spec.endsWith("?") ? [""] : []).concat(choices).map(
                (choice) => element("option", { value: choice }, choice || t("console.both")),
              ))
            : element("input", { name, placeholder: spec });
          return element("label", {}, `${t(`field.${name}`)} `, input);
        }),
      );
    };
    verb.addEventListener("change", drawFields);
    drawFields();
    form.addEventListener("submit", (submit) => {
      submit.preventDefault();
      const values = Object.fromEntries(new FormData(fields.closest("form")));
      try {
        const { transaction, ...args } = requestBody(verb.value, values, "");
        error.textContent = "";
        this.ask(bridge.value, verb.value, args);
      } catch (problem) {
        error.textContent = problem.message;
      }
    });
    this.bridgeSelect = bridge;
    return form;
  }
}
