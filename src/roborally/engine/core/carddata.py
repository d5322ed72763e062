"""Card data files: the shared reading and checking of their JSON.

The engine owns the data of the cards whose rules it implements by id (the 2023 upgrades, the
classic program deck and option cards: ``roborally/engine/data/cards/``) and reads it as
package data; the content layer uses the same helpers for the 2023 damage deck, which a game
receives through :class:`~roborally.engine.core.state.GameConfig`.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from importlib import resources
from typing import Any


class CardDataError(ValueError):
    """A malformed card data file, naming the file and the field at fault."""


def read_card_data(name: str) -> str:
    """The text of the engine's data file ``name`` (``cards/upgrades-2023.json``)."""
    return (resources.files("roborally.engine") / "data" / name).read_text(encoding="utf-8")


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
