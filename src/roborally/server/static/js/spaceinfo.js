// What is on a space of the board, in plain words: the box that opens on hover (desktop) or a
// tap (phone), and the legend. Everything comes from the board JSON (docs/protocol.md 1.2).

import { t } from "./i18n.js";
import { DIRS, h, s, store } from "./util.js";

/** The rules help page of an edition (/rules/2023, /rules/classic, /rules/classic-1994). */
export function rulesUrl(edition, anchor = "") {
  return `/rules/${encodeURIComponent(edition || "2023")}?lang=${encodeURIComponent(document.documentElement.lang || "en")}${anchor ? "#" + anchor : ""}`;
}

/** A link to the rules help page, opening in a new tab. */
export function rulesLink(edition, anchor, text = t("element.ui.rules"), attrs = {}) {
  return h("a.rules-link", { href: rulesUrl(edition, anchor), target: "_blank", rel: "noopener", ...attrs }, text);
}

const STEP = { N: [0, -1], E: [1, 0], S: [0, 1], W: [-1, 0] };
const OPPOSITE = { N: "S", E: "W", S: "N", W: "E" };

function listWords(items) {
  if (items.length <= 1) return items.join("");
  return items.slice(0, -1).join(", ") + t("term.and") + items[items.length - 1];
}

const dirName = (d) => t("term.dir.name." + d);
const toward = (d) => t("term.dir.to." + d);
const facingWords = (d) => (d && DIRS.includes(d) ? t("term.facing." + d) : "");
const cap = (text) => text.replace(/^./, (ch) => ch.toUpperCase());

/** Which way a robot turns when it travels ``travel`` and leaves ``out``. */
function turnBetween(travel, out) {
  const d = (DIRS.indexOf(out) - DIRS.indexOf(travel) + 4) % 4;
  return d === 1 ? "right" : d === 3 ? "left" : null;
}

/** The course with quick look-ups, made once per board. */
export class SpaceIndex {
  constructor(board, edition = "2023", variants = []) {
    this.board = board;
    this.edition = String(edition || "2023");
    this.classic = this.edition.startsWith("classic");
    this.y94 = this.edition === "classic-1994";
    this.variants = new Set(variants || []);
    this.cells = new Map();
    for (const cell of board.cells || []) this.cells.set(`${cell.x},${cell.y}`, cell);
    this.beams = new Map(); // "x,y" -> [{from, direction, beams}] for the spaces a beam crosses
    for (const laser of board.lasers || []) {
      for (const [x, y] of laser.path || []) {
        const key = `${x},${y}`;
        if (!this.beams.has(key)) this.beams.set(key, []);
        this.beams.get(key).push(laser);
      }
    }
    this.lastCheckpoint = (board.checkpoints || []).length;
  }

  cell(x, y) {
    return this.cells.get(`${x},${y}`) || null;
  }

  /** The sides of (x, y) that a belt feeds into it from (no wall between). */
  beltEntries(cell) {
    const walls = new Set(cell.walls || []);
    return DIRS.filter((d) => {
      const [dx, dy] = STEP[d];
      const next = this.cell(cell.x + dx, cell.y + dy);
      return next && next.belt && next.belt.out === OPPOSITE[d] && !walls.has(d);
    });
  }

  /**
   * Every element of the space (x, y), each {kind, key, title, text, short}: ``kind`` is the
   * board JSON key (and the rules page anchor el-KIND), ``key`` tells apart kinds with two looks
   * (blue and green belts, left and right gears). robots: [{seat, name, facing, ghost, you}].
   */
  describe(x, y, robots = []) {
    const cell = this.cell(x, y);
    if (!cell) return [];
    const c = this.classic;
    // Texts that differ in the classic games ("square" for "space", other names): KEY_classic.
    const ed = (key) => (c ? key + "_classic" : key);
    const distance = (count) => t(c ? "term.squares" : "term.spaces", { count });
    const items = [];
    const add = (kind, key, title, text, short, legend) =>
      items.push({ kind, key, title, text, short: short || text, ...(legend ? { legend } : {}) });
    const covered = cell.inactive ? (cell.checkpoint ? (c ? "flag" : "checkpoint") : "reboot") : null;
    const under = (text) => (covered ? t("element.covered." + covered, { text }) : text);
    if (cell.start) {
      const facing = cell.start_facing ? ", " + facingWords(cell.start_facing) : "";
      add("start", "start", t(ed("element.start.title"), { number: cell.start }),
        t(ed("element.start.text"), { facing }), t("element.start.short"), t(ed("element.start.legend")));
    }
    if (cell.checkpoint) {
      const n = cell.checkpoint;
      const last = n === this.lastCheckpoint ? t("element.checkpoint.last") : "";
      const values = { number: n, previous: n - 1, last };
      if (c && !this.y94) {
        const repair = this.variants.has("no_flag_repair") ? "" : t("element.flag.repair");
        add("checkpoint", "checkpoint", t("element.flag.title", { number: n }),
          t(n > 1 ? "element.flag.text" : "element.flag.text_first", { ...values, repair }),
          t("element.flag.short"), t("element.flag.legend"));
      } else {
        const which = this.y94 ? "element.checkpoint94" : "element.checkpoint";
        add("checkpoint", "checkpoint", t("element.checkpoint.title", { number: n }),
          t(n > 1 ? `${which}.text` : `${which}.text_first`, values),
          t("element.checkpoint.short"), t("element.checkpoint.legend"));
      }
    }
    if (cell.reboot) {
      add("reboot", "reboot", t("element.reboot.title"),
        t("element.reboot.text", { dir: toward(cell.reboot) }), t("element.reboot.short"));
    }
    if (cell.pit) {
      add("pit", "pit", t(this.y94 ? "element.pit.title_1994" : "element.pit.title"),
        t(ed("element.pit.text")), t(ed("element.pit.short")));
    }
    if (cell.belt) {
      const b = cell.belt;
      const colour = b.color === "blue" ? "blue" : "green";
      const dir = toward(b.out);
      let text = t(`element.belt.${colour}.text`, { distance: distance(colour === "blue" ? 2 : 1), dir });
      for (const side of b.curved || []) {
        const turn = turnBetween(OPPOSITE[side], b.out);
        if (turn) text += t("element.belt.curve", { from: t("term.dir.from." + side), turn: t("term.turn." + turn) });
      }
      const entries = this.beltEntries(cell);
      if (entries.length > 1) {
        text += t(ed("element.belt.meet"), { sides: listWords(entries.map((d) => t("term.dir.from." + d))) });
      }
      text += t("element.belt.no_push");
      add("belt", `belt-${colour}`, t(ed(`element.belt.${colour}.title`)), under(text),
        t(`element.belt.${colour}.short`, { distance: distance(colour === "blue" ? 2 : 1) }));
    }
    if (cell.pusher) {
      const regs = cell.pusher.registers || [];
      add("pusher", "pusher", t(ed("element.pusher.title")),
        under(t(ed("element.pusher.text"), { registers: listWords(regs.map(String)), distance: distance(1), dir: toward(cell.pusher.direction) })),
        t("element.pusher.short", { distance: distance(1) }));
    }
    if (cell.gear) {
      const side = cell.gear === "right" ? "right" : "left";
      add("gear", `gear-${side}`, t(ed(`element.gear.${side}.title`)),
        under(t(ed(`element.gear.${side}.text`))), t(`element.gear.${side}.short`));
    }
    if (cell.crusher) {
      add("crusher", "crusher", t("element.crusher.title"),
        under(t("element.crusher.text", { registers: listWords(cell.crusher.map(String)) })),
        t("element.crusher.short"));
    }
    for (const laser of cell.lasers || []) {
      const n = laser.beams || 1;
      add("laser", "laser", t("element.laser.title", { count: n }),
        t(ed("element.laser.text"), { dir: toward(laser.direction), harm: t(ed("element.laser.harm"), { count: n }) }),
        t("element.laser.short"), t("element.laser.legend"));
    }
    for (const laser of this.beams.get(`${x},${y}`) || []) {
      if (laser.from && laser.from[0] === x && laser.from[1] === y) continue; // the emitter, above
      const n = laser.beams || 1;
      add("laser", "beam", t("element.beam.title", { count: n }),
        t(ed("element.beam.text"), { column: laser.from[0] + 1, row: laser.from[1] + 1, dir: toward(laser.direction), count: n }));
    }
    if (cell.battery) {
      const off = this.variants.has("lighter") ? t("element.battery.lighter") : "";
      add("battery", "battery", t("element.battery.title"),
        under(t("element.battery.text", { off })), t("element.battery.short"));
    }
    if (cell.repair) {
      const n = cell.repair;
      let title, text;
      if (this.y94) {
        title = t(n > 1 ? "element.repair.title_two" : "element.repair.title");
        const option = n > 1 && this.variants.has("option_cards") ? t("element.repair.option_1994") : "";
        text = t("element.repair.text_1994", { count: n, option });
      } else {
        const options = n > 1 && !this.variants.has("no_option_cards");
        title = t(n > 1 ? "element.repair.title_hammer" : "element.repair.title");
        text = t(options ? "element.repair.text_option" : "element.repair.text");
      }
      add("repair", n > 1 ? "repair-2" : "repair", title,
        under(t("element.repair.archive", { text })), t("element.repair.short"));
    }
    const walls = cell.walls || [];
    if (walls.length) {
      const sides = t("element.wall.sides", { count: walls.length, list: listWords(walls.map(dirName)) });
      add("wall", "wall", t("element.wall.title", { count: walls.length }),
        t(ed("element.wall.text"), { sides }), t("element.wall.short"));
    }
    for (const r of robots) {
      const who = r.you ? t("element.robot.you", { name: r.name }) : r.name;
      const facing = facingWords(r.facing);
      add("robot", "robot", t("element.robot.title", { number: r.seat + 1, who }),
        r.ghost ? t(c ? "element.robot.destroyed" : "element.robot.rebooting", { facing: facing ? ", " + facing : "" })
          : facing ? cap(facing) + "." : String(r.facing || ""));
    }
    if (!items.some((i) => i.kind !== "robot")) {
      items.unshift({ kind: "floor", key: "floor", title: t("element.floor.title"), text: t(ed("element.floor.text")), short: "" });
    }
    return items;
  }

  /** One representative space per element look, for the legend: [{key, item, x, y}]. */
  legend() {
    const best = new Map();
    for (const cell of this.board.cells || []) {
      for (const item of this.describe(cell.x, cell.y)) {
        if (item.kind === "floor" || item.key === "beam") continue;
        const curved = cell.belt && (cell.belt.curved || []).length ? 2 : 0;
        const score = Object.keys(cell).length + (cell.inactive ? 5 : 0) + curved;
        const seen = best.get(item.key);
        if (!seen || score < seen.score) best.set(item.key, { key: item.key, item, x: cell.x, y: cell.y, score });
      }
    }
    const order = ["start", "belt-blue", "belt-green", "pusher", "gear-right", "gear-left", "crusher", "laser",
      "battery", "repair", "repair-2", "pit", "wall", "checkpoint", "reboot"];
    return [...best.values()].sort((a, b) => order.indexOf(a.key) - order.indexOf(b.key));
  }
}

/** A picture of one space cut from the board picture on the page (#rr-board-layer). */
export function spaceSymbol(x, y, cell = 48) {
  const pad = cell * 0.12;
  return s("svg", { class: "space-symbol", viewBox: `${x * cell - pad} ${y * cell - pad} ${cell + 2 * pad} ${cell + 2 * pad}`, "aria-hidden": "true" },
    s("use", { href: "#rr-board-layer" }));
}

/** The list of elements of one space, each with its words and a link to the rules. */
function itemList(items, edition, withLinks = true) {
  return h("ul.space-items", null, items.map((item) => h("li.space-item", { "data-testid": "space-element", "data-kind": item.kind, "data-key": item.key },
    h("strong", null, item.title),
    h("span.space-text", null, " ", item.text),
    withLinks && item.kind !== "robot" && item.kind !== "floor"
      ? [" ", rulesLink(edition, "el-" + item.kind, t("element.ui.in_rules"), { "data-testid": "rules-link" })]
      : null)));
}

/**
 * The space info box of a BoardView: opens on hover (mouse) next to the space, stays open on a
 * click or tap (a sheet at the bottom of a phone's screen) until closed.
 * ctx: {index: SpaceIndex, robots(x, y): [...] }
 */
export class SpaceInfo {
  constructor(view, ctx) {
    this.view = view;
    this.ctx = ctx;
    this.pinned = null;
    this.hovered = null;
    this.el = h("div.space-info", { hidden: true, "data-testid": "space-info", role: "dialog", "aria-label": t("element.ui.what") });
    document.body.append(this.el);
    const svg = view.svg;
    this.mark = s("rect", { class: "space-mark", width: view.cell, height: view.cell, rx: 4, visibility: "hidden" });
    view.marks.parentNode.insertBefore(this.mark, view.marks);
    svg.addEventListener("pointermove", (ev) => {
      if (ev.pointerType !== "mouse" || this.pinned) return;
      const at = view.cellAt(ev.clientX, ev.clientY);
      if (!at) return this.hide();
      if (this.hovered && this.hovered[0] === at[0] && this.hovered[1] === at[1]) return;
      this.hovered = at;
      this.show(at, false);
    });
    svg.addEventListener("pointerleave", (ev) => {
      if (ev.pointerType === "mouse" && !this.pinned) this.hide();
    });
    svg.addEventListener("click", (ev) => {
      if (ev.target.closest && ev.target.closest(".choice")) return; // a choice on the board
      const at = view.cellAt(ev.clientX, ev.clientY);
      if (!at) return this.hide();
      if (this.pinned && this.pinned[0] === at[0] && this.pinned[1] === at[1]) return this.hide();
      this.show(at, true);
    });
    document.addEventListener("keydown", (ev) => {
      if (ev.key === "Escape" && !this.el.hidden) this.hide();
    });
    document.addEventListener("pointerdown", (ev) => {
      if (this.pinned && !this.el.contains(ev.target) && !svg.contains(ev.target)) this.hide();
    });
  }

  show([x, y], pin) {
    const items = this.ctx.index.describe(x, y, this.ctx.robots ? this.ctx.robots(x, y) : []);
    if (!items.length) return this.hide();
    this.pinned = pin ? [x, y] : null;
    this.hovered = [x, y];
    const edition = this.ctx.index.edition;
    const close = h("button.icon.space-close", { type: "button", "aria-label": t("element.ui.close"), onclick: () => this.hide() }, "×");
    this.el.dataset.x = String(x);
    this.el.dataset.y = String(y);
    this.el.classList.toggle("pinned", !!pin);
    this.el.replaceChildren(
      h("div.space-head", null, spaceSymbol(x, y, this.view.cell),
        h("div.space-where", null, h("strong", null, t("element.ui.where", { column: x + 1, row: y + 1 })),
          h("span.dim", null, pin ? "" : t("element.ui.click"))),
        pin ? close : null),
      itemList(items, edition, true));
    this.el.hidden = false;
    const c = this.view.cell;
    this.mark.setAttribute("x", String(x * c));
    this.mark.setAttribute("y", String(y * c));
    this.mark.setAttribute("visibility", "visible");
    this.place(x, y);
  }

  /** Beside the space on a wide screen; at the bottom of a phone's screen when pinned. */
  place(x, y) {
    const box = this.el;
    box.style.left = box.style.top = box.style.bottom = "";
    if (this.pinned && window.innerWidth <= 560) {
      box.classList.add("sheet");
      return;
    }
    box.classList.remove("sheet");
    const rect = this.view.cellRect(x, y);
    const w = box.offsetWidth, hgt = box.offsetHeight;
    let left = rect.right + 10;
    if (left + w > window.innerWidth - 8) left = rect.left - w - 10;
    left = Math.max(8, Math.min(left, window.innerWidth - w - 8));
    let top = Math.max(8, Math.min(rect.top, window.innerHeight - hgt - 8));
    box.style.left = left + "px";
    box.style.top = top + "px";
  }

  hide() {
    this.pinned = null;
    this.hovered = null;
    this.el.hidden = true;
    this.mark.setAttribute("visibility", "hidden");
  }
}

/** The legend: each element of this board with its symbol and one line. */
export function legendBox(index, cell = 48) {
  const entries = index.legend();
  const open = store.get("legendOpen", false);
  const box = h("details.legend-box", { "data-testid": "legend", open },
    h("summary", null, t("element.ui.legend")),
    h("p.hint", null, window.matchMedia && window.matchMedia("(hover: hover)").matches
      ? t("element.ui.hint_point") : t("element.ui.hint_tap")),
    h("ul.legend", null, entries.map(({ key, item, x, y }) => h("li.legend-item", { "data-testid": "legend-item", "data-key": key, "data-kind": item.kind },
      spaceSymbol(x, y, cell),
      h("div", null,
        h("strong", null, legendTitle(item)), " ",
        h("span.dim", null, item.short), " ",
        rulesLink(index.edition, "el-" + item.kind, t("element.ui.rules_arrow")))))));
  box.addEventListener("toggle", () => store.set("legendOpen", box.open));
  return box;
}

/** A legend line names the look, not the numbers of one space ("Checkpoint", not "Checkpoint 2"). */
function legendTitle(item) {
  return item.legend || item.title;
}
