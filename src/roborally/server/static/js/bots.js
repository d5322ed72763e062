// The bots a player can choose, in words: GET /api/options gives each a title, a description and
// a level (1 Beginner ... 4 Expert; null for kinds kept only for old games and tests). The page
// names the kinds it knows in its own language (bots.ID.title, bots.ID.description).

import { hasText, t } from "./i18n.js";

function described(bot) {
  const key = `bots.${bot.id}`;
  if (hasText(key + ".title")) return { ...bot, title: t(key + ".title"), description: t(key + ".description") };
  return { ...bot, title: bot.title || bot.id, description: bot.description || "" };
}

/** The bots to offer, weakest first; kinds without a level are left out once levels exist. */
export function botChoices(options) {
  const bots = ((options && options.bots) || []).map(described);
  if (!bots.some((b) => typeof b.level === "number")) return bots;
  return bots.filter((b) => typeof b.level === "number").sort((a, b) => a.level - b.level);
}

/** A bot kind's name for people ("Casual"). */
export function botTitle(options, id) {
  const bot = ((options && options.bots) || []).find((b) => b.id === id);
  if (bot) return described(bot).title;
  return hasText(`bots.${id}.title`) ? t(`bots.${id}.title`) : t("panel.bot");
}
