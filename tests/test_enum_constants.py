"""The engine's module constants for enum members are the members they are named after.

The rules read enum members as module globals in their hot paths (on Python 3.11 reading a
member off an enum class goes through EnumType.__getattr__'s slot hook, about ten times the
cost of a module global); each constant must stay the member of its name.
"""

from __future__ import annotations

from enum import Enum
from types import ModuleType

import pytest

from roborally.engine.core import cards, decisions, events


@pytest.mark.parametrize(
    ("module", "enum"),
    [
        (events, events.EventKind),
        (cards, cards.CardType),
        (decisions, decisions.DecisionKind),
    ],
)
def test_every_member_has_its_constant(module: ModuleType, enum: type[Enum]) -> None:
    for member in enum:
        assert getattr(module, member.name) is member, f"{module.__name__}.{member.name}"
