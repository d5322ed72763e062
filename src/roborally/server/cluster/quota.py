"""Per-address limits shared by every process (scale-out mode).

A single server counts an address's games, creations and sockets itself; behind a load
balancer each process would count only what reached it, so an address could get N times the
limits of N processes. These counts live in Redis instead:

* **creations a minute** (``games_per_minute``): one GCRA bucket per address,
  ``roborally:create:<address>``, kept by a script with Redis's own clock (the processes'
  clocks may differ): the limit's number at once, then one every 60 / limit seconds;
* **API calls** (``requests_per_second``, ``request_burst``): the same kind of bucket,
  ``roborally:api:<address>``, one script call (one round trip) per call of the API. When
  Redis does not answer, or answers late, each process counts with its own buckets again for
  a few seconds (:meth:`SharedQuota.take_request`): a lost Redis must neither lock players
  out nor make their calls fail or wait;
* **games of an address** (``lobbies_per_address``, ``bot_games_per_address``): the ids of the
  games the address created, ``roborally:lobbies:<address>`` and ``roborally:botgames:<address>``.
  The count is of those still waiting for players (a lobby) or still going (a game of bots
  only), read from the database (one query) when a new game is asked for and the set is as
  large as the limit; the others leave the set then. Nothing needs to be told when a game
  starts or ends, so a process that dies leaves nothing wrong behind;
* **WebSockets open** (``connections_per_address``): ``roborally:sockets:<address>``, a hash of
  each process's count; only live processes' counts add up (a dead process cannot close its
  sockets), and a dead one's field goes at the next count.

Two creations at the same moment on two processes may both pass the games-of-an-address check
(each process still counts its own creations under way); the creation rate is exact.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
import time
from collections.abc import Awaitable, Callable
from typing import Any

from roborally.server.cluster.lease import ALIVE

log = logging.getLogger("roborally.server")

CREATE = "roborally:create:"
API = "roborally:api:"
SOCKETS = "roborally:sockets:"
LOBBIES = "roborally:lobbies:"
BOT_GAMES = "roborally:botgames:"
KEEP_SECONDS = 24 * 3600  # an address's list of games is forgotten a day after its last game
API_SECONDS = 0.5  # an API call's bucket not read by then: this process's own bucket decides
API_PAUSE = 5.0  # after Redis failed an API call's bucket, the seconds each process counts alone

#: GCRA: KEYS[1] holds the theoretical arrival time (microseconds). ARGV: the interval
#: between two takes (microseconds) and the burst. Returns 0 when taken, else the
#: microseconds to wait.
_TAKE = """
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local interval = tonumber(ARGV[1])
local burst = tonumber(ARGV[2])
local tat = tonumber(redis.call('GET', KEYS[1]) or now)
if tat < now then tat = now end
local after = tat + interval
local wait = after - now - interval * burst
if wait > 0 then return wait end
redis.call('SET', KEYS[1], string.format('%d', after), 'PX', math.ceil((after - now) / 1000))
return 0
"""

Statuses = Callable[[list[str]], Awaitable[dict[str, str]]]


def _text(value: Any) -> str:
    return value.decode("utf-8") if isinstance(value, bytes) else str(value)


class SharedQuota:
    """The shared counts of one cluster (``redis`` is a ``redis.asyncio.Redis``)."""

    def __init__(self, redis: Any, process: str) -> None:
        from redis.exceptions import NoScriptError  # scale-out mode only: redis is installed

        self.redis = redis
        self.process = process
        self._take = redis.register_script(_TAKE)
        self._no_script = NoScriptError
        self.alive: set[str] = set()  # the live processes (the node renews it every beat)
        self.api_alone_until = 0.0  # Redis failed an API call's bucket: alone until then

    async def _take_from(self, key: str, per_second: float, burst: int) -> int:
        """Take one from the GCRA bucket ``key``: 0, or the microseconds to wait first."""
        interval = max(1, round(1_000_000 / max(per_second, 1e-6)))
        try:  # EVALSHA itself: redis-py's script call costs a sixth more (every API call)
            return int(await self.redis.evalsha(self._take.sha, 1, key, interval, burst))
        except self._no_script:  # a new or flushed Redis: the script call loads it again
            return int(await self._take(keys=[key], args=[interval, burst]))

    async def take_creation(self, address: str, per_minute: int) -> int:
        """Take one creation from ``address``'s bucket: 0, or the seconds to wait first."""
        wait = await self._take_from(CREATE + address, max(1, per_minute) / 60, per_minute)
        return math.ceil(wait / 1_000_000) if wait > 0 else 0

    async def take_request(self, address: str, per_second: float, burst: int) -> float | None:
        """Take one API call from ``address``'s bucket of the whole cluster: 0, or the seconds
        to wait first. ``None`` when Redis did not answer within ``API_SECONDS``, or failed
        within the last ``API_PAUSE`` seconds (not asked meanwhile, so a lost Redis costs no
        call a time-out): the caller counts with its own bucket then."""
        now = time.monotonic()
        if now < self.api_alone_until:
            return None
        try:
            async with asyncio.timeout(API_SECONDS):
                wait = await self._take_from(API + address, per_second, burst)
        except Exception as error:  # Redis away or slow
            if time.monotonic() >= self.api_alone_until:  # not said yet by a call meanwhile
                log.warning(
                    "API calls counted by this process alone for %.0f s: Redis did not answer (%s)",
                    API_PAUSE,
                    str(error) or type(error).__name__,
                )
            self.api_alone_until = time.monotonic() + API_PAUSE
            return None
        return wait / 1_000_000 if wait > 0 else 0.0

    async def games(self, address: str, bots_only: bool, statuses: Statuses, below: int) -> int:
        """How many lobbies (or, ``bots_only``, games of bots only) ``address`` has going in
        the whole cluster; ``statuses`` reads the games' statuses from the database. Fewer
        ids than ``below`` are not looked up: their number is enough to know the address is
        under its limit."""
        key = (BOT_GAMES if bots_only else LOBBIES) + address
        counted = ("open", "running") if bots_only else ("open",)
        ids = [_text(member) for member in await self.redis.smembers(key)]
        if len(ids) < below:
            return len(ids)
        known = await statuses(ids)
        gone = [game_id for game_id in ids if known.get(game_id) not in counted]
        if gone:
            await self.redis.srem(key, *gone)
        return len(ids) - len(gone)

    async def created(self, address: str, bots_only: bool, game_id: str) -> None:
        """Count a game ``address`` has just created."""
        key = (BOT_GAMES if bots_only else LOBBIES) + address
        pipe = self.redis.pipeline(transaction=False)
        pipe.sadd(key, game_id)
        pipe.expire(key, KEEP_SECONDS)
        await pipe.execute()

    async def open_socket(self, address: str, limit: int) -> bool:
        """Count a WebSocket of ``address`` on this process, unless the address has ``limit``
        open on the live processes already (``False``: refused, nothing counted)."""
        key = SOCKETS + address
        pipe = self.redis.pipeline(transaction=True)
        pipe.hincrby(key, self.process, 1)
        pipe.expire(key, KEEP_SECONDS)
        pipe.hgetall(key)
        counts = {_text(p): int(n) for p, n in (await pipe.execute())[-1].items()}
        live = self.alive | {self.process}
        unknown = [p for p in counts if p not in live]
        if unknown:  # joined since the last beat, or died: ask
            said = await self.redis.mget([ALIVE + p for p in unknown])
            live |= {p for p, v in zip(unknown, said, strict=True) if v is not None}
        total = sum(n for p, n in counts.items() if p in live)
        dead = [p for p in counts if p not in live]
        if dead:  # a process that died cannot close its sockets: its counts go
            with contextlib.suppress(Exception):
                await self.redis.hdel(key, *dead)
        if total > limit:
            await self.redis.hincrby(key, self.process, -1)
            return False
        return True

    async def close_socket(self, address: str) -> None:
        """A WebSocket counted by :meth:`open_socket` closed."""
        await self.redis.hincrby(SOCKETS + address, self.process, -1)
