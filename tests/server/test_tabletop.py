"""The tabletop mode's seat codes (``roborally.server.tabletop``): the QR code of a seat's
invite link, given only for the seat's current invite while nobody holds the seat, never
cached, and saying who can open its link (``X-Link-Reach``); and a new invite made with the host
token for a seat nobody holds."""

from __future__ import annotations

from typing import Any

import pytest
from starlette.testclient import TestClient

from roborally.server.tabletop import LOOPBACK, NETWORK, NO_LAN, is_loopback, link_reach, qr_svg

from .conftest import connect, create, hello
from .qrcodes import decode_svg

TABLE = {"table": True, "seats": [{"kind": "human"}, {"kind": "human"}, {"kind": "bot"}]}


def test_a_seat_code_is_the_qr_code_of_its_invite_link(extras: TestClient) -> None:
    with extras as client:
        game = create(client, **TABLE)
        # The shared screen plays no seat: every human seat has an invite, none a token.
        assert game["host_seat"] is None
        assert all("token" not in s for s in game["seats"])
        seat = game["seats"][1]
        url = f"/api/games/{game['game_id']}/seats/1/qr"
        answer = client.post(url, json={"invite": seat["invite"]})
        assert answer.status_code == 200
        assert answer.headers["content-type"].startswith("image/svg+xml")
        assert answer.headers["cache-control"] == "no-store"
        assert answer.text == qr_svg(seat["url"])  # the link of the create response
        assert seat["url"].endswith(f"#invite={seat['invite']}")
        assert answer.text.startswith("<svg") and "viewBox" in answer.text
        # Another seat's invite, none, a bot's seat, a seat that does not exist: refused.
        other = game["seats"][0]["invite"]
        assert client.post(url, json={"invite": other}).status_code == 403
        assert client.post(url, json={}).status_code == 403
        assert client.post(url, json={"invite": 5}).status_code == 403
        bot = f"/api/games/{game['game_id']}/seats/2/qr"
        assert client.post(bot, json={"invite": other}).status_code == 404
        assert client.post(url.replace("/1/", "/x/"), json={}).status_code == 404
        assert client.post("/api/games/nope/seats/1/qr", json={}).status_code == 404
        # The invite is never in a URL: there is no GET.
        assert client.get(url).status_code in (404, 405)
        # Once a phone took the seat, its code is used up: no picture of it any more.
        with connect(client, game["game_id"], invite=seat["invite"]) as phone:
            hello(phone)
        taken = client.post(url, json={"invite": seat["invite"]})
        assert taken.status_code == 409 and taken.json()["error"]["code"] == "seat_taken"


def test_the_host_makes_a_new_invite_only_for_a_seat_nobody_holds(extras: TestClient) -> None:
    with extras as client:
        game = create(client, **TABLE)
        gid, host = game["game_id"], game["host_token"]
        url = f"/api/games/{gid}/seats/1/invite"
        assert client.post(url, json={"host_token": "nope"}).status_code == 403
        made = client.post(url, json={"host_token": host})
        assert made.status_code == 200, made.text
        fresh = made.json()
        assert fresh["seat"] == 1 and fresh["url"].endswith(f"?game={gid}#invite={fresh['invite']}")
        # The old code stops working; the new one draws and opens the seat.
        qr = f"/api/games/{gid}/seats/1/qr"
        assert client.post(qr, json={"invite": game["seats"][1]["invite"]}).status_code == 403
        assert client.post(qr, json={"invite": fresh["invite"]}).status_code == 200
        with connect(client, gid, invite=game["seats"][1]["invite"]) as stale:
            stale.send_json({"type": "hello", "v": 1, "invite": game["seats"][1]["invite"]})
            assert stale.receive_json()["code"] == "bad_invite"
        with connect(client, gid, invite=fresh["invite"]) as phone:
            assert hello(phone).token
        # A seat somebody holds belongs to them: no new invite, no way in for the host.
        held = client.post(url, json={"host_token": host})
        assert held.status_code == 409 and held.json()["error"]["code"] == "seat_taken"
        bot = client.post(f"/api/games/{gid}/seats/2/invite", json={"host_token": host})
        assert bot.status_code == 404


def test_qr_codes_encode_the_whole_link() -> None:
    svg = qr_svg("http://192.168.1.5:8000/?game=abc#invite=" + "x" * 16)
    assert svg is not None and svg.count("<svg") == 1 and 'fill="#fff"' in svg
    assert qr_svg("a") != qr_svg("b")


def test_each_seat_code_reads_back_as_its_join_link(extras: TestClient) -> None:
    """Decoded from its pixels by a real QR reader, each seat's code is that seat's link."""
    with extras as client:
        game = create(client, table=True, seats=[{"kind": "human"}] * 3)
        read = []
        for seat in game["seats"]:
            url = f"/api/games/{game['game_id']}/seats/{seat['seat']}/qr"
            answer = client.post(url, json={"invite": seat["invite"]})
            assert answer.status_code == 200
            assert decode_svg(answer.text) == [seat["url"]]
            read.append(seat["url"])
        assert len(set(read)) == 3 and all(
            f"#invite={s['invite']}" in u for s, u in zip(game["seats"], read, strict=True)
        )


def seat_code(client: TestClient, game: dict[str, Any], origin: str) -> tuple[str, str]:
    """(the link in seat 0's code, read back from the picture; its X-Link-Reach) as a shared
    screen opened at ``origin`` gets them."""
    url = f"{origin}/api/games/{game['game_id']}/seats/0/qr"
    answer = client.post(url, json={"invite": game["seats"][0]["invite"]})
    assert answer.status_code == 200, answer.text
    [link] = decode_svg(answer.text)
    assert link.endswith(f"/?game={game['game_id']}#invite={game['seats'][0]['invite']}")
    return link, answer.headers["x-link-reach"]


def test_a_code_says_whether_phones_can_open_its_link(
    extras: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``make play`` (loopback only): a loopback link, which no phone opens; ``make play-lan``
    (every interface): the machine's network address, even on a screen opened at 127.0.0.1,
    unless the machine has none; ``--public-url`` beats both."""
    import roborally.server.app as app_module

    lan: list[str | None] = ["192.168.1.5"]
    monkeypatch.setattr(app_module, "lan_address", lambda: lan[0])
    with extras as client:
        server = client.app.state.server  # type: ignore[attr-defined]
        game = create(client, **TABLE)
        link, reach = seat_code(client, game, "http://127.0.0.1:8000")
        assert link.startswith("http://127.0.0.1:8000/") and reach == LOOPBACK
        server.listen_host, server.listen_port = "127.0.0.1", 8000
        assert seat_code(client, game, "http://localhost:8000")[1] == LOOPBACK
        # Opened at the network address: the links are the others' already.
        assert seat_code(client, game, "http://192.168.1.5:8000")[1] == NETWORK
        server.listen_host = "0.0.0.0"
        link, reach = seat_code(client, game, "http://127.0.0.1:8000")
        assert link.startswith("http://192.168.1.5:8000/") and reach == NETWORK
        lan[0] = None  # no Wi-Fi, no cable: the links fall back to the loopback
        link, reach = seat_code(client, game, "http://127.0.0.1:8000")
        assert link.startswith("http://127.0.0.1:8000/") and reach == NO_LAN
        server.options.public_url = "https://rally.example.org/"
        link, reach = seat_code(client, game, "http://127.0.0.1:8000")
        assert link.startswith("https://rally.example.org/") and reach == NETWORK


@pytest.mark.parametrize(
    ("base", "loopback"),
    [
        ("http://127.0.0.1:8000", True),
        ("http://127.8.9.10", True),
        ("http://localhost:8000", True),
        ("http://LOCALHOST", True),
        ("http://game.localhost:8000", True),
        ("http://[::1]:8000", True),
        ("http://0.0.0.0:8000", True),  # no phone reaches "every interface" either
        ("http://192.168.1.5:8000", False),
        ("http://[fd00::5]:8000", False),
        ("https://rally.example.org", False),
        ("http://my-laptop.local:8000", False),
    ],
)
def test_loopback_links_are_told_apart_from_the_others(base: str, loopback: bool) -> None:
    assert is_loopback(base) is loopback
    assert link_reach(base, listening_wide=False) == (LOOPBACK if loopback else NETWORK)
    assert link_reach(base, listening_wide=True) == (NO_LAN if loopback else NETWORK)
