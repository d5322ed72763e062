// Small DOM helpers shared by every screen.

import { SEATS } from "./seats.js";
// i18n.js uses this module too: neither reads the other while it loads, only in calls later.
import { language, t } from "./i18n.js";

const SVG_NS = "http://www.w3.org/2000/svg";

/** Build an HTML element: h("button.primary", {onclick}, "text", child, ...). */
export function h(spec, attrs, ...children) {
  const [tag, ...classes] = spec.split(".");
  const el = document.createElement(tag || "div");
  if (classes.length) el.className = classes.join(" ");
  applyAttrs(el, attrs);
  append(el, children);
  return el;
}

/** Build an SVG element with attributes. */
export function s(tag, attrs, ...children) {
  const el = document.createElementNS(SVG_NS, tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v !== undefined && v !== null && v !== false) el.setAttribute(k, String(v));
  }
  append(el, children);
  return el;
}

function applyAttrs(el, attrs) {
  if (!attrs) return;
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith("on") && typeof v === "function") {
      el.addEventListener(k.slice(2), v);
    } else if (k === "class") {
      el.className = v;
    } else if (k === "style" && typeof v === "object") {
      Object.assign(el.style, v);
    } else if (k === "dataset") {
      Object.assign(el.dataset, v);
    } else if (k in el && typeof v !== "string") {
      el[k] = v;
    } else {
      el.setAttribute(k, v === true ? "" : String(v));
    }
  }
}

function append(el, children) {
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

/** Replace the children of an element. */
export function fill(el, ...children) {
  el.replaceChildren();
  append(el, children);
  return el;
}

export const params = new URLSearchParams(location.search);

/**
 * This page's seat token. Seat links carry it in the fragment (/?game=ID#token=T), which the
 * browser never sends to a server or a proxy; an old link with ?token=T still works, and the
 * token is moved into the fragment at once (no reload), so it does not stay in the address.
 */
export function seatToken() {
  const fromHash = new URLSearchParams(location.hash.replace(/^#/, "")).get("token");
  const fromQuery = params.get("token");
  if (fromQuery !== null) {
    const query = new URLSearchParams(location.search);
    query.delete("token");
    params.delete("token");
    const hash = new URLSearchParams(location.hash.replace(/^#/, ""));
    if (fromHash === null) hash.set("token", fromQuery);
    const search = query.toString();
    history.replaceState(history.state, "", `${location.pathname}${search ? "?" + search : ""}#${hash}`);
  }
  return fromHash || fromQuery || null;
}

/** The link that plays a seat: the token in the fragment. */
export function seatUrl(gameId, token, origin = "") {
  return `${origin}/?game=${encodeURIComponent(gameId)}#token=${encodeURIComponent(token)}`;
}

/** A seat's invite link (/?game=ID#invite=CODE): the first page to open it takes the seat. */
export function inviteUrl(gameId, code, origin = "") {
  return `${origin}/?game=${encodeURIComponent(gameId)}#invite=${encodeURIComponent(code)}`;
}

/** This page's invite code, if it was opened with an invite link. */
export function seatInvite() {
  return new URLSearchParams(location.hash.replace(/^#/, "")).get("invite");
}

/**
 * The page holds its seat's own token now (an invite's first hello gets one, "close the others"
 * makes a new one): the address carries it in place of the used invite or the old token, so a
 * reload opens the seat again, and the lobby's "Your seats" list keeps it.
 */
export function keepSeatToken(gameId, seat, token) {
  const hash = new URLSearchParams(location.hash.replace(/^#/, ""));
  hash.delete("invite");
  hash.set("token", token);
  history.replaceState(history.state, "", `${location.pathname}${location.search}#${hash}`);
  const mine = store.get("mine", []);
  for (const entry of mine) if (entry.game === gameId && entry.seat === seat) entry.token = token;
  store.set("mine", mine);
}

/** The shared screen of the tabletop mode (js/table.js): the board for everyone at the table. */
export function tableUrl(gameId) {
  return `/?game=${encodeURIComponent(gameId)}&table=1`;
}

/** A number from the URL (?speed=4), or a fallback. */
export function numParam(name, fallback) {
  const v = parseFloat(params.get(name));
  return Number.isFinite(v) ? v : fallback;
}

export const store = {
  get(key, fallback = null) {
    try {
      const raw = localStorage.getItem("rr." + key);
      return raw === null ? fallback : JSON.parse(raw);
    } catch {
      return fallback;
    }
  },
  set(key, value) {
    try {
      localStorage.setItem("rr." + key, JSON.stringify(value));
    } catch {
      /* private mode: nothing is remembered */
    }
  },
};

/** Copy text to the clipboard, with a fallback for plain-http pages. */
export async function copyText(text) {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    const area = h("textarea", { value: text, style: { position: "fixed", opacity: "0" } });
    document.body.append(area);
    area.select();
    const ok = document.execCommand("copy");
    area.remove();
    return ok;
  }
}

/** A short non-blocking message at the bottom of the screen. */
export function toast(text, kind = "info") {
  let box = document.querySelector(".toasts");
  if (!box) {
    box = h("div.toasts", { role: "status", "aria-live": "polite" });
    document.body.append(box);
  }
  const t = h("div.toast." + kind, { "data-testid": "toast" }, text);
  box.append(t);
  const life = kind === "error" ? 8000 : 3200; // time to read what went wrong
  setTimeout(() => t.classList.add("out"), life);
  setTimeout(() => t.remove(), life + 600);
}

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

export const DIRS = ["N", "E", "S", "W"];
/** The directions in words, in the page's language (read when used: common.dir.*). */
export const DIR_WORDS = Object.freeze({
  get N() { return t("common.dir.north"); },
  get E() { return t("common.dir.east"); },
  get S() { return t("common.dir.south"); },
  get W() { return t("common.dir.west"); },
});
export const DIR_ARROWS = { N: "↑", E: "→", S: "↓", W: "←" };

/** Seat colours (the server names default seats Red, Blue, ... in this order; js/seats.js). */
export const SEAT_COLOURS = SEATS.map((seat) => seat.colour);
export const SEAT_INK = SEATS.map((seat) => seat.ink);

export function seatColour(seat) {
  return SEAT_COLOURS[seat % SEAT_COLOURS.length];
}

/** A place in an order: "1st" in English, "1." or "1-й" in the page's language. */
export function ordinal(n) {
  if (language() !== "en") return t("common.ordinal", { n });
  const suffix = n % 10 === 1 && n % 100 !== 11 ? "st" : n % 10 === 2 && n % 100 !== 12 ? "nd"
    : n % 10 === 3 && n % 100 !== 13 ? "rd" : "th";
  return n + suffix;
}

/** A text with {name} marks for links ("Watch it {watch}instead{/watch} or go {lobby}"): its
 * parts, each mark replaced by make[name](the words it encloses). */
export function linked(text, make) {
  const parts = [];
  const re = /\{(\w+)\}(?:(.*?)\{\/\1\})?/g;
  let at = 0;
  for (let m; (m = re.exec(text)); at = re.lastIndex) {
    parts.push(text.slice(at, m.index));
    parts.push(make[m[1]] ? make[m[1]](m[2] || "") : m[0]);
  }
  parts.push(text.slice(at));
  return parts.filter((p) => p !== "");
}
