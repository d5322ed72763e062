"""A classic game in the page shows a register locked by damage as it is on the table: its card
stays face up in the register, for its owner (the program tray) and for everyone else (the
players' panels), with words that say it is locked by damage (never a 2023 Haywire); and the
log, the path preview and the result keep to the classic words."""

from __future__ import annotations

import re
import time
from typing import Any

from playwright.sync_api import Page, expect

from .conftest import Contexts, ServerProcess

#: A seed of Merry-Go-Round where Ada (who programs her hand's first cards and never powers
#: down) ends round 1 with 5 damage tokens against a random bot (a bot that plans may think
#: differently with less time): register 5 locks, keeping its card.
COURSE, SEED = "cl-merry-go-round", 22
LOCKED = "[data-testid=program] .slot.locked"


def program_until_locked(page: Page, ui: Any, timeout: float = 60.0) -> None:
    """Program the hand's first cards and answer every question with its first option, until
    the program tray opens with a locked register (left as it is, to be looked at)."""
    program = page.locator("[data-testid=program]")
    deadline = time.monotonic() + timeout
    while not page.locator(LOCKED).count():
        assert time.monotonic() < deadline, f"no register locked after {timeout}s"
        if not (program.count() and program.is_visible()):
            ui.act(page)  # a question (no program on screen: nothing to program by mistake)
        elif page.locator(LOCKED).count() == 0:
            ui.program_first_cards(page, 5)  # an editor without a lock: round 1's
            submit = page.locator("[data-testid=submit-program]")
            if submit.is_enabled():
                submit.click()
        page.wait_for_timeout(60)


def test_a_register_locked_by_damage_keeps_its_card_face_up(
    live_server: ServerProcess, contexts: Contexts, shots: Any, ui: Any
) -> None:
    game = live_server.create(
        edition="classic",
        course=COURSE,
        seats=[{"kind": "human", "name": "Ada"}, {"kind": "bot", "bot": "random"}],
        max_rounds=3,
        seed=SEED,
    )
    page = contexts.page()
    page.goto(live_server.seat_url(game, 0, speed=0))
    start = page.locator("[data-testid=start-game]")
    expect(start.or_(page.locator("[data-testid=program]")).first).to_be_visible()
    if start.count() and start.is_visible():
        start.click()
    program_until_locked(page, ui)

    # The tray: the locked register shows its own card, locked by damage.
    tray = page.locator("[data-testid=program]")
    slot = page.locator("[data-testid=register-5]")
    expect(slot).to_have_class(re.compile(r"\blocked\b"))
    card = slot.locator(".card")
    expect(card).to_have_attribute("data-card", re.compile(r"@\d+$"))
    expect(card).to_have_attribute("title", re.compile("^Locked by damage: .+ plays again$"))
    expect(slot.locator(".lock")).to_have_attribute("title", "Locked by damage")
    expect(tray).to_contain_text("Register 5 is locked by damage: its card stays")
    titles = tray.evaluate("(el) => [...el.querySelectorAll('[title]')].map((x) => x.title)")
    assert not [x for x in titles if "Haywire" in x or "face-down" in x], titles
    held = page.locator("[data-testid=register-5] .card").get_attribute("data-card")
    # Standing in a laser's beam, the robot is foreseen destroyed: the preview says it so.
    ui.preview_drawn(page)
    destroyed = "Your robot is destroyed here: it loses a life and comes back on its archive marker"
    expect(page.locator("[data-testid=preview-falls]")).to_contain_text(destroyed)
    expect(page.locator("[data-testid=preview-fall] title").first).to_have_text(
        re.compile(r"^Register \d: your robot is destroyed and loses a life$")
    )

    # Ada's panel, and a spectator's view of it: the same card, face up, locked by damage.
    spectator = contexts.page()
    spectator.goto(f"{live_server.base}/?game={game['game_id']}&speed=0")
    for view in (page, spectator):
        slot = view.locator("[data-testid=player-0] .mini-slot").nth(4)
        expect(slot).to_have_class(re.compile(r"\blocked\b"))
        expect(slot.locator(".card")).to_have_attribute("data-card", held or "")
        expect(slot).to_have_attribute("title", re.compile("^Register 5: locked by damage, "))
    expect(page.locator("[data-testid=player-0] [data-stat=checkpoints]")).to_have_attribute(
        "title", "flags reached"
    )

    # The log so far, in the classic words.
    log = page.locator("[data-testid=log]").inner_text()
    assert re.search(r"Ada takes \d+ damage tokens?", log), log
    assert not re.search(r"(?i)haywire|shuts? down|checkpoint|reboot|energy", log), log
    shots(page, "classic-locked-register-desktop")
    shots(spectator, "classic-locked-register-spectator")

    # The result's words of a classic game, and of a 2023 one (the page's own function).
    said = page.evaluate(RESULTS)
    assert said == ["Ada wins (flags)", "Ada wins (checkpoints)"], said


RESULTS = """async () => {
  const { prettyResult } = await import("/js/game.js");
  const won = { termination: "checkpoints", winner: 0, winner_name: "Ada" };
  return [prettyResult(won, [], "classic"), prettyResult(won, [], "2023")];
}"""
