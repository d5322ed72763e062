// Cards: titles, texts, icons and the card element used in the hand, registers and panels.

// Names and texts are in the page's language: the catalogue (GET /api/web/cards) gives each card
// a translation key (card.move1, card.classic.back_up, upgrade.brakes, option.brakes) whose
// KEY.name and KEY.text the translation files hold; the catalogue's English is the fallback.

import { hasText, t } from "./i18n.js";
import { upgradeIcon } from "./upgradeicons.js";
import { h } from "./util.js";

// Cards whose titles are known before (or without) the server's catalogue.
const TITLES = ["move1", "move2", "move3", "move_back", "rotate_right", "rotate_left", "u_turn", "power_up", "again", "spam"];

let catalogue = {};

export function setCatalogue(cards) {
  catalogue = cards || {};
}

/** "move3@820" (a classic card with its priority) -> "move3". */
export function baseName(name) {
  return String(name ?? "").split("@")[0];
}

function priorityOf(name) {
  const p = String(name ?? "").split("@")[1];
  return p === undefined ? null : p;
}

function entryOf(name) {
  return catalogue[name] || catalogue[baseName(name)] || null;
}

export function isCard(name) {
  return typeof name === "string" && (!!entryOf(name) || TITLES.includes(baseName(name)));
}

/** The catalogue's ``field`` (name or text) of a card, in the page's language when it has it. */
function translated(entry, field) {
  if (!entry) return "";
  const key = entry.key ? `${entry.key}.${field}` : "";
  return key && hasText(key) ? t(key) : entry[field] || "";
}

export function cardTitle(name) {
  if (name === null || name === undefined) return "—";
  const entry = entryOf(name);
  if (entry && entry.name) return translated(entry, "name");
  const base = baseName(name);
  if (TITLES.includes(base)) return t(`card.${base}.name`);
  return base.replace(/^hw_/, "").replace(/_/g, " ").replace(/\b\w/g, (c) => c.toUpperCase());
}

export function cardText(name) {
  return translated(entryOf(name), "text");
}

export function cardCost(name) {
  const entry = entryOf(name);
  return entry && entry.cost !== undefined ? entry.cost : null;
}

export function cardKind(name) {
  const entry = entryOf(name);
  const type = entry && entry.type;
  const base = baseName(name);
  if (type === "spam" || base === "spam") return "damage spam";
  if (type === "haywire" || base.startsWith("hw_")) return "damage haywire";
  if (/^(move\d|move_back|back_up)$/.test(base)) return "move";
  if (/^(rotate_left|rotate_right|u_turn)$/.test(base)) return "turn";
  if (type === "permanent" || type === "temporary") return "upgrade " + type;
  if (type === "option") return "upgrade option";
  if (base === "power_up" || base === "again" || type === "programming") return "special";
  return "other";
}

const ARROW_UP = "M20 5 L31 17 H24 V34 H16 V17 H9 Z";
const ICONS = {
  move: (n) =>
    `<path d="${ARROW_UP}" fill="currentColor"/>` +
    `<text x="33" y="36" font-size="14" font-weight="800" text-anchor="middle" fill="currentColor">${n}</text>`,
  move_back: () => `<path d="${ARROW_UP}" fill="currentColor" transform="rotate(180 20 20)"/>`,
  rotate_right: () =>
    `<path d="M10 30 V21 A9 9 0 0 1 19 12 H24" fill="none" stroke="currentColor" stroke-width="6" stroke-linecap="round"/>` +
    `<path d="M23 4 L34 12 L23 20 Z" fill="currentColor"/>`,
  rotate_left: () =>
    `<g transform="translate(40 0) scale(-1 1)"><path d="M10 30 V21 A9 9 0 0 1 19 12 H24" fill="none" stroke="currentColor" stroke-width="6" stroke-linecap="round"/>` +
    `<path d="M23 4 L34 12 L23 20 Z" fill="currentColor"/></g>`,
  u_turn: () =>
    `<path d="M28 34 V17 A8 8 0 0 0 12 17 V26" fill="none" stroke="currentColor" stroke-width="6" stroke-linecap="round"/>` +
    `<path d="M4 24 L12 35 L20 24 Z" fill="currentColor"/>`,
  power_up: () => `<path d="M23 3 L9 22 H18 L15 37 L31 16 H22 Z" fill="currentColor"/>`,
  again: () =>
    `<path d="M31 20 A11 11 0 1 1 26 10.5" fill="none" stroke="currentColor" stroke-width="5" stroke-linecap="round"/>` +
    `<path d="M22 3 L33 8 L25 17 Z" fill="currentColor"/>`,
  spam: () =>
    `<rect x="5" y="9" width="30" height="22" rx="4" fill="none" stroke="currentColor" stroke-width="4"/>` +
    `<path d="M9 24 L15 16 L20 22 L25 14 L31 21" fill="none" stroke="currentColor" stroke-width="3.5" stroke-linejoin="round"/>`,
  haywire: () =>
    `<path d="M20 4 L37 34 H3 Z" fill="none" stroke="currentColor" stroke-width="4" stroke-linejoin="round"/>` +
    `<path d="M20 14 V24" stroke="currentColor" stroke-width="4.5" stroke-linecap="round"/><circle cx="20" cy="29.5" r="2.6" fill="currentColor"/>`,
  unknown: () =>
    `<rect x="6" y="6" width="28" height="28" rx="6" fill="none" stroke="currentColor" stroke-width="4"/>` +
    `<circle cx="20" cy="20" r="4" fill="currentColor"/>`,
  upgrade: () =>
    `<rect x="9" y="9" width="22" height="22" rx="4" fill="none" stroke="currentColor" stroke-width="3.5"/>` +
    `<path d="M14 4v5M20 4v5M26 4v5M14 31v5M20 31v5M26 31v5M4 14h5M4 20h5M4 26h5M31 14h5M31 20h5M31 26h5" stroke="currentColor" stroke-width="3" stroke-linecap="round"/>` +
    `<path d="M15 22l4-7 2 5 4-1-4 7-2-5z" fill="currentColor"/>`,
  back: () =>
    `<path d="M8 8 H32 V32 H8 Z M14 14 H26 V26 H14 Z" fill="currentColor" fill-rule="evenodd" opacity="0.6"/>`,
};

export function cardIcon(name) {
  let body;
  const base = baseName(name);
  const m = /^move(\d)$/.exec(base);
  const kind = cardKind(name);
  if (m) body = ICONS.move(m[1]);
  else if (base === "back_up") body = ICONS.move_back();
  else if (ICONS[base]) body = ICONS[base]();
  else if (kind.includes("haywire")) body = ICONS.haywire();
  else if (kind.includes("upgrade")) body = upgradeIcon(base) || ICONS.upgrade();
  else body = ICONS.unknown();
  const span = h("span.card-icon", { "aria-hidden": "true" });
  span.innerHTML = `<svg viewBox="0 0 40 40">${body}</svg>`;
  return span;
}

/** What kind of card it is, in words ("Permanent upgrade · costs 3 energy"). */
export function cardTypeLine(name) {
  const kind = cardKind(name);
  const prio = priorityOf(name);
  const cost = cardCost(name);
  const costs = cost !== null ? t("card.kind.costs", { count: cost }) : "";
  if (kind.includes("spam")) return t("card.kind.spam");
  if (kind.includes("haywire")) return t("card.kind.haywire");
  if (kind === "upgrade permanent") return t("card.kind.permanent") + costs;
  if (kind === "upgrade temporary") return t("card.kind.temporary") + costs;
  if (kind === "upgrade option") return t("card.kind.option");
  if (prio !== null) return t("card.kind.program", { priority: prio });
  if (kind === "other") return t("card.kind.card");
  return t("card.kind.programming");
}

/**
 * A locked register of the player's own program, as the tray shows it: the card (null: a card
 * back), its words and the lock's. A classic register is locked by damage and keeps its card,
 * face up (classic 6.3: it plays again every round until repaired); a 2023 register is locked
 * by a face-down Haywire, which only its owner sees. ``reg``: the register in the owner's view.
 */
export function lockedCard(reg, classic) {
  if (classic) {
    const card = reg && Array.isArray(reg.cards) && reg.cards.length ? reg.cards[reg.cards.length - 1] : null;
    const title = card ? t("program.locked_damage_card", { card: cardTitle(card) }) : t("program.locked_register");
    return { card, title, lock: t("program.locked_damage") };
  }
  const hw = reg && typeof reg.facedown_haywire === "string" ? reg.facedown_haywire : null;
  const title = hw ? t("program.locked_card", { card: cardTitle(hw) }) : t("program.locked_register");
  return { card: hw, title, lock: t("program.locked_haywire") };
}

/** A smaller type for a card title whose longest word would not fit the card's face (the
 * titles of some languages run longer than the English ones). A first guess by letter count:
 * fitTitles corrects it once the card is on the page. */
function lengthClass(title) {
  const longest = Math.max(0, ...String(title).split(/\s+/).map((word) => word.length));
  return longest >= 10 ? ".longest" : longest >= 8 ? ".longer" : longest >= 7 ? ".long" : "";
}

const titlesToFit = new Set();
const overflows = (el) => el.scrollWidth > el.clientWidth;

/** Shrinks every new card title whose longest word is still wider than the card: letters
 * differ in width from font to font, so only the page can tell. All titles are measured
 * together, once per frame, so a tray of cards costs a few layouts, not one per card. */
function fitTitles() {
  const names = [...titlesToFit].filter((el) => el.isConnected);
  titlesToFit.clear();
  // Held to the card's width, a word that may not break overflows the title's box, which is
  // what scrollWidth sees (unheld, the box would widen past the card instead).
  for (const el of names) Object.assign(el.style, { overflowWrap: "normal", maxWidth: "100%" });
  let tooWide = names.filter(overflows);
  for (let step = 0; step < 8 && tooWide.length; step++) {
    for (const el of tooWide) el.style.fontSize = `${parseFloat(getComputedStyle(el).fontSize) * 0.9}px`;
    tooWide = tooWide.filter(overflows);
  }
  for (const el of names) Object.assign(el.style, { overflowWrap: "", maxWidth: "" });
}

function fitWhenShown(nameEl) {
  if (!titlesToFit.size) requestAnimationFrame(fitTitles);
  titlesToFit.add(nameEl);
}

/** A card element. opts: {small, large, back (face down), title} */
export function cardEl(name, opts = {}) {
  if (opts.back || name === null || name === undefined) {
    const back = h("div.card.back" + (opts.small ? ".small" : ""), {
      title: opts.title || t("card.face_down"),
    });
    back.innerHTML = `<span class="card-icon"><svg viewBox="0 0 40 40">${ICONS.back()}</svg></span>`;
    return back;
  }
  const kind = cardKind(name);
  const size = opts.small ? ".small" : opts.large ? ".large" : "";
  const el = h(`div.card.${kind.replace(/ /g, ".")}${size}`, {
    dataset: { card: name },
    title: opts.title || [cardTitle(name), cardText(name)].filter(Boolean).join(": "),
  });
  const title = h("span.card-name" + lengthClass(cardTitle(name)), null, cardTitle(name));
  el.append(cardIcon(name), title);
  fitWhenShown(title);
  const prio = priorityOf(name);
  if (prio !== null) el.append(h("span.card-prio", { title: t("card.priority") }, prio));
  const cost = cardCost(name);
  if (cost !== null && !opts.small) el.append(h("span.card-cost", { title: t("card.energy_cost") }, `${cost}⚡`));
  return el;
}
