"""Geometry: directions, turns, positions and rotations."""

from __future__ import annotations

from roborally.engine.core.board import Board, Cell, Course, PlacedBoard
from roborally.engine.core.decisions import Action
from roborally.engine.core.geometry import (
    DIRECTIONS,
    EAST,
    NORTH,
    SOUTH,
    WEST,
    Direction,
    Pos,
    Turn,
    rotate_pos,
)
from roborally.engine.core.state import GameConfig
from roborally.engine.game import Game


def test_every_direction_is_truthy() -> None:
    # NORTH has the value 0; "facing or default" must still keep it.
    assert all(bool(d) for d in DIRECTIONS)
    assert (NORTH or EAST) is NORTH


def test_turns_compose() -> None:
    for d in DIRECTIONS:
        assert d.turned(Turn.RIGHT).turned(Turn.LEFT) is d
        assert d.turned(Turn.U_TURN) is d.opposite
        assert Turn.between(d, d.turned(Turn.RIGHT)) is Turn.RIGHT


def test_rotate_pos_four_times_is_identity() -> None:
    for x in range(3):
        for y in range(2):
            p = Pos(x, y)
            q = rotate_pos(p, 1, 3, 2)
            assert 0 <= q.x < 2 and 0 <= q.y < 3
            assert rotate_pos(rotate_pos(rotate_pos(q, 1, 2, 3), 1, 3, 2), 1, 2, 3) == p


def test_parse() -> None:
    assert Direction.parse("w") is WEST
    assert Direction.parse("South") is SOUTH
    assert Pos.parse(" 3,4") == Pos(3, 4)


def test_a_start_space_facing_north_is_respected() -> None:
    factory = Board.create("f", 3, 3)
    dock = Board.create(
        "d",
        3,
        1,
        {Pos(0, 0): Cell(start=1, start_facing=NORTH), Pos(2, 0): Cell(start=2)},
        kind="dock",
    )
    # The factory lies north of the dock, so a start with no facing would face north too;
    # put the factory to the EAST to tell an explicit NORTH from the default.
    course = Course("c", (PlacedBoard(dock, Pos(0, 0)), PlacedBoard(factory, Pos(3, 0))))
    game = Game(GameConfig(course, ("A",), seed=1))
    decision = game.pending_decisions()[0]
    game.apply(Action(decision.id, 0, 1))
    assert game.state.players[0].facing is NORTH
