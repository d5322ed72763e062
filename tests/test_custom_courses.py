"""Custom courses outside the server: the course writer (every shipped course file reads and
writes back byte for byte), the registry that makes a course file known by its id, and records
of games on a custom course, which carry the course file and replay anywhere."""

from __future__ import annotations

import dataclasses
import gc
import subprocess
import sys
from pathlib import Path

import pytest

from roborally.bots.random_bot import RandomBot
from roborally.content.cards import damage_deck
from roborally.content.courses import (
    DATA,
    CourseFormatError,
    board_named,
    canonical_course_text,
    drawing_comments,
    find_course,
    is_custom_id,
    leading_comment,
    parse_course,
    register_course_text,
    registered_course,
    registered_course_text,
    write_course,
)
from roborally.content.record import RecordError, parse_record, replay, write_record
from roborally.engine.core.board import Board, Cell, PlacedBoard
from roborally.engine.core.decisions import Action
from roborally.engine.core.geometry import Pos
from roborally.engine.core.state import GameConfig
from roborally.engine.game import Game
from roborally.server.settings import GameSettings

SHIPPED = sorted((DATA / "courses").iterdir(), key=lambda p: p.name)
#: A custom course: a drawn board (a comment at its top and in its drawing) and a shipped one.
CUSTOM = (Path(__file__).parent / "custom-courses" / "cousin.course").read_text(encoding="utf-8")


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: p.name)
def test_every_shipped_course_writes_back_byte_for_byte(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    info = parse_course(text, path.name)
    written = write_course(info, leading_comment(text))
    assert written == text
    assert parse_course(written, path.name) == info


def test_a_course_with_drawn_boards_writes_back_with_its_comments() -> None:
    info = parse_course(CUSTOM, "c.course")
    assert leading_comment(CUSTOM) == (
        "My first course: a small factory above a dock.\nBoth boards are drawn here."
    )
    assert drawing_comments(CUSTOM) == {"cousin": "The factory: a belt and a pit."}
    assert canonical_course_text(CUSTOM, "c.course") == CUSTOM
    again = write_course(info)  # without comments: the same course
    assert parse_course(again, "c.course") == info
    assert "#" not in again.split("drawing")[1].split("\n")[1]


def test_the_writer_draws_what_is_not_shipped_and_quotes_what_it_must() -> None:
    shipped = board_named("training-bay")
    changed = dataclasses.replace(shipped, cells=(Cell(pit=True), *shipped.cells[1:]))
    odd = Board.create("odd.one", 2, 1, {Pos(0, 0): Cell(battery=True)}, title="It's '''odd'''")
    info = parse_course(CUSTOM, "c.course")
    course = dataclasses.replace(
        info.course,
        boards=(
            PlacedBoard(changed, Pos(0, 0)),
            PlacedBoard(odd, Pos(0, 3), 0),
            PlacedBoard(board_named("training-ground"), Pos(0, 4), 0),
        ),
        checkpoints=(Pos(1, 3),),
        reboot_tokens=(),
    )
    title = 'A "quoted"\\ title\t\u00e9\u0416'
    course = dataclasses.replace(course, title=title)
    tricky = dataclasses.replace(info, title=title, follows="x\u007f", course=course)
    text = write_course(tricky, "line one\n\nline three")
    assert text.startswith("# line one\n#\n# line three\nid =")
    assert 'drawing = """' in text  # the title holds ''': the basic quotes, escaped
    assert text.count("drawing =") == 2  # the changed bay and odd.one; training-ground by name
    assert parse_course(text, "c.course") == dataclasses.replace(tricky, file="c.course")


def test_the_writer_refuses_what_a_file_cannot_hold() -> None:
    info = parse_course(CUSTOM, "c.course")
    with pytest.raises(ValueError, match="not a lowercase slug"):
        write_course(dataclasses.replace(info, id="Not A Slug"))


@pytest.mark.parametrize(
    ("line", "bad", "message"),
    [
        ('title = "Tiny\'s Cousin"', "title = 5", "title must be a string"),
        ("players = [2, 4]", "players = [true, 4]", "players must be"),
        ("players = [2, 4]", "players = [2, 9]", "within 1-8"),
        ("checkpoints = [[3, 1]]", "checkpoints = 7", "checkpoints must be a list"),
        ("checkpoints = [[3, 1]]", 'blocked_starts = ["x"]', "blocked_starts must list"),
        ("checkpoints = [[3, 1]]", "reboot_damage = 100000", "reboot_damage must be"),
        ("checkpoints = [[3, 1]]", "reboot = [1, 2]", r"must be a \[\[reboot\]\] table"),
        ('name = "training-bay"', "name = [1]", "name must be a string"),
        ("offset = [0, 3]", "offset = [0, 3]\nrotation = true", "rotation must be 0-3"),
        ("checkpoints = [[3, 1]]", "checkpoints = " + "[" * 5000 + "]" * 5000, "nest"),
    ],
)
def test_wrong_types_are_format_errors(line: str, bad: str, message: str) -> None:
    text = CUSTOM.split("\n[[reboot]]")[0]  # its reboot token aside: 'reboot = ...' may come
    with pytest.raises(CourseFormatError, match=message) as caught:
        parse_course(text.replace(line, bad, 1), "c.course")
    assert caught.value.line >= 1 and caught.value.column >= 1


def test_a_registered_course_is_found_by_its_id_while_it_is_held() -> None:
    assert is_custom_id("c-abcdefgh") and not is_custom_id("tiny") and not is_custom_id("c-ABC")
    info = register_course_text(CUSTOM)
    assert register_course_text(CUSTOM) is info  # read once
    assert find_course("c-abcdefgh") is info and registered_course("c-abcdefgh") is info
    assert registered_course_text("c-abcdefgh") == CUSTOM
    with pytest.raises(ValueError, match="shipped course"):
        register_course_text(CUSTOM.replace('id = "c-abcdefgh"', 'id = "tiny"'))
    other = CUSTOM.replace("c-abcdefgh", "c-zzzzzzzz")
    held = register_course_text(other)
    for n in range(40):  # more courses than are kept without a holder
        register_course_text(other.replace("c-zzzzzzzz", f"c-aaaaaa{n // 10 + 2}{n % 10 + 2}"[:10]))
    del info
    gc.collect()
    assert registered_course("c-zzzzzzzz") is held  # held: still known
    assert registered_course("c-abcdefgh") is None  # nobody holds it: forgotten


def _played(settings: GameSettings) -> Game:
    """The game to its end (its max_rounds at most)."""
    game = Game(settings.config(("Ada", "Bo")))
    bots = [RandomBot(1), RandomBot(2)]
    while not game.is_over():
        for decision in game.pending_decisions():
            choice = bots[decision.seat].choose(game.observation(decision.seat), decision)
            game.apply(Action(decision.id, decision.seat, choice))
    return game


def test_a_record_carries_its_custom_course_and_replays_elsewhere(tmp_path: Path) -> None:
    settings = GameSettings("2023", "c-abcdefgh", (), 0, 0, 30, 4, 7, 0, course_text=CUSTOM)
    stored = GameSettings.from_json(settings.to_json())
    assert stored.course_text == CUSTOM and "course_text" not in settings.public_json()
    game = _played(stored)
    text = write_record(game, "c-abcdefgh", "g1")
    assert "\n--- course\n| # My first course" in text and "\n|\n" in text
    record = parse_record(text, "r.rec")
    assert record.course_text == CUSTOM
    again = replay(record)
    assert again.digest() == game.digest()
    assert write_record(again, "c-abcdefgh", "g1") == text
    path = tmp_path / "custom.rec"
    path.write_text(text, encoding="utf-8")
    # Another process, which never saw the course: replay and verify read it from the record.
    for command in ("replay", "verify"):
        done = subprocess.run(
            [sys.executable, "-m", "roborally", command, str(path)],
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert done.returncode == 0, done.stdout + done.stderr
    # A changed course in the record is its error, at the record's own line.
    broken = text.replace("| size: 5x3", "| size: 5x9")
    with pytest.raises(RecordError, match=r"r\.rec:\d+: the course it carries"):
        parse_record(broken, "r.rec").config()
    with pytest.raises(RecordError, match="every line of the course file starts with"):
        parse_record(text + "stray line\n", "r.rec")
    named = text.replace("course: c-abcdefgh", "course: c-bbbbbbbb")
    with pytest.raises(RecordError, match="the header names"):
        parse_record(named, "r.rec").config()


def test_records_of_shipped_courses_carry_no_course() -> None:
    game = Game(
        GameConfig(find_course("tiny").course, ("A", "B"), seed=3, damage_deck=damage_deck())
    )
    text = write_record(game, "tiny")
    assert "--- course" not in text
    assert parse_record(text).course_text == ""


def test_a_course_names_the_alternative_rules_to_play_it_with() -> None:
    text = CUSTOM.replace(
        "players = [2, 4]\n", 'players = [2, 4]\nvariants = ["less_deadly", "dynamic_archiving"]\n'
    )
    info = parse_course(text, "c.course")
    assert info.variants == ("dynamic_archiving", "less_deadly")
    assert info.summary()["variants"] == ["dynamic_archiving", "less_deadly"]
    written = write_course(info, leading_comment(text), drawing_comments(text))
    assert 'variants = ["dynamic_archiving", "less_deadly"]\n' in written
    assert parse_course(written, "c.course") == info
    assert parse_course(CUSTOM, "c.course").variants == ()  # none named: none written
    assert "variants" not in write_course(parse_course(CUSTOM, "c.course"))
    classic_only = text.replace("dynamic_archiving", "four_lives")
    with pytest.raises(CourseFormatError, match="'four_lives' for edition '2023'") as caught:
        parse_course(classic_only, "c.course")
    assert (caught.value.line, caught.value.column) == (9, 1)
    with pytest.raises(CourseFormatError, match="variants must be a list of names"):
        parse_course(text.replace('["less_deadly", "dynamic_archiving"]', "3"), "c.course")
    anywhere = classic_only.replace('edition = "2023"', 'edition = "any"')
    assert parse_course(anywhere, "c.course").variants == ("four_lives", "less_deadly")


def test_notes_and_special_rules_in_words_are_kept() -> None:
    text = CUSTOM.replace(
        "players = [2, 4]\n",
        'players = [2, 4]\nnotes = "Mind the pit.\\nTwo lines."\nspecial_rules = "Reboot: 3"\n',
    )
    info = parse_course(text, "c.course")
    assert (info.notes, info.special_rules) == ("Mind the pit.\nTwo lines.", "Reboot: 3")
    written = write_course(info, leading_comment(text), drawing_comments(text))
    assert 'notes = "Mind the pit.\\nTwo lines."\n' in written
    assert parse_course(written, "c.course") == info
    with pytest.raises(CourseFormatError, match="notes must be a string") as caught:
        parse_course(text.replace('"Mind the pit.\\nTwo lines."', "7"), "c.course")
    assert caught.value.line == 9
