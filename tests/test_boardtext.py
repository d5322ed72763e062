"""Tests for the board text format (roborally.content.boardtext)."""

from __future__ import annotations

import pickle
import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from roborally.content.boardtext import BoardFormatError, load_board, parse_board, write_board
from roborally.engine.core.board import Belt, BeltColor, Board, Cell, Laser, Pusher
from roborally.engine.core.geometry import Direction, Pos, Turn

N, E, S, W = Direction.NORTH, Direction.EAST, Direction.SOUTH, Direction.WEST
DOCS = Path(__file__).resolve().parent.parent / "docs" / "board-format.md"

# A small valid board. Line numbers matter for the error tests below.
BASE = """\
board: tiny
size: 3x2

    0   1   2
  +---+---+---+
0 | .   a   > |
  +   +---+   +
1 | O   E   cw|
  +---+---+---+

legend:
  a = laser S 2
"""


def replace_line(number: int, new: str, text: str = BASE) -> str:
    lines = text.split("\n")
    lines[number - 1] = new
    return "\n".join(lines)


def insert_line(number: int, new: str, text: str = BASE) -> str:
    lines = text.split("\n")
    lines.insert(number - 1, new)
    return "\n".join(lines)


def roundtrip(board: Board) -> Board:
    text = write_board(board)
    again = parse_board(text)
    assert again == board, text
    assert write_board(again) == text
    return again


def docs_example() -> str:
    match = re.search(r"```board\n(.*?)```", DOCS.read_text(encoding="utf-8"), re.DOTALL)
    assert match is not None, "docs/board-format.md has no ```board example block"
    return match[1]


# ---------------------------------------------------------------------------------------------
# Reading


def test_base_board_parses() -> None:
    board = parse_board(BASE, "tiny.board")
    assert (board.name, board.title, board.kind, board.width, board.height) == (
        "tiny",
        "tiny",
        "factory",
        3,
        2,
    )
    assert board.cell(Pos(1, 0)).lasers == (Laser(S, 2),)
    assert board.cell(Pos(1, 0)).walls == frozenset({N, S})
    assert board.cell(Pos(2, 0)).belt == Belt(BeltColor.GREEN, E)
    assert board.cell(Pos(0, 1)).pit
    assert board.cell(Pos(1, 1)).battery
    assert board.cell(Pos(1, 1)).walls == frozenset({N, S})
    assert board.cell(Pos(2, 1)).gear is Turn.RIGHT
    assert board.cell(Pos(0, 0)).walls == frozenset({N, W})
    roundtrip(board)


def test_spec_example_is_canonical() -> None:
    text = """\
board: tiny-factory
title: Tiny Factory
size: 6x2

    0   1   2   3   4   5
  +---+---+---+---+---+---+
0 | .   >   >   a | .   O |
  +   +   +---+   +   +   +
1 | .  >>s  .   E   cw  . |
  +---+---+---+---+---+---+

legend:
  a = pusher S 2 4; laser W 1
"""
    board = parse_board(text)
    assert board.cell(Pos(3, 0)).pusher == Pusher(S, frozenset({2, 4}))
    assert board.cell(Pos(3, 0)).lasers == (Laser(W, 1),)
    assert board.cell(Pos(1, 1)).belt == Belt(BeltColor.BLUE, E, frozenset({S}))
    assert board.cell(Pos(2, 0)).walls == frozenset({N, S})
    assert board.cell(Pos(2, 1)).walls == frozenset({N, S})
    assert write_board(board) == text


def test_docs_example_parses_and_covers_every_element() -> None:
    board = parse_board(docs_example(), "board-format.md")
    assert board.name == "sample-yard"
    assert board.title == "Sample Yard"
    cells = [board.cell(pos) for pos in board.positions()]
    belts = {c.belt for c in cells if c.belt is not None}
    assert {(b.color, b.out) for b in belts} == {
        (color, out) for color in BeltColor for out in Direction
    }
    assert any(b.curved and b.color is BeltColor.GREEN for b in belts)
    assert any(b.curved and b.color is BeltColor.BLUE for b in belts)
    assert any(c.pit for c in cells)
    assert any(c.battery for c in cells)
    assert {c.gear for c in cells} >= {Turn.RIGHT, Turn.LEFT}
    assert {c.repair for c in cells} == {0, 1, 2}
    assert any(c.pusher is not None for c in cells)
    assert any(len(c.lasers) > 1 for c in cells)
    assert any(c.lasers and c.belt for c in cells)
    assert any(c.crusher for c in cells)
    assert any(c.start is not None and c.start_facing is not None for c in cells)
    assert any(c.start is not None and c.start_facing is None for c in cells)
    assert any(c.checkpoint is not None for c in cells)
    assert any(c.reboot is not None for c in cells)
    # An open outer edge and interior walls in both directions.
    assert W not in board.cell(Pos(0, 1)).walls
    assert E in board.cell(Pos(3, 3)).walls and W in board.cell(Pos(4, 3)).walls
    assert S in board.cell(Pos(1, 0)).walls and N in board.cell(Pos(1, 1)).walls
    roundtrip(board)


def test_header_comments_case_and_kind() -> None:
    text = (
        "# a comment\n"
        "Board: bay-1      # the id\n"
        "TITLE: Docking Bay One\n"
        "kind: DOCK\n"
        "size: 1 x 1\n"
        "  +---+\n"
        "0 | . |\n"
        "  +---+\n"
    )
    board = parse_board(text)
    assert (board.name, board.title, board.kind) == ("bay-1", "Docking Bay One", "dock")
    assert "kind: dock\n" in write_board(board)
    roundtrip(board)


@pytest.mark.parametrize(
    "title",
    [
        "Bay #2",
        " spaced ",
        '"quoted"',
        "line\nbreak",
        "tab\there",
        "Zürich ✓",
        "a\\b",
        "\x85\u2028",
    ],
)
def test_awkward_titles_roundtrip(title: str) -> None:
    board = Board.create("t", 1, 1, title=title)
    assert roundtrip(board).title == title


def test_title_equal_to_name_is_omitted() -> None:
    text = write_board(Board.create("same", 1, 1, title="same"))
    assert "title:" not in text
    assert "kind:" not in text


def test_trailing_spaces_stripped_and_short_rows() -> None:
    full = parse_board(BASE)
    stripped = "\n".join(line.rstrip() for line in BASE.split("\n"))
    assert parse_board(stripped) == full
    # Without its final '|', a row's east edge has no wall.
    open_east = parse_board(replace_line(6, "0 | .   a   >"))
    assert E not in open_east.cell(Pos(2, 0)).walls
    assert E in full.cell(Pos(2, 0)).walls


def test_cell_codes_anywhere_in_their_three_characters() -> None:
    moved = replace_line(6, "0 |.     a >  |")
    assert parse_board(moved) == parse_board(BASE)


def test_crlf_bom_and_comment_lines_in_grid() -> None:
    text = "\ufeff" + insert_line(7, "# a comment inside the grid").replace("\n", "\r\n")
    assert parse_board(text) == parse_board(BASE)


def test_column_number_line_is_optional() -> None:
    assert parse_board(replace_line(4, "")) == parse_board(BASE)
    assert parse_board(replace_line(4, "   9 9 9 9")) == parse_board(BASE)


def test_load_board(tmp_path: Path) -> None:
    path = tmp_path / "tiny.board"
    path.write_text(BASE, encoding="utf-8")
    assert load_board(path) == parse_board(BASE)
    path.write_text(replace_line(8, "1 | O   Q   cw|"), encoding="utf-8")
    with pytest.raises(BoardFormatError) as info:
        load_board(path)
    assert info.value.filename == str(path)
    assert (
        str(info.value) == f"{path}:8:9: unknown cell code 'Q' (not built in and not in the legend)"
    )


def test_legend_keywords_case_insensitive_and_full_direction_names() -> None:
    text = replace_line(12, "  a = LASER south 2 ; Crusher 5 1;")
    cell = parse_board(text).cell(Pos(1, 0))
    assert cell.lasers == (Laser(S, 2),)
    assert cell.crusher == frozenset({1, 5})


# ---------------------------------------------------------------------------------------------
# Every element round-trips

ELEMENTS: list[tuple[Cell, str | None]] = [
    (Cell(), "."),
    (Cell(pit=True), "O"),
    (Cell(battery=True), "E"),
    (Cell(gear=Turn.RIGHT), "cw"),
    (Cell(gear=Turn.LEFT), "ccw"),
    *[(Cell(belt=Belt(BeltColor.GREEN, d)), "^>v<"[d]) for d in Direction],
    *[(Cell(belt=Belt(BeltColor.BLUE, d)), "^>v<"[d] * 2) for d in Direction],
    (Cell(belt=Belt(BeltColor.GREEN, E, frozenset({S}))), ">s"),
    (Cell(belt=Belt(BeltColor.GREEN, N, frozenset({E, W}))), "^ew"),
    (Cell(belt=Belt(BeltColor.BLUE, W, frozenset({N}))), "<<n"),
    (Cell(belt=Belt(BeltColor.BLUE, S, frozenset({E, W}))), None),
    (Cell(repair=1), "w1"),
    (Cell(repair=2), "w2"),
    (Cell(start=1), "S1"),
    (Cell(start=9, start_facing=W), "S9<"),
    (Cell(start=10, start_facing=N), None),
    (Cell(checkpoint=3), "C3"),
    (Cell(checkpoint=12), None),
    *[(Cell(reboot=d), "R" + "^>v<"[d]) for d in Direction],
    (Cell(pusher=Pusher(S, frozenset({2, 4})), walls=frozenset({N})), None),
    (Cell(lasers=(Laser(W, 3),), walls=frozenset({E})), None),
    (Cell(lasers=(Laser(W, 1), Laser(N, 2), Laser(W, 1)), walls=frozenset({E, S})), None),
    (Cell(crusher=frozenset({1, 2, 3, 4, 5})), None),
    (Cell(pit=True, lasers=(Laser(E, 1),), walls=frozenset({W})), None),
    (Cell(belt=Belt(BeltColor.GREEN, E), lasers=(Laser(N, 1),), walls=frozenset({S})), None),
    (Cell(belt=Belt(BeltColor.BLUE, E), checkpoint=1), None),
    (Cell(gear=Turn.LEFT, battery=True, repair=1, start=2, reboot=E), None),
]


@pytest.mark.parametrize(("cell", "code"), ELEMENTS)
def test_every_element_roundtrips(cell: Cell, code: str | None) -> None:
    board = Board.create("one", 3, 3, {Pos(1, 1): cell})
    again = roundtrip(board)
    assert again.cell(Pos(1, 1)) == board.cell(Pos(1, 1))
    row = write_board(board).split("\n")[7]
    written = row[7:10].strip()
    if code is None:
        assert written == "a"
    else:
        assert written == code


def test_lasers_keep_their_order() -> None:
    cell = Cell(lasers=(Laser(N, 2), Laser(W, 1)), walls=frozenset({S, E}))
    text = write_board(Board.create("l", 1, 1, {Pos(0, 0): cell}))
    assert "a = laser N 2; laser W 1" in text


def test_identical_cells_share_a_symbol_and_legend_is_sorted() -> None:
    crusher = Cell(crusher=frozenset({2}))
    start = Cell(start=11)
    cells = {Pos(0, 0): start, Pos(1, 0): crusher, Pos(2, 0): crusher}
    text = write_board(Board.create("share", 3, 1, cells))
    assert "\n0   a   b   b\n" in text
    assert text.endswith("legend:\n  a = start 11\n  b = crusher 2\n")


def test_many_legend_symbols() -> None:
    # 30 x 20 distinct legend cells: the writer runs out of single letters.
    cells = {Pos(x, y): Cell(start=10 + y * 30 + x) for y in range(20) for x in range(30)}
    board = Board.create("many", 30, 20, cells)
    roundtrip(board)
    written = write_board(board)
    assert "\n 0   a   b   d   f" in written  # two-digit rows: a 3-character margin
    assert "  aa = " in written and "  zz = " in written


# ---------------------------------------------------------------------------------------------
# Walls


def test_all_walls_roundtrip() -> None:
    every = frozenset(Direction)
    board = Board.create("walls", 4, 3, {pos: Cell(walls=every) for pos in _positions(4, 3)})
    text = write_board(board)
    assert "  +---+---+---+---+" in text
    assert "0 | . | . | . | . |" in text
    roundtrip(board)


def test_outer_and_interior_walls() -> None:
    cells = {
        Pos(0, 0): Cell(walls=frozenset({N, W})),
        Pos(2, 1): Cell(walls=frozenset({E, S})),
        Pos(1, 1): Cell(walls=frozenset({E})),
        Pos(1, 0): Cell(walls=frozenset({S})),
    }
    board = roundtrip(Board.create("w", 3, 2, cells))
    assert board.cell(Pos(2, 1)).walls == frozenset({E, S, W})
    assert board.cell(Pos(1, 1)).walls == frozenset({E, N})
    assert board.cell(Pos(1, 0)).walls == frozenset({S})
    assert write_board(board).split("\n")[4:9] == [
        "  +---+   +   +",
        "0 | .   .   .",
        "  +   +---+   +",
        "1   .   . | . |",
        "  +   +   +---+",
    ]


def test_writer_reads_one_sided_walls() -> None:
    # A board built without Board.create may store a wall on one side only.
    lonely = Board("lone", 2, 1, (Cell(walls=frozenset({E})), Cell()), "factory", "lone")
    board = parse_board(write_board(lonely))
    assert board.cell(Pos(1, 0)).walls == frozenset({W})


@pytest.mark.parametrize("turns", [1, 2, 3])
def test_rotated_boards_roundtrip(turns: int) -> None:
    board = parse_board(docs_example())
    rotated = board.rotated(turns)
    roundtrip(rotated)
    assert rotated.rotated(4 - turns) == board


# ---------------------------------------------------------------------------------------------
# Errors: every kind, with its exact location


ERRORS: list[tuple[str, str]] = [
    (
        replace_line(2, "sise: 3x2"),
        "2:1: unknown header key 'sise' (expected board, title, kind or size)",
    ),
    (insert_line(2, "board: again"), "2:1: 'board:' given twice (first on line 1)"),
    (replace_line(2, "size: 3by2"), "2:7: bad size '3by2' (expected WIDTHxHEIGHT, e.g. 12x12)"),
    (replace_line(2, "size: 0x2"), "2:7: bad size '0x2': width and height must be at least 1"),
    (
        insert_line(2, "kind: warehouse"),
        "2:7: unknown board kind 'warehouse' (expected factory or dock)",
    ),
    (
        replace_line(1, "board: tiny board"),
        "1:8: board id 'tiny board' must be a slug (letters, digits, '-', '_', '.'; no spaces)",
    ),
    (insert_line(2, "kind:"), "2:6: 'kind:' needs a value"),
    (
        insert_line(2, 'title: "oops'),
        '2:8: bad quoted title: unterminated string (write it as a JSON string, e.g. "Bay #2")',
    ),
    (
        insert_line(2, 'title: "Bay" 2'),
        "2:14: unexpected text after the quoted title",
    ),
    (
        replace_line(1, "# no id"),
        "4:1: missing 'board:' header line before the grid (e.g. 'board: my-board')",
    ),
    (
        replace_line(2, ""),
        "4:1: missing 'size:' header line before the grid (e.g. 'size: 12x12')",
    ),
    (replace_line(2, "size 3x2"), "2:1: expected a header line 'key: value' (e.g. 'size: 12x12')"),
    (replace_line(2, "legend:"), "2:1: 'legend:' before the grid: the grid comes first"),
    ("board: x\nsize: 2x2\n", "2:10: missing grid (size 2x2 needs 2 rows)"),
    (
        replace_line(5, "0 | .   a   > |"),
        "5:1: the grid must start with a wall line: spaces, then '+' corners with '---' or"
        " three spaces between them",
    ),
    (replace_line(2, "size: 3x3"), "11:1: the grid ends before row 2 (size 3x3 has 3 rows)"),
    (
        "\n".join(BASE.split("\n")[:8]),
        "8:16: the grid ends before the wall line below row 1 (size 3x2 has 2 rows)",
    ),
    (replace_line(2, "size: 3x1"), "8:1: more rows than size 3x1 allows"),
    (
        insert_line(10, "oops"),
        "10:1: unexpected text after the grid (the legend starts with 'legend:')",
    ),
    (replace_line(8, "2 | O   E   cw|"), "8:1: expected row number 1, found 2"),
    (replace_line(8, "x | O   E   cw|"), "8:1: expected row number 1 in the margin, found 'x'"),
    (replace_line(8, "  | O   E   cw|"), "8:1: row 1 must start with its row number"),
    (
        replace_line(8, "11| O   E   cw|"),
        "8:1: expected row number 1, found 11",
    ),
    (
        replace_line(6, "0 | .   a   > | . |"),
        "6:16: row 0 is wider than the 3 columns of size 3x2",
    ),
    (
        replace_line(7, "  +   +---+   +   +"),
        "7:16: wall line is wider than the 3 columns of size 3x2",
    ),
    (
        replace_line(7, "  +   + --+   +"),
        "7:8: misaligned wall ' --' over column 1: use '---' for a wall or three spaces for none",
    ),
    (
        replace_line(7, "  +   +-x-+   +"),
        "7:9: misaligned wall '-x-' over column 1: use '---' for a wall or three spaces for none",
    ),
    (
        replace_line(7, "  +   +---+"),
        "7:12: wall line ends before the corner at column 15 (size 3x2 has 3 columns)",
    ),
    (
        replace_line(7, "  +   +---|   +"),
        "7:11: misaligned wall line: expected '+' at a corner, found '|'"
        " (cells are 3 characters wide)",
    ),
    (
        replace_line(7, " ++   +---+   +"),
        "7:2: misaligned wall line: only spaces may come before the first '+'"
        " (column 3, as in the first wall line)",
    ),
    (
        replace_line(7, "1 | O   E   cw|"),
        "7:1: expected the wall line below row 0, found a row line (is a wall line missing?)",
    ),
    (
        replace_line(8, "  +   +   +   +"),
        "8:1: expected row 1, found a wall line (is a row missing?)",
    ),
    (
        replace_line(6, "0 | . ccw  > |"),
        "6:7: expected '|' or a space between cells, found 'c' (each cell is 3 characters wide)",
    ),
    (
        replace_line(8, "1 | O   E"),
        "8:12: missing cell code for column 2 of row 1 (use '.' for plain floor)",
    ),
    (
        replace_line(8, "1 | O  E E  cw|"),
        "8:9: cell code 'E E' contains a space (a cell is 3 characters wide)",
    ),
    (replace_line(8, "1 | O\tE   cw|"), "8:6: tab character in the grid (use spaces to align)"),
    (
        replace_line(8, "1 | O   Q   cw|"),
        "8:9: unknown cell code 'Q' (not built in and not in the legend)",
    ),
    (
        replace_line(6, "0 | .   a  >e |"),
        "6:13: curved entry 'e' is not perpendicular to the belt '>e' going E",
    ),
    (replace_line(6, "0 | .   a  >ss|"), "6:14: curve side 's' given twice in belt code '>ss'"),
    (
        replace_line(6, "0 | .   a  >x |"),
        "6:13: bad belt code '>x': only curve sides n, e, s, w may follow the arrow, not 'x'",
    ),
    (
        replace_line(8, "1 | O   S0  cw|"),
        "8:9: bad start code 'S0': use S1 to S9, optionally followed by ^ > v or <"
        " (larger numbers need a legend entry)",
    ),
    (
        replace_line(8, "1 | O  C10  cw|"),
        "8:8: bad checkpoint code 'C10': use C1 to C9 (larger numbers need a legend entry)",
    ),
    (replace_line(8, "1 | O   w3  cw|"), "8:9: bad repair code 'w3': use w1 or w2"),
    (replace_line(8, "1 | O  R^^  cw|"), "8:8: bad reboot code 'R^^': use R^, R>, Rv or R<"),
    (
        replace_line(8, "1 | S1  S1  cw|"),
        "8:9: duplicate start number 1 (also at line 8 column 5)",
    ),
    (
        replace_line(8, "1 | C1  C1  cw|"),
        "8:9: duplicate checkpoint number 1 (also at line 8 column 5)",
    ),
    (
        replace_line(8, "1 | R^  R>  cw|"),
        "8:9: a second reboot token (the first is at line 8 column 5); a board has at most one",
    ),
    (
        replace_line(12, "  a = pusher E 1"),
        "6:9: cell 1,0 ('a'): a pusher pushing E is mounted on the wall on its W side,"
        " but there is no wall there",
    ),
    (
        replace_line(12, "  a = laser E"),
        "6:9: cell 1,0 ('a'): a laser firing E is mounted on the wall on its W side,"
        " but there is no wall there",
    ),
    (BASE + "  a = pit\n", "13:3: legend symbol 'a' redefined (first defined on line 12)"),
    (BASE + "  S1 = pit\n", "13:3: legend symbol 'S1' clashes with the built-in cell codes"),
    (BASE + "  >z = pit\n", "13:3: legend symbol '>z' must not start with '>'"),
    (BASE + "  abcd = pit\n", "13:3: legend symbol 'abcd' is longer than 3 characters"),
    (BASE + "  a|b = pit\n", "13:3: legend symbol 'a|b' must not contain '|'"),
    (BASE + "  a b = pit\n", "13:4: legend symbol 'a b' must not contain spaces"),
    (BASE + "  = pit\n", "13:3: missing legend symbol before '='"),
    (BASE + "  b = pit\n", "13:3: legend symbol 'b' is not used in the grid"),
    (BASE + "  b pit\n", "13:3: expected a legend line 'SYMBOL = element; element ...'"),
    (BASE + "legend:\n", "13:1: second 'legend:' line"),
    (
        replace_line(12, "  a = belt green E; laser S; belt blue N"),
        "12:3: legend symbol 'a' has a belt twice",
    ),
    (
        replace_line(12, "  a = laser S; belt green E; pit"),
        "12:3: legend symbol 'a': a pit cannot also hold a belt (only walls and lasers)",
    ),
    (
        replace_line(12, "  a = gear cw; belt green E; laser S"),
        "12:3: legend symbol 'a': a belt and a gear cannot share a space",
    ),
    (
        replace_line(12, "  a = pit; battery; laser S"),
        "12:3: legend symbol 'a': a pit cannot also hold a battery (only walls and lasers)",
    ),
    (
        replace_line(12, "  a = laser S; floor"),
        "12:3: legend symbol 'a': 'floor' means an empty space and cannot be combined with"
        " other elements",
    ),
    (
        replace_line(12, "  a = laser S; lava"),
        "12:16: unknown element 'lava' (expected floor, pit, battery, gear, belt, pusher, laser,"
        " repair, crusher, start, checkpoint or reboot)",
    ),
    (replace_line(12, "  a = laser S; pusher S 6"), "12:25: bad register '6' (expected 1 to 5)"),
    (replace_line(12, "  a = laser S; crusher 2 2"), "12:26: register 2 listed twice"),
    (
        replace_line(12, "  a = laser S; crusher"),
        "12:23: 'crusher' needs one or more registers (1 to 5)",
    ),
    (replace_line(12, "  a = laser"), "12:12: 'laser' needs the direction it fires (N, E, S or W)"),
    (replace_line(12, "  a = laser S 2 3"), "12:17: unexpected '3' after 'laser' element"),
    (replace_line(12, "  a = laser S 4"), "12:15: bad beam count '4' (expected 1 to 3)"),
    (replace_line(12, "  a = laser Q"), "12:13: 'Q' is not a direction (use N, E, S or W)"),
    (replace_line(12, "  a = laser S;; battery"), "12:15: empty element in legend symbol 'a'"),
    (
        replace_line(12, "  a = laser S; gear up"),
        "12:21: bad gear rotation 'up' (expected cw or ccw)",
    ),
    (
        replace_line(12, "  a = laser S; belt red N"),
        "12:21: bad belt colour 'red' (expected green or blue)",
    ),
    (
        replace_line(12, "  a = laser S; belt blue N around E"),
        "12:28: unexpected 'around' in belt (expected 'curve')",
    ),
    (
        replace_line(12, "  a = laser S; belt green E curve W"),
        "12:35: curved entry W is not perpendicular to a belt going E",
    ),
    (
        replace_line(12, "  a = laser S; start 0"),
        "12:22: bad start number '0' (expected 1 or more)",
    ),
]


@pytest.mark.parametrize(("text", "expected"), ERRORS)
def test_errors_name_file_line_and_column(text: str, expected: str) -> None:
    with pytest.raises(BoardFormatError) as info:
        parse_board(text, "tiny.board")
    error = info.value
    assert str(error) == "tiny.board:" + expected
    assert "\n" not in str(error)
    line, column, message = expected.split(":", 2)
    assert (error.filename, error.line, error.column) == ("tiny.board", int(line), int(column))
    assert error.message == message.strip()
    assert isinstance(error, ValueError)


def test_docs_error_examples() -> None:
    docs = DOCS.read_text(encoding="utf-8")
    numbered = re.search(r"```text\n( 1  board: tiny\n.*?)```", docs, re.DOTALL)
    assert numbered is not None
    shown = "".join(line[4:] + "\n" for line in numbered[1].splitlines())
    assert shown == BASE
    examples = re.findall(r"^- line (\d+) (is|added:) `(.*)`:\n  `(.*)`$", docs, re.MULTILINE)
    assert len(examples) >= 10
    for number, how, new, expected in examples:
        change = replace_line if how == "is" else insert_line
        with pytest.raises(BoardFormatError) as info:
            parse_board(change(int(number), new), "tiny.board")
        assert str(info.value) == expected


@settings(max_examples=300, deadline=None)
@given(
    st.sampled_from([BASE, docs_example()]),
    st.lists(
        st.tuples(
            st.integers(0, 2000),
            st.integers(0, 2),
            st.sampled_from(list(" |+-.#=;:\t\n^>v<OEcwSCRabxyz0123456789nesw")) | st.characters(),
        ),
        min_size=1,
        max_size=4,
    ),
)
def test_damaged_files_fail_cleanly(text: str, edits: list[tuple[int, int, str]]) -> None:
    """Random edits either still parse (and round-trip) or raise a located BoardFormatError."""
    for position, operation, char in edits:
        position %= len(text) + 1
        if operation == 0:
            text = text[:position] + char + text[position:]
        elif operation == 1:
            text = text[:position] + text[position + 1 :]
        else:
            text = text[:position] + char + text[position + 1 :]
    try:
        board = parse_board(text, "f.board")
    except BoardFormatError as error:
        lines = text.split("\n")
        assert 1 <= error.line <= len(lines)
        assert error.column >= 1
        assert "\n" not in str(error)
    else:
        assert parse_board(write_board(board)) == board


def test_error_pickles() -> None:
    error = BoardFormatError("f.board", 3, 4, "bad thing")
    again = pickle.loads(pickle.dumps(error))
    assert str(again) == "f.board:3:4: bad thing"
    assert (again.filename, again.line, again.column, again.message) == (
        "f.board",
        3,
        4,
        "bad thing",
    )


def test_default_filename() -> None:
    with pytest.raises(BoardFormatError, match=r"^<board>:1:1: missing 'board:'"):
        parse_board("")


@pytest.mark.parametrize(
    ("board", "problem"),
    [
        (Board.create("not a slug", 1, 1), "not a slug"),
        (Board.create("p", 1, 1, {Pos(0, 0): Cell(pusher=Pusher(N, frozenset({1})))}), "pusher"),
        (Board.create("p", 1, 1, {Pos(0, 0): Cell(pit=True, battery=True)}), "pit"),
        (Board.create("p", 1, 1, {Pos(0, 0): Cell(crusher=frozenset())}), "crusher"),
        (Board.create("p", 2, 1, {Pos(0, 0): Cell(start=1), Pos(1, 0): Cell(start=1)}), "start"),
    ],
)
def test_writer_rejects_boards_the_format_cannot_express(board: Board, problem: str) -> None:
    with pytest.raises(ValueError, match=problem):
        write_board(board)


# ---------------------------------------------------------------------------------------------
# Random boards

directions = st.sampled_from(list(Direction))
register_sets = st.frozensets(st.integers(1, 5), min_size=1)


@st.composite
def contents(draw: st.DrawFn) -> Cell:
    """One cell's elements (walls are added by the board strategy)."""
    if draw(st.integers(0, 3)) == 0:
        return Cell()
    lasers = tuple(draw(st.lists(st.builds(Laser, directions, st.integers(1, 3)), max_size=2)))
    base = draw(st.sampled_from(["floor", "pit", "belt", "gear"]))
    if base == "pit":
        return Cell(pit=True, lasers=lasers)
    belt = None
    gear = None
    if base == "belt":
        out = draw(directions)
        sides = st.sampled_from([out.turned(Turn.LEFT), out.turned(Turn.RIGHT)])
        belt = Belt(draw(st.sampled_from(list(BeltColor))), out, draw(st.frozensets(sides)))
    elif base == "gear":
        gear = draw(st.sampled_from([Turn.RIGHT, Turn.LEFT]))
    start = draw(st.none() | st.integers(1, 12))
    return Cell(
        belt=belt,
        gear=gear,
        pusher=draw(st.none() | st.builds(Pusher, directions, register_sets)),
        lasers=lasers,
        battery=draw(st.booleans()),
        repair=draw(st.sampled_from([0, 0, 1, 2])),
        crusher=draw(st.none() | register_sets),
        start=start,
        start_facing=draw(st.none() | directions) if start is not None else None,
        checkpoint=draw(st.none() | st.integers(1, 12)),
        reboot=draw(st.none() | directions),
    )


def _positions(width: int, height: int) -> list[Pos]:
    return [Pos(x, y) for y in range(height) for x in range(width)]


@st.composite
def boards(draw: st.DrawFn) -> Board:
    width = draw(st.integers(1, 7))
    height = draw(st.integers(1, 12))
    cells: dict[Pos, Cell] = {}
    starts: set[int] = set()
    checkpoints: set[int] = set()
    reboot_seen = False
    for pos in _positions(width, height):
        cell = draw(contents())
        walls = set(draw(st.frozensets(directions)))
        if cell.pusher is not None:
            walls.add(cell.pusher.direction.opposite)
        walls.update(laser.direction.opposite for laser in cell.lasers)
        # Keep numbers unique and at most one reboot token, as a board file requires.
        start, facing = cell.start, cell.start_facing
        if start in starts:
            start, facing = None, None
        checkpoint = cell.checkpoint if cell.checkpoint not in checkpoints else None
        reboot = cell.reboot if not reboot_seen else None
        if start is not None:
            starts.add(start)
        if checkpoint is not None:
            checkpoints.add(checkpoint)
        reboot_seen = reboot_seen or reboot is not None
        cells[pos] = Cell(
            walls=frozenset(walls),
            pit=cell.pit,
            belt=cell.belt,
            gear=cell.gear,
            pusher=cell.pusher,
            lasers=cell.lasers,
            battery=cell.battery,
            repair=cell.repair,
            crusher=cell.crusher,
            start=start,
            start_facing=facing,
            checkpoint=checkpoint,
            reboot=reboot,
        )
    name = draw(st.from_regex(r"[a-z0-9][a-z0-9_.-]{0,12}", fullmatch=True))
    title = draw(st.just("") | st.text(max_size=20))
    kind = draw(st.sampled_from(["factory", "dock"]))
    return Board.create(name, width, height, cells, kind=kind, title=title)


@settings(max_examples=300, deadline=None)
@given(boards())
def test_random_boards_roundtrip(board: Board) -> None:
    roundtrip(board)


@settings(max_examples=50, deadline=None)
@given(boards(), st.integers(1, 3))
def test_random_rotated_boards_roundtrip(board: Board, turns: int) -> None:
    roundtrip(board.rotated(turns))


@settings(max_examples=100, deadline=None)
@given(boards())
def test_stripped_trailing_spaces_still_parse(board: Board) -> None:
    text = write_board(board)
    assert all(line == line.rstrip() for line in text.split("\n"))
    padded = "\n".join(line + "   " for line in text.split("\n"))
    assert parse_board(padded) == board
