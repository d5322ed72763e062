"""A first game a newcomer understands: every space of the board says what is on it (hover on a
desktop, tap on a phone), a legend, links to the rules pages, and every card opens large."""

from __future__ import annotations

import re
from typing import Any

from playwright.sync_api import Page, expect

from .conftest import Contexts, ServerProcess, start_game, until_program

#: Known spaces of the ``tiny`` course (Training Run): the element kinds on each and words the
#: explanation must hold.
TINY_SPACES = {
    (1, 6): (
        {"pusher", "wall"},
        ["Push panel", "Pushes in registers 1, 3 and 5", "east", "west side"],
    ),
    (5, 1): ({"belt"}, ["Blue conveyor belt", "2 spaces south", "from the west turns right"]),
    (5, 4): ({"belt"}, ["Green conveyor belt", "1 space east", "from the north turns left"]),
    (2, 4): ({"gear"}, ["Green gear (turns right)", "clockwise"]),
    (8, 5): ({"gear"}, ["Red gear (turns left)", "counter-clockwise"]),
    (9, 7): ({"laser", "wall"}, ["Board laser, 2 beams", "fires west", "2 damage", "east side"]),
    (6, 3): ({"laser"}, ["In a laser beam", "column 8, row 4", "fires west"]),
    (3, 5): ({"reboot"}, ["Reboot token", "pushed 1 space east"]),
    (7, 6): ({"checkpoint"}, ["Checkpoint 1"]),
    (2, 2): ({"checkpoint"}, ["Checkpoint 2", "after reaching checkpoint 1", "wins the race"]),
    (1, 3): ({"battery"}, ["Battery", "gains 1 energy"]),
    (8, 1): ({"pit"}, ["Pit", "falls in"]),
    (0, 11): ({"start"}, ["Start space 1"]),
    (3, 3): ({"wall"}, ["Walls", "north and east sides"]),
}


def _centre(page: Page, x: int, y: int) -> tuple[float, float]:
    """Where the space (x, y) of the board is on the screen."""
    cx, cy = page.evaluate(
        """([x, y]) => {
            const r = window.rrGame.board.cellRect(x, y);
            return [(r.left + r.right) / 2, (r.top + r.bottom) / 2];
        }""",
        [x, y],
    )
    return float(cx), float(cy)


def _open_game(
    server: ServerProcess, contexts: Contexts, name: str, seed: int, phone: bool = False
) -> Page:
    """A game of ``name`` against a bot on the tiny course, at its start space question."""
    game = server.create(
        seats=[{"kind": "human", "name": name}, {"kind": "bot", "bot": "random"}], seed=seed
    )
    page = contexts.page(phone=phone)
    page.goto(server.seat_url(game, 0, speed=0))
    _start_game(page)
    return page


def _start_game(page: Page) -> None:
    start_game(page)
    expect(page.get_by_test_id("decision")).to_have_attribute("data-kind", "start_space")


def _check_space(page: Page, x: int, y: int) -> None:
    info = page.locator("[data-testid=space-info]")
    expect(info).to_be_visible()
    expect(info).to_have_attribute("data-x", str(x))
    expect(info).to_have_attribute("data-y", str(y))
    kinds, words = TINY_SPACES[(x, y)]
    items = info.locator("[data-testid=space-element]")
    shown = {items.nth(i).get_attribute("data-kind") for i in range(items.count())}
    assert shown - {"robot"} == kinds, ((x, y), shown)
    for word in words:
        expect(info).to_contain_text(word)
    # Each element links to its section of the rules page, in a new tab.
    for kind in kinds:
        link = info.locator(f"[data-kind={kind}] [data-testid=rules-link]").first
        expect(link).to_have_attribute("href", f"/rules/2023?lang=en#el-{kind}")
        expect(link).to_have_attribute("target", "_blank")


def test_a_space_explains_itself_on_hover_and_the_legend_lists_the_elements(
    live_server: ServerProcess, contexts: Contexts, shots: Any
) -> None:
    page = contexts.page()
    page.goto(live_server.base + "/")
    for edition in ("2023", "classic", "classic-1994"):
        expect(page.get_by_test_id(f"rules-{edition}")).to_have_attribute(
            "href", f"/rules/{edition}?lang=en"
        )
    game = live_server.create(
        seats=[{"kind": "human", "name": "Ada"}, {"kind": "bot", "bot": "random"}], seed=3
    )
    page.goto(live_server.seat_url(game, 0, speed=0))
    _start_game(page)
    rules = page.get_by_test_id("rules")
    expect(rules).to_have_attribute("href", "/rules/2023?lang=en")
    expect(rules).to_have_attribute("target", "_blank")
    info = page.locator("[data-testid=space-info]")
    for x, y in TINY_SPACES:
        page.mouse.move(*_centre(page, x, y))
        _check_space(page, x, y)
    shots(page, "space-info-desktop")
    # Off the board it goes away; a click keeps it open (its links can be clicked).
    page.mouse.move(5, 400)
    expect(info).to_be_hidden()
    page.mouse.click(*_centre(page, 1, 6))
    expect(info).to_have_class(re.compile("pinned"))
    page.mouse.move(5, 400)
    expect(info).to_be_visible()
    page.keyboard.press("Escape")
    expect(info).to_be_hidden()
    # Choosing a start space on the board still works (a click on a choice does not pin it).
    page.locator(".mark-layer .choice").first.click()
    expect(info).not_to_have_class(re.compile("pinned"))
    until_program(page)

    # The legend: each element of this course with its symbol, one line and a link.
    legend = page.get_by_test_id("legend")
    legend.locator("summary").click()
    entries = legend.locator("[data-testid=legend-item]")
    keys = {entries.nth(i).get_attribute("data-key") for i in range(entries.count())}
    assert keys == {
        "start", "belt-blue", "belt-green", "pusher", "gear-right", "gear-left", "laser",
        "battery", "pit", "wall", "checkpoint", "reboot",
    }, keys  # fmt: skip
    for i in range(entries.count()):
        entry = entries.nth(i)
        kind = entry.get_attribute("data-kind")
        expect(entry.locator("svg.space-symbol use")).to_have_count(1)
        expect(entry.locator("a.rules-link")).to_have_attribute(
            "href", f"/rules/2023?lang=en#el-{kind}"
        )
    expect(legend).to_contain_text("Push panel")
    legend.scroll_into_view_if_needed()
    shots(page, "legend-desktop")


def test_a_tap_on_a_phone_explains_a_space(
    live_server: ServerProcess, contexts: Contexts, shots: Any
) -> None:
    page = _open_game(live_server, contexts, "Pip", 3, phone=True)
    info = page.locator("[data-testid=space-info]")
    for x, y in [(3, 5), (1, 6), (9, 7), (5, 1)]:
        page.touchscreen.tap(*_centre(page, x, y))
        _check_space(page, x, y)
        # A sheet at the bottom of the screen, inside it.
        box = info.bounding_box()
        assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= 390, box
        assert box["y"] + box["height"] <= 844, box
    shots(page, "space-info-phone")
    page.locator("[data-testid=space-info] .space-close").tap()
    expect(info).to_be_hidden()
    page.locator("[data-testid=choice]").first.tap()  # start space 1, at (0, 11)
    until_program(page)
    page.touchscreen.tap(*_centre(page, 0, 11))
    expect(info).to_contain_text("Start space 1")
    robot = info.locator("[data-testid=space-element][data-kind=robot]")
    expect(robot).to_contain_text("Robot 1: Pip (you)")
    expect(robot).to_contain_text("Facing")


def _catalogue(page: Page, edition: str) -> dict[str, Any]:
    data: dict[str, Any] = page.evaluate(
        "async (e) => (await (await fetch('/api/web/cards?edition=' + e)).json()).cards", edition
    )
    return data


def _long_press_touch(page: Page, x: float, y: float, ms: int = 800) -> None:
    """Hold a finger on the screen (Playwright's touchscreen only taps)."""
    cdp = page.context.new_cdp_session(page)
    point = [{"x": x, "y": y, "id": 1}]
    cdp.send("Input.dispatchTouchEvent", {"type": "touchStart", "touchPoints": point})
    page.wait_for_timeout(ms)
    cdp.send("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})
    cdp.detach()


def test_cards_open_large_by_long_press_and_click_and_a_tap_still_programs(
    live_server: ServerProcess, contexts: Contexts, shots: Any, ui: Any
) -> None:
    page = _open_game(live_server, contexts, "Ada", 4)
    page.locator("[data-testid=choice]").first.click()
    # The upgrade shop: its cards open with a click; then buy one.
    shop = page.locator("[data-testid=decision][data-kind=upgrade_phase]")
    expect(shop).to_be_visible()
    view = page.get_by_test_id("card-view")
    shop_card = shop.locator(".card[data-card]").first
    shop_id = shop_card.get_attribute("data-card")
    shop_card.click()
    expect(view).to_have_attribute("data-card", shop_id or "")
    cards = _catalogue(page, "2023")
    expect(view.get_by_test_id("card-text")).to_have_text(cards[shop_id or ""]["text"])
    expect(view).to_contain_text(re.compile("(Permanent|Temporary) upgrade"))
    expect(view.get_by_test_id("card-rules")).to_have_attribute(
        "href", f"/rules/2023?lang=en#card-{shop_id}"
    )
    page.keyboard.press("Escape")
    expect(view).to_be_hidden()
    install = page.locator("[data-testid=choice][data-value^='\"install ']").first
    installed = (install.get_attribute("data-value") or "").strip('"').split(" ", 1)[1]
    install.click()
    until_program(page)

    # A long press on a hand card opens it and does not program it.
    hand = page.locator("[data-testid=hand-card]")
    first = hand.first
    name = first.get_attribute("data-card") or ""
    box = first.bounding_box()
    assert box is not None
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    page.mouse.down()
    page.wait_for_timeout(800)
    page.mouse.up()
    expect(view).to_be_visible()
    expect(view).to_have_attribute("data-card", name)
    expect(view.get_by_test_id("card-text")).to_have_text(cards[name]["text"])
    expect(view).to_contain_text("Programming card")
    shots(page, "card-view-desktop")
    view.get_by_test_id("card-view-close").click()
    expect(view).to_be_hidden()
    expect(page.locator("[data-testid=register-1]")).to_have_class(re.compile("empty"))
    assert hand.count() == 9
    # A click still programs, exactly as before.
    chosen = ui.program_first_cards(page, 5)
    for number, card in enumerate(chosen, start=1):
        expect(page.locator(f"[data-testid=register-{number}] .card")).to_have_attribute(
            "data-card", card
        )
    expect(view).to_be_hidden()
    # An installed upgrade in the panel: its own icon, and a click opens it.
    chip = page.locator("[data-testid=upgrades-0] .upgrade").first
    expect(chip.locator("svg")).to_have_count(1)
    chip.click()
    expect(view).to_have_attribute("data-card", installed)
    page.keyboard.press("Escape")
    page.click("[data-testid=submit-program]")
    # The log names the revealed cards; a click on one opens it.
    link = page.locator("[data-testid=log] .card-link").first
    expect(link).to_be_visible(timeout=20_000)
    link.click()
    expect(view).to_be_visible()
    page.keyboard.press("Escape")
    # The register cards in the panels open with a click too.
    ui.play_until(
        page, lambda: page.locator("[data-testid=player-0] .mini-slot .card[data-card]").count() > 0
    )
    page.locator("[data-testid=player-0] .mini-slot .card[data-card]").first.click()
    expect(view).to_be_visible()


def test_on_a_phone_a_long_press_opens_a_card_and_a_tap_places_it(
    live_server: ServerProcess, contexts: Contexts, shots: Any
) -> None:
    page = _open_game(live_server, contexts, "Pip", 4, phone=True)
    page.locator("[data-testid=choice]").first.tap()
    until_program(page)
    hand = page.locator("[data-testid=hand-card]")
    first = hand.first
    name = first.get_attribute("data-card")
    box = first.bounding_box()
    assert box is not None
    _long_press_touch(page, box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    view = page.get_by_test_id("card-view")
    expect(view).to_be_visible()
    expect(view).to_have_attribute("data-card", name or "")
    shots(page, "card-view-phone")
    view.get_by_test_id("card-view-close").tap()
    expect(view).to_be_hidden()
    expect(page.locator("[data-testid=register-1]")).to_have_class(re.compile("empty"))
    assert hand.count() == 9
    hand.first.tap()
    expect(page.locator("[data-testid=register-1] .card")).to_have_attribute(
        "data-card", name or ""
    )
    expect(view).to_be_hidden()


def test_every_upgrade_and_option_card_has_an_icon_of_its_own(
    live_server: ServerProcess, contexts: Contexts
) -> None:
    page = contexts.page()
    page.goto(live_server.base + "/")
    for edition, types in (("2023", {"permanent", "temporary"}), ("classic", {"option"})):
        icons: dict[str, str] = page.evaluate(
            """async ([edition, types]) => {
                const { cardIcon, setCatalogue } = await import('/js/cards.js');
                const answer = await fetch('/api/web/cards?edition=' + edition);
                const cards = (await answer.json()).cards;
                setCatalogue({ ...cards, no_such_upgrade: { name: 'X', type: types[0] } });
                const out = {};
                for (const [id, c] of Object.entries(cards)) {
                    if (types.includes(c.type)) out[id] = cardIcon(id).innerHTML;
                }
                out['(no such upgrade)'] = cardIcon('no_such_upgrade').innerHTML;
                return out;
            }""",
            [edition, sorted(types)],
        )
        generic = icons.pop("(no such upgrade)")
        expected = 40 if edition == "2023" else 26
        assert len(icons) == expected, (edition, len(icons))
        drawings: dict[str, str] = {}
        for card, svg in icons.items():
            assert svg.count("<") > 3, (card, svg)
            assert svg != generic, f"{card} has no icon of its own"
            assert svg not in drawings, f"{card} looks like {drawings.get(svg)}"
            drawings[svg] = card
