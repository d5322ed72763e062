// The game log in words: one sentence per event (or none for bookkeeping events), in the page's
// language. The sentences are the "log.*" texts of the translation files; a robot is always
// named in the nominative ("Red: ..." where a language would decline the name), and causes
// that name a card (an upgrade, an option card) show its translated title. A classic game is
// told in the classic rulebooks' words (power down, flags, damage tokens, the archive marker,
// lives): "log.power_down.*" and "KEY.classic" beside the 2023 "KEY" where only the words differ.
// src/roborally/content/eventwords.py makes the same sentences for the command line.

import { cardTitle, isCard } from "./cards.js";
import { hasText, t } from "./i18n.js";
import { DIRS } from "./util.js";

function turnKey(from, to) {
  const d = (DIRS.indexOf(to) - DIRS.indexOf(from) + 4) % 4;
  return d === 1 ? "log.turns.right" : d === 3 ? "log.turns.left" : d === 2 ? "log.turns.around" : "log.turns.any";
}

/** The compass direction of a step from ``pos`` to ``to`` ("N", "E", "S", "W"), or "". */
function stepDir(pos, to) {
  if (!pos || !to) return "";
  const dx = to[0] - pos[0], dy = to[1] - pos[1];
  if (Math.abs(dx) >= Math.abs(dy)) return dx > 0 ? "E" : "W";
  return dy > 0 ? "S" : "N";
}

/** "north" / "на північ": where a robot goes. */
const toward = (d) => (d ? t("term.dir.to." + d) : "");
/** "facing north" / "напрямок — північ". */
const facing = (d) => (d && DIRS.includes(d) ? t("term.facing." + d) : String(d || ""));

function firstCause(text) {
  return String(text || "").split(";")[0].trim();
}

/** A key's last part made of a free text ("repair site 2" -> "repair_site_2"). */
const slug = (text) => String(text).trim().toLowerCase().replace(/[^a-z0-9]+/g, "_").replace(/^_|_$/g, "");

/**
 * A cause in words: a card's title when it names a card ("spam filter" -> Spam Filter), the
 * "log.cause.*" text of a known cause, else the text itself. "a, b" lists are done item by item.
 */
export function causeWord(text) {
  const c = String(text || "").trim();
  if (!c) return "";
  if (c.includes(", ")) return c.split(", ").map(causeWord).join(", ");
  if (isCard(c)) return cardTitle(c);
  const id = slug(c.replace(/ \(.*$/, ""));
  if (id && isCard(id)) return cardTitle(id);
  if (id && hasText("log.cause." + id)) return t("log.cause." + id);
  return c;
}

/** "text (cause)" in the language's way, or the text alone without a cause. */
const withCause = (text, c) => (c ? t("log.with_cause", { text, cause: causeWord(c) }) : text);

/** A name of cards ("move1 move2": a register of two cards) in words. */
const cardsTitle = (names) => String(names || "").split(" ").filter(Boolean).map(cardTitle).join(t("log.card_and"));

const cap = (text) => text.replace(/^./, (ch) => ch.toUpperCase());

/**
 * card_replaced: a card that leaves a register or a hand (SPAM played, Again in register 1, an
 * upgrade that swaps a card, an option card lost in the classic game).
 */
function replaced(e, who) {
  const c = String(e.cause || "");
  const card = cardsTitle(e.card);
  if (!e.card) {
    if (c === "only rotations") return { text: t("log.replaced.only_rotations", { who }), kind: "dim" };
    if (c === "radio control ended") return { text: t("log.replaced.radio_control_ended", { who }), kind: "dim" };
    return { text: t("log.replaced.cards", { who, cause: causeWord(c) }), kind: "dim" };
  }
  if (c === "removed from the game") return { text: t("log.replaced.removed", { who, card }), kind: "" };
  if (c === "scrambler") return { text: t("log.replaced.scrambler", { who, card }), kind: "" };
  if (c === "empty deck") return { text: t("log.replaced.empty_deck", { who, card }), kind: "" };
  const [how, to] = c.includes(": ") ? c.split(": ", 2) : ["", c];
  const next = isCard(to) ? cardTitle(to) : "";
  if (!next) return { text: withCause(t("log.replaced.lost", { who, card }), c), kind: "bad" };
  const top = to === e.card ? t("log.replaced.another", { card: next }) : next;
  if (e.card === "spam") return { text: t("log.replaced.spam", { who, card, top }), kind: "" };
  if (e.card === "again") return { text: t("log.replaced.again", { who, card, top }), kind: "" };
  if (how) return { text: t("log.replaced.how", { how: cap(causeWord(how)), who, card, top }), kind: "" };
  return { text: t("log.replaced.swapped", { who, card, top }), kind: "" };
}

/** Causes of a classic power down that the sentence says itself (any other is named), as slugs. */
const PLAIN_POWER_DOWN = ["announced", "powered_down", "shut_down"];

/**
 * shut_down in a classic game (7.2-7.5; 1994: 7.7): a power down announced for the next round
 * (no amount), begun now with the damage removed (amount: how much), or kept for the next round.
 */
function powerDown(e, who, c) {
  if (slug(c) === "stays_powered_down") return { text: t("log.power_down.stays", { who }), kind: "dim" };
  const text = t(e.amount === undefined || e.amount === null ? "log.power_down.announced" : "log.power_down.now", { who });
  return { text: withCause(text, PLAIN_POWER_DOWN.includes(slug(c)) ? "" : c), kind: "bad" };
}

/** Why the game ended, as a cause: in the classic editions the race is to flags
 * ("log.cause.KEY.classic" where the words differ). */
function endWord(end, classic = false) {
  const key = "log.cause." + slug(end) + ".classic";
  return classic && hasText(key) ? t(key) : causeWord(end);
}

const UPGRADE_VERBS = {
  installed: "installed", used: "used", discarded: "discarded", received: "received",
  triggered: "triggered", drawn: "drawn", uninstalled: "uninstalled", "install undone": "install_undone",
};

/**
 * The sentence for an event, or null. name(seat) gives a player's name.
 * Returns {text, kind, merge?, more?} where kind styles the line: "head", "big", "bad", "good",
 * ""; lines with the same ``merge`` and text join into one, ``more(n)`` saying it n times.
 */
export function describe(e, name, classic = false) {
  const who = e.seat !== undefined && e.seat !== null ? name(e.seat) : "";
  const card = e.card ? cardTitle(e.card) : "";
  const c = firstCause(e.cause);
  switch (e.kind) {
    case "game_started":
      return { text: t("log.game_started"), kind: "head" };
    case "round_started":
      return { text: t("log.round", { round: e.round }), kind: "round" };
    case "phase_started":
      return e.cause ? { text: t("log.phase", { phase: causeWord(c) }), kind: "dim" } : null;
    case "placed":
      return { text: t("log.placed", { who, space: e.amount, facing: facing(e.facing) }), kind: "" };
    case "cards_drawn":
      return null;
    case "deck_shuffled":
      if (!who) return { text: t(c === "damage" ? "log.shuffled.damage" : "log.shuffled.discard"), kind: "dim" };
      return { text: t("log.shuffled.own", { who }), kind: "dim" };
    case "programmed":
      return { text: t("log.programmed", { who }), kind: "dim" };
    case "shut_down":
      return classic ? powerDown(e, who, c) : { text: t("log.shut_down", { who }), kind: "bad" };
    case "register_started":
      return { text: t("log.register", { register: e.register }), kind: "register" };
    case "upgrade": {
      const verb = UPGRADE_VERBS[c];
      const text = verb ? t("log.upgrade." + verb, { who, card }) : t("log.upgrade.verb", { who, what: c, card });
      const other = e.other !== undefined && e.other !== null ? name(e.other) : "";
      return { text: other ? t("log.with_cause", { text, cause: other }) : text, kind: "good" };
    }
    case "card_revealed": {
      if (c === "haywire") return { text: t("log.revealed.haywire", { who, card }), kind: "dim" };
      if (c === "spam filter") return { text: t("log.revealed.spam_filter", { who, card }), kind: "dim" };
      if (c === "lucky booster") return { text: t("log.revealed.lucky_booster", { who, card }), kind: "dim" };
      // classic 6.3: a register locked while empty gets the top card of the deck, face up
      if (slug(c) === "locked_register_filled") return { text: t("log.revealed.locked_register", { who, card, register: e.amount }), kind: "dim" };
      if (c) return { text: withCause(t("log.revealed", { who, card }), c), kind: "dim" };
      return { text: t("log.revealed", { who, card }), kind: "card" };
    }
    case "card_replaced":
      return replaced(e, who);
    case "card_resolved":
      return null;
    case "moved": {
      const dir = toward(stepDir(e.pos, e.to));
      return { text: t("log.moved", { who, dir }), kind: "", merge: "move", more: (count) => t("log.moved_n", { who, dir, count }) };
    }
    case "blocked": {
      const what = c || "wall";
      const key = hasText("log.blocked." + slug(what)) ? "log.blocked." + slug(what) : "log.blocked.by";
      return { text: t(key, { who, cause: causeWord(what) }), kind: "" };
    }
    case "pushed": {
      const dir = toward(stepDir(e.pos, e.to));
      if (e.other !== undefined && e.other !== null) return { text: t("log.pushed.robot", { who, dir, other: name(e.other) }), kind: "" };
      if (c && hasText("log.pushed." + slug(c))) return { text: t("log.pushed." + slug(c), { who, dir }), kind: "" };
      return { text: withCause(t("log.pushed", { who, dir }), c), kind: "" };
    }
    case "conveyed": {
      const dir = toward(stepDir(e.pos, e.to));
      const key = hasText("log.conveyed." + slug(c || "belt")) ? "log.conveyed." + slug(c || "belt") : "log.conveyed.belt";
      return { text: t(key, { who, dir }), kind: "" };
    }
    case "rotated":
      return { text: withCause(t(turnKey(e.facing, e.to_facing), { who }), c === "card" ? "" : c), kind: "" };
    case "element_step":
    case "shot":
      return null;
    case "damaged": {
      // classic damage is tokens, counted (6.2)
      const text = classic && !card ? t("log.damaged.classic", { who, count: e.amount || 1 })
        : e.hidden ? t("log.damaged.hidden", { who }) : card ? t("log.damaged.card", { who, card }) : t("log.damaged", { who });
      return { text: withCause(text, c), kind: "bad" };
    }
    case "damage_prevented": {
      if (classic && c.startsWith("repaired")) {
        const what = c.slice(12);
        return { text: t("log.repaired", { who, what: what ? causeWord(what) : t("log.one_damage") }), kind: "good" };
      }
      return { text: withCause(t("log.damage_avoided", { who }), classic ? c : ""), kind: "good" };
    }
    case "fell":
      return { text: t(e.cause === "pit" ? "log.fell.pit" : "log.fell.edge", { who }), kind: "bad" };
    case "rebooted":
      return { text: t("log.rebooted", { who }), kind: "bad" };
    case "destroyed": {
      const text = withCause(t("log.destroyed", { who }), c);
      const lives = e.amount ?? null;
      return { text: lives !== null ? t("log.lives_left", { text, count: lives }) : text, kind: "bad" };
    }
    case "reentered": {
      const d = e.to_facing || e.facing;
      return { text: d ? t("log.reentered", { who, facing: facing(d) }) : t("log.reentered.plain", { who }), kind: "" };
    }
    case "displaced":
      return { text: t("log.displaced", { who }), kind: "" };
    case "energy_gained":
      return { text: withCause(t("log.energy_gained", { who, count: e.amount || 1 }), c), kind: "good" };
    case "checkpoint_reached":
      return { text: t(classic ? "log.flag_reached" : "log.checkpoint_reached", { who, number: e.amount }), kind: "big" };
    case "archived":
      return { text: t(classic ? "log.archived.classic" : "log.archived", { who }), kind: "dim" };
    case "priority_passed":
      return { text: t("log.priority_passed", { who }), kind: "dim" };
    case "round_ended":
      return null;
    case "game_won":
      // classic: a finisher's place (play for places), or a share of the win (shared ties)
      if (c === "place") return { text: t("log.game_won.place", { who, place: e.amount }), kind: "big" };
      if (c === "shared") return { text: t("log.game_won.shared", { who }), kind: "big" };
      return { text: t("log.game_won", { who }), kind: "big" };
    case "game_ended": {
      const end = e.cause ? String(e.cause).replace(/_/g, " ") : "";
      const text = end ? t("log.with_cause", { text: t("log.game_ended"), cause: endWord(end, classic) }) : t("log.game_ended");
      return { text, kind: "head" };
    }
    default: {
      const bits = [who, String(e.kind || "event").replace(/_/g, " "), card].filter(Boolean);
      return { text: bits.join(" "), kind: "dim" };
    }
  }
}
