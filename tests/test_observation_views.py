"""Observations are built once per state and share the players' entries between seats, yet
each seat sees exactly what it would see built on its own (hands and hidden cards apart)."""

from __future__ import annotations

import pytest

from roborally.bots.random_bot import RandomBot
from roborally.bots.runner import new_game
from roborally.engine.core.decisions import Action
from roborally.engine.game import Game


def fresh_views(game: Game) -> dict[int | None, dict[str, object]]:
    """Every seat's view built without sharing (the rules' own observation, no memo)."""
    rules = game._rules  # the uncached path, for comparison
    pending = game.pending_decisions()
    seats: list[int | None] = [None, *range(len(game.config.players))]
    return {seat: rules.observation(seat, pending) for seat in seats}


@pytest.mark.parametrize(
    ("edition", "course"), [("2023", "y23-rush-hour"), ("classic", "cl-first-shift")]
)
def test_shared_views_match_views_built_alone(edition: str, course: str) -> None:
    game = new_game(course, 4, 5, max_rounds=3, edition=edition)
    bots = [RandomBot(seat) for seat in range(4)]
    checked = 0
    while not game.is_over():
        expected = fresh_views(game)
        # the spectator first, then the seats: later views reuse the entries built before
        for seat, view in expected.items():
            assert game.observation(seat) == view, (seat, checked)
        decision = game.pending_decisions()[0]
        choice = bots[decision.seat].choose(game.observation(decision.seat), decision)
        game.apply(Action(decision.id, decision.seat, choice))
        checked += 1
    assert checked > 20


def test_a_view_follows_every_change_of_the_state() -> None:
    game = new_game("y23-rush-hour", 2, 1)
    before = game.observation(0)
    assert game.observation(0) == before and game.observation(0) is not before
    before["round"] = 99  # a caller's change to its copy stays there
    assert game.observation(0)["round"] != 99
    game.state.players[0].energy = 9  # a direct change through the state is seen too
    assert game.observation(0)["players"][0]["energy"] == 9
    decision = game.pending_decisions(0)[0]
    game.apply(Action(decision.id, 0, game._rules.default_choice(decision)))
    assert game.observation(0)["pending"] != before["pending"]
