"""Helpers for the server tests: an in-process client, a WebSocket wrapper, a live uvicorn."""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import json
import socket
import threading
import time
import warnings
from collections.abc import Callable, Coroutine, Iterator
from pathlib import Path
from typing import Any, TypeVar

import pytest

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

from roborally.bots.random_bot import RandomBot
from roborally.content.record import parse_record, replay
from roborally.engine.game import Game
from roborally.server.app import ServerOptions, create_app
from roborally.server.client import decision_from_json, json_choice
from roborally.server.room import GameRoom
from roborally.server.transport import GameWebSocketProtocol

T = TypeVar("T")


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("filterwarnings", "ignore:Using `httpx` with `starlette.testclient`")


# Games run in the test's own process (engine_workers=0) unless a test needs real worker processes.
FAST = ServerOptions(
    grace_seconds=30, decision_seconds=60, min_seconds=0.01, engine_workers=0, away_seconds=0.2
)


def make_client(data_dir: Path, options: ServerOptions = FAST) -> TestClient:
    return TestClient(create_app(data_dir, options))


@pytest.fixture
def extras(tmp_path: Path) -> TestClient:
    """A test client of a server with the page's extra endpoints (``web_extras``)."""
    from roborally.server import web_extras

    client = make_client(tmp_path)
    web_extras.install(client.app)  # type: ignore[arg-type]
    return client


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    with make_client(tmp_path) as test_client:
        yield test_client


def room_of(client: TestClient, game_id: str) -> GameRoom:
    room: GameRoom = client.app.state.server.rooms[game_id]  # type: ignore[attr-defined]
    return room


def create(client: TestClient, **body: Any) -> dict[str, Any]:
    body.setdefault("course", "tiny")
    body.setdefault("seats", [{"kind": "human"}, {"kind": "bot"}])
    body.setdefault("first_player", 0)
    body.setdefault("seed", 11)
    response = client.post("/api/games", json=body)
    assert response.status_code == 201, response.text
    data: dict[str, Any] = response.json()
    return data


class Ws:
    """A TestClient WebSocket that keeps every frame it received."""

    def __init__(self, session: Any, show: bool = True) -> None:
        self.session = session
        self.show = show  # say 'shown' for every state, as a page with no animation would
        self.shown = 0
        self.raw: list[str] = []
        self.answered: set[str] = set()
        self.last_state: dict[str, Any] | None = None
        self.token: str | None = None  # the seat's token (an invite's comes in the welcome)

    def send(self, **data: Any) -> None:
        data.setdefault("v", 1)
        self.session.send_text(json.dumps(data))

    def send_raw(self, text: str) -> None:
        self.session.send_text(text)

    def recv(self) -> dict[str, Any]:
        text = self.session.receive_text()
        self.raw.append(text)
        data: dict[str, Any] = json.loads(text)
        if data["type"] == "state":
            self.last_state = data
            if self.show and data["seat"] is not None and data["event_count"] > self.shown:
                self.shown = data["event_count"]
                self.send(type="shown", event=self.shown)
        return data

    def until(
        self, kind: str, test: Callable[[dict[str, Any]], bool] = lambda m: True, limit: int = 2000
    ) -> dict[str, Any]:
        for _ in range(limit):
            msg = self.recv()
            if msg["type"] == kind and test(msg):
                return msg
        raise AssertionError(f"no {kind} message in {limit} messages")

    def error(self) -> dict[str, Any]:
        """The next error reply (states and events in between are skipped)."""
        return self.until("error")

    def pending_state(self) -> dict[str, Any]:
        """The latest running state with a decision this seat has not answered yet."""

        def waiting(m: dict[str, Any]) -> bool:
            fresh = [p for p in m["pending"] if p["id"] not in self.answered]
            # With 'shown' said, a decision's clock has started: its deadline is set.
            started = not self.show or all(p["deadline"] is not None for p in fresh)
            return m["status"] == "running" and bool(fresh) and started

        if self.last_state is not None and waiting(self.last_state):
            return self.last_state
        return self.until("state", waiting)

    def answer(self, state: dict[str, Any], bot: RandomBot) -> None:
        for pending in state["pending"]:
            if pending["id"] in self.answered:
                continue
            self.answered.add(pending["id"])
            choice = bot.choose(state["observation"], decision_from_json(pending))
            self.send(type="decide", decision_id=pending["id"], choice=json_choice(choice))

    def play_to_end(self, bot: RandomBot, limit: int = 20_000) -> dict[str, Any]:
        for _ in range(limit):
            msg = self.recv()
            if msg["type"] == "error":
                raise AssertionError(f"error reply: {msg}")
            if msg["type"] == "game_over":
                return msg
            if msg["type"] == "state" and msg["status"] == "running":
                self.answer(msg, bot)
        raise AssertionError("the game did not end")


@contextlib.contextmanager
def connect(
    client: TestClient, game_id: str, token: str | None = None, invite: str | None = None
) -> Iterator[Any]:
    """Open a WebSocket to a game; :func:`hello` sends the seat ``token`` or its ``invite``
    (never in the URL)."""
    with client.websocket_connect(f"/ws/{game_id}") as session:
        session.roborally_token = token
        session.roborally_invite = invite
        yield session


def seat_of(created: dict[str, Any], index: int) -> dict[str, str]:
    """What opens seat ``index`` of a create response: ``{"token": ...}`` for the creator's
    own seat, ``{"invite": ...}`` for the others (``connect(client, gid, **seat_of(...))``)."""
    seat = created["seats"][index]
    return {"token": seat["token"]} if "token" in seat else {"invite": seat["invite"]}


def hello(session: Any, **fields: Any) -> Ws:
    ws = Ws(session)
    token = getattr(session, "roborally_token", None)
    invite = getattr(session, "roborally_invite", None)
    if token is not None:
        fields.setdefault("token", token)
    elif invite is not None:
        fields.setdefault("invite", invite)
    ws.send(type="hello", **fields)
    welcome = ws.recv()
    assert welcome["type"] == "welcome", welcome
    ws.token = welcome.get("token") or token  # an invite's seat gets a token of its own
    return ws


def take_seat(client: TestClient, created: dict[str, Any], index: int) -> str:
    """Take seat ``index`` with its invite (or its creator's token) and return the token that
    opens it from now on (the socket closes again: the seat stays taken)."""
    with connect(client, created["game_id"], **seat_of(created, index)) as session:
        token = hello(session).token
    assert token is not None
    return token


def refused_hello(session: Any) -> dict[str, Any]:
    """Say hello with the session's token (or invite) and return the error it gets."""
    invite = getattr(session, "roborally_invite", None)
    key = {"token": session.roborally_token} if invite is None else {"invite": invite}
    session.send_json({"type": "hello", "v": 1, **key})
    reply: dict[str, Any] = session.receive_json()
    assert reply["type"] == "error", reply
    return reply


def final_game(client: TestClient, game_id: str) -> Game:
    """A finished game as its exported record replays it (the server keeps no engine game
    once a game is over)."""
    response = client.get(f"/api/games/{game_id}/record")
    assert response.status_code == 200, response.text
    return replay(parse_record(response.text))


def wait_finished(client: TestClient, game_id: str, timeout: float = 30.0) -> GameRoom | None:
    """Wait for a game (a bot game runs in the background) to end; its room if the server
    still keeps it in memory."""
    server = client.app.state.server  # type: ignore[attr-defined]

    def over() -> bool:  # stored first, then the room in memory says so
        room = server.rooms.get(game_id)
        in_memory = room is None or room.status == "finished"
        return bool(server.store.sync.status(game_id) == "finished" and in_memory)

    wait_for(over, timeout)
    room: GameRoom | None = server.rooms.get(game_id)
    return room


def wait_for(test: Callable[[], bool], timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if test():
            return
        time.sleep(0.01)
    raise AssertionError("condition not reached in time")


# ------------------------------------------------------------------ live server
def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


class LiveServer:
    """The app under uvicorn in a thread, on a free local port (real sockets, real frames)."""

    def __init__(self, data_dir: Path, options: ServerOptions = FAST) -> None:
        import uvicorn

        self.app = create_app(data_dir, options)
        self.port = free_port()
        config = uvicorn.Config(
            self.app,
            host="127.0.0.1",
            port=self.port,
            log_level="warning",
            ws=GameWebSocketProtocol,
            ws_max_size=1 << 20,
            lifespan="on",
        )
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, daemon=True)

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def __enter__(self) -> LiveServer:
        self.thread.start()
        wait_for(lambda: self.server.started)
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=10)

    def room(self, game_id: str) -> GameRoom:
        room: GameRoom = self.app.state.server.rooms[game_id]  # type: ignore[attr-defined]
        return room


@pytest.fixture(scope="session")
def redis_service() -> Iterator[str]:
    """A real redis-server on a loopback port for this test session (tests/server/services.py)."""
    from .services import redis_server

    with redis_server() as server:
        yield server.url


@pytest.fixture
def redis_url(redis_service: str) -> str:
    """The session's Redis, without the per-address counts of earlier tests: every test's
    games come from 127.0.0.1, and scale-out mode counts an address's games, creations and API
    calls in Redis (server/cluster/quota.py), so they would add up over the session."""
    import redis

    from roborally.server.cluster.quota import API, BOT_GAMES, CREATE, LOBBIES, SOCKETS

    client = redis.Redis.from_url(redis_service)
    try:
        for prefix in (API, CREATE, LOBBIES, BOT_GAMES, SOCKETS):
            keys = list(client.scan_iter(match=prefix + "*"))
            if keys:
                client.delete(*keys)
    finally:
        client.close()
    return redis_service


@pytest.fixture(scope="session")
def postgres_url() -> Iterator[str]:
    """A real PostgreSQL on a loopback port for this test session (tests/server/services.py)."""
    from .services import postgres_server

    with postgres_server() as server:
        yield server.url


@pytest.fixture
def pg_database(postgres_url: str) -> Iterator[str]:
    """The URL of a new, empty PostgreSQL database of its own for one test."""
    from .databases import fresh_database

    with fresh_database(postgres_url) as url:
        yield url


@pytest.fixture(params=["sqlite", "postgresql"])
def database(request: pytest.FixtureRequest) -> str | None:
    """Each storage backend in turn: ``None`` (SQLite in the data directory) or the URL of a
    new PostgreSQL database (``ServerOptions.database``)."""
    if request.param == "sqlite":
        return None
    url: str = request.getfixturevalue("pg_database")
    return url


def run_fresh_loop(coroutine: Coroutine[Any, Any, T]) -> T:
    """``asyncio.run(coroutine)`` in a fresh thread: Playwright's sync API (the browser tests,
    earlier in the same session) may own this thread's event loop."""
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, coroutine).result()
