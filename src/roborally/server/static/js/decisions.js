// Every decision except "program": clear buttons built from the decision's options, with help
// on the board where it fits (start spaces, reboot facing). Unknown kinds still work: one
// button per option, labelled from the option's value, plus the default.

import { cardCost, cardEl, cardText, cardTitle, isCard } from "./cards.js";
import { hasText, language, t } from "./i18n.js";
import { causeWord } from "./words.js";
import { fill, h, linked, s, DIR_ARROWS, DIR_WORDS } from "./util.js";

/** A question that replaces another ignores clicks this long (a double click cannot answer
 * the next one); its buttons show as disabled meanwhile. */
export const GUARD_MS = 450;

// Titles of the kinds of question (decision.title.*), used when the engine's own question is
// not known in the page's language.
const KINDS = ["start_space", "block_start", "shutdown", "reboot_facing", "sidestep", "card_order",
  "upgrade_phase", "upgrade", "power_down", "choice"];
const kindTitle = (kind) => (KINDS.includes(kind) ? t("decision.title." + kind) : kind.replace(/_/g, " "));

// Questions from a server that sends no message key (older records): the engine's English
// questions the page knows, each with its text (decision.prompt.*).
const PROMPTS = [
  [/^Program your registers/, "program"],
  [/^Choose your start space$/, "start_space"],
  [/^Block a start space/, "block_start"],
  [/^Shut down this round\?/, "shutdown"],
  [/^Leave your robot shut down this round/, "stay_shut_down"],
  [/^Shut your robot down for this round/, "shut_down_classic"],
  [/^Your robot re-enters( the board)?: choose its facing$/, "reenter_facing"],
  [/^Your robot starts on checkpoint 1: choose its facing$/, "start_facing"],
  [/^The archive square is taken/, "archive_taken"],
  [/^Re-enter powered down/, "reenter_powered_down"],
  [/^Move 2 to the left or to the right\?$/, "sidestep"],
  [/^Use an upgrade before your register card\?$/, "window_pre"],
  [/^Use a movement upgrade after your register card\?$/, "window_post"],
  [/^Use a temporary upgrade before programming\?$/, "temporary"],
  [/^Install which permanent upgrade from your reserve/, "reserve_install"],
  [/^You hold more than 3 upgrades of this type/, "too_many_upgrades"],
  [/^Fire your main laser or a weapon upgrade instead\?$/, "weapon"],
  [/^Your robot was destroyed: which option card does it lose\?$/, "lose_option"],
];

/** A value of a question's message in words: ``card``/``card2`` a card's title, ``player`` a
 * player's name, ``direction`` a direction, ``cause`` a damage cause; others as they are. */
function promptValue(key, value, name) {
  if (key.startsWith("card")) return cardTitle(String(value));
  if (key === "player") return name(Number(value));
  if (key === "direction") return t("term.dir.to." + value);
  if (key === "cause") return causeWord(String(value));
  return value;
}

/** The question in the page's language: the text of the decision's message key
 * (decision.prompt.KEY filled from prompt_args); without one, a known English question's
 * translation, the engine's English words in English, or the title of its kind. */
export function question(decision, name = (seat) => t("decision.player_n", { n: seat + 1 })) {
  const key = decision.prompt_key;
  if (key && hasText("decision.prompt." + key)) {
    const values = {};
    for (const [k, v] of Object.entries(decision.prompt_args || {})) values[k] = promptValue(k, v, name);
    return t("decision.prompt." + key, values);
  }
  const prompt = decision.prompt || "";
  if (language() === "en" && prompt) return prompt;
  const known = prompt && PROMPTS.find(([re]) => re.test(prompt));
  return known ? t("decision.prompt." + known[1]) : kindTitle(decision.kind);
}

const VERBS = ["install", "uninstall", "use", "draw", "put", "store", "discard", "keep", "buy"];

// Options that are plain words have a text of their own (decision.word.*: "stay", "brake"...).
const wordKey = (option) => "decision.word." + option.toLowerCase().replace(/ /g, "_");

const HELP = ["start_space", "block_start", "reboot_facing"];

function labelFor(kind, option, decision, words = {}) {
  if (typeof option === "boolean") return option ? t("common.yes") : t("common.no");
  if (kind === "reboot_facing" && DIR_WORDS[option]) return `${DIR_ARROWS[option]} ${DIR_WORDS[option]}`;
  if (kind === "start_space" || kind === "block_start") return t("decision.space_n", { n: option });
  if (kind === "card_order" && Array.isArray(option)) {
    const cards = (decision.info && decision.info.cards) || [];
    return option.map((i) => cardTitle(cards[i] !== undefined ? cards[i] : i)).join(" → ");
  }
  if (typeof option === "string") {
    const who = (n) => (words.who ? words.who(Number(n) - 1) : t("decision.player_n", { n }));
    let m = /^undo install (\S+)$/.exec(option);
    if (m) {
      const cost = cardCost(m[1]);
      return cost ? t("decision.undo_install_refund", { card: cardTitle(m[1]), cost }) : t("decision.undo_install", { card: cardTitle(m[1]) });
    }
    if ((m = /^switch p(\d+)$/.exec(option))) return t("decision.switch_places", { name: who(m[1]) });
    if ((m = /^use re_initialize p(\d+)$/.exec(option))) return t("decision.re_initialize", { name: who(m[1]) });
    if ((m = /^swap p(\d+) (\S+)$/.exec(option))) return t("decision.swap_for", { name: who(m[1]), card: cardTitle(m[2]) });
    if ((m = /^(boink|zoop) ([NESW])$/.exec(option))) {
      return t("decision." + m[1], { direction: DIR_WORDS[m[2]] });
    }
    if ((m = /^use ([NESW])$/.exec(option))) return `${DIR_ARROWS[m[1]]} ${DIR_WORDS[m[1]]}`;
    if (words.targetName && isCard(option)) return t("decision.card_at", { card: cardTitle(option), name: words.targetName });
    return phrase(option);
  }
  if (Array.isArray(option)) return option.map((o) => (typeof o === "string" ? cardTitle(o) : String(o))).join(" → ");
  if (option && typeof option === "object") return JSON.stringify(option);
  return String(option);
}

/** "install spam_filter" -> "Install Spam Filter (2⚡)"; "hw_two" -> its title; "LEFT" -> "Left". */
function phrase(option) {
  const lower = option.toLowerCase();
  if (hasText(wordKey(option))) return t(wordKey(option));
  if (isCard(option)) return cardTitle(option);
  const [verb, ...rest] = option.split(" ");
  const object = rest.join(" ");
  if (object && isCard(object)) {
    const cost = verb === "install" || verb === "buy" ? cardCost(object) : null;
    const card = cardTitle(object) + (cost !== null ? ` (${cost}⚡)` : "");
    return VERBS.includes(verb) ? t("decision.verb." + verb, { card }) : `${cap(verb)} ${card}`;
  }
  return cap(lower.replace(/_/g, " "));
}

/** What a timeout does, in words: one of the engine's fixed sentences (decision.fallback.*,
 * keyed by the English words), else the option it picks. */
function defaultWords(kind, decision, words) {
  const value = decision.default;
  const key = typeof value === "string" ? "decision.fallback." + value.toLowerCase().replace(/[^a-z0-9]+/g, "_").replace(/^_|_$/g, "") : "";
  return key && hasText(key) ? t(key) : labelFor(kind, value, decision, words);
}

const cap = (text) => text.replace(/^./, (c) => c.toUpperCase());

function optionCard(option) {
  if (typeof option !== "string") return null;
  if (isCard(option)) return option;
  const object = option.split(" ").slice(1).join(" ");
  return object && isCard(object) ? object : null;
}

/** Options that lose an upgrade for good: they ask "are you sure?" first. */
function irreversible(option) {
  const m = typeof option === "string" ? /^(uninstall|discard) (\S+)$/.exec(option) : null;
  return m && isCard(m[2]) ? m[2] : null;
}

/** Whom a weapon or an effect is aimed at (a seat), from the decision's info. */
function targetSeat(decision) {
  const info = decision.info || {};
  for (const key of ["target", "mover"]) {
    if (typeof info[key] === "number") return info[key];
  }
  return null;
}

/** The cards in hand, to look at while deciding (Memory Swap, Calibration Protocol ...). */
function handRow(decision, own) {
  const info = decision.info || {};
  const hand = own && Array.isArray(own.hand) ? own.hand : [];
  const options = (decision.options || []).map(String);
  const about = info.window === "program_window" || info.window === "memory_cards"
    || options.some((o) => /memory_swap|calibration_protocol/.test(o));
  if (!about || !hand.length) return null;
  return h("div.upgrade-row.decision-hand", { "data-testid": "decision-hand" },
    h("span.upgrade-label", null, t("program.hand")),
    h("div.upgrade-cards", null, hand.map((c) => cardEl(c, { small: true }))));
}

/** The upgrade phase: energy, the upgrades held, then the options as buttons. */
function upgradeSummary(decision, own) {
  const info = decision.info || {};
  const energy = info.energy ?? (own ? own.energy : null);
  const reserve = own && Array.isArray(own.reserve) ? own.reserve : [];
  const installed = own && Array.isArray(own.upgrades) ? own.upgrades : [];
  const row = (title, cards) => cards.length
    ? h("div.upgrade-row", null, h("span.upgrade-label", null, title), h("div.upgrade-cards", null, cards.map((c) => cardEl(c))))
    : null;
  return h("div.upgrade-summary", null,
    energy !== null && energy !== undefined ? h("p.energy-line", null, h("strong", null, `${energy} ⚡`), " ", t("decision.energy_to_spend", { count: energy })) : null,
    row(t("decision.installed"), installed),
    row(t("decision.in_reserve"), reserve));
}

/**
 * The controls for one decision. ctx: {decide(decision, choice), board, startSpaces, ownPlayer,
 * name(seat), guardMs}. Returns {el, cleanup}.
 *
 * Protections (docs/web-client.md): the buttons ignore clicks for ``guardMs`` (GUARD_MS) after
 * the question appears; an option that loses an upgrade for good asks to confirm; the target of
 * a weapon or an effect is named and ringed on the board; the hand shows next to questions
 * about it.
 */
export function decisionControls(decision, ctx) {
  const kind = decision.kind;
  const options = decision.options || [];
  const name = (seat) => (ctx.name ? ctx.name(seat) : t("decision.player_n", { n: seat + 1 }));
  const target = targetSeat(decision);
  const words = { who: name, targetName: target !== null && /-weapon$/.test(decision.id || "") ? name(target) : null };
  let sent = false;
  let guarded = false;
  const buttons = [];
  const guard = (list, ms) => {
    if (!ms) return;
    guarded = true;
    list.forEach((b) => {
      b.disabled = true;
      b.classList.add("guarded");
    });
    setTimeout(() => {
      guarded = false;
      list.forEach((b) => {
        b.classList.remove("guarded");
        if (!sent) b.disabled = false;
      });
    }, ms);
  };
  const send = (value) => {
    if (sent || guarded) return;
    sent = true;
    buttons.forEach((b) => (b.disabled = true));
    if (ctx.board) ctx.board.clearChoices();
    ctx.decide(decision, value);
  };
  const row = h("div.choices" + (options.length > 4 ? ".many" : ""));
  // "Are you sure?" in place of the buttons, for an option that cannot be taken back.
  const confirmBox = h("div.confirm", { hidden: true, role: "alertdialog", "data-testid": "confirm" });
  const confirm = (option, card) => {
    const yes = h("button.danger", { type: "button", "data-testid": "confirm-yes", onclick: () => send(option) },
      t("decision.confirm_yes"));
    const no = h("button", { type: "button", "data-testid": "confirm-no", onclick: () => {
      if (guarded) return;
      confirmBox.hidden = true;
      row.hidden = false;
    } }, t("decision.confirm_no"));
    fill(confirmBox, h("p.confirm-text", null, t("decision.confirm_text", { card: cardTitle(card) })),
      h("div.choices", null, no, yes));
    buttons.push(yes);
    row.hidden = true;
    confirmBox.hidden = false;
    guard([yes, no], GUARD_MS); // always: it appears where the click just was
    keepInView(confirmBox);
  };
  const choose = (option) => {
    if (sent || guarded) return;
    const card = irreversible(option);
    if (card) confirm(option, card);
    else send(option);
  };
  options.forEach((option, index) => {
    const undo = typeof option === "string" && option.startsWith("undo ");
    const cls = undo ? "undo" : index === 0 && kind !== "shutdown" && kind !== "power_down" ? "primary" : "choice-btn";
    const b = h("button." + cls, {
      type: "button",
      "data-testid": "choice",
      "data-value": JSON.stringify(option),
      onclick: () => choose(option),
    }, labelFor(kind, option, decision, words));
    const card = optionCard(option);
    if (card && cardText(card)) b.title = `${cardTitle(card)}: ${cardText(card)}`;
    buttons.push(b);
    row.append(b);
  });
  if (!options.length) {
    const b = h("button.primary", { type: "button", "data-testid": "choice", onclick: () => send("timeout") },
      decision.default ? t("decision.ok_default", { choice: labelFor(kind, decision.default, decision, words) }) : t("lobby.continue"));
    buttons.push(b);
    row.append(b);
  }
  guard(buttons, ctx.guardMs ?? GUARD_MS);
  // A question that replaces another is answered where the last one was: its buttons stay in
  // sight (on a phone, a taller question, e.g. after an install, would push them off the screen).
  if (ctx.guardMs ?? GUARD_MS) requestAnimationFrame(() => keepInView(row));
  // Help on the board, once the guard is over (its marks cannot show as disabled).
  let closed = false;
  const afterGuard = (fn) => ctx.board.ready.then(() => {
    const ms = ctx.guardMs ?? GUARD_MS;
    const show = () => !sent && !closed && fn();
    if (ms) setTimeout(show, ms);
    else show();
  });
  if (ctx.board && (kind === "start_space" || kind === "block_start") && ctx.startSpaces) {
    const choices = options
      .map((n) => {
        const sp = ctx.startSpaces.find((x) => x.number === n);
        return sp ? { pos: sp.pos, label: String(n), value: n, title: t("decision.start_space_n", { n }) } : null;
      })
      .filter(Boolean);
    afterGuard(() => ctx.board.showChoices(choices, choose));
  }
  if (ctx.board && kind === "reboot_facing") {
    const p = ctx.ownPlayer;
    const pos = p && (p.pos || p.reentry);
    if (pos) afterGuard(() => ctx.board.showFacingChoices(pos, (d) => options.includes(d) && choose(d)));
  }
  if (ctx.board && target !== null) ctx.board.ready.then(() => !sent && !closed && ringTarget(ctx.board, target, name(target)));
  // The engine's prompt is the question; a part in brackets becomes the note under it.
  // Players by name, not by number ("P2"), and "1 space", not "1 space(s)".
  let title = question(decision, name)
    .replace(/\bP(\d+)\b/g, (m, n) => name(Number(n) - 1))
    .replace(/\b1 (\w+)\(s\)/g, "1 $1").replace(/(\w+)\(s\)/g, "$1s");
  let prompt = null;
  const split = /^(.*?)\s*\((.+)\)\s*$/.exec(title);
  if (split) {
    title = split[1];
    prompt = cap(split[2]) + ".";
  }
  if (kind === "upgrade_phase") {
    title = t("decision.title.upgrade_phase");
    prompt = t("decision.upgrade_phase_help");
  }
  const upgrades = kind === "upgrade_phase" || (decision.info && decision.info.window === "upgrade");
  const window = decision.info && typeof decision.info.window === "string" ? decision.info.window : null;
  const aim = target !== null
    ? h("p.target-line", { "data-testid": "decision-target" },
      ...linked(words.targetName ? t("decision.target") : t("decision.concerned"), { name: () => h("strong", null, name(target)) }))
    : null;
  const el = h("div.decision", { "data-testid": "decision", "data-kind": kind, "data-window": window, "data-decision": decision.id },
    h("h3", null, title),
    prompt ? h("p.prompt", null, prompt) : null,
    aim,
    HELP.includes(kind) ? h("p.hint", null, t("decision.help." + kind)) : null,
    upgrades ? upgradeSummary(decision, ctx.ownPlayer) : null,
    handRow(decision, ctx.ownPlayer),
    row,
    confirmBox,
    decision.default && options.length ? h("p.default", null, t("decision.default", { choice: defaultWords(kind, decision, words) })) : null,
  );
  return {
    el,
    cleanup: () => {
      closed = true;
      if (ctx.board) ctx.board.clearChoices();
    },
  };
}

/** Scroll the page (or the panel) the least that brings ``el`` wholly into sight, if it is not. */
function keepInView(el) {
  if (!el.isConnected || el.hidden) return;
  const r = el.getBoundingClientRect();
  if (r.top < 0 || r.bottom > window.innerHeight) el.scrollIntoView({ block: "nearest", behavior: "instant" });
}

/** A pulsing ring around the robot a weapon or effect is aimed at (cleared with the choices). */
function ringTarget(board, seat, label) {
  const robot = board.robotAt(seat);
  if (!robot || !robot.pos || !board.marks) return;
  const [cx, cy] = board.centre(robot.pos);
  const ring = s("g", { class: "target-mark", "data-testid": "target-mark", "data-seat": seat },
    s("title", null, t("decision.target_title", { name: label })),

    s("circle", { cx, cy, r: board.cell * 0.58, class: "target-ring" }),
    s("circle", { cx, cy, r: board.cell * 0.7, class: "target-ring outer" }));
  board.marks.append(ring);
}
