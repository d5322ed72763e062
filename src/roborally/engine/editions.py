"""Editions: each ruleset registers its rules class, its setup and its limits.

The core never branches on an edition's name; :class:`roborally.engine.game.Game` looks the
edition up here. A new ruleset subclasses :class:`roborally.engine.core.mechanics.Mechanics` (or an
existing ruleset), implements the stage methods, and is registered with :func:`register`; the
shipped ones are registered here from their modules' facts, so no rules module imports this
registry. Importing ``roborally.engine`` loads this module, which adds the edition check to
every new :class:`~roborally.engine.core.state.GameConfig`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from roborally.engine.core.state import CONFIG_CHECKS, GameConfig, GameState

if TYPE_CHECKING:
    from roborally.engine.core.board import Course, Grid
    from roborally.engine.core.driver import StageDriver


@dataclass(frozen=True)
class Edition:
    """A ruleset: its id (``"2023"``), rules version, rules class and setup function, and
    ``grid``: the course as this ruleset plays it with these variants (whether a checkpoint
    switches off the element under it, whether there are reboot tokens), so that everyone who
    draws or explains the board shows the game's own board."""

    id: str
    title: str
    rules_version: str
    rules: Callable[[GameState], StageDriver]
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
    """Register the shipped editions from their rules modules' facts (the rules modules do
    not import this registry, so the engine has no import cycle)."""
    if "2023" not in EDITIONS:
        from roborally.engine import rules2023
        from roborally.engine.core import state

        register(
            Edition(
                id="2023",
                title=rules2023.TITLE,
                rules_version=rules2023.RULES_VERSION,
                rules=rules2023.Rules2023,
                new_state=rules2023.new_state,
                min_players=rules2023.MIN_PLAYERS,
                max_players=rules2023.MAX_PLAYERS,
                variants=state.VARIANTS,
                grid=rules2023.board_grid,
            )
        )
    if "classic" not in EDITIONS:
        from roborally.engine import classic

        for edition_id, title, version, variants in (
            ("classic", classic.TITLE, classic.RULES_VERSION, classic.CLASSIC_VARIANTS),
            (
                "classic-1994",
                classic.TITLE_1994,
                classic.RULES_VERSION_1994,
                classic.CLASSIC_1994_VARIANTS,
            ),
        ):
            register(
                Edition(
                    id=edition_id,
                    title=title,
                    rules_version=version,
                    rules=classic.RulesClassic,
                    new_state=classic.new_state,
                    min_players=classic.MIN_PLAYERS,
                    max_players=classic.MAX_PLAYERS,
                    variants=variants,
                    grid=classic.board_grid,
                )
            )


def check_config(config: GameConfig) -> None:
    """A new game's settings must fit its edition: known variants, a number of players it
    takes (run by ``GameConfig`` itself, see :data:`roborally.engine.core.state.CONFIG_CHECKS`)."""
    rules = edition(config.edition)
    unknown = set(config.variants) - set(rules.variants)
    if unknown:
        raise ValueError(
            f"unknown variant(s) for the {rules.id} edition: {', '.join(sorted(unknown))}"
            f" (known: {', '.join(rules.variants)})"
        )
    if not rules.min_players <= len(config.players) <= rules.max_players:
        raise ValueError(
            f"the {rules.id} edition needs {rules.min_players} to {rules.max_players}"
            f" players, got {len(config.players)}"
        )


CONFIG_CHECKS.append(check_config)
