// The board and course builder (/build): draw a board, trace a photo, place boards into a
// course, see the checks live, test-drive a program, save, share and play. docs/builder.md.

import { applyTheme, themeButton } from "../a11y.js";
import { languageSwitcher, loadLanguage, t, titleOf } from "../i18n.js";
import { h, fill, params, DIR_ARROWS } from "../util.js";
import { buildApi } from "./buildapi.js";
import { renderBoardPanel, renderInspector } from "./boardpanel.js";
import { BuildView } from "./canvas.js";
import { Checker } from "./checks.js";
import { CourseEditor, courseMarks, emptyCourse } from "./course.js";
import { Driver } from "./drive.js";
import { FilesPanel } from "./files.js";
import { BoardModel, DIRS, History, OPPOSITE, MAX_SIZE, paint, region, transformRegion } from "./model.js";
import { PlayPanel } from "./play.js";
import { COURSE_TOOLS, Palette, TOOLS, describeCell, toolName } from "./tools.js";
import { Tracer } from "./trace.js";
import { s } from "../util.js";

const TYPING = "input, textarea, select, [contenteditable=true]";
const MOVES = { ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, -1], ArrowDown: [0, 1] };
const DIR_OF = (dx, dy) => (dx === 1 ? "E" : dx === -1 ? "W" : dy === 1 ? "S" : "N");

class Builder {
  constructor(root) {
    this.root = root;
    this.state = { boards: [new BoardModel({ name: "my-board", title: t("build.board.default_title", { n: 1 }) })], course: emptyCourse() };
    this.bi = 0; // the board being drawn
    this.mode = "board";
    this.history = new History();
    this.selection = null;
    this.shipped = [];
    this.shippedCourses = [];
    this.options = null;
    this.results = { board: null, course: null };
  }

  get board() {
    return this.state.boards[this.bi];
  }

  async start() {
    document.title = t("build.page_title");
    [this.options, this.shipped] = await Promise.all([
      buildApi.options().catch(() => ({ variants: [], bots: [], courses: [], editions: [] })),
      buildApi.boards().then((d) => d.boards || []).catch(() => []),
    ]);
    this.shippedCourses = (this.options.courses || []).filter((c) => !String(c.id).startsWith("c-"));
    this.layout();
    const board = params.get("board"), course = params.get("course");
    if (course && course.startsWith("c-")) await this.loadCustomCourse(course);
    else if (course) await this.loadShippedCourse(course);
    else if (board) await this.loadShippedBoard(board);
    this.setMode(course ? "course" : "board");
    document.addEventListener("keydown", (e) => this.globalKey(e));
    window.rrBuild = this; // the tests drive the page through it too
  }

  // ------------------------------------------------------------------ layout
  layout() {
    this.view = new BuildView({
      label: t("build.board_label"),
      describedBy: "build-status",
      onPaint: (x, y, phase, info) => this.onPaint(x, y, phase, info),
      onCursor: (x, y) => this.onCursor(x, y),
      onKey: (e) => this.boardKey(e),
    });
    this.palette = new Palette(TOOLS, () => this.onTool(), { testid: "palette" });
    this.coursePalette = new Palette(COURSE_TOOLS, () => this.onTool(), { testid: "course-palette", title: "build.course_palette" });
    this.checker = new Checker({ onResult: (r, body) => this.onChecked(r, body), onGoto: (x, y) => this.goto(x, y) });
    this.course = new CourseEditor(this);
    this.driver = new Driver(this);
    this.files = new FilesPanel(this);
    this.tracer = new Tracer(this.view);
    this.play = new PlayPanel(this);
    this.status = h("p.build-status", { id: "build-status", "aria-live": "polite", "data-testid": "build-status" });
    this.inspector = h("section.panel.inspector", { "aria-labelledby": "inspector-title", "data-testid": "inspector" });
    this.boardPanel = h("section.panel.board-panel", { "aria-labelledby": "board-title", "data-testid": "board-panel" });
    this.undoBtn = h("button.small", { type: "button", "data-testid": "undo", "aria-keyshortcuts": "Control+Z", title: t("build.undo_keys"), onclick: () => this.undo() }, "↶ ", t("build.undo"));
    this.redoBtn = h("button.small", { type: "button", "data-testid": "redo", "aria-keyshortcuts": "Control+Y", title: t("build.redo_keys"), onclick: () => this.redo() }, "↷ ", t("build.redo"));
    const op = (label, how, testid, keys) => h("button.small", { type: "button", "data-testid": testid, title: `${label} (${keys})`, "aria-label": label, onclick: () => this.regionOp(how) }, { cw: "⟳", ccw: "⟲", "mirror-x": "⇆", "mirror-y": "⇅" }[how]);
    this.regionTools = h("div.region-tools", { role: "group", "aria-label": t("build.region.title"), "data-testid": "region-tools" },
      h("span.dim", null, t("build.region.title")),
      op(t("build.region.cw"), "cw", "region-cw", "]"), op(t("build.region.ccw"), "ccw", "region-ccw", "["),
      op(t("build.region.mirror_x"), "mirror-x", "region-mirror-x", "M"), op(t("build.region.mirror_y"), "mirror-y", "region-mirror-y", "Shift+M"),
      ...Object.entries({ left: [-1, 0], up: [0, -1], down: [0, 1], right: [1, 0] }).map(([name, [dx, dy]]) =>
        h("button.small", { type: "button", "data-testid": "region-" + name, "aria-label": t("build.region.move_" + name), title: t("build.region.move_" + name) + " (Alt+" + DIR_ARROWS[DIR_OF(dx, dy)] + ")", onclick: () => this.regionOp("move", dx, dy) }, DIR_ARROWS[DIR_OF(dx, dy)])),
      h("button.small.ghost", { type: "button", "data-testid": "region-clear", onclick: () => this.regionClear() }, t("build.region.clear")));
    this.tabs = ["board", "course"].map((mode) => h("button.tab", { type: "button", role: "tab", "data-testid": "mode-" + mode, onclick: () => this.setMode(mode) }, t("build.mode." + mode)));
    this.drawer = h("aside.build-tools", { id: "build-tools", "data-testid": "tools-drawer" }, this.palette.el, this.coursePalette.el);
    this.drawerBtn = h("button.drawer-toggle.primary", { type: "button", "aria-controls": "build-tools", "aria-expanded": "false", "data-testid": "drawer-toggle", onclick: () => this.toggleDrawer() }, t("build.tools"));
    this.sideBoard = h("div.side-group", null, this.boardPanel, this.inspector, this.tracer.el);
    this.sideCourse = h("div.side-group", null, this.course.el, this.play.el);
    fill(this.root, h("div.builder", null,
      h("header.topbar.build-top", null,
        h("a.brand", { href: "/", "data-testid": "to-lobby" }, h("span.logo", { "aria-hidden": "true" }, "◆"), "RoboRally"),
        h("h1.build-h1", null, t("build.heading")),
        h("div.tabs", { role: "tablist", "aria-label": t("build.modes") }, this.tabs),
        h("div.top-tools", null, languageSwitcher(), themeButton())),
      h("main.build-main", null,
        this.drawer,
        h("section.build-stage", { "aria-label": t("build.stage") },
          h("div.build-toolbar", null, this.undoBtn, this.redoBtn, this.regionTools),
          h("div.stage-board", null, this.view.el),
          this.status),
        h("aside.build-side", null, this.checker.el, this.sideBoard, this.sideCourse, this.driver.el, this.files.el)),
      this.drawerBtn));
    this.renderBoardPanel();
  }

  toggleDrawer(open) {
    const on = open ?? !this.drawer.classList.contains("open");
    this.drawer.classList.toggle("open", on);
    this.drawerBtn.setAttribute("aria-expanded", String(on));
  }

  setMode(mode) {
    this.mode = mode;
    this.selection = null;
    for (const tab of this.tabs) tab.setAttribute("aria-selected", String(tab.dataset.testid === "mode-" + mode));
    this.root.dataset.mode = mode;
    this.palette.el.hidden = mode !== "board";
    this.coursePalette.el.hidden = mode !== "course";
    this.sideBoard.hidden = mode !== "board";
    this.sideCourse.hidden = mode !== "course";
    this.regionTools.hidden = mode !== "board";
    this.tracer.view.overlayBox.hidden = mode !== "board" || !this.tracer.img;
    this.view.showSelection(null);
    this.view.serverLayer.replaceChildren();
    this.view.hasPicture = false;
    if (mode === "course") {
      if (!this.state.course.boards.length) {
        this.state.course.boards.push({ drawn: this.bi, offset: [0, 0], rotation: 0 });
      }
      this.course.render();
      this.play.render();
    }
    this.after({ now: true });
  }

  // ------------------------------------------------------------------ changes
  snapshot() {
    return JSON.stringify({ boards: this.state.boards.map((b) => b.toJSON()), course: this.state.course, bi: this.bi });
  }

  restore(snap) {
    const data = JSON.parse(snap);
    this.state.boards = data.boards.map((b) => BoardModel.fromJSON(b));
    this.state.course = data.course;
    this.bi = Math.min(data.bi || 0, this.state.boards.length - 1);
  }

  /** Make a change (fn) that undo can take back. */
  change(fn, { render = true } = {}) {
    this.history.push(this.snapshot());
    fn();
    this.after({ render });
  }

  undo() {
    const snap = this.history.undo(this.snapshot());
    if (snap) {
      this.restore(snap);
      this.after({ render: true });
      this.say(t("build.undone"));
    }
  }

  redo() {
    const snap = this.history.redo(this.snapshot());
    if (snap) {
      this.restore(snap);
      this.after({ render: true });
      this.say(t("build.redone"));
    }
  }

  /** After any change: the view's size, the quick drawing, the panels, a check soon. */
  after({ render = true, now = false } = {}) {
    if (this.mode === "board") {
      this.view.setSize(this.board.width, this.board.height);
      this.drawQuick();
      this.view.extraLayer.replaceChildren();
    } else {
      const [w, hgt] = this.course.size();
      if (!this.grab) this.view.setSize(w, hgt); // a board being dragged: the view keeps still
      this.view.quickLayer.replaceChildren();
      this.drawCourseExtras();
      if (render) this.course.render();
    }
    if (render && this.mode === "board") this.renderBoardPanel();
    this.view.showSelection(this.mode === "board" ? this.selection : null);
    this.root.firstElementChild.classList.toggle("has-selection", !!this.selection);
    this.undoBtn.disabled = !this.history.past.length;
    this.redoBtn.disabled = !this.history.future.length;
    this.dirty = true;
    this.checker.schedule(() => this.checkBody(), now);
    this.onCursor(...this.view.cursor);
  }

  checkBody() {
    return this.mode === "board" ? { board: this.board.toJSON() } : { course: this.course.toJSON() };
  }

  onChecked(result, body) {
    const mode = body.board ? "board" : "course";
    this.results[mode] = result;
    if (mode !== this.mode) return;
    if (result.svg) {
      this.view.setPicture(result.svg);
      this.pictured = JSON.stringify(body);
    }
    this.drawQuick();
    this.view.showMarks(this.checker.marks());
  }

  /** The last check's answer for what is shown (text, filename, svg, findings). */
  checked() {
    return this.results[this.mode];
  }

  /** The spaces the picture does not show yet, drawn quickly (board mode). */
  drawQuick() {
    if (this.mode !== "board") return;
    const b = this.board;
    if (!this.view.hasPicture || !this.pictured) {
      const all = [];
      for (let y = 0; y < b.height; y++) for (let x = 0; x < b.width; x++) all.push({ x, y, cell: b.get(x, y), walls: b.wallsOf(x, y) });
      this.view.drawQuick(all);
      return;
    }
    const shown = JSON.parse(this.pictured).board;
    if (!shown || shown.width !== b.width || shown.height !== b.height) {
      this.view.drawQuick([]);
      return;
    }
    const old = BoardModel.fromJSON(shown);
    const changed = [];
    for (let y = 0; y < b.height; y++) {
      for (let x = 0; x < b.width; x++) {
        const [now, was] = [JSON.stringify([b.get(x, y), b.wallsOf(x, y)]), JSON.stringify([old.get(x, y), old.wallsOf(x, y)])];
        if (now !== was) changed.push({ x, y, cell: b.get(x, y), walls: b.wallsOf(x, y) });
      }
    }
    this.view.drawQuick(changed);
  }

  drawCourseExtras() {
    this.view.extraLayer.replaceChildren(...courseMarks(this.course, s));
  }

  // ------------------------------------------------------------------ painting
  tool() {
    return this.mode === "board" ? this.palette.tool() : this.coursePalette.tool();
  }

  onTool() {
    if (this.tool().id !== "select") {
      this.selection = null;
      this.view.showSelection(null);
    }
    this.say(t("build.tool_chosen", { tool: toolName(this.tool().id) }));
  }

  onPaint(x, y, phase, info) {
    if (this.driver.placing) {
      if (phase === "start" || phase === "tap") this.driver.place(x, y);
      return;
    }
    const tool = this.tool();
    if (this.mode === "course") {
      if (tool.id === "pick" && phase === "start") {
        // The mouse drags a board to its place (one undo step for the whole drag).
        const i = this.course.boardAt(x, y);
        this.course.use(tool, x, y);
        const e = this.state.course.boards[i];
        this.grab = e ? { entry: e, from: [x, y], offset: [...e.offset], pushed: false } : null;
      } else if (tool.id === "pick" && phase === "move" && this.grab) {
        const g = this.grab;
        const next = [Math.max(0, g.offset[0] + x - g.from[0]), Math.max(0, g.offset[1] + y - g.from[1])];
        if (next[0] !== g.entry.offset[0] || next[1] !== g.entry.offset[1]) {
          if (!g.pushed) this.history.push(this.snapshot());
          g.pushed = true;
          g.entry.offset = next;
          this.after({ render: false });
        }
      } else if (phase === "end") {
        const moved = this.grab && this.grab.pushed;
        this.grab = null;
        if (moved) this.after();
      } else if (phase === "start" || phase === "tap") {
        this.course.use(tool, x, y);
      }
      return;
    }
    if (tool.id === "select") {
      if (this.dragRegion(x, y, phase)) return;
      if (phase === "start" || (phase === "tap" && !this.anchorTap)) {
        this.anchor = [x, y];
        this.anchorTap = phase === "tap";
        this.setSelection(region([x, y], [x, y]));
      } else if (phase === "move" || phase === "tap") {
        this.setSelection(region(this.anchor, [x, y]));
        if (phase === "tap") this.anchorTap = false;
      }
      return;
    }
    if (phase === "end") {
      this.stroke = null;
      return;
    }
    if (phase === "start" || phase === "tap") {
      this.history.push(this.snapshot());
      this.stroke = { last: [x, y], dir: null, on: tool.id === "wall" ? !this.board.hasWall(x, y, info ? info.edge : tool.side) : true };
    }
    const used = { ...tool };
    if (tool.id === "wall") {
      used.side = info && info.edge ? info.edge : tool.side;
      used.on = this.stroke ? this.stroke.on : true;
    }
    if (tool.id === "belt" && this.stroke && phase === "move") {
      const [lx, ly] = this.stroke.last;
      const [dx, dy] = [x - lx, y - ly];
      if (Math.abs(dx) + Math.abs(dy) === 1) {
        const dir = DIR_OF(dx, dy);
        const prev = this.board.get(lx, ly);
        if (prev.belt) {
          // The belt behind turns towards the new space; a turn becomes a curved entry.
          const from = this.stroke.dir && this.stroke.dir !== dir && this.stroke.dir !== OPPOSITE[dir] ? [OPPOSITE[this.stroke.dir]] : [];
          paint(this.board, lx, ly, { ...used, out: dir, curved: from });
        }
        used.out = dir;
        used.curved = [];
        this.stroke.dir = dir;
      }
    }
    paint(this.board, x, y, used);
    if (this.stroke) this.stroke.last = [x, y];
    if (tool.id === "start" || tool.id === "checkpoint") {
      this.palette.tools.get(tool.id).number = this.board.nextNumber(tool.id);
      this.palette.renderParams();
    }
    this.history.future = [];
    this.after({ render: phase !== "move" });
  }

  /**
   * The mouse drags a selected region by a space inside it: its outline follows, and letting
   * go moves it there (one undo step; refused if it would leave the board). True while it does.
   */
  dragRegion(x, y, phase) {
    const r = this.selection;
    if (phase === "start" && r && !this.anchorTap && x >= r.x && y >= r.y && x < r.x + r.w && y < r.y + r.h) {
      this.regionDrag = { from: [x, y], to: [x, y] };
      return true;
    }
    const drag = this.regionDrag;
    if (!drag || !r) return false;
    if (phase === "move") {
      drag.to = [x, y];
      this.view.showSelection({ ...r, x: r.x + x - drag.from[0], y: r.y + y - drag.from[1] });
    } else if (phase === "end") {
      this.regionDrag = null;
      const [dx, dy] = [drag.to[0] - drag.from[0], drag.to[1] - drag.from[1]];
      if (dx || dy) this.regionOp("move", dx, dy);
      this.view.showSelection(this.selection); // where it went, or back where it was
    }
    return true;
  }

  /** Enter or Space on the board: the tool on the cursor's space. */
  paintAtCursor() {
    const [x, y] = this.view.cursor;
    const tool = this.tool();
    if (this.mode === "board" && tool.id === "select") {
      if (!this.anchor || !this.selection) this.onPaint(x, y, "start", null);
      else this.onPaint(x, y, "move", null);
      return;
    }
    this.onPaint(x, y, "start", { edge: tool.side });
    this.onPaint(x, y, "end", null);
  }

  setSelection(r) {
    this.selection = r;
    this.root.firstElementChild.classList.toggle("has-selection", !!r);
    this.view.showSelection(r);
    if (r) this.say(t("build.region.selected", { x: r.x, y: r.y, w: r.w, h: r.h }));
  }

  regionOp(how, dx = 0, dy = 0) {
    if (!this.selection) {
      this.say(t("build.region.none"));
      return;
    }
    const snap = this.snapshot();
    const next = transformRegion(this.board, this.selection, how, dx, dy);
    if (!next) {
      this.restore(snap);
      this.say(t("build.region.off_board"));
      return;
    }
    this.history.push(snap);
    this.setSelection(next);
    this.after();
  }

  regionClear() {
    const r = this.selection;
    if (!r) return;
    this.change(() => {
      for (let y = r.y; y < r.y + r.h; y++) for (let x = r.x; x < r.x + r.w; x++) paint(this.board, x, y, { id: "erase", walls: true });
    });
  }

  // ------------------------------------------------------------------ keys
  boardKey(e) {
    if (e.ctrlKey || e.metaKey) return false;
    const move = MOVES[e.key];
    if (move) {
      if (e.altKey && this.mode === "board") {
        this.regionOp("move", ...move);
        return true;
      }
      if (e.altKey && this.mode === "course") {
        this.course.moveBoard(...move);
        return true;
      }
      const [x, y] = this.view.cursor;
      const [nx, ny] = [x + move[0], y + move[1]];
      if (e.shiftKey && this.mode === "board") {
        if (!this.selection) this.anchor = [x, y];
        this.view.moveCursor(nx, ny);
        this.setSelection(region(this.anchor, this.view.cursor));
      } else {
        this.view.moveCursor(nx, ny, true);
      }
      return true;
    }
    if (e.key === "Enter" || e.key === " ") {
      this.paintAtCursor();
      return true;
    }
    return false;
  }

  globalKey(e) {
    if (e.target.closest && e.target.closest(TYPING)) return;
    const key = e.key.toLowerCase();
    if ((e.ctrlKey || e.metaKey) && !e.altKey) {
      if (key === "z" && !e.shiftKey) this.undo();
      else if (key === "y" || (key === "z" && e.shiftKey)) this.redo();
      else return;
      e.preventDefault();
      return;
    }
    if (e.altKey || e.ctrlKey || e.metaKey) return;
    const palette = this.mode === "board" ? this.palette : this.coursePalette;
    const tool = palette.byKey(key);
    if (tool && !e.shiftKey) palette.choose(tool.id);
    else if (key === "d") palette.turn(e.shiftKey);
    else if (this.mode === "board" && key === "]") this.regionOp("cw");
    else if (this.mode === "board" && key === "[") this.regionOp("ccw");
    else if (this.mode === "board" && key === "m") this.regionOp(e.shiftKey ? "mirror-y" : "mirror-x");
    else if (this.mode === "course" && key === "t") this.course.rotateBoard();
    else if (this.mode === "course" && key === "f") this.course.flipDock();
    else if (key === "delete" && e.target === this.view.scroller) {
      if (this.selection) this.regionClear();
      else this.change(() => paint(this.board, ...this.view.cursor, { id: "erase", walls: true }));
    } else if (key === "escape" && this.selection) {
      this.setSelection(null);
      this.anchor = null;
    } else if (key === "o" && e.target === this.view.scroller) this.driver.place(...this.view.cursor);
    else return;
    e.preventDefault();
  }

  goto(x, y) {
    this.view.moveCursor(x, y, true);
    this.view.scroller.focus();
  }

  say(text) {
    this.sayText = text || "";
    this.onCursor(...this.view.cursor);
  }

  /** The line under the board: the cursor's space, what it holds, the last message. */
  onCursor(x, y) {
    let about = "";
    if (this.mode === "board" && this.board) {
      const parts = describeCell(this.board.get(x, y)).map((d) => d.text);
      const walls = this.board.wallsOf(x, y);
      if (walls.length) parts.push(t("build.walls_on", { sides: walls.map((d) => t("build.dir." + d)).join(", ") }));
      about = parts.join(" · ") || t("element.floor.title");
      this.renderInspector(x, y);
    } else if (this.mode === "course") {
      const i = this.course.boardAt(x, y);
      about = i >= 0 ? this.course.nameOf(this.state.course.boards[i]) : t("build.course.off_boards");
    }
    fill(this.status, h("strong", null, t("build.space", { x, y })), " ", about, this.sayText ? h("span.dim", null, " — " + this.sayText) : null);
  }

  // ------------------------------------------------------------------ panels
  renderInspector(x, y) {
    renderInspector(this, x, y);
  }

  renderBoardPanel() {
    renderBoardPanel(this);
  }

  // ------------------------------------------------------------------ loading
  /** A new empty board beside the others (it becomes the one drawn). */
  newBoard(width, height, kind) {
    const w = Math.max(1, Math.min(MAX_SIZE, width || 12)), hgt = Math.max(1, Math.min(MAX_SIZE, height || 12));
    this.change(() => {
      const n = this.state.boards.length + 1;
      this.state.boards.push(new BoardModel({ name: `my-board-${n}`, title: t("build.board.default_title", { n }), kind, width: w, height: hgt }));
      this.bi = this.state.boards.length - 1;
      this.selection = null;
    });
    this.palette.tools.get("start").number = 1;
    this.palette.tools.get("checkpoint").number = 1;
  }

  addBoard(json) {
    this.change(() => {
      const board = BoardModel.fromJSON(json);
      // A copy of a board that is already here replaces it (same name), else it is added.
      const same = this.state.boards.findIndex((b) => b.name === board.name);
      const lone = this.state.boards.length === 1 && !this.state.boards[0].cells.size && !this.state.boards[0].walls.size;
      if (same >= 0) this.state.boards[same] = board;
      else if (lone) this.state.boards[0] = board;
      else this.state.boards.push(board);
      this.bi = same >= 0 ? same : lone ? 0 : this.state.boards.length - 1;
      this.selection = null;
    });
  }

  async loadShippedBoard(name) {
    try {
      const data = await buildApi.board(name);
      this.addBoard(data.board);
      if (this.mode !== "board") this.setMode("board");
      this.say(t("build.loaded", { name: titleOf("board", name, data.board.title) }));
      return data;
    } catch (error) {
      this.say(error.message);
      return null;
    }
  }

  async loadShippedCourse(id) {
    try {
      const data = await buildApi.course(id);
      this.takeCourse(data.course);
      this.say(t("build.loaded", { name: titleOf("course", id, data.course.title) }));
      return data;
    } catch (error) {
      this.say(error.message);
      return null;
    }
  }

  /** A course players saved (/build?course=c-XXXXXXXX): its file, read as an opened file. */
  async loadCustomCourse(id) {
    try {
      const data = await buildApi.customCourse(id);
      await this.files.read(data.text, `${id}.course`);
    } catch (error) {
      this.say(error.message);
    }
  }

  /** A CourseModel from the server: its drawn boards join the boards here. */
  takeCourse(course) {
    this.change(() => {
      const boards = (course.boards || []).map((e) => {
        if (!e.board) return { name: e.name, offset: [...e.offset], rotation: e.rotation || 0 };
        const board = BoardModel.fromJSON(e.board);
        const same = this.state.boards.findIndex((b) => b.name === board.name);
        const lone = this.state.boards.length === 1 && !this.state.boards[0].cells.size && !this.state.boards[0].walls.size;
        if (same >= 0) this.state.boards[same] = board;
        else if (lone) this.state.boards[0] = board;
        else this.state.boards.push(board);
        const index = same >= 0 ? same : lone ? 0 : this.state.boards.length - 1;
        return { drawn: index, offset: [...e.offset], rotation: e.rotation || 0 };
      });
      this.state.course = { ...emptyCourse(), ...course, boards };
      this.course.selected = 0;
    });
  }

  /** What POST /api/build/read gave for an opened file. */
  openFile(result) {
    if (result.kind === "board") {
      this.addBoard(result.board);
      this.setMode("board");
    } else {
      this.takeCourse(result.course);
      this.setMode("course");
    }
  }

  // ------------------------------------------------------------------ for others
  /** The course the test drive runs on: the course, or (drawing a board) the board alone. */
  courseForDrive() {
    if (this.mode === "course") return this.course.toJSON();
    return { ...emptyCourse(), id: "drive", boards: [{ board: this.board.toJSON(), offset: [0, 0], rotation: 0 }] };
  }

  driveEdition() {
    const e = this.state.course.edition;
    return e === "classic" ? "classic" : "2023";
  }

  /** Resolves once the last change has been checked (at most ``ms`` later). */
  async whenChecked(ms = 10_000) {
    const end = Date.now() + ms;
    while (!this.checker.settled() && Date.now() < end) await new Promise((r) => setTimeout(r, 50));
  }

  /** The course file's text from the last check (null until it checks without errors). */
  courseText() {
    const r = this.results.course;
    return this.mode === "course" && r && r.ok && this.checker.settled() ? r.text : null;
  }
}

applyTheme();
await loadLanguage();
document.cookie = `rr_lang=${document.documentElement.lang}; path=/; max-age=31536000; SameSite=Lax`;
new Builder(document.getElementById("app")).start();
