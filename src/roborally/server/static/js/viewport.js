// Pan and zoom of the board (big courses on small screens), and "follow my robot".
//
// The board's SVG keeps its size on the page; zooming changes its viewBox, the part of the
// course it shows. So every drawing stays sharp, and everything that maps the screen to spaces
// (getScreenCTM: taps on spaces, the space info, the choices) keeps working unchanged.
//
// * one finger or the mouse drags the view (once the pointer moved a few pixels: a tap is a tap);
// * two fingers pinch; Ctrl (or ⌘) + wheel and a touchpad pinch zoom at the pointer; the plain
//   wheel pans a zoomed board (and scrolls the page when the board shows all of it);
// * a double tap (or double click) zooms in there, and back to the whole course;
// * buttons: zoom in, zoom out, whole course, follow my robot; with the board focused, + - 0
//   and the arrow keys do the same.
//
// Robot numbers never get smaller than MIN_LABEL_PX on the screen: zoomed out, the number
// badges grow (BoardView.setLabelScale).

import { t } from "./i18n.js";
import { h, store } from "./util.js";

const MIN_LABEL_PX = 12; // the smallest robot number on the screen, in CSS pixels
const LABEL_UNITS = 12; // the number's size in board units at 48 units per space (board.js)
const TAP_SLOP = 6; // pixels a pointer may move and still be a tap
const DOUBLE_TAP_MS = 320;
const STEP = 1.5; // one press of a zoom button
const COMFORT_PX = 56; // a double tap zooms so that a space is this big
const MAX_SPACE_PX = 160; // the closest zoom: a space this big
const EDGE_SLACK_PX = 52; // how far past the course's edge a zoomed view may be moved
const FOLLOW_MARGIN = 0.22; // "follow" keeps the robot this far (a share of the view) from the edges

// The buttons' icons (24 × 24).
const ICONS = {
  in: '<circle cx="10" cy="10" r="6.5" fill="none" stroke="currentColor" stroke-width="2.4"/><path d="M15 15l6 6M7 10h6M10 7v6" stroke="currentColor" stroke-width="2.4" stroke-linecap="round"/>',
  out: '<circle cx="10" cy="10" r="6.5" fill="none" stroke="currentColor" stroke-width="2.4"/><path d="M15 15l6 6M7 10h6" stroke="currentColor" stroke-width="2.4" stroke-linecap="round"/>',
  fit: '<path d="M4 9V4h5M15 4h5v5M20 15v5h-5M9 20H4v-5" fill="none" stroke="currentColor" stroke-width="2.4" stroke-linecap="round" stroke-linejoin="round"/>',
  follow: '<circle cx="12" cy="12" r="3.2" fill="currentColor"/><circle cx="12" cy="12" r="7.5" fill="none" stroke="currentColor" stroke-width="2"/><path d="M12 1.5v4M12 18.5v4M1.5 12h4M18.5 12h4" stroke="currentColor" stroke-width="2.2" stroke-linecap="round"/>',
};

function iconEl(name) {
  const span = h("span.icon-svg", { "aria-hidden": "true" });
  span.innerHTML = `<svg viewBox="0 0 24 24">${ICONS[name]}</svg>`;
  return span;
}

const clamp = (v, low, high) => Math.min(high, Math.max(low, v));

export class Viewport {
  /** board: a loaded BoardView (its svg and its frame, board.scroller). */
  constructor(board) {
    this.board = board;
    this.svg = board.svg;
    this.frame = board.scroller;
    const vb = this.svg.viewBox.baseVal;
    this.full = { x: vb.x, y: vb.y, w: vb.width || 1, h: vb.height || 1 };
    this.zoom = 1;
    this.cx = this.full.x + this.full.w / 2;
    this.cy = this.full.y + this.full.h / 2;
    this.fitScale = 1; // screen pixels per board unit with the whole course in view
    this.pointers = new Map();
    this.following = store.get("view.follow", true);
    this.buildControls();
    this.listen();
  }

  // ------------------------------------------------------------------ controls
  buildControls() {
    const button = (name, testid, label, onclick) => h("button.view-btn", {
      type: "button", title: label, "aria-label": label, "data-testid": testid, onclick,
    }, iconEl(name));
    this.inBtn = button("in", "zoom-in", t("view.zoom_in"), () => this.zoomBy(STEP));
    this.outBtn = button("out", "zoom-out", t("view.zoom_out"), () => this.zoomBy(1 / STEP));
    this.fitBtn = button("fit", "zoom-fit", t("view.fit"), () => this.fit());
    this.followBtn = button("follow", "follow", t("view.follow"), () => this.setFollow(!this.following));
    this.followBtn.hidden = true; // until the board knows the player's robot
    this.controls = h("div.view-controls", { role: "group", "aria-label": t("view.controls") },
      this.inBtn, this.outBtn, this.fitBtn, this.followBtn);
    this.frame.tabIndex = 0;
    this.frame.setAttribute("aria-label", t("view.board_keys"));
    this.board.el.append(this.controls);
    this.renderButtons();
  }

  renderButtons() {
    // The whole course in view: only "zoom in" (the others would do nothing).
    const zoomed = this.zoom > 1.001;
    this.outBtn.hidden = this.fitBtn.hidden = !zoomed;
    this.inBtn.disabled = this.zoom >= this.maxZoom() - 0.001;
    const mine = this.board.mine !== null && this.board.mine !== undefined;
    this.followBtn.hidden = !mine || !zoomed;
    this.followBtn.setAttribute("aria-pressed", String(this.following));
    this.followBtn.classList.toggle("on", this.following);
    this.board.el.classList.toggle("zoomed", zoomed);
    this.frame.style.touchAction = zoomed ? "none" : "pan-x pan-y";
  }

  setFollow(on) {
    this.following = on;
    store.set("view.follow", on);
    if (on) this.centreOnMine();
    this.renderButtons();
  }

  // ------------------------------------------------------------------ geometry
  /** The closest zoom: a space MAX_SPACE_PX big (at least twice the whole course). */
  maxZoom() {
    const space = this.board.cell * this.fitScale;
    return Math.max(2, MAX_SPACE_PX / Math.max(1, space));
  }

  /** BoardView.fit asks how big the picture is: the whole course fitted into (fitW, fitH),
   * or, zoomed in, all the room there is (boxW × boxH). */
  size(boxW, boxH, fitW, fitH) {
    this.fitScale = fitW / this.full.w;
    this.box = [boxW, boxH];
    return this.zoom > 1.001 ? [Math.max(fitW, boxW), Math.max(fitH, boxH)] : [fitW, fitH];
  }

  /** Screen pixels per board unit now. */
  scale() {
    return this.fitScale * this.zoom;
  }

  /** The part of the course in view, in board units. */
  view() {
    if (this.zoom <= 1.001) return { ...this.full };
    const s = this.scale();
    const w = (this.svg.clientWidth || this.full.w * s) / s;
    const hgt = (this.svg.clientHeight || this.full.h * s) / s;
    return { x: this.cx - w / 2, y: this.cy - hgt / 2, w, h: hgt };
  }

  /** Keep the centre where the course stays in view (centred along a side that fits); the
   * edges may come a little way in, out from under the buttons. */
  clampCentre() {
    const v = this.view();
    const slack = EDGE_SLACK_PX / this.scale();
    const { x, y, w, h: hgt } = this.full;
    this.cx = v.w >= w ? x + w / 2 : clamp(this.cx, x + v.w / 2 - slack, x + w - v.w / 2 + slack);
    this.cy = v.h >= hgt ? y + hgt / 2 : clamp(this.cy, y + v.h / 2 - slack, y + hgt - v.h / 2 + slack);
  }

  /** Draw the view: the viewBox, the size of the robot numbers, the buttons. */
  apply() {
    this.clampCentre();
    const v = this.view();
    this.svg.setAttribute("viewBox", [v.x, v.y, v.w, v.h].map((n) => +n.toFixed(2)).join(" "));
    const k = this.board.cell / 48;
    this.board.setLabelScale(MIN_LABEL_PX / (LABEL_UNITS * k * Math.max(1e-6, this.scale())));
    this.renderButtons();
  }

  /** Board units under a point of the screen. */
  toBoard(clientX, clientY) {
    const r = this.svg.getBoundingClientRect();
    const v = this.view();
    return [v.x + ((clientX - r.left) / (r.width || 1)) * v.w, v.y + ((clientY - r.top) / (r.height || 1)) * v.h];
  }

  /** Zoom to ``zoom`` keeping the board point under (clientX, clientY) where it is. */
  zoomTo(zoom, clientX, clientY) {
    const before = this.zoom;
    const next = clamp(zoom, 1, this.maxZoom());
    if (Math.abs(next - before) < 1e-4) return;
    const rect = this.svg.getBoundingClientRect();
    const px = clientX ?? rect.left + rect.width / 2;
    const py = clientY ?? rect.top + rect.height / 2;
    const [bx, by] = this.toBoard(px, py);
    const wasFit = before <= 1.001;
    this.zoom = next;
    if (wasFit !== next <= 1.001) this.board.fit(); // the picture takes all the room, or gives it back
    const r2 = this.svg.getBoundingClientRect();
    const s = this.scale();
    // The point (bx, by) stays under (px, py): solve for the centre.
    this.cx = bx - (px - r2.left) / s + (this.svg.clientWidth || r2.width) / s / 2;
    this.cy = by - (py - r2.top) / s + (this.svg.clientHeight || r2.height) / s / 2;
    this.apply();
  }

  zoomBy(factor, clientX, clientY) {
    const centred = clientX === undefined && this.following && this.mineRobot();
    this.zoomTo(this.zoom * factor, clientX, clientY);
    if (centred) this.centreOnMine();
  }

  /** The whole course. */
  fit() {
    if (this.zoom <= 1.001) return;
    this.zoom = 1;
    this.board.fit();
    this.apply();
  }

  /** Zoom so that a space is ``px`` screen pixels. */
  zoomToSpace(px, clientX, clientY) {
    this.zoomTo(px / (this.board.cell * this.fitScale), clientX, clientY);
  }

  panBy(dx, dy) {
    const s = this.scale();
    this.cx -= dx / s;
    this.cy -= dy / s;
    this.apply();
  }

  /** Bring a board point to the middle of the view. */
  centreOn(x, y) {
    this.cx = x;
    this.cy = y;
    this.apply();
  }

  mineRobot() {
    const seat = this.board.mine;
    return seat === null || seat === undefined ? null : this.board.robotAt(seat);
  }

  centreOnMine() {
    const r = this.mineRobot();
    if (r && this.zoom > 1.001) this.centreOn(r.x, r.y);
  }

  /** Called as the player's robot moves (every animation frame): with "follow" on, keep it in
   * the middle part of a zoomed view. */
  robotMoved(r) {
    if (!this.following || this.zoom <= 1.001 || this.gesture) return;
    const v = this.view();
    const mx = v.w * FOLLOW_MARGIN, my = v.h * FOLLOW_MARGIN;
    let dx = 0, dy = 0;
    if (r.x < v.x + mx) dx = r.x - (v.x + mx);
    else if (r.x > v.x + v.w - mx) dx = r.x - (v.x + v.w - mx);
    if (r.y < v.y + my) dy = r.y - (v.y + my);
    else if (r.y > v.y + v.h - my) dy = r.y - (v.y + v.h - my);
    if (dx || dy) this.centreOn(this.cx + dx, this.cy + dy);
  }

  /** Whether a point of the board is in view (for tests and the guide). */
  inView(x, y) {
    const v = this.view();
    return x >= v.x && x <= v.x + v.w && y >= v.y && y <= v.y + v.h;
  }

  // ------------------------------------------------------------------ input
  listen() {
    const f = this.frame;
    f.addEventListener("pointerdown", (e) => this.down(e));
    f.addEventListener("pointermove", (e) => this.move(e));
    for (const kind of ["pointerup", "pointercancel", "lostpointercapture"]) {
      f.addEventListener(kind, (e) => this.up(e));
    }
    // A drag is not a tap: the click that ends it does not reach the spaces.
    f.addEventListener("click", (e) => {
      if (this.dragged) {
        e.stopPropagation();
        e.preventDefault();
        this.dragged = false;
      }
    }, true);
    f.addEventListener("wheel", (e) => this.wheel(e), { passive: false });
    f.addEventListener("dblclick", (e) => {
      if (performance.now() - (this.touchAt || -1e9) < 1000) return; // touch: double tap in up()
      e.preventDefault();
      this.toggleAt(e.clientX, e.clientY);
    });
    f.addEventListener("keydown", (e) => this.key(e));
  }

  down(e) {
    if (e.pointerType === "mouse" && e.button !== 0) return;
    this.pointers.set(e.pointerId, { x: e.clientX, y: e.clientY, x0: e.clientX, y0: e.clientY, type: e.pointerType });
    if (this.pointers.size === 1) {
      this.dragged = false;
      this.gesture = null;
    } else if (this.pointers.size === 2) {
      const [a, b] = [...this.pointers.values()];
      this.gesture = { kind: "pinch", dist: Math.hypot(a.x - b.x, a.y - b.y) || 1, mid: [(a.x + b.x) / 2, (a.y + b.y) / 2] };
      for (const id of this.pointers.keys()) this.capture(id);
      this.dragged = true;
    }
  }

  capture(id) {
    try {
      this.frame.setPointerCapture(id);
    } catch {
      /* the pointer is gone */
    }
  }

  move(e) {
    const p = this.pointers.get(e.pointerId);
    if (!p) return;
    const [dx, dy] = [e.clientX - p.x, e.clientY - p.y];
    p.x = e.clientX;
    p.y = e.clientY;
    if (this.gesture && this.gesture.kind === "pinch" && this.pointers.size >= 2) {
      const [a, b] = [...this.pointers.values()];
      const dist = Math.hypot(a.x - b.x, a.y - b.y) || 1;
      const mid = [(a.x + b.x) / 2, (a.y + b.y) / 2];
      const g = this.gesture;
      this.panBy(mid[0] - g.mid[0], mid[1] - g.mid[1]);
      this.zoomTo(this.zoom * (dist / g.dist), mid[0], mid[1]);
      g.dist = dist;
      g.mid = mid;
      e.preventDefault();
      return;
    }
    if (this.pointers.size !== 1 || this.zoom <= 1.001) return;
    if (!this.gesture) {
      if (Math.hypot(e.clientX - p.x0, e.clientY - p.y0) < TAP_SLOP) return;
      this.gesture = { kind: "pan" };
      this.capture(e.pointerId);
      this.dragged = true;
      if (this.following) this.setFollow(false); // looking elsewhere: stop following
      this.panBy(e.clientX - p.x0, e.clientY - p.y0);
      return;
    }
    this.panBy(dx, dy);
    e.preventDefault();
  }

  up(e) {
    const p = this.pointers.get(e.pointerId);
    if (!p) return;
    this.pointers.delete(e.pointerId);
    if (this.pointers.size === 0) {
      const tap = !this.dragged && e.type === "pointerup";
      this.gesture = null;
      if (p.type !== "mouse") this.touchAt = performance.now();
      if (tap && p.type !== "mouse") this.touchTap(e.clientX, e.clientY);
    } else if (this.gesture && this.gesture.kind === "pinch") {
      this.gesture = { kind: "pan" }; // one finger left: it goes on panning
    }
  }

  /** Two taps close in time and place: zoom in there, or back to the whole course. */
  touchTap(x, y) {
    const last = this.lastTouchTap;
    const now = performance.now();
    if (last && now - last.at < DOUBLE_TAP_MS && Math.hypot(x - last.x, y - last.y) < 30) {
      this.lastTouchTap = null;
      this.toggleAt(x, y);
      return;
    }
    this.lastTouchTap = { at: now, x, y };
    setTimeout(() => {
      if (this.lastTouchTap && this.lastTouchTap.at === now) this.lastTouchTap = null;
    }, DOUBLE_TAP_MS + 50);
  }

  toggleAt(x, y) {
    if (this.zoom > 1.001) this.fit();
    else this.zoomToSpace(COMFORT_PX, x, y);
  }

  wheel(e) {
    const pixels = e.deltaMode === 1 ? 16 : e.deltaMode === 2 ? 400 : 1;
    if (e.ctrlKey || e.metaKey) {
      e.preventDefault();
      this.zoomTo(this.zoom * Math.exp(-e.deltaY * pixels * 0.0025), e.clientX, e.clientY);
      return;
    }
    if (this.zoom <= 1.001) return; // the page scrolls
    const [cx, cy] = [this.cx, this.cy];
    this.panBy(-e.deltaX * pixels, -e.deltaY * pixels);
    if (cx !== this.cx || cy !== this.cy) e.preventDefault(); // at an edge the page scrolls on
  }

  key(e) {
    if (e.target !== this.frame || e.altKey || e.ctrlKey || e.metaKey) return;
    const step = 60;
    const moves = { ArrowLeft: [step, 0], ArrowRight: [-step, 0], ArrowUp: [0, step], ArrowDown: [0, -step] };
    if (e.key === "+" || e.key === "=") this.zoomBy(STEP);
    else if (e.key === "-" || e.key === "_") this.zoomBy(1 / STEP);
    else if (e.key === "0") this.fit();
    else if (moves[e.key] && this.zoom > 1.001) this.panBy(...moves[e.key]);
    else return;
    e.preventDefault();
  }
}
