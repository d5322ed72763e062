// The game log in words: one sentence per event (or none for bookkeeping events).

import { cardTitle, isCard } from "./cards.js";
import { DIR_WORDS, DIRS } from "./util.js";

function turnWord(from, to) {
  const d = (DIRS.indexOf(to) - DIRS.indexOf(from) + 4) % 4;
  return d === 1 ? "turns right" : d === 3 ? "turns left" : d === 2 ? "turns around" : "turns";
}

function direction(pos, to) {
  if (!pos || !to) return "";
  const dx = to[0] - pos[0], dy = to[1] - pos[1];
  if (Math.abs(dx) >= Math.abs(dy)) return dx > 0 ? "east" : "west";
  return dy > 0 ? "south" : "north";
}

function cause(text) {
  return String(text || "").split(";")[0].trim();
}

const UPGRADE_VERBS = {
  installed: "installs", used: "uses", discarded: "loses", received: "receives",
  triggered: "triggers", drawn: "draws", uninstalled: "removes",
  "install undone": "takes back the install of",
};

/** A name of cards ("move1 move2": a register of two cards) in words. */
const cardsTitle = (names) => String(names || "").split(" ").filter(Boolean).map(cardTitle).join(" and ");

/**
 * card_replaced: a card that leaves a register or a hand (SPAM played, Again in register 1, an
 * upgrade that swaps a card, an option card lost in the classic game).
 */
function replaced(e, who, name) {
  const c = String(e.cause || "");
  const old = cardsTitle(e.card);
  if (!e.card) {
    if (c === "only rotations") return { text: `${who} has only turn cards in hand and is dealt new ones`, kind: "dim" };
    if (c === "radio control ended") return { text: `${who} is free of Radio Control: its controller is destroyed`, kind: "dim" };
    return { text: `${who}'s cards are replaced (${c})`, kind: "dim" };
  }
  if (c === "removed from the game") return { text: `${who} takes ${old} out of the game`, kind: "" };
  if (c === "scrambler") return { text: `A Scrambler swaps ${who}'s ${old} for the top card of the deck`, kind: "" };
  if (c === "empty deck") return { text: `${who}'s ${old} is discarded; no card is left to replace it`, kind: "" };
  const [how, to] = c.includes(": ") ? c.split(": ", 2) : ["", c];
  const next = isCard(to) ? cardTitle(to) : "";
  if (!next) return { text: `${who} loses ${old}${c ? ` (${c})` : ""}`, kind: "bad" };
  const top = to === e.card ? `another ${next}` : next;
  if (e.card === "spam") return { text: `${who} plays SPAM: it goes to the damage pile, and the top card of the deck, ${top}, takes its place`, kind: "" };
  if (e.card === "again") return { text: `${who} cannot use Again in register 1: the top card of the deck, ${top}, takes its place`, kind: "" };
  if (how) return { text: `${cap(how)}: ${who}'s ${old} is swapped for ${top}`, kind: "" };
  return { text: `${who}'s ${old} is swapped for the top card of the deck, ${top}`, kind: "" };
}

const cap = (text) => text.replace(/^./, (ch) => ch.toUpperCase());

const A = (word) => (/^[aeiou]/i.test(word) ? "an " : "a ") + word;

/**
 * The sentence for an event, or null. name(seat) gives a player's name.
 * Returns {text, kind} where kind styles the line: "head", "big", "bad", "good", "".
 */
export function describe(e, name, classic = false) {
  const who = e.seat !== undefined && e.seat !== null ? name(e.seat) : "";
  const card = e.card ? cardTitle(e.card) : "";
  switch (e.kind) {
    case "game_started":
      return { text: "The race begins!", kind: "head" };
    case "round_started":
      return { text: `Round ${e.round}`, kind: "round" };
    case "phase_started":
      return e.cause ? { text: `${cause(e.cause)} phase`, kind: "dim" } : null;
    case "placed":
      return { text: `${who} starts on space ${e.amount}, facing ${DIR_WORDS[e.facing] || e.facing}`, kind: "" };
    case "cards_drawn":
      return null;
    case "deck_shuffled":
      if (!who) return { text: `The ${cause(e.cause) === "damage" ? "damage cards are" : "discarded cards are"} shuffled into a new deck`, kind: "dim" };
      return { text: `${who} shuffles the discard pile into a new deck`, kind: "dim" };
    case "programmed":
      return { text: `${who} has programmed`, kind: "dim" };
    case "shut_down":
      return { text: `${who} shuts down for the round`, kind: "bad" };
    case "register_started":
      return { text: `Register ${e.register}`, kind: "register" };
    case "upgrade": {
      const what = cause(e.cause);
      const verb = UPGRADE_VERBS[what] || what;
      const other = e.other !== undefined && e.other !== null ? ` (${name(e.other)})` : "";
      return { text: `${who} ${verb} ${card}${other}`, kind: "good" };
    }
    case "card_revealed": {
      const c = cause(e.cause);
      if (c === "haywire") return { text: `${who}'s Haywire plays ${card}`, kind: "dim" };
      if (c === "spam filter") return { text: `Spam Filter shows ${who} the top card of the deck: ${card}`, kind: "dim" };
      if (c === "lucky booster") return { text: `Lucky Booster turns up ${card} for ${who}`, kind: "dim" };
      if (c) return { text: `${who} reveals ${card} (${cardTitle(c)})`, kind: "dim" };
      return { text: `${who} reveals ${card}`, kind: "card" };
    }
    case "card_replaced":
      return replaced(e, who, name);
    case "card_resolved":
      return null;
    case "moved":
      return { text: `${who} moves ${direction(e.pos, e.to)}`, kind: "", merge: "move" };
    case "blocked":
      return { text: `${who} is blocked by ${A(cause(e.cause) || "wall")}`, kind: "" };
    case "pushed": {
      const by = e.other !== undefined && e.other !== null ? name(e.other) : cause(e.cause) ? A(cause(e.cause)) : "a push";
      return { text: `${who} is pushed ${direction(e.pos, e.to)} by ${by}`, kind: "" };
    }
    case "conveyed":
      return { text: `${A(cause(e.cause) || "belt")} carries ${who} ${direction(e.pos, e.to)}`, kind: "" };
    case "rotated": {
      const how = turnWord(e.facing, e.to_facing);
      const c = cause(e.cause);
      return { text: `${who} ${how}${c && c !== "card" ? ` (${c})` : ""}`, kind: "" };
    }
    case "element_step":
    case "shot":
      return null;
    case "damaged": {
      const what = e.hidden ? "a face-down damage card" : card || "damage";
      const c = cause(e.cause);
      return { text: `${who} takes ${what}${c ? ` (${c})` : ""}`, kind: "bad" };
    }
    case "damage_prevented": {
      const c = cause(e.cause);
      if (classic && c.startsWith("repaired")) return { text: `${who} is repaired (${c.slice(12) || "1 damage"})`, kind: "good" };
      return { text: `${who} avoids damage${classic && c ? ` (${c})` : ""}`, kind: "good" };
    }
    case "fell":
      return { text: `${who} falls ${e.cause === "pit" ? "into a pit" : "off the board"}`, kind: "bad" };
    case "rebooted":
      return { text: `${who} reboots`, kind: "bad" };
    case "destroyed": {
      const lives = e.amount ?? null;
      const c = cause(e.cause);
      return { text: `${who} is destroyed${c ? ` (${c})` : ""}${lives !== null ? `: ${lives} ${lives === 1 ? "life" : "lives"} left` : ""}`, kind: "bad" };
    }
    case "reentered":
      return { text: `${who} is back on the board, facing ${DIR_WORDS[e.to_facing || e.facing] || ""}`, kind: "" };
    case "displaced":
      return { text: `${who} is pushed off the reboot token, the way its arrow points`, kind: "" };
    case "energy_gained":
      return { text: `${who} gains ${e.amount || 1} energy${e.cause ? ` (${cause(e.cause)})` : ""}`, kind: "good" };
    case "checkpoint_reached":
      return { text: `${who} reaches ${classic ? "flag" : "checkpoint"} ${e.amount}!`, kind: "big" };
    case "archived":
      return { text: classic ? `${who} moves its archive marker here` : `${who} saves a new reboot point`, kind: "dim" };
    case "priority_passed":
      return { text: `${who} takes the priority token`, kind: "dim" };
    case "round_ended":
      return null;
    case "game_won":
      return { text: `${who} wins the race!`, kind: "big" };
    case "game_ended":
      return { text: `Game over${e.cause ? ` (${String(e.cause).replace(/_/g, " ")})` : ""}`, kind: "head" };
    default: {
      const bits = [who, String(e.kind || "event").replace(/_/g, " "), card].filter(Boolean);
      return { text: bits.join(" "), kind: "dim" };
    }
  }
}
