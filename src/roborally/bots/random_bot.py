"""The random bot: uniformly random legal decisions, reproducible from its seed."""

from __future__ import annotations

import random
from typing import Any

from roborally.engine.decisions import Decision, DecisionKind


class RandomBot:
    """Plays random legal choices. It reads only its own observation.

    >>> from roborally.engine.decisions import Decision, DecisionKind
    >>> bot = RandomBot(seed=1)
    >>> d = Decision("t1-p1-program", 0, DecisionKind.PROGRAM, "", (), "",
    ...              {"hand": ["move1"] * 9, "locked": [2], "registers": 5})
    >>> bot.choose({}, d)
    ('move1', None, 'move1', 'move1', 'move1')
    """

    name = "random"

    def __init__(self, seed: int = 0, shutdown_rate: float = 0.02) -> None:
        self.rng = random.Random(seed)
        self.shutdown_rate = shutdown_rate

    def choose(self, observation: dict[str, Any], decision: Decision) -> Any:
        if decision.kind is DecisionKind.PROGRAM:
            hand = list(decision.info["hand"])
            self.rng.shuffle(hand)
            program: list[str | None] = []
            for index in range(decision.info["registers"]):
                if index + 1 in decision.info["locked"] or not hand:
                    program.append(None)
                else:
                    program.append(hand.pop())
            return tuple(program)
        if decision.kind is DecisionKind.SHUTDOWN:
            return self.rng.random() < self.shutdown_rate
        return self.rng.choice(list(decision.options))


BOTS = {"random": RandomBot}


def make_bot(kind: str, seed: int) -> RandomBot:
    if kind not in BOTS:
        raise ValueError(f"unknown bot {kind!r} (known: {', '.join(sorted(BOTS))})")
    return BOTS[kind](seed)
