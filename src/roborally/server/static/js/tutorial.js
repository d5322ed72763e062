// The guided first race: offered in the lobby on a first visit, it creates a game on the Training
// Run against one Beginner bot (no programming timer) and lays a small coach panel over the game
// page. The coach walks through one round step by step, highlighting the part of the page each
// step is about; it moves on when the player does the thing (or presses Next) and never blocks
// the game. Checkpoints, damage and rebooting are explained when they happen to the player's
// robot (from the game's events), else in the words of the steps.

import { api } from "./api.js";
import { botChoices } from "./bots.js";
import { refusalText } from "./errors.js";
import { t } from "./i18n.js";
import { fill, h, params, seatUrl, store, toast } from "./util.js";

/** The tutorial's game: the 2023 edition's training course against one Beginner bot. */
export const TUTORIAL_GAME = { edition: "2023", course: "tiny", bot: "beginner", maxRounds: 15 };

const FLAG = "tutorial"; // localStorage rr.tutorial: {offered, done}
const PROGRESS = "tutorial.progress"; // {game, step, closed}
const POLL_MS = 200;

// ------------------------------------------------------------------ lobby
function flags() {
  return store.get(FLAG, {}) || {};
}

function setFlags(more) {
  store.set(FLAG, { ...flags(), ...more });
}

/** The lobby's "Guided first race" button (always there) and, on a first visit, the offer. */
export function installLobbyTutorial(root) {
  const hero = root.querySelector(".hero .rules-line");
  const start = (button) => startTutorial(button);
  const link = h("button.ghost.small.tutorial-link", {
    type: "button", "data-testid": "tutorial-start", onclick: (e) => start(e.currentTarget),
  }, t("tutorial.lobby_link"));
  if (hero) hero.after(h("p.tutorial-line", null, link));
  const f = flags();
  const known = (store.get("mine", []) || []).length > 0; // has played here before
  if (f.offered || f.done || known) return;
  setFlags({ offered: true });
  const offer = h("section.panel.tutorial-offer", { "data-testid": "tutorial-offer", "aria-labelledby": "tutorial-offer-title" },
    h("div.tutorial-offer-text", null,
      h("h2", { id: "tutorial-offer-title" }, t("tutorial.offer_title")),
      h("p", null, t("tutorial.offer_text"))),
    h("div.tutorial-offer-actions", null,
      h("button.primary", { type: "button", "data-testid": "tutorial-offer-start", onclick: (e) => start(e.currentTarget) }, t("tutorial.offer_start")),
      h("button.ghost", { type: "button", "data-testid": "tutorial-offer-dismiss", onclick: () => offer.remove() }, t("tutorial.offer_dismiss"))));
  const grid = root.querySelector(".lobby-grid");
  if (grid) grid.before(offer);
}

/** The create request of the tutorial's game (see docs/web-client.md, "Guided first race"). */
export function tutorialBody(options) {
  const bots = botChoices(options);
  const bot = bots.find((b) => b.id === TUTORIAL_GAME.bot) || bots.find((b) => typeof b.level === "number") || bots[0];
  const [, longest] = (options.limits && options.limits.timer_seconds) || [5, 3600];
  const name = store.get("name", "");
  return {
    edition: TUTORIAL_GAME.edition,
    course: TUTORIAL_GAME.course,
    seats: [name ? { kind: "human", name } : { kind: "human" }, { kind: "bot", bot: bot ? bot.id : "random" }],
    // No programming timer, and the longest deadlines the server allows: reading the coach
    // never makes the game play for the newcomer. The server draws its own secret seed.
    max_rounds: TUTORIAL_GAME.maxRounds,
    program_seconds: longest,
    decision_seconds: longest,
    public: false,
  };
}

export async function startTutorial(button) {
  if (button) button.disabled = true;
  try {
    const options = await api.options();
    const res = await api.create(tutorialBody(options));
    store.set("created." + res.game_id, res);
    store.set(PROGRESS, { game: res.game_id, step: 0, closed: false });
    const host = res.seats.find((s) => s.seat === res.host_seat && s.token);
    location.href = seatUrl(res.game_id, host.token).replace("#", "&tutorial=1#");
  } catch (error) {
    toast(refusalText(error.code, error.message, "create"), "error");
    if (button) button.disabled = false;
  }
}

// ------------------------------------------------------------- the coach
const $ = (sel) => document.querySelector(sel);
const all = (...sels) => sels.flatMap((sel) => [...document.querySelectorAll(sel)]);

/** The coach on a game page opened with ?tutorial=1, or on the guided race's game (main.js). */
export function startCoach(game) {
  const saved = store.get(PROGRESS, null);
  if (!params.has("tutorial") && !(saved && saved.game === game.gameId)) return null;
  const coach = new Coach(game);
  coach.start();
  window.rrCoach = coach; // for tests
  return coach;
}

// What happened to the player's robot, explained the first time it happens: a title, the
// explanation, and a short line for the recap of the guided round.
const noteTexts = (name, values = {}) => ({
  title: t(`tutorial.note.${name}.title`, values),
  text: t(`tutorial.note.${name}.text`, values),
  short: t(`tutorial.note.${name}.short`, values),
});
const NOTES = {
  checkpoint_reached: (e) => noteTexts("checkpoint", { number: e.amount, next: e.amount + 1 }),
  damaged: (e) => noteTexts(String(e.card || "").startsWith("hw_") || e.hidden ? "haywire" : "spam"),
  fell: () => noteTexts("reboot"),
  energy_gained: () => noteTexts("energy"),
};
NOTES.rebooted = NOTES.fell;

/** The steps, in order. Each may say when it is already behind the player (`past`), when the
 * player has done its thing (`done`), whether its part of the game is on the screen yet
 * (`ready`: the guide waits on the step before until then), what it is about (`targets`) and
 * what must stay visible (`keep`: the controls the player must tap). */
function steps(c) {
  const board = () => all(".board-area .board-wrap");
  const preview = () => $("[data-testid=path-preview]");
  // The programming steps wait for the editor: the upgrade phase may still be open.
  const editing = () => c.programming() || c.submitted();
  return [
    {
      id: "welcome",
      title: t("tutorial.welcome.title"),
      text: () => [
        t("tutorial.welcome.goal"),
        t("tutorial.welcome.robots", { robot: c.myName(), bot: c.botName() }),
        t("tutorial.welcome.how"),
      ],
      done: () => c.placed(),
      targets: board,
    },
    {
      id: "start",
      title: t("tutorial.start.title"),
      text: () => [t("tutorial.start.where"), c.goodStart() ? t("tutorial.start.hint", { space: c.goodStart() }) : ""],
      past: () => c.placed(),
      done: () => c.placed(),
      targets: () => [...board(), ...all("[data-testid=decision][data-kind=start_space]"), ...c.goodStartMarks()],
      keep: () => all("[data-testid=decision] [data-testid=choice]"),
    },
    {
      id: "upgrade",
      title: t("tutorial.upgrade.title"),
      text: () => [t("tutorial.upgrade.what"), t("tutorial.upgrade.now")],
      past: editing,
      // Once answered (the player may go on buying: the hand step waits for the editor).
      done: () => c.answered("upgrade_phase") || editing(),
      ready: () => c.pendingKind() === "upgrade_phase" || editing(),
      targets: () => all("[data-testid=decision][data-kind=upgrade_phase]"),
      keep: () => all("[data-testid=decision] [data-testid=choice]"),
    },
    {
      id: "hand",
      title: t("tutorial.hand.title"),
      text: () => [t("tutorial.hand.cards"), t("tutorial.hand.how")],
      past: () => c.submitted(),
      done: () => c.filled() >= 1,
      ready: editing,
      targets: () => all("[data-testid=hand]"),
      keep: () => all("[data-testid=hand]", "[data-testid=program] .registers"),
    },
    {
      id: "registers",
      title: t("tutorial.registers.title"),
      text: () => [
        t("tutorial.registers.what"),
        t("tutorial.registers.how"),
        t("tutorial.registers.filled", { filled: c.filled() }),
      ],
      past: () => c.submitted(),
      done: () => c.complete(),
      ready: editing,
      targets: () => all("[data-testid=program] .registers"),
      keep: () => all("[data-testid=hand]", "[data-testid=program] .registers"),
    },
    {
      id: "preview",
      title: t("tutorial.preview.title"),
      text: () => preview()
        ? [t("tutorial.preview.path"), t("tutorial.preview.others")]
        : [t("tutorial.preview.follow"), t("tutorial.preview.watch")],
      past: () => c.submitted(),
      targets: () => (preview() ? [preview()] : board()),
      keep: () => all("[data-testid=program] .registers", "[data-testid=submit-program]"),
    },
    {
      id: "lockin",
      title: t("tutorial.lockin.title"),
      text: () => [t("tutorial.lockin.press"), c.complete() ? "" : t("tutorial.lockin.fill")],
      past: () => c.submitted(),
      done: () => c.submitted(),
      targets: () => all("[data-testid=submit-program]"),
      keep: () => all("[data-testid=submit-program]", "[data-testid=program] .registers", "[data-testid=hand]"),
    },
    {
      id: "activation",
      title: t("tutorial.activation.title"),
      text: () => [t("tutorial.activation.robots"), t("tutorial.activation.board"), t("tutorial.activation.strip")],
      done: () => c.roundOver(),
      targets: () => [...board(), ...all("[data-testid=register-strip]")],
      keep: () => all("[data-testid=decision] [data-testid=choice]"),
    },
    {
      id: "recap",
      title: t("tutorial.recap.title"),
      text: () => c.recap(),
      targets: () => all(".players-box"),
    },
    {
      id: "race",
      title: t("tutorial.race.title"),
      text: () => [t("tutorial.race.same"), t("tutorial.race.go")],
      targets: board,
      next: t("tutorial.race.button"),
      done: () => c.finished(),
      press: () => c.race(),
    },
  ];
}

class Coach {
  constructor(game) {
    this.game = game;
    this.steps = steps(this);
    this.seen = []; // the step ids shown, in order (the tests read it)
    this.notes = []; // notes about the player's robot shown so far
    this.explained = new Set();
    this.roundNotes = []; // what happened in the guided round
    this.focused = [];
    const saved = store.get(PROGRESS, null);
    const mine = saved && saved.game === game.gameId;
    this.index = mine ? saved.step || 0 : 0;
    this.closed = !!(mine && saved.closed);
    this.note = null;
  }

  start() {
    this.next = h("button.primary.small", { type: "button", "data-testid": "coach-next", onclick: () => this.press() }, t("tutorial.next"));
    this.closeBtn = h("button.icon.coach-close", {
      type: "button", "data-testid": "coach-close", title: t("tutorial.close_guide"), "aria-label": t("tutorial.close_guide"),
      onclick: () => this.close(),
    }, "×");
    this.count = h("span.coach-count", { "data-testid": "coach-count" });
    this.titleEl = h("h2.coach-title", { id: "coach-title" });
    this.body = h("div.coach-body", { "data-testid": "coach-body" });
    this.el = h("aside.coach", { "data-testid": "coach", role: "region", "aria-labelledby": "coach-title", "aria-live": "polite", hidden: true },
      h("div.coach-head", null, h("span.coach-badge", null, t("tutorial.badge")), this.count, this.closeBtn),
      this.titleEl, this.body,
      h("div.coach-actions", null, this.next));
    document.body.append(this.el);
    document.body.classList.add("coach-on");
    if (Array.isArray(this.game.eventWatchers)) this.game.eventWatchers.push((e, instant) => this.onEvent(e, instant));
    this.timer = setInterval(() => this.tick(), POLL_MS);
    window.addEventListener("resize", () => this.position());
    // The page's layout can change without a resize (a panel grows, the hand moves): follow it.
    if (window.ResizeObserver) new ResizeObserver(() => this.position()).observe(document.body);
    window.addEventListener("scroll", () => this.position(), { passive: true });
  }

  // ---------------------------------------------------------- the game
  get st() {
    return this.game.state;
  }

  own() {
    const obs = this.st && this.st.observation;
    return obs ? obs.players.find((p) => p.seat === this.game.seat) || null : null;
  }

  myName() {
    return this.game.seat === null || this.game.seat === undefined ? t("tutorial.your_robot") : this.game.name(this.game.seat);
  }

  botName() {
    const st = this.st || this.game.latest;
    const bot = st && st.seats.find((s) => s.kind === "bot");
    return bot ? bot.name : t("tutorial.other_robot");
  }

  checkpoints() {
    return (this.game.welcome && this.game.welcome.board.checkpoints.length) || 2;
  }

  round() {
    const obs = this.st && this.st.observation;
    return obs ? obs.round || 0 : 0;
  }

  finished() {
    const st = this.st;
    return !!st && (st.status === "finished" || !!(st.observation && st.observation.over));
  }

  pendingKind() {
    const d = this.st && (this.st.pending || [])[0];
    return d && !this.game.answered.has(d.id) ? d.kind : null;
  }

  /** The free start space nearest to checkpoint 1 (the start step's tip names it: the bot may
   * hold the one right below the flag already), or null while no start space is asked. */
  goodStart() {
    const d = this.st && (this.st.pending || []).find((x) => x.kind === "start_space" && !this.game.answered.has(x.id));
    const board = this.game.welcome && this.game.welcome.board;
    if (!d || !board || !board.checkpoints.length) return null;
    const [fx, fy] = board.checkpoints[0];
    const away = (sp) => Math.abs(sp.pos[0] - fx) * 100 + Math.abs(sp.pos[1] - fy); // across first
    const free = board.start_spaces.filter((sp) => d.options.includes(sp.number));
    free.sort((a, b) => away(a) - away(b) || a.number - b.number);
    return free.length ? free[0].number : null;
  }

  /** That space's mark on the board and its button, lit by the start step. */
  goodStartMarks() {
    const n = this.goodStart();
    return n === null ? [] : all(`.mark-layer .choice[data-value="${n}"]`, `[data-kind=start_space] [data-testid=choice][data-value="${n}"]`);
  }

  placed() {
    const p = this.own();
    return !!p && (p.on_board || !!p.reentry || this.round() >= 1) && this.pendingKind() !== "start_space";
  }

  answered(kind) {
    this.kinds = this.kinds || new Map();
    const d = this.st && (this.st.pending || [])[0];
    if (d) this.kinds.set(d.id, d.kind);
    return [...this.game.answered].some((id) => this.kinds.get(id) === kind);
  }

  programming() {
    return this.pendingKind() === "program" && !!this.game.editor;
  }

  filled() {
    const ed = this.game.editor;
    return ed ? ed.program().filter((c) => c !== null).length : this.submitted() ? 5 : 0;
  }

  complete() {
    const ed = this.game.editor;
    return !!ed && ed.complete();
  }

  submitted() {
    if (this.finished() || this.round() >= 2) return true;
    const ed = this.game.editor;
    if (ed && ed.sending) this.sent = true;
    if (this.sent) return true;
    const obs = this.st && this.st.observation;
    const submitted = ((this.st && this.st.submitted) || []).some((a) => Array.isArray(a.choice));
    // After the program: the shutdown question (answered by the program's box), then the registers.
    return submitted || (!!obs && this.round() >= 1 && ["shutdown", "reveal", "turns", "board", "end_round"].includes(obs.stage));
  }

  /** The guided round has been played and shown (the next round's state is on screen). */
  roundOver() {
    return this.finished() || (this.round() >= 2 && !(this.game.anim && this.game.anim.busy));
  }

  recap() {
    const lines = this.roundNotes.map((n) => n.short);
    const p = this.own();
    const where = p ? t("tutorial.recap.panel", { claimed: p.checkpoint, total: this.checkpoints() }) : "";
    if (!lines.length) lines.push(t("tutorial.recap.no_damage"), t("tutorial.recap.no_fall"));
    return [...lines, where, t("tutorial.recap.log")];
  }

  // ------------------------------------------------------------- steps
  step() {
    return this.steps[this.index] || null;
  }

  /** Next (OK on a note, "Let's race" on the last step, Close at the end). */
  press() {
    const s = this.step();
    if (!this.note && s && s.press) s.press();
    else this.advance();
  }

  /** Whether the step after this one has its part of the game on the screen (or is behind). */
  nextReady() {
    const next = this.steps[this.index + 1];
    return !next || !next.ready || next.ready() || !!(next.past && next.past());
  }

  advance() {
    if (this.note) {
      this.note = null;
      this.render();
      return;
    }
    if (!this.nextReady()) return; // Next is hidden until then (render)
    if (this.finished() && !this.step()) {
      this.close();
      return;
    }
    this.index += 1;
    this.save();
    this.render(true);
  }

  save() {
    store.set(PROGRESS, { game: this.game.gameId, step: this.index, closed: this.closed });
    if (this.index >= this.steps.length - 1) setFlags({ done: true });
  }

  close() {
    this.closed = true;
    this.note = null;
    this.save();
    this.unfocus();
    this.el.hidden = true;
    document.body.classList.remove("coach-on");
  }

  onEvent(e, instant) {
    if (instant || e.seat !== this.game.seat) return;
    const make = NOTES[e.kind];
    const last = e.kind === "checkpoint_reached" && e.amount >= this.checkpoints();
    if (!make || last) return; // the last checkpoint ends the race: the guide's last word says it
    const key = e.kind === "rebooted" ? "fell" : e.kind;
    if (this.explained.has(key) && !(e.kind === "checkpoint_reached")) return;
    this.explained.add(key);
    const note = { id: key, ...make(e) };
    this.notes.push(note.id);
    if (this.round() <= 1 && this.index <= this.steps.findIndex((s) => s.id === "activation")) {
      this.roundNotes.push(note);
      this.render();
    } else if (!this.closed && e.kind !== "energy_gained") {
      this.note = note;
      this.render();
    }
  }

  tick() {
    if (!this.st || this.closed) return;
    // Steps already behind the player are passed by; a step whose thing is done moves on.
    let moved = false;
    while (this.step()) {
      const s = this.step();
      const behind = s.past && s.past();
      const done = this.seen.includes(s.id) && s.done && s.done();
      if (!behind && !done) break;
      if (!this.seen.includes(s.id) && !behind) break;
      if (!this.nextReady()) break; // the next step waits for its part of the game
      this.index += 1;
      moved = true;
    }
    if (moved) this.save();
    this.render(moved);
  }

  render(changed = false) {
    if (this.closed) return;
    // Once the race is over its last word wins over a note from the final register.
    if (this.note && !this.step() && this.finished()) this.note = null;
    const s = this.step();
    let title, lines, stepId, targets = [], keep = [];
    if (this.note) {
      ({ title } = this.note);
      lines = [this.note.text];
      stepId = "note-" + this.note.id;
      targets = all(".players-box .player.me, .players-box");
    } else if (s && s.id === "race" && this.raced) {
      this.el.hidden = true;
      this.unfocus();
      return;
    } else if (s) {
      title = s.title;
      lines = s.text();
      stepId = s.id;
      targets = s.targets ? s.targets().filter(Boolean) : [];
      keep = s.keep ? s.keep().filter(Boolean) : [];
    } else if (this.finished()) {
      const outcome = (this.st && this.st.outcome) || {};
      const won = outcome.winner === this.game.seat;
      title = won ? t("tutorial.over.won_title") : t("tutorial.over.title");
      lines = [
        won ? t("tutorial.over.won") : t("tutorial.over.finished"),
        t("tutorial.over.more"),
        t("tutorial.over.again"),
      ];
      stepId = "over";
      setFlags({ done: true });
    } else {
      this.el.hidden = true;
      this.unfocus();
      return;
    }
    if (!this.seen.includes(stepId)) this.seen.push(stepId);
    const first = this.el.hidden || this.el.dataset.step !== stepId;
    this.el.hidden = false;
    this.el.dataset.step = stepId;
    const numbered = s && !this.note;
    this.count.textContent = numbered ? t("tutorial.step", { step: this.index + 1, steps: this.steps.length }) : "";
    this.titleEl.textContent = title;
    const paras = lines.filter(Boolean);
    const text = paras.join("\n");
    if (this.body.dataset.text !== text) {
      this.body.dataset.text = text;
      fill(this.body, paras.map((t) => h("p", null, t)));
    }
    this.next.textContent = this.note ? t("tutorial.ok") : s ? s.next || t("tutorial.next") : t("tutorial.close");
    this.next.hidden = !this.note && !!s && !this.nextReady();
    this.focus(targets);
    if (first || changed) this.reveal(targets, keep);
    this.keep = keep;
    this.targets = targets;
    this.position();
  }

  /** "Let's race": the guide steps aside until something new happens or the race ends. */
  race() {
    this.raced = true;
    setFlags({ done: true });
    this.render();
  }

  // ------------------------------------------------------ highlighting
  focus(targets) {
    for (const el of this.focused) if (!targets.includes(el)) el.classList.remove("coach-focus");
    for (const el of targets) el.classList.add("coach-focus");
    this.focused = targets;
  }

  unfocus() {
    this.focus([]);
  }

  /** On a phone, bring the step's part of the page into view (once per step). */
  reveal(targets, keep) {
    if (window.innerWidth > 900) return;
    const first = keep[0] || targets[0];
    if (first && first.scrollIntoView) first.scrollIntoView({ block: "center", behavior: "instant" });
  }

  /** Put the panel where it covers neither the step's part of the page nor the controls to tap. */
  position() {
    if (this.el.hidden) return;
    const phone = window.innerWidth <= 900;
    const rects = [...(this.keep || []), ...(this.targets || [])]
      .map((el) => el.getBoundingClientRect())
      .filter((r) => r.width > 0 && r.height > 0);
    const keepRects = (this.keep || []).map((el) => el.getBoundingClientRect()).filter((r) => r.width > 0);
    const box = this.el.getBoundingClientRect();
    const W = window.innerWidth, H = window.innerHeight;
    const gap = phone ? 6 : 12;
    const bar = $(".topbar");
    const below = Math.max(gap, bar ? bar.getBoundingClientRect().bottom + gap : gap);
    const low = Math.max(below, H - box.height - gap);
    const candidates = phone
      ? [["bottom", gap, low], ["top", gap, below]]
      : [["bottom-right", W - box.width - gap, low], ["bottom-left", gap, low], ["top-left", gap, below],
        ["top-right", W - box.width - gap, below]];
    const overlap = (x, y, list) => list.reduce((sum, r) => {
      const w = Math.min(x + box.width, r.right) - Math.max(x, r.left);
      const hgt = Math.min(y + box.height, r.bottom) - Math.max(y, r.top);
      return sum + (w > 0 && hgt > 0 ? w * hgt : 0);
    }, 0);
    // Covering a control to tap costs far more than covering the part the step is about.
    const cost = ([, x, y]) => overlap(x, y, keepRects) * 100 + overlap(x, y, rects);
    let best = candidates[0];
    for (const c of candidates) if (cost(c) < cost(best)) best = c;
    const current = candidates.find((c) => c[0] === this.el.dataset.place);
    if (current && cost(current) <= cost(best)) best = current;
    this.el.dataset.place = best[0];
    this.el.style.left = `${Math.max(0, best[1])}px`;
    this.el.style.top = `${Math.max(0, best[2])}px`;
  }
}
