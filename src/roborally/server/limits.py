"""Per-address limits: how many sockets one client address may hold, how fast it may call the
API and how fast it may create games. The address is the TCP peer, or the one a trusted reverse
proxy reports (``roborally serve --trusted-proxy``), counted by :func:`client_key` (an IPv6
client by its /64). Limits are :class:`ServerOptions` fields (docs/server.md "Limits").
"""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import math
import time
import weakref
from collections import Counter
from collections.abc import AsyncIterator
from dataclasses import dataclass

from roborally.server.api_error import ApiError
from roborally.server.settings import ServerOptions

IPV6_PREFIX = 64  # one IPv6 client network: a home or a server gets a /64 (2^64 addresses)


def client_key(host: str) -> str:
    """The address the per-address limits count a client by: an IPv4 address as it is, an
    IPv6 address by its /64 network (whoever has one address of a /64 has them all), an
    IPv4 address written as IPv6 (``::ffff:1.2.3.4``) as IPv4.

    >>> client_key("203.0.113.9")
    '203.0.113.9'
    >>> client_key("2001:db8:1:2:aaaa::1")
    '2001:db8:1:2::/64'
    >>> client_key("::ffff:198.51.100.7")
    '198.51.100.7'
    """
    try:
        ip = ipaddress.ip_address(host)
    except ValueError:  # not an address (a test client's name, a Unix socket)
        return host
    if isinstance(ip, ipaddress.IPv4Address):
        return host
    if ip.ipv4_mapped is not None:
        return str(ip.ipv4_mapped)
    return str(ipaddress.IPv6Network((ip, IPV6_PREFIX), strict=False))


@dataclass
class Refusal:
    """Why an address is refused now, and when to try again (for ``Retry-After``)."""

    code: str
    message: str
    retry_after: int = 0


class Buckets:
    """A token bucket per address: ``burst`` at once, then ``per_second``."""

    def __init__(self, per_second: float, burst: float) -> None:
        self.per_second = per_second
        self.burst = burst
        self._buckets: dict[str, tuple[float, float]] = {}  # address -> (tokens, stamp)

    def take(self, address: str) -> float:
        """Take one token; 0 if there was one, else the seconds until there is."""
        now = time.monotonic()
        tokens, stamp = self._buckets.get(address, (self.burst, now))
        tokens = min(self.burst, tokens + (now - stamp) * self.per_second)
        if tokens < 1:
            self._buckets[address] = (tokens, now)
            return (1 - tokens) / self.per_second
        self._buckets[address] = (tokens - 1, now)
        if len(self._buckets) > 10_000:  # forget addresses whose buckets are full again
            full = [
                a
                for a, (t, s) in self._buckets.items()
                if t + (now - s) * self.per_second >= self.burst
            ]
            for stale in full:
                del self._buckets[stale]
        return 0.0


class AddressLimits:
    """Open sockets per address, and token buckets of API calls and game creations."""

    def __init__(self, options: ServerOptions) -> None:
        self.options = options
        self.sockets: Counter[str] = Counter()
        per_minute = options.games_per_minute
        self.creations = Buckets(per_minute / 60.0, per_minute)
        self.requests = Buckets(options.requests_per_second, options.request_burst)

    # ------------------------------------------------------------ sockets
    def open_socket(self, address: str) -> Refusal | None:
        limit = self.options.connections_per_address
        if self.sockets[address] >= limit:
            return connections_refusal(limit)
        self.sockets[address] += 1
        return None

    def close_socket(self, address: str) -> None:
        self.sockets[address] -= 1
        if self.sockets[address] <= 0:
            del self.sockets[address]

    # ------------------------------------------------------------ requests
    def request(self, address: str) -> Refusal | None:
        """One call of the HTTP API (``requests_per_second``, bursts of ``request_burst``)."""
        wait = self.requests.take(address)
        return request_refusal(wait) if wait else None

    def create_game(self, address: str) -> Refusal | None:
        """Take one creation from ``address``'s bucket (``games_per_minute`` at once, then one
        every 60/``games_per_minute`` seconds)."""
        wait = self.creations.take(address)
        return creation_refusal(self.options.games_per_minute, wait) if wait else None


def request_refusal(wait: float) -> Refusal:
    """An address made its burst of API calls faster than the rate: it waits ``wait`` s."""
    seconds = math.ceil(wait)
    return Refusal(
        "rate_limited", f"too many requests from this address; try again in {seconds} s", seconds
    )


def creation_refusal(per_minute: int, wait: float) -> Refusal:
    """An address created ``per_minute`` games in the last minute: it waits ``wait`` s."""
    seconds = math.ceil(wait)
    return Refusal(
        "rate_limited",
        f"this address may create {per_minute} games a minute; try again in {seconds} s",
        seconds,
    )


def connections_refusal(limit: int) -> Refusal:
    """An address has ``limit`` WebSockets open already."""
    return Refusal(
        "too_many_connections",
        f"this address already has {limit} connections open; close some tabs",
        5,
    )


class WorkGate:
    """Costly calls (a course's rule check) ``running`` at a time; when ``in_flight`` are
    already running or waiting, the next is refused at once with ``503 busy`` and
    ``Retry-After`` rather than queued without end. The slots belong to the event loop they
    are used on (a gate may outlive one: tests start many apps)."""

    def __init__(self, running: int, in_flight: int, retry_after: int) -> None:
        self.running = max(1, running)
        self.in_flight = max(self.running, in_flight)
        self.retry_after = retry_after
        self.held = 0  # running and waiting now
        self._slots: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, asyncio.Semaphore] = (
            weakref.WeakKeyDictionary()
        )

    @contextlib.asynccontextmanager
    async def slot(self) -> AsyncIterator[None]:
        """Hold one of the running slots for the ``async with`` block."""
        if self.held >= self.in_flight:
            raise ApiError(
                503, "busy", "the server is checking many courses; try again soon", self.retry_after
            )
        loop = asyncio.get_running_loop()
        slots = self._slots.get(loop)
        if slots is None:
            slots = self._slots[loop] = asyncio.Semaphore(self.running)
        self.held += 1
        try:
            async with slots:
                yield
        finally:
            self.held -= 1
