"""Chat, emotes and rematch on the page, with two players in two browsers: messages in the
waiting room and in the game, markup shown as text, an emote beside the sender's name, the
unread count, and a rematch that takes both players to their seats of a new game."""

from __future__ import annotations

import re
from typing import Any

import httpx
from playwright.sync_api import Page, expect

from .conftest import MIN_SECONDS, Contexts, ServerProcess, as_creator

XSS = "<img src=x onerror=alert(1)>"


def say(page: Page, text: str) -> None:
    page.fill("[data-testid=chat-input]", text)
    page.press("[data-testid=chat-input]", "Enter")


def last_message(page: Page) -> Any:
    return page.locator("[data-testid=chat-message]").last


def test_two_players_chat_send_an_emote_and_play_a_rematch(
    live_server: ServerProcess, contexts: Contexts, shots: Any
) -> None:
    game = live_server.create(
        seats=[{"kind": "human", "name": "Ada"}, {"kind": "human", "name": "Bo"}],
        max_rounds=1,
        decision_seconds=MIN_SECONDS,
        program_seconds=MIN_SECONDS,
    )
    ada, bo, watcher = contexts.page(), contexts.page(), contexts.page()
    dialogs: list[str] = []
    for page in (ada, bo, watcher):
        page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
    ada.goto(live_server.seat_url(game, 0, speed=0, lang="en"))
    # Ada made the game (as the lobby keeps a new game's links in her browser).
    as_creator(ada, game)
    bo.goto(live_server.seat_url(game, 1, speed=0, lang="en"))  # Bo's invite
    watcher.goto(f"{live_server.base}/?game={game['game_id']}&speed=0&lang=en")
    for page in (ada, bo):
        expect(page.locator("[data-testid=phase]")).to_have_text("Waiting room")
        expect(page.locator("[data-testid=chat]")).to_contain_text("No messages yet")
    bo.wait_for_function("() => location.hash.startsWith('#token=')")
    bo_link = bo.url  # his seat's own link now: the invite is used up
    # A spectator reads but has nothing to write with.
    expect(watcher.locator("[data-testid=chat]")).to_contain_text("Spectators can read the chat")
    expect(watcher.locator("[data-testid=chat-input]")).to_be_hidden()

    # The waiting room: Enter sends; both read it.
    say(ada, "hello Bo")
    for page in (ada, bo, watcher):
        expect(last_message(page)).to_contain_text("Ada: hello Bo")
    expect(ada.locator("[data-testid=chat-input]")).to_have_value("")
    # Markup is text: shown as typed, no element made of it, nothing run.
    say(bo, XSS)
    text = last_message(ada).locator(".chat-text")
    expect(text).to_have_text(XSS)
    assert ada.locator("[data-testid=chat-log] img").count() == 0
    # A quick emote: in the chat, and for a moment beside the sender's name.
    bo.click("[data-testid=emote][data-emote=gg]")
    bubble = ada.locator("[data-testid=player-1] [data-testid=emote-bubble]")
    expect(bubble).to_have_attribute("aria-label", "Good game!")
    emote = last_message(ada)
    expect(emote.locator(".chat-name")).to_have_text("Bo")
    expect(emote.locator(".chat-text")).to_contain_text("Good game!")
    expect(emote.locator(".emote-icon svg")).to_be_visible()
    shots(ada, "chat-waiting-room-desktop")
    expect(bubble).to_have_count(0, timeout=8_000)  # only for a moment
    # A message too long is refused with a clear word, and given back to shorten.
    long = "x" * 301
    bo.evaluate("(text) => window.rrGame.chat.send('chat', { text })", long)
    expect(bo.locator("[data-testid=chat-error]")).to_contain_text("at most 300 characters")

    # Folded away: the unread count goes up; opened, it goes back to none.
    ada.click("[data-testid=chat-toggle]")
    expect(ada.locator("[data-testid=chat-input]")).to_be_hidden()
    say(bo, "are you there?")
    unread = ada.locator("[data-testid=chat-unread]")
    expect(unread).to_have_text("1")
    expect(unread).to_have_attribute("aria-label", "1 unread message")
    ada.click("[data-testid=chat-toggle]")
    expect(unread).to_be_hidden()
    expect(ada.locator("[data-testid=chat-toggle]")).to_have_attribute("aria-expanded", "true")

    # In the game.
    ada.click("[data-testid=start-game]")
    expect(bo.locator("[data-testid=phase]")).not_to_have_text("Waiting room")
    say(bo, "good luck")
    expect(last_message(ada)).to_contain_text("Bo: good luck")

    # Nobody answers: the deadlines pass, the game plays the seats and ends after one round.
    for page in (ada, bo, watcher):
        expect(page.locator("[data-testid=result]")).to_be_visible(timeout=60_000)
    expect(watcher.locator("[data-testid=rematch]")).to_have_count(0)  # players only
    rematch = ada.locator("[data-testid=result] [data-testid=rematch]")
    expect(rematch).to_have_text("Rematch")
    shots(ada, "rematch-desktop")
    rematch.click()

    # Both land in their own seat of the new game: a waiting room of Ada and Bo.
    link = re.compile(r"/\?game=(?!" + re.escape(game["game_id"]) + r")[^#&]+#token=.+")
    for page in (ada, bo):
        expect(page).to_have_url(link)
        expect(page.locator("[data-testid=phase]")).to_have_text("Waiting room")
    expect(ada.locator("[data-testid=player-0] .badge.you")).to_be_visible()
    expect(bo.locator("[data-testid=player-1] .badge.you")).to_be_visible()
    new_id = ada.url.split("game=")[1].split("#")[0]
    assert bo.url.split("game=")[1].split("#")[0] == new_id
    old = httpx.get(f"{live_server.base}/api/games/{game['game_id']}").json()
    new = httpx.get(f"{live_server.base}/api/games/{new_id}").json()
    assert [s["name"] for s in new["seats"]] == ["Ada", "Bo"]
    assert (new["course"], new["edition"], new["variants"], new["max_rounds"]) == (
        old["course"],
        old["edition"],
        old["variants"],
        old["max_rounds"],
    )
    assert new["seed_commitment"] != old["seed_commitment"]
    shots(bo, "rematch-waiting-room-desktop")
    # Ada hosts the rematch too; Bo's seat there is his (he took it): no link to it anywhere,
    # Ada's page holds nothing that opens it.
    expect(ada.locator("[data-testid=invite-1]")).to_contain_text("joined")
    assert bo.url.split("#token=")[1] not in ada.content()
    expect(bo.locator("[data-testid=invite-0]")).to_have_count(0)  # Bo holds only his own
    shots(ada, "rematch-invites-desktop")
    # The spectator is offered to watch it.
    expect(watcher.locator("[data-testid=chat-rematch]")).to_contain_text("Ada started a rematch.")
    watch = watcher.locator("[data-testid=result] [data-testid=watch-rematch]")
    expect(watch).to_have_attribute("href", f"/?game={new_id}")
    # Bo's old link, later: the finished game offers to join the rematch, in Bo's own seat.
    bo.goto(bo_link)
    join = bo.locator("[data-testid=result] [data-testid=rematch]")
    expect(join).to_have_text("Join the rematch")
    join.click()
    expect(bo).to_have_url(link)
    assert bo.url.split("game=")[1].split("#")[0] == new_id
    expect(bo.locator("[data-testid=player-1] .badge.you")).to_be_visible()
    assert dialogs == []
