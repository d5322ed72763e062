"""Limits that hold against many addresses and disguised bot work (docs/server.md "Limits"):
IPv6 clients counted by /64, lobbies kept open only by seat holders, a server-wide cap on
lobbies that makes room by closing the one unused longest, spectators per address, games
started with nobody at the table counted as games of bots, and games whose people all left
moved to the bots' lane."""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import time
from pathlib import Path
from typing import Any

import pytest

from roborally.server import app as app_module
from roborally.server.api_error import ApiError
from roborally.server.limits import client_key
from roborally.server.workers import BOTS, PEOPLE

from .conftest import FAST, connect, create, hello, make_client, room_of


@pytest.mark.parametrize(
    ("host", "key"),
    [
        ("198.51.100.7", "198.51.100.7"),
        ("2001:db8:aa:bb:1:2:3:4", "2001:db8:aa:bb::/64"),
        ("2001:db8:aa:bb:ffff::9", "2001:db8:aa:bb::/64"),  # the same /64: one client
        ("2001:db8:aa:bc::1", "2001:db8:aa:bc::/64"),  # the next /64: another
        ("::ffff:203.0.113.5", "203.0.113.5"),
        ("testclient", "testclient"),
    ],
)
def test_ipv6_clients_are_counted_by_their_64(host: str, key: str) -> None:
    assert client_key(host) == key


def test_only_seat_holders_keep_a_lobby_open(tmp_path: Path) -> None:
    options = dataclasses.replace(FAST, lobby_seconds=0.3)
    with make_client(tmp_path, options) as client:
        watched = create(client)
        attended = create(client)
        with (
            connect(client, watched["game_id"]) as w,
            connect(client, attended["game_id"], attended["seats"][0]["token"]) as a,
        ):
            watcher = hello(w)
            hello(a)
            time.sleep(0.4)  # longer than lobby_seconds (the clean-up runs on the next list)
            listed = {g["game_id"] for g in client.get("/api/games").json()["games"]}
            assert attended["game_id"] in listed and watched["game_id"] not in listed
            closed = watcher.error()
            assert closed["code"] == "unknown_game" and "closed" in closed["message"]
        gone = client.get(f"/api/games/{watched['game_id']}")
        assert gone.status_code == 404 and "closed" in gone.json()["error"]["message"]


def test_at_the_lobby_cap_the_one_unused_longest_makes_room(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(app_module, "LOBBY_KEEP_SECONDS", 0.0)
    options = dataclasses.replace(FAST, max_lobbies=2, lobbies_per_address=100)
    with make_client(tmp_path, options) as client:
        oldest, newer = create(client), create(client)
        with connect(client, newer["game_id"], newer["seats"][0]["token"]) as n:
            hello(n)  # a host is at this one's table
            third = create(client)  # room made: the oldest unused lobby is closed
            assert room_of(client, newer["game_id"]).status == "open"
            closed = client.get(f"/api/games/{oldest['game_id']}")
            assert closed.status_code == 404 and "needed its place" in closed.text
            # Every lobby in use (a host connected, or made moments ago): the server is full.
            monkeypatch.setattr(app_module, "LOBBY_KEEP_SECONDS", 3600.0)
            full = client.post("/api/games", json={"course": "tiny", "seats": [{}, {}]})
            assert full.status_code == 503 and full.json()["error"]["code"] == "server_full"
            assert "waiting for players" in full.json()["error"]["message"]
            # Games of bots only are not lobbies: they still start.
            bots = client.post(
                "/api/games", json={"course": "tiny", "seats": [{"kind": "bot"}] * 2}
            )
            assert bots.status_code == 201, bots.text
        assert room_of(client, third["game_id"]).status == "open"


def test_spectators_per_address(tmp_path: Path) -> None:
    options = dataclasses.replace(FAST, spectators_per_address=2)
    with make_client(tmp_path, options) as client:
        game = create(client)
        gid = game["game_id"]
        with connect(client, gid) as one, connect(client, gid) as two:
            hello(one), hello(two)
            with connect(client, gid) as three:
                three.send_json({"type": "hello", "v": 1})
                refused = three.receive_json()
                assert refused["code"] == "too_many_spectators"
                assert "2 places" in refused["message"]
            # A seat holder from the same address always gets in.
            with connect(client, gid, game["seats"][0]["token"]) as seat:
                assert hello(seat).session is seat


def test_a_game_started_with_nobody_at_the_table_is_a_game_of_bots(tmp_path: Path) -> None:
    options = dataclasses.replace(FAST, bot_games_per_address=1, grace_seconds=30)
    with make_client(tmp_path, options) as client:
        first, second = create(client), create(client)

        def start(game: dict[str, str]) -> tuple[int, str]:
            url = f"/api/games/{game['game_id']}/start"
            answer = client.post(url, json={"host_token": game["host_token"]})
            return answer.status_code, answer.json().get("error", {}).get("code", "")

        assert start(first) == (200, "")
        room = room_of(client, first["game_id"])
        # After the grace period nobody plays it: it is bot work, in the bots' lane.
        for seat in room.seats:
            seat.auto = True
        assert room.lane == BOTS
        assert start(second) == (429, "too_many_games")  # the address runs its one already
        # With its host at the table, the same game starts as a game of people.
        with connect(client, second["game_id"], second["seats"][0]["token"]) as s:
            hello(s)
            assert start(second) == (200, "")
            assert room_of(client, second["game_id"]).lane == PEOPLE


def test_games_people_left_do_not_count_as_games_of_bots(tmp_path: Path) -> None:
    """A game its people left pauses and does no work: it never counts against their
    address as a game of bots only. A game started with nobody at it counts until a person
    comes in."""
    options = dataclasses.replace(FAST, bot_games_per_address=1, grace_seconds=30)
    with make_client(tmp_path, options) as client:
        server = client.app.state.server  # type: ignore[attr-defined]
        left = [create(client) for _ in range(3)]
        for game in left:  # played a little, then everyone closed the page
            with connect(client, game["game_id"], game["seats"][0]["token"]) as s:
                ada = hello(s)
                ada.send(type="start")
                ada.pending_state()
            assert room_of(client, game["game_id"]).status == "running"
            assert room_of(client, game["game_id"]).paused_at is not None
        assert server.bot_games() == []

        alone = create(client, table=True)
        url = f"/api/games/{alone['game_id']}/start"
        assert client.post(url, json={"host_token": alone["host_token"]}).status_code == 200
        room = room_of(client, alone["game_id"])
        assert room.paused_at is not None and server.bot_games() == [room]
        # A table game with its screen only: the next one waits for the first to get a player.
        other = create(client, table=True)
        answer = client.post(
            f"/api/games/{other['game_id']}/start", json={"host_token": other["host_token"]}
        )
        assert answer.status_code == 429
        assert "1 games of bots only" in answer.json()["error"]["message"]

        invite = alone["seats"][0]["invite"]
        with connect(client, alone["game_id"], invite=invite) as s:
            hello(s)
            assert server.bot_games() == []
            assert not room.unattended


def test_at_max_games_a_game_left_long_ago_makes_room(tmp_path: Path) -> None:
    """Games their people left cannot hold the server's places for the whole abandon time:
    at ``max_games`` the one paused longest (over paused_keep_seconds) is abandoned for the
    new game; one paused only a short while is kept, and the creator told server_full."""
    options = dataclasses.replace(FAST, max_games=3, grace_seconds=30)
    with make_client(tmp_path, options) as client:
        left = []
        for _ in range(2):  # started, then everyone closed the page
            game = create(client)
            with connect(client, game["game_id"], game["seats"][0]["token"]) as s:
                ada = hello(s)
                ada.send(type="start")
                ada.pending_state()
            left.append(room_of(client, game["game_id"]))
        create(client)  # a lobby: the server is full
        body = {"course": "tiny", "seats": [{"kind": "human"}, {"kind": "bot"}]}
        assert client.post("/api/games", json=body).status_code == 503

        now = time.time()
        left[0].paused_at = now - options.paused_keep_seconds - 60
        left[1].paused_at = now - options.paused_keep_seconds - 120  # paused longest
        made = create(client)
        assert made["game_id"]
        assert left[1].status == "abandoned" and left[0].status == "running"
        server = client.app.state.server  # type: ignore[attr-defined]
        assert left[1].id not in server.rooms and left[0].id in server.rooms
        stored = client.get(f"/api/games/{left[1].id}")
        assert stored.status_code == 404 and "abandoned" in stored.text
        # The other stepped away a moment ago only: it keeps its place.
        left[0].paused_at = time.time()
        answer = client.post("/api/games", json=body)
        assert answer.status_code == 503, answer.text
        assert left[0].status == "running"


def test_a_game_whose_people_are_all_away_moves_to_the_bots_lane(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """With real worker processes: once every person's seat is away (here Ada stays
    connected but lets her deadlines pass: a game nobody is connected to pauses instead) the
    game is built again in a worker of the bots' lane, and goes on there to its end."""
    caplog.set_level(logging.INFO, logger="roborally.server")
    options = dataclasses.replace(
        FAST, engine_workers=1, bot_workers=1, min_seconds=0.01, away_seconds=0.05
    )
    with make_client(tmp_path, options) as client:
        game = create(
            client,
            max_rounds=3,
            seats=[{"kind": "human"}, {"kind": "bot"}],
            decision_seconds=0.1,
            program_seconds=0.1,
        )
        gid = game["game_id"]
        server = client.app.state.server  # type: ignore[attr-defined]
        with connect(client, gid, game["seats"][0]["token"]) as a:
            ada = hello(a)
            ada.send(type="start")
            ada.pending_state()
            assert server.pool.where[gid].lane == PEOPLE
            # Ada answers nothing: after 3 missed deadlines she is away, played in the bots'
            # lane (a few seconds a decision, never at once) to the end.
            ada.until("game_over", limit=50_000)
        assert room_of(client, gid).seats[0].auto_reason == "idle"
    moved = [r.getMessage() for r in caplog.records if "moves to the" in r.getMessage()]
    assert moved == [f"game {gid}: moves to the bots lane"]


def test_concurrent_creations_at_the_lobby_cap_stay_under_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Creations arriving together from many addresses each take one lobby's place (the one
    they close is out of the count before another creation is looked at): a flood of 400
    addresses once left 940 lobbies under a cap of 400."""
    monkeypatch.setattr(app_module, "LOBBY_KEEP_SECONDS", 0.0)
    options = dataclasses.replace(FAST, max_lobbies=4)
    body = {"course": "tiny", "seats": [{"kind": "human"}, {"kind": "human"}]}
    with make_client(tmp_path, options) as client:
        server = client.app.state.server  # type: ignore[attr-defined]

        def wave(start: int) -> tuple[int, int]:
            """24 creations at once: how many were made and how many refused as full."""

            async def flood() -> list[Any]:
                made = (
                    server.create(dict(body), "http://x", f"10.0.{start}.{i}") for i in range(24)
                )
                return await asyncio.gather(*made, return_exceptions=True)

            answers = client.portal.call(flood)  # type: ignore[union-attr]
            full = [a for a in answers if isinstance(a, ApiError) and a.code == "server_full"]
            assert len(full) + sum(isinstance(a, dict) for a in answers) == 24, answers
            assert sum(1 for room in server.rooms.values() if room.status == "open") <= 4
            return 24 - len(full), len(full)

        first = wave(1)  # at most the cap is made while all are under way at once
        second = wave(2)  # each made one closes an unused lobby of the first wave
        assert first[0] == 4 and second[0] >= 1, (first, second)
