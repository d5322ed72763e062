"""A seat belongs to whoever holds it, in real browsers: a friend opens the invite link and
plays a round; a second browser armed with every value the creator's page and its create
response hold (its storage, its address, the tokens, the invites, the host token) cannot open
the friend's seat or see the friend's hand; the same after a rematch and at a tabletop."""

from __future__ import annotations

import json
import time
from typing import Any
from urllib.parse import parse_qsl, urlsplit

import httpx
from playwright.sync_api import Page, expect

from roborally.server.client import view_leaks

from .conftest import MIN_SECONDS, Contexts, ServerProcess, act, as_creator, until_program

#: Tries a value as a seat's token and as its invite over a WebSocket of the page's origin,
#: and keeps every frame the server answers (in a browser, as a page's own script would).
PROBE = """async ({gid, values}) => {
  const tries = [];
  for (const value of values) {
    for (const key of ["token", "invite"]) {
      const ws = new WebSocket(`ws://${location.host}/ws/${gid}`);
      const frames = [];
      await new Promise((resolve) => {
        setTimeout(resolve, 5000);
        ws.onmessage = (e) => {
          frames.push(e.data);
          const type = JSON.parse(e.data).type;
          if (type === "state" || type === "error") resolve();
        };
        ws.onclose = resolve;
        ws.onopen = () => ws.send(JSON.stringify({ type: "hello", v: 1, [key]: value }));
      });
      ws.close();
      tries.push({ key, value, frames });
    }
  }
  return tries;
}"""


def held_values(page: Page, *extra: Any) -> list[str]:
    """Every string a page holds that could be a credential: each value in its local and
    session storage (JSON taken apart), each value in its address, and those of ``extra``."""
    stored = page.evaluate(
        "() => [...Object.values(localStorage), ...Object.values(sessionStorage)]"
    )
    found: set[str] = set()

    def walk(value: Any) -> None:
        if isinstance(value, dict):
            for item in value.values():
                walk(item)
        elif isinstance(value, list):
            for item in value:
                walk(item)
        elif isinstance(value, str):
            if value.startswith(("{", "[")):
                try:
                    walk(json.loads(value))
                    return
                except ValueError:
                    pass
            if value.startswith("http") or value.startswith("/?"):
                parts = urlsplit(value)
                walk([v for _, v in parse_qsl(parts.query) + parse_qsl(parts.fragment)])
            elif len(value) >= 8 and "." not in value and " " not in value:
                found.add(value)

    walk(stored)
    walk(page.url)
    walk(list(extra))
    return sorted(found)


def assert_locked_out(thief: Page, gid: str, values: list[str], seats: set[int]) -> int:
    """Nothing in ``values`` opens one of these ``seats`` (the friends'), and no frame any of
    them brought shows what its viewer may not see (a friend's hand among it); how many
    tries were made."""
    tries = thief.evaluate(PROBE, {"gid": gid, "values": values})
    for attempt in tries:
        viewer = None
        for text in attempt["frames"]:
            msg = json.loads(text)
            if msg["type"] == "welcome":
                viewer = msg["seat"]
                assert viewer not in seats, (attempt["key"], attempt["value"], msg)
                assert "token" not in msg, attempt  # no invite of the friend's seat is left
            assert view_leaks(text, viewer) == [], (attempt["key"], text[:300])
    return len(tries)


def api_attempts(base: str, gid: str, seat: int, values: list[str]) -> None:
    """The HTTP calls the creator's values could try: none gives the seat or its code."""
    with httpx.Client(base_url=base, timeout=10) as client:
        for value in values:
            invite = client.post(
                f"/api/games/{gid}/seats/{seat}/invite", json={"host_token": value}
            )
            assert invite.status_code in (403, 409), invite.text
            qr = client.post(f"/api/games/{gid}/seats/{seat}/qr", json={"invite": value})
            assert qr.status_code in (403, 409), qr.text
        joined = client.post(f"/api/games/{gid}/join", json={"seat": seat})
        assert joined.status_code in (403, 409), joined.text


def play_to_the_result(*pages: Page, seconds: float = 120) -> None:
    deadline = time.monotonic() + seconds
    while not all(p.locator("[data-testid=result]").count() for p in pages):
        assert time.monotonic() < deadline, "the game did not end"
        for page in pages:
            act(page)
        pages[0].wait_for_timeout(50)


def test_the_creator_cannot_open_a_friends_seat_before_and_after_a_rematch(
    live_server: ServerProcess, contexts: Contexts, shots: Any
) -> None:
    game = live_server.create(
        seats=[{"kind": "human", "name": "Ada"}, {"kind": "human", "name": "Bo"}],
        variants=["lighter"],
        max_rounds=1,
        decision_seconds=30,
    )
    gid = game["game_id"]
    ada, bo, thief = contexts.page(), contexts.page(), contexts.page()
    ada.goto(live_server.seat_url(game, 0, speed=0, lang="en"))
    as_creator(ada, game)  # as the lobby keeps a new game's create response
    ada.reload()
    # Ada's waiting room shows Bo's invite link; Bo opens it (as he would from a message).
    invite_box = ada.locator("[data-testid=invite-1]")
    expect(invite_box).to_have_value(game["seats"][1]["url"])
    bo.goto(invite_box.input_value().replace("#", "&speed=0&lang=en#"))
    expect(bo.locator("[data-testid=player-1] .badge.you")).to_be_visible()
    bo.wait_for_function("() => location.hash.startsWith('#token=')")
    expect(ada.locator("[data-testid=invite-1]")).to_contain_text("joined")  # no link now
    shots(ada, "invite-taken-desktop")

    # The invite link a second time (Ada's browser still has it): the seat is taken.
    again = contexts.page()
    again.goto(game["seats"][1]["url"].replace("#", "&speed=0&lang=en#"))
    banner = again.locator("[data-testid=conn-banner]")
    expect(banner).to_contain_text("This seat is taken")
    expect(banner.get_by_role("link", name="Watch it instead")).to_have_attribute(
        "href", f"/?game={gid}"
    )
    shots(again, "invite-used-desktop")

    # Bo plays a round; in the middle of it the second browser tries everything Ada holds.
    ada.click("[data-testid=start-game]")
    until_program(ada, bo)  # the start spaces first; then Bo holds his hand
    thief.goto(f"{live_server.base}/?game={gid}&speed=0&lang=en")
    values = held_values(ada, game)
    assert game["host_token"] in values and game["seats"][1]["invite"] in values
    tried = assert_locked_out(thief, gid, values, {1})
    assert tried == 2 * len(values) and tried >= 8
    api_attempts(live_server.base, gid, 1, values)
    play_to_the_result(ada, bo)

    # The rematch: both land in their own seats; Ada's browser holds more now.
    ada.locator("[data-testid=result] [data-testid=rematch]").click()
    for page in (ada, bo):
        expect(page.locator("[data-testid=phase]")).to_have_text("Waiting room")
    new_id = bo.url.split("game=")[1].split("&")[0].split("#")[0]
    assert new_id != gid and ada.url.split("game=")[1].split("#")[0] == new_id
    expect(bo.locator("[data-testid=player-1] .badge.you")).to_be_visible()
    values = held_values(ada, game)
    assert_locked_out(thief, new_id, values, {1})
    api_attempts(live_server.base, new_id, 1, values)
    expect(bo.locator("[data-testid=player-1] .badge.you")).to_be_visible()  # still his


def test_a_tabletops_screen_cannot_open_a_phones_seat(
    live_server: ServerProcess, contexts: Contexts
) -> None:
    table = contexts.page()
    game = live_server.create(
        table=True,
        seats=[{"kind": "human", "name": "Ada"}, {"kind": "human", "name": "Bo"}],
        variants=["lighter"],
        max_rounds=1,
        decision_seconds=MIN_SECONDS * 15,
    )
    gid = game["game_id"]
    table.goto(f"{live_server.base}/?game={gid}&table=1&speed=0&lang=en")
    as_creator(table, game)
    table.reload()
    phones = []
    for seat in (0, 1):
        code = table.get_by_test_id(f"table-qr-{seat}")
        expect(code).to_be_visible()
        phone = contexts.page(phone=True)
        phone.goto(game["seats"][seat]["url"].replace("#", "&speed=0&lang=en#"))
        expect(phone.locator(f"[data-testid=player-{seat}] .badge.you")).to_be_visible()
        expect(table.get_by_test_id(f"table-qr-{seat}")).to_have_count(0)
        phones.append(phone)
    table.get_by_test_id("table-start").click()
    until_program(*phones)
    thief = contexts.page()
    thief.goto(f"{live_server.base}/?game={gid}&speed=0&lang=en")
    values = held_values(table, game)
    assert game["host_token"] in values
    assert_locked_out(thief, gid, values, {0, 1})  # what the shared screen holds opens no seat
    for seat in (0, 1):
        api_attempts(live_server.base, gid, seat, values)
    expect(phones[1].locator("[data-testid=program]")).to_be_visible()


def test_a_player_closes_their_seat_in_another_tab(
    live_server: ServerProcess, contexts: Contexts, shots: Any
) -> None:
    game = live_server.create(seats=[{"kind": "human", "name": "Ada"}, {"kind": "human"}])
    phone = contexts.page()
    phone.goto(game["seats"][1]["url"].replace("#", "&speed=0&lang=en#"))
    phone.wait_for_function("() => location.hash.startsWith('#token=')")
    laptop = phone.context.new_page()  # the same person's other tab, with the seat's link
    laptop.goto(phone.url)
    for page in (phone, laptop):
        expect(page.locator("[data-testid=devices-banner]")).to_contain_text(
            "Your seat is also open in 1 other tab or device."
        )
    shots(laptop, "devices-desktop")
    laptop.click("[data-testid=close-others]")
    expect(laptop.locator("[data-testid=devices-banner]")).to_be_hidden()
    banner = phone.locator("[data-testid=conn-banner]")
    expect(banner).to_contain_text("Your seat was closed here from another device")
    expect(phone.locator("[data-testid=devices-banner]")).to_be_hidden()
    # The closed tab's link opens nothing now; the tab that closed it has the new one.
    old = "#" + urlsplit(phone.url).fragment
    laptop.wait_for_function(
        "(old) => location.hash.startsWith('#token=') && location.hash !== old", arg=old
    )
    phone.reload()
    expect(phone.locator("[data-testid=conn-banner]")).to_contain_text("not valid")
    laptop.reload()
    expect(laptop.locator("[data-testid=player-1] .badge.you")).to_be_visible()
