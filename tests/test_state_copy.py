"""State copies (the snapshots stages roll back to) share nothing mutable with the original."""

from __future__ import annotations

import dataclasses

import pytest

from roborally.content.courses import find_course
from roborally.engine.core.cards import Card
from roborally.engine.core.state import GameConfig, Register
from roborally.engine.game import Game

#: Fields that hold containers but are copied by hand in ``copy`` (not in ``CONTAINERS``).
BY_HAND = {"registers", "players"}


def mutable_fields(obj: object) -> set[str]:
    return {
        f.name
        for f in dataclasses.fields(obj)  # type: ignore[arg-type]
        if isinstance(getattr(obj, f.name), (list, dict, set))
    }


@pytest.mark.parametrize(
    ("edition", "course"), [("2023", "y23-rush-hour"), ("classic", "cl-first-shift")]
)
def test_every_container_field_is_copied_apart(edition: str, course: str) -> None:
    game = Game(
        GameConfig(find_course(course).course, ("red", "blue", "green"), seed=3, edition=edition)
    )
    state = game.state
    clone = state.copy()
    assert type(clone) is type(state)
    assert mutable_fields(state) - BY_HAND <= set(type(state).CONTAINERS)
    for name in type(state).CONTAINERS:
        assert getattr(clone, name) is not getattr(state, name), name
    assert clone.rng is not state.rng and clone.rng.state == state.rng.state
    for player, copied in zip(state.players, clone.players, strict=True):
        assert type(copied) is type(player)
        assert mutable_fields(player) - BY_HAND <= set(type(player).CONTAINERS)
        for name in type(player).CONTAINERS:
            assert getattr(copied, name) is not getattr(player, name), name
        for register, twin in zip(player.registers, copied.registers, strict=True):
            assert twin is not register and twin == register
            assert twin.cards is not register.cards and twin.done is not register.done
    assert clone.digest() == state.digest()


def test_a_register_copy_keeps_every_field() -> None:
    """Register.copy lists its slots by hand: a field added later must be added there too."""
    register = Register(
        cards=[Card(7, "move1")],
        revealed=True,
        locked=True,
        facedown_haywire=Card(9, "hw_side2"),
        done=["move1"],
    )
    defaults = Register()
    for field in dataclasses.fields(Register):
        assert getattr(register, field.name) != getattr(defaults, field.name), field.name
    twin = register.copy()
    assert twin == register
    assert twin.cards is not register.cards and twin.done is not register.done
