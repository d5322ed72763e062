"""One WebSocket as the server sees it: its seat, a byte-bounded outgoing queue, a rate limit.

A client that does not read its messages is dropped once ``limit`` bytes wait for it: the
server never buffers without bound for anyone (docs/server.md "Limits").
"""

from __future__ import annotations

import asyncio
import collections
import logging
import time
from collections.abc import Callable
from typing import Any

from roborally.server.host import dumps
from roborally.server.protocol import CLOSE_TOO_SLOW

log = logging.getLogger("roborally.server")


def text_bytes(text: str) -> int:
    """The UTF-8 size of ``text`` (cheap for the ASCII almost every message is)."""
    return len(text) if text.isascii() else len(text.encode("utf-8", "replace"))


class Connection:
    """A socket's outgoing queue (texts, then ``None`` to close), its seat once it said hello,
    the next event it has not been sent, and its message budget."""

    def __init__(
        self,
        token: str | None = None,
        peer: str = "?",
        address: str = "?",
        limit: int = 4 << 20,
        abort: Callable[[], None] | None = None,
        rate: float = 50.0,
        burst: int = 100,
    ) -> None:
        self.token = token
        self.peer = peer
        self.address = address
        self.limit = limit
        self.abort = abort
        self.seat: int | None = None
        self.hello = False
        self.cursor = 0
        self.shown = 0  # the page has finished showing the events before this index
        self.reported = False  # it has said 'shown' (only then do clocks wait for its animation)
        self.speed = 1.0  # the animation speed its page plays at (hello, shown), 0: none
        self.opened = time.monotonic()
        self.pending: collections.deque[str | None] = collections.deque()
        self.pending_bytes = 0
        self.wakeup = asyncio.Event()
        self.closed = False
        self.close_code: int | None = None
        self.strikes = 0  # messages refused for rate in a row
        self.rate = rate
        self.burst = float(burst)
        self._tokens = self.burst
        self._stamp = time.monotonic()

    def send(self, data: dict[str, Any]) -> None:
        self.send_text(dumps(data))

    def send_text(self, text: str) -> None:
        if self.closed:
            return
        size = text_bytes(text)
        if self.pending_bytes + size > self.limit:
            log.warning(
                "connection %s: dropped, %d bytes waiting (limit %d): it does not read",
                self.peer,
                self.pending_bytes + size,
                self.limit,
            )
            self.drop()
            return
        self.pending.append(text)
        self.pending_bytes += size
        self.wakeup.set()

    def next_message(self) -> str | None:
        """Take the next queued text (``None``: close now)."""
        item = self.pending.popleft()
        if item is not None:
            self.pending_bytes -= text_bytes(item)
        return item

    async def wait(self) -> None:
        while not self.pending:
            self.wakeup.clear()
            await self.wakeup.wait()

    def close(self, code: int = 1000) -> None:
        """Stop sending; the writer closes the socket with ``code`` after the queued messages."""
        if not self.closed:
            self.closed = True
            self.close_code = code
            self.pending.append(None)
            self.wakeup.set()

    def drop(self) -> None:
        """Forget what waits and cut the connection (a client that does not read)."""
        self.pending.clear()
        self.pending_bytes = 0
        self.close(CLOSE_TOO_SLOW)
        if self.abort is not None:
            self.abort()

    def allow(self) -> bool:
        """A token bucket: at most ``rate`` messages a second on average, ``burst`` at once."""
        now = time.monotonic()
        self._tokens = min(self.burst, self._tokens + (now - self._stamp) * self.rate)
        self._stamp = now
        if self._tokens < 1:
            return False
        self._tokens -= 1
        return True

    def refund(self) -> None:
        """An accepted decision costs nothing: a fast bot is paced by the game, not the limit."""
        self._tokens = min(self.burst, self._tokens + 1)
