"""Card data files: the 2023 damage deck (``data/cards/damage-2023.json``)."""

from __future__ import annotations

import json
from functools import cache
from importlib import resources
from typing import Any

from roborally.engine.cards import HAYWIRE_EFFECTS, CardSpec, CardType, DamageDeckSpec

DAMAGE_FILE = "cards/damage-2023.json"


class CardDataError(ValueError):
    """A malformed card data file, naming the file and the field at fault."""


def parse_damage_deck(text: str, filename: str = DAMAGE_FILE) -> DamageDeckSpec:
    """Parse and validate a damage deck file (spec 1.4 and 12-A1: 40 cards, SPAM and Haywire)."""
    try:
        data: Any = json.loads(text)
    except json.JSONDecodeError as error:
        raise CardDataError(f"{filename}:{error.lineno}:{error.colno}: {error.msg}") from None
    if not isinstance(data, dict) or not isinstance(data.get("cards"), list):
        raise CardDataError(f"{filename}: expected an object with a 'cards' list")
    specs: list[CardSpec] = []
    seen: set[str] = set()
    for index, entry in enumerate(data["cards"]):
        where = f"{filename}: cards[{index}]"
        if not isinstance(entry, dict):
            raise CardDataError(f"{where}: expected an object")
        for key in ("id", "type", "title", "count", "effect", "text"):
            if key not in entry:
                raise CardDataError(f"{where}: missing field {key!r}")
        card_id = entry["id"]
        if card_id in seen:
            raise CardDataError(f"{where}: duplicate id {card_id!r}")
        seen.add(card_id)
        try:
            kind = CardType(entry["type"])
        except ValueError:
            raise CardDataError(f"{where}: type must be 'spam' or 'haywire'") from None
        if kind is CardType.PROGRAMMING:
            raise CardDataError(f"{where}: type must be 'spam' or 'haywire'")
        effect = entry["effect"]
        if kind is CardType.HAYWIRE and effect not in HAYWIRE_EFFECTS:
            raise CardDataError(
                f"{where}: unknown Haywire effect {effect!r} (known: {', '.join(HAYWIRE_EFFECTS)})"
            )
        if kind is CardType.SPAM and effect != "spam":
            raise CardDataError(f"{where}: a SPAM card's effect must be 'spam'")
        count = entry["count"]
        if not isinstance(count, int) or isinstance(count, bool) or count < 1:
            raise CardDataError(f"{where}: count must be a positive whole number")
        specs.append(
            CardSpec(
                card_id,
                kind,
                str(entry["title"]),
                count,
                effect,
                str(entry["text"]),
                str(entry.get("source", "")),
                str(entry.get("source_name", "")),
            )
        )
    deck = DamageDeckSpec(tuple(specs), str(data.get("note", "")))
    if deck.size != 40:
        raise CardDataError(f"{filename}: the damage deck must hold 40 cards, got {deck.size}")
    return deck


@cache
def damage_deck() -> DamageDeckSpec:
    """The shipped 2023 damage deck."""
    path = resources.files("roborally.content") / "data" / DAMAGE_FILE
    return parse_damage_deck(path.read_text(encoding="utf-8"))
