"""Leases in Redis: which process owns a running game, and which processes are alive.

A game's lease is the key ``roborally:lease:<game>`` holding the owner's process id, set with
``SET NX PX`` (nobody else holds it) and kept alive by its owner with a compare-and-set script
that extends only keys that still name it. An owner that dies stops renewing: its leases expire
after ``lease_ms`` and another process may take the games (docs/scaling.md "Failover").

A process says it is alive the same way (``roborally:alive:<process>``), so a game's owner can
let go of the connections another process relayed to it once that process is gone.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

LEASE = "roborally:lease:"
ALIVE = "roborally:alive:"
PROCESSES = "roborally:processes"  # the ids of every process that said it was alive

#: Extend every key of KEYS that still holds ARGV[1] by ARGV[2] ms; the (1-based) positions
#: of those that do not (expired, or another process took them).
_RENEW = """
local lost = {}
for i, key in ipairs(KEYS) do
  if redis.call('GET', key) == ARGV[1] then
    redis.call('PEXPIRE', key, ARGV[2])
  else
    table.insert(lost, i)
  end
end
return lost
"""

#: Delete KEYS[1] only if it still holds ARGV[1] (a lease another process took stays its own).
_RELEASE = """
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0
"""

CHUNK = 500  # keys per renewal script call (one round trip each)


def _text(value: Any) -> str | None:
    if value is None:
        return None
    return value.decode("utf-8") if isinstance(value, bytes) else str(value)


class Leases:
    """The game leases of one process (``redis`` is a ``redis.asyncio.Redis``)."""

    def __init__(self, redis: Any, process: str, lease_ms: int = 3000) -> None:
        if lease_ms < 100:
            raise ValueError("a lease lasts at least 100 ms")
        self.redis = redis
        self.process = process
        self.lease_ms = lease_ms
        self._renew = redis.register_script(_RENEW)
        self._release = redis.register_script(_RELEASE)

    async def acquire(self, game_id: str) -> bool:
        """Take the game's lease if nobody holds it."""
        done = await self.redis.set(LEASE + game_id, self.process, nx=True, px=self.lease_ms)
        return bool(done)

    async def renew(self, game_ids: Iterable[str]) -> list[str]:
        """Extend the leases of ``game_ids``; the ids whose lease this process no longer holds."""
        ids = list(game_ids)
        lost: list[str] = []
        for start in range(0, len(ids), CHUNK):
            part = ids[start : start + CHUNK]
            keys = [LEASE + game_id for game_id in part]
            positions = await self._renew(keys=keys, args=[self.process, self.lease_ms])
            lost += [part[int(p) - 1] for p in positions]
        return lost

    async def release(self, game_id: str) -> bool:
        """Give the lease up (if it is still this process's)."""
        return bool(await self._release(keys=[LEASE + game_id], args=[self.process]))

    async def owner(self, game_id: str) -> str | None:
        return _text(await self.redis.get(LEASE + game_id))

    async def owners(self, game_ids: list[str]) -> list[str | None]:
        if not game_ids:
            return []
        values = await self.redis.mget([LEASE + game_id for game_id in game_ids])
        return [_text(v) for v in values]


class Presence:
    """Whether processes are alive: each renews its own key; a dead one's expires."""

    def __init__(self, redis: Any, process: str, lease_ms: int = 3000) -> None:
        self.redis = redis
        self.process = process
        self.lease_ms = lease_ms

    async def beat(self, extra: dict[str, str] | None = None) -> None:
        """Say this process is alive for another ``lease_ms`` (and set ``extra`` keys for as
        long: the process's lobby snapshot)."""
        pipe = self.redis.pipeline(transaction=False)
        pipe.set(ALIVE + self.process, "1", px=self.lease_ms)
        pipe.sadd(PROCESSES, self.process)
        for key, value in (extra or {}).items():
            pipe.set(key, value, px=self.lease_ms)
        await pipe.execute()

    async def alive(self, processes: Iterable[str]) -> set[str]:
        names = sorted(set(processes))
        if not names:
            return set()
        values = await self.redis.mget([ALIVE + p for p in names])
        return {p for p, v in zip(names, values, strict=True) if v is not None}

    async def members(self) -> list[str]:
        """Every live process (the dead ones are forgotten on the way)."""
        names = sorted(_text(p) or "" for p in await self.redis.smembers(PROCESSES))
        living = await self.alive(names)
        dead = [p for p in names if p not in living]
        if dead:
            await self.redis.srem(PROCESSES, *dead)
        return [p for p in names if p in living]

    async def leave(self) -> None:
        pipe = self.redis.pipeline(transaction=False)
        pipe.delete(ALIVE + self.process)
        pipe.srem(PROCESSES, self.process)
        await pipe.execute()
