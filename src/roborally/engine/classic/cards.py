"""Classic card data: the 84-card program deck and the 26 option cards.

The engine owns these files (package data under ``roborally/engine/data/``):
``data/cards/classic-program.json`` lists each program card type with its priority numbers;
``data/cards/classic-options.json`` lists the option cards. Both are [STD] values of the
printed game (spec 1.2, 8.3): the sources give only the counts, so the files can be corrected
without code changes.

>>> deck = program_deck()
>>> len(deck), deck[0].id, deck[-1].id
(84, 'u_turn@10', 'move3@840')
>>> len(option_cards())
26
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import Any

from roborally.engine.classic.model import OPTION_IDS, PROGRAM_DECK_SIZE, PROGRAM_TYPES
from roborally.engine.core.carddata import card_entries, card_file, read_card_data

PROGRAM_FILE = "cards/classic-program.json"
OPTION_FILE = "cards/classic-options.json"


class ClassicCardDataError(ValueError):
    """A malformed classic card file, naming the file and the entry at fault."""


@dataclass(frozen=True)
class ProgramCard:
    """One program card: ``id`` is ``TYPE@PRIORITY`` (``move1@490``)."""

    id: str
    type: str
    name: str
    priority: int
    text: str
    source: str

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "name": self.name,
            "type": self.type,
            "priority": self.priority,
            "count": 1,
            "text": self.text,
            "source": self.source,
        }


@dataclass(frozen=True)
class OptionCard:
    """One option card (each exists once)."""

    id: str
    name: str
    timing: str
    text: str
    source: str
    enabled: bool = True

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "name": self.name,
            "type": "option",
            "count": 1,
            "timing": self.timing,
            "text": self.text,
            "source": self.source,
            "enabled": self.enabled,
        }


def _load(text: str, filename: str) -> dict[str, Any]:
    return card_file(text, filename, ClassicCardDataError)


def parse_program_deck(text: str, filename: str = PROGRAM_FILE) -> tuple[ProgramCard, ...]:
    """Parse and check the program deck: 84 cards, known types, unique priorities 10-840."""
    cards: list[ProgramCard] = []
    seen: dict[int, str] = {}
    fields = ("type", "name", "text", "priorities")
    data = _load(text, filename)
    for where, entry in card_entries(data, filename, fields, ClassicCardDataError, unique=None):
        kind = entry["type"]
        if kind not in PROGRAM_TYPES:
            raise ClassicCardDataError(
                f"{where}: unknown card type {kind!r} (known: {', '.join(PROGRAM_TYPES)})"
            )
        priorities = entry["priorities"]
        if not isinstance(priorities, list) or not priorities:
            raise ClassicCardDataError(f"{where}: 'priorities' must be a list of numbers")
        for priority in priorities:
            if not isinstance(priority, int) or isinstance(priority, bool) or priority < 1:
                raise ClassicCardDataError(f"{where}: bad priority {priority!r}")
            if priority in seen:
                raise ClassicCardDataError(
                    f"{where}: priority {priority} is also on a {seen[priority]} card"
                )
            seen[priority] = kind
            cards.append(
                ProgramCard(
                    f"{kind}@{priority}",
                    kind,
                    str(entry["name"]),
                    priority,
                    str(entry["text"]),
                    str(entry.get("source", "")),
                )
            )
    if len(cards) != PROGRAM_DECK_SIZE:
        raise ClassicCardDataError(
            f"{filename}: the program deck must hold {PROGRAM_DECK_SIZE} cards, got {len(cards)}"
        )
    return tuple(sorted(cards, key=lambda c: c.priority))


def parse_option_cards(text: str, filename: str = OPTION_FILE) -> tuple[OptionCard, ...]:
    """Parse and check the option cards: ids the engine implements, each at most once."""
    cards: list[OptionCard] = []
    fields = ("id", "name", "timing", "text")
    data = _load(text, filename)
    for where, entry in card_entries(data, filename, fields, ClassicCardDataError):
        card_id = entry["id"]
        if card_id not in OPTION_IDS:
            raise ClassicCardDataError(
                f"{where}: unknown option card {card_id!r} (the engine implements:"
                f" {', '.join(OPTION_IDS)})"
            )
        enabled = entry.get("enabled", True)
        if not isinstance(enabled, bool):
            raise ClassicCardDataError(f"{where}: 'enabled' must be true or false")
        cards.append(
            OptionCard(
                card_id,
                str(entry["name"]),
                str(entry["timing"]),
                str(entry["text"]),
                str(entry.get("source", "")),
                enabled,
            )
        )
    return tuple(cards)


@cache
def program_deck() -> tuple[ProgramCard, ...]:
    """The shipped 84-card program deck, by ascending priority."""
    return parse_program_deck(read_card_data(PROGRAM_FILE))


@cache
def option_cards() -> tuple[OptionCard, ...]:
    """The shipped option cards (26), in catalogue order."""
    return parse_option_cards(read_card_data(OPTION_FILE))
