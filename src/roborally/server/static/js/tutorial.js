// The guided first race: offered in the lobby on a first visit, it creates a game on the Training
// Run against one Beginner bot (no programming timer) and lays a small coach panel over the game
// page. The coach walks through one round step by step, highlighting the part of the page each
// step is about; it moves on when the player does the thing (or presses Next) and never blocks
// the game. Checkpoints, damage and rebooting are explained when they happen to the player's
// robot (from the game's events), else in the words of the steps.

import { api } from "./api.js";
import { botChoices } from "./bots.js";
import { refusalText } from "./errors.js";
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
  }, "▶ Learn to play: a guided first race");
  if (hero) hero.after(h("p.tutorial-line", null, link));
  const f = flags();
  const known = (store.get("mine", []) || []).length > 0; // has played here before
  if (f.offered || f.done || known) return;
  setFlags({ offered: true });
  const offer = h("section.panel.tutorial-offer", { "data-testid": "tutorial-offer", "aria-labelledby": "tutorial-offer-title" },
    h("div.tutorial-offer-text", null,
      h("h2", { id: "tutorial-offer-title" }, "New to RoboRally?"),
      h("p", null, "Take a guided first race: a coach shows you one round step by step on the Training Run, ",
        "against one Beginner bot, and then you finish the race yourself. There is no clock: take your time.")),
    h("div.tutorial-offer-actions", null,
      h("button.primary", { type: "button", "data-testid": "tutorial-offer-start", onclick: (e) => start(e.currentTarget) }, "Start the guided race"),
      h("button.ghost", { type: "button", "data-testid": "tutorial-offer-dismiss", onclick: () => offer.remove() }, "No thanks")));
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

// What happened to the player's robot, explained the first time it happens.
const NOTES = {
  checkpoint_reached: (e) => ({
    title: `Checkpoint ${e.amount}!`,
    text: `Your robot ended a register on checkpoint ${e.amount} and claims it. Checkpoints count only in their order: now head for checkpoint ${e.amount + 1}. Your panel shows ⚑ ${e.amount}.`,
    short: `Your robot claimed checkpoint ${e.amount}.`,
  }),
  damaged: (e) => (String(e.card || "").startsWith("hw_") || e.hidden
    ? {
      title: "Damage: a Haywire",
      text: "Your robot took damage: a Haywire from the shared damage deck. It lies face down under a register and " +
        "locks that register next round: the Haywire plays there instead of a card you choose.",
      short: "Your robot took damage, a Haywire: next round one register is locked and plays it.",
    }
    : {
      title: "Damage: a SPAM card",
      text: "Your robot took damage: a SPAM card from the shared damage deck. It goes into your discard pile and later " +
        "clogs your hand. Programming it is how you get rid of it: when its register comes, it is thrown away and the " +
        "top card of your deck plays instead.",
      short: "Your robot took damage (SPAM cards): put a SPAM in a register to get rid of it; the top card of your deck plays instead.",
    }),
  fell: () => ({
    title: "Rebooting",
    text: "Your robot fell into a pit or off the edge, so it reboots: it leaves the board for the rest of the round, " +
      "plays none of its remaining registers and you take 2 damage. In register 1 of the next round it comes back " +
      "on the reboot token (the purple space with an arrow; after a fall from the docking bay, on its start space) " +
      "and you choose which way it faces.",
    short: "Your robot fell and rebooted: it missed the rest of the round and you took 2 damage. Next round it comes back on the reboot token (the purple space with an arrow).",
  }),
  energy_gained: () => ({
    title: "Energy",
    text: "Your robot gained energy (a battery space, or a Power Up card). Spend energy on upgrades in the upgrade phase.",
    short: "Your robot gained energy: spend it on upgrades in the upgrade phase.",
  }),
};
NOTES.rebooted = NOTES.fell;

/** The steps, in order. Each may say when it is already behind the player (`past`), when the
 * player has done its thing (`done`), what it is about (`targets`) and what must stay visible
 * (`keep`: the controls the player must tap). */
function steps(c) {
  const board = () => all(".board-area .board-wrap");
  const preview = () => $("[data-testid=path-preview]");
  return [
    {
      id: "welcome",
      title: "Your first race",
      text: () => [
        "You drive a robot through a factory. The first robot to claim every checkpoint in order (1, then 2) wins.",
        `Your robot is ${c.myName()}: on the board its number sits on a yellow disc. Your rival is ${c.botName()}, a Beginner bot.`,
        "Press Next, or just do what each step says: the guide follows you. Close it at any time with ×.",
      ],
      done: () => c.placed(),
      targets: board,
    },
    {
      id: "start",
      title: "Choose a start space",
      text: () => [
        "Every robot starts on the docking bay at the bottom of the board. Tap one of the glowing numbered spaces, or a button in the panel.",
        "Checkpoint 1 is the orange flag in the middle of the board: a space below it is a good start.",
      ],
      past: () => c.placed(),
      done: () => c.placed(),
      targets: () => [...board(), ...all("[data-testid=decision][data-kind=start_space]")],
      keep: () => all("[data-testid=decision] [data-testid=choice]"),
    },
    {
      id: "upgrade",
      title: "The upgrade phase",
      text: () => [
        "Each round starts with the upgrade phase. You have 3 energy and 3 upgrade cards face down in your reserve; installing one costs energy and gives your robot a new power.",
        "For this first round you may simply press Done (or install one if you like).",
      ],
      past: () => c.programming() || c.submitted(),
      done: () => c.answered("upgrade_phase") || c.programming() || c.submitted(),
      targets: () => all("[data-testid=decision][data-kind=upgrade_phase]"),
      keep: () => all("[data-testid=decision] [data-testid=choice]"),
    },
    {
      id: "hand",
      title: "Your programming cards",
      text: () => [
        "This is your hand: nine programming cards drawn from your deck of 20. Move 1, 2 and 3 drive forward, Move Back drives back, " +
          "Rotate Left, Rotate Right and U-Turn turn on the spot, Power Up gives 1 energy and Again repeats the register before.",
        "Hold a card (or right-click it) to read it. Tap a card to put it in the next register.",
      ],
      past: () => c.submitted(),
      done: () => c.filled() >= 1,
      targets: () => all("[data-testid=hand]"),
      keep: () => all("[data-testid=hand]", "[data-testid=program] .registers"),
    },
    {
      id: "registers",
      title: "Fill the five registers",
      text: () => [
        "The five registers are your program for this round: register 1 plays first, register 5 last. " +
          "Pick cards that drive your robot towards checkpoint 1.",
        "Tap a register to take its card back, or drag cards between registers. The four cards you do not use are discarded at the end of the round.",
        `${c.filled()} of 5 registers filled.`,
      ],
      past: () => c.submitted(),
      done: () => c.complete(),
      targets: () => all("[data-testid=program] .registers"),
      keep: () => all("[data-testid=hand]", "[data-testid=program] .registers"),
    },
    {
      id: "preview",
      title: "Check the path",
      text: () => preview()
        ? [
          "The light blue path on the board shows where your cards take your robot: a see-through robot with a number marks where it ends after each register. Does it reach the checkpoint, or fall into a pit (a red ✕)?",
          "It cannot know what the other robot will do: a push or a laser can still change the round.",
        ]
        : [
          "Before you lock in, follow your program on the board: start from your robot's arrow and count the spaces each card moves it.",
          "Watch out for pits and the board's edge (your robot would reboot), and for belts that carry it at the end of each register.",
        ],
      past: () => c.submitted(),
      targets: () => (preview() ? [preview()] : board()),
      keep: () => all("[data-testid=program] .registers", "[data-testid=submit-program]"),
    },
    {
      id: "lockin",
      title: "Lock in",
      text: () => [
        "Happy with your program? Press Lock in. When every robot has locked in, the registers play one by one.",
        c.complete() ? "" : "Fill every register first (the button counts them).",
      ],
      past: () => c.submitted(),
      done: () => c.submitted(),
      targets: () => all("[data-testid=submit-program]"),
      keep: () => all("[data-testid=submit-program]", "[data-testid=program] .registers", "[data-testid=hand]"),
    },
    {
      id: "activation",
      title: "The registers play",
      text: () => [
        "Register by register, every robot reveals its card and moves: first the player with the priority token (see the panels), then the others.",
        "Then the board moves: blue and green belts carry robots, push panels push and gears turn them. " +
          "Then lasers fire (the board's, and every robot's main laser straight ahead): each hit is a damage card, usually SPAM. " +
          "Last, a robot on a battery gains energy and a robot on its next checkpoint claims it.",
        "The strip in the panel shows each register's cards. Speed and Skip are at the top.",
      ],
      done: () => c.roundOver(),
      targets: () => [...board(), ...all("[data-testid=register-strip]")],
      keep: () => all("[data-testid=decision] [data-testid=choice]"),
    },
    {
      id: "recap",
      title: "What happened",
      text: () => c.recap(),
      targets: () => all(".players-box"),
    },
    {
      id: "race",
      title: "Now finish the race",
      text: () => [
        "That was one round. From now on it is the same each round: the upgrade phase, then nine cards and five registers.",
        "Race the Beginner bot to checkpoint 2. The guide steps aside, and says a word when something new happens to your robot.",
      ],
      targets: board,
      next: "Let's race",
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
    this.next = h("button.primary.small", { type: "button", "data-testid": "coach-next", onclick: () => this.press() }, "Next");
    this.closeBtn = h("button.icon.coach-close", {
      type: "button", "data-testid": "coach-close", title: "Close the guide", "aria-label": "Close the guide",
      onclick: () => this.close(),
    }, "×");
    this.count = h("span.coach-count", { "data-testid": "coach-count" });
    this.titleEl = h("h2.coach-title", { id: "coach-title" });
    this.body = h("div.coach-body", { "data-testid": "coach-body" });
    this.el = h("aside.coach", { "data-testid": "coach", role: "region", "aria-labelledby": "coach-title", "aria-live": "polite", hidden: true },
      h("div.coach-head", null, h("span.coach-badge", null, "Guided race"), this.count, this.closeBtn),
      this.titleEl, this.body,
      h("div.coach-actions", null, this.next));
    document.body.append(this.el);
    document.body.classList.add("coach-on");
    if (Array.isArray(this.game.eventWatchers)) this.game.eventWatchers.push((e, instant) => this.onEvent(e, instant));
    this.timer = setInterval(() => this.tick(), POLL_MS);
    window.addEventListener("resize", () => this.position());
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
    return this.game.seat === null || this.game.seat === undefined ? "yours" : this.game.name(this.game.seat);
  }

  botName() {
    const st = this.st || this.game.latest;
    const bot = st && st.seats.find((s) => s.kind === "bot");
    return bot ? bot.name : "the other robot";
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
    const where = p ? `Your panel shows ⚑ ${p.checkpoint}/${this.checkpoints()}: the checkpoints your robot has claimed.` : "";
    if (!lines.length) {
      lines.push(
        "Nothing hit your robot this round. A robot hit by a laser takes damage cards, usually SPAM: programmed in a register, a SPAM is thrown away and the top card of your deck plays instead.",
        "A robot that falls into a pit or off the edge reboots: it misses the rest of the round, you take 2 damage, and it comes back on the reboot token (the purple space with an arrow).",
      );
    }
    return [...lines, where, "The game log in the side panel tells every step in words."];
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

  advance() {
    if (this.note) {
      this.note = null;
      this.render();
      return;
    }
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
      title = won ? "You won your first race!" : "Race over";
      lines = [
        won ? "Well driven: your robot claimed every checkpoint first." : "Well done for finishing your first race.",
        "Back in the lobby you can race more bots (Casual, Strong, Expert), invite friends with a link, and try the other courses.",
        "The guide is always there under “Learn to play” in the lobby.",
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
    this.count.textContent = numbered ? `Step ${this.index + 1} of ${this.steps.length}` : "";
    this.titleEl.textContent = title;
    const paras = lines.filter(Boolean);
    const text = paras.join("\n");
    if (this.body.dataset.text !== text) {
      this.body.dataset.text = text;
      fill(this.body, paras.map((t) => h("p", null, t)));
    }
    this.next.textContent = this.note ? "OK" : s ? s.next || "Next" : "Close";
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
      : [["bottom-right", W - box.width - gap, low], ["bottom-left", gap, low], ["top-left", gap, below]];
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
