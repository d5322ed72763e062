// Player panels: energy, damage, checkpoints, priority, registers and connection of every seat.

import { cardEl, cardIcon, cardText, cardTitle } from "./cards.js";
import { icon } from "./icons.js";
import { t } from "./i18n.js";
import { h, ordinal } from "./util.js";
import { seatChip, seatName } from "./seats.js";

/**
 * ctx: {obs (observation or null), seats (state.seats), me (seat or null), hostSeat,
 *       live: {seat: {damage, energy, checkpoint}}, checkpoints (total), timers, now(),
 *       waiting: Set of seats the game waits for, currentRegister,
 *       newest: the newest state's observation (statuses follow it; default obs)}
 */
export function playerPanels(ctx) {
  const list = h("ul.players", { "aria-label": t("lobby.players"), "data-testid": "players" });
  const players = ctx.obs ? ctx.obs.players : [];
  const order = ctx.obs ? ctx.obs.turn_order || [] : [];
  for (const seat of ctx.seats) {
    const p = players.find((x) => x.seat === seat.seat) || null;
    const live = (ctx.live && ctx.live[seat.seat]) || {};
    const li = h("li.player", { "data-seat": seat.seat, "data-testid": "player-" + seat.seat });
    if (seat.seat === ctx.me) li.classList.add("me");
    if (ctx.obs && ctx.obs.priority === seat.seat) li.classList.add("priority");
    const chip = seatChip(seat.seat);
    const badges = [];
    if (seat.seat === ctx.me) badges.push(h("span.badge.you", null, t("panel.you")));
    if (seat.kind === "bot") badges.push(h("span.badge", { title: t("panel.bot_title") }, icon("bot"), (ctx.botTitle && ctx.botTitle(seat.bot)) || t("panel.bot")));
    if (seat.kind === "human" && seat.seat === ctx.hostSeat) badges.push(h("span.badge", null, t("panel.host")));
    if (seat.kind === "human" && !seat.taken && !seat.auto) badges.push(h("span.badge.dim", null, t("panel.free_seat")));
    const grace = (ctx.timers || []).find((t) => t.reason === "grace" && t.seat === seat.seat);
    if (grace && ctx.now) {
      const left = Math.max(0, Math.ceil(grace.deadline - ctx.now()));
      badges.push(h("span.badge.warn", { title: t("panel.grace_title") }, t("panel.grace", { left })));
    }
    const head = h("div.player-head", null, chip, h("span.pname", null, seatName(seat.seat, seat.name)), ...badges);
    li.append(head);
    if (!p) {
      // Lobby: who is here and ready.
      const status = seat.kind === "bot" ? "ready" : !seat.taken ? "waiting" : !seat.connected ? "offline" : seat.ready ? "ready_tick" : "not_ready";
      li.append(h("div.pstatus", { "data-testid": "seat-status" }, t("panel.seat." + status)));
      list.append(li);
      continue;
    }
    const classic = p.classic || null; // the classic editions' extra facts
    const damage = live.damage || 0;
    const rank = order.indexOf(seat.seat);
    const stats = h("div.stats", null,
      stat("⚑", `${p.checkpoint}/${ctx.checkpoints || "?"}`, t(classic ? "panel.stat.flags" : "panel.stat.checkpoints"), "checkpoints"),
      classic ? null : stat("⚡", p.energy, t("panel.stat.energy"), "energy"),
      classic
        ? stat("✸", classic.damage, t("panel.stat.damage_tokens"), "damage")
        : stat("✸", damage, t("panel.stat.damage_cards"), "damage"),
      classic && classic.lives !== undefined ? stat("♥", classic.lives, t("panel.stat.lives"), "lives") : null,
      rank >= 0 ? stat("#", ordinal(rank + 1), t("panel.stat.priority"), "priority") : null,
    );
    const flags = [];
    if (ctx.obs && ctx.obs.priority === seat.seat && !classic) flags.push(h("span.flag.prio", { title: t("panel.priority_title") }, t("panel.priority")));
    if (classic && classic.eliminated) flags.push(h("span.flag.bad", null, t("panel.out")));
    else if (classic && classic.finished) flags.push(h("span.flag.ok", null, t("panel.finished")));
    else if (classic && classic.destroyed) flags.push(h("span.flag.bad", null, t("panel.destroyed")));
    if (classic && classic.announced) flags.push(h("span.flag.wait", null, t("panel.powering_down")));
    if (p.shutdown) flags.push(h("span.flag.bad", null, classic ? t("panel.powered_down") : t("panel.shut_down")));
    // A destroyed classic robot waits for its archive marker: "destroyed" says it.
    if (!classic && !p.on_board && p.reentry) flags.push(h("span.flag.bad", null, t("panel.rebooting")));
    const status = statusOf(seat, p, ctx);
    if (status) flags.push(h("span.flag.status." + status.cls, { "data-testid": "status-" + seat.seat, title: status.title || "" }, status.text));
    if (flags.length) head.append(h("span.flags", null, flags));
    li.append(h("div.player-body", null, stats, registersRow(p, ctx.currentRegister)));
    const installed = [
      ...(Array.isArray(p.upgrades) ? p.upgrades : []),
      ...(classic && Array.isArray(classic.options) ? classic.options : []),
    ];
    const reserve = Array.isArray(p.reserve) ? p.reserve.length : p.reserve || 0;
    if (installed.length || reserve) {
      li.append(h("div.upgrades", { "data-testid": "upgrades-" + seat.seat },
        installed.map((u) => h("button.upgrade", { type: "button", "data-card": u, title: `${cardTitle(u)}: ${cardText(u)}` }, cardIcon(u), h("span", null, cardTitle(u)))),
        reserve ? h("span.dim", null, `${installed.length ? " · " : ""}${t("panel.in_reserve", { count: reserve })}`) : null));
    }
    list.append(li);
  }
  return list;
}

/** What a player is doing, in plain words: programming, locked in, offline, played for them.
 * From the newest state (ctx.newest) when there is one: the rest of the panel may still show
 * an earlier one while its events are animated. */
function statusOf(seat, p, ctx) {
  if (seat.auto) {
    const idle = seat.auto_reason === "idle";
    return {
      text: idle ? t("panel.status.idle") : t("panel.status.away"), cls: "bad",
      title: idle ? t("panel.status.idle_title") : t("panel.status.away_title"),
    };
  }
  if (seat.kind === "human" && seat.taken && !seat.connected) return { text: t("panel.status.offline"), cls: "bad" };
  const obs = ctx.newest || ctx.obs;
  if (!obs || obs.over) return null;
  p = obs.players.find((x) => x.seat === seat.seat) || p;
  const waiting = ctx.waiting && ctx.waiting.has(seat.seat);
  if (obs.stage === "program") {
    // The engine sets ``programmed`` once every program is in; until then a seat the game no
    // longer waits for has locked in.
    if (waiting) return { text: t("panel.status.programming"), cls: "wait" };
    if (p.programmed || !p.shutdown) return { text: t("panel.status.locked_in"), cls: "ok", title: t("panel.status.locked_in_title") };
  }
  return waiting ? { text: t("panel.status.deciding"), cls: "wait" } : null;
}

function stat(icon, value, title, name) {
  return h("span.stat", { title, "data-stat": name }, h("span.sicon", { "aria-hidden": "true" }, icon), h("span.sval", null, String(value)));
}

/** Five small register slots: revealed cards, face-down cards, locked registers. A classic
 * register locked by damage keeps its card face up for everyone to see (classic 6.3). */
export function registersRow(p, current) {
  const row = h("div.mini-registers");
  const classic = !!p.classic;
  (p.registers || []).forEach((reg, i) => {
    const card = Array.isArray(reg.cards) && reg.cards.length ? reg.cards[reg.cards.length - 1] : null;
    const title = slotTitle(i + 1, card, classic && reg.locked);
    const box = h("div.mini-slot", { title });

    if (current === i + 1) box.classList.add("current");
    if (reg.locked || reg.facedown_haywire) box.classList.add("locked");
    if (card) {
      box.append(cardEl(card, { small: true, title: classic && reg.locked ? title : undefined }));
      if (!reg.revealed) box.classList.add("hidden-card");
    } else if (reg.count > 0) {
      box.append(cardEl(null, { small: true }));
    } else {
      box.append(h("span.mini-no", null, String(i + 1)));
    }
    row.append(box);
  });
  return row;
}

/** A register slot's words: its number, and for a register locked by damage (classic) that it
 * is, with the card that stays in it. */
function slotTitle(n, card, lockedByDamage) {
  if (!lockedByDamage) return t("game.register_n", { n });
  return card ? t("panel.register_locked_card", { n, card: cardTitle(card) }) : t("panel.register_locked", { n });
}
