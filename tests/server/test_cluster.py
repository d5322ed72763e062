"""Scale-out mode with two servers in this process sharing one Redis and one PostgreSQL:
a game owned by one is played through the other, its HTTP calls answered by its owner."""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import dataclasses
import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx

from roborally.content.record import parse_record, replay
from roborally.server.client import RemotePlayer, seat_key
from roborally.server.cluster.node import ClusterNode
from roborally.server.host import GameHost, HostSpec, outcome_json

from .conftest import FAST, LiveServer, run_fresh_loop, wait_for


def node(live: LiveServer) -> ClusterNode:
    cluster: ClusterNode | None = live.app.state.server.cluster  # type: ignore[attr-defined]
    assert cluster is not None
    return cluster


@contextlib.contextmanager
def pair(
    tmp_path: Path, redis_url: str, database_url: str, **changes: Any
) -> Iterator[tuple[LiveServer, LiveServer]]:
    """Two servers in scale-out mode on one Redis and one PostgreSQL."""
    options = dataclasses.replace(FAST, redis=redis_url, database=database_url, **changes)
    with (
        LiveServer(tmp_path / "a", options) as first,
        LiveServer(tmp_path / "b", options) as second,
    ):
        yield first, second


def new_game(server: LiveServer, seed: int, *kinds: str) -> dict[str, Any]:
    """A game on the tiny course made through ``server`` (which then owns it)."""
    body = {"course": "tiny", "seats": [{"kind": kind} for kind in kinds], "seed": seed}
    game: dict[str, Any] = httpx.post(server.base + "/api/games", json=body).json()
    return game


def play(*players: RemotePlayer) -> list[Any]:
    async def main() -> list[Any]:
        return list(await asyncio.gather(*(p.run(timeout=120) for p in players)))

    return run_fresh_loop(main())


def test_two_players_on_two_processes_play_a_game_to_the_end(
    tmp_path: Path, redis_url: str, postgres_url: str
) -> None:
    with pair(tmp_path, redis_url, postgres_url) as (a, b):
        game = new_game(a, 5, "human", "human")
        gid = game["game_id"]
        assert gid in node(a).held and gid not in node(b).held

        # The lobby is the same from either process.
        def listed() -> bool:
            games = httpx.get(b.base + "/api/games").json()["games"]
            return gid in [g["game_id"] for g in games]

        wait_for(listed, 5)
        # A call about the game made to the other process is answered by its owner.
        seen = httpx.get(f"{b.base}/api/games/{gid}")
        assert seen.status_code == 200 and seen.json()["game_id"] == gid
        wrong = httpx.post(f"{b.base}/api/games/{gid}/start", json={"host_token": "nope"})
        assert wrong.status_code == 403 and wrong.json()["error"]["code"] == "bad_token"
        players = [
            RemotePlayer(f"ws://127.0.0.1:{live.port}/ws/{gid}", **seat_key(seat), seed=i)
            for i, (live, seat) in enumerate(zip((a, b), game["seats"], strict=True))
        ]
        first, second = play(*players)
        assert first.errors == [] and second.errors == []
        assert first.outcome is not None and first.outcome == second.outcome
        assert node(b).bus.published > 10  # the second player's frames went through Redis
        record = httpx.get(f"{b.base}/api/games/{gid}/record")
        assert record.status_code == 200
        final = replay(parse_record(record.text))
        assert final.state.winner == first.outcome.get("winner") or final.state.over


def test_a_join_through_another_process_takes_the_owners_seat(
    tmp_path: Path, redis_url: str, postgres_url: str
) -> None:
    with pair(tmp_path, redis_url, postgres_url) as (a, b):
        gid = new_game(a, 3, "human", "human")["game_id"]
        joined = httpx.post(f"{b.base}/api/games/{gid}/join", json={"name": "Zed"})
        assert joined.status_code == 200, joined.text
        room = a.room(gid)
        assert room.seats[1].taken and room.seats[1].name == "Zed"
        again = httpx.post(f"{b.base}/api/games/{gid}/join", json={})
        assert again.status_code == 409 and again.json()["error"]["code"] == "no_free_seat"


def crash(live: LiveServer) -> None:
    """Make a server stop as a killed process would, as far as the others can tell: no more
    lease renewals or messages, its games stop where they are (nothing released, nothing
    said). The real kill -9 is in test_cluster_processes.py."""
    cluster = node(live)

    async def die() -> None:
        for task in cluster.tasks:
            task.cancel()
        for room in live.app.state.server.rooms.values():  # type: ignore[attr-defined]
            await room.close()
        live.app.state.server.rooms.clear()  # type: ignore[attr-defined]
        for task in cluster.bus.tasks:
            task.cancel()

    assert cluster.loop is not None
    asyncio.run_coroutine_threadsafe(die(), cluster.loop).result(10)


def test_when_the_owner_dies_a_relaying_process_takes_the_game_and_it_finishes(
    tmp_path: Path, redis_url: str, postgres_url: str
) -> None:
    with pair(tmp_path, redis_url, postgres_url) as (a, b):
        game = new_game(a, 9, "human", "human")
        gid = game["game_id"]
        players = [
            RemotePlayer(
                f"ws://127.0.0.1:{b.port}/ws/{gid}",
                **seat_key(s),
                seed=i,
                think=0.02,
                keep_raw=True,
            )
            for i, s in enumerate(game["seats"])
        ]

        def kill_mid_game() -> None:
            wait_for(lambda: gid in a.app.state.server.rooms and a.room(gid).round >= 2, 60)  # type: ignore[attr-defined]
            crash(a)

        with concurrent.futures.ThreadPoolExecutor(1) as killer:
            killed = killer.submit(kill_mid_game)
            first, second = play(*players)
            killed.result()
        assert gid in node(b).held
        assert first.errors == [] and second.errors == [], (first.errors, second.errors)
        assert first.outcome is not None and first.outcome == second.outcome
        for player in (first, second):  # the socket stayed; the new owner welcomed it again
            assert sum('"type":"welcome"' in text for text in player.raw) == 2
            assert player.connections == 1
        assert_same_as_one_process(b, gid, first.outcome)


def assert_same_as_one_process(live: LiveServer, gid: str, outcome: dict[str, Any]) -> None:
    """The stored actions and the exported record, replayed by one process on its own, end
    the game as the cluster did."""
    record = httpx.get(f"{live.base}/api/games/{gid}/record")
    assert record.status_code == 200, record.text
    final = replay(parse_record(record.text))
    assert outcome_json(final) == outcome
    stored = live.app.state.server.store.sync.load(gid)  # type: ignore[attr-defined]
    names = tuple(s["name"] for s in stored.seats)
    host = GameHost(HostSpec(gid, stored.settings, names, {}, stored.actions))
    assert host.game.digest() == final.digest()
    assert host.game.outcome() is not None


def test_a_relayed_socket_that_said_hello_is_not_closed_by_the_hello_deadline(
    tmp_path: Path, redis_url: str, postgres_url: str
) -> None:
    """The hello of a relayed socket is accepted by the owner; the socket's own process learns
    it from the owner's messages and stops applying the deadline for saying hello."""
    import websockets

    with pair(tmp_path, redis_url, postgres_url, hello_seconds=0.5) as (a, b):
        game = new_game(a, 2, "human", "bot")

        async def talk() -> list[str]:
            url = f"ws://127.0.0.1:{b.port}/ws/{game['game_id']}"
            async with websockets.connect(url) as ws:
                hello = {"type": "hello", "v": 1, "token": game["seats"][0]["token"]}
                await ws.send(json.dumps(hello))
                kinds = [json.loads(await ws.recv())["type"]]
                await asyncio.sleep(1.2)  # past the hello deadline
                await ws.send(json.dumps({"type": "ping", "v": 1, "id": 7}))
                while kinds[-1] != "pong":
                    kinds.append(json.loads(await asyncio.wait_for(ws.recv(), 5))["type"])
                return kinds

        kinds = run_fresh_loop(talk())
        assert kinds[0] == "welcome" and kinds[-1] == "pong" and "error" not in kinds


def test_a_room_let_go_after_its_lease_was_lost_changes_nothing(
    tmp_path: Path, redis_url: str, postgres_url: str
) -> None:
    """An owner that finds its lease lost (it stalled) closes the game's room: the room
    then arms no timer, drives no bot and stores nothing, since the game is the new owner's."""
    from roborally.server.store import StoreError

    with pair(tmp_path, redis_url, postgres_url) as (a, _b):
        gid = new_game(a, 8, "human", "bot")["game_id"]
        owner = node(a)
        room = a.room(gid)
        assert owner.loop is not None

        async def lose_the_lease() -> str:
            await owner._let_go(gid, moving=True)
            room._reschedule()
            room._schedule_drive()
            room._retry_later()
            try:
                await room._change("drive", room._play())
            except StoreError as error:
                return str(error)
            return "changed"

        said = asyncio.run_coroutine_threadsafe(lose_the_lease(), owner.loop).result(30)
        assert said == f"game {gid} is not run by this process any more"
        assert room.closed and gid not in owner.held
        assert (room.timer_task, room.drive_task, room.retry_task) == (None, None, None)


def test_a_rematch_owned_by_another_process_gives_the_player_their_seat_there(
    tmp_path: Path, redis_url: str, postgres_url: str
) -> None:
    """Bo was away when Ada asked for the rematch; by the time Bo asks, the rematch's waiting
    room is owned by the other process. Bo gets the same rematch and a seat link that works
    there (before, a second rematch was made), through the owner's ``rematch_seat`` call."""
    import websockets

    fast_end = {"max_rounds": 1, "decision_seconds": 0.05, "program_seconds": 0.05}
    with pair(tmp_path, redis_url, postgres_url) as (a, b):
        body = {"course": "tiny", "seats": [{"kind": "human"}] * 2, "seed": 4, **fast_end}
        game = httpx.post(a.base + "/api/games", json=body).json()
        gid = game["game_id"]
        seated = [
            RemotePlayer(f"ws://127.0.0.1:{a.port}/ws/{gid}", **seat_key(seat), seed=i)
            for i, seat in enumerate(game["seats"])
        ]
        play(*seated)
        ada_token, bo_token = (str(player.token) for player in seated)  # Bo's came with his invite

        async def ask(live: LiveServer, game_id: str, token: str) -> list[dict[str, Any]]:
            """Say hello with ``token``, ask for the rematch, return what came back."""
            async with websockets.connect(f"ws://127.0.0.1:{live.port}/ws/{game_id}") as ws:
                await ws.send(json.dumps({"type": "hello", "v": 1, "token": token}))
                await ws.send(json.dumps({"type": "rematch", "v": 1, "id": "r"}))
                got: list[dict[str, Any]] = []
                while not got or got[-1]["type"] not in ("rematch", "error"):
                    got.append(json.loads(await asyncio.wait_for(ws.recv(), 10)))
                return got

        ada_saw = run_fresh_loop(ask(a, gid, ada_token))
        rematch = ada_saw[-1]["game_id"]
        assert ada_saw[-1]["type"] == "rematch" and rematch in node(a).held

        async def hand_over() -> None:  # the owner lets the waiting room go ...
            await node(a)._let_go(rematch, moving=False)

        loop = node(a).loop
        assert loop is not None
        asyncio.run_coroutine_threadsafe(hand_over(), loop).result(10)
        seen = httpx.get(f"{b.base}/api/games/{rematch}")  # ... and the other takes it
        assert seen.status_code == 200 and rematch in node(b).held

        bo_saw = run_fresh_loop(ask(a, gid, bo_token))
        told = bo_saw[-1]
        assert told["type"] == "rematch", bo_saw
        assert (told["game_id"], told["seat"]) == (rematch, 1)
        assert httpx.get(f"{a.base}/api/games/{rematch}").json()["free_seats"] == []

        async def welcome(token: str) -> dict[str, Any]:
            async with websockets.connect(f"ws://127.0.0.1:{a.port}/ws/{rematch}") as ws:
                await ws.send(json.dumps({"type": "hello", "v": 1, "token": token}))
                answer: dict[str, Any] = json.loads(await asyncio.wait_for(ws.recv(), 10))
                return answer

        assert run_fresh_loop(welcome(told["token"]))["seat"] == 1
        assert rematch in node(b).held  # still there: Bo's seat was given by its owner

        # The call itself, as any client may make it: only a seat's token of the finished game.
        url = f"{a.base}/api/games/{rematch}/rematch_seat"
        again = httpx.post(url, json={"previous": gid, "token": bo_token})
        assert again.status_code == 200 and again.json()["token"] == told["token"]
        wrong = httpx.post(url, json={"previous": gid, "token": "not-a-seat"})
        assert wrong.status_code == 403 and wrong.json()["error"]["code"] == "bad_token"
        other = httpx.post(url, json={"previous": rematch, "token": bo_token})
        assert other.status_code == 404 and other.json()["error"]["code"] == "not_a_rematch"
        for body in ({"previous": gid}, {"previous": "x" * 5000, "token": bo_token}):
            bad = httpx.post(url, json=body)
            assert bad.status_code == 400 and bad.json()["error"]["code"] == "bad_request"


def test_the_chat_survives_a_takeover(tmp_path: Path, redis_url: str, postgres_url: str) -> None:
    """The last chat entries are kept in Redis too: the process that takes a game over after
    its owner died shows the same chat, and new entries go on numbering after them."""
    import websockets

    with pair(tmp_path, redis_url, postgres_url) as (a, b):
        game = new_game(a, 6, "human", "human")
        gid, token = game["game_id"], game["seats"][0]["token"]
        url = f"ws://127.0.0.1:{b.port}/ws/{gid}"

        async def until(ws: Any, kind: str) -> dict[str, Any]:
            while True:
                msg: dict[str, Any] = json.loads(await asyncio.wait_for(ws.recv(), 10))
                if msg["type"] == kind:
                    return msg

        async def talk() -> tuple[list[dict[str, Any]], dict[str, Any]]:
            async with websockets.connect(url) as ada:
                await ada.send(json.dumps({"type": "hello", "v": 1, "token": token}))
                await until(ada, "welcome")
                for text in ("hello", "good luck"):
                    await ada.send(json.dumps({"type": "chat", "v": 1, "text": text}))
                    await until(ada, "chat")
                await asyncio.to_thread(crash, a)
                # Ada's socket moves to the new owner, which welcomes it again.
                again = (await until(ada, "welcome"))["chat"]["messages"]
                assert [e["text"] for e in again] == ["hello", "good luck"]
                async with websockets.connect(url) as watcher:
                    await watcher.send(json.dumps({"type": "hello", "v": 1}))
                    seen = (await until(watcher, "welcome"))["chat"]["messages"]
                    await ada.send(json.dumps({"type": "chat", "v": 1, "text": "still here"}))
                    later = (await until(watcher, "chat"))["entry"]
                return seen, later

        seen, later = run_fresh_loop(talk())
        assert gid in node(b).held
        assert [(e["n"], e["text"], e["seat"]) for e in seen] == [
            (1, "hello", 0),
            (2, "good luck", 0),
        ]
        assert (later["n"], later["text"]) == (3, "still here")


def test_the_per_address_limits_count_the_games_of_every_process(
    tmp_path: Path, redis_url: str, postgres_url: str
) -> None:
    """An address's waiting games, its games of bots only and its creations a minute are
    counted in Redis: what it made through one process counts when it asks another
    (docs/scaling.md "Settings")."""
    limits = {"lobbies_per_address": 2, "bot_games_per_address": 1, "games_per_minute": 5}
    with pair(tmp_path, redis_url, postgres_url, **limits) as (a, b):

        def make(live: LiveServer, *kinds: str) -> httpx.Response:
            body = {"course": "tiny", "seats": [{"kind": k} for k in kinds], "seed": 1}
            if "human" not in kinds:  # a long game of bots: still going when asked again
                body |= {"course": "y23-fortress-tour", "max_rounds": 200}
            return httpx.post(live.base + "/api/games", json=body)

        def refusal(response: httpx.Response) -> tuple[str, str]:
            assert response.status_code == 429, response.text
            error = response.json()["error"]
            return error["code"], error["message"]

        hosts = contextlib.ExitStack()  # the hosts of the games of people stay at the table

        def start(response: httpx.Response, attended: bool = True) -> httpx.Response:
            """Start a game through the other process, its host at the table (a game of
            people) or nobody (the server plays it alone: a game of bots for the limits)."""
            from websockets.sync.client import connect

            game = response.json()
            url = f"{b.base}/api/games/{game['game_id']}/start"
            if attended:
                ws = hosts.enter_context(connect(f"ws://127.0.0.1:{b.port}/ws/{game['game_id']}"))
                ws.send(json.dumps({"type": "hello", "v": 1, **seat_key(game["seats"][0])}))
                while json.loads(ws.recv(timeout=10))["type"] != "welcome":
                    pass
            answer = httpx.post(url, json={"host_token": game["host_token"]})
            if attended:
                assert answer.status_code == 200, answer.text
            return answer

        first = make(a, "human", "human")  # creation 1
        second = make(b, "human", "human")  # 2
        assert first.status_code == second.status_code == 201, (first.text, second.text)
        code, text = refusal(make(a, "human", "human"))
        assert code == "too_many_games" and "2 games waiting for players" in text
        start(first)  # a started game no longer waits: the address may open another
        fourth = make(b, "human", "human")  # 3
        assert fourth.status_code == 201
        assert make(a, "bot", "bot").status_code == 201  # 4
        code, text = refusal(make(b, "bot", "bot"))
        assert code == "too_many_games" and "runs 1 games of bots only" in text
        # A game started with nobody at the table would be bot work too: refused as well.
        code, text = refusal(start(second, attended=False))
        assert code == "too_many_games" and "runs 1 games of bots only" in text
        start(second)
        assert make(a, "human", "human").status_code == 201  # 5
        start(fourth)
        code, text = refusal(make(b, "human", "human"))  # the sixth in a minute
        assert code == "rate_limited" and "5 games a minute" in text
        hosts.close()


def test_an_address_connections_are_counted_over_every_process(
    tmp_path: Path, redis_url: str, postgres_url: str
) -> None:
    """``connections_per_address`` counts the sockets an address has open on every live
    process (in Redis): with 3 allowed, two on one process and one on the other leave no room
    for a fourth on either, until one closes."""
    import websockets

    with pair(tmp_path, redis_url, postgres_url, connections_per_address=3) as (a, b):
        gid = new_game(a, 7, "human", "human")["game_id"]

        def url(live: LiveServer) -> str:
            return f"ws://127.0.0.1:{live.port}/ws/{gid}"

        async def first_message(ws: Any) -> dict[str, Any]:
            await ws.send(json.dumps({"type": "hello", "v": 1}))
            answer: dict[str, Any] = json.loads(await asyncio.wait_for(ws.recv(), 10))
            return answer

        async def check() -> list[str]:
            seen: list[str] = []
            async with contextlib.AsyncExitStack() as stack:
                held = [
                    await stack.enter_async_context(websockets.connect(url(live)))
                    for live in (a, a, b)
                ]
                seen += [(await first_message(ws))["type"] for ws in held]
                for live in (b, a):  # a fourth, on either process: refused
                    async with websockets.connect(url(live)) as extra:
                        refused = json.loads(await asyncio.wait_for(extra.recv(), 10))
                        seen.append(refused["code"])
                await held[0].close()
                await asyncio.sleep(0.2)  # its process takes it off the count
                async with websockets.connect(url(b)) as again:
                    seen.append((await first_message(again))["type"])
            return seen

        seen = run_fresh_loop(check())
        assert seen == ["welcome"] * 3 + ["too_many_connections"] * 2 + ["welcome"]


def test_an_address_api_calls_take_from_one_bucket_over_every_process(
    tmp_path: Path, redis_url: str, postgres_url: str
) -> None:
    """``request_burst`` calls of the API at once, then ``requests_per_second``: counted in
    Redis, so the calls an address spreads over two processes share one burst, and the next
    one is refused on either process (docs/scaling.md "Settings")."""
    rate = {"requests_per_second": 0.1, "request_burst": 4}  # nothing refills meanwhile
    with pair(tmp_path, redis_url, postgres_url, **rate) as (a, b):
        codes = [httpx.get(live.base + "/api/health").status_code for live in (a, b, a, b)]
        assert codes == [200] * 4
        for live in (a, b):
            refused = httpx.get(live.base + "/api/health")
            assert refused.status_code == 429 and refused.json()["error"]["code"] == "rate_limited"
            assert 1 <= int(refused.headers["Retry-After"]) <= 10


def test_with_redis_gone_each_process_counts_api_calls_alone(
    tmp_path: Path, postgres_url: str
) -> None:
    """A lost Redis must not lock players out nor fail their calls: each process's own bucket
    decides then (a burst on each process), and the calls are answered at once."""
    from .services import redis_server

    rate = {"requests_per_second": 0.1, "request_burst": 3}
    with contextlib.ExitStack() as redis_running:
        redis = redis_running.enter_context(redis_server())
        with pair(tmp_path, redis.url, postgres_url, **rate) as (a, b):
            assert httpx.get(a.base + "/api/health").status_code == 200  # 1 of the shared 3
            redis_running.close()  # Redis stops; the servers go on
            for live in (a, b):
                started = time.monotonic()
                codes = [httpx.get(live.base + "/api/health").status_code for _ in range(4)]
                assert codes == [200, 200, 200, 429], (live.base, codes)
                assert time.monotonic() - started < 2  # answered at once, not after time-outs
