// Plays the engine's events on the board, one step at a time, at an adjustable speed.

import { cardTitle } from "./cards.js";
import { t } from "./i18n.js";
import { seatColour } from "./util.js";

const UNIT_MS = 330; // one "beat" at speed 1

const MOVES = new Set(["moved", "pushed", "conveyed", "displaced"]);

// How long each kind of step lasts, in beats.
const BEATS = {
  move: 1, turn: 0.9, shot: 0.9, reveal: 1.5, damage: 0.6, fell: 1.2, rebooted: 0.4, destroyed: 0.8,
  reentered: 0.8, checkpoint_reached: 1.5, energy_gained: 0.7, register_started: 0.8,
  placed: 0.5, game_won: 1.6, blocked: 0.4,
};

function groupOf(e) {
  if (MOVES.has(e.kind)) return "move";
  if (e.kind === "rotated") return "turn";
  if (e.kind === "shot") return "shot";
  if (e.kind === "card_revealed" || e.kind === "upgrade") return "reveal";
  if (e.kind === "damaged") return "damage";
  return null;
}

/** Split events into steps; consecutive moves of different robots (a belt, a push) go together. */
export function plan(events) {
  const steps = [];
  let current = null;
  for (const e of events) {
    const group = groupOf(e);
    const joins = current && group && current.group === group &&
      (group === "shot" || group === "reveal" || group === "damage" || !current.seats.has(e.seat));
    if (joins) {
      current.events.push(e);
      current.seats.add(e.seat);
    } else {
      current = { group: group || e.kind, events: [e], seats: new Set([e.seat]) };
      steps.push(current);
    }
  }
  return steps;
}

export class Animator {
  /** hooks: {onEvent(e, instant), onIdle(), onBusy()} */
  constructor(board, hooks = {}) {
    this.board = board;
    this.hooks = hooks;
    this.speed = 1;
    this.queue = [];
    this.running = false;
  }

  get busy() {
    return this.running;
  }

  /** Add events ({events, instant}) or a function ({fn}) to the queue. */
  enqueue(task) {
    this.queue.push(task);
    if (!this.running) this._run();
  }

  /** A promise that resolves when nothing is queued or playing. */
  idle() {
    if (!this.running) return Promise.resolve();
    return new Promise((resolve) => (this._waiters = (this._waiters || []).concat(resolve)));
  }

  /** Finish everything queued at once. */
  skip() {
    if (this.running) this.board.control.skipping = true;
  }

  async _run() {
    this.running = true;
    if (this.hooks.onBusy) this.hooks.onBusy();
    await this.board.ready;
    try {
      while (this.queue.length) {
        const task = this.queue.shift();
        try {
          if (task.fn) await task.fn();
          else await this.play(task.events, task.instant);
        } catch (error) {
          console.error("animation step failed", error);
        }
      }
    } finally {
      this.board.control.skipping = false;
      this.running = false;
      if (this.hooks.onIdle) this.hooks.onIdle();
      const waiters = this._waiters || [];
      this._waiters = [];
      waiters.forEach((w) => w());
    }
  }

  unit(instant) {
    if (instant || this.board.control.skipping || !(this.speed > 0)) return 0;
    return UNIT_MS / this.speed;
  }

  async play(events, instant = false) {
    for (const step of plan(events)) {
      for (const e of step.events) if (this.hooks.onEvent) this.hooks.onEvent(e, instant);
      const unit = this.unit(instant);
      await this.step(step, unit * (BEATS[step.group] || 0), unit);
    }
  }

  async step(step, ms, unit) {
    const b = this.board;
    const evs = step.events;
    const e = evs[0];
    switch (step.group) {
      case "move":
        await Promise.all(evs.map((x) => b.move(x.seat, x.to, ms, x.facing)));
        break;
      case "turn":
        await Promise.all(evs.map((x) => b.turn(x.seat, x.to_facing, ms, x.cause)));
        break;
      case "shot":
        if (ms > 0) await Promise.all(evs.map((x) => b.shot(x.pos, x.to, x.amount, ms, x.seat)));
        break;
      case "reveal":
        if (ms > 0) {
          await Promise.all(evs.map((x) => {
            const r = b.robotAt(x.seat);
            return r ? b.float(r.pos, cardTitle(x.card), "#fff", ms) : null;
          }));
        }
        break;
      case "damage":
        if (ms > 0) {
          const seen = new Set();
          await Promise.all(evs.map((x) => {
            const r = b.robotAt(x.seat);
            if (!r || seen.has(x.seat)) return null;
            seen.add(x.seat);
            const n = evs.filter((y) => y.seat === x.seat).length;
            return Promise.all([b.flash(x.seat, "#ff3b30", ms), b.float(r.pos, n > 1 ? `${n}× damage` : (x.hidden ? "damage" : cardTitle(x.card)), "#ff8a80", ms)]);
          }));
        }
        break;
      case "placed":
        await b.appear(e.seat, e.pos, e.facing, false, ms);
        break;
      case "fell":
        await b.fall(e.seat, e.pos, ms);
        break;
      case "rebooted":
        await b.appear(e.seat, e.pos, e.facing, true, ms);
        break;
      case "destroyed": // classic: the robot leaves the board until it re-enters
        await b.fall(e.seat, null, ms);
        break;
      case "reentered":
        await b.appear(e.seat, e.pos, e.to_facing || e.facing, false, ms);
        break;
      case "blocked":
        if (ms > 0) await b.flash(e.seat, "#ffd43b", ms);
        break;
      case "energy_gained": {
        const r = b.robotAt(e.seat);
        if (ms > 0 && r) await b.float(r.pos, `+${e.amount || 1} ⚡`, "#ffe066", ms);
        break;
      }
      case "checkpoint_reached":
        if (ms > 0) {
          await Promise.all([b.flash(e.seat, "#ffb224", ms), b.float(e.pos, `⚑ ${e.amount}`, "#ffb224", ms)]);
        }
        break;
      case "register_started":
        if (ms > 0) {
          b.showBanner(t("game.register_n", { n: e.register }), ms * 2);
          await new Promise((r) => setTimeout(r, ms));
        }
        break;
      case "game_won":
        if (ms > 0) {
          const who = this.hooks.name ? this.hooks.name(e.seat) : "";
          // The log's own sentence (classic: a finisher's place, or a share of the win).
          const cause = String(e.cause || "");
          const key = cause === "place" ? "log.game_won.place" : cause === "shared" ? "log.game_won.shared" : "log.game_won";
          b.showBanner(t(key, { who, place: e.amount }), ms * 2);
          await b.flash(e.seat, seatColour(e.seat), ms);
        }
        break;
      default:
        break;
    }
  }
}
