// The arbiter console (#/console): log in with the arbiter's broker credentials, follow the
// alerts of every table, act on them. Every action is confirmed first, and the bridge's answer
// (matched by transaction) is shown next to the request.

import { element } from "./dom.js";
import { openFeed } from "./feed.js";
import { alertActions, articleText, requestBody, ruleText, VERBS } from "./model.js";

const FIELD_CHOICES = {
  board: ["A", "B"],
  color: ["white", "black"],
  claim: ["flag", "illegal_move"],
};

export function showConsole(main, config, setStatus) {
  const form = element(
    "form",
    { class: "login", "data-login": "" },
    element("h2", {}, "Arbiter console"),
    element("label", {}, "user ", element("input", { name: "username", autocomplete: "username", required: "" })),
    element(
      "label",
      {},
      "password ",
      element("input", { name: "password", type: "password", autocomplete: "current-password" }),
    ),
    element("button", { type: "submit" }, "log in"),
    element("p", { class: "login-error", "data-login-error": "" }),
  );
  main.append(form);
  form.addEventListener("submit", (submit) => {
    submit.preventDefault();
    const data = new FormData(form);
    form.querySelector("button").disabled = true;
    startConsole(main, form, config, setStatus, {
      username: data.get("username"),
      password: data.get("password"),
    });
  });
}

function startConsole(main, form, config, setStatus, credentials) {
  const ui = new ConsoleView(config);
  let shown = false;
  const client = openFeed({
    url: config.url,
    ...credentials,
    topics: [
      `${config.root}/alerts`,
      `${config.root}/bridge/+/response/+`,
      `${config.root}/bridge/+/status`,
      `${config.root}/match/+/state`,
    ],
    onStatus(status, detail) {
      setStatus(status, detail);
      if (status === "connected" && !shown) {
        shown = true;
        form.remove();
        main.append(ui.root);
      } else if (status === "refused") {
        form.querySelector("[data-login-error]").textContent = `the broker refused: ${detail}`;
        form.querySelector("button").disabled = false;
      }
    },
    onMessage: (topic, data) => ui.receive(topic, data),
  });
  ui.publish = (topic, body) => client.publish(topic, JSON.stringify(body), { qos: 1 });
  return ui;
}

class ConsoleView {
  constructor(config) {
    this.config = config;
    this.articles = {};
    // The cited articles' texts (scripts/web_rules.py); alerts show them when they have come.
    fetch("rules.json")
      .then((response) => (response.ok ? response.json() : {}))
      .then((texts) => {
        this.articles = texts;
        for (const node of this.alerts.querySelectorAll("[data-rule]")) {
          node.querySelector(".alert-article").textContent = articleText(node.dataset.rule, texts);
        }
      })
      .catch(() => {});
    this.seenAlerts = new Set();
    this.bridges = new Set();
    this.pending = new Map(); // transaction -> response node
    this.counter = 0;
    this.alerts = element("ol", { class: "alert-feed", "data-alerts": "" });
    this.responses = element("ol", { class: "responses", "data-responses": "" });
    this.tables = element("ul", { class: "tables", "data-tables": "" });
    this.confirm = this.buildConfirm();
    this.manual = this.buildManual();
    this.root = element(
      "div",
      { class: "console", "data-console": "" },
      element("section", { class: "feed" }, element("h2", {}, "Alerts"), this.alerts),
      element(
        "section",
        { class: "side" },
        this.confirm,
        element("h2", {}, "Tables"),
        this.tables,
        element("h2", {}, "Action"),
        this.manual,
        element("h2", {}, "Answers"),
        this.responses,
      ),
    );
  }

  receive(topic, data) {
    const parts = topic.slice(this.config.root.length + 1).split("/");
    if (parts[0] === "alerts") this.addAlert(data);
    else if (parts[0] === "bridge" && parts[2] === "status") this.addBridge(parts[1], data);
    else if (parts[0] === "bridge" && parts[2] === "response") this.showResponse(parts[3], data);
    else if (parts[0] === "match" && parts[2] === "state") this.addTable(parts[1], data);
  }

  addBridge(bridge, status) {
    if (!this.bridges.has(bridge)) {
      this.bridges.add(bridge);
      this.bridgeSelect.append(element("option", { value: bridge }, bridge));
    }
    this.bridgeSelect.querySelector(`option[value="${CSS.escape(bridge)}"]`).textContent =
      `${bridge} (${status?.state ?? "?"})`;
  }

  addTable(match, state) {
    if (state?.bridge) this.addBridge(state.bridge, { state: "online" });
    if (this.tables.querySelector(`[data-table="${CSS.escape(match)}"]`)) return;
    const link = element("a", { href: `#/match/${encodeURIComponent(match)}`, target: "_blank" }, match);
    this.tables.append(element("li", { "data-table": match }, link, ` on ${state?.bridge ?? "?"}`));
  }

  addAlert(alert) {
    const key = `${alert.boot_id}:${alert.seq}`;
    if (this.seenAlerts.has(key)) return; // QoS 1 repeats
    this.seenAlerts.add(key);
    if (alert.bridge) this.addBridge(alert.bridge, { state: "online" });
    const when = String(alert.ts ?? "").slice(11, 19);
    const who = [alert.match, alert.board && `board ${alert.board}`, alert.color].filter(Boolean).join(" · ");
    const actions = element("div", { class: "actions" });
    const item = element(
      "li",
      {
        class: `alert severity-${alert.severity}`,
        "data-alert-code": alert.code,
        "data-alert-key": key,
        "data-bridge": alert.bridge ?? "",
      },
      element("div", { class: "alert-head" }, element("b", {}, alert.code), ` ${when} · ${who}`),
      element("div", { class: "alert-message" }, alert.message ?? ""),
      element(
        "div",
        { class: "alert-rule", "data-rule": alert.rule ?? "" },
        ruleText(alert.rule),
        element("blockquote", { class: "alert-article" }, articleText(alert.rule, this.articles)),
      ),
      actions,
    );
    const ack = element("button", { type: "button", "data-action": "ack" }, "acknowledge");
    ack.addEventListener("click", () => {
      item.classList.add("acknowledged");
      item.dataset.acknowledged = "";
      ack.disabled = true;
    });
    actions.append(ack);
    for (const action of alertActions(alert)) {
      const button = element("button", { type: "button", "data-action": action.verb }, action.label);
      button.addEventListener("click", () => this.ask(alert.bridge, action.verb, action.args));
      actions.append(button);
    }
    this.alerts.prepend(item);
  }

  buildConfirm() {
    const text = element("p", { "data-confirm-text": "" });
    const yes = element("button", { type: "button", "data-confirm-yes": "" }, "send");
    const no = element("button", { type: "button", "data-confirm-no": "" }, "cancel");
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
    this.confirm.text.textContent = `Send ${verb} ${JSON.stringify(args)} to bridge ${bridge}?`;
    this.confirm.hidden = false;
    this.confirm.querySelector("[data-confirm-yes]").focus();
  }

  send(bridge, verb, args) {
    this.counter += 1;
    const transaction = `web-${Date.now().toString(36)}-${this.counter}`;
    const body = { ...args, transaction };
    const item = element(
      "li",
      { "data-transaction": transaction, "data-verb": verb, "data-ok": "pending" },
      `${verb} ${JSON.stringify(args)} → ${bridge}: `,
      element("span", { class: "answer" }, "waiting…"),
    );
    this.responses.prepend(item);
    this.pending.set(transaction, item);
    this.publish(`${this.config.root}/bridge/${bridge}/request/${verb}`, body);
  }

  showResponse(verb, response) {
    const item = this.pending.get(response?.transaction);
    if (!item) return; // another console's request
    this.pending.delete(response.transaction);
    item.dataset.ok = String(Boolean(response.ok));
    const { transaction, ok, error, state, ...rest } = response;
    const answer = ok ? `ok ${JSON.stringify(rest)}` : `refused: ${error ?? "no reason given"}`;
    item.querySelector(".answer").textContent = answer;
  }

  // Any verb by hand: a form whose fields follow VERBS (the data of model.js).
  buildManual() {
    const bridge = element("select", { name: "bridge", "data-field": "bridge" });
    const verb = element("select", { name: "verb", "data-field": "verb" });
    for (const name of Object.keys(VERBS)) verb.append(element("option", { value: name }, name));
    const fields = element("div", { class: "fields" });
    const error = element("p", { class: "form-error" });
    const send = element("button", { type: "submit" }, "send…");
    const form = element("form", { class: "manual", "data-manual": "" }, bridge, verb, fields, send, error);
    const drawFields = () => {
      fields.replaceChildren(
        ...VERBS[verb.value].map((spec) => {
          const name = spec.replace("?", "");
          const choices = FIELD_CHOICES[name];
          const input = choices
            ? element("select", { name }, ...(spec.endsWith("?") ? [""] : []).concat(choices).map(
                (choice) => element("option", { value: choice }, choice || "(both)"),
              ))
            : element("input", { name, placeholder: spec });
          return element("label", {}, `${name} `, input);
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
