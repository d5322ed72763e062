"""The 2023 upgrade cards' catalogue for ``roborally cards``.

The card data (``engine/data/cards/upgrades-2023.json``) belongs to the engine, which loads and
checks it (:mod:`roborally.engine.rules2023.upgrade_cards`); this module re-exports its loader
for the callers above the engine.
"""

from __future__ import annotations

from typing import Any

from roborally.engine.rules2023.upgrade_cards import UPGRADE_FILE as UPGRADE_FILE
from roborally.engine.rules2023.upgrade_cards import load_upgrades as load_upgrades
from roborally.engine.rules2023.upgrade_cards import parse_upgrades as parse_upgrades


def catalogue() -> list[dict[str, Any]]:
    """The upgrade cards as ``roborally cards`` lists them."""
    return [
        {
            "id": spec.id,
            "name": spec.name,
            "name_uk": spec.name_uk,
            "type": spec.type,
            "cost": spec.cost,
            "count": 1,
            "movement": spec.movement,
            "text": spec.text,
            "source": spec.source,
        }
        for spec in load_upgrades()
    ]
