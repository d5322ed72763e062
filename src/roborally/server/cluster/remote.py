"""The owner's side of a socket another process holds (scale-out mode).

To the room, a :class:`RemoteConnection` is a connection like any other: it has a seat, a
cursor, a message budget. What the room sends it goes to the bus (batched per process, see
:class:`~.node.ClusterNode`); the frames the player sent arrive in its inbox and are handled
one at a time, in order, as a socket of this process would be.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import TYPE_CHECKING

from roborally.server.connection import Connection

if TYPE_CHECKING:
    from roborally.server.cluster.node import ClusterNode
    from roborally.server.room import GameRoom

log = logging.getLogger("roborally.server")

UNBOUNDED = 1 << 62  # the holder's own connection bounds what waits for a slow reader


class RemoteConnection(Connection):
    """A connection whose socket is in process ``holder`` under the id ``ident``."""

    def __init__(
        self,
        node: ClusterNode,
        room: GameRoom,
        holder: str,
        ident: str,
        peer: str,
        address: str,
    ) -> None:
        options = room.ctx.options
        super().__init__(
            None,
            peer,
            address,
            UNBOUNDED,
            None,
            options.messages_per_second,
            options.message_burst,
        )
        self.node = node
        self.room = room
        self.holder = holder
        self.ident = ident
        self.inbox: asyncio.Queue[str | None] = asyncio.Queue()
        self.task = asyncio.get_running_loop().create_task(self._serve())

    def send_text(self, text: str) -> None:
        if not self.closed:
            self.node.send_out(self, text)

    def close(self, code: int = 1000) -> None:
        if not self.closed:
            self.closed = True
            self.close_code = code
            self.node.send_close(self, code)

    def drop(self) -> None:
        self.close(code=1011)

    def frame(self, text: str | None) -> None:
        """A frame from the player (``None``: the socket went away)."""
        self.inbox.put_nowait(text)

    async def _serve(self) -> None:
        try:
            while True:
                text = await self.inbox.get()
                if text is None:
                    break
                await self.room.handle(self, text)
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("game %s: relayed connection %s failed", self.room.id, self.ident)
        finally:
            self.closed = True
            with contextlib.suppress(Exception):
                await asyncio.shield(self.room.detach(self))
            self.node.forget_remote(self)
