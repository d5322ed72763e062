"""The page survives what happens to real games: a reload, the programming timer running out,
a server restart in the middle of a game, a move the server could not save, a player who was
away too long; and seat links keep their token out of every URL a server sees."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from playwright.sync_api import Page, WebSocket, WebSocketRoute, expect

from .conftest import MIN_SECONDS, Contexts, ServerProcess, SteadyPlayer, until_program


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


def _drafting_in_round_two(
    server: ServerProcess, contexts: Contexts, ui: Any
) -> tuple[dict[str, Any], Page, list[str | None]]:
    """A game of Ada and a bot (seed 9) on a page: round 1 played, two cards of round 2's
    program placed. The game, the page and the two cards."""
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
    return game, page, ui.program_first_cards(page, 2)


def test_the_game_goes_on_after_a_server_restart(
    tmp_path: Path, contexts: Contexts, ui: Any
) -> None:
    server = ServerProcess(tmp_path / "data")
    server.start()
    try:
        _, page, drafted = _drafting_in_round_two(server, contexts, ui)

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


def test_seat_links_keep_the_token_out_of_every_url(
    live_server: ServerProcess, contexts: Contexts
) -> None:
    """The seat token is in the link's fragment (never sent to a server or a proxy) and in the
    hello message, never in the WebSocket URL; an old ?token= link still works and is moved
    into the fragment at once; an invite link's address holds the seat's own token once the
    invite is used, so a reload opens the seat again."""
    game = live_server.create(
        seats=[{"kind": "human", "name": "Ada"}, {"kind": "human", "name": "Bo"}, {"kind": "bot"}]
    )
    gid, ada, invite = game["game_id"], game["seats"][0]["token"], game["seats"][1]["invite"]
    assert game["seats"][0]["url"].endswith(f"/?game={gid}#token={ada}")  # the server's link
    assert game["seats"][1]["url"].endswith(f"/?game={gid}#invite={invite}")
    sockets: list[str] = []
    hellos: list[dict[str, Any]] = []

    def watch(page: Page) -> Page:
        def on_socket(ws: WebSocket) -> None:
            sockets.append(ws.url)
            ws.on("framesent", lambda text: hellos.extend(_hello(text)))

        page.on("websocket", on_socket)
        return page

    page = watch(contexts.page())
    page.goto(live_server.seat_url(game, 0, speed=0))
    expect(page.locator("[data-testid=player-0] .badge.you")).to_be_visible()
    assert page.url.endswith(f"?game={gid}&speed=0#token={ada}")

    # Bo's invite: the page takes the seat, and its address holds Bo's own token from then on.
    bo_page = watch(contexts.page())
    bo_page.goto(live_server.seat_url(game, 1, speed=0))
    expect(bo_page.locator("[data-testid=player-1] .badge.you")).to_be_visible()
    bo_page.wait_for_function("() => location.hash.startsWith('#token=')")
    bo = urlsplit(bo_page.url).fragment.removeprefix("token=")
    assert bo and bo != invite and "invite" not in bo_page.url
    bo_page.reload()  # the seat's own token opens it again (the invite is used up)
    expect(bo_page.locator("[data-testid=player-1] .badge.you")).to_be_visible()

    old = watch(contexts.page())
    old.goto(live_server.seat_url(game, 0, legacy=True, speed=0))
    expect(old.locator("[data-testid=player-0] .badge.you")).to_be_visible()
    query, fragment = urlsplit(old.url).query, urlsplit(old.url).fragment
    assert "token" not in query and "speed=0" in query and fragment == f"token={ada}", old.url
    old.reload()  # the address bar now holds the fragment form, which still plays the seat
    expect(old.locator("[data-testid=player-0] .badge.you")).to_be_visible()

    # A seat link opened in a tab that watches the game changes only the fragment: the page
    # loads again as that seat.
    tab = watch(contexts.page())
    tab.goto(f"{live_server.base}/?game={gid}")
    expect(tab.locator("[data-testid=phase]")).to_have_text("Waiting room")
    expect(tab.locator(".badge.you")).to_have_count(0)
    tab.goto(f"{live_server.base}/?game={gid}#token={bo}")
    expect(tab.locator("[data-testid=player-1] .badge.you")).to_be_visible()

    assert len(sockets) >= 6 and not [url for url in sockets if "token" in url], sockets
    assert not [url for url in sockets if "invite" in url], sockets
    assert all(url.endswith(f"/ws/{gid}") for url in sockets), sockets
    assert {h.get("token") for h in hellos} == {None, ada, bo}, hellos
    assert [h["invite"] for h in hellos if h.get("invite")] == [invite]  # used once


def _hello(text: str | bytes) -> list[dict[str, Any]]:
    msg = json.loads(text)
    return [msg] if isinstance(msg, dict) and msg.get("type") == "hello" else []


def test_an_idle_player_is_auto_played_until_they_come_back(
    live_server: ServerProcess, contexts: Contexts, shots: Any, ui: Any
) -> None:
    """Every decision has a deadline: a player who lets one pass (here 2 s) gets its default
    played that once; after 3 in a row she is away, played by the game although still
    connected (a few seconds a decision), sees why, and takes the seat back with "I'm back"."""
    game = live_server.create(
        seats=[{"kind": "human", "name": "Ada"}, {"kind": "human", "name": "Bo"}],
        variants=["lighter"],
        program_seconds=MIN_SECONDS,
        decision_seconds=MIN_SECONDS,
        max_rounds=8,
    )
    page = contexts.page()
    frames = ui.capture_ws(page)
    page.goto(live_server.seat_url(game, 0, speed=0))
    # Bo answers everything after a second, so the game goes on at a person's pace.
    with SteadyPlayer(live_server, game, 1, delay=1.0):
        expect(page.locator("[data-testid=player-1]")).to_contain_text("ready")
        page.click("[data-testid=start-game]")
        # Ada does nothing. Her question first says, gently, when the game will answer it.
        countdown = page.locator("[data-testid=idle-countdown]")
        expect(countdown).to_contain_text(re.compile(r"will play for you in 0:0[0-2]"))
        banner = page.locator("[data-testid=auto-banner]")
        # Three deadlines in a row (2 s each, and the questions between): she is away.
        expect(banner).to_be_visible(timeout=30_000)
        expect(banner).to_contain_text("so the game is playing for you")
        # Her panel says why, in words: she let deadlines pass while connected.
        expect(page.get_by_test_id("status-0")).to_have_text("idle (played for them)")
        states = [f for f in frames if f["type"] == "state"]
        reasons = {t["reason"] for f in states for t in f["timers"]}
        assert "decision" in reasons, reasons
        misses = [f for f in states if not f["seats"][0]["auto"]]
        assert misses, "she was not played for at the first deadline"
        shots(page, "auto-play-desktop")
        page.click("[data-testid=back]")
        expect(banner).to_be_hidden()
        acked = next(i for i, f in enumerate(frames) if f["type"] == "ack" and f["for"] == "back")
        after = next(f for f in frames[acked:] if f["type"] == "state")
        assert after["seats"][0]["auto"] is False
        # Back in the game: the next question is Ada's again, with its whole clock.
        ui.play_until(
            page,
            lambda: any(
                t["reason"] in ("idle", "decision") and t["seat"] == 0
                for f in list(frames)[acked:]
                if f["type"] == "state"
                for t in f["timers"]
            ),
            timeout=30,
        )
    errors = [f for f in frames if f["type"] == "error" and f.get("code") != "not_pending"]
    assert not errors, errors


def test_a_move_the_server_could_not_save_can_be_sent_again(
    live_server: ServerProcess, contexts: Contexts, ui: Any
) -> None:
    """storage_failed: nothing changed on the server; the program stays on screen, the page
    says so in words, and Lock in sends it again. (The failure is made on the way: the first
    program sent is answered with the server's storage_failed error instead of reaching it.)"""
    game = live_server.create(seats=[{"kind": "human", "name": "Ada"}, {"kind": "bot"}], seed=11)
    page = contexts.page()
    failed: list[dict[str, Any]] = []

    def route(ws: WebSocketRoute) -> None:
        server = ws.connect_to_server()

        def from_page(text: str | bytes) -> None:
            msg = json.loads(text)
            if msg.get("type") == "decide" and isinstance(msg.get("choice"), list) and not failed:
                failed.append(msg)
                error = {
                    "type": "error",
                    "v": 1,
                    "code": "storage_failed",
                    "message": "the server could not save this, so nothing changed; try again",
                    "ref": msg.get("id"),
                    "for": "decide",
                }
                ws.send(json.dumps(error))
                return
            server.send(text)

        ws.on_message(from_page)

    page.route_web_socket(re.compile(r"/ws/"), route)
    page.goto(live_server.seat_url(game, 0, speed=0))
    _start(page)
    chosen = ui.program_first_cards(page, 5)
    page.click("[data-testid=submit-program]")
    notice = page.locator("[data-testid=tray-notice]")
    expect(notice).to_contain_text("could not save your move, so nothing changed")
    expect(notice).not_to_contain_text("storage_failed")
    assert failed and _registers(page) == chosen
    submit = page.locator("[data-testid=submit-program]")
    expect(submit).to_be_enabled()
    submit.click()
    expect(page.locator("[data-testid=log]")).to_contain_text("Register 1", timeout=20_000)
    expect(notice).to_have_count(0)
