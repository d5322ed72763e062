"""Fuzzing the board and course parsers: the files players write (and, later, upload) are
hostile input. 10,000 mutations of the shipped files, of a course holding its own drawings
and of plain noise: a parser either reads a file or raises its format error with a line, a
column and a message, never anything else; what it reads writes back to the same board, and
the course checker reports on every drawn course it is given without failing itself.

It found two inputs that held a process for minutes: a board whose size line says 1000002x12
(the parser built the whole width before reading a row) and a course with a board at offset
100000 (the rules' arrays of the whole course): boards and courses are at most 100 spaces a
side now (tests/test_course_files.py)."""

from __future__ import annotations

from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from roborally.content.boardtext import BoardFormatError, parse_board, write_board
from roborally.content.courses import CourseFormatError, parse_course
from roborally.content.validate import check_course

DATA = Path(__file__).parents[1] / "src" / "roborally" / "content" / "data"
BOARDS = [p.read_text(encoding="utf-8") for p in sorted((DATA / "boards").glob("*.board"))]
COURSES = [p.read_text(encoding="utf-8") for p in sorted((DATA / "courses").glob("*.course"))]
#: A course holding its boards (``drawing``), so the mutations reach both parsers at once.
DRAWN = """id = "drawn"
title = "Drawn"
edition = "2023"
players = [2, 2]
checkpoints = [[1, 0]]

[[board]]
name = "mini"
offset = [0, 0]
drawing = \"\"\"
size: 3x2
    0   1   2
  +---+---+---+
0 | .   >   . |
  +   +   +   +
1 | .   .   O |
  +   +   +   +
\"\"\"

[[board]]
offset = [0, 2]
drawing = \"\"\"
board: mini-dock
kind: dock
size: 3x2
    0   1   2
  +   +   +   +
0 | S1  .   S2|
  +   +   +   +
1 | .   .   . |
  +---+---+---+
\"\"\"

[[reboot]]
at = [0, 1]
arrow = "E"
"""
#: Characters the formats give meaning to, and some they do not.
ALPHABET = " .|+-=>#<^v0123456789xSOC[]\"',:\n\tabcNESWRL*!@{}\\\u00e9\u0416\u200b"
FUZZ = settings(
    max_examples=2_500,
    deadline=None,
    derandomize=True,  # the same inputs on every run: CI never meets a new one by chance
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


@st.composite
def mutated(draw: st.DrawFn, texts: list[str]) -> str:
    """One of ``texts`` with 1 to 6 edits: characters inserted, deleted or replaced, lines
    dropped, doubled or swapped, numbers changed."""
    text = draw(st.sampled_from(texts))
    for _ in range(draw(st.integers(1, 6))):
        lines = text.split("\n")
        kind = draw(st.sampled_from(("insert", "delete", "replace", "line", "number")))
        at = draw(st.integers(0, max(0, len(text) - 1)))
        row = draw(st.integers(0, len(lines) - 1))
        if kind == "insert":
            text = text[:at] + draw(st.text(ALPHABET, min_size=1, max_size=4)) + text[at:]
        elif kind == "delete":
            text = text[:at] + text[at + draw(st.integers(1, 6)) :]
        elif kind == "replace":
            text = text[:at] + draw(st.sampled_from(ALPHABET)) + text[at + 1 :]
        elif kind == "line":
            other = draw(st.integers(0, len(lines) - 1))
            how = draw(st.sampled_from(("drop", "double", "swap")))
            if how == "drop":
                del lines[row]
            elif how == "double":
                lines.insert(row, lines[row])
            else:
                lines[row], lines[other] = lines[other], lines[row]
            text = "\n".join(lines)
        else:
            digits = [i for i, c in enumerate(text) if c.isdigit()]
            if digits:
                i = draw(st.sampled_from(digits))
                number = draw(st.sampled_from(("0", "-1", "99", "100000", "7", "2.5")))
                text = text[:i] + number + text[i + 1 :]
    return text


def _board_or_its_error(text: str) -> None:
    try:
        board = parse_board(text, "fuzz.board")
    except BoardFormatError as error:
        assert error.line >= 1 and error.column >= 1 and error.message, error
        return
    assert parse_board(write_board(board), "again.board") == board


def _course_or_its_error(text: str, check: bool = False) -> None:
    try:
        info = parse_course(text, "fuzz.course")
    except CourseFormatError as error:
        assert error.line >= 1 and error.column >= 1 and error.message, error
        return
    if check:  # half a second on a shipped course: only the small drawn one is checked
        check_course(info)  # reports on the course, whatever it is


@FUZZ
@given(mutated(BOARDS))
def test_the_board_parser_reads_or_names_the_problem(text: str) -> None:
    _board_or_its_error(text)


@FUZZ
@given(mutated(COURSES))
def test_the_course_parser_reads_or_names_the_problem(text: str) -> None:
    _course_or_its_error(text)


@FUZZ
@given(mutated([DRAWN]))
def test_a_course_with_drawings_reads_or_names_the_problem(text: str) -> None:
    _course_or_its_error(text, check=True)


@FUZZ
@given(st.text(ALPHABET, max_size=400).map(lambda t: "board: noise\n" + t))
def test_noise_is_a_format_error_too(text: str) -> None:
    _board_or_its_error(text)
    _course_or_its_error(text)
