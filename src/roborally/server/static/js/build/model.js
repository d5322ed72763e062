// The board being built: its cells and walls, the changes a tool makes, the region moves,
// turns and mirrors, and the undo history. It reads and writes the builder's BoardModel JSON
// (docs/protocol.md, builder API): {name, title, kind, width, height, comment, cells: [...]}.
//
// Walls are kept once per edge ("h,x,y": the top edge of space x,y; "v,x,y": its left edge),
// so a wall drawn from either side is the same wall, as in the board file.

export const DIRS = ["N", "E", "S", "W"];
const STEP = { N: [0, -1], E: [1, 0], S: [0, 1], W: [-1, 0] };
export const OPPOSITE = { N: "S", E: "W", S: "N", W: "E" };
export const turnRight = (d) => DIRS[(DIRS.indexOf(d) + 1) % 4];
export const turnLeft = (d) => DIRS[(DIRS.indexOf(d) + 3) % 4];
export const step = (x, y, d) => [x + STEP[d][0], y + STEP[d][1]];
export const MAX_SIZE = 100;

/** The edge key of side ``d`` of space x,y. */
export function edgeKey(x, y, d) {
  if (d === "N") return `h,${x},${y}`;
  if (d === "S") return `h,${x},${y + 1}`;
  if (d === "W") return `v,${x},${y}`;
  return `v,${x + 1},${y}`;
}

const FIELDS = ["pit", "belt", "gear", "pusher", "lasers", "battery", "repair", "crusher", "start", "start_facing", "checkpoint", "reboot"];

/** A deep copy of a cell's elements (no x, y, walls). */
export function cloneCell(cell) {
  const out = {};
  for (const f of FIELDS) if (cell && cell[f] !== undefined) out[f] = JSON.parse(JSON.stringify(cell[f]));
  return out;
}

const isEmpty = (cell) => !cell || FIELDS.every((f) => cell[f] === undefined);

export class BoardModel {
  constructor({ name = "my-board", title = "", kind = "factory", width = 12, height = 12, comment = "" } = {}) {
    this.name = name;
    this.title = title;
    this.kind = kind;
    this.width = width;
    this.height = height;
    this.comment = comment;
    this.cells = new Map(); // "x,y" -> elements
    this.walls = new Set(); // edge keys
  }

  static fromJSON(json) {
    const b = new BoardModel(json);
    for (const c of json.cells || []) {
      const el = cloneCell(c);
      if (!isEmpty(el)) b.cells.set(`${c.x},${c.y}`, el);
      for (const d of c.walls || []) b.walls.add(edgeKey(c.x, c.y, d));
    }
    return b;
  }

  toJSON() {
    const cells = new Map();
    const at = (x, y) => {
      const key = `${x},${y}`;
      if (!cells.has(key)) cells.set(key, { x, y });
      return cells.get(key);
    };
    for (const [key, el] of this.cells) {
      const [x, y] = key.split(",").map(Number);
      if (x < this.width && y < this.height) Object.assign(at(x, y), cloneCell(el));
    }
    for (const edge of this.walls) {
      const [kind, xs, ys] = edge.split(",");
      const [x, y] = [Number(xs), Number(ys)];
      let cell = null;
      if (kind === "h" && x < this.width) {
        if (y < this.height) cell = [x, y, "N"];
        else if (y === this.height) cell = [x, y - 1, "S"];
      } else if (kind === "v" && y < this.height) {
        if (x < this.width) cell = [x, y, "W"];
        else if (x === this.width) cell = [x - 1, y, "E"];
      }
      if (!cell) continue;
      const c = at(cell[0], cell[1]);
      (c.walls = c.walls || []).push(cell[2]);
    }
    const list = [...cells.values()].sort((a, b) => a.y - b.y || a.x - b.x);
    for (const c of list) if (c.walls) c.walls.sort((a, b) => DIRS.indexOf(a) - DIRS.indexOf(b));
    return {
      name: this.name, title: this.title || this.name, kind: this.kind,
      width: this.width, height: this.height, comment: this.comment, cells: list,
    };
  }

  clone() {
    return BoardModel.fromJSON(this.toJSON());
  }

  inside(x, y) {
    return x >= 0 && y >= 0 && x < this.width && y < this.height;
  }

  get(x, y) {
    return this.cells.get(`${x},${y}`) || {};
  }

  set(x, y, el) {
    if (isEmpty(el)) this.cells.delete(`${x},${y}`);
    else this.cells.set(`${x},${y}`, el);
  }

  wallsOf(x, y) {
    return DIRS.filter((d) => this.walls.has(edgeKey(x, y, d)));
  }

  hasWall(x, y, d) {
    return this.walls.has(edgeKey(x, y, d));
  }

  setWall(x, y, d, on) {
    if (on) this.walls.add(edgeKey(x, y, d));
    else this.walls.delete(edgeKey(x, y, d));
  }

  /** Change the size: spaces and walls beyond the new edges go. */
  resize(width, height) {
    this.width = width;
    this.height = height;
    for (const key of [...this.cells.keys()]) {
      const [x, y] = key.split(",").map(Number);
      if (x >= width || y >= height) this.cells.delete(key);
    }
    for (const edge of [...this.walls]) {
      const [kind, xs, ys] = edge.split(",");
      const [x, y] = [Number(xs), Number(ys)];
      if ((kind === "h" && (x >= width || y > height)) || (kind === "v" && (x > width || y >= height))) this.walls.delete(edge);
    }
  }

  /** The numbers used by a field over the board (start, checkpoint). */
  numbers(field) {
    return [...this.cells.values()].map((c) => c[field]).filter((n) => typeof n === "number");
  }

  nextNumber(field) {
    const used = new Set(this.numbers(field));
    let n = 1;
    while (used.has(n)) n++;
    return n;
  }

  /** Where a field has a value (or any value): [[x, y], ...]. */
  where(field, value) {
    const out = [];
    for (const [key, c] of this.cells) {
      if (c[field] !== undefined && (value === undefined || c[field] === value)) out.push(key.split(",").map(Number));
    }
    return out;
  }
}

// ------------------------------------------------------------------ painting
/**
 * Put an element of ``tool`` (tools.js: {id, ...parameters}) on space x,y, the way the board
 * format allows them together: a belt replaces a gear, a pit clears all but lasers, a start or
 * checkpoint number moves from the space that had it, one reboot token a board. Lasers and
 * pushers get the wall they hang on. Returns whether anything changed.
 */
export function paint(board, x, y, tool) {
  if (!board.inside(x, y)) return false;
  const before = JSON.stringify([board.get(x, y), board.wallsOf(x, y)]);
  const cell = cloneCell(board.get(x, y));
  const clear = (...fields) => fields.forEach((f) => delete cell[f]);
  const unique = (field, value) => {
    for (const [ox, oy] of board.where(field, value)) {
      if (ox === x && oy === y) continue;
      const other = cloneCell(board.get(ox, oy));
      delete other[field];
      if (field === "start") delete other.start_facing;
      board.set(ox, oy, other);
    }
  };
  switch (tool.id) {
    case "belt": {
      const curved = (tool.curved || []).filter((d) => d !== tool.out && d !== OPPOSITE[tool.out]);
      cell.belt = { color: tool.color || "green", out: tool.out || "N", curved: curved.sort() };
      clear("gear", "pit");
      break;
    }
    case "gear":
      cell.gear = tool.turn || "right";
      clear("belt", "pit");
      break;
    case "pit":
      for (const f of FIELDS) if (f !== "lasers") delete cell[f];
      cell.pit = true;
      break;
    case "pusher":
      cell.pusher = { direction: tool.direction || "S", registers: [...(tool.registers || [1, 3, 5])].sort() };
      board.setWall(x, y, OPPOSITE[cell.pusher.direction], true);
      clear("pit");
      break;
    case "laser": {
      const dir = tool.direction || "S";
      const lasers = (cell.lasers || []).filter((l) => l.direction !== dir);
      lasers.push({ direction: dir, beams: tool.beams || 1 });
      cell.lasers = lasers;
      board.setWall(x, y, OPPOSITE[dir], true);
      break;
    }
    case "battery":
      cell.battery = true;
      clear("pit");
      break;
    case "repair":
      cell.repair = tool.wrenches === 2 ? 2 : 1;
      clear("pit");
      break;
    case "crusher":
      cell.crusher = [...(tool.registers || [2, 4])].sort();
      clear("pit");
      break;
    case "start":
      unique("start", tool.number);
      cell.start = tool.number || 1;
      if (tool.facing) cell.start_facing = tool.facing;
      else delete cell.start_facing;
      clear("pit");
      break;
    case "checkpoint":
      unique("checkpoint", tool.number);
      cell.checkpoint = tool.number || 1;
      clear("pit");
      break;
    case "reboot":
      unique("reboot");
      cell.reboot = tool.arrow || "E";
      clear("pit");
      break;
    case "wall":
      board.setWall(x, y, tool.side || "N", tool.on !== false);
      break;
    case "erase":
      for (const f of FIELDS) delete cell[f];
      if (tool.walls) for (const d of DIRS) board.setWall(x, y, d, false);
      break;
    default:
      return false;
  }
  if (tool.id !== "wall") board.set(x, y, cell);
  return JSON.stringify([board.get(x, y), board.wallsOf(x, y)]) !== before;
}

// --------------------------------------------------------- region changes
/** How a direction turns under a change: "cw" (a quarter turn right), "ccw", "mirror-x"
 * (left-right), "mirror-y" (top-bottom). */
export function mapDir(d, how) {
  if (how === "cw") return turnRight(d);
  if (how === "ccw") return turnLeft(d);
  if (how === "mirror-x") return d === "E" ? "W" : d === "W" ? "E" : d;
  if (how === "mirror-y") return d === "N" ? "S" : d === "S" ? "N" : d;
  return d;
}

/** A cell's elements after the change ``how``: every direction turned, a gear's sense
 * swapped by a mirror. */
export function mapCell(cell, how) {
  const c = cloneCell(cell);
  const m = (d) => mapDir(d, how);
  if (c.belt) c.belt = { ...c.belt, out: m(c.belt.out), curved: (c.belt.curved || []).map(m).sort() };
  if (c.pusher) c.pusher = { ...c.pusher, direction: m(c.pusher.direction) };
  if (c.lasers) c.lasers = c.lasers.map((l) => ({ ...l, direction: m(l.direction) }));
  if (c.start_facing) c.start_facing = m(c.start_facing);
  if (c.reboot) c.reboot = m(c.reboot);
  if (c.gear && how.startsWith("mirror")) c.gear = c.gear === "left" ? "right" : "left";
  return c;
}

/** A normalised region {x, y, w, h} from two corners. */
export function region(a, b) {
  const x = Math.min(a[0], b[0]), y = Math.min(a[1], b[1]);
  return { x, y, w: Math.abs(a[0] - b[0]) + 1, h: Math.abs(a[1] - b[1]) + 1 };
}

/**
 * Change the region ``r`` of the board: "move" by (dx, dy), "cw"/"ccw" a quarter turn about
 * its top-left corner's place (the region keeps its top-left corner), "mirror-x"/"mirror-y".
 * The spaces it leaves are cleared, the ones it lands on replaced; its walls (its own sides and
 * its edges) go with it. Returns the new region, or null if it would leave the board.
 */
export function transformRegion(board, r, how, dx = 0, dy = 0) {
  const turned = how === "cw" || how === "ccw";
  const nw = turned ? r.h : r.w, nh = turned ? r.w : r.h;
  const nx = r.x + (how === "move" ? dx : 0), ny = r.y + (how === "move" ? dy : 0);
  if (nx < 0 || ny < 0 || nx + nw > board.width || ny + nh > board.height) return null;
  const place = (i, j) => {
    // (i, j): a space's place in the region -> its new place in the new region
    if (how === "cw") return [r.h - 1 - j, i];
    if (how === "ccw") return [j, r.w - 1 - i];
    if (how === "mirror-x") return [r.w - 1 - i, j];
    if (how === "mirror-y") return [i, r.h - 1 - j];
    return [i, j];
  };
  const dirHow = how === "move" ? "none" : how;
  const taken = [];
  for (let j = 0; j < r.h; j++) {
    for (let i = 0; i < r.w; i++) {
      const [x, y] = [r.x + i, r.y + j];
      taken.push({ i, j, cell: board.get(x, y), walls: board.wallsOf(x, y) });
    }
  }
  for (const { i, j, walls } of taken) {
    board.set(r.x + i, r.y + j, {});
    for (const d of walls) board.setWall(r.x + i, r.y + j, d, false);
  }
  for (const { i, j, cell, walls } of taken) {
    const [ni, nj] = place(i, j);
    const [x, y] = [nx + ni, ny + nj];
    board.set(x, y, mapCell(cell, dirHow));
    for (const d of walls) board.setWall(x, y, mapDir(d, dirHow), true);
  }
  return { x: nx, y: ny, w: nw, h: nh };
}

// ------------------------------------------------------------------ history
/** Undo and redo over snapshots of the thing being edited (its JSON). */
export class History {
  constructor(limit = 200) {
    this.limit = limit;
    this.past = [];
    this.future = [];
  }

  /** Keep ``snapshot`` (the state before a change). */
  push(snapshot) {
    this.past.push(snapshot);
    if (this.past.length > this.limit) this.past.shift();
    this.future = [];
  }

  undo(current) {
    if (!this.past.length) return null;
    this.future.push(current);
    return this.past.pop();
  }

  redo(current) {
    if (!this.future.length) return null;
    this.past.push(current);
    return this.future.pop();
  }

  clear() {
    this.past = [];
    this.future = [];
  }
}
