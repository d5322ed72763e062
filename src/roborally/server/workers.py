"""Worker processes: where the engine and the bots run, so the event loop only does I/O.

A :class:`WorkerPool` has two lanes of worker processes. Games with at least one person go to
the ``people`` lane; games of bots only go to the ``bots`` lane, whose processes run at a lower
CPU priority, so a flood of bot games never slows a game with people. Each game lives in one
worker (its :class:`~roborally.server.host.GameHost`); the pool routes a game's calls there.

Calls are length-prefixed pickles over the worker's stdin and stdout (the worker is our own
child process; nothing from a client is ever unpickled). A worker that dies or hangs is
replaced; its games are rebuilt from the store by their rooms (:class:`HostLost`).

``ServerOptions.engine_workers = 0`` runs the hosts in the server process itself (tests and
embedding): the same calls, without the isolation.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import os
import pickle
import struct
import sys
from collections.abc import Callable
from typing import Any

from roborally.server.course_upload import check_upload
from roborally.server.host import GameHost, HostSpec, Refused, check_settings
from roborally.server.settings import ServerOptions

log = logging.getLogger("roborally.server")

PEOPLE, BOTS = "people", "bots"
NICE = {PEOPLE: 5, BOTS: 15}  # below the server process (nice 0), bot games lowest
_HEADER = struct.Struct(">I")


class WorkerLost(Exception):
    """The worker process died or hung; its games must be rebuilt."""


class HostLost(Exception):
    """No worker holds this game (it was never opened, or its worker was replaced)."""


class Hosts:
    """Every game of one worker, and the calls it answers."""

    def __init__(self, bot_seconds: float, budgets: bool) -> None:
        self.bot_seconds = bot_seconds
        self.budgets = budgets
        self.games: dict[str, GameHost] = {}

    def handle(self, op: str, game_id: str, args: tuple[Any, ...]) -> Any:
        if op == "open":
            spec, views = args
            host = GameHost(spec, self.bot_seconds, self.budgets)
            self.games[game_id] = host
            return host.update(views)
        if op == "close":
            self.games.pop(game_id, None)
            return None
        if op == "check_settings":
            return check_settings(*args)
        if op == "check_course":  # an uploaded custom course (course_upload.py)
            return check_upload(*args)
        if op == "ping":
            return os.getpid()
        held = self.games.get(game_id)
        if held is None:
            raise HostLost(game_id)
        if op not in _HOST_OPS:
            raise ValueError(f"unknown worker call {op!r}")
        method: Callable[..., Any] = getattr(held, op)
        return method(*args)


_HOST_OPS = frozenset({"decide", "expire", "drive", "rollback", "views", "record", "digest"})
_HOST_OPS |= {"replay", "update", "preview"}


def _answer(hosts: Hosts, op: str, game_id: str, args: tuple[Any, ...]) -> tuple[str, Any]:
    try:
        return "ok", hosts.handle(op, game_id, args)
    except Refused as refusal:
        return "refused", (refusal.code, refusal.message)
    except HostLost:
        return "lost", game_id
    except Exception as error:  # a bug: the game must survive it, and the log must say it
        log.exception("worker: %s on game %s failed", op, game_id)
        return "error", f"{type(error).__name__}: {error}"


def _result(kind: str, value: Any) -> Any:
    if kind == "ok":
        return value
    if kind == "refused":
        raise Refused(*value)
    if kind == "lost":
        raise HostLost(value)
    raise RuntimeError(f"worker error: {value}")


# ------------------------------------------------------------------ the worker process
def worker_main(argv: list[str]) -> None:
    """``python -m roborally.server.worker NICE BOT_SECONDS``: answer calls until stdin ends."""
    nice, bot_seconds = int(argv[0]), float(argv[1])
    with contextlib.suppress(OSError):
        os.nice(nice)
    logging.basicConfig(
        level=os.environ.get("ROBORALLY_LOG_LEVEL", "INFO").upper(),
        format="%(asctime)s %(levelname)s worker %(process)d: %(message)s",
    )
    reader = sys.stdin.buffer
    writer = os.fdopen(os.dup(sys.stdout.fileno()), "wb")
    sys.stdout = sys.stderr  # a stray print must never corrupt the replies
    hosts = Hosts(bot_seconds, budgets=True)
    while True:
        header = reader.read(_HEADER.size)
        if len(header) < _HEADER.size:
            return  # the server is gone
        (size,) = _HEADER.unpack(header)
        request_id, op, game_id, args = pickle.loads(reader.read(size))
        kind, value = _answer(hosts, op, game_id, args)
        payload = pickle.dumps((request_id, kind, value), protocol=pickle.HIGHEST_PROTOCOL)
        writer.write(_HEADER.pack(len(payload)) + payload)
        writer.flush()


# ------------------------------------------------------------------ the server's side
class ProcessWorker:
    """One worker process and the calls waiting for its answers."""

    def __init__(self, lane: str, slot: int, options: ServerOptions) -> None:
        self.lane = lane
        self.slot = slot
        self.options = options
        self.games: set[str] = set()
        self.proc: asyncio.subprocess.Process | None = None
        self.waiting: dict[int, asyncio.Future[tuple[str, Any]]] = {}
        self.reader: asyncio.Task[None] | None = None
        self.ids = itertools.count()
        self.alive = False

    @property
    def pid(self) -> int | None:
        return None if self.proc is None else self.proc.pid

    async def start(self) -> None:
        self.proc = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "roborally.server.worker",
            str(NICE[self.lane]),
            str(self.options.bot_seconds),
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            limit=1 << 20,
        )
        self.alive = True
        self.reader = asyncio.get_running_loop().create_task(self._read())

    async def _read(self) -> None:
        assert self.proc is not None and self.proc.stdout is not None
        stream = self.proc.stdout
        try:
            while True:
                (size,) = _HEADER.unpack(await stream.readexactly(_HEADER.size))
                request_id, kind, value = pickle.loads(await stream.readexactly(size))
                future = self.waiting.pop(request_id, None)
                if future is not None and not future.done():
                    future.set_result((kind, value))
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        finally:
            self._lost("the worker process ended")

    def _lost(self, why: str) -> None:
        if self.alive:
            log.error(
                "%s worker %s: %s; its %d game(s) are rebuilt",
                self.lane,
                self.pid,
                why,
                len(self.games),
            )
        self.alive = False
        for future in self.waiting.values():
            if not future.done():
                future.set_exception(WorkerLost(why))
        self.waiting.clear()

    async def call(self, op: str, game_id: str, *args: Any) -> Any:
        if not self.alive or self.proc is None or self.proc.stdin is None:
            raise WorkerLost("the worker is not running")
        request_id = next(self.ids)
        future: asyncio.Future[tuple[str, Any]] = asyncio.get_running_loop().create_future()
        self.waiting[request_id] = future
        payload = pickle.dumps((request_id, op, game_id, args), protocol=pickle.HIGHEST_PROTOCOL)
        try:
            self.proc.stdin.write(_HEADER.pack(len(payload)) + payload)
            await self.proc.stdin.drain()
            kind, value = await asyncio.wait_for(future, self.options.worker_timeout)
        except (ConnectionError, BrokenPipeError):
            self._lost("its input pipe broke")
            raise WorkerLost("the worker process ended") from None
        except TimeoutError:
            self.kill()
            self._lost(f"{op} took over {self.options.worker_timeout:g} s")
            raise WorkerLost("the worker hung") from None
        return _result(kind, value)

    def kill(self) -> None:
        if self.proc is not None and self.proc.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                self.proc.kill()

    async def stop(self) -> None:
        self.alive = False
        if self.proc is not None and self.proc.stdin is not None:
            self.proc.stdin.close()
            try:
                await asyncio.wait_for(self.proc.wait(), 5)
            except TimeoutError:
                self.kill()
                await self.proc.wait()
        if self.reader is not None:
            self.reader.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self.reader


class InlineWorker:
    """The hosts in the server process (``workers = 0``). Calls and answers still go through
    pickle, so the in-process mode keeps the worker contract honest."""

    def __init__(self, lane: str, options: ServerOptions) -> None:
        self.lane = lane
        self.slot = 0
        self.games: set[str] = set()
        self.hosts = Hosts(options.bot_seconds, budgets=False)
        self.alive = True
        self.pid = os.getpid()

    async def start(self) -> None:
        return None

    async def call(self, op: str, game_id: str, *args: Any) -> Any:
        args = pickle.loads(pickle.dumps(args))
        kind, value = _answer(self.hosts, op, game_id, args)
        return _result(kind, pickle.loads(pickle.dumps(value)))

    def kill(self) -> None:
        return None

    async def stop(self) -> None:
        self.hosts.games.clear()


Worker = ProcessWorker | InlineWorker


class WorkerPool:
    """The lanes of workers, and which worker holds which game."""

    def __init__(self, options: ServerOptions) -> None:
        self.options = options
        people, bots = options.worker_counts()
        self.inline = people == 0
        self.lanes: dict[str, list[Worker]] = {}
        if self.inline:
            shared = InlineWorker(PEOPLE, options)
            self.lanes = {PEOPLE: [shared], BOTS: [shared]}
        else:
            self.lanes = {
                PEOPLE: [ProcessWorker(PEOPLE, i, options) for i in range(people)],
                BOTS: [ProcessWorker(BOTS, i, options) for i in range(bots)],
            }
        self.where: dict[str, Worker] = {}
        self._spawning: dict[tuple[str, int], asyncio.Task[None]] = {}

    def all_workers(self) -> list[Worker]:
        seen: dict[int, Worker] = {}
        for workers in self.lanes.values():
            for worker in workers:
                seen[id(worker)] = worker
        return list(seen.values())

    async def start(self) -> None:
        await asyncio.gather(*(w.start() for w in self.all_workers()))

    async def stop(self) -> None:
        await asyncio.gather(*(w.stop() for w in self.all_workers()))
        self.where.clear()

    def pids(self) -> list[int]:
        return [w.pid for w in self.all_workers() if w.pid is not None]

    async def _healthy(self, worker: Worker) -> Worker:
        """The worker, or a fresh process in its place if it died (its games are forgotten:
        their rooms rebuild them)."""
        if worker.alive or isinstance(worker, InlineWorker):
            return worker
        lane = self.lanes[worker.lane]
        if lane[worker.slot] is worker:
            for game_id in worker.games:
                self.where.pop(game_id, None)
            fresh = ProcessWorker(worker.lane, worker.slot, self.options)
            lane[worker.slot] = fresh
            await fresh.start()
            log.info("%s worker %d restarted (pid %s)", worker.lane, worker.slot, fresh.pid)
        return lane[worker.slot]

    async def open(self, game_id: str, lane: str, spec: HostSpec, views: list[Any]) -> Any:
        """Build a game in the least busy worker of ``lane``; returns its first update."""
        await self.close(game_id)
        workers = [await self._healthy(w) for w in list(self.lanes[lane])]
        worker = min(workers, key=lambda w: len(w.games))
        worker.games.add(game_id)
        self.where[game_id] = worker
        try:
            return await worker.call("open", game_id, spec, views)
        except BaseException:
            worker.games.discard(game_id)
            self.where.pop(game_id, None)
            raise

    async def call(self, game_id: str, op: str, *args: Any) -> Any:
        worker = self.where.get(game_id)
        if worker is None or not worker.alive:
            if worker is not None:
                await self._healthy(worker)
            raise HostLost(game_id)
        return await worker.call(op, game_id, *args)

    async def close(self, game_id: str) -> None:
        worker = self.where.pop(game_id, None)
        if worker is None:
            return
        worker.games.discard(game_id)
        if worker.alive:
            with contextlib.suppress(WorkerLost, HostLost):
                await worker.call("close", game_id)

    async def any_call(self, op: str, *args: Any, lane: str = PEOPLE) -> Any:
        """A call that needs no game (a settings check), on the least busy worker of ``lane``
        (a custom course's check goes to the bot lane: it never slows a game with people)."""
        workers = [await self._healthy(w) for w in list(self.lanes[lane])]
        worker = min(workers, key=lambda w: len(w.games))
        return await worker.call(op, "", *args)

    def holds(self, game_id: str) -> bool:
        worker = self.where.get(game_id)
        return worker is not None and worker.alive

    def misplaced(self, game_id: str, lane: str) -> bool:
        """Whether the game runs in another lane than ``lane`` (its people left, or came
        back): it is then closed and built again in its lane. Games run in this process
        (tests, embedding) have one worker for both lanes."""
        worker = self.where.get(game_id)
        return worker is not None and not self.inline and worker.lane != lane

    def inline_host(self, game_id: str) -> GameHost | None:
        """The game's host when games run in this process (tests, embedding), else None."""
        worker = self.where.get(game_id)
        if isinstance(worker, InlineWorker):
            return worker.hosts.games.get(game_id)
        return None
