"""Card data files: the 2023 damage deck (``data/cards/damage-2023.json``)."""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from functools import cache
from importlib import resources
from typing import Any

from roborally.engine.cards import HAYWIRE_EFFECTS, CardSpec, CardType, DamageDeckSpec

DAMAGE_FILE = "cards/damage-2023.json"


class CardDataError(ValueError):
    """A malformed card data file, naming the file and the field at fault."""


def card_file(text: str, filename: str, error: type[ValueError] = CardDataError) -> dict[str, Any]:
    """A card data file's JSON object, which holds a ``cards`` list (every card file has one).

    Errors name the file, and the line and column of a JSON syntax error.
    """
    try:
        data: Any = json.loads(text)
    except json.JSONDecodeError as bad:
        raise error(f"{filename}:{bad.lineno}:{bad.colno}: {bad.msg}") from None
    if not isinstance(data, dict) or not isinstance(data.get("cards"), list):
        raise error(f"{filename}: expected an object with a 'cards' list")
    return data


def card_entries(
    data: dict[str, Any],
    filename: str,
    fields: Sequence[str],
    error: type[ValueError] = CardDataError,
    allowed: Sequence[str] | None = None,
    unique: str | None = "id",
) -> Iterator[tuple[str, dict[str, Any]]]:
    """The entries of ``data["cards"]`` with their position (``file: cards[i]``), each checked
    to be an object with ``fields`` (and, with ``allowed``, no others) whose ``unique`` field
    is not repeated."""
    seen: set[Any] = set()
    for index, entry in enumerate(data["cards"]):
        where = f"{filename}: cards[{index}]"
        if not isinstance(entry, dict):
            raise error(f"{where}: expected an object")
        for key in fields:
            if key not in entry:
                raise error(f"{where}: missing field {key!r}")
        if allowed is not None:
            unknown = set(entry) - set(allowed)
            if unknown:
                raise error(f"{where}: unknown field(s) {', '.join(sorted(unknown))}")
        if unique is not None:
            value = entry[unique]
            if not isinstance(value, str):
                raise error(f"{where}: {unique} must be a text, not {value!r}")
            if value in seen:
                raise error(f"{where}: duplicate {unique} {value!r}")
            seen.add(value)
        yield where, entry


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
