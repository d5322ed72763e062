// The lobby: create a game, see open, running and finished games, join or watch.

import { api, boardSvg } from "./api.js";
import { botChoices } from "./bots.js";
import { refusalText } from "./errors.js";
import { prettyResult } from "./game.js";
import { icon } from "./icons.js";
import { rulesLink } from "./spaceinfo.js";
import { installLobbyTutorial } from "./tutorial.js";
import { timerWords, variantInfo } from "./variants.js";
import { hasText, language, languageSwitcher, t, titleOf } from "./i18n.js";
import { colourName, seatChip, seatName } from "./seats.js";
import { fill, h, params, seatUrl, store, tableUrl, toast } from "./util.js";

// The server names seats nobody named by colour, in English; the page shows those names in its
// language (seats.js colourName) and, in another language than English, sends those.
const capital = (text) => String(text).replace(/^./, (c) => c.toUpperCase());
/** A word the server sends as an id ("starter", "short"): its text, or the id itself. */
const named = (prefix, id) => (hasText(prefix + id) ? t(prefix + id) : capital(String(id).replace(/_/g, " ")));
const SEED_TEXT = /^\s*(\d+|0[xX][0-9a-fA-F]+)\s*$/;

export class Lobby {
  constructor(root) {
    this.root = root;
    this.options = null;
    this.seats = [];
  }

  async start() {
    document.title = t("lobby.page_title");
    document.body.classList.remove("in-game");
    this.formBox = h("section.panel.create", { "aria-labelledby": "new-game-title" }, h("p.loading", null, t("page.loading")));
    this.gamesBox = h("div.games-col");
    fill(this.root, h("div.lobby", null,
      h("header.hero", null,
        h("div.hero-logo", { "aria-hidden": "true" }, logoSvg()),
        h("div.hero-text", null, h("h1", null, "RoboRally"), h("p.tagline", null, t("lobby.tagline")),
          h("p.rules-line", null, t("lobby.rules_intro"), " ",
            rulesLink("2023", "", t("lobby.rules_2023"), { "data-testid": "rules-2023" }), " · ",
            rulesLink("classic", "", t("lobby.rules_classic"), { "data-testid": "rules-classic" }), " · ",
            rulesLink("classic-1994", "", t("lobby.rules_1994"), { "data-testid": "rules-classic-1994" })),
          h("p.build-line", null, h("a.button.ghost.small", { href: "/build", "data-testid": "build-link" }, t("build.lobby.link")), " ",
            h("span.dim", null, t("build.lobby.hint")))),
        h("div.hero-language", null, languageSwitcher())),
      h("div.lobby-grid", null, this.formBox, this.gamesBox)));
    installLobbyTutorial(this.root);
    try {
      this.options = await api.options();
    } catch (error) {
      fill(this.formBox, h("p.error", null, refusalText(error.code, error.message)));
      return;
    }
    this.custom = await this.customCourses();
    await this.addLinkedCourse();
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
    this.nameInput = h("input", { type: "text", id: "player-name", maxlength: 20, placeholder: colourName(0), value: name, "data-testid": "player-name", autocomplete: "nickname" });
    this.nameInput.addEventListener("input", () => {
      store.set("name", this.nameInput.value.trim());
      this.renderSeats();
    });
    this.editionSelect = h("select", { id: "edition", "data-testid": "edition", onchange: () => this.onEdition() },
      o.editions.map((e) => h("option", { value: e.id }, editionTitle(e))));
    this.courseSelect = h("select", { id: "course", "data-testid": "course", onchange: () => this.onCourse() });
    this.courseInfo = h("div.course-info");
    this.preview = h("div.course-preview", { "aria-hidden": "true" });
    this.seatsBox = h("div.seats-editor", { "data-testid": "seats" });
    this.addSeatBtn = h("button.ghost.small", { type: "button", "data-testid": "add-seat", onclick: () => this.addSeat() }, t("lobby.add_seat"));
    this.timerSelect = h("select", { id: "timer", "data-testid": "timer-select", onchange: () => this.onTimer() });
    this.timerCustom = h("input", { type: "number", min: o.limits.timer_seconds[0], max: o.limits.timer_seconds[1], value: 60, hidden: true, "aria-label": t("lobby.timer_seconds"), "data-testid": "timer-seconds" });
    this.variantsBox = h("div.variants", { "data-testid": "variants" });
    this.roundsInput = h("input", { type: "number", min: 0, max: o.limits.max_rounds, value: o.defaults.max_rounds ?? 50, id: "max-rounds", "data-testid": "max-rounds" });
    const [low, high] = o.limits.timer_seconds || [5, 3600];
    this.decisionInput = h("input", { type: "number", min: low, max: high, value: o.defaults.decision_seconds ?? 60, id: "decision-seconds", "data-testid": "decision-seconds" });
    this.programInput = h("input", { type: "number", min: low, max: high, value: o.defaults.program_seconds ?? 300, id: "program-seconds", "data-testid": "program-seconds" });
    this.seedInput = h("input", { type: "text", inputmode: "numeric", autocomplete: "off", spellcheck: "false", placeholder: t("lobby.seed_placeholder"), id: "seed", "data-testid": "seed" });
    this.publicInput = h("input", { type: "checkbox", checked: true, id: "public" });
    this.tableInput = h("input", { type: "checkbox", id: "table-mode", "data-testid": "table-mode", onchange: () => this.renderSeats() });
    this.createBtn = h("button.primary.big", { type: "submit", "data-testid": "create-game" }, t("lobby.create"));
    this.createError = h("p.error.form-error", { role: "alert", "data-testid": "create-error", hidden: true });
    const form = h("form.create-form", { onsubmit: (e) => { e.preventDefault(); this.create(); } },
      field(t("lobby.your_name"), this.nameInput, "player-name"),
      o.editions.length > 1 ? field(t("lobby.edition"), this.editionSelect, "edition") : null,
      h("div.course-row", null, h("div.course-fields", null, field(t("lobby.course"), this.courseSelect, "course"), this.courseInfo), this.preview),
      h("fieldset", null, h("legend", null, t("lobby.players")), this.seatsBox, this.addSeatBtn),
      h("div.two", null,
        field(t("lobby.timer"), h("div.inline", null, this.timerSelect, this.timerCustom), "timer"),
        field(t("lobby.round_limit"), this.roundsInput, "max-rounds", t("lobby.round_limit_hint"))),
      h("fieldset", null, h("legend", null, t("lobby.variants")), this.variantsBox),
      h("details.advanced", null, h("summary", null, t("lobby.more_options")),
        h("div.two", null,
          field(t("lobby.program_seconds"), this.programInput, "program-seconds", t("lobby.program_seconds_hint")),
          field(t("lobby.decision_seconds"), this.decisionInput, "decision-seconds", t("lobby.decision_seconds_hint"))),
        field(t("lobby.seed"), this.seedInput, "seed", t("lobby.seed_hint")),
        h("label.check", null, this.publicInput, " ", t("lobby.public"))),
      h("label.check.table-check", null, this.tableInput, " ", t("table.offer"), h("span.hint", null, t("table.offer_hint"))),
      h("div.form-actions", null, this.createError, this.createBtn));
    fill(this.formBox, h("h2", { id: "new-game-title" }, t("lobby.new_game")), form);
    const me = { kind: "human", me: true };
    this.seats = [me, { kind: "bot", bot: this.defaultBot() }, { kind: "bot", bot: this.defaultBot() }];
    const linked = this.linked && o.courses.find((c) => c.id === this.linked);
    if (linked && linked.edition !== "any" && o.editions.some((e) => e.id === linked.edition)) this.editionSelect.value = linked.edition;
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
    const fits = (c) => c.edition === "any" || this.edition === c.edition || this.edition.startsWith(c.edition + "-");
    const courses = ed && Array.isArray(ed.courses)
      ? o.courses.filter((c) => ed.courses.includes(c.id) || (c.custom && fits(c)))
      : o.courses.filter((c) => c.edition === this.edition || c.edition === "any");
    fill(this.courseSelect, ...groupCourses(courses));
    const linked = this.linked && courses.find((c) => c.id === this.linked);
    const preferred = linked || courses.find((c) => c.id === store.get("course")) || courses.find((c) => c.id === "tiny") || courses[0];
    if (preferred) this.courseSelect.value = preferred.id;
    const timer = ed && ed.timer;
    this.timerRule = timer;
    // speed: off unless chosen; sand: on by default (the server's default), may be turned off.
    const sand = timer && timer.kind === "sand";
    fill(this.timerSelect,
      sand
        ? h("option", { value: "" }, t("lobby.timer_standard", { count: timer.default }))
        : h("option", { value: "" }, t("lobby.timer_off")),
      ...(timer && timer.kind !== "none"
        ? timer.choices.filter((s) => !sand || s !== timer.default).map((s) => h("option", { value: String(s) }, t("common.seconds", { count: s })))
        : []),
      sand ? h("option", { value: "0" }, t("lobby.timer_off")) : null,
      h("option", { value: "custom" }, t("lobby.timer_custom")));
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
      h("span.tag", null, c.tier ? named("lobby.tier.", c.tier) : t("lobby.course_tag")), h("span.tag", null, c.length ? named("lobby.length.", c.length) : ""),
      h("span", null, [t("lobby.checkpoints", { count: c.checkpoints }), t("lobby.player_range", { low, high }), t("lobby.boards", { count: c.boards.length })].join(" · ")),
      h("span.dim", { "data-testid": "course-boards" }, t("lobby.board_list", { boards: c.boards.map((b) => titleOf("board", b)).join(", ") })));
    if (c.custom) { // the alternative rules its author named come ticked
      for (const box of this.variantsBox.querySelectorAll("input")) box.checked = (c.variants || []).includes(box.value);
    }
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
          // At one table this screen is everyone's: the creator's seat is one of the table's.
          h("span.seat-me", { "data-testid": "seat-me" }, t(this.tableInput && this.tableInput.checked ? "lobby.seat_at_table" : "lobby.seat_you", { name: this.nameInput.value.trim() || colourName(i) })));
      }
      const kind = h("select", {
        "aria-label": t("lobby.seat_n", { n: i + 1 }), "data-testid": "seat-kind",
        onchange: () => {
          const v = kind.value;
          if (v === "human") Object.assign(seat, { kind: "human", bot: null });
          else Object.assign(seat, { kind: "bot", bot: v.slice(4) });
          this.renderSeats();
        },
      },
      h("option", { value: "human", selected: seat.kind === "human" }, t("lobby.seat_person")),
      ...bots.map((b) => h("option", { value: "bot:" + b.id, selected: seat.kind === "bot" && seat.bot === b.id, title: b.description }, t("lobby.seat_bot", { bot: b.title }))));
      const chosen = seat.kind === "bot" && bots.find((b) => b.id === seat.bot);
      const about = chosen && chosen.description ? h("span.seat-about", { "data-testid": "bot-about" }, chosen.description) : null;
      const nameIn = h("input", { type: "text", maxlength: 20, placeholder: colourName(i), value: seat.name || "", "aria-label": t("lobby.seat_name", { n: i + 1 }), oninput: () => (seat.name = nameIn.value.trim()) });
      const remove = h("button.icon", { type: "button", title: t("lobby.remove_seat"), "aria-label": t("lobby.remove_seat_n", { n: i + 1 }), disabled: this.seats.length <= low, onclick: () => { this.seats.splice(i, 1); this.renderSeats(); } }, "×");
      return h("div.seat-row", { "data-testid": "seat-row" }, chip, kind, nameIn, remove, about);
    }));
    this.addSeatBtn.disabled = this.seats.length >= high;
  }

  /** The names the seats will have (the server names unnamed seats by colour). */
  seatNames() {
    const myName = this.nameInput.value.trim();
    return this.seats.map((seat, i) => (seat.me ? myName : seat.name) || colourName(i));
  }

  /** What is wrong with the form before it is sent (the server checks again), or null. */
  problem() {
    const seen = new Map();
    for (const name of this.seatNames()) {
      const key = name.replace(/\s+/g, " ").trim().toLowerCase();
      if (seen.has(key)) return t("lobby.same_name", { name });
      seen.set(key, true);
    }
    if (this.seedInput.value.trim() !== "" && !SEED_TEXT.test(this.seedInput.value)) {
      return t("lobby.bad_seed");
    }
    return null;
  }

  body() {
    const myName = this.nameInput.value.trim();
    const english = language() === "en";
    const seats = this.seats.map((seat, i) => {
      const out = { kind: seat.kind };
      if (seat.kind === "bot") out.bot = seat.bot;
      // Unnamed seats the server would name in English get their colour in the page's language
      // (a free seat for a person keeps the server's name: whoever joins names it).
      const own = english || (seat.kind === "human" && !seat.me) ? "" : colourName(i);
      const name = (seat.me ? myName : seat.name) || own;
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
      table: this.tableInput.checked, // the creator's screen is the table's: it takes no seat
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
      const table = this.tableInput.checked; // the shared screen of the tabletop mode
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
        this.createBtn.textContent = t("lobby.create");
        return;
      }
      this.createBtn.textContent = t("lobby.create_in", { left });
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
      fill(this.gamesBox, h("section.panel", null, h("p.error", null, refusalText(error.code, error.message))));
      return;
    }
    const open = active.filter((g) => g.status === "open");
    const running = active.filter((g) => g.status === "running");
    const mine = await this.seatStatuses(store.get("mine", []).slice(0, 6), active, finished);
    const title = (id) => {
      const c = this.options.courses.find((x) => x.id === id);
      return titleOf("course", id, c && c.title);
    };
    const rules = (ids) => this.rulesTitles(ids);
    fill(this.gamesBox,
      this.customPanel(),
      h("section.panel", { "data-testid": "open-games" }, h("h2", null, t("lobby.open_games")),
        open.length ? h("ul.game-list", null, open.map((g) => this.openRow(g, title))) : h("p.empty", null, t("lobby.no_open_games"))),
      running.length ? h("section.panel", { "data-testid": "running-games" }, h("h2", null, t("lobby.running")),
        h("ul.game-list", null, running.map((g) => gameRow(g, title, rules, [h("a.button.ghost.small", { href: `/?game=${encodeURIComponent(g.game_id)}` }, t("lobby.watch"))], t("lobby.round_n", { n: g.round }))))) : null,
      mine.length ? h("section.panel", { "data-testid": "your-seats" }, h("h2", null, t("lobby.your_seats")),
        h("ul.game-list", null, mine.map((m) => h("li.game-row", { "data-seat-game": m.game, "data-status": m.status || "" },
          seatChip(m.seat),
          h("div.grow", null, h("strong", null, title(m.course)), h("span.dim", null, ` · ${seatNote(m.status)}`)),
          h("div.actions", null, m.status === "finished"
            ? [h("a.button.ghost.small", { href: seatUrl(m.game, m.token) }, t("lobby.result")),
              h("a.button.ghost.small", { href: `/?replay=${encodeURIComponent(m.game)}` }, t("lobby.replay"))]
            : h("a.button.ghost.small", { href: seatUrl(m.game, m.token) }, t("lobby.continue"))))))) : null,
      finished.length ? h("section.panel", { "data-testid": "finished-games" }, h("h2", null, t("lobby.finished")),
        h("ul.game-list", null, finished.slice(0, 8).map((g) => gameRow(g, title, rules, [h("a.button.ghost.small", { href: `/?replay=${encodeURIComponent(g.game_id)}` }, t("lobby.replay"))], prettyResult(g.result, g.seats, g.edition))))) : null,
    );
  }

  // --------------------------------------------------------- custom courses
  /** The listed custom courses (GET /api/custom-courses), as the course list's entries. */
  async customCourses() {
    try {
      const data = await api.customCourses();
      const list = (data.courses || []).map((c) => ({ ...c, custom: true }));
      for (const c of list) if (!this.options.courses.some((x) => x.id === c.id)) this.options.courses.push(c);
      return list;
    } catch {
      return [];
    }
  }

  /** /?course=c-XXXXXXXX opens the lobby with that course chosen (listed or link-only). */
  async addLinkedCourse() {
    const id = params.get("course");
    if (!id) return;
    if (!this.options.courses.some((c) => c.id === id)) {
      try {
        const data = await api.customCourse(id);
        this.options.courses.push({ ...data.course, id, custom: true });
      } catch {
        toast(t("build.lobby.missing", { id }), "error");
        return;
      }
    }
    this.linked = id;
  }

  customPanel() {
    const list = this.custom || [];
    const shown = this.customAll ? list : list.slice(0, 12);
    const more = list.length > shown.length
      ? h("button.small.ghost", { type: "button", "data-testid": "custom-more", onclick: (e) => { this.customAll = true; e.target.closest("section").replaceWith(this.customPanel()); } },
        t("build.lobby.more", { count: list.length }))
      : null;
    return h("section.panel", { "data-testid": "custom-courses" }, h("h2", null, t("build.lobby.custom")),
      list.length
        ? h("ul.game-list", null, shown.map((c) => h("li.game-row", { "data-custom": c.id },
          h("div.grow", null, h("strong", null, c.title || c.id),
            h("div.meta", null, h("span.dim", null, [c.author ? t("build.lobby.by", { author: c.author }) : "", c.players ? t("lobby.player_range", { low: c.players[0], high: c.players[1] }) : ""].filter(Boolean).join(" · ")))),
          h("div.actions", null, h("button.primary.small", { type: "button", "data-testid": "custom-play-" + c.id, onclick: () => this.playCustom(c) }, t("build.lobby.play")),
            this.ownToken(c.id) ? h("button.small.ghost", { type: "button", "data-testid": "custom-delete-" + c.id, onclick: (e) => this.deleteCustom(c, e.target.closest("li")) }, t("build.lobby.delete")) : null))))
        : h("p.empty", null, t("build.lobby.none")), more);
  }

  /** The owner token of a custom course this browser saved (the builder keeps it), or null. */
  ownToken(id) {
    const own = store.get("custom." + id);
    return (own && own.owner_token) || null;
  }

  /** Delete a course this browser saved: gone from the store, the list and the form. */
  async deleteCustom(c, row) {
    try {
      await api.deleteCustomCourse(c.id, this.ownToken(c.id));
    } catch (error) {
      if (error.status !== 404) {
        toast(refusalText(error.code, error.message), "error");
        return;
      }
    }
    store.set("custom." + c.id, null);
    this.custom = (this.custom || []).filter((x) => x.id !== c.id);
    this.options.courses = this.options.courses.filter((x) => x.id !== c.id);
    const option = [...this.courseSelect.options].find((o) => o.value === c.id);
    if (option) option.remove();
    if (row) row.remove();
    this.onCourse();
    toast(t("build.lobby.deleted", { title: c.title || c.id }));
  }

  /** The Play button of a custom course: a game on it with the form's seats and rules. */
  playCustom(c) {
    if (c.edition !== "any" && this.options.editions.some((e) => e.id === c.edition) && this.editionSelect.value !== c.edition) {
      this.editionSelect.value = c.edition;
      this.onEdition();
    }
    this.courseSelect.value = c.id;
    this.onCourse();
    this.create();
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
    }, free.length ? t("lobby.join") : t("lobby.full"));
    const watch = h("a.button.ghost.small", { href: `/?game=${encodeURIComponent(g.game_id)}` }, t("lobby.watch"));
    return gameRow(g, title, (ids) => this.rulesTitles(ids), [join, watch], t("lobby.free_seats", { count: free.length }));
  }
}

function seatNote(status) {
  return ["open", "running", "finished"].includes(status) ? t("lobby.status." + status) : "";
}

/** An edition's name in the page's language (the server's title for an edition it does not know). */
function editionTitle(e) {
  return hasText("lobby.edition." + e.id) ? t("lobby.edition." + e.id) : e.title;
}

function gameRow(g, title, rules, actions, note) {
  const seats = (g.seats || []).map((s) => seatChip(s.seat, { cls: "tiny", title: s.kind === "bot" ? t("lobby.bot_seat", { name: seatName(s.seat, s.name) }) : seatName(s.seat, s.name), style: { opacity: s.kind === "human" && s.taken === false ? 0.35 : 1 }, content: s.kind === "bot" ? icon("bot") : String(s.seat + 1) }));
  const variants = (g.variants || []).filter((v) => v !== "speed");
  // A seed the host chose is shown before anyone joins: whoever knows it can work out every hand.
  const chosen = g.seed !== null && g.seed !== undefined && g.status !== "finished";
  return h("li.game-row", { "data-game": g.game_id },
    h("div.grow", null,
      h("strong", null, title(g.course)),
      h("div.meta", null, h("span.chips", null, seats), note ? h("span.dim", null, " " + note) : null,
        g.timer_seconds ? h("span.tag", null, icon("clock"), " ", t("common.seconds_short", { n: g.timer_seconds })) : null,
        variants.length ? h("span.tag", { title: rules(variants) }, t("lobby.more_rules", { count: variants.length })) : null,
        chosen ? h("span.tag.warn", { "data-testid": "seed-chosen", title: t("lobby.seed_chosen_title", { seed: g.seed }) }, t("lobby.seed_chosen")) : null)),
    h("div.actions", null, actions));
}

function groupCourses(courses) {
  const tiers = new Map();
  for (const c of courses) {
    const tier = c.custom ? "custom" : c.tier || "misc";
    if (!tiers.has(tier)) tiers.set(tier, []);
    tiers.get(tier).push(c);
  }
  const out = [];
  for (const [tier, list] of tiers) {
    const group = h("optgroup", { label: tier === "custom" ? t("build.lobby.group") : named("lobby.tier.", tier) });
    const about = (c) => [c.length ? named("lobby.length.", c.length) : null, `${c.players[0]}–${c.players[1]}`].filter(Boolean).join(", ");
    for (const c of list) group.append(h("option", { value: c.id }, `${titleOf("course", c.id, c.title)} (${about(c)})`));
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
