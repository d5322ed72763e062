// A small picture for every upgrade (2023) and option card (classic): our own drawings, one per
// card, in a 40 x 40 box, in the current text colour (so they work on a card and in a panel).

const F = 'fill="currentColor"';
const S = (w = 3.2) => `fill="none" stroke="currentColor" stroke-width="${w}" stroke-linecap="round" stroke-linejoin="round"`;
const DIM = 'opacity="0.5"';

/** A robot seen from above, its nose pointing up (before the rotation ``a``). */
const bot = (x, y, k = 1, a = 0, extra = "") =>
  `<g transform="translate(${x} ${y}) rotate(${a}) scale(${k})" ${extra}><rect x="-7" y="-6" width="14" height="13" rx="3.5" ${F}/><path d="M0 -12 L-5.5 -6.5 H5.5 Z" ${F}/></g>`;
/** An arrow along a path, with a head at its end pointing ``a`` degrees (0 = up). */
const head = (x, y, a, k = 1) => `<path d="M0 -6 L5.5 2.5 H-5.5 Z" transform="translate(${x} ${y}) rotate(${a}) scale(${k})" ${F}/>`;
const line = (x1, y1, x2, y2, w = 3.2) => `<path d="M${x1} ${y1} L${x2} ${y2}" ${S(w)}/>`;
const beam = (x1, y1, x2, y2) => `<path d="M${x1} ${y1} L${x2} ${y2}" ${S(2.6)} stroke-dasharray="1 4.5"/>`;
/** A playing card, upright. */
const card = (x, y, w = 14, hgt = 19, a = 0, inner = "") =>
  `<g transform="rotate(${a} ${x + w / 2} ${y + hgt / 2})"><rect x="${x}" y="${y}" width="${w}" height="${hgt}" rx="2.5" ${S(2.6)}/>${inner}</g>`;
const shield = (inner = "") => `<path d="M20 4 L33 9 V19 C33 28 27 33 20 36 C13 33 7 28 7 19 V9 Z" ${S(3)}/>${inner}`;
const bolt = (x, y, k = 1) => `<path d="M3 -9 L-4 1 H0.5 L-2 9 L5 -1.5 H0.5 Z" transform="translate(${x} ${y}) scale(${k})" ${F}/>`;
const gearShape = (cx, cy, r, teeth = 8) => {
  const pts = [];
  for (let i = 0; i < teeth * 2; i++) {
    const a = (Math.PI * i) / teeth;
    const rr = i % 2 ? r * 0.78 : r;
    pts.push(`${(cx + rr * Math.sin(a)).toFixed(1)},${(cy - rr * Math.cos(a)).toFixed(1)}`);
  }
  return `<polygon points="${pts.join(" ")}" ${F}/>`;
};
const arcArrow = (right) => right
  ? `<path d="M12 34 V22 A8 8 0 0 1 20 14 H25" ${S(3.6)}/>${head(27, 14, 90)}`
  : `<path d="M28 34 V22 A8 8 0 0 0 20 14 H15" ${S(3.6)}/>${head(13, 14, 270)}`;
const text = (x, y, t, size = 12) => `<text x="${x}" y="${y}" font-size="${size}" font-weight="800" text-anchor="middle" font-family="system-ui, sans-serif" ${F}>${t}</text>`;

const ICONS = {
  // ------------------------------------------------------ 2023: permanent upgrades
  brakes: `<path d="M14 4 H26 L35 13 V26 L26 35 H14 L5 26 V13 Z" ${S(3)}/>${line(12, 20, 28, 20, 4)}`,
  double_barrel_laser: `<rect x="4" y="12" width="12" height="16" rx="3" ${F}/>${line(16, 16, 36, 16, 3)}${line(16, 24, 36, 24, 3)}`,
  drifting: `${arcArrow(false)}<path d="M31 33 l3 -3 M31 27 l3 -3" ${S(2)} ${DIM}/>${line(31, 10, 31, 4, 2.4)}${head(31, 4, 0, 0.6)}`,
  firewall: `<path d="M4 36 H36 M4 28 H36 M4 20 H36 M12 20 V28 M28 20 V28 M20 28 V36 M6 36 V20 M34 36 V20" ${S(2.4)}/><path d="M20 3 C26 9 24 12 22 15 C28 13 27 8 26 6 C31 11 30 17 20 18 C11 17 12 9 20 3 Z" ${F}/>`,
  memory_cards: `<path d="M9 4 H27 L33 10 V36 H9 Z" ${S(3)}/><path d="M14 9 V15 M19 9 V15 M24 9 V15" ${S(2.6)}/>${text(21, 31, "M", 11)}`,
  crab_legs: `<ellipse cx="20" cy="21" rx="9" ry="7" ${F}/><path d="M11 19 L5 14 M11 23 L4 24 M12 26 L7 31 M29 19 L35 14 M29 23 L36 24 M28 26 L33 31" ${S(2.4)}/><path d="M14 14 L11 6 M26 14 L29 6" ${S(2.4)}/>`,
  laser_kata: `${bot(20, 21, 0.7)}${beam(20, 10, 20, 2)}${beam(20, 31, 20, 38)}${beam(9, 21, 2, 21)}${beam(31, 21, 38, 21)}`,
  hover_unit: `${bot(20, 14, 0.8)}<ellipse cx="20" cy="33" rx="12" ry="4" ${F} ${DIM}/><path d="M10 25 q3 -2 6 0 M24 25 q3 -2 6 0" ${S(2)}/>`,
  scrambler: `<path d="M4 12 H12 C20 12 20 28 28 28 H32 M4 28 H12 C20 28 20 12 28 12 H32" ${S(3)}/>${head(34, 12, 90)}${head(34, 28, 90)}`,
  mini_howitzer: `<path d="M8 27 L28 11" ${S(7)}/><circle cx="13" cy="29" r="6" ${S(3)}/><circle cx="33" cy="6" r="2.5" ${F}/>`,
  modular_chassis: `<path d="M6 12 H14 A3.5 3.5 0 1 1 21 12 H28 V19 A3.5 3.5 0 1 0 28 26 V34 H6 Z" ${S(3)}/><path d="M30 6 l4 4 M34 6 l-4 4" ${S(2.4)}/>`,
  energy_conversion: `${bolt(13, 20, 1.5)}${line(29, 9, 29, 31, 3)}${head(29, 7, 0)}${head(29, 33, 180)}`,
  pressor_beam: `${bot(9, 20, 0.7, 90)}<path d="M19 13 q4 7 0 14 M25 10 q5 10 0 20" ${S(2.6)}/>${line(28, 20, 34, 20, 3)}${head(36, 20, 90, 0.9)}`,
  rail_gun: `<path d="M3 14 H24 M3 26 H24" ${S(2.8)}/><rect x="27" y="6" width="5" height="28" rx="1" ${F} ${DIM}/>${line(8, 20, 38, 20, 3.4)}`,
  self_diagnostics: `<rect x="8" y="6" width="24" height="30" rx="3" ${S(3)}/><rect x="15" y="3" width="10" height="6" rx="2" ${F}/><path d="M13 22 L18 27 L27 16" ${S(3.4)}/>`,
  deflector_shield: shield(`<path d="M14 20 H26" ${S(2.6)} ${DIM}/>`),
  power_slide: `${arcArrow(true)}<path d="M9 33 l-3 -3 M9 27 l-3 -3" ${S(2)} ${DIM}/>${line(9, 10, 9, 4, 2.4)}${head(9, 4, 0, 0.6)}`,
  ramming_gear: `${bot(20, 27, 0.8)}<path d="M10 13 H30" ${S(4)}/><path d="M20 2 L22 7 L27 5 L24 9" ${S(2)}/><path d="M20 2 L18 7 L13 5 L16 9" ${S(2)}/>`,
  rear_laser: `${bot(20, 12, 0.8)}${beam(20, 22, 20, 38)}<circle cx="20" cy="22" r="2.5" ${F}/>`,
  tractor_beam: `${bot(9, 20, 0.7, 90)}<path d="M36 13 q-4 7 0 14 M30 10 q-5 10 0 20" ${S(2.6)}/>${line(26, 20, 20, 20, 3)}${head(18, 20, 270, 0.9)}`,
  spam_filter: `<path d="M5 7 H35 L23 21 V33 L17 36 V21 Z" ${S(3)}/>`,
  chaos_theory: `<path d="M20 20 C14 8 4 10 5 17 C6 24 14 24 20 20 C26 16 34 16 35 23 C36 30 26 32 20 20" ${S(3)}/><circle cx="20" cy="20" r="2.5" ${F}/>`,
  flash_drive: `<rect x="12" y="12" width="16" height="25" rx="3" ${F}/><rect x="14" y="3" width="12" height="9" ${S(2.6)}/><path d="M17 6.5 h2 M21 6.5 h2" ${S(2)}/>`,
  spiky: `<circle cx="20" cy="20" r="8" ${F}/><path d="M20 3 V10 M20 30 V37 M3 20 H10 M30 20 H37 M8 8 L13 13 M27 27 L32 32 M32 8 L27 13 M8 32 L13 27" ${S(3)}/>`,
  // ----------------------------------------------------- 2023: temporary upgrades
  abort_switch: `<rect x="6" y="13" width="28" height="14" rx="7" ${S(3)}/><circle cx="13" cy="20" r="4.5" ${F}/><path d="M26 5 l6 6 M32 5 l-6 6" ${S(2.4)}/>`,
  boink: `<path d="M12 36 L28 33 L12 29 L28 26 L12 22 L28 19" ${S(2.6)}/>${bot(20, 10, 0.6)}`,
  piercing_drill: `<path d="M4 14 H16 V26 H4 Z" ${F}/><path d="M16 16 L36 20 L16 24 Z" ${S(2.6)}/><path d="M21 17 L23 23 M27 18 L29 22" ${S(2)}/>`,
  displacing_blast: `<path d="M14 8 L17 14 L23 10 L21 17 L28 18 L21 22 L24 29 L17 25 L13 31 L12 23 L5 21 L11 17 Z" ${F}/>${line(25, 28, 33, 34, 2.6)}${head(35, 35.5, 130, 0.8)}`,
  zoop: `${bot(20, 21, 0.6)}${head(20, 4, 0, 0.8)}${head(20, 37, 180, 0.8)}${head(3, 21, 270, 0.8)}${head(37, 21, 90, 0.8)}`,
  memory_swap: `${card(4, 6, 13, 18, -8)}${card(22, 16, 13, 18, 8)}<path d="M22 8 C30 8 32 10 32 14" ${S(2.4)}/>${head(32, 15, 180, 0.6)}<path d="M18 33 C10 33 8 31 8 27" ${S(2.4)}/>${head(8, 26, 0, 0.6)}`,
  rewire: `<path d="M5 30 C12 30 10 10 20 10 C28 10 26 24 32 24" ${S(3)}/><rect x="30" y="19" width="6" height="10" rx="1.5" ${F}/><path d="M36 21 h3 M36 27 h3" ${S(2)}/>`,
  magnetic: `<path d="M10 6 V20 A10 10 0 0 0 30 20 V6" ${S(6)}/><path d="M7 6 H13 M27 6 H33" stroke="currentColor" stroke-width="6" ${DIM}/>`,
  switch: `${line(6, 14, 30, 14, 3)}${head(33, 14, 90)}${line(34, 26, 10, 26, 3)}${head(7, 26, 270)}`,
  recharge: `<rect x="6" y="11" width="26" height="18" rx="3" ${S(3)}/><rect x="32" y="16" width="3" height="8" rx="1" ${F}/><path d="M19 15 V25 M14 20 H24" ${S(3)}/>`,
  re_initialize: `<path d="M32 20 A12 12 0 1 1 27 10.5" ${S(3)}/>${head(28, 9, 60, 0.8)}${text(20, 25, "1", 13)}`,
  calibration_protocol: `<circle cx="20" cy="20" r="13" ${S(2.6)}/><circle cx="20" cy="20" r="4" ${F}/><path d="M20 3 V10 M20 30 V37 M3 20 H10 M30 20 H37" ${S(2.6)}/>`,
  overclocked: `<path d="M6 28 A15 15 0 1 1 34 28" ${S(3)}/><path d="M20 27 L30 12" ${S(3.4)}/><circle cx="20" cy="27" r="3" ${F}/><path d="M9 20 h3 M20 9 v3" ${S(2)} ${DIM}/>`,
  pressure_release: `<path d="M8 6 L20 13 L32 6 M8 15 L20 22 L32 15 M8 24 L20 31 L32 24" ${S(3)}/>`,
  all_aboard: `<rect x="3" y="20" width="34" height="12" rx="6" ${S(2.6)}/><circle cx="9" cy="26" r="2" ${F}/><circle cx="20" cy="26" r="2" ${F}/><circle cx="31" cy="26" r="2" ${F}/>${bot(18, 10, 0.55, 90)}${head(32, 10, 90, 0.8)}`,
  lucky_booster: `<circle cx="15" cy="14" r="6" ${F}/><circle cx="25" cy="14" r="6" ${F}/><circle cx="15" cy="24" r="6" ${F}/><circle cx="25" cy="24" r="6" ${F}/><path d="M20 24 C21 30 24 33 28 36" ${S(2.6)}/>`,
  // -------------------------------------------------------- classic: option cards
  ablative_coat: `<path d="M6 10 Q20 2 34 10 M6 18 Q20 10 34 18 M6 26 Q20 18 34 26" ${S(3.4)}/>${bot(20, 32, 0.5)}`,
  circuit_breaker: `<rect x="8" y="4" width="24" height="32" rx="3" ${S(3)}/><path d="M14 24 L20 16 L26 24" ${S(3)}/><path d="M20 12 V9 M20 31 V28" ${S(3)}/>`,
  conditional_program: `${card(10, 5, 20, 28)}${text(20, 26, "?", 17)}`,
  dual_processor: `<rect x="5" y="10" width="13" height="13" rx="2" ${F}/><rect x="22" y="17" width="13" height="13" rx="2" ${F}/><path d="M8 6 v4 M14 6 v4 M25 34 v-4 M31 34 v-4" ${S(2.2)}/>`,
  extra_memory: `${card(6, 8, 17, 24)}<path d="M30 11 V25 M23 18 H37" ${S(3.4)}/>`,
  fire_control: `<circle cx="20" cy="20" r="12" ${S(2.6)}/><path d="M20 4 V12 M20 28 V36 M4 20 H12 M28 20 H36" ${S(2.6)}/><rect x="16" y="19" width="8" height="7" rx="1.5" ${F}/><path d="M17.5 19 V17 A2.5 2.5 0 0 1 22.5 17 V19" ${S(1.8)}/>`,
  flywheel: `<circle cx="20" cy="20" r="14" ${S(3.4)}/><circle cx="20" cy="20" r="3.5" ${F}/><path d="M20 6 V16.5 M20 23.5 V34 M6 20 H16.5 M23.5 20 H34" ${S(2.4)}/>`,
  fourth_gear: `<path d="M8 8 V32 M20 8 V32 M32 8 V20 H8" ${S(2.8)}/><circle cx="32" cy="32" r="5" ${F}/>${text(32, 12, "4", 11)}`,
  gyroscopic_stabilizer: `<circle cx="20" cy="20" r="4" ${F}/><ellipse cx="20" cy="20" rx="15" ry="6" ${S(2.6)}/><ellipse cx="20" cy="20" rx="6" ry="15" ${S(2.6)}/>`,
  high_power_laser: `<rect x="3" y="12" width="10" height="16" rx="3" ${F}/>${line(13, 20, 37, 20, 4.5)}<rect x="21" y="8" width="5" height="24" rx="1" ${F} ${DIM}/>`,
  mechanical_arm: `<path d="M6 34 L14 20 L28 14" ${S(4)}/><circle cx="14" cy="20" r="3" ${F}/><path d="M28 14 L34 8 M28 14 L35 17" ${S(3)}/>`,
  power_down_shield: shield(`<path d="M20 11 V19" ${S(2.8)}/><path d="M15 15 A7 7 0 1 0 25 15" ${S(2.6)}/>`),
  radio_control: `<path d="M20 36 V16" ${S(3)}/><circle cx="20" cy="14" r="3" ${F}/><path d="M13 8 A9 9 0 0 0 13 20 M27 8 A9 9 0 0 1 27 20 M8 4 A15 15 0 0 0 8 24 M32 4 A15 15 0 0 1 32 24" ${S(2.4)}/>`,
  recompile: `${card(12, 10, 16, 21)}<path d="M6 16 A15 15 0 0 1 30 6" ${S(2.6)}/>${head(31, 6, 100, 0.7)}<path d="M34 24 A15 15 0 0 1 10 34" ${S(2.6)}/>${head(9, 34, 280, 0.7)}`,
  reverse_gear: `<path d="M8 8 V32 M20 8 V32 M32 8 V20 H8" ${S(2.8)}/><circle cx="32" cy="32" r="5" ${F}/>${text(32, 12, "R", 10)}`,
  superior_archive: `<rect x="6" y="14" width="28" height="20" rx="2" ${S(3)}/><path d="M4 14 H36" ${S(3)}/><path d="M20 3 L22.5 8 L28 8.5 L24 12 L25 17 L20 14.5 L15 17 L16 12 L12 8.5 L17.5 8 Z" ${F}/>`,
};
// The classic cards that are the 2023 ones under another name look the same.
ICONS.double_barreled_laser = ICONS.double_barrel_laser;
ICONS.rear_firing_laser = ICONS.rear_laser;

/** The picture of an upgrade or option card (an SVG body for a 40 x 40 box), or null. */
export function upgradeIcon(id) {
  return Object.prototype.hasOwnProperty.call(ICONS, id) ? ICONS[id] : null;
}
