"""Directions, positions and rotations on the square grid.

The grid has x growing to the east (right) and y growing to the south (down), the way a board
file is written. NORTH is "up" on the page.

>>> Pos(2, 3).step(NORTH)
Pos(x=2, y=2)
>>> EAST.turned(Turn.LEFT)
<Direction.NORTH: 0>
>>> EAST.opposite
<Direction.WEST: 3>
"""

from __future__ import annotations

from enum import IntEnum
from typing import NamedTuple


class Direction(IntEnum):
    """A compass direction; the value counts clockwise quarter turns from north."""

    NORTH = 0
    EAST = 1
    SOUTH = 2
    WEST = 3

    def __bool__(self) -> bool:
        # A direction is always a value: NORTH (0) must not read as "no direction".
        return True

    @property
    def opposite(self) -> Direction:
        return DIRECTIONS[(self + 2) % 4]

    def turned(self, turn: Turn) -> Direction:
        """The direction after a turn (LEFT is counter-clockwise)."""
        # Indexing the tuple of members: calling Direction(...) goes through the enum's
        # lookup machinery, several times slower, and robots turn often.
        return DIRECTIONS[(self + turn) % 4]

    @property
    def dx(self) -> int:
        return DX[self]

    @property
    def dy(self) -> int:
        return DY[self]

    @property
    def letter(self) -> str:
        return "NESW"[self]

    @classmethod
    def parse(cls, text: str) -> Direction:
        """Parse ``N``/``E``/``S``/``W`` or a full name, case-insensitively.

        >>> Direction.parse("west")
        <Direction.WEST: 3>
        """
        direction = _BY_NAME.get(text.strip().upper())
        if direction is not None:
            return direction
        raise ValueError(f"not a direction: {text!r} (use N, E, S or W)")


_new_tuple = tuple.__new__
#: The step of each direction along x and along y (north is up: y grows southwards).
DX = (0, 1, 0, -1)
DY = (-1, 0, 1, 0)

NORTH = Direction.NORTH
EAST = Direction.EAST
SOUTH = Direction.SOUTH
WEST = Direction.WEST
DIRECTIONS = (NORTH, EAST, SOUTH, WEST)
#: The facings as players name them ("N", "E", "S", "W"), in the order of :data:`DIRECTIONS`.
FACING_LETTERS = ("N", "E", "S", "W")
_BY_NAME = {key: d for d in DIRECTIONS for key in (d.name, FACING_LETTERS[d])}


class Turn(IntEnum):
    """A rotation in quarter turns clockwise."""

    NONE = 0
    RIGHT = 1
    U_TURN = 2
    LEFT = 3

    @classmethod
    def between(cls, before: Direction, after: Direction) -> Turn:
        """The turn that takes ``before`` to ``after``.

        >>> Turn.between(NORTH, WEST)
        <Turn.LEFT: 3>
        """
        return TURNS[(after - before) % 4]


TURNS = (Turn.NONE, Turn.RIGHT, Turn.U_TURN, Turn.LEFT)


class Pos(NamedTuple):
    """A cell position (column ``x``, row ``y``)."""

    x: int
    y: int

    def step(self, direction: Direction, distance: int = 1) -> Pos:
        # tuple.__new__ skips the named tuple's keyword-taking constructor (a hot path).
        return _new_tuple(
            Pos, (self[0] + DX[direction] * distance, self[1] + DY[direction] * distance)
        )

    def __str__(self) -> str:
        return f"{self.x},{self.y}"

    @classmethod
    def parse(cls, text: str) -> Pos:
        """Parse ``"x,y"``.

        >>> Pos.parse("3,4")
        Pos(x=3, y=4)
        """
        parts = text.split(",")
        if len(parts) != 2:
            raise ValueError(f"not a position: {text!r} (use x,y)")
        try:
            return cls(int(parts[0]), int(parts[1]))
        except ValueError:
            raise ValueError(f"not a position: {text!r} (use x,y)") from None


def rotate_pos(pos: Pos, quarter_turns: int, width: int, height: int) -> Pos:
    """Rotate a position inside a ``width`` x ``height`` rectangle clockwise.

    The result lies in the rotated rectangle (``height`` x ``width`` for odd turns).

    >>> rotate_pos(Pos(0, 0), 1, 3, 2)
    Pos(x=1, y=0)
    """
    x, y = pos
    for _ in range(quarter_turns % 4):
        x, y = height - 1 - y, x
        width, height = height, width
    return Pos(x, y)
