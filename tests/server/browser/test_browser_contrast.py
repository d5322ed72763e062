"""Text contrast of every panel, box and dialog in the dark and the light theme, on a desktop
and on a 390x844 phone (WCAG AA: 4.5:1, 3:1 for large text).

axe-core's color-contrast rule does the measuring: it finds each text's background through
the boxes under it and knows which text counts as large. Before each check the boxes of the
state are asserted visible, so a state cannot pass by checking an empty page.

One game serves both themes and both devices: the desktop's seat and the phone's seat are each
open in two browser windows, one per theme (the system's colour scheme of the window; the page
follows it, js/a11y.js). A page keeps its theme: switching it costs Chromium about a second of
drawing, which dozens of states would pay twice. (A seat open twice shows its devices banner,
which is checked with the rest.) The pages run with reduced motion, so nothing is measured
half-faded."""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from typing import Any

from playwright.sync_api import Locator, Page, expect

from .conftest import (
    MIN_SECONDS,
    Contexts,
    ServerProcess,
    SteadyPlayer,
    act,
    as_creator,
    choice_button,
    program_first_cards,
    until_program,
    visible,
)
from .test_browser_a11y import axe_script, wait_until_still
from .test_browser_a11y_states import themed

#: Spaces of the ``tiny`` course (Training Run) whose boxes say different things.
BELT, CHECKPOINT, LASER = (5, 1), (7, 6), (9, 7)
DECISION = "[data-testid=decision]"
#: axe-core with its color-contrast rule only: the elements whose text fails it, or null if a
#: box is no longer on the page (drawn anew since it was found).
CONTRAST_RUN = """(boxes) => boxes && !boxes.every((box) => box.isConnected) ? null
  : axe.run(boxes ? { include: boxes } : document, {
    runOnly: { type: "rule", values: ["color-contrast"] }, resultTypes: ["violations"],
  }).then((r) => r.violations.flatMap((v) => v.nodes))"""


# ---------------------------------------------------------------- the checks
def contrast_problems(page: Page, within: list[Locator] | None = None) -> list[str]:
    """Every text on the page (or ``within`` those boxes) below WCAG AA contrast, with its
    figures, once the page is still."""
    wait_until_still(page)
    if not page.evaluate("() => typeof axe !== 'undefined'"):
        page.evaluate(axe_script())
    for _ in range(5):
        boxes = [box.element_handle() for box in within] if within else None
        nodes = page.evaluate(CONTRAST_RUN, boxes)
        if nodes is not None:
            return [failure_words(node) for node in nodes]
    raise AssertionError(f"the boxes kept being drawn anew: {within}")


def failure_words(node: dict[str, Any]) -> str:
    """One failing text: where, its contrast and the one it needs, its colours and size."""
    data = (node["any"][0].get("data") or {}) if node["any"] else {}
    where = " ".join(str(part) for part in node["target"])
    return (
        f"{where}: {data.get('contrastRatio')}:1, needs {data.get('expectedContrastRatio')}"
        f" ({data.get('fgColor')} on {data.get('bgColor')}, {data.get('fontSize')}"
        f" {data.get('fontWeight')})"
    )


def system_scheme(page: Page) -> str:
    light = page.evaluate("() => matchMedia('(prefers-color-scheme: light)').matches")
    return "light" if light else "dark"


def device(page: Page) -> str:
    return "phone" if is_phone(page) else "desktop"


class Contrast:
    """The checks of one test. Failures are kept, not raised, so a run names every unreadable
    box at once (``assert_readable`` at the end)."""

    def __init__(self, shots: Callable[[Page, str], Any]) -> None:
        self.shots = shots
        self.failures: dict[str, list[str]] = {}  # failure -> the states it was seen in
        self.states: list[str] = []  # every state checked, for the report

    def check(
        self, page: Page, state: str, *boxes: Locator, whole_page: bool = True, shot: bool = False
    ) -> None:
        """``state`` of ``page`` in its theme: ``boxes`` visible, and every text of the page
        (``whole_page``) or of the boxes readable; ``shot``: a screenshot."""
        assert boxes, "a state names the boxes it shows"
        scheme = system_scheme(page)
        if "/rules/" not in page.url:  # the rules pages have one dark look
            expect(page.locator("html")).to_have_attribute("data-theme", scheme)
        for box in boxes:
            expect(box).to_be_visible()
        where = f"{state}-{device(page)}-{scheme}"
        if shot:
            self.shots(page, f"contrast-{where}")
        for failure in contrast_problems(page, None if whole_page else list(boxes)):
            self.failures.setdefault(f"{scheme}: {failure}", []).append(where)
        self.states.append(where)

    def assert_readable(self) -> None:
        lines = [
            f"{failure}  [in {', '.join(states)}]" for failure, states in self.failures.items()
        ]
        count = f"{len(lines)} texts below WCAG AA contrast in {len(self.states)} states checked"
        assert not lines, f"{count}:\n" + "\n".join(lines)


# ------------------------------------------------------------- page helpers
def two_windows(contexts: Contexts, phone: bool = False) -> list[Page]:
    """A page in the dark theme and a page in the light one, each in a browser window of its
    own (as two tabs of one window the game played several times slower), with reduced
    motion."""
    return [themed(contexts, s, phone=phone, reduced_motion="reduce") for s in ("dark", "light")]


def is_phone(page: Page) -> bool:
    return (page.viewport_size or {"width": 0})["width"] <= 560


def press(page: Page, target: Locator) -> None:
    """A tap on a phone, a click on a desktop."""
    if is_phone(page):
        target.tap()
    else:
        target.click()


def centre(page: Page, x: int, y: int) -> tuple[float, float]:
    """Where the space (x, y) of the board is on the screen."""
    cx, cy = page.evaluate(
        """([x, y]) => {
            const r = window.rrGame.board.cellRect(x, y);
            return [(r.left + r.right) / 2, (r.top + r.bottom) / 2];
        }""",
        [x, y],
    )
    return float(cx), float(cy)


def open_space(page: Page, x: int, y: int) -> Locator:
    """The space-info box of (x, y): a hover on a desktop, a tap (a sheet) on a phone."""
    page.locator("svg.board-svg").scroll_into_view_if_needed()
    if is_phone(page):
        page.touchscreen.tap(*centre(page, x, y))
    else:
        page.mouse.move(*centre(page, x, y))
    info = page.get_by_test_id("space-info")
    expect(info).to_have_attribute("data-x", str(x))
    expect(info).to_have_attribute("data-y", str(y))
    return info


def close_space(page: Page) -> None:
    info = page.get_by_test_id("space-info")
    if is_phone(page):
        info.locator(".space-close").tap()
    else:
        page.mouse.move(5, 5)
    expect(info).to_be_hidden()


def robot_space(page: Page) -> Locator:
    """The box of the start space under this page's robot."""
    x, y = page.evaluate("() => window.rrGame.board.robotAt(window.rrGame.seat).pos")
    info = open_space(page, int(x), int(y))
    expect(info.locator("[data-kind=start]")).to_be_visible()
    expect(info.locator("[data-kind=robot]")).to_be_visible()
    return info


def unfold(page: Page, details: Locator, open: bool = True) -> None:
    """Open (or close) a folding box (<details>)."""
    if (details.get_attribute("open") is not None) != open:
        press(page, details.locator("summary"))
    if open:
        expect(details).to_have_attribute("open", "")
    else:
        expect(details).not_to_have_attribute("open", "")


def once_each(seats: list[list[Page]], selector: str, then: Callable[[list[Page]], Any]) -> None:
    """``then(windows)`` for each seat's windows as soon as ``selector`` shows in its first
    (the seats' questions come one after another, in an order the game decides)."""
    waiting = list(seats)
    deadline = time.monotonic() + 30
    while waiting:
        assert time.monotonic() < deadline, f"{selector} never showed"
        for windows in list(waiting):
            if visible(windows[0], selector):
                then(windows)
                waiting.remove(windows)
        seats[0][0].wait_for_timeout(50)


# ------------------------------------------------------------- the states
def check_lobby(check: Contrast, page: Page, server: ServerProcess) -> None:
    page.goto(server.base + "/?lang=en")
    page.wait_for_selector(".course-preview svg")
    more = page.locator("details.advanced")
    unfold(page, more)
    boxes = page.locator(".create-form"), more.get_by_test_id("seed"), page.locator(".games-col")
    check.check(page, "lobby", *boxes)


def check_waiting_rooms(
    check: Contrast,
    desks: list[Page],
    phones: list[Page],
    server: ServerProcess,
    game: dict[str, Any],
) -> None:
    """The creator's waiting room (with the invites) and a joined seat's; then the start. The
    phone's second window opens the seat with the token its invite brought the first."""
    for page in desks:
        as_creator(page, game)
        page.goto(server.seat_url(game, 0, speed=0, lang="en"))
    phones[0].goto(server.seat_url(game, 1, speed=0, lang="en"))
    expect(phones[0]).to_have_url(re.compile("#token="))
    phones[1].goto(phones[0].url)
    for page in phones:
        check.check(page, "waiting-room", page.get_by_test_id("ready"))
    press(phones[0], phones[0].get_by_test_id("ready"))
    for page in desks:
        expect(page.get_by_test_id("player-1")).to_contain_text("ready")
        check.check(page, "waiting-room", page.get_by_test_id("invite-1"))
    press(desks[0], desks[0].get_by_test_id("start-game"))


def check_start_spaces(check: Contrast, desks: list[Page], phones: list[Page]) -> None:
    """On the desktop the start space question with the box of a belt beside it, the boxes of
    a checkpoint and a laser; the phone's sheet of the laser; then both seats choose."""
    for page in desks:
        question = page.locator(f"{DECISION}[data-kind=start_space]")
        info = open_space(page, *BELT)
        expect(info.locator("[data-kind=belt]")).to_be_visible()
        check.check(page, "start-question+space-info-belt", question, info, shot=True)
        for kind, space in (("checkpoint", CHECKPOINT), ("laser", LASER)):
            info = open_space(page, *space)
            expect(info.locator(f"[data-kind={kind}]").first).to_be_visible()
            check.check(page, f"space-info-{kind}", info, whole_page=False)
        close_space(page)
    for page in phones:
        sheet = open_space(page, *LASER)
        expect(sheet).to_have_class(re.compile("sheet"))
        check.check(page, "space-info-laser", sheet, whole_page=False, shot=True)
        close_space(page)
    once_each(
        [desks, phones],
        f"{DECISION}[data-kind=start_space]",
        lambda windows: press(windows[0], windows[0].get_by_test_id("choice").first),
    )


def check_upgrade_and_card(check: Contrast, windows: list[Page]) -> None:
    """The upgrade phase's question and a shop card opened large, in each window; then an
    answer."""
    for page in windows:
        shop = page.locator(f"{DECISION}[data-kind=upgrade_phase]")
        check.check(page, "upgrade-question", shop, whole_page=False)
        press(page, shop.locator(".card[data-card]").first)
        view = page.get_by_test_id("card-view")
        check.check(page, "card-view", view, view.get_by_test_id("card-text"), whole_page=False)
        press(page, view.get_by_test_id("card-view-close"))
        expect(view).to_be_hidden()
    press(windows[0], choice_button(windows[0]))


def open_side_boxes(page: Page) -> None:
    """The log, the game information and the chat open (the legend: check_programming)."""
    unfold(page, page.locator("details.log-box"))
    unfold(page, page.get_by_test_id("game-info"))
    toggle = page.get_by_test_id("chat-toggle")
    if toggle.get_attribute("aria-expanded") != "true":
        press(page, toggle)
    expect(page.get_by_test_id("chat-input")).to_be_visible()


def say(page: Page, text: str) -> None:
    page.fill("[data-testid=chat-input]", text)
    page.press("[data-testid=chat-input]", "Enter")


def check_programming(check: Contrast, page: Page) -> None:
    """The tray and every box beside it, the legend open, the devices banner (the seat is
    open twice); the box of the start space under the robot. The legend is closed
    again after: each of its symbols draws the whole board, which makes the drawing of the
    page slow for the states after."""
    legend = page.get_by_test_id("legend")
    boxes = (
        page.get_by_test_id("devices-banner"),
        page.get_by_test_id("program"),
        page.get_by_test_id("hand-card").first,
        page.locator(".players-box"),
        page.get_by_test_id("log"),
        page.get_by_test_id("chat-message").first,
        legend.get_by_test_id("legend-item").first,
        page.locator("[data-testid=game-info] .info-body"),
    )
    if is_phone(page):
        # The sheet covers the bottom of the screen: the sheet alone, then the page without it.
        check.check(page, "space-info-start-robot", robot_space(page), whole_page=False, shot=True)
        close_space(page)
        unfold(page, legend)
        check.check(page, "programming", *boxes)
    else:
        unfold(page, legend)  # first: the mouse leaves the board for it
        check.check(
            page, "programming+space-info-start-robot", *boxes, robot_space(page), shot=True
        )
        close_space(page)
    unfold(page, legend, open=False)


def check_board_banner(check: Contrast, page: Page) -> None:
    """The caption over the board ("Register 3") shows a moment while a register plays: shown
    here for as long as the check takes."""
    page.evaluate("() => window.rrGame.board.showBanner('Register 3', 60000)")
    check.check(page, "board-banner", page.locator(".board-banner.show"), whole_page=False)
    page.evaluate("() => window.rrGame.board.showBanner('', 0)")


def play_to_the_end(seats: list[list[Page]]) -> None:
    """Lock in a program for each seat and answer what the activation asks until the game's
    result shows in every window."""
    firsts = [first for first, _ in seats]
    for page in firsts:
        program_first_cards(page, 5)
        press(page, page.get_by_test_id("submit-program"))
    deadline = time.monotonic() + 60
    while not all(visible(page, "[data-testid=result]") for page in firsts):
        assert time.monotonic() < deadline, "the game did not end"
        for page in firsts:
            act(page)
        firsts[0].wait_for_timeout(50)
    for _, second in seats:
        expect(second.get_by_test_id("result")).to_be_visible()


def check_game_over(check: Contrast, page: Page) -> None:
    """The result window, then the finished tray under it."""
    result = page.get_by_test_id("result")
    first = result.locator(".standings li").first
    check.check(page, "result-window", result, first, whole_page=False)
    page.keyboard.press("Escape")
    expect(result).to_have_count(0)
    check.check(page, "finished-tray", page.get_by_test_id("result-line"))


def check_replay(check: Contrast, page: Page, server: ServerProcess, game_id: str) -> None:
    page.goto(f"{server.base}/?replay={game_id}&lang=en")
    step = page.get_by_test_id("replay-step")
    expect(step).not_to_be_empty()
    for _ in range(3):
        press(page, page.get_by_test_id("replay-next"))
    check.check(page, "replay", page.get_by_test_id("replay"), step)


def check_rules(check: Contrast, page: Page, server: ServerProcess) -> None:
    """The page the game's rules link opens (one dark look whatever the system's)."""
    page.goto(server.base + "/rules/2023?lang=en")
    check.check(page, "rules-2023", page.locator("h1"), page.locator("main"))


# ------------------------------------------------------------------- tests
def test_every_box_of_a_game_is_readable_in_both_themes(
    live_server: ServerProcess, contexts: Contexts, shots: Any
) -> None:
    """A game of a desktop seat, a phone seat and a bot, from the lobby to the replay."""
    axe_script()
    check = Contrast(shots)
    desks, phones = two_windows(contexts), two_windows(contexts, phone=True)
    seats, windows = [desks, phones], desks + phones
    for page in windows:
        check_lobby(check, page, live_server)
    game = live_server.create(
        seats=[{"kind": "human", "name": "Ada"}, {"kind": "human", "name": "Bo"}, {"kind": "bot"}],
        seed=3,
        max_rounds=1,
    )
    check_waiting_rooms(check, desks, phones, live_server, game)
    check_start_spaces(check, desks, phones)
    once_each(
        seats, f"{DECISION}[data-kind=upgrade_phase]", lambda s: check_upgrade_and_card(check, s)
    )
    until_program(desks[0], phones[0])
    # Every box beside the tray open, with a chat message from each seat (another's name).
    for page in windows:
        open_side_boxes(page)
    say(desks[0], "good luck")
    say(phones[0], "thanks")
    for page in windows:
        expect(page.get_by_test_id("program")).to_be_visible()
        expect(page.get_by_test_id("chat-message")).to_have_count(2)
        check_programming(check, page)
    for page in desks:
        check_board_banner(check, page)
    play_to_the_end(seats)
    for page in windows:
        check_game_over(check, page)
        check_replay(check, page, live_server, game["game_id"])
    for _, light in seats:  # one look: under the light system setting as under the dark
        check_rules(check, light, live_server)
    # A link to a game that is not there: the connection banner says so.
    for page in desks:
        page.goto(f"{live_server.base}/?game=nosuchgame&lang=en")
        check.check(page, "connection-banner", page.get_by_test_id("conn-banner"))
    check.assert_readable()


def test_the_tabletop_screen_and_the_auto_play_banner_are_readable_in_both_themes(
    live_server: ServerProcess, contexts: Contexts, shots: Any
) -> None:
    """The shared screen with its codes, a seat joined, the game under way; a phone whose
    player lets the deadlines pass sees the auto-play banner."""
    axe_script()
    check = Contrast(shots)
    game = live_server.create(
        seats=[{"kind": "human", "name": "Ada"}, {"kind": "human", "name": "Bo"}],
        max_rounds=8,
        table=True,
        decision_seconds=MIN_SECONDS,
        program_seconds=MIN_SECONDS,
    )
    tables, phones = two_windows(contexts), two_windows(contexts, phone=True)
    for page in tables:
        page.goto(live_server.base + "/api/health")  # the site's origin, without the app
        as_creator(page, game)
        page.goto(f"{live_server.base}/?game={game['game_id']}&table=1&speed=0&lang=en")
    # Ada joins on her phone (its waiting room: the other test) and is ready; Bo's code waits.
    phones[0].goto(live_server.seat_url(game, 0, speed=0, lang="en"))
    expect(phones[0]).to_have_url(re.compile("#token="))
    phones[1].goto(phones[0].url)
    press(phones[0], phones[0].get_by_test_id("ready"))
    for page in tables:
        joined = page.get_by_test_id("table-seat-0")
        expect(joined).to_have_attribute("data-joined", "true")
        check.check(page, "table-codes+seat-joined", page.get_by_test_id("table-qr-1"), joined)
    # Bo joins and answers at a person's pace; Ada lets her deadlines pass.
    with SteadyPlayer(live_server, game, 1, delay=1.0):
        for page in tables:
            check.check(page, "table-playing", page.get_by_test_id("table-all-joined"))
        for page in phones:
            banner = page.get_by_test_id("auto-banner")
            expect(banner).to_be_visible(timeout=15_000)
            check.check(page, "auto-play-banner", banner, whole_page=False)
    check.assert_readable()
