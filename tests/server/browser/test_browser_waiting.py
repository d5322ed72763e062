"""Games wait for their people, in real browsers: a newcomer who lets one question's time run
out still plays the next one, and a game all of whose players closed their pages waits,
paused, and goes on at the same decision when one comes back."""

from __future__ import annotations

from typing import Any

from playwright.sync_api import expect

from .conftest import MIN_SECONDS, Contexts, ServerProcess, act, start_game


def test_a_missed_deadline_plays_that_question_only(
    live_server: ServerProcess, contexts: Contexts
) -> None:
    game = live_server.create(
        seats=[{"kind": "human", "name": "Ada"}, {"kind": "bot"}],
        variants=["lighter"],
        decision_seconds=MIN_SECONDS,
        program_seconds=600,
        first_player=0,
        max_rounds=2,
    )
    page = contexts.page()
    page.goto(live_server.seat_url(game, 0, speed=0, lang="en"))
    start_game(page)  # the start space question: Ada does not answer it
    expect(page.locator("[data-testid=decision]")).to_have_attribute("data-kind", "start_space")
    # Its 2 s pass: the game takes a start space for her, this once, and asks her program.
    expect(page.locator("[data-testid=program]")).to_be_visible(timeout=15_000)
    expect(page.locator("[data-testid=auto-banner]")).to_be_hidden()
    expect(page.locator("[data-testid=player-0]")).not_to_contain_text("played for them")
    assert act(page) == "program"  # she plays it herself: the round is played
    expect(page.locator("[data-testid=phase]")).to_contain_text("Round 2", timeout=15_000)


def test_a_game_everyone_left_waits_and_goes_on_at_the_same_decision(
    live_server: ServerProcess, contexts: Contexts, shots: Any
) -> None:
    game = live_server.create(
        seats=[{"kind": "human", "name": "Ada"}, {"kind": "human", "name": "Bo"}],
        variants=["lighter"],
        decision_seconds=MIN_SECONDS * 30,
        program_seconds=600,
        grace_seconds=MIN_SECONDS,
        first_player=0,
    )
    gid = game["game_id"]
    ada, bo, watcher = contexts.page(), contexts.page(), contexts.page()
    ada.goto(live_server.seat_url(game, 0, speed=0, lang="en"))
    bo.goto(live_server.seat_url(game, 1, speed=0, lang="en"))
    bo.wait_for_function("() => location.hash.startsWith('#token=')")
    bo_link = bo.url
    start_game(ada)
    watcher.goto(f"{live_server.base}/?game={gid}&speed=0&lang=en")
    expect(watcher.locator("[data-testid=paused-banner]")).to_be_hidden()
    question = ada.locator("[data-testid=decision]")
    expect(question).to_have_attribute("data-kind", "start_space")
    asked = ada.evaluate("() => window.rrGame.latest.pending[0].id")
    # Both players close their pages, for longer than the grace period: the game waits.
    ada.close()
    bo.close()
    banner = watcher.locator("[data-testid=paused-banner]")
    expect(banner).to_be_visible()
    expect(banner).to_contain_text("none of its players is connected")
    shots(watcher, "paused-desktop")
    # Its clocks stand still: no grace period runs, nobody is played for; only the long wait
    # before the game would end as abandoned.
    reasons = watcher.evaluate("() => window.rrGame.latest.timers.map((t) => t.reason)")
    assert reasons == ["abandon"], reasons
    expect(watcher.locator("[data-testid=player-0]")).not_to_contain_text("played for them")
    # Bo comes back (his own link): the game goes on where it was, Ada's question waits.
    bo = contexts.page()
    bo.goto(bo_link)
    expect(banner).to_be_hidden()
    expect(bo.locator("[data-testid=player-1] .badge.you")).to_be_visible()
    still = bo.evaluate("() => window.rrGame.latest.seats[0].auto")
    assert still is False
    ada = contexts.page()
    ada.goto(live_server.seat_url(game, 0, speed=0, lang="en"))
    expect(ada.locator("[data-testid=decision]")).to_have_attribute("data-kind", "start_space")
    assert ada.evaluate("() => window.rrGame.latest.pending[0].id") == asked
