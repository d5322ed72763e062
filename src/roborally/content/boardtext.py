"""The board text format: a hand-writable, diff-friendly file for one board.

A board file has three parts: header lines (``board:``, ``title:``, ``kind:``, ``size:``), a grid
drawn with ``+``/``---``/``|`` walls and short cell codes, and an optional ``legend:`` that names
the cells the built-in codes cannot express. ``docs/board-format.md`` describes the format for
board designers.

:func:`parse_board` reads the text, :func:`load_board` reads a file and :func:`write_board`
produces the canonical text, so that ``parse_board(write_board(board)) == board``. Every problem
in a file raises :class:`BoardFormatError` carrying the file name, the 1-based line and column and
a one-line message.

>>> text = "board: mini\\nsize: 2x1\\n  +---+---+\\n0 | > | E |\\n  +---+---+\\n"
>>> board = parse_board(text)
>>> board.cell(Pos(0, 0)).belt
Belt(color=<BeltColor.GREEN: 'green'>, out=<Direction.EAST: 1>, curved=frozenset())
>>> parse_board(write_board(board)) == board
True
"""

from __future__ import annotations

import itertools
import json
import os
import re
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path

from roborally.engine.core.board import Belt, BeltColor, Board, Cell, Laser, Pusher
from roborally.engine.core.geometry import Direction, Pos, Turn

__all__ = [
    "BoardFormatError",
    "CellProblem",
    "board_problems",
    "content_problem",
    "load_board",
    "mount_problem",
    "parse_board",
    "write_board",
]


class BoardFormatError(ValueError):
    """A problem in a board file, located at a 1-based ``line`` and ``column``.

    ``str(error)`` is the single line ``filename:line:column: message``.
    """

    def __init__(self, filename: str, line: int, column: int, message: str) -> None:
        self.filename = filename
        self.line = line
        self.column = column
        self.message = " ".join(message.splitlines())
        super().__init__(str(self))

    def __str__(self) -> str:
        return f"{self.filename}:{self.line}:{self.column}: {self.message}"

    def __reduce__(self) -> tuple[type[BoardFormatError], tuple[str, int, int, str]]:
        return (type(self), (self.filename, self.line, self.column, self.message))


# ---------------------------------------------------------------------------------------------
# Shared vocabulary

ARROWS = "^>v<"  # indexed by Direction: N E S W
SIDE_LETTERS = "nesw"  # curve sides in belt cell codes
REGISTERS = range(1, 6)
HEADER_KEYS = ("board", "title", "kind", "size")
KINDS = ("factory", "dock")

_SLUG_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]*")
#: The widest and tallest a board may be (the shipped ones are 12 x 12 at most): a board file
#: is untrusted input, and the parser and the rules keep arrays of every space.
MAX_BOARD_SIDE = 100
_SIZE_RE = re.compile(r"([0-9]+)\s*[xX]\s*([0-9]+)")
_HEADER_RE = re.compile(r"\s*([A-Za-z][A-Za-z0-9_-]*)\s*:")
_LEGEND_RE = re.compile(r"\s*legend\s*:\s*(#.*)?", re.IGNORECASE)
_NUMBER_LINE_RE = re.compile(r"[0-9 ]*[0-9][0-9 ]*")
_INT_RE = re.compile(r"[0-9]+")
_FORBIDDEN_SYMBOL_CHARS = "|+#=;"
_DIGITS = tuple("0123456789")

_PLAIN = Cell()
_SIMPLE_CODES: dict[str, Cell] = {
    ".": _PLAIN,
    "O": Cell(pit=True),
    "E": Cell(battery=True),
    "cw": Cell(gear=Turn.RIGHT),
    "ccw": Cell(gear=Turn.LEFT),
}

# Symbols the writer invents, in the order it hands them out: letters that do not look like a
# built-in code (no c/C, e/E, o/O, s/S, v, w, R) nor like a digit (no l, I).
_SYMBOL_LETTERS_LOWER = "abdfghijkmnpqrtuxyz"
_SYMBOL_LETTERS_UPPER = "ABDFGHJKLMNPQTUVWXYZ"


class _Problem(Exception):
    """A problem inside a cell code, ``offset`` characters from the code's first character."""

    def __init__(self, offset: int, message: str) -> None:
        super().__init__(message)
        self.offset = offset
        self.message = message


def _builtin_cell(code: str) -> Cell | None:
    """The cell a built-in code stands for, or ``None`` if ``code`` is not shaped like one.

    Raises :class:`_Problem` for codes shaped like a built-in code that are malformed.
    """
    simple = _SIMPLE_CODES.get(code)
    if simple is not None:
        return simple
    first = code[0]
    if first in ARROWS:
        return Cell(belt=_belt_code(code))
    rest = code[1:]
    if first == "w" and rest[:1] in _DIGITS:
        if rest not in ("1", "2"):
            raise _Problem(0, f"bad repair code {code!r}: use w1 or w2")
        return Cell(repair=int(rest))
    if first == "S" and rest[:1] in _DIGITS:
        match = re.fullmatch(r"([1-9])([\^>v<]?)", rest)
        if match is None:
            raise _Problem(
                0,
                f"bad start code {code!r}: use S1 to S9, optionally followed by ^ > v or <"
                " (larger numbers need a legend entry)",
            )
        facing = Direction(ARROWS.index(match[2])) if match[2] else None
        return Cell(start=int(match[1]), start_facing=facing)
    if first == "C" and rest[:1] in _DIGITS:
        if re.fullmatch(r"[1-9]", rest) is None:
            raise _Problem(
                0,
                f"bad checkpoint code {code!r}: use C1 to C9 (larger numbers need a legend entry)",
            )
        return Cell(checkpoint=int(rest))
    if first == "R" and rest[:1] in tuple(ARROWS):
        if len(rest) != 1:
            raise _Problem(0, f"bad reboot code {code!r}: use R^, R>, Rv or R<")
        return Cell(reboot=Direction(ARROWS.index(rest)))
    return None


def _belt_code(code: str) -> Belt:
    arrow = code[0]
    out = Direction(ARROWS.index(arrow))
    if code[1:2] == arrow:
        color, start = BeltColor.BLUE, 2
    else:
        color, start = BeltColor.GREEN, 1
    sides: set[Direction] = set()
    for offset in range(start, len(code)):
        letter = code[offset]
        if letter not in SIDE_LETTERS:
            raise _Problem(
                offset,
                f"bad belt code {code!r}: only curve sides n, e, s, w may follow the arrow,"
                f" not {letter!r}",
            )
        side = Direction(SIDE_LETTERS.index(letter))
        if side in sides:
            raise _Problem(offset, f"curve side {letter!r} given twice in belt code {code!r}")
        if side in (out, out.opposite):
            raise _Problem(
                offset,
                f"curved entry {letter!r} is not perpendicular to the belt {code!r}"
                f" going {out.letter}",
            )
        sides.add(side)
    return Belt(color, out, frozenset(sides))


def _symbol_problem(symbol: str) -> str | None:
    """Why ``symbol`` cannot be a legend symbol, or ``None`` if it can."""
    if len(symbol) > 3:
        return f"legend symbol {symbol!r} is longer than 3 characters"
    for char in symbol:
        if char in _FORBIDDEN_SYMBOL_CHARS or char.isspace() or not char.isprintable():
            return f"legend symbol {symbol!r} must not contain {char!r}"
    if symbol[0] in _DIGITS or symbol[0] in tuple(".^>v<"):
        return f"legend symbol {symbol!r} must not start with {symbol[0]!r}"
    try:
        builtin = _builtin_cell(symbol)
    except _Problem:
        builtin = _PLAIN
    if builtin is not None:
        return f"legend symbol {symbol!r} clashes with the built-in cell codes"
    return None


def _writer_symbols() -> Iterator[str]:
    """The symbols the writer hands out: single letters, then pairs, then triples."""
    yield from _SYMBOL_LETTERS_LOWER
    yield from _SYMBOL_LETTERS_UPPER
    for length in (2, 3):
        for letters in itertools.product(_SYMBOL_LETTERS_LOWER, repeat=length):
            yield "".join(letters)


@dataclass(frozen=True)
class CellProblem:
    """A problem with one space's elements: a stable ``code`` (a ``check.*`` translation key),
    its ``params`` (the key's ``{placeholders}``) and the English ``message`` the parser and the
    writer give."""

    code: str
    message: str
    params: dict[str, str | int] = field(default_factory=dict)


def content_problem(content: Cell) -> CellProblem | None:
    """What is contradictory or out of range in a cell's elements (walls aside), if anything."""
    if content.pit:
        extras = [
            ("belt", "a belt", content.belt is not None),
            ("gear", "a gear", content.gear is not None),
            ("pusher", "a pusher", content.pusher is not None),
            ("battery", "a battery", content.battery),
            ("repair", "a repair site", content.repair != 0),
            ("crusher", "a crusher", content.crusher is not None),
            ("start", "a start space", content.start is not None),
            ("checkpoint", "a checkpoint", content.checkpoint is not None),
            ("reboot", "a reboot token", content.reboot is not None),
        ]
        for key, name, present in extras:
            if present:
                return CellProblem(
                    "check.pit_with",
                    f"a pit cannot also hold {name} (only walls and lasers)",
                    {"element": key},
                )
    if content.belt is not None and content.gear is not None:
        return CellProblem("check.belt_and_gear", "a belt and a gear cannot share a space")
    if content.belt is not None:
        belt = content.belt
        for side in sorted(belt.curved):
            if side in (belt.out, belt.out.opposite):
                return CellProblem(
                    "check.curve_not_perpendicular",
                    f"curved entry {side.letter} is not perpendicular to a belt going"
                    f" {belt.out.letter}",
                    {"side": side.letter, "direction": belt.out.letter},
                )
    if content.gear is not None and content.gear not in (Turn.RIGHT, Turn.LEFT):
        return CellProblem(
            "check.gear_turn",
            f"a gear must turn RIGHT (cw) or LEFT (ccw), not {content.gear.name}",
            {"turn": content.gear.name},
        )
    if content.pusher is not None and not _registers_ok(content.pusher.registers):
        return CellProblem(
            "check.pusher_registers", "a pusher needs one or more registers from 1 to 5"
        )
    for laser in content.lasers:
        if laser.beams not in (1, 2, 3):
            return CellProblem(
                "check.laser_beams",
                f"a laser has 1 to 3 beams, not {laser.beams}",
                {"beams": laser.beams},
            )
    if content.repair not in (0, 1, 2):
        return CellProblem(
            "check.repair_wrenches",
            f"a repair site has 1 or 2 wrenches, not {content.repair}",
            {"wrenches": content.repair},
        )
    if content.crusher is not None and not _registers_ok(content.crusher):
        return CellProblem(
            "check.crusher_registers", "a crusher needs one or more registers from 1 to 5"
        )
    if content.start is not None and content.start < 1:
        return CellProblem(
            "check.start_number",
            f"start numbers begin at 1, not {content.start}",
            {"number": content.start},
        )
    if content.start is None and content.start_facing is not None:
        return CellProblem("check.start_facing_alone", "a start facing without a start number")
    if content.checkpoint is not None and content.checkpoint < 1:
        return CellProblem(
            "check.checkpoint_number",
            f"checkpoint numbers begin at 1, not {content.checkpoint}",
            {"number": content.checkpoint},
        )
    return None


def _content_problem(content: Cell) -> str | None:
    problem = content_problem(content)
    return problem.message if problem is not None else None


def _registers_ok(registers: frozenset[int]) -> bool:
    return bool(registers) and all(r in REGISTERS for r in registers)


def mount_problem(cell: Cell) -> CellProblem | None:
    """A pusher or laser whose mounting wall is missing, if any."""
    if cell.pusher is not None:
        side = cell.pusher.direction.opposite
        if side not in cell.walls:
            return CellProblem(
                "check.pusher_no_wall",
                f"a pusher pushing {cell.pusher.direction.letter} is mounted on the wall on its"
                f" {side.letter} side, but there is no wall there",
                {"direction": cell.pusher.direction.letter, "side": side.letter},
            )
    for laser in cell.lasers:
        side = laser.direction.opposite
        if side not in cell.walls:
            return CellProblem(
                "check.laser_no_wall",
                f"a laser firing {laser.direction.letter} is mounted on the wall on its"
                f" {side.letter} side, but there is no wall there",
                {"direction": laser.direction.letter, "side": side.letter},
            )
    return None


def _mount_problem(cell: Cell) -> str | None:
    problem = mount_problem(cell)
    return problem.message if problem is not None else None


def board_problems(cells: Iterator[tuple[Pos, Cell]]) -> Iterator[tuple[CellProblem, Pos, Pos]]:
    """The whole-board rules, over the cells in reading order: a start or checkpoint number
    used twice, a second reboot token. Each problem comes with the space where it is found and
    the space of the first one."""
    starts: dict[int, Pos] = {}
    checkpoints: dict[int, Pos] = {}
    reboot: Pos | None = None
    for pos, cell in cells:
        if cell.start is not None:
            first = starts.setdefault(cell.start, pos)
            if first != pos:
                message = f"start {cell.start} appears twice"
                yield CellProblem("check.start_twice", message, {"number": cell.start}), pos, first
        if cell.checkpoint is not None:
            first = checkpoints.setdefault(cell.checkpoint, pos)
            if first != pos:
                number = cell.checkpoint
                message = f"checkpoint {number} appears twice"
                yield CellProblem("check.checkpoint_twice", message, {"number": number}), pos, first
        if cell.reboot is not None:
            if reboot is not None:
                yield CellProblem("check.reboot_twice", "more than one reboot token"), pos, reboot
            else:
                reboot = pos


# ---------------------------------------------------------------------------------------------
# Parser


@dataclass
class _Definition:
    symbol: str
    line: int
    column: int
    cell: Cell
    used: bool = False


@dataclass
class _CodeAt:
    code: str
    line: int
    column: int


@dataclass
class _Parts:
    """Elements collected from one legend line."""

    seen: set[str] = field(default_factory=set)
    pit: bool = False
    belt: Belt | None = None
    gear: Turn | None = None
    pusher: Pusher | None = None
    lasers: list[Laser] = field(default_factory=list)
    battery: bool = False
    repair: int = 0
    crusher: frozenset[int] | None = None
    start: int | None = None
    start_facing: Direction | None = None
    checkpoint: int | None = None
    reboot: Direction | None = None

    def cell(self) -> Cell:
        return Cell(
            pit=self.pit,
            belt=self.belt,
            gear=self.gear,
            pusher=self.pusher,
            lasers=tuple(self.lasers),
            battery=self.battery,
            repair=self.repair,
            crusher=self.crusher,
            start=self.start,
            start_facing=self.start_facing,
            checkpoint=self.checkpoint,
            reboot=self.reboot,
        )


@dataclass(frozen=True)
class _Shape:
    """Where things sit in the grid lines: cells are 3 wide, separators 1, after ``margin``."""

    width: int
    height: int
    margin: int

    @property
    def full(self) -> int:
        return self.margin + 4 * self.width + 1

    @property
    def size(self) -> str:
        return f"{self.width}x{self.height}"


_Token = tuple[str, int]  # text and 1-based column

_ELEMENT_NAMES = {
    "floor": "floor",
    "pit": "a pit",
    "battery": "a battery",
    "gear": "a gear",
    "belt": "a belt",
    "pusher": "a pusher",
    "laser": "a laser",
    "repair": "a repair site",
    "crusher": "a crusher",
    "start": "a start space",
    "checkpoint": "a checkpoint",
    "reboot": "a reboot token",
}


class _Parser:
    def __init__(self, text: str, filename: str) -> None:
        self.filename = filename
        if text.startswith("\ufeff"):
            text = text[1:]
        self.lines = [line.removesuffix("\r") for line in text.split("\n")]
        self.pos = 0
        self.header: dict[str, tuple[str, int, int]] = {}

    # -- helpers ------------------------------------------------------------------------------

    def error(self, line: int, column: int, message: str) -> BoardFormatError:
        return BoardFormatError(self.filename, line, column, message)

    def skippable(self, raw: str) -> bool:
        stripped = raw.strip()
        return not stripped or stripped.startswith("#")

    def end_location(self) -> tuple[int, int]:
        """The end of the last line with content (where a missing part should have been)."""
        for index in range(len(self.lines) - 1, -1, -1):
            if self.lines[index].strip():
                return index + 1, len(self.lines[index].rstrip()) + 1
        return 1, 1

    # -- the whole file -----------------------------------------------------------------------

    def parse(self) -> Board:
        self.parse_header()
        name, _, _ = self.header["board"]
        size, size_line, size_col = self.header["size"]
        width, height = self.parse_size(size, size_line, size_col)
        kind = self.header.get("kind", ("factory", 0, 0))[0]
        title = self.header.get("title", ("", 0, 0))[0]
        walls, codes = self.parse_grid(width, height)
        legend = self.parse_legend()
        cells = self.resolve(width, height, walls, codes, legend)
        for definition in legend.values():
            if not definition.used:
                raise self.error(
                    definition.line,
                    definition.column,
                    f"legend symbol {definition.symbol!r} is not used in the grid",
                )
        return Board.create(name, width, height, cells, kind=kind, title=title)

    # -- header -------------------------------------------------------------------------------

    def parse_header(self) -> None:
        while self.pos < len(self.lines):
            raw = self.lines[self.pos]
            number = self.pos + 1
            if self.skippable(raw):
                self.pos += 1
                continue
            first_col = len(raw) - len(raw.lstrip())
            if not raw[first_col].isalpha():
                break
            match = _HEADER_RE.match(raw)
            if match is None:
                raise self.error(
                    number,
                    first_col + 1,
                    "expected a header line 'key: value' (e.g. 'size: 12x12')",
                )
            key = match[1].lower()
            key_col = match.start(1) + 1
            if key == "legend":
                raise self.error(number, key_col, "'legend:' before the grid: the grid comes first")
            if key not in HEADER_KEYS:
                raise self.error(
                    number,
                    key_col,
                    f"unknown header key {match[1]!r} (expected board, title, kind or size)",
                )
            if key in self.header:
                raise self.error(
                    number, key_col, f"'{key}:' given twice (first on line {self.header[key][1]})"
                )
            value, value_col = self.header_value(key, raw, match.end(), number)
            self.header[key] = (value, number, value_col)
            self.pos += 1
        missing = [key for key in ("board", "size") if key not in self.header]
        if missing:
            if self.pos < len(self.lines):
                line, column = self.pos + 1, 1
            else:
                line, column = self.end_location()
            example = "board: my-board" if missing[0] == "board" else "size: 12x12"
            raise self.error(
                line,
                column,
                f"missing '{missing[0]}:' header line before the grid (e.g. '{example}')",
            )

    def header_value(self, key: str, raw: str, start: int, number: int) -> tuple[str, int]:
        rest = raw[start:]
        body = rest.lstrip()
        column = start + (len(rest) - len(body)) + 1
        if key == "title" and body.startswith('"'):
            try:
                value, end = json.JSONDecoder().raw_decode(body)
            except json.JSONDecodeError as exc:
                reason = exc.msg.removesuffix(" at").removesuffix(" starting")
                raise self.error(
                    number,
                    column + exc.pos,
                    f"bad quoted title: {reason[:1].lower()}{reason[1:]}"
                    ' (write it as a JSON string, e.g. "Bay #2")',
                ) from None
            tail = body[end:]
            if tail.strip() and not tail.strip().startswith("#"):
                tail_col = column + end + (len(tail) - len(tail.lstrip()))
                raise self.error(number, tail_col, "unexpected text after the quoted title")
            return str(value), column
        value = body.split("#", 1)[0].rstrip()
        if not value:
            raise self.error(number, column, f"'{key}:' needs a value")
        if key == "board" and _SLUG_RE.fullmatch(value) is None:
            raise self.error(
                number,
                column,
                f"board id {value!r} must be a slug (letters, digits, '-', '_', '.'; no spaces)",
            )
        if key == "kind":
            if value.lower() not in KINDS:
                raise self.error(
                    number, column, f"unknown board kind {value!r} (expected factory or dock)"
                )
            value = value.lower()
        if key == "size":
            self.parse_size(value, number, column)
        return value, column

    def parse_size(self, value: str, line: int, column: int) -> tuple[int, int]:
        match = _SIZE_RE.fullmatch(value)
        if match is None:
            raise self.error(
                line, column, f"bad size {value!r} (expected WIDTHxHEIGHT, e.g. 12x12)"
            )
        width, height = int(match[1]), int(match[2])
        if width < 1 or height < 1:
            raise self.error(
                line, column, f"bad size {value!r}: width and height must be at least 1"
            )
        if width > MAX_BOARD_SIDE or height > MAX_BOARD_SIDE:
            message = f"bad size {value!r}: a board is at most {MAX_BOARD_SIDE} spaces a side"
            raise self.error(line, column, message)
        return width, height

    # -- grid ---------------------------------------------------------------------------------

    def parse_grid(
        self, width: int, height: int
    ) -> tuple[dict[Pos, set[Direction]], dict[Pos, _CodeAt]]:
        grid: list[tuple[int, str]] = []
        while self.pos < len(self.lines):
            raw = self.lines[self.pos]
            if _LEGEND_RE.fullmatch(raw):
                break
            if not self.skippable(raw):
                tab = raw.find("\t")
                if tab >= 0:
                    raise self.error(
                        self.pos + 1, tab + 1, "tab character in the grid (use spaces to align)"
                    )
                grid.append((self.pos + 1, raw.rstrip()))
            self.pos += 1
        if grid and _NUMBER_LINE_RE.fullmatch(grid[0][1]):
            grid.pop(0)  # the optional column-number line
        size = f"{width}x{height}"
        if not grid:
            line, column = (self.pos + 1, 1) if self.pos < len(self.lines) else self.end_location()
            raise self.error(line, column, f"missing grid (size {size} needs {height} rows)")

        first_line, first = grid[0]
        margin = first.find("+")
        if margin < 0 or first[:margin].strip():
            column = len(first) - len(first.lstrip()) + 1
            raise self.error(
                first_line,
                column,
                "the grid must start with a wall line: spaces, then '+' corners with '---' or"
                " three spaces between them",
            )
        shape = _Shape(width, height, margin)
        walls: dict[Pos, set[Direction]] = {
            Pos(x, y): set() for y in range(height) for x in range(width)
        }
        codes: dict[Pos, _CodeAt] = {}
        expected = 2 * height + 1
        for index in range(expected):
            y = index // 2
            is_wall_line = index % 2 == 0
            if index >= len(grid):
                if self.pos < len(self.lines):
                    line, column = self.pos + 1, 1
                else:
                    line, column = self.end_location()
                what = f"the wall line below row {y - 1}" if is_wall_line else f"row {y}"
                raise self.error(
                    line, column, f"the grid ends before {what} (size {size} has {height} rows)"
                )
            number, text = grid[index]
            label = text[:margin].strip()
            if is_wall_line:
                if label.isdigit():
                    where = "above row 0" if y == 0 else f"below row {y - 1}"
                    raise self.error(
                        number,
                        1,
                        f"expected the wall line {where}, found a row line"
                        " (is a wall line missing?)",
                    )
                self.parse_wall_line(number, text, shape, y, walls)
            else:
                if not label and text[margin : margin + 1] == "+":
                    raise self.error(
                        number, 1, f"expected row {y}, found a wall line (is a row missing?)"
                    )
                self.parse_row_line(number, text, shape, y, walls, codes)
        if len(grid) > expected:
            number, text = grid[expected]
            if text[:margin].strip().isdigit():
                message = f"more rows than size {size} allows"
            else:
                message = "unexpected text after the grid (the legend starts with 'legend:')"
            raise self.error(number, len(text) - len(text.lstrip()) + 1, message)
        return walls, codes

    def parse_wall_line(
        self,
        number: int,
        text: str,
        shape: _Shape,
        boundary: int,
        walls: dict[Pos, set[Direction]],
    ) -> None:
        """Read the wall line above row ``boundary`` (below the last row when it equals height)."""
        margin = shape.margin
        lead = text[:margin]
        if lead.strip():
            column = len(lead) - len(lead.lstrip()) + 1
            raise self.error(
                number,
                column,
                f"misaligned wall line: only spaces may come before the first '+'"
                f" (column {margin + 1}, as in the first wall line)",
            )
        if len(text) > shape.full:
            raise self.error(
                number,
                shape.full + 1,
                f"wall line is wider than the {shape.width} columns of size {shape.size}",
            )
        length = len(text)
        text = text.ljust(shape.full)
        for x in range(shape.width + 1):
            char = text[margin + 4 * x]
            if margin + 4 * x >= length:
                raise self.error(
                    number,
                    length + 1,
                    f"wall line ends before the corner at column {margin + 4 * x + 1}"
                    f" (size {shape.size} has {shape.width} columns)",
                )
            if char != "+":
                raise self.error(
                    number,
                    margin + 4 * x + 1,
                    f"misaligned wall line: expected '+' at a corner, found {char!r}"
                    " (cells are 3 characters wide)",
                )
        for x in range(shape.width):
            start = margin + 4 * x + 1
            segment = text[start : start + 3]
            if segment == "---":
                if boundary > 0:
                    walls[Pos(x, boundary - 1)].add(Direction.SOUTH)
                if boundary < shape.height:
                    walls[Pos(x, boundary)].add(Direction.NORTH)
            elif segment != "   ":
                expected_char = "-" if "-" in segment else " "
                bad = next(i for i, char in enumerate(segment) if char != expected_char)
                raise self.error(
                    number,
                    start + bad + 1,
                    f"misaligned wall {segment!r} over column {x}: use '---' for a wall or three"
                    " spaces for none",
                )

    def parse_row_line(
        self,
        number: int,
        text: str,
        shape: _Shape,
        y: int,
        walls: dict[Pos, set[Direction]],
        codes: dict[Pos, _CodeAt],
    ) -> None:
        margin = shape.margin
        label = text[:margin].strip()
        if label != str(y):
            if not label:
                raise self.error(number, 1, f"row {y} must start with its row number")
            column = text.find(label) + 1
            if not label.isdigit():
                raise self.error(
                    number, column, f"expected row number {y} in the margin, found {label!r}"
                )
            raise self.error(number, column, f"expected row number {y}, found {label}")
        if text[margin : margin + 1].isdigit():
            raise self.error(
                number,
                margin + 1,
                f"row number {y} does not fit the {margin}-character margin set by the first"
                " wall line",
            )
        if len(text) > shape.full:
            raise self.error(
                number,
                shape.full + 1,
                f"row {y} is wider than the {shape.width} columns of size {shape.size}",
            )
        text = text.ljust(shape.full)
        for x in range(shape.width + 1):
            column = margin + 4 * x
            char = text[column]
            if char == "|":
                if x > 0:
                    walls[Pos(x - 1, y)].add(Direction.EAST)
                if x < shape.width:
                    walls[Pos(x, y)].add(Direction.WEST)
            elif char != " ":
                raise self.error(
                    number,
                    column + 1,
                    f"expected '|' or a space between cells, found {char!r}"
                    " (each cell is 3 characters wide)",
                )
        for x in range(shape.width):
            start = margin + 4 * x + 1
            segment = text[start : start + 3]
            code = segment.strip()
            if not code:
                raise self.error(
                    number,
                    start + 1,
                    f"missing cell code for column {x} of row {y} (use '.' for plain floor)",
                )
            code_col = start + (len(segment) - len(segment.lstrip())) + 1
            if " " in code:
                raise self.error(
                    number,
                    code_col + code.index(" "),
                    f"cell code {code!r} contains a space (a cell is 3 characters wide)",
                )
            codes[Pos(x, y)] = _CodeAt(code, number, code_col)

    # -- legend -------------------------------------------------------------------------------

    def parse_legend(self) -> dict[str, _Definition]:
        legend: dict[str, _Definition] = {}
        if self.pos >= len(self.lines):
            return legend
        self.pos += 1  # the 'legend:' line
        while self.pos < len(self.lines):
            raw = self.lines[self.pos]
            number = self.pos + 1
            self.pos += 1
            text = raw.split("#", 1)[0]
            if not text.strip():
                continue
            first_col = len(text) - len(text.lstrip()) + 1
            if _LEGEND_RE.fullmatch(raw):
                raise self.error(number, first_col, "second 'legend:' line")
            equals = text.find("=")
            if equals < 0:
                raise self.error(
                    number,
                    first_col,
                    "expected a legend line 'SYMBOL = element; element ...'",
                )
            symbol = text[:equals].strip()
            if not symbol:
                raise self.error(number, equals + 1, "missing legend symbol before '='")
            inner_space = re.search(r"\s", symbol)
            if inner_space:
                raise self.error(
                    number,
                    first_col + inner_space.start(),
                    f"legend symbol {symbol!r} must not contain spaces",
                )
            problem = _symbol_problem(symbol)
            if problem is not None:
                raise self.error(number, first_col, problem)
            if symbol in legend:
                raise self.error(
                    number,
                    first_col,
                    f"legend symbol {symbol!r} redefined (first defined on line"
                    f" {legend[symbol].line})",
                )
            cell = self.parse_elements(text, equals + 1, number, symbol, first_col)
            legend[symbol] = _Definition(symbol, number, first_col, cell)
        return legend

    def parse_elements(
        self, text: str, start: int, number: int, symbol: str, symbol_col: int
    ) -> Cell:
        pieces: list[tuple[int, str]] = []
        offset = start
        for piece in text[start:].split(";"):
            pieces.append((offset, piece))
            offset += len(piece) + 1
        if len(pieces) > 1 and not pieces[-1][1].strip():
            pieces.pop()  # a trailing ';'
        parts = _Parts()
        for piece_start, piece in pieces:
            tokens = [(m[0], piece_start + m.start() + 1) for m in re.finditer(r"\S+", piece)]
            if not tokens:
                raise self.error(
                    number, piece_start + 1, f"empty element in legend symbol {symbol!r}"
                )
            end_col = tokens[-1][1] + len(tokens[-1][0])
            keyword = tokens[0][0].lower()
            if keyword not in _ELEMENT_NAMES:
                raise self.error(
                    number,
                    tokens[0][1],
                    f"unknown element {tokens[0][0]!r} (expected floor, pit, battery, gear, belt,"
                    " pusher, laser, repair, crusher, start, checkpoint or reboot)",
                )
            if keyword in parts.seen and keyword != "laser":
                raise self.error(
                    number,
                    symbol_col,
                    f"legend symbol {symbol!r} has {_ELEMENT_NAMES[keyword]} twice",
                )
            if "floor" in parts.seen or (keyword == "floor" and parts.seen):
                raise self.error(
                    number,
                    symbol_col,
                    f"legend symbol {symbol!r}: 'floor' means an empty space and cannot be"
                    " combined with other elements",
                )
            parts.seen.add(keyword)
            self.parse_element(keyword, tokens[1:], end_col, number, parts)
        cell = parts.cell()
        problem = _content_problem(cell)
        if problem is not None:
            raise self.error(number, symbol_col, f"legend symbol {symbol!r}: {problem}")
        return cell

    def parse_element(
        self, keyword: str, args: list[_Token], end_col: int, number: int, parts: _Parts
    ) -> None:
        def need(count: int, what: str) -> None:
            if len(args) < count:
                raise self.error(number, end_col, f"'{keyword}' needs {what}")

        def at_most(count: int) -> None:
            if len(args) > count:
                token, column = args[count]
                raise self.error(number, column, f"unexpected {token!r} after '{keyword}' element")

        def direction(token: _Token) -> Direction:
            try:
                return Direction.parse(token[0])
            except ValueError:
                raise self.error(
                    number, token[1], f"{token[0]!r} is not a direction (use N, E, S or W)"
                ) from None

        def integer(token: _Token, low: int, high: int | None, what: str) -> int:
            text, column = token
            value = int(text) if _INT_RE.fullmatch(text) else None
            if value is None or value < low or (high is not None and value > high):
                span = f"{low} to {high}" if high is not None else f"{low} or more"
                raise self.error(number, column, f"bad {what} {text!r} (expected {span})")
            return value

        def registers(tokens: list[_Token]) -> frozenset[int]:
            if not tokens:
                raise self.error(
                    number, end_col, f"'{keyword}' needs one or more registers (1 to 5)"
                )
            found: set[int] = set()
            for token in tokens:
                register = integer(token, 1, 5, "register")
                if register in found:
                    raise self.error(number, token[1], f"register {register} listed twice")
                found.add(register)
            return frozenset(found)

        if keyword in ("floor", "pit", "battery"):
            at_most(0)
            parts.pit = parts.pit or keyword == "pit"
            parts.battery = parts.battery or keyword == "battery"
        elif keyword == "gear":
            need(1, "a rotation: cw or ccw")
            at_most(1)
            spin = args[0][0].lower()
            if spin not in ("cw", "ccw"):
                raise self.error(
                    number, args[0][1], f"bad gear rotation {args[0][0]!r} (expected cw or ccw)"
                )
            parts.gear = Turn.RIGHT if spin == "cw" else Turn.LEFT
        elif keyword == "belt":
            need(1, "a colour: green or blue")
            color_text = args[0][0].lower()
            if color_text not in ("green", "blue"):
                raise self.error(
                    number, args[0][1], f"bad belt colour {args[0][0]!r} (expected green or blue)"
                )
            need(2, "a direction (N, E, S or W) after the colour")
            out = direction(args[1])
            sides: set[Direction] = set()
            if len(args) > 2:
                if args[2][0].lower() != "curve":
                    raise self.error(
                        number, args[2][1], f"unexpected {args[2][0]!r} in belt (expected 'curve')"
                    )
                need(4, "one or more curve sides after 'curve'")
                for token in args[3:]:
                    side = direction(token)
                    if side in sides:
                        raise self.error(number, token[1], f"curve side {token[0]!r} given twice")
                    if side in (out, out.opposite):
                        raise self.error(
                            number,
                            token[1],
                            f"curved entry {side.letter} is not perpendicular to a belt going"
                            f" {out.letter}",
                        )
                    sides.add(side)
            parts.belt = Belt(BeltColor(color_text), out, frozenset(sides))
        elif keyword == "pusher":
            need(1, "the direction it pushes (N, E, S or W)")
            push = direction(args[0])
            parts.pusher = Pusher(push, registers(args[1:]))
        elif keyword == "laser":
            need(1, "the direction it fires (N, E, S or W)")
            at_most(2)
            fire = direction(args[0])
            beams = integer(args[1], 1, 3, "beam count") if len(args) > 1 else 1
            parts.lasers.append(Laser(fire, beams))
        elif keyword == "repair":
            need(1, "a wrench count: 1 or 2")
            at_most(1)
            parts.repair = integer(args[0], 1, 2, "wrench count")
        elif keyword == "crusher":
            parts.crusher = registers(args)
        elif keyword == "start":
            need(1, "a start number")
            at_most(2)
            parts.start = integer(args[0], 1, None, "start number")
            parts.start_facing = direction(args[1]) if len(args) > 1 else None
        elif keyword == "checkpoint":
            need(1, "a checkpoint number")
            at_most(1)
            parts.checkpoint = integer(args[0], 1, None, "checkpoint number")
        else:  # reboot
            need(1, "the direction of its arrow (N, E, S or W)")
            at_most(1)
            parts.reboot = direction(args[0])

    # -- putting cells together ---------------------------------------------------------------

    def resolve(
        self,
        width: int,
        height: int,
        walls: dict[Pos, set[Direction]],
        codes: dict[Pos, _CodeAt],
        legend: dict[str, _Definition],
    ) -> dict[Pos, Cell]:
        cells: dict[Pos, Cell] = {}
        starts: dict[int, _CodeAt] = {}
        checkpoints: dict[int, _CodeAt] = {}
        reboot: _CodeAt | None = None
        for y in range(height):
            for x in range(width):
                pos = Pos(x, y)
                at = codes[pos]
                definition = legend.get(at.code)
                if definition is not None:
                    definition.used = True
                    content: Cell | None = definition.cell
                else:
                    try:
                        content = _builtin_cell(at.code)
                    except _Problem as problem:
                        raise self.error(
                            at.line, at.column + problem.offset, problem.message
                        ) from None
                if content is None:
                    raise self.error(
                        at.line,
                        at.column,
                        f"unknown cell code {at.code!r} (not built in and not in the legend)",
                    )
                cell = replace(content, walls=frozenset(walls[pos]))
                problem_text = _mount_problem(cell)
                if problem_text is not None:
                    raise self.error(
                        at.line, at.column, f"cell {pos} ({at.code!r}): {problem_text}"
                    )
                if cell.start is not None:
                    if cell.start in starts:
                        first = starts[cell.start]
                        raise self.error(
                            at.line,
                            at.column,
                            f"duplicate start number {cell.start} (also at line {first.line}"
                            f" column {first.column})",
                        )
                    starts[cell.start] = at
                if cell.checkpoint is not None:
                    if cell.checkpoint in checkpoints:
                        first = checkpoints[cell.checkpoint]
                        raise self.error(
                            at.line,
                            at.column,
                            f"duplicate checkpoint number {cell.checkpoint} (also at line"
                            f" {first.line} column {first.column})",
                        )
                    checkpoints[cell.checkpoint] = at
                if cell.reboot is not None:
                    if reboot is not None:
                        raise self.error(
                            at.line,
                            at.column,
                            f"a second reboot token (the first is at line {reboot.line} column"
                            f" {reboot.column}); a board has at most one",
                        )
                    reboot = at
                cells[pos] = cell
        return cells


def parse_board(text: str, filename: str = "<board>") -> Board:
    """Parse the text of a board file; raises :class:`BoardFormatError` on any problem."""
    return _Parser(text, filename).parse()


def load_board(path: str | os.PathLike[str]) -> Board:
    """Read and parse a board file (UTF-8)."""
    return parse_board(Path(path).read_text(encoding="utf-8"), str(path))


# ---------------------------------------------------------------------------------------------
# Writer


def _code_for(content: Cell) -> str | None:
    """The built-in code for a cell's elements (walls aside), if one exists."""
    for code, cell in _SIMPLE_CODES.items():
        if content == cell:
            return code
    if content.belt is not None and content == Cell(belt=content.belt):
        belt = content.belt
        arrow = ARROWS[belt.out]
        code = arrow * (2 if belt.color is BeltColor.BLUE else 1)
        code += "".join(SIDE_LETTERS[side] for side in sorted(belt.curved))
        return code if len(code) <= 3 else None
    if content.repair in (1, 2) and content == Cell(repair=content.repair):
        return f"w{content.repair}"
    if (
        content.start is not None
        and 1 <= content.start <= 9
        and content == Cell(start=content.start, start_facing=content.start_facing)
    ):
        facing = ARROWS[content.start_facing] if content.start_facing is not None else ""
        return f"S{content.start}{facing}"
    if (
        content.checkpoint is not None
        and 1 <= content.checkpoint <= 9
        and content == Cell(checkpoint=content.checkpoint)
    ):
        return f"C{content.checkpoint}"
    if content.reboot is not None and content == Cell(reboot=content.reboot):
        return f"R{ARROWS[content.reboot]}"
    return None


def _elements_for(content: Cell) -> str:
    """The legend elements describing a cell's elements (walls aside)."""
    elements: list[str] = []
    if content.pit:
        elements.append("pit")
    if content.belt is not None:
        belt = content.belt
        text = f"belt {belt.color.value} {belt.out.letter}"
        if belt.curved:
            text += " curve " + " ".join(side.letter for side in sorted(belt.curved))
        elements.append(text)
    if content.gear is not None:
        elements.append("gear cw" if content.gear is Turn.RIGHT else "gear ccw")
    if content.pusher is not None:
        registers = " ".join(str(r) for r in sorted(content.pusher.registers))
        elements.append(f"pusher {content.pusher.direction.letter} {registers}")
    for laser in content.lasers:
        elements.append(f"laser {laser.direction.letter} {laser.beams}")
    if content.battery:
        elements.append("battery")
    if content.repair:
        elements.append(f"repair {content.repair}")
    if content.crusher is not None:
        elements.append("crusher " + " ".join(str(r) for r in sorted(content.crusher)))
    if content.start is not None:
        facing = f" {content.start_facing.letter}" if content.start_facing is not None else ""
        elements.append(f"start {content.start}{facing}")
    if content.checkpoint is not None:
        elements.append(f"checkpoint {content.checkpoint}")
    if content.reboot is not None:
        elements.append(f"reboot {content.reboot.letter}")
    return "; ".join(elements) if elements else "floor"


def _title_text(title: str) -> str:
    """The title as written after ``title:``, quoted as a JSON string when needed."""
    plain = (
        title
        and title == title.strip()
        and "#" not in title
        and not title.startswith('"')
        and title.isprintable()
    )
    if plain:
        return title
    out = ['"']
    for char in title:
        if char in '"\\':
            out.append("\\" + char)
        elif char.isprintable():
            out.append(char)
        else:
            code = ord(char)
            if code > 0xFFFF:
                code -= 0x10000
                out.append(f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}")
            else:
                out.append(f"\\u{code:04x}")
    out.append('"')
    return "".join(out)


def write_board(board: Board) -> str:
    """The canonical text of ``board``; ``parse_board`` reads it back to an equal board.

    Raises :class:`ValueError` for a board the format cannot express (an id that is not a slug,
    contradictory elements, a pusher or laser without its wall, a start number used twice ...).
    """
    if _SLUG_RE.fullmatch(board.name) is None:
        raise ValueError(f"board id {board.name!r} is not a slug")
    if board.kind not in KINDS:
        raise ValueError(f"board {board.name!r}: unknown kind {board.kind!r}")
    width, height = board.width, board.height
    if width < 1 or height < 1 or len(board.cells) != width * height:
        raise ValueError(f"board {board.name!r}: bad size {width}x{height}")

    symbol_source = _writer_symbols()
    symbols: dict[Cell, str] = {}
    codes: list[list[str]] = []
    whole = board_problems((pos, board.cell(pos)) for pos in board.positions())
    twice = {pos: problem.message for problem, pos, _ in reversed(list(whole))}
    for y in range(height):
        row: list[str] = []
        for x in range(width):
            cell = board.cell(Pos(x, y))
            problem = _content_problem(cell) or _mount_problem(cell)
            if problem is not None:
                raise ValueError(f"board {board.name!r}, cell {x},{y}: {problem}")
            if Pos(x, y) in twice:
                raise ValueError(f"board {board.name!r}: {twice[Pos(x, y)]}")
            content = replace(cell, walls=frozenset())
            code = _code_for(content)
            if code is None:
                code = symbols.get(content)
                if code is None:
                    code = next(symbol_source, None)
                    if code is None:
                        raise ValueError(
                            f"board {board.name!r}: too many different cells for the legend"
                        )
                    symbols[content] = code
            row.append(code)
        codes.append(row)

    def wall(x: int, y: int, side: Direction) -> bool:
        """Whether the edge on ``side`` of cell (x, y) has a wall (from either cell)."""
        if 0 <= x < width and 0 <= y < height and side in board.cell(Pos(x, y)).walls:
            return True
        nx, ny = x + side.dx, y + side.dy
        return (
            0 <= nx < width and 0 <= ny < height and side.opposite in board.cell(Pos(nx, ny)).walls
        )

    label_width = len(str(height - 1))
    margin = " " * (label_width + 1)
    lines = [f"board: {board.name}"]
    if board.title and board.title != board.name:
        lines.append(f"title: {_title_text(board.title)}")
    if board.kind != "factory":
        lines.append(f"kind: {board.kind}")
    lines.append(f"size: {width}x{height}")
    lines.append("")
    numbers = [" "] * (4 * width + 1)
    for x in range(width):
        label = str(x)
        end = 4 * x + 3
        numbers[max(0, end - len(label)) : end] = list(label)
    lines.append((margin + "".join(numbers)).rstrip())
    for y in range(height + 1):
        segments = [
            "---" if wall(x, y, Direction.NORTH) or wall(x, y - 1, Direction.SOUTH) else "   "
            for x in range(width)
        ]
        lines.append(margin + "+" + "+".join(segments) + "+")
        if y == height:
            break
        parts = [f"{y:>{label_width}} "]
        for x in range(width):
            parts.append("|" if wall(x, y, Direction.WEST) else " ")
            code = codes[y][x]
            parts.append(f" {code} " if len(code) == 1 else f"{code:>3}")
        parts.append("|" if wall(width - 1, y, Direction.EAST) else " ")
        lines.append("".join(parts).rstrip())
    if symbols:
        lines.append("")
        lines.append("legend:")
        for content, symbol in sorted(symbols.items(), key=lambda item: item[1]):
            lines.append(f"  {symbol} = {_elements_for(content)}")
    return "\n".join(lines) + "\n"
