"""axe-core's check of the page's rarer states, in the dark and the light theme: the upgrade
shop (a decision), the event log and the chat open beside it, the game over (the result
window and the finished tray), the rematch's waiting room, the tabletop mode's shared screen
and a phone's page there, and the rules pages. No serious or critical violation anywhere (the
lobby and the programming tray: test_browser_a11y.py)."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import Page, expect

from roborally.server.rules_pages import page_editions

from .conftest import (
    DESKTOP,
    MIN_SECONDS,
    PHONE,
    Contexts,
    ServerProcess,
    as_creator,
    start_game,
)
from .test_browser_a11y import axe_problems, axe_script

SCHEMES = ["dark", "light"]


def themed(contexts: Contexts, scheme: str, phone: bool = False, **options: Any) -> Page:
    """A page of its own in ``scheme`` (the page follows the system's theme), with Playwright's
    context ``options`` (reduced_motion...)."""
    if phone:
        return contexts.custom(
            viewport=PHONE, device_scale_factor=1, is_mobile=True, has_touch=True,
            color_scheme=scheme, **options,
        )  # fmt: skip
    return contexts.custom(viewport=DESKTOP, device_scale_factor=1, color_scheme=scheme, **options)


def checked(page: Page, where: str, shots: Any, scheme: str) -> list[str]:
    """axe's problems on ``page`` named by ``where``; a screenshot of it in the theme."""
    expect(page.locator("html")).to_have_attribute("data-theme", scheme)
    shots(page, f"a11y-{where}-{scheme}")
    return [f"{where}: {problem}" for problem in axe_problems(page)]


@pytest.mark.parametrize("scheme", SCHEMES)
def test_axe_finds_no_serious_problem_in_the_decisions_the_log_and_the_chat(
    live_server: ServerProcess, contexts: Contexts, shots: Any, scheme: str
) -> None:
    axe_script()
    game = live_server.create(
        seats=[{"kind": "human", "name": "Ada"}, {"kind": "bot", "bot": "random", "name": "Bo"}],
        seed=2,
    )
    page = themed(contexts, scheme)
    page.goto(live_server.seat_url(game, 0, speed=0, lang="en"))
    start_game(page)
    problems = checked(page, "start-space", shots, scheme)
    page.locator("[data-testid=decision] [data-testid=choice]").first.click()
    expect(page.locator("[data-testid=decision][data-kind=upgrade_phase]")).to_be_visible()
    # The upgrade shop, with the log (open on a desktop) and the chat beside it.
    expect(page.locator("[data-testid=chat-input]")).to_be_visible()
    expect(page.locator("[data-testid=log] li").first).to_be_visible()
    page.fill("[data-testid=chat-input]", "hello")
    page.press("[data-testid=chat-input]", "Enter")
    expect(page.locator("[data-testid=chat-message]").last).to_contain_text("hello")
    problems += checked(page, "upgrade-shop", shots, scheme)
    # The game's information and the log folded away and open again.
    page.locator("[data-testid=game-info] summary").click()
    problems += checked(page, "game-info", shots, scheme)
    assert not problems, "\n".join(problems)
    assert not page.js_errors  # type: ignore[attr-defined]


@pytest.mark.parametrize("scheme", SCHEMES)
def test_axe_finds_no_serious_problem_at_the_game_over_and_in_the_rematch(
    live_server: ServerProcess, contexts: Contexts, shots: Any, scheme: str
) -> None:
    axe_script()
    game = live_server.create(
        seats=[{"kind": "human", "name": "Ada"}, {"kind": "human", "name": "Bo"}],
        max_rounds=1,
        decision_seconds=MIN_SECONDS,
        program_seconds=MIN_SECONDS,
    )
    page = themed(contexts, scheme)
    page.goto(live_server.seat_url(game, 0, speed=0, lang="en"))
    as_creator(page, game)
    page.reload()
    problems = checked(page, "waiting-room", shots, scheme)
    page.click("[data-testid=start-game]")
    # Nobody answers: the deadlines pass, the game plays the seats and ends after one round.
    expect(page.locator("[data-testid=result]")).to_be_visible(timeout=60_000)
    problems += checked(page, "result", shots, scheme)
    page.keyboard.press("Escape")
    expect(page.locator("[data-testid=result]")).to_have_count(0)
    problems += checked(page, "game-over", shots, scheme)
    page.locator("[data-testid=rematch]").first.click()
    expect(page.locator("[data-testid=phase]")).to_have_text("Waiting room", timeout=15_000)
    expect(page.locator("[data-testid=invite-1]")).to_be_visible()
    problems += checked(page, "rematch-waiting-room", shots, scheme)
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("scheme", SCHEMES)
def test_axe_finds_no_serious_problem_in_the_tabletop_mode(
    live_server: ServerProcess, contexts: Contexts, shots: Any, scheme: str
) -> None:
    axe_script()
    game = live_server.create(
        seats=[{"kind": "human", "name": "Ada"}, {"kind": "human", "name": "Bo"}],
        max_rounds=1,
        table=True,  # as the lobby's "Play at one table" creates it: every seat has an invite
    )
    table = themed(contexts, scheme)
    table.goto(live_server.base + "/?lang=en")
    as_creator(table, game)
    table.goto(f"{live_server.base}/?game={game['game_id']}&table=1&speed=0&lang=en")
    expect(table.get_by_test_id("table-qr-1")).to_be_visible()
    table.wait_for_function(
        "() => document.querySelector('[data-testid=table-qr-1]').naturalWidth > 0"
    )
    problems = checked(table, "table-codes", shots, scheme)
    phone = themed(contexts, scheme, phone=True)
    phone.goto(live_server.seat_url(game, 0, speed=0, lang="en"))
    expect(phone.get_by_test_id("ready")).to_be_visible()
    problems += checked(phone, "table-phone", shots, scheme)
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("scheme", SCHEMES)
def test_axe_finds_no_serious_problem_in_the_rules_pages(
    live_server: ServerProcess, contexts: Contexts, shots: Any, scheme: str
) -> None:
    axe_script()
    page = themed(contexts, scheme)
    problems: list[str] = []
    for edition in page_editions():
        page.goto(f"{live_server.base}/rules/{edition}?lang=en")
        expect(page.locator("h1")).to_be_visible()
        shots(page, f"a11y-rules-{edition}-{scheme}")
        problems += [f"rules/{edition}: {p}" for p in axe_problems(page)]
    assert not problems, "\n".join(problems)
