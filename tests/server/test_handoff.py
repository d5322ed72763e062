"""Connections handed between the server processes of one machine (cluster/handoff.py): the
process that accepts a connection reads its request line without taking it and passes the
connection to the sibling that owns the game it names; everything else is served where it
arrived. Two handoffs in one event loop, no Redis: ``owner`` is a table."""

from __future__ import annotations

import array
import asyncio
import logging
import os
import pwd
import socket
from pathlib import Path

import pytest

from roborally.server.cluster import handoff
from roborally.server.cluster.handoff import Handoff, Peer, game_of

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


@pytest.mark.parametrize("mode", [0o777, 0o755, 0o750, 0o711, 0o701, 0o070])
def test_a_siblings_directory_others_may_enter_is_refused(tmp_path: Path, mode: int) -> None:
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(mode)
    with pytest.raises(ValueError, match=f"mode {mode:03o} lets other users in") as refused:
        handoff.siblings_directory(shared)
    assert f"chmod 700 {shared}" in str(refused.value)


@pytest.mark.skipif(os.geteuid() != 0, reason="giving a directory away needs root")
def test_a_siblings_directory_of_another_user_is_refused(tmp_path: Path) -> None:
    theirs = tmp_path / "theirs"
    theirs.mkdir(mode=0o700)
    nobody = pwd.getpwnam("nobody")
    os.chown(theirs, nobody.pw_uid, nobody.pw_gid)  # its owner could put a mailbox there
    with pytest.raises(ValueError, match=f"owned by uid {nobody.pw_uid}, not by this user"):
        handoff.siblings_directory(theirs)


def test_a_private_siblings_directory_is_taken(tmp_path: Path) -> None:
    private = tmp_path / "private"
    private.mkdir()
    private.chmod(0o700)
    assert handoff.siblings_directory(private) == private
    with pytest.raises(ValueError, match="no such directory"):
        handoff.siblings_directory(tmp_path / "missing")


def test_a_burst_of_sockets_is_handed_although_the_mailbox_is_small(tmp_path: Path) -> None:
    """A sibling's mailbox holds about 10 messages (``net.unix.max_dgram_qlen``); 60 sockets
    arriving at once still all reach the owner."""
    request = b"GET /ws/g1 HTTP/1.1\r\n\r\n"

    async def scenario(a: Place, b: Place) -> None:
        await asyncio.gather(*(ask(a.port, request) for _ in range(60)))

    a, b = run_two(tmp_path, scenario)
    assert (a.handoff.handed, a.handoff.kept, b.handoff.received) == (60, 0, 60)
    assert a.served == [] and len(b.served) == 60


def test_only_a_process_of_this_user_is_a_sibling() -> None:
    me = os.getuid()
    assert handoff.is_sibling(Peer(pid=10, uid=me, gid=0), me)
    assert not handoff.is_sibling(Peer(pid=10, uid=me + 1, gid=0), me)
    assert not handoff.is_sibling(None, me)  # the kernel said nothing: not trusted


def test_the_kernel_names_the_sender_of_a_handed_socket(tmp_path: Path) -> None:
    """What a mailbox reads of a message sent by this process: its descriptor and, without the
    sender asking, its pid and uid."""
    mailbox = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    mailbox.setsockopt(socket.SOL_SOCKET, socket.SO_PASSCRED, 1)
    mailbox.bind(str(tmp_path / "box.sock"))
    sender = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    mine, theirs = socket.socketpair()
    rights = [(socket.SOL_SOCKET, socket.SCM_RIGHTS, array.array("i", [theirs.fileno()]))]
    sender.sendmsg([b"c"], rights, 0, str(tmp_path / "box.sock"))
    _, ancillary, _, _ = mailbox.recvmsg(16, handoff.ANCILLARY)
    fds, peer = handoff.read_message(ancillary)
    assert peer == Peer(os.getpid(), os.getuid(), os.getgid())
    assert len(fds) == 1
    for sock in (mailbox, sender, mine, theirs, socket.socket(fileno=fds[0])):
        sock.close()


def hand_as(uid: int, gid: int, mailbox: Path) -> int:
    """Fork a child that becomes ``uid`` and hands ``mailbox`` one end of a socket pair; it
    exits 0 when the other end then reads the end of the stream (the mailbox closed its copy
    unused), 1 otherwise. It connects while still root, so the private directory does not
    stop it: what is tested is the peer check."""
    pid = os.fork()
    if pid:
        return pid
    status = 1
    try:
        out = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        out.connect(str(mailbox))
        os.setgid(gid)
        os.setuid(uid)
        mine, theirs = socket.socketpair()
        rights = [(socket.SOL_SOCKET, socket.SCM_RIGHTS, array.array("i", [theirs.fileno()]))]
        out.sendmsg([b"c"], rights)
        theirs.close()
        mine.settimeout(10)
        status = 0 if mine.recv(1) == b"" else 1
    finally:
        os._exit(status)


@pytest.mark.skipif(os.geteuid() != 0, reason="becoming another user needs root")
def test_a_socket_handed_by_another_user_is_closed_unused(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """A process of another user (nobody) that reaches a sibling's mailbox hands it a socket:
    the socket is closed at once, never served, and the refusal is logged with its sender.
    (The mailbox is connected to as root and the connected socket given to the child, since
    the directory is private: the peer check is what is tested here.)"""
    nobody = pwd.getpwnam("nobody")

    async def scenario(a: Place, b: Place) -> None:
        child = hand_as(nobody.pw_uid, nobody.pw_gid, b.handoff.path)
        _, status = await asyncio.to_thread(os.waitpid, child, 0)
        scenario.status = os.waitstatus_to_exitcode(status)  # type: ignore[attr-defined]
        # A sibling of this user is still served (the same mailbox, after the refusal).
        await ask(a.port, b"GET /ws/g1 HTTP/1.1\r\n\r\n")

    with caplog.at_level(logging.WARNING, logger="roborally.server"):
        a, b = run_two(tmp_path, scenario)
    assert scenario.status == 0  # type: ignore[attr-defined]
    assert b.handoff.refused == 1 and b.handoff.received == 1 and len(b.served) == 1
    assert a.handoff.handed == 1
    refusal = [r.getMessage() for r in caplog.records if "refused" in r.getMessage()]
    assert len(refusal) == 1 and f"uid {nobody.pw_uid}" in refusal[0] and "pid " in refusal[0]
