// The alternative rules in the rulebook's words: a title and one sentence for each id of
// GET /api/options (the server's own title is used for ids this list does not know).

const WORDS = {
  lighter: ["Lighter game", "No upgrades and no energy: a quicker game for beginners."],
  less_deadly: ["Less deadly", "The outer edges of the course are walls, so robots cannot fall off the edge."],
  less_spam: ["Less SPAM", "You may discard the SPAM cards in your hand."],
  dynamic_archiving: ["Dynamic archiving", "No reboot tokens: a robot reboots on its archive token, which moves to each checkpoint it reaches."],
  competitive_start: ["Competitive start", "Before choosing, players block start spaces with energy cubes."],
  speed: ["Speed mode", "One countdown for everyone while programming; when it runs out, empty registers are filled at random."],
  less_predictable: ["Less predictable", "Every player shuffles their whole deck every round."],
  four_lives: ["Four lives", "Each robot has 4 lives instead of 3 (with 5 or more robots)."],
  no_timer: ["No sand timer", "The last player still programming is not timed."],
  power_down_without_damage: ["Power down at any time", "A robot may announce a power down even when it has no damage."],
  emergency_shutdown: ["Emergency shutdown", "At the start of a round a robot may power down at once (the 1994 rule)."],
  no_flag_repair: ["Flags do not repair", "Flags no longer repair 1 damage at the end of the turn."],
  no_options_when_powered_down: ["No option cards while powered down", "A powered-down robot on a repair site draws no option card."],
  powered_down_robots_fire: ["Powered-down robots fire", "A powered-down robot still fires its laser."],
  no_option_cards: ["No option cards", "Play without option cards."],
  play_for_places: ["Play for places", "The race goes on after the first winner, for the other places."],
  shared_ties: ["Shared places", "Robots that reach the last flag in the same register share the place, instead of the higher priority winning."],
  last_robot_standing_wins: ["Last robot standing wins", "When only one robot is left in the game, it wins."],
  timer: ["Sand timer", "The last player still programming has 30 seconds (the 2005 rule)."],
  worse_backup_copy: ["Worse backup copy", "A robot re-enters the board with 2 damage tokens."],
  option_cards: ["Option cards", "Play with option cards: a repair site with two wrenches also deals one."],
};

/** {title, description} of a variant id. */
export function variantInfo(options, id) {
  const words = WORDS[id];
  if (words) return { title: words[0], description: words[1] };
  const listed = options && (options.variants || []).find((v) => v.id === id);
  const title = listed ? listed.title : String(id).replace(/_/g, " ");
  return { title: title.replace(/^./, (c) => c.toUpperCase()), description: "" };
}

/** The programming timer of an edition, in words. */
export function timerWords(timer) {
  if (!timer) return "";
  if (timer.kind === "speed") return "Speed mode: one countdown for everyone once the cards are dealt; when it runs out, empty registers are filled at random.";
  if (timer.kind === "sand") return "Sand timer: when only one player is still programming, that player has this long; then the empty registers are filled at random.";
  return "";
}
