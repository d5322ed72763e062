// Fair shuffles: every game's seed is fixed before it starts and only its commitment (the
// SHA-256 of the seed's 32 big-endian bytes) is shown while it runs; at the end the seed is
// revealed, and the page checks it against the commitment it was shown while the game ran
// (kept across reloads), not against what the server says at the end.

import { t } from "./i18n.js";
import { h, linked, store } from "./util.js";

// The commitments this browser was shown by games that had not ended: [[game id, commitment]],
// the newest first. A server that later shows another commitment (or reveals a seed for
// another one) is caught at the end, even after a reload.
const SEEN_KEY = "commitments";
const SEEN_KEEP = 100;

function seenList() {
  const seen = store.get(SEEN_KEY, []);
  return Array.isArray(seen) ? seen.filter((e) => Array.isArray(e) && e.length === 2) : [];
}

/** The commitment this browser was shown for a game before it ended, or null. */
export function seenCommitment(gameId) {
  const entry = seenList().find((e) => e[0] === gameId);
  return entry ? String(entry[1]) : null;
}

/**
 * Remember the commitment a game shows while it has not ended. The first one stays: returns it
 * (the one remembered before, or this one).
 */
export function rememberCommitment(gameId, commitment) {
  const kept = seenCommitment(gameId);
  if (kept || !commitment) return kept;
  store.set(SEEN_KEY, [[gameId, commitment], ...seenList()].slice(0, SEEN_KEEP));
  return commitment;
}

/** The seed ("0x" and hex, or decimal text) as its 32 big-endian bytes, or null. */
export function seedBytes(seed) {
  let value;
  try {
    value = BigInt(String(seed).trim());
  } catch {
    return null;
  }
  if (value < 0n || value >= 1n << 256n) return null;
  const bytes = new Uint8Array(32);
  for (let i = 31; i >= 0; i--) {
    bytes[i] = Number(value & 0xffn);
    value >>= 8n;
  }
  return bytes;
}

const hex = (bytes) => [...bytes].map((b) => b.toString(16).padStart(2, "0")).join("");

/** SHA-256 as lowercase hex: the browser's own where it offers it, else sha256Js. */
export async function sha256Hex(bytes) {
  const subtle = globalThis.crypto && globalThis.crypto.subtle;
  if (subtle) {
    try {
      return hex(new Uint8Array(await subtle.digest("SHA-256", bytes)));
    } catch {
      /* fall through */
    }
  }
  return sha256Js(bytes);
}

const K = new Uint32Array([
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
  0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
  0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
  0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
  0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
  0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
  0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
  0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
]);

/**
 * SHA-256 in plain JavaScript (FIPS 180-4). Browsers offer crypto.subtle only on https pages
 * and on localhost; a game served over plain http on a home network still gets its check.
 */
export function sha256Js(bytes) {
  const length = bytes.length;
  const blocks = Math.ceil((length + 9) / 64);
  const data = new Uint8Array(blocks * 64);
  data.set(bytes);
  data[length] = 0x80;
  const view = new DataView(data.buffer);
  view.setUint32(data.length - 8, Math.floor(length / 0x20000000));
  view.setUint32(data.length - 4, (length * 8) >>> 0);
  const H = new Uint32Array([
    0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
  ]);
  const W = new Uint32Array(64);
  const rotr = (x, n) => (x >>> n) | (x << (32 - n));
  for (let b = 0; b < blocks; b++) {
    for (let t = 0; t < 16; t++) W[t] = view.getUint32(b * 64 + t * 4);
    for (let t = 16; t < 64; t++) {
      const s0 = rotr(W[t - 15], 7) ^ rotr(W[t - 15], 18) ^ (W[t - 15] >>> 3);
      const s1 = rotr(W[t - 2], 17) ^ rotr(W[t - 2], 19) ^ (W[t - 2] >>> 10);
      W[t] = (W[t - 16] + s0 + W[t - 7] + s1) >>> 0;
    }
    let [a, b2, c, d, e, f, g, hh] = H;
    for (let t = 0; t < 64; t++) {
      const S1 = rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25);
      const ch = (e & f) ^ (~e & g);
      const t1 = (hh + S1 + ch + K[t] + W[t]) >>> 0;
      const S0 = rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22);
      const maj = (a & b2) ^ (a & c) ^ (b2 & c);
      const t2 = (S0 + maj) >>> 0;
      hh = g;
      g = f;
      f = e;
      e = (d + t1) >>> 0;
      d = c;
      c = b2;
      b2 = a;
      a = (t1 + t2) >>> 0;
    }
    H[0] += a; H[1] += b2; H[2] += c; H[3] += d; H[4] += e; H[5] += f; H[6] += g; H[7] += hh;
  }
  return [...H].map((x) => x.toString(16).padStart(8, "0")).join("");
}

/** Whether the revealed seed is the one the commitment was made for. */
export async function seedMatches(seed, commitment) {
  const bytes = seedBytes(seed);
  if (!bytes || typeof commitment !== "string") return false;
  return (await sha256Hex(bytes)) === commitment.trim().toLowerCase();
}

/** A long hex value, short ("3f9a1c2e…08c21e"); the whole value on hover, and on a tap. */
export function longValue(value, testid) {
  const text = String(value);
  const short = text.length > 20 ? `${text.slice(0, text.startsWith("0x") ? 10 : 8)}…${text.slice(-6)}` : text;
  const el = h("button.long-value", {
    type: "button", title: text, "aria-label": text, "aria-expanded": "false",
    "data-testid": testid, "data-value": text,
    onclick: () => {
      const open = el.getAttribute("aria-expanded") !== "true";
      el.setAttribute("aria-expanded", String(open));
      el.textContent = open ? text : short;
    },
  }, short);
  return el;
}

/** A seed the way people read it: small numbers in decimal, big ones as hex. */
export function seedLabel(seed) {
  try {
    const value = BigInt(String(seed).trim());
    if (value < 1n << 64n) return value.toString();
  } catch {
    /* keep the text */
  }
  return String(seed);
}

/** The commitment, shown quietly with one plain sentence (waiting room, game info). */
export function commitmentNote(commitment) {
  if (!commitment) return null;
  return h("div.fair-note", { "data-testid": "fairness-info" },
    h("span.fair-title", null, t("fair.title"), " "), longValue(commitment, "seed-commitment"),
    h("p.hint", null, t("fair.sentence")));
}

/** The clear warning every player gets when the host chose the seed. */
export function chosenSeedWarning(seed) {
  const label = seedLabel(seed);
  const shown = label.length > 20 ? longValue(label, "chosen-seed") : h("strong", { "data-testid": "chosen-seed" }, label);
  return h("div.seed-warning", { role: "note", "data-testid": "seed-warning" },
    ...linked(t("fair.host_chose"), { seed: () => shown }).map((part) => (typeof part === "string" ? h("strong", null, part) : part)),
    " ", t("fair.whoever_knows"));
}

/**
 * The end of a game: the revealed seed, checked here against the commitment. info: {seed,
 * commitment (the one this page was shown while the game ran), late (this browser never saw
 * the game before its end: the commitment is the server's word at the end), chosen, record
 * (the record's file name)}. Returns the element at once; the tick (or the warning) follows
 * when the check is done.
 */
export function revealBox(info) {
  const { seed, commitment, late } = info;
  const shownCommitment = () => longValue(commitment || "–", "commitment-shown");
  // With a commitment seen during the game, the command checks the record against it too.
  const command = `roborally verify ${info.record || "FILE.rec"}` + (late || !commitment ? "" : ` --commitment ${commitment}`);
  const verdict = h("p.fair-verdict", { "data-testid": "fairness-verdict" }, t("fair.checking"));
  const box = h("div.fair-result", { "data-testid": "fairness", "data-verified": "pending" },
    h("div.fair-line", null, h("span.fair-title", null, t("fair.seed_was"), " "), longValue(seed, "revealed-seed")),
    verdict,
    h("p.hint", null, info.chosen ? t("fair.host_chose_shown") + " " : "",
      ...linked(t("fair.check_record"), { command: () => h("code", { "data-testid": "verify-command" }, command) })));
  seedMatches(seed, commitment).then((ok) => {
    box.dataset.verified = ok ? "true" : "false";
    box.classList.add(ok ? "ok" : "bad");
    const matches = late ? linked(t("fair.matches_late"), { commitment: shownCommitment }) : [t("fair.matches")];
    verdict.replaceChildren(ok
      ? h("span", null, h("span.tick", { "aria-hidden": "true" }, "✓ "), ...matches)
      : h("span", null, h("span.cross", { "aria-hidden": "true" }, "✗ "),
        ...linked(t("fair.mismatch"), { commitment: shownCommitment })));
  });
  return box;
}
