"""What every red-team attack module shares (bench/redteam.py runs them): the outcome line,
the context, loopback source addresses, and small HTTP and WebSocket helpers."""

from __future__ import annotations

import asyncio
import json
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import websockets
from serverproc import LocalServer

from roborally.server.client import seat_key

HUMAN, BOT = {"kind": "human"}, {"kind": "bot"}


@dataclass
class Outcome:
    name: str
    held: bool
    figure: str

    def line(self) -> str:
        return f"{'held  ' if self.held else 'FAILED'}  {self.name:<16} {self.figure}"


@dataclass
class Context:
    quick: bool
    temp: Path
    server: LocalServer  # the shared server most attacks use

    def n(self, quick: int, full: int) -> int:
        return quick if self.quick else full


def address(block: int, index: int) -> str:
    """A loopback source address of its own for client ``index`` of attack ``block``."""
    return f"127.{block}.{index // 250}.{index % 250 + 2}"


def http(base: str, source: str | None = None, timeout: float = 60) -> httpx.AsyncClient:
    transport = httpx.AsyncHTTPTransport(local_address=source) if source else None
    return httpx.AsyncClient(base_url=base, timeout=timeout, transport=transport)


def ws_connect(url: str, source: str | None = None, **extra: Any) -> Any:
    if source is not None:
        extra["local_addr"] = (source, 0)
    return websockets.connect(url, max_size=None, open_timeout=20, **extra)


async def create(base: str, source: str | None = None, **body: Any) -> dict[str, Any]:
    body.setdefault("course", "tiny")
    async with http(base, source) as client:
        response = await client.post("/api/games", json=body)
    if response.status_code != 201:
        raise RuntimeError(f"create failed: {response.status_code} {response.text[:200]}")
    data: dict[str, Any] = response.json()
    return data


async def hello(ws: Any, token: str | None = None, **fields: Any) -> dict[str, Any]:
    """Say hello (with a seat's ``token``, or ``invite=`` in ``fields``); the reply."""
    message = {"type": "hello", "v": 1, **fields}
    if token is not None:
        message["token"] = token
    await ws.send(json.dumps(message))
    return await until(ws, lambda m: m["type"] in ("welcome", "error"))


async def hello_seat(ws: Any, seat: dict[str, Any], **fields: Any) -> dict[str, Any]:
    """Say hello with what opens ``seat`` of a create response (its token or invite)."""
    return await hello(ws, **seat_key(seat), **fields)


async def until(ws: Any, test: Callable[[dict[str, Any]], bool], limit: float = 30) -> Any:
    async def read() -> Any:
        async for raw in ws:
            msg = json.loads(raw)
            if test(msg):
                return msg
        return None

    return await asyncio.wait_for(read(), limit)


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q / 100 * len(ordered)))] if ordered else float("nan")


async def wait_finished(base: str, game_id: str, limit: float) -> bool:
    deadline = time.monotonic() + limit
    async with http(base) as client:
        while time.monotonic() < deadline:
            summary = (await client.get(f"/api/games/{game_id}")).json()
            if summary.get("status") == "finished":
                return True
            await asyncio.sleep(0.2)
    return False


async def measure_person(url: str, token: str, source: str, seconds: float) -> dict[str, Any]:
    """Play a person's game (answering at once) and ping every 0.1 s for ``seconds``: the
    round trips of the pings and of the decisions (decide -> ack), and the turns (decide ->
    the state with this seat's next decision), in milliseconds."""
    from roborally.bots.random_bot import RandomBot
    from roborally.server.client import decision_from_json, json_choice

    pings: list[float] = []
    acks: list[float] = []
    turns: list[float] = []
    last_sent: list[float] = []  # when this seat's last answer went out
    bot = RandomBot(1)
    sent: dict[str, float] = {}
    answered: set[str] = set()
    async with ws_connect(url, source) as ws:
        await hello(ws, token)
        await ws.send(json.dumps({"type": "ready", "v": 1}))

        async def answer(msg: dict[str, Any]) -> None:
            for pending in msg["pending"]:
                if pending["id"] in answered:
                    continue
                answered.add(pending["id"])
                choice = bot.choose(msg["observation"], decision_from_json(pending))
                sent[pending["id"]] = time.perf_counter()
                last_sent[:] = [sent[pending["id"]]]
                decide = {"decision_id": pending["id"], "choice": json_choice(choice)}
                await ws.send(json.dumps({"type": "decide", "v": 1, "id": pending["id"], **decide}))

        async def reader() -> None:
            async for raw in ws:
                now = time.perf_counter()
                msg = json.loads(raw)
                if msg["type"] == "pong":
                    pings.append((now - msg["t"]) * 1000)
                elif msg["type"] == "ack" and msg.get("ref") in sent:
                    acks.append((now - sent.pop(msg["ref"])) * 1000)
                elif msg["type"] == "state" and msg["status"] == "running":
                    fresh = [p for p in msg["pending"] if p["id"] not in answered]
                    if fresh and last_sent:
                        turns.append((now - last_sent.pop()) * 1000)
                    await answer(msg)

        task = asyncio.create_task(reader())
        end = time.perf_counter() + seconds
        while time.perf_counter() < end:
            await ws.send(json.dumps({"type": "ping", "v": 1, "t": time.perf_counter()}))
            await asyncio.sleep(0.1)
        await asyncio.sleep(0.3)
        task.cancel()
    return {"pings": pings, "acks": acks, "turns": turns}


async def measure_person_apart(url: str, token: str, source: str, seconds: float) -> Any:
    """:func:`measure_person` in a fresh process of its own (``redteam.py --measure-person``):
    the figure is the server's, not this harness's (whose heap the attacks before filled)."""
    measurer = await asyncio.create_subprocess_exec(
        sys.executable,
        str(Path(__file__).with_name("redteam.py")),
        "--measure-person",
        json.dumps([url, token, source, seconds]),
        stdout=asyncio.subprocess.PIPE,
    )
    out, _ = await measurer.communicate()
    return json.loads(out)
