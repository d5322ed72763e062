// The game WebSocket (docs/protocol.md section 2): hello (with the seat token: never in a URL),
// reconnects with backoff, message ids, and the ways the server turns a socket away.

/**
 * Why the server closed a socket, by close code, and whether to try again on our own:
 * "stop" (a link that will never work), "manual" (the player decides: another tab has the seat,
 * the game is full of spectators), "slow" (try again now and then: too many tabs).
 */
const CLOSES = {
  4400: { status: "refused", retry: "stop" }, // a token in the URL (an old page)
  4401: { status: "refused", retry: "stop" }, // bad token or invite, a used invite, signed out
  4404: { status: "refused", retry: "stop" }, // unknown game
  4409: { status: "replaced", retry: "manual" }, // this seat was opened in another tab
  4429: { status: "busy", retry: "slow" }, // too many connections from this address
  1013: { status: "full", retry: "manual" }, // as many spectators as the game takes
};

/** Error codes that come just before such a close (the close code may be lost on the way). */
const FATAL_CODES = {
  bad_token: 4401, bad_invite: 4401, invite_used: 4401, signed_out: 4401,
  unknown_game: 4404, token_in_url: 4400, replaced: 4409, too_many_spectators: 1013,
  too_many_connections: 4429, server_full: 1013,
};

export class GameSocket {
  /**
   * opts: {gameId, token, invite (a seat's one-time invite, until the welcome brings its token),
   *        onMessage(msg), onStatus(status), since(): next event index to ask for,
   *        name(): a name for hello (lobby only), speed(): the animation speed (fair time)}
   * status: connecting, online, reconnecting, refused, replaced, busy, full
   */
  constructor(opts) {
    this.opts = opts;
    this.ws = null;
    this.nextId = 1;
    this.attempt = 0;
    this.closed = false;
    this.status = "connecting";
    this.fatal = null;
  }

  url() {
    const proto = location.protocol === "https:" ? "wss:" : "ws:";
    return `${proto}//${location.host}/ws/${encodeURIComponent(this.opts.gameId)}`;
  }

  connect() {
    if (this.closed) return;
    this.fatal = null;
    if (this.status !== "busy") this._setStatus(this.attempt ? "reconnecting" : "connecting");
    let ws;
    try {
      ws = new WebSocket(this.url());
    } catch (error) {
      this._retry();
      return;
    }
    this.ws = ws;
    ws.onopen = () => {
      this.attempt = 0;
      this.hello();
      this._setStatus("online");
      clearInterval(this.pinger);
      this.pinger = setInterval(() => this._send({ type: "ping", v: 1, t: Date.now() / 1000 }), 20000);
    };
    ws.onmessage = (ev) => {
      let msg;
      try {
        msg = JSON.parse(ev.data);
      } catch {
        return;
      }
      if (msg.type === "error" && FATAL_CODES[msg.code]) this.fatal = msg;
      this.opts.onMessage(msg);
    };
    ws.onclose = (ev) => {
      clearInterval(this.pinger);
      if (this.ws !== ws) return;
      this.ws = null;
      if (this.closed) return;
      const how = CLOSES[ev.code] || (this.fatal && CLOSES[FATAL_CODES[this.fatal.code]]);
      if (how) {
        this._setStatus(how.status);
        if (how.retry === "slow") this._retry(10000);
        return;
      }
      this._retry();
    };
    ws.onerror = () => {
      /* onclose follows */
    };
  }

  /** Say hello (again: after a refused hello, e.g. a name somebody else has). */
  hello() {
    const hello = { type: "hello", v: 1, since: this.opts.since ? this.opts.since() : 0 };
    if (this.opts.token) hello.token = this.opts.token;
    else if (this.opts.invite) hello.invite = this.opts.invite;
    if (this.opts.speed) hello.speed = this.opts.speed();
    const name = this.opts.name ? this.opts.name() : null;
    if (name) hello.name = name;
    this._send(hello);
  }

  /** Connect again now (the player pressed "Try again" / "Play here"). */
  retryNow() {
    clearTimeout(this.timer);
    this.attempt = 0;
    if (this.ws) this.ws.close(1000);
    this.ws = null;
    this.connect();
  }

  _retry(delay = null) {
    if (delay === null) {
      this._setStatus("reconnecting");
      delay = Math.min(5000, 300 * Math.pow(1.6, this.attempt++));
    }
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.connect(), delay);
  }

  _setStatus(status) {
    this.status = status;
    if (this.opts.onStatus) this.opts.onStatus(status);
  }

  _send(msg) {
    if (!this.ws || this.ws.readyState !== WebSocket.OPEN) return false;
    this.ws.send(JSON.stringify(msg));
    return true;
  }

  /** Send a message with an id; returns the id (or null when offline). */
  send(type, fields = {}) {
    const id = this.nextId++;
    return this._send({ type, v: 1, id, ...fields }) ? id : null;
  }

  close() {
    this.closed = true;
    clearTimeout(this.timer);
    clearInterval(this.pinger);
    if (this.ws) this.ws.close(1000);
  }
}
