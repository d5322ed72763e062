"""RoboRally: an exact rules engine with bots, boards, a renderer and a browser game.

The names below load on first use, so ``import roborally`` itself stays cheap (every module of
the package imports this one first). A game on a shipped course, one decision answered by
hand, then two bots playing it to the end:

>>> import roborally
>>> course = roborally.find_course("tiny").course
>>> game = roborally.Game(roborally.GameConfig(course, ("Red", "Blue"), seed=7))
>>> decision = game.pending_decisions()[0]
>>> decision.kind.value, decision.seat, decision.options
('start_space', 0, (1, 2, 3, 4, 5, 6))
>>> events = game.apply(roborally.Action(decision.id, decision.seat, 3))
>>> str(events[0])
'R0 P1 placed at 4,11 facing N (3)'
>>> bots = [roborally.PlannerBot(seed=1), roborally.make_bot("random", seed=2)]
>>> outcome = roborally.play(game, bots)
>>> outcome.winner, game.config.players[outcome.winner]
(0, 'Red')

:mod:`roborally.api` (``roborally.api``) has the rest of the API for bot authors: ``pending``,
``legal_choices``, ``clone``, ``observe``, ``steps``, ``run_tournament``, ``Board``...
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from roborally import api as api
    from roborally import extras as extras
    from roborally.api import make_bot as make_bot
    from roborally.api import new_game as new_game
    from roborally.api import play as play
    from roborally.bots.base import Bot as Bot
    from roborally.bots.expert import ExpertBot as ExpertBot
    from roborally.bots.levels import LevelBot as LevelBot
    from roborally.bots.planner import PlannerBot as PlannerBot
    from roborally.bots.random_bot import RandomBot as RandomBot
    from roborally.content.courses import CourseInfo as CourseInfo
    from roborally.content.courses import find_course as find_course
    from roborally.content.courses import list_courses as list_courses
    from roborally.engine.core.decisions import Action as Action
    from roborally.engine.core.decisions import ActionError as ActionError
    from roborally.engine.core.decisions import Decision as Decision
    from roborally.engine.core.decisions import DecisionKind as DecisionKind
    from roborally.engine.core.events import Event as Event
    from roborally.engine.core.state import GameConfig as GameConfig
    from roborally.engine.game import Game as Game
    from roborally.engine.game import Outcome as Outcome

    __version__: str

#: Each lazily loaded name and the module that defines it (read by tests/test_imports.py).
LAZY: dict[str, str] = {
    "Game": "roborally.engine.game",
    "Outcome": "roborally.engine.game",
    "GameConfig": "roborally.engine.core.state",
    "Action": "roborally.engine.core.decisions",
    "ActionError": "roborally.engine.core.decisions",
    "Decision": "roborally.engine.core.decisions",
    "DecisionKind": "roborally.engine.core.decisions",
    "Event": "roborally.engine.core.events",
    "CourseInfo": "roborally.content.courses",
    "find_course": "roborally.content.courses",
    "list_courses": "roborally.content.courses",
    "Bot": "roborally.bots.base",
    "RandomBot": "roborally.bots.random_bot",
    "PlannerBot": "roborally.bots.planner",
    "ExpertBot": "roborally.bots.expert",
    "LevelBot": "roborally.bots.levels",
    "make_bot": "roborally.api",
    "new_game": "roborally.api",
    "play": "roborally.api",
}
#: The submodules reachable as attributes (``roborally.api``) without importing them first.
SUBMODULES = ("api", "extras")

__all__ = sorted([*LAZY, *SUBMODULES, "__version__"])


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("roborally")
    except PackageNotFoundError:  # run from a source tree that was never installed
        return "0+unknown"


def __getattr__(name: str) -> Any:
    from importlib import import_module

    if name in LAZY:
        value = getattr(import_module(LAZY[name]), name)
    elif name in SUBMODULES:
        value = import_module(f"{__name__}.{name}")
    elif name == "__version__":
        value = _version()
    else:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    globals()[name] = value  # the next look-up finds it without this function
    return value


def __dir__() -> list[str]:
    return sorted({*__all__, *(name for name in globals() if name.startswith("__"))})
