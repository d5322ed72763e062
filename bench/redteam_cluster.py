"""Red team, scale-out mode (issue 26): the socket handoff between the processes of one
machine and the API rate they share. bench/redteam.py runs these with its own attacks.

* ``handoff-peer``: a process of another user hands a sibling's mailbox a socket (it is
  closed unused, and a sibling of this user is still served); a ``--siblings`` directory
  other users may enter stops the server at start.
* ``cluster-rate``: one address spreads its API calls over two processes sharing Redis; they
  get one burst between them, not one each, and with Redis gone both still answer.
"""

from __future__ import annotations

import array
import asyncio
import contextlib
import logging
import os
import pwd
import socket
import sys
import time
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path

from cluster import LocalCluster
from redteam_kit import Context, Outcome, address, http
from serverproc import free_port
from services import ServiceFailed, ServiceMissing, postgres_server, redis_server

from roborally.server.cluster import handoff
from roborally.server.cluster.handoff import Handoff, Peer

NOBODY = "nobody"


# ------------------------------------------------------------------ handoff-peer
def _send_socket(mailbox: Path, uid: int | None = None) -> int:
    """Fork a child that hands ``mailbox`` one end of a socket pair, as user ``uid`` when
    given (it connects first, while it may still reach the private directory). It exits 0
    when its end then reads the end of the stream, i.e. the mailbox closed the socket without
    serving it; 1 when the socket stayed open."""
    pid = os.fork()
    if pid:
        return pid
    status = 1
    try:
        out = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        out.connect(str(mailbox))
        if uid is not None:
            os.setgid(pwd.getpwuid(uid).pw_gid)
            os.setuid(uid)
        mine, theirs = socket.socketpair()
        rights = [(socket.SOL_SOCKET, socket.SCM_RIGHTS, array.array("i", [theirs.fileno()]))]
        out.sendmsg([b"c"], rights)
        theirs.close()
        mine.settimeout(5)
        status = 0 if mine.recv(1) == b"" else 1
    finally:
        os._exit(status)


async def _exit_status(pid: int) -> int:
    _, status = await asyncio.to_thread(os.waitpid, pid, 0)
    return os.waitstatus_to_exitcode(status)


async def _mailbox_trial(directory: Path) -> dict[str, bool]:
    """A real mailbox (``Handoff``) in this process: what a foreign sender and a sibling of
    this user get from it."""
    served: list[socket.socket] = []

    async def nobody_owns(game: str) -> str | None:
        return None

    def serve(conn: socket.socket) -> None:
        served.append(conn)
        conn.close()  # the sibling's end then reads the end of the stream too

    mailbox = Handoff(directory, "target", nobody_owns, serve)
    listener = socket.create_server(("127.0.0.1", 0))
    mailbox.start(listener)
    checks: dict[str, bool] = {}
    with _logged() as warnings:
        try:
            if os.geteuid() == 0:  # only root can become another user to try it for real
                foreign = pwd.getpwnam(NOBODY).pw_uid
                status = await _exit_status(_send_socket(mailbox.path, foreign))
                checks[f"a socket from uid {foreign} closed unused"] = (
                    status == 0 and mailbox.refused == 1 and not served
                )
                checks["logged with its pid and uid"] = any(
                    "pid " in text and f"uid {foreign}" in text for text in warnings
                )
            status = await _exit_status(_send_socket(mailbox.path))
            checks["a sibling's socket still served"] = status == 0 and len(served) == 1
        finally:
            mailbox.stop()
            listener.close()
    return checks


@contextlib.contextmanager
def _logged() -> Iterator[list[str]]:
    """The server's warnings meanwhile (kept here rather than printed amid the outcomes)."""
    said: list[str] = []

    class Keep(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            said.append(record.getMessage())

    logger = logging.getLogger("roborally.server")
    keep = Keep(logging.WARNING)
    logger.addHandler(keep)
    try:
        yield said
    finally:
        logger.removeHandler(keep)


async def _refused_at_start(directory: Path, data: Path) -> tuple[bool, str]:
    """Start a real server process with ``--siblings directory``: refused with the mode and
    the fix? (Redis and PostgreSQL need not answer: the directory is checked first.)"""
    command = [sys.executable, "-m", "roborally.server", "--port", str(free_port())]
    command += ["--data", str(data), "--siblings", str(directory)]
    command += ["--redis", "redis://127.0.0.1:1/0", "--database", "postgresql://x@127.0.0.1:1/x"]
    child = await asyncio.create_subprocess_exec(
        *command, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT
    )
    try:
        output, _ = await asyncio.wait_for(child.communicate(), 60)
    except TimeoutError:
        child.kill()
        await child.wait()
        return False, "still running after 60 s"
    said = output.decode(errors="replace").strip().splitlines()
    last = said[-1] if said else ""
    refused = child.returncode != 0 and "mode 755" in last and "chmod 700" in last
    return refused, last


async def attack_handoff_peer(ctx: Context) -> Outcome:
    """A process of another user on a sibling's mailbox, and an open siblings directory."""
    me = os.getuid()
    checks = {
        "a foreign uid is no sibling": not handoff.is_sibling(Peer(1, me + 1, me + 1), me),
        "no credentials, no sibling": not handoff.is_sibling(None, me),
    }
    private = ctx.temp / "siblings-private"
    private.mkdir(mode=0o700, exist_ok=True)
    private.chmod(0o700)
    checks |= await _mailbox_trial(private)
    shared = ctx.temp / "siblings-shared"
    shared.mkdir(exist_ok=True)
    shared.chmod(0o755)
    refused, said = await _refused_at_start(shared, ctx.temp / "siblings-data")
    checks["--siblings of mode 755 refused at start"] = refused
    failed = [name for name, ok in checks.items() if not ok]
    tried = "" if os.geteuid() == 0 else " (not root: no foreign process tried)"
    return Outcome(
        "handoff-peer",
        not failed,
        f"{len(checks) - len(failed)}/{len(checks)} held{tried}"
        + (f"; NOT: {', '.join(failed)}" if failed else f" ({'; '.join(checks)})")
        + f"; the server said: ...{said[said.find(': mode') :][:100]}",
    )


# ------------------------------------------------------------------ cluster-rate
BURST = 20
RATE = 0.2  # a token every 5 s: hardly any refill while the calls are made


async def _spread_calls(bases: list[str], source: str, calls: int) -> list[list[int]]:
    """``calls`` API calls from ``source``, taking turns over ``bases``: each one's statuses."""
    statuses: list[list[int]] = [[] for _ in bases]
    clients = [http(base, source, timeout=10) for base in bases]
    try:
        for n in range(calls):
            which = n % len(bases)
            statuses[which].append((await clients[which].get("/api/health")).status_code)
    finally:
        for client in clients:
            await client.aclose()
    return statuses


async def attack_cluster_rate(ctx: Context) -> Outcome:
    """One address's API calls spread over two processes sharing Redis; then Redis stops."""
    flags = ("--requests-per-second", str(RATE), "--request-burst", str(BURST))
    with contextlib.ExitStack() as services, contextlib.ExitStack() as redis_running:
        try:
            redis = await asyncio.to_thread(redis_running.enter_context, redis_server())
            postgres = await asyncio.to_thread(services.enter_context, postgres_server())
        except (ServiceMissing, ServiceFailed) as error:
            return Outcome("cluster-rate", False, f"cannot run: {error}"[:300])
        work = ctx.temp / "cluster-rate"
        cluster = LocalCluster(2, redis.url, postgres.url, work, *flags)
        await asyncio.to_thread(cluster.start)
        services.callback(cluster.stop)  # before PostgreSQL stops
        started = time.monotonic()
        spread = await _spread_calls(cluster.bases, address(40, 0), 3 * BURST)
        elapsed = time.monotonic() - started
        other = await _spread_calls(cluster.bases, address(40, 1), 2)  # another address
        await asyncio.to_thread(redis_running.close)  # Redis gone; the servers go on
        started = time.monotonic()
        alone = await _spread_calls(cluster.bases, address(40, 2), 4)
        alone_seconds = time.monotonic() - started
    accepted = [codes.count(200) for codes in spread]
    refused = sum(codes.count(429) for codes in spread)
    allowed = BURST + int(elapsed * RATE) + 1  # what refills while the calls are made
    checks = {
        "one burst over both": sum(accepted) <= allowed and refused == 3 * BURST - sum(accepted),
        "another address served": all(code == 200 for codes in other for code in codes),
        "answered with Redis gone": all(c == 200 for codes in alone for c in codes)
        and alone_seconds < 3,
    }
    failed = [name for name, ok in checks.items() if not ok]
    return Outcome(
        "cluster-rate",
        not failed,
        f"{3 * BURST} calls of one address over 2 processes: {sum(accepted)} accepted"
        f" ({accepted[0]} + {accepted[1]}) for a burst of {BURST}, {refused} refused (429;"
        f" a bucket per process would accept {2 * BURST}); another address served; Redis"
        f" stopped: 4 calls answered 200 in {alone_seconds:.2f} s"
        + (f"; NOT: {', '.join(failed)}" if failed else ""),
    )


ATTACKS: dict[str, tuple[Callable[[Context], Awaitable[Outcome]], bool]] = {
    # name: (attack, in the quick sample)
    "handoff-peer": (attack_handoff_peer, True),
    "cluster-rate": (attack_cluster_rate, False),  # starts Redis, PostgreSQL, 2 servers
}
