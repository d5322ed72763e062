// Accessibility: the light and dark themes, reduced motion, and what a screen reader hears
// during a game (a short summary of each register, the turn prompts, the board's robots).

import { t } from "./i18n.js";
import { seatOf } from "./seats.js";
import { h, store } from "./util.js";
import { describe } from "./words.js";

// ------------------------------------------------------------------ theme
const LIGHT = window.matchMedia ? window.matchMedia("(prefers-color-scheme: light)") : null;
const REDUCE = window.matchMedia ? window.matchMedia("(prefers-reduced-motion: reduce)") : null;

/** The theme in use: the one chosen on this page (remembered), else the system's. */
export function theme() {
  const chosen = store.get("theme", null);
  if (chosen === "light" || chosen === "dark") return chosen;
  return LIGHT && LIGHT.matches ? "light" : "dark";
}

/** Set <html data-theme> (theme.css has both palettes); follows the system until chosen. */
export function applyTheme() {
  const root = document.documentElement;
  root.dataset.theme = theme();
  const meta = document.querySelector('meta[name="color-scheme"]');
  if (meta) meta.content = root.dataset.theme;
}

if (LIGHT && LIGHT.addEventListener) LIGHT.addEventListener("change", () => applyTheme());

/** A button that switches between the light and the dark theme (remembered). */
export function themeButton() {
  const button = h("button.icon.theme-toggle", { type: "button", "data-testid": "theme-toggle" });
  const show = () => {
    const light = theme() === "light";
    const label = t(light ? "theme.use_dark" : "theme.use_light");
    button.replaceChildren(h("span", { "aria-hidden": "true" }, light ? "☾" : "☀"));
    button.title = label;
    button.setAttribute("aria-label", label);
  };
  button.addEventListener("click", () => {
    store.set("theme", theme() === "light" ? "dark" : "light");
    applyTheme();
    show();
  });
  show();
  return button;
}

/** Whether the player asked the system for less motion: robots then jump, nothing slides. */
export const reducedMotion = () => !!(REDUCE && REDUCE.matches);

/**
 * With reduced motion a step of the animation does not move: ``fn(1)`` draws its end at once
 * and the step keeps its time as a still pause (shorter when skipped), so the steps still come
 * one after another at the chosen speed.
 */
export function hold(ms, fn, control) {
  fn(1);
  return new Promise((resolve) => {
    const end = performance.now() + ms;
    const wait = () => {
      if (performance.now() >= end || (control && control.skipping) || document.hidden) resolve();
      else setTimeout(wait, Math.min(50, end - performance.now()));
    };
    wait();
  });
}

// --------------------------------------------------------------- speaking
let live = null;

/** The page's polite live region: what is put here is read out by a screen reader. */
function region() {
  if (!live || !live.isConnected) {
    live = h("div.sr-only", { role: "status", "aria-live": "polite", "data-testid": "announcer" });
    document.body.append(live);
  }
  return live;
}

/** Have a screen reader read ``text`` (the last few stay in the region, for tests and review). */
export function announce(text) {
  if (!text) return;
  const box = region();
  box.append(h("p", null, text));
  while (box.childElementCount > 4) box.firstElementChild.remove();
}

/** Collects the log's sentences of one register and announces them as one summary. */
export class RegisterSummary {
  constructor(name, classic = () => false) {
    this.name = name;
    this.classic = classic;
    this.register = null;
    this.lines = [];
    this.timer = null;
  }

  /** An event as the game shows it (``instant``: catching up on history, not announced). */
  event(e, instant) {
    if (instant) return;
    if (e.kind === "register_started") {
      this.flush();
      this.register = e.register;
      return;
    }
    if (["round_ended", "round_started", "game_won", "game_ended"].includes(e.kind)) this.flush();
    if (this.register === null) return;
    const line = describe(e, this.name, this.classic());
    if (!line || ["register", "round", "head"].includes(line.kind) || e.kind === "phase_started") return;
    const last = this.lines[this.lines.length - 1];
    if (last && line.merge && last.merge === line.merge && last.text === line.text) last.count += 1;
    else this.lines.push({ text: line.text, merge: line.merge, count: 1 });
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.flush(), 2500); // the last register of a round
  }

  /** The summary of the register so far, or null. */
  text() {
    if (this.register === null || !this.lines.length) return null;
    const parts = this.lines.map((l) => (l.count > 1 ? t("a11y.repeated", { text: l.text, count: l.count }) : l.text));
    const sentences = parts.map((p) => (/[.!?…]$/.test(p) ? p : p + ".")).join(" ");
    return t("a11y.register_summary", { register: this.register, events: sentences });
  }

  flush() {
    clearTimeout(this.timer);
    const text = this.text();
    this.lines = [];
    if (this.register !== null && text) announce(text);
    if (text) this.register = null;
  }
}

const DIRECTION_KEYS = { N: "a11y.facing_n", E: "a11y.facing_e", S: "a11y.facing_s", W: "a11y.facing_w" };

/** The board's robots in words (the SVG's description). */
export function robotsText(board) {
  const lines = [];
  const away = String(board.opts.edition || "").startsWith("classic") ? "a11y.robot_destroyed" : "a11y.robot_rebooting";
  for (const r of [...board.robots.values()].sort((a, b) => a.seat - b.seat)) {
    if (!r.shown || !r.pos) continue;
    lines.push(t(r.ghost ? away : "a11y.robot_at", {
      name: r.name, number: r.seat + 1, shape: t("a11y.shape_" + seatOf(r.seat).shape),
      column: r.pos[0] + 1, row: r.pos[1] + 1, facing: t(DIRECTION_KEYS[r.facing] || "a11y.facing_n"),
    }));
  }
  return lines.length ? lines.join(". ") + "." : t("a11y.no_robots");
}

/** The board's SVG: a group named by its title, described by its robots. */
function describeBoard(board) {
  const svg = board && board.svg;
  if (!svg) return;
  if (!svg.dataset.described) {
    svg.dataset.described = "1";
    svg.setAttribute("role", "group"); // its start-space choices stay buttons a reader can reach
    const title = document.createElementNS(svg.namespaceURI, "title");
    title.id = "board-title";
    const desc = document.createElementNS(svg.namespaceURI, "desc");
    desc.id = "board-desc";
    svg.prepend(title, desc);
    svg.removeAttribute("aria-label");
    svg.setAttribute("aria-labelledby", "board-title");
    svg.setAttribute("aria-describedby", "board-desc");
  }
  const title = t("a11y.board_title", { course: board.opts.title || board.opts.course });
  const text = robotsText(board);
  const titleEl = svg.querySelector("#board-title");
  const descEl = svg.querySelector("#board-desc");
  if (titleEl.textContent !== title) titleEl.textContent = title;
  if (descEl.textContent !== text) descEl.textContent = text;
}

/** A game screen's screen-reader support: register summaries, turn prompts, the board. */
export function installGameA11y(screen) {
  const summary = new RegisterSummary((seat) => screen.name(seat), () => !!(screen.logView && screen.logView.classic));
  screen.eventWatchers.push((e, instant) => summary.event(e, instant));
  // "Your turn": the tray asks this player something.
  let asked = false;
  new MutationObserver(() => {
    const now = screen.tray.classList.contains("your-turn");
    if (now && !asked) {
      const head = screen.tray.querySelector(".tray-head h2");
      announce(t("a11y.your_turn", { what: head ? head.textContent : "" }));
    }
    asked = now;
  }).observe(screen.tray, { attributes: true, attributeFilter: ["class"] });
  setInterval(() => describeBoard(screen.board), 1000);
}

/** The theme switch and the shortcuts button, in the screen's top bar (or the lobby's head). */
export function installTools(root, ...buttons) {
  const place = () => {
    const bar = root.querySelector(".topbar, .hero");
    if (!bar) return false;
    if (bar.querySelector(".a11y-tools")) return true;
    const tools = h("div.a11y-tools", null, ...buttons.map((make) => make()));
    const before = bar.querySelector(".conn");
    if (before) bar.insertBefore(tools, before);
    else bar.append(tools);
    return true;
  };
  place();
  new MutationObserver(() => place()).observe(root, { childList: true, subtree: true }); // redrawn
}
