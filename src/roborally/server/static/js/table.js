// Tabletop mode: one shared screen (a TV or a laptop) shows the board, the animation and the
// log; every player joins on a phone by scanning the big QR code of a seat and programs there.
//
// The shared screen is /?game=ID&table=1 in the browser that created the game: that browser
// keeps the create response (every seat's token, the host token) in localStorage. It watches
// the game as a spectator (its WebSocket says hello without a token), so the server never sends
// it a hand or a decision. The QR codes come from the server (tabletop.py), asked with each
// seat's token in the request's body; a code disappears once its seat's phone is connected and
// comes back, smaller, if that phone goes away during the game.

import { api } from "./api.js";
import { GameScreen } from "./game.js";
import { t } from "./i18n.js";
import { h, seatColour, store, toast, SEAT_INK } from "./util.js";

/** The QR code of a seat's link as a picture (an object URL), or null if the server has none. */
async function seatCode(gameId, seat, token) {
  const response = await fetch(`/api/games/${encodeURIComponent(gameId)}/seats/${seat}/qr`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ token }),
    cache: "no-store",
  });
  if (!response.ok) return null;
  const text = await response.text();
  return URL.createObjectURL(new Blob([text], { type: "image/svg+xml" }));
}

export class TableScreen extends GameScreen {
  constructor(root, { gameId }) {
    super(root, { gameId, token: null }); // a spectator: no seat, no hand
    this.created = store.get("created." + gameId, null);
    this.codes = new Map(); // seat -> Promise of an object URL (or null)
  }

  build() {
    super.build();
    document.body.classList.add("table-mode");
    // The log stays open on the shared screen: it tells the story of every register.
    const log = this.side.querySelector(".log-box");
    if (log) log.open = true;
    this.keepAwake();
  }

  /** The screen stays on through a long game (where the browser allows it). */
  async keepAwake() {
    if (!navigator.wakeLock) return;
    const ask = async () => {
      try {
        this.wakeLock = await navigator.wakeLock.request("screen");
      } catch {
        /* not allowed now (a hidden tab): asked again when it is shown */
      }
    };
    document.addEventListener("visibilitychange", () => document.visibilityState === "visible" && ask());
    ask();
  }

  /** The human seats the shared screen holds links for. */
  humanSeats() {
    return ((this.created && this.created.seats) || []).filter((s) => s.kind === "human" && s.token);
  }

  code(seat) {
    if (!this.codes.has(seat.seat)) {
      this.codes.set(seat.seat, seatCode(this.gameId, seat.seat, seat.token).catch(() => null));
    }
    return this.codes.get(seat.seat);
  }

  /** One seat's card: its colour, name and state, and its QR code while no phone holds it. */
  seatCard(seat, live, small) {
    const joined = !!(live && live.connected);
    const name = live ? live.name : seat.name;
    const state = !joined
      ? (live && live.taken && this.state.status !== "open" ? t("table.phone_gone") : t("table.scan"))
      : this.state.status === "open"
        ? (live.ready ? t("table.ready") : t("table.joined"))
        : t("table.playing");
    const card = h("div.table-seat" + (joined ? ".joined" : "") + (small ? ".small" : ""), {
      "data-testid": "table-seat-" + seat.seat, "data-joined": String(joined),
    });
    const chip = h("span.chip", { style: { background: seatColour(seat.seat), color: SEAT_INK[seat.seat % 6] } }, String(seat.seat + 1));
    card.append(h("div.table-seat-head", null, chip, h("span.pname", null, name)));
    if (!joined) {
      const img = h("img.table-qr", { alt: t("table.code_alt", { seat: seat.seat + 1, name }), "data-testid": "table-qr-" + seat.seat });
      const frame = h("div.table-qr-box", null, img);
      this.code(seat).then((url) => {
        if (url) img.src = url;
        else frame.replaceChildren(h("p.hint", null, t("table.no_code")));
      });
      card.append(frame);
    }
    card.append(h("p.table-seat-state", { "data-testid": "table-seat-state" }, state));
    return card;
  }

  /** Before the start: a big QR code for every seat, and the start button. */
  waitingRoom() {
    const st = this.state;
    const seats = this.humanSeats();
    const parts = [this.trayHead(t("table.join_title"))];
    if (!seats.length) {
      parts.push(h("p.hint", { "data-testid": "table-no-seats" }, t("table.not_creator")));
      return parts;
    }
    parts.push(h("p.table-lead", null, t("table.lead")));
    const grid = h("div.table-seats", { "data-testid": "table-seats", "data-count": String(seats.length) });
    for (const seat of seats) grid.append(this.seatCard(seat, st.seats.find((s) => s.seat === seat.seat), false));
    parts.push(grid);
    const missing = seats.filter((s) => !(st.seats.find((x) => x.seat === s.seat) || {}).connected).length;
    const start = h("button.primary", {
      type: "button", "data-testid": "table-start",
      onclick: async () => {
        start.disabled = true;
        try {
          await api.start(this.gameId, this.created.host_token);
        } catch (error) {
          toast(error.message, "error");
          start.disabled = false;
        }
      },
    }, t("table.start"));
    parts.push(h("div.program-actions", null, start, this.fullscreenButton()));
    parts.push(h("p.hint", null, missing
      ? t("table.start_hint", { count: missing })
      : t("table.start_when_ready")));
    return parts;
  }

  /** During the game: the QR codes of seats whose phone went away, small, to come back. */
  spectatorTray(obs) {
    const st = this.state;
    const gone = this.humanSeats().filter((s) => !(st.seats.find((x) => x.seat === s.seat) || {}).connected);
    const parts = [this.trayHead(t("table.title"), obs ? t("table.round", { round: obs.round }) : "")];
    if (gone.length) {
      parts.push(h("p.hint", null, t("table.rejoin")));
      const grid = h("div.table-seats.small", { "data-testid": "table-seats" });
      for (const seat of gone) grid.append(this.seatCard(seat, st.seats.find((s) => s.seat === seat.seat), true));
      parts.push(grid);
    } else {
      parts.push(h("p.hint", { "data-testid": "table-all-joined" }, t("table.all_joined")));
    }
    parts.push(h("div.program-actions", null, this.fullscreenButton()));
    return parts;
  }

  fullscreenButton() {
    if (!document.fullscreenEnabled) return null;
    return h("button.ghost", {
      type: "button", "data-testid": "table-fullscreen",
      onclick: () => (document.fullscreenElement ? document.exitFullscreen() : document.documentElement.requestFullscreen()).catch(() => {}),
    }, t("table.fullscreen"));
  }
}
