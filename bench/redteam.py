"""Red team: the attacks of issue 11 against a real server on loopback.

Each attack is automated and bounded in count and time; it prints one line with the figure it
measured and ``held`` or ``FAILED``, and the script exits non-zero if any attack was not held.
All traffic goes to 127.0.0.1; "other clients" are other loopback source addresses
(127.0.0.0/8 is all loopback), so the per-address limits see distinct clients.

    uv run python bench/redteam.py                  # everything (make redteam), a few minutes
    uv run python bench/redteam.py --quick          # the small sample make test runs
    uv run python bench/redteam.py --only bot-flood sync-bomb
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import hashlib
import json
import os
import socket
import sqlite3
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import httpx
import websockets
from redteam_cluster import ATTACKS as CLUSTER_ATTACKS
from redteam_courses import ATTACKS as COURSE_ATTACKS
from redteam_kit import (
    BOT,
    HUMAN,
    Context,
    Outcome,
    address,
    create,
    hello,
    hello_seat,
    http,
    measure_person,
    measure_person_apart,
    percentile,
    until,
    wait_finished,
    ws_connect,
)
from redteam_names import ATTACKS as NAME_ATTACKS
from redteam_records import ATTACKS as RECORD_ATTACKS
from redteam_trust import ATTACKS as TRUST_ATTACKS
from serverproc import LocalServer

from roborally.content.cards import damage_deck
from roborally.content.courses import find_course
from roborally.content.fairness import NotVerified, verify_record
from roborally.content.record import parse_record
from roborally.engine.core.rng import LEGACY_RNG, RNG_VERSION, parse_seed, seed_commitment
from roborally.engine.core.state import GameConfig
from roborally.engine.game import Game
from roborally.server.client import RemotePlayer, seat_key, view_leaks
from roborally.server.store import DB_NAME


# ------------------------------------------------------------------------ fairness
def _hands(config: GameConfig, seed: int, rng: str) -> list[list[str]]:
    """The old attack: rebuild the game for a candidate seed; every seat's first hand (the
    top of its shuffled deck)."""
    game = Game(replace(config, seed=seed, rng=rng))
    return [sorted(c.name for c in player.deck[-9:]) for player in game.state.players]


def before_end(raw: list[str]) -> list[str]:
    """The frames a client got before the game_over message."""
    out = []
    for text in raw:
        if json.loads(text)["type"] == "game_over":
            break
        out.append(text)
    return out


async def attack_seed(ctx: Context) -> Outcome:
    """Seed recovery from one's own hand, and the seed on the wire before the end."""
    base = ctx.server.base
    source = address(1, 0)
    texts: list[str] = []
    game = await create(base, source, seats=[HUMAN, BOT], max_rounds=2, variants=["lighter"])
    async with http(base, source) as client:
        texts.append((await client.get("/api/games")).text)
        texts.append((await client.get(f"/api/games/{game['game_id']}")).text)
    player = RemotePlayer(game["ws_url"], game["seats"][0]["token"], seed=3, keep_raw=True)
    spectator = RemotePlayer(game["ws_url"], act=False, keep_raw=True)
    await asyncio.gather(player.run(), spectator.run())
    texts += before_end(player.result.raw) + before_end(spectator.result.raw)
    async with http(base, source) as client:
        record_text = (await client.get(f"/api/games/{game['game_id']}/record")).text
    record = parse_record(record_text)
    seed = parse_seed(record.headers["seed"])
    leaked = [t for t in texts if f"{seed:064x}" in t or str(seed) in t]
    committed = (
        seed_commitment(seed) == game["seed_commitment"] == record.headers["seed-commitment"]
    )
    try:
        verify_record(record)
        verified = True
    except NotVerified:
        verified = False
    tampered = record_text.replace(record.headers["seed"], f"0x{(seed ^ 1):064x}")
    try:
        verify_record(parse_record(tampered))
        tamper_caught = False
    except NotVerified:
        tamper_caught = True
    # The old attack: the player's first hand, against every small seed, both generators.
    first = next(
        sorted(p["hand"])
        for t in player.result.raw
        for m in [json.loads(t)]
        if m["type"] == "state" and m.get("observation")
        for p in m["observation"]["players"]
        if p["seat"] == 0 and isinstance(p["hand"], list) and len(p["hand"]) == 9
    )
    config = GameConfig(
        find_course("tiny").course,
        ("Red", "Blue"),
        seed=0,
        variants=frozenset({"lighter"}),
        first_player=None,
        max_rounds=2,
        damage_deck=damage_deck(),
    )
    real = _hands(config, seed, RNG_VERSION)  # the model of the attack is right:
    modelled = real[0] == first  # the real seed gives the hand the player saw
    tries = ctx.n(1 << 9, 1 << 13)
    started = time.perf_counter()
    candidates = [
        hands
        for rng in (LEGACY_RNG, RNG_VERSION)
        for s in range(tries)
        if (hands := _hands(config, s, rng))[0] == first
    ]
    rate = 2 * tries / (time.perf_counter() - started)
    matches = len(candidates)  # seeds that deal the player's own hand by chance...
    predicted = sum(1 for hands in candidates if hands[1] == real[1])  # ...and the other's
    years = 2**255 / rate / 3.15e7  # half the seed space, on average
    ok = (
        record.headers["rng"] == RNG_VERSION
        and seed.bit_length() > 200
        and not leaked
        and committed
        and verified
        and tamper_caught
        and modelled
        and predicted == 0
    )
    return Outcome(
        "seed",
        ok,
        f"256-bit seed (this one has {seed.bit_length()} bits); absent from all"
        f" {len(texts)} messages and pages before the end; commitment matches; record"
        f" {'verifies' if verified else 'DOES NOT verify'}, a changed seed is"
        f" {'caught' if tamper_caught else 'NOT caught'}; {2 * tries} small seeds tried"
        f" ({rate:.0f}/s): {matches} deal the player's own first hand by chance,"
        f" {predicted} the other player's{'' if modelled else ' (ATTACK MODEL WRONG)'}; the"
        f" real seed is 2^255 tries away on average: {years:.0e} years at that rate",
    )


# -------------------------------------------------------------------- hidden hands
async def _hidden(ctx: Context, edition: str, course: str, block: int) -> Outcome:
    base = ctx.server.base
    game = await create(
        base,
        address(block, 0),
        edition=edition,
        course=course,
        seats=[HUMAN, HUMAN, BOT],
        max_rounds=ctx.n(3, 8),
    )
    players = [
        RemotePlayer(game["ws_url"], **seat_key(s), seed=i, keep_raw=True, source=address(block, i))
        for i, s in enumerate(game["seats"][:2])
    ]
    spectator = RemotePlayer(game["ws_url"], act=False, keep_raw=True, source=address(block, 5))
    results = await asyncio.gather(*(p.run() for p in players), spectator.run())
    frames = 0
    leaks: list[str] = []
    for result, viewer in zip(results, (0, 1, None), strict=True):
        for text in result.raw:
            frames += 1
            leaks += view_leaks(text, viewer)
    finished = all(r.outcome is not None for r in results)
    return Outcome(
        f"hidden-{edition}",
        finished and not leaks and frames > 20,
        f"{frames} frames to 2 players and a spectator over a whole game: {len(leaks)} leaks"
        + (f" ({leaks[0]})" if leaks else ""),
    )


async def attack_hidden_2023(ctx: Context) -> Outcome:
    return await _hidden(ctx, "2023", "tiny", 2)


async def attack_hidden_classic(ctx: Context) -> Outcome:
    return await _hidden(ctx, "classic", "cl-tune-up", 3)


# ------------------------------------------------------------------- socket lockout
async def attack_lockout(ctx: Context) -> Outcome:
    """Hundreds of silent sockets and spectators on one game's path; the players get in."""
    base, server = ctx.server.base, ctx.server
    game = await create(base, address(4, 200), seats=[HUMAN, HUMAN], variants=["lighter"])
    url = game["ws_url"]
    silent_tries = ctx.n(60, 300)
    spread = ctx.n(40, 300)  # silent sockets from many addresses (10 ... 30 each)
    viewers = ctx.n(110, 130)
    opened: list[Any] = []
    refused = 0
    async with contextlib.AsyncExitStack() as stack:

        async def open_silent(source: str) -> None:
            nonlocal refused
            ws = await stack.enter_async_context(ws_connect(url, source))
            try:  # a refusal arrives at once; a silent socket hears nothing
                msg = json.loads(await asyncio.wait_for(ws.recv(), 1.0))
                refused += msg.get("code") == "too_many_connections"
            except TimeoutError:
                opened.append(ws)

        # All at once (well within the 10 s a socket has to say hello).
        await asyncio.gather(*(open_silent(address(4, 0)) for _ in range(silent_tries)))
        one_address_open = len(opened)
        await asyncio.gather(*(open_silent(address(4, 10 + i % 10)) for i in range(spread)))
        spectators_in = spectators_full = 0

        # hello'd spectators from 20 addresses (8 a game from one address: spectator-cap)
        async def spectate(index: int) -> None:
            nonlocal spectators_in, spectators_full
            ws = await stack.enter_async_context(ws_connect(url, address(4, 30 + index % 20)))
            reply = await hello(ws)
            spectators_in += reply["type"] == "welcome"
            spectators_full += reply.get("code") == "server_full"

        await asyncio.gather(*(spectate(i) for i in range(viewers)))
        # The two players arrive last, from their own addresses.
        started = time.perf_counter()
        seats_in = 0
        players = []
        for i, seat in enumerate(game["seats"]):
            ws = await stack.enter_async_context(ws_connect(url, address(4, 100 + i)))
            seats_in += (await hello_seat(ws, seat))["type"] == "welcome"
            players.append(ws)
        welcome_ms = (time.perf_counter() - started) * 1000
        for ws in players:
            await ws.send(json.dumps({"type": "ready", "v": 1}))
        running = await until(
            players[0], lambda m: m["type"] == "state" and m["status"] == "running"
        )
        closed_after = None
        if not ctx.quick:  # the silent ones are closed once the hello deadline passes
            silent = opened[-1]
            wait_started = time.perf_counter()
            with contextlib.suppress(Exception):
                await asyncio.wait_for(silent.recv(), 20)
                await asyncio.wait_for(silent.recv(), 5)
            closed_after = time.perf_counter() - wait_started
        rss = server.rss_mib()
    ok = (
        seats_in == 2
        and running is not None
        and one_address_open <= 32
        and refused == silent_tries - one_address_open
        and spectators_in <= 100
        and spectators_full == viewers - spectators_in
    )
    closing = "" if closed_after is None else f"; silent sockets closed within {closed_after:.0f} s"
    return Outcome(
        "socket-lockout",
        ok,
        f"{silent_tries} silent sockets from one address: {one_address_open} open,"
        f" {refused} refused; +{spread} from 10 addresses; {viewers} spectators:"
        f" {spectators_in} in, {spectators_full} told server_full; both seat holders in"
        f" ({seats_in}/2, {welcome_ms:.0f} ms) and the game started{closing}; server RSS"
        f" {rss:.0f} MiB",
    )


# ------------------------------------------------------------------------- sync bomb
async def attack_sync_bomb(ctx: Context) -> Outcome:
    """A spectator asks for the whole game hundreds of times and never reads."""
    base, server = ctx.server.base, ctx.server
    game = await create(
        base,
        address(5, 0),
        course="y23-rush-hour",
        seats=[BOT] * 4,
        max_rounds=ctx.n(8, 25),
        first_player=None,
    )
    await wait_finished(base, game["game_id"], 120)
    async with http(base) as client:
        size = len((await client.get(f"/api/games/{game['game_id']}/replay")).content)
    before = server.rss_mib()
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)  # and it never reads
    sock.bind((address(5, 1), 0))
    sock.connect(("127.0.0.1", server.port))
    requests = ctx.n(200, 600)
    peak = before
    dropped = False
    async with websockets.connect(game["ws_url"], sock=sock, max_size=None, max_queue=1) as ws:
        await ws.send(json.dumps({"type": "hello", "v": 1}))
        started = time.perf_counter()
        for i in range(requests):
            try:
                await ws.send(json.dumps({"type": "sync", "v": 1, "since": 0, "id": i}))
            except websockets.ConnectionClosed:
                dropped = True
                break
            if i % 20 == 0:
                peak = max(peak, server.rss_mib())
                await asyncio.sleep(0.02)
        deadline = time.perf_counter() + 15
        while not dropped and time.perf_counter() < deadline:
            peak = max(peak, server.rss_mib())
            try:
                await asyncio.wait_for(ws.wait_closed(), 0.2)
                dropped = True
            except TimeoutError:
                pass
        elapsed = time.perf_counter() - started
    await asyncio.sleep(1)
    after = server.rss_mib()
    log = server.log()
    said = "does not read" in log
    ok = dropped and said and peak - before < 64
    return Outcome(
        "sync-bomb",
        ok,
        f"{requests} full syncs (the game is {size // 1024} KiB as a replay) without reading:"
        f" {'dropped' if dropped else 'NOT dropped'} in {elapsed:.1f} s; server RSS"
        f" {before:.0f} -> peak {peak:.0f} -> {after:.0f} MiB",
    )


# ----------------------------------------------------------------------- large bodies
async def attack_bodies(ctx: Context) -> Outcome:
    """Huge request bodies, with and without a declared size."""
    server = ctx.server
    size = ctx.n(8, 150) << 20
    count = 4
    before = server.rss_mib()
    peak = before
    sent: list[int] = []
    statuses: list[str] = []

    async def post(index: int, declared: bool) -> None:
        total = 0

        async def body() -> Any:
            nonlocal total
            chunk = b"0" * 65536
            while total < size:
                total += len(chunk)
                yield chunk

        headers = {"content-type": "application/json"}
        if declared:
            headers["content-length"] = str(size)
        try:
            async with http(server.base, address(6, index)) as client:
                response = await client.post("/api/games", content=body(), headers=headers)
                statuses.append(str(response.status_code))
        except httpx.HTTPError as error:  # the server cut the upload off
            statuses.append(type(error).__name__)
        sent.append(total)

    async def watch() -> None:
        nonlocal peak
        while True:
            peak = max(peak, server.rss_mib())
            await asyncio.sleep(0.05)

    watcher = asyncio.create_task(watch())
    started = time.perf_counter()
    await asyncio.gather(*(post(i, i % 2 == 0) for i in range(count)))
    elapsed = time.perf_counter() - started
    watcher.cancel()
    refused = all(s == "413" or not s.isdigit() for s in statuses)
    ok = refused and max(sent) < size and peak - before < 32
    return Outcome(
        "large-bodies",
        ok,
        f"{count} posts of {size >> 20} MiB (half without Content-Length): answers"
        f" {', '.join(statuses)} after at most {max(sent) >> 10} KiB sent, in {elapsed:.1f} s;"
        f" server RSS {before:.0f} -> peak {peak:.0f} MiB",
    )


# --------------------------------------------------------------------- creation flood
async def attack_creation(ctx: Context) -> Outcome:
    """One address creates games as fast as it can; others can still create."""
    base = ctx.server.base
    tries = ctx.n(30, 200)
    source = address(7, 0)
    started = time.perf_counter()
    async with http(base, source) as client:
        lobby = {"course": "tiny", "seats": [HUMAN, HUMAN]}
        answers = await asyncio.gather(
            *(client.post("/api/games", json=lobby) for _ in range(tries))
        )
        bots = {"course": "tiny", "seats": [BOT, BOT], "max_rounds": 50}
        bot_answers = await asyncio.gather(
            *(client.post("/api/games", json=bots) for _ in range(tries))
        )
    elapsed = time.perf_counter() - started
    created = sum(r.status_code == 201 for r in answers)
    bot_created = sum(r.status_code == 201 for r in bot_answers)
    limited = sum(r.status_code == 429 for r in answers + bot_answers)
    retry = max(int(r.headers.get("retry-after", 0)) for r in answers + bot_answers)
    async with http(base, address(7, 1)) as client:
        other = await client.post("/api/games", json={"course": "tiny", "seats": [HUMAN, HUMAN]})
    ok = (
        created <= 5
        and created + bot_created <= 10
        and limited == 2 * tries - created - (bot_created)
        and other.status_code == 201
    )
    return Outcome(
        "creation-flood",
        ok,
        f"{2 * tries} create calls from one address in {elapsed:.1f} s: {created} lobbies and"
        f" {bot_created} bot games created, {limited} refused with 429 (Retry-After up to"
        f" {retry} s); another address still creates: {other.status_code}",
    )


# -------------------------------------------------------------------------- bot flood
async def attack_bot_flood(ctx: Context) -> Outcome:
    """Long games of expert bots only, while a person's game is measured."""
    base = ctx.server.base
    games = ctx.n(4, 20)
    seconds = ctx.n(5, 20)
    ids = []
    for i in range(games):
        game = await create(
            base,
            address(8, i // 4),
            course="y23-rush-hour",
            seats=[{"kind": "bot", "bot": "expert"}] * 4,
            max_rounds=50,
            first_player=None,
        )
        ids.append(game["game_id"])
    game = await create(base, address(8, 50), seats=[HUMAN, BOT], max_rounds=50)
    await asyncio.sleep(1)  # the bot games get going
    async with http(base) as client:
        listed = (await client.get("/api/games")).json()["games"]
    at_start = sum(1 for g in listed if g["game_id"] in ids and g["status"] == "running")
    token = game["seats"][0]["token"]
    measured = await measure_person_apart(game["ws_url"], token, address(8, 51), seconds)
    pings, acks = measured["pings"], measured["acks"]
    async with http(base) as client:
        listed = (await client.get("/api/games")).json()["games"]
    running = sum(1 for g in listed if g["game_id"] in ids and g["status"] == "running")
    rounds = sorted(g["round"] for g in listed if g["game_id"] in ids)
    p99 = percentile(pings, 99)
    # The 50 ms target is judged by the full run (make redteam), a benchmark; the quick sample
    # in make test checks that everything is answered, not how fast.
    fast_enough = p99 <= 50 or ctx.quick
    ok = fast_enough and len(pings) >= seconds * 8 and bool(acks) and at_start == games
    return Outcome(
        "bot-flood",
        ok,
        f"{games} expert bot games ({at_start} running when the measure began, {running} still"
        f" after {seconds} s, rounds"
        f" {rounds[0] if rounds else '-'}-{rounds[-1] if rounds else '-'}); the person's ping"
        f" p50 {percentile(pings, 50):.1f} p99 {p99:.1f} max {max(pings):.1f} ms over"
        f" {len(pings)} pings; decide->ack p50 {percentile(acks, 50):.1f} p99"
        f" {percentile(acks, 99):.1f} ms over {len(acks)} decisions",
    )


# ----------------------------------------------------------------------- idle staller
async def attack_staller(ctx: Context) -> Outcome:
    """A connected player who answers everything but never programs, in a game without a
    programming timer (the defaults would give 300 s; the game asks for 5)."""
    base = ctx.server.base
    game = await create(
        base,
        address(9, 0),
        seats=[HUMAN, HUMAN],
        variants=["lighter"],
        program_seconds=5,
        max_rounds=ctx.n(2, 3),
    )
    player = RemotePlayer(game["ws_url"], game["seats"][0]["token"], seed=1, source=address(9, 1))
    started = time.perf_counter()
    stalled_at: list[float] = []

    async def stall() -> None:
        async with ws_connect(game["ws_url"], address(9, 2)) as ws:
            await hello_seat(ws, game["seats"][1])
            await ws.send(json.dumps({"type": "ready", "v": 1}))
            answered: set[str] = set()
            async for raw in ws:
                msg = json.loads(raw)
                if msg["type"] == "game_over":
                    return
                if msg["type"] != "state":
                    continue
                if msg["seats"][1]["auto"] and not stalled_at:
                    stalled_at.append(time.perf_counter() - started)
                for pending in msg["pending"]:  # everything but programming, at once
                    if pending["kind"] != "program" and pending["id"] not in answered:
                        answered.add(pending["id"])
                        choice = pending["options"][0] if pending["options"] else "timeout"
                        await ws.send(
                            json.dumps(
                                {
                                    "type": "decide",
                                    "v": 1,
                                    "decision_id": pending["id"],
                                    "choice": choice,
                                }
                            )
                        )

    staller = asyncio.create_task(stall())
    result = await player.run(timeout=90)
    elapsed = time.perf_counter() - started
    await asyncio.wait_for(staller, 30)
    async with http(base) as client:
        summary = (await client.get(f"/api/games/{game['game_id']}")).json()
    seat = summary["seats"][1]
    # Each missed program plays that program only (the staller's other answers break the
    # streak that would mark it away): the game moves at the pace of its 5 s deadline.
    rounds = summary["round"]
    bounded = elapsed <= rounds * (5 + 4) + 10
    ok = result.outcome is not None and bounded
    marked = (
        f"marked away ({seat['auto_reason']}) after {stalled_at[0]:.1f} s"
        if stalled_at
        else ("never marked away (it answers the other questions)")
    )
    return Outcome(
        "idle-staller",
        ok,
        f"no programming timer, one connected player answers all but never programs"
        f" (program_seconds 5): each missed program played for it, {marked}; the game ended"
        f" in {elapsed:.0f} s after {rounds} round(s) ({summary['result']})",
    )


# ----------------------------------------------------------------------- save failure
async def attack_save_failure(ctx: Context) -> Outcome:
    """The database refuses writes (another program holds its lock) while a player moves."""
    server = ctx.server
    game = await create(server.base, address(10, 0), seats=[HUMAN, BOT], variants=["lighter"])
    async with ws_connect(game["ws_url"], address(10, 1)) as ws:
        await hello(ws, game["seats"][0]["token"])
        await ws.send(json.dumps({"type": "ready", "v": 1}))
        state = await until(ws, lambda m: m["type"] == "state" and bool(m["pending"]))
        decision = state["pending"][0]
        events = state["event_count"]
        lock = sqlite3.connect(server.data_dir / DB_NAME, isolation_level=None)
        lock.execute("BEGIN EXCLUSIVE")
        started = time.perf_counter()
        message = {
            "type": "decide",
            "v": 1,
            "id": "move-1",
            "decision_id": decision["id"],
            "choice": decision["options"][0],
        }
        await ws.send(json.dumps(message))
        error = await until(ws, lambda m: m["type"] in ("error", "ack"))
        waited = time.perf_counter() - started
        await ws.send(json.dumps({"type": "sync", "v": 1}))
        during = await until(ws, lambda m: m["type"] == "state")
        lock.execute("ROLLBACK")
        lock.close()
        message["id"] = "move-2"
        await ws.send(json.dumps(message))
        ack = await until(ws, lambda m: m["type"] in ("error", "ack"))
    unchanged = during["event_count"] == events and [p["id"] for p in during["pending"]] == [
        decision["id"]
    ]
    ok = (
        error.get("code") == "storage_failed"
        and error.get("ref") == "move-1"
        and unchanged
        and ack["type"] == "ack"
    )
    return Outcome(
        "save-failure",
        ok,
        f"a move while the database is locked: {error.get('code') or error['type']} after"
        f" {waited:.1f} s (ref {error.get('ref')!r}); the game as it was ({during['event_count']}"
        f" events, the same decision pending); sent again after the lock: {ack['type']}",
    )


# ------------------------------------------------------------------------ two servers
async def attack_two_servers(ctx: Context) -> Outcome:
    second = LocalServer(ctx.server.data_dir, log=ctx.temp / "second.log")
    started = time.perf_counter()
    try:
        second.start(timeout=20)
        exited = False
    except RuntimeError:
        exited = True
    elapsed = time.perf_counter() - started
    code = second.process.returncode if second.process is not None else None
    second.stop()
    message = second.log().strip().splitlines()[-1] if second.log().strip() else ""
    async with http(ctx.server.base) as client:
        healthy = (await client.get("/api/health")).json()["ok"]
    ok = exited and code == 1 and "another roborally server" in message and healthy
    return Outcome(
        "two-servers",
        ok,
        f"a second server on the same data directory exited {code} in {elapsed:.1f} s"
        f" ({message[:90]}...); the first still serves",
    )


# --------------------------------------------------------------------- damaged database
async def attack_damaged(ctx: Context) -> Outcome:
    data = ctx.temp / "damaged"
    with LocalServer(data, log=ctx.temp / "damaged.log") as server:
        await create(server.base, seats=[HUMAN, HUMAN])
    path = data / DB_NAME
    for suffix in ("-wal", "-shm"):
        Path(str(path) + suffix).unlink(missing_ok=True)
    raw = bytearray(path.read_bytes())
    raw[100:4096] = b"\xff" * (4096 - 100)
    path.write_bytes(bytes(raw))
    digest = hashlib.sha256(raw).hexdigest()
    results = []
    for name in ("corrupted", "truncated"):
        if name == "truncated":
            path.write_bytes(b"")
            digest = hashlib.sha256(b"").hexdigest()
        attempt = LocalServer(data, log=ctx.temp / f"damaged-{name}.log")
        try:
            attempt.start(timeout=20)
            refused = False
        except RuntimeError:
            refused = True
        attempt.stop()
        code = attempt.process.returncode if attempt.process is not None else None
        said = "is damaged" in attempt.log() and "Traceback" not in attempt.log()
        kept = hashlib.sha256(path.read_bytes()).hexdigest() == digest
        results.append((name, refused and code == 1 and said and kept, code))
    ok = all(r[1] for r in results)
    return Outcome(
        "damaged-db",
        ok,
        "; ".join(
            f"{name} database: start refused with exit {code} and what to do, file untouched"
            if good
            else f"{name} database: NOT refused properly (exit {code})"
            for name, good, code in results
        ),
    )


# --------------------------------------------------------------------------- kill -9
async def attack_kill(ctx: Context) -> Outcome:
    data = ctx.temp / "killed"
    log = ctx.temp / "killed.log"
    server = LocalServer(data, log=log).start()
    try:
        game = await create(server.base, address(11, 0), seats=[HUMAN, BOT], max_rounds=4)
        bots = await create(
            server.base,
            address(11, 0),
            course="y23-rush-hour",
            seats=[BOT] * 3,
            max_rounds=ctx.n(6, 12),
        )
        token = game["seats"][0]["token"]
        from roborally.bots.random_bot import RandomBot
        from roborally.server.client import decision_from_json, json_choice

        bot = RandomBot(2)
        acked: list[str] = []
        events = 0
        async with ws_connect(game["ws_url"], address(11, 1)) as ws:
            await hello(ws, token)
            await ws.send(json.dumps({"type": "ready", "v": 1}))
            while len(acked) < 4:
                msg = await until(ws, lambda m: m["type"] in ("state", "ack"))
                if msg["type"] == "ack" and msg.get("for") == "decide":
                    acked.append(msg["decision_id"])
                elif msg["type"] == "state":
                    events = msg["event_count"]
                    for pending in msg["pending"]:
                        if pending["id"] in acked:
                            continue
                        choice = bot.choose(msg["observation"], decision_from_json(pending))
                        await ws.send(
                            json.dumps(
                                {
                                    "type": "decide",
                                    "v": 1,
                                    "decision_id": pending["id"],
                                    "choice": json_choice(choice),
                                }
                            )
                        )
                        break
            workers = server.workers()
            server.kill9()
        gone_started = time.perf_counter()
        while any(_alive(pid) for pid in workers) and time.perf_counter() - gone_started < 10:
            await asyncio.sleep(0.05)
        workers_gone = time.perf_counter() - gone_started
        orphans = sum(_alive(pid) for pid in workers)
        started = time.perf_counter()
        server = LocalServer(data, log=log, port=server.port).start()
        restart = time.perf_counter() - started
        player = RemotePlayer(game["ws_url"], token, seed=5, source=address(11, 2), keep_raw=True)
        result = await player.run(timeout=120)
        first_state = next(
            json.loads(t) for t in player.result.raw if json.loads(t)["type"] == "state"
        )
        pending_now = {p["id"] for p in first_state["pending"]}
        kept = first_state["event_count"] >= events and not (pending_now & set(acked))
        bot_done = await wait_finished(server.base, bots["game_id"], 120)
        verified = 0
        async with http(server.base) as client:
            for gid in (game["game_id"], bots["game_id"]):
                text = (await client.get(f"/api/games/{gid}/record")).text
                with contextlib.suppress(NotVerified, ValueError):
                    verify_record(parse_record(text))
                    verified += 1
    finally:
        server.stop()
    ok = kept and orphans == 0 and result.outcome is not None and bot_done and verified == 2
    return Outcome(
        "kill-9",
        ok,
        f"server killed after {len(acked)} acknowledged moves: its {len(workers)} workers gone in"
        f" {workers_gone:.1f} s ({orphans} left); restarted in {restart:.1f} s with every"
        f" acknowledged move kept ({first_state['event_count']} events >= {events}); both games"
        f" finished, {verified}/2 records verify",
    )


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as stat:
            return stat.read().split()[2] != "Z"
    except FileNotFoundError:
        return False


# ---------------------------------------------------------------------- protocol edges
async def attack_edges(ctx: Context) -> Outcome:
    server = ctx.server
    source = address(12, 0)
    game = await create(server.base, source, seats=[{"kind": "human", "name": "Ada"}, HUMAN])
    token = game["seats"][0]["token"]
    checks: dict[str, bool] = {}
    async with ws_connect(f"{game['ws_url']}?token={token}", source) as ws:
        reply = json.loads(await ws.recv())
        checks["token in URL refused"] = reply.get("code") == "token_in_url"
    await asyncio.sleep(0.2)
    checks["no token in the log"] = token not in server.log()
    async with ws_connect(game["ws_url"], source) as ws:
        welcome = await hello(ws, token, id="h")
        checks["hello with the token"] = welcome["type"] == "welcome"
        await ws.send(b'{"type":"ping","v":1,"t":"\xff\xfe","id":"u"}', text=True)
        bad = await until(ws, lambda m: m["type"] == "error")
        checks["invalid UTF-8: error with ref"] = bad["code"] == "bad_text"
        await ws.send('{"type":"ping","v":1,"t":"\\ud800","id":"s"}')
        lone = await until(ws, lambda m: m["type"] == "error")
        checks["lone surrogate: error with ref"] = lone["code"] == "bad_text" and lone["ref"] == "s"
        await ws.send(json.dumps({"type": "ping", "v": 1, "id": "p"}))
        pong = await until(ws, lambda m: m["type"] in ("pong", "error"))
        checks["socket still works"] = pong["type"] == "pong" and pong["ref"] == "p"
        await ws.send(json.dumps({"type": "launch", "v": 1, "id": 99}))
        unknown = await until(ws, lambda m: m["type"] == "error")
        checks["every error carries its ref"] = unknown["ref"] == 99
    async with http(server.base, source) as client:
        dup = await client.post(
            "/api/games", json={"course": "tiny", "seats": [{"name": "Ada"}, {"name": "ADA"}]}
        )
        checks["duplicate names refused"] = dup.status_code == 400
    ok = all(checks.values())
    failed = [k for k, v in checks.items() if not v]
    return Outcome(
        "protocol-edges",
        ok,
        f"{sum(checks.values())}/{len(checks)} handled"
        + (f"; NOT: {', '.join(failed)}" if failed else f" ({'; '.join(checks)})"),
    )


ATTACKS: dict[str, tuple[Callable[[Context], Awaitable[Outcome]], bool]] = {
    # name: (attack, in the quick sample)
    "seed": (attack_seed, True),
    "hidden-2023": (attack_hidden_2023, True),
    "hidden-classic": (attack_hidden_classic, False),
    "socket-lockout": (attack_lockout, True),
    "sync-bomb": (attack_sync_bomb, True),
    "large-bodies": (attack_bodies, True),
    "creation-flood": (attack_creation, True),
    "bot-flood": (attack_bot_flood, True),
    "idle-staller": (attack_staller, False),
    "save-failure": (attack_save_failure, True),
    "two-servers": (attack_two_servers, True),
    "damaged-db": (attack_damaged, False),
    "kill-9": (attack_kill, False),
    "protocol-edges": (attack_edges, True),
}
# The attacks of issue 26 (trust at the table), in modules of their own.
ATTACKS |= TRUST_ATTACKS | RECORD_ATTACKS | NAME_ATTACKS | CLUSTER_ATTACKS
ATTACKS |= COURSE_ATTACKS  # issue 28: custom course uploads
TIME_LIMIT = 300.0  # seconds per attack


async def run(names: list[str], quick: bool, temp: Path) -> list[Outcome]:
    outcomes = []
    with LocalServer(temp / "data", "--log-level", "info", log=temp / "server.log") as server:
        ctx = Context(quick, temp, server)
        for name in names:
            attack, _ = ATTACKS[name]
            started = time.perf_counter()
            try:
                outcome = await asyncio.wait_for(attack(ctx), TIME_LIMIT)
            except Exception as error:  # an attack that breaks is not held
                outcome = Outcome(name, False, f"the attack broke: {type(error).__name__}: {error}")
            outcome.figure += f" [{time.perf_counter() - started:.0f} s]"
            print(outcome.line(), flush=True)
            outcomes.append(outcome)
    return outcomes


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="the small sample of make test")
    parser.add_argument("--only", nargs="+", choices=list(ATTACKS), help="just these attacks")
    parser.add_argument("--keep", metavar="DIR", help="keep the servers' logs and data in DIR")
    parser.add_argument("--measure-person", metavar="JSON", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.measure_person:  # the bot-flood's measuring process
        print(json.dumps(asyncio.run(measure_person(*json.loads(args.measure_person)))))
        return 0
    names = args.only or [n for n, (_, quick) in ATTACKS.items() if quick or not args.quick]
    print(f"red team: {len(names)} attack(s) on {os.cpu_count()} CPU(s), all on loopback")
    if args.keep:  # the servers' logs and data stay for a look
        Path(args.keep).mkdir(parents=True, exist_ok=True)
        outcomes = asyncio.run(run(names, args.quick, Path(args.keep).resolve()))
    else:
        with tempfile.TemporaryDirectory(prefix="roborally-redteam-") as temp:
            outcomes = asyncio.run(run(names, args.quick, Path(temp)))
    failed = [o.name for o in outcomes if not o.held]
    print(
        f"{len(outcomes) - len(failed)}/{len(outcomes)} held"
        + (f"; FAILED: {failed}" if failed else "")
    )
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
