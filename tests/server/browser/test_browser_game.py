"""A whole game through the real page: lobby, start space, programming, activation, result,
replay; and the same on a phone-sized screen."""

from __future__ import annotations

import re
from typing import Any

from playwright.sync_api import Page, expect

from .conftest import Contexts, ServerProcess


def test_one_person_and_two_bots_play_a_whole_game(
    live_server: ServerProcess, contexts: Contexts, shots: Any, ui: Any
) -> None:
    page = contexts.page()
    page.goto(live_server.base + "/?speed=0")
    expect(page.get_by_role("heading", name="New game")).to_be_visible()
    page.fill("[data-testid=player-name]", "Ada")
    page.fill("[data-testid=max-rounds]", "4")
    expect(page.locator("[data-testid=course]")).to_have_value("tiny")
    rows = page.locator("[data-testid=seat-row]")
    expect(rows).to_have_count(3)
    expect(rows.nth(0)).to_contain_text("Ada (you)")
    expect(page.locator("[data-testid=seat-kind]").nth(0)).to_have_value(re.compile("^bot:"))
    page.wait_for_selector(".course-preview svg")
    page.locator("[data-testid=max-rounds]").blur()
    page.evaluate("() => window.scrollTo(0, 0)")  # the picture shows the lobby from its top
    shots(page, "lobby-desktop")
    page.click("text=More options")
    # Every decision has a deadline; without a timer, programming has the server's default.
    expect(page.locator("[data-testid=program-seconds]")).to_have_value("300")
    expect(page.locator("label[for=seed]")).to_contain_text("shown to every player")
    page.fill("[data-testid=seed]", "4")
    page.click("[data-testid=create-game]")
    # The seat's link: the token in the fragment, which no server or proxy ever sees.
    expect(page).to_have_url(re.compile(r"/\?game=[\w-]+#token=[\w-]+$"))

    # The creator is the only person: the game starts at once and asks for a start space.
    decision = page.locator("[data-testid=decision]")
    expect(decision).to_have_attribute("data-kind", "start_space")
    expect(page.locator("[data-testid=player-0]")).to_contain_text("Ada")
    expect(page.locator("[data-testid=player-0] .badge.you")).to_be_visible()
    # The start spaces are offered on the board too; take one there.
    choices = page.locator(".mark-layer .choice")
    assert choices.count() >= 3
    choices.nth(1).click()

    # The upgrade phase: install an upgrade from the reserve, then done.
    upgrade = page.locator("[data-testid=decision][data-kind=upgrade_phase]")
    expect(upgrade).to_be_visible()
    expect(upgrade).to_contain_text("energy")
    install = page.locator("[data-testid=choice][data-value^='\"install ']").first
    installed = install.get_attribute("data-value").strip('"').split(" ", 1)[1]
    shots(page, "upgrade-desktop")
    install.click()
    expect(page.locator("[data-testid=upgrades-0]")).to_be_visible()
    ui.until_program(page)
    assert page.locator("[data-testid=upgrades-0] .upgrade").count() == 1, installed

    # Round 1: program by tapping cards, see what is in the registers, then lock in.
    expect(page.locator("[data-testid=program]")).to_be_visible()
    expect(page.locator("[data-testid=phase]")).to_contain_text("Round 1")
    hand = page.locator("[data-testid=hand-card]")
    assert hand.count() == 9
    chosen = ui.program_first_cards(page, 4)
    for number, card in enumerate(chosen, start=1):
        expect(page.locator(f"[data-testid=register-{number}] .card")).to_have_attribute(
            "data-card", card
        )
    expect(page.locator("[data-testid=submit-program]")).to_be_disabled()
    # A card taken back from a register goes back to the hand.
    page.locator("[data-testid=register-4] .card").click()
    expect(page.locator("[data-testid=register-4]")).to_have_class(re.compile("empty"))
    ui.program_first_cards(page, 2)
    ui.preview_drawn(page)
    shots(page, "program-desktop")
    # Watch this activation at normal speed (and take its picture), then skip the rest.
    page.select_option("[data-testid=speed]", "1")
    page.click("[data-testid=submit-program]")

    # The activation may ask questions (with this seed, whether to use Recharge before the
    # register card): answer them as a player would until a register plays on the board.
    asked = ui.until_register_plays(page)
    assert "program" not in asked, asked
    page.wait_for_timeout(600)
    shots(page, "activation-desktop")
    if ui.visible(page, "[data-testid=skip]"):
        page.click("[data-testid=skip]")
    page.select_option("[data-testid=speed]", "0")

    # The rest of the game (the round limit is 3), answering whatever comes.
    answered = ui.play_until(page, lambda: ui.visible(page, "[data-testid=result]"), timeout=90)
    assert "program" in answered
    result = page.locator("[data-testid=result]")
    expect(result).to_contain_text(re.compile("win|Race over"))
    expect(page.locator("[data-testid=standings] li")).to_have_count(3)
    log = page.locator("[data-testid=log]")
    expect(log).to_contain_text("Register 5")
    expect(log).to_contain_text("Ada reveals")
    shots(page, "result-desktop")

    # The replay viewer steps through the finished game register by register.
    page.click("[data-testid=replay-link]")
    step = page.locator("[data-testid=replay-step]")
    expect(step).to_have_text("Setup")
    page.click("[data-testid=replay-next]")
    expect(step).to_have_text("Round 1 · Programming")
    page.click("[data-testid=replay-next]")
    expect(step).to_have_text("Round 1 · Register 1")
    page.click("[data-testid=replay-next]")
    expect(step).to_have_text("Round 1 · Register 2")
    page.click("[data-testid=replay-prev]")
    expect(step).to_have_text("Round 1 · Register 1")
    expect(page.locator("[data-testid=log]")).to_contain_text("Ada reveals")
    page.click("[data-testid=replay-last]")
    expect(step).to_contain_text("Round")
    expect(page.locator("[data-testid=replay-result]")).not_to_be_empty()
    page.click("[data-testid=replay-first]")
    page.click("[data-testid=replay-next]")
    page.click("[data-testid=replay-next]")
    page.click("[data-testid=replay-next]")
    expect(step).to_have_text("Round 1 · Register 2")
    shots(page, "replay-desktop")
    # The finished game is listed in the lobby with its replay.
    page.goto(live_server.base + "/")
    expect(page.locator("[data-testid=finished-games]")).to_contain_text("Training Run")
    # "Your seats" opens the finished game's result (not "Continue") with the same kind of link.
    seats = page.get_by_test_id("your-seats")
    expect(seats.get_by_role("link", name="Result").first).to_have_attribute(
        "href", re.compile(r"^/\?game=[\w-]+#token=[\w-]+$")
    )
    expect(seats.get_by_role("link", name="Continue")).to_have_count(0)


def test_a_phone_sized_screen_plays_by_tapping(
    live_server: ServerProcess, contexts: Contexts, shots: Any, ui: Any
) -> None:
    page = contexts.page(phone=True)
    page.goto(live_server.base + "/?speed=0")
    expect(page.get_by_role("heading", name="New game")).to_be_visible()
    page.wait_for_selector(".course-preview svg")
    shots(page, "lobby-phone")
    page.locator("[data-testid=player-name]").fill("Pip")
    page.locator("[data-testid=create-game]").tap()
    expect(page.locator("[data-testid=decision]")).to_have_attribute("data-kind", "start_space")
    page.locator("[data-testid=choice]").first.tap()
    ui.until_program(page)
    # Everything needed to program fits on the screen without scrolling.
    for selector in ("[data-testid=register-5]", "[data-testid=submit-program]", ".hand"):
        box = page.locator(selector).bounding_box()
        assert box is not None and box["y"] + box["height"] <= 844, (selector, box)
    board = page.locator(".board-svg").bounding_box()
    assert board is not None and board["width"] >= 200
    # The zoom button enlarges the spaces inside the board's frame (for big courses), and back.
    space = page.evaluate("() => rrGame.board.cellRect(0, 0).width")
    page.locator("[data-testid=zoom-in]").tap()
    expect(page.locator(".board-wrap")).to_have_class(re.compile("zoomed"))
    assert page.evaluate("() => rrGame.board.cellRect(0, 0).width") > space * 1.2
    page.locator("[data-testid=zoom-fit]").tap()
    expect(page.locator(".board-wrap")).not_to_have_class(re.compile("zoomed"))
    assert abs(page.evaluate("() => rrGame.board.cellRect(0, 0).width") - space) < 1
    for _ in range(5):
        page.locator("[data-testid=hand-card]").first.tap()
    expect(page.locator("[data-testid=submit-program]")).to_be_enabled()
    ui.preview_drawn(page)
    shots(page, "program-phone")
    page.select_option("[data-testid=speed]", "1")
    page.locator("[data-testid=submit-program]").tap()
    ui.until_register_plays(page)
    page.wait_for_timeout(600)
    shots(page, "activation-phone")
    skip = page.locator("[data-testid=skip]")
    if skip.is_visible():
        skip.tap()
    # The next round's program is asked for (or a decision first): the game goes on.
    expect(page.locator("[data-testid=phase]")).to_contain_text(
        re.compile("Round 2|Register"), timeout=20_000
    )
    _page_has_no_horizontal_scroll(page)


def _page_has_no_horizontal_scroll(page: Page) -> None:
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= 392, f"the page is {width}px wide on a 390px screen"


def test_a_classic_game_plays_to_the_end(
    live_server: ServerProcess, contexts: Contexts, shots: Any, ui: Any
) -> None:
    """The classic edition in the page: programs of priority cards, the power-down question
    (asked every round with ``power_down_without_damage``), and the result."""
    game = live_server.create(
        edition="classic",
        course="cl-first-shift",
        seats=[{"kind": "human", "name": "Ada"}, {"kind": "bot", "bot": "planner"}],
        variants=["power_down_without_damage"],
        max_rounds=3,
        seed=2,
    )
    page = contexts.page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    frames = ui.capture_ws(page)
    page.goto(live_server.seat_url(game, 0, speed=0))
    start = page.locator("[data-testid=start-game]")
    program = page.locator("[data-testid=program]")
    expect(start.or_(program).first).to_be_visible()
    if start.count() and start.is_visible():
        start.click()
    expect(program).to_be_visible()
    cards = page.locator("[data-testid=hand-card]")
    assert cards.count() == 9
    assert all("@" in (cards.nth(i).get_attribute("data-card") or "") for i in range(9))
    expect(page.locator(".shutdown-opt")).to_contain_text("Power down")
    shots(page, "classic-program-desktop")
    answered = ui.play_until(page, lambda: ui.visible(page, "[data-testid=result]"), timeout=120)
    # The power-down question is answered from the program's "Shut down" box (no extra click).
    asked = {d["kind"] for f in frames if f["type"] == "state" for d in f.get("pending") or []}
    assert "program" in answered and "power_down" in asked, (answered, asked)
    assert not asked & {"shutdown", "sidestep"}
    expect(page.locator("[data-testid=result]")).to_be_visible()
    log = page.locator("[data-testid=log]")
    expect(log).not_to_contain_text("reboot point")  # classic words: archive, flags
    shots(page, "classic-result-desktop")
    assert not errors, errors


def test_blocked_start_spaces_show_their_cubes(
    live_server: ServerProcess, contexts: Contexts, shots: Any
) -> None:
    """Competitive start: the cube a bot put on a start space is drawn on the board while the
    person picks a start space, and the blocked space is not offered."""
    game = live_server.create(
        seats=[{"kind": "bot"}, {"kind": "human", "name": "Ada"}],
        variants=["competitive_start"],
        first_player=0,
        seed=3,
    )
    page = contexts.page()
    page.goto(live_server.seat_url(game, 1, speed=0))
    start = page.locator("[data-testid=start-game]")
    decision = page.locator("[data-testid=decision]")
    expect(start.or_(decision).first).to_be_visible()
    if start.count() and start.is_visible():
        start.click()
    block = page.locator("[data-testid=decision][data-kind=block_start]")
    expect(block).to_be_visible()
    block.locator("[data-testid=choice]").first.click()
    expect(page.locator("[data-testid=decision][data-kind=start_space]")).to_be_visible()
    cubes = page.locator("[data-testid=blocked-start]")
    expect(cubes).to_have_count(2)
    shots(page, "blocked-starts-desktop")
