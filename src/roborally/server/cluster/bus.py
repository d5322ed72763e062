"""The message bus: Redis pub/sub with one channel per server process.

Every process listens on its own channel, ``roborally:process:<id>``. What a player sends to a
game goes to the channel of the game's owner (the lease names it); what the owner sends back
goes to the channel of the process that holds the player's socket. One channel per process,
not per game: a process subscribes once, whatever the number of its games, and a game that
changes owner needs no new subscription before messages can reach it.

Messages are JSON objects. Everything one process publishes goes out through one task and
one connection, in the order it was published (Redis keeps a connection's order), and what
piles up while a publish is under way goes out together in one pipeline.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections.abc import Callable
from typing import Any

log = logging.getLogger("roborally.server")

CHANNEL = "roborally:process:"
BATCH = 512  # messages per pipeline at most


def channel(process: str) -> str:
    return CHANNEL + process


Handler = Callable[[dict[str, Any]], None]


class Bus:
    """Publish to any process; receive what is published to this one (``handler`` is called
    on the event loop for each message, in order; it must not block)."""

    def __init__(self, redis: Any, process: str, handler: Handler) -> None:
        self.redis = redis
        self.process = process
        self.handler = handler
        self.outbox: asyncio.Queue[tuple[str, str]] = asyncio.Queue()
        self.pubsub: Any = None
        self.tasks: list[asyncio.Task[None]] = []
        self.published = 0
        self.received = 0

    async def start(self) -> None:
        """Subscribe (confirmed by Redis before this returns) and start the two tasks."""
        self.pubsub = self.redis.pubsub(ignore_subscribe_messages=False)
        await self.pubsub.subscribe(channel(self.process))
        while True:
            reply = await self.pubsub.get_message(timeout=5.0)
            if reply is None:
                raise ConnectionError("Redis did not confirm the subscription in 5 s")
            if reply["type"] == "subscribe":
                break
        loop = asyncio.get_running_loop()
        self.tasks = [loop.create_task(self._read()), loop.create_task(self._write())]

    def publish(self, process: str, data: dict[str, Any]) -> None:
        """Queue a message for ``process`` (sent soon, in order)."""
        self.outbox.put_nowait((channel(process), json.dumps(data, separators=(",", ":"))))

    async def flush(self, timeout: float = 2.0) -> None:
        """Wait until what was published so far has gone out (at most ``timeout`` s)."""
        deadline = asyncio.get_running_loop().time() + timeout
        while not self.outbox.empty() and asyncio.get_running_loop().time() < deadline:
            await asyncio.sleep(0.01)

    async def stop(self) -> None:
        await self.flush()
        for task in self.tasks:
            task.cancel()
        for task in self.tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        if self.pubsub is not None:
            with contextlib.suppress(Exception):
                await self.pubsub.aclose()

    async def _read(self) -> None:
        while True:
            try:
                reply = await self.pubsub.get_message(ignore_subscribe_messages=True, timeout=1.0)
            except asyncio.CancelledError:
                raise
            except Exception as error:  # Redis went away: redis-py reconnects and resubscribes
                log.warning("cluster bus: reading failed (%s); trying again", error)
                await asyncio.sleep(0.5)
                continue
            if reply is None or reply.get("type") != "message":
                continue
            self.received += 1
            try:
                data = json.loads(reply["data"])
                self.handler(data)
            except Exception:
                log.exception("cluster bus: a message could not be handled")

    async def _write(self) -> None:
        while True:
            first = await self.outbox.get()
            batch = [first]
            while len(batch) < BATCH and not self.outbox.empty():
                batch.append(self.outbox.get_nowait())
            for attempt in range(3):
                try:
                    if len(batch) == 1:
                        await self.redis.publish(*batch[0])
                    else:
                        pipe = self.redis.pipeline(transaction=False)
                        for name, text in batch:
                            pipe.publish(name, text)
                        await pipe.execute()
                    self.published += len(batch)
                    break
                except asyncio.CancelledError:
                    raise
                except Exception as error:
                    log.warning("cluster bus: publishing failed (%s), try %d", error, attempt + 1)
                    await asyncio.sleep(0.2 * (attempt + 1))
