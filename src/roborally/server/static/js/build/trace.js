// Trace a photo: a picture from the device (read in the browser: it is never uploaded) laid over
// the board. Four pins sit on the grid's corners: each is dragged onto the board's corner in the
// photo (or the photo nudged there with the arrow keys), and the photo is bent with a
// perspective transform (CSS matrix3d) so that those points land on the grid's corners. A slider
// fades it.

import { t } from "../i18n.js";
import { h, fill } from "../util.js";
import { CELL } from "./canvas.js";

const CORNERS = ["nw", "ne", "se", "sw"];

/** The 3 × 3 homography taking the four points ``from`` to ``to`` (each [[x, y] × 4]). */
export function homography(from, to) {
  const a = [], b = [];
  for (let i = 0; i < 4; i++) {
    const [x, y] = from[i], [u, v] = to[i];
    a.push([x, y, 1, 0, 0, 0, -u * x, -u * y]);
    b.push(u);
    a.push([0, 0, 0, x, y, 1, -v * x, -v * y]);
    b.push(v);
  }
  const m = solve(a, b);
  if (!m) return null;
  return [[m[0], m[1], m[2]], [m[3], m[4], m[5]], [m[6], m[7], 1]];
}

function solve(a, b) {
  const n = b.length;
  const m = a.map((row, i) => [...row, b[i]]);
  for (let c = 0; c < n; c++) {
    let p = c;
    for (let r = c + 1; r < n; r++) if (Math.abs(m[r][c]) > Math.abs(m[p][c])) p = r;
    if (Math.abs(m[p][c]) < 1e-12) return null;
    [m[c], m[p]] = [m[p], m[c]];
    for (let r = 0; r < n; r++) {
      if (r === c) continue;
      const f = m[r][c] / m[c][c];
      for (let k = c; k <= n; k++) m[r][k] -= f * m[c][k];
    }
  }
  return m.map((row, i) => row[n] / row[i]);
}

const mul = (a, b) => a.map((row) => [0, 1, 2].map((j) => row[0] * b[0][j] + row[1] * b[1][j] + row[2] * b[2][j]));

export class Tracer {
  /** view: the BuildView the photo lies on. */
  constructor(view) {
    this.view = view;
    this.img = null;
    this.points = null; // where the board's corners are in the photo (its pixels), nw ne se sw
    this.opacity = 0.5;
    this.el = h("section.panel.trace-panel", { "aria-labelledby": "trace-title", "data-testid": "trace" });
    this.input = h("input", { type: "file", accept: "image/*", id: "trace-file", "data-testid": "trace-file", onchange: () => this.load() });
    this.slider = h("input", { type: "range", min: 0, max: 100, value: 50, id: "trace-opacity", "data-testid": "trace-opacity", oninput: () => this.setOpacity(this.slider.value / 100) });
    this.controls = h("div.trace-controls", { hidden: true },
      h("div.field", null, h("label", { for: "trace-opacity" }, t("build.trace.opacity")), this.slider),
      h("div.button-row", null,
        h("button.small", { type: "button", "data-testid": "trace-reset", onclick: () => this.reset() }, t("build.trace.reset")),
        h("button.small", { type: "button", "data-testid": "trace-hide", onclick: () => this.toggle() }, t("build.trace.hide")),
        h("button.small.ghost", { type: "button", "data-testid": "trace-remove", onclick: () => this.remove() }, t("build.trace.remove"))),
      h("p.hint", null, t("build.trace.corners_hint")));
    fill(this.el, h("h2", { id: "trace-title" }, t("build.trace.title")),
      h("div.field", null, h("label", { for: "trace-file" }, t("build.trace.load")), this.input, h("span.hint", null, t("build.trace.private"))),
      this.controls);
    view.onView = () => this.place();
  }

  load() {
    const file = this.input.files && this.input.files[0];
    if (!file) return;
    this.remove();
    this.url = URL.createObjectURL(file); // the picture stays in the browser
    const img = h("img.trace-photo", { alt: "", "data-testid": "trace-photo", draggable: "false" });
    img.addEventListener("load", () => {
      this.natural = [img.naturalWidth || 1, img.naturalHeight || 1];
      this.reset();
      this.controls.hidden = false;
    });
    img.src = this.url;
    this.img = img;
    this.handles = CORNERS.map((name, i) => {
      const handle = h("button.trace-handle", {
        type: "button", "data-corner": name, "data-testid": "trace-handle-" + name,
        "aria-label": t("build.trace.corner." + name), title: t("build.trace.corner_keys"),
      });
      handle.addEventListener("pointerdown", (e) => this.grab(e, i));
      handle.addEventListener("keydown", (e) => this.key(e, i));
      return handle;
    });
    // The photo is cut to the board's frame; the pins sit on the grid's corners.
    fill(this.view.overlayBox, h("div.trace-clip", null, img), ...this.handles);
    this.view.overlayBox.hidden = false;
  }

  /** The grid's corners in board units, nw ne se sw. */
  grid() {
    const [w, hgt] = [this.view.width * CELL, this.view.height * CELL];
    return [[0, 0], [w, 0], [w, hgt], [0, hgt]];
  }

  /** The whole photo stretched over the board again. */
  reset() {
    const [nw, nh] = this.natural || [1, 1];
    this.points = [[0, 0], [nw, 0], [nw, nh], [0, nh]];
    this.setOpacity(this.opacity);
    this.place();
  }

  setOpacity(value) {
    this.opacity = value;
    this.slider.value = Math.round(value * 100);
    if (this.img) this.img.style.opacity = String(value);
  }

  toggle() {
    this.view.overlayBox.hidden = !this.view.overlayBox.hidden;
  }

  remove() {
    if (this.url) URL.revokeObjectURL(this.url);
    this.url = null;
    this.img = null;
    this.points = null;
    this.controls.hidden = true;
    fill(this.view.overlayBox);
  }

  /** Where a point of the photo (its pixels) is on the board now, and back. */
  photoToBoard(p) {
    return apply(homography(this.points, this.grid()), p);
  }

  boardToPhoto(p) {
    return apply(homography(this.grid(), this.points), p);
  }

  /** Lay the photo and its pins over the board as it is zoomed now. */
  place() {
    if (!this.img || !this.points || !this.natural) return;
    const ctm = this.view.svg.getScreenCTM();
    if (!ctm) return;
    const box = this.view.scroller.getBoundingClientRect();
    // board units -> pixels of the box the photo is placed in
    const toBox = [[ctm.a, ctm.c, ctm.e - box.left], [ctm.b, ctm.d, ctm.f - box.top], [0, 0, 1]];
    const [nw, nh] = this.natural;
    const hom = homography(this.points, this.grid());
    if (!hom) return;
    const p = mul(toBox, hom);
    const n = (v) => +v.toFixed(8);
    this.img.style.width = nw + "px";
    this.img.style.height = nh + "px";
    this.img.style.transform = `matrix3d(${n(p[0][0])},${n(p[1][0])},0,${n(p[2][0])},${n(p[0][1])},${n(p[1][1])},0,${n(p[2][1])},0,0,1,0,${n(p[0][2])},${n(p[1][2])},0,${n(p[2][2])})`;
    this.grid().forEach(([x, y], i) => {
      this.handles[i].style.left = toBox[0][0] * x + toBox[0][1] * y + toBox[0][2] + "px";
      this.handles[i].style.top = toBox[1][0] * x + toBox[1][1] * y + toBox[1][2] + "px";
      this.handles[i].dataset.x = this.points[i][0].toFixed(1); // the photo's pixel pinned there
      this.handles[i].dataset.y = this.points[i][1].toFixed(1);
    });
  }

  /** Drag a pin from its grid corner onto the board's corner in the photo and let go: the
   * photo bends so that point lands on the grid's corner. */
  grab(e, i) {
    e.preventDefault();
    e.stopPropagation();
    const handle = this.handles[i];
    handle.setPointerCapture(e.pointerId);
    const box = this.view.scroller.getBoundingClientRect();
    const move = (ev) => {
      handle.style.left = ev.clientX - box.left + "px";
      handle.style.top = ev.clientY - box.top + "px";
    };
    const up = (ev) => {
      handle.removeEventListener("pointermove", move);
      handle.removeEventListener("pointerup", up);
      handle.removeEventListener("pointercancel", up);
      const m = this.view.svg.getScreenCTM();
      if (m && ev.type === "pointerup") {
        const q = new DOMPoint(ev.clientX, ev.clientY).matrixTransform(m.inverse());
        const moved = this.boardToPhoto([q.x, q.y]);
        if (moved && moved.every(Number.isFinite)) this.points[i] = moved;
      }
      this.place();
    };
    handle.addEventListener("pointermove", move);
    handle.addEventListener("pointerup", up);
    handle.addEventListener("pointercancel", up);
  }

  /** Arrow keys move the photo at that corner a tenth of a space (with Shift: a whole space). */
  key(e, i) {
    const d = { ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, -1], ArrowDown: [0, 1] }[e.key];
    if (!d) return;
    e.preventDefault();
    const by = e.shiftKey ? CELL : CELL / 10;
    const [gx, gy] = this.grid()[i];
    const moved = this.boardToPhoto([gx - d[0] * by, gy - d[1] * by]);
    if (moved && moved.every(Number.isFinite)) this.points[i] = moved;
    this.place();
  }
}

/** A homography applied to a point (null without one). */
function apply(m, [x, y]) {
  if (!m) return null;
  const d = m[2][0] * x + m[2][1] * y + m[2][2];
  return [(m[0][0] * x + m[0][1] * y + m[0][2]) / d, (m[1][0] * x + m[1][1] * y + m[1][2]) / d];
}
