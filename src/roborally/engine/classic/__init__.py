"""The classic RoboRally rules: ``classic`` (2005, the default) and ``classic-1994``.

:mod:`roborally.engine.editions` registers both editions from the facts here.
"""

from __future__ import annotations

from roborally.engine.classic.model import (
    CLASSIC_1994_VARIANTS,
    CLASSIC_VARIANTS,
    ClassicPlayer,
    ClassicState,
)
from roborally.engine.classic.rules import RulesClassic
from roborally.engine.classic.setup import board_grid, new_state

#: 2: eliminated / last_robot_standing terminations; 3: Ramming Gear once per card, Radio Control
#: ends with its controller, Fourth / Reverse Gear in Dual Processor pairs, no event for a shot
#: that hits nothing, and (1994) the backup token moves only onto a credited checkpoint.
RULES_VERSION = "classic/3"
RULES_VERSION_1994 = "classic-1994/3"

TITLE = "RoboRally (classic rules, 2005)"
TITLE_1994 = "RoboRally (classic rules, 1994 variant)"
MIN_PLAYERS = 2
MAX_PLAYERS = 8

__all__ = [
    "CLASSIC_1994_VARIANTS",
    "CLASSIC_VARIANTS",
    "MAX_PLAYERS",
    "MIN_PLAYERS",
    "RULES_VERSION",
    "RULES_VERSION_1994",
    "TITLE",
    "TITLE_1994",
    "ClassicPlayer",
    "ClassicState",
    "RulesClassic",
    "board_grid",
    "new_state",
]
