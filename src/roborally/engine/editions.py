"""Editions: each ruleset registers its rules class, its setup and its limits.

The core never branches on an edition's name; :class:`roborally.engine.game.Game` looks the
edition up here. A new ruleset subclasses :class:`roborally.engine.mechanics.Mechanics` (or an
existing ruleset), implements the stage methods, and calls :func:`register`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from roborally.engine.board import Course, Grid
    from roborally.engine.rules2023 import Rules2023
    from roborally.engine.state import GameConfig, GameState


@dataclass(frozen=True)
class Edition:
    """A ruleset: its id (``"2023"``), rules version, rules class and setup function, and
    ``grid``: the course as this ruleset plays it with these variants (whether a checkpoint
    switches off the element under it, whether there are reboot tokens), so that everyone who
    draws or explains the board shows the game's own board."""

    id: str
    title: str
    rules_version: str
    rules: Callable[[GameState], Rules2023]
    new_state: Callable[[GameConfig], GameState]
    min_players: int
    max_players: int
    variants: tuple[str, ...]
    grid: Callable[[Course, frozenset[str]], Grid]


EDITIONS: dict[str, Edition] = {}


def register(edition: Edition) -> None:
    EDITIONS[edition.id] = edition


def edition(edition_id: str) -> Edition:
    """The registered edition ``edition_id``; a clear error names the known ones."""
    _load_builtin()
    try:
        return EDITIONS[edition_id]
    except KeyError:
        known = ", ".join(sorted(EDITIONS))
        raise ValueError(f"unknown edition {edition_id!r} (known: {known})") from None


def all_editions() -> list[Edition]:
    _load_builtin()
    return [EDITIONS[k] for k in sorted(EDITIONS)]


def _load_builtin() -> None:
    if "2023" not in EDITIONS:
        from roborally.engine import rules2023  # noqa: F401 - registers itself
    if "classic" not in EDITIONS:
        from roborally.engine import classic  # noqa: F401 - registers classic, classic-1994
