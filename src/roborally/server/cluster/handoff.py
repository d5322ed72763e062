"""Sockets handed to the game's owner when it runs on the same machine.

Processes on one port (``--workers N``) get their connections from the kernel at random, so
most of a game's sockets would reach a process that does not own the game and be relayed
through Redis (docs/scaling.md "Relaying"): every frame then costs a publish, a delivery and
two more trips through an event loop. Processes on one machine can do better: the one that
accepts a connection reads (without taking it) the first line of its request, and when that
names a game (``GET /ws/<game>``, ``/api/games/<game>...``) owned by a sibling, passes the
connection itself to the sibling over a Unix socket (``SCM_RIGHTS``). The sibling serves it as
if it had accepted it: same client address, the request still unread.

Siblings find each other in one private directory (``--siblings DIR``; ``--workers N`` makes
it): each listens on ``<DIR>/<hash of its process id>.sock``. A game owned on another machine,
by nobody yet, or by a sibling that cannot take the socket (gone, its queue full) is served
where it arrived, exactly as without this module, so a handoff is only ever a shortcut. A
connection is handed at most once: what a sibling receives it serves.

Only this server's user may hand it a connection: the directory must be private (mode 0700),
and each message on a mailbox carries its sender's credentials, filled in by the kernel
(``SO_PASSCRED``: the ``struct ucred`` that ``SO_PEERCRED`` gives for a connected socket, per
datagram here). A message from a process of another user is dropped, its descriptors closed
unused, and logged: a local process that reached the mailbox could otherwise make this server
serve a connection of its choosing as if a client had made it.
"""

from __future__ import annotations

import array
import asyncio
import contextlib
import hashlib
import logging
import os
import re
import socket
import struct
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import uvicorn

if TYPE_CHECKING:
    from roborally.server.cluster.node import ClusterNode

log = logging.getLogger("roborally.server")

#: The request line of a call or socket about one game; group 1 is the game's id.
GAME_REQUEST = re.compile(rb"^[A-Z]{3,7} /(?:ws|api/games)/([A-Za-z0-9_-]{1,64})[/?# ]")
PEEK_BYTES = 1024  # a request line longer than this is served where it arrived
PEEK_SECONDS = 2.0  # a client that says nothing for this long is served where it arrived
PEEK_PAUSE = 0.005  # between two looks at a request line that arrived in part
OWNER_SECONDS = 1.0  # a lease lookup slower than this is given up: served where it arrived
HAND_SECONDS = 1.0  # how long a sibling's full mailbox is tried again
MAX_FDS = 8  # descriptors read from one message (a sibling sends one; more are closed)
UCRED = struct.Struct("3i")  # struct ucred: pid, uid, gid
ANCILLARY = socket.CMSG_SPACE(MAX_FDS * 4) + socket.CMSG_SPACE(UCRED.size)

Owner = Callable[[str], Awaitable[str | None]]  # a game's owning process, if any
Serve = Callable[[socket.socket], None]  # serve a connection in this process


def socket_path(directory: Path, process: str) -> Path:
    """The Unix socket a process listens on for handed connections (a hash keeps the path
    short: Unix socket paths have about 100 bytes)."""
    return directory / (hashlib.sha256(process.encode()).hexdigest()[:16] + ".sock")


def game_of(head: bytes) -> str | None:
    """The game a request is about, from its first bytes; None when it names none."""
    match = GAME_REQUEST.match(head)
    return match.group(1).decode("ascii") if match else None


@dataclass(frozen=True)
class Peer:
    """Who sent a message to a mailbox, as the kernel says (``struct ucred``)."""

    pid: int
    uid: int
    gid: int


def is_sibling(peer: Peer | None, uid: int) -> bool:
    """A message comes from a sibling when the kernel says its sender runs as ``uid`` (this
    server's user). Without credentials (``None``) it is not trusted either."""
    return peer is not None and peer.uid == uid


def read_message(ancillary: list[tuple[int, int, bytes]]) -> tuple[list[int], Peer | None]:
    """The descriptors and the sender's credentials in a message's ancillary data."""
    fds: list[int] = []
    peer = None
    for level, kind, data in ancillary:
        if level != socket.SOL_SOCKET:
            continue
        if kind == socket.SCM_RIGHTS:
            fds += array.array("i", data[: len(data) - len(data) % 4])
        elif kind == socket.SCM_CREDENTIALS and len(data) >= UCRED.size:
            peer = Peer(*UCRED.unpack_from(data))
    return fds, peer


class Handoff:
    """This process's accept loop on ``listener`` and its mailbox for siblings' connections.

    ``owner(game)`` says which process owns a game (None: nobody, or unknown);
    ``serve(sock)`` serves a connection here."""

    def __init__(self, directory: Path, process: str, owner: Owner, serve: Serve) -> None:
        self.directory = directory
        self.process = process
        self.owner = owner
        self.serve = serve
        self.path = socket_path(directory, process)
        self.mailbox: socket.socket | None = None
        self.outbox = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.outbox.setblocking(False)
        self.accepting: asyncio.Task[None] | None = None
        self.placing: set[asyncio.Task[None]] = set()
        self.handed = 0  # connections passed to siblings
        self.kept = 0  # connections about another process's game served here (relayed)
        self.received = 0  # connections siblings passed here
        self.refused = 0  # messages from processes of another user, dropped
        self.uid = os.getuid()

    def start(self, listener: socket.socket) -> None:
        loop = asyncio.get_running_loop()
        mailbox = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        mailbox.setsockopt(socket.SOL_SOCKET, socket.SO_PASSCRED, 1)  # each sender's ucred
        with contextlib.suppress(FileNotFoundError):
            self.path.unlink()  # a dead process's socket of the same name
        mailbox.bind(str(self.path))
        mailbox.setblocking(False)
        loop.add_reader(mailbox.fileno(), self._receive)
        self.mailbox = mailbox
        listener.setblocking(False)
        self.accepting = loop.create_task(self._accept(listener))

    def stop(self) -> None:
        """Stop accepting and receiving (connections already served go on)."""
        if self.accepting is not None:
            self.accepting.cancel()
        for task in list(self.placing):
            task.cancel()
        if self.mailbox is not None:
            asyncio.get_running_loop().remove_reader(self.mailbox.fileno())
            self.mailbox.close()
            self.mailbox = None
            with contextlib.suppress(FileNotFoundError):
                self.path.unlink()
        self.outbox.close()

    async def _accept(self, listener: socket.socket) -> None:
        loop = asyncio.get_running_loop()
        while True:
            try:
                conn, _ = await loop.sock_accept(listener)
            except OSError as error:  # out of file descriptors, for one: wait, then go on
                log.warning("cannot accept a connection: %s", error)
                await asyncio.sleep(0.1)
                continue
            task = loop.create_task(self._place(conn))
            self.placing.add(task)
            task.add_done_callback(self.placing.discard)

    async def _place(self, conn: socket.socket) -> None:
        try:
            owner = await self._owner_of(conn)
            if owner is not None and owner != self.process:
                if await self._hand(conn, owner):
                    conn.close()  # the sibling holds the connection; this was only our handle
                    return
                self.kept += 1
        except asyncio.CancelledError:  # this process is stopping
            conn.close()
            raise
        self.serve(conn)

    async def _owner_of(self, conn: socket.socket) -> str | None:
        """The process that owns the game the connection's request names, if any."""
        game = game_of(await self._peek(conn))
        if game is None:
            return None
        try:
            return await asyncio.wait_for(self.owner(game), OWNER_SECONDS)
        except Exception as error:  # Redis slow or away: this process can still serve it
            log.warning("cannot find who owns game %s: %s", game, error)
            return None

    async def _peek(self, conn: socket.socket) -> bytes:
        """The request's first bytes, left unread for whoever serves it: up to the end of its
        first line, ``PEEK_BYTES``, the client's end or ``PEEK_SECONDS``, whichever is first."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + PEEK_SECONDS
        head = b""
        while loop.time() < deadline:
            try:
                head = conn.recv(PEEK_BYTES, socket.MSG_PEEK)
            except BlockingIOError:
                await self._readable(conn, deadline - loop.time())
                continue
            except OSError:
                return b""
            if not head or b"\n" in head or len(head) >= PEEK_BYTES:
                return head
            await asyncio.sleep(PEEK_PAUSE)  # readable again at once: the rest is on its way
        return head

    @staticmethod
    async def _readable(conn: socket.socket, seconds: float) -> None:
        loop = asyncio.get_running_loop()
        ready: asyncio.Future[None] = loop.create_future()

        def wake() -> None:
            if not ready.done():
                ready.set_result(None)

        loop.add_reader(conn.fileno(), wake)
        try:
            await asyncio.wait_for(ready, max(seconds, 0.0))
        except TimeoutError:
            pass
        finally:
            loop.remove_reader(conn.fileno())

    async def _hand(self, conn: socket.socket, owner: str) -> bool:
        """Pass ``conn`` to the sibling ``owner``; False when it is not one, or cannot take it.
        A sibling's mailbox holds few messages (``net.unix.max_dgram_qlen``, often 10): when
        hundreds of sockets arrive at once it is full for a moment, so a full one is tried
        again until ``HAND_SECONDS`` have passed."""
        path = str(socket_path(self.directory, owner))
        # sendmsg, as socket.send_fds (3.11) drops its address argument
        rights = [(socket.SOL_SOCKET, socket.SCM_RIGHTS, array.array("i", [conn.fileno()]))]
        loop = asyncio.get_running_loop()
        deadline = loop.time() + HAND_SECONDS
        pause = 0.001
        while True:
            try:
                self.outbox.sendmsg([b"c"], rights, 0, path)
            except BlockingIOError:
                if loop.time() + pause > deadline:
                    return False
                await asyncio.sleep(pause)
                pause = min(pause * 2, 0.05)
                continue
            except (FileNotFoundError, ConnectionRefusedError):
                return False  # another machine's process, or one that is gone
            except OSError as error:
                log.warning("cannot hand a connection to %s: %s", owner, error)
                return False
            self.handed += 1
            return True

    def _receive(self) -> None:
        assert self.mailbox is not None
        while True:
            try:
                _, ancillary, _, _ = self.mailbox.recvmsg(16, ANCILLARY)
            except (BlockingIOError, InterruptedError):
                return
            except OSError as error:
                log.warning("cannot receive a handed connection: %s", error)
                return
            fds, peer = read_message(ancillary)
            if not is_sibling(peer, self.uid):
                self._refuse(fds, peer)
                continue
            for fd in fds:
                conn = socket.socket(fileno=fd)
                conn.setblocking(False)
                self.received += 1
                self.serve(conn)

    def _refuse(self, fds: list[int], peer: Peer | None) -> None:
        """Drop a message that is not a sibling's: its descriptors are closed unused."""
        for fd in fds:
            with contextlib.suppress(OSError):
                os.close(fd)
        self.refused += 1
        who = f"pid {peer.pid}, uid {peer.uid}" if peer else "a sender without credentials"
        log.warning(
            "refused %d connection(s) handed by %s: not this server's user (uid %d)",
            len(fds),
            who,
            self.uid,
        )


def siblings_directory(path: str | os.PathLike[str]) -> Path:
    """``--siblings DIR`` checked: an existing directory of this user that nobody else may
    enter (mode 0700): anyone who can reach a mailbox there could hand this server
    connections, and anyone who can write there could put a mailbox of their own."""
    directory = Path(path)
    if not directory.is_dir():
        raise ValueError(f"--siblings {directory}: no such directory")
    status = directory.stat()
    if status.st_uid != os.getuid():
        raise ValueError(
            f"--siblings {directory}: owned by uid {status.st_uid}, not by this user"
            f" (uid {os.getuid()}); use a directory of this user's with mode 700"
        )
    mode = status.st_mode & 0o777
    if mode & 0o077:
        raise ValueError(
            f"--siblings {directory}: mode {mode:03o} lets other users in; it must be"
            f" private to this user: chmod 700 {directory}"
        )
    return directory


def run_with_handoff(
    config: uvicorn.Config, listener: socket.socket, directory: Path, cluster: ClusterNode
) -> None:
    """Run uvicorn with this process's own accept loop on ``listener`` (instead of uvicorn's),
    handing connections to the siblings in ``directory``."""
    HandoffServer(config, listener, directory, cluster).run()


class HandoffServer(uvicorn.Server):
    """uvicorn serving the connections a :class:`Handoff` gives it rather than a listener of
    its own; shutting down stops the handoff first, then uvicorn closes what it serves."""

    def __init__(
        self,
        config: uvicorn.Config,
        listener: socket.socket,
        directory: Path,
        cluster: ClusterNode,
    ) -> None:
        super().__init__(config)
        self.listener = listener
        self.directory = directory
        self.cluster = cluster
        self.handoff: Handoff | None = None
        self.starting: set[asyncio.Task[None]] = set()

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        await super().startup(sockets=[])  # the app's start-up, and no listener of uvicorn's
        loop = asyncio.get_running_loop()
        config, cluster = self.config, self.cluster

        def protocol() -> asyncio.Protocol:
            made: asyncio.Protocol = config.http_protocol_class(  # type: ignore[call-arg]
                config=config,
                server_state=self.server_state,
                app_state=self.lifespan.state,
                _loop=loop,
            )
            return made

        async def connect(conn: socket.socket) -> None:
            try:
                await loop.connect_accepted_socket(protocol, conn)
            except OSError as error:  # the client left already
                log.debug("a connection closed before it was served: %s", error)
                conn.close()

        def serve_here(conn: socket.socket) -> None:
            task = loop.create_task(connect(conn))
            self.starting.add(task)
            task.add_done_callback(self.starting.discard)

        self.handoff = Handoff(self.directory, cluster.process, cluster.owner_of, serve_here)
        cluster.handoff = self.handoff
        self.handoff.start(self.listener)

    async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
        if self.handoff is not None:
            self.handoff.stop()
        self.listener.close()
        await super().shutdown(sockets)
