"""Content files: the damage deck data, course files and the ``roborally courses`` listing."""

from __future__ import annotations

import json
import re
from importlib import resources
from typing import Any

import pytest

from roborally.cli import main
from roborally.content.cards import CardDataError, damage_deck, parse_damage_deck
from roborally.content.courses import (
    CourseFormatError,
    find_course,
    list_courses,
    parse_course,
)
from roborally.engine.core.board import Board, Cell, Grid
from roborally.engine.core.cards import HAYWIRE_EFFECTS, CardType, default_damage_deck
from roborally.engine.core.geometry import NORTH, Pos

DAMAGE_TEXT = (
    resources.files("roborally.content") / "data" / "cards" / "damage-2023.json"
).read_text(encoding="utf-8")
TINY_TEXT = (resources.files("roborally.content") / "data" / "courses" / "tiny.course").read_text(
    encoding="utf-8"
)
ERROR_FORMAT = re.compile(r"^(?P<file>[^:]+):(?P<line>\d+):(?P<col>\d+): (?P<message>.+)$")


# ------------------------------------------------------------------------- damage deck
def test_shipped_damage_deck_equals_the_built_in_default() -> None:
    shipped = damage_deck()
    assert shipped.cards == default_damage_deck().cards
    assert shipped.size == default_damage_deck().size == 40


def test_shipped_damage_deck_contents() -> None:
    deck = damage_deck()
    assert sum(c.copies for c in deck.cards) == 40
    assert len({c.name for c in deck.cards}) == len(deck.cards)
    assert {c.type for c in deck.cards} == {CardType.SPAM, CardType.HAYWIRE}
    for card in deck.cards:
        assert card.text and card.title and card.source
        if card.type is CardType.HAYWIRE:
            assert card.effect in HAYWIRE_EFFECTS
        else:
            assert card.effect == "spam"
    # Every Haywire effect the engine implements is in the deck (spec 5.7).
    assert {c.effect for c in deck.cards if c.type is CardType.HAYWIRE} == set(HAYWIRE_EFFECTS)
    assert deck.spec("spam").copies == 30
    with pytest.raises(KeyError):
        deck.spec("worm")  # 2016 damage cards do not exist in 2023


def broken(change: Any) -> str:
    data = json.loads(DAMAGE_TEXT)
    change(data)
    return json.dumps(data, indent=2)


def _set(index: int, key: str, value: Any) -> Any:
    def change(data: dict[str, Any]) -> None:
        data["cards"][index][key] = value

    return change


def _drop(index: int, key: str) -> Any:
    def change(data: dict[str, Any]) -> None:
        del data["cards"][index][key]

    return change


@pytest.mark.parametrize(
    ("change", "words"),
    [
        (_drop(1, "count"), r"cards\[1\]: missing field 'count'"),
        (_drop(0, "effect"), r"cards\[0\]: missing field 'effect'"),
        (_drop(2, "id"), r"cards\[2\]: missing field 'id'"),
        (_drop(3, "type"), r"cards\[3\]: missing field 'type'"),
        (_drop(4, "text"), r"cards\[4\]: missing field 'text'"),
        (_drop(5, "title"), r"cards\[5\]: missing field 'title'"),
        (_set(1, "type", "programming"), r"cards\[1\]: type must be"),
        (_set(1, "type", "worm"), r"cards\[1\]: type must be"),
        (_set(2, "effect", "teleport"), r"cards\[2\]: unknown Haywire effect 'teleport'"),
        (_set(0, "effect", "two_cards"), r"cards\[0\]: a SPAM card's effect must be 'spam'"),
        (_set(1, "count", 0), r"cards\[1\]: count must be a positive whole number"),
        (_set(1, "count", "2"), r"cards\[1\]: count must be"),
        (_set(1, "count", True), r"cards\[1\]: count must be"),
        (_set(1, "count", 2.5), r"cards\[1\]: count must be"),
        (_set(2, "id", "hw_two"), r"cards\[2\]: duplicate id 'hw_two'"),
        (_set(0, "count", 31), r"must hold 40 cards, got 41"),
        (_set(0, "count", 29), r"must hold 40 cards, got 39"),
        (lambda d: d["cards"].append("spam"), r"cards\[6\]: expected an object"),
        (lambda d: d.pop("cards"), r"expected an object with a 'cards' list"),
        (lambda d: d.update(cards={"spam": 30}), r"expected an object with a 'cards' list"),
    ],
)
def test_broken_damage_deck_names_the_field(change: Any, words: str) -> None:
    with pytest.raises(CardDataError, match=rf"^deck\.json: .*{words}"):
        parse_damage_deck(broken(change), "deck.json")


def test_damage_deck_json_syntax_error_gives_line_and_column() -> None:
    lines = DAMAGE_TEXT.splitlines()
    number = next(i for i, line in enumerate(lines, start=1) if '"count": 2' in line)
    lines[number - 1] = lines[number - 1].replace('"count": 2', '"count" 2')
    with pytest.raises(CardDataError) as info:
        parse_damage_deck("\n".join(lines), "deck.json")
    match = ERROR_FORMAT.match(str(info.value))
    assert match, str(info.value)
    assert match["file"] == "deck.json" and int(match["line"]) == number
    with pytest.raises(CardDataError, match=r"^deck\.json:1:1: "):
        parse_damage_deck("", "deck.json")
    with pytest.raises(CardDataError, match=r"^deck\.json: expected an object"):
        parse_damage_deck("[]", "deck.json")


def test_a_different_valid_split_parses() -> None:
    def change(data: dict[str, Any]) -> None:
        data["cards"][0]["count"] = 20
        data["cards"][1]["count"] = 12

    deck = parse_damage_deck(broken(change), "deck.json")
    assert deck.spec("spam").copies == 20 and deck.size == 40


# ------------------------------------------------------------------------ course files
def edit(old: str, new: str, text: str = TINY_TEXT) -> str:
    assert old in text, old
    return text.replace(old, new, 1)


def line_of(text: str, needle: str, occurrence: int = 1) -> int:
    found = [n for n, line in enumerate(text.splitlines(), start=1) if needle in line]
    return found[occurrence - 1]


def course_error(text: str, filename: str = "c.course") -> CourseFormatError:
    with pytest.raises(CourseFormatError) as info:
        parse_course(text, filename)
    error = info.value
    match = ERROR_FORMAT.match(str(error))
    assert match, f"not file:line:col: message: {error}"
    assert match["file"] == filename
    assert (int(match["line"]), int(match["col"])) == (error.line, error.column)
    assert error.line >= 1 and error.column >= 1
    assert error.message and "\n" not in str(error)
    return error


def test_the_shipped_tiny_course_parses() -> None:
    info = parse_course(TINY_TEXT, "tiny.course")
    assert info.id == "tiny"
    assert [pb.board.name for pb in info.course.boards] == ["training-ground", "training-bay"]
    assert info.course.checkpoints == (Pos(7, 6), Pos(2, 2))


def test_toml_syntax_error_gives_line_and_column() -> None:
    text = edit('title = "Training Run"', 'title = "Training Run')
    error = course_error(text)
    assert error.line == line_of(text, 'title = "Training Run')
    assert error.column == len('title = "Training Run') + 1
    text = edit("[[reboot]]", "[[reboot]")
    error = course_error(text)
    assert error.line == line_of(text, "[[reboot]")


def test_unknown_key_gives_its_line() -> None:
    text = edit('length = "short"', 'length = "short"\ncolour = "red"')
    error = course_error(text)
    assert error.line == line_of(text, "colour")
    assert error.column == 1
    assert "unknown key 'colour'" in error.message
    assert "checkpoints" in error.message  # lists the known keys


def test_unknown_key_in_a_board_entry_is_refused() -> None:
    text = edit("offset = [0, 10]", "offset = [0, 10]\nrotaton = 1")
    error = course_error(text)
    assert error.line == line_of(text, "rotaton")


def test_unknown_board_gives_its_line() -> None:
    text = edit('name = "training-bay"', 'name = "training-bayou"')
    error = course_error(text)
    assert error.line == line_of(text, "training-bayou")
    assert "unknown board 'training-bayou'" in error.message


def test_bad_offset_on_the_first_board_gives_its_line() -> None:
    text = edit("offset = [0, 0]", 'offset = [0, "x"]')
    error = course_error(text)
    assert error.line == line_of(text, 'offset = [0, "x"]')
    assert "offset must be [x, y]" in error.message


def test_bad_rotation_gives_its_line() -> None:
    text = edit("offset = [0, 10]", "offset = [0, 10]\nrotation = 5")
    error = course_error(text)
    assert error.line == line_of(text, "rotation = 5")


def test_overlapping_boards_are_refused() -> None:
    error = course_error(edit("offset = [0, 10]", "offset = [0, 8]"))
    assert "overlap" in error.message
    assert "training-ground" in error.message and "training-bay" in error.message


def test_checkpoint_off_the_boards_is_refused() -> None:
    error = course_error(edit("[[7, 6], [2, 2]]", "[[7, 6], [20, 2]]"))
    assert "checkpoint" in error.message and "off the boards" in error.message


def test_malformed_checkpoint_gives_its_line() -> None:
    text = edit("[[7, 6], [2, 2]]", "[[7, 6], [2]]")
    error = course_error(text)
    assert error.line == line_of(text, "checkpoints")
    assert "a checkpoint must be [x, y]" in error.message


def test_duplicate_reboot_token_on_one_board_is_refused() -> None:
    error = course_error(TINY_TEXT + '\n[[reboot]]\nat = [1, 1]\narrow = "N"\n')
    assert "more than one reboot token" in error.message
    assert "training-ground" in error.message


def _second_board_offset() -> tuple[str, set[int]]:
    text = edit("offset = [0, 10]", 'offset = [0, "x"]')
    return text, {line_of(text, 'offset = [0, "x"]')}


def _overlap() -> tuple[str, set[int]]:
    text = edit("offset = [0, 10]", "offset = [0, 8]")
    return text, {line_of(text, "[[board]]", 2), line_of(text, "offset = [0, 8]")}


def _checkpoint_off() -> tuple[str, set[int]]:
    text = edit("[[7, 6], [2, 2]]", "[[7, 6], [20, 2]]")
    return text, {line_of(text, "checkpoints")}


def _duplicate_reboot() -> tuple[str, set[int]]:
    text = TINY_TEXT + '\n[[reboot]]\nat = [1, 1]\narrow = "N"\n'
    second = line_of(text, "[[reboot]]", 2)
    return text, {second, second + 1}


def _bad_arrow() -> tuple[str, set[int]]:
    text = edit('arrow = "E"', 'arrow = "Q"')
    return text, {line_of(text, 'arrow = "Q"')}


def _reboot_off() -> tuple[str, set[int]]:
    text = edit("at = [3, 5]", "at = [30, 5]")
    return text, {line_of(text, "at = [30, 5]"), line_of(text, "[[reboot]]")}


@pytest.mark.parametrize(
    "case",
    [_second_board_offset, _overlap, _checkpoint_off, _duplicate_reboot, _bad_arrow, _reboot_off],
    ids=lambda f: f.__name__.strip("_"),
)
def test_course_errors_point_at_the_offending_line(case: Any) -> None:
    text, lines = case()
    error = course_error(text)
    assert error.line in lines, f"{error} (expected line {sorted(lines)})"


def test_missing_required_keys() -> None:
    for key, old in (("id", 'id = "tiny"'), ("title", 'title = "Training Run"')):
        error = course_error(edit(old, ""))
        assert f"missing required key '{key}'" in error.message
    error = course_error(TINY_TEXT.split("[[board]]")[0])
    assert "missing required key 'board'" in error.message


def test_bad_id_gives_its_line() -> None:
    text = edit('id = "tiny"', 'id = "Tiny Course"')
    error = course_error(text)
    assert error.line == line_of(text, 'id = "Tiny Course"')


def test_extra_boards_can_be_supplied() -> None:
    board = Board.create("mini", 3, 3, {Pos(1, 1): Cell(reboot=NORTH)})
    dock = Board.create("mini-dock", 3, 1, {Pos(0, 0): Cell(start=1), Pos(2, 0): Cell(start=2)})
    text = "\n".join(
        [
            'id = "mini"',
            'title = "Mini"',
            "checkpoints = [[0, 0]]",
            "[[board]]",
            'name = "mini"',
            "[[board]]",
            'name = "mini-dock"',
            "offset = [0, 3]",
        ]
    )
    info = parse_course(text, "mini.course", boards={"mini": board, "mini-dock": dock})
    grid = Grid(info.course)
    assert len(grid.start_spaces) == 2 and grid.checkpoints == (Pos(0, 0),)


def _no_checkpoints() -> str:
    return edit("[[7, 6], [2, 2]]", "[]")


def _seven_checkpoints() -> str:
    return edit("[[7, 6], [2, 2]]", "[[1, 0], [2, 0], [3, 0], [4, 0], [5, 0], [6, 0], [7, 0]]")


def _too_few_start_spaces() -> str:
    return edit("players = [2, 6]", "players = [2, 6]\nblocked_starts = [1, 2]")


def _reboot_on_the_dock() -> str:
    return edit("at = [3, 5]", "at = [3, 11]")


def _factory_without_reboot() -> str:
    return TINY_TEXT.split("[[reboot]]")[0]


@pytest.mark.parametrize(
    "make",
    [
        _no_checkpoints,
        _seven_checkpoints,
        _too_few_start_spaces,
        _reboot_on_the_dock,
        _factory_without_reboot,
    ],
    ids=lambda f: f.__name__.strip("_"),
)
def test_course_constraints_of_spec_10_6_are_enforced(make: Any) -> None:
    # The [enforce] constraints are rule checks of the validator (the file itself parses).
    from roborally.content.validate import check_course

    report = check_course(parse_course(make(), "c.course"))
    assert report.errors, "the validator accepted a course that breaks spec 10.6"


def test_shipped_2023_courses_meet_the_spec_10_6_constraints() -> None:
    courses = [c for c in list_courses() if c.edition == "2023"]
    assert "tiny" in [c.id for c in courses]
    for info in courses:
        grid = Grid(info.course)
        assert 1 <= len(grid.checkpoints) <= 6, info.id
        assert len(grid.start_spaces) >= info.players[1], info.id
        factories = [i for i, kind in enumerate(grid.board_kinds) if kind == "factory"]
        assert sorted(grid.reboot_of_board) == factories, info.id
        for pos in grid.checkpoints:
            assert not grid.pits[grid.index(pos)], f"{info.id}: checkpoint on a pit"
        assert find_course(info.id) is info


def test_find_course_unknown_name() -> None:
    with pytest.raises(ValueError, match=r"unknown course 'atlantis' \(known: .*tiny"):
        find_course("atlantis")


# --------------------------------------------------------------------------------- CLI
def test_courses_json_lists_tiny(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["courses", "--json"]) == 0
    listing = json.loads(capsys.readouterr().out)
    tiny = next(c for c in listing if c["id"] == "tiny")
    assert tiny["checkpoints"] == 2
    assert tiny["boards"] == ["training-ground", "training-bay"]
    assert tiny["edition"] == "2023"
    assert tiny["players"] == [2, 6]
    assert tiny["start_spaces"] == 6
    assert tiny["title"] == "Training Run"
    assert len(listing) == len(list_courses())


def test_courses_plain_listing(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["courses"]) == 0
    out = capsys.readouterr().out
    assert re.search(
        r"^tiny\s+2023\s+Training Run\s+boards: training-ground, training-bay;", out, re.M
    )
    assert "checkpoints: 2" in out
