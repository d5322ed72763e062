// The page's log sentences (static/js/words.js) of a game's events, under Node, for
// tests/test_edition_words.py: the page's own modules, with the little of a browser they touch
// at load time (location, document, navigator, fetch of /i18n/LANG.json) stood in for.
//
// node edition_words.mjs STATIC_JS_DIR I18N_DIR < {languages, classic, names, catalogue, events}
// prints {LANG: [sentence or null, ...]} (one entry per event, in order).

import { readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";

const [jsDir, i18nDir] = process.argv.slice(2);
globalThis.location = { search: "", href: "http://localhost/" };
globalThis.document = { documentElement: {} };
globalThis.navigator = { languages: ["en"] };
globalThis.fetch = async (url) => {
  const code = /\/i18n\/(\w+)\.json$/.exec(url)[1];
  const body = readFileSync(`${i18nDir}/${code}.json`, "utf8");
  return { ok: true, json: async () => JSON.parse(body) };
};

const load = (name) => import(pathToFileURL(`${jsDir}/${name}`).href);
const [i18n, cards, words] = await Promise.all([load("i18n.js"), load("cards.js"), load("words.js")]);
const input = JSON.parse(readFileSync(0, "utf8"));
cards.setCatalogue(input.catalogue);
const name = (seat) => input.names[seat] ?? `P${seat + 1}`;
const found = {};
for (const lang of input.languages) {
  await i18n.loadLanguage(lang);
  found[lang] = input.events.map((e) => {
    const line = words.describe(e, name, input.classic);
    return line ? line.text : null;
  });
}
process.stdout.write(JSON.stringify(found));
