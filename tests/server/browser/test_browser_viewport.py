"""Big courses on small screens (js/viewport.js): the biggest 2023 course with six robots on a
390 × 844 phone (touch, device scale factor 3): zoom until a space is big enough to tap, pan with
one finger and pinch with two, follow the player's robot, robot numbers legible at any zoom,
and the program controls still on the screen."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from playwright.sync_api import Page, expect

from .conftest import PHONE, Contexts, ServerProcess

#: The 2023 course of four boards (and its dock): 24 × 28 spaces, six start spaces.
BIG_COURSE = "y23-for-glory"


def phone_page(contexts: Contexts) -> Page:
    """A phone as the brief of this test has it: 390 × 844 CSS px at three device pixels each."""
    return contexts.custom(viewport=PHONE, device_scale_factor=3, is_mobile=True, has_touch=True)


def space_px(page: Page) -> float:
    """How wide a space is on the screen now, in CSS px."""
    return float(page.evaluate("() => rrGame.board.cellRect(0, 0).width"))


def smallest_number_px(page: Page) -> float:
    """The smallest robot number on the screen (its font size in CSS px)."""
    return float(
        page.evaluate(
            """() => Math.min(...[...document.querySelectorAll('.robot')]
                .filter((g) => g.style.display !== 'none')
                .map((g) => {
                    const t = g.querySelector('.robot-label text');
                    const m = t.getScreenCTM();
                    return parseFloat(t.getAttribute('font-size')) * Math.hypot(m.a, m.b);
                }))"""
        )
    )


def robot_on_screen(page: Page, seat: int) -> bool:
    """Whether the middle of the robot is inside the board's frame."""
    return bool(
        page.evaluate(
            """(seat) => {
                const g = document.querySelector(`[data-testid=robot-${seat}] .robot-body`);
                const frame = document.querySelector('.board-scroll').getBoundingClientRect();
                const r = g.getBoundingClientRect();
                const [x, y] = [r.left + r.width / 2, r.top + r.height / 2];
                return x >= frame.left && x <= frame.right && y >= frame.top && y <= frame.bottom;
            }""",
            seat,
        )
    )


def drag_fingers(
    page: Page, start: list[tuple[float, float]], end: list[tuple[float, float]], steps: int = 8
) -> None:
    """Real touches (Chromium's DevTools protocol): fingers put at ``start``, moved to ``end``
    in ``steps``, and lifted."""
    cdp = page.context.new_cdp_session(page)

    def touch(kind: str, points: list[tuple[float, float]]) -> None:
        fingers = [{"x": x, "y": y, "id": i} for i, (x, y) in enumerate(points)]
        cdp.send("Input.dispatchTouchEvent", {"type": kind, "touchPoints": fingers})

    touch("touchStart", start)
    for n in range(1, steps + 1):
        f = n / steps
        pairs = zip(start, end, strict=True)
        touch("touchMove", [(a[0] + (b[0] - a[0]) * f, a[1] + (b[1] - a[1]) * f) for a, b in pairs])
    touch("touchEnd", [])
    cdp.detach()


def test_the_biggest_course_with_six_robots_is_playable_on_a_phone(
    live_server: ServerProcess, contexts: Contexts, shots: Any, ui: Any
) -> None:
    game = live_server.create(
        course=BIG_COURSE,
        seats=[{"kind": "human", "name": "Pip"}] + [{"kind": "bot", "bot": "random"}] * 5,
        seed=11,
        max_rounds=3,
    )
    page = phone_page(contexts)
    page.goto(live_server.seat_url(game, 0, speed=0, lang="en"))
    page.get_by_test_id("start-game").tap()
    expect(page.locator("[data-testid=decision]")).to_have_attribute("data-kind", "start_space")
    # The whole course fits the phone's width: a space is small, too small to tap well.
    fit = space_px(page)
    assert 12 <= fit < 20, fit
    # Only "zoom in" is offered while the whole course is in view.
    expect(page.get_by_test_id("zoom-out")).to_be_hidden()
    expect(page.get_by_test_id("zoom-fit")).to_be_hidden()
    page.locator("[data-testid=choice]").first.tap()
    ui.until_program(page)
    # Six robots on the course: their numbers are legible although a space is ~16 px.
    expect(page.locator(".robot:not([style*='display: none'])")).to_have_count(6)
    assert smallest_number_px(page) >= 11.9
    shots(page, "big-course-fit-phone")

    # Zoom in with the button until a space is at least 40 px: the view is on the player's robot.
    for _ in range(4):
        if space_px(page) >= 40:
            break
        page.get_by_test_id("zoom-in").tap()
    assert space_px(page) >= 40, space_px(page)
    assert robot_on_screen(page, 0)
    expect(page.get_by_test_id("follow")).to_have_attribute("aria-pressed", "true")
    assert smallest_number_px(page) >= 11.9
    # The registers, the hand and "Lock in" are still on the screen, and nothing scrolls sideways.
    for selector in ("[data-testid=register-5]", "[data-testid=submit-program]", ".hand"):
        box = page.locator(selector).bounding_box()
        assert box is not None and box["y"] + box["height"] <= 844, (selector, box)
    assert page.evaluate("document.documentElement.scrollWidth") <= 392
    shots(page, "big-course-zoomed-phone")

    # One finger pans (and stops following); the robot leaves the view.
    frame = page.locator(".board-scroll").bounding_box()
    assert frame is not None
    mid = (frame["x"] + frame["width"] / 2, frame["y"] + frame["height"] / 2)
    before = page.evaluate("() => [rrGame.board.viewport.cx, rrGame.board.viewport.cy]")
    drag_fingers(page, [mid], [(mid[0] + 150, mid[1] + 120)])
    after = page.evaluate("() => [rrGame.board.viewport.cx, rrGame.board.viewport.cy]")
    assert after != before
    expect(page.get_by_test_id("follow")).to_have_attribute("aria-pressed", "false")
    # A pinch of two fingers zooms in further, and out again.
    zoomed = space_px(page)
    a, b = (mid[0] - 30, mid[1]), (mid[0] + 30, mid[1])
    drag_fingers(page, [a, b], [(mid[0] - 90, mid[1]), (mid[0] + 90, mid[1])])
    assert space_px(page) > zoomed * 1.5
    drag_fingers(page, [(mid[0] - 90, mid[1]), (mid[0] + 90, mid[1])], [a, b])
    assert abs(space_px(page) - zoomed) < zoomed * 0.25
    shots(page, "big-course-panned-phone")
    # "Follow my robot" brings it back.
    page.get_by_test_id("follow").tap()
    expect(page.get_by_test_id("follow")).to_have_attribute("aria-pressed", "true")
    assert robot_on_screen(page, 0)

    # A program, then a round at full speed: the robot stays in view while it moves.
    ui.program_first_cards(page, 5)
    page.select_option("[data-testid=speed]", "2")
    page.locator("[data-testid=submit-program]").tap()
    ui.until_register_plays(page)
    page.wait_for_function(
        "() => !document.getElementById('app').classList.contains('animating')", timeout=40_000
    )
    if page.evaluate("() => !!rrGame.board.robotAt(0)"):
        assert robot_on_screen(page, 0)
    shots(page, "big-course-after-round-phone")
    # The button shows the whole course again; a double tap zooms in there, and out again.
    page.get_by_test_id("zoom-fit").tap()
    assert abs(space_px(page) - fit) < 1
    expect(page.get_by_test_id("zoom-fit")).to_be_hidden()
    assert smallest_number_px(page) >= 11.9
    box = page.locator(".board-svg").bounding_box()
    assert box is not None
    spot = (box["x"] + box["width"] * 0.3, box["y"] + box["height"] * 0.3)
    double_tap(page, spot, until=lambda: space_px(page) >= 40)
    double_tap(page, spot, until=lambda: abs(space_px(page) - fit) < 1)


def double_tap(page: Page, spot: tuple[float, float], until: Callable[[], bool]) -> None:
    """Two taps on ``spot`` close together, until ``until`` holds. On a loaded machine the
    second tap can come later than a double tap allows (then the taps count as two single
    ones, as they would for a slow finger): the gesture is tried again, up to three times."""
    for _ in range(3):
        page.touchscreen.tap(*spot)
        page.wait_for_timeout(80)
        page.touchscreen.tap(*spot)
        if until():
            return
        page.wait_for_timeout(500)  # let a pending single tap pass before trying again
    assert until(), "a double tap did not zoom"


def test_the_mouse_and_the_keyboard_zoom_and_pan(
    live_server: ServerProcess, contexts: Contexts, ui: Any
) -> None:
    game = live_server.create(
        course=BIG_COURSE,
        seats=[{"kind": "human", "name": "Ada"}, {"kind": "bot", "bot": "random"}],
        seed=3,
    )
    page = contexts.page()
    page.goto(live_server.seat_url(game, 0, speed=0, lang="en"))
    page.get_by_test_id("start-game").click()
    expect(page.locator("[data-testid=decision]")).to_have_attribute("data-kind", "start_space")
    fit = space_px(page)
    box = page.locator(".board-svg").bounding_box()
    assert box is not None
    mid = (box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    # The plain wheel does not zoom; Ctrl + wheel does, at the pointer.
    page.mouse.move(*mid)
    page.mouse.wheel(0, 200)
    assert space_px(page) == fit
    page.keyboard.down("Control")
    page.mouse.wheel(0, -400)
    page.keyboard.up("Control")
    zoomed = space_px(page)
    assert zoomed > fit * 1.5
    # A drag pans; the click that ends it does not pin a space's explanation.
    centre = page.evaluate("() => [rrGame.board.viewport.cx, rrGame.board.viewport.cy]")
    page.mouse.down()
    page.mouse.move(mid[0] + 80, mid[1] + 60, steps=6)
    page.mouse.up()
    assert page.evaluate("() => [rrGame.board.viewport.cx, rrGame.board.viewport.cy]") != centre
    assert page.evaluate("() => rrGame.spaceInfo.pinned") is None
    # A plain click still explains a space.
    page.mouse.click(mid[0] + 80, mid[1] + 60)
    expect(page.get_by_test_id("space-info")).to_be_visible()
    assert page.evaluate("() => rrGame.spaceInfo.pinned") is not None
    page.keyboard.press("Escape")
    # The keys, with the board focused: arrows pan, + and - zoom, 0 shows the whole course.
    page.locator(".board-scroll").focus()
    centre = page.evaluate("() => [rrGame.board.viewport.cx, rrGame.board.viewport.cy]")
    page.keyboard.press("ArrowRight")
    assert page.evaluate("() => [rrGame.board.viewport.cx, rrGame.board.viewport.cy]") != centre
    page.keyboard.press("+")
    assert space_px(page) > zoomed
    page.keyboard.press("0")
    assert abs(space_px(page) - fit) < 1
    # The buttons are keyboard buttons too.
    page.get_by_test_id("zoom-in").focus()
    page.keyboard.press("Enter")
    assert space_px(page) > fit * 1.2
    expect(page.get_by_test_id("zoom-out")).to_be_visible()
