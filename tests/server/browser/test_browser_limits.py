"""The server's limits, in the page's words: too many new games (429, with the time to wait),
a seat opened in another tab (no automatic reconnect), too many tabs from one address. Each
test starts its own server with tight limits."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from playwright.sync_api import Page, expect

from .conftest import Contexts, ServerProcess


@pytest.fixture
def strict_server(tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[ServerProcess]:
    server = ServerProcess(tmp_path / "data", **request.param)
    server.start()
    yield server
    server.stop()


@pytest.mark.parametrize("strict_server", [{"games_per_minute": 2}], indirect=True)
def test_too_many_new_games_are_refused_in_words(
    strict_server: ServerProcess, contexts: Contexts, shots: Any
) -> None:
    page = contexts.page()
    page.goto(strict_server.base + "/")
    expect(page.get_by_role("heading", name="New game")).to_be_visible()
    # This address uses up its games for the minute.
    for _ in range(5):
        response = httpx.post(
            strict_server.base + "/api/games",
            json={"course": "tiny", "seats": [{"kind": "human"}, {"kind": "bot"}]},
        )
        if response.status_code == 429:
            break
        assert response.status_code == 201, response.text
    assert response.status_code == 429 and response.headers["Retry-After"], response.text
    page.click("[data-testid=create-game]")
    error = page.locator("[data-testid=create-error]")
    expect(error).to_contain_text("Too many new games at once")
    expect(error).to_contain_text(re.compile(r"try again in \d+ s"))  # the server's message
    expect(error).not_to_contain_text("rate_limited")
    button = page.locator("[data-testid=create-game]")
    expect(button).to_be_disabled()
    expect(button).to_contain_text(re.compile(r"in \d+ s"))
    assert "game=" not in page.url
    shots(page, "too-many-games-desktop")


@pytest.mark.parametrize(
    "strict_server", [{"connections_per_seat": 1, "connections_per_address": 2}], indirect=True
)
def test_another_tab_takes_the_seat_and_too_many_tabs_are_refused(
    strict_server: ServerProcess, contexts: Contexts, shots: Any
) -> None:
    game = strict_server.create(seats=[{"kind": "human", "name": "Ada"}, {"kind": "bot"}])
    first = contexts.page()
    sockets: list[str] = []
    first.on("websocket", lambda ws: sockets.append(ws.url))
    first.goto(strict_server.seat_url(game, 0, speed=0))
    expect(first.locator("[data-testid=player-0] .badge.you")).to_be_visible()
    # The same seat in another tab: that one plays, this one says why it stopped...
    second = contexts.page()
    second.goto(strict_server.seat_url(game, 0, speed=0))
    expect(second.locator("[data-testid=player-0] .badge.you")).to_be_visible()
    banner = first.locator("[data-testid=conn-banner]")
    expect(banner).to_contain_text("This seat was opened in another tab or window")
    shots(first, "replaced-desktop")
    # ... and does not take the seat back on its own.
    first.wait_for_timeout(2500)
    assert len(sockets) == 1, sockets
    expect(banner).to_be_visible()
    expect(second.locator("[data-testid=conn-banner]")).to_be_hidden()

    # A spectator tab: this address now holds its two connections.
    watcher = contexts.page()
    watcher.goto(f"{strict_server.base}/?game={game['game_id']}")
    expect(watcher.locator("[data-testid=phase]")).to_have_text("Waiting room")
    # "Play in this tab" asks for a third: refused, in words, tried again later.
    first.click("[data-testid=reconnect]")
    expect(banner).to_contain_text("Too many tabs or windows from your address are connected")
    expect(banner).not_to_contain_text("too_many_connections")
    watcher.close()
    _try_now(first)
    expect(banner).to_be_hidden()
    expect(first.locator("[data-testid=player-0] .badge.you")).to_be_visible()
    # Now the other tab is the one replaced.
    expect(second.locator("[data-testid=conn-banner]")).to_contain_text("another tab")


def _try_now(page: Page) -> None:
    button = page.locator("[data-testid=reconnect]")
    if button.count() and button.is_visible():
        button.click()
