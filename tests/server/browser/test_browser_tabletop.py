"""Tabletop mode (js/table.js, roborally.server.tabletop): one shared screen shows the seats' QR
codes, then the board and the log; two phones join with the links the codes hold and play a
whole game; the shared screen never receives a hand or anything else a spectator must not see."""

from __future__ import annotations

import time
from typing import Any

from playwright.sync_api import Page, expect

from roborally.server.client import hands_in, view_leaks
from roborally.server.tabletop import qr_svg

from ..qrcodes import decode_png
from .conftest import Contexts, ServerProcess, act


def raw_frames(page: Page) -> list[str]:
    """Every text frame the page receives on its WebSockets, as sent."""
    frames: list[str] = []

    def on_socket(ws: Any) -> None:
        ws.on("framereceived", lambda payload: isinstance(payload, str) and frames.append(payload))

    page.on("websocket", on_socket)
    return frames


def test_a_table_of_two_phones_plays_a_game_on_one_shared_screen(
    live_server: ServerProcess, contexts: Contexts, shots: Any, ui: Any
) -> None:
    table = contexts.page()
    frames = raw_frames(table)
    # The creator offers the game at one table: two people (no bots), a short race.
    table.goto(live_server.base + "/?speed=4&lang=en")
    table.fill("[data-testid=player-name]", "Ada")
    table.locator("[data-testid=seat-kind]").nth(0).select_option("human")
    table.locator("[data-testid=seat-row]").nth(1).locator("input").fill("Bo")
    table.get_by_role("button", name="Remove seat 3").click()
    table.fill("[data-testid=max-rounds]", "2")
    expect(table.get_by_test_id("seat-me")).to_have_text("Ada (you)")
    table.get_by_test_id("table-mode").check()
    # This screen is the table's: the creator's seat is one of the table's, not "you".
    expect(table.get_by_test_id("seat-me")).to_have_text("Ada (at the table, joins with a code)")
    table.click("[data-testid=create-game]")
    table.wait_for_url("**/?game=*&table=1")
    assert "#" not in table.url  # no token in the shared screen's address

    # A big QR code per seat; each holds exactly that seat's link (the create response's).
    game_id = table.url.split("game=")[1].split("&")[0]
    created = table.evaluate(f"() => JSON.parse(localStorage.getItem('rr.created.{game_id}'))")
    links = {s["seat"]: s["url"] for s in created["seats"] if s["kind"] == "human"}
    assert sorted(links) == [0, 1]
    for seat, link in links.items():
        code = table.get_by_test_id(f"table-qr-{seat}")
        expect(code).to_be_visible()
        table.wait_for_function(
            "(seat) => document.querySelector(`[data-testid=table-qr-${seat}]`).naturalWidth > 0",
            arg=seat,
        )
        box = code.bounding_box()
        assert box is not None and box["width"] >= 200, box  # big enough to scan across a table
        svg = table.evaluate(
            "async (seat) => (await fetch(document.querySelector("
            "`[data-testid=table-qr-${seat}]`).src)).text()",
            seat,
        )
        assert svg == qr_svg(link)
        # What a phone's camera sees: the code's pixels on the screen read back as the link.
        assert decode_png(code.screenshot()) == [link]
    shots(table, "table-join-desktop")

    # The phones open the links (as a phone's camera would) and say they are ready.
    phones = []
    for seat in (0, 1):
        phone = contexts.page(phone=True)
        phone.goto(links[seat].replace("#", "&speed=0&lang=en#"))
        expect(phone.get_by_test_id("ready")).to_be_visible()
        expect(table.get_by_test_id(f"table-seat-{seat}")).to_have_attribute("data-joined", "true")
        expect(table.get_by_test_id(f"table-qr-{seat}")).to_have_count(0)  # the code is gone
        phones.append(phone)
    shots(table, "table-joined-desktop")
    for phone in phones:
        phone.get_by_test_id("ready").tap()

    # The game starts by itself; the shared screen shows the board big, and the log.
    expect(table.get_by_test_id("table-all-joined")).to_be_visible(timeout=15_000)
    board = table.locator(".board-svg").bounding_box()
    assert board is not None and board["height"] >= 500, board

    # Both phones play to the end; one programming screen is checked on the phone's size.
    checked = False
    deadline = time.monotonic() + 150
    while not ui.visible(table, "[data-testid=result]"):
        assert time.monotonic() < deadline, "the game did not end"
        for phone in phones:
            if not checked and ui.visible(phone, "[data-testid=program]"):
                for selector in (
                    "[data-testid=register-5]",
                    "[data-testid=submit-program]",
                    ".hand",
                ):
                    box = phone.locator(selector).bounding_box()
                    assert box is not None and box["y"] + box["height"] <= 844, (selector, box)
                shots(phone, "table-phone-program")
                shots(table, "table-playing-desktop")
                checked = True
            act(phone)
        table.wait_for_timeout(60)
    assert checked
    expect(table.get_by_test_id("log")).to_contain_text("reveals")
    shots(table, "table-result-desktop")

    # The shared screen watched as a spectator: never a hand, a decision or a hidden card.
    assert frames
    welcome = [f for f in frames if '"type":"welcome"' in f.replace(" ", "")]
    assert welcome and all('"role":"spectator"' in f.replace(" ", "") for f in welcome)
    assert table.locator("[data-testid=hand-card]").count() == 0
    for text in frames:
        assert hands_in(text) == [], text[:200]
        assert view_leaks(text, None) == [], text[:200]
