// The chat of a game's page (waiting room and game): messages to everyone at the table, quick
// emotes shown beside the sender's name for a moment, and the rematch of a finished game
// (docs/protocol.md 2.7, docs/web-client.md "Chat, emotes and rematch").
//
// Every text a player wrote is put on the page as text (h() makes text nodes): never as HTML.

import { t } from "./i18n.js";
import { fill, h, s, seatColour, seatUrl, store } from "./util.js";

// The emotes the server knows (docs/protocol.md 2.7), drawn here (no emoji: some systems lack
// them, and they look different everywhere).
const INK = "#3a2a00";
const FACE = ["circle", { cx: 12, cy: 12, r: 10, fill: "#f2c94c" }];
const EYES = [["circle", { cx: 8.5, cy: 9.5, r: 1.5, fill: INK }], ["circle", { cx: 15.5, cy: 9.5, r: 1.5, fill: INK }]];
const LINE = { fill: "none", stroke: INK, "stroke-width": 1.6, "stroke-linecap": "round" };
const EMOTE_SHAPES = {
  thumbs_up: [
    ["path", { d: "M2.5 10h4v10h-4z", fill: "#4dabf7" }],
    ["path", { d: "M8.5 10l3.3-6.6c1.5-.3 2.7.9 2.4 2.4L13.6 9H19a2 2 0 0 1 2 2.3l-1.2 6.9A2.2 2.2 0 0 1 17.6 20H8.5z", fill: "#4dabf7" }],
  ],
  laugh: [FACE, ["path", { d: "M6.3 9.8q1.7-2.4 3.4 0M14.3 9.8q1.7-2.4 3.4 0", ...LINE }], ["path", { d: "M6.5 13h11a5.5 5.5 0 0 1-11 0z", fill: INK }]],
  wow: [FACE, ...EYES, ["ellipse", { cx: 12, cy: 16.2, rx: 2.3, ry: 2.9, fill: INK }]],
  oops: [FACE, ...EYES, ["rect", { x: 6.8, y: 13.6, width: 10.4, height: 4, rx: 1.6, fill: "#fff", stroke: INK, "stroke-width": 1.3 }],
    ["path", { d: "M10.3 13.6v4M13.7 13.6v4M6.8 15.6h10.4", ...LINE, "stroke-width": 1 }]],
  gg: [["rect", { x: 1, y: 5, width: 22, height: 14, rx: 4, fill: "#5cd67a" }],
    ["text", { x: 12, y: 16.3, "font-size": 10, "font-weight": 800, "text-anchor": "middle", fill: "#0f2a17", "font-family": "system-ui, sans-serif" }, "GG"]],
  good_luck: [
    ["path", { d: "M12 12q1.5 6 5.5 9.5", fill: "none", stroke: "#1e7a45", "stroke-width": 1.8, "stroke-linecap": "round" }],
    ...[[8.2, 8.2], [15.8, 8.2], [8.2, 15.8], [15.8, 15.8]].map(([cx, cy]) => ["circle", { cx, cy, r: 4.3, fill: "#27ae60" }]),
    ["circle", { cx: 12, cy: 12, r: 2, fill: "#5cd67a" }],
  ],
};

/** An emote's picture (its name is said by the element around it). */
export function emoteIcon(id) {
  const shapes = EMOTE_SHAPES[id] || [FACE];
  return h("span.emote-icon", { "aria-hidden": "true" },
    s("svg", { viewBox: "0 0 24 24" }, shapes.map(([tag, attrs, text]) => s(tag, attrs, text))));
}
const BUBBLE_MS = 4000; // how long an emote stays beside its sender's name

const clock = (at) => new Date(at * 1000).toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" });

export class ChatPanel {
  /** send(type, fields) -> message id or null (not connected). */
  constructor({ send, gameId = null }) {
    this.send = send;
    this.gameId = gameId; // the game this chat is in
    this.watchUrl = null; // (rematch id) => the page that watches a rematch (a table: its table)
    this.seat = undefined; // null: watching (after the welcome)
    this.canWrite = false;
    this.maxChars = 300;
    this.emotes = Object.keys(EMOTE_SHAPES);
    this.seen = new Set(); // entry numbers shown (a reconnect sends the history again)
    this.unread = 0;
    this.sent = new Map(); // message id -> the text sent (given back when it is refused)
    this.status = null;
    this.rematch = null; // the rematch's game id, once there is one
    this.rematchBoxes = [];
    this.bubbles = new Map(); // seat -> {emote, until}
    this.open = store.get("chat.open", window.innerWidth > 760);
    this.build();
  }

  build() {
    this.countEl = h("span.chat-unread", { hidden: true, "data-testid": "chat-unread" });
    this.toggle = h("button.chat-toggle", {
      type: "button", "aria-controls": "chat-body", "data-testid": "chat-toggle",
      onclick: () => this.setOpen(!this.open),
    }, h("span.chat-title", null, t("chat.title")), this.countEl);
    this.log = h("ol.chat-log", { "aria-live": "polite", "aria-relevant": "additions", "aria-label": t("chat.log_label"), "data-testid": "chat-log" });
    this.emptyEl = h("p.chat-empty", null, t("chat.empty_log"));
    this.input = h("input.chat-input", {
      type: "text", maxlength: this.maxChars, autocomplete: "off", enterkeyhint: "send",
      placeholder: t("chat.placeholder"), "aria-label": t("chat.message_label"), "data-testid": "chat-input",
    });
    this.sendBtn = h("button.chat-send", { type: "submit", "data-testid": "chat-send" }, t("chat.send"));
    this.form = h("form.chat-form", { onsubmit: (e) => { e.preventDefault(); this.sendText(); } }, this.input, this.sendBtn);
    this.emoteRow = h("div.chat-emotes", { role: "group", "aria-label": t("chat.emotes_label") });
    this.errorEl = h("p.chat-error", { role: "alert", hidden: true, "data-testid": "chat-error" });
    this.noteEl = h("p.chat-note", { hidden: true }, t("chat.spectator_note"));
    this.body = h("div.chat-body", { id: "chat-body" }, this.log, this.emptyEl, this.emoteRow, this.form, this.errorEl, this.noteEl);
    this.el = h("section.chat-box", { "aria-label": t("chat.title"), "data-testid": "chat" }, this.toggle, this.body);
    this.renderEmotes();
    this.renderWriting();
    this.setOpen(this.open);
  }

  setOpen(open) {
    this.open = open;
    store.set("chat.open", open);
    this.body.hidden = !open;
    this.el.classList.toggle("closed", !open);
    this.toggle.setAttribute("aria-expanded", String(open));
    if (open) {
      this.unread = 0;
      this.scrollDown();
    }
    this.renderUnread();
  }

  renderUnread() {
    const n = this.unread;
    this.countEl.hidden = n === 0;
    this.countEl.textContent = String(n);
    this.countEl.setAttribute("aria-label", t("chat.unread", { count: n }));
    this.toggle.title = n ? t("chat.unread", { count: n }) : "";
  }

  renderEmotes() {
    fill(this.emoteRow, this.emotes.filter((id) => EMOTE_SHAPES[id]).map((id) => h("button.emote", {
      type: "button", title: t("emote." + id), "aria-label": t("emote." + id), "data-emote": id,
      "data-testid": "emote",
      onclick: () => this.sendEmote(id),
    }, emoteIcon(id))));
  }

  renderWriting() {
    this.form.hidden = !this.canWrite;
    this.emoteRow.hidden = !this.canWrite;
    this.noteEl.hidden = this.canWrite || this.seat === undefined;
    this.input.maxLength = this.maxChars;
  }

  // ------------------------------------------------------------ messages
  /** A message from the server; true when it was for the chat alone (the game ignores it). */
  onMessage(msg) {
    switch (msg.type) {
      case "welcome": {
        const chat = msg.chat || {};
        this.seat = msg.seat;
        this.canWrite = !!chat.can_write;
        this.maxChars = chat.max_chars || this.maxChars;
        if (Array.isArray(chat.emotes)) this.emotes = chat.emotes;
        this.renderEmotes();
        this.renderWriting();
        for (const entry of chat.messages || []) this.add(entry, true);
        this.setRematch(msg.rematch || null);
        return false;
      }
      case "state":
        if (msg.status !== this.status) {
          this.status = msg.status;
          this.renderRematch();
        }
        return false;
      case "chat":
        this.add(msg.entry, false);
        return true;
      case "rematch":
        this.onRematch(msg);
        return true;
      case "ack":
        if (!["chat", "emote", "rematch"].includes(msg.for)) return false;
        this.sent.delete(msg.ref);
        return true;
      case "error":
        if (!["chat", "emote", "rematch"].includes(msg.for)) return false;
        this.onError(msg);
        return true;
      default:
        return false;
    }
  }

  add(entry, old) {
    if (!entry || this.seen.has(entry.n)) return;
    this.seen.add(entry.n);
    const mine = entry.seat === this.seat;
    const name = h("strong.chat-name", null, entry.name);
    const dot = h("span.ldot", { style: { background: seatColour(entry.seat) }, "aria-hidden": "true" });
    let body;
    if (entry.emote) {
      body = h("span.chat-text.chat-emote", null, emoteIcon(entry.emote), t("emote." + entry.emote));
    } else {
      body = h("span.chat-text", null, entry.text);
    }
    const li = h("li.chat-msg" + (mine ? ".mine" : ""), { "data-testid": "chat-message", title: clock(entry.at) },
      dot, name, h("span.chat-sep", null, ": "), body);
    this.log.append(li);
    while (this.log.children.length > 100) this.log.firstElementChild.remove();
    this.emptyEl.hidden = true;
    if (!old && entry.emote) this.bubble(entry.seat, entry.emote);
    if (!old && !this.open && !mine) {
      this.unread += 1;
      this.renderUnread();
    }
    this.scrollDown();
  }

  scrollDown() {
    requestAnimationFrame(() => (this.log.scrollTop = this.log.scrollHeight));
  }

  sendText() {
    const text = this.input.value.trim();
    this.showError(null);
    if (!text) return;
    const id = this.send("chat", { text });
    if (id === null) {
      this.showError(t("chat.error.offline"));
      return;
    }
    this.sent.set(id, text);
    this.input.value = "";
  }

  sendEmote(emote) {
    this.showError(null);
    if (this.send("emote", { emote }) === null) this.showError(t("chat.error.offline"));
  }

  onError(msg) {
    const text = this.sent.get(msg.ref);
    this.sent.delete(msg.ref);
    if (text && !this.input.value) this.input.value = text; // back to the player, to change
    const words = {
      chat_too_long: () => t("chat.error.too_long", { max: this.maxChars }),
      chat_empty: () => t("chat.error.empty"),
      chat_too_fast: () => t("chat.error.too_fast", { count: msg.retry_after || 1 }),
      not_a_player: () => t("chat.spectator_note"),
      rematch_refused: () => t("rematch.error.refused"),
      out_of_phase: () => t("rematch.error.not_over"),
      no_free_seat: () => t("rematch.error.seat_taken"),
    }[msg.code];
    const fallback = msg.for === "rematch" ? t("rematch.error.failed") : t("chat.error.failed");
    if (msg.for === "rematch") {
      this.asked = false;
      this.renderRematch();
      if (!this.open) this.setOpen(true);
    }
    this.showError(words ? words() : fallback);
  }

  showError(text) {
    this.errorEl.hidden = !text;
    this.errorEl.textContent = text || "";
  }

  // ------------------------------------------------------ emote bubbles
  /** Show an emote beside its sender's name (in the players' list) for a few seconds. */
  bubble(seat, emote) {
    this.bubbles.set(seat, { emote, until: Date.now() + BUBBLE_MS });
    this.placeBubbles();
    if (!this.watcher) {
      // The players' list is drawn again and again: put the bubbles back while they last.
      this.watcher = new MutationObserver(() => this.placeBubbles());
      this.watcher.observe(document.body, { childList: true, subtree: true });
    }
    setTimeout(() => this.placeBubbles(), BUBBLE_MS + 50);
  }

  placeBubbles() {
    const now = Date.now();
    for (const [seat, b] of this.bubbles) if (b.until <= now) this.bubbles.delete(seat);
    document.querySelectorAll(".emote-bubble").forEach((el) => {
      const b = this.bubbles.get(Number(el.dataset.seat));
      if (!b || b.emote !== el.dataset.emote) el.remove();
    });
    for (const [seat, b] of this.bubbles) {
      document.querySelectorAll(`.player[data-seat="${seat}"] .player-head`).forEach((head) => {
        if (head.querySelector(".emote-bubble")) return;
        head.append(h("span.emote-bubble", {
          "data-seat": seat, "data-emote": b.emote, "data-testid": "emote-bubble",
          title: t("emote." + b.emote), role: "img", "aria-label": t("emote." + b.emote),
        }, emoteIcon(b.emote)));
      });
    }
    if (!this.bubbles.size && this.watcher) {
      this.watcher.disconnect();
      this.watcher = null;
    }
  }

  // ------------------------------------------------------------- rematch
  /** A place for the rematch button (the game-over tray, the result window); kept up to date. */
  rematchBox() {
    const box = h("div.rematch-box", { "data-testid": "rematch-box" });
    this.rematchBoxes = this.rematchBoxes.filter((b) => b.isConnected).concat([box]);
    this.renderRematchBox(box);
    return box;
  }

  /** Put the rematch button first in the row of buttons of ``container`` (the game-over tray,
   * the result window), if it has one. */
  addRematch(container) {
    const row = container.querySelector(".modal-actions, .program-actions");
    if (row) row.prepend(this.rematchBox());
  }

  setRematch(gameId) {
    this.rematch = gameId;
    this.renderRematch();
  }

  renderRematch() {
    this.rematchBoxes = this.rematchBoxes.filter((b) => b.isConnected);
    for (const box of this.rematchBoxes) this.renderRematchBox(box);
  }

  renderRematchBox(box) {
    if (this.status !== "finished") {
      fill(box);
      return;
    }
    if (this.seat === null || this.seat === undefined) {
      // A tabletop's shared screen follows to the rematch's table (watchUrl, table.js).
      const href = this.watchUrl ? this.watchUrl(this.rematch) : `/?game=${encodeURIComponent(this.rematch)}`;
      fill(box, this.rematch
        ? h("a.button.primary", { href, "data-testid": "watch-rematch" }, t(this.watchUrl ? "table.rematch" : "rematch.watch"))
        : null);
      return;
    }
    const label = this.asked ? t("rematch.starting") : this.rematch ? t("rematch.join") : t("rematch.button");
    fill(box, h("button.primary.rematch", {
      type: "button", "data-testid": "rematch", disabled: !!this.asked, title: t("rematch.hint"),
      onclick: () => this.askRematch(),
    }, label));
  }

  askRematch() {
    if (this.send("rematch") === null) {
      this.showError(t("chat.error.offline"));
      return;
    }
    this.asked = true;
    this.renderRematch();
  }

  onRematch(msg) {
    this.setRematch(msg.game_id);
    if (msg.token) {
      // This seat's place in the new game: go there (the link plays the same seat); its host
      // makes invite links there for the seats nobody has claimed.
      location.assign(seatUrl(msg.game_id, msg.token));
      return;
    }
    const line = h("li.chat-msg.chat-system", { "data-testid": "chat-rematch" },
      t("rematch.started_by", { name: msg.by || "?" }), " ",
      h("a", { href: `/?game=${encodeURIComponent(msg.game_id)}` }, t("rematch.watch")));
    this.log.append(line);
    this.emptyEl.hidden = true;
    this.scrollDown();
  }
}
