// The seats' colours and shapes. The server names unnamed seats Red, Blue, Green, Yellow,
// Purple, Orange, White and Black, in this order, so each colour stays recognisably that colour;
// the six first ones are chosen to stay apart for people with any of the common colour-vision
// deficiencies (red-blind, green-blind, blue-blind), and every seat has a shape of its own as a
// second cue (on the robot, beside the seat number, in the player list and the log).
// tests/server/test_seat_colours.py reads the list between the markers and checks both.

import { t } from "./i18n.js";

/** colour: the seat's colour; ink: text on it; shape: its name; points: the outline in a box
 * from -1 to 1 (empty for the circle). */
export const SEATS = /* seats */ [
  { "colour": "#b80019", "ink": "#ffffff", "shape": "circle", "points": [] },
  { "colour": "#2fb6fa", "ink": "#10141b", "shape": "square", "points": [[-0.82, -0.82], [0.82, -0.82], [0.82, 0.82], [-0.82, 0.82]] },
  { "colour": "#2f8060", "ink": "#ffffff", "shape": "triangle", "points": [[0, -1], [1, 0.8], [-1, 0.8]] },
  { "colour": "#fff93c", "ink": "#10141b", "shape": "diamond", "points": [[0, -1], [1, 0], [0, 1], [-1, 0]] },
  { "colour": "#7d3fc5", "ink": "#ffffff", "shape": "star", "points": [[0, -0.92], [0.29, -0.32], [0.95, -0.23], [0.48, 0.23], [0.59, 0.89], [0, 0.58], [-0.59, 0.89], [-0.48, 0.23], [-0.95, -0.23], [-0.29, -0.32]] },
  { "colour": "#dc801e", "ink": "#10141b", "shape": "plus", "points": [[-0.36, -1], [0.36, -1], [0.36, -0.36], [1, -0.36], [1, 0.36], [0.36, 0.36], [0.36, 1], [-0.36, 1], [-0.36, 0.36], [-1, 0.36], [-1, -0.36], [-0.36, -0.36]] },
  { "colour": "#e9ecef", "ink": "#10141b", "shape": "down", "points": [[-1, -0.8], [1, -0.8], [0, 1]] },
  { "colour": "#343a40", "ink": "#ffffff", "shape": "cross", "points": [[-0.72, -1], [0, -0.28], [0.72, -1], [1, -0.72], [0.28, 0], [1, 0.72], [0.72, 1], [0, 0.28], [-0.72, 1], [-1, 0.72], [-0.28, 0], [-1, -0.72]] }
] /* end seats */;

const SVG_NS = "http://www.w3.org/2000/svg";

// The names the server gives seats nobody named, seat by seat (server/app.py COLOURS), in
// English, and the keys of those colours in the translation files (common.colour.*).
const DEFAULT_NAMES = ["Red", "Blue", "Green", "Yellow", "Purple", "Orange", "White", "Black"];

/** The seat's colour as a name in the page's language (a seat past the eighth: "Robot 9"). */
export function colourName(seat) {
  const name = DEFAULT_NAMES[seat];
  return name ? t("common.colour." + name.toLowerCase()) : t("common.robot_n", { n: seat + 1 });
}

/**
 * A seat's name as the page shows it: the English colour name the server gave a seat nobody
 * named ("Red" for seat 0) in the page's language, any other name (one a player chose) as it is.
 */
export function seatName(seat, name) {
  return name && name === DEFAULT_NAMES[seat] ? colourName(seat) : name;
}

export const seatOf = (seat) => SEATS[((seat % SEATS.length) + SEATS.length) % SEATS.length];

/** The seat's shape as a CSS clip-path. */
export function shapeClip(seat) {
  const { points } = seatOf(seat);
  if (!points.length) return "circle(50%)";
  return `polygon(${points.map(([x, y]) => `${((x + 1) * 50).toFixed(1)}% ${((y + 1) * 50).toFixed(1)}%`).join(", ")})`;
}

/** The seat's shape as an SVG element of radius ``r`` around (0, 0), with ``attrs``. */
export function shapeSvg(seat, r, attrs = {}) {
  const { points } = seatOf(seat);
  const el = document.createElementNS(SVG_NS, points.length ? "path" : "circle");
  if (points.length) {
    el.setAttribute("d", "M" + points.map(([x, y]) => `${(x * r).toFixed(2)} ${(y * r).toFixed(2)}`).join(" L") + " Z");
  } else {
    el.setAttribute("r", String(r * 0.92));
  }
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
  el.setAttribute("data-shape", seatOf(seat).shape);
  return el;
}

/** How far below the middle of its box the seat's shape has its centre (text goes there). */
export function shapeCentre(seat) {
  const { points } = seatOf(seat);
  return points.length ? points.reduce((sum, [, y]) => sum + y, 0) / points.length : 0;
}

/** A small mark of the seat's shape, in the colour of the text around it. */
function shapeMark(seat, cls) {
  const mark = document.createElement("span");
  mark.className = cls;
  mark.setAttribute("aria-hidden", "true");
  mark.dataset.shape = seatOf(seat).shape;
  mark.style.clipPath = shapeClip(seat);
  return mark;
}

/**
 * The seat's chip: its colour, its shape and ``content`` (the seat number unless given).
 * ``cls``: more classes ("tiny"); ``title``: a tooltip.
 */
export function seatChip(seat, { content = String(seat + 1), cls = "", title = null, style = {} } = {}) {
  const { colour, ink } = seatOf(seat);
  const chip = document.createElement("span");
  chip.className = ["chip", "seat-chip", cls].filter(Boolean).join(" ");
  chip.dataset.seatMark = String(seat);
  Object.assign(chip.style, { background: colour, color: ink }, style);
  if (title) chip.title = title;
  chip.append(shapeMark(seat, "chip-shape"));
  chip.append(content instanceof Node ? content : document.createTextNode(String(content)));
  return chip;
}

/** A dot of the seat's colour and shape (log lines, the register strip). */
export function seatDot(seat) {
  const dot = shapeMark(seat, "ldot seat-dot");
  dot.style.background = seatOf(seat).colour;
  return dot;
}
