// The drawing area: the project's renderer's picture (from POST /api/build/check) with the
// builder's own layers over it: a quick drawing of spaces changed since the last picture, the
// findings' marks, the selection, the cursor, the test drive's path and robot. Pan and zoom
// come from the game's Viewport (viewport.js).
//
// Mouse: click or drag paints. Touch: a tap paints, a drag pans a zoomed board, two fingers
// pinch. Keyboard (the board focused): arrows move the cursor, Enter or Space paints; the page
// (main.js) adds the tool keys.

import { t } from "../i18n.js";
import { h, s, fill } from "../util.js";
import { Viewport } from "../viewport.js";
import { DIRS } from "./model.js";

export const CELL = 48;
const MARGIN = 12;
const SLOP = 6;
const ARROW_ANGLE = { N: 0, E: 90, S: 180, W: 270 };

export class BuildView {
  /**
   * opts: {label, onPaint(x, y, phase, info), onCursor(x, y), onKey(event) -> handled}
   * phase: "start" | "move" | "end" | "tap"; info: {edge, fraction, pointer}
   */
  constructor(opts) {
    this.opts = opts;
    this.cell = CELL;
    this.width = 1;
    this.height = 1;
    this.cursor = [0, 0];
    this.mine = null; // the Viewport's "follow my robot" stays hidden
    this.el = h("div.board-wrap.build-view", { "data-testid": opts.testid || "build-board" });
    this.svg = s("svg", { xmlns: "http://www.w3.org/2000/svg", class: "board-svg build-svg", viewBox: "-12 -12 600 600", role: "group", "aria-label": opts.label });
    this.serverLayer = s("g", { class: "server-layer" });
    this.quickLayer = s("g", { class: "quick-layer", "data-testid": "quick-layer" });
    this.gridLayer = s("g", { class: "grid-layer" });
    this.markLayer = s("g", { class: "finding-layer", "data-testid": "finding-marks" });
    this.extraLayer = s("g", { class: "extra-layer" }); // course board outlines, course marks
    this.pathLayer = s("g", { class: "drive-layer", "data-testid": "drive-path" });
    this.selLayer = s("g", { class: "selection-layer" });
    this.cursorEl = s("rect", { class: "build-cursor", width: CELL, height: CELL, rx: 4, "data-testid": "cursor" });
    this.svg.append(this.serverLayer, this.quickLayer, this.gridLayer, this.extraLayer, this.markLayer, this.pathLayer, this.selLayer, this.cursorEl);
    this.scroller = h("div.board-scroll", null, this.svg);
    this.overlayBox = h("div.trace-box"); // trace.js puts the photo and its handles here
    this.scroller.append(this.overlayBox);
    this.el.append(this.scroller);
    this.viewport = new Viewport(this);
    this.viewport.toggleAt = () => {}; // a double tap paints twice; it does not zoom
    this.frame = this.scroller;
    this.frame.setAttribute("aria-label", opts.keysLabel || t("build.board_keys"));
    this.frame.setAttribute("aria-describedby", opts.describedBy || "");
    const apply = this.viewport.apply.bind(this.viewport);
    this.viewport.apply = () => {
      apply();
      if (this.onView) this.onView();
    };
    this.listen();
    this.resizer = new ResizeObserver(() => this.fit());
    window.addEventListener("resize", () => this.fit());
  }

  // ------------------------------------------------------------- picture
  /** Show the renderer's SVG text (null: keep what is shown). */
  setPicture(text) {
    if (!text) return;
    const doc = new DOMParser().parseFromString(text, "image/svg+xml");
    const root = doc.documentElement;
    if (!root || root.nodeName !== "svg") return;
    const nodes = [...root.childNodes].map((n) => document.importNode(n, true));
    fill(this.serverLayer, ...nodes);
    this.serverLayer.dataset.fresh = "1";
    this.hasPicture = true;
  }

  /** The grid's size in spaces: the viewBox follows. */
  setSize(width, height) {
    const changed = width !== this.width || height !== this.height;
    this.width = width;
    this.height = height;
    const vb = [-MARGIN, -MARGIN, width * CELL + 2 * MARGIN, height * CELL + 2 * MARGIN];
    this.aspect = vb[2] / vb[3];
    if (changed || !this.sized) {
      this.sized = true;
      this.svg.setAttribute("viewBox", vb.join(" "));
      const v = this.viewport;
      v.full = { x: vb[0], y: vb[1], w: vb[2], h: vb[3] };
      v.zoom = 1;
      v.cx = vb[0] + vb[2] / 2;
      v.cy = vb[1] + vb[3] / 2;
      this.drawGrid();
      this.fit();
    }
    this.moveCursor(...this.cursor);
  }

  drawGrid() {
    const lines = [];
    for (let x = 0; x <= this.width; x++) lines.push(`M${x * CELL} 0V${this.height * CELL}`);
    for (let y = 0; y <= this.height; y++) lines.push(`M0 ${y * CELL}H${this.width * CELL}`);
    fill(this.gridLayer, s("path", { d: lines.join(""), class: "grid-lines" }));
  }

  /** Size the picture to its room: the stage's width, the window's height below it. */
  fit() {
    const area = this.el.parentElement;
    if (!area) return;
    if (!this.observed) {
      this.resizer.observe(area);
      this.observed = true;
    }
    const width = Math.max(160, area.clientWidth);
    const phone = window.innerWidth <= 900;
    const top = area.getBoundingClientRect().top;
    const height = phone ? Math.max(220, window.innerHeight * 0.56) : Math.max(260, window.innerHeight - Math.max(0, top) - 16);
    let w = width;
    let hgt = w / (this.aspect || 1);
    if (hgt > height) {
      hgt = height;
      w = hgt * (this.aspect || 1);
    }
    [w, hgt] = this.viewport.size(width, height, w, hgt);
    this.svg.style.width = Math.floor(w) + "px";
    this.svg.style.height = Math.floor(hgt) + "px";
    this.viewport.apply();
  }

  setLabelScale() {}

  robotAt() {
    return null;
  }

  // --------------------------------------------------------------- layers
  /** Draw the spaces in ``cells`` ([{x, y, cell, walls}]) in the builder's quick style, over a
   * picture that does not show them yet. */
  drawQuick(cells) {
    fill(this.quickLayer, ...cells.map(({ x, y, cell, walls }) => quickCell(x, y, cell, walls)));
  }

  moveCursor(x, y, announce = false) {
    this.cursor = [Math.max(0, Math.min(this.width - 1, x)), Math.max(0, Math.min(this.height - 1, y))];
    this.cursorEl.setAttribute("x", this.cursor[0] * CELL);
    this.cursorEl.setAttribute("y", this.cursor[1] * CELL);
    this.cursorEl.dataset.x = this.cursor[0];
    this.cursorEl.dataset.y = this.cursor[1];
    const v = this.viewport;
    if (v.zoom > 1.001) {
      const [cx, cy] = [(this.cursor[0] + 0.5) * CELL, (this.cursor[1] + 0.5) * CELL];
      if (!v.inView(cx - CELL / 2, cy - CELL / 2) || !v.inView(cx + CELL / 2, cy + CELL / 2)) v.centreOn(cx, cy);
    }
    if (this.opts.onCursor) this.opts.onCursor(this.cursor[0], this.cursor[1], announce);
  }

  /** The selection rectangle ({x, y, w, h} or null). */
  showSelection(r) {
    fill(this.selLayer, r ? s("rect", { class: "build-selection", x: r.x * CELL, y: r.y * CELL, width: r.w * CELL, height: r.h * CELL, "data-testid": "selection" }) : null);
  }

  /** Marks on spaces: [{x, y, severity, index}]. */
  showMarks(marks) {
    fill(this.markLayer, ...marks.map((m) => s("rect", {
      class: "finding-mark " + m.severity, x: m.x * CELL + 3, y: m.y * CELL + 3, width: CELL - 6, height: CELL - 6, rx: 6,
      "data-finding": m.index, "data-x": m.x, "data-y": m.y,
    })));
  }

  /** The test drive's path ([[x, y], ...] per register) and the robot at {x, y, facing}. */
  showPath(paths, robot) {
    const parts = [];
    for (const [n, path] of paths.entries()) {
      if (path.length < 2) continue;
      const d = path.map(([x, y], i) => `${i ? "L" : "M"}${(x + 0.5) * CELL} ${(y + 0.5) * CELL}`).join("");
      parts.push(s("path", { class: `drive-line reg-${n % 5}`, d, "data-register": n + 1 }));
    }
    if (robot) parts.push(robotMark(robot));
    fill(this.pathLayer, ...parts);
  }

  // ---------------------------------------------------------------- input
  /** The space under a screen point and where in it: {x, y, fx, fy, edge} (or null). */
  spaceAt(clientX, clientY) {
    const m = this.svg.getScreenCTM();
    if (!m) return null;
    const p = new DOMPoint(clientX, clientY).matrixTransform(m.inverse());
    const [fx, fy] = [p.x / CELL, p.y / CELL];
    const [x, y] = [Math.floor(fx), Math.floor(fy)];
    if (x < 0 || y < 0 || x >= this.width || y >= this.height) return null;
    const [dx, dy] = [fx - x, fy - y];
    const near = { N: dy, S: 1 - dy, W: dx, E: 1 - dx };
    const edge = DIRS.reduce((a, b) => (near[b] < near[a] ? b : a));
    return { x, y, fx: dx, fy: dy, edge };
  }

  listen() {
    const svg = this.svg;
    svg.addEventListener("pointerdown", (e) => {
      if (e.pointerType === "mouse" && e.button !== 0) return;
      const at = this.spaceAt(e.clientX, e.clientY);
      if (e.pointerType === "mouse") {
        e.stopPropagation(); // the mouse paints; it does not pan (Viewport)
        if (!at) return;
        this.frame.focus({ preventScroll: true });
        this.drag = { id: e.pointerId, last: at };
        try {
          svg.setPointerCapture(e.pointerId);
        } catch {
          /* gone */
        }
        this.moveCursor(at.x, at.y);
        this.opts.onPaint(at.x, at.y, "start", at);
      } else {
        this.touches = (this.touches || 0) + 1;
        this.touch = this.touches === 1 ? { id: e.pointerId, x: e.clientX, y: e.clientY, at } : null;
      }
    });
    svg.addEventListener("pointermove", (e) => {
      if (this.drag && this.drag.id === e.pointerId) {
        const at = this.spaceAt(e.clientX, e.clientY);
        if (!at || (at.x === this.drag.last.x && at.y === this.drag.last.y)) return;
        // A fast pointer skips spaces: go through them one step at a time (across, then down).
        let [x, y] = [this.drag.last.x, this.drag.last.y];
        while (x !== at.x || y !== at.y) {
          if (x !== at.x) x += Math.sign(at.x - x);
          else y += Math.sign(at.y - y);
          const here = x === at.x && y === at.y ? at : { ...at, x, y };
          this.moveCursor(x, y);
          this.opts.onPaint(x, y, "move", here);
        }
        this.drag.last = at;
      } else if (this.touch && this.touch.id === e.pointerId && Math.hypot(e.clientX - this.touch.x, e.clientY - this.touch.y) > SLOP) {
        this.touch = null; // a drag: the Viewport pans
      }
    });
    const end = (e) => {
      if (this.drag && this.drag.id === e.pointerId) {
        this.drag = null;
        this.opts.onPaint(this.cursor[0], this.cursor[1], "end", null);
      }
      if (e.pointerType !== "mouse") {
        this.touches = Math.max(0, (this.touches || 1) - 1);
        if (this.touch && this.touch.id === e.pointerId && e.type === "pointerup" && this.touch.at) {
          const at = this.touch.at;
          this.moveCursor(at.x, at.y);
          this.opts.onPaint(at.x, at.y, "tap", at);
        }
        this.touch = null;
      }
    };
    for (const kind of ["pointerup", "pointercancel"]) svg.addEventListener(kind, end);
    // The board's own keys before the Viewport's (arrows move the cursor, not the view).
    this.scroller.addEventListener("keydown", (e) => {
      if (e.target !== this.scroller) return;
      if (this.opts.onKey && this.opts.onKey(e)) {
        e.preventDefault();
        e.stopImmediatePropagation();
      }
    }, true);
  }
}

// ------------------------------------------------------------- quick drawing
function quickCell(x, y, cell, walls) {
  const c = CELL;
  const g = s("g", { class: "quick-cell", transform: `translate(${x * c} ${y * c})` });
  g.append(s("rect", { x: 1, y: 1, width: c - 2, height: c - 2, rx: 3, fill: cell.pit ? "#0b0d12" : "#cfd4da" }));
  const arrow = (d, colour) => s("path", { d: "M24 8 L34 22 H28 V38 H20 V22 H14 Z", fill: colour, transform: `rotate(${ARROW_ANGLE[d]} 24 24)` });
  const text = (v, colour, size = 18) => s("text", { x: c / 2, y: c / 2 + size / 3, "text-anchor": "middle", "font-size": size, "font-weight": 800, fill: colour, "font-family": "system-ui, sans-serif" }, String(v));
  if (cell.belt) g.append(s("rect", { x: 4, y: 4, width: c - 8, height: c - 8, rx: 5, fill: cell.belt.color === "blue" ? "#2f6fd1" : "#3a9d4e" }), arrow(cell.belt.out, "#fff"));
  if (cell.gear) g.append(s("circle", { cx: c / 2, cy: c / 2, r: 17, fill: cell.gear === "left" ? "#c92a2a" : "#2b8a3e" }), text(cell.gear === "left" ? "↺" : "↻", "#fff", 20));
  if (cell.pusher) g.append(s("rect", { x: 6, y: 2, width: c - 12, height: 8, fill: "#f2c94c", transform: `rotate(${ARROW_ANGLE[cell.pusher.direction] + 180} 24 24)` }));
  for (const l of cell.lasers || []) g.append(s("line", { x1: 24, y1: 2, x2: 24, y2: 46, stroke: "#e03131", "stroke-width": 2 + l.beams, transform: `rotate(${ARROW_ANGLE[l.direction]} 24 24)` }));
  if (cell.battery) g.append(text("⚡", "#2b8a3e", 22));
  if (cell.repair) g.append(text("🔧" + (cell.repair === 2 ? "2" : ""), "#1c7ed6", 16));
  if (cell.crusher) g.append(text("✕", "#495057", 26));
  if (cell.start) g.append(s("rect", { x: 6, y: 6, width: c - 12, height: c - 12, rx: 4, fill: "#e6d6b0" }), text(cell.start, "#1d3557"));
  if (cell.checkpoint) g.append(s("circle", { cx: 24, cy: 24, r: 16, fill: "#f08c00" }), text(cell.checkpoint, "#fff"));
  if (cell.reboot) g.append(s("rect", { x: 6, y: 6, width: c - 12, height: c - 12, rx: 6, fill: "#7048e8" }), arrow(cell.reboot, "#fff"));
  for (const d of walls || []) {
    const [x1, y1, x2, y2] = { N: [0, 0, c, 0], S: [0, c, c, c], W: [0, 0, 0, c], E: [c, 0, c, c] }[d];
    g.append(s("line", { x1, y1, x2, y2, stroke: "#f5a623", "stroke-width": 6 }));
  }
  return g;
}

function robotMark({ x, y, facing }) {
  const c = CELL;
  return s("g", { class: "drive-robot", transform: `translate(${(x + 0.5) * c} ${(y + 0.5) * c}) rotate(${ARROW_ANGLE[facing] || 0})`, "data-testid": "drive-robot", "data-x": x, "data-y": y, "data-facing": facing },
    s("circle", { r: 16, fill: "#ffb224", stroke: "#14161a", "stroke-width": 2.5 }),
    s("path", { d: "M0 -22 L-8 -10 H8 Z", fill: "#fff", stroke: "#14161a", "stroke-width": 2 }));
}
