"""Scale-out mode with real server processes (``python -m roborally.server --redis --database``)
on loopback, a real redis-server and a real PostgreSQL: players on different processes play a
game to the end, and a game's owner killed with SIGKILL mid-round is taken over by the other
process and finishes as one process replays its record."""

from __future__ import annotations

import asyncio
import datetime
import os
import signal
import sys
import time
from pathlib import Path
from typing import Any

import httpx

from roborally.content.record import parse_record, replay
from roborally.server.client import RemotePlayer, seat_key
from roborally.server.host import outcome_json

from .conftest import run_fresh_loop

BENCH = Path(__file__).resolve().parents[2] / "bench"
sys.path.insert(0, str(BENCH))

from cluster import LocalCluster  # noqa: E402  (bench/cluster.py)

FLAGS = ("--engine-workers", "1", "--bot-workers", "1", "--min-seconds", "0.01")


def new_game(base: str, seed: int) -> dict[str, Any]:
    body = {"course": "tiny", "seats": [{"kind": "human"}] * 2, "seed": seed}
    response = httpx.post(base + "/api/games", json=body, timeout=30)
    assert response.status_code == 201, response.text
    data: dict[str, Any] = response.json()
    return data


def same_as_one_process(base: str, gid: str, outcome: dict[str, Any] | None) -> None:
    record = httpx.get(f"{base}/api/games/{gid}/record", timeout=30)
    assert record.status_code == 200, record.text
    assert outcome is not None and outcome_json(replay(parse_record(record.text))) == outcome


def play_one_seat_per_process(cluster: LocalCluster, game: dict[str, Any]) -> list[Any]:
    """Seat i played over a socket to process i, to the end; both players' results (which
    saw no error and the same outcome)."""
    gid = game["game_id"]
    players = [
        RemotePlayer(f"ws://127.0.0.1:{port}/ws/{gid}", **seat_key(seat), seed=i)
        for i, (port, seat) in enumerate(zip(cluster.ports, game["seats"], strict=True))
    ]

    async def main() -> list[Any]:
        return list(await asyncio.gather(*(p.run(timeout=120) for p in players)))

    results = run_fresh_loop(main())
    assert [r.errors for r in results] == [[], []]
    assert results[0].outcome == results[1].outcome
    return results


def test_players_on_two_processes_play_to_the_end(
    tmp_path: Path, redis_url: str, postgres_url: str
) -> None:
    with LocalCluster(2, redis_url, postgres_url, tmp_path, *FLAGS) as cluster:
        game = new_game(cluster.bases[0], 21)
        gid = game["game_id"]
        first = play_one_seat_per_process(cluster, game)[0]
        health = [httpx.get(b + "/api/health").json()["cluster"] for b in cluster.bases]
        assert health[0]["process"] != health[1]["process"]
        same_as_one_process(cluster.bases[1], gid, first.outcome)


def test_processes_of_one_machine_hand_a_socket_to_the_games_owner(
    tmp_path: Path, redis_url: str, postgres_url: str
) -> None:
    """With ``--siblings`` (as ``--workers N`` runs them) the second player's socket reaches
    the process that does not own the game and is handed to the owner, not relayed."""
    with LocalCluster(2, redis_url, postgres_url, tmp_path, *FLAGS, siblings=True) as cluster:
        game = new_game(cluster.bases[0], 22)  # the process that creates a game owns it
        gid = game["game_id"]
        first = play_one_seat_per_process(cluster, game)[0]
        owner, other = (httpx.get(b + "/api/health").json()["cluster"] for b in cluster.bases)
        assert other["handed_out"] >= 1 and owner["handed_in"] >= 1
        summary = httpx.get(f"{cluster.bases[1]}/api/games/{gid}", timeout=10)
        assert summary.status_code == 200 and summary.json()["status"] == "finished"
        assert other["relayed_out"] == 0
        same_as_one_process(cluster.bases[1], gid, first.outcome)


def test_the_owner_killed_mid_round_its_game_finishes_on_the_other_process(
    tmp_path: Path, redis_url: str, postgres_url: str
) -> None:
    with LocalCluster(2, redis_url, postgres_url, tmp_path, *FLAGS) as cluster:
        owner, other = cluster.servers
        game = new_game(owner.base, 33)  # the process that creates a game owns it
        gid = game["game_id"]
        direct = RemotePlayer(
            f"{owner.ws_base}/ws/{gid}",
            game["seats"][0]["token"],
            seed=1,
            think=0.03,
            reconnect=20,
        )
        relayed = RemotePlayer(
            f"{other.ws_base}/ws/{gid}",
            **seat_key(game["seats"][1]),
            seed=2,
            think=0.03,
            keep_raw=True,
        )

        def lost(status: str) -> None:  # the load balancer would send it to a live process
            if "trying again" in status:
                direct.url = f"{other.ws_base}/ws/{gid}"

        direct.on_status = lost

        async def kill_mid_round() -> float:
            while True:
                summary = httpx.get(f"{other.base}/api/games/{gid}", timeout=10).json()
                if summary["round"] >= 2:
                    break
                await asyncio.sleep(0.1)
            owner.kill9()
            return time.time()

        async def main() -> list[Any]:
            return list(
                await asyncio.gather(
                    direct.run(timeout=180), relayed.run(timeout=180), kill_mid_round()
                )
            )

        first, second, killed_at = run_fresh_loop(main())
        assert second.outcome is not None, "the game did not finish"
        assert first.outcome == second.outcome
        assert first.connections >= 2  # its socket died with the owner; it came back
        assert second.connections == 1  # the relayed socket was moved, not dropped
        assert sum('"type":"welcome"' in text for text in second.raw) == 2
        assert [e for e in first.errors + second.errors if e["code"] != "not_pending"] == []
        same_as_one_process(other.base, gid, second.outcome)
        owned = httpx.get(other.base + "/api/health").json()["cluster"]["owned"]
        assert owned >= 1
        taken = takeover_time(other.log(), gid)
        print(f"game taken over {taken - killed_at:.1f} s after the kill")
        assert 0 < taken - killed_at < 10


def takeover_time(log: str, gid: str) -> float:
    """When the log says the game was taken over (its line's wall-clock time)."""
    line = next(line for line in log.splitlines() if f"game {gid}: taken over" in line)
    stamp = datetime.datetime.strptime(line[:23], "%Y-%m-%d %H:%M:%S,%f")
    return stamp.timestamp()


def test_an_owner_stalled_past_its_lease_lets_the_game_go(
    tmp_path: Path, redis_url: str, postgres_url: str
) -> None:
    """An owner stopped (SIGSTOP) for longer than a lease loses its game to the other
    process; resumed, it finds the lease lost and lets go, and the game finishes as one
    process replays its stored record (no action written twice, nothing forked)."""
    with LocalCluster(2, redis_url, postgres_url, tmp_path, *FLAGS) as cluster:
        owner, other = cluster.servers
        game = new_game(owner.base, 44)  # the process that creates a game owns it
        gid = game["game_id"]
        players = [  # both through the other process: their sockets outlive the stall
            RemotePlayer(f"{other.ws_base}/ws/{gid}", **seat_key(seat), seed=i, think=0.03)
            for i, seat in enumerate(game["seats"])
        ]

        async def wait_for(server: Any, *lines: str) -> None:
            # By its log: other tests' unfinished games in the same database are swept up
            # too, so a count of games owned says nothing about this one.
            deadline = time.monotonic() + 15
            while not any(f"game {gid}: {line}" in server.log() for line in lines):
                assert time.monotonic() < deadline, server.log()[-3000:]
                await asyncio.sleep(0.2)

        async def stall_mid_round() -> None:
            while httpx.get(f"{other.base}/api/games/{gid}", timeout=10).json()["round"] < 2:
                await asyncio.sleep(0.1)
            os.kill(owner.pid, signal.SIGSTOP)
            try:
                await wait_for(other, "taken over")
            finally:
                os.kill(owner.pid, signal.SIGCONT)
            await wait_for(owner, "this process lost its lease", "another process took it over")

        async def main() -> list[Any]:
            return list(
                await asyncio.gather(*(p.run(timeout=180) for p in players), stall_mid_round())
            )

        first, second, _ = run_fresh_loop(main())
        assert first.outcome is not None and first.outcome == second.outcome
        # A decision the resumed owner took before it noticed is refused as not saved (the
        # page keeps it and sends it again, to the new owner); nothing else goes wrong.
        harmless = {"not_pending", "storage_failed"}
        assert [e for e in first.errors + second.errors if e["code"] not in harmless] == []
        same_as_one_process(other.base, gid, first.outcome)
