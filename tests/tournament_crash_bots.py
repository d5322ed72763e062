"""Bots that end, break or interrupt their own process, for ``test_tournament_crashes.py``.

They live in a module of their own so that worker processes and the command line find them by
name (``--bots tournament_crash_bots:KillsItself``; pytest puts ``tests/`` on ``sys.path``).
Each plays randomly but misbehaves once, on its first decision in seat 0: named first of two
bots, it sits there in games 1, 3, ... (indexes 0, 2, ...), and the others finish normally.
"""

from __future__ import annotations

import os
import resource
import signal
import sys
from typing import Any

from roborally.bots.random_bot import RandomBot
from roborally.engine.core.decisions import Decision


class Misbehaves(RandomBot):
    def __init__(self, seed: int = 0) -> None:
        super().__init__(seed)
        self.misbehaved = False

    def choose(self, observation: dict[str, Any], decision: Decision) -> Any:
        if decision.seat == 0 and not self.misbehaved:
            self.misbehaved = True
            self.misbehave()
        return super().choose(observation, decision)

    def misbehave(self) -> None:
        raise NotImplementedError


class ExitsProcess(Misbehaves):
    def misbehave(self) -> None:
        os._exit(3)


class KillsItself(Misbehaves):
    """As the out-of-memory killer would."""

    def misbehave(self) -> None:
        os.kill(os.getpid(), signal.SIGKILL)


class CallsSysExit(Misbehaves):
    def misbehave(self) -> None:
        sys.exit(3)


class RaisesKeyboardInterrupt(Misbehaves):
    def misbehave(self) -> None:
        raise KeyboardInterrupt("a bot's own, not the user's")


class EatsMemory(Misbehaves):
    """Asks for twice its process's memory limit, or for more than any address space."""

    def misbehave(self) -> None:
        limit, _ = resource.getrlimit(resource.RLIMIT_AS)
        if limit == resource.RLIM_INFINITY:
            bytearray(1 << 60)  # refused at once: never touches the machine's memory
        try:
            bytearray(2 * limit)
        except MemoryError as error:
            raise MemoryError(f"over the limit of {limit >> 20} MB") from error


class StuckInC(Misbehaves):
    """Blocks the timer signal of the time limit, as C code that ignores signals would, and
    never returns."""

    def misbehave(self) -> None:
        signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGALRM})
        while True:
            pass


class PressesCtrlC(Misbehaves):
    """Interrupts its process as the user's Ctrl-C does."""

    def misbehave(self) -> None:
        os.kill(os.getpid(), signal.SIGINT)


class PressesCtrlCOnParent(Misbehaves):
    """In a worker: interrupts the tournament's process, as the user's Ctrl-C does."""

    def misbehave(self) -> None:
        os.kill(os.getppid(), signal.SIGINT)
