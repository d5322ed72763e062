// The game screen: waiting room, programming, decisions, the animated activation and the result.

import { Animator } from "./anim.js";
import { api, cardCatalogue, courseSummary } from "./api.js";
import { BoardView } from "./board.js";
import { cardEl, setCatalogue } from "./cards.js";
import { ChatPanel } from "./chat.js";
import { setCardEdition } from "./cardview.js";
import { decisionControls, GUARD_MS } from "./decisions.js";
import { refusalText } from "./errors.js";
import { chosenSeedWarning, commitmentNote, rememberCommitment, revealBox, seenCommitment } from "./fair.js";
import { GameSocket } from "./net.js";
import { playerPanels, registersRow } from "./panels.js";
import { answeredByBox, ProgramEditor } from "./program.js";
import { PathPreview } from "./preview.js";
import { copyText, fill, h, inviteUrl, keepSeatToken, linked, numParam, store, toast } from "./util.js";
import { seatChip, seatDot, seatName } from "./seats.js";
import { icon } from "./icons.js";
import { botTitle } from "./bots.js";
import { variantInfo } from "./variants.js";
import { LogView } from "./logview.js";
import { notifyOn, setNotify, yourTurnAlert } from "./notify.js";
import { legendBox, rulesLink, SpaceIndex, SpaceInfo } from "./spaceinfo.js";
import { hasText, languageSwitcher, t, titleOf } from "./i18n.js";

// The stage of the round an observation names, as the phase line shows it (game.stage.*).
const STAGES = {
  setup: "setup", place: "setup", competitive: "setup", round_start: "round_start",
  upgrade: "upgrade", draw: "programming", program: "programming", shutdown: "programming",
  reveal: "activation", turns: "activation", board: "activation", end_round: "round_end",
  // the classic editions' stages (docs/rules-classic.md)
  emergency: "round_start", power_down: "round_start", deal: "programming", recompile: "programming",
  first_card: "programming", announce: "programming", move: "activation", elements: "activation",
  lasers: "activation", touch: "activation", cleanup: "round_end", store: "round_end",
  stay_down: "round_end", reenter: "round_end",
};
const stageName = (stage) => (STAGES[stage] ? t("game.stage." + STAGES[stage]) : stage.replace(/_/g, " "));

export const SPEEDS = [
  { value: 0.5, label: "½×" }, { value: 1, label: "1×" }, { value: 2, label: "2×" },
  { value: 4, label: "4×" }, { value: 0, label: null },
];

/** The cards in a player's own registers (register number -> card), as its owner sees them. */
function ownProgram(own) {
  const cards = {};
  ((own && own.registers) || []).forEach((reg, i) => {
    if (Array.isArray(reg.cards) && reg.cards.length === 1) cards[i + 1] = reg.cards[0];
  });
  return cards;
}

/** The speed menu shared by the game and the replay screens. */
export function speedControl(current, onChange) {
  const select = h("select.speed-select", {
    "aria-label": t("game.speed_label"), "data-testid": "speed",
    onchange: () => onChange(parseFloat(select.value)),
  });
  const values = SPEEDS.map((s) => s.value);
  const options = values.includes(current) ? SPEEDS : [...SPEEDS, { value: current, label: current + "×" }];
  for (const s of options) select.append(h("option", { value: String(s.value), selected: s.value === current }, s.label ?? t("game.speed_instant")));
  return h("label.speed", null, h("span.speed-label", null, t("game.speed")), select);
}

/** An idle or decision deadline of the player's own decision is shown this close to its end. */
const IDLE_WARNING_SECONDS = 30;

export function fmtTime(seconds) {
  const s = Math.max(0, Math.ceil(seconds));
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`;
}

export class GameScreen {
  constructor(root, { gameId, token, invite }) {
    this.root = root;
    this.gameId = gameId;
    this.token = token || null;
    this.invite = this.token ? null : invite || null; // a seat's invite, until it is used
    this.welcome = null;
    this.state = null; // the state shown (applied after the animation before it)
    this.latest = null; // the newest state received
    this.nextEvent = 0;
    this.sawState = false;
    this.lastStateEvents = -1;
    this.live = {};
    this.skew = 0;
    this.editor = null;
    this.decisionId = null;
    this.decisionCleanup = null;
    this.resultShown = false;
    this.currentRegister = 0;
    this.sends = new Map();
    // Answers sent and not acknowledged yet (message id -> the decide's fields): a new welcome
    // (a reconnect, or the game moved to another server process) says them again, since they
    // may have been lost on the way (a duplicate only gets a harmless not_pending).
    this.unacked = new Map();
    this.answered = new Set(); // decision ids this page has answered
    this.revealSlots = []; // where the revealed seed and its check are shown
    this.welcomeCommitment = null; // the commitment this page's first welcome showed
    this.shownCommitment = null; // the one shown before the game ended (kept: fair.js)
    this.eventWatchers = []; // (event, instant) => void, told of every event shown (the guide)
    this.speed = numParam("speed", store.get("speed", 1));
    this.build();
  }

  build() {
    this.phaseEl = h("span.phase", { "data-testid": "phase" }, t("game.connecting"));
    this.titleEl = h("span.gtitle", null, "RoboRally");
    this.timerEl = h("span.timer", { hidden: true, "data-testid": "timer", role: "timer" });
    this.connEl = h("span.conn", { title: t("game.conn.title") });
    // Its word goes on a phone (style.css), where the bar's room is the phase's: the title stays.
    this.skipBtn = h("button.skip", { type: "button", "data-testid": "skip", title: t("game.skip"), "aria-label": t("game.skip"), onclick: () => this.anim && this.anim.skip() },
      icon("skip"), h("span.skip-text", null, t("game.skip")));
    const speed = speedControl(this.speed, (v) => {
      this.speed = v;
      store.set("speed", v);
      if (this.anim) this.anim.speed = v;
    });
    this.banner = h("div.conn-banner", { hidden: true, "data-testid": "conn-banner", role: "alert" });
    this.backBtn = h("button.primary.small", { type: "button", "data-testid": "back", onclick: () => this.comeBack() }, t("game.back"));
    this.autoBanner = h("div.auto-banner", { hidden: true, "data-testid": "auto-banner", role: "alert" },
      h("span", null, t("game.auto_banner")), this.backBtn);
    // This seat is open in another tab or on another device too: its holder may close those.
    // Nobody is at the table: the game waits for its players (its clocks stand still).
    this.pausedBanner = h("div.auto-banner.paused-banner", { hidden: true, "data-testid": "paused-banner", role: "status" },
      t("game.paused"));
    this.devicesText = h("span", { "data-testid": "devices-text" });
    this.devicesBanner = h("div.auto-banner.devices-banner", { hidden: true, "data-testid": "devices-banner", role: "status" },
      this.devicesText, h("button.small", { type: "button", "data-testid": "close-others", onclick: () => this.closeOthers() }, t("game.close_others")));
    // On a phone the bar keeps to one row: the rarer controls (rules, sound, language and the
    // tools a11y.js adds) fold into this menu there (style.css); a wide screen shows them all.
    this.menuBtn = h("button.icon.top-menu", {
      type: "button", "data-testid": "top-menu", "aria-expanded": "false",
      title: t("game.more_controls"), "aria-label": t("game.more_controls"), onclick: () => this.toggleMenu(),
    }, "⋯");
    const top = this.topbar = h("header.topbar.folds", null,
      h("a.brand", { href: "/", title: t("game.to_lobby") }, h("span.logo", { "aria-hidden": "true" }, "◆"), h("span.brand-text", null, "RoboRally")),
      h("div.gameinfo", null, this.titleEl, this.phaseEl),
      this.timerEl,
      h("div.anim-controls", null, speed, this.skipBtn),
      this.rulesEl = rulesLink("2023", "", t("game.rules"), { "data-testid": "rules", title: t("game.rules_title") }),
      this.notifyBtn = h("button.icon.notify-toggle", { type: "button", "data-testid": "notify-toggle", onclick: () => this.toggleNotify() }),
      languageSwitcher(),
      this.menuBtn,
      this.connEl,
    );
    document.addEventListener("pointerdown", (e) => {
      if (!top.contains(e.target)) this.toggleMenu(false); // a tap elsewhere closes the menu
    });
    this.boardArea = h("section.board-area", { "aria-label": t("game.board") }, h("p.loading", null, t("game.loading_board")));
    this.tray = h("section.tray", { "aria-label": t("game.controls"), "data-testid": "tray" });
    this.playersEl = h("div.players-box");
    this.logView = new LogView((s) => this.name(s));
    const logBox = h("details.log-box", { open: window.innerWidth > 760 }, h("summary", null, t("game.log")), this.logView.el);
    this.infoBody = h("div.info-body");
    const infoBox = h("details.info-box", { "data-testid": "game-info" }, h("summary", null, t("game.about")), this.infoBody);
    this.legendSlot = h("div.legend-slot");
    this.side = h("aside.side", null, this.playersEl, logBox, this.legendSlot, infoBox);
    this.main = h("main.game-main", null, this.boardArea, this.tray, this.side);
    this.chat = new ChatPanel({ send: (type, fields) => this.sock.send(type, fields), gameId: this.gameId });
    this.side.insertBefore(this.chat.el, this.playersEl.nextSibling);
    this.renderNotify();
    fill(this.root, h("div.game-screen", null, top, h("div.banners", null, this.banner, this.autoBanner, this.devicesBanner, this.pausedBanner), this.main));
    document.body.classList.add("in-game");
  }

  /** Open or close the top bar's menu (a phone's folded controls). */
  toggleMenu(open = !this.topbar.classList.contains("menu-open")) {
    this.topbar.classList.toggle("menu-open", open);
    this.menuBtn.setAttribute("aria-expanded", String(open));
  }

  start() {
    this.sock = new GameSocket({
      gameId: this.gameId,
      token: this.token,
      invite: this.invite,
      speed: () => this.speed,
      since: () => this.nextEvent,
      name: () => this._rename || null,
      onMessage: (m) => this.onMessage(m),
      onStatus: (s) => this.onStatus(s),
    });
    this.sock.connect();
    this.clock = setInterval(() => this.tick(), 250);
    window.rrGame = this; // for debugging and tests
  }

  // -------------------------------------------------------------- messages
  onStatus(status) {
    this.connEl.className = "conn " + status;
    this.connEl.title = t(["online", "connecting", "reconnecting"].includes(status) ? "game.conn." + status : "game.conn.offline");
    const lobby = h("a", { href: "/" }, t("game.lobby_link"));
    const again = (label) => h("button.small", { type: "button", "data-testid": "reconnect", onclick: () => this.sock.retryNow() }, label);
    const show = (...parts) => {
      this.banner.hidden = false;
      fill(this.banner, ...parts);
    };
    if (status !== "online") this.devicesBanner.hidden = true; // told again once back online
    if (status === "online") {
      this.banner.hidden = true;
      this.sawState = false;
    } else if (status === "reconnecting") {
      show(t("game.conn.lost"));
    } else if (status === "replaced") {
      show(refusalText("replaced"), " ", again(t("game.play_here")));
    } else if (status === "busy") {
      show(refusalText("too_many_connections"), " ", t("game.conn.retrying"), " ", again(t("game.try_now")));
    } else if (status === "full") {
      const mine = (this.sock.fatal || {}).code === "too_many_spectators"; // this network's tabs
      show(refusalText(mine ? "too_many_spectators" : "server_full", "", "watch"), " ", again(t("game.try_again")));
    } else if (status === "refused") {
      const fatal = this.sock.fatal || {};
      const link = (text, href) => h("a", { href }, text);
      if (fatal.code === "unknown_game") {
        show(refusalText("unknown_game", fatal.message), " ", ...linked(t("game.go_to_lobby"), { lobby: () => lobby }));
      } else {
        const code = ["invite_used", "bad_invite", "signed_out"].includes(fatal.code) ? fatal.code : "bad_token";
        show(refusalText(code), " ", ...linked(t("game.watch_instead"), {
          watch: (text) => link(text, `/?game=${encodeURIComponent(this.gameId)}`),
          lobby: () => lobby,
        }));
      }
    }
  }

  onMessage(msg) {
    if (this.chat.onMessage(msg)) return; // chat, emotes and rematch (chat.js)
    switch (msg.type) {
      case "welcome":
        this.onWelcome(msg);
        break;
      case "events":
        this.onEvents(msg);
        break;
      case "state":
        this.onState(msg);
        break;
      case "game_over":
        this.reveal = { seed: msg.seed, commitment: msg.seed_commitment };
        for (const slot of this.revealSlots) if (slot.isConnected) fill(slot, this.revealEl());
        if (this.anim) this.anim.enqueue({ fn: () => this.showResult(msg.outcome) });
        break;
      case "ack":
        this.onAck(msg);
        break;
      case "preview":
        if (this.preview) this.preview.onReply(msg);
        break;
      case "error":
        this.onError(msg);
        break;
      default:
        break;
    }
  }

  onAck(msg) {
    this.sends.delete(msg.ref);
    this.unacked.delete(msg.ref);
    if (msg.for === "close_others" && msg.token) {
      this.adoptToken(msg.token);
      toast(t("game.closed_others"));
    }
    if (msg.for === "invite" && msg.invite) {
      const codes = store.get("invites." + this.gameId, {}) || {};
      codes[msg.seat] = msg.invite;
      store.set("invites." + this.gameId, codes);
      if (this.state) this.renderTray();
    }
    if (msg.for === "decide" && msg.decision_id) {
      // Saved by the server: the half-made program kept for a reload is not needed any more.
      try {
        sessionStorage.removeItem(`rr.draft.${this.gameId}.${msg.decision_id}`);
      } catch {
        /* ignore */
      }
    }
  }

  /** "I'm back": take the seat back from auto-play. */
  comeBack() {
    if (this.sock.send("back") === null) {
      toast(t("game.not_connected"), "error");
      return;
    }
    this.backBtn.disabled = true;
    this.backBtn.textContent = t("game.taking_over");
  }

  /** The seat's own token from now on (an invite's welcome, or "close the others"). */
  adoptToken(token) {
    this.token = token;
    this.invite = null;
    this.sock.opts.token = token;
    this.sock.opts.invite = null;
    keepSeatToken(this.gameId, this.seat, token);
  }

  /** Close this seat's other tabs and devices: the seat gets a new token, for this page only. */
  closeOthers() {
    if (this.sock.send("close_others") === null) toast(t("game.not_connected"), "error");
  }

  /** How many other places hold this seat (the server tells only the seat's own pages). */
  renderDevices(st) {
    const others = (st.devices || 0) - 1;
    this.devicesBanner.hidden = !(others > 0);
    if (others > 0) this.devicesText.textContent = t("game.other_devices", { count: others });
  }

  /** The auto-play banner: shown while the game plays this (connected) seat. */
  renderAuto(st) {
    const mine = this.seat !== null && this.seat !== undefined && st.seats.find((s) => s.seat === this.seat);
    const auto = !!(mine && mine.auto) && st.status === "running";
    if (!auto || this.autoBanner.hidden) {
      this.backBtn.disabled = false;
      this.backBtn.textContent = t("game.back");
    }
    this.autoBanner.hidden = !auto;
  }

  onWelcome(msg) {
    if (this.welcome) this.sendUnackedAgain();
    this.welcome = msg;
    this.welcomeCommitment = this.welcomeCommitment || msg.settings.seed_commitment || null;
    this.seat = msg.seat;
    if (msg.token) this.adoptToken(msg.token); // the invite's seat is this page's now
    this.role = msg.role;
    this.skew = msg.server_time - Date.now() / 1000;
    const course = msg.settings.course;
    this.edition = msg.settings.edition || "2023";
    setCardEdition(this.edition);
    this.rulesEl.href = rulesLink(this.edition, "").getAttribute("href");
    this.logView.classic = String(msg.settings.edition || "").startsWith("classic");
    this.cardsReady = cardCatalogue(msg.settings.edition || "2023").then((cards) => {
      setCatalogue(cards);
      if (this.state) this.renderPlayers();
    });
    this.titleEl.textContent = titleOf("course", course);
    this.renderInfo(null);
    api.options().then(async (o) => {
      this.options = o;
      const c = await courseSummary(course, o);
      if (c) {
        this.courseInfo = c;
        const title = titleOf("course", c.id, c.title);
        this.titleEl.textContent = title;
        this.baseTitle = t("game.page_title", { course: title });
        this.updateTurnNotice();
      }
      this.renderInfo(o);
      if (this.state) this.renderPlayers();
    }).catch(() => {});
    if (!this.board) {
      this.board = new BoardView(msg.board, { course, title: titleOf("course", course), variants: msg.settings.variants, edition: msg.settings.edition });
      this.anim = new Animator(this.board, {
        onEvent: (e, instant) => this.onEvent(e, instant),
        onBusy: () => this.root.classList.add("animating"),
        onIdle: () => this.root.classList.remove("animating"),
        name: (s) => this.name(s),
      });
      this.anim.speed = this.speed;
      this.preview = new PathPreview(this.board, (type, fields) => this.sock.send(type, fields), (id) => `rr.facing.${this.gameId}.${id}`);
      const index = new SpaceIndex(msg.board, this.edition, msg.settings.variants);
      this.board.ready.then(() => {
        fill(this.boardArea, this.board.el);
        this.board.fit();
        if (this.seat !== null) this.board.setMine(this.seat);
        this.spaceInfo = new SpaceInfo(this.board, {
          index,
          robots: (x, y) => this.board.robotsOn(x, y).map((r) => ({ ...r, you: r.seat === this.seat })),
        });
        fill(this.legendSlot, legendBox(index, this.board.cell));
      });
    }
    if (this.token && this.seat !== null) {
      const mine = store.get("mine", []);
      if (!mine.some((g) => g.game === this.gameId && g.seat === this.seat)) {
        mine.unshift({ game: this.gameId, seat: this.seat, token: this.token, course, at: Date.now() });
        store.set("mine", mine.slice(0, 20));
      }
    }
  }

  onEvents(msg) {
    if (!this.anim) return;
    if (!this.latest) {
      // Before the first state the names are not known: keep the history until it comes.
      this.early = (this.early || []).concat([msg]);
      return;
    }
    if (msg.first > this.nextEvent) {
      this.sock.send("sync", { since: this.nextEvent });
      return;
    }
    const events = msg.events.filter((e) => e.i >= this.nextEvent);
    if (!events.length) return;
    this.nextEvent = events[events.length - 1].i + 1;
    this.closeEditorIfLocked(events);
    const instant = !this.sawState || msg.next <= this.lastStateEvents;
    this.anim.enqueue({ events, instant });
  }

  /** This seat's program is locked in (by the player, or by the game as its time ran out or it
   * plays for them): close the editor at once, before the round's animation, so nobody keeps
   * programming over positions that are already out of date. */
  closeEditorIfLocked(events) {
    const editor = this.editor;
    if (!editor) return;
    const round = this.editorRound;
    const revealed = {};
    for (const e of events) {
      if (e.kind === "card_revealed" && e.seat === this.seat && e.round === round && !e.cause && e.register >= 1) {
        revealed[e.register] = e.card;
      }
    }
    if (editor.closed) {
      editor.reveal(revealed);
      return;
    }
    if (!events.some((e) => e.kind === "programmed" && e.seat === this.seat && e.round === round)) return;
    if (this.preview) this.preview.stop(); // the board is about to move: no more ghosts
    if (editor.sending) {
      editor.close(t("game.locked_in_note"), revealed);
      return;
    }
    const timer = ((this.latest && this.latest.timers) || []).find((t) => t.seat === this.seat && t.decision_id === editor.decision.id && t.reason === "timer");
    const notice = timer && timer.deadline - this.now() < 1
      ? t("game.time_up_note")
      : t("game.locked_by_game_note");
    this.answered.add(editor.decision.id);
    this.tray.classList.remove("your-turn");
    editor.close(notice, revealed, true);
    this.lockedByGame = { round, editor };
    if (this.latest && this.latest.observation) {
      editor.reveal(ownProgram(this.latest.observation.players.find((p) => p.seat === this.seat)));
    }
    this.updateTurnNotice();
  }

  onState(msg) {
    this.latest = msg;
    if (!this.shownCommitment && (msg.status === "open" || msg.status === "running")) {
      // The game has not ended: the commitment it showed is the one the seed must match.
      this.shownCommitment = rememberCommitment(this.gameId, this.welcomeCommitment);
    }
    const early = this.early || [];
    this.early = [];
    early.forEach((m) => this.onEvents(m));
    this.skew = msg.server_time - Date.now() / 1000;
    this.sawState = true;
    this.lastStateEvents = msg.event_count;
    this.renderAuto(msg);
    this.renderDevices(msg);
    this.pausedBanner.hidden = !(msg.paused_since && msg.status === "running");
    this.tick();
    if (this.state) {
      // Who is still deciding: from this state at once, not after the animation before it.
      this.renderPlayers();
      this.renderWaiting();
    }
    if (this.anim) {
      this.anim.enqueue({
        fn: async () => {
          await this.cardsReady;
          this.applyState(msg);
          this.reportShown(msg);
        },
      });
    }
  }

  /** Fair time: tell the server this page has finished showing the events before the state
   * it just drew, so the clock of a decision that follows them starts only now. */
  reportShown(msg) {
    if (this.seat === null || msg.status !== "running" || !(msg.event_count > (this.shownSent || 0))) return;
    this.shownSent = msg.event_count;
    this.sock.send("shown", { event: msg.event_count, speed: this.speed });
  }

  onError(msg) {
    const pending = this.sends.get(msg.ref);
    this.sends.delete(msg.ref);
    this.unacked.delete(msg.ref);
    const code = msg.code;
    if (code === "not_pending" || code === "hello_required" || code === "hello_timeout") return;
    if (code === "internal_error") {
      this.sock.send("sync", { since: this.nextEvent }); // the server asks clients to resync
      return;
    }
    if (["bad_token", "unknown_game", "token_in_url", "invite_used", "bad_invite", "signed_out"].includes(code)) {
      this.phaseEl.textContent = code === "unknown_game" ? t("game.no_such_game") : t("game.invalid_link");
      return;
    }
    if (["replaced", "too_many_connections", "server_full", "too_many_spectators"].includes(code) && msg.for !== "decide") {
      return; // the socket closes; the banner says why (onStatus)
    }
    if (msg.for === "hello") {
      if (code === "name_taken") {
        toast(refusalText(code, msg.message, "hello"), "error");
        this._rename = null; // keep the name the seat has
        this.nameDraft = undefined;
        this.renderTray();
        this.sock.hello();
      } else if (code === "storage_failed") {
        setTimeout(() => this.sock.hello(), 1000); // the seat could not be saved yet: again
      } else {
        toast(refusalText(code, msg.message, "hello"), "error");
      }
      return;
    }
    if (msg.for === "draft" || msg.for === "preview") return; // courtesies: the next change sends another
    if (msg.for === "back") {
      this.backBtn.disabled = false;
      this.backBtn.textContent = t("game.back");
    }
    const text = refusalText(code, msg.message, msg.for || "");
    if (pending !== undefined || msg.for === "decide") {
      if (pending !== undefined) this.answered.delete(pending);
      if (code === "auto_play" && this.latest) {
        const mine = this.latest.seats.find((s) => s.seat === this.seat);
        if (mine) mine.auto = true;
        this.renderAuto(this.latest);
      }
      // Keep what the player made (the program in its editor, or the question) and let them
      // send it again.
      this.trayNotice = text;
      if (this.editor && this.editor.decision.id === pending) {
        this.editor.failed(text);
        if (this.preview) this.preview.start(this.editor.decision, this.editor.own, this.edition);
        if (this.preview) this.preview.update(this.editor.program());
      } else {
        this.decisionId = null;
        if (this.state) this.renderTray();
      }
      return;
    }
    toast(text, "error");
  }

  now() {
    return Date.now() / 1000 + this.skew;
  }

  name(seat) {
    const st = this.state || this.latest;
    const s = st && st.seats && st.seats.find((x) => x.seat === seat);
    return s ? seatName(seat, s.name) : t("common.robot_n", { n: seat + 1 });
  }

  // ---------------------------------------------------------------- events
  onEvent(e, instant) {
    for (const watch of this.eventWatchers) watch(e, instant);
    if (e.kind === "damaged" && e.seat !== undefined) {
      const l = (this.live[e.seat] = this.live[e.seat] || { damage: 0 });
      l.damage += 1;
      if (!instant) this.bumpStat(e.seat, "damage", l.damage);
    }
    if (e.kind === "register_started") {
      this.currentRegister = e.register;
      if (!instant) {
        showPhase(this.phaseEl, `${t("game.round_n", { n: e.round })} · ${t("game.register_n", { n: e.register })}`);
        this.root.querySelectorAll(".mini-slot.current").forEach((x) => x.classList.remove("current"));
        this.root.querySelectorAll(`.mini-registers .mini-slot:nth-child(${e.register})`).forEach((x) => x.classList.add("current"));
      }
    }
    if (!instant) {
      if (e.kind === "register_started") this.stripStart(e);
      const own = e.kind === "card_revealed" && !e.cause && e.register >= 1; // a register card
      if (own) this.stripCard(e);
      if (own) {
        const slot = this.root.querySelector(`.player[data-seat="${e.seat}"] .mini-slot:nth-child(${e.register})`);
        if (slot) {
          slot.replaceChildren(cardEl(e.card, { small: true }));
          slot.classList.remove("hidden-card");
          slot.classList.add("just-revealed");
        }
      } else if (e.kind === "energy_gained") {
        this.bumpStat(e.seat, "energy", null, e.amount || 1);
      } else if (e.kind === "checkpoint_reached") {
        const total = (this.welcome && this.welcome.board.checkpoints.length) || "?";
        this.bumpStat(e.seat, "checkpoints", `${e.amount}/${total}`);
      }
    }
    this.logView.event(e);
  }

  /** The tray's "Register N" strip: the cards revealed in this register, in turn order. */
  stripStart(e) {
    let strip = this.tray.querySelector(".reg-strip");
    if (!strip) {
      strip = h("div.reg-strip", { "data-testid": "register-strip" });
      this.tray.prepend(strip);
    }
    fill(strip,
      h("div.reg-title", null, h("strong", null, t("game.register_n", { n: e.register })), h("span.dim", null, " ", t("game.strip_of", { total: 5, round: e.round }))),
      h("div.reg-cards"));
  }

  stripCard(e) {
    const row = this.tray.querySelector(".reg-strip .reg-cards");
    if (!row) return;
    row.append(h("div.reg-card", { "data-seat": e.seat },
      cardEl(e.card, { small: true }),
      h("span.reg-who", null, seatDot(e.seat), this.name(e.seat))));
  }

  bumpStat(seat, stat, value, add) {
    const el = this.root.querySelector(`.player[data-seat="${seat}"] [data-stat="${stat}"] .sval`);
    if (!el) return;
    if (add) {
      const n = parseInt(el.textContent, 10);
      el.textContent = String((Number.isFinite(n) ? n : 0) + add);
    } else {
      el.textContent = String(value);
    }
    el.parentElement.classList.remove("bump");
    void el.parentElement.offsetWidth;
    el.parentElement.classList.add("bump");
  }

  // ----------------------------------------------------------------- state
  applyState(st) {
    this.state = st;
    const obs = st.observation;
    if (obs && this.board) this.board.setPlayers(obs.players, Object.fromEntries(st.seats.map((s) => [s.seat, seatName(s.seat, s.name)])));
    if (obs && this.board) this.board.ready.then(() => this.board.showBlocked(obs.round < 1 ? obs.blocked_starts || [] : []));
    if (this.board && this.seat !== null && this.seat !== undefined) this.board.setMine(this.seat);
    if (this.preview) this.preview.redraw(); // the rebooting robot turned the chosen way
    this.currentRegister = obs && obs.register ? obs.register : 0;
    this.renderPhase();
    this.renderPlayers();
    this.renderTray();
    this.root.dataset.status = st.status;
    if (obs) this.root.dataset.stage = obs.stage;
    if (st.outcome && !this.resultShown) this.showResult(st.outcome);
    this.maybeAutoReady(st);
    this.flushReady();
  }

  /** Send the ready state the player asked for, once the seat is connected (after a rename). */
  flushReady() {
    const st = this.latest;
    if (this.wantReady === undefined || !st || st.status !== "open") {
      if (st && st.status !== "open") this.wantReady = undefined;
      return;
    }
    const mine = st.seats.find((s) => s.seat === this.seat);
    if (!mine || !this.welcome) return; // reconnecting (a new name): after the next state
    if (mine.ready === this.wantReady) {
      this.wantReady = undefined;
      return;
    }
    if (this.readySentAt && Date.now() - this.readySentAt < 1500) return; // on its way
    if (this.sock.send("ready", { ready: this.wantReady }) !== null) this.readySentAt = Date.now();
  }

  /** The creator of a game against bots only does not need a waiting room: ready at once. */
  maybeAutoReady(st) {
    if (st.status !== "open" || this.autoReadied || this.seat === null || this.seat === undefined) return;
    const created = store.get("created." + this.gameId, null);
    const humans = st.seats.filter((s) => s.kind === "human");
    const mine = st.seats.find((s) => s.seat === this.seat);
    if (!created || humans.length !== 1 || !mine || mine.ready) return;
    this.autoReadied = true;
    this.sock.send("ready", { ready: true });
  }

  renderPhase() {
    const st = this.state;
    const obs = st.observation;
    let text;
    if (st.status === "open") text = t("game.waiting_room");
    else if (st.status === "finished" || (obs && obs.over)) text = t("game.finished");
    else if (obs) {
      const stage = stageName(obs.stage);
      text = obs.round ? `${t("game.round_n", { n: obs.round })} · ${stage}` : stage;
      if (obs.register && STAGES[obs.stage] === "activation") text += ` · ${t("game.register_n", { n: obs.register })}`;
    } else text = st.status;
    showPhase(this.phaseEl, text);
  }

  renderPlayers() {
    const st = this.state;
    const obs = st.observation;
    // Who is deciding what follows the newest state: the board and the panels' figures follow
    // the animation, which can lag behind (a round still playing after the time ran out).
    const newest = this.latest || st;
    fill(this.playersEl, playerPanels({
      obs,
      newest: newest.observation,
      seats: newest.seats,
      me: this.seat,
      hostSeat: this.hostSeat(),
      live: this.live,
      checkpoints: this.welcome ? this.welcome.board.checkpoints.length : 0,
      timers: newest.timers,
      now: () => this.now(),
      waiting: this.waitingSet(newest),
      currentRegister: obs && STAGES[obs.stage] === "activation" ? obs.register : 0,
      botTitle: (id) => botTitle(this.options, id),
    }));
  }

  /** Seats the game waits for; this seat not once it has answered everything it was asked. */
  waitingSet(st) {
    const obs = st.observation;
    const waiting = new Set(obs ? obs.waiting_for : []);
    if ((st.pending || []).length && st.pending.every((d) => this.answered.has(d.id))) waiting.delete(this.seat);
    return waiting;
  }

  hostSeat() {
    if (this.welcome && this.welcome.host) return this.seat;
    const created = store.get("created." + this.gameId, null);
    if (created) return created.host_seat;
    const st = this.state;
    const first = st && st.seats.find((s) => s.kind === "human");
    return first ? first.seat : null;
  }

  renderTray() {
    const st = this.state;
    if (!st) return;
    this._renderTray(st);
    this.updateTurnNotice();
    const compact = !!this.editor;
    if (document.body.classList.contains("compact-board") !== compact) {
      document.body.classList.toggle("compact-board", compact);
      if (this.board) this.board.fit();
    }
    if (compact && this.board && this.roomFor !== this.editor) {
      // Sized once per program: a board that grew as the hand empties would move the cards.
      this.roomFor = this.editor;
      this.board.leaveRoom(this.tray.offsetHeight);
    }
  }

  _renderTray(st) {
    const obs = st.observation;
    const pending = st.pending || [];
    const decision = pending[0] || null;
    if (decision && decision.id === this.decisionId) return; // keep the open editor
    if (decision && this.answered.has(decision.id) && decision.kind !== "program") {
      // Answered already; the game has not moved on yet (another seat is deciding, or the
      // animation before the next state is still playing).
      if (this.decisionCleanup) this.decisionCleanup();
      this.decisionCleanup = null;
      this.decisionId = null;
      this.tray.classList.remove("your-turn");
      fill(this.tray, this.waitingTray(st, st.observation ? st.observation.players.find((p) => p.seat === this.seat) : null));
      return;
    }
    if (this.decisionCleanup) this.decisionCleanup();
    if (this.decisionId) this.promptGoneAt = performance.now();
    this.decisionCleanup = null;
    this.editor = null;
    if (this.preview) this.preview.stop();
    this.decisionId = null;
    if (st.status === "open") {
      fill(this.tray, this.waitingRoom());
      return;
    }
    if (st.status === "finished" || (obs && obs.over)) {
      fill(this.tray, this.finishedTray(st));
      this.chat.addRematch(this.tray);
      return;
    }
    if (this.seat === null || this.seat === undefined) {
      fill(this.tray, this.spectatorTray(obs));
      return;
    }
    const own = obs ? obs.players.find((p) => p.seat === this.seat) : null;
    const me = st.seats.find((x) => x.seat === this.seat);
    if (me && me.auto) {
      // The game plays this seat (see the banner) until the player says "I'm back".
      this.tray.classList.remove("your-turn");
      fill(this.tray, this.waitingTray(st, own), h("div.auto-note", null,
        h("p.hint", null, t("game.auto_note")),
        h("button.primary", { type: "button", "data-testid": "back-tray", onclick: () => this.comeBack() }, t("game.back"))));
      return;
    }
    if (decision && answeredByBox(decision) && this.plan && this.plan.round === (obs && obs.round) && !this.plan.done) {
      // Answered with the program ("Shut down" box): no extra question.
      this.plan.done = true;
      this.decisionId = decision.id;
      this.decide(decision, !!this.plan.shutdown, false);
      this.tray.classList.remove("your-turn");
      fill(this.tray, this.waitingTray(st, own));
      return;
    }
    if (decision) {
      if (this.noticeFor !== decision.id) this.trayNotice = null;
      this.noticeFor = decision.id;
      const notice = this.trayNotice ? h("p.tray-notice", { role: "alert", "data-testid": "tray-notice" }, this.trayNotice) : null;
      this.decisionId = decision.id;
      if (decision.kind === "program") {
        this.editorRound = obs && obs.round;
        this.editor = new ProgramEditor(decision, own, {
          storageKey: `rr.draft.${this.gameId}.${decision.id}`,
          rules: { edition: this.edition, variants: (this.welcome && this.welcome.settings.variants) || [] },
          onChange: (program) => {
            this.sendDraft(decision.id, program);
            if (this.preview) this.preview.update(program);
          },
          onSubmit: (program) => {
            if (this.preview) this.preview.stop();
            // The box answers the question that follows (none when it was not offered).
            this.plan = this.editor && this.editor.box === "offer" ? { round: obs && obs.round, shutdown: this.editor.shutdown } : null;
            this.decide(decision, program);
          },
        });
        if (this.editor.program().some((c) => c !== null)) this.sendDraft(decision.id, this.editor.program());
        if (this.preview) {
          this.preview.start(decision, own, this.edition);
          this.preview.update(this.editor.program());
        }
        fill(this.tray, this.trayHead(t("game.program_title"), pending.length > 1 ? t("game.more_questions", { count: pending.length - 1 }) : ""), notice,
          this.preview ? this.preview.panel : null, this.editor.el);
      } else {
        const ctl = decisionControls(decision, {
          decide: (d, c) => this.decide(d, c, true),
          board: this.board,
          startSpaces: this.welcome && this.welcome.board.start_spaces,
          ownPlayer: own,
          name: (seat) => this.name(seat),
          // A question that replaces another (answered or gone in the last 2 s) ignores clicks
          // for a moment, so a double click cannot answer it (decisions.js).
          guardMs: performance.now() - (this.promptGoneAt ?? -1e9) < 2000 ? GUARD_MS : 0,
        });
        this.decisionCleanup = ctl.cleanup;
        // The program the game just locked in stays in sight below the next question of its round.
        let locked = null;
        if (this.lockedByGame && this.lockedByGame.round === (obs && obs.round)) {
          this.lockedByGame.editor.reveal(ownProgram(own)); // the owner sees the cards the game chose
          locked = this.lockedByGame.editor.el;
        }
        fill(this.tray, this.trayHead(t("game.your_move")), notice, ctl.el, locked);
      }
      this.tray.classList.add("your-turn");
      return;
    }
    this.tray.classList.remove("your-turn");
    fill(this.tray, this.waitingTray(st, own));
  }

  /** The tab title says "● Your turn" while a question waits for this player (and the sound
   * and buzz, if turned on, once per question). */
  updateTurnNotice() {
    const id = this.decisionId;
    const mine = this.tray.classList.contains("your-turn") && id && !this.answered.has(id);
    const base = this.baseTitle || "RoboRally";
    const title = mine ? t("game.your_turn_title", { title: base }) : base;
    if (document.title !== title) document.title = title;
    if (mine && this.alerted !== id) {
      this.alerted = id;
      yourTurnAlert();
    }
  }

  renderNotify() {
    const on = notifyOn();
    this.notifyBtn.replaceChildren(icon(on ? "bell" : "bellOff"));
    this.notifyBtn.setAttribute("aria-pressed", String(on));
    const words = on ? t("notify.toggle_on") : t("notify.toggle_off");
    this.notifyBtn.title = words;
    this.notifyBtn.setAttribute("aria-label", words);
  }

  toggleNotify() {
    setNotify(!notifyOn());
    this.renderNotify();
    toast(notifyOn() ? t("notify.turned_on") : t("notify.turned_off"));
  }

  trayHead(title, extra) {
    this.trayTimer = h("span.tray-timer", { hidden: true });
    this.idleNote = h("p.idle-note", { hidden: true, role: "timer", "data-testid": "idle-countdown" });
    const head = h("div.tray-head", null, h("h2", null, title), extra ? h("span.dim", null, extra) : null, this.trayTimer);
    this.tick();
    return [head, this.idleNote];
  }

  waitingTray(st, own) {
    const obs = st.observation;
    const submitted = (st.submitted || []).find((a) => Array.isArray(a.choice));
    const parts = [];
    let title = t("game.watching_robots");
    if (submitted) {
      title = t("game.program_locked");
      const row = h("div.registers.readonly");
      submitted.choice.forEach((c, i) => row.append(h("div.slot.filled", null, h("span.slot-no", null, String(i + 1)), c ? cardEl(c) : cardEl(null))));
      parts.push(row);
    } else if (own) {
      const active = obs && STAGES[obs.stage] === "activation";
      title = (own.registers || []).some((r) => r.count > 0) ? t("game.your_program") : t("game.your_robot");
      parts.push(registersRow(own, active ? obs.register : 0));
    }
    this.waitingEl = h("p.waiting", { "data-testid": "waiting" });
    this.renderWaiting();
    return [this.trayHead(title), ...parts, this.waitingEl];
  }

  /** "Waiting for Bo": the other seats the newest state waits for (the tray may be drawn from
   * an older one while its events are animated). */
  renderWaiting() {
    const el = this.waitingEl;
    const st = this.latest || this.state;
    if (!el || !st) return;
    const obs = st.observation;
    const names = obs ? obs.waiting_for.filter((s) => s !== this.seat).map((s) => this.name(s)) : [];
    el.hidden = !names.length;
    el.textContent = names.length ? t("game.waiting_for", { names: names.join(", ") }) : "";
  }

  /** The fairness line, the host's seed warning: for the waiting room and the game info. */
  fairness() {
    const settings = (this.welcome && this.welcome.settings) || {};
    const finished = this.state && this.state.status === "finished";
    const chosen = settings.seed_chosen && settings.seed !== null && settings.seed !== undefined;
    return [
      chosen && !finished ? chosenSeedWarning(settings.seed) : null,
      commitmentNote(settings.seed_commitment),
    ];
  }

  /** A place for the revealed seed; filled again when game_over brings the seed. */
  revealSlot() {
    const slot = h("div.reveal-slot", null, this.revealEl());
    this.revealSlots = this.revealSlots.filter((x) => x.isConnected).concat([slot]);
    return slot;
  }

  /**
   * The revealed seed (once the game is over), checked against the commitment this browser was
   * shown before the end; only a page that never saw the game running takes the server's word
   * at the end (and says so).
   */
  revealEl() {
    const settings = (this.welcome && this.welcome.settings) || {};
    const seed = (this.reveal && this.reveal.seed) || settings.seed;
    const shown = this.shownCommitment || seenCommitment(this.gameId);
    const commitment = shown || (this.reveal && this.reveal.commitment) || settings.seed_commitment;
    if (!seed || !commitment) return null;
    return revealBox({ seed, commitment, late: !shown, chosen: !!settings.seed_chosen, record: `roborally-${this.gameId}.rec` });
  }

  /** "About this game": rules, timers and the fair-shuffle commitment. */
  renderInfo(options) {
    const st = (this.welcome && this.welcome.settings) || {};
    const ed = options && (options.editions || []).find((e) => e.id === st.edition);
    const variantTitle = (v) => variantInfo(options, v).title;
    const mins = (sec) => fmtTime(sec);
    const none = t("game.info.none");
    const edition = ed && hasText("lobby.edition." + ed.id) ? t("lobby.edition." + ed.id) : ed ? ed.title : st.edition;
    const rows = [
      [t("game.info.rules"), edition],
      [t("game.info.variants"), (st.variants || []).length ? st.variants.map(variantTitle).join(", ") : none],
      [t("game.info.timer"), st.timer_seconds ? mins(st.timer_seconds) : none],
      // Speed mode times every program; otherwise programming without the clock has this.
      [t("game.info.program_time"), !(st.variants || []).includes("speed") && st.program_seconds ? mins(st.program_seconds) : null],
      [t("game.info.decision_time"), st.decision_seconds ? mins(st.decision_seconds) : null],
      [t("game.info.round_limit"), st.max_rounds ? String(st.max_rounds) : none],
    ].filter((r) => r[1]);
    fill(this.infoBody,
      h("dl.info-list", null, rows.map(([k, v]) => [h("dt", null, k), h("dd", null, v)])),
      h("p.hint", null, t("game.info.idle_hint")),
      this.fairness());
  }

  spectatorTray(obs) {
    const text = obs ? t("game.spectator_round", { n: obs.round }) : t("game.spectator");
    return [this.trayHead(t("game.spectating")), h("p.hint", { "data-testid": "spectator-note" }, text)];
  }

  finishedTray(st) {
    const o = st.outcome || {};
    return [
      this.trayHead(t("game.over")),
      h("p.result-line", { "data-testid": "result-line" }, (st.outcome ? prettyResult(o, [], this.edition) : "") || t("game.over_line")),
      this.revealSlot(),
      h("div.program-actions", null,
        h("button.ghost", { type: "button", onclick: () => this.showResult(o, true) }, t("game.show_result")),
        h("a.button.primary", { href: `/?replay=${encodeURIComponent(this.gameId)}`, "data-testid": "open-replay" }, t("game.watch_replay"))),
    ];
  }

  waitingRoom() {
    const st = this.state;
    const mine = st.seats.find((s) => s.seat === this.seat);
    const isHost = this.welcome && this.welcome.host;
    const parts = [this.trayHead(t("game.waiting_room"))];
    const humans = st.seats.filter((s) => s.kind === "human");
    const missing = humans.filter((s) => !s.taken || !s.connected || !s.ready).map((s) => seatName(s.seat, s.name));
    if (mine) {
      // A name being typed survives the waiting room being drawn again (someone joined).
      const typed = this.nameDraft !== undefined && this.nameDraft !== mine.name ? this.nameDraft : mine.name;
      const nameInput = h("input", { type: "text", value: typed, maxlength: 20, "aria-label": t("game.your_name"), "data-testid": "name-input" });
      const saveName = () => {
        const v = nameInput.value.trim();
        if (!v || v === mine.name || v === this._rename) return;
        store.set("name", v);
        this._rename = v;
        this.welcome = null;
        this.sock.ws && this.sock.ws.close(1000); // reconnect with the new name
      };
      nameInput.addEventListener("input", () => (this.nameDraft = nameInput.value));
      nameInput.addEventListener("change", saveName);
      nameInput.addEventListener("keydown", (e) => e.key === "Enter" && saveName());
      if (this.nameFocused) requestAnimationFrame(() => nameInput.isConnected && nameInput.focus());
      nameInput.addEventListener("focus", () => (this.nameFocused = true));
      nameInput.addEventListener("blur", () => (this.nameFocused = false));
      parts.push(h("div.field-row", null, h("label", null, t("game.your_name"), " ", nameInput)));
      const wanted = this.wantReady !== undefined ? this.wantReady : mine.ready;
      const ready = h("button." + (wanted ? "ghost" : "primary"), {
        type: "button", "data-testid": "ready",
        // The press does not take the focus from the name field (whose change would rename the
        // seat and redraw this button under the click): the click renames, and the wish is kept
        // and sent as soon as the seat is back from the rename's reconnect (flushReady).
        onpointerdown: (e) => e.preventDefault(),
        onmousedown: (e) => e.preventDefault(),
        onclick: () => {
          saveName();
          this.wantReady = !wanted;
          this.flushReady();
        },
      }, wanted ? t("game.not_ready") : t("game.ready"));
      const row = h("div.program-actions", null, ready);
      if (isHost) {
        row.append(h("button.primary.start", {
          type: "button", "data-testid": "start-game",
          onclick: () => this.sock.send("start"),
        }, t("game.start"), icon("play")));
      }
      parts.push(row);
      parts.push(h("p.hint", null, isHost ? t("game.start_hint_host") : t("game.start_hint")));
    } else {
      parts.push(h("p.hint", null, t("game.start_hint_watch")));
    }
    if (missing.length) parts.push(h("p.waiting", null, t("game.waiting_for_list", { names: missing.join(", ") })));
    parts.push(...this.fairness().filter(Boolean));
    parts.push(this.invites());
    return parts;
  }

  invites() {
    // The host sees an invite link for every other person's seat nobody holds yet: a new
    // game's come with it (the create response), a rematch's are made on request. A seat that
    // is taken has no link: it belongs to the player who took it.
    const host = !!(this.welcome && this.welcome.host);
    const rows = [];
    const origin = location.origin;
    if (host) {
      for (const seat of this.state.seats) {
        if (seat.kind === "human" && seat.seat !== this.seat) rows.push(this.inviteRow(seat, origin));
      }
    }
    rows.push(linkRow(t("game.spectators"), `${origin}/?game=${encodeURIComponent(this.gameId)}`, "spectator-link", false));
    return h("div.invites", null, h("h3", null, host ? t("game.invite_links") : t("game.share")), rows,
      host ? h("p.hint", null, t("game.invite_hint")) : null);
  }

  /** One seat's invite row for the host: its link and a button for a new one, or "joined". */
  inviteRow(seat, origin) {
    const label = `${t("lobby.seat_n", { n: seat.seat + 1 })} · ${seatName(seat.seat, seat.name)}`;
    if (seat.taken) return linkRow(label, null, `invite-${seat.seat}`, true);
    const code = this.inviteCode(seat.seat);
    const renew = h("button.ghost.small", {
      type: "button", "data-testid": `new-invite-${seat.seat}`,
      title: code ? t("game.new_invite_hint") : null,
      onclick: () => this.sock.send("invite", { seat: seat.seat }) === null && toast(t("game.not_connected"), "error"),
    }, code ? t("game.new_invite") : t("game.make_invite"));
    return linkRow(label, code ? inviteUrl(this.gameId, code, origin) : null, `invite-${seat.seat}`, false, renew);
  }

  /** The newest invite code this browser holds for a seat (a new one, else the create response's). */
  inviteCode(seat) {
    const codes = store.get("invites." + this.gameId, {}) || {};
    if (typeof codes[seat] === "string") return codes[seat];
    const created = store.get("created." + this.gameId, null);
    const entry = created && (created.seats || []).find((s) => s.seat === seat);
    return (entry && entry.invite) || null;
  }

  // -------------------------------------------------------------- actions
  /**
   * Answer a decision. ``settle``: show the waiting tray at once (a question answered during an
   * activation would otherwise stay on screen until the animation before the next state ends).
   */
  decide(decision, choice, settle = false) {
    const fields = { decision_id: decision.id, choice };
    const id = this.sock.send("decide", fields);
    if (id === null) {
      toast(t("game.not_connected"), "error");
      if (this.editor) this.editor.failed();
      this.decisionId = null;
      setTimeout(() => this.state && this.renderTray(), 800);
      return;
    }
    this.sends.set(id, decision.id);
    this.unacked.set(id, fields);
    this.answered.add(decision.id);
    this.promptGoneAt = performance.now();
    this.trayNotice = null;
    this.updateTurnNotice();
    if (settle && this.state) {
      this.decisionId = null;
      this.renderTray();
      this.renderPlayers(); // no longer "deciding…"
    }
  }

  /** Say again the answers a lost socket or server process may not have passed on. */
  sendUnackedAgain() {
    const again = [...this.unacked.entries()];
    this.unacked.clear();
    for (const [old, fields] of again) {
      this.sends.delete(old);
      const id = this.sock.send("decide", fields);
      if (id === null) continue;
      this.sends.set(id, fields.decision_id);
      this.unacked.set(id, fields);
    }
  }

  sendDraft(decisionId, program) {
    clearTimeout(this.draftTimer);
    this.draftTimer = setTimeout(() => {
      if (this.decisionId === decisionId) this.sock.send("draft", { decision_id: decisionId, program });
    }, 150);
  }

  tick() {
    const st = this.latest;
    if (!st) return;
    const timers = st.timers || [];
    let mine = [];
    if (this.seat !== null && this.seat !== undefined) {
      mine = timers.filter((t) => t.seat === this.seat && t.reason !== "grace" && !this.answered.has(t.decision_id));
    }
    // The game's own clock (speed mode, the sand timer): a prominent countdown.
    const timer = mine.find((t) => t.reason === "timer") || timers.find((t) => t.reason === "timer");
    // The deadline of a decision without a clock: a gentle word in its last half minute.
    const idle = mine.find((t) => t.reason === "idle" || t.reason === "decision");
    const idleLeft = idle ? idle.deadline - this.now() : Infinity;
    if (this.idleNote) {
      const show = idleLeft < IDLE_WARNING_SECONDS && !(this.editor && this.editor.sending);
      this.idleNote.hidden = !show;
      if (show) this.idleNote.textContent = t("game.idle_warning", { time: fmtTime(idleLeft) });
    }
    if (timer) {
      const left = timer.deadline - this.now();
      const text = fmtTime(left);
      this.timerEl.hidden = false;
      this.timerEl.replaceChildren(icon("clock"), text);
      this.timerEl.classList.toggle("urgent", left < 10);
      this.timerEl.title = timer.reason === "timer" ? t("game.timer_title") : t("game.decide_title");
      if (this.trayTimer) {
        this.trayTimer.hidden = false;
        this.trayTimer.replaceChildren(icon("clock"), text);
        this.trayTimer.classList.toggle("urgent", left < 10);
      }
    } else {
      this.timerEl.hidden = true;
      if (this.trayTimer) this.trayTimer.hidden = true;
    }
    if (timers.some((t) => t.reason === "grace") && this.state && !(this.anim && this.anim.busy)) {
      // refresh the "auto in Ns" badges
      this.root.querySelectorAll(".player .badge.warn").forEach(() => {});
      this._graceTick = (this._graceTick || 0) + 1;
      if (this._graceTick % 4 === 0) this.renderPlayers();
    }
  }

  showResult(outcome, force = false) {
    if (!outcome || (this.resultShown && !force)) return;
    this.resultShown = true;
    const st = this.state || this.latest;
    const obs = st && st.observation;
    const total = this.welcome ? this.welcome.board.checkpoints.length : 0;
    const won = outcome.winner !== null && outcome.winner !== undefined;
    const me = this.seat !== null && this.seat !== undefined && outcome.winner === this.seat;
    const list = h("ol.standings", { "data-testid": "standings" });
    (outcome.standings || []).forEach((seat) => {
      const p = obs && obs.players.find((x) => x.seat === seat);
      list.append(h("li", null,
        seatChip(seat),
        h("span.pname", null, seat === this.seat ? t("lobby.seat_you", { name: this.name(seat) }) : this.name(seat)),
        h("span.dim", null, p ? `⚑ ${p.checkpoint}/${total}` : "")));
    });
    // A dialog: Esc closes it too (and the focus goes back where it was).
    const before = document.activeElement;
    const onKey = (e) => e.key === "Escape" && close();
    const close = () => {
      modal.remove();
      document.removeEventListener("keydown", onKey);
      if (before && before.isConnected) before.focus();
    };
    document.addEventListener("keydown", onKey);
    const modal = h("div.modal-back", { onclick: (e) => e.target === modal && close() },
      h("div.modal.result", { role: "dialog", "aria-modal": "true", "aria-label": t("lobby.result"), "data-testid": "result" },
        h("div.trophy", null, icon(won ? "trophy" : "flag")),
        h("h2", null, me ? t("game.you_win") : won ? t("game.winner", { name: seatName(outcome.winner, outcome.winner_name) }) : t("game.race_over")),
        h("p.result-text", null, prettyResult(outcome, [], this.edition)),
        list,
        this.revealSlot(),
        h("div.modal-actions", null,
          h("a.button.primary", { href: `/?replay=${encodeURIComponent(this.gameId)}`, "data-testid": "replay-link" }, t("game.watch_replay")),
          h("a.button.ghost", { href: api.recordUrl(this.gameId), download: "" }, t("game.download_record")),
          h("a.button.ghost", { href: "/" }, t("lobby.new_game")),
          h("button.ghost", { type: "button", onclick: close }, t("common.close")))));
    document.body.append(modal);
    this.chat.addRematch(modal);
  }
}

/** Put a phase line ("Round 1 · Register 2") in ``el``, each part in a span of its own: a
 * phone's narrow top bar wraps the line between the parts, never inside one (style.css). */
function showPhase(el, text) {
  const parts = String(text).split(" · ");
  el.replaceChildren(...parts.flatMap((part, i) => [i ? " · " : "", h("span.phase-part", null, part)]));
}

/** The game-over sentence in the page's language: from an outcome's ``termination``,
 * ``winner`` and ``winner_name`` when it has them, else from the English ``result`` words
 * ("Red wins (checkpoints)", as a finished game of the lobby's list has them, with its
 * ``seats``: the winner's seat, for a colour name in the page's language), in the words of
 * the game's ``edition``: the classic ones race to flags ("game.end.KEY.classic"). */
export function prettyResult(outcome, seats = [], edition = "2023") {
  const classic = String(edition || "").startsWith("classic");
  const how = (end) => {
    const key = "game.end." + end;
    if (classic && hasText(key + ".classic")) return t(key + ".classic");
    return hasText(key) ? t(key) : end.replace(/_/g, " ");
  };
  if (outcome && typeof outcome === "object") {
    if (outcome.termination) {
      const won = outcome.winner !== null && outcome.winner !== undefined;
      return won ? t("game.result_win", { name: seatName(outcome.winner, outcome.winner_name) ?? t("common.robot_n", { n: outcome.winner + 1 }), how: how(outcome.termination) })
        : t("game.result_none", { how: how(outcome.termination) });
    }
    return prettyResult(outcome.result, seats, edition);
  }
  const raw = String(outcome || "");
  let m = /^(.*) wins \((\w+)\)$/.exec(raw);
  if (m) {
    const winner = (seats || []).find((s) => s.name === m[1]);
    return t("game.result_win", { name: winner ? seatName(winner.seat, m[1]) : m[1], how: how(m[2]) });
  }
  m = /^no winner \((\w+)\)$/.exec(raw);
  if (m) return t("game.result_none", { how: how(m[1]) });
  return raw.replace(/_/g, " ");
}

/** A labelled link with a copy button (``url`` null: no link, only the label and ``extra``). */
function linkRow(label, url, testid, taken, extra = null) {
  const head = h("span.link-label", { "data-testid": url ? null : testid }, label, taken ? h("span.badge", null, t("game.joined")) : null);
  if (!url) return h("div.link-row", null, head, extra ? h("div.link-box", null, extra) : null);
  const input = h("input.link", { type: "text", readonly: true, value: url, "aria-label": label, "data-testid": testid, onclick: (e) => e.target.select() });
  const btn = h("button.ghost.copy", {
    type: "button",
    onclick: async () => {
      const ok = await copyText(url);
      toast(ok ? t("game.link_copied") : t("game.copy_by_hand"), ok ? "info" : "error");
    },
  }, t("game.copy"));
  return h("div.link-row", null, head, h("div.link-box", null, input, btn, extra));
}
