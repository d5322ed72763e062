"""Scale test (``make scale``): how many concurrent games 1, 2 and 4 server processes hold at a
message p99 of at most 200 ms, sharing one Redis and one PostgreSQL, all on loopback.

For each process count it starts a fresh Redis and database, the server processes in scale-out
mode (bench/cluster.py), and runs a load level: ``games`` games at once, each with two seats
played over WebSockets by :class:`RemotePlayer` (a random player thinking up to ``--think``
seconds per answer). Each game is created on one process and its two players connect to
different processes when there are several, as a load balancer would spread them, so half the
sockets reach a process that does not own their game. The processes run as ``--workers N``
runs them on one machine: that process hands the socket to the owner (``--siblings``,
docs/scaling.md); with ``--relay`` they run as on different machines, and every frame of such
a socket is relayed through Redis. After a warm-up, every ``decide`` -> ``ack`` time of a
measuring window counts; the level holds when that p99 is at most ``--p99-ms`` and nothing
failed (an error message, a refused socket, a client that could not keep up). Levels grow by
half until one fails, then the gap is halved until it is at most a tenth (three times at
most); the largest level that held is what the process count holds.

It prints one row per process count and ends with exactly one line
``scaling: 2 processes hold X.X times the games of 1 at p99 <= 200 ms``. Load goes to loopback
only, bounded in games (``--max-games``) and time (``--window``, per level).

    uv run python bench/scale.py                       # 1, 2 and 4 processes (about 15 min)
    uv run python bench/scale.py --quick               # the small sample the tests run
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import psycopg
import redis
from cluster import LocalCluster
from serverproc import NO_ADDRESS_LIMITS
from services import postgres_server, redis_server

from roborally.server.client import RemotePlayer, seat_key

SEATS = 2  # remote players per game


def percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q / 100 * (len(ordered) - 1))))]


@dataclass
class Level:
    """One load level's figures."""

    processes: int
    games: int
    latencies_ms: list[float] = field(default_factory=list)
    decisions: int = 0
    seconds: float = 0.0
    problems: list[str] = field(default_factory=list)
    machine_cpu: float = 0.0  # CPU seconds of the whole machine (all cores, everything on it)
    server_cpu: float = 0.0  # CPU seconds of the server processes and their workers
    client_cpu: float = 0.0  # CPU seconds of this load generator
    handed: int = 0  # sockets handed to their game's owner (processes of one machine)
    relayed: int = 0  # sockets relayed to their game's owner at the window's end

    def cores(self, cpu: float) -> float:
        return cpu / self.seconds if self.seconds else 0.0

    @property
    def p99(self) -> float:
        return percentile(self.latencies_ms, 99)

    @property
    def p50(self) -> float:
        return percentile(self.latencies_ms, 50)

    def holds(self, limit_ms: float) -> bool:
        return not self.problems and bool(self.latencies_ms) and self.p99 <= limit_ms


async def _create(http: httpx.AsyncClient, base: str, number: int, seed: int) -> dict[str, Any]:
    body = {
        "edition": "2023",
        "course": "tiny",
        "seats": [{"kind": "human"} for _ in range(SEATS)],
        "max_rounds": 200,  # the most the server allows: the level ends the games first
        "seed": seed + number,
        "public": False,
    }
    response = await http.post(f"{base}/api/games", json=body)
    if response.status_code != 201:
        raise RuntimeError(
            f"game {number}: create failed ({response.status_code}): {response.text}"
        )
    data: dict[str, Any] = response.json()
    return data


def _socket_url(ws_url: str, base: str) -> str:
    """``ws_url`` (the creating process's) pointed at the process serving ``base``."""
    path = ws_url.split("/", 3)[3]
    return base.replace("http://", "ws://", 1).rstrip("/") + "/" + path


async def run_level(cluster: LocalCluster, level: Level, args: argparse.Namespace) -> None:
    """Create the level's games, play them for a warm-up and a window, then drop them."""
    bases = cluster.bases
    limits = httpx.Limits(max_connections=100, max_keepalive_connections=50)
    players: list[RemotePlayer] = []
    tasks: list[asyncio.Task[Any]] = []
    async with httpx.AsyncClient(timeout=60, limits=limits) as http:
        creating = [_create(http, bases[n % len(bases)], n, args.seed) for n in range(level.games)]
        try:
            games = await asyncio.gather(*creating)
        except RuntimeError as error:
            level.problems.append(str(error))
            return
    for n, game in enumerate(games):
        for i, seat in enumerate(s for s in game["seats"] if s["kind"] == "human"):
            base = bases[(n + i) % len(bases)]  # the players of a game on different processes
            player = RemotePlayer(
                _socket_url(game["ws_url"], base),
                **seat_key(seat),
                seed=args.seed * 1000 + n * 10 + i,
                think=args.think,
            )
            players.append(player)
            tasks.append(asyncio.create_task(player.run(timeout=None)))
    await asyncio.sleep(args.warmup)
    marks = [len(p.result.latencies) for p in players]
    decided = sum(p.result.decisions for p in players)
    server_cpu, client_cpu = cluster_cpu_seconds(cluster), time.process_time()
    machine_cpu = machine_cpu_seconds()
    started = time.perf_counter()
    await asyncio.sleep(args.window)
    level.seconds = time.perf_counter() - started
    for player, mark in zip(players, marks, strict=True):
        level.latencies_ms.extend(x * 1000 for x in player.result.latencies[mark:])
    level.decisions = sum(p.result.decisions for p in players) - decided
    level.machine_cpu = machine_cpu_seconds() - machine_cpu
    level.server_cpu = cluster_cpu_seconds(cluster) - server_cpu
    level.client_cpu = time.process_time() - client_cpu
    async with httpx.AsyncClient(timeout=30) as http:
        for base in bases:
            figures = (await http.get(base + "/api/health")).json()["cluster"]
            level.handed += figures.get("handed_out", 0)
            level.relayed += figures["relayed_out"]
    answers = [a for p in players for a in p.thinking()]
    for task in [*answers, *tasks]:
        task.cancel()
    await asyncio.gather(*answers, return_exceptions=True)
    outcomes = await asyncio.gather(*tasks, return_exceptions=True)
    for player, outcome in zip(players, outcomes, strict=True):
        if isinstance(outcome, BaseException) and not isinstance(outcome, asyncio.CancelledError):
            level.problems.append(f"client failed: {type(outcome).__name__}: {outcome}")
        for error in player.result.errors:
            level.problems.append(f"error message: {error.get('code')}: {error.get('message')}")
        level.problems.extend(f"bot: {failure}" for failure in player.result.bot_failures)


def _children() -> dict[int, list[int]]:
    tree: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat", encoding="ascii") as stat:
                    fields = stat.read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            tree.setdefault(int(fields[1]), []).append(int(entry))
    return tree


def _cpu_seconds(pid: int) -> float:
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as stat:
            fields = stat.read().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def cluster_cpu_seconds(cluster: LocalCluster) -> float:
    """CPU seconds used so far by the server processes and everything they started (their
    engine workers); Linux /proc."""
    tree = _children()
    total = 0.0
    waiting = [s.pid for s in cluster.servers if s.process is not None]
    while waiting:
        pid = waiting.pop()
        total += _cpu_seconds(pid)
        waiting.extend(tree.get(pid, []))
    return total


def machine_cpu_seconds() -> float:
    """CPU seconds all cores have been busy so far (Linux /proc/stat: all but idle and iowait)."""
    with open("/proc/stat", encoding="ascii") as stat:
        ticks = [int(v) for v in stat.readline().split()[1:]]
    return (sum(ticks) - ticks[3] - ticks[4]) / os.sysconf("SC_CLK_TCK")


def fresh_database(admin_url: str, name: str) -> str:
    """A new empty database ``name`` on the PostgreSQL of ``admin_url``; returns its URL."""
    with psycopg.connect(admin_url, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{name}"')
    return admin_url.rsplit("/", 1)[0] + "/" + name


def measure(
    processes: int, games: int, redis_url: str, admin_url: str, args: argparse.Namespace
) -> Level:
    """One level on a fresh cluster, Redis and database (nothing carries over)."""
    level = Level(processes, games)
    redis.Redis.from_url(redis_url).flushall()
    database = fresh_database(admin_url, f"scale_{processes}_{games}")
    flags = ("--log-level", "warning", *NO_ADDRESS_LIMITS, *args.server_flag)
    with tempfile.TemporaryDirectory(prefix="roborally-scale-") as temp:
        work = Path(args.keep) / f"{processes}-{games}" if args.keep else Path(temp)
        cluster = LocalCluster(
            processes, redis_url, database, work, *flags, siblings=not args.relay
        )
        with cluster:
            asyncio.run(run_level(cluster, level, args))
            for server in cluster.servers:
                if server.process is not None and server.process.poll() is not None:
                    level.problems.append(f"server on port {server.port} exited")
    return level


def held_games(processes: int, redis_url: str, admin_url: str, args: argparse.Namespace) -> Level:
    """The largest level ``processes`` hold: grow by half until one fails, then halve the gap."""
    best = Level(processes, 0)
    games = args.start
    failed: int | None = None
    while games <= args.max_games:
        level = report(measure(processes, games, redis_url, admin_url, args), args)
        if not level.holds(args.p99_ms):
            failed = games
            break
        best = level
        games = max(games + 1, round(games * 1.5))
    # Halve the gap between the last level held and the first that failed while it is
    # wider than a tenth of the held one (at most three times).
    for _ in range(3):
        if failed is None or not best.games or failed - best.games <= max(2, best.games // 10):
            break
        middle = (best.games + failed) // 2
        level = report(measure(processes, middle, redis_url, admin_url, args), args)
        if level.holds(args.p99_ms):
            best = level
        else:
            failed = middle
    return best


def report(level: Level, args: argparse.Namespace) -> Level:
    verdict = "holds" if level.holds(args.p99_ms) else "fails"
    rate = level.decisions / level.seconds if level.seconds else 0.0
    print(
        f"  {level.processes} process(es), {level.games} games: p50 {level.p50:.1f} ms,"
        f" p99 {level.p99:.1f} ms, {rate:.0f} decisions/s, servers"
        f" {level.cores(level.server_cpu):.2f} cores, load generator"
        f" {level.cores(level.client_cpu):.2f}, machine {level.cores(level.machine_cpu):.2f},"
        f" sockets handed {level.handed} / relayed {level.relayed},"
        f" {len(level.problems)} errors: {verdict}",
        flush=True,
    )
    for problem in level.problems[:5]:
        print(f"    {problem}", flush=True)
    return level


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--processes", default="1,2,4", help="comma-separated process counts")
    parser.add_argument("--p99-ms", type=float, default=200.0)
    parser.add_argument("--start", type=int, default=40, help="games of the first level")
    parser.add_argument("--max-games", type=int, default=1500, help="the largest level tried")
    parser.add_argument("--think", type=float, default=2.0, help="seconds a player may think")
    parser.add_argument("--warmup", type=float, default=8.0, help="seconds before measuring")
    parser.add_argument("--window", type=float, default=20.0, help="seconds measured per level")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--server-flag", action="append", default=[], help="one more flag for every server"
    )
    parser.add_argument(
        "--relay",
        action="store_true",
        help="no handoff between the processes: relay through Redis, as between machines",
    )
    parser.add_argument("--keep", help="keep each level's server logs in this folder")
    parser.add_argument("--quick", action="store_true", help="the small sample of the tests")
    args = parser.parse_args()
    if args.quick:
        args.processes, args.start, args.max_games = "1,2", 6, 6
        args.warmup, args.window, args.think = 3.0, 4.0, 0.5
    counts = [int(c) for c in args.processes.split(",") if c]
    mode = "relayed through Redis" if args.relay else "handed to the owner"
    print(
        f"scale test: 2023 games of {SEATS} remote players thinking up to {args.think} s,"
        f" p99 of decide -> ack at most {args.p99_ms:.0f} ms; {os.cpu_count()} CPU(s);"
        f" sockets that reach a non-owner are {mode}",
        flush=True,
    )
    held: dict[int, Level] = {}
    with redis_server() as redis_service, postgres_server() as postgres:
        for count in counts:
            held[count] = held_games(count, redis_service.url, postgres.url, args)
    print()
    print(
        "| processes | games held | p50 ms | p99 ms | decisions/s | server cores"
        " | load generator cores | machine cores busy | errors |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    for count, level in held.items():
        rate = level.decisions / level.seconds if level.seconds else 0.0
        print(
            f"| {count} | {level.games} | {level.p50:.1f} | {level.p99:.1f} | {rate:.0f}"
            f" | {level.cores(level.server_cpu):.2f} | {level.cores(level.client_cpu):.2f}"
            f" | {level.cores(level.machine_cpu):.2f} | {len(level.problems)} |"
        )
    if 1 in held and 2 in held and held[1].games:
        ratio = held[2].games / held[1].games
        print(
            f"scaling: 2 processes hold {ratio:.1f} times the games of 1"
            f" at p99 <= {args.p99_ms:.0f} ms"
        )
    return 0 if all(level.games for level in held.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
