"""The classic RoboRally rules: ``classic`` (2005, the default) and ``classic-1994``.

Importing this package registers both editions (``roborally.engine.editions``).
"""

from __future__ import annotations

from roborally.engine.classic.model import (
    CLASSIC_1994_VARIANTS,
    CLASSIC_VARIANTS,
    ClassicPlayer,
    ClassicState,
)
from roborally.engine.classic.rules import RulesClassic, board_grid, new_state
from roborally.engine.editions import EDITIONS, Edition
from roborally.engine.editions import register as register_edition

#: 2: eliminated / last_robot_standing terminations; 3: Ramming Gear once per card, Radio Control
#: ends with its controller, Fourth / Reverse Gear in Dual Processor pairs, no event for a shot
#: that hits nothing, and (1994) the backup token moves only onto a credited checkpoint.
RULES_VERSION = "classic/3"
RULES_VERSION_1994 = "classic-1994/3"

if "classic" not in EDITIONS:
    register_edition(
        Edition(
            id="classic",
            title="RoboRally (classic rules, 2005)",
            rules_version=RULES_VERSION,
            rules=RulesClassic,
            new_state=new_state,
            min_players=2,
            max_players=8,
            variants=CLASSIC_VARIANTS,
            grid=board_grid,
        )
    )
    register_edition(
        Edition(
            id="classic-1994",
            title="RoboRally (classic rules, 1994 variant)",
            rules_version=RULES_VERSION_1994,
            rules=RulesClassic,
            new_state=new_state,
            min_players=2,
            max_players=8,
            variants=CLASSIC_1994_VARIANTS,
            grid=board_grid,
        )
    )

__all__ = ["ClassicPlayer", "ClassicState", "RulesClassic", "new_state"]
