"""A 390 × 844 phone (touch, one device pixel per CSS pixel) on the biggest course with six
robots, nine cards in hand: the top bar keeps to one row with the phase readable (the rarer
controls in its ⋯ menu), every robot shows its colour although its number badge is drawn big,
and the whole programming editor, "Lock in" included, is on the screen without scrolling; the
classic "Power down" box is offered only to a robot that may power down."""

from __future__ import annotations

import io
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from .conftest import PHONE, Contexts, ServerProcess

Image = pytest.importorskip("PIL.Image")

#: The biggest courses: four boards and a dock, 24 × 28 spaces.
BIG_2023 = "y23-for-glory"
BIG_CLASSIC = "cl-grand-tour"
#: The top bar's one row: its min-height (style.css) and a little slack.
ONE_ROW_PX = 60
#: How close (RGB distance) a pixel must be to a seat's colour to count as that colour.
COLOUR_SLACK = 40
#: The share of a robot's picture (body and badge) in its seat's colour, at least.
MIN_COLOUR_SHARE = 0.1


def six_robots(live_server: ServerProcess, course: str, edition: str) -> dict[str, Any]:
    """Pip and five bots; no programming clock (classic: no sand timer) to hurry the test."""
    seats = [{"kind": "human", "name": "Pip"}] + [{"kind": "bot", "bot": "random"}] * 5
    variants = ["no_timer"] if edition == "classic" else []
    return live_server.create(
        course=course, edition=edition, seats=seats, variants=variants, seed=11, max_rounds=2
    )


def top_bar_is_one_row(page: Page) -> None:
    """The bar is one row high, and the phase in it is not cut (no ellipsis, no hidden line)."""
    bar = page.locator(".topbar").bounding_box()
    assert bar is not None and bar["height"] <= ONE_ROW_PX, bar
    cut = page.evaluate(
        """() => { const p = document.querySelector('[data-testid=phase]');
            return [p.scrollWidth - p.clientWidth, p.scrollHeight - p.clientHeight,
                    p.clientWidth, p.textContent]; }"""
    )
    assert cut[0] <= 0 and cut[1] <= 0 and cut[2] >= 80, cut


def colour_shares(page: Page) -> dict[int, float]:
    """Each robot on the screen: the share of its picture (body and number badge) that shows
    its seat's colour, from a screenshot."""
    boxes = page.evaluate(
        """() => [...document.querySelectorAll('.robot')]
            .filter((g) => g.style.display !== 'none')
            .map((g) => {
                const rects = ['.robot-body', '.robot-label']
                    .map((s) => g.querySelector(s).getBoundingClientRect());
                const x = Math.min(...rects.map((r) => r.left));
                const y = Math.min(...rects.map((r) => r.top));
                return { seat: Number(g.dataset.seat), x, y,
                         right: Math.max(...rects.map((r) => r.right)),
                         bottom: Math.max(...rects.map((r) => r.bottom)) };
            })"""
    )
    colours = page.evaluate("async () => (await import('/js/seats.js')).SEATS.map((s) => s.colour)")
    shot = Image.open(io.BytesIO(page.screenshot())).convert("RGB")
    shares = {}
    for box in boxes:
        hex_colour = colours[box["seat"]]
        want = [int(hex_colour[i : i + 2], 16) for i in (1, 3, 5)]
        area = (round(box["x"]), round(box["y"]), round(box["right"]), round(box["bottom"]))
        pixels = list(shot.crop(area).get_flattened_data())
        near = sum(sum((p[i] - want[i]) ** 2 for i in range(3)) < COLOUR_SLACK**2 for p in pixels)
        shares[box["seat"]] = near / max(1, len(pixels))
    return shares


def editor_on_the_first_screen(page: Page) -> None:
    """The registers, the whole hand and "Lock in" without scrolling, nothing wider than it."""
    for selector in ("[data-testid=register-5]", ".hand", "[data-testid=submit-program]"):
        bottom = page.evaluate(
            "(s) => document.querySelector(s).getBoundingClientRect().bottom + window.scrollY",
            selector,
        )
        assert bottom <= PHONE["height"], (selector, bottom)
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]


def test_the_biggest_course_fits_a_phone_with_its_colours_and_a_one_row_bar(
    live_server: ServerProcess, contexts: Contexts, shots: Any, ui: Any
) -> None:
    game = six_robots(live_server, BIG_2023, "2023")
    page = contexts.page(phone=True)
    page.goto(live_server.seat_url(game, 0, speed=0, lang="en"))
    page.get_by_test_id("start-game").tap()
    expect(page.locator("[data-testid=decision]")).to_have_attribute("data-kind", "start_space")
    top_bar_is_one_row(page)
    # The rarer controls wait in the menu: it opens them below the bar, and closes again.
    rules = page.get_by_test_id("rules")
    expect(rules).to_be_hidden()
    menu = page.get_by_test_id("top-menu")
    menu.tap()
    expect(menu).to_have_attribute("aria-expanded", "true")
    for testid in ("rules", "language", "notify-toggle"):
        expect(page.get_by_test_id(testid)).to_be_visible()
    shots(page, "phone-top-menu")
    page.locator(".tray").tap(position={"x": 5, "y": 5})  # anywhere else closes it
    expect(rules).to_be_hidden()
    top_bar_is_one_row(page)

    page.locator("[data-testid=choice]").first.tap()
    ui.until_program(page)
    expect(page.get_by_test_id("phase")).to_have_text("Round 1 · Programming")
    top_bar_is_one_row(page)
    # Nine cards, and the whole editor on the first screen.
    expect(page.locator("[data-testid=hand-card]")).to_have_count(9)
    editor_on_the_first_screen(page)
    # Each of the six robots in its colour, although its number is drawn a space wide.
    expect(page.locator(".robot:not([style*='display: none'])")).to_have_count(6)
    shares = colour_shares(page)
    assert len(shares) == 6 and min(shares.values()) >= MIN_COLOUR_SHARE, shares
    shots(page, "phone-big-course-program")

    # While the registers play, Skip joins the bar: still one row, the phase still readable.
    ui.program_first_cards(page, 5)
    page.select_option("[data-testid=speed]", "1")
    page.get_by_test_id("submit-program").tap()
    expect(page.get_by_test_id("skip")).to_be_visible(timeout=20_000)
    top_bar_is_one_row(page)
    shots(page, "phone-big-course-activation")


def test_a_classic_robot_without_damage_is_told_why_it_cannot_power_down(
    live_server: ServerProcess, contexts: Contexts, shots: Any
) -> None:
    """The classic edition asks only damaged robots whether they power down (rules 7.1): an
    undamaged robot's box is disabled and says why, instead of being ticked for nothing. Also
    the classic biggest course fits: nine cards and "Lock in" on the first screen."""
    game = six_robots(live_server, BIG_CLASSIC, "classic")
    page = contexts.page(phone=True)
    page.goto(live_server.seat_url(game, 0, speed=0, lang="en"))
    page.get_by_test_id("start-game").tap()
    expect(page.get_by_test_id("program")).to_be_visible()
    expect(page.locator("[data-testid=hand-card]")).to_have_count(9)
    box = page.get_by_test_id("shutdown-toggle")
    expect(box).to_be_disabled()
    expect(page.get_by_test_id("power-down-why")).to_have_text("only with damage")
    title = page.locator(".shutdown-opt").get_attribute("title") or ""
    assert "Only a damaged robot" in title, title
    top_bar_is_one_row(page)
    editor_on_the_first_screen(page)
    shots(page, "phone-classic-program")
    # What the box offers by the rules, and which questions it answers (js/program.js).
    offers = page.evaluate(
        """async () => {
            const { powerDownBox, answeredByBox } = await import('/js/program.js');
            const robot = (damage) => ({ classic: { damage, announced: false } });
            const classic = { edition: 'classic', variants: [] };
            const ask = (kind, key) => answeredByBox({ kind, prompt_key: key });
            return {
                damaged: powerDownBox(robot(1), classic),
                undamaged: powerDownBox(robot(0), classic),
                any_robot: powerDownBox(robot(0), { edition: 'classic',
                    variants: ['power_down_without_damage'] }),
                announced: powerDownBox({ classic: { damage: 2, announced: true } }, classic),
                emergency: powerDownBox(robot(3), { edition: 'classic',
                    variants: ['emergency_shutdown'] }),
                y1994: powerDownBox(robot(3), { edition: 'classic-1994', variants: [] }),
                y2023: powerDownBox({ energy: 5 }, { edition: '2023', variants: [] }),
                answers: [ask('power_down', 'power_down'), ask('shutdown', 'shutdown'),
                          ask('power_down', 'reenter_powered_down'), ask('power_down', 'stay_down'),
                          ask('power_down', 'shut_down_classic'), ask('program', 'program')],
            };
        }"""
    )
    assert offers == {
        "damaged": "offer",
        "undamaged": "no_damage",
        "any_robot": "offer",
        "announced": "none",
        "emergency": "none",
        "y1994": "none",
        "y2023": "offer",
        "answers": [True, True, False, False, False, False],
    }, offers
