"""A game's chat in scale-out mode: its last entries are kept in Redis as well as in the room,
so a process that takes the game over (its owner died or stopped) shows the same chat.

The list ``roborally:chat:<game>`` holds the last :data:`CHAT_KEEP` entries as JSON, and
disappears :data:`CHAT_TTL` seconds after the last one was said. Chat is still never stored in
the database or the game record (docs/server.md): Redis keeps it only while people talk.
"""

from __future__ import annotations

import asyncio
import json
import logging
from typing import TYPE_CHECKING, Any

from roborally.server.social import CHAT_KEEP

if TYPE_CHECKING:
    from roborally.server.room import GameRoom

log = logging.getLogger("roborally.server")

CHAT = "roborally:chat:"
CHAT_TTL = 24 * 3600  # seconds a game's chat is kept after its last entry


class ChatKeeper:
    """Keeps every entry said in this process's games, and gives them back on a takeover."""

    def __init__(self, redis: Any) -> None:
        self.redis = redis
        self.pending: set[asyncio.Task[None]] = set()

    def said(self, game_id: str, entry: dict[str, Any]) -> None:
        """Keep ``entry`` (called as it is said; written soon, in the background)."""
        task = asyncio.get_running_loop().create_task(self._keep(game_id, entry))
        self.pending.add(task)
        task.add_done_callback(self.pending.discard)

    async def _keep(self, game_id: str, entry: dict[str, Any]) -> None:
        key = CHAT + game_id
        try:
            pipe = self.redis.pipeline(transaction=True)
            pipe.rpush(key, json.dumps(entry, separators=(",", ":")))
            pipe.ltrim(key, -CHAT_KEEP, -1)
            pipe.expire(key, CHAT_TTL)
            await pipe.execute()
        except Exception as error:  # the chat goes on in the room; only a takeover loses it
            log.warning("game %s: a chat entry was not kept in Redis (%s)", game_id, error)

    async def restore(self, room: GameRoom) -> None:
        """Give a room taken over from another process the chat said there."""
        try:
            kept = await self.redis.lrange(CHAT + room.id, 0, -1)
        except Exception as error:
            log.warning("game %s: its chat could not be read from Redis (%s)", room.id, error)
            return
        entries: list[dict[str, Any]] = []
        for text in kept:
            try:
                entry = json.loads(text)
            except ValueError:
                continue
            if isinstance(entry, dict) and isinstance(entry.get("n"), int):
                entries.append(entry)
        room.talk.restore(entries)

    async def flush(self) -> None:
        """Wait for the entries still being written (a clean stop)."""
        if self.pending:
            await asyncio.wait(list(self.pending), timeout=2.0)
