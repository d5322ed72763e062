// The game WebSocket (docs/protocol.md section 2): hello, reconnects with backoff, message ids.

export class GameSocket {
  /**
   * opts: {gameId, token, onMessage(msg), onStatus(status), since(): next event index to ask for,
   *        name(): a name for hello (lobby only)}
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
    const q = this.opts.token ? "?token=" + encodeURIComponent(this.opts.token) : "";
    return `${proto}//${location.host}/ws/${encodeURIComponent(this.opts.gameId)}${q}`;
  }

  connect() {
    if (this.closed) return;
    this._setStatus(this.attempt ? "reconnecting" : "connecting");
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
      const hello = { type: "hello", v: 1, since: this.opts.since ? this.opts.since() : 0 };
      const name = this.opts.name ? this.opts.name() : null;
      if (name) hello.name = name;
      this._send(hello);
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
      if (msg.type === "error" && (msg.code === "bad_token" || msg.code === "unknown_game")) {
        this.fatal = msg;
      }
      this.opts.onMessage(msg);
    };
    ws.onclose = (ev) => {
      clearInterval(this.pinger);
      if (this.ws !== ws) return;
      this.ws = null;
      if (this.closed) return;
      if (this.fatal || ev.code === 4401 || ev.code === 4404) {
        this._setStatus("refused");
        return;
      }
      this._retry();
    };
    ws.onerror = () => {
      /* onclose follows */
    };
  }

  _retry() {
    this._setStatus("reconnecting");
    const delay = Math.min(5000, 300 * Math.pow(1.6, this.attempt++));
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
