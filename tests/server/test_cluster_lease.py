"""The cluster's leases, presence and bus against a real redis-server (tests/server/services.py)."""

from __future__ import annotations

import asyncio
import secrets
from collections.abc import Awaitable, Callable
from typing import Any

import redis.asyncio as aioredis

from roborally.server.cluster.bus import Bus
from roborally.server.cluster.lease import Leases, Presence

from .conftest import run_fresh_loop


def run(redis_url: str, test: Callable[[Any], Awaitable[None]]) -> None:
    async def main() -> None:
        client = aioredis.Redis.from_url(redis_url)
        try:
            await test(client)
        finally:
            await client.aclose()

    run_fresh_loop(main())


def game() -> str:
    return "t" + secrets.token_hex(6)


def test_one_owner_at_a_time_and_renew_by_the_owner_only(redis_url: str) -> None:
    async def check(client: Any) -> None:
        a, b = Leases(client, "A", 400), Leases(client, "B", 400)
        g = game()
        assert await a.acquire(g)
        assert not await b.acquire(g)
        assert await b.owner(g) == "A"
        # B renewing does not extend A's lease, and says B does not hold it.
        assert await b.renew([g]) == [g]
        assert await a.renew([g]) == []
        # A keeps it past its first life by renewing it.
        for _ in range(4):
            await asyncio.sleep(0.15)
            assert await a.renew([g]) == []
        assert await a.owner(g) == "A"
        # B cannot release it either.
        assert not await b.release(g)
        assert await a.owners([g, game()]) == ["A", None]

    run(redis_url, check)


def test_a_lease_expires_when_its_owner_stops_and_another_takes_it(redis_url: str) -> None:
    async def check(client: Any) -> None:
        a, b = Leases(client, "A", 300), Leases(client, "B", 300)
        g = game()
        assert await a.acquire(g)
        await asyncio.sleep(0.45)  # A "died": no renewal
        assert await a.owner(g) is None
        assert await b.acquire(g)
        # A comes back: its renewal reports the game lost, and it cannot take it back.
        assert await a.renew([g]) == [g]
        assert not await a.acquire(g)
        assert await a.owner(g) == "B"
        assert await b.release(g)
        assert await a.owner(g) is None

    run(redis_url, check)


def test_renewal_of_many_leases_reports_exactly_the_lost_ones(redis_url: str) -> None:
    async def check(client: Any) -> None:
        a, b = Leases(client, "A", 5000), Leases(client, "B", 5000)
        games = [game() for _ in range(1200)]  # more than one script call (CHUNK)
        for g in games:
            assert await a.acquire(g)
        stolen = games[7::300]
        for g in stolen:
            await client.delete("roborally:lease:" + g)
            assert await b.acquire(g)
        assert sorted(await a.renew(games)) == sorted(stolen)

    run(redis_url, check)


def test_presence_forgets_a_process_that_stops_beating(redis_url: str) -> None:
    async def check(client: Any) -> None:
        one, two = "p" + secrets.token_hex(4), "p" + secrets.token_hex(4)
        first, second = Presence(client, one, 300), Presence(client, two, 300)
        await first.beat()
        await second.beat({"roborally:test:" + two: "x"})
        assert await first.alive([one, two]) == {one, two}
        assert await client.get("roborally:test:" + two) == b"x"
        for _ in range(3):
            await asyncio.sleep(0.15)
            await first.beat()
        assert await first.alive([one, two]) == {one}
        members = await first.members()
        assert one in members and two not in members
        await first.leave()
        assert await second.alive([one]) == set()

    run(redis_url, check)


def test_the_bus_delivers_in_order_to_the_right_process(redis_url: str) -> None:
    async def check(client: Any) -> None:
        got: dict[str, list[Any]] = {"A": [], "B": []}
        a = Bus(client, "A" + secrets.token_hex(3), lambda m: got["A"].append(m["n"]))
        b = Bus(client, "B" + secrets.token_hex(3), lambda m: got["B"].append(m["n"]))
        await a.start()
        await b.start()
        try:
            for n in range(2000):
                a.publish(b.process, {"n": n})
            a.publish(a.process, {"n": "self"})
            for _ in range(200):
                if len(got["B"]) == 2000 and got["A"] and a.published == 2001:
                    break
                await asyncio.sleep(0.02)
            assert got["B"] == list(range(2000))
            assert got["A"] == ["self"]
            assert a.published == 2001 and b.received == 2000
        finally:
            await a.stop()
            await b.stop()

    run(redis_url, check)


def test_calls_beyond_the_connection_limit_wait_for_a_free_connection(redis_url: str) -> None:
    """Many sockets opening at once look leases up together: beyond the pool's connections
    the calls wait instead of failing (the default pool raised MaxConnectionsError)."""
    from roborally.server.cluster.node import redis_client

    async def main() -> None:
        client = redis_client(redis_url, max_connections=2)
        try:
            replies = await asyncio.gather(*(client.get(f"missing-{n}") for n in range(50)))
            assert replies == [None] * 50
        finally:
            await client.aclose()

    run_fresh_loop(main())


def test_the_shared_creation_rate_and_games_of_an_address(redis_url: str) -> None:
    """``SharedQuota``: a burst of ``per_minute`` creations, then one every 60 / per_minute
    seconds (the wait is said in whole seconds); an address's games count while the database
    says they are going, and the others leave its set."""
    from roborally.server.cluster.quota import LOBBIES, SharedQuota

    async def check(client: Any) -> None:
        address = "192.0.2." + str(secrets.randbelow(250))
        await client.delete("roborally:create:" + address, LOBBIES + address)
        first, second = SharedQuota(client, "A"), SharedQuota(client, "B")  # two processes
        assert await first.take_creation(address, 3) == 0
        assert await second.take_creation(address, 3) == 0
        assert await first.take_creation(address, 3) == 0
        wait = await second.take_creation(address, 3)
        assert 1 <= wait <= 20  # the next one in a minute's third, less the time spent
        assert await first.take_creation("192.0.2.251", 3) == 0  # another address: its own

        statuses = {"g1": "open", "g2": "running", "g3": "finished"}

        async def read(ids: list[str]) -> dict[str, str]:
            return {i: statuses[i] for i in ids if i in statuses}

        for game_id in ("g1", "g2", "g3", "g4"):
            await first.created(address, False, game_id)
        assert await second.games(address, False, read, below=5) == 4  # surely under 5
        assert await second.games(address, False, read, below=4) == 1  # only g1 waits
        kept = {m.decode() for m in await client.smembers(LOBBIES + address)}
        assert kept == {"g1"}
        assert 0 < await client.ttl(LOBBIES + address) <= 24 * 3600

    run(redis_url, check)


def test_an_address_sockets_count_only_on_live_processes(redis_url: str) -> None:
    """The sockets of a process that died (its alive key gone) do not count, and its field
    goes; a process that joined since the last beat is asked about, and counts."""
    from roborally.server.cluster.lease import ALIVE
    from roborally.server.cluster.quota import SOCKETS, SharedQuota

    async def check(client: Any) -> None:
        address = "198.51.100." + str(secrets.randbelow(250))
        key = SOCKETS + address
        await client.delete(key)
        await client.hset(key, mapping={"ghost": 5, "newcomer": 1})
        await client.set(ALIVE + "newcomer", "1", px=5000)
        mine = SharedQuota(client, "me")  # its cached list of live processes is empty
        assert await mine.open_socket(address, 2)  # newcomer's 1 + this one
        assert not await mine.open_socket(address, 2)  # a third: refused, not counted
        counts = {k.decode(): int(v) for k, v in (await client.hgetall(key)).items()}
        assert counts == {"newcomer": 1, "me": 1}
        await mine.close_socket(address)
        assert int(await client.hget(key, "me")) == 0

    run(redis_url, check)
