// The bots a player can choose, in words: GET /api/options gives each a title, a description and
// a level (1 Beginner ... 4 Expert; null for kinds kept only for old games and tests).

// Plain names for the bot kinds of a server that does not send levels yet.
const FALLBACK = {
  random: { title: "Random moves", description: "Plays random legal cards: an easy first race." },
  planner: { title: "Strong", description: "Plays the best program its hand allows for its own robot." },
  expert: { title: "Expert", description: "Plays like Strong, and also expects the moves of nearby robots." },
};

function described(bot) {
  const plain = FALLBACK[bot.id] || {};
  const named = bot.title && bot.title !== bot.id;
  return { ...bot, title: named ? bot.title : plain.title || bot.title || bot.id, description: bot.description || plain.description || "" };
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
  return bot ? described(bot).title : (FALLBACK[id] || {}).title || "bot";
}
