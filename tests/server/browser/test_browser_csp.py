"""The Content-Security-Policy (headers.py) blocks nothing the page needs: no violation in the
lobby, at the table view (its QR codes are blob: pictures), through a whole game (board, cards,
animations, result) and on a rules page; and the watch (csp.py) does see one when there is
one. Every other browser test runs under the policy too: the ``contexts`` fixture fails a test
whose pages reported a violation."""

from __future__ import annotations

from typing import Any

from playwright.sync_api import Page, expect

from .conftest import Contexts, ServerProcess


def violations(page: Page) -> list[str]:
    page.evaluate("1")  # a round trip: reports the page sent before are in
    found: list[str] = page.csp_violations  # type: ignore[attr-defined]
    return found


def test_no_violation_in_lobby_table_game_and_rules(
    live_server: ServerProcess, contexts: Contexts, ui: Any
) -> None:
    page = contexts.page()
    lobby = page.goto(live_server.base + "/?speed=0")
    assert lobby is not None
    assert "script-src 'self';" in lobby.headers["content-security-policy"]
    expect(page.get_by_role("heading", name="New game")).to_be_visible()
    page.wait_for_selector(".course-preview svg")
    assert violations(page) == [], "lobby"

    # A game for one shared screen: its seats' QR codes are blob: pictures.
    page.locator("[data-testid=seat-kind]").nth(0).select_option("human")
    page.locator("[data-testid=seat-row]").nth(1).locator("input").fill("Bo")
    page.get_by_test_id("table-mode").check()
    page.click("[data-testid=create-game]")
    page.wait_for_url("**/?game=*&table=1")
    page.wait_for_function("() => document.querySelector('[data-testid=table-qr-0]')?.naturalWidth")
    assert violations(page) == [], "table"

    seats = [{"kind": "human", "name": "Ada"}, {"kind": "bot", "bot": "random"}]
    game = live_server.create(seats=seats, max_rounds=1, seed=3)
    page.goto(live_server.seat_url(game, 0, speed=0))
    start, program = page.locator("[data-testid=start-game]"), page.locator("[data-testid=program]")
    expect(start.or_(program).first).to_be_visible()
    if start.is_visible():
        start.click()
    result = page.locator("[data-testid=result]")
    ui.play_until(page, result.is_visible, timeout=120)
    assert violations(page) == [], "game"

    page.goto(live_server.base + "/rules/2023")
    page.wait_for_selector("figure svg")
    assert violations(page) == [], "rules page"

    # The watch works: an inline script (what an injection would add) is refused and reported.
    page.evaluate(
        """() => { const s = document.createElement("script");
                   s.textContent = "window.rrRan = true"; document.head.append(s); }"""
    )
    page.wait_for_function("() => document.readyState === 'complete'")
    assert page.evaluate("window.rrRan === undefined")
    assert any(v.startswith("script-src-elem refused inline") for v in violations(page))
    page.csp_violations.clear()  # type: ignore[attr-defined]  # seen on purpose
