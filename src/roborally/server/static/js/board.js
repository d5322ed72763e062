// The board: the renderer's SVG board layer, with the page's own robot and effect layers on top.

import { boardSvg } from "./api.js";
import { hold, reducedMotion } from "./a11y.js";
import { shapeCentre, shapeSvg } from "./seats.js";
import { t } from "./i18n.js";
import { h, s, DIRS, DIR_WORDS, seatColour, SEAT_INK } from "./util.js";
import { Viewport } from "./viewport.js";

const ANGLE = { N: 0, E: 90, S: 180, W: 270 };
const PHONE_GAPS = 20; // px between a phone's board and its tray, and under the tray (style.css)

// Where robots sharing a space stand, in cells from its centre (by how many share it).
const SPREAD = [
  [[0, 0]],
  [[0, 0]],
  [[-0.25, -0.25], [0.25, 0.25]],
  [[-0.25, -0.25], [0.25, -0.25], [0, 0.25]],
  [[-0.25, -0.25], [0.25, -0.25], [-0.25, 0.25], [0.25, 0.25]],
];

/** Run fn(t) for t from 0 to 1 over ms milliseconds; resolves at the end. */
export function tween(ms, fn, control) {
  return new Promise((resolve) => {
    if (ms <= 0 || document.hidden || (control && control.skipping)) {
      fn(1);
      resolve();
      return;
    }
    if (reducedMotion()) return hold(ms, fn, control).then(resolve);
    const start = performance.now();
    let timer = null;
    const frame = (now) => {
      const t = Math.min(1, (now - start) / ms);
      if (control && control.skipping) {
        fn(1);
        clearTimeout(timer);
        resolve();
        return;
      }
      fn(ease(t));
      if (t < 1) requestAnimationFrame(frame);
      else {
        clearTimeout(timer);
        resolve();
      }
    };
    // If frames stop (a hidden tab), finish anyway.
    timer = setTimeout(() => {
      fn(1);
      resolve();
    }, ms + 400);
    requestAnimationFrame(frame);
  });
}

const ease = (t) => (t < 0.5 ? 2 * t * t : 1 - Math.pow(-2 * t + 2, 2) / 2);

export class BoardView {
  /**
   * board: the board JSON of the welcome/replay message; opts: {course, variants, edition, names}
   */
  constructor(board, opts) {
    this.board = board;
    this.opts = opts;
    this.cell = 48;
    this.robots = new Map();
    this.control = { skipping: false };
    this.el = h("div.board-wrap", { "data-testid": "board" });
    this.ready = this._load();
  }

  async _load() {
    const text = await boardSvg(this.opts.course, this.opts.variants || [], this.opts.edition || "");
    let svg = null;
    if (text) {
      const doc = new DOMParser().parseFromString(text, "image/svg+xml");
      if (doc.documentElement && doc.documentElement.nodeName === "svg") {
        svg = document.importNode(doc.documentElement, true);
      }
    }
    if (!svg) svg = this._fallback();
    this.cell = parseFloat(svg.getAttribute("data-cell")) || 48;
    svg.removeAttribute("width");
    svg.removeAttribute("height");
    svg.classList.add("board-svg");
    // A group, not an image: its start-space and facing choices are buttons a reader reaches
    // (an image's parts are not announced; axe: nested-interactive).
    svg.setAttribute("role", "group");
    svg.setAttribute("aria-label", t("game.board.course", { course: this.opts.title || this.opts.course }));
    this.svg = svg;
    this.blockedLayer = s("g", { class: "blocked-layer" });
    this.marks = s("g", { class: "mark-layer" });
    // The path preview while programming (preview.js): over the robots (it lets taps through).
    this.previewLayer = s("g", { class: "preview-layer", "data-testid": "path-preview" });
    this.robotLayer = s("g", { class: "robots", id: "robots" });
    this.fx = s("g", { class: "fx-layer" });
    svg.append(this.blockedLayer, this.marks, this.robotLayer, this.previewLayer, this.fx);
    this.scroller = h("div.board-scroll", null, svg);
    this.el.append(this.scroller);
    this.banner = h("div.board-banner", { "aria-live": "polite" });
    this.el.append(this.banner);
    const vb = (svg.getAttribute("viewBox") || "0 0 480 640").split(/[\s,]+/).map(Number);
    this.aspect = vb[2] / vb[3];
    this.viewport = new Viewport(this); // pan, zoom, follow (viewport.js)
    this._observer = new ResizeObserver(() => this.fit());
    window.addEventListener("resize", () => this.fit());
  }

  /** While programming on a phone: leave ``px`` (the tray's height) below the board, so that
   * the whole editor, "Lock in" included, is on the screen without scrolling (fit). */
  leaveRoom(px) {
    this.below = px;
    this.fit();
  }

  /** Size the picture to the space it has: the whole area on wide screens, 60% of a phone
   * (while programming: 42% or less, see leaveRoom); zoomed in (viewport.js), all of that
   * room, showing a part of the course. */
  fit() {
    const area = this.el.parentElement;
    if (!area || !this.svg) return;
    if (!this._observed) {
      this._observer.observe(area);
      this._observed = true;
    }
    const width = area.clientWidth;
    const phone = window.innerWidth <= 900;
    const top = area.getBoundingClientRect().top + window.scrollY;
    const compact = document.body.classList.contains("compact-board");
    let height = phone ? window.innerHeight * (compact ? 0.42 : 0.6) : Math.max(200, window.innerHeight - top - 14);
    if (phone && compact && this.below) {
      // The room the tray leaves (and the gaps around it), never below 28% of the screen.
      const room = window.innerHeight - top - this.below - PHONE_GAPS;
      height = Math.max(window.innerHeight * 0.28, Math.min(height, room));
    }
    let w = width;
    let hgt = w / this.aspect;
    if (hgt > height) {
      hgt = height;
      w = hgt * this.aspect;
    }
    [w, hgt] = this.viewport.size(width, height, w, hgt);
    const [wpx, hpx] = [Math.floor(w) + "px", Math.floor(hgt) + "px"];
    if (this.svg.style.width !== wpx) this.svg.style.width = wpx;
    if (this.svg.style.height !== hpx) this.svg.style.height = hpx;
    this.viewport.apply();
  }

  /** Robot numbers drawn ``scale`` times bigger (at least 1): legible when zoomed out. */
  setLabelScale(scale) {
    if (Math.abs(scale - (this.labelScale || 1)) < 0.005) return;
    this.labelScale = scale;
    for (const r of this.robots.values()) this._apply(r);
  }

  /** A plain drawing from the board JSON, if the server does not serve the rendered picture. */
  _fallback() {
    const c = 48;
    const b = this.board;
    const root = s("svg", {
      viewBox: `-12 -12 ${b.width * c + 24} ${b.height * c + 24}`, "data-cell": c,
      xmlns: "http://www.w3.org/2000/svg",
    });
    root.append(s("rect", { x: -12, y: -12, width: b.width * c + 24, height: b.height * c + 24, fill: "#1f2430" }));
    // The drawing goes into a layer with the renderer's id (the legend cuts symbols from it).
    const svg = s("g", { id: "rr-board-layer", class: "board-layer" });
    root.append(svg);
    for (const cell of b.cells) {
      const x = cell.x * c, y = cell.y * c;
      const dock = b.boards && b.boards[cell.board] && b.boards[cell.board].kind === "dock";
      svg.append(s("rect", { x: x + 1, y: y + 1, width: c - 2, height: c - 2, rx: 3, fill: dock ? "#e6d6b0" : "#cfd4da" }));
      if (cell.pit) svg.append(s("rect", { x: x + 6, y: y + 6, width: c - 12, height: c - 12, fill: "#111" }));
      if (cell.belt) {
        const colour = cell.belt.color === "blue" ? "#2f6fd1" : "#3a9d4e";
        svg.append(s("rect", { x: x + 4, y: y + 4, width: c - 8, height: c - 8, rx: 6, fill: colour }));
        svg.append(s("text", { x: x + c / 2, y: y + c / 2 + 7, "text-anchor": "middle", "font-size": 20, fill: "#fff" },
          { N: "↑", E: "→", S: "↓", W: "←" }[cell.belt.out]));
      }
      if (cell.gear) svg.append(s("text", { x: x + c / 2, y: y + c / 2 + 9, "text-anchor": "middle", "font-size": 26, fill: cell.gear === "left" ? "#c92a2a" : "#2b8a3e" }, cell.gear === "left" ? "↺" : "↻"));
      if (cell.start) svg.append(s("text", { x: x + c / 2, y: y + c / 2 + 7, "text-anchor": "middle", "font-size": 18, fill: "#1d3557" }, cell.start));
      if (cell.checkpoint) {
        svg.append(s("circle", { cx: x + c / 2, cy: y + c / 2, r: c * 0.38, fill: "#f08c00" }));
        svg.append(s("text", { x: x + c / 2, y: y + c / 2 + 7, "text-anchor": "middle", "font-size": 20, "font-weight": 700, fill: "#fff" }, cell.checkpoint));
      }
      if (cell.reboot) svg.append(s("rect", { x: x + 6, y: y + 6, width: c - 12, height: c - 12, rx: 6, fill: "#7048e8" }));
      for (const w of cell.walls || []) {
        const [x1, y1, x2, y2] = { N: [x, y, x + c, y], S: [x, y + c, x + c, y + c], W: [x, y, x, y + c], E: [x + c, y, x + c, y + c] }[w];
        svg.append(s("line", { x1, y1, x2, y2, stroke: "#f5a623", "stroke-width": 5 }));
      }
    }
    for (const laser of b.lasers || []) {
      const p = laser.path;
      if (!p || !p.length) continue;
      const [a, z] = [p[0], p[p.length - 1]];
      svg.append(s("line", { x1: a[0] * c + c / 2, y1: a[1] * c + c / 2, x2: z[0] * c + c / 2, y2: z[1] * c + c / 2, stroke: "#e03131", "stroke-width": 2, opacity: 0.7 }));
    }
    return root;
  }

  centre(pos) {
    return [pos[0] * this.cell + this.cell / 2, pos[1] * this.cell + this.cell / 2];
  }

  /** The space [x, y] under a point of the screen, or null (off the course or a void space). */
  cellAt(clientX, clientY) {
    const m = this.svg && this.svg.getScreenCTM();
    if (!m) return null;
    const p = new DOMPoint(clientX, clientY).matrixTransform(m.inverse());
    const [x, y] = [Math.floor(p.x / this.cell), Math.floor(p.y / this.cell)];
    if (x < 0 || y < 0 || x >= this.board.width || y >= this.board.height) return null;
    return (this.board.cells || []).some((c) => c.x === x && c.y === y) ? [x, y] : null;
  }

  /** Where the space [x, y] is on the screen (a DOMRect-like {left, top, right, bottom}). */
  cellRect(x, y) {
    const m = this.svg.getScreenCTM();
    const a = new DOMPoint(x * this.cell, y * this.cell).matrixTransform(m);
    const b = new DOMPoint((x + 1) * this.cell, (y + 1) * this.cell).matrixTransform(m);
    return { left: a.x, top: a.y, right: b.x, bottom: b.y, width: b.x - a.x, height: b.y - a.y };
  }

  _robot(seat, name) {
    let r = this.robots.get(seat);
    if (r) return r;
    const c = this.cell;
    const k = c / 48;
    const colour = seatColour(seat);
    const g = s("g", { class: "robot", "data-seat": seat, "data-testid": "robot-" + seat });
    const shadow = s("ellipse", { cx: 2 * k, cy: 4 * k, rx: 19 * k, ry: 18 * k, fill: "#000", opacity: 0.35 });
    const body = s("g", { class: "robot-body" });
    // Treads, chassis, visor and the pointer that shows the facing.
    body.append(
      s("rect", { x: -18 * k, y: -15 * k, width: 8 * k, height: 30 * k, rx: 3 * k, fill: "#2b2f36" }),
      s("rect", { x: 10 * k, y: -15 * k, width: 8 * k, height: 30 * k, rx: 3 * k, fill: "#2b2f36" }),
      s("rect", { x: -13 * k, y: -12 * k, width: 26 * k, height: 27 * k, rx: 8 * k, fill: colour, stroke: "#14161a", "stroke-width": 2 * k }),
      s("rect", { x: -8 * k, y: -9 * k, width: 16 * k, height: 5 * k, rx: 2.5 * k, fill: "#14161a", opacity: 0.75 }),
      s("path", { class: "robot-nose", d: `M0 ${-24 * k} L${-8 * k} ${-13 * k} L${8 * k} ${-13 * k} Z`, fill: "#fff", stroke: "#14161a", "stroke-width": 1.6 * k, "stroke-linejoin": "round" }),
    );
    // The seat number on the seat's shape (js/seats.js): a second cue beside the colour. The
    // badge is in the seat's colour too (as the panels' chips): zoomed out on a phone it grows
    // over the whole robot (viewport.js), and a white badge would hide which robot it is.
    const label = s("g", { class: "robot-label", transform: `translate(0 ${4 * k})` },
      shapeSvg(seat, 10.5 * k, { fill: colour, stroke: "#14161a", "stroke-width": 1.4 * k, "stroke-linejoin": "round" }),
      s("text", { x: 0, y: (shapeCentre(seat) * 10.5 + 4.3) * k, "text-anchor": "middle", "font-size": 12 * k, "font-weight": 800, fill: SEAT_INK[seat % SEAT_INK.length], "font-family": "system-ui, sans-serif" }, String(seat + 1)),
    );
    const ring = s("circle", { class: "robot-ring", r: 22 * k, fill: "none", stroke: colour, "stroke-width": 3 * k, opacity: 0 });
    const title = s("title", {}, name || t("common.robot_n", { n: seat + 1 }));
    g.append(title, shadow, ring, body, label);
    this.robotLayer.append(g);
    r = { seat, g, body, ring, title, label, k, name: name || `Robot ${seat + 1}`, x: 0, y: 0, angle: 0, facing: "N", scale: 1, base: 1, opacity: 1, shown: false, ghost: false, pos: null };
    this.robots.set(seat, r);
    return r;
  }

  /**
   * Robots that share a space (two rebooting robots waiting on one reboot token, or one waiting
   * where another stands) are drawn at half size side by side, the waiting ones last, so each
   * one and its number can be seen. Robots alone on their space are left as they are.
   */
  _spread() {
    const groups = new Map();
    for (const r of this.robots.values()) {
      if (!r.shown || !r.pos) continue;
      const key = r.pos.join(",");
      if (!groups.has(key)) groups.set(key, []);
      groups.get(key).push(r);
    }
    for (const list of groups.values()) {
      const n = list.length;
      if (n === 1 && list[0].base === 1) continue;
      list.sort((a, b) => (a.ghost - b.ghost) || (a.seat - b.seat));
      const [cx, cy] = this.centre(list[0].pos);
      const spots = SPREAD[Math.min(n, SPREAD.length - 1)];
      list.forEach((r, i) => {
        const [dx, dy] = spots[i % spots.length];
        r.x = cx + dx * this.cell;
        r.y = cy + dy * this.cell;
        r.base = n > 1 ? 0.5 : 1;
        r.scale = r.base;
        r.g.classList.toggle("crowded", n > 1);
        this._apply(r);
      });
    }
  }

  _apply(r) {
    r.g.setAttribute("transform", `translate(${r.x.toFixed(2)} ${r.y.toFixed(2)}) scale(${r.scale.toFixed(3)})`);
    r.body.setAttribute("transform", `rotate(${r.angle.toFixed(1)})`);
    r.g.style.opacity = r.shown ? String(r.opacity) : "0";
    r.g.style.display = r.shown ? "" : "none";
    // The number never smaller than viewport.js wants it (crowded robots are drawn at half size).
    const m = Math.max(1, (this.labelScale || 1) / (r.base || 1));
    const lift = (4 * r.k).toFixed(2);
    r.label.setAttribute("transform", m > 1.001 ? `translate(0 ${lift}) scale(${m.toFixed(3)}) translate(0 -${lift})` : "");
    if (r.seat === this.mine && r.shown && this.viewport) this.viewport.robotMoved(r);
  }

  /** Put every robot where ``players`` (the observation's list) says, without animation. */
  setPlayers(players, names) {
    for (const p of players) {
      const r = this._robot(p.seat, names && names[p.seat]);
      if (names && names[p.seat]) r.name = names[p.seat];
      if (p.on_board && p.pos) this.place(p.seat, p.pos, p.facing, false);
      else if (p.reentry) this.place(p.seat, p.reentry, p.facing, true);
      else this.hide(p.seat);
      r.g.classList.toggle("shutdown", !!p.shutdown);
    }
  }

  place(seat, pos, facing, ghost = false) {
    const r = this._robot(seat);
    [r.x, r.y] = this.centre(pos);
    r.pos = pos.slice();
    if (facing) {
      r.facing = facing;
      r.angle = ANGLE[facing];
    }
    r.scale = r.base = 1;
    r.opacity = ghost ? 0.55 : 1;
    r.shown = true;
    r.ghost = ghost;
    r.g.classList.toggle("ghost", ghost);
    // A classic robot off the board was destroyed; it comes back on its archive marker.
    const away = String(this.opts.edition || "").startsWith("classic") ? "game.board.destroyed" : "game.board.rebooting";
    r.title.textContent = ghost ? t(away, { name: r.name }) : r.name;
    this._apply(r);
    this._spread();
  }

  hide(seat) {
    const r = this._robot(seat);
    r.shown = false;
    this._apply(r);
    this._spread();
  }

  /** The robots drawn on the space [x, y]: [{seat, name, facing, ghost}]. */
  robotsOn(x, y) {
    return [...this.robots.values()]
      .filter((r) => r.shown && r.pos && r.pos[0] === x && r.pos[1] === y)
      .map((r) => ({ seat: r.seat, name: r.name, facing: r.facing, ghost: r.ghost }));
  }

  robotAt(seat) {
    const r = this.robots.get(seat);
    return r && r.shown ? r : null;
  }

  async move(seat, to, ms, facing) {
    const r = this._robot(seat);
    if (!r.shown) {
      this.place(seat, to, facing);
      return;
    }
    const [x0, y0] = [r.x, r.y];
    const [x1, y1] = this.centre(to);
    r.pos = to.slice();
    await tween(ms, (t) => {
      r.x = x0 + (x1 - x0) * t;
      r.y = y0 + (y1 - y0) * t;
      this._apply(r);
    }, this.control);
    this._spread();
  }

  async turn(seat, toFacing, ms, cause) {
    const r = this._robot(seat);
    const from = DIRS.indexOf(r.facing);
    const to = DIRS.indexOf(toFacing);
    let delta = ((to - from + 4) % 4) * 90;
    if (delta === 270) delta = -90;
    if (delta === 180 && /left/.test(cause || "")) delta = -180;
    const a0 = r.angle;
    r.facing = toFacing;
    await tween(ms, (t) => {
      r.angle = a0 + delta * t;
      this._apply(r);
    }, this.control);
    r.angle = ((ANGLE[toFacing] % 360) + 360) % 360;
    this._apply(r);
  }

  /** A laser beam from ``from`` to ``to`` (cells), drawn for a moment. */
  async shot(from, to, beams, ms, robotSeat) {
    const [x1, y1] = this.centre(from);
    const [x2, y2] = this.centre(to);
    const colour = robotSeat === undefined || robotSeat === null ? "#ff3b30" : seatColour(robotSeat);
    const g = s("g", { class: "beam" });
    const n = Math.max(1, Math.min(3, beams || 1));
    const dx = x2 - x1, dy = y2 - y1;
    const len = Math.hypot(dx, dy) || 1;
    const [nx, ny] = [-dy / len, dx / len];
    for (let i = 0; i < n; i++) {
      const off = (i - (n - 1) / 2) * this.cell * 0.12;
      g.append(s("line", { x1: x1 + nx * off, y1: y1 + ny * off, x2: x2 + nx * off, y2: y2 + ny * off, stroke: colour, "stroke-width": this.cell * 0.09, "stroke-linecap": "round" }));
    }
    g.append(s("circle", { cx: x2, cy: y2, r: this.cell * 0.18, fill: colour, opacity: 0.7 }));
    this.fx.append(g);
    await tween(ms, (t) => {
      g.style.opacity = String(t < 0.7 ? 1 : 1 - (t - 0.7) / 0.3);
    }, this.control);
    g.remove();
  }

  /** Text rising from a cell ("+1 ⚡", "SPAM"). */
  async float(pos, text, colour, ms) {
    if (!pos) return;
    const [x, y] = this.centre(pos);
    const t0 = s("text", { class: "float-text", x, y: y - this.cell * 0.3, "text-anchor": "middle", "font-size": this.cell * 0.36, fill: colour || "#fff" }, text);
    this.fx.append(t0);
    await tween(ms, (t) => {
      t0.setAttribute("y", String(y - this.cell * (0.3 + 0.5 * t)));
      t0.style.opacity = String(t < 0.6 ? 1 : 1 - (t - 0.6) / 0.4);
    }, this.control);
    t0.remove();
  }

  async flash(seat, colour, ms) {
    const r = this.robots.get(seat);
    if (!r || !r.shown) return;
    r.ring.setAttribute("stroke", colour);
    await tween(ms, (t) => {
      r.ring.setAttribute("opacity", String(Math.sin(t * Math.PI)));
    }, this.control);
    r.ring.setAttribute("opacity", "0");
  }

  async fall(seat, pos, ms) {
    const r = this._robot(seat);
    if (!r.shown) return;
    if (pos) {
      const [x1, y1] = this.centre(pos);
      const [x0, y0] = [r.x, r.y];
      await tween(ms * 0.4, (t) => {
        r.x = x0 + (x1 - x0) * t;
        r.y = y0 + (y1 - y0) * t;
        this._apply(r);
      }, this.control);
    }
    await tween(ms * 0.6, (t) => {
      r.scale = r.base * (1 - 0.8 * t);
      r.opacity = 1 - t;
      r.angle += 8;
      this._apply(r);
    }, this.control);
    r.shown = false;
    r.scale = r.base = 1;
    r.opacity = 1;
    r.angle = ANGLE[r.facing];
    this._apply(r);
    this._spread();
  }

  async appear(seat, pos, facing, ghost, ms) {
    this.place(seat, pos, facing, ghost);
    const r = this._robot(seat);
    const target = ghost ? 0.55 : 1;
    await tween(ms, (t) => {
      r.scale = r.base * (0.4 + 0.6 * t);
      r.opacity = target * t;
      this._apply(r);
    }, this.control);
  }

  /** A big caption over the board ("Register 3"). */
  showBanner(text, ms) {
    this.banner.textContent = text;
    this.banner.classList.remove("show");
    void this.banner.offsetWidth;
    if (text) this.banner.classList.add("show");
    clearTimeout(this._bannerTimer);
    if (text) this._bannerTimer = setTimeout(() => this.banner.classList.remove("show"), Math.max(700, ms));
  }

  /** Clickable choices on cells: [{pos, label, value, title}]; onPick(value). */
  showChoices(choices, onPick) {
    this.clearChoices();
    const c = this.cell;
    for (const ch of choices) {
      const [x, y] = [ch.pos[0] * c, ch.pos[1] * c];
      const g = s("g", { class: "choice", tabindex: 0, role: "button", "aria-label": ch.title || String(ch.label), "data-value": JSON.stringify(ch.value) });
      g.append(
        s("rect", { x: x + 3, y: y + 3, width: c - 6, height: c - 6, rx: 8, class: "choice-box" }),
        s("text", { x: x + c / 2, y: y + c / 2 + c * 0.13, "text-anchor": "middle", "font-size": c * 0.36, class: "choice-label" }, ch.label),
      );
      const pick = (ev) => {
        ev.preventDefault();
        onPick(ch.value);
      };
      g.addEventListener("click", pick);
      g.addEventListener("keydown", (ev) => {
        if (ev.key === "Enter" || ev.key === " ") pick(ev);
      });
      this.marks.append(g);
    }
  }

  /** Four arrows around a cell to choose a facing. */
  showFacingChoices(pos, onPick) {
    this.clearChoices();
    const c = this.cell;
    const [cx, cy] = this.centre(pos);
    const ring = s("circle", { cx, cy, r: c * 0.62, class: "choice-ring" });
    this.marks.append(ring);
    for (const d of DIRS) {
      const a = (ANGLE[d] * Math.PI) / 180;
      const [x, y] = [cx + Math.sin(a) * c * 0.95, cy - Math.cos(a) * c * 0.95];
      const g = s("g", { class: "choice", role: "button", tabindex: 0, "aria-label": t("preview.face", { direction: DIR_WORDS[d] }), transform: `translate(${x} ${y}) rotate(${ANGLE[d]})` });
      g.append(
        s("circle", { r: c * 0.32, class: "choice-box" }),
        s("path", { d: `M0 ${-c * 0.2} L${c * 0.17} ${c * 0.1} H${-c * 0.17} Z`, class: "choice-arrow" }),
      );
      g.addEventListener("click", () => onPick(d));
      this.marks.append(g);
    }
  }

  /** Energy cubes on the start spaces blocked in a competitive start ([[x, y], ...]). */
  showBlocked(positions) {
    if (!this.blockedLayer) return;
    const key = JSON.stringify(positions || []);
    if (key === this._blockedKey) return;
    this._blockedKey = key;
    const c = this.cell;
    this.blockedLayer.replaceChildren(...(positions || []).map(([x, y]) => {
      const g = s("g", { class: "blocked-cube", "data-testid": "blocked-start" });
      g.append(
        s("title", null, t("game.board.blocked_start")),

        s("rect", { x: x * c + c * 0.3, y: y * c + c * 0.3, width: c * 0.4, height: c * 0.4, rx: c * 0.06 }),
      );
      return g;
    }));
  }

  clearChoices() {
    if (this.marks) this.marks.replaceChildren();
  }

  /** Mark one robot as "you". */
  setMine(seat) {
    const first = this.mine !== seat;
    this.mine = seat;
    for (const [k, r] of this.robots) r.g.classList.toggle("mine", k === seat);
    if (this.viewport) this.viewport.renderButtons();
    if (first && this.viewport) this.viewport.centreOnMine();
  }
}

export { ANGLE, SEAT_INK };
