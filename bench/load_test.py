"""Load test: many concurrent bot games through the server's HTTP and WebSocket API.

Starts ``python -m roborally.server`` on 127.0.0.1 and a free port (or uses ``--url``), creates
``--games`` games at once, each with 2-4 seats of which 1-2 are played by a random player over
the WebSocket (the rest are server bots), plays them all concurrently, and reports games
finished, errors (must be 0), message latency (``decide`` -> ``ack`` and ``decide`` -> next
``state``) p50/p99 and the total time. Every finished game's record is fetched and replayed with
the engine to check it.

    uv run python bench/load_test.py                # 100 games
    uv run python bench/load_test.py --games 20 --rounds 5 --edition classic --course cl-tune-up
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx
from serverproc import NO_ADDRESS_LIMITS, LocalServer

from roborally.content.record import parse_record, replay
from roborally.server.client import PlayResult, RemotePlayer, seat_key


def percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(q / 100 * (len(ordered) - 1))))
    return ordered[index]


async def one_game(
    http: httpx.AsyncClient, number: int, args: argparse.Namespace
) -> tuple[str | None, list[PlayResult], list[str]]:
    """Create one game, play its human seats over WebSockets; return (id, results, problems)."""
    seats_count = 2 + number % 3  # 2, 3, 4
    humans = 1 + number % 2 if seats_count > 2 else 1  # 1 or 2 remote players
    seats = [{"kind": "human"} for _ in range(humans)]
    seats += [{"kind": "bot", "bot": "random"} for _ in range(seats_count - humans)]
    body = {
        "edition": args.edition,
        "course": args.course,
        "seats": seats,
        "max_rounds": args.rounds,
        "seed": args.seed + number,
        "variants": args.variants,
    }
    problems: list[str] = []
    response = await http.post("/api/games", json=body)
    if response.status_code != 201:
        return None, [], [f"game {number}: create failed: {response.text[:200]}"]
    game = response.json()
    players = [
        RemotePlayer(
            game["ws_url"],
            **seat_key(seat),
            seed=args.seed * 1000 + number * 10 + i,
            think=args.think,
        )
        for i, seat in enumerate(game["seats"])
        if seat["kind"] == "human"
    ]
    results = await asyncio.gather(
        *(p.run(timeout=args.timeout) for p in players), return_exceptions=True
    )
    good: list[PlayResult] = []
    for result in results:
        if isinstance(result, BaseException):
            problems.append(f"game {number}: client failed: {type(result).__name__}: {result}")
        else:
            good.append(result)
            problems.extend(f"game {number}: error reply {e}" for e in result.errors)
            if result.outcome is None:
                problems.append(f"game {number}: no game_over for seat {result.seat}")
    return game["game_id"], good, problems


async def verify(http: httpx.AsyncClient, game_id: str) -> str | None:
    """The exported record replays to the outcome the server announced."""
    response = await http.get(f"/api/games/{game_id}/record")
    if response.status_code != 200:
        return f"{game_id}: record export failed ({response.status_code})"
    try:
        game = replay(parse_record(response.text, f"{game_id}.rec"))
    except ValueError as error:
        return f"{game_id}: record does not replay: {error}"
    if not game.is_over():
        return f"{game_id}: the record's game is not over"
    return None


async def run(args: argparse.Namespace, base: str) -> dict[str, Any]:
    limits = httpx.Limits(max_connections=200, max_keepalive_connections=50)
    async with httpx.AsyncClient(base_url=base, timeout=60, limits=limits) as http:
        started = time.perf_counter()
        outcomes = await asyncio.gather(*(one_game(http, n, args) for n in range(args.games)))
        elapsed = time.perf_counter() - started
        problems = [p for _, _, probs in outcomes for p in probs]
        results = [r for _, rs, _ in outcomes for r in rs]
        ids = [gid for gid, _, _ in outcomes if gid is not None]
        finished = 0
        for gid in ids:
            summary = (await http.get(f"/api/games/{gid}")).json()
            if summary.get("status") == "finished":
                finished += 1
            else:
                problems.append(f"{gid}: status {summary.get('status')} after the run")
        checks = await asyncio.gather(*(verify(http, gid) for gid in ids)) if args.verify else []
        problems += [c for c in checks if c]
    acks = [x * 1000 for r in results for x in r.latencies]
    states = [x * 1000 for r in results for x in r.state_latencies]
    return {
        "games": args.games,
        "games_finished": finished,
        "errors": len(problems),
        "problems": problems[:20],
        "remote_players": len(results),
        "decisions": sum(r.decisions for r in results),
        "messages_received": sum(r.messages for r in results),
        "ack_latency_ms": {"p50": percentile(acks, 50), "p99": percentile(acks, 99)},
        "state_latency_ms": {"p50": percentile(states, 50), "p99": percentile(states, 99)},
        "records_verified": sum(1 for c in checks if c is None),
        "total_seconds": round(elapsed, 2),
        "think_seconds": args.think,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--rounds", type=int, default=10, help="round limit of each game")
    parser.add_argument("--edition", default="2023")
    parser.add_argument("--course", default="tiny")
    parser.add_argument("--variants", default="", help="comma-separated variants")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--think",
        type=float,
        default=0.0,
        help="remote players wait up to this many seconds before each answer (0: at once)",
    )
    parser.add_argument("--timeout", type=float, default=300, help="seconds per game")
    parser.add_argument("--url", help="use a running server instead of starting one")
    parser.add_argument("--no-verify", dest="verify", action="store_false")
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    args = parser.parse_args()
    args.variants = [v for v in args.variants.split(",") if v]

    with tempfile.TemporaryDirectory(prefix="roborally-load-") as temp:
        if args.url:
            report = asyncio.run(run(args, args.url.rstrip("/")))
        else:
            # A capacity test: every game comes from this one address.
            flags = ("--log-level", "warning", *NO_ADDRESS_LIMITS)
            with LocalServer(Path(temp) / "data", *flags) as server:
                report = asyncio.run(run(args, server.base))
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        print(
            f"{report['games_finished']}/{report['games']} games finished,"
            f" {report['errors']} errors, {report['remote_players']} remote players,"
            f" {report['decisions']} decisions, {report['messages_received']} messages received"
        )
        ack, state = report["ack_latency_ms"], report["state_latency_ms"]
        print(
            f"latency decide->ack p50 {ack['p50']:.1f} ms, p99 {ack['p99']:.1f} ms;"
            f" decide->state p50 {state['p50']:.1f} ms, p99 {state['p99']:.1f} ms"
        )
        print(
            f"records verified: {report['records_verified']}; total {report['total_seconds']} s"
            f" on {os.cpu_count()} CPU(s)"
        )
        for problem in report["problems"]:
            print("  " + problem)
    ok = report["errors"] == 0 and report["games_finished"] == report["games"]
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
