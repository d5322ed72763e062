"""Card data files: the 2023 damage deck (``data/cards/damage-2023.json``).

A game receives its damage deck through :class:`~roborally.engine.core.state.GameConfig`; the
other card files belong to the engine (:mod:`roborally.engine.core.carddata`, whose helpers and
:class:`CardDataError` this module re-exports).
"""

from __future__ import annotations

from functools import cache
from importlib import resources

from roborally.engine.core.carddata import CardDataError as CardDataError
from roborally.engine.core.carddata import card_entries as card_entries
from roborally.engine.core.carddata import card_file as card_file
from roborally.engine.core.cards import HAYWIRE_EFFECTS, CardSpec, CardType, DamageDeckSpec

DAMAGE_FILE = "cards/damage-2023.json"


def parse_damage_deck(text: str, filename: str = DAMAGE_FILE) -> DamageDeckSpec:
    """Parse and validate a damage deck file (spec 1.4 and 12-A1: 40 cards, SPAM and Haywire)."""
    data = card_file(text, filename)
    specs: list[CardSpec] = []
    fields = ("id", "type", "title", "count", "effect", "text")
    for where, entry in card_entries(data, filename, fields):
        card_id = entry["id"]
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
