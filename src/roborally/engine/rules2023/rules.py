"""The 2023 rules as one class: :class:`Rules2023` combines this package's concern mixins.

Every mixin holds one concern on the shared :class:`~roborally.engine.rules2023.base.Base2023`
(setup, the decisions' answers, the round, activation, the board elements, the robot weapons,
damage and reboots, the upgrade phase, the activation windows, the upgrade triggers), and every
method is defined in exactly one of them, so the order of the bases decides nothing but where a
``super()`` call goes next: through the mixins to the core's
:class:`~roborally.engine.core.mechanics.Mechanics`. The edition's facts are here too.
"""

from __future__ import annotations

from roborally.engine.rules2023.activation import Activation2023
from roborally.engine.rules2023.base import Base2023
from roborally.engine.rules2023.choices import Choices2023
from roborally.engine.rules2023.damage import Damage2023
from roborally.engine.rules2023.elements import Elements2023
from roborally.engine.rules2023.round import Round2023
from roborally.engine.rules2023.setup import Setup2023
from roborally.engine.rules2023.triggers import Triggers2023
from roborally.engine.rules2023.turn_windows import TurnWindows2023
from roborally.engine.rules2023.upgrade_phase import UpgradePhase2023
from roborally.engine.rules2023.weapons import Weapons2023


class Rules2023(
    Choices2023,
    Setup2023,
    Round2023,
    Activation2023,
    Elements2023,
    Weapons2023,
    Damage2023,
    UpgradePhase2023,
    TurnWindows2023,
    Triggers2023,
    Base2023,
):
    """The rules of the 2023 edition, run as stages over a :class:`GameState`.

    The upgrade cards (phase, windows, triggers, weapons) come from the mixins
    :class:`~roborally.engine.rules2023.upgrade_phase.UpgradePhase2023`,
    :class:`~roborally.engine.rules2023.turn_windows.TurnWindows2023`,
    :class:`~roborally.engine.rules2023.triggers.Triggers2023` and
    :class:`~roborally.engine.rules2023.weapons.Weapons2023`.
    """


#: The edition's facts, read by :mod:`roborally.engine.editions` (which registers it).
TITLE = "RoboRally (2023 edition)"
RULES_VERSION = "2023/3"
MIN_PLAYERS = 1
MAX_PLAYERS = 6
