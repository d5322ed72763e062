"""``roborally serve --workers N``: N server processes on one machine, on one port.

The supervisor starts N copies of the server (``python -m roborally.server`` with the same
options and ``--workers 1``); each listens on the same address and port with ``SO_REUSEPORT``,
so the kernel spreads new connections over them. They share Redis and the database (scale-out
mode, docs/scaling.md), which is why ``--workers`` above 1 needs ``--redis``, and a private
directory where each hands a connection to the process that owns its game (``--siblings``,
cluster/handoff.py) rather than relaying its every frame through Redis.

A process that exits while the supervisor runs is reported and started again after a second
(its games were taken over by the others meanwhile); one that keeps dying (5 times in a
minute) stops the whole service with an error. Ctrl-C or SIGTERM stops every process.
"""

from __future__ import annotations

import contextlib
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections import deque
from collections.abc import Callable
from types import FrameType

RESTART_SECONDS = 1.0
CRASHES = 5  # exits within CRASH_WINDOW seconds that stop the service
CRASH_WINDOW = 60.0


def child_command(flags: list[str], siblings: str) -> list[str]:
    return [
        *(sys.executable, "-m", "roborally.server", *flags),
        *("--workers", "1", "--reuse-port", "--siblings", siblings),
    ]


def _say(text: str) -> None:
    print(text, flush=True)


def supervise(flags: list[str], count: int, report: Callable[[str], None] = _say) -> int:
    """Run ``count`` server processes with ``flags`` until a signal; the exit status."""
    siblings = tempfile.mkdtemp(prefix="roborally-siblings-")  # private: mode 0700
    command = child_command(flags, siblings)
    children: list[subprocess.Popen[bytes] | None] = [None] * count
    crashes: deque[float] = deque()
    stopping = False

    def stop(signum: int, frame: FrameType | None) -> None:
        nonlocal stopping
        stopping = True

    previous = {s: signal.signal(s, stop) for s in (signal.SIGINT, signal.SIGTERM)}
    try:
        for index in range(count):
            children[index] = subprocess.Popen(command)
        pids = ", ".join(str(c.pid) for c in children if c is not None)
        report(f"roborally serve: {count} server processes (pids {pids})")
        while not stopping:
            time.sleep(0.2)
            for index, child in enumerate(children):
                if child is None or child.poll() is None or stopping:
                    continue
                report(
                    f"roborally serve: server process {index + 1} (pid {child.pid}) exited"
                    f" with status {child.returncode}; starting it again"
                )
                now = time.monotonic()
                crashes.append(now)
                while crashes and crashes[0] < now - CRASH_WINDOW:
                    crashes.popleft()
                if len(crashes) >= CRASHES:
                    report(
                        f"roborally serve: {CRASHES} exits within {CRASH_WINDOW:.0f} s; stopping"
                        " (see the log above for why)"
                    )
                    return 1
                time.sleep(RESTART_SECONDS)
                children[index] = subprocess.Popen(command)
        return 0
    finally:
        for child in children:
            if child is not None and child.poll() is None:
                child.terminate()
        for child in children:
            if child is not None:
                try:
                    child.wait(timeout=20)
                except subprocess.TimeoutExpired:
                    child.kill()
                    with contextlib.suppress(Exception):
                        child.wait()
        for signum, handler in previous.items():
            signal.signal(signum, handler)
        shutil.rmtree(siblings, ignore_errors=True)
