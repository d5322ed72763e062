"""The guided first race: offered on a first visit to the lobby, always reachable afterwards; the
coach walks through one round (start space, upgrade phase, hand, registers, path, lock in, the
registers playing, what happened) and the race is then finished against the Beginner bot, in
English and in Ukrainian; the first steps on a phone, where the coach never covers the cards to
tap."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

import pytest
from playwright.sync_api import Locator, Page, Route, expect

from roborally.content.i18n import text

from .conftest import Contexts, ServerProcess, start_game

#: Every step of the coach, in order ("over" once the race is finished).
STEPS = [
    "welcome",
    "start",
    "upgrade",
    "hand",
    "registers",
    "preview",
    "lockin",
    "activation",
    "recap",
    "race",
    "over",
]


def short_race(page: Page, rounds: int) -> list[dict[str, Any]]:
    """Make the tutorial's game end after ``rounds`` rounds (a test must not race for long):
    the create request the page sends is changed on its way; returns the bodies sent."""
    sent: list[dict[str, Any]] = []

    def change(route: Route) -> None:
        if route.request.method != "POST":
            route.continue_()
            return
        body = json.loads(route.request.post_data or "{}")
        sent.append(dict(body))
        body["max_rounds"] = rounds
        route.continue_(post_data=json.dumps(body))

    page.route("**/api/games", change)
    return sent


def step_is(page: Page, step: str) -> None:
    expect(page.get_by_test_id("coach")).to_have_attribute("data-step", step, timeout=20_000)


def covered(page: Page, selector: str) -> str | None:
    """What the coach covers of the elements ``selector`` finds (``None``: nothing)."""
    coach = page.get_by_test_id("coach").bounding_box()
    assert coach is not None
    for box in [el.bounding_box() for el in page.locator(selector).all()]:
        if box is None:
            continue
        apart = (
            box["x"] + box["width"] <= coach["x"]
            or coach["x"] + coach["width"] <= box["x"]
            or box["y"] + box["height"] <= coach["y"]
            or coach["y"] + coach["height"] <= box["y"]
        )
        if not apart:
            return f"the coach {coach} covers {selector} at {box}"
    return None


def no_overlap(page: Page, selector: str) -> None:
    """The coach covers none of the elements ``selector`` finds, once it has settled: it moves
    aside within a moment when the page's layout changes under it (a longer text, a new
    panel), so the check looks again for up to a second."""
    found = covered(page, selector)
    for _ in range(10):
        if found is None:
            return
        page.wait_for_timeout(100)
        found = covered(page, selector)
    assert found is None, found


def no_sideways_scroll(page: Page) -> None:
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= page.viewport_size["width"], width  # type: ignore[index]


def program_with_the_guide(
    page: Page, shot: Callable[[], Any], phone: bool, lang: str = "en"
) -> None:
    """From the coach's "start" step to "lockin": a start space, Done in the upgrade phase, five
    cards; the coach highlights each part, in the page's language ``lang``, and never covers
    what is to be tapped. ``shot`` is taken at the start space (desktop) or the hand (phone)."""
    coach = page.get_by_test_id("coach")

    def press(target: Locator) -> None:
        if phone:
            target.tap()
        else:
            target.click()

    choices = "[data-testid=decision] [data-testid=choice]"
    step_is(page, "start")
    start = page.locator("[data-testid=decision][data-kind=start_space]")
    expect(start).to_have_class(re.compile("coach-focus"))
    no_overlap(page, choices)
    if not phone:
        shot()
    # On the board on a desktop, with a button on a phone.
    press(page.locator(".mark-layer .choice" if not phone else choices).first)
    step_is(page, "upgrade")
    no_overlap(page, choices)
    press(page.locator("[data-kind=upgrade_phase] [data-testid=choice][data-value='\"done\"']"))
    step_is(page, "hand")
    expect(coach).to_contain_text(text(lang, "tutorial.hand.title"))
    no_overlap(page, "[data-testid=hand-card]")
    if phone:
        shot()
    press(page.locator("[data-testid=hand-card]").first)
    step_is(page, "registers")
    expect(coach).to_contain_text(text(lang, "tutorial.registers.filled", filled=1))
    no_overlap(page, "[data-testid=hand-card]")
    for _ in range(4):
        press(page.locator("[data-testid=hand-card]").first)
    step_is(page, "preview")
    expect(coach).to_contain_text(text(lang, "tutorial.preview.title"))
    # The program editor's own path preview is drawn, and this step points at it.
    expect(coach).to_contain_text(text(lang, "tutorial.preview.path"))
    expect(page.get_by_test_id("path-preview")).to_have_class(re.compile("coach-focus"))
    expect(page.locator("[data-testid=preview-end]").first).to_be_attached()
    press(page.get_by_test_id("coach-next"))
    step_is(page, "lockin")
    expect(page.get_by_test_id("submit-program")).to_have_class(re.compile("coach-focus"))
    no_overlap(page, "[data-testid=submit-program]")


@pytest.mark.parametrize("lang", ["en", "uk"])
def test_a_first_visit_offers_the_guided_race_and_it_plays_to_the_end(
    live_server: ServerProcess, contexts: Contexts, shots: Any, ui: Any, lang: str
) -> None:
    """The whole guided race; the coach speaks the page's language (``?lang=``)."""

    def say(key: str, **values: Any) -> str:
        return text(lang, key, **values)

    page = contexts.page()
    page.goto(live_server.base + f"/?speed=4&lang={lang}")
    if lang == "en":
        expect(page.get_by_role("heading", name="New game")).to_be_visible()
        expect(page.get_by_test_id("tutorial-offer")).to_contain_text("guided first race")
    offer = page.get_by_test_id("tutorial-offer")
    expect(offer).to_be_visible()
    expect(offer).to_contain_text(say("tutorial.offer_text"))
    expect(page.get_by_test_id("tutorial-start")).to_have_text(say("tutorial.lobby_link"))
    shots(page, f"tutorial-offer-desktop{'' if lang == 'en' else '-' + lang}")
    # Offered once: the next visit has only the lobby's button.
    page.reload()
    expect(page.get_by_test_id("tutorial-start")).to_be_visible()
    expect(offer).to_have_count(0)
    assert page.evaluate("JSON.parse(localStorage.getItem('rr.tutorial'))") == {"offered": True}

    sent = short_race(page, rounds=3)
    page.get_by_test_id("tutorial-start").click()
    expect(page).to_have_url(re.compile(r"/\?game=[\w-]+&tutorial=1#token=[\w-]+$"))
    body = sent[0]
    assert body["course"] == "tiny" and body["edition"] == "2023", body
    assert [s["kind"] for s in body["seats"]] == ["human", "bot"]
    assert body["seats"][1]["bot"] == "beginner"
    assert "timer_seconds" not in body and "seed" not in body, body
    assert body["program_seconds"] >= 600 and body["decision_seconds"] >= 600, body
    # No programming clock and no host's seed warning in the newcomer's way.
    expect(page.get_by_test_id("timer")).to_be_hidden()
    expect(page.get_by_test_id("seed-warning")).to_have_count(0)

    coach = page.get_by_test_id("coach")
    step_is(page, "welcome")
    expect(coach).to_contain_text(say("tutorial.welcome.goal"))
    expect(page.get_by_test_id("coach-count")).to_have_text(say("tutorial.step", step=1, steps=10))
    expect(page.get_by_test_id("coach-next")).to_have_text(say("tutorial.next"))
    expect(page.locator(".board-wrap.coach-focus")).to_be_visible()
    page.get_by_test_id("coach-next").click()

    suffix = "" if lang == "en" else "-" + lang
    program_with_the_guide(page, lambda: shots(page, "tutorial-desktop" + suffix), False, lang)
    page.get_by_test_id("submit-program").click()
    step_is(page, "activation")
    expect(coach).to_contain_text(say("tutorial.activation.robots"))
    ui.until_register_plays(page)
    shots(page, "tutorial-activation-desktop" + suffix)
    # The round ends (a reboot on the way is answered as a player would).
    ui.play_until(page, lambda: coach.get_attribute("data-step") == "recap", timeout=30)
    step_is(page, "recap")
    expect(coach).to_contain_text("⚑")
    expect(coach).to_contain_text(say("tutorial.recap.log"))
    shots(page, "tutorial-recap-desktop" + suffix)
    page.get_by_test_id("coach-next").click()
    step_is(page, "race")
    expect(page.get_by_test_id("coach-next")).to_have_text(say("tutorial.race.button"))
    page.get_by_test_id("coach-next").click()
    page.select_option("[data-testid=speed]", "0")
    expect(coach).to_be_hidden()
    assert page.evaluate("JSON.parse(localStorage.getItem('rr.tutorial'))")["done"] is True

    # The rest of the race against the Beginner bot, notes on the way closed with OK.
    def over() -> bool:
        if ui.visible(page, "[data-testid=result]"):
            return True
        if ui.visible(page, "[data-testid=coach][data-step^=note-]"):
            notes.append(page.get_by_test_id("coach").get_attribute("data-step") or "")
            page.get_by_test_id("coach-next").click()
        return False

    notes: list[str] = []

    ui.play_until(page, over, timeout=60)
    if lang == "en":
        page.locator("[data-testid=result] button", has_text="Close").click()
    else:  # the result's own words are not the guide's
        close = "[data-testid=result] .modal-actions button:not([data-testid=rematch])"
        page.locator(close).click()
    step_is(page, "over")
    expect(coach).to_contain_text(say("tutorial.over.again"))
    seen = page.evaluate("window.rrCoach.seen.filter((s) => !s.startsWith('note-'))")
    assert seen == STEPS, seen
    page.get_by_test_id("coach-next").click()
    expect(coach).to_be_hidden()

    # Done: the lobby no longer offers it, its button stays.
    page.goto(live_server.base + "/")
    expect(page.get_by_test_id("tutorial-start")).to_be_visible()
    expect(page.get_by_test_id("tutorial-offer")).to_have_count(0)


def test_the_guide_can_be_closed_and_the_game_goes_on(
    live_server: ServerProcess, contexts: Contexts
) -> None:
    page = contexts.page()
    page.goto(live_server.base + "/?speed=0")
    page.get_by_test_id("tutorial-offer-start").click()
    step_is(page, "welcome")
    page.get_by_test_id("coach-close").click()
    expect(page.get_by_test_id("coach")).to_be_hidden()
    page.locator(".mark-layer .choice").first.click()
    expect(page.locator("[data-testid=decision][data-kind=upgrade_phase]")).to_be_visible()
    # Closed stays closed, also after a reload and from the lobby's "Your seats".
    page.reload()
    expect(page.locator("[data-testid=decision][data-kind=upgrade_phase]")).to_be_visible()
    page.wait_for_timeout(500)
    expect(page.get_by_test_id("coach")).to_be_hidden()


def test_on_a_phone_the_guide_leaves_the_cards_free_to_tap(
    live_server: ServerProcess, contexts: Contexts, shots: Any, ui: Any
) -> None:
    page = contexts.page(phone=True)
    page.goto(live_server.base + "/?speed=0")
    expect(page.get_by_role("heading", name="New game")).to_be_visible()
    expect(page.get_by_test_id("tutorial-offer")).to_be_visible()
    no_sideways_scroll(page)
    shots(page, "tutorial-offer-phone")
    page.get_by_test_id("tutorial-offer-start").tap()
    step_is(page, "welcome")
    no_sideways_scroll(page)
    shots(page, "tutorial-welcome-phone")
    page.get_by_test_id("coach-next").tap()
    program_with_the_guide(page, lambda: shots(page, "tutorial-phone"), phone=True)
    no_sideways_scroll(page)
    shots(page, "tutorial-lockin-phone")
    # Back in the lobby, "Your seats" continues the guided race where the guide was.
    page.goto(live_server.base + "/")
    page.locator("[data-testid=your-seats]").get_by_role("link", name="Continue").tap()
    step_is(page, "lockin")


def test_the_guide_waits_for_the_game_and_points_at_a_free_start_space(
    live_server: ServerProcess, contexts: Contexts
) -> None:
    """The Beginner bot picks first and takes start space 5, the one right below checkpoint 1:
    the tip names the nearest free one instead, lit on the board. An upgrade bought in the
    upgrade phase does not end it: the guide stays on the phase until the cards are dealt."""
    game = live_server.create(
        seats=[{"kind": "human", "name": "Pip"}, {"kind": "bot", "bot": "beginner"}],
        first_player=1,
        seed=1,
        decision_seconds=600,
        program_seconds=600,
    )
    page = contexts.page()
    page.goto(live_server.seat_url(game, 0, speed=0, tutorial=1))
    step_is(page, "welcome")
    page.get_by_test_id("coach-next").click()
    start_game(page)
    step_is(page, "start")
    choices = page.locator("[data-kind=start_space] [data-testid=choice]")
    free = [json.loads(choices.nth(i).get_attribute("data-value") or "") for i in range(5)]
    assert 5 not in free and 4 in free, free  # the bot holds 5
    coach = page.get_by_test_id("coach")
    expect(coach).to_contain_text(text("en", "tutorial.start.hint", space=4))
    mark = page.locator('.mark-layer .choice[data-value="4"]')
    expect(mark).to_have_class(re.compile("coach-focus"))
    mark.click()

    step_is(page, "upgrade")
    phase = page.locator("[data-testid=decision][data-kind=upgrade_phase]")
    phase.locator("[data-testid=choice][data-value^='\"install ']").first.click()
    # The phase goes on (the install can be taken back): the guide stays with it.
    expect(phase.locator("[data-testid=choice][data-value^='\"undo install ']")).to_be_visible()
    page.evaluate("window.rrCoach.tick()")
    expect(coach).to_have_attribute("data-step", "upgrade")
    expect(page.get_by_test_id("coach-next")).to_be_hidden()
    phase.locator("[data-testid=choice][data-value='\"done\"']").click()
    step_is(page, "hand")
    expect(page.get_by_test_id("hand")).to_have_class(re.compile("coach-focus"))
