"""The random bot: uniformly random legal decisions, reproducible from its seed."""

from __future__ import annotations

import importlib
import inspect
import random
from collections.abc import Callable
from typing import Any

from roborally.bots.base import Bot
from roborally.engine.core.decisions import Decision, DecisionKind
from roborally.engine.core.rng import derive_seed

#: First options of upgrade decisions that mean "do nothing" (they are also the defaults).
PASSIVE = frozenset({"none", "no", "stay", "keep", "take", "move", "main", "discard", "done"})


class RandomBot:
    """Plays random legal choices. It reads only its own observation.

    Upgrades: in the upgrade phase it installs what it can afford most of the time, often draws
    a card, sometimes uses a temporary upgrade and rarely uninstalls one; in the other upgrade
    decisions it takes an active option with probability ``upgrade_rate``. Programs place the
    Haywires that Rewire put in the hand and, with Crab Legs, sometimes a Move 1 + Rotate pair.

    >>> from roborally.engine.core.decisions import Decision, DecisionKind
    >>> bot = RandomBot(seed=1)
    >>> d = Decision("t1-p1-program", 0, DecisionKind.PROGRAM, "", (), "",
    ...              {"hand": ["move1"] * 9, "locked": [2], "registers": 5})
    >>> bot.choose({}, d)
    ('move1', None, 'move1', 'move1', 'move1')
    """

    name = "random"

    def __init__(
        self, seed: int = 0, shutdown_rate: float = 0.02, upgrade_rate: float = 0.4
    ) -> None:
        self.rng = random.Random(seed)
        self.shutdown_rate = shutdown_rate
        self.upgrade_rate = upgrade_rate

    def choose(self, observation: dict[str, Any], decision: Decision) -> Any:
        if decision.kind is DecisionKind.PROGRAM:
            if decision.info.get("forced") or decision.info.get("pairs"):
                return self.upgraded_program(decision)
            hand = list(decision.info["hand"])
            self.rng.shuffle(hand)
            program: list[str | None] = []
            for index in range(decision.info["registers"]):
                if index + 1 in decision.info["locked"] or not hand:
                    program.append(None)
                else:
                    program.append(hand.pop())
            return tuple(program)
        if decision.kind in (DecisionKind.SHUTDOWN, DecisionKind.POWER_DOWN):
            return self.rng.random() < self.shutdown_rate
        if decision.kind is DecisionKind.UPGRADE_PHASE:
            return self.upgrade_step(list(decision.options))
        if decision.kind is DecisionKind.UPGRADE:
            options = list(decision.options)
            if options[0] in PASSIVE and len(options) > 1:
                if self.rng.random() < self.upgrade_rate:
                    return self.rng.choice(options[1:])
                return options[0]
        return self.rng.choice(list(decision.options))

    def upgrade_step(self, options: list[str]) -> str:
        """One step of the upgrade phase (4.1); every option offered is legal."""
        installs = [o for o in options if o.startswith("install ")]
        uses = [o for o in options if o.startswith("use ")]
        uninstalls = [o for o in options if o.startswith("uninstall ")]
        if installs and self.rng.random() < 0.7:
            return self.rng.choice(installs)
        if "draw" in options and self.rng.random() < 0.6:
            return "draw"
        if uses and self.rng.random() < 0.3:
            return self.rng.choice(uses)
        if uninstalls and self.rng.random() < 0.03:
            return self.rng.choice(uninstalls)
        return "done" if "done" in options else self.rng.choice(options)

    def upgraded_program(self, decision: Decision) -> tuple[str | None, ...]:
        """A random program that places Rewire's Haywires and maybe a Crab Legs pair."""
        locked = decision.info["locked"]
        slots = [i for i in range(decision.info["registers"]) if i + 1 not in locked]
        rest = list(decision.info["hand"])
        forced = list(decision.info.get("forced", []))
        for name in forced:
            rest.remove(name)
        self.rng.shuffle(rest)
        units: list[str] = list(forced)
        rotations = [n for n in rest if n in ("rotate_left", "rotate_right")]
        if (
            decision.info.get("pairs")
            and "move1" in rest
            and rotations
            and len(rest) + len(forced) - 1 >= len(slots)
            and self.rng.random() < 0.5
        ):
            rotation = self.rng.choice(rotations)
            rest.remove("move1")
            rest.remove(rotation)
            units.append(f"move1+{rotation}")
        units.extend(rest)
        chosen = units[: len(slots)]
        self.rng.shuffle(chosen)
        program: list[str | None] = [None] * decision.info["registers"]
        for slot, entry in zip(slots, chosen, strict=False):
            program[slot] = entry
        return tuple(program)


BOTS: dict[str, Callable[[int], Bot]] = {"random": RandomBot}


def _register_search_bots() -> None:
    """The planner and expert bots (``roborally.bots.planner``, ``roborally.bots.expert``) and
    the levels a player picks (``roborally.bots.levels``; ``expert`` is one of them)."""
    from roborally.bots.expert import ExpertBot
    from roborally.bots.levels import LEVELS
    from roborally.bots.planner import PlannerBot

    BOTS["planner"] = PlannerBot
    BOTS["expert"] = ExpertBot
    for level in LEVELS:
        BOTS[level.id] = level.factory


_register_search_bots()


def seat_seed(game_seed: int, seat: int) -> int:
    """The seed of the bot in ``seat`` of the game seeded ``game_seed``: derived by a keyed hash
    (``derive_seed(game_seed, "bot/SEAT")``), so that watching a bot tells nothing of the game
    seed.

    >>> seat_seed(1, 0) != seat_seed(1, 1) and 0 <= seat_seed(2**255, 5) < 2**63
    True
    """
    return derive_seed(game_seed, f"bot/{seat}")


def make_bot(kind: str, seed: int) -> Bot:
    """A bot of ``kind``: a name of :data:`BOTS`, or ``module:Class`` for a class (or function)
    importable here that is called with the seed. A bot that cannot be made is a one-line
    :class:`ValueError`."""
    if kind in BOTS:
        return BOTS[kind](seed)
    if ":" in kind:
        return _load_bot(kind, seed)
    raise ValueError(f"unknown bot {kind!r} (known: {', '.join(sorted(BOTS))}, or module:Class)")


def _load_bot(kind: str, seed: int) -> Bot:
    module_name, _, name = kind.partition(":")
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as error:
        if error.name and (module_name + ".").startswith(error.name + "."):
            raise ValueError(
                f"cannot load bot {kind!r}: no module named {error.name!r} (the module must be"
                " importable, e.g. a package installed here or a file in a directory on"
                " PYTHONPATH)"
            ) from None
        raise ValueError(
            f"cannot load bot {kind!r}: importing {module_name} failed: {error}"
        ) from None
    except (ImportError, ValueError) as error:  # ValueError: an empty or relative name
        raise ValueError(f"cannot load bot {kind!r}: {error}") from None
    factory = getattr(module, name, None)
    if not callable(factory):
        raise ValueError(f"cannot load bot {kind!r}: module {module_name} has no class {name!r}")
    try:
        inspect.signature(factory).bind(seed)
    except TypeError:
        raise ValueError(
            f"cannot load bot {kind!r}: {name} must take a seed (an int) as its one argument"
        ) from None
    except ValueError:  # no signature to check (a builtin): just call it
        pass
    try:
        bot = factory(seed)
    except Exception as error:  # the outside class's own failure, told in one line
        raise ValueError(f"cannot make bot {kind!r}: {error!r}") from None
    if not callable(getattr(bot, "choose", None)):
        raise ValueError(f"cannot load bot {kind!r}: {name}(seed) has no choose method")
    result: Bot = bot
    return result
