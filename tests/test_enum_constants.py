"""The engine's module constants for enum members are the members they are named after.

The rules read enum members as module globals in their hot paths (on Python 3.11 reading a
member off an enum class goes through EnumType.__getattr__'s slot hook, about ten times the
cost of a module global); each constant must stay the member of its name.
"""

from __future__ import annotations

from roborally.engine.core import events


def test_every_event_kind_has_its_constant() -> None:
    for kind in events.EventKind:
        assert getattr(events, kind.name) is kind
