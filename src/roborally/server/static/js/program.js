// The programming tray: the hand and the five registers (tap or drag to program).

import { cardEl, cardTitle, lockedCard } from "./cards.js";
import { openCard } from "./cardview.js";
import { icon } from "./icons.js";
import { t } from "./i18n.js";
import { h } from "./util.js";
import { afterRender } from "./keys.js";

const REGISTERS = 5;
const LONG_PRESS_MS = 500; // a press this long opens the card large instead of placing it

/**
 * What the box beside "Lock in" can do for this robot: "offer" (it answers the question that
 * follows the program), "no_damage" (shown disabled, saying why) or "none" (no box).
 * 2023: every robot is asked whether it shuts down. Classic (docs/rules-classic.md, "Power
 * down"): after programming only a damaged robot may announce a power down (spec 7.1,
 * A-14), any robot with the alternative rule power_down_without_damage; a robot that announced
 * already is not asked; with emergency_shutdown, and in the 1994 rules, nothing is announced
 * after programming (7.7: the shutdown is asked at the start of a round, on its own).
 * own: this seat's player view; rules: {edition, variants} of the game.
 */
export function powerDownBox(own, rules = {}) {
  const classic = own && own.classic;
  if (!classic) return "offer";
  const variants = rules.variants || [];
  if ((rules.edition && rules.edition !== "classic") || variants.includes("emergency_shutdown")) return "none";
  if (classic.announced) return "none";
  return classic.damage >= 1 || variants.includes("power_down_without_damage") ? "offer" : "no_damage";
}

/** Whether ``decision`` is the question the box beside "Lock in" answers: the 2023 shutdown or
 * the classic announcement after programming, not a re-entering or powered-down robot's. */
export function answeredByBox(decision) {
  if (decision.kind !== "shutdown" && decision.kind !== "power_down") return false;
  return !decision.prompt_key || ["shutdown", "power_down"].includes(decision.prompt_key);
}

export class ProgramEditor {
  /**
   * decision: the pending "program" decision ({id, info: {hand, locked, registers}}).
   * own: this seat's player view (for the cards of locked registers).
   * hooks: {onChange(program), onSubmit(program), storageKey, rules: {edition, variants}}
   */
  constructor(decision, own, hooks) {
    this.decision = decision;
    this.hooks = hooks;
    this.hand = (decision.info && decision.info.hand) || [];
    this.count = (decision.info && decision.info.registers) || REGISTERS;
    this.locked = new Set(((decision.info && decision.info.locked) || []).map((n) => n - 1));
    this.own = own;
    this.classic = !!(own && own.classic); // a power down to announce; registers locked by damage
    this.box = powerDownBox(own, hooks.rules); // what the box beside "Lock in" can do
    this.slots = new Array(this.count).fill(null); // hand indexes
    this.target = null; // the register the next tapped card goes to
    this.sending = false;
    this.shutdown = false; // answer the shutdown question that follows with "yes"
    this._restore();
    this.el = h("div.program", { "data-testid": "program" });
    this.render();
  }

  _restore() {
    const saved = this._load();
    if (!Array.isArray(saved)) return;
    const used = new Set();
    saved.forEach((name, r) => {
      if (name === null || this.locked.has(r) || r >= this.count) return;
      const i = this.hand.findIndex((c, k) => c === name && !used.has(k));
      if (i >= 0) {
        used.add(i);
        this.slots[r] = i;
      }
    });
  }

  _load() {
    try {
      return JSON.parse(sessionStorage.getItem(this.hooks.storageKey) || "null");
    } catch {
      return null;
    }
  }

  _save() {
    try {
      sessionStorage.setItem(this.hooks.storageKey, JSON.stringify(this.program()));
    } catch {
      /* ignore */
    }
  }

  program() {
    return this.slots.map((i, r) => (this.locked.has(r) || i === null ? null : this.hand[i]));
  }

  used() {
    return new Set(this.slots.filter((i) => i !== null));
  }

  complete() {
    const free = this.hand.length - this.used().size;
    const open = this.slots.filter((i, r) => i === null && !this.locked.has(r)).length;
    return open === 0 || free === 0;
  }

  changed() {
    this._save();
    if (this.hooks.onChange) this.hooks.onChange(this.program());
    this.render();
  }

  /** Put hand card ``i`` into register ``r`` (or the target / first free register). */
  place(i, r = null) {
    if (this.sending) return;
    if (r === null) r = this.target !== null && this.slots[this.target] === null ? this.target : this.slots.findIndex((x, k) => x === null && !this.locked.has(k));
    if (r === null || r < 0 || this.locked.has(r)) return;
    const from = this.slots.indexOf(i);
    if (from >= 0) this.slots[from] = this.slots[r];
    this.slots[r] = i;
    this.target = null;
    this.changed();
  }

  remove(r) {
    if (this.sending || this.locked.has(r)) return;
    this.slots[r] = null;
    this.target = r;
    this.changed();
  }

  swap(a, b) {
    if (this.sending || this.locked.has(a) || this.locked.has(b)) return;
    [this.slots[a], this.slots[b]] = [this.slots[b], this.slots[a]];
    this.changed();
  }

  clear() {
    if (this.sending) return;
    this.slots = this.slots.map(() => null);
    this.target = null;
    this.changed();
  }

  submit() {
    if (!this.complete() || this.sending) return;
    this.sending = true;
    this.notice = null;
    this.render();
    this.hooks.onSubmit(this.program());
  }

  /** The program is locked in (``byGame``: by the game, as the time ran out or it plays for the
   * player): nothing can be changed any more. The registers show what the player had placed
   * and, as the round reveals them, the cards the game put in the empty ones (``revealed``:
   * register number -> card name, may grow with ``reveal``). */
  close(notice, revealed = {}, byGame = false) {
    this.sending = true;
    this.closed = { notice, revealed: { ...revealed }, byGame };
    this.target = null;
    this.render();
  }

  /** More cards of a closed editor's empty registers, as the round reveals them. */
  reveal(revealed) {
    if (!this.closed) return;
    Object.assign(this.closed.revealed, revealed);
    this.render();
  }

  _renderClosed() {
    let unknown = 0;
    const regs = h("div.registers", { role: "list", "aria-label": t("program.registers") });
    for (let r = 0; r < this.count; r++) {
      const slot = h("div.slot", { role: "listitem", "data-testid": "register-" + (r + 1), dataset: { register: r } });
      slot.append(h("span.slot-no", null, String(r + 1)));
      const placed = this.locked.has(r) ? null : this.slots[r];
      const filled = this.closed.revealed[r + 1];
      if (placed !== null) {
        slot.classList.add("filled");
        slot.append(cardEl(this.hand[placed]));
      } else if (filled) {
        slot.classList.add("filled", "auto-filled");
        slot.append(cardEl(filled, { title: t("program.put_by_game_card", { card: cardTitle(filled) }) }));
        slot.append(h("span.auto-tag", { title: t("program.put_by_game") }, t("program.game_tag")));
      } else {
        unknown += !this.locked.has(r);
        slot.classList.add("empty", "auto-filled");
        slot.append(h("span.slot-hint", null, this.locked.has(r) ? t("program.locked") : t("program.filled_by_game")));
      }
      regs.append(slot);
    }
    this.el.replaceChildren(
      this.closed.byGame
        ? h("p.tray-notice.time-up", { role: "alert", "data-testid": "time-up" }, this.closed.notice)
        : h("p.hint.locked-note", { "data-testid": "locked-in-note" }, this.closed.notice),
      regs,
      unknown ? h("p.hint", null, t("program.chosen_later")) : "",
    );
    this.el.classList.add("closed");
    this.el.dataset.testid = "program-locked"; // no longer a program to write
  }

  /** The program was not taken (e.g. the server could not save it): it stays, to send again. */
  failed(notice = null) {
    this.sending = false;
    this.notice = notice;
    this.render();
  }

  render() {
    if (this.closed) return this._renderClosed();
    const used = this.used();
    const regs = h("div.registers", { role: "list", "aria-label": t("program.registers") });
    for (let r = 0; r < this.count; r++) {
      const slot = h("div.slot", {
        role: "listitem",
        "data-testid": "register-" + (r + 1),
        dataset: { register: r },
      });
      slot.append(h("span.slot-no", null, String(r + 1)));
      if (this.locked.has(r)) {
        slot.classList.add("locked");
        const locked = lockedCard(this.own && this.own.registers && this.own.registers[r], this.classic);
        slot.append(cardEl(locked.card, { title: locked.title }), h("span.lock", { title: locked.lock }, icon("lock")));
      } else if (this.slots[r] !== null) {
        slot.classList.add("filled");
        const card = cardEl(this.hand[this.slots[r]]);
        card.setAttribute("role", "button");
        card.setAttribute("tabindex", "0");
        card.setAttribute("aria-label", t("program.register_card", { n: r + 1, card: cardTitle(this.hand[this.slots[r]]) }));
        this._draggable(card, { register: r });
        slot.append(card);
      } else {
        slot.classList.add("empty");
        if (this.target === r) slot.classList.add("target");
        slot.append(h("span.slot-hint", null, t("program.empty")));
        slot.addEventListener("click", () => {
          this.target = this.target === r ? null : r;
          this.render();
        });
      }
      regs.append(slot);
    }
    const hand = h("div.hand", { role: "list", "aria-label": t("program.hand"), "data-testid": "hand" });
    if (used.size === this.hand.length) hand.append(h("span.hand-empty", null, t("program.hand_empty")));
    this.hand.forEach((name, i) => {
      if (used.has(i)) return;
      const card = cardEl(name);
      card.setAttribute("role", "button");
      card.setAttribute("tabindex", "0");
      card.setAttribute("data-testid", "hand-card");
      card.setAttribute("aria-label", t("program.hand_card", { card: cardTitle(name) }));
      this._draggable(card, { hand: i });
      hand.append(card);
    });
    const filled = this.slots.filter((x, r) => x !== null && !this.locked.has(r)).length;
    const open = this.count - this.locked.size;
    const submit = h("button.primary.submit", {
      type: "button", "data-testid": "submit-program", disabled: !this.complete() || this.sending,
      onclick: () => this.submit(),
    }, this.sending ? t("program.sending") : this.complete() ? t("program.lock_in_done") : t("program.lock_in", { filled, open }));
    const clear = h("button.ghost", { type: "button", onclick: () => this.clear(), disabled: this.sending || filled === 0, "data-testid": "clear-program" }, t("program.clear"));
    const tip = this.locked.size
      ? t(this.classic ? "program.locked_tip.classic" : "program.locked_tip", { count: this.locked.size, registers: [...this.locked].map((r) => r + 1).join(", ") })
      : t("program.tip");
    this.el.replaceChildren(
      this.notice ? h("p.tray-notice", { role: "alert", "data-testid": "tray-notice" }, this.notice) : "",
      regs,
      h("p.hint", null, tip),
      hand,
      h("div.program-actions", null, this._shutdownBox(), clear, submit),
    );
    afterRender(this); // keyboard play (keys.js): shortcuts' numbers, the focus kept in place
  }

  /** The "Shut down" box (classic: "Power down"), or why a robot without damage has none. */
  _shutdownBox() {
    if (this.box === "none") return "";
    if (this.box === "no_damage") {
      // Ticked, it would be ignored: the game asks only damaged robots (powerDownBox).
      return h("label.check.shutdown-opt.unavailable", { title: t("program.power_down_no_damage_title") },
        h("input", { type: "checkbox", disabled: true, "data-testid": "shutdown-toggle" }),
        h("span", null, t("program.power_down"),
          h("small.shutdown-why", { "data-testid": "power-down-why" }, t("program.power_down_no_damage"))));
    }
    return h("label.check.shutdown-opt", { title: this.classic ? t("program.power_down_title") : t("program.shutdown_title") },
      h("input", { type: "checkbox", checked: this.shutdown, disabled: this.sending, "data-testid": "shutdown-toggle", onchange: (e) => (this.shutdown = e.target.checked) }),
      this.classic ? t("program.power_down") : t("program.shutdown"));
  }

  /** Tap to place/remove; drag (mouse, pen or finger) to a register, or back to the hand; a long
   * press (or a right click) opens the card large. */
  _draggable(el, from) {
    el.addEventListener("contextmenu", (ev) => {
      ev.preventDefault();
      openCard(el.dataset.card);
    });
    el.addEventListener("keydown", (ev) => {
      if (ev.key === "Enter" || ev.key === " ") {
        ev.preventDefault();
        if (from.hand !== undefined) this.place(from.hand);
        else this.remove(from.register);
      }
    });
    el.addEventListener("pointerdown", (ev) => {
      if (ev.button !== 0 || this.sending) return;
      ev.preventDefault();
      const start = { x: ev.clientX, y: ev.clientY };
      let ghost = null;
      let over = null;
      let pressed = false;
      const press = setTimeout(() => {
        pressed = true;
        openCard(el.dataset.card);
      }, LONG_PRESS_MS);
      const move = (e) => {
        if (pressed || (!ghost && Math.hypot(e.clientX - start.x, e.clientY - start.y) < 8)) return;
        clearTimeout(press);
        if (!ghost) {
          const box = el.getBoundingClientRect();
          ghost = el.cloneNode(true);
          ghost.classList.add("drag-ghost");
          ghost.style.width = box.width + "px";
          ghost.style.height = box.height + "px";
          document.body.append(ghost);
          el.classList.add("dragging");
        }
        ghost.style.left = e.clientX + "px";
        ghost.style.top = e.clientY + "px";
        const under = document.elementFromPoint(e.clientX, e.clientY);
        const target = under && under.closest(".slot, .hand");
        if (over !== target) {
          if (over) over.classList.remove("drop-over");
          over = target;
          if (over) over.classList.add("drop-over");
        }
      };
      const up = (e) => {
        window.removeEventListener("pointermove", move);
        window.removeEventListener("pointerup", up);
        window.removeEventListener("pointercancel", up);
        clearTimeout(press);
        if (over) over.classList.remove("drop-over");
        el.classList.remove("dragging");
        if (pressed) return;
        if (!ghost) {
          if (e.type === "pointercancel") return;
          if (from.hand !== undefined) this.place(from.hand);
          else this.remove(from.register);
          return;
        }
        ghost.remove();
        if (!over) return;
        if (over.classList.contains("slot")) {
          const r = Number(over.dataset.register);
          if (this.locked.has(r)) return;
          if (from.hand !== undefined) this.place(from.hand, r);
          else if (from.register !== r) this.swap(from.register, r);
        } else if (from.register !== undefined) {
          this.remove(from.register);
        }
      };
      window.addEventListener("pointermove", move);
      window.addEventListener("pointerup", up);
      window.addEventListener("pointercancel", up);
    });
  }
}
