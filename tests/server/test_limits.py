"""Limits: no client can lock players out, exhaust the server's memory or flood it with games.

Every limit is a ServerOptions field (docs/server.md "Limits"); these tests shrink them.
"""

from __future__ import annotations

import contextlib
import dataclasses
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from starlette.testclient import TestClient

from roborally.server.connection import Connection
from roborally.server.protocol import CLOSE_REPLACED, CLOSE_TOO_SLOW, MAX_MESSAGE_BYTES

from .conftest import FAST, connect, create, hello, make_client, room_of, wait_for

TWO = [{"kind": "human"}, {"kind": "human"}]


@pytest.fixture
def tight(tmp_path: Path) -> Iterator[TestClient]:
    options = dataclasses.replace(
        FAST,
        connections_per_address=6,
        spectators_per_game=2,
        connections_per_seat=2,
        games_per_minute=4,
        lobbies_per_address=3,
        hello_seconds=0.5,
    )
    with make_client(tmp_path, options) as client:
        yield client


def test_seat_holders_get_in_when_the_spectator_seats_are_full(tight: TestClient) -> None:
    game = create(tight, seats=TWO)
    gid = game["game_id"]
    with connect(tight, gid) as a, connect(tight, gid) as b, connect(tight, gid) as c:
        hello(a), hello(b)
        c.send_json({"type": "hello", "v": 1, "id": 3})
        full = c.receive_json()
        assert full["code"] == "server_full" and full["ref"] == 3
        # ...but the players' own seats are never taken by spectators.
        with connect(tight, gid, game["seats"][0]["token"]) as mine:
            welcome = hello(mine)
            assert welcome.session is mine
        assert room_of(tight, gid).spectator_count() == 2


def test_one_address_holds_a_bounded_number_of_sockets(tight: TestClient) -> None:
    gid = create(tight, seats=TWO)["game_id"]
    with contextlib.ExitStack() as stack:
        for _ in range(6):
            stack.enter_context(connect(tight, gid))
        with connect(tight, gid) as seventh:
            refused = seventh.receive_json()
            assert refused["code"] == "too_many_connections"
            assert "6 connections" in refused["message"] and refused["retry_after"] > 0
    # Closed sockets are counted out again.
    with connect(tight, gid) as again:
        assert hello(again).session is again


def test_a_silent_socket_is_closed_after_the_hello_deadline(tight: TestClient) -> None:
    gid = create(tight, seats=TWO)["game_id"]
    with connect(tight, gid) as silent:
        started = time.monotonic()
        reply = silent.receive_json()
        assert reply["code"] == "hello_timeout"
        assert 0.3 < time.monotonic() - started < 5
    assert not room_of(tight, gid).conns


def test_a_seat_opened_too_often_drops_its_oldest_connection(tight: TestClient) -> None:
    game = create(tight, seats=TWO)
    gid, token = game["game_id"], game["seats"][0]["token"]
    with connect(tight, gid, token) as first, connect(tight, gid, token) as second:
        old = hello(first)
        hello(second)
        with connect(tight, gid, token) as third:
            hello(third)
            assert old.until("error")["code"] == "replaced"
            with pytest.raises(Exception) as closed:  # the server closed the oldest socket
                old.until("never")
            assert getattr(closed.value, "code", None) == CLOSE_REPLACED
            assert len(room_of(tight, gid).seats[0].conns) == 2


def _post(client: TestClient, body: dict[str, Any]) -> httpx.Response:
    return client.post("/api/games", json={"course": "tiny", **body})


def test_game_creation_is_rate_limited_per_address(tight: TestClient) -> None:
    bots = {"seats": [{"kind": "bot"}] * 2, "max_rounds": 1}
    codes = [_post(tight, bots).status_code for _ in range(4)]
    assert codes == [201] * 4
    refused = _post(tight, bots)
    assert refused.status_code == 429
    assert refused.json()["error"]["code"] == "rate_limited"
    assert int(refused.headers["Retry-After"]) >= 1
    assert "4 games a minute" in refused.json()["error"]["message"]


def test_open_lobbies_per_address_are_limited(tight: TestClient) -> None:
    for _ in range(3):
        assert _post(tight, {"seats": TWO}).status_code == 201
    refused = _post(tight, {"seats": TWO})
    assert refused.status_code == 429 and refused.json()["error"]["code"] == "too_many_games"


def test_bot_games_per_address_are_limited(tmp_path: Path) -> None:
    options = dataclasses.replace(FAST, bot_games_per_address=1, slice_seconds=0.01)
    with make_client(tmp_path, options) as client:
        long_game = {"seats": [{"kind": "bot"}] * 4, "max_rounds": 200, "course": "y23-rush-hour"}
        first = client.post("/api/games", json=long_game)
        assert first.status_code == 201
        second = client.post("/api/games", json=long_game)
        assert second.status_code == 429 and second.json()["error"]["code"] == "too_many_games"


def test_request_bodies_are_refused_by_size_before_they_are_read(client: TestClient) -> None:
    declared = client.post(
        "/api/games",
        content=b"{}",
        headers={"content-length": str(150 << 20), "content-type": "application/json"},
    )
    assert declared.status_code == 413 and declared.json()["error"]["code"] == "too_large"

    def chunks() -> Iterator[bytes]:  # no Content-Length: cut off once past the limit
        for _ in range(100):
            yield b" " * 8192

    streamed = client.post("/api/games", content=chunks())
    assert streamed.status_code == 413
    assert client.post("/api/games", content=b" " * (MAX_MESSAGE_BYTES + 1)).status_code == 413


def test_a_client_that_does_not_read_is_dropped_not_buffered() -> None:
    aborted: list[bool] = []
    conn = Connection(limit=10_000, abort=lambda: aborted.append(True))
    for _ in range(9):
        conn.send_text("x" * 1000)
    assert conn.pending_bytes == 9000 and not conn.closed
    conn.send_text("é" * 600)  # 1,200 bytes of UTF-8: past the limit
    assert conn.closed and conn.close_code == CLOSE_TOO_SLOW and aborted == [True]
    assert conn.pending_bytes == 0 and list(conn.pending) == [None]
    conn.send_text("more")  # nothing is queued after the drop
    assert list(conn.pending) == [None]


def test_sync_flood_from_a_spectator_is_bounded(tmp_path: Path) -> None:
    """A spectator asking for the whole game again and again without reading is dropped once
    its unread messages pass ``send_queue_bytes``."""
    options = dataclasses.replace(FAST, send_queue_bytes=200_000)
    with make_client(tmp_path, options) as client:
        game = create(client, seats=[{"kind": "bot"}] * 2, max_rounds=6)
        gid = game["game_id"]
        room = room_of(client, gid)
        wait_for(lambda: room.status == "finished")
        with connect(client, gid) as session:
            hello(session)
            conn = next(iter(room.conns))
            conn.wakeup = _Never()  # the writer never gets to send: a client that never reads
            for _ in range(300):
                session.send_json({"type": "sync", "v": 1, "since": 0})
            wait_for(lambda: conn.closed)
            assert conn.close_code == CLOSE_TOO_SLOW and conn.pending_bytes == 0


class _Never:
    """An asyncio.Event stand-in that never wakes its waiter."""

    def set(self) -> None:
        return None

    def clear(self) -> None:
        return None

    async def wait(self) -> None:
        import asyncio

        await asyncio.Event().wait()


def test_duplicate_names_are_refused(client: TestClient) -> None:
    clash = _post(client, {"seats": [{"kind": "human", "name": "Ada"}, {"name": "ada "}]})
    assert clash.status_code == 400 and clash.json()["error"]["code"] == "name_taken"
    bot_clash = _post(client, {"seats": [{"kind": "human", "name": "Blue"}, {"kind": "bot"}]})
    assert bot_clash.status_code == 400  # the bot in seat 1 is called Blue
    game = create(client, seats=[{"kind": "human", "name": "Ada"}, {"kind": "human"}])
    joined = client.post(f"/api/games/{game['game_id']}/join", json={"name": "ADA"})
    assert joined.status_code == 409 and joined.json()["error"]["code"] == "name_taken"
    assert room_of(client, game["game_id"]).seats[1].taken is False


def test_message_size_and_rate_are_settings(tmp_path: Path) -> None:
    options = dataclasses.replace(FAST, message_bytes=2048, messages_per_second=1, message_burst=3)
    with make_client(tmp_path, options) as client:
        assert client.get("/api/options").json()["limits"]["message_bytes"] == 2048
        assert client.post("/api/games", content=b" " * 3000).status_code == 413
        gid = create(client, seats=TWO)["game_id"]
        with connect(client, gid) as session:
            ws = hello(session)
            ws.send(type="ping", pad="x" * 3000, id="big")
            big = ws.error()
            assert big["code"] == "too_large" and "2048" in big["message"]
            for n in range(3):  # the burst of 3 held one for the hello: the third is refused
                ws.send(type="ping", id=n)
            limited = ws.until("error")
            assert limited["code"] == "rate_limited" and limited["ref"] == 2


def test_a_server_failure_still_answers_with_the_ref(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    from roborally.server.room import GameRoom

    def broken(self: GameRoom, conn: Any, msg: Any) -> None:
        raise RuntimeError("a bug")

    monkeypatch.setattr(GameRoom, "_back", broken)
    game = create(client, seats=TWO)
    with connect(client, game["game_id"], game["seats"][0]["token"]) as session:
        ws = hello(session)
        ws.send(type="back", id="oops")
        failure = ws.error()
        assert failure["code"] == "internal_error" and failure["ref"] == "oops"
        ws.send(type="ping", id="after")
        assert ws.until("pong")["ref"] == "after"  # the socket and the room go on


def test_api_calls_are_rate_limited_per_address(tmp_path: Path) -> None:
    options = dataclasses.replace(FAST, requests_per_second=1, request_burst=5)
    with make_client(tmp_path, options) as client:
        answers = [client.get("/api/health").status_code for _ in range(6)]
        assert answers == [200] * 5 + [429]
        refused = client.get("/api/games")
        assert refused.json()["error"]["code"] == "rate_limited"
        assert int(refused.headers["Retry-After"]) >= 1
        assert client.get("/").status_code == 200  # the page itself is not counted
