"""The bot levels a player picks (Beginner, Casual, Strong, Expert): each plays whole games of
both editions without fallbacks, decides from its seed and observation only, is listed in the
lobby's options in order of strength, and a small sample shows the order.

The 200-game figures that order every pair of levels are in docs/bots.md (benchmarks, not tests).
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from roborally.bots.expert import ExpertBot
from roborally.bots.levels import LEVELS, OTHER_BOTS, LevelBot, bot_options
from roborally.bots.planner import PlannerBot
from roborally.bots.random_bot import BOTS, RandomBot, make_bot
from roborally.bots.runner import new_game
from roborally.bots.tournament import run_tournament
from roborally.engine.core.decisions import Action, DecisionKind
from roborally.engine.game import Game
from roborally.server.rulesets import options_json

IDS = ["beginner", "casual", "strong", "expert"]


def strict(kind: str, seed: int, variants: list[str] | None = None) -> Any:
    bot = make_bot(kind, seed)
    if isinstance(bot, PlannerBot):
        bot.strict = True  # an unexpected exception fails the test instead of a safe answer
        if variants is not None:
            bot.variants = frozenset(variants)
    return bot


def play(game: Game, bots: list[Any]) -> list[tuple[str, Any]]:
    """Play to the end; the choices made, in order."""
    choices = []
    while not game.is_over():
        for d in game.pending_decisions():
            choice = bots[d.seat].choose(game.observation(d.seat), d)
            game.apply(Action(d.id, d.seat, choice))
            choices.append((d.id, choice))
    return choices


# --------------------------------------------------------------------------- the list
def test_the_levels_are_listed_in_order_of_strength_with_descriptions() -> None:
    assert [level.id for level in LEVELS] == IDS
    assert [level.rank for level in LEVELS] == [1, 2, 3, 4]
    listed = bot_options(list(BOTS))
    assert [b["id"] for b in listed[:4]] == IDS
    assert [b["title"] for b in listed[:4]] == ["Beginner", "Casual", "Strong", "Expert"]
    assert [b["level"] for b in listed[:4]] == [1, 2, 3, 4]
    for entry in listed:
        assert set(entry) == {"id", "title", "description", "level"}
        text = entry["description"]
        assert text and "\n" not in text and len(text) <= 100, entry
    # every bot the server accepts is listed: the others after the levels, without a level
    assert sorted(b["id"] for b in listed) == sorted(BOTS)
    others = listed[4:]
    assert {b["id"] for b in others} >= set(OTHER_BOTS) == {"planner", "random"}
    assert all(b["level"] is None for b in others)
    # the lobby's options carry exactly this list (GET /api/options)
    assert options_json({}, {})["bots"] == listed
    json.dumps(listed)


def test_every_listed_bot_is_made_by_its_id() -> None:
    assert isinstance(make_bot("beginner", 1), LevelBot)
    assert isinstance(make_bot("casual", 1), LevelBot)
    assert type(make_bot("strong", 1)) is PlannerBot
    assert type(make_bot("planner", 1)) is PlannerBot  # the Strong level's older name
    assert type(make_bot("expert", 1)) is ExpertBot
    assert isinstance(make_bot("random", 1), RandomBot)
    beginner, casual = make_bot("beginner", 1), make_bot("casual", 1)
    assert isinstance(beginner, LevelBot) and isinstance(casual, LevelBot)
    assert beginner.sight < casual.sight and beginner.noise > casual.noise
    assert beginner.careless > casual.careless and beginner.upgrades < casual.upgrades


# ------------------------------------------------------------------------- whole games
@pytest.mark.parametrize(
    ("edition", "course", "variants"),
    [
        ("2023", "y23-rush-hour", []),
        ("2023", "y23-river-run", ["less_spam", "competitive_start"]),
        ("classic", "cl-tune-up", []),
        ("classic-1994", "cl-first-shift", ["option_cards"]),
    ],
)
def test_every_level_plays_whole_games(edition: str, course: str, variants: list[str]) -> None:
    game = new_game(course, 4, 5, max_rounds=40, variants=variants, edition=edition)
    bots = [strict(kind, seat, variants) for seat, kind in enumerate(IDS)]
    play(game, bots)
    assert game.is_over()
    for bot in bots:
        assert bot.fallbacks == 0 and bot.errors == [], bot.name
        assert bot.decisions > 0


def test_the_weak_levels_use_upgrades_in_some_rounds_only() -> None:
    """Upgrade phases of a beginner: it buys or draws in few of them, the planner in more."""
    active = {"beginner": 0, "strong": 0}
    phases = {"beginner": 0, "strong": 0}
    for seed in range(3):
        kinds = ["beginner", "strong"] * 2
        game = new_game("y23-rush-hour", 4, 40 + seed, max_rounds=30)
        bots = [strict(kind, 10 * seed + seat) for seat, kind in enumerate(kinds)]
        while not game.is_over():
            for d in game.pending_decisions():
                choice = bots[d.seat].choose(game.observation(d.seat), d)
                if d.kind is DecisionKind.UPGRADE_PHASE and d.info.get("energy", 0) >= 3:
                    phases[kinds[d.seat]] += 1
                    active[kinds[d.seat]] += choice != "done"
                game.apply(Action(d.id, d.seat, choice))
    assert phases["beginner"] and phases["strong"]
    assert active["beginner"] / phases["beginner"] < active["strong"] / phases["strong"]


# ------------------------------------------------------------------------- determinism
@pytest.mark.parametrize("kind", IDS)
def test_a_level_decides_from_its_seed(kind: str) -> None:
    """The same seeds play the same game; a bot made afresh in the middle of a game (a server
    restart rebuilds its bots) answers as the one that played until then."""
    kinds = [kind, "casual", "beginner", "strong"]
    games = []
    for _ in range(2):
        game = new_game("y23-rush-hour", 4, 9, max_rounds=5)
        play(game, [strict(k, 100 + seat) for seat, k in enumerate(kinds)])
        games.append(game)
    assert games[0].actions == games[1].actions
    game = new_game("y23-rush-hour", 4, 9, max_rounds=5)
    bots = [strict(k, 100 + seat) for seat, k in enumerate(kinds)]
    rebuilt = 0
    while not game.is_over():
        for d in game.pending_decisions():
            obs = game.observation(d.seat)
            choice = bots[d.seat].choose(obs, d)
            if d.kind is DecisionKind.PROGRAM and d.seat == 0:
                assert strict(kind, 100).choose(obs, d) == choice
                rebuilt += 1
            game.apply(Action(d.id, d.seat, choice))
    assert rebuilt >= 3


def test_the_noise_comes_from_the_seed() -> None:
    """Other seeds make other mistakes; the full-strength settings play as the planner."""
    game = new_game("y23-rush-hour", 2, 12, max_rounds=8)
    bots = [make_bot("strong", 1), make_bot("strong", 2)]
    programs = []
    while not game.is_over():
        for d in game.pending_decisions():
            obs = game.observation(d.seat)
            if d.kind is DecisionKind.PROGRAM and d.seat == 0 and obs["players"][0]["pos"]:
                programs.append((obs, d))
            game.apply(Action(d.id, d.seat, bots[d.seat].choose(obs, d)))
    assert len(programs) >= 5
    differ = 0
    for obs, d in programs:
        answers = {make_bot("beginner", seed).choose(obs, d) for seed in range(6)}
        differ += len(answers) > 1
        full = LevelBot(3, sight=9, noise=0.0, careless=0.0, upgrades=1.0)
        assert full.choose(obs, d) == PlannerBot(3).choose(obs, d)
    assert differ >= len(programs) // 2


# -------------------------------------------------------------------------- ordering
def test_strong_beats_beginner_and_beginner_beats_random() -> None:
    """A small sample of the order (docs/bots.md has 200 games per pair)."""
    result = run_tournament("2023", "y23-rush-hour", ["strong", "beginner"], games=16, seed=300)
    assert result.errors == []
    won, lost = result.head_to_head()["strong"]["beginner"]
    assert won >= 13 and won + lost == 16
    result = run_tournament("2023", "y23-rush-hour", ["beginner", "random"], games=6, seed=300)
    won, lost = result.head_to_head()["beginner"]["random"]
    assert won == 6 and lost == 0
    assert result.stats()["beginner"].reboots < result.stats()["random"].reboots
