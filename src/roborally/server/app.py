"""The ASGI application: the lobby's HTTP API, one WebSocket per game, and the static web page.

``create_app(data_dir)`` builds a Starlette app around a :class:`GameServer`; ``serve`` runs it
with uvicorn (``roborally serve``). The protocol is documented in ``docs/protocol.md``.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import re
import secrets
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, Response
from starlette.routing import Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles
from starlette.websockets import WebSocket, WebSocketDisconnect

from roborally.bots.random_bot import BOTS
from roborally.content.courses import list_courses
from roborally.engine.board import Grid
from roborally.engine.game import Game
from roborally.server.boardjson import grid_to_json
from roborally.server.protocol import (
    CLOSE_BAD_TOKEN,
    CLOSE_UNKNOWN_GAME,
    MAX_MESSAGE_BYTES,
    ProtocolError,
    clean_name,
    error_message,
)
from roborally.server.room import (
    CLOSED,
    FINISHED,
    OPEN,
    RUNNING,
    Connection,
    GameRoom,
    GameSettings,
    Seat,
    token_hash,
)
from roborally.server.rulesets import (
    PROTOCOL_VERSION,
    available_editions,
    courses_for,
    find_edition,
    options_json,
    timer_rule,
)
from roborally.server.store import Store

log = logging.getLogger("roborally.server")

STATIC_DIR = Path(__file__).parent / "static"
GAME_ID = re.compile(r"[A-Za-z0-9_-]{1,32}")
COLOURS = ("Red", "Blue", "Green", "Yellow", "Purple", "Orange", "White", "Black")
MAX_ROUNDS_LIMIT = 200
MAX_CONNECTIONS_PER_GAME = 200
WS_MAX_FRAME = 1 << 20  # uvicorn drops larger frames; up to this size we reply 'too_large'


class ApiError(Exception):
    def __init__(self, status: int, code: str, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message


def default_data_dir() -> Path:
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "roborally"


@dataclass
class ServerOptions:
    """Server-wide defaults and limits (tests shrink the timers)."""

    grace_seconds: float = 30.0
    decision_seconds: float = 60.0
    max_rounds: int = 50
    min_seconds: float = 5.0  # the smallest timer a client may ask for
    max_seconds: float = 600.0
    max_games: int = 2_000  # open and running games at once
    keep_finished: int = 200  # finished games kept in memory (the others reload on demand)
    lobby_seconds: float = 6 * 3600.0  # an open game nobody joined or watched for this long closes


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


def _whole(body: dict[str, Any], key: str, default: int, low: int, high: int) -> int:
    value = body.get(key, default)
    if value is None:
        value = default
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise ApiError(400, "bad_request", f"'{key}' must be a whole number from {low} to {high}")
    return value


class GameServer:
    """All rooms of one server process, and the store behind them."""

    def __init__(self, data_dir: str | Path, options: ServerOptions | None = None) -> None:
        self.data_dir = Path(data_dir)
        self.options = options or ServerOptions()
        self.store = Store.in_dir(self.data_dir)
        self.rooms: dict[str, GameRoom] = {}

    # ------------------------------------------------------------- life
    async def startup(self) -> None:
        """Reload every open and running game; running games continue where they were."""
        for game_id in self.store.ids_with_status(OPEN, RUNNING):
            stored = self.store.load(game_id)
            if stored is None:
                continue
            try:
                room = GameRoom.from_stored(self.store, stored)
            except Exception as error:
                log.error("game %s could not be reloaded: %s", game_id, error)
                self.store.update_game(game_id, status="broken")
                continue
            self.rooms[game_id] = room
            await room.resume()
        if self.rooms:
            log.info("reloaded %d game(s)", len(self.rooms))

    async def shutdown(self) -> None:
        for room in self.rooms.values():
            await room.close()
            for conn in list(room.conns):
                conn.close(1001)
        await asyncio.sleep(0)
        self.store.close()

    # ------------------------------------------------------------ rooms
    def get_room(self, game_id: str) -> GameRoom | None:
        if not GAME_ID.fullmatch(game_id):
            return None
        room = self.rooms.get(game_id)
        if room is not None:
            return room
        stored = self.store.load(game_id)
        if stored is None or stored.status != FINISHED:
            return None
        try:
            room = GameRoom.from_stored(self.store, stored)
        except Exception as error:
            log.error("game %s could not be loaded: %s", game_id, error)
            return None
        self.rooms[game_id] = room
        self.prune()
        return room

    def close_idle_lobbies(self) -> None:
        """Close open games that nobody has joined, connected to or left for
        ``lobby_seconds`` (abandoned lobbies would otherwise count against ``max_games`` and
        stay listed forever). They never started, so there is nothing to replay."""
        limit = time.time() - self.options.lobby_seconds
        for room in list(self.rooms.values()):
            if room.status == OPEN and not room.conns and room.touched < limit:
                room.status = CLOSED
                self.store.update_game(room.id, status=CLOSED)
                del self.rooms[room.id]
                log.info(
                    "game %s: lobby closed after %.0f s unused", room.id, time.time() - room.touched
                )

    def missing(self, game_id: str) -> str:
        """Why there is no game ``game_id`` to show (for the error message)."""
        stored = self.store.load(game_id) if GAME_ID.fullmatch(game_id) else None
        if stored is not None and stored.status == CLOSED:
            hours = self.options.lobby_seconds / 3600
            return f"this game's lobby was closed: nobody used it for {hours:g} hour(s)"
        return "no such game"

    def prune(self) -> None:
        """Close abandoned lobbies; forget the oldest finished games nobody watches (the store
        keeps them)."""
        self.close_idle_lobbies()
        idle = [r for r in self.rooms.values() if r.status == FINISHED and not r.conns]
        if len(idle) <= self.options.keep_finished:
            return
        idle.sort(key=lambda r: r.created)
        for room in idle[: len(idle) - self.options.keep_finished]:
            del self.rooms[room.id]

    def active_count(self) -> int:
        return sum(1 for r in self.rooms.values() if r.status in (OPEN, RUNNING))

    def settings_from(self, body: dict[str, Any]) -> tuple[GameSettings, list[Seat]]:
        """Validate a create request (protocol 1.3)."""
        opts = self.options
        edition = find_edition(body.get("edition", "2023"))
        if edition is None:
            known = ", ".join(e.id for e in available_editions())
            shown = str(body.get("edition"))[:40]
            raise ApiError(400, "unknown_edition", f"unknown edition {shown!r} (known: {known})")
        course_id = body.get("course")
        info = next(
            (c for c in courses_for(edition.id) if c.id == course_id),
            None,
        )
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
            seats.append(Seat(index, kind, name, bot, taken=kind == "bot"))
        variants = body.get("variants") or []
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
        seed = body.get("seed")
        if seed is None:
            seed = secrets.randbits(31)
        if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2**63:
            raise ApiError(400, "bad_request", "'seed' must be a whole number >= 0")
        first = body.get("first_player")
        if first is not None and (
            isinstance(first, bool) or not isinstance(first, int) or not 0 <= first < len(seats)
        ):
            raise ApiError(400, "bad_request", "'first_player' must be a seat number or null")
        public = body.get("public", True)
        if not isinstance(public, bool):
            raise ApiError(400, "bad_request", "'public' must be true or false")
        settings = GameSettings(
            edition=edition.id,
            course=info.id,
            variants=tuple(sorted(chosen)),
            timer_seconds=timer,
            decision_seconds=_number(
                body, "decision_seconds", opts.decision_seconds, opts.min_seconds, opts.max_seconds
            ),
            grace_seconds=_number(
                body, "grace_seconds", opts.grace_seconds, opts.min_seconds, opts.max_seconds
            ),
            max_rounds=_whole(body, "max_rounds", opts.max_rounds, 0, MAX_ROUNDS_LIMIT),
            seed=seed,
            first_player=first,
            public=public,
        )
        try:  # a dry run: the engine must accept this game
            Game(settings.config(tuple(s.name for s in seats)))
        except ValueError as error:
            raise ApiError(400, "bad_request", str(error)) from None
        return settings, seats

    async def create(self, body: dict[str, Any], base: str) -> dict[str, Any]:
        self.close_idle_lobbies()
        if self.active_count() >= self.options.max_games:
            raise ApiError(503, "server_full", "too many games on this server; try later")
        settings, seats = self.settings_from(body)
        game_id = secrets.token_urlsafe(6)
        while game_id in self.rooms or self.store.load(game_id) is not None:
            game_id = secrets.token_urlsafe(6)
        host_token = secrets.token_urlsafe(18)
        tokens: dict[int, str] = {}
        for seat in seats:
            if seat.human:
                tokens[seat.index] = secrets.token_urlsafe(18)
                seat.token_hash = token_hash(tokens[seat.index])
        room = GameRoom(self.store, game_id, settings, seats, token_hash(host_token), 0.0)
        self.store.create_game(
            game_id, settings.to_json(), [s.stored() for s in seats], room.host_hash, OPEN
        )
        stored = self.store.load(game_id)
        room.created = stored.created if stored else 0.0
        self.rooms[game_id] = room
        log.info("game %s: created (%s, %d seats)", game_id, settings.course, len(seats))
        if not tokens:
            async with room.lock:
                await room.start_game()
        self.prune()
        ws_base = "ws" + base[4:] if base.startswith("http") else base
        return {
            "v": PROTOCOL_VERSION,
            "game_id": game_id,
            "host_token": host_token,
            "host_seat": room.host_seat,
            "seats": [
                {"seat": s.index, "kind": s.kind, "name": s.name, "bot": s.bot_kind}
                | (
                    {
                        "token": tokens[s.index],
                        "url": f"{base}/?game={game_id}&token={tokens[s.index]}",
                    }
                    if s.human
                    else {}
                )
                for s in seats
            ],
            "spectator_url": f"{base}/?game={game_id}",
            "ws_url": f"{ws_base}/ws/{game_id}",
        }

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
            token = secrets.token_urlsafe(18)
            seat.token_hash = token_hash(token)
            seat.taken = True
            room.touched = time.time()
            if name is not None:
                seat.name = name
            room.store.update_game(room.id, seats=[s.stored() for s in room.seats])
            room._broadcast()
        return {
            "v": PROTOCOL_VERSION,
            "game_id": room.id,
            "seat": seat.index,
            "token": token,
            "url": f"{base}/?game={room.id}&token={token}",
        }


# ---------------------------------------------------------------- HTTP
def _server(request: Request | WebSocket) -> GameServer:
    server: GameServer = request.app.state.server
    return server


def _base(request: Request) -> str:
    return str(request.base_url).rstrip("/")


def _error(status: int, code: str, text: str) -> JSONResponse:
    return JSONResponse(
        {"v": PROTOCOL_VERSION, "error": {"code": code, "message": text}}, status_code=status
    )


async def _body(request: Request) -> dict[str, Any]:
    raw = await request.body()
    if len(raw) > MAX_MESSAGE_BYTES:
        raise ApiError(413, "too_large", f"requests are limited to {MAX_MESSAGE_BYTES} bytes")
    if not raw.strip():
        return {}
    try:
        data = json.loads(raw)
    except (ValueError, RecursionError):
        raise ApiError(400, "bad_json", "the body is not valid JSON") from None
    if not isinstance(data, dict):
        raise ApiError(400, "bad_request", "the body must be a JSON object")
    return data


def _room(request: Request) -> GameRoom:
    server = _server(request)
    room = server.get_room(request.path_params["game_id"])
    if room is None:
        raise ApiError(404, "unknown_game", server.missing(request.path_params["game_id"]))
    return room


async def api_options(request: Request) -> Response:
    o = _server(request).options
    return JSONResponse(
        options_json(
            {
                "decision_seconds": o.decision_seconds,
                "grace_seconds": o.grace_seconds,
                "max_rounds": o.max_rounds,
            },
            {
                "seats": [1, len(COLOURS)],
                "max_rounds": MAX_ROUNDS_LIMIT,
                "timer_seconds": [o.min_seconds, o.max_seconds],
                "message_bytes": MAX_MESSAGE_BYTES,
            },
        )
    )


async def api_courses(request: Request) -> Response:
    return JSONResponse({"v": PROTOCOL_VERSION, "courses": [c.summary() for c in list_courses()]})


async def api_course(request: Request) -> Response:
    info = next((c for c in list_courses() if c.id == request.path_params["course"]), None)
    if info is None:
        return _error(404, "unknown_course", "no such course")
    return JSONResponse(
        {"v": PROTOCOL_VERSION, "course": info.summary(), "board": grid_to_json(Grid(info.course))}
    )


async def api_create_game(request: Request) -> Response:
    body = await _body(request)
    return JSONResponse(await _server(request).create(body, _base(request)), status_code=201)


async def api_list_games(request: Request) -> Response:
    server = _server(request)
    if request.query_params.get("status") == FINISHED:
        return JSONResponse({"v": PROTOCOL_VERSION, "games": server.store.finished_summaries()})
    base = _base(request)
    server.close_idle_lobbies()
    games = [
        room.summary(base)
        for room in server.rooms.values()
        if room.status in (OPEN, RUNNING) and room.settings.public
    ]
    return JSONResponse({"v": PROTOCOL_VERSION, "games": games})


async def api_get_game(request: Request) -> Response:
    return JSONResponse({"v": PROTOCOL_VERSION, **_room(request).summary(_base(request))})


async def api_join_game(request: Request) -> Response:
    body = await _body(request)
    room = _room(request)
    return JSONResponse(await _server(request).join(room, body, _base(request)))


async def api_start_game(request: Request) -> Response:
    body = await _body(request)
    room = _room(request)
    token = body.get("host_token")
    if not isinstance(token, str) or not room.is_host(token):
        raise ApiError(403, "bad_token", "only the host may start the game")
    async with room.lock:
        if room.status != OPEN:
            raise ApiError(409, "not_open", "the game has already started")
        await room.start_game()
    return JSONResponse({"v": PROTOCOL_VERSION, "game_id": room.id, "status": room.status})


def _finished(room: GameRoom) -> None:
    if room.status != FINISHED or room.game is None:
        raise ApiError(409, "not_finished", "records and replays are shown once the game is over")


async def api_record(request: Request) -> Response:
    room = _room(request)
    _finished(room)
    stored = room.store.load(room.id)
    text = stored.record if stored is not None and stored.record else room.record_text()
    return PlainTextResponse(
        text,
        headers={"Content-Disposition": f'attachment; filename="roborally-{room.id}.rec"'},
    )


async def api_replay(request: Request) -> Response:
    room = _room(request)
    _finished(room)
    return JSONResponse(room.replay_json())


async def api_health(request: Request) -> Response:
    return JSONResponse(
        {"v": PROTOCOL_VERSION, "ok": True, "games": _server(request).active_count()}
    )


async def _api_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, ApiError)
    log.warning("%s %s: %s: %s", request.method, request.url.path, exc.code, exc.message)
    return _error(exc.status, exc.code, exc.message)


# ----------------------------------------------------------- WebSocket
async def _writer(websocket: WebSocket, conn: Connection) -> None:
    try:
        while True:
            item = await conn.queue.get()
            if item is None:
                break
            await websocket.send_text(item)
        await websocket.close(conn.close_code or 1000)
    except Exception:  # the peer went away; nothing to do
        pass


async def game_socket(websocket: WebSocket) -> None:
    server = _server(websocket)
    await websocket.accept()
    peer = f"{websocket.client.host}:{websocket.client.port}" if websocket.client else "?"
    room = server.get_room(websocket.path_params["game_id"])
    if room is None:
        log.warning("ws %s: unknown game %r", peer, websocket.path_params["game_id"][:40])
        reason = server.missing(websocket.path_params["game_id"])
        await websocket.send_text(json.dumps(error_message("unknown_game", reason)))
        await websocket.close(CLOSE_UNKNOWN_GAME)
        return
    token = websocket.query_params.get("token")
    if token is not None and room.seat_for_token(token) is None:
        log.warning("game %s: ws %s: bad seat token", room.id, peer)
        room.refused += 1
        await websocket.send_text(
            json.dumps(error_message("bad_token", "the token is not valid for this game"))
        )
        await websocket.close(CLOSE_BAD_TOKEN)
        return
    if len(room.conns) >= MAX_CONNECTIONS_PER_GAME:
        await websocket.send_text(json.dumps(error_message("server_full", "too many watchers")))
        await websocket.close(1013)
        return
    conn = Connection(token, peer)
    room.attach(conn)
    writer = asyncio.get_running_loop().create_task(_writer(websocket, conn))
    try:
        while not conn.closed:
            frame = await websocket.receive()
            if frame["type"] == "websocket.disconnect":
                break
            text = frame.get("text")
            if text is None:
                size = len(frame.get("bytes") or b"")
                code = "too_large" if size > MAX_MESSAGE_BYTES else "bad_json"
                room.refuse(conn, ProtocolError(code, "send JSON text frames, not binary"), None)
                continue
            await room.handle(conn, text)
    except WebSocketDisconnect:
        pass
    finally:
        await room.detach(conn)
        conn.close(conn.close_code or 1000)
        with contextlib.suppress(Exception):
            await asyncio.wait_for(writer, timeout=5)


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
    server = GameServer(data_dir or default_data_dir(), options)

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        await server.startup()
        yield
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
        Route("/api/games/{game_id}/record", api_record),
        Route("/api/games/{game_id}/replay", api_replay),
        Route("/api/health", api_health),
        WebSocketRoute("/ws/{game_id}", game_socket),
        Mount("/", StaticFiles(directory=ensure_static(), html=True), name="static"),
    ]
    app = Starlette(routes=routes, lifespan=lifespan, exception_handlers={ApiError: _api_error})
    app.state.server = server
    from roborally.server import web_extras

    web_extras.install(app)  # the rendered board layer and card texts for the page
    return app


def serve(
    host: str = "127.0.0.1",
    port: int = 8000,
    data_dir: str | Path | None = None,
    log_level: str = "info",
) -> None:
    """Run the server with uvicorn until interrupted."""
    import uvicorn

    logging.basicConfig(level=log_level.upper(), format="%(asctime)s %(levelname)s %(message)s")
    directory = Path(data_dir) if data_dir else default_data_dir()
    app = create_app(directory)
    shown = "localhost" if host in ("0.0.0.0", "::") else host
    print(f"RoboRally server: http://{shown}:{port}/  (data: {directory})", flush=True)
    uvicorn.run(
        app,
        host=host,
        port=port,
        log_level=log_level,
        ws_max_size=WS_MAX_FRAME,
        ws="websockets-sansio",
        access_log=False,  # request URLs carry seat tokens
        ws_per_message_deflate=False,
    )
