"""Fair time in the page, at normal animation speed: a programming clock starts only once the
page has shown what happened before it, and a program the game locks in when the time is up
closes the editor at once (not after the round's animation), showing what was filled in."""

from __future__ import annotations

import re
from typing import Any

import httpx
from playwright.sync_api import Page, expect

from .conftest import Contexts, ServerProcess, start_game

PROGRAM = "[data-testid=program]"


def seconds_on(page: Page) -> float:
    """The programming clock on screen, in seconds ("0:29" -> 29)."""
    text = page.locator("[data-testid=timer]").inner_text()
    found = re.search(r"(\d+):(\d\d)", text)
    assert found, text
    return int(found[1]) * 60 + int(found[2])


def test_every_classic_programming_phase_opens_with_the_whole_sand_timer(
    live_server: ServerProcess, contexts: Contexts, ui: Any
) -> None:
    """Classic, two bots, the 30 s sand timer: the bots finish at once, so the person's program
    is the timed one in every round; each round's register animation plays at normal speed
    first, and the clock still shows at least 28 s when the editor opens."""
    game = live_server.create(
        edition="classic",
        course="cl-first-shift",
        seats=[
            {"kind": "human", "name": "Ada"},
            {"kind": "bot", "bot": "beginner"},
            {"kind": "bot", "bot": "beginner"},
        ],
        max_rounds=3,
    )
    settings = httpx.get(f"{live_server.base}/api/games/{game['game_id']}", timeout=5).json()
    assert settings["timer_seconds"] == 30, settings
    page = contexts.page()
    frames = ui.capture_ws(page)
    page.goto(live_server.seat_url(game, 0, speed=1))
    start = page.locator("[data-testid=start-game]")
    expect(start.or_(page.locator(PROGRAM)).first).to_be_visible()
    if start.count() and start.is_visible():
        start.click()
    on_clock: list[float] = []
    animated = 0
    for round_no in (1, 2, 3):
        ui.until_program(page, timeout=90)
        expect(page.locator("[data-testid=timer]")).to_be_visible(timeout=10_000)
        on_clock.append(seconds_on(page))
        if round_no > 1:
            # The round before really played its registers on screen at normal speed.
            animated += page.evaluate("() => window.rrGame.anim.speed") == 1
        assert ui.act(page) == "program"
        # Locked in: the editor closes at once (the round plays), showing the program.
        expect(page.locator(PROGRAM)).to_have_count(0)
    assert all(seconds >= 28 for seconds in on_clock), on_clock
    assert animated == 2
    # The server agrees: every clock of a program of this seat started with >= 28 s left.
    starts: dict[str, float] = {}
    for frame in frames:
        if frame["type"] != "state":
            continue
        for timer in frame.get("timers") or []:
            if timer["seat"] == 0 and timer["reason"] == "timer":
                left = timer["deadline"] - frame["server_time"]
                starts.setdefault(timer["decision_id"], left)
    assert len(starts) >= 3 and all(left >= 28 for left in starts.values()), starts


def test_the_editor_closes_at_once_when_the_time_is_up_and_shows_what_was_filled_in(
    live_server: ServerProcess, contexts: Contexts, shots: Any, ui: Any
) -> None:
    game = live_server.create(
        seats=[{"kind": "human", "name": "Ada"}, {"kind": "bot", "bot": "beginner"}],
        timer_seconds=5,
        seed=5,
    )
    page = contexts.page()
    frames = ui.capture_ws(page)
    page.goto(live_server.seat_url(game, 0, speed=1))
    start_game(page)
    ui.until_program(page, timeout=60)
    expect(page.locator("[data-testid=timer]")).to_be_visible()
    chosen = ui.program_first_cards(page, 2)
    closed = page.locator("[data-testid=time-up]")
    expect(closed).to_be_visible(timeout=15_000)
    # At once: within moments of the deadline (by the server's clock), before anything of the
    # round is shown, and nothing can be changed any more.
    now = page.evaluate("() => window.rrGame.now()")
    deadline = max(
        timer["deadline"]
        for f in frames
        if f["type"] == "state"
        for timer in f.get("timers") or []
        if timer["seat"] == 0 and timer["reason"] == "timer"
    )
    assert now - deadline < 2.5, now - deadline
    expect(closed).to_contain_text("Time is up")
    expect(page.locator("[data-testid=hand-card]")).to_have_count(0)
    expect(page.locator("[data-testid=submit-program]")).to_have_count(0)
    for register, card in enumerate(chosen, start=1):
        expect(page.locator(f"[data-testid=register-{register}] .card")).to_have_attribute(
            "data-card", card
        )
    # The cards the game put in registers 3-5, as the player's own view has them.
    expect(page.locator("[data-testid=decision]")).to_be_visible()  # 2023: shut down?
    own = [
        f["observation"]["players"][0]
        for f in frames
        if f["type"] == "state" and f.get("observation")
    ][-1]
    for register in (3, 4, 5):
        slot = page.locator(f"[data-testid=register-{register}]")
        expect(slot.locator(".auto-tag")).to_have_text("game")
        (card,) = own["registers"][register - 1]["cards"]
        expect(slot.locator(".card")).to_have_attribute("data-card", card)
    shots(page, "time-up-desktop")
    # It stays in sight below the next question of the round.
    expect(closed).to_be_visible()
