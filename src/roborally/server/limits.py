"""Per-address limits: how many sockets one client address may hold and how fast it may create
games. The address is the TCP peer, or the one a trusted reverse proxy reports
(``roborally serve --trusted-proxy``). Limits are :class:`ServerOptions` fields
(docs/server.md "Limits").
"""

from __future__ import annotations

import math
import time
from collections import Counter
from dataclasses import dataclass

from roborally.server.settings import ServerOptions


@dataclass
class Refusal:
    """Why an address is refused now, and when to try again (for ``Retry-After``)."""

    code: str
    message: str
    retry_after: int = 0


class AddressLimits:
    """Open sockets per address, and a token bucket of game creations per address."""

    def __init__(self, options: ServerOptions) -> None:
        self.options = options
        self.sockets: Counter[str] = Counter()
        self._buckets: dict[str, tuple[float, float]] = {}  # address -> (tokens, stamp)

    # ------------------------------------------------------------ sockets
    def open_socket(self, address: str) -> Refusal | None:
        limit = self.options.connections_per_address
        if self.sockets[address] >= limit:
            return Refusal(
                "too_many_connections",
                f"this address already has {limit} connections open; close some tabs",
                5,
            )
        self.sockets[address] += 1
        return None

    def close_socket(self, address: str) -> None:
        self.sockets[address] -= 1
        if self.sockets[address] <= 0:
            del self.sockets[address]

    # ------------------------------------------------------------ games
    def create_game(self, address: str) -> Refusal | None:
        """Take one creation from ``address``'s bucket (``games_per_minute`` at once, then one
        every 60/``games_per_minute`` seconds)."""
        per_minute = self.options.games_per_minute
        now = time.monotonic()
        tokens, stamp = self._buckets.get(address, (float(per_minute), now))
        tokens = min(float(per_minute), tokens + (now - stamp) * per_minute / 60.0)
        if tokens < 1:
            wait = math.ceil((1 - tokens) * 60.0 / per_minute)
            self._buckets[address] = (tokens, now)
            return Refusal(
                "rate_limited",
                f"this address may create {per_minute} games a minute; try again in {wait} s",
                wait,
            )
        self._buckets[address] = (tokens - 1, now)
        if len(self._buckets) > 10_000:  # forget addresses whose buckets are full again
            full = [
                a
                for a, (t, s) in self._buckets.items()
                if t + (now - s) * per_minute / 60.0 >= per_minute
            ]
            for stale in full:
                del self._buckets[stale]
        return None
