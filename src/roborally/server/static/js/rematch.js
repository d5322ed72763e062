// The invite links of a rematch. A rematch's seat tokens are made from the finished game's
// (server/social.py rematch_token: HMAC-SHA256 of "roborally rematch GAME" keyed with the old
// token, its first 18 bytes in URL-safe base64), so only a seat's holder can make its link. The
// creator of the finished game holds every seat's old token (the create response, kept as
// "created.GAME"): their page makes the rematch's links and keeps them as "invites.GAME" for
// the new waiting room, as a new game's waiting room shows its creator the links.

import { store } from "./util.js";

/** SHA-256 of ``bytes`` (a Uint8Array), in plain JavaScript: crypto.subtle is missing on a
 * page served over plain HTTP from another machine (a server on the local network). */
function sha256(bytes) {
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
  const hash = new Uint32Array([
    0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
  ]);
  // The message, a 1 bit, zeros and its length in bits: a whole number of 64-byte blocks.
  const length = Math.ceil((bytes.length + 9) / 64) * 64;
  const data = new Uint8Array(length);
  data.set(bytes);
  data[bytes.length] = 0x80;
  const view = new DataView(data.buffer);
  view.setUint32(length - 4, bytes.length * 8);
  view.setUint32(length - 8, Math.floor(bytes.length / 0x20000000));
  const w = new Uint32Array(64);
  const rot = (x, n) => (x >>> n) | (x << (32 - n));
  for (let block = 0; block < length; block += 64) {
    for (let i = 0; i < 16; i++) w[i] = view.getUint32(block + i * 4);
    for (let i = 16; i < 64; i++) {
      const s0 = rot(w[i - 15], 7) ^ rot(w[i - 15], 18) ^ (w[i - 15] >>> 3);
      const s1 = rot(w[i - 2], 17) ^ rot(w[i - 2], 19) ^ (w[i - 2] >>> 10);
      w[i] = w[i - 16] + s0 + w[i - 7] + s1;
    }
    let [a, b, c, d, e, f, g, h] = hash;
    for (let i = 0; i < 64; i++) {
      const t1 = h + (rot(e, 6) ^ rot(e, 11) ^ rot(e, 25)) + ((e & f) ^ (~e & g)) + K[i] + w[i];
      const t2 = (rot(a, 2) ^ rot(a, 13) ^ rot(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
      [h, g, f, e, d, c, b, a] = [g, f, e, (d + t1) >>> 0, c, b, a, (t1 + t2) >>> 0];
    }
    [a, b, c, d, e, f, g, h].forEach((x, i) => (hash[i] = (hash[i] + x) >>> 0));
  }
  const out = new Uint8Array(32);
  const outView = new DataView(out.buffer);
  hash.forEach((x, i) => outView.setUint32(i * 4, x));
  return out;
}

/** HMAC-SHA256 of ``message`` keyed with ``key`` (both Uint8Arrays). */
export function hmacSha256(key, message) {
  let k = key.length > 64 ? sha256(key) : key;
  const padded = new Uint8Array(64);
  padded.set(k);
  const inner = new Uint8Array(64 + message.length);
  const outer = new Uint8Array(64 + 32);
  for (let i = 0; i < 64; i++) {
    inner[i] = padded[i] ^ 0x36;
    outer[i] = padded[i] ^ 0x5c;
  }
  inner.set(message, 64);
  outer.set(sha256(inner), 64);
  return sha256(outer);
}

/** The token of a seat in the rematch ``gameId``, made from its ``token`` in the finished game. */
export function rematchToken(token, gameId) {
  const encode = (text) => new TextEncoder().encode(text);
  const digest = hmacSha256(encode(token), encode("roborally rematch " + gameId)).slice(0, 18);
  return btoa(String.fromCharCode(...digest)).replace(/\+/g, "-").replace(/\//g, "_");
}

/** Keep the rematch's invite links ("invites.NEW") when this browser created the finished game
 * ``oldId`` and it has other people's seats to invite. */
export function carryInvites(oldId, newId) {
  const created = store.get("created." + oldId, null);
  if (!created || !Array.isArray(created.seats)) return;
  const humans = created.seats.filter((seat) => seat.kind === "human" && seat.token);
  if (humans.length < 2) return;
  const seats = humans.map((seat) => ({ seat: seat.seat, kind: "human", name: seat.name, token: rematchToken(seat.token, newId) }));
  store.set("invites." + newId, { game_id: newId, seats });
}
