// The page's language: every text a player reads comes from a translation file
// (/i18n/LANG.json, one per language) through t(). English is the fallback for a key a
// language lacks (tests/test_i18n.py keeps every language complete).
//
// t("lobby.create")                      -> "Create game"
// t("chat.unread", { count: 3 })         -> plural form of the language ("chat.unread.few" ...)
// t("game.turn", { name: "Red" })        -> "{name}" placeholders filled in

import { h, params, store } from "./util.js";

/** The languages of the page, in the order the switcher lists them: code and own name. */
export const LANGUAGES = [
  ["en", "English"],
  ["uk", "Українська"],
  ["ru", "Русский"],
  ["cs", "Čeština"],
  ["pl", "Polski"],
];
const CODES = LANGUAGES.map(([code]) => code);

let strings = {};
let fallback = {};
let lang = "en";
let plurals = new Intl.PluralRules("en");

/** The language to show: ?lang=xx (remembered), then the remembered one, then the browser's. */
export function chooseLanguage() {
  const asked = (params.get("lang") || "").toLowerCase();
  if (CODES.includes(asked)) {
    store.set("lang", asked);
    return asked;
  }
  const kept = store.get("lang", null);
  if (CODES.includes(kept)) return kept;
  for (const wanted of navigator.languages || [navigator.language || "en"]) {
    const code = String(wanted).toLowerCase().split("-")[0];
    if (CODES.includes(code)) return code;
  }
  return "en";
}

async function fetchStrings(code) {
  const response = await fetch(`/i18n/${code}.json`, { cache: "no-cache" });
  if (!response.ok) throw new Error(`no translation file for ${code}`);
  return response.json();
}

/** Load the chosen language (and English beside it); call once before drawing anything. */
export async function loadLanguage(code = chooseLanguage()) {
  try {
    fallback = await fetchStrings("en");
    strings = code === "en" ? fallback : await fetchStrings(code);
    lang = code;
  } catch {
    strings = fallback;
    lang = "en";
  }
  plurals = new Intl.PluralRules(lang);
  document.documentElement.lang = lang;
  return lang;
}

/** The page's language code. */
export const language = () => lang;

function lookup(key) {
  if (key in strings) return strings[key];
  if (key in fallback) return fallback[key];
  return null;
}

/**
 * The text of ``key`` in the page's language, with ``{name}`` placeholders filled from
 * ``values``; a ``count`` value picks the plural form (``key.one``, ``key.few``, ``key.many``,
 * ``key.other``, as the language has them). A missing key shows as the key itself.
 */
export function t(key, values = {}) {
  let text = null;
  if (typeof values.count === "number") {
    text = lookup(`${key}.${plurals.select(values.count)}`) ?? lookup(`${key}.other`);
  }
  text = text ?? lookup(key) ?? key;
  return text.replace(/\{(\w+)\}/g, (whole, name) => (name in values ? String(values[name]) : whole));
}

/** Whether the page's language has a text for ``key`` (for optional texts). */
export const hasText = (key) => lookup(key) !== null;

/** A course's or a board's title (``kind`` "course" or "board") in the page's language:
 * ``course.ID.title`` / ``board.ID.title``, else ``english`` (the data's own title), else the id. */
export const titleOf = (kind, id, english) => {
  const key = `${kind}.${id}.title`;
  return hasText(key) ? t(key) : english || id;
};

/** A select that switches the page's language (remembered; the page reloads in it). */
export function languageSwitcher() {
  const select = h(
    "select.language",
    {
      "aria-label": t("language.choose"),
      "data-testid": "language",
      onchange: () => {
        store.set("lang", select.value);
        const url = new URL(location.href);
        url.searchParams.delete("lang");
        // The same address with a fragment (a seat's #token=) would not load the page again.
        if (url.toString() === location.href) location.reload();
        else location.replace(url.toString());
      },
    },
    LANGUAGES.map(([code, name]) => h("option", { value: code, selected: code === lang }, name)),
  );
  return select;
}
