// Tabletop mode: one shared screen (a TV or a laptop) shows the board, the animation and the
// log; every player joins on a phone by scanning the big QR code of a seat and programs there.
//
// The shared screen is /?game=ID&table=1 in the browser that created the game (with "Play at
// one table": the creator takes no seat). That browser keeps the create response (the host
// token and each seat's one-time invite) in localStorage. It watches the game as a spectator
// (its WebSocket says hello without a token), so the server never sends it a hand or a
// decision. The QR codes come from the server (tabletop.py), asked with the seat's invite in
// the request's body. The first phone to open an invite takes the seat and gets a token of its
// own, which the shared screen never learns: a code disappears once its seat is taken, and a
// phone that went away comes back from its own browser, not from this screen. A seat nobody
// took keeps a code (during the game too); a new one is made with the host token when the old
// one is no longer valid, and a rematch's table makes its codes that way.
//
// The server also says who can open the links in the codes (X-Link-Reach): a link to this
// machine's loopback (a server started with `make play`) opens on no phone, so the screen then
// says how to start the server for the network instead of showing codes that fail silently.

import { api } from "./api.js";
import { GameScreen } from "./game.js";
import { t } from "./i18n.js";
import { fill, h, seatColour, store, tableUrl, toast, SEAT_INK } from "./util.js";

const TAKEN = "taken"; // what code() gives for a seat somebody holds already
const NETWORK = "network"; // X-Link-Reach of links other machines open (tabletop.py)
const NO_LAN = "no-lan"; // ... of loopback links from a server on the network: no address

/** The QR code of a seat's invite link: { url, reach }, the picture as an object URL and who
 * can open the link (the server's X-Link-Reach); null if the server will not draw it for this
 * code (a code made anew since, a seat taken, no QR library). */
async function seatCode(gameId, seat, invite) {
  const response = await fetch(`/api/games/${encodeURIComponent(gameId)}/seats/${seat}/qr`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ invite }),
    cache: "no-store",
  });
  if (!response.ok) return null;
  const reach = response.headers.get("X-Link-Reach") || NETWORK; // none: nothing to warn of
  const text = await response.text();
  return { url: URL.createObjectURL(new Blob([text], { type: "image/svg+xml" })), reach };
}

export class TableScreen extends GameScreen {
  constructor(root, { gameId }) {
    super(root, { gameId, token: null }); // a spectator: no seat, no hand
    this.created = store.get("created." + gameId, null);
    this.codes = new Map(); // seat -> Promise of a seatCode() answer (or null, or TAKEN)
    this.linkReach = null; // who can open the codes' links, once a code came
  }

  build() {
    super.build();
    document.body.classList.add("table-mode");
    // The log stays open on the shared screen: it tells the story of every register.
    const log = this.side.querySelector(".log-box");
    if (log) log.open = true;
    // After the game, the table follows to the rematch's table, with the same host token.
    this.chat.watchUrl = (id) => {
      if (this.hostToken && !store.get("created." + id, null)) {
        store.set("created." + id, { game_id: id, host_token: this.hostToken, seats: [] });
      }
      return tableUrl(id);
    };
    this.keepAwake();
  }

  get hostToken() {
    return (this.created && this.created.host_token) || null;
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

  /** The human seats of the game (as the server shows them), when this screen is the host's. */
  humanSeats() {
    if (!this.hostToken || !this.state) return [];
    return this.state.seats.filter((s) => s.kind === "human");
  }

  /** The newest invite this screen holds for a seat. */
  inviteOf(seat) {
    const codes = store.get("invites." + this.gameId, {}) || {};
    if (typeof codes[seat] === "string") return codes[seat];
    const entry = ((this.created && this.created.seats) || []).find((s) => s.seat === seat);
    return (entry && entry.invite) || null;
  }

  /** A seat's QR code: of the invite this screen holds, or of a new one the host token makes. */
  async drawCode(seat) {
    const held = this.inviteOf(seat);
    const drawn = held ? await seatCode(this.gameId, seat, held) : null;
    if (drawn) return drawn;
    const made = await api.invite(this.gameId, seat, this.hostToken);
    const codes = store.get("invites." + this.gameId, {}) || {};
    codes[seat] = made.invite;
    store.set("invites." + this.gameId, codes);
    return seatCode(this.gameId, seat, made.invite);
  }

  code(seat) {
    if (!this.codes.has(seat.seat)) {
      // A seat somebody holds (a game not made for a table: its creator's own seat) has no code.
      const drawn = this.drawCode(seat.seat).catch((error) => (error.code === "seat_taken" ? TAKEN : null));
      this.codes.set(seat.seat, drawn);
    }
    return this.codes.get(seat.seat);
  }

  /** One seat's card: its colour, name and state; its QR code while nobody holds the seat. */
  seatCard(live, small) {
    const joined = !!live.connected;
    const state = joined
      ? this.state.status === "open" ? (live.ready ? t("table.ready") : t("table.joined")) : t("table.playing")
      : live.taken ? t("table.phone_gone") : t("table.scan");
    const card = h("div.table-seat" + (joined ? ".joined" : "") + (small ? ".small" : ""), {
      "data-testid": "table-seat-" + live.seat, "data-joined": String(joined),
    });
    const chip = h("span.chip", { style: { background: seatColour(live.seat), color: SEAT_INK[live.seat % 6] } }, String(live.seat + 1));
    card.append(h("div.table-seat-head", null, chip, h("span.pname", null, live.name)));
    if (!live.taken) {
      const img = h("img.table-qr", { alt: t("table.code_alt", { seat: live.seat + 1, name: live.name }), "data-testid": "table-qr-" + live.seat });
      const frame = h("div.table-qr-box", null, img);
      this.code(live).then((drawn) => {
        if (drawn === TAKEN) frame.replaceChildren(h("p.hint", null, t("table.phone_gone")));
        else if (drawn) {
          img.src = drawn.url;
          this.noteReach(drawn.reach);
        } else frame.replaceChildren(h("p.hint", null, t("table.no_code")));
      });
      card.append(frame);
    } else {
      this.codes.delete(live.seat); // taken: its invite is used up
    }
    card.append(h("p.table-seat-state", { "data-testid": "table-seat-state" }, state));
    return card;
  }

  /** Before the start: a big QR code for every seat, and the start button. */
  waitingRoom() {
    const seats = this.humanSeats();
    const parts = [this.trayHead(t("table.join_title"))];
    if (!seats.length) {
      parts.push(h("p.hint", { "data-testid": "table-no-seats" }, t("table.not_creator")));
      return parts;
    }
    parts.push(h("p.table-lead", null, t("table.lead")));
    if (seats.some((s) => !s.taken)) parts.push(this.linkWarning());
    const grid = h("div.table-seats", { "data-testid": "table-seats", "data-count": String(seats.length) });
    for (const seat of seats) grid.append(this.seatCard(seat, false));
    parts.push(grid);
    const missing = seats.filter((s) => !s.connected).length;
    const start = h("button.primary", {
      type: "button", "data-testid": "table-start",
      onclick: async () => {
        start.disabled = true;
        try {
          await api.start(this.gameId, this.hostToken);
        } catch (error) {
          toast(error.message, "error");
          start.disabled = false;
        }
      },
    }, t("table.start"));
    parts.push(h("div.program-actions", null, start, this.fullscreenButton()));
    // Started with no phone at all, the game waits for the first player (nobody is there).
    const hint = !missing ? t("table.start_when_ready")
      : missing === seats.length ? t("table.start_hint_none")
        : t("table.start_hint", { count: missing });
    parts.push(h("p.hint", { "data-testid": "table-start-hint" }, hint));
    return parts;
  }

  /** During the game: the seats without a phone, small: a code for a seat nobody took, and
   * for a seat whose phone went away the word to open the game on that phone again. */
  spectatorTray(obs) {
    const gone = this.humanSeats().filter((s) => !s.connected);
    const parts = [this.trayHead(t("table.title"), obs ? t("table.round", { round: obs.round }) : "")];
    if (gone.length) {
      parts.push(h("p.hint", null, t("table.rejoin")));
      if (gone.some((s) => !s.taken)) parts.push(this.linkWarning(true));
      const grid = h("div.table-seats.small", { "data-testid": "table-seats" });
      for (const seat of gone) grid.append(this.seatCard(seat, true));
      parts.push(grid);
    } else {
      parts.push(h("p.hint", { "data-testid": "table-all-joined" }, t("table.all_joined")));
    }
    parts.push(h("div.program-actions", null, this.fullscreenButton()));
    return parts;
  }

  /** The place of the warning that no phone can open the codes' links: filled once a code
   * came and the server said so (empty and hidden until then, and for network links).
   * ``compact`` (the narrow tray during the game): the title and the first command only. */
  linkWarning(compact = false) {
    const box = h("div.table-warning" + (compact ? ".compact" : ""), { "data-testid": "table-link-warning", role: "status" });
    this.fillLinkWarning(box);
    return box;
  }

  /** What the server said about a code's link: the warnings on the screen follow it. */
  noteReach(reach) {
    if (reach === this.linkReach) return;
    this.linkReach = reach;
    this.tray.querySelectorAll("[data-testid=table-link-warning]").forEach((box) => this.fillLinkWarning(box));
  }

  fillLinkWarning(box) {
    const reach = this.linkReach;
    box.hidden = !reach || reach === NETWORK;
    box.dataset.reach = reach || "";
    if (box.hidden) {
      box.replaceChildren();
      return;
    }
    // The commands stay as typed (not translated); the port is the one this page came to.
    const port = location.port || (location.protocol === "https:" ? "443" : "80");
    const serve = `roborally serve --host 0.0.0.0 --port ${port}`;
    const fixes = reach === NO_LAN
      ? [[null, `${serve} --public-url http://ADDRESS:${port}`]]
      : [[t("table.link_make"), "make play-lan"], [t("table.link_serve"), serve]];
    const compact = box.classList.contains("compact");
    fill(box,
      h("strong.table-warning-title", null, t("table.link_title")),
      compact ? null : h("p", null, t(reach === NO_LAN ? "table.link_no_lan" : "table.link_loopback")),
      h("ul.table-fixes", null, (compact ? fixes.slice(0, 1) : fixes).map(([label, command]) =>
        h("li", null, label ? h("span", null, label + " ") : null, h("code", { "data-testid": "table-fix" }, command)))),
    );
  }

  fullscreenButton() {
    if (!document.fullscreenEnabled) return null;
    return h("button.ghost", {
      type: "button", "data-testid": "table-fullscreen",
      onclick: () => (document.fullscreenElement ? document.exitFullscreen() : document.documentElement.requestFullscreen()).catch(() => {}),
    }, t("table.fullscreen"));
  }
}
