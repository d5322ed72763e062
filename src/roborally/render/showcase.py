"""A small board holding every kind of element, for pictures, docs and render tests."""

from __future__ import annotations

from roborally.engine.core.board import Belt, BeltColor, Board, Cell, Laser, Pusher
from roborally.engine.core.geometry import Direction, Pos, Turn

__all__ = ["showcase_board"]

N, E, S, W = Direction.NORTH, Direction.EAST, Direction.SOUTH, Direction.WEST
GREEN, BLUE = BeltColor.GREEN, BeltColor.BLUE


def _belt(color: BeltColor, out: Direction, *curved: Direction) -> Belt:
    return Belt(color, out, frozenset(curved))


def showcase_board() -> Board:
    """A 10x8 board with every element: belts (turns, merges), lasers, pushers, gears ...

    Checkpoint 2 lies on a blue belt, so that belt piece is drawn faded (inactive).
    """
    cells: dict[Pos, Cell] = {
        # A blue line along row 1 that turns south, merges with a feeder from the east and
        # turns west at the bottom.
        Pos(0, 1): Cell(belt=_belt(BLUE, E)),
        Pos(1, 1): Cell(belt=_belt(BLUE, E)),
        Pos(2, 1): Cell(belt=_belt(BLUE, E)),
        Pos(3, 1): Cell(belt=_belt(BLUE, S, W)),
        Pos(3, 2): Cell(belt=_belt(BLUE, S), checkpoint=2),
        Pos(3, 3): Cell(belt=_belt(BLUE, S)),
        Pos(3, 4): Cell(belt=_belt(BLUE, S, E)),
        Pos(4, 4): Cell(belt=_belt(BLUE, W)),
        Pos(3, 5): Cell(belt=_belt(BLUE, W, N)),
        Pos(2, 5): Cell(belt=_belt(BLUE, W)),
        # A green merge: two curved entries (from east and west) into a belt going north.
        Pos(5, 3): Cell(belt=_belt(GREEN, E)),
        Pos(6, 3): Cell(belt=_belt(GREEN, N, E, W)),
        Pos(7, 3): Cell(belt=_belt(GREEN, W)),
        Pos(6, 2): Cell(belt=_belt(GREEN, N)),
        Pos(6, 1): Cell(belt=_belt(GREEN, W, S)),
        Pos(5, 1): Cell(belt=_belt(GREEN, W)),
        # Push panels: 1 3 5 on a north wall, 2 4 on a west wall, 1 3 5 on an east wall.
        Pos(5, 0): Cell(walls=frozenset({N}), pusher=Pusher(S, frozenset({1, 3, 5}))),
        Pos(0, 3): Cell(walls=frozenset({W}), pusher=Pusher(E, frozenset({2, 4}))),
        Pos(9, 4): Cell(walls=frozenset({E}), pusher=Pusher(W, frozenset({1, 3, 5}))),
        # Lasers: a triple one firing south from the top edge, stopped by a wall; a double one
        # firing east along row 6.
        Pos(9, 0): Cell(walls=frozenset({N}), lasers=(Laser(S, 3),)),
        Pos(9, 2): Cell(walls=frozenset({S})),
        Pos(0, 6): Cell(walls=frozenset({W}), lasers=(Laser(E, 2),)),
        Pos(7, 6): Cell(walls=frozenset({E})),
        # Gears, a battery, pits, repair sites, a crusher.
        Pos(1, 4): Cell(gear=Turn.RIGHT),
        Pos(5, 5): Cell(gear=Turn.LEFT),
        Pos(7, 0): Cell(battery=True),
        Pos(8, 2): Cell(pit=True),
        Pos(8, 3): Cell(pit=True),
        Pos(8, 6): Cell(repair=1),
        Pos(9, 6): Cell(repair=2),
        Pos(5, 6): Cell(crusher=frozenset({2, 4})),
        # Start spaces (one with a facing), checkpoint 1, a reboot token.
        Pos(0, 7): Cell(start=1, start_facing=N),
        Pos(1, 7): Cell(start=2),
        Pos(1, 2): Cell(checkpoint=1),
        Pos(7, 7): Cell(reboot=E),
        # A cell walled on all four sides, and some single walls.
        Pos(1, 5): Cell(walls=frozenset({N, E, S, W})),
        Pos(6, 4): Cell(walls=frozenset({S})),
        Pos(4, 2): Cell(walls=frozenset({E})),
    }
    return Board.create("showcase", 10, 8, cells, title="Showcase")
