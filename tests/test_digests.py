"""The engine's behaviour, pinned: seeded games over every shipped course of every edition end
with the state digests in ``tests/records/digests.json``.

A change that only restructures the engine or makes it faster must leave every digest as it is.
A rule fix changes some of them on purpose: then bump the edition's rules version, regenerate
with ``ROBORALLY_UPDATE_DIGESTS=1 uv run pytest tests/test_digests.py`` and say in the commit
which games changed and why.

Each course plays three games of random bots (``RandomBot``, seeded by seat): four robots (or
the course's maximum), once with no alternative rules, once with a bundle of them (those of the
edition that combine; see ``BUNDLES``), once with two robots, and once with the most robots
the course and edition take (6 in 2023, up to 8 in classic); up to 12 rounds each.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from roborally.bots.random_bot import RandomBot
from roborally.bots.runner import new_game, run_bots
from roborally.engine.editions import all_editions
from roborally.engine.game import Game
from roborally.server.rulesets import courses_for

DIGESTS = Path(__file__).parent / "records" / "digests.json"
ROUNDS = 12
BUNDLES = {
    "2023": ["less_spam", "competitive_start", "dynamic_archiving"],
    "classic": ["option_cards", "power_down_without_damage", "shared_ties"],
    "classic-1994": ["option_cards"],
}


def games() -> list[tuple[str, str, int, int, tuple[str, ...]]]:
    """(edition, course, seed, robots, variants) of every pinned game."""
    found = []
    for edition in all_editions():
        bundle = tuple(v for v in BUNDLES.get(edition.id, []) if v in edition.variants)
        for course in courses_for(edition.id):
            most = min(4, course.players[1], edition.max_players)
            found.append((edition.id, course.id, 1, most, ()))
            found.append((edition.id, course.id, 2, most, bundle))
            found.append((edition.id, course.id, 3, max(2, course.players[0]), ()))
            full = min(course.players[1], edition.max_players)
            if full > most:  # a full table: 6 robots in 2023, up to 8 in classic
                found.append((edition.id, course.id, 4, full, ()))
    return found


def key(edition: str, course: str, seed: int, robots: int, variants: tuple[str, ...]) -> str:
    return f"{edition}/{course}/seed {seed}/{robots} robots/{','.join(variants) or '-'}"


def play(edition: str, course: str, seed: int, robots: int, variants: tuple[str, ...]) -> Game:
    game = new_game(
        course, robots, seed, max_rounds=ROUNDS, variants=list(variants), edition=edition
    )
    run_bots(game, [RandomBot(100 * seed + seat) for seat in range(robots)])
    return game


def test_seeded_games_end_with_the_pinned_digests() -> None:
    actual = {key(*g): play(*g).digest() for g in games()}
    if os.environ.get("ROBORALLY_UPDATE_DIGESTS"):
        DIGESTS.write_text(json.dumps(actual, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    expected = json.loads(DIGESTS.read_text(encoding="utf-8"))
    assert set(actual) == set(expected), "games added or gone: regenerate (see the docstring)"
    changed = sorted(k for k in actual if actual[k] != expected[k])
    assert not changed, f"{len(changed)} of {len(actual)} games changed: {changed[:8]}"


@pytest.mark.parametrize("edition", ["2023", "classic", "classic-1994"])
def test_every_edition_is_pinned_on_every_course(edition: str) -> None:
    pinned = {
        k.split("/")[1]
        for k in json.loads(DIGESTS.read_text(encoding="utf-8"))
        if k.startswith(edition + "/")
    }
    assert pinned == {c.id for c in courses_for(edition)}
