// What is on a space of the board, in plain words: the box that opens on hover (desktop) or a
// tap (phone), and the legend. Everything comes from the board JSON (docs/protocol.md 1.2).

import { DIR_WORDS, DIRS, h, s, store } from "./util.js";

/** The rules help page of an edition (/rules/2023, /rules/classic, /rules/classic-1994). */
export function rulesUrl(edition, anchor = "") {
  return `/rules/${encodeURIComponent(edition || "2023")}?lang=${encodeURIComponent(document.documentElement.lang || "en")}${anchor ? "#" + anchor : ""}`;
}

/** A link to the rules help page, opening in a new tab. */
export function rulesLink(edition, anchor, text = "Rules", attrs = {}) {
  return h("a.rules-link", { href: rulesUrl(edition, anchor), target: "_blank", rel: "noopener", ...attrs }, text);
}

const STEP = { N: [0, -1], E: [1, 0], S: [0, 1], W: [-1, 0] };
const OPPOSITE = { N: "S", E: "W", S: "N", W: "E" };

function listWords(items) {
  if (items.length <= 1) return items.join("");
  return items.slice(0, -1).join(", ") + " and " + items[items.length - 1];
}

function sidesText(dirs) {
  const words = dirs.map((d) => DIR_WORDS[d]);
  return `the ${listWords(words)} side${dirs.length > 1 ? "s" : ""}`;
}

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
    const sq = c ? "square" : "space";
    const items = [];
    const add = (kind, key, title, text, short) => items.push({ kind, key, title, text, short: short || text });
    const covered = cell.inactive ? (cell.checkpoint ? (c ? "flag" : "checkpoint") : "reboot token") : null;
    const under = (text) => (covered ? `${text} It is covered by the ${covered}, so it does nothing.` : text);
    if (cell.start) {
      const facing = cell.start_facing ? `, facing ${DIR_WORDS[cell.start_facing]}` : "";
      if (c) {
        add("start", "start", `Start square ${cell.start}`,
          `A robot starts the race here${facing}. It is also the robot's first archive position: where it re-enters after it is destroyed, until it touches a flag or repair site.`,
          "Robots start the race here.");
      } else {
        add("start", "start", `Start space ${cell.start}`,
          `A robot starts the race here${facing}. A robot that falls off the docking bay reboots on its own start space.`,
          "Robots start the race here.");
      }
    }
    if (cell.checkpoint) {
      const n = cell.checkpoint;
      const last = n === this.lastCheckpoint ? ` It is the last one: reaching it wins the race.` : "";
      if (c && !this.y94) {
        const repair = this.variants.has("no_flag_repair") ? "" : " At the end of the turn it also repairs 1 damage.";
        add("checkpoint", "checkpoint", `Flag ${n}`,
          `Touch the flags in order: a robot on this square at the end of a register phase reaches flag ${n} if it has touched ${n > 1 ? `flag ${n - 1}` : "no flag yet"}.${last} Touching any flag moves the robot's archive marker here.${repair}`,
          "Touch the flags in order; the last one wins.");
      } else if (this.y94) {
        add("checkpoint", "checkpoint", `Checkpoint ${n}`,
          `Reach the checkpoints in order: a robot that passes over or stops on this square counts it${n > 1 ? ` once it has checkpoint ${n - 1}` : ""}.${last} Its backup token moves here.`,
          "Reach the checkpoints in order; the last one wins.");
      } else {
        add("checkpoint", "checkpoint", `Checkpoint ${n}`,
          `Reach the checkpoints in order: a robot that ends a register here${n > 1 ? ` after reaching checkpoint ${n - 1}` : ""} reaches checkpoint ${n}.${last} It blocks neither robots nor lasers.`,
          "Reach the checkpoints in order; the last one wins.");
      }
    }
    if (cell.reboot) {
      const arrow = DIR_WORDS[cell.reboot];
      add("reboot", "reboot", "Reboot token",
        `A robot that falls off this board (into a pit or over the edge) comes back here at the start of the next round. If the space is taken when it re-enters, the robot on it is pushed 1 space ${arrow}, the way the arrow points.`,
        "Robots that fall off this board come back here; the arrow says where a robot in the way is pushed.");
    }
    if (cell.pit) {
      const name = this.y94 ? "Shaft" : "Pit";
      add("pit", "pit", name,
        c ? `A robot that enters this square, by any means, is destroyed at once (it loses a life).`
          : `A robot that enters this space, by any means, falls in at once and reboots.`,
        c ? "A robot that enters it is destroyed." : "A robot that enters it falls in and reboots.");
    }
    if (cell.belt) {
      const b = cell.belt;
      const blue = b.color === "blue";
      const dir = DIR_WORDS[b.out];
      const title = blue ? (c ? "Express conveyor belt (blue)" : "Blue conveyor belt (express)")
        : (c ? "Conveyor belt" : "Green conveyor belt");
      let text = blue
        ? `At the end of each register it carries a robot on it 2 ${sq}s ${dir}, one at a time.`
        : `At the end of each register it carries a robot on it 1 ${sq} ${dir}.`;
      for (const side of b.curved || []) {
        const turn = turnBetween(OPPOSITE[side], b.out);
        if (turn) text += ` A robot the belt carries in from the ${DIR_WORDS[side]} turns ${turn} (a turning belt).`;
      }
      const entries = this.beltEntries(cell);
      if (entries.length > 1) {
        text += ` Belts from ${listWords(entries.map((d) => "the " + DIR_WORDS[d]))} meet here: if two robots would be carried onto this ${sq} at once, neither moves.`;
      }
      text += " Belts never push robots.";
      add("belt", blue ? "belt-blue" : "belt-green", title, under(text),
        blue ? `Moves a robot 2 ${sq}s along the arrows each register.` : `Moves a robot 1 ${sq} along the arrow each register.`);
    }
    if (cell.pusher) {
      const regs = cell.pusher.registers || [];
      const dir = DIR_WORDS[cell.pusher.direction];
      add("pusher", "pusher", c ? "Pusher" : "Push panel",
        under(`Pushes in registers ${listWords(regs.map(String))}: a robot on this ${sq} is pushed 1 ${sq} ${dir}, away from the wall, together with any robots in line.`),
        `Pushes a robot 1 ${sq} away from its wall in the registers printed on it.`);
    }
    if (cell.gear) {
      const right = cell.gear === "right";
      const colour = c ? "" : right ? "Green gear" : "Red gear";
      add("gear", right ? "gear-right" : "gear-left", `${colour || "Gear"} (turns ${right ? "right" : "left"})`,
        under(`At the end of each register it turns a robot on it 90° to the ${right ? "right (clockwise)" : "left (counter-clockwise)"}. The robot stays on its ${sq}.`),
        `Turns a robot on it 90° to the ${right ? "right" : "left"} each register.`);
    }
    if (cell.crusher) {
      add("crusher", "crusher", "Crusher",
        under(`In registers ${listWords(cell.crusher.map(String))} it crushes a robot on this ${sq}: the robot is destroyed.`),
        "Destroys a robot under it in the registers printed on it.");
    }
    for (const laser of cell.lasers || []) {
      const n = laser.beams || 1;
      const harm = c ? `${n} damage token${n > 1 ? "s" : ""}` : `${n} damage (${n === 1 ? "a SPAM card" : `${n} SPAM cards`})`;
      add("laser", "laser", `Board laser, ${n} beam${n > 1 ? "s" : ""}`,
        `It fires ${DIR_WORDS[laser.direction]} at the end of each register: the nearest robot in its beam, this ${sq} included, takes ${harm}. Walls stop the beam.`,
        "Fires along the beam each register: the nearest robot takes 1 damage per beam.");
    }
    for (const laser of this.beams.get(`${x},${y}`) || []) {
      if (laser.from && laser.from[0] === x && laser.from[1] === y) continue; // the emitter, above
      const n = laser.beams || 1;
      add("laser", "beam", `In a laser beam (${n} beam${n > 1 ? "s" : ""})`,
        `The board laser at column ${laser.from[0] + 1}, row ${laser.from[1] + 1} fires ${DIR_WORDS[laser.direction]} through this ${sq}: a robot here takes ${n} damage when it fires, unless another robot is nearer the laser.`);
    }
    if (cell.battery) {
      const off = this.variants.has("lighter") ? " (In the lighter game it does nothing.)" : "";
      add("battery", "battery", "Battery (energy space)",
        under(`A robot that ends a register here gains 1 energy (at most 10).${off}`),
        "A robot that ends a register here gains 1 energy.");
    }
    if (cell.repair) {
      const n = cell.repair;
      let title, text;
      if (this.y94) {
        title = n > 1 ? "Repair site (2 wrenches)" : "Repair site (wrench)";
        text = `At the end of the turn a robot here removes ${n} damage token${n > 1 ? "s" : ""}.${n > 1 && this.variants.has("option_cards") ? " It also draws an option card." : ""}`;
      } else {
        const options = n > 1 && !this.variants.has("no_option_cards");
        title = n > 1 ? "Repair site (wrench and hammer)" : "Repair site (wrench)";
        text = `At the end of the turn a robot here removes 1 damage token${options ? " and draws an option card" : ""}.`;
      }
      add("repair", n > 1 ? "repair-2" : "repair", title,
        under(`${text} A robot that stops here at the end of a register phase also moves its archive marker here.`),
        "Repairs a robot that ends the turn here.");
    }
    const walls = cell.walls || [];
    if (walls.length) {
      add("wall", "wall", walls.length > 1 ? "Walls" : "Wall",
        `On ${sidesText(walls)} of this ${sq}. Robots cannot move through a wall, and lasers stop at it.`,
        "Robots cannot move through walls; lasers stop at them.");
    }
    for (const r of robots) {
      const who = r.name + (r.you ? " (you)" : "");
      add("robot", "robot", `Robot ${r.seat + 1}: ${who}`,
        r.ghost ? `Rebooting: it waits here to re-enter the board${r.facing ? `, facing ${DIR_WORDS[r.facing]}` : ""}.`
          : `Facing ${DIR_WORDS[r.facing] || r.facing}.`);
    }
    if (!items.some((i) => i.kind !== "robot")) {
      items.unshift({ kind: "floor", key: "floor", title: "Floor", text: `Nothing happens on this ${sq}.`, short: "" });
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
      ? [" ", rulesLink(edition, "el-" + item.kind, "In the rules ↗", { "data-testid": "rules-link" })]
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
    this.el = h("div.space-info", { hidden: true, "data-testid": "space-info", role: "dialog", "aria-label": "What is on this space" });
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
    const close = h("button.icon.space-close", { type: "button", "aria-label": "Close", onclick: () => this.hide() }, "×");
    this.el.dataset.x = String(x);
    this.el.dataset.y = String(y);
    this.el.classList.toggle("pinned", !!pin);
    this.el.replaceChildren(
      h("div.space-head", null, spaceSymbol(x, y, this.view.cell),
        h("div.space-where", null, h("strong", null, `Column ${x + 1}, row ${y + 1}`),
          h("span.dim", null, pin ? "" : "Click for the links to the rules")),
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
    h("summary", null, "Board legend"),
    h("p.hint", null, window.matchMedia && window.matchMedia("(hover: hover)").matches
      ? "Point at any space of the board to see what is on it; click it for links to the rules."
      : "Tap any space of the board to see what is on it."),
    h("ul.legend", null, entries.map(({ key, item, x, y }) => h("li.legend-item", { "data-testid": "legend-item", "data-key": key, "data-kind": item.kind },
      spaceSymbol(x, y, cell),
      h("div", null,
        h("strong", null, legendTitle(item)), " ",
        h("span.dim", null, item.short), " ",
        rulesLink(index.edition, "el-" + item.kind, "Rules ↗"))))));
  box.addEventListener("toggle", () => store.set("legendOpen", box.open));
  return box;
}

/** A legend line names the look, not the numbers of one space ("Checkpoint", not "Checkpoint 2"). */
function legendTitle(item) {
  return item.title.replace(/ \d+$/, "").replace(/, \d+ beams?$/, "");
}
