// Every decision except "program": clear buttons built from the decision's options, with help
// on the board where it fits (start spaces, reboot facing). Unknown kinds still work: one
// button per option, labelled from the option's value, plus the default.

import { cardCost, cardEl, cardText, cardTitle, isCard } from "./cards.js";
import { h, DIR_ARROWS, DIR_WORDS } from "./util.js";

const TITLES = {
  start_space: "Choose your start space",
  block_start: "Block a start space",
  shutdown: "Shut down this round?",
  reboot_facing: "Which way should your robot face?",
  sidestep: "Sidestep: which way?",
  card_order: "Which card first?",
  upgrade_phase: "Upgrade phase",
  upgrade: "Use an upgrade?",
  power_down: "Power down?",
  choice: "Your choice",
};

const VERBS = {
  install: "Install", uninstall: "Remove", use: "Use", draw: "Draw", put: "Put back",
  store: "Park", discard: "Discard", keep: "Keep", buy: "Buy",
};

const WORDS = {
  done: "Done", none: "No", draw: "Draw an upgrade card", keep: "Keep it", yes: "Yes", no: "No",
};

const HELP = {
  start_space: "Tap a numbered space on the board or a button below.",
  block_start: "Your cube blocks the space for the other players.",
  reboot_facing: "Tap an arrow around your robot or a button below.",
};

function labelFor(kind, option, decision) {
  if (typeof option === "boolean") return option ? "Yes" : "No";
  if (kind === "reboot_facing" && DIR_WORDS[option]) return `${DIR_ARROWS[option]} ${DIR_WORDS[option]}`;
  if (kind === "start_space" || kind === "block_start") return `Space ${option}`;
  if (kind === "card_order" && Array.isArray(option)) {
    const cards = (decision.info && decision.info.cards) || [];
    return option.map((i) => cardTitle(cards[i] !== undefined ? cards[i] : i)).join(" → ");
  }
  if (typeof option === "string") return phrase(option);
  if (Array.isArray(option)) return option.map((o) => (typeof o === "string" ? cardTitle(o) : String(o))).join(" → ");
  if (option && typeof option === "object") return JSON.stringify(option);
  return String(option);
}

/** "install spam_filter" -> "Install Spam Filter (2⚡)"; "hw_two" -> its title; "LEFT" -> "Left". */
function phrase(option) {
  if (WORDS[option.toLowerCase()]) return WORDS[option.toLowerCase()];
  if (isCard(option)) return cardTitle(option);
  const [verb, ...rest] = option.split(" ");
  const object = rest.join(" ");
  if (object && isCard(object)) {
    const cost = verb === "install" || verb === "buy" ? cardCost(object) : null;
    return `${VERBS[verb] || cap(verb)} ${cardTitle(object)}${cost !== null ? ` (${cost}⚡)` : ""}`;
  }
  return cap(option.toLowerCase().replace(/_/g, " "));
}

const cap = (text) => text.replace(/^./, (c) => c.toUpperCase());

function optionCard(option) {
  if (typeof option !== "string") return null;
  if (isCard(option)) return option;
  const object = option.split(" ").slice(1).join(" ");
  return object && isCard(object) ? object : null;
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
    energy !== null && energy !== undefined ? h("p.energy-line", null, h("strong", null, `${energy} ⚡`), " energy to spend") : null,
    row("Installed", installed),
    row("In reserve", reserve));
}

/**
 * The controls for one decision. ctx: {decide(decision, choice), board, startSpaces, ownPlayer}
 * Returns {el, cleanup}.
 */
export function decisionControls(decision, ctx) {
  const kind = decision.kind;
  const options = decision.options || [];
  let sent = false;
  const buttons = [];
  const choose = (value) => {
    if (sent) return;
    sent = true;
    buttons.forEach((b) => (b.disabled = true));
    if (ctx.board) ctx.board.clearChoices();
    ctx.decide(decision, value);
  };
  const row = h("div.choices" + (options.length > 4 ? ".many" : ""));
  options.forEach((option, index) => {
    const b = h("button." + (index === 0 && kind !== "shutdown" && kind !== "power_down" ? "primary" : "choice-btn"), {
      type: "button",
      "data-testid": "choice",
      "data-value": JSON.stringify(option),
      onclick: () => choose(option),
    }, labelFor(kind, option, decision));
    const card = optionCard(option);
    if (card && cardText(card)) b.title = `${cardTitle(card)}: ${cardText(card)}`;
    buttons.push(b);
    row.append(b);
  });
  if (!options.length) {
    const b = h("button.primary", { type: "button", "data-testid": "choice", onclick: () => choose("timeout") },
      decision.default ? `OK: ${decision.default}` : "Continue");
    buttons.push(b);
    row.append(b);
  }
  // Help on the board.
  if (ctx.board && (kind === "start_space" || kind === "block_start") && ctx.startSpaces) {
    const choices = options
      .map((n) => {
        const sp = ctx.startSpaces.find((x) => x.number === n);
        return sp ? { pos: sp.pos, label: String(n), value: n, title: "Start space " + n } : null;
      })
      .filter(Boolean);
    ctx.board.ready.then(() => ctx.board.showChoices(choices, choose));
  }
  if (ctx.board && kind === "reboot_facing") {
    const p = ctx.ownPlayer;
    const pos = p && (p.pos || p.reentry);
    if (pos) ctx.board.ready.then(() => ctx.board.showFacingChoices(pos, (d) => options.includes(d) && choose(d)));
  }
  // The engine's prompt is the question; a part in brackets becomes the note under it.
  // Players by name, not by number ("P2"), and "1 space", not "1 space(s)".
  let title = (decision.prompt || TITLES[kind] || kind.replace(/_/g, " "))
    .replace(/\bP(\d+)\b/g, (m, n) => (ctx.name ? ctx.name(Number(n) - 1) : `player ${n}`))
    .replace(/\b1 (\w+)\(s\)/g, "1 $1").replace(/(\w+)\(s\)/g, "$1s");
  let prompt = null;
  const split = /^(.*?)\s*\((.+)\)\s*$/.exec(title);
  if (split) {
    title = split[1];
    prompt = cap(split[2]) + ".";
  }
  if (kind === "upgrade_phase") {
    title = "Upgrade phase";
    prompt = "Draw or install upgrades with your energy, then press Done.";
  }
  const upgrades = kind === "upgrade_phase" || (decision.info && decision.info.window === "upgrade");
  const window = decision.info && typeof decision.info.window === "string" ? decision.info.window : null;
  const el = h("div.decision", { "data-testid": "decision", "data-kind": kind, "data-window": window },
    h("h3", null, title),
    prompt ? h("p.prompt", null, prompt) : null,
    HELP[kind] ? h("p.hint", null, HELP[kind]) : null,
    upgrades ? upgradeSummary(decision, ctx.ownPlayer) : null,
    row,
    decision.default && options.length ? h("p.default", null, "If time runs out: " + decision.default + ".") : null,
  );
  return {
    el,
    cleanup: () => {
      if (ctx.board) ctx.board.clearChoices();
    },
  };
}
