"""A course file may hold its boards (``drawing``) or name boards beside it: the files a
player writes are read, checked and played like the shipped ones, and an error inside a
drawing names the course file's own line."""

from __future__ import annotations

from pathlib import Path

import pytest

from roborally.api import new_game
from roborally.bots.random_bot import RandomBot
from roborally.content.courses import CourseFormatError, load_course_file
from roborally.content.validate import validate_path
from roborally.engine.core.decisions import Action

FACTORY = """\
size: 3x2
    0   1   2
  +---+---+---+
0 | .   .   . |
  +   +   +   +
1 | .   .   . |
  +   +   +   +
"""
DOCK = """\
board: mini-dock
kind: dock
size: 3x2
    0   1   2
  +   +   +   +
0 | S1  .   S2|
  +   +   +   +
1 | .   .   . |
  +---+---+---+
"""
COURSE = f'''id = "one-file"
title = "One file"
edition = "2023"
players = [2, 2]
checkpoints = [[1, 0]]

[[board]]
name = "mini"
offset = [0, 0]
drawing = """
{FACTORY}"""

[[board]]
offset = [0, 2]
drawing = """
{DOCK}"""

[[reboot]]
at = [0, 1]
arrow = "E"
'''


def write(folder: Path, text: str, name: str = "my.course") -> Path:
    path = folder / name
    path.write_text(text, encoding="utf-8")
    return path


def test_a_course_with_its_boards_in_one_file_is_checked_and_played(tmp_path: Path) -> None:
    path = write(tmp_path, COURSE)
    info = load_course_file(path)
    assert [b.board.name for b in info.course.boards] == ["mini", "mini-dock"]
    report = validate_path(str(path))
    assert report.errors == [], report.errors
    game = new_game(course=str(path), players=2, seed=3, max_rounds=3)
    bots = [RandomBot(seed=1), RandomBot(seed=2)]
    while not game.is_over():
        d = game.pending_decisions()[0]
        game.apply(Action(d.id, d.seat, bots[d.seat].choose(game.observation(d.seat), d)))
    assert game.outcome() is not None


@pytest.mark.parametrize(
    ("old", "new", "line_of", "message"),
    [
        # in the factory board (no 'board:' line: the entry's name is used)
        ("0 | .   .   . |", "0 | .   Q   . |", "0 | .   Q", "unknown cell code 'Q'"),
        # in the dock, which has its 'board:' line
        (
            "1 | .   .   . |\n  +---",
            "1 | .   Z   . |\n  +---",
            "1 | .   Z",
            "unknown cell code 'Z'",
        ),
        ("board: mini-dock", "board: other-dock", "drawing", "the entry names"),
        ('name = "mini"', 'name = "../mini"', "drawing", "needs the entry's name"),
    ],
)
def test_an_error_in_a_drawing_names_the_course_files_line(
    tmp_path: Path, old: str, new: str, line_of: str, message: str
) -> None:
    text = COURSE.replace(old, new, 1)
    if "other-dock" in new:  # the entry says which board it wants
        text = text.replace("offset = [0, 2]\n", 'name = "mini-dock"\noffset = [0, 2]\n')
    assert text != COURSE
    with pytest.raises(CourseFormatError) as caught:
        load_course_file(write(tmp_path, text))
    lines = text.splitlines()
    wanted = [i for i, line in enumerate(lines, 1) if line_of in line]
    if line_of == "drawing":
        wanted = wanted[1:] if "other-dock" in new else wanted[:1]
    assert caught.value.line == wanted[0], (caught.value, wanted)
    assert message in caught.value.message


def test_boards_beside_the_course_file_come_before_shipped_ones(tmp_path: Path) -> None:
    """A course names its own boards as files beside it; one named like a shipped board
    stands in for it (the player's copy of a board they changed)."""
    (tmp_path / "mini.board").write_text("board: mini\n" + FACTORY, encoding="utf-8")
    dock = Path(__file__).parents[1] / "src/roborally/content/data/boards/training-bay.board"
    changed = dock.read_text(encoding="utf-8").replace("Training Bay", "My Bay")
    (tmp_path / "training-bay.board").write_text(changed, encoding="utf-8")
    text = COURSE.split("[[board]]")[0] + (
        '[[board]]\nname = "mini"\noffset = [0, 0]\n\n'
        '[[board]]\nname = "training-bay"\noffset = [0, 2]\n\n'
        '[[reboot]]\nat = [0, 1]\narrow = "E"\n'
    )
    info = load_course_file(write(tmp_path, text))
    assert [b.board.name for b in info.course.boards] == ["mini", "training-bay"]
    assert info.course.boards[1].board.title == "My Bay"


@pytest.mark.parametrize("name", ["../training-bay", "/etc/passwd", "Training Bay"])
def test_a_board_name_is_never_a_path(tmp_path: Path, name: str) -> None:
    text = COURSE.split("[[board]]")[0] + f'[[board]]\nname = "{name}"\noffset = [0, 0]\n'
    with pytest.raises(CourseFormatError, match="unknown board"):
        load_course_file(write(tmp_path / "", text))


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        ("offset = [0, 2]", "offset = [100000, 100000]", "must lie within 0-99"),
        ("offset = [0, 2]", "offset = [98, 0]", "reaches past the largest course"),
        ("offset = [0, 2]", "offset = [-3, 2]", "must lie within 0-99"),
        ("checkpoints = [[1, 0]]", "checkpoints = [[1, 1000000]]", "must lie within 0-99"),
    ],
)
def test_a_course_far_beyond_any_table_is_refused_at_once(
    tmp_path: Path, old: str, new: str, message: str
) -> None:
    """The fuzz test's find: an offset of 100000 made the rules build arrays of the whole
    course (10^10 spaces). A course is at most 100 x 100 spaces."""
    with pytest.raises(CourseFormatError, match=message):
        load_course_file(write(tmp_path, COURSE.replace(old, new, 1)))


def test_a_board_larger_than_any_table_is_refused_at_its_size_line() -> None:
    """The fuzz test's other find: 'size: 1000002x12' took 47 s before the grid's first row
    said it was wrong. A board is at most 100 spaces a side."""
    from roborally.content.boardtext import BoardFormatError, parse_board

    with pytest.raises(BoardFormatError, match="at most 100 spaces a side") as caught:
        parse_board("board: big\nsize: 1000002x12\n", "big.board")
    assert (caught.value.line, caught.value.column) == (2, 7)
