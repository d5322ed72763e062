"""The course builder's working form: boards and courses as JSON models, to and from files.

A **board model** is the JSON the builder page paints::

    {"name": "my-board", "title": "My Board", "kind": "factory", "width": 12, "height": 12,
     "comment": "lines of the file's leading comment", "cells": [{"x": 0, "y": 0, ...}]}

where a cell lists only what it has, with the names of :func:`roborally.content.boardjson.
grid_to_json`: ``walls`` (the sides of this cell; a wall counts for the neighbour too),
``pit``, ``belt`` (``color``, ``out``, ``curved``), ``gear`` (``left``/``right``), ``pusher``
(``direction``, ``registers``), ``lasers`` (``direction``, ``beams``), ``battery``,
``repair``, ``crusher`` (registers), ``start``, ``start_facing``, ``checkpoint``, ``reboot``.

A **course model** holds the facts of a ``.course`` file and its boards, each one a shipped
board by ``name`` or a drawn ``board`` model, with an ``offset`` and a ``rotation``.

:func:`read_board_model` and :func:`read_course_model` turn a model into a :class:`Draft`: the
board or course, the canonical file text (``None`` while the model has errors) and the
:class:`~roborally.content.validate.Finding` s about it, each with the spaces it concerns. A
problem in what a space holds (a pusher without its wall, a belt on a gear, a start number
twice, a direction that is none) is a finding, never an exception; only a model of the wrong
shape (a list where an object belongs, a cell without whole-number coordinates) raises
:class:`ModelError`, naming the field.

:func:`board_to_model` and :func:`course_to_model` go the other way; :func:`read_text` reads a
board or course file into its model. A shipped board's text written back from its model is the
same file, byte for byte (its leading comment included).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from typing import Any

from roborally.content.boardjson import cell_elements
from roborally.content.boardtext import (
    KINDS,
    MAX_BOARD_SIDE,
    BoardFormatError,
    board_problems,
    content_problem,
    mount_problem,
    parse_board,
    write_board,
)
from roborally.content.courses import (
    MAX_COURSE_SIDE,
    CourseFormatError,
    CourseInfo,
    board_named,
    drawing_comments,
    parse_course,
    variants_for,
    write_course,
)
from roborally.content.validate import Finding, check_course
from roborally.engine.core.board import (
    Belt,
    BeltColor,
    Board,
    BoardError,
    Cell,
    Course,
    Grid,
    Laser,
    PlacedBoard,
    Pusher,
    RebootToken,
)
from roborally.engine.core.geometry import DIRECTIONS, Direction, Pos, Turn, rotate_pos

__all__ = [
    "MAX_CHECK_STATES",
    "BoardFormatError",
    "CourseFormatError",
    "Draft",
    "ModelError",
    "board_to_model",
    "course_to_model",
    "read_board_model",
    "read_course_model",
    "read_text",
    "shown",
    "split_comment",
]

#: The most boards a course model may place (the largest shipped course has 5).
MAX_BOARDS = 12
#: The longest title, comment, tier ... a model may give, in characters.
MAX_TEXT = 200
MAX_COMMENT = 4000
_BOARD_SLUG = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]*")
_COURSE_SLUG = re.compile(r"[a-z0-9][a-z0-9_-]*")
_CELL_KEYS = {
    "x",
    "y",
    "walls",
    "pit",
    "belt",
    "gear",
    "pusher",
    "lasers",
    "battery",
    "repair",
    "crusher",
    "start",
    "start_facing",
    "checkpoint",
    "reboot",
    "board",  # grid_to_json's own fields, harmless
    "inactive",
}
EDITIONS = ("2023", "classic", "any")
#: What can be wrong with a cell's field, by the name its finding gives (``check.problem.*``
#: in the translations).
PROBLEMS = {
    "whole_number": "must be a whole number",
    "registers": "must be a list of registers (1 to 5)",
    "register_twice": "lists a register twice",
    "unknown_field": "is not a cell field",
    "sides": "must be a list of sides (N, E, S, W)",
    "true_false": "must be true or false",
    "belt_object": "must be an object with color, out and curved",
    "belt_color": "must be green or blue",
    "gear_turn": "must be left or right",
    "pusher_object": "must be an object with direction and registers",
    "lasers_list": "must be a list of at most 4 lasers",
    "laser_object": "each laser must be an object with direction and beams",
}


class ModelError(ValueError):
    """A model of the wrong shape; ``field`` names where (``board.cells[3].x``)."""

    def __init__(self, field: str, message: str) -> None:
        self.field = field
        self.message = message
        super().__init__(f"{field}: {message}")


@dataclass
class Draft:
    """What a model makes: the board or course (``None`` if it cannot be built at all), its
    canonical file text (``None`` while there are errors), the file name, and the findings."""

    kind: str  # "board" or "course"
    name: str
    board: Board | None = None
    course: CourseInfo | None = None
    text: str | None = None
    findings: list[Finding] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not any(f.severity == "error" for f in self.findings)

    @property
    def filename(self) -> str:
        return f"{self.name}.{self.kind}"


# ---------------------------------------------------------------------------------------------
# Small readers


def _int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def shown(value: Any) -> str:
    """A value of a request as a message may quote it: a string cut to 20 characters, else its
    JSON type (never the ``str()`` of a nested list, which can be huge or deep)."""
    if isinstance(value, str):
        return value[:20]
    if isinstance(value, bool) or value is None:
        return json.dumps(value)
    if isinstance(value, (int, float)):
        return str(value)[:20]
    return "a list" if isinstance(value, list) else "an object"


def _whole(value: Any, where: str) -> int:
    """A whole number of at most 9 digits (a coordinate or a size)."""
    if not _int(value) or not -(10**9) < value < 10**9:
        raise ModelError(where, "whole_number")
    return int(value)


def _text(value: Any, where: str, limit: int = MAX_TEXT, allowed: str = "") -> str:
    if not isinstance(value, str):
        raise ModelError(where, "must be a string")
    if len(value) > limit:
        raise ModelError(where, f"is longer than {limit} characters")
    return _printable(value, where, allowed)


def _printable(value: str, where: str, allowed: str = "") -> str:
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise ModelError(where, "is not valid text (a lone surrogate)") from None
    for char in value:
        if char not in allowed and not char.isprintable():
            raise ModelError(where, f"holds the control character {char!r}")
    return value


def _comment(value: Any, where: str) -> str:
    if not isinstance(value, str):
        raise ModelError(where, "must be a string")
    if len(value) > MAX_COMMENT:
        raise ModelError(where, f"is longer than {MAX_COMMENT} characters")
    return _printable(value, where, "\n")


def _object(value: Any, where: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise ModelError(where, "must be an object")
    return value


def _list(value: Any, where: str, limit: int) -> list[Any]:
    if not isinstance(value, list):
        raise ModelError(where, "must be a list")
    if len(value) > limit:
        raise ModelError(where, f"has more than {limit} entries")
    return value


def split_comment(text: str) -> tuple[str, str]:
    """A file's leading ``#`` comment lines (without ``#`` and one space, joined by newlines)
    and the rest of the text."""
    lines = text.split("\n")
    count = 0
    while count < len(lines) - 1 and lines[count].startswith("#"):
        count += 1
    comment = "\n".join(line[2:] if line.startswith("# ") else line[1:] for line in lines[:count])
    return comment, "\n".join(lines[count:])


def comment_lines(comment: str) -> str:
    """The comment as leading ``#`` lines (empty for no comment)."""
    if not comment:
        return ""
    return "".join(f"# {line}\n" if line else "#\n" for line in comment.split("\n"))


# ---------------------------------------------------------------------------------------------
# Boards


def board_to_model(board: Board, comment: str = "") -> dict[str, Any]:
    """The model of ``board`` (walls on the cells that have them: both sides of an edge)."""
    cells: list[dict[str, Any]] = []
    for pos in board.positions():
        entry = _cell_json(board.cell(pos))
        if entry:
            cells.append({"x": pos.x, "y": pos.y, **entry})
    return {
        "name": board.name,
        "title": board.title,
        "kind": board.kind,
        "width": board.width,
        "height": board.height,
        "comment": comment,
        "cells": cells,
    }


def _cell_json(cell: Cell) -> dict[str, Any]:
    entry: dict[str, Any] = {}
    if cell.walls:
        entry["walls"] = [d.letter for d in DIRECTIONS if d in cell.walls]
    return entry | cell_elements(cell)


class _Cells:
    """Reads the cells of a board model; each problem becomes a finding at its space."""

    def __init__(self, where: str, findings: list[Finding]) -> None:
        self.where = where
        self.findings = findings
        self.pos = Pos(0, 0)

    def bad(self, key: str, problem: str) -> None:
        """A field's value is wrong: ``problem`` names how (:data:`PROBLEMS`)."""
        self.findings.append(
            Finding(
                "error",
                "check.bad_value",
                f"space {self.pos}: {key}: {PROBLEMS[problem]}",
                {"pos": str(self.pos), "field": key, "problem": problem},
                (self.pos,),
            )
        )

    def direction(self, value: Any, key: str) -> Direction | None:
        if isinstance(value, str) and value.upper() in ("N", "E", "S", "W"):
            return Direction("NESW".index(value.upper()))
        self.findings.append(
            Finding(
                "error",
                "check.bad_direction",
                f"space {self.pos}: {key}: {shown(value)!r} is not a direction (N, E, S or W)",
                {"pos": str(self.pos), "field": key, "value": shown(value)},
                (self.pos,),
            )
        )
        return None

    def number(self, value: Any, key: str) -> int | None:
        if _int(value) and -(10**6) < value < 10**6:
            return int(value)
        self.bad(key, "whole_number")
        return None

    def registers(self, value: Any, key: str) -> frozenset[int] | None:
        if not isinstance(value, list) or len(value) > 5 or not all(_int(r) for r in value):
            self.bad(key, "registers")
            return None
        if len(set(value)) != len(value):
            self.bad(key, "register_twice")
            return None
        return frozenset(int(r) for r in value)

    def cell(self, raw: dict[str, Any]) -> Cell:
        """The cell (walls included) of one cell entry; bad parts are left out."""
        cell = Cell()
        for key, value in raw.items():
            if key not in _CELL_KEYS:
                self.bad(key[:30], "unknown_field")
                continue
            if key in ("x", "y", "board", "inactive"):
                continue
            cell = self.field(cell, key, value)
        return cell

    def field(self, cell: Cell, key: str, value: Any) -> Cell:
        if key == "walls":
            if not isinstance(value, list) or len(value) > 4:
                self.bad(key, "sides")
                return cell
            sides = {self.direction(side, key) for side in value}
            return replace(cell, walls=frozenset(d for d in sides if d is not None))
        if key in ("pit", "battery"):
            if not isinstance(value, bool):
                self.bad(key, "true_false")
                return cell
            return replace(cell, pit=value) if key == "pit" else replace(cell, battery=value)
        if key == "belt":
            if not isinstance(value, dict):
                self.bad(key, "belt_object")
                return cell
            color = value.get("color", "green")
            if color not in ("green", "blue"):
                self.bad("belt.color", "belt_color")
                return cell
            out = self.direction(value.get("out"), "belt.out")
            curved_raw = value.get("curved", [])
            if not isinstance(curved_raw, list) or len(curved_raw) > 4:
                self.bad("belt.curved", "sides")
                return cell
            curved = [self.direction(side, "belt.curved") for side in curved_raw]
            if out is None or None in curved:
                return cell
            return replace(
                cell,
                belt=Belt(BeltColor(color), out, frozenset(d for d in curved if d is not None)),
            )
        if key == "gear":
            if value not in ("left", "right"):
                self.bad(key, "gear_turn")
                return cell
            return replace(cell, gear=Turn.LEFT if value == "left" else Turn.RIGHT)
        if key == "pusher":
            if not isinstance(value, dict):
                self.bad(key, "pusher_object")
                return cell
            push = self.direction(value.get("direction"), "pusher.direction")
            registers = self.registers(value.get("registers"), "pusher.registers")
            if push is None or registers is None:
                return cell
            return replace(cell, pusher=Pusher(push, registers))
        if key == "lasers":
            if not isinstance(value, list) or len(value) > 4:
                self.bad(key, "lasers_list")
                return cell
            lasers: list[Laser] = []
            for laser in value:
                if not isinstance(laser, dict):
                    self.bad(key, "laser_object")
                    continue
                fire = self.direction(laser.get("direction"), "lasers.direction")
                beams = self.number(laser.get("beams", 1), "lasers.beams")
                if fire is not None and beams is not None:
                    lasers.append(Laser(fire, beams))
            return replace(cell, lasers=tuple(lasers))
        if key == "crusher":
            registers = self.registers(value, key)
            return cell if registers is None else replace(cell, crusher=registers)
        if key in ("repair", "start", "checkpoint"):
            number = self.number(value, key)
            if number is None:
                return cell
            if key == "repair":
                return replace(cell, repair=number)
            return (
                replace(cell, start=number) if key == "start" else replace(cell, checkpoint=number)
            )
        if key in ("start_facing", "reboot"):
            facing = self.direction(value, key)
            if facing is None:
                return cell
            return (
                replace(cell, start_facing=facing)
                if key == "start_facing"
                else replace(cell, reboot=facing)
            )
        raise AssertionError(key)  # pragma: no cover - _CELL_KEYS lists the fields handled


def _finding(code: str, message: str, spaces: tuple[Pos, ...] = (), **params: str | int) -> Finding:
    return Finding("error", code, message, params, spaces)


def read_board_model(data: Any, where: str = "board", *, text: bool = True) -> Draft:
    """Check a board model: the board, its text (if it has no errors, and ``text``) and the
    findings."""
    model = _object(data, where)
    findings: list[Finding] = []
    name = _text(model.get("name", ""), f"{where}.name", 64)
    title = _text(model.get("title", ""), f"{where}.title")
    kind = _text(model.get("kind", "factory"), f"{where}.kind", 20)
    comment = _comment(model.get("comment", ""), f"{where}.comment")
    width = _whole(model.get("width"), f"{where}.width")
    height = _whole(model.get("height"), f"{where}.height")
    raw_cells = _list(model.get("cells", []), f"{where}.cells", MAX_BOARD_SIDE * MAX_BOARD_SIDE)
    draft = Draft("board", name if _BOARD_SLUG.fullmatch(name) else "board")
    draft.findings = findings
    if not _BOARD_SLUG.fullmatch(name):
        findings.append(
            _finding(
                "check.board_name",
                f"board name {name[:40]!r} must be a slug (letters, digits, '-', '_', '.')",
                name=name[:40],
            )
        )
    if kind not in KINDS:
        findings.append(
            _finding("check.board_kind", f"unknown board kind {kind[:20]!r}", kind=kind[:20])
        )
        kind = "factory"
    if not (1 <= width <= MAX_BOARD_SIDE and 1 <= height <= MAX_BOARD_SIDE):
        findings.append(
            _finding(
                "check.board_size",
                f"a board is 1 to {MAX_BOARD_SIDE} spaces a side, not {width}x{height}",
                width=width,
                height=height,
                max=MAX_BOARD_SIDE,
            )
        )
        return draft
    reader = _Cells(where, findings)
    cells: dict[Pos, Cell] = {}
    for index, raw in enumerate(raw_cells):
        entry = _object(raw, f"{where}.cells[{index}]")
        x = _whole(entry.get("x"), f"{where}.cells[{index}].x")
        y = _whole(entry.get("y"), f"{where}.cells[{index}].y")
        if not (0 <= x < width and 0 <= y < height):
            findings.append(
                _finding(
                    "check.cell_outside",
                    f"cell {x},{y} lies outside the {width}x{height} board",
                    x=x,
                    y=y,
                    width=width,
                    height=height,
                )
            )
            continue
        pos = Pos(x, y)
        if pos in cells:
            findings.append(
                _finding("check.cell_twice", f"space {pos} is listed twice", (pos,), pos=str(pos))
            )
            continue
        reader.pos = pos
        cells[pos] = reader.cell(entry)
    board = Board.create(draft.name, width, height, cells, kind=kind, title=title)
    drawable = dict(enumerate(board.cells))
    for pos in board.positions():
        cell = board.cell(pos)
        problem = content_problem(cell) or mount_problem(cell)
        if problem is not None:
            findings.append(
                Finding(
                    "error",
                    problem.code,
                    f"space {pos}: {problem.message}",
                    {"pos": str(pos), **problem.params},
                    (pos,),
                )
            )
    for problem, pos, first in board_problems((p, board.cell(p)) for p in board.positions()):
        findings.append(
            Finding(
                "error",
                problem.code,
                f"space {pos}: {problem.message}",
                {"pos": str(pos), **problem.params},
                (pos, first),
            )
        )
        # the picture leaves the second one out (a course cannot hold both)
        index = pos.y * width + pos.x
        drawable[index] = _without_duplicate(drawable[index], problem.code)
    draft.board = replace(board, cells=tuple(drawable[i] for i in range(len(board.cells))))
    if draft.ok and not text:
        draft.board = board
    elif draft.ok:
        try:
            draft.text = comment_lines(comment) + write_board(board)
        except ValueError as error:  # more kinds of space than the legend has symbols for
            findings.append(_finding("check.board_problem", str(error), problem=str(error)))
        else:
            draft.board = board
    return draft


def _without_duplicate(cell: Cell, code: str) -> Cell:
    if code == "check.start_twice":
        return replace(cell, start=None, start_facing=None)
    if code == "check.checkpoint_twice":
        return replace(cell, checkpoint=None)
    return replace(cell, reboot=None)


# ---------------------------------------------------------------------------------------------
# Courses


def _is_shipped(board: Board) -> bool:
    try:
        return board_named(board.name) == board
    except KeyError:
        return False


def course_to_model(info: CourseInfo, comment: str = "", text: str = "") -> dict[str, Any]:
    """The model of a course: shipped boards by name, the others drawn (their leading comments
    taken from the drawings in ``text``, the course file, when given)."""
    drawings = drawing_comments(text) if text else {}
    boards: list[dict[str, Any]] = []
    for placed in info.course.boards:
        place = {"offset": [placed.offset.x, placed.offset.y], "rotation": placed.rotation}
        board = placed.board
        if _is_shipped(board):
            boards.append({"name": board.name, **place})
        else:
            boards.append({"board": board_to_model(board, drawings.get(board.name, "")), **place})
    course = info.course
    return {
        "id": info.id,
        "title": info.title,
        "edition": info.edition,
        "tier": info.tier,
        "length": info.length,
        "players": list(info.players),
        "comment": comment,
        "checkpoints": [[p.x, p.y] for p in course.checkpoints],
        "reboot": [
            {"at": [t.pos.x, t.pos.y], "arrow": t.arrow.letter} for t in course.reboot_tokens
        ],
        "blocked_starts": sorted(course.blocked_starts),
        "reboot_damage": course.reboot_damage,
        "inactive": [[p.x, p.y] for p in sorted(course.inactive, key=lambda p: (p.x, p.y))],
        "follows": info.follows,
        "variants": list(info.variants),
        "notes": info.notes,
        "special_rules": info.special_rules,
        "boards": boards,
    }


def _point(value: Any, where: str) -> Pos:
    if (
        not isinstance(value, list)
        or len(value) != 2
        or not all(_int(v) and 0 <= v < MAX_COURSE_SIDE for v in value)
    ):
        raise ModelError(where, f"must be [x, y] with 0 <= x, y < {MAX_COURSE_SIDE}")
    return Pos(value[0], value[1])


def _on_course(pos: Pos, placed: PlacedBoard) -> Pos:
    board = placed.board
    turned = rotate_pos(pos, placed.rotation, board.width, board.height)
    return Pos(turned.x + placed.offset.x, turned.y + placed.offset.y)


def read_course_model(data: Any, where: str = "course", *, check: bool = True) -> Draft:
    """Check a course model: the course, its one-file text (if it has no errors: shipped boards
    by name, drawn boards inside) and the findings, rule checks included (spaces in course
    coordinates). Without ``check``, only the model's own problems: no rule checks, no text."""
    model = _object(data, where)
    findings: list[Finding] = []
    course_id = _text(model.get("id", ""), f"{where}.id", 64)
    title = _text(model.get("title", ""), f"{where}.title")
    edition = _text(model.get("edition", "any"), f"{where}.edition", 20)
    tier = _text(model.get("tier", ""), f"{where}.tier", 40)
    length = _text(model.get("length", ""), f"{where}.length", 40)
    follows = _text(model.get("follows", ""), f"{where}.follows")
    notes = _text(model.get("notes", ""), f"{where}.notes", 4000, "\n")
    special_rules = _text(model.get("special_rules", ""), f"{where}.special_rules", 4000, "\n")
    comment = _comment(model.get("comment", ""), f"{where}.comment")
    draft = Draft("course", course_id if _COURSE_SLUG.fullmatch(course_id) else "course")
    draft.findings = findings
    if not _COURSE_SLUG.fullmatch(course_id):
        findings.append(
            _finding(
                "check.course_id",
                f"course id {course_id[:40]!r} must be a lowercase slug (a-z, 0-9, '-', '_')",
                id=course_id[:40],
            )
        )
    if not title.strip():
        findings.append(_finding("check.course_title", "the course needs a title"))
    if edition not in EDITIONS:
        findings.append(
            _finding(
                "check.course_edition",
                f"unknown edition {edition[:20]!r} (2023, classic or any)",
                edition=edition[:20],
            )
        )
        edition = "any"
    players = model.get("players", [2, 6])
    if (
        not isinstance(players, list)
        or len(players) != 2
        or not all(_int(p) for p in players)
        or not 1 <= players[0] <= players[1] <= 8
    ):
        findings.append(
            _finding("check.course_players", "players must be [fewest, most], from 1 to 8")
        )
        players = [2, 6]
    reboot_damage = model.get("reboot_damage", 2)
    if not _int(reboot_damage) or not 0 <= reboot_damage <= 9:
        findings.append(
            _finding("check.reboot_damage", "reboot damage must be a whole number from 0 to 9")
        )
        reboot_damage = 2
    variants = _list(model.get("variants", []), f"{where}.variants", 30)
    if not all(isinstance(v, str) for v in variants):
        raise ModelError(f"{where}.variants", "must be a list of names")
    known = variants_for(edition)
    for name in [v for v in variants if v not in known]:
        findings.append(
            _finding(
                "check.course_variant",
                f"{name[:40]!r} is not an alternative rule of edition {edition!r}",
                name=name[:40],
                edition=edition,
            )
        )
    variants = [v for v in variants if v in known]
    blocked_raw = _list(model.get("blocked_starts", []), f"{where}.blocked_starts", 20)
    if not all(_int(n) and 1 <= n <= 99 for n in blocked_raw):
        raise ModelError(f"{where}.blocked_starts", "must be a list of start numbers")
    checkpoints = tuple(
        _point(p, f"{where}.checkpoints[{i}]")
        for i, p in enumerate(_list(model.get("checkpoints", []), f"{where}.checkpoints", 20))
    )
    inactive = frozenset(
        _point(p, f"{where}.inactive[{i}]")
        for i, p in enumerate(_list(model.get("inactive", []), f"{where}.inactive", 400))
    )
    tokens: list[RebootToken] = []
    for i, raw in enumerate(_list(model.get("reboot", []), f"{where}.reboot", 20)):
        entry = _object(raw, f"{where}.reboot[{i}]")
        at = _point(entry.get("at"), f"{where}.reboot[{i}].at")
        arrow = entry.get("arrow", "N")
        if not (isinstance(arrow, str) and arrow.upper() in ("N", "E", "S", "W")):
            raise ModelError(f"{where}.reboot[{i}].arrow", "must be N, E, S or W")
        tokens.append(RebootToken(at, Direction("NESW".index(arrow.upper()))))
    placed: list[PlacedBoard] = []
    shipped: set[str] = set()
    comments: dict[int, str] = {}
    boards_ok = True
    raw_boards = _list(model.get("boards", []), f"{where}.boards", MAX_BOARDS)
    for i, raw in enumerate(raw_boards):
        entry_where = f"{where}.boards[{i}]"
        entry = _object(raw, entry_where)
        offset = _point(entry.get("offset", [0, 0]), f"{entry_where}.offset")
        rotation = entry.get("rotation", 0)
        if rotation not in (0, 1, 2, 3) or isinstance(rotation, bool):
            raise ModelError(f"{entry_where}.rotation", "must be 0, 1, 2 or 3 quarter turns")
        if "board" in entry:
            sub = read_board_model(entry["board"], f"{entry_where}.board", text=False)
            board = sub.board
            if board is None:
                boards_ok = False
                findings += sub.findings
                continue
            if not sub.ok:
                boards_ok = False
            comments[len(placed)] = _comment(
                entry["board"].get("comment", ""), f"{entry_where}.board.comment"
            )
            placement = PlacedBoard(board, offset, rotation)
            findings += [_placed_finding(f, placement, board.name) for f in sub.findings]
        else:
            name = entry.get("name")
            if not isinstance(name, str):
                raise ModelError(f"{entry_where}.name", "must name a shipped board (or give board)")
            try:
                board = board_named(name)
            except KeyError:
                findings.append(
                    _finding("check.unknown_board", f"unknown board {name[:40]!r}", name=name[:40])
                )
                boards_ok = False
                continue
            shipped.add(name)
            placement = PlacedBoard(board, offset, rotation)
        wide, tall = (board.height, board.width) if rotation % 2 else (board.width, board.height)
        if offset.x + wide > MAX_COURSE_SIDE or offset.y + tall > MAX_COURSE_SIDE:
            findings.append(
                _finding(
                    "check.course_size",
                    f"board {board.name!r} at {offset} reaches past the largest course"
                    f" ({MAX_COURSE_SIDE} x {MAX_COURSE_SIDE} spaces)",
                    board=board.name,
                    pos=str(offset),
                    max=MAX_COURSE_SIDE,
                )
            )
            boards_ok = False
            continue
        placed.append(placement)
    names = [pb.board.name for pb in placed]
    for name in sorted({n for n in names if names.count(n) > 1}):
        if name not in shipped:
            findings.append(
                _finding(
                    "check.board_name_twice",
                    f"two drawn boards are named {name!r}; give each its own name",
                    name=name,
                )
            )
            boards_ok = False
    if not raw_boards:
        findings.append(_finding("check.no_boards", "the course has no boards"))
        return draft
    if not placed:
        return draft
    course = Course(
        draft.name,
        tuple(placed),
        checkpoints=checkpoints,
        reboot_tokens=tuple(tokens),
        blocked_starts=frozenset(int(n) for n in blocked_raw),
        reboot_damage=int(reboot_damage),
        inactive=inactive,
        title=title,
    )
    info = CourseInfo(
        draft.name,
        title,
        edition,
        tier,
        length,
        (int(players[0]), int(players[1])),
        course,
        follows,
        draft.filename,
        variants=tuple(sorted(set(variants))),
        notes=notes,
        special_rules=special_rules,
    )
    try:
        grid = Grid(course)
    except BoardError as error:
        findings.append(_grid_finding(str(error), course))
        return draft
    del grid
    draft.course = info
    if not check:
        return draft
    report = check_course(info, max_states=MAX_CHECK_STATES)
    findings += report.findings
    if draft.ok and boards_ok:
        by_name = {placed[i].board.name: text for i, text in comments.items() if text}
        try:
            text = write_course(info, comment, by_name)
            parse_course(text, draft.filename)
        except (CourseFormatError, BoardFormatError) as error:  # what the format cannot say
            findings.append(_finding("check.course_problem", error.message, problem=error.message))
        except ValueError as error:
            findings.append(_finding("check.course_problem", str(error), problem=str(error)))
        else:
            draft.text = text
    return draft


#: The most robot states (space, facing, register) the builder's reachability check explores
#: for one course, about a second of work: the largest shipped course, For Glory, needs 9,901.
MAX_CHECK_STATES = 30_000


def _placed_finding(finding: Finding, placed: PlacedBoard, name: str) -> Finding:
    """A board's finding with its spaces in course coordinates."""
    spaces = tuple(_on_course(p, placed) for p in finding.spaces)
    params = dict(finding.params)
    if "pos" in params and spaces:
        params["pos"] = str(spaces[0])
    message = f"board {name!r}: {finding.message}"
    return replace(finding, spaces=spaces, params={**params, "board": name}, message=message)


_OVERLAP = re.compile(r"boards '([^']+)' and '([^']+)' overlap at (\d+),(\d+)")
_OFF = re.compile(r"(checkpoint|reboot token) at (\d+),(\d+) is off the boards")


def _grid_finding(message: str, course: Course) -> Finding:
    """A finding for a problem found while joining the boards (the engine's message)."""
    overlap = _OVERLAP.search(message)
    if overlap:
        pos = Pos(int(overlap[3]), int(overlap[4]))
        return _finding(
            "check.boards_overlap",
            f"boards {overlap[1]!r} and {overlap[2]!r} overlap at {pos}",
            (pos,),
            first=overlap[1],
            second=overlap[2],
            pos=str(pos),
        )
    off = _OFF.search(message)
    if off:
        pos = Pos(int(off[2]), int(off[3]))
        code = (
            "check.checkpoint_off_course" if off[1] == "checkpoint" else "check.reboot_off_course"
        )
        return _finding(code, f"the {off[1]} at {pos} is off the boards", (pos,), pos=str(pos))
    text = message.split(": ", 1)[-1]
    return _finding("check.course_problem", text, problem=text)


# ---------------------------------------------------------------------------------------------
# Files


def read_text(text: str, filename: str = "") -> tuple[str, dict[str, Any]]:
    """Read a board or course file into its model: ``("board", model)`` or ``("course",
    model)``. A ``.course`` name, or text that looks like TOML (``id =``), is a course.
    Raises :class:`BoardFormatError` or :class:`CourseFormatError`."""
    if _looks_like_course(text, filename):
        comment, _ = split_comment(text)
        info = parse_course(text, filename or "<course>")
        return "course", course_to_model(info, comment, text)
    comment, _ = split_comment(text)
    board = parse_board(text, filename or "<board>")
    return "board", board_to_model(board, comment)


def _looks_like_course(text: str, filename: str) -> bool:
    if filename.endswith(".course"):
        return True
    if filename.endswith(".board"):
        return False
    for line in _content_lines(text):
        return re.match(r"\s*(\[|[A-Za-z_][\w-]*\s*=)", line) is not None
    return False


def _content_lines(text: str) -> Iterator[str]:
    for line in text.splitlines():
        if line.strip() and not line.lstrip().startswith("#"):
            yield line
