"""The course builder's models (``roborally.content.boardmodel``) and the checker's findings
(``roborally.content.validate``): every shipped board and course goes through its model and
back to the same file, each problem in a model is a finding at its spaces (never an
exception), a model of the wrong shape names its field, the findings read in every language,
the design advice of 10.6, and the faster reachability search finds what the old one found."""

from __future__ import annotations

import json
import re
from collections import deque
from pathlib import Path
from typing import Any

import pytest

from roborally.content.boardmodel import (
    ModelError,
    board_to_model,
    read_board_model,
    read_course_model,
    read_text,
    split_comment,
)
from roborally.content.boardtext import parse_board
from roborally.content.courses import DATA, find_course, parse_course
from roborally.content.i18n import LANGUAGES, strings
from roborally.content.validate import (
    CARD_MOVES,
    FELL,
    Reachability,
    _all_facings,
    _Lone,
    check_course,
)
from roborally.engine.core.board import BeltColor, Grid
from roborally.engine.core.geometry import DIRECTIONS, Direction, Pos
from roborally.engine.core.state import GameConfig
from roborally.engine.rules2023 import new_state

BOARD_DIR = Path(str(DATA / "boards"))
COURSE_DIR = Path(str(DATA / "courses"))
BOARDS = sorted(BOARD_DIR.glob("*.board"))
COURSES = sorted(COURSE_DIR.glob("*.course"))


def _json(model: dict[str, Any]) -> dict[str, Any]:
    """The model as the page sends it back (through JSON)."""
    result: dict[str, Any] = json.loads(json.dumps(model))
    return result


# ------------------------------------------------------------------------------ round trips


@pytest.mark.parametrize("path", BOARDS, ids=lambda p: p.stem)
def test_every_shipped_board_writes_back_byte_identical(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    kind, model = read_text(text, path.name)
    assert kind == "board"
    draft = read_board_model(_json(model))
    assert draft.findings == []
    assert draft.text == text
    assert draft.board == parse_board(text)
    if text.startswith("#"):
        assert model["comment"] and "\n#" not in model["comment"]


@pytest.mark.parametrize("path", COURSES, ids=lambda p: p.stem)
def test_every_shipped_course_goes_through_its_model(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    kind, model = read_text(text, path.name)
    assert kind == "course"
    assert all("name" in entry for entry in model["boards"])  # shipped boards by name
    draft = read_course_model(_json(model))
    assert [f for f in draft.findings if f.severity == "error"] == []
    assert draft.text == text  # the shipped files are written the canonical way
    info = parse_course(text, path.name)
    assert draft.course is not None and draft.course.course == info.course


def test_a_course_holding_its_drawn_boards_round_trips() -> None:
    """A drawn board (with its comment, turned a quarter) goes into the one course file and
    comes back as the same model; shipped boards stay named."""
    tiny = find_course("tiny")
    _, model = read_text((COURSE_DIR / "tiny.course").read_text(encoding="utf-8"), "tiny.course")
    ground = board_to_model(tiny.course.boards[0].board, "my own field\n  second line")
    ground["name"] = "my-ground"
    ground["title"] = "My 'Ground' \"#1\""
    model["boards"][0] = {"board": ground, "offset": [0, 0], "rotation": 0}
    model["id"] = "my-tiny"
    draft = read_course_model(_json(model))
    assert draft.ok, [f.message for f in draft.findings]
    assert draft.text is not None and "drawing = '''" in draft.text
    assert 'name = "training-bay"' in draft.text
    kind, back = read_text(draft.text, "my-tiny.course")
    assert kind == "course"
    assert back == model
    assert back["boards"][0]["board"]["comment"] == "my own field\n  second line"


def test_walls_are_mirrored_onto_the_neighbour() -> None:
    model = {"name": "w", "width": 2, "height": 1, "cells": [{"x": 0, "y": 0, "walls": ["E"]}]}
    draft = read_board_model(model)
    assert draft.text is not None and "0 | .   . |" not in draft.text
    assert draft.board is not None
    assert Direction.WEST in draft.board.cell(Pos(1, 0)).walls
    again = board_to_model(draft.board)
    assert again["cells"] == [
        {"x": 0, "y": 0, "walls": ["E"]},
        {"x": 1, "y": 0, "walls": ["W"]},
    ]


def test_comment_lines_split_and_join() -> None:
    assert split_comment("# a\n#\n#  b\nboard: x\n") == ("a\n\n b", "board: x\n")
    assert split_comment("board: x\n") == ("", "board: x\n")


# --------------------------------------------------------------------- problems as findings


def _board(*cells: dict[str, Any], width: int = 4, height: int = 3) -> dict[str, Any]:
    return {"name": "t", "title": "T", "width": width, "height": height, "cells": list(cells)}


PROBLEMS: list[tuple[list[dict[str, Any]], str, list[list[int]]]] = [
    # (cells, code, spaces)
    ([{"x": 1, "y": 1, "pusher": {"direction": "S", "registers": [1]}}], "check.pusher_no_wall",
     [[1, 1]]),
    ([{"x": 2, "y": 0, "lasers": [{"direction": "W", "beams": 1}]}], "check.laser_no_wall",
     [[2, 0]]),
    ([{"x": 0, "y": 2, "belt": {"color": "green", "out": "E"}, "gear": "left"}],
     "check.belt_and_gear", [[0, 2]]),
    ([{"x": 3, "y": 1, "pit": True, "start": 1}], "check.pit_with", [[3, 1]]),
    ([{"x": 0, "y": 0, "start": 2}, {"x": 3, "y": 2, "start": 2}], "check.start_twice",
     [[3, 2], [0, 0]]),
    ([{"x": 1, "y": 0, "checkpoint": 1}, {"x": 1, "y": 2, "checkpoint": 1}],
     "check.checkpoint_twice", [[1, 2], [1, 0]]),
    ([{"x": 0, "y": 1, "reboot": "E"}, {"x": 2, "y": 1, "reboot": "N"}], "check.reboot_twice",
     [[2, 1], [0, 1]]),
    ([{"x": 1, "y": 1, "walls": ["N"], "pusher": {"direction": "S", "registers": [0, 6]}}],
     "check.pusher_registers", [[1, 1]]),
    ([{"x": 1, "y": 1, "crusher": []}], "check.crusher_registers", [[1, 1]]),
    ([{"x": 1, "y": 1, "crusher": [2, 2]}], "check.bad_value", [[1, 1]]),
    ([{"x": 2, "y": 2, "belt": {"color": "blue", "out": "Q"}}], "check.bad_direction", [[2, 2]]),
    ([{"x": 2, "y": 2, "walls": ["up"]}], "check.bad_direction", [[2, 2]]),
    ([{"x": 2, "y": 2, "belt": {"color": "green", "out": "E", "curved": ["W"]}}],
     "check.curve_not_perpendicular", [[2, 2]]),
    ([{"x": 0, "y": 0, "walls": ["E"], "lasers": [{"direction": "W", "beams": 5}]}],
     "check.laser_beams", [[0, 0]]),
    ([{"x": 0, "y": 0, "repair": 3}], "check.repair_wrenches", [[0, 0]]),
    ([{"x": 0, "y": 0, "start": 0}], "check.start_number", [[0, 0]]),
    ([{"x": 0, "y": 0, "start_facing": "E"}], "check.start_facing_alone", [[0, 0]]),
    ([{"x": 0, "y": 0, "checkpoint": -1}], "check.checkpoint_number", [[0, 0]]),
    ([{"x": 0, "y": 0, "gear": "sideways"}], "check.bad_value", [[0, 0]]),
    ([{"x": 0, "y": 0, "colour": "red"}], "check.bad_value", [[0, 0]]),
    ([{"x": 4, "y": 0}], "check.cell_outside", []),
    ([{"x": 1, "y": 1, "pit": True}, {"x": 1, "y": 1, "battery": True}], "check.cell_twice",
     [[1, 1]]),
]  # fmt: skip


@pytest.mark.parametrize(("cells", "code", "spaces"), PROBLEMS, ids=[p[1] for p in PROBLEMS])
def test_each_problem_is_a_finding_at_its_spaces(
    cells: list[dict[str, Any]], code: str, spaces: list[list[int]]
) -> None:
    draft = read_board_model(_board(*cells))
    found = [f for f in draft.findings if f.code == code]
    assert len(found) == 1, [f.to_json() for f in draft.findings]
    assert found[0].severity == "error"
    assert found[0].to_json()["spaces"] == spaces
    assert draft.text is None and not draft.ok
    assert draft.board is not None  # still drawn


@pytest.mark.parametrize(
    ("change", "code"),
    [
        ({"width": 0}, "check.board_size"),
        ({"height": 101}, "check.board_size"),
        ({"name": "no spaces"}, "check.board_name"),
        ({"kind": "garage"}, "check.board_kind"),
    ],
)
def test_board_wide_problems_are_findings(change: dict[str, Any], code: str) -> None:
    draft = read_board_model({**_board(), **change})
    assert [f.code for f in draft.findings] == [code]
    assert draft.text is None


@pytest.mark.parametrize(
    ("model", "where"),
    [
        ([], "board"),
        ({"width": "12", "height": 3}, "board.width"),
        ({"width": 2, "height": 2, "cells": {}}, "board.cells"),
        ({"width": 2, "height": 2, "cells": [{"x": 0}]}, "board.cells[0].y"),
        ({"width": 2, "height": 2, "cells": [{"x": True, "y": 0}]}, "board.cells[0].x"),
        ({"width": 2, "height": 2, "cells": [7]}, "board.cells[0]"),
        ({"width": 2, "height": 2, "title": 5}, "board.title"),
        ({"width": 2, "height": 2, "title": "a\x00b"}, "board.title"),
        ({"width": 2, "height": 2, "comment": "x" * 5000}, "board.comment"),
        ({"width": 2, "height": 2, "title": "\ud800"}, "board.title"),
    ],
)
def test_a_model_of_the_wrong_shape_names_its_field(model: Any, where: str) -> None:
    with pytest.raises(ModelError) as caught:
        read_board_model(model)
    assert caught.value.field == where


def test_course_model_findings_are_placed_on_the_course() -> None:
    """A drawn board's problem is reported at course coordinates (offset and rotation)."""
    drawn = _board({"x": 1, "y": 0, "pusher": {"direction": "S", "registers": [2]}})
    model = {
        "id": "c",
        "title": "C",
        "boards": [
            {"name": "training-ground", "offset": [0, 0]},
            {"board": drawn, "offset": [2, 10], "rotation": 1},
        ],
        "checkpoints": [[2, 2]],
    }
    draft = read_course_model(model)
    [finding] = [f for f in draft.findings if f.code == "check.pusher_no_wall"]
    # (1, 0) on a 4x3 board turned a quarter clockwise is (2, 1), then offset by (2, 10)
    assert finding.to_json()["spaces"] == [[4, 11]]
    assert finding.params["board"] == "t" and finding.params["pos"] == "4,11"
    assert draft.text is None


@pytest.mark.parametrize(
    ("change", "code"),
    [
        ({"boards": [{"name": "nope", "offset": [0, 0]}]}, "check.unknown_board"),
        (
            {"boards": [{"name": "training-ground"}, {"name": "training-bay", "offset": [0, 5]}]},
            "check.boards_overlap",
        ),
        ({"checkpoints": [[50, 50]]}, "check.checkpoint_off_course"),
        ({"boards": []}, "check.no_boards"),
        ({"id": "Big Course"}, "check.course_id"),
        ({"players": [5, 2]}, "check.course_players"),
        ({"edition": "1066"}, "check.course_edition"),
        ({"edition": "2023", "variants": ["four_lives"]}, "check.course_variant"),
        ({"boards": [{"name": "training-ground", "offset": [95, 0]}]}, "check.course_size"),
    ],
)
def test_course_problems_are_findings(change: dict[str, Any], code: str) -> None:
    _, model = read_text((COURSE_DIR / "tiny.course").read_text(encoding="utf-8"), "tiny.course")
    draft = read_course_model({**model, **change})
    assert code in [f.code for f in draft.findings], [f.message for f in draft.findings]
    assert draft.text is None


def test_rule_findings_carry_codes_params_and_spaces() -> None:
    text = (COURSE_DIR / "tiny.course").read_text(encoding="utf-8")
    text = text.replace("[2, 2]]", "[4, 6]]").replace("players = [2, 6]", "players = [2, 7]")
    text = text.replace("at = [3, 5]", "at = [3, 6]")
    report = check_course(parse_course(text, "broken.course"))
    by_code = {f.code: f for f in report.findings}
    pit = by_code["check.checkpoint_in_pit"]
    assert pit.params == {"number": 2, "pos": "4,6"} and pit.spaces == (Pos(4, 6),)
    assert by_code["check.reboot_into_pit"].spaces == (Pos(3, 6), Pos(4, 6))
    assert by_code["check.too_few_starts"].params == {"usable": 6, "players": 7}
    assert len(by_code["check.too_few_starts"].spaces) == 6
    assert [f.message for f in report.findings if f.severity == "error"] == report.errors


def test_unreachable_checkpoints_name_both_ends() -> None:
    text = (COURSE_DIR / "tiny.course").read_text(encoding="utf-8")
    # checkpoint 2 in a pit ringed by pits cannot be reached
    report = check_course(parse_course(text.replace("[2, 2]]", "[4, 6]]"), "c.course"))
    [unreachable] = [f for f in report.findings if f.code == "check.checkpoint_unreachable"]
    assert unreachable.params == {"number": 2, "pos": "4,6", "previous": 1}
    assert unreachable.spaces == (Pos(4, 6), Pos(7, 6))


# ------------------------------------------------------------------------ words of findings


def _all_findings() -> list[Any]:
    findings = []
    for course_id in ("tiny", "y23-betrayal", "y23-cactus-cup", "cl-meltdown", "cl-crossfire"):
        findings += check_course(find_course(course_id)).findings
    text = (COURSE_DIR / "tiny.course").read_text(encoding="utf-8")
    broken = text.replace("[2, 2]]", "[4, 6]]").replace("at = [3, 5]", "at = [3, 6]")
    broken = broken.replace("players = [2, 6]", "players = [2, 7]")
    findings += check_course(parse_course(broken, "b.course")).findings
    for cells, _, _ in PROBLEMS:
        findings += read_board_model(_board(*cells)).findings
    return findings


def test_english_words_are_the_messages_and_every_language_has_them() -> None:
    """The English text of a finding is its message (what ``roborally validate`` prints);
    every other language has its own words for it."""
    findings = _all_findings()
    codes = {f.code for f in findings}
    assert {"check.advice_many_boards", "check.pusher_no_wall", "check.too_few_starts"} <= codes
    for finding in findings:
        assert finding.words("en") == finding.message, finding.code
        for lang in LANGUAGES[1:]:
            assert finding.code in strings(lang), (lang, finding.code)
            words = finding.words(lang)
            assert "{" not in words and words != finding.message, (lang, finding.code, words)


def test_check_keys_have_the_same_placeholders_in_every_language() -> None:
    english = {k: v for k, v in strings("en").items() if k.startswith("check.")}
    assert len(english) > 80
    for lang in LANGUAGES[1:]:
        table = strings(lang)
        for key, text in english.items():
            assert key in table, (lang, key)
            wanted = set(re.findall(r"\{(\w+)\}", text))
            got = set(re.findall(r"\{(\w+)\}", table[key]))
            assert got == wanted, (lang, key)


# ---------------------------------------------------------------------------------- advice


def _advice(course_id: str) -> set[str]:
    return {f.code for f in check_course(find_course(course_id)).findings if f.severity == "advice"}


def test_design_advice_of_10_6() -> None:
    assert "check.advice_many_boards" in _advice("y23-betrayal")  # 3 boards, 2-6 players
    assert "check.advice_crowded_board" in _advice("tiny")  # 1 board, up to 6 robots
    assert "check.advice_dock_edge" in _advice("cl-meltdown")
    assert "check.advice_one_hour" in _advice("cl-crossfire")  # short, 3 flags
    assert "check.advice_reboot_far" in _advice("y23-cactus-cup")
    assert not _advice("y23-high-voltage")
    report = check_course(find_course("y23-betrayal"))
    assert report.advice and not report.warnings  # advice stays out of the warnings (and CLI)


def test_checkpoint_with_one_way_in_and_a_dock_that_touches_nothing() -> None:
    _, model = read_text((COURSE_DIR / "tiny.course").read_text(encoding="utf-8"), "tiny.course")
    model["boards"][1]["offset"] = [0, 11]  # a row of void between the boards
    model["inactive"] = []
    draft = read_course_model(model)
    codes = {f.code: f for f in draft.findings}
    assert "check.advice_dock_detached" in codes
    corner = {
        "id": "corner",
        "title": "Corner",
        "players": [1, 1],
        "boards": [
            {
                "board": {
                    "name": "nook",
                    "width": 3,
                    "height": 2,
                    "cells": [
                        {"x": 0, "y": 0, "walls": ["E"]},
                        {"x": 2, "y": 1, "start": 1},
                        {"x": 1, "y": 1, "reboot": "E"},
                    ],
                },
                "offset": [0, 0],
            }
        ],
        "checkpoints": [[0, 0]],
        "edition": "2023",
    }
    draft = read_course_model(corner)
    [nook] = [f for f in draft.findings if f.code == "check.advice_checkpoint_entrance"]
    assert nook.params == {"number": 1, "pos": "0,0", "ways": 1}


# ----------------------------------------------------------------------- the reachability


class _OldReachability:
    """The search as it was before it was made faster (a copy): one engine simulation per
    state and card, the search over tuples."""

    def __init__(self, grid: Grid) -> None:
        self.grid = grid
        state = new_state(GameConfig(grid.course, ("probe",), seed=1))
        state.grid = grid
        self.state = state
        self.sim = _Lone(state)
        self.edges: dict[Any, list[Any]] = {}
        self.pushers = any(c is not None and c.pusher is not None for c in grid.cells)

    def next_states(self, node: Any) -> list[Any]:
        if node in self.edges:
            return self.edges[node]
        pos, facing, register = node
        result = []
        player = self.state.players[0]
        nxt_register = register % 5 + 1 if self.pushers else 1
        for steps, turn in CARD_MOVES:
            player.pos, player.facing = pos, facing
            self.state.register = register
            self.sim.fell_from = -1
            if steps > 0:
                self.sim.move(0, facing, steps, "card")
            elif steps < 0:
                self.sim.move(0, facing.opposite, 1, "card")
            else:
                self.sim.rotate(0, turn, "card")
            if player.pos is not None:
                self.sim.convey(frozenset({BeltColor.BLUE}), "belt")
                self.sim.convey(frozenset({BeltColor.BLUE}), "belt")
                self.sim.convey(frozenset({BeltColor.GREEN}), "belt")
                self.sim.push_panels(register)
                self.sim.gears()
            if player.pos is None:
                result.append((FELL, Direction.NORTH, self.sim.fell_from))
            else:
                result.append((player.pos, player.facing, nxt_register))
        self.edges[node] = result
        return result

    def reachable(self, starts: list[Any], archive: Pos, classic: bool) -> set[Pos]:
        seen = set(starts)
        queue = deque(starts)
        ends: set[Pos] = set()
        while queue:
            for nxt in self.next_states(queue.popleft()):
                if nxt[0] == FELL:
                    token = None if classic else self.grid.reboot_of_board.get(nxt[2])
                    targets = _all_facings(token.pos if token else archive)
                else:
                    targets = [nxt]
                for target in targets:
                    if target not in seen:
                        seen.add(target)
                        ends.add(target[0])
                        queue.append(target)
        return ends


@pytest.mark.parametrize("course_id", ["tiny", "y23-river-run", "cl-crossfire", "cl-night-shift"])
def test_the_faster_search_finds_what_the_old_one_found(course_id: str) -> None:
    info = find_course(course_id)
    grid = Grid(info.course)
    classic = info.edition == "classic"
    new, old = Reachability(grid), _OldReachability(grid)
    starts = [s.pos for s in grid.start_spaces] + list(grid.checkpoints)
    for pos in starts:
        assert new.reachable(_all_facings(pos), pos, classic) == old.reachable(
            _all_facings(pos), pos, classic
        ), pos
        for facing in DIRECTIONS:
            assert new.next_states((pos, facing, 3)) == old.next_states((pos, facing, 3))
    # stopping at a target answers the same question
    for target in [*grid.checkpoints, Pos(0, 0)]:
        pos = starts[0]
        full = new.reachable(_all_facings(pos), pos, classic)
        assert (target in new.reachable(_all_facings(pos), pos, classic, target)) == (
            target in full
        )


def test_a_check_too_large_for_its_limit_says_so() -> None:
    report = check_course(find_course("y23-betrayal"), max_states=500)
    [skipped] = [f for f in report.findings if f.code == "check.skipped_for_size"]
    assert skipped.severity == "warning" and skipped.params == {"limit": 500}
    assert not report.errors


def test_the_model_example_of_the_board_format_doc() -> None:
    doc = (Path(__file__).parents[1] / "docs" / "board-format.md").read_text(encoding="utf-8")
    section = doc.split("## The builder's board model", 1)[1]
    block = re.search(r"```json\n(.*?)```", section, re.S)
    assert block is not None
    draft = read_board_model(json.loads(block.group(1)))
    assert draft.ok and draft.findings == [] and draft.text is not None
    assert draft.text.startswith("# My board: a belt and a pusher\nboard: my-board\n")
    kind, model = read_text(draft.text, "my-board.board")
    assert kind == "board" and read_board_model(model).text == draft.text


def test_every_state_of_a_course_with_push_panels_moves_as_before() -> None:
    """Every space, facing and register of tiny (belts, gears, push panels, pits, lasers) and
    of a broken tiny (a checkpoint in the pits): the same next states as the old search."""
    text = (COURSE_DIR / "tiny.course").read_text(encoding="utf-8")
    for info in (find_course("tiny"), parse_course(text.replace("[2, 2]]", "[4, 6]]"), "b")):
        grid = Grid(info.course)
        new, old = Reachability(grid), _OldReachability(grid)
        assert new.pushers
        for index, cell in enumerate(grid.cells):
            if cell is None:
                continue
            for facing in DIRECTIONS:
                for register in range(1, 6):
                    node = (grid.pos(index), facing, register)
                    assert new.next_states(node) == old.next_states(node), node
                    assert new._next_codes(new._code(*node)) == tuple(
                        -fell - 2 if pos == FELL else new._code(pos, d, fell)
                        for pos, d, fell in old.next_states(node)
                    ), node
        for space in [*grid.start_spaces]:
            starts = _all_facings(space.pos)
            assert new.reachable(starts, space.pos, False) == old.reachable(
                starts, space.pos, False
            )


def test_a_course_model_keeps_its_alternative_rules() -> None:
    _, model = read_text((COURSE_DIR / "tiny.course").read_text(encoding="utf-8"), "tiny.course")
    assert model["variants"] == []
    draft = read_course_model({**model, "variants": ["less_deadly"], "notes": "Two\nlines"})
    assert draft.text is not None and 'variants = ["less_deadly"]' in draft.text
    _, again = read_text(draft.text, "tiny.course")
    assert again["variants"] == ["less_deadly"] and again["notes"] == "Two\nlines"
