"""The 2023 upgrade cards (``data/cards/upgrades-2023.json``): loading, validation, catalogue.

The engine (:mod:`roborally.engine.upgrades`) implements each card by its ``id``; this module
reads the data file and checks it against that list, so a typo or a missing card is an error at
load time, not a silent no-op in play.
"""

from __future__ import annotations

from functools import cache
from importlib import resources
from typing import Any

from roborally.content.cards import CardDataError, card_entries, card_file
from roborally.engine.upgrades import (
    IMPLEMENTED,
    MOVEMENT,
    PERMANENT,
    TEMPORARY,
    UpgradeSpec,
)

UPGRADE_FILE = "cards/upgrades-2023.json"
_FIELDS = ("id", "name", "name_uk", "type", "cost", "movement", "count", "text", "source")


def parse_upgrades(text: str, filename: str = UPGRADE_FILE) -> tuple[UpgradeSpec, ...]:
    """Parse and validate an upgrade deck file (spec 1.5: 24 permanent + 16 temporary cards)."""
    data = card_file(text, filename)
    specs: list[UpgradeSpec] = []
    for where, entry in card_entries(data, filename, _FIELDS, allowed=_FIELDS):
        card_id = entry["id"]
        if card_id not in IMPLEMENTED:
            raise CardDataError(
                f"{where}: unknown upgrade id {card_id!r} (the engine implements"
                f" {', '.join(IMPLEMENTED)})"
            )
        kind = entry["type"]
        expected = "permanent" if card_id in PERMANENT else "temporary"
        if kind != expected:
            raise CardDataError(f"{where}: {card_id} is a {expected} upgrade, not {kind!r}")
        cost = entry["cost"]
        if not isinstance(cost, int) or isinstance(cost, bool) or not 0 <= cost <= 10:
            raise CardDataError(f"{where}: cost must be a whole number from 0 to 10")
        if entry["count"] != 1:
            raise CardDataError(f"{where}: every upgrade exists once (spec 1.5); count must be 1")
        movement = entry["movement"]
        if not isinstance(movement, bool) or movement != (card_id in MOVEMENT):
            raise CardDataError(
                f"{where}: movement must be {str(card_id in MOVEMENT).lower()} for {card_id}"
            )
        for key in ("name", "name_uk", "text", "source"):
            if not isinstance(entry[key], str) or not entry[key].strip():
                raise CardDataError(f"{where}: {key} must be a non-empty text")
        specs.append(
            UpgradeSpec(
                card_id,
                entry["name"],
                entry["name_uk"],
                kind,
                cost,
                movement,
                entry["text"],
                entry["source"],
            )
        )
    seen = {spec.id for spec in specs}
    missing = [c for c in IMPLEMENTED if c not in seen]
    if missing:
        raise CardDataError(f"{filename}: missing upgrade(s) {', '.join(missing)}")
    permanent = sum(1 for s in specs if s.permanent)
    if permanent != len(PERMANENT) or len(specs) - permanent != len(TEMPORARY):
        raise CardDataError(f"{filename}: expected 24 permanent and 16 temporary upgrades")
    return tuple(specs)


@cache
def load_upgrades() -> tuple[UpgradeSpec, ...]:
    """The shipped 2023 upgrade deck (validated)."""
    path = resources.files("roborally.content") / "data" / UPGRADE_FILE
    return parse_upgrades(path.read_text(encoding="utf-8"))


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
