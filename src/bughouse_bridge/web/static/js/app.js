// Entry point: find the broker, pick the language and the view from the address, draw it.
//   #/hall (default)  every table      #/match/<id>  one match (live and review)
//   #/standings       the standings    #/console     the arbiter
// Query options: ?broker=ws://host:9001  ?root=bughouse/v1  ?transparent=1 (OBS browser source)
//   ?lang=en|de|es (remembered; else the browser's language)

import { showConsole } from "./console.js";
import { showHall } from "./hall.js";
import { languagePicker, setUpLanguage, t } from "./i18n.js";
import { showMatch } from "./pages.js";

const DEFAULTS = { broker: null, ws_port: 9001, root: "bughouse/v1" };

export async function loadConfig(search = location.search) {
  let served = {};
  try {
    const response = await fetch("config.json", { cache: "no-store" });
    if (response.ok) served = await response.json();
  } catch {
    // Opened from a file or another server: the defaults and the query decide.
  }
  const query = new URLSearchParams(search);
  const config = { ...DEFAULTS, ...served };
  const url = query.get("broker") || config.broker || `ws://${location.hostname || "127.0.0.1"}:${config.ws_port}`;
  return {
    url,
    root: query.get("root") || config.root,
    transparent: query.get("transparent") === "1",
  };
}

export function route(hash = location.hash) {
  const parts = hash.replace(/^#\/?/, "").split("/").filter(Boolean).map(decodeURIComponent);
  if (parts[0] === "match" && parts[1]) return { view: "match", match: parts[1] };
  if (parts[0] === "console") return { view: "console" };
  if (parts[0] === "standings") return { view: "standings" };
  return { view: "hall" };
}

function statusReporter(node) {
  return (status, detail) => {
    node.dataset.connection = status;
    const text = t(`connection.${status}`);
    node.textContent = detail ? `${text}: ${detail}` : text;
  };
}

async function main() {
  const [config] = await Promise.all([loadConfig(), setUpLanguage()]);
  document.body.classList.toggle("transparent", config.transparent);
  const where = route();
  document.body.dataset.view = where.view;
  document.title = t("app.title");
  const main = document.querySelector("main");
  const setStatus = statusReporter(document.querySelector("[data-connection]"));
  const home = document.querySelector("[data-home]");
  home.href = `${location.search}#/hall`;
  home.textContent = t("app.title");
  const standings = document.querySelector("[data-standings-link]");
  standings.href = `${location.search}#/standings`;
  standings.textContent = t("standings.title");
  document.querySelector("[data-language]").replaceChildren(languagePicker());
  setStatus("connecting");
  if (where.view === "match") showMatch(main, config, where.match, setStatus);
  else if (where.view === "console") showConsole(main, config, setStatus);
  else showHall(main, config, setStatus, { standingsOnly: where.view === "standings" });
  // Each view keeps its own subscriptions: a new view is a fresh page.
  window.addEventListener("hashchange", () => location.reload());
}

if (!window.__bughouseNoAutostart) main();
