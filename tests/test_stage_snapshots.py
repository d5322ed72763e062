"""The classic stages that run without a snapshot keep their promise.

``ASK_FIRST`` stages ask every question before they change anything, so a suspension needs no
rollback; a ``QUIET_WHEN`` stage whose test holds never suspends (the engine raises an
AssertionError if it does).
Here whole games of random bots run with the check switched on: a stage that changed the game
before it asked fails the game with an AssertionError.
"""

from __future__ import annotations

import pytest

from roborally.bots.random_bot import RandomBot
from roborally.bots.runner import new_game, run_bots


@pytest.mark.parametrize(
    ("edition", "course", "variants"),
    [
        ("classic", "cl-first-shift", ["power_down_without_damage"]),
        ("classic", "cl-first-shift", []),
        ("classic-1994", "cl-first-shift", ["option_cards"]),
    ],
)
@pytest.mark.parametrize("seed", [1, 2])
def test_stages_without_snapshots_leave_the_game_untouched_when_they_ask(
    edition: str, course: str, variants: list[str], seed: int
) -> None:
    game = new_game(course, 5, seed, max_rounds=8, variants=variants, edition=edition)
    game._rules.check_untouched = True  # type: ignore[attr-defined]
    run_bots(game, [RandomBot(10 * seed + seat) for seat in range(5)])
    assert game.is_over()
