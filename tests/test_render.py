"""Tests for the SVG/PNG renderer (roborally.render)."""

from __future__ import annotations

import re
import struct
import sys
import xml.etree.ElementTree as ET
from collections import Counter
from pathlib import Path

import pytest

from roborally.content.boardtext import parse_board
from roborally.content.courses import DATA, board_named, find_course, list_courses
from roborally.engine.core.board import (
    Belt,
    BeltColor,
    Board,
    Cell,
    Course,
    Grid,
    Laser,
    PlacedBoard,
    RebootToken,
)
from roborally.engine.core.geometry import Direction, Pos, Turn
from roborally.render import (
    CairoMissingError,
    RobotMark,
    board_layer,
    cairo_available,
    render,
    render_png,
    robot_layer,
    svg_to_png,
)
from roborally.render.showcase import showcase_board

N, E, S, W = Direction.NORTH, Direction.EAST, Direction.SOUTH, Direction.WEST
SVG_NS = "{http://www.w3.org/2000/svg}"
DOCS = Path(__file__).resolve().parent.parent / "docs"

SHIPPED_BOARDS = sorted(
    entry.name.removesuffix(".board")
    for entry in (DATA / "boards").iterdir()
    if entry.name.endswith(".board")
)


def sample_yard() -> Board | None:
    """The every-element example board of docs/board-format.md, if the docs still have it."""
    text = (DOCS / "board-format.md").read_text(encoding="utf-8")
    match = re.search(r"```board\n(.*?)```", text, re.S)
    return parse_board(match.group(1), "board-format.md") if match else None


def subjects() -> list[tuple[str, Course]]:
    cases = [(name, Course.single(board_named(name))) for name in SHIPPED_BOARDS]
    cases.append(("tiny", find_course("tiny").course))
    cases.append(("showcase", Course.single(showcase_board())))
    yard = sample_yard()
    if yard is not None:
        cases.append(("sample-yard", Course.single(yard)))
    # A rotated board next to a board turned the other way, with course overlays.
    ground = board_named("training-ground")
    cases.append(
        (
            "rotated",
            Course(
                "rotated",
                (PlacedBoard(ground, Pos(0, 0), 1), PlacedBoard(ground, Pos(10, 0), 3)),
                checkpoints=(Pos(4, 4), Pos(15, 2)),
                reboot_tokens=(RebootToken(Pos(1, 1), S),),
            ),
        )
    )
    return cases


SUBJECTS = subjects()


def classes(element: ET.Element) -> list[str]:
    return (element.get("class") or "").split()


def with_class(root: ET.Element, name: str) -> list[ET.Element]:
    return [e for e in root.iter() if name in classes(e)]


def at(element: ET.Element) -> Pos:
    return Pos(int(element.get("data-x", "-1")), int(element.get("data-y", "-1")))


def wall_edges(grid: Grid) -> set[tuple[int, int, str]]:
    """Every wall edge of the compiled course once (from the cells, not the renderer)."""
    edges = set()
    for i, cell in enumerate(grid.cells):
        if cell is None:
            continue
        p = grid.pos(i)
        for d in cell.walls:
            if d in (N, S):
                edges.add((p.x, p.y + (d == S), "h"))
            else:
                edges.add((p.x + (d == E), p.y, "v"))
    return edges


def cells_where(grid: Grid, test: object) -> set[Pos]:
    assert callable(test)
    return {grid.pos(i) for i, c in enumerate(grid.cells) if c is not None and test(c)}


# ---------------------------------------------------------------------------------------------
# The board layer


@pytest.mark.parametrize(("name", "course"), SUBJECTS, ids=[n for n, _ in SUBJECTS])
def test_every_element_is_drawn(name: str, course: Course) -> None:
    grid = Grid(course)
    root = ET.fromstring(render(course))
    assert root.tag == f"{SVG_NS}svg"

    walls = with_class(root, "wall")
    assert len(walls) == len(wall_edges(grid))
    sides = {(at(w), Direction.parse(w.get("data-side", "?"))) for w in walls}
    for pos, side in sides:
        assert grid.wall_between(pos, side)

    def drawn(cls: str) -> Counter[Pos]:
        return Counter(at(e) for e in with_class(root, cls))

    assert drawn("belt") == Counter(cells_where(grid, lambda c: c.belt is not None))
    assert drawn("pit") == Counter(cells_where(grid, lambda c: c.pit))
    assert drawn("cw") == Counter(cells_where(grid, lambda c: c.gear == Turn.RIGHT))
    assert drawn("ccw") == Counter(cells_where(grid, lambda c: c.gear == Turn.LEFT))
    assert drawn("pusher") == Counter(cells_where(grid, lambda c: c.pusher is not None))
    assert drawn("battery") == Counter(cells_where(grid, lambda c: c.battery))
    assert drawn("repair") == Counter(cells_where(grid, lambda c: c.repair > 0))
    assert drawn("crusher") == Counter(cells_where(grid, lambda c: c.crusher is not None))
    assert drawn("start") == Counter(cells_where(grid, lambda c: c.start is not None))
    assert drawn("reboot") == Counter(cells_where(grid, lambda c: c.reboot is not None))
    checkpoints = {at(e): int(e.get("data-number", "0")) for e in with_class(root, "checkpoint")}
    assert checkpoints == {pos: n for n, pos in enumerate(grid.checkpoints, start=1)}

    # One laser group and one emitter per laser, with as many beam lines as beams.
    expected_lasers = Counter(grid.pos(i) for i, c in enumerate(grid.cells) if c for _ in c.lasers)
    assert drawn("laser") == expected_lasers
    assert drawn("laser-emitter") == expected_lasers
    for group in with_class(root, "laser"):
        assert len(with_class(group, "beam")) == int(group.get("data-beams", "0"))
    assert len(with_class(root, "beam")) == sum(laser.beams for _, laser, _ in grid.lasers)

    # Elements on inactive spaces (under a checkpoint or reboot token) are faded.
    for element in with_class(root, "inactive"):
        assert grid.inactive[grid.index(at(element))]
        assert element.get("opacity") is not None

    assert len(with_class(root, "board-outline")) == len(course.boards)
    assert len(with_class(root, "board-label")) == len(course.boards)


def test_every_shipped_course_renders() -> None:
    for info in list_courses():
        grid = Grid(info.course)
        root = ET.fromstring(render(info.course, classic=info.edition == "classic"))
        assert len(with_class(root, "wall")) == len(wall_edges(grid)), info.id
        assert len(with_class(root, "checkpoint")) == len(grid.checkpoints), info.id
        assert len(with_class(root, "board-outline")) == len(info.course.boards), info.id
        assert len(with_class(root, "beam")) == sum(laser.beams for _, laser, _ in grid.lasers)


def test_beam_reach_matches_the_engine() -> None:
    for _, course in SUBJECTS:
        grid = Grid(course)
        root = ET.fromstring(render(course))
        reach = {
            (at(e), e.get("data-fires")): int(e.get("data-reach", "0"))
            for e in with_class(root, "laser")
        }
        for pos, laser, path in grid.lasers:
            assert reach[(pos, laser.direction.letter)] == len(path)


def test_beam_stops_at_a_wall() -> None:
    board = Board.create(
        "beam",
        5,
        1,
        {
            Pos(0, 0): Cell(walls=frozenset({W}), lasers=(Laser(E, 2),)),
            Pos(2, 0): Cell(walls=frozenset({E})),
        },
    )
    root = ET.fromstring(render(board, cell=40))
    (laser,) = with_class(root, "laser")
    assert laser.get("data-reach") == "3"
    beams = with_class(laser, "beam")
    assert len(beams) == 2
    # The laser fires east: in its local frame it fires up, from the west wall to the wall at
    # the east edge of the third cell (2.5 cells from the emitter's centre, less half a wall).
    assert {b.get("y2") for b in beams} == {"-97.2"}


def test_belt_pieces_show_their_entries() -> None:
    root = ET.fromstring(render(showcase_board()))

    def belt_at(x: int, y: int) -> ET.Element:
        (belt,) = [e for e in with_class(root, "belt") if at(e) == Pos(x, y)]
        return belt

    turn = belt_at(3, 1)  # blue, from the west turning south
    assert "turn" in classes(turn) and "blue" in classes(turn)
    assert len(with_class(turn, "belt-band")) == 1
    double = belt_at(6, 3)  # green, curved entries from east and west, nothing behind
    assert "merge" in classes(double) and "turn" in classes(double)
    assert len(with_class(double, "belt-band")) == 2
    assert double.get("data-curved") == "EW"
    tee = belt_at(3, 4)  # blue, fed straight from the north plus a curve from the east
    assert "merge" in classes(tee) and "turn" not in classes(tee)
    assert len(with_class(tee, "belt-band")) == 2
    straight = belt_at(1, 1)
    assert len(with_class(straight, "belt-band")) == 1
    assert len(with_class(straight, "belt-arrow")) == 2  # express: a double chevron
    green = belt_at(6, 2)
    assert len(with_class(green, "belt-arrow")) == 1


def test_belt_under_a_checkpoint_is_faded() -> None:
    root = ET.fromstring(render(showcase_board()))
    faded = {at(e) for e in with_class(root, "inactive")}
    assert Pos(3, 2) in faded  # checkpoint 2 lies on a blue belt
    assert Pos(3, 3) not in faded


def test_classic_draws_normal_belts_yellow() -> None:
    board = Board.create(
        "belts",
        2,
        1,
        {
            Pos(0, 0): Cell(belt=Belt(BeltColor.GREEN, E)),
            Pos(1, 0): Cell(belt=Belt(BeltColor.BLUE, E)),
        },
    )

    def band_colors(svg: str) -> list[str | None]:
        return [e.get("stroke") for e in with_class(ET.fromstring(svg), "belt-band")]

    modern, classic = band_colors(render(board)), band_colors(render(board, classic=True))
    assert modern[1] == classic[1]  # blue stays blue
    assert modern[0] != classic[0]
    assert classic[0] is not None and classic[0].lower().startswith("#e")


def test_pusher_and_crusher_registers_are_printed() -> None:
    root = ET.fromstring(render(showcase_board()))
    pushers = {e.get("data-registers") for e in with_class(root, "pusher")}
    assert pushers == {"1 3 5", "2 4"}
    texts = ["".join(e.itertext()) for e in with_class(root, "pusher")]
    assert any("1 3 5" in t for t in texts)  # a horizontal plate prints the numbers in a row
    assert any(re.sub(r"\s", "", t) == "24" for t in texts)
    (crusher,) = with_class(root, "crusher")
    assert "2 4" in "".join(crusher.itertext())


def test_start_spaces_with_facing() -> None:
    root = ET.fromstring(render(showcase_board()))
    starts = {int(e.get("data-number", "0")): e for e in with_class(root, "start")}
    assert starts[1].get("data-facing") == "N" and with_class(starts[1], "facing")
    assert starts[2].get("data-facing") is None and not with_class(starts[2], "facing")


def test_board_layer_is_a_group() -> None:
    grid = Grid(find_course("tiny").course)
    layer = ET.fromstring(board_layer(grid, cell=30))
    assert layer.tag == "g" and "board-layer" in classes(layer)
    (outline, bay) = with_class(layer, "board-outline")
    assert (outline.get("width"), outline.get("height")) == ("300", "300")
    assert (bay.get("y"), bay.get("height")) == ("300", "90")
    assert "dock" in classes(bay)


def test_board_alone_is_a_one_board_course() -> None:
    board = board_named("training-ground")
    assert render(board) == render(Course.single(board))
    assert render(board) == render(Grid(Course.single(board)))


# ---------------------------------------------------------------------------------------------
# Documents, robots, determinism


def test_document_size_and_title() -> None:
    course = find_course("tiny").course  # 10 x 13 cells
    root = ET.fromstring(render(course, cell=40))
    assert (root.get("width"), root.get("height")) == ("440", "560")
    assert root.get("viewBox") == "0 0 440 560"
    titled = ET.fromstring(render(course, cell=40, title="Run <1> & co"))
    assert (titled.get("width"), titled.get("height")) == ("440", "592")
    (title,) = with_class(titled, "title")
    assert "".join(title.itertext()) == "Run <1> & co"
    assert titled.find(f"{SVG_NS}title") is not None
    assert with_class(titled, "background")


def test_robot_layer() -> None:
    robots = [
        RobotMark(Pos(1, 2), N, "#e03131", "1"),
        RobotMark(Pos(3, 0), E, "rgb(20, 100, 200)", "<B&>"),
        RobotMark(Pos(0, 0), W, "gold", ""),
    ]
    layer = ET.fromstring(robot_layer(robots, cell=50))
    assert "robot-layer" in classes(layer)
    drawn = with_class(layer, "robot")
    assert len(drawn) == 3
    assert [at(r) for r in drawn] == [r.pos for r in robots]
    assert [r.get("data-facing") for r in drawn] == ["N", "E", "W"]
    assert drawn[0].get("transform") == "translate(75 125)"
    bodies = [with_class(r, "robot-body")[0] for r in drawn]
    assert [b.get("transform") for b in bodies] == ["rotate(0)", "rotate(90)", "rotate(270)"]
    assert all(with_class(r, "robot-facing") for r in drawn)
    assert "".join(with_class(drawn[1], "robot-label")[0].itertext()) == "<B&>"
    assert drawn[1].get("data-label") == "<B&>"
    assert not with_class(drawn[2], "robot-label")
    assert with_class(bodies[1], "robot-facing")[0] is not None
    fills = [next(e for e in b if e.tag.endswith("rect")).get("fill") for b in bodies]
    assert fills == ["#e03131", "rgb(20, 100, 200)", "gold"]
    # Robots in a full document sit above the board layer.
    doc = ET.fromstring(render(find_course("tiny").course, robots=robots))
    course_group = with_class(doc, "course")[0]
    assert [classes(g)[0] for g in course_group] == ["board-layer", "robot-layer"]
    assert not with_class(ET.fromstring(robot_layer([])), "robot")


def test_output_is_deterministic() -> None:
    robots = [RobotMark(Pos(2, 3), S, "red", "R")]
    for _, course in SUBJECTS:
        first = render(course, robots=robots, title="T")
        assert first == render(course, robots=robots, title="T")
    # Equal boards built separately give the same picture.
    assert render(showcase_board(), classic=True) == render(showcase_board(), classic=True)


def test_numbers_are_compact() -> None:
    svg = render(showcase_board(), cell=37)
    assert not re.search(r"\d\.\d{3,}", svg)
    assert "-0 " not in svg and '"-0"' not in svg


# ---------------------------------------------------------------------------------------------
# PNG

needs_cairo = pytest.mark.skipif(not cairo_available(), reason="cairo cannot be loaded")


def png_size(path: Path) -> tuple[int, int]:
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", data[16:24])
    return width, height


@needs_cairo
def test_render_png(tmp_path: Path) -> None:
    out = tmp_path / "tiny.png"
    render_png(find_course("tiny").course, out, cell=32, title="Training Run")
    assert out.is_file()
    assert png_size(out) == (10 * 32 + 32, 13 * 32 + 32 + round(32 * 0.8))


@needs_cairo
def test_svg_to_png_every_subject(tmp_path: Path) -> None:
    for name, course in SUBJECTS:
        grid = Grid(course)
        out = tmp_path / f"{name}.png"
        robots = (
            [RobotMark(grid.start_spaces[0].pos, E, "#1971c2", "1")] if grid.start_spaces else []
        )
        svg_to_png(render(course, robots=robots, cell=24), out)
        assert png_size(out) == (grid.width * 24 + 24, grid.height * 24 + 24)


def test_missing_cairo_is_a_clear_error(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setitem(sys.modules, "cairosvg", None)  # makes "import cairosvg" fail
    assert not cairo_available()
    with pytest.raises(CairoMissingError, match="cairo"):
        svg_to_png(render(showcase_board()), tmp_path / "x.png")
    assert not (tmp_path / "x.png").exists()
