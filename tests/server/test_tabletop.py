"""The tabletop mode's seat codes (``roborally.server.tabletop``): the QR code of a seat's link,
given only to whoever holds that seat's token, never cached."""

from __future__ import annotations

from starlette.testclient import TestClient

from roborally.server.tabletop import qr_svg

from .conftest import create
from .qrcodes import decode_svg


def test_a_seat_code_is_the_qr_code_of_its_link(extras: TestClient) -> None:
    with extras as client:
        game = create(client, seats=[{"kind": "human"}, {"kind": "human"}, {"kind": "bot"}])
        seat = game["seats"][1]
        url = f"/api/games/{game['game_id']}/seats/1/qr"
        answer = client.post(url, json={"token": seat["token"]})
        assert answer.status_code == 200
        assert answer.headers["content-type"].startswith("image/svg+xml")
        assert answer.headers["cache-control"] == "no-store"
        assert answer.text == qr_svg(seat["url"])  # the link of the create response
        assert answer.text.startswith("<svg") and "viewBox" in answer.text
        # Another seat's token, no token, a bot's seat, a seat that does not exist: refused.
        other = game["seats"][0]["token"]
        assert client.post(url, json={"token": other}).status_code == 403
        assert client.post(url, json={}).status_code == 403
        assert client.post(url, json={"token": 5}).status_code == 403
        bot = f"/api/games/{game['game_id']}/seats/2/qr"
        assert client.post(bot, json={"token": other}).status_code == 404
        assert client.post(url.replace("/1/", "/x/"), json={}).status_code == 404
        assert client.post("/api/games/nope/seats/1/qr", json={}).status_code == 404
        # The token is never in a URL: there is no GET.
        assert client.get(url).status_code in (404, 405)


def test_qr_codes_encode_the_whole_link() -> None:
    svg = qr_svg("http://192.168.1.5:8000/?game=abc#token=" + "x" * 24)
    assert svg is not None and svg.count("<svg") == 1 and 'fill="#fff"' in svg
    assert qr_svg("a") != qr_svg("b")


def test_each_seat_code_reads_back_as_its_join_link(extras: TestClient) -> None:
    """Decoded from its pixels by a real QR reader, each seat's code is that seat's link."""
    with extras as client:
        game = create(client, seats=[{"kind": "human"}, {"kind": "human"}, {"kind": "human"}])
        read = []
        for seat in game["seats"]:
            url = f"/api/games/{game['game_id']}/seats/{seat['seat']}/qr"
            answer = client.post(url, json={"token": seat["token"]})
            assert answer.status_code == 200
            assert decode_svg(answer.text) == [seat["url"]]
            read.append(seat["url"])
        assert len(set(read)) == 3 and all(
            f"#token={s['token']}" in u for s, u in zip(game["seats"], read, strict=True)
        )
