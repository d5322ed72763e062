"""The ASGI application: the lobby's HTTP API, one WebSocket per game, and the static web page.

``create_app(data_dir)`` builds a Starlette app around a :class:`GameServer`; ``serve`` runs it
with uvicorn (``roborally serve``). The protocol is documented in ``docs/protocol.md``, the
server's limits and storage in ``docs/server.md``, hosting in ``docs/hosting.md``.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import gc
import json
import logging
import os
import re
import secrets
import socket
import time
from collections import Counter
from collections.abc import AsyncIterator, Callable
from functools import partial
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, Response
from starlette.routing import Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp, Receive, Scope, Send
from starlette.websockets import WebSocket, WebSocketDisconnect

from roborally.bots.random_bot import BOTS
from roborally.content.boardjson import course_board
from roborally.content.courses import list_courses
from roborally.content.fairness import new_seed
from roborally.content.i18n import LANGUAGES, raw_file
from roborally.engine.core.rng import RNG_VERSION, SEED_BITS, parse_seed
from roborally.engine.editions import all_editions
from roborally.server.api_error import ApiError
from roborally.server.cluster.link import Link
from roborally.server.cluster.node import FORWARDED, ClusterNode
from roborally.server.cluster.quota import SharedQuota
from roborally.server.cluster.router import ClusterRouter
from roborally.server.connection import Connection
from roborally.server.custom_courses import CustomCourse, custom_course_for
from roborally.server.database import open_database
from roborally.server.headers import SecurityHeaders
from roborally.server.index_page import index_route
from roborally.server.limits import (
    AddressLimits,
    Refusal,
    client_key,
    connections_refusal,
    creation_refusal,
    request_refusal,
)
from roborally.server.protocol import (
    CLOSE_BAD_REQUEST,
    CLOSE_HELLO_TIMEOUT,
    CLOSE_TOO_MANY,
    CLOSE_UNKNOWN_GAME,
    ProtocolError,
    clean_name,
    decode_frame,
    error_message,
    same_name,
)
from roborally.server.rematch import Rematches
from roborally.server.request_body import json_object
from roborally.server.room import (
    ABANDONED,
    BROKEN,
    CLOSED,
    FINISHED,
    OPEN,
    RUNNING,
    GameRoom,
    RoomContext,
    Seat,
    token_hash,
)
from roborally.server.rulesets import (
    PROTOCOL_VERSION,
    available_editions,
    course_fits,
    courses_for,
    find_edition,
    options_json,
    timer_rule,
)
from roborally.server.settings import GameSettings, ServerOptions
from roborally.server.store import (
    AsyncStore,
    DamagedStore,
    DataDirInUse,
    DataDirLock,
    Store,
    StoreError,
)
from roborally.server.tabletop import link_reach, qr_svg
from roborally.server.transport import ABORT_KEY, GameWebSocketProtocol, install_log_redaction
from roborally.server.workers import BOTS as BOTS_LANE
from roborally.server.workers import WorkerLost, WorkerPool

log = logging.getLogger("roborally.server")

STATIC_DIR = Path(__file__).parent / "static"
GAME_ID = re.compile(r"[A-Za-z0-9_-]{1,32}")
COLOURS = ("Red", "Blue", "Green", "Yellow", "Purple", "Orange", "White", "Black")
MAX_ROUNDS_LIMIT = 200
WS_MAX_FRAME = 1 << 20  # uvicorn drops larger frames; up to this size we reply 'too_large'
LIST_SECONDS = 1.0  # how long one lobby list answers every caller (at most 2,000 games)
#: A lobby nobody is connected to is kept at least this long when another needs its place
#: (its creator's page is on its way: a page connects to its new game within a second). The
#: one closed is the oldest unused, so a new game is the last in line: a flood would need
#: ``max_lobbies`` new lobbies in this time to refuse a creator.
LOBBY_KEEP_SECONDS = 2.0
#: A rematch's waiting room nobody is in is closed after this long (other lobbies wait
#: ``lobby_seconds``): its players know where it came from and make another in a click.
REMATCH_LOBBY_SECONDS = 120.0

__all__ = ["DamagedStore", "DataDirInUse", "GameServer", "ServerOptions", "create_app", "serve"]


def _check_games_of(options: ServerOptions, bots_only: bool, mine: int) -> None:
    """Refuse a new game to an address with ``mine`` lobbies (or, ``bots_only``, games of bots
    only) going already, when that is its limit."""
    if bots_only and mine >= options.bot_games_per_address:
        raise ApiError(
            429,
            "too_many_games",
            f"this address already runs {mine} games of bots only (the limit is"
            f" {options.bot_games_per_address}); wait until one ends",
            30,
        )
    if not bots_only and mine >= options.lobbies_per_address:
        raise ApiError(
            429,
            "too_many_games",
            f"this address already has {mine} games waiting for players (the limit"
            f" is {options.lobbies_per_address}); start or leave one first",
            60,
        )


def _too_many(refusal: Refusal) -> ApiError:
    return ApiError(429, refusal.code, refusal.message, refusal.retry_after)


def default_data_dir() -> Path:
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "roborally"


def _number(body: dict[str, Any], key: str, default: float, low: float, high: float) -> float:
    value = body.get(key, default)
    if value is None:
        value = default
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ApiError(400, "bad_request", f"'{key}' must be a number of seconds")
    value = float(value)
    if value != 0 and not low <= value <= high:
        raise ApiError(400, "bad_request", f"'{key}' must be 0 or between {low:g} and {high:g}")
    return value


def _deadline(body: dict[str, Any], key: str, default: float, low: float, high: float) -> float:
    """A deadline every game must have (0 is refused: no game may wait for ever)."""
    value = body.get(key, default)
    if value is None:
        value = default
    if isinstance(value, bool) or not isinstance(value, int | float) or not low <= value <= high:
        raise ApiError(
            400, "bad_request", f"'{key}' must be a number of seconds from {low:g} to {high:g}"
        )
    return float(value)


def _whole(body: dict[str, Any], key: str, default: int, low: int, high: int) -> int:
    value = body.get(key, default)
    if value is None:
        value = default
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise ApiError(400, "bad_request", f"'{key}' must be a whole number from {low} to {high}")
    return value


def _seed(body: dict[str, Any]) -> tuple[int, bool]:
    """The game's seed and whether the host chose it (then every player is shown it)."""
    raw = body.get("seed")
    if raw is None:
        return new_seed(), False
    if isinstance(raw, bool) or not isinstance(raw, int | str):
        raise ApiError(400, "bad_request", "'seed' must be a whole number (or 0x-hex text)")
    try:
        seed = raw if isinstance(raw, int) else parse_seed(raw)
    except ValueError as error:
        raise ApiError(400, "bad_request", f"'seed': {error}") from None
    if not 0 <= seed < 2**SEED_BITS:
        raise ApiError(400, "bad_request", f"'seed' must be from 0 to 2**{SEED_BITS} - 1")
    return seed, True


def lan_address() -> str | None:
    """This machine's address on its network (no packet is sent: a UDP socket is only
    pointed at a private address to learn which interface would be used)."""
    with contextlib.suppress(OSError), socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        probe.connect(("10.254.254.254", 9))
        address: str = probe.getsockname()[0]
        if not address.startswith("127."):
            return address
    return None


class GameServer:
    """All rooms of one server process, the store behind them, and the workers."""

    def __init__(self, data_dir: str | Path, options: ServerOptions | None = None) -> None:
        self.data_dir = Path(data_dir)
        self.options = dataclasses.replace(options) if options else ServerOptions()  # its own
        busy = self.options.busy_seconds
        self.lock: DataDirLock | None = None
        if self.options.database is not None:  # PostgreSQL: shared, no data-directory lock
            self.store = AsyncStore(open_database(self.options.database, busy))
        else:
            self.lock = DataDirLock(self.data_dir)
            try:
                self.store = AsyncStore(Store.in_dir(self.data_dir, busy))
            except BaseException:
                self.lock.release()
                raise
        self.pool = WorkerPool(self.options)
        self.ctx = RoomContext(self.options, self.store, self.pool, Rematches(self))
        self.ctx.dropped = self._drop
        self.limits = AddressLimits(self.options)
        self.rooms: dict[str, GameRoom] = {}
        self.creating: Counter[tuple[str, bool]] = Counter()  # (address, bots only) under way
        self.listing: dict[str, tuple[float, bytes]] = {}  # the lobby list, made anew each second
        self.broken: list[str] = []
        self.listen_host: str | None = None  # set by serve(): where the server listens
        self.listen_port: int | None = None
        self.cluster: ClusterNode | None = None  # scale-out mode (--redis): cluster/node.py

    # ------------------------------------------------------------- life
    async def startup(self) -> None:
        """Start the workers, then reload every open and running game (running games are
        rebuilt in the workers and continue where they were)."""
        await self.pool.start()
        if self.cluster is not None:  # games are taken as they are needed (cluster/node.py)
            await self.cluster.start()
            gc.collect()
            gc.freeze()
            return
        ids = await self.store.run(Store.ids_with_status, OPEN, RUNNING)
        for game_id in ids:
            stored = await self.store.run(Store.load, game_id)
            if stored is None:
                continue
            try:
                room = GameRoom.from_stored(self.ctx, stored)
                self.rooms[game_id] = room
                await room.resume()
            except (ValueError, KeyError, TypeError, RuntimeError, StoreError) as error:
                self.rooms.pop(game_id, None)
                log.error("game %s could not be reloaded: %s", game_id, error)
                self.broken.append(game_id)
                with contextlib.suppress(StoreError):
                    await self.store.run(Store.update_game, game_id, status=BROKEN)
        if self.rooms:
            log.info("reloaded %d game(s)", len(self.rooms))
        # What was loaded so far (modules, courses, cards) lives as long as the server: keep
        # it out of the collector's full passes, which would otherwise pause the event loop.
        gc.collect()
        gc.freeze()
        if self.broken:
            log.error(
                "%d game(s) could not be reloaded and are kept in the store with status"
                " 'broken': %s",
                len(self.broken),
                ", ".join(self.broken),
            )

    async def shutdown(self) -> None:
        for room in self.rooms.values():
            await room.close()
            for conn in list(room.conns):
                conn.close(1001)
        if self.cluster is not None:
            await self.cluster.stop()
        await asyncio.sleep(0)
        await self.pool.stop()
        self.store.close()
        if self.lock is not None:
            self.lock.release()

    # ------------------------------------------------------------ rooms
    async def get_room(self, game_id: str) -> GameRoom | None:
        if not GAME_ID.fullmatch(game_id):
            return None
        room = self.rooms.get(game_id)
        if room is not None:
            return room
        stored = await self.store.run(Store.load, game_id)
        if stored is None or stored.status != FINISHED:
            return None
        room = GameRoom.from_stored(self.ctx, stored)
        try:
            await room.load()
        except (ValueError, KeyError, TypeError, RuntimeError, WorkerLost) as error:
            log.error("game %s could not be loaded: %s", game_id, error)
            return None
        room.slim_down()  # until a page connects: the record and summary are enough
        room = self.rooms.setdefault(game_id, room)  # another call may have loaded it meanwhile
        self.prune()
        return room

    async def open_link(self, game_id: str, conn: Connection) -> Link | None:
        """A new socket's way to its game (``None``: no such game). In scale-out mode the
        game may be owned by another process: the link relays to it."""
        if self.cluster is not None and GAME_ID.fullmatch(game_id):
            return await self.cluster.open_link(game_id, conn)
        room = await self.get_room(game_id)
        return None if room is None else Link(conn, game_id, room)

    async def close_idle_lobbies(self) -> None:
        """Close open games that no seat holder has joined, connected to or left for
        ``lobby_seconds`` (abandoned lobbies would otherwise count against the limits and
        stay listed; a spectator's socket does not keep one open). They never started, so
        there is nothing to replay."""
        now = time.time()
        for room in list(self.rooms.values()):
            # A rematch's waiting room its players left is stale sooner: they come back to
            # the finished game, whose Rematch makes a new one if this one is gone.
            wait = REMATCH_LOBBY_SECONDS if room.rematch_of else self.options.lobby_seconds
            if room.status == OPEN and not room.attended and room.touched < now - wait:
                await self.close_lobby(room, "unused")

    def _drop(self, game_id: str) -> None:
        """A game ended without a finish (abandoned): nobody needs its room any more."""
        self.rooms.pop(game_id, None)

    async def close_lobby(self, room: GameRoom, why: str) -> None:
        """Close an open game; its spectators are told (its links then say it was closed)."""
        self._take_out(room, why)
        await self._closed(room)

    def _take_out(self, room: GameRoom, why: str) -> None:
        """A lobby closes: at once out of the rooms and the counts (nothing joins it now)."""
        room.status = CLOSED
        self.rooms.pop(room.id, None)
        unused = time.time() - room.touched
        log.info("game %s: lobby closed (%s, %.0f s unused)", room.id, why, unused)

    async def _closed(self, room: GameRoom) -> None:
        """A lobby taken out: stored as closed, and its sockets told why."""
        reason = "this game's lobby was closed; ask the host for a new game"
        with contextlib.suppress(StoreError):
            await self.store.run(Store.update_game, room.id, status=CLOSED)
            reason = await self.missing(room.id)
        for conn in list(room.conns):
            conn.send(error_message("unknown_game", reason))
            conn.close(CLOSE_UNKNOWN_GAME)

    def _paused_longest(self) -> list[GameRoom]:
        """Running games nobody has been connected to for ``paused_keep_seconds`` (10
        minutes), the one paused longest first: what may be abandoned at ``max_games``, so
        games their people left cannot hold the server's places for ``abandon_seconds``,
        while a player who stepped away for a few minutes keeps their game."""
        since = time.time() - self.options.paused_keep_seconds
        paused = [
            r
            for r in self.rooms.values()
            if r.status == RUNNING and r.paused_at is not None and r.paused_at < since
        ]
        return sorted(paused, key=lambda r: r.paused_at or 0.0)

    def _full(self) -> bool:
        return self.active_count() + sum(self.creating.values()) >= self.options.max_games

    def _game_place(self) -> GameRoom | None:
        """A place for a new game under ``max_games``: at the cap the game paused longest
        (:meth:`_paused_longest`) is taken out of the rooms for it and returned, to be
        abandoned; ``503 server_full`` when no game has waited that long. No await here."""
        if not self._full():
            return None
        paused = self._paused_longest()
        if not paused:
            raise ApiError(503, "server_full", "too many games on this server; try later", 60)
        victim = paused[0]
        self.rooms.pop(victim.id, None)
        log.info(
            "game %s: abandoned to make room for a new game (nobody connected for %.0f s)",
            victim.id,
            time.time() - (victim.paused_at or 0.0),
        )
        return victim

    def _lobby_place(self) -> GameRoom | None:
        """A place for a new lobby under ``max_lobbies``: at the cap the one unused longest
        (no seat holder connected, made at least ``LOBBY_KEEP_SECONDS`` ago) is taken out for
        it and returned, to be closed; ``503 server_full`` when every lobby is in use. So many
        addresses creating lobbies nobody uses cannot fill the server: running games and new
        creators keep their room. No await here: the place is the caller's before another
        creation is looked at."""
        lobbies = [r for r in self.rooms.values() if r.status == OPEN]
        made = sum(n for (_, bots), n in self.creating.items() if not bots)
        if len(lobbies) + made < self.options.max_lobbies:
            return None
        idle_since = time.time() - LOBBY_KEEP_SECONDS
        unused = [r for r in lobbies if not r.attended and r.touched < idle_since]
        if not unused:
            raise ApiError(
                503, "server_full", "too many games are waiting for players; try again soon", 30
            )
        victim = min(unused, key=lambda r: r.touched)
        self._take_out(victim, "room for a new game")
        return victim

    async def missing(self, game_id: str) -> str:
        """Why there is no game ``game_id`` to show (for the error message)."""
        status = None
        if GAME_ID.fullmatch(game_id):
            status = await self.store.run(Store.status, game_id)
        if status == CLOSED:
            minutes = self.options.lobby_seconds / 60
            return (
                "this game's lobby was closed: nobody waited in it (a lobby no player is"
                f" connected to closes after {minutes:g} minute(s), or sooner when the server"
                " needed its place); ask the host for a new game"
            )
        if status == ABANDONED:
            hours = self.options.abandon_seconds / 3600
            return (
                f"this game was abandoned: nobody was connected to it for {hours:g} hour(s),"
                " so it ended without a winner"
            )
        if status == BROKEN:
            return (
                "this game could not be restored after the server restarted; its moves are"
                " kept, ask the host to look at the server log"
            )
        return "no such game"

    def prune(self) -> None:
        """Forget the oldest finished games nobody watches (the store keeps them)."""
        idle = [r for r in self.rooms.values() if r.status == FINISHED and not r.conns]
        if len(idle) <= self.options.keep_finished:
            return
        idle.sort(key=lambda r: r.created)
        for room in idle[: len(idle) - self.options.keep_finished]:
            del self.rooms[room.id]

    def bot_games(self) -> list[GameRoom]:
        """Running games the server plays alone: games of bots, games started with nobody at
        them that no person has entered since, and games of people none of whom is there
        (every person's seat auto-played, or nobody connected and not paused): bot work for
        the lanes and the limits, however its seats are called. A game its people left is
        paused: it does no work and is not counted against them."""
        return [
            r
            for r in self.rooms.values()
            if r.status == RUNNING
            and (r.lane == BOTS_LANE or r.unattended or (not r.attended and r.paused_at is None))
        ]

    def active_count(self) -> int:
        return sum(1 for r in self.rooms.values() if r.status in (OPEN, RUNNING))

    @property
    def listening_wide(self) -> bool:
        """Whether the server listens on every interface (``--host 0.0.0.0``)."""
        return self.listen_host in ("0.0.0.0", "::", "")

    def link_base(self, request: Request) -> str:
        """The start of invite links: ``--public-url`` if set; else the address the request
        came to, except that a request to this machine's loopback on a server that listens
        on the network gets the machine's network address (links are for the others)."""
        if self.options.public_url:
            return self.options.public_url.rstrip("/")
        base = str(request.base_url).rstrip("/")
        host = request.url.hostname or ""
        if self.listening_wide and host in ("127.0.0.1", "localhost", "::1"):
            lan = lan_address()
            if lan is not None:
                return f"{request.url.scheme}://{lan}:{request.url.port or self.listen_port}"
        return base

    # ------------------------------------------------------------ create
    def settings_from(
        self, body: dict[str, Any], custom: CustomCourse | None = None
    ) -> tuple[GameSettings, list[Seat]]:
        """Validate a create request (protocol 1.3); ``custom``: the stored custom course
        ``body["course"]`` names (custom_courses.py)."""
        opts = self.options
        edition = find_edition(body.get("edition", "2023"))
        if edition is None:
            known = ", ".join(e.id for e in available_editions())
            shown = str(body.get("edition"))[:40]
            raise ApiError(400, "unknown_edition", f"unknown edition {shown!r} (known: {known})")
        course_id = body.get("course")
        info = next((c for c in courses_for(edition.id) if c.id == course_id), None)
        if custom is not None:
            info = custom.info if course_fits(custom.info, edition.id) else None
        if info is None and custom is not None:
            raise ApiError(400, "unknown_course", custom.misfit(edition.id))
        if info is None:
            known = ", ".join(c.id for c in courses_for(edition.id))
            shown = str(course_id)[:40]
            raise ApiError(400, "unknown_course", f"unknown course {shown!r} (known: {known})")
        raw_seats = body.get("seats")
        if not isinstance(raw_seats, list) or not 1 <= len(raw_seats) <= len(COLOURS):
            raise ApiError(400, "bad_request", f"'seats' must list 1 to {len(COLOURS)} seats")
        low = max(info.players[0], edition.min_players)
        high = min(info.players[1], edition.max_players)
        if not low <= len(raw_seats) <= high:
            raise ApiError(400, "bad_request", f"course {info.id!r} takes {low} to {high} players")
        seats = self._seats(raw_seats)
        # Without a choice, the alternative rules the course names for this edition.
        fitting = [v for v in info.variants if v in edition.variants]
        variants = body.get("variants", fitting) or []
        if not isinstance(variants, list) or not all(isinstance(v, str) for v in variants):
            raise ApiError(400, "bad_request", "'variants' must be a list of names")
        unknown = [v for v in variants if v not in edition.variants]
        if unknown:
            raise ApiError(400, "unknown_variant", f"unknown variant(s): {', '.join(unknown)}")
        chosen = set(variants)
        timer = _number(body, "timer_seconds", 0, opts.min_seconds, opts.max_seconds)
        rule = timer_rule(edition.id)
        if rule.kind == "none" and timer > 0:
            raise ApiError(400, "bad_request", f"edition {edition.id} has no programming timer")
        if rule.variant is not None:
            if timer > 0:
                chosen.add(rule.variant)
            elif rule.variant in chosen:
                timer = float(rule.default)
        elif rule.kind == "sand" and "timer_seconds" not in body:
            timer = float(rule.default)
        seed, chosen_seed = _seed(body)
        first = body.get("first_player")
        if first is not None and (
            isinstance(first, bool) or not isinstance(first, int) or not 0 <= first < len(seats)
        ):
            raise ApiError(400, "bad_request", "'first_player' must be a seat number or null")
        public = body.get("public", True)
        if not isinstance(public, bool):
            raise ApiError(400, "bad_request", "'public' must be true or false")
        table = body.get("table", False)
        if not isinstance(table, bool):
            raise ApiError(400, "bad_request", "'table' must be true or false")
        settings = GameSettings(
            edition=edition.id,
            course=info.id,
            variants=tuple(sorted(chosen)),
            timer_seconds=timer,
            decision_seconds=_deadline(
                body, "decision_seconds", opts.decision_seconds, opts.min_seconds, opts.max_seconds
            ),
            grace_seconds=_deadline(
                body, "grace_seconds", opts.grace_seconds, opts.min_seconds, opts.max_seconds
            ),
            max_rounds=_whole(body, "max_rounds", opts.max_rounds, 0, MAX_ROUNDS_LIMIT),
            seed=seed,
            first_player=first,
            public=public,
            program_seconds=_deadline(
                body, "program_seconds", opts.program_seconds, opts.min_seconds, opts.max_seconds
            ),
            seed_chosen=chosen_seed,
            rng=RNG_VERSION,
            table=table,
            course_text=custom.text if custom is not None else "",
        )
        return settings, seats

    @staticmethod
    def _seats(raw_seats: list[Any]) -> list[Seat]:
        seats: list[Seat] = []
        for index, raw in enumerate(raw_seats):
            if not isinstance(raw, dict):
                raise ApiError(400, "bad_request", f"seats[{index}] must be an object")
            kind = raw.get("kind", "human")
            if kind not in ("human", "bot"):
                raise ApiError(400, "bad_request", f"seats[{index}].kind must be human or bot")
            bot = None
            if kind == "bot":
                bot = raw.get("bot", "random")
                if bot not in BOTS:
                    raise ApiError(
                        400, "unknown_bot", f"unknown bot {bot!r} (known: {', '.join(BOTS)})"
                    )
            name = COLOURS[index]
            if raw.get("name") is not None:
                try:
                    name = clean_name(raw["name"])
                except ProtocolError as error:
                    raise ApiError(400, "bad_name", f"seats[{index}]: {error.message}") from None
            clash = next((s for s in seats if same_name(s.name, name)), None)
            if clash is not None:
                alike = "is already" if clash.name == name else f"looks the same as {clash.name!r},"
                raise ApiError(
                    400,
                    "name_taken",
                    f"seats[{index}]: the name {name!r} {alike} the name of seats"
                    f"[{clash.index}]; every player needs a name of their own",
                )
            seats.append(Seat(index, kind, name, bot, taken=kind == "bot"))
        return seats

    def _admit(self, address: str, bots_only: bool, take: bool = True) -> None:
        """Per-address and server-wide limits on new games (429 / 503 with the reason);
        ``take``: count the creation against the address's rate as well."""
        opts = self.options
        if self._full() and not self._paused_longest():  # else one makes room (_game_place)
            raise ApiError(503, "server_full", "too many games on this server; try later", 60)
        if bots_only:
            running = self.bot_games()
            starting = sum(n for (_, bots), n in self.creating.items() if bots)
            if len(running) + starting >= opts.max_bot_games:
                raise ApiError(
                    503, "server_full", "too many games of bots only are running; try later", 60
                )
            mine = sum(1 for r in running if r.creator == address)
        else:
            mine = sum(1 for r in self.rooms.values() if r.status == OPEN and r.creator == address)
        _check_games_of(opts, bots_only, mine + self.creating[address, bots_only])
        refusal = self.limits.create_game(address) if take else None
        if refusal is not None:
            raise _too_many(refusal)

    async def admit_unattended(self, room: GameRoom) -> None:
        """A game started with no seat holder connected is played by the server alone: the
        limits of games of bots only apply to it (``max_bot_games``, its creator's
        ``bot_games_per_address``), and it counts as one of them from now on."""
        opts, address = self.options, room.creator or "?"
        running = self.bot_games()
        if len(running) >= opts.max_bot_games:
            raise ApiError(
                503, "server_full", "too many games of bots only are running; try later", 60
            )
        mine = sum(1 for r in running if r.creator == address)
        if self.cluster is not None:
            statuses = partial(self.store.run, Store.statuses)
            limit = opts.bot_games_per_address
            mine = await self.cluster.quota.games(address, True, statuses, below=limit)
        _check_games_of(opts, True, mine)
        if self.cluster is not None:
            with contextlib.suppress(Exception):  # only the count would be missing
                await self.cluster.quota.created(address, True, room.id)

    @contextlib.asynccontextmanager
    async def admitted(self, address: str, bots_only: bool) -> AsyncIterator[None]:
        """A new game's admission: the limits checked (:meth:`_admit`; in scale-out mode the
        per-address ones count the games and creations of every process, docs/scaling.md),
        then its place held, counted in ``creating`` until it is made or fails; a lobby's
        place under ``max_lobbies`` too (:meth:`_lobby_place`), and at ``max_games`` the place
        of a game its people left long ago (:meth:`_game_place`)."""
        await self._admit_address(address, bots_only)
        victim = None if bots_only else self._lobby_place()
        try:
            paused = self._game_place()  # after the lobby: a closed lobby is a place too
        except ApiError:
            if victim is not None:
                await self._closed(victim)
            raise
        key = (address, bots_only)
        self.creating[key] += 1  # counted from here on: concurrent calls see this one
        try:
            if victim is not None:
                await self._closed(victim)
            if paused is not None and not await paused.abandon():
                self.rooms.setdefault(paused.id, paused)  # it goes on: back where it was
            yield
        finally:
            self.creating[key] -= 1
            if self.creating[key] <= 0:
                del self.creating[key]

    async def _admit_address(self, address: str, bots_only: bool) -> None:
        if self.cluster is None:
            self._admit(address, bots_only)
            return
        self._admit(address, bots_only, take=False)
        quota, opts = self.cluster.quota, self.options
        limit = opts.bot_games_per_address if bots_only else opts.lobbies_per_address
        under_way = self.creating[address, bots_only]
        statuses = partial(self.store.run, Store.statuses)
        mine = await quota.games(address, bots_only, statuses, below=limit - under_way)
        _check_games_of(opts, bots_only, mine + under_way)
        per_minute = self.options.games_per_minute
        wait = await quota.take_creation(address, per_minute)
        if wait:
            raise _too_many(creation_refusal(per_minute, wait))

    async def create(self, body: dict[str, Any], base: str, address: str) -> dict[str, Any]:
        await self.close_idle_lobbies()
        settings, seats = self.settings_from(body, await custom_course_for(self, body))
        bots_only = not any(s.human for s in seats)
        async with self.admitted(address, bots_only):
            return await self._create(settings, seats, base, address)

    async def _create(
        self, settings: GameSettings, seats: list[Seat], base: str, address: str
    ) -> dict[str, Any]:
        game_id = await self.new_game_id()
        host_token = secrets.token_urlsafe(18)
        creator_seat = None if settings.table else next((s for s in seats if s.human), None)
        credentials = {}  # seat -> (its creator's token, or an invite for somebody else)
        for seat in seats:
            if seat is creator_seat:
                token = secrets.token_urlsafe(18)
                seat.token_hash = token_hash(token)
                credentials[seat.index] = {"token": token, "url": seat_url(base, game_id, token)}
            elif seat.human:
                code = secrets.token_urlsafe(12)
                seat.invite_hash = token_hash(code)
                credentials[seat.index] = {"invite": code, "url": invite_url(base, game_id, code)}
        room = await self.add_room(game_id, settings, seats, token_hash(host_token), address)
        if not credentials:
            async with room.lock:
                await room.start_game()
        self.prune()
        ws_base = "ws" + base[4:] if base.startswith("http") else base
        return {
            "v": PROTOCOL_VERSION,
            "game_id": game_id,
            "host_token": host_token,
            "host_seat": room.host_seat,
            "seed_commitment": settings.commitment,
            "seed": room.public_settings()["seed"],
            "seats": [
                {"seat": s.index, "kind": s.kind, "name": s.name, "bot": s.bot_kind}
                | credentials.get(s.index, {})
                for s in seats
            ],
            "spectator_url": f"{base}/?game={game_id}",
            "ws_url": f"{ws_base}/ws/{game_id}",
        }

    async def new_game_id(self) -> str:
        """An id no game has."""
        game_id = secrets.token_urlsafe(6)
        while game_id in self.rooms or await self.store.run(Store.status, game_id) is not None:
            game_id = secrets.token_urlsafe(6)
        return game_id

    async def add_room(
        self,
        game_id: str,
        settings: GameSettings,
        seats: list[Seat],
        host_hash: str,
        address: str,
    ) -> GameRoom:
        """A new open game: checked by the engine, stored, then served (``ApiError`` if the
        engine refuses it or it cannot be stored)."""
        problem = await self.pool.any_call(
            "check_settings", settings.to_json(), tuple(s.name for s in seats)
        )
        if problem is not None:  # the engine must accept this game
            raise ApiError(400, "bad_request", problem)
        room = GameRoom(self.ctx, game_id, settings, seats, host_hash, 0.0)
        room.creator = address
        if self.cluster is not None:  # owned before it is stored: nobody else takes it
            await self.cluster.hold_new(game_id)
        try:
            room.created = await self.store.run(
                Store.create_game,
                game_id,
                settings.to_json(),
                [s.stored() for s in seats],
                room.host_hash,
                OPEN,
            )
        except StoreError as error:
            if self.cluster is not None:
                self.cluster.release_new(game_id)
            raise ApiError(503, "storage_failed", f"the game could not be saved: {error}") from None
        self.rooms[game_id] = room
        log.info("game %s: created (%s, %d seats)", game_id, settings.course, len(seats))
        if self.cluster is not None:  # counted for its address by every process
            bots_only = not any(s.human for s in seats)
            try:
                await self.cluster.quota.created(address, bots_only, game_id)
            except Exception as error:  # the game is made; only the count is missing
                log.warning("game %s: not counted for its address in Redis (%s)", game_id, error)
        return room

    async def join(self, room: GameRoom, body: dict[str, Any], base: str) -> dict[str, Any]:
        name = None
        if body.get("name") is not None:
            try:
                name = clean_name(body["name"])
            except ProtocolError as error:
                raise ApiError(400, "bad_name", error.message) from None
        wanted = body.get("seat")
        if wanted is not None and (isinstance(wanted, bool) or not isinstance(wanted, int)):
            raise ApiError(400, "bad_request", "'seat' must be a seat number")
        async with room.lock:
            if not room.settings.public:
                raise ApiError(403, "private_game", "this game takes players by invitation only")
            if room.status != OPEN:
                raise ApiError(409, "not_open", "the game has already started")
            free = room.joinable()
            if wanted is not None:
                if wanted == room.host_seat:
                    raise ApiError(409, "no_free_seat", f"seat {wanted} is the host's seat")
                free = [s for s in free if s.index == wanted]
                if not free:
                    raise ApiError(409, "no_free_seat", f"seat {wanted} is not a free human seat")
            if not free:
                raise ApiError(409, "no_free_seat", "no free seat")
            seat = free[0]
            if name is not None and room.name_taken(name, seat.index):
                called = room.name_like(name, seat.index)
                raise ApiError(
                    409,
                    "name_taken",
                    f"another player in this game is called {called}; pick another",
                )
            token = secrets.token_urlsafe(18)
            before = (seat.token_hash, seat.taken, seat.name)
            seat.token_hash = token_hash(token)
            seat.taken = True
            if name is not None:
                seat.name = name
            try:
                await self.store.run(
                    Store.update_game, room.id, seats=[s.stored() for s in room.seats]
                )
            except StoreError as error:
                seat.token_hash, seat.taken, seat.name = before
                raise ApiError(
                    503, "storage_failed", f"the seat could not be saved: {error}"
                ) from None
            room.touched = time.time()
            room._broadcast()
        return {
            "v": PROTOCOL_VERSION,
            "game_id": room.id,
            "seat": seat.index,
            "token": token,
            "url": seat_url(base, room.id, token),
        }

    async def new_invite(self, room: GameRoom, body: dict[str, Any], seat: int, base: str) -> Any:
        """``POST /api/games/{id}/seats/{seat}/invite``: the host (its host token) gets a new
        invite link for a seat nobody holds; the old link stops working."""
        token = body.get("host_token")
        if not isinstance(token, str) or len(token) > 200 or not room.is_host(token):
            raise ApiError(403, "bad_token", "only the host (with the host token) makes invites")
        async with room.lock:
            try:
                code = await room.new_invite(seat)
            except ProtocolError as error:
                status = {"unknown_seat": 404}.get(error.code, 409)
                raise ApiError(status, error.code, error.message) from None
            except StoreError as error:
                message = f"the invite was not saved: {error}"
                raise ApiError(503, "storage_failed", message) from None
        return {
            "v": PROTOCOL_VERSION,
            "game_id": room.id,
            "seat": seat,
            "invite": code,
            "url": invite_url(base, room.id, code),
        }


def seat_url(base: str, game_id: str, token: str) -> str:
    """A seat's own link. The token is in the fragment (after ``#``), which browsers never
    send to a server or a proxy, so it stays out of every log."""
    return f"{base}/?game={game_id}#token={token}"


def invite_url(base: str, game_id: str, code: str) -> str:
    """A seat's invite link: the first page to open it gets the seat and a token of its own
    (``hello`` with ``invite``); the code then only says the seat is taken."""
    return f"{base}/?game={game_id}#invite={code}"


# ---------------------------------------------------------------- HTTP
def _server(request: Request | WebSocket) -> GameServer:
    server: GameServer = request.app.state.server
    return server


def _address(request: Request | WebSocket) -> str:
    """The client address the per-address limits count (an IPv6 client by its /64)."""
    return client_key(request.client.host) if request.client else "?"


def _error(
    status: int, code: str, text: str, retry_after: int = 0, close: bool = False
) -> JSONResponse:
    headers = {"Retry-After": str(retry_after)} if retry_after else {}
    if close:
        headers["Connection"] = "close"
    return JSONResponse(
        {"v": PROTOCOL_VERSION, "error": {"code": code, "message": text}},
        status_code=status,
        headers=headers,
    )


async def _body(request: Request) -> dict[str, Any]:
    """The JSON body of a lobby request (``{}`` if empty), at most ``message_bytes``."""
    return await json_object(request, _server(request).options.message_bytes, empty=True)


async def _room(request: Request) -> GameRoom:
    server = _server(request)
    game_id = request.path_params["game_id"]
    room = await server.get_room(game_id)
    if room is None:
        raise ApiError(404, "unknown_game", await server.missing(game_id))
    return room


async def api_options(request: Request) -> Response:
    o = _server(request).options
    return JSONResponse(
        options_json(
            {
                "decision_seconds": o.decision_seconds,
                "program_seconds": o.program_seconds,
                "grace_seconds": o.grace_seconds,
                "max_rounds": o.max_rounds,
            },
            {
                "seats": [1, len(COLOURS)],
                "max_rounds": MAX_ROUNDS_LIMIT,
                "timer_seconds": [o.min_seconds, o.max_seconds],
                "message_bytes": o.message_bytes,
                "messages_per_second": o.messages_per_second,
                "games_per_minute": o.games_per_minute,
                "lobbies_per_address": o.lobbies_per_address,
                "connections_per_address": o.connections_per_address,
                "lobby_seconds": o.lobby_seconds,
            },
        )
    )


async def api_courses(request: Request) -> Response:
    return JSONResponse({"v": PROTOCOL_VERSION, "courses": [c.summary() for c in list_courses()]})


async def api_course(request: Request) -> Response:
    """One course with its board as an edition plays it (``?edition=``, 2023 by default)."""
    info = next((c for c in list_courses() if c.id == request.path_params["course"]), None)
    if info is None:
        return _error(404, "unknown_course", "no such course")
    edition_id = request.query_params.get("edition") or "2023"
    if edition_id not in {e.id for e in all_editions()}:
        return _error(404, "unknown_edition", f"no edition {edition_id[:40]!r}")
    board = course_board(info.id, edition_id, frozenset())  # cached: a fixed set
    return JSONResponse({"v": PROTOCOL_VERSION, "course": info.summary(), "board": board})


async def api_create_game(request: Request) -> Response:
    server = _server(request)
    body = await _body(request)
    data = await server.create(body, server.link_base(request), _address(request))
    return JSONResponse(data, status_code=201)


async def api_list_games(request: Request) -> Response:
    server = _server(request)
    if request.query_params.get("status") == FINISHED:
        games = await server.store.run(Store.finished_summaries)
        return JSONResponse({"v": PROTOCOL_VERSION, "games": games})
    base = server.link_base(request)
    cached = server.listing.get(base)
    if cached is None or time.monotonic() - cached[0] > LIST_SECONDS:
        await server.close_idle_lobbies()
        if server.cluster is not None:  # every process's games, as each published them
            games = await server.cluster.lobby(base)
        else:
            games = [
                room.summary(base)
                for room in server.rooms.values()
                if room.status in (OPEN, RUNNING) and room.settings.public
            ]
        body = json.dumps({"v": PROTOCOL_VERSION, "games": games}).encode("utf-8")
        cached = server.listing[base] = (time.monotonic(), body)
    return Response(cached[1], media_type="application/json")


async def api_get_game(request: Request) -> Response:
    room = await _room(request)
    summary = room.summary(_server(request).link_base(request))
    return JSONResponse({"v": PROTOCOL_VERSION, **summary})


async def api_join_game(request: Request) -> Response:
    body = await _body(request)
    room = await _room(request)
    server = _server(request)
    return JSONResponse(await server.join(room, body, server.link_base(request)))


async def api_rematch_seat(request: Request) -> Response:
    """A seat of a finished game takes the same seat in its rematch (docs/protocol.md 1.9)."""
    body = await _body(request)
    room = await _room(request)
    rematches = _server(request).ctx.rematches
    assert rematches is not None
    return JSONResponse(await rematches.take_seat(room, body))


async def api_start_game(request: Request) -> Response:
    body = await _body(request)
    room = await _room(request)
    token = body.get("host_token")
    if not isinstance(token, str) or not room.is_host(token):
        raise ApiError(403, "bad_token", "only the host may start the game")
    async with room.lock:
        if room.status != OPEN:
            raise ApiError(409, "not_open", "the game has already started")
        if not room.attended:  # nobody at the table: a game of bots only until a person comes
            await _server(request).admit_unattended(room)
            room.unattended = True
        try:
            await room.start_game()
        except StoreError as error:
            raise ApiError(503, "storage_failed", f"the game could not start: {error}") from None
    return JSONResponse({"v": PROTOCOL_VERSION, "game_id": room.id, "status": room.status})


def _finished(room: GameRoom) -> None:
    if room.status != FINISHED:
        raise ApiError(409, "not_finished", "records and replays are shown once the game is over")


async def api_record(request: Request) -> Response:
    room = await _room(request)
    _finished(room)
    if room.record is None:
        stored = await room.ctx.store.run(Store.load, room.id)
        room.record = stored.record if stored is not None else None
    if room.record is None:
        room.record = await _record_of(room)
    return PlainTextResponse(
        room.record,
        headers={"Content-Disposition": f'attachment; filename="roborally-{room.id}.rec"'},
    )


async def _record_of(room: GameRoom) -> str:
    async with room.lock:
        text: str = await room._call("record")
        await room._release_host()
    return text


async def api_replay(request: Request) -> Response:
    room = await _room(request)
    _finished(room)
    return Response(await room.replay_json(), media_type="application/json")


def _seat_number(request: Request) -> int:
    try:
        return int(request.path_params["seat"])
    except ValueError:
        raise ApiError(404, "unknown_seat", "no such seat") from None


async def api_seat_invite(request: Request) -> Response:
    """A new invite link for a seat nobody holds (the host token; docs/protocol.md 1.10)."""
    room = await _room(request)
    body = await _body(request)
    server = _server(request)
    answer = await server.new_invite(room, body, _seat_number(request), server.link_base(request))
    return JSONResponse(answer)


async def api_seat_qr(request: Request) -> Response:
    """The QR code of a seat's invite link for the tabletop mode
    (:mod:`roborally.server.tabletop`): only for the seat's current invite, while nobody
    holds the seat."""
    room = await _room(request)
    body = await _body(request)
    code = body.get("invite")
    seat = _seat_number(request)
    if not any(s.index == seat and s.human for s in room.seats):
        raise ApiError(404, "unknown_seat", f"seat {seat} is not a player's seat in this game")
    if not isinstance(code, str) or len(code) > 200 or not room.invite_opens(seat, code):
        raise ApiError(403, "bad_invite", "the invite code is not this seat's current one")
    if room.seats[seat].held:
        raise ApiError(409, "seat_taken", "this seat's player has joined: its invite is used")
    server = _server(request)
    base = server.link_base(request)
    svg = qr_svg(invite_url(base, room.id, code))
    if svg is None:  # pragma: no cover - segno comes with the server extra
        raise ApiError(501, "no_qr_codes", "this server cannot draw QR codes (segno is missing)")
    # Who can open the code's link: the shared screen warns when no phone can.
    reach = link_reach(base, server.listening_wide)
    headers = {"Cache-Control": "no-store", "X-Link-Reach": reach}
    return Response(svg, media_type="image/svg+xml", headers=headers)


async def translations(request: Request) -> Response:
    """``/i18n/LANG.json``: the page's texts in one language (the same file the command line
    reads, ``roborally.content.i18n``)."""
    lang = request.path_params["lang"]
    if lang not in LANGUAGES:
        return JSONResponse(
            {"error": f"no language {lang!r}; the languages are {', '.join(LANGUAGES)}"},
            status_code=404,
        )
    return Response(
        raw_file(lang),
        media_type="application/json; charset=utf-8",
        headers={"Cache-Control": "no-cache"},
    )


async def api_health(request: Request) -> Response:
    server = _server(request)
    return JSONResponse(
        {
            "v": PROTOCOL_VERSION,
            "ok": True,
            "games": server.active_count(),
            "broken_games": len(server.broken),
            "workers": server.pool.pids(),
        }
        | ({"cluster": server.cluster.health()} if server.cluster is not None else {})
    )


class ApiRateLimit:
    """ASGI middleware: every call of the HTTP API (``/api/...``) takes a token from its
    address's bucket; an empty bucket answers ``429 rate_limited`` at once (the page and its
    static files are not counted, nor WebSockets)."""

    def __init__(self, app: ASGIApp, server: GameServer) -> None:
        self.app = app
        self.server = server

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        # A call another process sent here (scale-out mode) was counted where it came in.
        if (
            scope["type"] == "http"
            and scope["path"].startswith("/api/")
            and not scope.get(FORWARDED)
        ):
            client = scope.get("client")
            address = client_key(client[0]) if client else "?"  # an IPv6 client by its /64
            refusal = await _api_refusal(self.server, address)
            if refusal is not None:
                log.warning("%s from %s: rate_limited", scope["path"][:80], address)
                error = _error(429, refusal.code, refusal.message, refusal.retry_after)
                await error(scope, receive, send)
                return
        await self.app(scope, receive, send)


async def _api_refusal(server: GameServer, address: str) -> Refusal | None:
    """Take one API call from ``address``'s bucket: in scale-out mode the one in Redis that
    every process takes from (else N processes would give an address N times the rate);
    this process's own without Redis, or when Redis does not answer (cluster/quota.py)."""
    if server.cluster is not None:
        opts = server.options
        quota = server.cluster.quota
        wait = await quota.take_request(address, opts.requests_per_second, opts.request_burst)
        if wait is not None:
            return request_refusal(wait) if wait else None
    return server.limits.request(address)


async def _api_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, ApiError)
    log.warning(
        "%s %s from %s: %s: %s",
        request.method,
        request.url.path,
        _address(request),
        exc.code,
        exc.message,
    )
    return _error(exc.status, exc.code, exc.message, exc.retry_after, exc.close)


# ----------------------------------------------------------- WebSocket
async def _writer(websocket: WebSocket, conn: Connection) -> None:
    try:
        while True:
            await conn.wait()
            item = conn.next_message()
            if item is None:
                break
            await websocket.send_text(item)
        await websocket.close(conn.close_code or 1000)
    except Exception:  # the peer went away; nothing to do
        pass


async def _refuse_socket(
    websocket: WebSocket, code: str, text: str, close: int, retry_after: int = 0
) -> None:
    reply = error_message(code, text)
    if retry_after:
        reply["retry_after"] = retry_after  # seconds (a close frame cannot say it)
    await websocket.send_text(json.dumps(reply))
    await websocket.close(close)


async def _receive(websocket: WebSocket, conn: Connection, hello_seconds: float) -> Any:
    """The next frame; before ``hello``, only for ``hello_seconds`` after the socket opened."""
    if conn.hello:
        return await websocket.receive()
    left = hello_seconds - (time.monotonic() - conn.opened)
    try:
        return await asyncio.wait_for(websocket.receive(), max(0.0, left))
    except TimeoutError:
        if conn.hello:  # said meanwhile (a relayed socket's hello is accepted by its owner)
            return await websocket.receive()
        return None


async def game_socket(websocket: WebSocket) -> None:
    server = _server(websocket)
    address = _address(websocket)
    await websocket.accept()
    refusal = server.limits.open_socket(address)
    shared = server.cluster.quota if server.cluster is not None else None
    counted: bool | None = None  # counted in Redis (scale-out mode: every process's sockets)
    if refusal is None and shared is not None:
        counted = await _open_shared(shared, address, server.options.connections_per_address)
        if counted is False:
            server.limits.close_socket(address)
            refusal = connections_refusal(server.options.connections_per_address)
    if refusal is not None:
        log.warning("ws from %s refused: %s", address, refusal.code)
        await _refuse_socket(
            websocket, refusal.code, refusal.message, CLOSE_TOO_MANY, refusal.retry_after
        )
        return
    try:
        await _serve_socket(server, websocket, address)
    finally:
        server.limits.close_socket(address)
        if shared is not None and counted:
            with contextlib.suppress(Exception):  # Redis away: its count ages out in a day
                await shared.close_socket(address)


async def _open_shared(quota: SharedQuota, address: str, limit: int) -> bool | None:
    """Count a socket in Redis (``False``: the address has ``limit`` open already). ``None``
    when Redis cannot be reached: this process's count alone decides then (a lost Redis must
    not lock every player out)."""
    try:
        return await quota.open_socket(address, limit)
    except Exception as error:
        log.warning("ws from %s: not counted in Redis (%s)", address, error)
        return None


async def _serve_socket(server: GameServer, websocket: WebSocket, address: str) -> None:
    peer = f"{address}:{websocket.client.port}" if websocket.client else "?"
    game_id = websocket.path_params["game_id"]
    if "token" in websocket.query_params:
        log.warning("ws %s: refused a token in the URL", peer)
        await _refuse_socket(
            websocket,
            "token_in_url",
            "send the seat token in the 'hello' message, not in the URL (URLs end up in logs)",
            CLOSE_BAD_REQUEST,
        )
        return
    abort: Callable[[], None] | None = websocket.scope.get(ABORT_KEY)
    opts = server.options
    conn = Connection(
        None,
        peer,
        address,
        opts.send_queue_bytes,
        abort,
        opts.messages_per_second,
        opts.message_burst,
    )
    link = await server.open_link(game_id, conn)
    if link is None:
        log.warning("ws %s: unknown game %r", peer, game_id[:40])
        reason = await server.missing(game_id)
        await _refuse_socket(websocket, "unknown_game", reason, CLOSE_UNKNOWN_GAME)
        return
    link.open()
    writer = asyncio.get_running_loop().create_task(_writer(websocket, conn))
    try:
        while not conn.closed:
            frame = await _receive(websocket, conn, server.options.hello_seconds)
            if frame is None:
                conn.send(error_message("hello_timeout", "no 'hello' in time; connect again"))
                conn.close(CLOSE_HELLO_TIMEOUT)
                break
            if frame["type"] == "websocket.disconnect":
                break
            text = frame.get("text")
            if text is None:
                data = frame.get("bytes") or b""
                if len(data) > server.options.message_bytes:
                    error = ProtocolError("too_large", "messages are limited in size")
                    link.refuse(error)
                    continue
                try:
                    text = decode_frame(data)
                except ProtocolError as error:
                    link.refuse(error)
                    continue
            await link.handle(text)
    except WebSocketDisconnect:
        pass
    finally:
        await link.detach()
        conn.close(conn.close_code or 1000)
        with contextlib.suppress(Exception):
            await asyncio.wait_for(writer, timeout=5)
        if not writer.done():
            writer.cancel()
            if conn.abort is not None:
                conn.abort()


# ----------------------------------------------------------------- app
def ensure_static() -> Path:
    """The web page folder; a minimal placeholder page if it is empty."""
    STATIC_DIR.mkdir(exist_ok=True)
    if not any(STATIC_DIR.iterdir()):
        (STATIC_DIR / "index.html").write_text(
            "<!doctype html><meta charset=utf-8><title>RoboRally</title>"
            "<p>RoboRally server is running. The web page is not built yet; see "
            '<a href="/api/options">/api/options</a> and docs/protocol.md.</p>\n',
            encoding="utf-8",
        )
    return STATIC_DIR


def create_app(
    data_dir: str | Path | None = None, options: ServerOptions | None = None
) -> Starlette:
    """The app. Raises :class:`DataDirInUse` if another server uses the data directory and
    :class:`DamagedStore` if its database is damaged."""
    install_log_redaction()
    server = GameServer(data_dir or default_data_dir(), options)
    # Security headers outermost, so that the rate limiter's 429s carry them too (headers.py).
    middleware = [Middleware(SecurityHeaders), Middleware(ApiRateLimit, server=server)]
    if server.options.redis:
        server.cluster = ClusterNode(server, server.options.redis)
        middleware.append(Middleware(ClusterRouter, server=server))

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        try:
            await server.startup()
            yield
        finally:
            await server.shutdown()

    routes = [
        Route("/api/options", api_options),
        Route("/api/courses", api_courses),
        Route("/api/courses/{course}", api_course),
        Route("/api/games", api_list_games, methods=["GET"]),
        Route("/api/games", api_create_game, methods=["POST"]),
        Route("/api/games/{game_id}", api_get_game),
        Route("/api/games/{game_id}/join", api_join_game, methods=["POST"]),
        Route("/api/games/{game_id}/start", api_start_game, methods=["POST"]),
        Route("/api/games/{game_id}/rematch_seat", api_rematch_seat, methods=["POST"]),
        Route("/api/games/{game_id}/record", api_record),
        Route("/api/games/{game_id}/seats/{seat}/qr", api_seat_qr, methods=["POST"]),
        Route("/api/games/{game_id}/seats/{seat}/invite", api_seat_invite, methods=["POST"]),
        Route("/api/games/{game_id}/replay", api_replay),
        Route("/api/health", api_health),
        Route("/i18n/{lang}.json", translations),
        WebSocketRoute("/ws/{game_id}", game_socket),
        # The page's first words in the reader's language (index_page.py), then the files.
        Route("/", index_route(ensure_static())),
        Route("/index.html", index_route(ensure_static())),
        Mount("/", StaticFiles(directory=ensure_static(), html=True), name="static"),
    ]
    app = Starlette(
        routes=routes,
        lifespan=lifespan,
        exception_handlers={ApiError: _api_error},
        middleware=middleware,
    )
    app.state.server = server
    if server.cluster is not None:
        server.cluster.app = app  # calls sent by other processes run through it
    from roborally.server import custom_courses, web_extras

    web_extras.install(app)  # the rendered board layer and card texts for the page
    from roborally.server import builder_api

    builder_api.install(app)  # the course builder's page and its API (/build, /api/build/)
    custom_courses.install(app)  # players' own courses (in front: their board pictures too)
    return app


def check_port(host: str, port: int) -> None:
    """An :class:`OSError` with a one-line message if ``host:port`` cannot be listened on (the
    port is in use, or the address is not this machine's), before uvicorn tries and exits."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    try:
        with socket.create_server((host, port), family=family):
            pass
    except OSError as error:
        reason = os.strerror(error.errno) if error.errno else str(error)
        raise OSError(f"cannot listen on {host} port {port}: {reason}") from None


def serve(
    host: str = "127.0.0.1",
    port: int = 8000,
    data_dir: str | Path | None = None,
    log_level: str = "info",
    options: ServerOptions | None = None,
    trusted_proxies: str | None = None,
    reuse_port: bool = False,
    siblings: str | None = None,
) -> None:
    """Run the server with uvicorn until interrupted. ``trusted_proxies`` (addresses, comma
    separated) may set the client address with ``X-Forwarded-For``; nobody else may.
    ``reuse_port``: one of several processes on one port (``--workers N``, docs/scaling.md).
    ``siblings``: the directory where the scale-out processes of this machine hand each other
    the connections of the games they own (cluster/handoff.py)."""
    import uvicorn

    logging.basicConfig(level=log_level.upper(), format="%(asctime)s %(levelname)s %(message)s")
    os.environ.setdefault("ROBORALLY_LOG_LEVEL", log_level)
    sibling_dir = None
    if siblings is not None:
        from roborally.server.cluster.handoff import siblings_directory

        if options is None or options.redis is None:
            raise ValueError("--siblings is for scale-out mode: add --redis and --database")
        sibling_dir = siblings_directory(siblings)
    directory = Path(data_dir) if data_dir else default_data_dir()
    app = create_app(directory, options)
    if not reuse_port:
        check_port(host, port)  # after the data directory: its problems are reported first
    server: GameServer = app.state.server
    server.listen_host, server.listen_port = host, port
    shown = "localhost" if host in ("0.0.0.0", "::") else host
    print(f"RoboRally server: http://{shown}:{port}/  (data: {directory})", flush=True)
    if server.options.public_url:
        print(f"Invite links use {server.options.public_url}", flush=True)
    elif host in ("0.0.0.0", "::"):
        lan = lan_address()
        if lan is not None:
            print(f"Players on your network open http://{lan}:{port}/", flush=True)
        else:  # links fall back to this machine's loopback: say why, and the way out
            print(
                "This machine has no network address (no Wi-Fi or cable?), so no other device"
                " can open the game and invite links work only here. Connect it to the"
                " players' network and start the server again, or give the address they"
                f" reach with --public-url http://ADDRESS:{port}",
                flush=True,
            )
    config = uvicorn.Config(
        app,
        host=host,
        port=port,
        log_level=log_level,
        ws_max_size=WS_MAX_FRAME,
        ws=GameWebSocketProtocol,
        access_log=False,  # no request lines in the log (and tokens never in a URL)
        ws_per_message_deflate=False,
        proxy_headers=bool(trusted_proxies),
        forwarded_allow_ips=trusted_proxies or "",
        limit_concurrency=None,
        h11_max_incomplete_event_size=16 * 1024,
        timeout_keep_alive=5,
    )
    if not reuse_port and sibling_dir is None:
        uvicorn.Server(config).run()
        return
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    listener = socket.socket(family, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    if reuse_port:
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
    listener.bind((host, port))
    if sibling_dir is None:
        listener.set_inheritable(True)
        uvicorn.Server(config).run(sockets=[listener])
        return
    from roborally.server.cluster.handoff import run_with_handoff

    listener.listen(config.backlog)
    assert server.cluster is not None
    run_with_handoff(config, listener, sibling_dir, server.cluster)
