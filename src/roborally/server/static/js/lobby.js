// The lobby: create a game, see open, running and finished games, join or watch.

import { api, boardSvg } from "./api.js";
import { botChoices } from "./bots.js";
import { refusalText } from "./errors.js";
import { icon } from "./icons.js";
import { rulesLink } from "./spaceinfo.js";
import { installLobbyTutorial } from "./tutorial.js";
import { timerWords, variantInfo } from "./variants.js";
import { fill, h, plural, seatUrl, store, tableUrl, toast } from "./util.js";
import { seatChip } from "./seats.js";
import { t } from "./i18n.js";

// The names the server gives seats nobody named (in seat order).
const COLOUR_NAMES = ["Red", "Blue", "Green", "Yellow", "Purple", "Orange", "White", "Black"];
const SEED_TEXT = /^\s*(\d+|0[xX][0-9a-fA-F]+)\s*$/;

export class Lobby {
  constructor(root) {
    this.root = root;
    this.options = null;
    this.seats = [];
  }

  async start() {
    document.title = "RoboRally · Lobby";
    document.body.classList.remove("in-game");
    this.formBox = h("section.panel.create", { "aria-labelledby": "new-game-title" }, h("p.loading", null, "Loading…"));
    this.gamesBox = h("div.games-col");
    fill(this.root, h("div.lobby", null,
      h("header.hero", null,
        h("div.hero-logo", { "aria-hidden": "true" }, logoSvg()),
        h("div", null, h("h1", null, "RoboRally"), h("p.tagline", null, "Program your robot, race through the factory, touch every checkpoint first."),
          h("p.rules-line", null, "New to the game? Read the rules: ",
            rulesLink("2023", "", "2023 edition", { "data-testid": "rules-2023" }), " · ",
            rulesLink("classic", "", "classic edition", { "data-testid": "rules-classic" }), " · ",
            rulesLink("classic-1994", "", "1994 rules", { "data-testid": "rules-classic-1994" })))),
      h("div.lobby-grid", null, this.formBox, this.gamesBox)));
    installLobbyTutorial(this.root);
    try {
      this.options = await api.options();
    } catch (error) {
      fill(this.formBox, h("p.error", null, error.message));
      return;
    }
    this.renderForm();
    this.refresh();
    this.poll = setInterval(() => this.refresh(), 4000);
  }

  // ------------------------------------------------------------- create form
  renderForm() {
    const o = this.options;
    const edition = o.editions[0] ? o.editions[0].id : "2023";
    this.edition = edition;
    const name = store.get("name", "");
    this.nameInput = h("input", { type: "text", id: "player-name", maxlength: 20, placeholder: "Red", value: name, "data-testid": "player-name", autocomplete: "nickname" });
    this.nameInput.addEventListener("input", () => {
      store.set("name", this.nameInput.value.trim());
      this.renderSeats();
    });
    this.editionSelect = h("select", { id: "edition", "data-testid": "edition", onchange: () => this.onEdition() },
      o.editions.map((e) => h("option", { value: e.id }, e.title)));
    this.courseSelect = h("select", { id: "course", "data-testid": "course", onchange: () => this.onCourse() });
    this.courseInfo = h("div.course-info");
    this.preview = h("div.course-preview", { "aria-hidden": "true" });
    this.seatsBox = h("div.seats-editor", { "data-testid": "seats" });
    this.addSeatBtn = h("button.ghost.small", { type: "button", "data-testid": "add-seat", onclick: () => this.addSeat() }, "+ Add a seat");
    this.timerSelect = h("select", { id: "timer", "data-testid": "timer-select", onchange: () => this.onTimer() });
    this.timerCustom = h("input", { type: "number", min: o.limits.timer_seconds[0], max: o.limits.timer_seconds[1], value: 60, hidden: true, "aria-label": "timer seconds", "data-testid": "timer-seconds" });
    this.variantsBox = h("div.variants", { "data-testid": "variants" });
    this.roundsInput = h("input", { type: "number", min: 0, max: o.limits.max_rounds, value: o.defaults.max_rounds ?? 50, id: "max-rounds", "data-testid": "max-rounds" });
    const [low, high] = o.limits.timer_seconds || [5, 3600];
    this.decisionInput = h("input", { type: "number", min: low, max: high, value: o.defaults.decision_seconds ?? 60, id: "decision-seconds", "data-testid": "decision-seconds" });
    this.programInput = h("input", { type: "number", min: low, max: high, value: o.defaults.program_seconds ?? 300, id: "program-seconds", "data-testid": "program-seconds" });
    this.seedInput = h("input", { type: "text", inputmode: "numeric", autocomplete: "off", spellcheck: "false", placeholder: "secret, drawn by the server", id: "seed", "data-testid": "seed" });
    this.publicInput = h("input", { type: "checkbox", checked: true, id: "public" });
    this.tableInput = h("input", { type: "checkbox", id: "table-mode", "data-testid": "table-mode" });
    this.createBtn = h("button.primary.big", { type: "submit", "data-testid": "create-game" }, "Create game");
    this.createError = h("p.error.form-error", { role: "alert", "data-testid": "create-error", hidden: true });
    const form = h("form.create-form", { onsubmit: (e) => { e.preventDefault(); this.create(); } },
      field("Your name", this.nameInput, "player-name"),
      o.editions.length > 1 ? field("Edition", this.editionSelect, "edition") : null,
      h("div.course-row", null, h("div.course-fields", null, field("Course", this.courseSelect, "course"), this.courseInfo), this.preview),
      h("fieldset", null, h("legend", null, "Players"), this.seatsBox, this.addSeatBtn),
      h("div.two", null,
        field("Programming timer", h("div.inline", null, this.timerSelect, this.timerCustom), "timer"),
        field("Round limit", this.roundsInput, "max-rounds", "0 = no limit")),
      h("fieldset", null, h("legend", null, "Alternative rules"), this.variantsBox),
      h("details.advanced", null, h("summary", null, "More options"),
        h("div.two", null,
          field("Seconds to program", this.programInput, "program-seconds", "when there is no timer; then the game plays for an idle player"),
          field("Seconds for other decisions", this.decisionInput, "decision-seconds", "start space, reboot, upgrades…")),
        field("Seed (shown to every player)", this.seedInput, "seed",
          "Empty: the server draws a secret seed and reveals it at the end. A seed you choose is shown to everyone, and whoever knows it can work out every hand."),
        h("label.check", null, this.publicInput, " List in open games (anyone may join)")),
      h("label.check.table-check", null, this.tableInput, " ", t("table.offer"), h("span.hint", null, t("table.offer_hint"))),
      h("div.form-actions", null, this.createError, this.createBtn));
    fill(this.formBox, h("h2", { id: "new-game-title" }, "New game"), form);
    const me = { kind: "human", me: true };
    this.seats = [me, { kind: "bot", bot: this.defaultBot() }, { kind: "bot", bot: this.defaultBot() }];
    this.onEdition();
  }

  /** A bot for a first race: the weakest level (Beginner, one a newcomer can beat) when the
   * server has levels, else a bot that plays a fair race. */
  defaultBot() {
    const bots = botChoices(this.options);
    const weakest = bots.find((b) => typeof b.level === "number");
    if (weakest) return weakest.id;
    const ids = bots.map((b) => b.id);
    return ["planner", "expert", "random"].find((b) => ids.includes(b)) || ids[0] || "random";
  }

  editionInfo() {
    return this.options.editions.find((e) => e.id === this.edition) || null;
  }

  onEdition() {
    this.edition = this.editionSelect.value || this.edition;
    const o = this.options;
    const ed = this.editionInfo();
    const courses = ed && Array.isArray(ed.courses)
      ? o.courses.filter((c) => ed.courses.includes(c.id))
      : o.courses.filter((c) => c.edition === this.edition || c.edition === "any");
    fill(this.courseSelect, ...groupCourses(courses));
    const preferred = courses.find((c) => c.id === store.get("course")) || courses.find((c) => c.id === "tiny") || courses[0];
    if (preferred) this.courseSelect.value = preferred.id;
    const timer = ed && ed.timer;
    this.timerRule = timer;
    // speed: off unless chosen; sand: on by default (the server's default), may be turned off.
    const sand = timer && timer.kind === "sand";
    fill(this.timerSelect,
      sand
        ? h("option", { value: "" }, `${timer.default} seconds (standard)`)
        : h("option", { value: "" }, "Off"),
      ...(timer && timer.kind !== "none"
        ? timer.choices.filter((s) => !sand || s !== timer.default).map((s) => h("option", { value: String(s) }, `${s} seconds`))
        : []),
      sand ? h("option", { value: "0" }, "Off") : null,
      h("option", { value: "custom" }, "Custom…"));
    this.timerSelect.closest(".field").hidden = !timer || timer.kind === "none";
    this.timerSelect.title = timerWords(timer);
    this.onTimer();
    fill(this.variantsBox, ...o.variants
      .filter((v) => (!v.editions || v.editions.includes(this.edition)) && !(timer && v.id === timer.variant))
      .map((v) => {
        const info = variantInfo(o, v.id);
        return h("label.check.variant", { title: info.description },
          h("input", { type: "checkbox", value: v.id, "data-testid": "variant-" + v.id }),
          h("span", null, h("span.variant-title", null, info.title), info.description ? h("span.variant-about", null, info.description) : null));
      }));
    this.onCourse();
  }

  course() {
    return this.options.courses.find((c) => c.id === this.courseSelect.value);
  }

  onCourse() {
    const c = this.course();
    if (!c) return;
    store.set("course", c.id);
    const [low, high] = this.playerRange();
    while (this.seats.length > high) this.seats.pop();
    while (this.seats.length < low) this.seats.push({ kind: "bot", bot: this.defaultBot() });
    fill(this.courseInfo,
      h("span.tag", null, c.tier || "course"), h("span.tag", null, c.length || ""),
      h("span", null, `${plural(c.checkpoints, "checkpoint")} · ${low}–${high} players · ${plural(c.boards.length, "board")}`));
    const ask = c.id;
    boardSvg(c.id, [], this.edition).then((svg) => {
      if (this.courseSelect.value !== ask) return;
      this.preview.innerHTML = svg || "";
      const el = this.preview.querySelector("svg");
      if (el) {
        el.removeAttribute("width");
        el.removeAttribute("height");
      }
    });
    this.renderSeats();
  }

  /** How many seats the course and the edition allow. */
  playerRange() {
    const c = this.course();
    const ed = this.editionInfo();
    let [low, high] = c ? c.players : [1, 6];
    if (ed && Array.isArray(ed.players)) {
      low = Math.max(low, ed.players[0]);
      high = Math.min(high, ed.players[1]);
    }
    if (this.options.limits && this.options.limits.seats) high = Math.min(high, this.options.limits.seats[1]);
    return [low, high];
  }

  onTimer() {
    this.timerCustom.hidden = this.timerSelect.value !== "custom";
  }

  addSeat() {
    if (this.seats.length >= this.playerRange()[1]) return;
    this.seats.push({ kind: "bot", bot: this.defaultBot() });
    this.renderSeats();
  }

  renderSeats() {
    const [low, high] = this.playerRange();
    const bots = botChoices(this.options);
    fill(this.seatsBox, ...this.seats.map((seat, i) => {
      const chip = seatChip(i);
      if (seat.me) {
        return h("div.seat-row", { "data-testid": "seat-row" }, chip,
          h("span.seat-me", null, (this.nameInput.value.trim() || COLOUR_NAMES[i]) + " (you)"));
      }
      const kind = h("select", {
        "aria-label": `Seat ${i + 1}`, "data-testid": "seat-kind",
        onchange: () => {
          const v = kind.value;
          if (v === "human") Object.assign(seat, { kind: "human", bot: null });
          else Object.assign(seat, { kind: "bot", bot: v.slice(4) });
          this.renderSeats();
        },
      },
      h("option", { value: "human", selected: seat.kind === "human" }, "Person (invite link)"),
      ...bots.map((b) => h("option", { value: "bot:" + b.id, selected: seat.kind === "bot" && seat.bot === b.id, title: b.description }, `Bot · ${b.title}`)));
      const chosen = seat.kind === "bot" && bots.find((b) => b.id === seat.bot);
      const about = chosen && chosen.description ? h("span.seat-about", { "data-testid": "bot-about" }, chosen.description) : null;
      const nameIn = h("input", { type: "text", maxlength: 20, placeholder: COLOUR_NAMES[i], value: seat.name || "", "aria-label": `Seat ${i + 1} name`, oninput: () => (seat.name = nameIn.value.trim()) });
      const remove = h("button.icon", { type: "button", title: "Remove this seat", "aria-label": `Remove seat ${i + 1}`, disabled: this.seats.length <= low, onclick: () => { this.seats.splice(i, 1); this.renderSeats(); } }, "×");
      return h("div.seat-row", { "data-testid": "seat-row" }, chip, kind, nameIn, remove, about);
    }));
    this.addSeatBtn.disabled = this.seats.length >= high;
  }

  /** The names the seats will have (the server names unnamed seats by colour). */
  seatNames() {
    const myName = this.nameInput.value.trim();
    return this.seats.map((seat, i) => (seat.me ? myName : seat.name) || COLOUR_NAMES[i] || `Robot ${i + 1}`);
  }

  /** What is wrong with the form before it is sent (the server checks again), or null. */
  problem() {
    const seen = new Map();
    for (const name of this.seatNames()) {
      const key = name.replace(/\s+/g, " ").trim().toLowerCase();
      if (seen.has(key)) return `Two players are called ${name}. Every player needs a name of their own.`;
      seen.set(key, true);
    }
    if (this.seedInput.value.trim() !== "" && !SEED_TEXT.test(this.seedInput.value)) {
      return "A seed is a whole number (such as 12345) or hex starting with 0x. Leave it empty for a secret seed.";
    }
    return null;
  }

  body() {
    const myName = this.nameInput.value.trim();
    const seats = this.seats.map((seat) => {
      const out = { kind: seat.kind };
      if (seat.kind === "bot") out.bot = seat.bot;
      const name = seat.me ? myName : seat.name;
      if (name) out.name = name;
      return out;
    });
    const body = {
      edition: this.edition,
      course: this.courseSelect.value,
      seats,
      variants: [...this.variantsBox.querySelectorAll("input:checked")].map((x) => x.value),
      max_rounds: intOr(this.roundsInput.value, 50),
      decision_seconds: intOr(this.decisionInput.value, this.options.defaults.decision_seconds ?? 60),
      program_seconds: intOr(this.programInput.value, this.options.defaults.program_seconds ?? 300),
      public: this.publicInput.checked,
    };
    const choice = this.timerSelect.value;
    if (choice === "custom") body.timer_seconds = intOr(this.timerCustom.value, 0);
    else if (choice !== "") body.timer_seconds = intOr(choice, 0);
    if (body.timer_seconds === 0 && !(this.timerRule && this.timerRule.kind === "sand")) delete body.timer_seconds;
    const seed = this.seedInput.value.trim();
    if (seed !== "") body.seed = /^\d{1,15}$/.test(seed) ? parseInt(seed, 10) : seed; // big ones as text
    return body;
  }

  showCreateError(text) {
    this.createError.hidden = !text;
    this.createError.textContent = text || "";
  }

  async create() {
    if (this.createBtn.disabled) return;
    const problem = this.problem();
    this.showCreateError(problem);
    if (problem) return;
    this.createBtn.disabled = true;
    try {
      const res = await api.create(this.body());
      store.set("created." + res.game_id, res);
      const host = res.seats.find((s) => s.seat === res.host_seat && s.token);
      const table = this.tableInput.checked && host; // the shared screen of the tabletop mode
      location.href = table ? tableUrl(res.game_id) : host ? seatUrl(res.game_id, host.token) : `/?game=${encodeURIComponent(res.game_id)}`;
    } catch (error) {
      this.showCreateError(refusalText(error.code, error.message, "create"));
      if (error.retryAfter > 0) this.waitToCreate(error.retryAfter);
      else this.createBtn.disabled = false;
    }
  }

  /** After a "too many games" answer: the button says when it works again. */
  waitToCreate(seconds) {
    const until = Date.now() + seconds * 1000;
    clearInterval(this.createWait);
    const step = () => {
      const left = Math.ceil((until - Date.now()) / 1000);
      if (left <= 0) {
        clearInterval(this.createWait);
        this.createBtn.disabled = false;
        this.createBtn.textContent = "Create game";
        return;
      }
      this.createBtn.textContent = `Create game (in ${left} s)`;
    };
    step();
    this.createWait = setInterval(step, 250);
  }

  // ----------------------------------------------------------------- lists
  async refresh() {
    let active = [], finished = [];
    try {
      [active, finished] = await Promise.all([
        api.games().then((d) => d.games),
        api.games("finished").then((d) => d.games).catch(() => []),
      ]);
    } catch (error) {
    fill(this.gamesBox, h("section.panel", null, h("p.error", null, error.message)));
      return;
    }
    const open = active.filter((g) => g.status === "open");
    const running = active.filter((g) => g.status === "running");
    const mine = await this.seatStatuses(store.get("mine", []).slice(0, 6), active, finished);
    const title = (id) => {
      const c = this.options.courses.find((x) => x.id === id);
      return c ? c.title : id;
    };
    const rules = (ids) => this.rulesTitles(ids);
    fill(this.gamesBox,
      h("section.panel", { "data-testid": "open-games" }, h("h2", null, "Open games"),
        open.length ? h("ul.game-list", null, open.map((g) => this.openRow(g, title))) : h("p.empty", null, "No open games. Create one!")),
      running.length ? h("section.panel", { "data-testid": "running-games" }, h("h2", null, "Running"),
        h("ul.game-list", null, running.map((g) => gameRow(g, title, rules, [h("a.button.ghost.small", { href: `/?game=${encodeURIComponent(g.game_id)}` }, "Watch")], `round ${g.round}`)))) : null,
      mine.length ? h("section.panel", { "data-testid": "your-seats" }, h("h2", null, "Your seats"),
        h("ul.game-list", null, mine.map((m) => h("li.game-row", { "data-seat-game": m.game, "data-status": m.status || "" },
          seatChip(m.seat),
          h("div.grow", null, h("strong", null, title(m.course)), h("span.dim", null, ` · ${seatNote(m.status)}`)),
          h("div.actions", null, m.status === "finished"
            ? [h("a.button.ghost.small", { href: seatUrl(m.game, m.token) }, "Result"),
              h("a.button.ghost.small", { href: `/?replay=${encodeURIComponent(m.game)}` }, "Replay")]
            : h("a.button.ghost.small", { href: seatUrl(m.game, m.token) }, "Continue")))))) : null,
      finished.length ? h("section.panel", { "data-testid": "finished-games" }, h("h2", null, "Finished"),
        h("ul.game-list", null, finished.slice(0, 8).map((g) => gameRow(g, title, rules, [h("a.button.ghost.small", { href: `/?replay=${encodeURIComponent(g.game_id)}` }, "Replay")], g.result || "")))) : null,
    );
  }

  rulesTitles(ids) {
    return ids.map((v) => variantInfo(this.options, v).title).join(", ");
  }

  /**
   * The seats this browser holds, each with its game's status (open, running, finished, gone):
   * from the lists when the game is in them, else asked once (a finished game stays finished).
   */
  async seatStatuses(mine, active, finished) {
    const known = new Map([...active, ...finished].map((g) => [g.game_id, g.status]));
    const out = await Promise.all(mine.map(async (m) => {
      let status = m.finished ? "finished" : known.get(m.game);
      if (!status) {
        try {
          status = (await api.game(m.game)).status;
        } catch (error) {
          status = error.code === "unknown_game" ? "gone" : "";
        }
      }
      return { ...m, status };
    }));
    if (out.some((m) => m.status === "finished" && !m.finished)) {
      const done = new Set(out.filter((m) => m.status === "finished").map((m) => m.game));
      store.set("mine", store.get("mine", []).map((m) => (done.has(m.game) ? { ...m, finished: true } : m)));
    }
    return out.filter((m) => m.status !== "gone");
  }

  openRow(g, title) {
    const free = g.free_seats || [];
    const join = h("button.primary.small", {
      type: "button", disabled: !free.length, "data-testid": "join-" + g.game_id,
      onclick: async () => {
        join.disabled = true;
        try {
          const name = this.nameInput ? this.nameInput.value.trim() : "";
          const res = await api.join(g.game_id, name ? { name } : {});
          location.href = seatUrl(res.game_id, res.token);
        } catch (error) {
          toast(refusalText(error.code, error.message, "join"), "error");
          if (error.code === "name_taken" && this.nameInput) this.nameInput.focus();
          join.disabled = false;
        }
      },
    }, free.length ? "Join" : "Full");
    const watch = h("a.button.ghost.small", { href: `/?game=${encodeURIComponent(g.game_id)}` }, "Watch");
    return gameRow(g, title, (ids) => this.rulesTitles(ids), [join, watch], `${plural(free.length, "free seat")}`);
  }
}

function seatNote(status) {
  return { open: "waiting for players", running: "running", finished: "finished" }[status] || "";
}

function gameRow(g, title, rules, actions, note) {
  const seats = (g.seats || []).map((s) => seatChip(s.seat, { cls: "tiny", title: s.name + (s.kind === "bot" ? " (bot)" : ""), style: { opacity: s.kind === "human" && s.taken === false ? 0.35 : 1 }, content: s.kind === "bot" ? icon("bot") : String(s.seat + 1) }));
  const variants = (g.variants || []).filter((v) => v !== "speed");
  // A seed the host chose is shown before anyone joins: whoever knows it can work out every hand.
  const chosen = g.seed !== null && g.seed !== undefined && g.status !== "finished";
  return h("li.game-row", { "data-game": g.game_id },
    h("div.grow", null,
      h("strong", null, title(g.course)),
      h("div.meta", null, h("span.chips", null, seats), note ? h("span.dim", null, " " + note) : null,
        g.timer_seconds ? h("span.tag", null, icon("clock"), ` ${g.timer_seconds}s`) : null,
        variants.length ? h("span.tag", { title: rules(variants) }, `+${variants.length} rules`) : null,
        chosen ? h("span.tag.warn", { "data-testid": "seed-chosen", title: `The host chose the seed ${g.seed}: whoever knows it can work out every hand.` }, "host's seed") : null)),
    h("div.actions", null, actions));
}

function groupCourses(courses) {
  const tiers = new Map();
  for (const c of courses) {
    const t = c.tier || "other";
    if (!tiers.has(t)) tiers.set(t, []);
    tiers.get(t).push(c);
  }
  const out = [];
  for (const [tier, list] of tiers) {
    const group = h("optgroup", { label: tier[0].toUpperCase() + tier.slice(1) });
    for (const c of list) group.append(h("option", { value: c.id }, `${c.title} (${c.length || ""}${c.length ? ", " : ""}${c.players[0]}–${c.players[1]})`));
    out.push(group);
  }
  return out;
}

function field(label, input, id, hint) {
  return h("div.field", null, h("label", { for: id }, label), input, hint ? h("span.hint", null, hint) : null);
}

function intOr(v, fallback) {
  const n = parseInt(v, 10);
  return Number.isFinite(n) ? n : fallback;
}

export function logoSvg() {
  const span = h("span.logo-svg");
  span.innerHTML = `<svg viewBox="0 0 64 64" width="56" height="56">
    <rect x="6" y="10" width="10" height="44" rx="3" fill="#2b2f36"/>
    <rect x="48" y="10" width="10" height="44" rx="3" fill="#2b2f36"/>
    <rect x="12" y="14" width="40" height="40" rx="11" fill="#ffb224" stroke="#14161a" stroke-width="3"/>
    <rect x="20" y="20" width="24" height="7" rx="3.5" fill="#14161a"/>
    <circle cx="26" cy="23.5" r="2" fill="#7cf"/><circle cx="38" cy="23.5" r="2" fill="#7cf"/>
    <path d="M32 1 L42 13 H22 Z" fill="#fff" stroke="#14161a" stroke-width="2.5" stroke-linejoin="round"/>
    <circle cx="32" cy="39" r="7" fill="#fff" stroke="#14161a" stroke-width="2"/>
  </svg>`;
  return span;
}
