"""The card catalogue of each edition, as ``roborally cards`` prints it."""

from __future__ import annotations

from functools import cache
from importlib import import_module
from typing import Any

from roborally.content.cards import damage_deck
from roborally.engine.core.cards import PROGRAMMING_CARDS


def catalogue(edition: str) -> dict[str, list[dict[str, Any]]]:
    """Sections of card descriptions (id, name, type, count, text, source) for ``edition``."""
    if edition == "2023":
        return _catalogue_2023()
    if edition in ("classic", "classic-1994"):
        try:
            classic_cards = import_module("roborally.content.classic_cards")
        except ImportError:
            raise ValueError(f"the {edition} card data is not available yet") from None
        result: dict[str, list[dict[str, Any]]] = classic_cards.catalogue(edition)
        return result
    raise ValueError(f"unknown edition {edition!r} (known: 2023, classic, classic-1994)")


def _catalogue_2023() -> dict[str, list[dict[str, Any]]]:
    programming = [
        {
            "id": spec.name,
            "name": spec.title,
            "source_name": spec.source_name,
            "type": spec.type.value,
            "count": spec.copies,
            "text": spec.text,
            "source": spec.source,
        }
        for spec in PROGRAMMING_CARDS.values()
    ]
    damage = [
        {
            "id": spec.name,
            "name": spec.title,
            "source_name": spec.source_name,
            "type": spec.type.value,
            "count": spec.copies,
            "text": spec.text,
            "source": spec.source,
        }
        for spec in damage_deck().cards
    ]
    sections: dict[str, list[dict[str, Any]]] = {
        "programming_cards": programming,
        "damage_cards": damage,
    }
    try:
        upgrades = import_module("roborally.content.upgrades")
    except ImportError:
        return sections
    sections["upgrade_cards"] = upgrades.catalogue()
    return sections


#: The translation key prefix of each catalogue section (see :func:`text_key`).
_KEY_PREFIX = {
    "programming_cards": "card",
    "damage_cards": "card",
    "program_cards": "card.classic",
    "upgrade_cards": "upgrade",
    "option_cards": "option",
}


def text_key(section: str, card: dict[str, Any]) -> str:
    """The translation key of a catalogue card (``KEY.name`` and ``KEY.text`` in
    ``data/i18n/LANG.json``): ``card.move1``, ``card.spam``, ``card.classic.back_up`` (a
    classic program card, whatever its priority), ``upgrade.brakes``, ``option.brakes``.

    >>> text_key("program_cards", {"id": "move3@820", "type": "move3"})
    'card.classic.move3'
    >>> text_key("upgrade_cards", {"id": "brakes"})
    'upgrade.brakes'
    """
    if section == "program_cards":
        return f"card.classic.{card.get('type', str(card['id']).split('@')[0])}"
    return f"{_KEY_PREFIX.get(section, 'card')}.{card['id']}"


@cache  # bounded: the server asks only for known editions
def cards_json(edition: str) -> dict[str, Any] | None:
    """The cards of ``edition`` by id as the web page reads them (``/api/web/cards``), or
    ``None`` for an unknown edition. ``key`` names the card's texts in the translation files
    (the English ``name`` and ``text`` are those of ``key``)."""
    try:
        sections = catalogue(edition)
    except ValueError:
        return None
    cards: dict[str, dict[str, Any]] = {}
    for section, entries in sections.items():
        for card in entries:
            entry = {
                "name": card.get("name", card["id"]),
                "type": card.get("type", section),
                "text": card.get("text", ""),
                "section": section,
                "key": text_key(section, card),
            }
            for key in ("cost", "priority"):
                if key in card:
                    entry[key] = card[key]
            cards[str(card["id"])] = entry
    return {"v": 1, "edition": edition, "cards": cards}
