"""Decisions that can't trap: an install taken back in the upgrade phase (energy refunded, the
card back in the reserve), "are you sure?" before an upgrade is discarded for good, a question
that replaces another ignoring a double click, the target of a weapon named and ringed on the
board, and the hand shown next to the question before programming."""

from __future__ import annotations

import json
import re
from typing import Any

from playwright.sync_api import Page, expect

from ..test_decision_targets import WEAPON, WEAPON_ANSWERS, WEAPON_SEED
from .conftest import Contexts, ServerProcess, program_first_cards, start_game

DECISION = "[data-testid=decision]"


def _open(live_server: ServerProcess, contexts: Contexts, seed: int, phone: bool = False) -> Page:
    """Ada against a random bot, at her first upgrade phase (on a phone: tapped there)."""
    game = live_server.create(
        seats=[{"kind": "human", "name": "Ada"}, {"kind": "bot", "bot": "random", "name": "Bo"}],
        seed=seed,
    )
    page = contexts.page(phone=phone)
    page.goto(live_server.seat_url(game, 0, speed=0))
    start_game(page)
    first = page.locator(f"{DECISION} [data-testid=choice]").first
    if phone:
        first.tap()
    else:
        first.click()
    expect(page.locator(f"{DECISION}[data-kind=upgrade_phase]")).to_be_visible()
    return page


def _energy(page: Page) -> int:
    text = page.locator(f"{DECISION} .energy-line strong").inner_text()
    return int(text.split()[0])


def no_upgrades_left(page: Page) -> None:
    """The server's next state shows no upgrade installed (a loaded machine can lag a tap)."""
    page.wait_for_function(
        "() => window.rrGame.state.observation.players[0].upgrades.length === 0",
        timeout=10_000,
    )


def _row(page: Page, label: str) -> list[str]:
    row = page.locator(f"{DECISION} .upgrade-row", has_text=label)
    if not row.count():
        return []
    return [c.get_attribute("data-card") or "" for c in row.locator(".card").all()]


def _install_option(page: Page, paid: bool = True) -> tuple[str, int]:
    """The first upgrade offered for install (with a cost, if ``paid``): (card, cost)."""
    options = page.locator(f"{DECISION} [data-testid=choice][data-value^='\"install ']")
    for option in options.all():
        value = json.loads(option.get_attribute("data-value") or '""')
        match = re.search(r"\((\d+)⚡\)", option.inner_text())
        cost = int(match.group(1)) if match else 0
        if cost or not paid:
            return value.split(" ", 1)[1], cost
    raise AssertionError("no upgrade to install with this seed")


def _choice(page: Page, value: str) -> Any:
    return page.locator(f"{DECISION} [data-testid=choice][data-value='{json.dumps(value)}']")


def test_an_install_is_taken_back_and_an_uninstall_asks_first(
    live_server: ServerProcess, contexts: Contexts, shots: Any
) -> None:
    page = _open(live_server, contexts, seed=2)
    energy = _energy(page)
    card, cost = _install_option(page)
    _choice(page, f"install {card}").click()
    undo = _choice(page, f"undo install {card}")
    expect(undo).to_be_enabled()
    expect(undo).to_have_text(
        re.compile(rf"^Take back the install of .+ \(refund {cost} energy\)$")
    )
    assert _energy(page) == energy - cost and _row(page, "Installed") == [card]
    title = (
        page.locator(f"{DECISION} .upgrade-row .card[data-card={card}] .card-name").text_content()
        or ""
    )
    shots(page, "decision-undo-desktop")
    undo.click()
    # Refunded, back in the reserve, and it can be installed again.
    expect(_choice(page, f"install {card}")).to_be_enabled()
    assert _energy(page) == energy
    # The rows follow the server's next state: wait for it (a loaded machine can lag a tap).
    expect(
        page.locator(f"{DECISION} .upgrade-row", has_text="Installed").locator(".card")
    ).to_have_count(0)
    assert card in _row(page, "In reserve") and _row(page, "Installed") == []
    expect(page.locator("[data-testid=log]")).to_contain_text("takes back the install of")

    # Install it again, then remove it: the page asks first.
    _choice(page, f"install {card}").click()
    remove = _choice(page, f"uninstall {card}")
    remove.click()
    confirm = page.get_by_test_id("confirm")
    expect(confirm).to_be_visible()
    expect(confirm).to_contain_text("goes to the discard pile for good. Discard it?")
    expect(remove).to_be_hidden()
    shots(page, "decision-confirm-desktop")
    page.get_by_test_id("confirm-no").click()  # waits out the guard, then cancels
    expect(confirm).to_be_hidden()
    expect(remove).to_be_visible()
    assert _row(page, "Installed") == [card], "cancel keeps it"
    remove.click()
    page.get_by_test_id("confirm-yes").click()
    # Gone for good (with nothing left to do, Ada's upgrade phase is over).
    expect(page.locator("[data-testid=log] li").last).to_have_text(f"Ada removes {title}")
    expect(page.get_by_test_id("confirm")).to_have_count(0)
    no_upgrades_left(page)


def test_a_double_click_does_not_answer_the_next_question(
    live_server: ServerProcess, contexts: Contexts, shots: Any
) -> None:
    page = _open(live_server, contexts, seed=2)
    first = page.locator(DECISION).get_attribute("data-decision")
    card, _ = _install_option(page)
    install = _choice(page, f"install {card}")
    expect(install).to_be_enabled()  # this question, too, came right after another
    box = install.bounding_box()
    assert box
    x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    page.mouse.click(x, y)
    # The next question: its buttons ignore clicks for a moment and look disabled. A second
    # click where the first one was, at once, answers nothing.
    result = page.evaluate(
        """async ([first, x, y]) => {
            const next = () => {
                const d = document.querySelector('[data-testid=decision]');
                return d && d.dataset.decision !== first ? d : null;
            };
            for (let i = 0; i < 400 && !next(); i++) await new Promise((r) => setTimeout(r, 5));
            const d = next();
            const hit = document.elementFromPoint(x, y);
            const button = hit && hit.closest('button');
            const state = {
                id: d && d.dataset.decision,
                guarded: [...d.querySelectorAll('[data-testid=choice]')]
                    .every((b) => b.disabled && b.classList.contains('guarded')),
                hit: button ? button.textContent : null,
            };
            if (button) button.click();
            return state;
        }""",
        [first, x, y],
    )
    assert result["id"] and result["id"] != first, result
    assert result["guarded"], result
    shots(page, "decision-guard-desktop")
    page.wait_for_timeout(800)
    assert page.locator(DECISION).get_attribute("data-decision") == result["id"]
    assert not page.get_by_test_id("confirm").is_visible()
    # After the moment, the buttons work.
    expect(page.locator(f"{DECISION} [data-testid=choice]").first).to_be_enabled()
    expect(page.locator(f"{DECISION} .guarded")).to_have_count(0)


def test_the_hand_shows_before_programming(
    live_server: ServerProcess, contexts: Contexts, shots: Any
) -> None:
    # Seed 36 deals Ada Memory Swap (cost 2), which is about the hand, before programming.
    page = _open(live_server, contexts, seed=36)
    _choice(page, "install memory_swap").click()
    _choice(page, "done").click()
    window = page.locator(f"{DECISION}[data-window=program_window]")
    expect(window).to_be_visible()
    hand = window.get_by_test_id("decision-hand")
    expect(hand).to_contain_text("Your hand")
    expect(hand.locator(".card")).to_have_count(9)
    shots(page, "decision-hand-desktop")
    _choice(page, "done").click()
    expect(page.get_by_test_id("program")).to_be_visible()


def test_a_weapon_target_is_named_and_ringed_in_a_real_game(
    live_server: ServerProcess, contexts: Contexts, shots: Any
) -> None:
    """The game tests/server/test_decision_targets.py plays in-process: with this seed the
    engine asks Ada, in round 1, register 4, whether to fire her Tractor Beam at Bo."""
    page = _open(live_server, contexts, seed=WEAPON_SEED)
    _choice(page, f"install {WEAPON}").click()
    _choice(page, "done").click()
    expect(page.get_by_test_id("program")).to_be_visible()
    (_, program) = next(a for a in WEAPON_ANSWERS if a[0] == "t1-p1-program")
    assert program_first_cards(page) == list(program)
    page.get_by_test_id("submit-program").click()
    question = page.locator(f"{DECISION}[data-decision=t1-r4-p1-weapon]")
    expect(question).to_be_visible(timeout=30_000)
    expect(question.get_by_test_id("decision-target")).to_have_text(
        "Target: Bo (ringed on the board)"
    )
    expect(question.locator("[data-testid=choice]")).to_have_text(
        ["Fire the main laser", "Tractor Beam at Bo"]
    )
    ring = page.locator("[data-testid=board] [data-testid=target-mark][data-seat='1']")
    expect(ring).to_have_count(1)
    robot = page.locator("[data-testid=robot-1]").bounding_box()
    mark = ring.bounding_box()
    assert robot and mark
    centre = (robot["x"] + robot["width"] / 2, robot["y"] + robot["height"] / 2)
    assert mark["x"] < centre[0] < mark["x"] + mark["width"]
    assert mark["y"] < centre[1] < mark["y"] + mark["height"]
    expect(_choice(page, WEAPON)).to_be_enabled()  # after the click guard
    shots(page, "decision-target-desktop")
    # Fired: the beam pulls Bo towards Ada, and the ring goes with the question.
    _choice(page, WEAPON).click()
    expect(question).to_have_count(0)
    expect(ring).to_have_count(0)
    expect(page.get_by_test_id("log")).to_contain_text("Ada uses Tractor Beam (Bo)")


def _fits(page: Page) -> None:
    """Nothing on the page scrolls sideways."""
    width, inner = page.evaluate("() => [document.documentElement.scrollWidth, innerWidth]")
    assert width <= inner, (width, inner)


def _tap_centre(page: Page, locator: Any) -> tuple[float, float]:
    box = locator.bounding_box()
    assert box
    x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    page.touchscreen.tap(x, y)
    return x, y


def test_on_a_phone_the_undo_the_confirmation_and_the_guard_work_by_tapping(
    live_server: ServerProcess, contexts: Contexts, shots: Any
) -> None:
    page = _open(live_server, contexts, seed=2, phone=True)
    # The upgrade phase replaced the start space question: its buttons were brought into sight.
    card, _ = _install_option(page)
    install = _choice(page, f"install {card}")
    expect(install).to_be_in_viewport(ratio=1)
    _fits(page)
    # A tap on Install, and at once a second one where it was: the next question's buttons
    # ignore it for a moment (a double tap answers one question, not two).
    first = page.locator(DECISION).get_attribute("data-decision")
    expect(install).to_be_enabled()
    x, y = _tap_centre(page, install)
    handle = page.wait_for_function(
        """(first) => {
            const d = document.querySelector('[data-testid=decision]');
            if (!d || d.dataset.decision === first) return null;
            const buttons = [...d.querySelectorAll('[data-testid=choice]')];
            return { id: d.dataset.decision,
                     guarded: buttons.every((b) => b.disabled && b.classList.contains('guarded')) };
        }""",
        arg=first,
        polling="raf",
    )
    state = handle.json_value()
    page.touchscreen.tap(x, y)
    assert state["guarded"], state
    page.wait_for_timeout(800)
    assert page.locator(DECISION).get_attribute("data-decision") == state["id"]
    expect(page.get_by_test_id("confirm")).to_be_hidden()
    assert _row(page, "Installed") == [card]
    # The undo, in sight below the taller question, refunds by a tap.
    undo = _choice(page, f"undo install {card}")
    expect(undo).to_be_enabled()
    expect(undo).to_be_in_viewport(ratio=1)
    _fits(page)
    shots(page, "decision-undo-phone")
    _tap_centre(page, undo)
    expect(_choice(page, f"install {card}")).to_be_enabled()
    # The rows follow the server's next state: wait for it (a loaded machine can lag a tap).
    expect(
        page.locator(f"{DECISION} .upgrade-row", has_text="Installed").locator(".card")
    ).to_have_count(0)
    assert card in _row(page, "In reserve") and _row(page, "Installed") == []
    # Install again and remove it: the confirmation is in sight, and No / Yes work by tapping.
    _choice(page, f"install {card}").tap()
    remove = _choice(page, f"uninstall {card}")
    expect(remove).to_be_enabled()
    _tap_centre(page, remove)
    confirm = page.get_by_test_id("confirm")
    expect(confirm).to_be_in_viewport(ratio=1)
    _fits(page)
    shots(page, "decision-confirm-phone")
    page.get_by_test_id("confirm-no").tap()
    expect(confirm).to_be_hidden()
    assert _row(page, "Installed") == [card]
    remove.tap()
    page.get_by_test_id("confirm-yes").tap()
    expect(page.get_by_test_id("confirm")).to_have_count(0)
    no_upgrades_left(page)


def test_on_a_phone_the_hand_shows_before_programming(
    live_server: ServerProcess, contexts: Contexts, shots: Any
) -> None:
    page = _open(live_server, contexts, seed=36, phone=True)
    _choice(page, "install memory_swap").tap()
    _choice(page, "done").tap()
    window = page.locator(f"{DECISION}[data-window=program_window]")
    hand = window.get_by_test_id("decision-hand")
    expect(hand.locator(".card")).to_have_count(9)
    done = _choice(page, "done")
    expect(done).to_be_in_viewport(ratio=1)
    expect(hand).to_be_in_viewport(ratio=1)
    for card in hand.locator(".card").all():  # every card on the screen, none cut off
        box = card.bounding_box()
        assert box and box["x"] >= 0 and box["x"] + box["width"] <= 390, box
    _fits(page)
    expect(done).to_be_enabled()
    shots(page, "decision-hand-phone")
    done.tap()
    expect(page.get_by_test_id("program")).to_be_visible()
    _fits(page)
