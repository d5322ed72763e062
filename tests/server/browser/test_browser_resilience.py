"""The page survives what happens to real games: a reload, the programming timer running out,
and a server restart in the middle of a game."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from playwright.sync_api import Page, expect

from .conftest import Contexts, ServerProcess, until_program


def _start(page: Page) -> None:
    """Start the game from the waiting room (if needed) and take the first start space."""
    start = page.locator("[data-testid=start-game]")
    decision = page.locator("[data-testid=decision][data-kind=start_space]")
    expect(start.or_(decision)).to_be_visible()
    if start.count():
        start.click()
    expect(decision).to_be_visible()
    page.locator("[data-testid=choice]").first.click()
    until_program(page)


def _registers(page: Page) -> list[str | None]:
    cards = []
    for number in range(1, 6):
        card = page.locator(f"[data-testid=register-{number}] .card")
        cards.append(card.get_attribute("data-card") if card.count() else None)
    return cards


def test_a_reload_mid_game_reconnects_to_the_same_seat(
    live_server: ServerProcess, contexts: Contexts, ui: Any
) -> None:
    game = live_server.create(
        seats=[{"kind": "bot"}, {"kind": "human", "name": "Cy"}, {"kind": "bot"}], seed=3
    )
    page = contexts.page()
    page.goto(live_server.seat_url(game, 1, speed=0))
    _start(page)
    # Program two registers: one by tapping, one by dragging a card onto register 3.
    tapped = ui.program_first_cards(page, 1)
    card = page.locator("[data-testid=hand-card]").first
    dragged = card.get_attribute("data-card")
    box = card.bounding_box()
    target = page.locator("[data-testid=register-3]").bounding_box()
    assert box and target
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    page.mouse.down()
    page.mouse.move(box["x"] + 30, box["y"] - 20, steps=4)
    page.mouse.move(target["x"] + target["width"] / 2, target["y"] + target["height"] / 2, steps=8)
    page.mouse.up()
    assert _registers(page) == [tapped[0], None, dragged, None, None]
    hand_before = page.locator("[data-testid=hand-card]").count()

    page.reload()
    # Same seat (seat 2, "you"), same decision, the half-made program is still there.
    expect(page.locator("[data-testid=player-1] .badge.you")).to_be_visible()
    expect(page.locator("[data-testid=player-1]")).to_contain_text("Cy")
    expect(page.locator("[data-testid=program]")).to_be_visible()
    assert _registers(page) == [tapped[0], None, dragged, None, None]
    assert page.locator("[data-testid=hand-card]").count() == hand_before
    # The log was rebuilt from the game's events.
    expect(page.locator("[data-testid=log]")).to_contain_text("Cy starts on space")
    ui.program_first_cards(page, 3)
    page.click("[data-testid=submit-program]")
    expect(page.locator("[data-testid=phase]")).to_contain_text("Round 2", timeout=20_000)


def test_the_timer_runs_out_and_fills_the_empty_registers(
    live_server: ServerProcess, contexts: Contexts, shots: Any, ui: Any
) -> None:
    game = live_server.create(
        seats=[{"kind": "human", "name": "Ada"}, {"kind": "bot"}], timer_seconds=5, seed=5
    )
    page = contexts.page()
    frames = ui.capture_ws(page)
    page.goto(live_server.seat_url(game, 0, speed=0))
    _start(page)
    timer = page.locator("[data-testid=timer]")
    expect(timer).to_be_visible()
    expect(timer).to_have_text(re.compile(r"0:0[0-5]"))
    chosen = ui.program_first_cards(page, 2)
    shots(page, "timer-desktop")
    # No submit: the server fills registers 3-5 when the time is up, keeping the draft.
    expect(page.locator("[data-testid=program]")).to_have_count(0, timeout=15_000)
    ui.play_until(
        page,
        lambda: any(
            e["kind"] == "card_revealed" and e["round"] == 1 and e["register"] == 5
            for f in list(frames)
            if f["type"] == "events"
            for e in f["events"]
        ),
        timeout=30,
    )
    revealed = {
        e["register"]: e["card"]
        for f in frames
        if f["type"] == "events"
        for e in f["events"]
        if e["kind"] == "card_revealed" and e["round"] == 1 and e.get("seat") == 0
    }
    assert [revealed[1], revealed[2]] == chosen
    assert all(revealed.get(r) for r in (3, 4, 5))
    expect(page.locator("[data-testid=log]")).to_contain_text("Register 5")


def test_the_game_goes_on_after_a_server_restart(
    tmp_path: Path, contexts: Contexts, ui: Any
) -> None:
    server = ServerProcess(tmp_path / "data")
    server.start()
    try:
        game = server.create(seats=[{"kind": "human", "name": "Ada"}, {"kind": "bot"}], seed=9)
        page = contexts.page()
        page.goto(server.seat_url(game, 0, speed=0))
        _start(page)
        ui.program_first_cards(page, 5)
        page.click("[data-testid=submit-program]")
        ui.play_until(
            page,
            lambda: (
                "Round 2" in (page.locator("[data-testid=phase]").text_content() or "")
                and ui.visible(page, "[data-testid=program]")
            ),
            timeout=30,
        )
        drafted = ui.program_first_cards(page, 2)

        server.stop()
        expect(page.locator("[data-testid=conn-banner]")).to_contain_text("Reconnecting")
        server.start()
        expect(page.locator("[data-testid=conn-banner]")).to_be_hidden(timeout=20_000)
        # Same seat, same round, the program being made is kept; the game continues.
        expect(page.locator("[data-testid=player-0] .badge.you")).to_be_visible()
        expect(page.locator("[data-testid=phase]")).to_contain_text("Round 2")
        assert _registers(page)[:2] == drafted
        ui.program_first_cards(page, 3)
        page.click("[data-testid=submit-program]")
        ui.play_until(
            page,
            lambda: "Round 3" in (page.locator("[data-testid=phase]").text_content() or ""),
            timeout=30,
        )
        expect(page.locator("[data-testid=log]")).to_contain_text("Round 2")
    finally:
        server.stop()
