"""Boards, board elements and courses: one model for both editions.

A :class:`Board` is a rectangle of :class:`Cell` values, each holding every element printed on
that space (walls on its edges, a belt, a gear, a push panel, laser emitters, a battery, a repair
site, a crusher, a start space) and the overlays a course may place there (a checkpoint or flag,
a reboot token). A :class:`Course` places several boards with offsets and rotations and adds
course overlays; :class:`Grid` is the compiled, fast form the rules run on.

The border between two boards is not a wall: the grid joins all boards into one space.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from enum import StrEnum

from roborally.engine.core.geometry import DIRECTIONS, Direction, Pos, Turn, rotate_pos


class BeltColor(StrEnum):
    """Green belts (normal, 1 space) and blue belts (express, 2 spaces)."""

    GREEN = "green"
    BLUE = "blue"


@dataclass(frozen=True, slots=True)
class Belt:
    """A conveyor belt piece.

    ``out`` is the arrow's direction. ``curved`` holds the sides of the space (named by the
    direction from the space towards that side) whose entries are drawn as curved arrows: a robot a
    belt carries in through such a side rotates by the angle between its travel and ``out``.

    >>> Belt(BeltColor.GREEN, Direction.EAST, frozenset({Direction.SOUTH})).turn_on_entry(
    ...     Direction.NORTH)
    <Turn.RIGHT: 1>
    """

    color: BeltColor
    out: Direction
    curved: frozenset[Direction] = frozenset()

    def turn_on_entry(self, travel: Direction) -> Turn:
        """The rotation of a robot that a belt carries onto this piece moving ``travel``."""
        entry_side = travel.opposite
        if entry_side in self.curved:
            return Turn.between(travel, self.out)
        return Turn.NONE

    def rotated(self, quarter_turns: int) -> Belt:
        return Belt(
            self.color,
            _rot(self.out, quarter_turns),
            frozenset(_rot(d, quarter_turns) for d in self.curved),
        )


@dataclass(frozen=True, slots=True)
class Pusher:
    """A push panel mounted on a wall; it pushes ``direction`` in the listed registers."""

    direction: Direction
    registers: frozenset[int]

    def rotated(self, quarter_turns: int) -> Pusher:
        return Pusher(_rot(self.direction, quarter_turns), self.registers)


@dataclass(frozen=True, slots=True)
class Laser:
    """A wall-mounted laser emitter in this space firing ``direction`` with ``beams`` beams."""

    direction: Direction
    beams: int = 1

    def rotated(self, quarter_turns: int) -> Laser:
        return Laser(_rot(self.direction, quarter_turns), self.beams)


@dataclass(frozen=True, slots=True)
class Cell:
    """Everything on one space. The default is an empty floor space."""

    walls: frozenset[Direction] = frozenset()
    pit: bool = False
    belt: Belt | None = None
    gear: Turn | None = None
    pusher: Pusher | None = None
    lasers: tuple[Laser, ...] = ()
    battery: bool = False
    repair: int = 0
    crusher: frozenset[int] | None = None
    start: int | None = None
    start_facing: Direction | None = None
    checkpoint: int | None = None
    reboot: Direction | None = None

    def rotated(self, quarter_turns: int) -> Cell:
        if quarter_turns % 4 == 0:
            return self
        return replace(
            self,
            walls=frozenset(_rot(d, quarter_turns) for d in self.walls),
            belt=self.belt.rotated(quarter_turns) if self.belt else None,
            pusher=self.pusher.rotated(quarter_turns) if self.pusher else None,
            lasers=tuple(laser.rotated(quarter_turns) for laser in self.lasers),
            start_facing=(
                _rot(self.start_facing, quarter_turns) if self.start_facing is not None else None
            ),
            reboot=_rot(self.reboot, quarter_turns) if self.reboot is not None else None,
        )

    @property
    def is_plain(self) -> bool:
        return self == _PLAIN


_PLAIN = Cell()


def _rot(direction: Direction, quarter_turns: int) -> Direction:
    return Direction((direction + quarter_turns) % 4)


class BoardError(ValueError):
    """A board or course that breaks a structural rule (walls that disagree, bad sizes ...)."""


@dataclass(frozen=True)
class Board:
    """A rectangular board face: a factory board or a docking bay.

    ``cells`` is row-major (``cells[y * width + x]``). Walls are stored on both cells that share
    an edge; :meth:`Board.create` fills in the mirror side.
    """

    name: str
    width: int
    height: int
    cells: tuple[Cell, ...]
    kind: str = "factory"  # "factory" or "dock"
    title: str = ""

    @classmethod
    def create(
        cls,
        name: str,
        width: int,
        height: int,
        cells: dict[Pos, Cell] | None = None,
        *,
        kind: str = "factory",
        title: str = "",
    ) -> Board:
        """Build a board from sparse cells, mirroring walls onto neighbouring cells."""
        if width < 1 or height < 1:
            raise BoardError(f"board {name!r}: size must be positive, got {width}x{height}")
        if kind not in ("factory", "dock"):
            raise BoardError(f"board {name!r}: kind must be 'factory' or 'dock', got {kind!r}")
        grid = [Cell()] * (width * height)
        for pos, cell in (cells or {}).items():
            if not (0 <= pos.x < width and 0 <= pos.y < height):
                raise BoardError(f"board {name!r}: cell {pos} outside {width}x{height}")
            grid[pos.y * width + pos.x] = cell
        walls: list[set[Direction]] = [set(c.walls) for c in grid]
        for y in range(height):
            for x in range(width):
                for d in list(walls[y * width + x]):
                    nx, ny = x + d.dx, y + d.dy
                    if 0 <= nx < width and 0 <= ny < height:
                        walls[ny * width + nx].add(d.opposite)
        final = tuple(
            replace(c, walls=frozenset(w)) if frozenset(w) != c.walls else c
            for c, w in zip(grid, walls, strict=True)
        )
        return cls(name, width, height, final, kind, title or name)

    def cell(self, pos: Pos) -> Cell:
        return self.cells[pos.y * self.width + pos.x]

    def contains(self, pos: Pos) -> bool:
        return 0 <= pos.x < self.width and 0 <= pos.y < self.height

    def positions(self) -> list[Pos]:
        return [Pos(x, y) for y in range(self.height) for x in range(self.width)]

    def rotated(self, quarter_turns: int) -> Board:
        """This board turned clockwise by ``quarter_turns`` quarter turns."""
        q = quarter_turns % 4
        if q == 0:
            return self
        w, h = (self.height, self.width) if q % 2 else (self.width, self.height)
        cells: dict[Pos, Cell] = {}
        for pos in self.positions():
            cells[rotate_pos(pos, q, self.width, self.height)] = self.cell(pos).rotated(q)
        return Board.create(self.name, w, h, cells, kind=self.kind, title=self.title)

    def __repr__(self) -> str:
        return f"<Board {self.name!r} {self.width}x{self.height} {self.kind}>"


ORIGIN = Pos(0, 0)


@dataclass(frozen=True)
class PlacedBoard:
    """A board placed in a course: rotated clockwise, then shifted by ``offset``."""

    board: Board
    offset: Pos = ORIGIN
    rotation: int = 0


@dataclass(frozen=True)
class RebootToken:
    pos: Pos
    arrow: Direction


@dataclass(frozen=True)
class StartSpace:
    number: int
    pos: Pos
    facing: Direction | None = None


@dataclass(frozen=True)
class Course:
    """Boards placed together, plus the course overlays and facts.

    Overlays given here (checkpoints, reboot tokens, blocked start spaces) add to those printed in
    the board files. Checkpoint ``n`` is ``checkpoints[n - 1]``.
    """

    name: str
    boards: tuple[PlacedBoard, ...]
    checkpoints: tuple[Pos, ...] = ()
    reboot_tokens: tuple[RebootToken, ...] = ()
    blocked_starts: frozenset[int] = frozenset()
    reboot_damage: int = 2
    inactive: frozenset[Pos] = frozenset()
    title: str = ""
    facts: dict[str, str] = field(default_factory=dict)

    @classmethod
    def single(cls, board: Board, **kwargs: object) -> Course:
        """A course made of one board (as scenarios use)."""
        return cls(board.name, (PlacedBoard(board),), **kwargs)  # type: ignore[arg-type]


_new_tuple = tuple.__new__

# Wall bits in Grid.walls
WALL_BIT = (1, 2, 4, 8)


class Grid:
    """The compiled course: flat arrays indexed by ``y * width + x`` for the rules to run fast.

    ``None`` in :attr:`cells` is void: outside every board (falling there is falling off).
    """

    def __init__(
        self,
        course: Course,
        *,
        overlays_disable_elements: bool = True,
        reboot_tokens: bool = True,
    ) -> None:
        """Compile ``course``. Without ``reboot_tokens`` (Dynamic Archiving, spec 11.1.4) the
        tokens printed on boards or listed by the course are left off the course."""
        self.course = course
        placed = [(pb.board.rotated(pb.rotation), pb.offset) for pb in course.boards]
        if not placed:
            raise BoardError(f"course {course.name!r} has no boards")
        max_x = max(off.x + b.width for b, off in placed)
        max_y = max(off.y + b.height for b, off in placed)
        min_x = min(off.x for _, off in placed)
        min_y = min(off.y for _, off in placed)
        if min_x < 0 or min_y < 0:
            raise BoardError(f"course {course.name!r}: board offsets must not be negative")
        self.width = max_x
        self.height = max_y
        size = self.width * self.height
        cells: list[Cell | None] = [None] * size
        board_of: list[int] = [-1] * size
        for index, (board, off) in enumerate(placed):
            for pos in board.positions():
                gx, gy = pos.x + off.x, pos.y + off.y
                i = gy * self.width + gx
                if cells[i] is not None:
                    raise BoardError(
                        f"course {course.name!r}: boards {course.boards[board_of[i]].board.name!r}"
                        f" and {board.name!r} overlap at {gx},{gy}"
                    )
                cells[i] = board.cell(pos)
                board_of[i] = index
        self.board_of = board_of
        self.board_kinds = [b.kind for b, _ in placed]
        self.board_names = [b.name for b, _ in placed]

        # Course overlays.
        checkpoints: dict[int, Pos] = {}
        if not reboot_tokens:
            cells = [
                replace(c, reboot=None) if c is not None and c.reboot is not None else c
                for c in cells
            ]
        for i, cell in enumerate(cells):
            if cell is not None and cell.checkpoint is not None:
                if cell.checkpoint in checkpoints:
                    raise BoardError(
                        f"course {course.name!r}: checkpoint {cell.checkpoint} appears twice"
                    )
                checkpoints[cell.checkpoint] = self.pos(i)
        for n, pos in enumerate(course.checkpoints, start=1):
            if n in checkpoints and checkpoints[n] != pos:
                raise BoardError(f"course {course.name!r}: checkpoint {n} placed twice")
            printed = cells[self.index(pos)] if self.on_grid(pos) else None
            if printed is not None and printed.checkpoint not in (None, n):
                raise BoardError(
                    f"course {course.name!r}: checkpoint {n} at {pos} lands on checkpoint"
                    f" {printed.checkpoint}"
                )
            checkpoints[n] = pos
            self._overlay(cells, pos, "checkpoint")
            i = self.index(pos)
            c = cells[i]
            assert c is not None
            cells[i] = replace(c, checkpoint=n)
        numbers = sorted(checkpoints)
        if numbers != list(range(1, len(numbers) + 1)):
            raise BoardError(
                f"course {course.name!r}: checkpoints must be numbered 1..N, got {numbers}"
            )
        self.checkpoints: tuple[Pos, ...] = tuple(checkpoints[n] for n in numbers)

        for token in course.reboot_tokens if reboot_tokens else ():
            self._overlay(cells, token.pos, "reboot token")
            i = self.index(token.pos)
            c = cells[i]
            assert c is not None
            cells[i] = replace(c, reboot=token.arrow)
        # One reboot token per board (the rules checker warns about boards without one).
        self.reboot_of_board: dict[int, RebootToken] = {}
        for i, cell in enumerate(cells):
            if cell is not None and cell.reboot is not None:
                b = board_of[i]
                if b in self.reboot_of_board:
                    raise BoardError(
                        f"course {course.name!r}: board {self.board_names[b]!r} has more than"
                        " one reboot token"
                    )
                self.reboot_of_board[b] = RebootToken(self.pos(i), cell.reboot)

        starts: dict[int, StartSpace] = {}
        for i, cell in enumerate(cells):
            if cell is not None and cell.start is not None:
                if cell.start in starts:
                    raise BoardError(
                        f"course {course.name!r}: start space {cell.start} appears twice"
                    )
                starts[cell.start] = StartSpace(cell.start, self.pos(i), cell.start_facing)
        self.start_spaces: tuple[StartSpace, ...] = tuple(
            starts[n] for n in sorted(starts) if n not in course.blocked_starts
        )

        # Which element positions are inactive (covered by a checkpoint or reboot token, 6.0).
        inactive = [False] * size
        for i, cell in enumerate(cells):
            if cell is None:
                continue
            covered = cell.checkpoint is not None or cell.reboot is not None
            if (covered and overlays_disable_elements) or self.pos(i) in course.inactive:
                inactive[i] = True
        self.cells: tuple[Cell | None, ...] = tuple(cells)
        self.inactive = inactive

        # Fast lookups.
        self.walls = [0] * size
        for i, cell in enumerate(cells):
            if cell is not None:
                bits = 0
                for d in cell.walls:
                    bits |= WALL_BIT[d]
                self.walls[i] = bits
        # Mirror walls across board borders so that a wall printed on one board blocks both ways.
        for i, cell in enumerate(cells):
            if cell is None:
                continue
            p = self.pos(i)
            for d in DIRECTIONS:
                if self.walls[i] & WALL_BIT[d]:
                    q = p.step(d)
                    if self.on_grid(q) and cells[self.index(q)] is not None:
                        self.walls[self.index(q)] |= WALL_BIT[d.opposite]
        self.belts = [
            (c.belt if c is not None and not inactive[i] else None) for i, c in enumerate(cells)
        ]
        self.pits = [c is not None and c.pit for c in cells]
        # The elements that act on each space (none where a token covers it): the board
        # steps look a robot's space up here instead of fetching its cell.
        acting = [c if c is not None and not inactive[i] else None for i, c in enumerate(cells)]
        self.gear_turns = [c.gear if c is not None else None for c in acting]
        self.pushers = [c.pusher if c is not None else None for c in acting]
        self.batteries = [c is not None and c.battery for c in acting]
        self._beams: dict[int, tuple[int, ...]] = {}  # beam_path's cache
        self._factory_centre: tuple[float, float] | None = None
        self._factory_centre_known = False
        self.lasers: list[tuple[Pos, Laser, tuple[int, ...]]] = []
        for i, cell in enumerate(cells):
            if cell is None:
                continue
            for laser in cell.lasers:
                self.lasers.append((self.pos(i), laser, self._beam_path(i, laser.direction)))
        #: For each space a board laser's beam crosses: (laser number, spaces from its
        #: emitter); the rules look up the robots' spaces here instead of walking every beam.
        self.beams_over: dict[int, list[tuple[int, int]]] = {}
        for number, (_, _, path) in enumerate(self.lasers):
            for distance, i in enumerate(path):
                self.beams_over.setdefault(i, []).append((number, distance))
        #: Where each board laser's beam ends when it hits no robot.
        self.beam_ends = [self.pos(path[-1]) for _, _, path in self.lasers]

    def _overlay(self, cells: list[Cell | None], pos: Pos, what: str) -> None:
        if not self.on_grid(pos) or cells[self.index(pos)] is None:
            raise BoardError(f"course {self.course.name!r}: {what} at {pos} is off the boards")

    def _beam_path(self, start: int, direction: Direction) -> tuple[int, ...]:
        """Cells a beam crosses from its emitter's space until a wall or the course edge."""
        path = [start]
        i = start
        while True:
            if self.walls[i] & WALL_BIT[direction]:
                break
            p = self.pos(i).step(direction)
            if not self.on_grid(p) or self.cells[self.index(p)] is None:
                break
            i = self.index(p)
            path.append(i)
        return tuple(path)

    def beam_path(self, start: int, direction: Direction) -> tuple[int, ...]:
        """The spaces (indices) a beam from ``start`` towards ``direction`` crosses, ``start``
        first, until a wall or the course edge. Computed once per space and direction: every
        robot laser of every register traces one (the grid never changes)."""
        key = start * 4 + direction
        path = self._beams.get(key)
        if path is None:
            path = self._beams[key] = self._beam_path(start, direction)
        return path

    def on_grid(self, pos: Pos) -> bool:
        return 0 <= pos.x < self.width and 0 <= pos.y < self.height

    def index(self, pos: Pos) -> int:
        return pos.y * self.width + pos.x

    def pos(self, index: int) -> Pos:
        # tuple.__new__ skips the named tuple's keyword-taking constructor (a hot path).
        return _new_tuple(Pos, (index % self.width, index // self.width))

    def cell(self, pos: Pos) -> Cell | None:
        """The cell at ``pos``, or ``None`` when ``pos`` is off the course."""
        if not self.on_grid(pos):
            return None
        return self.cells[self.index(pos)]

    def is_on_course(self, pos: Pos) -> bool:
        x, y = pos
        width = self.width
        return 0 <= x < width and 0 <= y < self.height and self.cells[y * width + x] is not None

    def wall_between(self, pos: Pos, direction: Direction) -> bool:
        """Whether a wall lies on the ``direction`` edge of ``pos``."""
        return bool(self.walls[self.index(pos)] & WALL_BIT[direction])

    def active(self, pos: Pos) -> Cell | None:
        """The cell if its non-laser elements act (not covered by a checkpoint/reboot token)."""
        i = pos[1] * self.width + pos[0]
        if self.inactive[i]:
            return None
        return self.cells[i]

    def board_index(self, pos: Pos) -> int:
        return self.board_of[self.index(pos)]

    def factory_centre(self) -> tuple[float, float] | None:
        """The mean position of the factory boards' spaces (``None`` without factory boards),
        which start facings point towards; computed on first use."""
        if not self._factory_centre_known:
            xs: list[int] = []
            ys: list[int] = []
            for i, cell in enumerate(self.cells):
                if cell is not None and self.board_kinds[self.board_of[i]] == "factory":
                    xs.append(i % self.width)
                    ys.append(i // self.width)
            self._factory_centre = (sum(xs) / len(xs), sum(ys) / len(ys)) if xs else None
            self._factory_centre_known = True
        return self._factory_centre


#: Compiled grids shared by the games played on the same course (see :func:`shared_grid`).
_SHARED_GRIDS: dict[tuple[int, bool, bool], tuple[Course, Grid]] = {}
SHARED_GRIDS_KEPT = 64


def shared_grid(
    course: Course, *, overlays_disable_elements: bool = True, reboot_tokens: bool = True
) -> Grid:
    """``Grid(course, ...)``, compiled once per course object and shared by every game on it.

    Games never change their grid, and what the grid learns lazily (the beam paths robot
    lasers trace, the start facings) then serves every later game on the course as well: a
    server plays many games on few courses. Whoever takes a grid from here must not change
    it (the bot simulator, which swaps the pits for Hover Unit, compiles its own). The
    newest :data:`SHARED_GRIDS_KEPT` courses are kept; the course is held, so its ``id``
    cannot be reused while the entry lives.
    """
    key = (id(course), overlays_disable_elements, reboot_tokens)
    kept = _SHARED_GRIDS.get(key)
    if kept is not None and kept[0] is course:
        return kept[1]
    grid = Grid(
        course, overlays_disable_elements=overlays_disable_elements, reboot_tokens=reboot_tokens
    )
    if len(_SHARED_GRIDS) >= SHARED_GRIDS_KEPT:
        del _SHARED_GRIDS[next(iter(_SHARED_GRIDS))]  # the oldest entry
    _SHARED_GRIDS[key] = (course, grid)
    return grid


def default_start_facing(grid: Grid, pos: Pos) -> Direction:
    """The facing of a robot on a start space without one: toward the middle of the factory
    boards (the longer axis wins), i.e. "toward the factory board" (spec 2.1, 12-C3)."""
    centre = grid.factory_centre()
    if centre is None:
        return Direction.NORTH
    dx = centre[0] - pos.x
    dy = centre[1] - pos.y
    if abs(dx) >= abs(dy):
        return Direction.EAST if dx > 0 else Direction.WEST
    return Direction.SOUTH if dy > 0 else Direction.NORTH
