// The invite links of a rematch. A rematch's seat tokens are made from the finished game's
// (server/social.py rematch_token: HMAC-SHA256 of "roborally rematch GAME" keyed with the old
// token, its first 18 bytes in URL-safe base64), so only a seat's holder can make its link. The
// creator of the finished game holds every seat's old token (the create response, kept as
// "created.GAME"): their page makes the rematch's links and keeps them as "invites.GAME" for
// the new waiting room, as a new game's waiting room shows its creator the links.

import { sha256Js } from "./fair.js";
import { store } from "./util.js";

/** SHA-256 of ``bytes`` as bytes (fair.js's plain JavaScript one: crypto.subtle is missing on
 * a page served over plain HTTP from another machine, a server on the local network). */
const sha256 = (bytes) => Uint8Array.from(sha256Js(bytes).match(/../g), (pair) => parseInt(pair, 16));

/** HMAC-SHA256 of ``message`` keyed with ``key`` (both Uint8Arrays). */
export function hmacSha256(key, message) {
  const k = key.length > 64 ? sha256(key) : key;
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
