"""Small courses built in code, for doctests and unit tests of the engine itself."""

from __future__ import annotations

from roborally.engine.core.board import Belt, BeltColor, Board, Cell, Course, Laser, PlacedBoard
from roborally.engine.core.geometry import EAST, NORTH, SOUTH, WEST, Pos, Turn


def tiny_course() -> Course:
    """A 6x6 factory board with a 6x2 docking bay below it and two checkpoints."""
    factory = Board.create(
        "tiny-factory",
        6,
        6,
        {
            Pos(1, 1): Cell(belt=Belt(BeltColor.BLUE, EAST)),
            Pos(2, 1): Cell(belt=Belt(BeltColor.BLUE, EAST)),
            Pos(3, 1): Cell(belt=Belt(BeltColor.GREEN, SOUTH, frozenset({WEST}))),
            Pos(4, 3): Cell(pit=True),
            Pos(1, 4): Cell(gear=Turn.RIGHT),
            Pos(5, 4): Cell(walls=frozenset({EAST}), lasers=(Laser(WEST, 1),)),
            Pos(2, 3): Cell(battery=True),
            Pos(0, 2): Cell(checkpoint=1),
            Pos(5, 0): Cell(checkpoint=2),
            Pos(3, 3): Cell(reboot=NORTH),
        },
    )
    dock = Board.create(
        "tiny-dock",
        6,
        2,
        {Pos(x, 1): Cell(start=i + 1) for i, x in enumerate((0, 2, 3, 5))},
        kind="dock",
    )
    return Course("tiny", (PlacedBoard(factory), PlacedBoard(dock, Pos(0, 6))))
