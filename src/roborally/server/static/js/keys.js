// Keyboard play: shortcuts for the programming tray, moving between cards and registers with
// the arrow keys, the focus kept in place when the tray is drawn again, and the list of
// shortcuts (the ? key or the keyboard button).
//
//   1 … 9, 0    put hand card 1 … 9 (0: the tenth) into the next empty register
//   Backspace, U  take back the card of the last filled register
//   Enter, L    lock in the program (Enter on a card or a button does what it says)
//   ← → ↑ ↓     move between the cards of the hand (↓) and the registers (↑)
//   ?           the list of shortcuts; Esc closes it

import { cardTitle } from "./cards.js";
import { t } from "./i18n.js";
import { h } from "./util.js";

let screen = null; // the game screen, if the page shows one
let lastFocus = null; // {editor, zone, index}: where the focus was in the programming tray
let helpBox = null;
let speak = () => {}; // a sentence for screen readers (a11y.js)

/** Listen for the shortcuts; ``game``: the game screen (null in the lobby and the replay). */
export function installKeys(game, { announce } = {}) {
  screen = game;
  if (announce) speak = announce;
  document.addEventListener("keydown", onKey);
  document.addEventListener("focusin", onFocus);
}

const editorNow = () => (screen && screen.editor && !screen.editor.closed && !screen.editor.sending ? screen.editor : null);

function typing(target) {
  return !!(target && target.closest && target.closest("input, textarea, select, [contenteditable=true]"));
}

function onKey(ev) {
  if (ev.ctrlKey || ev.metaKey || ev.altKey || ev.defaultPrevented || typing(ev.target)) return;
  if (ev.key === "?") {
    ev.preventDefault();
    toggleHelp();
    return;
  }
  if (helpBox) {
    if (ev.key === "Escape") {
      ev.preventDefault();
      closeHelp();
    }
    return;
  }
  const editor = editorNow();
  if (!editor) return;
  const key = ev.key.length === 1 ? ev.key.toLowerCase() : ev.key;
  if (/^[0-9]$/.test(key)) {
    const i = key === "0" ? 9 : Number(key) - 1;
    if (i < editor.hand.length && !editor.used().has(i)) {
      ev.preventDefault();
      editor.place(i);
      const r = editor.slots.indexOf(i);
      if (r >= 0) speak(t("keys.placed", { card: cardTitle(editor.hand[i]), register: r + 1 }));
    }
  } else if (key === "Backspace" || key === "u") {
    ev.preventDefault();
    undo(editor);
  } else if (key === "l" || (key === "Enter" && !ev.target.closest("button, a, summary, [role=button]"))) {
    ev.preventDefault();
    if (editor.complete()) editor.submit();
    else speak(t("keys.not_complete"));
  } else if (key.startsWith("Arrow") && editor.el.contains(ev.target)) {
    if (moveFocus(editor, ev.target, key)) ev.preventDefault();
  }
}

/** Take back the card of the last filled register (not a locked one). */
function undo(editor) {
  for (let r = editor.count - 1; r >= 0; r--) {
    if (editor.slots[r] !== null && !editor.locked.has(r)) {
      const card = editor.hand[editor.slots[r]];
      editor.remove(r);
      speak(t("keys.taken_back", { card: cardTitle(card), register: r + 1 }));
      return;
    }
  }
}

// ------------------------------------------------------------------ focus
/** The elements the focus moves over: the registers (their card, or the empty slot) and the
 * cards of the hand. */
function zones(editor) {
  const registers = [...editor.el.querySelectorAll(".registers .slot")].map((slot) => slot.querySelector(".card[tabindex]") || slot);
  const hand = [...editor.el.querySelectorAll(".hand .card[tabindex]")];
  return { register: registers, hand };
}

function where(editor, el) {
  if (!el || !editor.el.contains(el)) return null;
  const all = zones(editor);
  for (const zone of ["register", "hand"]) {
    const index = all[zone].findIndex((x) => x === el || x.contains(el));
    if (index >= 0) return { zone, index };
  }
  const testid = el.closest("[data-testid]");
  return testid ? { zone: "button", id: testid.dataset.testid } : null;
}

function onFocus(ev) {
  const editor = editorNow();
  const at = editor && where(editor, ev.target);
  if (at) lastFocus = { editor, ...at };
}

function moveFocus(editor, el, key) {
  const at = where(editor, el);
  if (!at || at.zone === "button") return false;
  const all = zones(editor);
  let { zone, index } = at;
  if (key === "ArrowLeft") index -= 1;
  else if (key === "ArrowRight") index += 1;
  else if (key === "ArrowUp") zone = "register";
  else if (key === "ArrowDown") zone = "hand";
  const list = all[zone];
  if (!list.length) return false;
  list[Math.max(0, Math.min(list.length - 1, index))].focus();
  return true;
}

/**
 * Called by the programming tray each time it is drawn: numbers the hand cards for the
 * shortcuts, makes the empty registers reachable with the keyboard, and puts the focus back
 * where it was (the same place in the hand or the registers), so no pick loses it.
 */
export function afterRender(editor) {
  // The hand and the registers are groups of buttons (cards and empty registers), not lists.
  editor.el.querySelectorAll(".hand[role=list], .registers[role=list]").forEach((box) => box.setAttribute("role", "group"));
  editor.el.querySelectorAll(".registers .slot[role=listitem]").forEach((slot) => slot.removeAttribute("role"));
  // The hand shows the cards not in a register, in the hand's order: card k is hand card free[k].
  const used = editor.used();
  const free = [...editor.hand.keys()].filter((i) => !used.has(i));
  editor.el.querySelectorAll(".hand [data-testid=hand-card]").forEach((card, k) => {
    const n = free[k];
    if (n === undefined || n >= 10) return;
    const key = String((n + 1) % 10);
    card.setAttribute("aria-keyshortcuts", key);
    card.append(h("span.key-hint", { "aria-hidden": "true" }, key));
  });
  editor.el.querySelectorAll(".registers .slot.empty").forEach((slot) => {
    const r = Number(slot.dataset.register);
    slot.setAttribute("tabindex", "0");
    slot.setAttribute("role", "button");
    slot.setAttribute("aria-pressed", String(editor.target === r));
    slot.setAttribute("aria-label", t("keys.register_empty", { register: r + 1 }));
    slot.addEventListener("keydown", (ev) => {
      if (ev.key === "Enter" || ev.key === " ") {
        ev.preventDefault();
        slot.click();
      }
    });
  });
  restoreFocus(editor);
}

function restoreFocus(editor) {
  const at = lastFocus;
  const active = document.activeElement;
  if (!at || at.editor !== editor || (active && active !== document.body && document.contains(active))) return;
  const all = zones(editor);
  let target = null;
  if (at.zone === "button") {
    target = editor.el.querySelector(`[data-testid="${at.id}"]`);
  } else {
    const list = all[at.zone].length ? all[at.zone] : all[at.zone === "hand" ? "register" : "hand"];
    target = list[Math.min(at.index, list.length - 1)] || null;
  }
  if (!target || target.disabled) target = editor.el.querySelector("[data-testid=submit-program]:enabled");
  if (target) target.focus({ preventScroll: true });
}

// ------------------------------------------------------------------- help
const SHORTCUTS = [
  ["1 … 9, 0", "keys.help_pick"],
  ["Backspace, U", "keys.help_undo"],
  ["Enter, L", "keys.help_lock"],
  ["← → ↑ ↓", "keys.help_arrows"],
  ["Tab", "keys.help_tab"],
  ["Enter, Space", "keys.help_activate"],
  ["?", "keys.help_help"],
  ["Esc", "keys.help_close"],
];

/** A button that shows the list of shortcuts. */
export function helpButton() {
  return h("button.icon.keys-button", {
    type: "button", title: t("keys.help_title"), "aria-label": t("keys.help_title"),
    "data-testid": "keys-help-button", onclick: () => toggleHelp(),
  }, h("span", { "aria-hidden": "true" }, "⌨"));
}

function toggleHelp() {
  if (helpBox) closeHelp();
  else openHelp();
}

function openHelp() {
  const back = document.activeElement;
  const close = h("button.ghost", { type: "button", "data-testid": "keys-help-close", onclick: () => closeHelp() }, t("keys.close"));
  const rows = SHORTCUTS.map(([keys, text]) => h("tr", null, h("th", { scope: "row" }, h("kbd", null, keys)), h("td", null, t(text))));
  const dialog = h("div.modal.keys-help", { role: "dialog", "aria-modal": "true", "aria-labelledby": "keys-help-title", "data-testid": "keys-help" },
    h("h2", { id: "keys-help-title" }, t("keys.help_title")),
    h("p.hint", null, t("keys.help_intro")),
    h("table.keys-table", null, h("tbody", null, rows)),
    h("div.modal-actions", null, close));
  helpBox = h("div.modal-back", { onclick: (e) => e.target === helpBox && closeHelp() }, dialog);
  helpBox.back = back;
  // The focus stays in the dialog while it is open.
  dialog.addEventListener("keydown", (ev) => {
    if (ev.key === "Tab") {
      ev.preventDefault();
      close.focus();
    }
  });
  document.body.append(helpBox);
  close.focus();
}

function closeHelp() {
  if (!helpBox) return;
  const back = helpBox.back;
  helpBox.remove();
  helpBox = null;
  if (back && document.contains(back)) back.focus();
}
