"""Tournament games in worker processes that may die, and the signals around a bot's decision.

A :class:`multiprocessing.pool.Pool` waits forever for the game of a worker that died (``os._exit``
in a bot, a crash in C code, the out-of-memory killer): a tournament with ``--jobs 2`` hung
silently. Here every worker is a process with a pipe of its own and the tournament's process
waits on the pipes and on the processes' sentinels at once, so a death is seen when it happens.
The game that worker was playing is handed back as lost, with the seat whose bot was running
(each worker writes it, before every bot call, to memory it shares with the parent), and a new
worker takes the next game. A lost game is not played again: its bots are seeded from the game,
so a second try would most likely die the same way, after as long.

The parent also kills a worker whose bot has been deciding for ``stuck_after`` seconds: one stuck
in C code, which the timer signal of the time limit per decision cannot interrupt.

:func:`noting_ctrl_c` and :func:`stop_on_ctrl_c` tell a real Ctrl-C (SIGINT reached the process)
from a ``KeyboardInterrupt`` that a bot raised itself: the first ends the tournament, the second
is that bot's error like any other exception.
"""

from __future__ import annotations

import multiprocessing
import signal
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from multiprocessing.connection import Connection, wait
from multiprocessing.process import BaseProcess
from typing import Any, Generic, Protocol, TypeVar

Task = TypeVar("Task")
Result = TypeVar("Result")

#: Seconds between two looks at the workers' clocks, when stuck bots are to be stopped.
LOOK_EVERY = 0.25
#: Seconds a worker has to leave after it was told there are no more games.
LEAVE_TIME = 5.0


# ------------------------------------------------------------------------- whose bot runs
class Cells(Protocol):
    """Two numbers: the seat whose bot is running (-1: none) and since when."""

    def __getitem__(self, index: int, /) -> float: ...

    def __setitem__(self, index: int, value: float, /) -> None: ...


class SeatWatch:
    """Which seat's bot is running (being built or deciding) and since when. A worker keeps it
    in memory shared with the tournament's process, which reads it when the worker died; no
    lock, as a worker that died holding it would block the reader."""

    def __init__(self, cells: Cells | None = None) -> None:
        self.cells: Cells = cells if cells is not None else [-1.0, 0.0]

    def running(self, seat: int, deciding: bool = True) -> None:
        """The bot of ``seat`` is about to run (``deciding``: timed, else being built)."""
        self.cells[1] = time.monotonic() if deciding else 0.0  # before the seat: a reader
        self.cells[0] = seat  # that sees the new seat sees its clock too

    def idle(self) -> None:
        self.cells[0] = -1

    @property
    def seat(self) -> int | None:
        seat = int(self.cells[0])
        return seat if seat >= 0 else None

    def deciding_for(self) -> float:
        """Seconds the running bot has been deciding (0: none is, or it is being built)."""
        began = self.cells[1]
        return time.monotonic() - began if self.seat is not None and began else 0.0


# ------------------------------------------------------------------------------- Ctrl-C
class _CtrlC:
    pressed = False  # set by the SIGINT handler of noting_ctrl_c (in the main thread)


@contextmanager
def noting_ctrl_c() -> Iterator[None]:
    """While a game is played, SIGINT is handled as before and a ``KeyboardInterrupt`` its
    handler raises (the default one does) is noted, for :func:`stop_on_ctrl_c`. Only the main
    thread gets signals, and a worker ignores SIGINT (its parent stops it): there, nothing to
    note."""
    _CtrlC.pressed = False
    previous = signal.getsignal(signal.SIGINT)
    main = threading.current_thread() is threading.main_thread()
    if not main or previous is None or previous == signal.SIG_IGN:
        yield
        return

    def pressed(signum: int, frame: Any) -> None:
        try:
            if not callable(previous):  # SIG_DFL would end the process: stop the tournament
                raise KeyboardInterrupt
            previous(signum, frame)  # the default handler raises KeyboardInterrupt
        except KeyboardInterrupt:
            _CtrlC.pressed = True
            raise

    signal.signal(signal.SIGINT, pressed)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


def stop_on_ctrl_c() -> None:
    """Raise ``KeyboardInterrupt`` if Ctrl-C was pressed during this game, whatever the bot that
    was deciding made of it (it may have caught it, or turned it into another exception)."""
    if _CtrlC.pressed:
        raise KeyboardInterrupt


# ------------------------------------------------------------------------------- memory
def check_memory_limit(megabytes: int) -> None:
    """Refuse a limit that cannot be set here (``ValueError``)."""
    if megabytes <= 0:
        raise ValueError(f"the memory limit must be at least 1 MB: {megabytes}")
    try:
        import resource  # noqa: F401 - Unix only
    except ImportError:
        raise ValueError("a memory limit needs a Unix system (resource.setrlimit)") from None


def limit_memory(megabytes: int) -> None:
    """Cap this process's address space: an allocation beyond it raises ``MemoryError`` in the
    code that asked (a bot), where without a cap the machine would swap or the out-of-memory
    killer end a process."""
    import resource

    _, hard = resource.getrlimit(resource.RLIMIT_AS)
    soft = megabytes * 1024 * 1024
    if hard != resource.RLIM_INFINITY:
        soft = min(soft, hard)
    resource.setrlimit(resource.RLIMIT_AS, (soft, hard))


# ------------------------------------------------------------------------------ workers
def death(exitcode: int | None) -> str:
    """What happened to a worker, from its exit code.

    >>> death(-9)
    'worker process died (exit code -9 / signal SIGKILL)'
    """
    if exitcode is not None and exitcode < 0:
        try:
            name = signal.Signals(-exitcode).name
        except ValueError:
            name = "unknown"
        return f"worker process died (exit code {exitcode} / signal {name})"
    return f"worker process died (exit code {exitcode})"


def _serve(
    conn: Connection,
    cells: Cells,
    play: Callable[[Any, SeatWatch], Any],
    max_memory_mb: int | None,
) -> None:
    """A worker's life: play the games the parent sends until it sends None (or is gone)."""
    # Ctrl-C reaches every process of the terminal's group: the parent stops the workers
    # (no traceback from each), and a KeyboardInterrupt here can only be a bot's own.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if max_memory_mb:
        limit_memory(max_memory_mb)
    watch = SeatWatch(cells)
    try:
        while (task := conn.recv()) is not None:
            conn.send(play(task, watch))
    except EOFError:
        pass  # the parent is gone


@dataclass
class Lost(Generic[Task]):
    """A game whose worker died: ``seat`` is the one whose bot was running (None: none was)."""

    task: Task
    seat: int | None
    what: str


@dataclass
class _Worker(Generic[Task]):
    process: BaseProcess
    conn: Connection
    watch: SeatWatch
    task: Task | None = None


class _Workers(Generic[Task, Result]):
    """Up to ``jobs`` worker processes, each playing one game at a time."""

    def __init__(
        self, jobs: int, play: Callable[[Task, SeatWatch], Result], max_memory_mb: int | None
    ) -> None:
        methods = multiprocessing.get_all_start_methods()
        # fork: the workers know the bots registered in this process (register_bot)
        self.context = multiprocessing.get_context("fork" if "fork" in methods else None)
        self.jobs = jobs
        self.play = play
        self.max_memory_mb = max_memory_mb
        self.workers: list[_Worker[Task]] = []

    def busy(self) -> list[_Worker[Task]]:
        return [worker for worker in self.workers if worker.task is not None]

    def hand_out(self, waiting: deque[Task]) -> None:
        """Give a game to every idle worker, starting workers up to ``jobs``. Those needed are
        all started before any game is handed out: a signal a bot sends this process (Ctrl-C)
        could else land in the hooks of a fork, where Python drops the exception it raises."""
        wanted = min(len(waiting), self.jobs - len(self.busy()))
        idle = [worker for worker in self.workers if worker.task is None]
        while len(idle) < wanted:
            idle.append(self._start())
        for worker in idle[:wanted]:
            worker.task = waiting.popleft()
            with suppress(OSError):  # it died idle: its sentinel tells, the game is lost
                worker.conn.send(worker.task)

    def _start(self) -> _Worker[Task]:
        cells = self.context.RawArray("d", [-1.0, 0.0])
        mine, theirs = self.context.Pipe()
        process = self.context.Process(
            target=_serve, args=(theirs, cells, self.play, self.max_memory_mb), daemon=True
        )
        process.start()
        theirs.close()  # the worker holds the only other end: its death ends the pipe
        worker: _Worker[Task] = _Worker(process, mine, SeatWatch(cells))
        self.workers.append(worker)
        return worker

    def outcomes(self, stuck_after: float) -> list[Result | Lost[Task]]:
        """Wait until a busy worker finished its game, died or got stuck (every ``LOOK_EVERY``
        seconds when ``stuck_after`` is set), and return what became of those games."""
        busy = self.busy()
        wait(
            [w.conn for w in busy] + [w.process.sentinel for w in busy],
            LOOK_EVERY if stuck_after else None,
        )
        found: list[Result | Lost[Task]] = []
        for worker in busy:
            outcome = self._outcome(worker, stuck_after)
            if outcome is not None:
                found.append(outcome)
        return found

    def _outcome(self, worker: _Worker[Task], stuck_after: float) -> Result | Lost[Task] | None:
        """The worker's result, or its game lost (the worker is then gone), or None: still on."""
        if worker.conn.poll():  # a result, or the end of the pipe of a worker that died
            try:
                result: Result = worker.conn.recv()
            except EOFError:
                return self._lost(worker)
            except Exception as error:  # a result that cannot be read back
                return self._lost(worker, f"its result could not be read: {error!r}")
            worker.task = None
            return result
        if not worker.process.is_alive():
            return self._lost(worker)
        seconds = worker.watch.deciding_for()
        if stuck_after and seconds > stuck_after:
            return self._lost(
                worker, f"worker process killed: its bot was still deciding after {seconds:.1f} s"
            )
        return None

    def _lost(self, worker: _Worker[Task], what: str | None = None) -> Lost[Task]:
        """The worker's game, lost; ``what`` happened (None: it died, tell how)."""
        assert worker.task is not None
        seat = worker.watch.seat
        exitcode = self._end(worker)
        return Lost(worker.task, seat, what or death(exitcode))

    def _end(self, worker: _Worker[Task]) -> int | None:
        """Stop the worker if it still runs, forget it, and return its exit code."""
        if worker.process.is_alive():
            worker.process.kill()
        worker.process.join()
        worker.conn.close()
        if worker in self.workers:
            self.workers.remove(worker)
        return worker.process.exitcode

    def close(self) -> None:
        """Let idle workers leave; end those still playing (the tournament was interrupted)."""
        for worker in self.workers:
            if worker.task is None:
                with suppress(OSError):  # already gone
                    worker.conn.send(None)
            else:
                worker.process.kill()
        for worker in list(self.workers):
            worker.process.join(LEAVE_TIME)
            self._end(worker)


def play_in_workers(
    tasks: Iterable[Task],
    jobs: int,
    play: Callable[[Task, SeatWatch], Result],
    lost: Callable[[Task, int | None, str], Result],
    done: Callable[[Result], None],
    max_memory_mb: int | None = None,
    stuck_after: float = 0.0,
) -> None:
    """Play every task in up to ``jobs`` worker processes and pass each game's result to
    ``done``: ``play(task, watch)``'s, or ``lost(task, seat, what)`` for a game whose worker
    died (or was killed: its bot was deciding for more than ``stuck_after`` seconds; 0: never).
    ``max_memory_mb`` caps each worker's address space. An exception (Ctrl-C) ends every
    worker before it goes on."""
    workers: _Workers[Task, Result] = _Workers(jobs, play, max_memory_mb)
    waiting = deque(tasks)
    try:
        while waiting or workers.busy():
            workers.hand_out(waiting)
            for outcome in workers.outcomes(stuck_after):
                if isinstance(outcome, Lost):
                    done(lost(outcome.task, outcome.seat, outcome.what))
                else:
                    done(outcome)
    finally:
        workers.close()
