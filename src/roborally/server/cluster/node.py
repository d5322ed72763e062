"""One server process in scale-out mode: its leases, its bus, and the routing of games.

* **Owning.** A process owns the games whose lease it holds (:mod:`.lease`) and runs them
  exactly as a single server does (``GameServer.rooms``). It takes a game's lease when it
  creates the game, or when a player or a call needs a game nobody owns (then it loads the game
  from the database: a running game is replayed from its stored actions). It renews its leases
  every third of their life; a lease it finds lost (it was stalled for longer than a lease
  lasts, and another process took the game) makes it let the game go at once.
* **Relaying.** Any process accepts any WebSocket. When another process owns the game, the
  socket's :class:`~.link.Link` sends the player's frames to the owner over the bus
  (:mod:`.bus`) and the owner's :class:`~.remote.RemoteConnection` sends back what the room
  says. A call of the HTTP API about such a game is run by the owner as it came (:mod:`.router`).
* **Failover.** A process that dies stops renewing: its leases expire, and within a few
  seconds the processes that relay sockets to its games notice (they watch the leases of their
  games), take the games or find who took them, and move their links there (the player's hello
  is said again; the page keeps its socket). Games nobody is connected to are found by every
  process's sweep of the database's open and running games. Pages whose sockets were in the
  dead process reconnect on their own, to any process.
* **Lobby.** Each process publishes the summaries of its public open and running games to Redis
  once a second; the lobby list is what every live process published (at most a second old).
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import itertools
import json
import logging
import os
import random
import secrets
import socket
import time
from collections import defaultdict
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from roborally.server.cluster.bus import Bus
from roborally.server.cluster.chat import ChatKeeper
from roborally.server.cluster.lease import Leases, Presence
from roborally.server.cluster.link import Link
from roborally.server.cluster.quota import SharedQuota
from roborally.server.cluster.remote import RemoteConnection
from roborally.server.connection import Connection
from roborally.server.room import BROKEN, FINISHED, OPEN, RUNNING, GameRoom
from roborally.server.store import Store, StoreError, safe_url
from roborally.server.workers import HostLost, WorkerLost

if TYPE_CHECKING:
    from starlette.types import ASGIApp

    from roborally.server.app import GameServer
    from roborally.server.cluster.handoff import Handoff

log = logging.getLogger("roborally.server")

LOBBY = "roborally:lobby:"
FORWARDED = "roborally.forwarded"  # an ASGI scope key: this call was sent by another process
LOAD_ERRORS = (ValueError, KeyError, TypeError, RuntimeError, StoreError, WorkerLost, HostLost)


def process_id() -> str:
    """A process id unique across machines and restarts."""
    return f"{socket.gethostname()[:40]}-{os.getpid()}-{secrets.token_hex(3)}"


@dataclass
class Route:
    """Where a game is: ``room`` here (held, or a finished game read here), ``owner`` another
    process, or neither (no such game: the caller says why)."""

    room: GameRoom | None = None
    owner: str | None = None


@dataclass
class Settings:
    """The cluster's timing (seconds, except the lease)."""

    lease_ms: int = 3000  # a dead process's games wait this long at most before being taken
    sweep_seconds: float = 2.0  # how often the database is searched for games nobody owns
    sweep_batch: int = 20  # games one process takes in one sweep at most
    call_seconds: float = 10.0  # how long a relayed HTTP call waits for the owner's answer


#: Redis connections one process opens at most; more calls at once wait for a free one.
REDIS_CONNECTIONS = 64


def redis_client(url: str, max_connections: int = REDIS_CONNECTIONS, wait: float = 10.0) -> Any:
    """A Redis client whose calls wait (up to ``wait`` seconds) for a free connection when
    ``max_connections`` are busy. The default pool raises at its limit instead: hundreds of
    sockets opening at once then failed their lease lookups (seen by ``make scale``)."""
    import redis.asyncio as aioredis

    pool = aioredis.BlockingConnectionPool.from_url(
        url, max_connections=max_connections, timeout=wait
    )
    return aioredis.Redis(connection_pool=pool)


class ClusterNode:
    """This process's part of the cluster (``GameServer.cluster`` in scale-out mode)."""

    def __init__(
        self, server: GameServer, redis_url: str, settings: Settings | None = None
    ) -> None:
        self.server = server
        self.redis_url = redis_url
        self.settings = settings or Settings()
        self.process = process_id()
        self.app: ASGIApp | None = None  # set by create_app: forwarded calls run through it
        self.redis: Any = None
        self.leases: Leases
        self.presence: Presence
        self.bus: Bus
        self.chat: ChatKeeper
        self.quota: SharedQuota
        self.held: set[str] = set()  # games whose lease this process holds
        self.loading: dict[str, tuple[asyncio.Event, list[dict[str, Any]]]] = {}
        self.links: dict[str, Link] = {}  # every socket of this process, by its id
        self.remotes: dict[str, RemoteConnection] = {}  # sockets of others, by their id
        self.calls: dict[str, asyncio.Future[dict[str, Any]]] = {}
        self.outbuf: dict[str, list[list[Any]]] = defaultdict(list)
        self.flush_armed = False
        self.tasks: list[asyncio.Task[None]] = []
        self.counter = itertools.count(1)
        self.lobby_text = "[]"
        self.loop: asyncio.AbstractEventLoop | None = None
        self.handoff: Handoff | None = None  # set when siblings on this machine share sockets

    # ------------------------------------------------------------ life
    async def start(self) -> None:

        self.loop = asyncio.get_running_loop()
        self.redis = redis_client(self.redis_url)
        await self.redis.ping()
        lease_ms = self.settings.lease_ms
        self.server.store.sync.writer = self.process  # its writes are fenced (Store.claim)
        self.server.ctx.taken_over = self.taken_over
        self.chat = ChatKeeper(self.redis)
        self.quota = SharedQuota(self.redis, self.process)
        self.server.ctx.chat_said = self.chat.said
        self.leases = Leases(self.redis, self.process, lease_ms)
        self.presence = Presence(self.redis, self.process, lease_ms)
        self.bus = Bus(self.redis, self.process, self.on_message)
        await self.bus.start()
        await self.presence.beat()
        loop = asyncio.get_running_loop()
        self.tasks = [loop.create_task(self._beats()), loop.create_task(self._sweeps())]
        log.info("cluster: process %s joined (Redis %s)", self.process, safe_url(self.redis_url))

    async def stop(self) -> None:
        """Let every game go (their new owners take them at once) and leave the cluster."""
        for task in self.tasks:
            task.cancel()
        for task in self.tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        for game_id in list(self.held):
            await self._let_go(game_id, moving=False)
        for link in list(self.links.values()):
            link.conn.close(1001)  # the page reconnects, to another process
        with contextlib.suppress(Exception):
            await self.chat.flush()
            await self.bus.stop()
            await self.presence.leave()
            await self.redis.aclose()
        log.info("cluster: process %s left", self.process)

    # ---------------------------------------------------------- owning
    async def hold_new(self, game_id: str) -> None:
        """Own a game being created (before it is stored: nobody can take it meanwhile)."""
        if not await self.leases.acquire(game_id):
            raise RuntimeError(f"the new game id {game_id} is leased already")
        self.held.add(game_id)

    def release_new(self, game_id: str) -> None:
        """A game that could not be created after all."""
        self.held.discard(game_id)
        asyncio.get_running_loop().create_task(self._release(game_id))

    async def _release(self, game_id: str) -> None:
        with contextlib.suppress(Exception):
            await self.leases.release(game_id)

    async def claim(self, game_id: str) -> GameRoom | None:
        """Take a game nobody owns and load it from the database (``None``: somebody else was
        quicker, or the game is not one to own)."""
        if not await self.leases.acquire(game_id):
            return None
        event = asyncio.Event()
        self.loading[game_id] = (event, [])
        room: GameRoom | None = None
        try:
            room = await self._load(game_id)
        finally:
            _, waiting = self.loading.pop(game_id)
            event.set()
            if room is None:
                await self._release(game_id)
            else:
                self.held.add(game_id)
            for data in waiting:
                self.on_message(data)
        return room

    async def _load(self, game_id: str) -> GameRoom | None:
        server = self.server
        known = server.rooms.get(game_id)
        if known is not None and known.status == FINISHED:
            return known  # a finished game read here before: it is the same everywhere
        # Fenced off first: a process that held the game before and stalled past its lease
        # can no longer write it, and the load sees everything it wrote.
        await server.store.run(Store.claim, game_id)
        stored = await server.store.run(Store.load, game_id)
        if stored is None or stored.status not in (OPEN, RUNNING, FINISHED):
            return None
        room = GameRoom.from_stored(server.ctx, stored)
        await self.chat.restore(room)
        server.rooms[game_id] = room
        try:
            if stored.status == FINISHED:
                await room.load()
            else:
                await room.resume()
        except LOAD_ERRORS as error:
            server.rooms.pop(game_id, None)
            log.error("game %s could not be taken over: %s", game_id, error)
            if stored.status != FINISHED:
                server.broken.append(game_id)
                with contextlib.suppress(StoreError):
                    await server.store.run(Store.update_game, game_id, status=BROKEN)
            return None
        log.info("game %s: taken over by %s (%s)", game_id, self.process, stored.status)
        return room

    async def _let_go(self, game_id: str, moving: bool) -> None:
        """Stop owning a game: its relayed sockets are told to move, its own sockets move (when
        ``moving``: the lease was lost) or are closed with the server (shutdown)."""
        self.held.discard(game_id)
        room = self.server.rooms.pop(game_id, None)
        if not moving:  # released before the sockets move: their next owner may take it
            await self._release(game_id)
        if room is not None:
            await room.close(save=not moving)
            with contextlib.suppress(Exception):
                if self.server.pool.holds(game_id):
                    await self.server.pool.close(game_id)
            for conn in list(room.conns):
                if isinstance(conn, RemoteConnection):
                    self.bus.publish(conn.holder, {"k": "moved", "g": game_id, "c": conn.ident})
                    conn.task.cancel()
        if not moving:
            return
        for link in [k for k in self.links.values() if k.game_id == game_id and not k.relayed]:
            asyncio.get_running_loop().create_task(self._move(link))

    def taken_over(self, game_id: str) -> None:
        """A save found the game taken over by another process: this one stalled past its
        lease, and its next beat would notice too late (every save fails meanwhile)."""
        if game_id not in self.held:
            return
        log.warning("game %s: another process took it over; letting it go", game_id)
        self.held.discard(game_id)
        asyncio.get_running_loop().create_task(self._let_go(game_id, moving=True))

    # ---------------------------------------------------------- routing
    async def route(self, game_id: str, socket: bool) -> Route:
        """Where a game is, taking it if nobody owns it. A finished game is read where it is
        asked for (it no longer changes), except by a socket: its chat and its rematch need
        one owner."""
        for _ in range(20):
            room = self.server.rooms.get(game_id)
            if game_id in self.held and room is not None:
                return Route(room=room)
            loading = self.loading.get(game_id)
            if loading is not None:
                await loading[0].wait()
                continue
            owner = await self.leases.owner(game_id)
            if owner == self.process:  # being let go right now
                await asyncio.sleep(0.05)
                continue
            if owner is not None:
                return Route(owner=owner)
            status = await self.server.store.run(Store.status, game_id)
            if status in (OPEN, RUNNING) or (socket and status == FINISHED):
                claimed = await self.claim(game_id)
                if claimed is not None:
                    return Route(room=claimed)
                continue
            return Route(room=room)
        raise RuntimeError(f"game {game_id} changes hands too fast to be reached")

    async def open_link(self, game_id: str, conn: Connection) -> Link | None:
        route = await self.route(game_id, socket=True)
        if route.room is None and route.owner is None:
            return None
        ident = f"{self.process}/{next(self.counter)}"
        link = Link(conn, game_id, route.room, route.owner, self, ident)
        self.links[ident] = link
        return link

    def forget_link(self, link: Link) -> None:
        self.links.pop(link.ident, None)

    async def _move(self, link: Link) -> None:
        """Find the game's place again and move the link there."""
        try:
            route = await self.route(link.game_id, socket=True)
        except Exception as error:  # Redis or the database is away: the next beat tries again
            log.warning("game %s: cannot move %s yet: %s", link.game_id, link.conn.peer, error)
            link.owner = "?"
            return
        if route.room is None and route.owner is None:
            link.conn.close(1011)
            return
        await link.move(route.room, route.owner)

    # ------------------------------------------------- relaying (holder)
    def relay_attach(self, link: Link) -> None:
        assert link.owner is not None
        conn = link.conn
        self.bus.publish(
            link.owner,
            {
                "k": "attach",
                "g": link.game_id,
                "c": link.ident,
                "p": self.process,
                "peer": conn.peer,
                "addr": conn.address,
            },
        )

    def relay_frame(self, link: Link, text: str) -> None:
        assert link.owner is not None
        self.bus.publish(link.owner, {"k": "frame", "g": link.game_id, "c": link.ident, "t": text})

    def relay_detach(self, link: Link) -> None:
        if link.owner is not None and link.owner != "?":
            self.bus.publish(link.owner, {"k": "detach", "g": link.game_id, "c": link.ident})

    # ------------------------------------------------- relaying (owner)
    def send_out(self, conn: RemoteConnection, text: str | None, code: int = 0) -> None:
        """Queue a text (or, with ``text=None``, a close) for a relayed socket; everything
        queued in one turn of the event loop goes to each process in one message."""
        self.outbuf[conn.holder].append([conn.ident, conn.cursor, text, code, conn.hello])
        if not self.flush_armed:
            self.flush_armed = True
            asyncio.get_running_loop().call_soon(self._flush)

    def send_close(self, conn: RemoteConnection, code: int) -> None:
        self.send_out(conn, None, code)

    def _flush(self) -> None:
        self.flush_armed = False
        batches, self.outbuf = self.outbuf, defaultdict(list)
        for holder, items in batches.items():
            # The cursor of a socket is the room's once the turn is over (the room moves it
            # after queuing the events); so is whether its hello was accepted.
            for item in items:
                remote = self.remotes.get(item[0])
                if remote is not None:
                    item[1], item[4] = remote.cursor, remote.hello
            self.bus.publish(holder, {"k": "out", "m": items})

    def forget_remote(self, conn: RemoteConnection) -> None:
        if self.remotes.get(conn.ident) is conn:
            del self.remotes[conn.ident]

    # ------------------------------------------------------ the bus
    def on_message(self, data: dict[str, Any]) -> None:
        kind = data.get("k")
        if kind == "out":
            self._deliver(data["m"])
        elif kind == "moved":
            link = self.links.get(data["c"])
            if link is not None and link.relayed:
                asyncio.get_running_loop().create_task(self._move(link))
        elif kind == "reply":
            future = self.calls.pop(data["id"], None)
            if future is not None and not future.done():
                future.set_result(data)
        elif kind in ("attach", "frame", "detach", "http"):
            self._for_game(data)

    def _deliver(self, items: list[list[Any]]) -> None:
        for ident, cursor, text, code, hello in items:
            link = self.links.get(ident)
            if link is None or not link.relayed:
                continue
            link.cursor = cursor
            link.conn.hello = hello  # the socket's hello deadline no longer applies
            if text is None:
                link.conn.close(code or 1000)
            else:
                link.learn_token(text)
                link.conn.send_text(text)

    def _for_game(self, data: dict[str, Any]) -> None:
        game_id = data["g"]
        loading = self.loading.get(game_id)
        if loading is not None:
            loading[1].append(data)
            return
        room = self.server.rooms.get(game_id)
        kind = data["k"]
        if kind == "http":
            asyncio.get_running_loop().create_task(self._answer_http(data))
            return
        ident = data["c"]
        if game_id not in self.held or room is None:
            if kind != "detach":
                holder = data.get("p") or ident.rsplit("/", 1)[0]
                self.bus.publish(holder, {"k": "moved", "g": game_id, "c": ident})
            return
        if kind == "attach":
            old = self.remotes.pop(ident, None)
            if old is not None:
                old.frame(None)
            remote = RemoteConnection(self, room, data["p"], ident, data["peer"], data["addr"])
            self.remotes[ident] = remote
            room.attach(remote)
            return
        known = self.remotes.get(ident)
        if known is None or known.room is not room:
            if kind == "frame":  # its attach was lost: have the holder say hello again
                self.bus.publish(ident.rsplit("/", 1)[0], {"k": "moved", "g": game_id, "c": ident})
            return
        known.frame(data["t"] if kind == "frame" else None)

    # ------------------------------------------------------- HTTP calls
    async def forward_http(
        self, owner: str, game_id: str, scope: dict[str, Any], body: bytes
    ) -> dict[str, Any] | None:
        """Have ``owner`` answer an HTTP call about its game; ``None`` if it did not (it let
        the game go, or did not answer in time: ask :meth:`route` again)."""
        call_id = f"{self.process}/{next(self.counter)}"
        future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self.calls[call_id] = future
        self.bus.publish(
            owner,
            {
                "k": "http",
                "g": game_id,
                "id": call_id,
                "p": self.process,
                "scope": {
                    "method": scope["method"],
                    "scheme": scope.get("scheme", "http"),
                    "path": scope["path"],
                    "query": scope.get("query_string", b"").decode("latin-1"),
                    "headers": [
                        [k.decode("latin-1"), v.decode("latin-1")] for k, v in scope["headers"]
                    ],
                    "client": list(scope["client"]) if scope.get("client") else None,
                    "server": list(scope["server"]) if scope.get("server") else None,
                },
                "body": base64.b64encode(body).decode("ascii"),
            },
        )
        try:
            reply = await asyncio.wait_for(future, self.settings.call_seconds)
        except TimeoutError:
            return None
        finally:
            self.calls.pop(call_id, None)
        return None if reply.get("moved") else reply

    async def _answer_http(self, data: dict[str, Any]) -> None:
        game_id = data["g"]
        answer: dict[str, Any] = {"k": "reply", "id": data["id"]}
        if game_id not in self.held or self.app is None:
            answer["moved"] = True
        else:
            status, headers, body = await _run_asgi(self.app, data["scope"], data["body"])
            answer |= {"status": status, "headers": headers, "body": body}
        self.bus.publish(data["p"], answer)

    async def call(self, path: str, body: bytes, client: str) -> tuple[int, bytes]:
        """POST ``body`` to ``path`` of the HTTP API from this process itself, as if
        ``client`` had: the router sends it to the owner of its game, wherever that is (the
        rematch of a finished game owned elsewhere). Its status and body."""
        assert self.app is not None
        data = {
            "method": "POST",
            "scheme": "http",
            "path": path,
            "query": "",
            "headers": [["content-type", "application/json"]],
            "client": [client, 0],
            "server": None,
        }
        status, _, answer = await _run_asgi(
            self.app, data, base64.b64encode(body).decode("ascii"), forwarded=False
        )
        return status, base64.b64decode(answer)

    # ------------------------------------------------------------ beats
    async def _beats(self) -> None:
        every = self.settings.lease_ms / 3000
        while True:
            started = time.monotonic()
            try:
                await self._beat()
            except asyncio.CancelledError:
                raise
            except Exception as error:
                log.warning("cluster: beat failed: %s", error)
            await asyncio.sleep(max(0.05, every - (time.monotonic() - started)))

    async def _beat(self) -> None:
        rooms = self.server.rooms
        for game_id in [g for g in self.held if g not in rooms and g not in self.loading]:
            self.held.discard(game_id)  # pruned or closed: nobody needs it here any more
            await self._release(game_id)
        lost = await self.leases.renew(sorted(self.held))
        for game_id in lost:
            log.warning("game %s: this process lost its lease; letting it go", game_id)
            await self._let_go(game_id, moving=True)
        self.lobby_text = json.dumps(
            [
                room.summary("")
                for game_id, room in rooms.items()
                if game_id in self.held and room.status in (OPEN, RUNNING) and room.settings.public
            ]
        )
        await self.presence.beat({LOBBY + self.process: self.lobby_text})
        self.quota.alive = set(await self.presence.members())
        await self._check_holders()
        await self._check_owners()

    async def _check_holders(self) -> None:
        """Let go of relayed connections whose process died."""
        holders = {r.holder for r in self.remotes.values()}
        if not holders:
            return
        alive = await self.presence.alive(holders)
        for remote in [r for r in self.remotes.values() if r.holder not in alive]:
            log.info("game %s: %s went with its process", remote.room.id, remote.peer)
            remote.frame(None)
            self.remotes.pop(remote.ident, None)

    async def _check_owners(self) -> None:
        """Move relayed links whose game's owner changed (it died: its lease expired)."""
        relayed = [k for k in self.links.values() if k.relayed and not k.gone]
        if not relayed:
            return
        games = sorted({k.game_id for k in relayed})
        owners = dict(zip(games, await self.leases.owners(games), strict=True))
        for link in relayed:
            if owners[link.game_id] != link.owner:
                asyncio.get_running_loop().create_task(self._move(link))

    async def _sweeps(self) -> None:
        while True:
            await asyncio.sleep(self.settings.sweep_seconds * random.uniform(0.75, 1.25))
            try:
                await self._sweep()
            except asyncio.CancelledError:
                raise
            except Exception as error:
                log.warning("cluster: sweep failed: %s", error)

    async def _sweep(self) -> None:
        """Take games nobody owns (their owner died and nobody is connected to them)."""
        ids = await self.server.store.run(Store.ids_with_status, OPEN, RUNNING)
        ids = [g for g in ids if g not in self.server.rooms]
        if not ids:
            return
        owners = await self.leases.owners(ids)
        orphans = [g for g, owner in zip(ids, owners, strict=True) if owner is None]
        random.shuffle(orphans)
        for game_id in orphans[: self.settings.sweep_batch]:
            await self.claim(game_id)

    # ------------------------------------------------------------ lobby
    async def lobby(self, base: str) -> list[dict[str, Any]]:
        """The public open and running games of every live process."""
        processes = await self.presence.members()
        texts = await self.redis.mget([LOBBY + p for p in processes]) if processes else []
        games: list[dict[str, Any]] = []
        for text in texts:
            if text is None:
                continue
            for summary in json.loads(text):
                summary["spectator_url"] = base + summary["spectator_url"]
                games.append(summary)
        games.sort(key=lambda g: g["created"])
        return games

    async def owner_of(self, game_id: str) -> str | None:
        """The process that owns a game now, if any (a lease lookup; no game is taken)."""
        if game_id in self.held:
            return self.process
        return await self.leases.owner(game_id)

    def health(self) -> dict[str, Any]:
        figures = {
            "process": self.process,
            "owned": len(self.held),
            "relayed_out": sum(1 for k in self.links.values() if k.relayed),
            "relayed_in": len(self.remotes),
        }
        if self.handoff is not None:
            figures["handed_out"] = self.handoff.handed
            figures["handed_in"] = self.handoff.received
            figures["not_handed"] = self.handoff.kept
        return figures


async def _run_asgi(
    app: ASGIApp, data: dict[str, Any], body64: str, forwarded: bool = True
) -> tuple[int, list[list[str]], str]:
    """Run an HTTP call through this process's own app; its status, headers, body. A call
    ``forwarded`` by another process is answered here; any other is routed as one from
    outside would be."""
    body = base64.b64decode(body64)
    scope: dict[str, Any] = {
        "type": "http",
        "asgi": {"version": "3.0", "spec_version": "2.3"},
        "http_version": "1.1",
        "method": data["method"],
        "scheme": data["scheme"],
        "path": data["path"],
        "raw_path": data["path"].encode("utf-8"),
        "query_string": data["query"].encode("latin-1"),
        "root_path": "",
        "headers": [(k.encode("latin-1"), v.encode("latin-1")) for k, v in data["headers"]],
        "client": tuple(data["client"]) if data["client"] else None,
        "server": tuple(data["server"]) if data["server"] else None,
        FORWARDED: forwarded,
    }
    sent = False
    status = 500
    headers: list[list[str]] = []
    chunks: list[bytes] = []

    async def receive() -> dict[str, Any]:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        await asyncio.Event().wait()  # no disconnect: the caller waits for the answer
        raise AssertionError("unreachable")

    async def send(message: dict[str, Any]) -> None:
        nonlocal status
        if message["type"] == "http.response.start":
            status = message["status"]
            headers.extend(
                [k.decode("latin-1"), v.decode("latin-1")] for k, v in message.get("headers", [])
            )
        elif message["type"] == "http.response.body":
            chunks.append(message.get("body", b""))

    await app(scope, receive, send)  # type: ignore[arg-type]
    return status, headers, base64.b64encode(b"".join(chunks)).decode("ascii")
