"""Course files: boards placed together with checkpoints, reboot tokens and facts.

A course file (``*.course``) is TOML::

    id = "tiny"                 # slug
    title = "Training Run"
    edition = "2023"            # "2023", "classic" or "any"
    tier = "starter"            # starter, beginner, intermediate, advanced (classic: easy...)
    length = "short"
    players = [2, 6]
    checkpoints = [[7, 6], [2, 2]]     # checkpoint 1, 2, ... in course coordinates
    blocked_starts = [5]               # optional: start spaces not to use
    reboot_damage = 2                  # optional special rule (Battle Cry: 3)
    inactive = [[4, 4]]                # optional: spaces whose elements are switched off
    follows = "Morning Warm-Up"        # optional: the rulebook course it rebuilds
    variants = ["less_deadly"]         # optional: the alternative rules to play it with
    notes = "..."                      # optional: words for the players
    special_rules = "..."              # optional: special rules in words

    [[board]]
    name = "training-ground"           # a board: NAME.board beside the course file, or shipped
    offset = [0, 0]
    rotation = 0                       # quarter turns clockwise

    [[board]]                          # a board drawn in the course file itself: one file
    offset = [0, 10]                   # holds the course and its boards
    drawing = '''
    board: my-dock
    kind: dock
    size: 10x3
    ...                                # the board format (docs/board-format.md)
    '''

    [[reboot]]
    at = [3, 5]
    arrow = "E"

Errors name the file, line and column.

:func:`write_course` writes the canonical file of a course (every shipped file is canonical:
it reads and writes back byte for byte), keeping the leading comment :func:`leading_comment`
reads. :func:`register_course_text` makes a course file known by its id to
:func:`find_course` in this process: that is how a game on a custom course (a course a server
keeps for its players, id ``c-`` and 8 characters of base32) is found by the bots, the board
pictures and records.
"""

from __future__ import annotations

import hashlib
import re
import tomllib
import weakref
from collections import OrderedDict
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

from roborally.content.boardtext import BoardFormatError, parse_board, write_board
from roborally.engine.core.board import (
    Board,
    BoardError,
    Course,
    Grid,
    PlacedBoard,
    RebootToken,
)
from roborally.engine.core.geometry import Direction, Pos
from roborally.engine.editions import all_editions

DATA = resources.files("roborally.content") / "data"


class CourseFormatError(ValueError):
    """A malformed course file; ``str()`` is ``file:line:column: message``."""

    def __init__(self, filename: str, line: int, column: int, message: str) -> None:
        self.filename, self.line, self.column, self.message = filename, line, column, message
        super().__init__(f"{filename}:{line}:{column}: {message}")


@dataclass(frozen=True)
class CourseInfo:
    """A course with its facts, as listed by ``roborally courses``."""

    id: str
    title: str
    edition: str
    tier: str
    length: str
    players: tuple[int, int]
    course: Course
    follows: str = ""
    file: str = ""
    extra: dict[str, Any] = field(default_factory=dict)
    #: The alternative rules the course is meant to be played with (a game may choose others).
    variants: tuple[str, ...] = ()
    #: Free text for the players: notes on the course and its special rules in words.
    notes: str = ""
    special_rules: str = ""

    def summary(self) -> dict[str, Any]:
        grid = Grid(self.course)
        return {
            "id": self.id,
            "title": self.title,
            "edition": self.edition,
            "tier": self.tier,
            "length": self.length,
            "players": list(self.players),
            "boards": [pb.board.name for pb in self.course.boards],
            "checkpoints": len(grid.checkpoints),
            "start_spaces": len(grid.start_spaces),
            "reboot_damage": self.course.reboot_damage,
            "follows": self.follows,
            "variants": list(self.variants),
        }


def _locate(text: str, needle: str, table: str = "", index: int = 0) -> tuple[int, int]:
    """The line and column of ``needle`` in ``text`` (1, 1 if absent).

    With ``table``, search inside the ``index``-th ``[[table]]`` entry only.
    """
    lines = text.splitlines()
    start, end = 0, len(lines)
    if table:
        heads = [i for i, line in enumerate(lines) if line.strip() == f"[[{table}]]"]
        if index < len(heads):
            start = heads[index]
            end = next(
                (i for i in range(start + 1, len(lines)) if lines[i].lstrip().startswith("[")),
                len(lines),
            )
            if not needle:
                return start + 1, 1
    for number in range(start, end):
        line = lines[number]
        column = line.find(needle)
        if column >= 0 and not line.lstrip().startswith("#"):
            return number + 1, column + 1
    return (start + 1, 1) if table else (1, 1)


@cache
def board_named(name: str) -> Board:
    """A shipped board by name (``boards/NAME.board``)."""
    if not _SLUG.fullmatch(name):  # a name, never a path
        raise KeyError(name)
    path = DATA / "boards" / f"{name}.board"
    if not path.is_file():
        raise KeyError(name)
    return parse_board(path.read_text(encoding="utf-8"), f"boards/{name}.board")


#: The most players a course may name (the classic edition seats 8).
MAX_PLAYERS = 8
#: The largest reboot damage a course may set (Battle Cry's is 3): each is a card drawn.
MAX_REBOOT_DAMAGE = 10


def _shown(value: Any) -> str:
    """A value as an error message quotes it, cut short."""
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


#: The widest and tallest a course may be, in spaces (the largest shipped one is 36 x 16): a
#: course file is untrusted input, and the rules keep arrays of the whole course.
MAX_COURSE_SIDE = 100


def _pos(value: Any, what: str) -> Pos:
    if (
        not isinstance(value, list)
        or len(value) != 2
        or not all(isinstance(v, int) and not isinstance(v, bool) for v in value)
    ):
        raise ValueError(f"{what} must be [x, y], got {value!r}")
    if not all(0 <= v < MAX_COURSE_SIDE for v in value):
        raise ValueError(f"{what} must lie within 0-{MAX_COURSE_SIDE - 1}, got {value!r}")
    return Pos(value[0], value[1])


_BOARD_KEYS = {"name", "offset", "rotation", "drawing"}
_SLUG = re.compile(r"[a-z0-9][a-z0-9_-]*")
_REBOOT_KEYS = {"at", "arrow"}
_KEYS = {
    "id",
    "title",
    "edition",
    "tier",
    "length",
    "players",
    "checkpoints",
    "blocked_starts",
    "reboot_damage",
    "inactive",
    "follows",
    "variants",
    "board",
    "reboot",
    "notes",
    "special_rules",
}


def _free_text(data: dict[str, Any], key: str, fail: Callable[..., CourseFormatError]) -> str:
    value = data.get(key, "")
    if not isinstance(value, str):
        raise fail(key, f"{key} must be a string, got {_shown(value)}")
    return value


def variants_for(course_edition: str) -> list[str]:
    """The alternative rules a course of ``course_edition`` may name: those of every edition
    that plays it (``any``: all; ``classic``: classic and its 1994 variant)."""
    found: set[str] = set()
    for known in all_editions():
        if course_edition in ("any", known.id) or known.id.startswith(course_edition + "-"):
            found.update(known.variants)
    return sorted(found)


def _beside(folder: Path | None, name: object) -> Board | None:
    """The board ``NAME.board`` in ``folder`` (the course file's own), if there is one."""
    if folder is None or not isinstance(name, str) or not _SLUG.fullmatch(name):
        return None
    path = folder / f"{name}.board"
    if not path.is_file():
        return None
    return parse_board(path.read_text(encoding="utf-8"), str(path))


def _drawn(text: str, filename: str, entry: dict[str, Any], index: int) -> Board:
    """The board drawn in a ``[[board]]`` entry's ``drawing``; its errors are placed on the
    course file's own lines."""
    drawing, name = entry["drawing"], entry.get("name")
    key_line, _ = _locate(text, "drawing", "board", index)
    if not isinstance(drawing, str):
        raise CourseFormatError(filename, key_line, 1, 'drawing must be a string ("""...""")')
    opening = text.splitlines()[key_line - 1].split("=", 1)[-1].strip()
    first = key_line + 1 if opening in ('"""', "'''") else key_line  # TOML drops that newline
    lines = drawing.splitlines()
    headed = any(line.startswith("board:") for line in lines)
    if not headed and not (isinstance(name, str) and _SLUG.fullmatch(name)):
        message = "a drawing without its 'board: NAME' line needs the entry's name"
        raise CourseFormatError(filename, key_line, 1, message)
    source = drawing if headed else f"board: {name}\n{drawing}"
    try:
        board = parse_board(source, filename)
    except BoardFormatError as error:
        line = first + error.line - 1 - (0 if headed else 1)
        raise CourseFormatError(filename, line, error.column, error.message) from None
    if name is not None and board.name != name:
        message = f"the drawing is of board {board.name!r}, the entry names {name!r}"
        raise CourseFormatError(filename, key_line, 1, message)
    return board


def parse_course(
    text: str,
    filename: str = "<course>",
    boards: dict[str, Board] | None = None,
    folder: Path | None = None,
) -> CourseInfo:
    """Parse a course file. A ``[[board]]`` is drawn in the file itself (``drawing``), or
    named: one of ``boards`` (a scenario's drawings, tests), ``NAME.board`` in ``folder`` (the
    course file's folder), or a shipped board, in that order."""
    try:
        data = tomllib.loads(text)
    except RecursionError:  # arrays nested thousands deep
        raise CourseFormatError(filename, 1, 1, "the file nests its values too deeply") from None
    except tomllib.TOMLDecodeError as error:
        match = re.search(r"\(at line (\d+), column (\d+)\)", str(error))
        line, column = (int(match.group(1)), int(match.group(2))) if match else (1, 1)
        message = re.sub(r"\s*\(at line \d+, column \d+\)", "", str(error))
        raise CourseFormatError(filename, line, column, message) from None

    def fail(key: str, message: str, table: str = "", index: int = 0) -> CourseFormatError:
        line, column = _locate(text, key, table, index)
        return CourseFormatError(filename, line, column, message)

    for key in data:
        if key not in _KEYS:
            raise fail(key, f"unknown key {key!r} (known: {', '.join(sorted(_KEYS))})")
    for key in ("id", "title", "board"):
        if key not in data:
            raise CourseFormatError(filename, 1, 1, f"missing required key {key!r}")
    course_id = data["id"]
    if not isinstance(course_id, str) or not re.fullmatch(r"[a-z0-9][a-z0-9_-]*", course_id):
        raise fail("id", f"id must be a lowercase slug, got {_shown(course_id)}")
    for key in ("title", "edition", "tier", "length", "follows"):
        if key in data and not isinstance(data[key], str):
            raise fail(key, f"{key} must be a string, got {_shown(data[key])}")
    for key in ("checkpoints", "inactive", "blocked_starts"):
        if key in data and not isinstance(data[key], list):
            raise fail(key, f"{key} must be a list, got {_shown(data[key])}")
    placed: list[PlacedBoard] = []
    for table, known in (("board", _BOARD_KEYS), ("reboot", _REBOOT_KEYS)):
        entries = data.get(table, [])
        if not isinstance(entries, list):
            raise fail(table, f"{table!r} must be a list of [[{table}]] tables")
        for index, entry in enumerate(entries):
            if not isinstance(entry, dict):
                message = f"each {table!r} must be a [[{table}]] table, got {_shown(entry)}"
                raise fail(table, message)
            for key in entry:
                if key not in known:
                    raise fail(
                        key,
                        f"unknown key {key!r} in [[{table}]] (known: {', '.join(sorted(known))})",
                        table,
                        index,
                    )
    for index, entry in enumerate(data["board"]):
        name = entry.get("name")
        if name is not None and not isinstance(name, str):
            raise fail(
                "name", f"a board's name must be a string, got {_shown(name)}", "board", index
            )
        try:
            if "drawing" in entry:
                board = _drawn(text, filename, entry, index)
            else:
                given = (boards or {}).get(name) if name else None
                board = given or _beside(folder, name) or board_named(str(name))
        except KeyError:
            raise fail("name", f"unknown board {name!r}", "board", index) from None
        except BoardFormatError as error:
            raise CourseFormatError(
                error.filename, error.line, error.column, error.message
            ) from None
        rotation = entry.get("rotation", 0)
        if isinstance(rotation, bool) or rotation not in (0, 1, 2, 3):
            raise fail(
                "rotation",
                f"rotation must be 0-3 quarter turns, got {_shown(rotation)}",
                "board",
                index,
            )
        try:
            offset = _pos(entry.get("offset", [0, 0]), "offset")
        except ValueError as error:
            raise fail("offset", str(error), "board", index) from None
        wide, tall = (board.height, board.width) if rotation % 2 else (board.width, board.height)
        if offset.x + wide > MAX_COURSE_SIDE or offset.y + tall > MAX_COURSE_SIDE:
            message = (
                f"board {board.name!r} at {offset.x},{offset.y} reaches past the largest course"
                f" ({MAX_COURSE_SIDE} x {MAX_COURSE_SIDE} spaces)"
            )
            raise fail("offset", message, "board", index)
        placed.append(PlacedBoard(board, offset, rotation))
    try:
        checkpoints = tuple(_pos(p, "a checkpoint") for p in data.get("checkpoints", []))
    except ValueError as error:
        raise fail("checkpoints", str(error)) from None
    try:
        inactive = frozenset(_pos(p, "an inactive space") for p in data.get("inactive", []))
    except ValueError as error:
        raise fail("inactive", str(error)) from None
    reboot_list: list[RebootToken] = []
    for index, entry in enumerate(data.get("reboot", [])):
        try:
            at = _pos(entry.get("at"), "a reboot token's 'at'")
        except ValueError as error:
            raise fail("at", str(error), "reboot", index) from None
        try:
            arrow = Direction.parse(str(entry.get("arrow", "N")))
        except ValueError as error:
            raise fail("arrow", str(error), "reboot", index) from None
        reboot_list.append(RebootToken(at, arrow))
    reboots = tuple(reboot_list)
    players = data.get("players", [2, 6])
    if (
        not isinstance(players, list)
        or len(players) != 2
        or not all(isinstance(p, int) and not isinstance(p, bool) for p in players)
        or not 1 <= players[0] <= players[1] <= MAX_PLAYERS
    ):
        message = f"players must be [min, max] within 1-{MAX_PLAYERS}, got {_shown(players)}"
        raise fail("players", message)
    reboot_damage = data.get("reboot_damage", 2)
    if (
        not isinstance(reboot_damage, int)
        or isinstance(reboot_damage, bool)
        or not 0 <= reboot_damage <= MAX_REBOOT_DAMAGE
    ):
        message = f"reboot_damage must be a whole number 0-{MAX_REBOOT_DAMAGE}"
        raise fail("reboot_damage", f"{message}, got {_shown(reboot_damage)}")
    blocked = data.get("blocked_starts", [])
    if not all(isinstance(n, int) and not isinstance(n, bool) and 1 <= n <= 99 for n in blocked):
        message = f"blocked_starts must list start numbers 1-99, got {_shown(blocked)}"
        raise fail("blocked_starts", message)
    edition_id = data.get("edition", "any")
    variants = data.get("variants", [])
    if not isinstance(variants, list) or not all(isinstance(v, str) for v in variants):
        raise fail("variants", f"variants must be a list of names, got {_shown(variants)}")
    rules = variants_for(str(edition_id))
    unknown = [v for v in variants if v not in rules]
    if unknown:
        message = (
            f"unknown alternative rule {unknown[0][:40]!r} for edition {str(edition_id)[:20]!r}"
            f" (known: {', '.join(rules)})"
        )
        raise fail("variants", message)
    course = Course(
        course_id,
        tuple(placed),
        checkpoints=checkpoints,
        reboot_tokens=reboots,
        blocked_starts=frozenset(blocked),
        reboot_damage=reboot_damage,
        inactive=inactive,
        title=str(data["title"]),
    )
    try:
        Grid(course)
    except BoardError as error:
        raise _grid_error(text, filename, str(error), data) from None
    return CourseInfo(
        course_id,
        str(data["title"]),
        str(data.get("edition", "any")),
        str(data.get("tier", "")),
        str(data.get("length", "")),
        (players[0], players[1]),
        course,
        str(data.get("follows", "")),
        filename,
        variants=tuple(sorted(set(variants))),
        notes=_free_text(data, "notes", fail),
        special_rules=_free_text(data, "special_rules", fail),
    )


def _grid_error(text: str, filename: str, message: str, data: dict[str, Any]) -> CourseFormatError:
    """Place an error found while joining the boards on the line it most likely comes from."""
    if "overlap" in message:
        names = re.findall(r"'([^']+)'", message)
        index = max((i for i, e in enumerate(data["board"]) if e.get("name") in names), default=0)
        line, column = _locate(text, "offset", "board", index)
    elif "reboot token" in message:
        line, column = _locate(text, "", "reboot", len(data.get("reboot", [])) - 1)
    elif "checkpoint" in message:
        line, column = _locate(text, "checkpoints")
    else:
        line, column = 1, 1
    return CourseFormatError(filename, line, column, message)


def load_course_file(path: str | Path) -> CourseInfo:
    """A course file; the boards it names are looked for beside it first."""
    path = Path(path)
    return parse_course(path.read_text(encoding="utf-8"), str(path), folder=path.parent)


@cache
def list_courses() -> tuple[CourseInfo, ...]:
    """Every shipped course, sorted by edition and id."""
    infos = []
    for entry in sorted((DATA / "courses").iterdir(), key=lambda e: e.name):
        if entry.name.endswith(".course"):
            infos.append(parse_course(entry.read_text(encoding="utf-8"), f"courses/{entry.name}"))
    return tuple(sorted(infos, key=lambda c: (c.edition, c.id)))


@cache
def shipped_ids() -> frozenset[str]:
    return frozenset(c.id for c in list_courses())


def find_course(name: str) -> CourseInfo:
    """A shipped course by id, a registered custom course by id
    (:func:`register_course_text`), or a course file by path."""
    for info in list_courses():
        if info.id == name:
            return info
    custom = registered_course(name)
    if custom is not None:
        return custom
    if name.endswith(".course") and Path(name).is_file():
        return load_course_file(name)
    known = ", ".join(c.id for c in list_courses())
    raise ValueError(f"unknown course {name!r} (known: {known})")


# ---------------------------------------------------------------------------------------------
# Writing a course file


def leading_comment(text: str) -> str:
    """The comment at the top of a file: its leading ``#`` lines without the ``# ``, joined
    by newlines (``write_course(info, comment)`` writes it back)."""
    found = []
    for line in text.removeprefix("\ufeff").splitlines():
        if not line.startswith("#"):
            break
        found.append(line[2:] if line.startswith("# ") else line[1:])
    return "\n".join(found)


def drawing_comments(text: str) -> dict[str, str]:
    """The leading comment of each board drawn in a course file, by board name (for
    :func:`write_course`); a file that does not read gives none."""
    try:
        data = tomllib.loads(text)
    except (tomllib.TOMLDecodeError, RecursionError):
        return {}
    found: dict[str, str] = {}
    entries = data.get("board")
    for entry in entries if isinstance(entries, list) else []:
        drawing = entry.get("drawing") if isinstance(entry, dict) else None
        if not isinstance(drawing, str):
            continue
        name = entry.get("name")
        head = re.search(r"^board:[ \t]*(\S+)", drawing, re.MULTILINE)
        name = head.group(1) if head else name
        comment = leading_comment(drawing)
        if isinstance(name, str) and comment:
            found[name] = comment
    return found


def _comment_lines(comment: str) -> list[str]:
    return [f"# {line}".rstrip() if line else "#" for line in comment.splitlines()]


_TOML_ESCAPES = {
    '"': '\\"',
    "\\": "\\\\",
    "\b": "\\b",
    "\t": "\\t",
    "\n": "\\n",
    "\f": "\\f",
    "\r": "\\r",
}


def _toml_string(value: str) -> str:
    """``value`` as a TOML basic string (``"..."``)."""
    out = ['"']
    for char in value:
        if char in _TOML_ESCAPES:
            out.append(_TOML_ESCAPES[char])
        elif ord(char) < 0x20 or ord(char) == 0x7F:
            out.append(f"\\u{ord(char):04x}")
        else:
            out.append(char)
    out.append('"')
    return "".join(out)


def _toml_pos(pos: Pos) -> str:
    return f"[{pos.x}, {pos.y}]"


def _multiline(text: str) -> str:
    """``text`` (ending in a newline) as a TOML multi-line string that keeps every line where
    it is: literal (``\'\'\'``) when it can be, else basic with escapes."""
    if "'''" not in text and not any(
        (ord(c) < 0x20 and c not in "\n\t") or ord(c) == 0x7F for c in text
    ):
        return "'''\n" + text + "'''"
    body = []
    for char in text:
        if char == "\n":
            body.append(char)
        elif char in '"\\':
            body.append("\\" + char)
        elif ord(char) < 0x20 or ord(char) == 0x7F:
            body.append(f"\\u{ord(char):04x}")
        else:
            body.append(char)
    return '"""\n' + "".join(body) + '"""'


def _is_shipped(board: Board) -> bool:
    try:
        return board_named(board.name) == board
    except (KeyError, BoardFormatError):
        return False


def write_course(
    info: CourseInfo, comment: str = "", board_comments: Mapping[str, str] | None = None
) -> str:
    """The canonical text of a course file: ``parse_course(write_course(info))`` reads back an
    equal course (given the same file name). ``comment`` becomes the file's leading ``#``
    lines (:func:`leading_comment` reads it); a shipped board is named, any other board is
    drawn in the file (``drawing``, the board format's canonical text, headed by its
    ``board_comments`` entry). Raises :class:`ValueError` for a course a file cannot hold."""
    course = info.course
    if not _SLUG.fullmatch(info.id):
        raise ValueError(f"course id {info.id!r} is not a lowercase slug")
    low, high = info.players
    lines = _comment_lines(comment)
    lines.append(f"id = {_toml_string(info.id)}")
    lines.append(f"title = {_toml_string(info.title)}")
    lines.append(f"edition = {_toml_string(info.edition)}")
    if info.tier:
        lines.append(f"tier = {_toml_string(info.tier)}")
    if info.length:
        lines.append(f"length = {_toml_string(info.length)}")
    lines.append(f"players = [{low}, {high}]")
    if course.checkpoints:
        lines.append(f"checkpoints = [{', '.join(_toml_pos(p) for p in course.checkpoints)}]")
    if course.blocked_starts:
        lines.append(f"blocked_starts = [{', '.join(map(str, sorted(course.blocked_starts)))}]")
    if course.reboot_damage != 2:
        lines.append(f"reboot_damage = {course.reboot_damage}")
    if course.inactive:
        spaces = sorted(course.inactive, key=lambda p: (p.x, p.y))
        lines.append(f"inactive = [{', '.join(_toml_pos(p) for p in spaces)}]")
    if info.follows:
        lines.append(f"follows = {_toml_string(info.follows)}")
    if info.variants:
        lines.append(f"variants = [{', '.join(_toml_string(v) for v in info.variants)}]")
    if info.notes:
        lines.append(f"notes = {_toml_string(info.notes)}")
    if info.special_rules:
        lines.append(f"special_rules = {_toml_string(info.special_rules)}")
    for placed in course.boards:
        board = placed.board
        lines += ["", "[[board]]", f"name = {_toml_string(board.name)}"]
        lines.append(f"offset = {_toml_pos(placed.offset)}")
        if placed.rotation:
            lines.append(f"rotation = {placed.rotation}")
        if not _is_shipped(board):
            drawn = _comment_lines((board_comments or {}).get(board.name, ""))
            drawing = "\n".join([*drawn, write_board(board).rstrip("\n")]) + "\n"
            lines.append(f"drawing = {_multiline(drawing)}")
    for token in course.reboot_tokens:
        lines += ["", "[[reboot]]", f"at = {_toml_pos(token.pos)}"]
        lines.append(f"arrow = {_toml_string(token.arrow.letter)}")
    return "\n".join(lines) + "\n"


def canonical_course_text(text: str, filename: str = "<course>") -> str:
    """A course file in the canonical form of :func:`write_course`, its comments kept (the
    file's and its drawings'); raises :class:`CourseFormatError` if it does not read."""
    info = parse_course(text, filename)
    return write_course(info, leading_comment(text), drawing_comments(text))


# ---------------------------------------------------------------------------------------------
# Custom courses: courses players made, known to this process by their text

#: The id of a course a server stores for its players: ``c-`` and 8 characters of lowercase
#: base32 (``a-z``, ``2-7``); shipped ids never look like that.
CUSTOM_ID = re.compile(r"c-[a-z2-7]{8}")
#: Custom courses are kept while anything holds them (a game's settings, a record) and the
#: last :data:`RECENT` registered besides.
RECENT = 32
_BY_ID: weakref.WeakValueDictionary[str, CourseInfo] = weakref.WeakValueDictionary()
_BY_DIGEST: weakref.WeakValueDictionary[str, CourseInfo] = weakref.WeakValueDictionary()
_RECENT: OrderedDict[str, CourseInfo] = OrderedDict()


def is_custom_id(name: object) -> bool:
    """Whether ``name`` looks like the id of a course a server stores for its players."""
    return isinstance(name, str) and CUSTOM_ID.fullmatch(name) is not None


def register_course_text(text: str, filename: str = "<custom course>") -> CourseInfo:
    """Read a course file that holds its boards (drawn, or shipped ones by name) and make it
    known by its id to :func:`find_course` in this process, so that the bots, the board
    pictures and records find a game's custom course. The same text is read once (cached by
    its SHA-256); the course's text is ``info.extra["text"]``. Raises
    :class:`CourseFormatError` for a file that does not read, :class:`ValueError` for an id
    of a shipped course."""
    digest = hashlib.sha256(text.encode("utf-8")).hexdigest()
    info = _BY_DIGEST.get(digest)
    if info is None:
        parsed = parse_course(text, filename)
        if parsed.id in shipped_ids():
            raise ValueError(f"course id {parsed.id!r} is a shipped course's")
        info = replace(parsed, extra={"text": text, "sha256": digest})
        _BY_DIGEST[digest] = info
    _BY_ID[info.id] = info
    _RECENT[digest] = info
    _RECENT.move_to_end(digest)
    while len(_RECENT) > RECENT:
        _RECENT.popitem(last=False)
    return info


def registered_course(course_id: str) -> CourseInfo | None:
    """A custom course this process knows by its id (:func:`register_course_text`)."""
    return _BY_ID.get(course_id)


def registered_course_text(course_id: str) -> str | None:
    """The file text of a custom course this process knows by its id, else ``None``."""
    info = _BY_ID.get(course_id)
    return None if info is None else str(info.extra["text"])
