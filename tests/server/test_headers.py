"""Security headers (headers.py) on every kind of response: the page, its files, the API and
its errors, the rules pages, a rate limit, a crash; WebSockets pass through untouched."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import httpx
import pytest
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route
from starlette.testclient import TestClient

from roborally.server.headers import NAMES, content_policy

from .conftest import FAST, connect, create, hello, make_client

EXPECTED = {
    "x-content-type-options": "nosniff",
    "x-frame-options": "DENY",
    "referrer-policy": "no-referrer",
    "content-security-policy": content_policy("testserver"),
}


def assert_headers(response: httpx.Response) -> None:
    for name, value in EXPECTED.items():
        assert response.headers.get_list(name) == [value], (response.url, name)


PAGES = [
    "/",
    "/index.html",
    "/?game=abc",
    "/style.css",
    "/js/main.js",
    "/favicon.svg",
    "/i18n/en.json",
    "/rules",
    "/rules/2023",
    "/rules/nope",  # 404 page
    "/nope.txt",  # 404 of the static files
    "/api/options",
    "/api/courses/tiny",
    "/api/games",
    "/api/games/nope",  # 404 ApiError
    "/api/web/cards?edition=2023",
    "/api/web/board.svg?course=tiny",
]


@pytest.mark.parametrize("path", PAGES)
def test_every_page_and_file_carries_the_headers(extras: TestClient, path: str) -> None:
    assert_headers(extras.get(path))


def test_writes_errors_and_downloads_carry_them(client: TestClient) -> None:
    game = create(client, seats=[{"kind": "human"}, {"kind": "human"}])
    gid = game["game_id"]
    etag = client.get("/style.css").headers["etag"]
    responses = [
        client.post("/api/games", json={"course": "tiny", "seats": [{"kind": "alien"}]}),
        client.post("/api/games", content=b"{not json"),
        client.delete("/api/options"),  # 405
        client.head("/"),
        client.post(f"/api/games/{gid}/join", json={}),
        client.post(f"/api/games/{gid}/seats/1/qr", json={}),
        client.get(f"/api/games/{gid}/record"),
        client.get("/style.css", headers={"If-None-Match": etag}),
    ]
    assert responses[-1].status_code == 304
    for response in responses:
        assert_headers(response)


def test_a_rate_limit_carries_them(tmp_path: Path) -> None:
    options = dataclasses.replace(FAST, requests_per_second=0.01, request_burst=1)
    with make_client(tmp_path, options) as client:
        client.get("/api/options")
        limited = client.get("/api/options")
    assert limited.status_code == 429
    assert_headers(limited)


def test_a_crash_carries_them(tmp_path: Path) -> None:
    async def crash(request: Request) -> Response:
        raise RuntimeError("a bug")

    app = make_client(tmp_path).app
    app.router.routes.insert(0, Route("/crash", crash))  # type: ignore[attr-defined]
    with TestClient(app, raise_server_exceptions=False) as client:
        crashed = client.get("/crash")
    assert crashed.status_code == 500 and crashed.text == "Internal Server Error"
    assert_headers(crashed)


def test_headers_set_by_the_app_are_replaced_not_doubled(tmp_path: Path) -> None:
    async def framed(request: Request) -> Response:
        return Response("x", headers={"X-Frame-Options": "SAMEORIGIN"})

    app = make_client(tmp_path).app
    app.router.routes.insert(0, Route("/framed", framed))  # type: ignore[attr-defined]
    with TestClient(app) as client:
        assert_headers(client.get("/framed"))


def test_websockets_pass_through(client: TestClient) -> None:
    game = create(client)
    with connect(client, game["game_id"], token=game["seats"][0]["token"]) as session:
        ws = hello(session)
        assert ws.token


def test_the_policy_names_the_socket_origin_only_for_a_plain_host() -> None:
    policy = content_policy("rally.example.org:8443")
    host = "rally.example.org:8443"
    assert f"connect-src 'self' blob: ws://{host} wss://{host}" in policy
    assert "frame-ancestors 'none'" in policy and "script-src 'self';" in policy
    assert content_policy("[::1]:8000").endswith("ws://[::1]:8000 wss://[::1]:8000")
    for odd in ["evil.org; script-src *", "a b", "", None]:
        assert content_policy(odd).endswith("connect-src 'self' blob:")
    assert set(NAMES) == set(EXPECTED)
