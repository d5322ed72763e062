"""The top-level API (``roborally.Game``, ``roborally.make_bot``...): its doctests run, its names
are the real classes and functions, and it loads them only when they are used."""

from __future__ import annotations

import doctest
from types import ModuleType

import pytest

import roborally
import roborally.argtypes
import roborally.extras


@pytest.mark.parametrize("module", [roborally, roborally.extras, roborally.argtypes])
def test_doctests(module: ModuleType) -> None:
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.attempted >= 2 and result.failed == 0


def test_the_names_are_the_real_ones() -> None:
    from roborally.api import make_bot, new_game, play
    from roborally.bots.expert import ExpertBot
    from roborally.bots.planner import PlannerBot
    from roborally.bots.random_bot import RandomBot
    from roborally.content.courses import find_course
    from roborally.engine.core.decisions import Action
    from roborally.engine.core.state import GameConfig
    from roborally.engine.game import Game

    assert roborally.Game is Game and roborally.GameConfig is GameConfig
    assert roborally.Action is Action and roborally.find_course is find_course
    assert (roborally.RandomBot, roborally.PlannerBot, roborally.ExpertBot) == (
        RandomBot,
        PlannerBot,
        ExpertBot,
    )
    assert (roborally.make_bot, roborally.new_game, roborally.play) == (make_bot, new_game, play)
    assert roborally.api.new_game is new_game


def test_from_import_and_dir() -> None:
    from roborally import Game, api  # noqa: F401 - the import itself is the test

    listed = dir(roborally)
    assert {"Game", "GameConfig", "Action", "find_course", "api", "__version__"} <= set(listed)
    assert "TYPE_CHECKING" not in listed and "annotations" not in listed


def test_an_unknown_name_is_an_attribute_error() -> None:
    with pytest.raises(AttributeError, match="no attribute 'Gmae'"):
        roborally.Gmae  # noqa: B018


def test_version_is_a_string() -> None:
    assert isinstance(roborally.__version__, str) and roborally.__version__[0].isdigit()
