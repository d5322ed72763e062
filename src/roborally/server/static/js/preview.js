// The path preview while programming: where your robot ends after each register if nothing
// else moves it (the server's "preview" message runs the engine's own rules for your robot
// alone), drawn as a faint path with a numbered ghost robot per register; and, when your robot
// is off the board, the facing it comes back with (the "preset" message answers the question
// the game will ask in register 1). A fall is said in the edition's words: a 2023 robot reboots,
// a classic one is destroyed and comes back on its archive marker (preview.*.classic).

import { t } from "./i18n.js";
import { h, s, DIRS, DIR_ARROWS, DIR_WORDS } from "./util.js";

const DEBOUNCE_MS = 150;
const ANGLE = { N: 0, E: 90, S: 180, W: 270 };
// Where the ghosts of registers ending on one space stand, in cells from its centre.
const SPOTS = [
  [],
  [[0, 0]],
  [[-0.22, -0.18], [0.22, 0.18]],
  [[-0.24, -0.22], [0.24, -0.22], [0, 0.24]],
  [[-0.24, -0.24], [0.24, -0.24], [-0.24, 0.24], [0.24, 0.24]],
  [[-0.26, -0.26], [0.26, -0.26], [-0.26, 0.26], [0.26, 0.26], [0, 0]],
];
const SCALE = [0, 0.8, 0.56, 0.5, 0.46, 0.42]; // a ghost's size, by how many share the space

/** The preview's words (preview.*), read when they are shown; ``fallIn(classic)`` the fall's. */
export const PREVIEW_WORDS = Object.freeze({
  get caption() { return t("preview.caption"); },
  get short() { return t("preview.short"); },
  get unsure() { return "? " + t("preview.unsure"); },
  get unsureFacing() { return "? " + t("preview.unsure_facing"); },
  get fall() { return PREVIEW_WORDS.fallIn(false); },
  fallIn: (classic) => "✕ " + t(classic ? "preview.fall.classic" : "preview.fall"),
});

export class PathPreview {
  /** board: the BoardView; send(type, fields): the socket's send (returns an id or null). */
  constructor(board, send, storageKey) {
    this.board = board;
    this.send = send;
    this.storageKey = storageKey; // (decision id) -> sessionStorage key of the chosen facing
    this.decision = null;
    this.own = null;
    this.program = null;
    this.lastId = null;
    this.timer = null;
    this.registers = null;
    this.facing = null; // the facing chosen for the re-entry (sent as a preset)
    this.classic = false; // a classic game: a fall destroys the robot (the words say so)
    this.panel = h("div.preview-panel", { "data-testid": "preview-panel" });
  }

  /** The program editor opened for ``decision``; ``own``: this seat's player view. */
  start(decision, own, edition) {
    if (!this.decision || this.decision.id !== decision.id) {
      this.facing = this._loadFacing(decision.id);
      this.registers = null;
    }
    this.decision = decision;
    this.own = own;
    this.rebooting = !!(own && !own.on_board && own.reentry) && edition === "2023";
    this.classic = String(edition || "").startsWith("classic");
    this.render();
    this.redraw();
  }

  /** The program changed: ask for its preview (after a short pause; the newest answer wins). */
  update(program) {
    if (!this.decision) return;
    this.program = program.slice();
    this.waiting = true; // until the answer to this program is drawn (tests and pictures wait)
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this._ask(), DEBOUNCE_MS);
  }

  _ask() {
    if (!this.decision || !this.program) return;
    const id = this.send("preview", { decision_id: this.decision.id, program: this.program });
    if (id !== null) this.lastId = id;
  }

  /** A "preview" reply: drawn if it answers the newest request of the open editor. */
  onReply(msg) {
    if (!this.decision || msg.ref !== this.lastId || msg.decision_id !== this.decision.id) return;
    this.registers = msg.registers || [];
    this.render();
    this.draw();
    this.waiting = false;
  }

  /** The editor closed (locked in, time ran out, a new question): nothing is shown. */
  stop() {
    clearTimeout(this.timer);
    this.decision = null;
    this.program = null;
    this.lastId = null;
    this.registers = null;
    this.clear();
    this.panel.replaceChildren();
  }

  clear() {
    const layer = this.board && this.board.previewLayer;
    if (layer) layer.replaceChildren();
    if (this.board && this.rebooting) this.board.clearChoices();
  }

  /** Draw again after the board was redrawn (a new state puts the robots back). */
  redraw() {
    if (!this.decision || !this.board) return;
    this.board.ready.then(() => {
      if (!this.decision) return;
      if (this.rebooting) this._showReentry();
      this.draw();
    });
  }

  // ------------------------------------------------------------ the facing
  _loadFacing(decisionId) {
    try {
      const v = sessionStorage.getItem(this.storageKey(decisionId));
      return DIRS.includes(v) ? v : null;
    } catch {
      return null;
    }
  }

  choose(facing) {
    if (!this.decision || !DIRS.includes(facing)) return;
    if (this.send("preset", { decision_kind: "reboot_facing", choice: facing }) === null) return;
    this.facing = facing;
    try {
      sessionStorage.setItem(this.storageKey(this.decision.id), facing);
    } catch {
      /* ignore */
    }
    this.render();
    this._showReentry();
    if (this.program) this._ask(); // the server uses the facing in the preview
  }

  /** The waiting robot on its reboot space, turned the chosen way, with arrows to turn it. */
  _showReentry() {
    const own = this.own;
    if (!own || !own.reentry || !this.board.svg) return;
    const facing = this.facing || this.arrow() || own.facing;
    this.board.place(own.seat, own.reentry, facing, true);
    this.board.showFacingChoices(own.reentry, (d) => this.choose(d));
  }

  /** The way the arrow on the reboot space points (the facing if the player does not choose). */
  arrow() {
    const pos = this.own && this.own.reentry;
    if (!pos || !this.board) return null;
    const cell = (this.board.board.cells || []).find((c) => c.x === pos[0] && c.y === pos[1]);
    return cell && DIRS.includes(cell.reboot) ? cell.reboot : null;
  }

  // ---------------------------------------------------------------- words
  render() {
    const regs = this.registers || [];
    const parts = [h("p.preview-caption", { "data-testid": "preview-caption" },
      h("span.long", null, PREVIEW_WORDS.caption), h("span.short", null, PREVIEW_WORDS.short))];
    const unsure = this.rebooting && !this.facing ? PREVIEW_WORDS.unsureFacing : PREVIEW_WORDS.unsure;
    if (regs.some((r) => !r.certain)) parts.push(h("p.preview-note", { "data-testid": "preview-unsure" }, unsure));
    if (regs.some((r) => r.rebooted)) parts.push(h("p.preview-note.bad", { "data-testid": "preview-falls" }, PREVIEW_WORDS.fallIn(this.classic)));
    if (this.rebooting) parts.push(this._facingBox());
    this.panel.replaceChildren(...parts);
  }

  _facingBox() {
    const arrow = this.arrow();
    const buttons = DIRS.map((d) => h("button.facing-btn", {
      type: "button", "data-testid": "facing-" + d, "aria-pressed": String(this.facing === d),
      title: t("preview.face", { direction: DIR_WORDS[d] }), onclick: () => this.choose(d),
    }, DIR_ARROWS[d] + " " + DIR_WORDS[d]));
    const chosen = this.facing
      ? t("preview.will_face", { direction: DIR_WORDS[this.facing] })
      : arrow
        ? t("preview.default_arrow", { direction: DIR_WORDS[arrow] })
        : t("preview.default_ask");
    return h("div.reboot-facing", { "data-testid": "reboot-facing", "data-facing": this.facing || "" },
      h("p.reboot-facing-q", null, t("preview.reboot_question")),
      h("div.facing-row", null, buttons),
      h("p.hint", null, chosen));
  }

  // -------------------------------------------------------------- drawing
  draw() {
    const board = this.board;
    const layer = board && board.previewLayer;
    if (!layer) return;
    layer.replaceChildren();
    const regs = this.registers;
    if (!regs || !regs.length) return;
    const c = board.cell;
    const centre = (p) => board.centre(p);
    // The path, register by register (a dashed, fainter line where it is not sure).
    for (const r of regs) {
      const pts = (r.path || []).map(centre);
      if (pts.length < 2) continue;
      const d = pts.map(([x, y], i) => `${i ? "L" : "M"}${x.toFixed(1)} ${y.toFixed(1)}`).join(" ");
      const cls = "preview-line" + (r.certain ? "" : " unsure");
      layer.append(
        s("path", { d, class: cls + " under", "stroke-width": c * 0.16 }),
        s("path", { d, class: cls, "stroke-width": c * 0.07, "stroke-dasharray": r.certain ? null : `${c * 0.14} ${c * 0.1}` }),
      );
    }
    // Where the robot falls: the last space it stood on in that register.
    for (const r of regs) {
      if (!r.rebooted) continue;
      const last = (r.path || [])[r.path.length - 1];
      if (!last) continue;
      const [x, y] = centre(last);
      const k = c * 0.2;
      layer.append(s("g", { class: "preview-fall", "data-testid": "preview-fall", "data-register": r.register, transform: `translate(${x} ${y})` },
        s("title", null, t(this.classic ? "preview.fall_title.classic" : "preview.fall_title", { n: r.register })),
        s("circle", { r: c * 0.3 }),
        s("path", { d: `M${-k} ${-k} L${k} ${k} M${k} ${-k} L${-k} ${k}`, "stroke-width": c * 0.08 })));
    }
    // A ghost robot per register end. A register that leaves the robot as it was (an empty
    // register, a blocked move) joins the ghost before it ("2–4"); none is drawn where the
    // robot still stands as it does now. Registers ending on one space stand side by side.
    const own = this.own;
    let prev = own && own.on_board && own.pos ? { pos: own.pos, facing: own.facing, ghost: null } : null;
    const ghosts = [];
    for (const r of regs) {
      if (!r.pos) {
        prev = null;
        continue;
      }
      const same = prev && prev.pos[0] === r.pos[0] && prev.pos[1] === r.pos[1] && prev.facing === r.facing;
      if (same) {
        if (prev.ghost) prev.ghost.regs.push(r);
        layer.append(this._endMark(r, "same"));
        continue;
      }
      prev = { pos: r.pos, facing: r.facing, ghost: { regs: [r], pos: r.pos, facing: r.facing } };
      ghosts.push(prev.ghost);
    }
    const groups = new Map();
    for (const g of ghosts) {
      const key = g.pos.join(",");
      if (!groups.has(key)) groups.set(key, []);
      groups.get(key).push(g);
    }
    for (const list of groups.values()) {
      const [cx, cy] = centre(list[0].pos);
      list.forEach((g, i) => {
        const n = Math.min(list.length, SPOTS.length - 1);
        const [dx, dy] = SPOTS[n][i % n];
        const scale = SCALE[n];
        layer.append(this._ghost(g, cx + dx * c, cy + dy * c, scale));
      });
    }
  }

  /** The data of one register's end, for tests and screen readers (``extra``: a class). */
  _endMark(r, extra = "") {
    return s("g", {
      class: `preview-end ${extra}${r.certain ? "" : " unsure"}`, "data-testid": "preview-end",
      "data-register": r.register, "data-x": r.pos[0], "data-y": r.pos[1], "data-facing": r.facing,
      "data-certain": String(!!r.certain),
    });
  }

  /** A faded robot with its facing and its register numbers ("3", "2–4", "5?"). */
  _ghost(ghost, x, y, scale) {
    const [r, last] = [ghost.regs[0], ghost.regs[ghost.regs.length - 1]];
    const certain = ghost.regs.every((x) => x.certain);
    const k = (this.board.cell / 48) * scale;
    const g = this._endMark(r);
    g.setAttribute("transform", `translate(${x.toFixed(1)} ${y.toFixed(1)})`);
    if (!certain) g.classList.add("unsure");
    const numbers = last === r ? String(r.register) : `${r.register}–${last.register}`;
    const facing = DIR_WORDS[r.facing] || r.facing;
    const words = last === r
      ? t(certain ? "preview.ghost" : "preview.ghost_unsure", { n: r.register, direction: facing })
      : t(certain ? "preview.ghost_range" : "preview.ghost_range_unsure", { from: r.register, to: last.register, direction: facing });

    const body = s("g", { transform: `rotate(${ANGLE[r.facing] || 0})` },
      s("rect", { class: "ghost-body", x: -15 * k, y: -14 * k, width: 30 * k, height: 30 * k, rx: 8 * k, "stroke-width": 2.2 * k, "stroke-dasharray": certain ? null : `${5 * k} ${3.5 * k}` }),
      s("path", { class: "ghost-nose", d: `M0 ${-25 * k} L${-9 * k} ${-13 * k} L${9 * k} ${-13 * k} Z` }));
    const text = numbers + (certain ? "" : "?");
    const size = text.length > 2 ? 12 : 17;
    const label = s("text", { class: "ghost-label", x: 0, y: (size * 0.38 + 1) * k, "text-anchor": "middle", "font-size": size * k }, text);
    g.append(s("title", null, words), body, label);
    return g;
  }
}
