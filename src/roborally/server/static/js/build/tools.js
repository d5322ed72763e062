// The palette: the tools that paint board elements, their parameters, their shortcut keys, and
// the inspector of the space under the cursor.

import { t } from "../i18n.js";
import { h, s, fill, DIR_ARROWS } from "../util.js";
import { DIRS, OPPOSITE, turnLeft, turnRight } from "./model.js";

/** The tools, in the palette's order: id, shortcut key, starting parameters. */
export const TOOLS = [
  { id: "select", key: "v" },
  { id: "belt", key: "b", color: "green", out: "E", curved: [] },
  { id: "gear", key: "g", turn: "right" },
  { id: "pusher", key: "u", direction: "S", registers: [1, 3, 5] },
  { id: "pit", key: "p" },
  { id: "wall", key: "w", side: "N" },
  { id: "laser", key: "l", direction: "S", beams: 1 },
  { id: "checkpoint", key: "c", number: 1 },
  { id: "reboot", key: "r", arrow: "E" },
  { id: "battery", key: "e" },
  { id: "repair", key: "h", wrenches: 1 },
  { id: "crusher", key: "k", registers: [2, 4] },
  { id: "start", key: "s", number: 1, facing: "" },
  { id: "erase", key: "x", walls: true },
];
/** The tools of the course view (course.js): checkpoints, reboot tokens, switched-off spaces. */
export const COURSE_TOOLS = [
  { id: "pick", key: "v" },
  { id: "checkpoint", key: "c" },
  { id: "reboot", key: "r", arrow: "E" },
  { id: "inactive", key: "i" },
  { id: "erase", key: "x" },
];

/** Which parameter a tool turns with the "turn" key (D), if any. */
const TURNING = { belt: "out", pusher: "direction", laser: "direction", reboot: "arrow", wall: "side", start: "facing" };

export const toolName = (id) => t("build.tool." + id);

/** A small picture of a tool (24 × 24), drawn with presentation attributes only. */
export function toolIcon(tool) {
  const svg = s("svg", { viewBox: "0 0 24 24", width: 24, height: 24, "aria-hidden": "true", class: "tool-icon" });
  const arrow = (d, colour = "#fff") => {
    const angle = DIRS.indexOf(d) * 90;
    return s("path", { d: "M12 5 L17 12 H14 V19 H10 V12 H7 Z", fill: colour, transform: `rotate(${angle} 12 12)` });
  };
  const sq = (fill, extra = {}) => s("rect", { x: 2, y: 2, width: 20, height: 20, rx: 4, fill, ...extra });
  const label = (text, colour = "#111") => s("text", { x: 12, y: 16.5, "text-anchor": "middle", "font-size": 12, "font-weight": 800, fill: colour, "font-family": "system-ui, sans-serif" }, text);
  switch (tool.id) {
    case "select": svg.append(s("rect", { x: 3, y: 3, width: 18, height: 18, fill: "none", stroke: "currentColor", "stroke-width": 2, "stroke-dasharray": "3 2" })); break;
    case "pick": svg.append(s("path", { d: "M5 3 L5 19 L9 15 L12 21 L15 20 L12 14 L18 14 Z", fill: "currentColor" })); break;
    case "belt": svg.append(sq(tool.color === "blue" ? "#2f6fd1" : "#3a9d4e"), arrow(tool.out || "E")); break;
    case "gear": svg.append(s("circle", { cx: 12, cy: 12, r: 9, fill: tool.turn === "left" ? "#c92a2a" : "#2b8a3e" }), label(tool.turn === "left" ? "↺" : "↻", "#fff")); break;
    case "pusher": svg.append(sq("#59626f"), s("rect", { x: 4, y: 4, width: 16, height: 4, fill: "#f2c94c", transform: `rotate(${DIRS.indexOf(OPPOSITE[tool.direction || "S"]) * 90} 12 12)` })); break;
    case "pit": svg.append(sq("#0b0d12", { stroke: "#59626f" })); break;
    case "wall": svg.append(sq("#cfd4da"), s("rect", { x: 2, y: 2, width: 20, height: 4, fill: "#f5a623", transform: `rotate(${DIRS.indexOf(tool.side || "N") * 90} 12 12)` })); break;
    case "laser": svg.append(sq("#cfd4da"), s("line", { x1: 12, y1: 3, x2: 12, y2: 21, stroke: "#e03131", "stroke-width": 3, transform: `rotate(${DIRS.indexOf(tool.direction || "S") * 90} 12 12)` })); break;
    case "checkpoint": svg.append(s("circle", { cx: 12, cy: 12, r: 9, fill: "#f08c00" }), label(String(tool.number || ""), "#fff")); break;
    case "reboot": svg.append(sq("#7048e8"), arrow(tool.arrow || "E")); break;
    case "battery": svg.append(sq("#2b8a3e"), label("⚡", "#fff")); break;
    case "repair": svg.append(sq("#1c7ed6"), label(tool.wrenches === 2 ? "2" : "1", "#fff")); break;
    case "crusher": svg.append(sq("#495057"), label("✕", "#ffd43b")); break;
    case "start": svg.append(sq("#e6d6b0"), label(String(tool.number || ""), "#1d3557")); break;
    case "erase": svg.append(s("path", { d: "M5 5 L19 19 M19 5 L5 19", stroke: "currentColor", "stroke-width": 3, "stroke-linecap": "round" })); break;
    case "inactive": svg.append(sq("none", { stroke: "currentColor", "stroke-width": 2 }), s("path", { d: "M4 20 L20 4", stroke: "currentColor", "stroke-width": 2 })); break;
    default: break;
  }
  return svg;
}

/** The current tools and their parameters; ``onChange`` hears every choice. */
export class Palette {
  constructor(list, onChange, { testid = "palette", title = "build.palette" } = {}) {
    this.tools = new Map(list.map((tool) => [tool.id, { ...tool, curved: tool.curved ? [...tool.curved] : undefined }]));
    this.current = list[1] ? list[1].id : list[0].id;
    this.onChange = onChange;
    this.titleKey = title;
    this.el = h("section.palette", { "aria-label": t(title), "data-testid": testid });
    this.params = h("div.tool-params", { "data-testid": testid + "-params" });
    this.render();
  }

  tool() {
    return this.tools.get(this.current);
  }

  choose(id) {
    if (!this.tools.has(id)) return;
    this.current = id;
    this.render();
    this.onChange(this.tool());
  }

  /** The tool of a shortcut key, if any. */
  byKey(key) {
    return [...this.tools.values()].find((tool) => tool.key === key) || null;
  }

  /** D (Shift+D back): turn the current tool's direction. */
  turn(back = false) {
    const tool = this.tool();
    const field = TURNING[tool.id];
    if (!field) return false;
    if (field === "facing" && !tool.facing) tool.facing = "N";
    else tool[field] = back ? turnLeft(tool[field]) : turnRight(tool[field]);
    if (tool.id === "belt") tool.curved = [];
    this.render();
    this.onChange(tool);
    return true;
  }

  set(field, value) {
    this.tool()[field] = value;
    this.render();
    this.onChange(this.tool());
  }

  render() {
    const buttons = [...this.tools.values()].map((tool) => h("button.tool", {
      type: "button", "data-tool": tool.id, "data-testid": "tool-" + tool.id,
      "aria-pressed": String(tool.id === this.current), "aria-keyshortcuts": tool.key.toUpperCase(),
      title: `${toolName(tool.id)} (${tool.key.toUpperCase()})`,
      onclick: () => this.choose(tool.id),
    }, toolIcon(tool), h("span.tool-name", null, toolName(tool.id)), h("kbd", { "aria-hidden": "true" }, tool.key.toUpperCase())));
    const focused = this.el.contains(document.activeElement) ? document.activeElement.dataset.tool : null;
    fill(this.el, h("h2.sr-only", null, t(this.titleKey)), h("div.tools", null, buttons), this.params);
    if (focused) {
      const again = this.el.querySelector(`[data-tool="${focused}"]`);
      if (again) again.focus();
    }
    this.renderParams();
  }

  renderParams() {
    const tool = this.tool();
    const rows = [];
    const dirPick = (field, label, allowNone = false) => {
      const name = `${this.el.dataset.testid}-${tool.id}-${field}`;
      const options = (allowNone ? [""] : []).concat(DIRS);
      return h("fieldset.dir-pick", { "data-testid": `param-${field}` }, h("legend", null, label),
        options.map((d) => h("label.dir", { title: d ? t("build.dir." + d) : t("build.none") },
          h("input", { type: "radio", name, value: d, checked: (tool[field] || "") === d, onchange: () => this.set(field, d) }),
          h("span", { "aria-hidden": "true" }, d ? DIR_ARROWS[d] : "–"),
          h("span.sr-only", null, d ? t("build.dir." + d) : t("build.none")))));
    };
    const regs = (label) => h("fieldset.regs", { "data-testid": "param-registers" }, h("legend", null, label),
      [1, 2, 3, 4, 5].map((n) => h("label.check", null,
        h("input", { type: "checkbox", checked: (tool.registers || []).includes(n), onchange: (e) => {
          const set = new Set(tool.registers || []);
          if (e.target.checked) set.add(n); else set.delete(n);
          if (!set.size) { e.target.checked = true; return; }
          this.set("registers", [...set].sort());
        } }), String(n))));
    const number = (field, label, max) => h("label.num", null, label, " ",
      h("input", { type: "number", min: 1, max, value: tool[field] || 1, "data-testid": "param-" + field,
        onchange: (e) => this.set(field, Math.max(1, Math.min(max, parseInt(e.target.value, 10) || 1))) }));
    const select = (field, label, options) => h("label.num", null, label, " ",
      h("select", { "data-testid": "param-" + field, onchange: (e) => this.set(field, isNaN(Number(e.target.value)) ? e.target.value : Number(e.target.value)) },
        options.map(([value, text]) => h("option", { value, selected: String(tool[field]) === String(value) }, text))));
    switch (tool.id) {
      case "belt": {
        rows.push(select("color", t("build.param.color"), [["green", t("build.belt.green")], ["blue", t("build.belt.blue")]]));
        rows.push(dirPick("out", t("build.param.out")));
        const sides = DIRS.filter((d) => d !== tool.out && d !== OPPOSITE[tool.out]);
        rows.push(h("fieldset.curves", { "data-testid": "param-curved" }, h("legend", null, t("build.param.curved")),
          sides.map((d) => h("label.check", null, h("input", { type: "checkbox", checked: (tool.curved || []).includes(d), onchange: (e) => {
            const set = new Set(tool.curved || []);
            if (e.target.checked) set.add(d); else set.delete(d);
            this.set("curved", [...set]);
          } }), t("build.from_side", { side: t("build.dir." + d) })))));
        rows.push(h("p.hint", null, t("build.hint.belt_drag")));
        break;
      }
      case "gear": rows.push(select("turn", t("build.param.turn"), [["right", t("build.gear.right")], ["left", t("build.gear.left")]])); break;
      case "pusher": rows.push(dirPick("direction", t("build.param.push")), regs(t("build.param.registers"))); break;
      case "wall": rows.push(dirPick("side", t("build.param.side")), h("p.hint", null, t("build.hint.wall"))); break;
      case "laser": rows.push(dirPick("direction", t("build.param.fires")), select("beams", t("build.param.beams"), [[1, "1"], [2, "2"], [3, "3"]]), h("p.hint", null, t("build.hint.laser"))); break;
      case "checkpoint": if (tool.number !== undefined) rows.push(number("number", t("build.param.number"), 9)); break;
      case "reboot": rows.push(dirPick("arrow", t("build.param.arrow"))); break;
      case "repair": rows.push(select("wrenches", t("build.param.wrenches"), [[1, "1"], [2, "2"]])); break;
      case "crusher": rows.push(regs(t("build.param.registers"))); break;
      case "start": rows.push(number("number", t("build.param.number"), 99), dirPick("facing", t("build.param.facing"), true)); break;
      case "erase": if (tool.walls !== undefined) rows.push(h("label.check", null, h("input", { type: "checkbox", checked: tool.walls, onchange: (e) => this.set("walls", e.target.checked) }), t("build.param.erase_walls"))); break;
      case "select": rows.push(h("p.hint", null, t("build.hint.select"))); break;
      case "pick": rows.push(h("p.hint", null, t("build.hint.pick"))); break;
      case "inactive": rows.push(h("p.hint", null, t("build.hint.inactive"))); break;
      default: break;
    }
    if (TURNING[tool.id]) rows.push(h("p.hint", null, t("build.hint.turn_key")));
    fill(this.params, h("h3", null, toolName(tool.id)), rows);
  }
}

// --------------------------------------------------------------- inspector
/** The elements of a cell in words, each with what removes it: [{text, remove(cell)}]. */
export function describeCell(cell) {
  const out = [];
  const arrow = (d) => `${DIR_ARROWS[d]} ${t("build.dir." + d)}`;
  if (cell.pit) out.push({ field: "pit", text: t("element.pit.title") });
  if (cell.belt) {
    const curves = (cell.belt.curved || []).map((d) => t("build.dir." + d)).join(", ");
    out.push({ field: "belt", text: `${t("build.belt." + cell.belt.color)} ${arrow(cell.belt.out)}${curves ? " · " + t("build.curved_from", { sides: curves }) : ""}` });
  }
  if (cell.gear) out.push({ field: "gear", text: t("build.gear." + cell.gear) });
  if (cell.pusher) out.push({ field: "pusher", text: `${t("build.tool.pusher")} ${arrow(cell.pusher.direction)} · ${t("build.in_registers", { registers: cell.pusher.registers.join(", ") })}` });
  for (const laser of cell.lasers || []) out.push({ field: "lasers", value: laser.direction, text: `${t("element.laser.title", { count: laser.beams })} ${arrow(laser.direction)}` });
  if (cell.battery) out.push({ field: "battery", text: t("element.battery.title") });
  if (cell.repair) out.push({ field: "repair", text: t(cell.repair === 2 ? "element.repair.title_two" : "element.repair.title") });
  if (cell.crusher) out.push({ field: "crusher", text: `${t("element.crusher.title")} · ${t("build.in_registers", { registers: cell.crusher.join(", ") })}` });
  if (cell.start) out.push({ field: "start", text: t("element.start.title", { number: cell.start }) + (cell.start_facing ? ` ${arrow(cell.start_facing)}` : "") });
  if (cell.checkpoint) out.push({ field: "checkpoint", text: t("element.checkpoint.title", { number: cell.checkpoint }) });
  if (cell.reboot) out.push({ field: "reboot", text: `${t("element.reboot.title")} ${arrow(cell.reboot)}` });
  return out;
}
