// Share and play: the course saved to the server's custom course store (listed in the lobby or
// reachable by its link only, with the author's name), then a game on it against bots or with
// friends (the usual waiting room and invite links).

import { refusalText } from "../errors.js";
import { t } from "../i18n.js";
import { variantInfo } from "../variants.js";
import { botChoices } from "../bots.js";
import { copyText, h, fill, seatUrl, store } from "../util.js";
import { buildApi } from "./buildapi.js";

export class PlayPanel {
  /** app: main.js's Builder (courseText(), state.course, options). */
  constructor(app) {
    this.app = app;
    this.saved = null; // {id, link, owner_token, text}
    this.el = h("section.panel.play-panel", { "aria-labelledby": "play-title", "data-testid": "play" });
    this.message = h("p.play-message", { role: "alert", "data-testid": "play-message", hidden: true });
  }

  say(text, bad = false) {
    this.message.hidden = !text;
    this.message.textContent = text || "";
    this.message.classList.toggle("error", bad);
  }

  render() {
    const o = this.app.options;
    const edition = this.edition();
    this.author = h("input", { type: "text", id: "play-author", maxlength: 40, value: store.get("name", ""), "data-testid": "play-author", autocomplete: "nickname" });
    this.listed = h("input", { type: "checkbox", id: "play-listed", checked: true, "data-testid": "play-listed" });
    const bots = botChoices(o);
    this.bot = h("select", { id: "play-bot", "data-testid": "play-bot" }, bots.map((b) => h("option", { value: b.id }, b.title)));
    const [low, high] = this.app.state.course.players;
    this.bots = h("input", { type: "number", id: "play-bots", min: 0, max: Math.max(0, high - 1), value: Math.min(Math.max(1, low - 1), high - 1), "data-testid": "play-bots" });
    this.rounds = h("input", { type: "number", id: "play-rounds", min: 0, max: (o && o.limits && o.limits.max_rounds) || 200, value: (o && o.defaults && o.defaults.max_rounds) ?? 50, "data-testid": "play-rounds" });
    this.friends = h("input", { type: "number", id: "play-friends", min: 0, max: Math.max(0, high - 1), value: 0, "data-testid": "play-friends" });
    const variants = ((o && o.variants) || []).filter((v) => !v.editions || v.editions.includes(edition));
    this.variants = h("div.variants", { "data-testid": "play-variants" }, variants.map((v) => {
      const info = variantInfo(o, v.id);
      const course = this.app.state.course;
      // The course keeps them (its file's variants): a game on it starts with them ticked.
      const onchange = () => this.app.change(() => (course.variants = [...this.variants.querySelectorAll("input:checked")].map((x) => x.value)), { render: false });
      return h("label.check.variant", { title: info.description }, h("input", { type: "checkbox", value: v.id, checked: (course.variants || []).includes(v.id), onchange, "data-testid": "play-variant-" + v.id }), h("span", null, info.title));
    }));
    const link = this.saved ? location.origin + this.saved.link : "";
    fill(this.el,
      h("h2", { id: "play-title" }, t("build.play.title")),
      h("div.field", null, h("label", { for: "play-author" }, t("build.play.author")), this.author),
      h("label.check", null, this.listed, " ", t("build.play.listed")),
      h("p.hint", null, t("build.play.listed_hint")),
      h("div.button-row", null, h("button.small", { type: "button", "data-testid": "play-save", onclick: () => this.save() }, t("build.play.save"))),
      this.saved ? h("div.share", { "data-testid": "share" }, h("span", null, t("build.play.link")), " ",
        h("a", { href: link, "data-testid": "share-link" }, link), " ",
        h("button.small.ghost", { type: "button", onclick: () => copyText(link).then(() => this.say(t("build.play.copied"))) }, t("build.play.copy")), " ",
        h("button.small.ghost", { type: "button", "data-testid": "play-delete", onclick: () => this.remove() }, t("build.play.delete"))) : null,
      h("fieldset", null, h("legend", null, t("build.play.rules")), variants.length ? [h("p.hint", null, t("build.play.rules_hint")), this.variants] : h("p.hint", null, t("build.play.no_rules"))),
      h("div.two", null,
        h("div.field", null, h("label", { for: "play-bots" }, t("build.play.bots")), this.bots),
        h("div.field", null, h("label", { for: "play-bot" }, t("build.play.bot_kind")), this.bot)),
      h("div.two", null,
        h("div.field", null, h("label", { for: "play-friends" }, t("build.play.friends")), this.friends, h("span.hint", null, t("build.play.friends_hint"))),
        h("div.field", null, h("label", { for: "play-rounds" }, t("lobby.round_limit")), this.rounds)),
      h("div.button-row", null, h("button.primary", { type: "button", "data-testid": "play-now", onclick: () => this.play() }, t("build.play.play"))),
      this.message);
  }

  edition() {
    const e = this.app.state.course.edition;
    return e === "any" ? "2023" : e;
  }

  /** Take the saved course off the server (its owner token); games on it play on. */
  async remove() {
    const saved = this.saved;
    if (!saved) return;
    try {
      await buildApi.remove(saved.id, saved.owner_token);
    } catch (error) {
      if (error.status !== 404) {
        this.say(refusalText(error.code, error.message), true);
        return;
      }
    }
    store.set("custom." + saved.id, null);
    this.saved = null;
    this.render();
    this.say(t("build.play.deleted"));
  }

  /** Save the course (again if it changed since); returns its id or null. */
  async save() {
    await this.app.whenChecked();
    const text = this.app.courseText();
    if (!text) {
      this.say(t("build.play.not_ready"), true);
      return null;
    }
    if (this.saved && this.saved.text === text) return this.saved.id;
    const name = this.author.value.trim();
    if (name) store.set("name", name);
    try {
      const res = await buildApi.save({ text, author: name || t("build.play.anonymous"), listed: this.listed.checked });
      this.saved = { ...res, text };
      store.set("custom." + res.id, { owner_token: res.owner_token, title: this.app.state.course.title });
      this.render();
      this.say(t("build.play.saved", { id: res.id }));
      return res.id;
    } catch (error) {
      this.say(refusalText(error.code, error.message, "create"), true);
      return null;
    }
  }

  async play() {
    const id = await this.save();
    if (!id) return;
    const [low, high] = this.app.state.course.players;
    const bots = Math.max(0, parseInt(this.bots.value, 10) || 0);
    const friends = Math.max(0, parseInt(this.friends.value, 10) || 0);
    const count = 1 + bots + friends;
    if (count < low || count > high) {
      this.say(t("build.play.seats_range", { low, high }), true);
      return;
    }
    const seats = [{ kind: "human", name: this.author.value.trim() || undefined }];
    for (let i = 0; i < friends; i++) seats.push({ kind: "human" });
    for (let i = 0; i < bots; i++) seats.push({ kind: "bot", bot: this.bot.value });
    const body = {
      course: id, edition: this.edition(), seats,
      variants: [...this.variants.querySelectorAll("input:checked")].map((x) => x.value),
      max_rounds: Math.max(0, parseInt(this.rounds.value, 10) || 0),
    };
    try {
      const res = await buildApi.createGame(body);
      store.set("created." + res.game_id, res);
      const host = res.seats.find((x) => x.seat === res.host_seat && x.token);
      location.href = host ? seatUrl(res.game_id, host.token) : `/?game=${encodeURIComponent(res.game_id)}`;
    } catch (error) {
      this.say(refusalText(error.code, error.message, "create"), true);
    }
  }
}
