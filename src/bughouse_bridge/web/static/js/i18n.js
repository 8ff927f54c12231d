// Every text of the page in the viewer's language. The translations are data (i18n/<lang>.json,
// flat keys, "{name}" placeholders); tests/web/test_i18n.py checks that every key is in every
// language and that every alert code has its text. The language comes from ?lang=, else the one
// chosen before (localStorage), else the browser's; a choice is remembered.

export const LANGUAGES = ["en", "de", "es"];
export const LANGUAGE_NAMES = { en: "English", de: "Deutsch", es: "Español" };
const STORE_KEY = "bughouse-bridge.lang";

let current = { lang: "en", texts: {}, fallback: {} };

// The first of the candidates that is one of ours ("de-AT" counts as "de"), else English.
export function chooseLanguage(query, stored, preferred = []) {
  for (const candidate of [query, stored, ...preferred]) {
    const short = String(candidate ?? "").toLowerCase().slice(0, 2);
    if (LANGUAGES.includes(short)) return short;
  }
  return "en";
}

// "{color} in check" with {color: "black"} -> "black in check"; an unknown name stays visible.
export function format(template, params = {}) {
  return String(template).replace(/\{(\w+)\}/g, (whole, name) =>
    params[name] === undefined || params[name] === null ? whole : String(params[name]),
  );
}

export function translate(texts, fallback, key, params) {
  const template = texts[key] ?? fallback[key];
  return template === undefined ? key : format(template, params);
}

export function t(key, params) {
  return translate(current.texts, current.fallback, key, params);
}

export function hasText(key) {
  return key in current.texts || key in current.fallback;
}

export function language() {
  return current.lang;
}

async function loadTexts(lang) {
  try {
    const response = await fetch(`i18n/${lang}.json`);
    return response.ok ? await response.json() : {};
  } catch {
    return {};
  }
}

function stored() {
  try {
    return localStorage.getItem(STORE_KEY);
  } catch {
    return null; // storage disabled: the choice lasts for this page only
  }
}

function remember(lang) {
  try {
    localStorage.setItem(STORE_KEY, lang);
  } catch {
    // nothing to do
  }
}

// Loads one language (English fills any gap) and makes it the page's.
export async function useLanguage(lang) {
  const chosen = LANGUAGES.includes(lang) ? lang : "en";
  const [texts, english] = await Promise.all([
    loadTexts(chosen),
    chosen === "en" ? Promise.resolve(null) : loadTexts("en"),
  ]);
  current = { lang: chosen, texts, fallback: english ?? texts };
  if (typeof document !== "undefined") document.documentElement.lang = chosen;
  return chosen;
}

// At start-up: ?lang= first (and remembered), then the stored choice, then the browser's.
export async function setUpLanguage(search = location.search) {
  const query = new URLSearchParams(search).get("lang");
  const lang = chooseLanguage(query, stored(), navigator.languages ?? [navigator.language]);
  if (query && LANGUAGES.includes(query.slice(0, 2).toLowerCase())) remember(lang);
  return useLanguage(lang);
}

// The language menu of the top bar: a choice is remembered and the page reloads in it.
export function languagePicker() {
  const select = document.createElement("select");
  select.dataset.lang = current.lang;
  select.setAttribute("aria-label", t("app.language"));
  for (const lang of LANGUAGES) {
    const option = document.createElement("option");
    option.value = lang;
    option.textContent = LANGUAGE_NAMES[lang];
    option.selected = lang === current.lang;
    select.append(option);
  }
  select.addEventListener("change", () => {
    remember(select.value);
    const url = new URL(location.href);
    url.searchParams.set("lang", select.value);
    location.replace(url.href);
  });
  return select;
}
