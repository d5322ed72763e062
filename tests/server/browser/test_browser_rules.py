"""The rules help pages in Chromium, on a desktop and on a phone: they render without errors
and without sideways scrolling, every picture has a size, a link with an anchor lands on its
section, the contents list and the way back to the lobby work.

With ``ROBORALLY_SCREENSHOTS=docs/screenshots`` the pictures docs/rules-help.md shows
(``rules-desktop.png``, ``rules-phone.png``) are written there.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from playwright.sync_api import Page, expect

from .conftest import DESKTOP, PHONE, Contexts, ServerProcess, _shrink

EDITIONS = ("2023", "classic", "classic-1994")


def doc_shot(page: Page, shots: Any, name: str) -> None:
    """A screenshot for docs/rules-help.md (kept in the docs with ROBORALLY_SCREENSHOTS)."""
    folder = os.environ.get("ROBORALLY_SCREENSHOTS")
    if folder is None:
        shots(page, name)
        return
    path = Path(folder) / f"{name}.png"
    path.parent.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(path), animations="disabled")
    _shrink(path)


def check_page(page: Page, width: int) -> None:
    expect(page.locator("h1")).to_contain_text("How to play RoboRally")
    assert page.evaluate("document.documentElement.scrollWidth") <= width  # no sideways scroll
    widths = page.locator("figure svg").evaluate_all(
        "svgs => svgs.map(svg => svg.getBoundingClientRect().width)"
    )
    assert len(widths) >= 14 and min(widths) > 100, widths
    # The pictures are the renderer's: robots and elements inside the page's own SVG.
    assert page.locator("figure svg g.robot").count() > 10
    assert page.locator("#el-laser figure svg line.beam").count() >= 3


def test_the_rules_pages_on_a_desktop(
    live_server: ServerProcess, contexts: Contexts, shots: Any
) -> None:
    page = contexts.page()
    for edition in EDITIONS:
        page.goto(f"{live_server.base}/rules/{edition}")
        check_page(page, DESKTOP["width"])
        expect(page.locator(f'.top .editions a[href="/rules/{edition}"]')).to_have_attribute(
            "aria-current", "page"
        )
    # The game page links straight to a section: it is shown and marked.
    page.goto(f"{live_server.base}/rules/2023#el-belt")
    expect(page.locator("#el-belt")).to_be_in_viewport()
    assert page.evaluate("document.querySelector(':target').id") == "el-belt"
    doc_shot(page, shots, "rules-desktop")
    page.goto(f"{live_server.base}/rules/classic#card-move1@490")
    expect(page.locator('[id="card-move1@490"]')).to_be_in_viewport()
    # The contents list (beside the text) jumps to a section.
    page.goto(f"{live_server.base}/rules/2023")
    page.click('.toc a[href="#upgrade-cards"]')
    expect(page.locator("#card-recharge")).to_be_visible()
    expect(page.locator("#upgrade-cards")).to_be_in_viewport()
    # Back to the lobby.
    page.click("a.back")
    expect(page).to_have_url(f"{live_server.base}/")
    expect(page.locator("#app")).to_be_visible()


def test_the_rules_pages_on_a_phone(
    live_server: ServerProcess, contexts: Contexts, shots: Any
) -> None:
    page = contexts.page(phone=True)
    for edition in EDITIONS:
        page.goto(f"{live_server.base}/rules/{edition}")
        check_page(page, PHONE["width"])
    # The title comes before the contents list on a phone, the pictures fit the screen.
    title, toc = (page.locator(s).bounding_box() for s in ("h1", ".toc"))
    assert title and toc and title["y"] < toc["y"]
    page.goto(f"{live_server.base}/rules/2023#el-pusher")
    section = page.locator("#el-pusher")
    expect(section).to_be_in_viewport()
    box = section.locator("figure svg").first.bounding_box()
    assert box and box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"]
    doc_shot(page, shots, "rules-phone")
    page.goto(f"{live_server.base}/rules/2023")
    page.tap('.toc a[href="#el-gear"]')
    expect(page.locator("#el-gear")).to_be_in_viewport()
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
