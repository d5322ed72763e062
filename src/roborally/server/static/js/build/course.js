// The course: boards placed on a course grid (shipped boards by name, the boards drawn here),
// moved, turned and docks flipped to their other side; checkpoints in order, reboot tokens,
// switched-off spaces; the course's facts (edition, players, tier, length, blocked start spaces,
// reboot damage, title and description).

import { t, titleOf } from "../i18n.js";
import { h, fill, DIR_ARROWS } from "../util.js";
import { DIRS } from "./model.js";

/** A dock's other side: the two sides of the 2023 bay (the centre version lies on side B). */
export const OTHER_SIDE = { "y23-dock-a": "y23-dock-b", "y23-dock-b": "y23-dock-a", "y23-dock-b-middle": "y23-dock-a" };
export const TIERS = ["starter", "beginner", "intermediate", "advanced", "expert", "easy", "medium", "hard"];
export const LENGTHS = ["short", "medium", "long"];

export function emptyCourse() {
  return {
    id: "my-course", title: t("build.course.default_title"), edition: "2023", tier: "beginner", length: "short",
    players: [2, 6], comment: "", checkpoints: [], reboot: [], blocked_starts: [], reboot_damage: 2,
    inactive: [], follows: "", variants: [], boards: [],
  };
}

const same = (a, b) => a[0] === b[0] && a[1] === b[1];

export class CourseEditor {
  /** app: main.js's Builder (boards, shipped list, change(), refresh()). */
  constructor(app) {
    this.app = app;
    this.selected = 0; // the placed board chosen
    this.el = h("section.panel.course-panel", { "aria-labelledby": "course-heading", "data-testid": "course-panel" });
  }

  get course() {
    return this.app.state.course;
  }

  /** A placed board's size on the course (turned a quarter: width and height swap). */
  sizeOf(entry) {
    const b = this.boardOf(entry);
    const [w, hgt] = b ? [b.width, b.height] : [1, 1];
    return entry.rotation % 2 ? [hgt, w] : [w, hgt];
  }

  boardOf(entry) {
    if (entry.drawn !== undefined) return this.app.state.boards[entry.drawn] || null;
    return this.app.shipped.find((b) => b.name === entry.name) || null;
  }

  nameOf(entry) {
    if (entry.drawn !== undefined) {
      const b = this.app.state.boards[entry.drawn];
      return b ? b.title || b.name : "?";
    }
    const b = this.app.shipped.find((x) => x.name === entry.name);
    return titleOf("board", entry.name, b && b.title);
  }

  /** The course's size in spaces (at least 1 × 1). */
  size() {
    let [w, hgt] = [1, 1];
    for (const e of this.course.boards) {
      const [bw, bh] = this.sizeOf(e);
      w = Math.max(w, e.offset[0] + bw);
      hgt = Math.max(hgt, e.offset[1] + bh);
    }
    return [w, hgt];
  }

  /** The placed board under course space x,y (its index), or -1. */
  boardAt(x, y) {
    return this.course.boards.findIndex((e) => {
      const [w, hgt] = this.sizeOf(e);
      return x >= e.offset[0] && y >= e.offset[1] && x < e.offset[0] + w && y < e.offset[1] + hgt;
    });
  }

  /** The CourseModel the server reads (drawn boards written into it). */
  toJSON() {
    const c = this.course;
    return {
      ...c,
      boards: c.boards.map((e) => (e.drawn !== undefined
        ? { board: this.app.state.boards[e.drawn].toJSON(), offset: [...e.offset], rotation: e.rotation }
        : { name: e.name, offset: [...e.offset], rotation: e.rotation })),
    };
  }

  // ------------------------------------------------------------ changes
  /** Add a board below the others (``ref``: "drawn:N" or a shipped name). */
  addBoard(ref) {
    const entry = ref.startsWith("drawn:") ? { drawn: Number(ref.slice(6)) } : { name: ref };
    entry.rotation = 0;
    const below = this.course.boards.length ? this.size()[1] : 0;
    entry.offset = [0, below];
    this.app.change(() => {
      this.course.boards.push(entry);
      this.selected = this.course.boards.length - 1;
    });
  }

  moveBoard(dx, dy) {
    const e = this.course.boards[this.selected];
    if (!e) return;
    const next = [e.offset[0] + dx, e.offset[1] + dy];
    if (next[0] < 0 || next[1] < 0 || next[0] > 99 || next[1] > 99) return;
    this.app.change(() => (e.offset = next));
  }

  rotateBoard() {
    const e = this.course.boards[this.selected];
    if (e) this.app.change(() => (e.rotation = (e.rotation + 1) % 4));
  }

  flipDock() {
    const e = this.course.boards[this.selected];
    if (e && OTHER_SIDE[e.name]) this.app.change(() => (e.name = OTHER_SIDE[e.name]));
  }

  removeBoard() {
    if (!this.course.boards[this.selected]) return;
    this.app.change(() => {
      this.course.boards.splice(this.selected, 1);
      this.selected = Math.max(0, this.selected - 1);
    });
  }

  /** A course tool used on course space x,y (tools.js COURSE_TOOLS). */
  use(tool, x, y) {
    const c = this.course;
    const at = [x, y];
    if (tool.id === "pick") {
      const i = this.boardAt(x, y);
      if (i >= 0) {
        this.selected = i;
        this.render();
        this.app.drawCourseExtras();
      }
      return;
    }
    this.app.change(() => {
      if (tool.id === "checkpoint") {
        if (!c.checkpoints.some((p) => same(p, at))) c.checkpoints.push(at);
      } else if (tool.id === "reboot") {
        c.reboot = c.reboot.filter((r) => !same(r.at, at));
        c.reboot.push({ at, arrow: tool.arrow || "E" });
      } else if (tool.id === "inactive") {
        if (c.inactive.some((p) => same(p, at))) c.inactive = c.inactive.filter((p) => !same(p, at));
        else c.inactive.push(at);
      } else if (tool.id === "erase") {
        c.checkpoints = c.checkpoints.filter((p) => !same(p, at));
        c.reboot = c.reboot.filter((r) => !same(r.at, at));
        c.inactive = c.inactive.filter((p) => !same(p, at));
      }
    });
  }

  // ------------------------------------------------------------------ UI
  render() {
    const c = this.course;
    const app = this.app;
    const set = (field, value) => app.change(() => (c[field] = value), { render: false });
    const input = (field, attrs = {}) => h("input", {
      type: "text", id: "course-" + field, value: c[field] ?? "", "data-testid": "course-" + field, ...attrs,
      onchange: (e) => set(field, attrs.type === "number" ? Number(e.target.value) : e.target.value),
    });
    const select = (field, options) => h("select", { id: "course-" + field, "data-testid": "course-" + field, onchange: (e) => set(field, e.target.value) },
      options.map(([value, text]) => h("option", { value, selected: c[field] === value }, text)));
    const field = (label, control, id) => h("div.field", null, h("label", { for: id }, label), control);
    const editions = [["2023", t("lobby.edition.2023")], ["classic", t("lobby.edition.classic")], ["any", t("build.edition.any")]];
    const players = (i) => h("input", {
      type: "number", min: 1, max: 8, value: c.players[i], id: `course-players-${i}`, "data-testid": `course-players-${i}`,
      "aria-label": t(i ? "build.course.players_max" : "build.course.players_min"),
      onchange: (e) => { const p = [...c.players]; p[i] = Number(e.target.value) || 1; set("players", p); },
    });
    // The placed boards
    const choices = [
      ...app.state.boards.map((b, i) => h("option", { value: "drawn:" + i }, t("build.course.drawn_board", { title: b.title || b.name }))),
      ...app.shipped.map((b) => h("option", { value: b.name }, `${titleOf("board", b.name, b.title)}${b.kind === "dock" ? " · " + t("build.kind.dock") : ""} (${b.width}×${b.height})`)),
    ];
    const adder = h("select", { id: "course-add-board", "data-testid": "course-add-board" }, choices);
    const placed = c.boards.map((e, i) => {
      const dock = OTHER_SIDE[e.name];
      return h("li.placed" + (i === this.selected ? ".chosen" : ""), { "data-testid": "placed-board", "data-board": e.name || "drawn:" + e.drawn },
        h("button.ghost.small.grow", { type: "button", "aria-pressed": String(i === this.selected), onclick: () => { this.selected = i; this.render(); app.drawCourseExtras(); } },
          `${this.nameOf(e)} · ${e.offset[0]},${e.offset[1]}${e.rotation ? " · " + t("build.course.turned", { count: e.rotation }) : ""}`),
        dock ? h("span.dim.small-note", null, t("build.course.other_side", { board: titleOf("board", dock) })) : null);
    });
    const sel = c.boards[this.selected];
    const canFlip = !!(sel && OTHER_SIDE[sel.name]);
    const btn = (text, onclick, testid, disabled = !sel) => h("button.small", { type: "button", onclick, disabled, "data-testid": testid }, text);
    fill(this.el,
      h("h2", { id: "course-heading" }, t("build.course.title")),
      h("fieldset", null, h("legend", null, t("build.course.boards")),
        h("div.inline", null, h("label.sr-only", { for: "course-add-board" }, t("build.course.add_which")), adder, h("button.small", { type: "button", "data-testid": "course-add", onclick: () => this.addBoard(adder.value) }, t("build.course.add"))),
        h("ul.placed-list", null, placed),
        h("div.button-row", { role: "group", "aria-label": t("build.course.board_moves") },
          btn("←", () => this.moveBoard(-1, 0), "board-left"), btn("↑", () => this.moveBoard(0, -1), "board-up"),
          btn("↓", () => this.moveBoard(0, 1), "board-down"), btn("→", () => this.moveBoard(1, 0), "board-right"),
          btn(t("build.course.rotate"), () => this.rotateBoard(), "board-rotate"),
          btn(t("build.course.flip"), () => this.flipDock(), "board-flip", !canFlip),
          btn(t("build.course.remove"), () => this.removeBoard(), "board-remove")),
        h("p.hint", null, canFlip ? t("build.course.flip_hint", { board: titleOf("board", OTHER_SIDE[sel.name]) }) : t("build.course.flip_none"))),
      h("fieldset", null, h("legend", null, t("build.course.checkpoints")),
        c.checkpoints.length
          ? h("ol.cp-list", { "data-testid": "course-checkpoints" }, c.checkpoints.map((p, i) => h("li", null, `${p[0]},${p[1]} `,
            h("button.ghost.small", { type: "button", disabled: i === 0, "aria-label": t("build.course.earlier", { n: i + 1 }), onclick: () => app.change(() => c.checkpoints.splice(i - 1, 0, c.checkpoints.splice(i, 1)[0])) }, "↑"),
            h("button.ghost.small", { type: "button", "aria-label": t("build.course.remove_cp", { n: i + 1 }), onclick: () => app.change(() => c.checkpoints.splice(i, 1)) }, "×"))))
          : h("p.hint", null, t("build.course.no_checkpoints")),
        c.reboot.length ? h("ul.reboot-list", null, c.reboot.map((r) => h("li", null, t("build.course.reboot_at", { x: r.at[0], y: r.at[1], arrow: DIR_ARROWS[r.arrow] })))) : null,
        h("p.hint", null, t("build.course.tools_hint"))),
      h("fieldset", null, h("legend", null, t("build.course.facts")),
        field(t("build.course.name"), input("title", { maxlength: 60 }), "course-title"),
        field(t("build.course.id"), input("id", { maxlength: 40, pattern: "[A-Za-z0-9._-]+" }), "course-id"),
        field(t("build.course.description"), h("textarea", { id: "course-comment", rows: 2, "data-testid": "course-comment", onchange: (e) => set("comment", e.target.value) }, c.comment || ""), "course-comment"),
        h("div.two", null,
          field(t("build.course.edition"), select("edition", editions), "course-edition"),
          h("div.field", null, h("span.label", null, t("build.course.players")), h("div.inline", null, players(0), "–", players(1)))),
        h("div.two", null,
          field(t("build.course.tier"), select("tier", TIERS.map((x) => [x, t("lobby.tier." + x)])), "course-tier"),
          field(t("build.course.length"), select("length", LENGTHS.map((x) => [x, t("lobby.length." + x)])), "course-length")),
        h("div.two", null,
          field(t("build.course.blocked"), h("input", { type: "text", id: "course-blocked", value: c.blocked_starts.join(", "), "data-testid": "course-blocked", placeholder: "5, 6", onchange: (e) => set("blocked_starts", e.target.value.split(/[\s,]+/).map(Number).filter((n) => n > 0)) }), "course-blocked"),
          field(t("build.course.reboot_damage"), input("reboot_damage", { type: "number", min: 0, max: 9 }), "course-reboot_damage"))),
    );
  }
}

/** The outlines and marks the course view draws over the picture. */
export function courseMarks(editor, sArg) {
  const s = sArg;
  const out = [];
  const C = 48;
  editor.course.boards.forEach((e, i) => {
    const [w, hgt] = editor.sizeOf(e);
    out.push(s("rect", { class: "placed-outline" + (i === editor.selected ? " chosen" : ""), x: e.offset[0] * C, y: e.offset[1] * C, width: w * C, height: hgt * C, "data-testid": i === editor.selected ? "chosen-board" : null }));
  });
  editor.course.checkpoints.forEach((p, i) => {
    out.push(s("g", { class: "course-cp", transform: `translate(${p[0] * C + 38} ${p[1] * C + 10})`, "data-testid": "course-cp" },
      s("circle", { r: 9 }), s("text", { y: 4, "text-anchor": "middle" }, String(i + 1))));
  });
  for (const p of editor.course.inactive) out.push(s("rect", { class: "inactive-mark", x: p[0] * C + 2, y: p[1] * C + 2, width: C - 4, height: C - 4 }));
  for (const r of editor.course.reboot) {
    out.push(s("g", { class: "course-reboot", transform: `translate(${r.at[0] * C + 10} ${r.at[1] * C + 10}) rotate(${DIRS.indexOf(r.arrow) * 90})` },
      s("path", { d: "M0 -7 L6 3 H-6 Z" })));
  }
  return out;
}

