"""Accessibility of the page: a program written with the keyboard only, what a screen reader
hears, the light theme, reduced motion, and axe-core's check of the lobby and the game."""

from __future__ import annotations

import json
import re
from importlib import resources
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from .conftest import DESKTOP, Contexts, ServerProcess


def new_page(contexts: Contexts, **options: Any) -> Page:
    """A desktop page in a context of its own with ``options`` (color_scheme, reduced_motion)."""
    return contexts.custom(viewport=DESKTOP, device_scale_factor=1, **options)


def game_until_program(page: Page, server: ServerProcess, ui: Any, speed: str = "0") -> None:
    """A game of one person and two bots, at the first program (English texts)."""
    game = server.create(seats=[{"kind": "human"}, {"kind": "bot"}, {"kind": "bot"}], max_rounds=3)
    page.goto(server.seat_url(game, 0, speed=speed, lang="en"))
    expect(page.locator("[data-testid=start-game]")).to_be_visible()
    page.click("[data-testid=start-game]")
    ui.until_program(page)


def focused(page: Page, selector: str) -> bool:
    return bool(page.evaluate("(s) => !!document.activeElement?.matches(s)", selector))


def registers(page: Page) -> list[str | None]:
    return [
        page.locator(f"[data-testid=register-{n}] .card").get_attribute("data-card")
        if page.locator(f"[data-testid=register-{n}] .card").count()
        else None
        for n in range(1, 6)
    ]


def test_five_registers_programmed_and_locked_in_with_the_keyboard_only(
    live_server: ServerProcess, contexts: Contexts, ui: Any, shots: Any
) -> None:
    page = new_page(contexts)
    sent: list[dict[str, Any]] = []
    page.on(
        "websocket",
        lambda ws: ws.on(
            "framesent", lambda data: sent.append(json.loads(data)) if "decide" in data else None
        ),
    )
    game_until_program(page, live_server, ui)
    hand = page.locator("[data-testid=hand-card]")
    cards = [hand.nth(i).get_attribute("data-card") for i in range(hand.count())]
    assert len(cards) == 9
    # Every hand card shows the number of its key.
    expect(hand.nth(4)).to_have_attribute("aria-keyshortcuts", "5")

    # Tab to the hand, Enter places the card in focus; the focus stays in the hand.
    for _ in range(40):
        if focused(page, "[data-testid=hand-card]"):
            break
        page.keyboard.press("Tab")
    assert focused(page, "[data-testid=hand-card]"), "Tab reaches the hand"
    page.keyboard.press("Enter")
    assert registers(page)[0] == cards[0]
    assert focused(page, "[data-testid=hand-card]"), "the focus stays in the hand"
    page.keyboard.press("ArrowRight")
    page.keyboard.press("Enter")
    assert registers(page)[:2] == [cards[0], cards[2]]
    assert focused(page, "[data-testid=hand-card]")
    # Numbers put hand cards into the next empty register; Backspace and U take the last back.
    page.keyboard.press("5")
    page.keyboard.press("4")
    assert registers(page)[:4] == [cards[0], cards[2], cards[4], cards[3]]
    page.keyboard.press("Backspace")
    page.keyboard.press("u")
    assert registers(page)[2:] == [None, None, None]
    empty = page.locator("[data-testid=register-3]")
    expect(empty).to_have_attribute("role", "button")
    expect(empty).to_have_attribute("aria-label", re.compile("Register 3"))
    page.keyboard.press("9")
    page.keyboard.press("8")
    page.keyboard.press("2")
    assert registers(page) == [cards[0], cards[2], cards[8], cards[7], cards[1]]
    # Up to the registers and along them: a visible outline where the focus is.
    page.keyboard.press("ArrowUp")
    assert focused(page, ".registers .card")
    for key in ["ArrowLeft"] * 5 + ["ArrowRight"]:
        page.keyboard.press(key)
    assert focused(page, "[data-testid=register-2] .card")
    outline = page.evaluate("getComputedStyle(document.activeElement).outlineStyle")
    assert outline == "solid"
    shots(page, "keyboard-focus-desktop")

    # The list of shortcuts: ? opens it, Esc closes it and the focus comes back.
    page.keyboard.press("?")
    expect(page.locator("[data-testid=keys-help]")).to_be_visible()
    expect(page.locator("[data-testid=keys-help]")).to_contain_text("Backspace")
    page.keyboard.press("Escape")
    expect(page.locator("[data-testid=keys-help]")).to_have_count(0)
    assert focused(page, "[data-testid=register-2] .card")

    page.keyboard.press("l")
    program = [cards[0], cards[2], cards[8], cards[7], cards[1]]
    page.wait_for_function("() => !window.rrGame.editor || window.rrGame.editor.sending")
    assert any(m.get("choice") == program for m in sent), "the program is sent"
    # A screen reader hears a short summary of each register as it plays.
    announcer = page.locator("[data-testid=announcer]")
    expect(announcer).to_contain_text(re.compile(r"Register \d: .*reveals"), timeout=20_000)
    assert not page.js_errors  # type: ignore[attr-defined]


def test_the_board_is_described_for_screen_readers(
    live_server: ServerProcess, contexts: Contexts, ui: Any
) -> None:
    page = new_page(contexts)
    game_until_program(page, live_server, ui)
    svg = page.locator("svg.board-svg")
    expect(svg).to_have_attribute("role", "group")
    expect(page.locator("#board-title")).to_have_text(re.compile("The board"))
    expect(page.locator("#board-desc")).to_contain_text(re.compile(r"\(seat 1, circle\) on column"))
    # Every control of the tray has a name.
    for button in page.locator(".tray button, .tray [role=button]").all():
        assert (button.get_attribute("aria-label") or button.inner_text()).strip()


def test_light_theme_follows_the_system_and_the_switch_is_remembered(
    live_server: ServerProcess, contexts: Contexts
) -> None:
    page = new_page(contexts, color_scheme="light")
    page.goto(live_server.base + "/?lang=en")
    root = page.locator("html")
    expect(root).to_have_attribute("data-theme", "light")
    light_bg = page.evaluate("getComputedStyle(document.documentElement).backgroundColor")
    page.click("[data-testid=theme-toggle]")
    expect(root).to_have_attribute("data-theme", "dark")
    assert page.evaluate("getComputedStyle(document.documentElement).backgroundColor") != light_bg
    page.reload()
    expect(root).to_have_attribute("data-theme", "dark")
    expect(page.locator("[data-testid=theme-toggle]")).to_have_attribute(
        "aria-label", "Switch to the light theme"
    )


def test_reduced_motion_runs_no_long_animation(
    live_server: ServerProcess, contexts: Contexts, ui: Any
) -> None:
    page = new_page(contexts, reduced_motion="reduce")
    game_until_program(page, live_server, ui, speed="1")
    # Every place a robot is drawn at, and every running animation, from now on.
    page.evaluate(
        """() => {
            window.rrSeen = { places: [], animations: [] };
            new MutationObserver((changes) => {
                for (const c of changes) {
                    const m = /translate\\(([-\\d.]+) ([-\\d.]+)\\)/.exec(
                        c.target.getAttribute("transform") || "");
                    if (m && c.target.classList.contains("robot")) {
                        window.rrSeen.places.push([+m[1], +m[2]]);
                    }
                }
            }).observe(document.body, { attributes: true, subtree: true,
                                        attributeFilter: ["transform"] });
            setInterval(() => {
                for (const a of document.getAnimations()) {
                    const t = a.effect && a.effect.getTiming();
                    if (t) window.rrSeen.animations.push(Number(t.duration) || 0);
                }
            }, 50);
        }"""
    )
    ui.program_first_cards(page, 5)
    page.click("[data-testid=submit-program]")
    ui.until_register_plays(page)
    page.wait_for_function(
        "() => document.querySelectorAll('#app.animating').length === 0", timeout=60_000
    )
    seen = page.evaluate("window.rrSeen")
    cell = page.evaluate("window.rrGame.board.cell")
    assert seen["places"], "the robots were drawn"
    for x, y in seen["places"]:
        # Only whole spaces (their centres, or the quarter spots of a shared space): no slide.
        assert (x / cell * 4) % 1 < 0.01 or (x / cell * 4) % 1 > 0.99, (x, y)
        assert (y / cell * 4) % 1 < 0.01 or (y / cell * 4) % 1 > 0.99, (x, y)
    assert max(seen["animations"], default=0) <= 1, "no CSS animation lasts"


# ------------------------------------------------------------------- axe-core
def axe_script() -> str:
    """axe-core's script, from the Python package that bundles it (a dev dependency)."""
    try:
        return (resources.files("axe_playwright_python") / "axe.min.js").read_text("utf-8")
    except ModuleNotFoundError:
        pytest.skip("axe-core is missing: install the dev dependencies (axe-playwright-python)")


def wait_until_still(page: Page) -> None:
    """Wait until the page's finite animations and transitions are over (a fading text
    measured half-way has too little contrast, which no reader sees)."""
    page.wait_for_function(
        """() => document.getAnimations().every((a) => a.playState !== "running"
            || !a.effect || a.effect.getComputedTiming().endTime === Infinity)""",
        timeout=10_000,
    )


def axe_problems(page: Page) -> list[str]:
    """axe-core's serious and critical violations on the page, in words, once it is still
    (``wait_until_still``)."""
    wait_until_still(page)
    page.evaluate(axe_script())
    result = page.evaluate(
        "() => axe.run(document, { resultTypes: ['violations'] }).then((r) => r.violations)"
    )
    return [
        f"{v['id']} ({v['impact']}): {v['help']} at "
        + "; ".join(" ".join(node["target"]) for node in v["nodes"][:4])
        for v in result
        if v["impact"] in ("serious", "critical")
    ]


@pytest.mark.parametrize("scheme", ["dark", "light"])
def test_axe_finds_no_serious_problem_in_the_lobby_and_the_game(
    live_server: ServerProcess, contexts: Contexts, ui: Any, scheme: str
) -> None:
    axe_script()
    page = new_page(contexts, color_scheme=scheme)
    page.goto(live_server.base + "/?lang=en")
    page.wait_for_selector(".course-preview svg")
    problems = axe_problems(page)
    game_until_program(page, live_server, ui)
    ui.program_first_cards(page, 2)
    page.wait_for_timeout(300)
    problems += axe_problems(page)
    # The preview's warning (a robot that would fall) shows only for some hands: shown here
    # whatever the deal, as the page shows it.
    page.evaluate(
        "() => document.querySelectorAll('.preview-note').forEach((n) => n.classList.add('bad'))"
    )
    problems += axe_problems(page)
    assert not problems, "\n".join(problems)
