// The replay viewer: step through a finished game register by register.

import { Animator } from "./anim.js";
import { api, cardCatalogue, courseSummary } from "./api.js";
import { BoardView } from "./board.js";
import { setCatalogue } from "./cards.js";
import { setCardEdition } from "./cardview.js";
import { refusalText } from "./errors.js";
import { revealBox, seenCommitment } from "./fair.js";
import { prettyResult, speedControl } from "./game.js";
import { icon } from "./icons.js";
import { botTitle } from "./bots.js";
import { LogView } from "./logview.js";
import { playerPanels } from "./panels.js";
import { seatName } from "./seats.js";
import { legendBox, rulesLink, SpaceIndex, SpaceInfo } from "./spaceinfo.js";
import { languageSwitcher, t, titleOf } from "./i18n.js";
import { fill, h, numParam, store } from "./util.js";

/** Split the events into steps: setup, then per round its programming and each register. */
export function replaySteps(events) {
  const steps = [];
  for (let i = 0; i < events.length; i++) {
    const e = events[i];
    const last = steps[steps.length - 1];
    if (last && last.round === e.round && last.register === e.register) {
      last.end = i + 1;
    } else {
      steps.push({ round: e.round, register: e.register, start: i, end: i + 1 });
    }
  }
  for (const st of steps) {
    const round = t("game.round_n", { n: st.round });
    st.label = st.round === 0 ? t("game.stage.setup")
      : `${round} · ${st.register === 0 ? t("game.stage.programming") : t("game.register_n", { n: st.register })}`;
  }
  return steps;
}

export class ReplayScreen {
  constructor(root, gameId) {
    this.root = root;
    this.gameId = gameId;
    this.current = -1;
    this.playing = false;
    this.speed = numParam("speed", store.get("speed", 1));
  }

  async start() {
    document.body.classList.add("in-game");
    fill(this.root, h("p.loading", null, t("replay.loading")));
    let data;
    try {
      data = await api.replay(this.gameId);
    } catch (error) {
      fill(this.root, h("div.panel.narrow", null, h("h2", null, t("replay.none")), h("p", null, refusalText(error.code, error.message)), h("a.button.primary", { href: "/" }, t("game.to_lobby"))));
      return;
    }
    this.data = data;
    setCatalogue(await cardCatalogue(data.settings.edition || "2023"));
    setCardEdition(data.settings.edition);
    this.names = Object.fromEntries(data.seats.map((s) => [s.seat, seatName(s.seat, s.name)]));
    this.steps = replaySteps(data.events);
    let title = titleOf("course", data.settings.course);
    try {
      const o = await api.options();
      this.options = o;
      const c = await courseSummary(data.settings.course, o);
      title = titleOf("course", data.settings.course, c && c.title);
    } catch {
      /* keep the id */
    }
    document.title = t("replay.page_title", { course: title });
    this.board = new BoardView(data.board, { course: data.settings.course, title, variants: data.settings.variants || [], edition: data.settings.edition });
    this.logView = new LogView((s) => this.names[s] ?? t("common.robot_n", { n: s + 1 }));
    this.logView.classic = String(data.settings.edition || "").startsWith("classic");
    this.anim = new Animator(this.board, {
      onEvent: (e) => this.logView.event(e),
      name: (s) => this.names[s],
    });
    this.anim.speed = this.speed;
    this.build(title);
    await this.board.ready;
    fill(this.boardArea, this.board.el);
    this.board.fit();
    const index = new SpaceIndex(data.board, data.settings.edition, data.settings.variants || []);
    this.spaceInfo = new SpaceInfo(this.board, { index, robots: (x, y) => this.board.robotsOn(x, y) });
    fill(this.legendSlot, legendBox(index, this.board.cell));
    this.jump(0);
  }

  build(title) {
    this.stepLabel = h("span.phase", { "data-testid": "replay-step" }, "");
    this.slider = h("input.scrub", { type: "range", min: 0, max: Math.max(0, this.steps.length - 1), value: 0, "aria-label": t("replay.step"), "data-testid": "replay-slider" });
    this.slider.addEventListener("input", () => this.jump(Number(this.slider.value)));
    const btn = (label, title, fn, testid) => h("button.ctrl", { type: "button", title, "aria-label": title, onclick: fn, "data-testid": testid }, label);
    this.playBtn = btn(icon("play"), t("replay.play"), () => this.toggle(), "replay-play");
    const speed = speedControl(this.speed || 1, (v) => {
      this.speed = v;
      store.set("speed", v);
      this.anim.speed = v;
    });
    const o = this.data.outcome || {};
    this.boardArea = h("section.board-area", null, h("p.loading", null, t("game.loading_board")));
    this.playersEl = h("div.players-box");
    this.counter = h("span.dim.counter", null, "");
    const controls = h("div.replay-controls", null,
      h("div.ctrl-row", null,
        btn(icon("first"), t("replay.first"), () => this.jump(0), "replay-first"),
        btn(icon("prev"), t("replay.previous"), () => this.jump(Math.max(0, this.current - 1)), "replay-prev"),
        this.playBtn,
        btn(icon("next"), t("replay.next"), () => this.next(), "replay-next"),
        btn(icon("last"), t("replay.last"), () => this.jump(this.steps.length - 1), "replay-last")),
      this.slider, this.counter);
    const settings = this.data.settings || {};
    const shown = seenCommitment(this.gameId); // the one this browser saw while it ran (fair.js)
    const fair = settings.seed && settings.seed_commitment
      ? h("div.fair-box", null,
        revealBox({ seed: settings.seed, commitment: shown || settings.seed_commitment, late: !shown, chosen: !!settings.seed_chosen, record: `roborally-${this.gameId}.rec` }))
      : null;
    const tray = h("section.tray", { "data-testid": "replay" },
      h("div.tray-head", null, h("h2", null, t("lobby.replay"))),
      h("p.result-line", { "data-testid": "replay-result" }, prettyResult(o, [], settings.edition)),
      controls,
      h("div.program-actions", null,
        h("a.button.ghost", { href: api.recordUrl(this.gameId), download: "" }, t("game.download_record")),
        h("a.button.ghost", { href: "/" }, t("replay.lobby"))),
      fair);
    const logBox = h("details.log-box", { open: window.innerWidth > 760 }, h("summary", null, t("game.log")), this.logView.el);
    this.legendSlot = h("div.legend-slot");
    fill(this.root, h("div.game-screen.replay-screen", null,
      h("header.topbar", null,
        h("a.brand", { href: "/", title: t("game.to_lobby") }, h("span.logo", { "aria-hidden": "true" }, "◆"), h("span.brand-text", null, "RoboRally")),
        h("div.gameinfo", null, h("span.gtitle", null, t("replay.title", { course: title })), this.stepLabel),
        h("div.anim-controls", null, speed, h("button.skip", { type: "button", onclick: () => this.anim.skip() }, icon("skip"), t("game.skip"))),
        rulesLink(settings.edition, "", t("game.rules"), { "data-testid": "rules", title: t("game.rules_title") }),
        languageSwitcher()),
      h("main.game-main", null, this.boardArea, tray, h("aside.side", null, this.playersEl, logBox, this.legendSlot))));
  }

  /** Show the game as it was at the end of step k (no animation). */
  jump(k) {
    this.stop();
    this.anim.queue.length = 0;
    this.anim.skip();
    k = Math.max(0, Math.min(this.steps.length - 1, k));
    const end = this.steps[k] ? this.steps[k].end : 0;
    const logStart = Math.max(0, end - 400);
    this.current = k;
    // Robots: every event up to the end of the step, instantly; the log: the last few hundred.
    this.anim.enqueue({
      fn: async () => {
        for (const seat of this.data.seats) this.board.hide(seat.seat);
        this.logView.clear();
        const saved = this.anim.hooks.onEvent;
        this.anim.hooks.onEvent = (e) => e.i >= logStart && this.logView.event(e);
        try {
          await this.anim.play(this.data.events.slice(0, end), true);
        } finally {
          this.anim.hooks.onEvent = saved;
        }
        this.show();
      },
    });
  }

  /** Animate the next step. */
  async next() {
    if (this.current >= this.steps.length - 1) {
      this.stop();
      return false;
    }
    if (this.anim.busy) {
      this.anim.skip();
      await this.anim.idle();
      if (this.current >= this.steps.length - 1) return false;
    }
    const step = this.steps[this.current + 1];
    this.current += 1;
    this.stepLabel.textContent = step.label;
    await new Promise((resolve) => {
      this.anim.enqueue({ events: this.data.events.slice(step.start, step.end), instant: false });
      this.anim.enqueue({ fn: () => { this.show(); resolve(); } });
    });
    return true;
  }

  toggle() {
    if (this.playing) this.stop();
    else this.play();
  }

  async play() {
    if (this.current >= this.steps.length - 1) this.jump(0);
    this.playing = true;
    this.playBtn.replaceChildren(icon("pause"));
    this.playBtn.title = t("replay.pause");
    while (this.playing) {
      const more = await this.next();
      if (!more) break;
      await new Promise((r) => setTimeout(r, this.speed > 0 ? 250 / this.speed : 0));
    }
    this.stop();
  }

  stop() {
    this.playing = false;
    if (this.playBtn) {
      this.playBtn.replaceChildren(icon("play"));
      this.playBtn.title = t("replay.play");
    }
  }

  /** Panels and labels for the current step, from the nearest frame plus the step's events. */
  show() {
    const step = this.steps[this.current];
    if (!step) return;
    this.stepLabel.textContent = step.label;
    this.slider.value = String(this.current);
    this.counter.textContent = t("replay.counter", { n: this.current + 1, total: this.steps.length });

    const end = step.end;
    const frames = this.data.frames;
    let frame = frames[0];
    for (const f of frames) if (f.event <= end) frame = f;
    const obs = structuredClone(frame.observation);
    const damage = {};
    for (let i = 0; i < end; i++) {
      const e = this.data.events[i];
      if (e.kind === "damaged") damage[e.seat] = (damage[e.seat] || 0) + 1;
      if (i < frame.event) continue;
      const p = obs.players.find((x) => x.seat === e.seat);
      if (!p) continue;
      if (e.kind === "energy_gained") p.energy += e.amount || 1;
      if (e.kind === "checkpoint_reached") p.checkpoint = Math.max(p.checkpoint, e.amount || 0);
      if (e.kind === "card_revealed" && e.register >= 1 && p.registers[e.register - 1]) {
        p.registers[e.register - 1] = { cards: [e.card], count: 1, revealed: true, locked: false, facedown_haywire: false };
      }
    }
    if (step.register > 0) obs.register = step.register;
    const seats = this.data.seats.map((s) => ({ ...s, taken: true, connected: true, ready: true, auto: false }));
    const live = Object.fromEntries(seats.map((s) => [s.seat, { damage: damage[s.seat] || 0 }]));
    fill(this.playersEl, playerPanels({
      obs, seats, me: null, hostSeat: null, live,
      checkpoints: this.data.board.checkpoints.length, timers: [],
      waiting: new Set(), currentRegister: step.register,
      botTitle: (id) => botTitle(this.options, id),
    }));
  }
}
