"""Red team, issue 28: hostile custom course uploads (``POST /api/custom-courses``).

* ``course-uploads``: many addresses upload at once, each good courses past its rate, a broken
  file and one far too large, while another address's API calls are timed; then, on a server of
  small quotas, one address fills its quota and the server its total (429s; a delete by the
  owner token makes room). Held when every answer is one the API documents (201, 400, 413,
  429, 503 busy: never a 500 or a dropped connection), the server answers others quickly
  throughout, plays a game on an uploaded course to its end, and every course it kept reads
  and breaks no rule.

bench/redteam.py runs it (its ``ATTACKS`` takes this module's).
"""

from __future__ import annotations

import asyncio
import sqlite3
import threading
import time
from collections import Counter
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import httpx
from redteam_kit import Context, Outcome, address, http, percentile, wait_finished
from serverproc import LocalServer

from roborally.content.courses import parse_course
from roborally.content.validate import check_course
from roborally.server.store import DB_NAME

BLOCK = 140  # this module's loopback source addresses (redteam_kit.address)
ROOT = Path(__file__).resolve().parents[1]
COURSE = (ROOT / "tests" / "custom-courses" / "cousin.course").read_text(encoding="utf-8")
BROKEN = COURSE.replace("size: 5x3", "size: 5x4")
HUGE = COURSE + "# " + "x" * (300 * 1024) + "\n"  # past the 256 KiB limit


async def _upload(client: httpx.AsyncClient, text: str, statuses: Counter[str]) -> Any:
    try:
        response = await client.post(
            "/api/custom-courses", json={"text": text, "author": "Red Team", "listed": True}
        )
    except httpx.HTTPError as error:
        statuses[type(error).__name__] += 1
        return None
    code = response.json().get("error", {}).get("code", "") if response.status_code != 201 else ""
    statuses[f"{response.status_code} {code}".strip()] += 1
    return response


async def _flood(base: str, clients: int, statuses: Counter[str]) -> list[str]:
    """Every client uploads 8 good courses (its rate is 6 a minute), a broken one and a huge
    one, all at once; the ids of the courses kept."""
    kept: list[str] = []

    async def one(index: int) -> None:
        async with http(base, address(BLOCK, index), timeout=120) as client:
            texts = [BROKEN, HUGE] + [f"{COURSE}# from {index}, {n}\n" for n in range(8)]
            answers = await asyncio.gather(*(_upload(client, t, statuses) for t in texts))
        kept.extend(a.json()["id"] for a in answers if a is not None and a.status_code == 201)

    await asyncio.gather(*(one(i) for i in range(clients)))
    return kept


def _timed(base: str, stop: threading.Event, latencies: list[float]) -> None:
    """Another address calls the API every 50 ms until ``stop``, from a thread of its own (the
    flood's event loop, busy sending, must not delay these calls)."""
    transport = httpx.HTTPTransport(local_address=address(BLOCK, 249))
    with httpx.Client(base_url=base, transport=transport, timeout=60) as client:
        while not stop.is_set():
            started = time.perf_counter()
            client.get("/api/options")
            latencies.append((time.perf_counter() - started) * 1000)
            time.sleep(0.05)


async def _quotas(ctx: Context) -> tuple[bool, str]:
    """A server of small quotas: 3 courses an address, 7 in all; a delete makes room."""
    flags = ["--custom-courses-per-address", "3", "--custom-courses-total", "7"]
    flags += ["--custom-uploads-per-minute", "1000"]
    statuses: Counter[str] = Counter()
    with LocalServer(ctx.temp / "courses-quota", *flags, log=ctx.temp / "quota.log") as server:
        async with http(server.base, address(BLOCK, 240)) as client:
            first = [await _upload(client, f"{COURSE}# {n}\n", statuses) for n in range(4)]
        others = []
        for index in range(241, 246):
            async with http(server.base, address(BLOCK, index)) as client:
                others.append(await _upload(client, COURSE, statuses))
        owned = first[0].json() if first[0] is not None else {}
        async with http(server.base, address(BLOCK, 240)) as client:
            deleted = await client.request(
                "DELETE",
                f"/api/custom-courses/{owned.get('id')}",
                json={"owner_token": owned.get("owner_token")},
            )
            again = await _upload(client, COURSE, statuses)
    own = [r.status_code if r is not None else 0 for r in first]
    full = [r.status_code if r is not None else 0 for r in others]
    ok = (
        own == [201, 201, 201, 429]
        and full == [201, 201, 201, 201, 429]
        and statuses["429 too_many_courses"] == 2
        and deleted.status_code == 204
        and again is not None
        and again.status_code == 201
    )
    figure = (
        f"quotas: one address {own}, four more then a fifth {full} (the total of 7), after a"
        f" delete by the owner token {again.status_code if again is not None else '-'}"
    )
    return ok, figure


async def attack_course_uploads(ctx: Context) -> Outcome:
    base = ctx.server.base
    clients = ctx.n(20, 60)
    statuses: Counter[str] = Counter()
    latencies: list[float] = []
    stop = threading.Event()
    timer = threading.Thread(target=_timed, args=(base, stop, latencies))
    timer.start()
    started = time.perf_counter()
    kept = await _flood(base, clients, statuses)
    elapsed = time.perf_counter() - started
    stop.set()
    timer.join()
    documented = {"201", "400 format", "413 too_large", "429 rate_limited", "503 busy"}
    strange = {k: v for k, v in statuses.items() if k not in documented}
    # The server still takes a good course from a new address and plays a game on it.
    fresh = None
    async with http(base, address(BLOCK, 248)) as client:
        deadline = time.monotonic() + 30
        while fresh is None and time.monotonic() < deadline:
            response = await _upload(client, COURSE + "# fresh\n", Counter())
            if response is not None and response.status_code == 201:
                fresh = response.json()["id"]
            else:
                await asyncio.sleep(1)
        game = await client.post(
            "/api/games",
            json={"course": fresh, "seats": [{"kind": "bot"}, {"kind": "bot"}], "max_rounds": 5},
        )
    finished = game.status_code == 201 and await wait_finished(base, game.json()["game_id"], 60)
    # Everything kept reads and breaks no rule.
    with sqlite3.connect(f"file:{ctx.server.data_dir / DB_NAME}?mode=ro", uri=True) as db:
        rows = db.execute("SELECT id, text FROM custom_courses WHERE text IS NOT NULL").fetchall()
    bad = [i for i, text in rows if check_course(parse_course(text, f"{i}.course")).errors]
    quota_ok, quota = await _quotas(ctx)
    p99 = percentile(latencies, 99)
    ok = (
        not strange
        and statuses["413 too_large"] == clients
        and statuses["201"] == len(kept) > 0
        and statuses["429 rate_limited"] > 0
        and fresh is not None
        and finished
        and not bad
        and {i for i, _ in rows} >= set(kept)
        and p99 < 2000  # ms, on a loaded 2-core machine (the flood shares its cores)
        and quota_ok
    )
    shown = ", ".join(f"{v}x {k}" for k, v in sorted(statuses.items()))
    return Outcome(
        "course-uploads",
        ok,
        f"{sum(statuses.values())} uploads from {clients} addresses in {elapsed:.1f} s: {shown};"
        f" another address's API p99 {p99:.0f} ms; {len(rows)} kept, {len(bad)} bad; a game on"
        f" a new upload {'finished' if finished else 'did NOT finish'}; {quota}",
    )


ATTACKS: dict[str, tuple[Callable[[Context], Awaitable[Outcome]], bool]] = {
    # name: (attack, in the quick sample)
    "course-uploads": (attack_course_uploads, True),
}
