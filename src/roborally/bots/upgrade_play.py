"""How the planner answers the 2023 upgrade questions (decision kind ``upgrade``).

Every question is scored with the planner's own yardstick: the cost of the rest of the round
(:meth:`~roborally.bots.planner.ProgramSearch.evaluate`, in registers to finish the course) from
the state each answer leads to, the robot's remaining registers included. A temporary upgrade
is spent only when it gains at least :data:`TEMPORARY_MARGIN` registers, because it is gone
afterwards. Questions about other robots (weapons, Piercing Drill) look at the target's
distance to its next checkpoint instead.

The questions are recognised by the ``card`` or ``window`` of their info (the engine's upgrade
decisions all carry one), or by the decision id (``weapon``, ``over_limit``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from roborally.bots.common import DECK_2023, GOOD_UPGRADES, BotError, register_code
from roborally.bots.sim import (
    C_EMPTY,
    C_UNKNOWN,
    E_ALL_ABOARD,
    E_BACK,
    E_BACK5,
    E_CRAB_L,
    E_CRAB_R,
    E_MOVE1,
    E_MOVE2,
    E_NOOP,
    card_code,
)
from roborally.engine.core.decisions import Decision
from roborally.engine.core.geometry import Direction, Pos, Turn

if TYPE_CHECKING:
    from roborally.bots.planner import PlannerBot, ProgramSearch

#: Registers a temporary upgrade must gain before the bot spends it.
TEMPORARY_MARGIN = 1.0
#: Registers a weapon upgrade must cost its target before the bot prefers it to the laser.
WEAPON_MARGIN = 1.5
#: Energy the bot tops up with Recharge (it gains 3, up to the maximum of 10).
RECHARGE_BELOW = 8
#: Cards worth parking on Memory Cards for the next round, best first, and how many.
PARK = ("move3", "move2", "again", "move1")
PARK_AT_MOST = 3
#: The regular cards by how much the bot wants them back next round (Memory Swap).
KEEP_RANK = (
    "move2",
    "move3",
    "move1",
    "again",
    "rotate_right",
    "rotate_left",
    "u_turn",
    "power_up",
    "move_back",
)

Handler = Callable[["PlannerBot", dict[str, Any], Decision, list[str]], Any]


def choose_upgrade(bot: PlannerBot, obs: dict[str, Any], decision: Decision) -> Any:
    """Answer one ``upgrade`` decision (see the module doc)."""
    options = [str(o) for o in decision.options]
    info = decision.info
    if "over_limit" in decision.id:
        what = "over_limit"
    elif decision.id.endswith("-weapon") or "-weapon-" in decision.id:
        what = "weapon"
    else:
        what = str(info.get("card") or info.get("window") or "")
    handler = HANDLERS.get(what)
    if handler is None:
        return _first_safe(options, decision)
    return handler(bot, obs, decision, options)


def _first_safe(options: list[str], decision: Decision) -> Any:
    """The option that changes nothing (``none``, ``done``, ``stay`` ...), else the first."""
    for quiet in ("none", "done", "stay", "keep", "no", "take", "discard", "move"):
        if quiet in options:
            return quiet
    return decision.options[0]


# ------------------------------------------------------------------------- context
class Moment:
    """Where the bot's robot stands in the register being resolved, with its search."""

    def __init__(self, bot: PlannerBot, obs: dict[str, Any]) -> None:
        self.bot = bot
        self.obs = obs
        self.search: ProgramSearch = bot.searcher(obs)
        self.me = self.search.me
        self.model = self.search.model
        self.register = max(1, int(obs.get("register", 1) or 1))
        self.rest = bot._remaining(obs, self.me.seat, self.register)
        self.card = register_code(obs, self.me.seat, self.register - 1)
        self.last = (
            register_code(obs, self.me.seat, self.register - 2) if self.register > 1 else C_EMPTY
        )
        pos = self.me.pos
        self.state = -1 if pos is None else self.model.grid.index(pos) * 4 + int(self.me.facing)

    def before_card(self, state: int, card: int | None = None) -> float:
        """Cost if the robot stands in ``state`` before its register card (W-PRE)."""
        if state < 0:
            return self.search.fall_cost(-1 - state, self.me.reached)
        code = self.card if card is None else card
        return self.search.evaluate(
            state, self.register, [code, *self.rest], self.me.reached, self.last
        )

    def after_card(self, state: int) -> float:
        """Cost if the robot stands in ``state`` after its card, before the board acts."""
        if state < 0:
            return self.search.fall_cost(-1 - state, self.me.reached)
        return self.search.evaluate(
            state, self.register, [E_NOOP, *self.rest], self.me.reached, decided=1
        )

    def with_effect(self, effect: int) -> float:
        """Cost if ``effect`` acts now, as the card of this register (then the board acts)."""
        return self.search.evaluate(
            self.state, self.register, [effect, *self.rest], self.me.reached, decided=1
        )

    def after_board(self, state: int) -> float:
        """Cost if the robot stands in ``state`` once the board elements of this register acted
        (checkpoints are still checked at the end of the register)."""
        if state < 0:
            return self.search.fall_cost(-1 - state, self.me.reached)
        reached = self.me.reached
        if self.model.cp_at[state >> 2] == reached + 1:
            reached += 1
        if reached >= self.search.total:
            return -self.search.w.win
        rest = self.rest
        if not rest:
            return self.search.evaluate(state, self.register + 1, [], reached)
        return self.search.evaluate(state, self.register + 1, rest, reached)

    def relative(self, direction: Direction) -> int:
        """The effect that steps one space in absolute ``direction`` without turning."""
        facing = self.me.facing
        if direction == facing:
            return E_MOVE1
        if direction == facing.opposite:
            return E_BACK
        return E_CRAB_L if direction == facing.turned(Turn.LEFT) else E_CRAB_R


def _to_go(
    bot: PlannerBot, obs: dict[str, Any], seat: int, pos: Pos | None, facing: Direction
) -> float:
    """How far robot ``seat`` would be from finishing at ``pos`` facing ``facing``."""
    model = bot.model_for(obs, seat)
    if pos is None or not model.grid.is_on_course(pos):
        return 60.0
    reached = min(int(obs["players"][seat].get("checkpoint", 0)), len(model.checkpoints))
    return model.to_go(reached)[model.grid.index(pos) * 4 + int(facing)]


def _player_pos(obs: dict[str, Any], seat: int) -> tuple[Pos | None, Direction]:
    p = obs["players"][seat]
    where = p.get("pos")
    pos = None if where is None else Pos(int(where[0]), int(where[1]))
    return pos, Direction.parse(p.get("facing", "N"))


def _rank(name: str) -> int:
    return GOOD_UPGRADES.index(name) if name in GOOD_UPGRADES else len(GOOD_UPGRADES)


# ---------------------------------------------------------------- reveal choices
def _placed(bot: PlannerBot, obs: dict[str, Any]) -> Moment | None:
    """The moment, if the bot's robot is on the course (questions about it need a place)."""
    now = Moment(bot, obs)
    return now if now.state >= 0 else None


def brakes(bot: PlannerBot, obs: dict[str, Any], decision: Decision, options: list[str]) -> Any:
    """Brakes: resolve the revealed Move 1 as Move 0 when standing still is better."""
    now = _placed(bot, obs)
    if now is None:
        return "move"
    return "brake" if now.with_effect(E_NOOP) < now.with_effect(E_MOVE1) else "move"


def slide(bot: PlannerBot, obs: dict[str, Any], decision: Decision, options: list[str]) -> Any:
    """Drifting / Power Slide: after the rotation, move 1 forward when it helps."""
    now = _placed(bot, obs)
    if now is None:
        return "stay"
    return "move" if now.with_effect(E_MOVE1) < now.with_effect(E_NOOP) else "stay"


def energy_conversion(
    bot: PlannerBot, obs: dict[str, Any], decision: Decision, options: list[str]
) -> Any:
    """After a board laser hit: stay, or move 1 forward or back, whichever ends better."""
    now = _placed(bot, obs)
    if now is None:
        return "stay"
    card = now.model.card
    choices = {
        "stay": now.state,
        "forward": card(now.state, E_MOVE1)[0],
        "back": card(now.state, E_BACK)[0],
    }
    return min((o for o in options if o in choices), key=lambda o: now.after_board(choices[o]))


def deflector_shield(
    bot: PlannerBot, obs: dict[str, Any], decision: Decision, options: list[str]
) -> Any:
    """1 energy against at least 1 damage card: always worth it (a card costs more)."""
    return "shield" if "shield" in options else options[0]


def magnetic(bot: PlannerBot, obs: dict[str, Any], decision: Decision, options: list[str]) -> Any:
    """Follow a neighbour that moves when that brings the robot clearly closer."""
    now = _placed(bot, obs)
    if now is None or "follow" not in options:
        return "stay"
    direction = Direction.parse(str(decision.info.get("direction", "N")))
    there = now.model.displace(now.state, direction, int(decision.info.get("spaces", 1)))
    if there < 0:
        return "stay"
    to_go = now.search.to_go[min(now.me.reached, now.search.total)]
    gain = to_go[now.state] - to_go[there]
    return "follow" if gain >= TEMPORARY_MARGIN else "stay"


def lucky_booster(
    bot: PlannerBot, obs: dict[str, Any], decision: Decision, options: list[str]
) -> Any:
    """Put the Haywire found in place of the register card only if it plays better."""
    now = _placed(bot, obs)
    if now is None:
        return "discard"
    haywire = card_code(str(decision.info.get("haywire", "")), "2023")
    better = now.before_card(now.state, haywire) < now.before_card(now.state) - 0.1
    return "replace" if better else "discard"


# ----------------------------------------------------------------- turn windows
def window(bot: PlannerBot, obs: dict[str, Any], decision: Decision, options: list[str]) -> Any:
    """W-PRE / W-POST: a movement upgrade, Abort Switch or Recharge when it pays."""
    now = _placed(bot, obs)
    pre = decision.info.get("window") == "pre"
    if now is None:
        return "none"
    cost = now.before_card if pre else now.after_card
    base = cost(now.state)
    best, best_cost = "none", base - TEMPORARY_MARGIN
    for option in options:
        state = _window_state(now, obs, option)
        if state is None:
            continue
        value = cost(state)
        if value < best_cost:
            best, best_cost = option, value
    if pre and "use abort_switch" in options and now.card != C_EMPTY:
        value = now.before_card(now.state, C_UNKNOWN)
        if value < best_cost:
            best, best_cost = "use abort_switch", value
    if best == "none" and "use recharge" in options and now.me.energy < RECHARGE_BELOW:
        return "use recharge"
    return best


def _window_state(now: Moment, obs: dict[str, Any], option: str) -> int | None:
    """The state a movement upgrade leads to (``None``: not a movement option)."""
    verb, _, arg = option.partition(" ")
    model = now.model
    cell = now.state >> 2
    if verb == "boink":
        return model.card(now.state, now.relative(Direction.parse(arg)))[0]
    if verb == "zoop":
        return cell * 4 + int(Direction.parse(arg))
    if verb == "switch":
        pos, _facing = _player_pos(obs, int(arg[1:]) - 1)
        if pos is None or not model.grid.is_on_course(pos):
            return None
        return model.grid.index(pos) * 4 + (now.state & 3)
    effects = {"overclocked": E_MOVE2, "pressure_release": E_BACK5, "all_aboard": E_ALL_ABOARD}
    if verb == "use" and arg in effects:
        return model.card(now.state, effects[arg])[0]
    return None


def program_window(
    bot: PlannerBot, obs: dict[str, Any], decision: Decision, options: list[str]
) -> Any:
    """Before programming: clear damage from the hand, dig for cards, top up energy."""
    own = obs["players"][obs["seat"]]
    hand = own.get("hand") if isinstance(own.get("hand"), list) else []
    damage = sum(1 for n in hand or [] if n not in DECK_2023)
    if "use calibration_protocol" in options and damage >= 2:
        return "use calibration_protocol"
    if "use memory_swap" in options and (damage >= 1 or not {"move2", "move3"} & set(hand or [])):
        return "use memory_swap"
    if "use recharge" in options and int(own.get("energy", 0)) < RECHARGE_BELOW:
        return "use recharge"
    return "done" if "done" in options else options[0]


def memory_cards(
    bot: PlannerBot, obs: dict[str, Any], decision: Decision, options: list[str]
) -> Any:
    """Park the best movement cards left in the hand for the next round."""
    own = obs["players"][obs["seat"]]
    parked = own.get("memory")
    count = len(parked) if isinstance(parked, list) else int(parked or 0)
    if count < PARK_AT_MOST:
        for name in PARK:
            if f"store {name}" in options:
                return f"store {name}"
    return "done" if "done" in options else options[0]


def memory_swap(
    bot: PlannerBot, obs: dict[str, Any], decision: Decision, options: list[str]
) -> Any:
    """Put back a card this round's best program does not use, the most useful one first
    (it comes back next round); damage cards only when nothing else is left."""
    hand = [str(n) for n in decision.info.get("hand", [])]
    spare = list(hand)
    try:
        search = bot.searcher(obs)
        starts = bot.start_states(search.model, search.me)
        if starts:
            program = search.search(hand, None, starts).best.program
            for name in program:
                for part in (name or "").split("+"):
                    if part in spare:
                        spare.remove(part)
    except BotError:
        pass
    for pool in (spare, hand):
        regular = [n for n in pool if n in DECK_2023 and f"put {n}" in options]
        if regular:
            return "put " + min(regular, key=KEEP_RANK.index)
    return options[0]


# ------------------------------------------------------------------- own cards
def hw_install(bot: PlannerBot, obs: dict[str, Any], decision: Decision, options: list[str]) -> Any:
    """A free permanent upgrade for the round: the one the bot values most."""
    return min(options, key=lambda o: _rank(o.partition(" ")[2]))


def over_limit(bot: PlannerBot, obs: dict[str, Any], decision: Decision, options: list[str]) -> Any:
    """Over the limit of 3: discard the upgrade the bot values least."""
    return max(options, key=lambda o: _rank(o.partition(" ")[2]))


def modular_chassis(
    bot: PlannerBot, obs: dict[str, Any], decision: Decision, options: list[str]
) -> Any:
    """Swap the chassis for a pushed robot's upgrade the bot values more."""
    swaps = [o for o in options if o.startswith("swap ")]
    if not swaps:
        return "keep"
    best = min(swaps, key=lambda o: _rank(o.split()[-1]))
    return best if _rank(best.split()[-1]) < _rank("modular_chassis") else "keep"


def self_diagnostics(
    bot: PlannerBot, obs: dict[str, Any], decision: Decision, options: list[str]
) -> Any:
    """Take a damage card out of the game (from the hand first); keep the regular cards."""
    for where in ("hand", "discard"):
        for option in options:
            verb, _, name = option.partition(" ")
            if verb == where and name not in DECK_2023:
                return option
    return "none"


# --------------------------------------------------------------------- weapons
def weapon(bot: PlannerBot, obs: dict[str, Any], decision: Decision, options: list[str]) -> Any:
    """Main laser, or a weapon upgrade that sets the target back further (2023 upgrades and
    the classic option cards alike; the classic main laser is called ``laser``)."""
    main = "main" if "main" in options else "laser"
    if "mini_howitzer" in options:
        return "mini_howitzer"  # offered only when usable: more damage and a push
    target = decision.info.get("target")
    if not isinstance(target, int):
        return main
    me_pos, facing = _player_pos(obs, obs["seat"])
    pos, their_facing = _player_pos(obs, target)
    if me_pos is None or pos is None:
        return main
    now = _to_go(bot, obs, target, pos, their_facing)
    model = bot.model_for(obs, target)
    state = model.grid.index(pos) * 4 + int(their_facing)
    best, best_gain = main, WEAPON_MARGIN
    for option in options:
        after: int | None = None
        if option == "pressor_beam":
            after = model.displace(state, facing, 1)
        elif option == "tractor_beam":
            after = model.displace(state, facing.opposite, 1)
        elif option == "displacing_blast":
            token = model.reboot_cell.get(model.grid.board_of[state >> 2])
            after = None if token is None else token[0] * 4 + (state & 3)
        if after is None:
            continue
        if after < 0:
            gain = 60.0 - now  # pushed into a pit or off the course
        else:
            gain = _to_go(bot, obs, target, model.grid.pos(after >> 2), Direction(after & 3)) - now
        if gain > best_gain:
            best, best_gain = option, gain
    return best


def piercing_drill(
    bot: PlannerBot, obs: dict[str, Any], decision: Decision, options: list[str]
) -> Any:
    """1 damage to the pushed robot and the facing that leaves it furthest from its goal."""
    target = decision.info.get("target")
    if not isinstance(target, int):
        return "no"
    pos, _facing = _player_pos(obs, target)
    uses = [o for o in options if o.startswith("use ")]
    if pos is None or not uses:
        return "no"
    return max(uses, key=lambda o: _to_go(bot, obs, target, pos, Direction.parse(o.split()[1])))


HANDLERS: dict[str, Handler] = {
    "brakes": brakes,
    "drifting": slide,
    "power_slide": slide,
    "energy_conversion": energy_conversion,
    "deflector_shield": deflector_shield,
    "magnetic": magnetic,
    "lucky_booster": lucky_booster,
    "pre": window,
    "post": window,
    "program_window": program_window,
    "memory_cards": memory_cards,
    "memory_swap": memory_swap,
    "hw_install": hw_install,
    "over_limit": over_limit,
    "modular_chassis": modular_chassis,
    "self_diagnostics": self_diagnostics,
    "weapon": weapon,
    "piercing_drill": piercing_drill,
}
