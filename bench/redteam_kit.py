"""What every red-team attack module shares (bench/redteam.py runs them): the outcome line,
the context, loopback source addresses, and small HTTP and WebSocket helpers."""

from __future__ import annotations

import asyncio
import json
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
