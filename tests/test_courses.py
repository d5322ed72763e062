"""Every shipped course loads, passes the validator and hosts a random-bot game."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from roborally.bots.random_bot import RandomBot
from roborally.bots.runner import new_game, run_bots
from roborally.cli import main
from roborally.content.courses import DATA, list_courses, parse_course
from roborally.content.validate import check_course, validate_path

COURSES = list_courses()
COURSE_DIR = Path(str(DATA / "courses"))
BOARD_DIR = Path(str(DATA / "boards"))


@pytest.mark.parametrize("info", COURSES, ids=[c.id for c in COURSES])
def test_shipped_course_passes_the_validator(info: object) -> None:
    from roborally.content.courses import CourseInfo

    assert isinstance(info, CourseInfo)
    report = check_course(info)
    assert report.errors == [], "\n".join(report.lines())


@pytest.mark.parametrize("path", sorted(BOARD_DIR.glob("*.board")), ids=lambda p: p.stem)
def test_shipped_board_loads(path: Path) -> None:
    assert validate_path(str(path)).errors == []


@pytest.mark.parametrize("info", COURSES, ids=[c.id for c in COURSES])
def test_random_bots_play_every_course(info: object) -> None:
    from roborally.content.courses import CourseInfo
    from roborally.engine.editions import edition

    assert isinstance(info, CourseInfo)
    editions = ["2023"] if info.edition in ("2023", "any") else [info.edition]
    for name in editions:
        try:
            rules = edition(name)
        except ValueError:
            pytest.skip(f"edition {name} is not available")
        players = min(info.players[1], rules.max_players, 4)
        game = new_game(info.id, max(players, 2), seed=5, max_rounds=6, edition=name)
        run_bots(game, [RandomBot(i) for i in range(len(game.config.players))])
        assert game.is_over()


def test_courses_json_lists_every_course(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["courses", "--json"]) == 0
    listed = json.loads(capsys.readouterr().out)
    assert {c["id"] for c in listed} == {c.id for c in COURSES}
    for entry in listed:
        assert entry["checkpoints"] >= 1
        assert entry["boards"]
        assert entry["tier"]


BROKEN = [
    ("checkpoints = [[7, 6], [2, 2]]", "checkpoints = [[7, 6], [2, 2]", "Unclosed array"),
    ("checkpoints = [[7, 6], [2, 2]]", "checkpoints = [[70, 6]]", "checkpoint at 70,6"),
    ('name = "training-ground"', 'name = "no-such-board"', "unknown board 'no-such-board'"),
    ("offset = [0, 10]", "offset = [0, 5]", "overlap"),
    ('arrow = "E"', 'arrow = "Q"', "not a direction"),
    ("players = [2, 6]", "players = [6, 2]", "players must be [min, max]"),
    ('tier = "starter"', 'tier = "starter"\ncolour = "red"', "unknown key 'colour'"),
]


@pytest.mark.parametrize(("old", "new", "message"), BROKEN)
def test_malformed_course_files_are_refused(
    tmp_path: Path, old: str, new: str, message: str
) -> None:
    text = (COURSE_DIR / "tiny.course").read_text(encoding="utf-8")
    assert old in text
    path = tmp_path / "broken.course"
    path.write_text(text.replace(old, new), encoding="utf-8")
    report = validate_path(str(path))
    assert report.errors, "the broken course was accepted"
    first = report.errors[0]
    assert first.startswith(f"{path}:"), first
    assert message in first, first


def test_rule_checks_catch_a_broken_course() -> None:
    text = (COURSE_DIR / "tiny.course").read_text(encoding="utf-8")
    # Checkpoint 2 in a pit, the reboot token pointing into a pit, too few start spaces.
    text = text.replace("[2, 2]]", "[4, 6]]").replace("players = [2, 6]", "players = [2, 7]")
    text = text.replace("at = [3, 5]", "at = [3, 6]")
    report = check_course(parse_course(text, "broken.course"))
    joined = "\n".join(report.errors)
    assert "checkpoint 2 at 4,6 is in a pit" in joined
    assert "points (E) into a pit" in joined
    assert "6 usable start spaces for up to 7 players" in joined


def test_validate_cli_exit_codes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["validate", str(COURSE_DIR / "tiny.course")]) == 0
    bad = tmp_path / "bad.board"
    bad.write_text("board: bad\nsize: 2x1\n  +   +   +\n0   .   Q\n  +   +   +\n")
    assert main(["validate", str(bad)]) == 1
    out = capsys.readouterr().out
    assert f"{bad}:4:" in out and "unknown cell code 'Q'" in out


def test_gallery_has_every_course_and_board(tmp_path: Path) -> None:
    from roborally.gallery import build_gallery

    build_gallery(tmp_path)
    page = (tmp_path / "gallery.md").read_text(encoding="utf-8")
    for info in COURSES:
        assert f"gallery/course-{info.id}.png" in page
        assert (tmp_path / "gallery" / f"course-{info.id}.png").stat().st_size > 1000
    for board in BOARD_DIR.glob("*.board"):
        assert f"gallery/board-{board.stem}.png" in page
