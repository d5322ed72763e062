"""The 2023 edition's rules: setup, the round, programming, activation, damage, reboots, and
the 40 upgrade cards (spec 1.5, 4.1, 4.5, 9 and 12-B7..B24, 12-C5..C15).

The game runs as a sequence of named stages (``state.stage``). Each stage either finishes and
names the next one, or raises :class:`~roborally.engine.core.mechanics.Suspend` with the
decisions it needs. A stage asks before it changes anything, or runs on a snapshot that is thrown
away when it suspends, so answering a decision and re-running the stage gives exactly the same
game.

Section numbers (``4.3.1``) are those of the project's rules specification for the 2023
edition, which ``docs/rules-2023.md`` follows; ``000: 584`` cites the printed rules by rulebook
and line.

:class:`~roborally.engine.rules2023.rules.Rules2023` combines one mixin per concern, each in a
module of this package: :mod:`.setup`, :mod:`.choices` (observations, validation, defaults),
:mod:`.round`, :mod:`.activation`, :mod:`.elements`, :mod:`.weapons`, :mod:`.damage` (damage,
reboots, re-entry), :mod:`.upgrade_phase`, :mod:`.turn_windows` and :mod:`.triggers`, over the
shared :mod:`.base`.

Upgrade card data (names, costs, texts, source lines) lives in
``engine/data/cards/upgrades-2023.json`` and is validated against :data:`IMPLEMENTED` when it
loads (:mod:`.upgrade_cards`). The upgrade rules provide

* the **upgrade phase** (4.1) and the two other "free" windows, programming (W-PROG) and the
  end of programming (Memory Cards): every player who can do something answers a small
  ``upgrade_phase`` / ``upgrade`` decision, one step at a time, applied in turn order;
* the **activation windows** (4.5): before and after each player's own register card (movement
  upgrades, Abort Switch, Lucky Booster, Recharge, Re-Initialize), and the triggers inside a
  resolution (Brakes, Drifting, Power Slide, Ramming Gear, Piercing Drill, Modular Chassis,
  Magnetic, Spiky, Hover Unit) and in step B (Deflector Shield, Energy Conversion, the weapons);
* the hooks the core rules call: hand size (Flash Drive), reboot damage (Firewall), HW-INSTALL.

Every choice is a decision whose first option is its default, so a timed-out or absent player
never blocks the game. A player is asked only when they hold a card that is usable right now,
so games in which nobody holds upgrades ask nothing beyond the upgrade phase itself.

>>> len(PERMANENT), len(TEMPORARY), len(IMPLEMENTED)
(24, 16, 40)
>>> [c for c in MOVEMENT]
['boink', 'zoop', 'switch', 'overclocked', 'pressure_release', 'all_aboard']
"""

from __future__ import annotations

from roborally.engine.rules2023.activation import (
    ASKING_ON_EFFECT,
    ASKING_ON_PUSH,
    ROTATIONS,
    STILL_EFFECTS,
    TURN_STEPS,
)
from roborally.engine.rules2023.base import BLUE, GREEN
from roborally.engine.rules2023.choices import STRING_KINDS
from roborally.engine.rules2023.rules import (
    MAX_PLAYERS,
    MIN_PLAYERS,
    RULES_VERSION,
    TITLE,
    Rules2023,
)
from roborally.engine.rules2023.setup import board_grid, new_state
from roborally.engine.rules2023.upgrade_cards import IMPLEMENTED, MOVEMENT, PERMANENT, TEMPORARY

__all__ = [
    "ASKING_ON_EFFECT",
    "ASKING_ON_PUSH",
    "BLUE",
    "GREEN",
    "IMPLEMENTED",
    "MAX_PLAYERS",
    "MIN_PLAYERS",
    "MOVEMENT",
    "PERMANENT",
    "ROTATIONS",
    "RULES_VERSION",
    "STILL_EFFECTS",
    "STRING_KINDS",
    "TEMPORARY",
    "TITLE",
    "TURN_STEPS",
    "Rules2023",
    "board_grid",
    "new_state",
]
