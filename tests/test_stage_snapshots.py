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
from roborally.engine.core.decisions import Action


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


@pytest.mark.parametrize(
    ("edition", "course", "variants"),
    [
        ("2023", "y23-rush-hour", []),
        ("2023", "y23-rush-hour", ["competitive_start"]),
        ("classic", "cl-first-shift", []),
        ("classic", "cl-first-shift", ["power_down_without_damage"]),
        ("classic-1994", "cl-first-shift", ["option_cards", "timer"]),
    ],
)
def test_skipping_a_stage_rerun_gives_the_decisions_a_rerun_would(
    edition: str, course: str, variants: list[str]
) -> None:
    """``Game.apply`` does not run the stage again while other decisions of its batch are
    missing, or while questions asked in turn wait (``pending_after``; classic announcements
    and re-entries); running it again must ask exactly those, with equal content."""
    game = new_game(course, 4, 5, max_rounds=4, variants=variants, edition=edition)
    bots = [RandomBot(seat) for seat in range(4)]
    skipped = 0
    while not game.is_over():
        for decision in game.pending_decisions():
            action = Action(decision.id, decision.seat, bots[decision.seat].choose({}, decision))
            rerun = game.copy()
            rerun.state.answers[action.decision_id] = Action(
                action.decision_id, action.seat, rerun.check(action)
            )
            expected = rerun._rules.advance()  # type: ignore[attr-defined]
            game.apply(action)
            assert game.pending_decisions() == expected
            assert game.digest() == rerun.digest()
            skipped += len(expected) > 0 and decision.id not in {d.id for d in expected}
    assert skipped > 10
