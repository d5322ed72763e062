"""What the planner and its upgrade play share: the 2023 deck, the upgrades the bots like,
:class:`BotError` and reading a register from an observation.

Both :mod:`roborally.bots.planner` and :mod:`roborally.bots.upgrade_play` import this module,
so that neither imports the other at run time (the planner uses the upgrade play).
"""

from __future__ import annotations

from typing import Any

from roborally.bots.sim import C_EMPTY, card_code, family_of

#: The 2023 programming deck by card name (public: the rulebook's card list).
DECK_2023 = {
    "move1": 4,
    "move2": 3,
    "move3": 1,
    "rotate_right": 4,
    "rotate_left": 4,
    "u_turn": 1,
    "move_back": 1,
    "power_up": 1,
    "again": 1,
}


class BotError(RuntimeError):
    """The bot cannot model this game (e.g. an unknown course); it falls back to safe play."""


#: Upgrade cards the bots like to install, best first (2023).
GOOD_UPGRADES = (
    "firewall",
    "brakes",
    "hover_unit",
    "deflector_shield",
    "double_barrel_laser",
    "rail_gun",
    "ramming_gear",
    "flash_drive",
    "spam_filter",
    "self_diagnostics",
    "memory_cards",
    "crab_legs",
    "drifting",
    "power_slide",
    "rear_laser",
    "recharge",
    "energy_conversion",
    "mini_howitzer",
    "pressor_beam",
    "tractor_beam",
    "spiky",
    "laser_kata",
    "modular_chassis",
    "scrambler",
    "chaos_theory",
)


def register_code(obs: dict[str, Any], seat: int, index: int) -> int:
    """The card code of ``seat``'s register ``index`` (0-based) as far as the seat may see it
    (a Crab Legs pair is one sidestep; an empty or hidden register is :data:`C_EMPTY`)."""
    regs = obs["players"][seat].get("registers", [])
    cards = regs[index].get("cards") if 0 <= index < len(regs) else None
    if not cards:
        return C_EMPTY
    return card_code("+".join(cards), family_of(obs.get("edition", "2023")))
