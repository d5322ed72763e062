// The Board tab's panels: the board's own facts (title, file name, size, kind, description,
// a new board or a copy of a shipped board or course) and the inspector of the cursor's space.

import { t, titleOf } from "../i18n.js";
import { h, fill, DIR_ARROWS } from "../util.js";
import { DIRS, MAX_SIZE } from "./model.js";
import { describeCell } from "./tools.js";

/** The inspector: what space x,y holds (each element with a button that takes it away) and its
 * four walls as check boxes. */
export function renderInspector(app, x, y) {
  const cell = app.board.get(x, y);
  const rows = describeCell(cell).map((d) => h("li", null, h("span", null, d.text), " ",
    h("button.ghost.small", { type: "button", "aria-label": t("build.inspector.remove", { what: d.text }), onclick: () => app.change(() => {
      const next = { ...app.board.get(x, y) };
      if (d.field === "lasers") next.lasers = next.lasers.filter((l) => l.direction !== d.value);
      else delete next[d.field];
      if (d.field === "start") delete next.start_facing;
      if (next.lasers && !next.lasers.length) delete next.lasers;
      app.board.set(x, y, next);
    }) }, "×")));
  const walls = DIRS.map((d) => h("label.check", null, h("input", { type: "checkbox", checked: app.board.hasWall(x, y, d), "data-testid": "wall-" + d,
    onchange: (e) => app.change(() => app.board.setWall(x, y, d, e.target.checked)) }), `${DIR_ARROWS[d]} ${t("build.dir." + d)}`));
  fill(app.inspector, h("h2", { id: "inspector-title" }, t("build.inspector.title", { x, y })),
    rows.length ? h("ul.inspector-list", null, rows) : h("p.hint", null, t("element.floor.title")),
    h("fieldset.walls", null, h("legend", null, t("build.inspector.walls")), walls));
}

/** The Board panel. */
export function renderBoardPanel(app) {
  const b = app.board;
  const field = (label, control, id) => h("div.field", null, h("label", { for: id }, label), control);
  const text = (key, id, attrs = {}) => h("input", { type: "text", id, value: b[key] || "", "data-testid": id, ...attrs, onchange: (e) => app.change(() => (b[key] = e.target.value.trim())) });
  const size = (key, id) => h("input", { type: "number", id, min: 1, max: MAX_SIZE, value: b[key], "data-testid": id,
    onchange: (e) => { const v = Math.max(1, Math.min(MAX_SIZE, parseInt(e.target.value, 10) || 1)); app.change(() => (key === "width" ? b.resize(v, b.height) : b.resize(b.width, v))); } });
  const kind = h("select", { id: "board-kind", "data-testid": "board-kind", onchange: (e) => app.change(() => (b.kind = e.target.value)) },
    ["factory", "dock"].map((k) => h("option", { value: k, selected: b.kind === k }, t("build.kind." + k))));
  const which = h("select", { id: "board-which", "data-testid": "board-which", onchange: (e) => { app.bi = Number(e.target.value); app.selection = null; app.after({ now: true }); } },
    app.state.boards.map((x, i) => h("option", { value: i, selected: i === app.bi }, x.title || x.name)));
  const newW = h("input", { type: "number", id: "new-width", min: 1, max: MAX_SIZE, value: 12, "data-testid": "new-width", "aria-label": t("build.board.width") });
  const newH = h("input", { type: "number", id: "new-height", min: 1, max: MAX_SIZE, value: 12, "data-testid": "new-height", "aria-label": t("build.board.height") });
  const newKind = h("select", { "data-testid": "new-kind", "aria-label": t("build.board.kind") }, ["factory", "dock"].map((k) => h("option", { value: k }, t("build.kind." + k))));
  const copy = h("select", { id: "copy-board", "data-testid": "copy-board" }, app.shipped.map((x) => h("option", { value: x.name }, titleOf("board", x.name, x.title))));
  const copyCourse = h("select", { id: "copy-course", "data-testid": "copy-course" }, app.shippedCourses.map((c) => h("option", { value: c.id }, titleOf("course", c.id, c.title))));
  fill(app.boardPanel,
    h("h2", { id: "board-title" }, t("build.board.title")),
    app.state.boards.length > 1 ? field(t("build.board.which"), which, "board-which") : null,
    h("div.two", null, field(t("build.board.name"), text("title", "board-title-input", { maxlength: 60 }), "board-title-input"), field(t("build.board.id"), text("name", "board-name", { maxlength: 40, pattern: "[A-Za-z0-9._-]+" }), "board-name")),
    h("div.two", null, field(t("build.board.width"), size("width", "board-width"), "board-width"), field(t("build.board.height"), size("height", "board-height"), "board-height")),
    field(t("build.board.kind"), kind, "board-kind"),
    field(t("build.board.comment"), h("textarea", { id: "board-comment", rows: 2, "data-testid": "board-comment", onchange: (e) => app.change(() => (b.comment = e.target.value)) }, b.comment || ""), "board-comment"),
    h("details.new-board", null, h("summary", null, t("build.board.start_over")),
      h("div.inline", null, newW, "×", newH, newKind,
        h("button.small", { type: "button", "data-testid": "new-board", onclick: () => app.newBoard(Number(newW.value), Number(newH.value), newKind.value) }, t("build.board.new"))),
      h("div.inline", null, h("label.sr-only", { for: "copy-board" }, t("build.board.copy")), copy,
        h("button.small", { type: "button", "data-testid": "copy-board-go", onclick: () => app.loadShippedBoard(copy.value) }, t("build.board.copy"))),
      h("div.inline", null, h("label.sr-only", { for: "copy-course" }, t("build.board.copy_course")), copyCourse,
        h("button.small", { type: "button", "data-testid": "copy-course-go", onclick: () => app.loadShippedCourse(copyCourse.value).then(() => app.setMode("course")) }, t("build.board.copy_course"))),
      h("p.hint", null, t("build.board.start_over_hint"))));
}
