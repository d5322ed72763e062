"""Connections handed between the server processes of one machine (cluster/handoff.py): the
process that accepts a connection reads its request line without taking it and passes the
connection to the sibling that owns the game it names; everything else is served where it
arrived. Two handoffs in one event loop, no Redis: ``owner`` is a table."""

from __future__ import annotations

import asyncio
import socket
from pathlib import Path

import pytest

from roborally.server.cluster import handoff
from roborally.server.cluster.handoff import Handoff, game_of

from .conftest import run_fresh_loop

OWNERS = {"g1": "process-b", "gone": "process-c", "mine": "process-a"}


@pytest.mark.parametrize(
    ("head", "game"),
    [
        (b"GET /ws/tMC698Fz HTTP/1.1\r\nHost: x\r\n", "tMC698Fz"),
        (b"POST /api/games/Xy_-9/join HTTP/1.1\r\n", "Xy_-9"),
        (b"GET /api/games/Xy_-9?lang=pl HTTP/1.1\r\n", "Xy_-9"),
        (b"GET /api/games HTTP/1.1\r\n", None),
        (b"GET /api/games?status=finished HTTP/1.1\r\n", None),
        (b"GET /ws/abc", None),  # cut short: the id may go on
        (b"GET /ws/../etc HTTP/1.1\r\n", None),
        (b"\x16\x03\x01\x02\x00", None),  # TLS, not HTTP
        (b"", None),
    ],
)
def test_the_game_of_a_request_line(head: bytes, game: str | None) -> None:
    assert game_of(head) == game


class Place:
    """One process: a listener, a handoff, and what it served (the first bytes of each)."""

    def __init__(self, directory: Path, process: str) -> None:
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.served: list[tuple[bytes, tuple[str, int]]] = []
        self.done = asyncio.Event()

        async def owner(game: str) -> str | None:
            return OWNERS.get(game)

        def serve(conn: socket.socket) -> None:
            asyncio.get_running_loop().create_task(self._read(conn))

        self.handoff = Handoff(directory, process, owner, serve)

    async def _read(self, conn: socket.socket) -> None:
        loop = asyncio.get_running_loop()
        data = b""
        while b"\r\n\r\n" not in data:
            chunk = await loop.sock_recv(conn, 4096)
            if not chunk:
                break
            data += chunk
        self.served.append((data, conn.getpeername()))
        conn.close()
        self.done.set()


async def ask(port: int, *parts: bytes, pause: float = 0.0) -> tuple[str, int]:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    for part in parts:
        writer.write(part)
        await writer.drain()
        await asyncio.sleep(pause)
    address: tuple[str, int] = writer.get_extra_info("sockname")
    await reader.read()  # until the serving side closes
    writer.close()
    return address


def run_two(tmp_path: Path, scenario: object) -> tuple[Place, Place]:
    async def main() -> tuple[Place, Place]:
        a, b = Place(tmp_path, "process-a"), Place(tmp_path, "process-b")
        a.handoff.start(a.listener)
        b.handoff.start(b.listener)
        try:
            await asyncio.wait_for(scenario(a, b), 10)  # type: ignore[operator]
        finally:
            a.handoff.stop()
            b.handoff.stop()
        return a, b

    return run_fresh_loop(main())


def test_a_socket_for_a_siblings_game_is_handed_over_unread(tmp_path: Path) -> None:
    request = b"GET /ws/g1 HTTP/1.1\r\nHost: here\r\n\r\n"

    async def scenario(a: Place, b: Place) -> None:
        # The request line arrives in two parts: the first is not enough to tell the game.
        scenario.client = await ask(a.port, request[:9], request[9:], pause=0.05)  # type: ignore[attr-defined]

    a, b = run_two(tmp_path, scenario)
    assert a.served == [] and a.handoff.handed == 1
    assert b.handoff.received == 1
    assert b.served == [(request, scenario.client)]  # type: ignore[attr-defined]


def test_other_sockets_are_served_where_they_arrived(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(handoff, "PEEK_SECONDS", 0.2)
    requests = [
        b"GET /ws/mine HTTP/1.1\r\n\r\n",  # its own game
        b"GET /ws/gone HTTP/1.1\r\n\r\n",  # owned by a process that is not a sibling
        b"GET /ws/nobody HTTP/1.1\r\n\r\n",  # owned by nobody yet
        b"GET /api/games HTTP/1.1\r\n\r\n",  # about no game
    ]

    async def scenario(a: Place, b: Place) -> None:
        for request in requests:
            await ask(a.port, request)
        # Silent for longer than a look lasts, then a request about the sibling's game: too
        # late to be handed, it is served here (and relayed by the real server).
        await ask(a.port, b"", b"GET /ws/g1 HTTP/1.1\r\n\r\n", pause=0.4)

    a, b = run_two(tmp_path, scenario)
    assert [data for data, _ in a.served][:4] == requests
    assert a.served[-1][0] == b"GET /ws/g1 HTTP/1.1\r\n\r\n"
    assert a.handoff.handed == 0 and b.served == []
    assert a.handoff.kept == 1  # the game of a process that is not a sibling


def test_the_mailbox_is_private_to_its_directory(tmp_path: Path) -> None:
    open_dir = tmp_path / "open"
    open_dir.mkdir(mode=0o777)
    open_dir.chmod(0o777)
    with pytest.raises(ValueError, match="others may write there"):
        handoff.siblings_directory(open_dir)
    with pytest.raises(ValueError, match="no such directory"):
        handoff.siblings_directory(tmp_path / "missing")
    assert handoff.siblings_directory(tmp_path) == tmp_path


def test_a_burst_of_sockets_is_handed_although_the_mailbox_is_small(tmp_path: Path) -> None:
    """A sibling's mailbox holds about 10 messages (``net.unix.max_dgram_qlen``); 60 sockets
    arriving at once still all reach the owner."""
    request = b"GET /ws/g1 HTTP/1.1\r\n\r\n"

    async def scenario(a: Place, b: Place) -> None:
        await asyncio.gather(*(ask(a.port, request) for _ in range(60)))

    a, b = run_two(tmp_path, scenario)
    assert (a.handoff.handed, a.handoff.kept, b.handoff.received) == (60, 0, 60)
    assert a.served == [] and len(b.served) == 60
