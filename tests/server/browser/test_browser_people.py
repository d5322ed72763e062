"""Several people: two players in two browsers programming at once (invited from the waiting
room), and a spectator who never receives a hand."""

from __future__ import annotations

import re
from typing import Any

from playwright.sync_api import expect

from .conftest import Contexts, ServerProcess


def test_two_people_in_two_browsers_program_at_once(
    live_server: ServerProcess, contexts: Contexts, shots: Any, ui: Any
) -> None:
    host = contexts.page()
    host_frames = ui.capture_ws(host)
    host.goto(live_server.base + "/?speed=0")
    host.fill("[data-testid=player-name]", "Ada")
    # Seat 2 becomes a person with an invite link; seat 3 stays a bot.
    host.locator("[data-testid=seat-kind]").nth(0).select_option("human")
    host.locator("[data-testid=seat-row]").nth(1).locator("input").fill("Bo")
    host.click("[data-testid=create-game]")

    # The waiting room shows the seats and an invite link per free seat.
    expect(host.locator("[data-testid=phase]")).to_have_text("Waiting room")
    invite = host.locator("[data-testid=invite-1]")
    # A one-time invite, in the fragment: browsers never send it to a server or a proxy.
    expect(invite).to_have_value(re.compile(r"/\?game=[^&#]+#invite=.+"))
    expect(host.locator("[data-testid=spectator-link]")).to_have_value(re.compile(r"/\?game="))
    expect(host.locator("[data-testid=player-1]")).to_contain_text("waiting for a player")
    link = invite.input_value()

    guest = contexts.page()
    guest_frames = ui.capture_ws(guest)
    guest.goto(link.replace("#", "&speed=0#"))
    expect(guest.locator("[data-testid=phase]")).to_have_text("Waiting room")
    expect(guest.locator("[data-testid=player-1] .badge.you")).to_be_visible()
    expect(guest.locator("[data-testid=start-game]")).to_have_count(0)  # only the host starts
    guest.click("[data-testid=ready]")
    expect(host.locator("[data-testid=player-1]")).to_contain_text("ready")
    shots(host, "waiting-room-desktop")
    host.click("[data-testid=start-game]")

    # Both take a start space (in turn order) and pass the upgrade phase, then program.
    answered = ui.until_program(host, guest)
    assert answered.count("start_space") == 2

    # Both program at the same time: fill both, then lock in both.
    host_cards = ui.program_first_cards(host, 2)
    guest_cards = ui.program_first_cards(guest, 3)
    host_cards += ui.program_first_cards(host, 3)
    guest_cards += ui.program_first_cards(guest, 2)
    assert len(host_cards) == len(guest_cards) == 5
    host.click("[data-testid=submit-program]")
    # The host waits for the guest (the guest's panel says so).
    expect(host.locator("[data-testid=waiting]")).to_contain_text("Bo")
    guest.click("[data-testid=submit-program]")

    # Both see the same activation: every register, each person's revealed cards.
    for page in (host, guest):
        log = page.locator("[data-testid=log]")
        expect(log).to_contain_text("Register 5", timeout=20_000)
        expect(log).to_contain_text("Ada reveals")
        expect(log).to_contain_text("Bo reveals")
        expect(page.locator("[data-testid=phase]")).to_contain_text("Round 2", timeout=20_000)
    # What each one revealed is exactly what each one programmed, register by register.
    for frames in (host_frames, guest_frames):
        revealed = {
            (e["seat"], e["register"]): e["card"]
            for f in frames
            if f["type"] == "events"
            for e in f["events"]
            if e["kind"] == "card_revealed" and e["round"] == 1
        }
        # (A robot that falls off and reboots skips its remaining registers.)
        for seat, cards in ((0, host_cards), (1, guest_cards)):
            assert (seat, 1) in revealed
            for r in range(1, 6):
                assert revealed.get((seat, r), cards[r - 1]) == cards[r - 1]
    # Round 2 goes on for both.
    ui.until_program(host, guest)


def test_a_spectator_never_receives_a_hand(
    live_server: ServerProcess, contexts: Contexts, shots: Any, ui: Any
) -> None:
    game = live_server.create(
        seats=[{"kind": "human", "name": "Ada"}, {"kind": "bot"}, {"kind": "bot"}],
        max_rounds=2,
        seed=7,
    )
    player = contexts.page()
    player_frames = ui.capture_ws(player)
    player.goto(live_server.seat_url(game, 0, speed=0))
    watcher = contexts.page()
    frames = ui.capture_ws(watcher)
    watcher.goto(f"{live_server.base}/?game={game['game_id']}&speed=0")
    expect(watcher.locator("[data-testid=phase]")).to_have_text("Waiting room")
    player.click("[data-testid=start-game]")
    ui.play_until(player, lambda: ui.visible(player, "[data-testid=result]"), timeout=60)
    expect(watcher.locator("[data-testid=result]")).to_be_visible(timeout=20_000)
    expect(watcher.locator("[data-testid=log]")).to_contain_text("Ada reveals")
    expect(watcher.locator("[data-testid=hand-card]")).to_have_count(0)
    expect(watcher.locator("[data-testid=player-0] .badge.you")).to_have_count(0)
    shots(watcher, "spectator-desktop")

    welcome = [f for f in frames if f["type"] == "welcome"]
    assert welcome and all(f["role"] == "spectator" and f["seat"] is None for f in welcome)
    states = [f for f in frames if f["type"] == "state"]
    running = [s for s in states if s["observation"] is not None]
    assert len(running) >= 5
    for state in states:
        assert state["pending"] == [] and state["submitted"] == []
        obs = state["observation"]
        if obs is None:
            continue
        assert obs["seat"] is None and obs["pending"] == []
        for p in obs["players"]:
            assert isinstance(p["hand"], int), p["hand"]  # a count, never the cards
            for register in p["registers"]:
                assert register["revealed"] or register["cards"] is None
    # No message at all carries a list of cards under "hand" (the player's own messages do).
    assert not list(_hands(frames))
    assert list(_hands(player_frames))


def _hands(value: Any) -> Any:
    """Every list found under a "hand" key anywhere in ``value``."""
    if isinstance(value, dict):
        for key, item in value.items():
            if key == "hand" and isinstance(item, list):
                yield item
            yield from _hands(item)
    elif isinstance(value, list):
        for item in value:
            yield from _hands(item)


def test_open_games_are_listed_in_the_lobby_and_can_be_joined(
    live_server: ServerProcess, contexts: Contexts
) -> None:
    game = live_server.create(
        seats=[{"kind": "human", "name": "Ada"}, {"kind": "human"}, {"kind": "bot"}]
    )
    host = contexts.page()
    host.goto(live_server.seat_url(game, 0, speed=0))  # the host's seat is taken once opened
    expect(host.locator("[data-testid=phase]")).to_have_text("Waiting room")
    page = contexts.page()
    page.goto(live_server.base + "/?speed=0")
    page.fill("[data-testid=player-name]", "Dee")
    row = page.locator(f"[data-game='{game['game_id']}']")
    expect(row).to_contain_text("Training Run")
    expect(row).to_contain_text("1 free seat")
    page.click(f"[data-testid='join-{game['game_id']}']")
    # Joined: the waiting room, as seat 2, under the name typed in the lobby.
    expect(page.locator("[data-testid=phase]")).to_have_text("Waiting room")
    expect(page.locator("[data-testid=player-1] .badge.you")).to_be_visible()
    expect(page.locator("[data-testid=player-1]")).to_contain_text("Dee")
    expect(host.locator("[data-testid=player-1]")).to_contain_text("Dee")
    page.goto(live_server.base + "/")
    expect(page.locator(f"[data-game='{game['game_id']}']")).to_contain_text("0 free seats")


def test_a_name_already_in_the_game_is_refused_in_words(
    live_server: ServerProcess, contexts: Contexts
) -> None:
    """name_taken, on join and on a new name in the waiting room: the page says it in words
    (never the code) and the player keeps their seat and name."""
    game = live_server.create(
        seats=[{"kind": "human", "name": "Ada"}, {"kind": "human"}, {"kind": "human"}]
    )
    host = contexts.page()
    host.goto(live_server.seat_url(game, 0, speed=0))
    expect(host.locator("[data-testid=phase]")).to_have_text("Waiting room")
    page = contexts.page()
    page.goto(live_server.base + "/?speed=0")
    page.fill("[data-testid=player-name]", "ada")  # the same name to a reader
    page.click(f"[data-testid='join-{game['game_id']}']")
    toast = page.locator("[data-testid=toast]").last
    # The refusal names the player already called so (the server's words on an English page).
    expect(toast).to_contain_text("Another player in this game is already called Ada")
    expect(page.locator("body")).not_to_contain_text("name_taken")
    assert "game=" not in page.url  # still in the lobby

    page.fill("[data-testid=player-name]", "Dee")
    page.click(f"[data-testid='join-{game['game_id']}']")
    expect(page.locator("[data-testid=player-1] .badge.you")).to_be_visible()
    # A new name in the waiting room that another player has: refused, the old one kept.
    name = page.locator("[data-testid=name-input]")
    name.fill("ADA")
    name.press("Enter")
    name.blur()
    toast = page.locator("[data-testid=toast]").last
    expect(toast).to_contain_text("Another player in this game is already called Ada")
    expect(page.locator("[data-testid=player-1]")).to_contain_text("Dee")
    expect(page.locator("[data-testid=player-1] .badge.you")).to_be_visible()
    expect(page.locator("[data-testid=name-input]")).to_have_value("Dee")
    expect(page.locator("body")).not_to_contain_text("name_taken")
    # The seat still works: ready shows for the host.
    page.click("[data-testid=ready]")
    expect(host.locator("[data-testid=player-1]")).to_contain_text("ready")
