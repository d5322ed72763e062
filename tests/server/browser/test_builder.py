"""The board and course builder (/build, docs/builder.md) through the real page: a board drawn
from scratch with the mouse, a course made of it and a docking bay, a live error seen and fixed,
a test drive, the course saved and played to its end against a bot; every shipped board and
course opened and written back equal; a photo traced; files downloaded and uploaded (a malformed
and an oversized one); a board built with the keyboard only; the phone layout with touch
painting; the lobby's link, custom course list and ``/?course=``; and axe-core's check.

Screenshots ``builder-*`` go to ``ROBORALLY_SCREENSHOTS`` when it is set (docs/builder.md shows
them), else to a temporary folder.
"""

from __future__ import annotations

import json
import os
import re
import struct
import zlib
from collections.abc import Iterator
from importlib import resources
from pathlib import Path
from typing import Any

import httpx
import pytest
from playwright.sync_api import Page, expect

from . import conftest
from .conftest import Contexts, ServerProcess
from .test_browser_a11y import axe_problems, axe_script

DATA = resources.files("roborally.content") / "data"


# ------------------------------------------------------------------ helpers
@pytest.fixture(scope="module")
def doc_shot(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """doc_shot(page, name): a screenshot for docs/builder.md (see the module docstring)."""
    folder = os.environ.get("ROBORALLY_SCREENSHOTS")
    scratch = tmp_path_factory.mktemp("builder-shots")

    def take(page: Page, name: str, scroll: int = 0, **options: Any) -> Path:
        settle(page)
        page.evaluate("(y) => window.scrollTo(0, y)", scroll)
        path = (Path(folder) if folder else scratch) / f"{name}.png"
        path.parent.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(path), animations="disabled", **options)
        if folder:
            conftest._shrink(path)
        return path

    yield take


def open_builder(
    contexts: Contexts, server: ServerProcess, phone: bool = False, query: str = ""
) -> Page:
    page = contexts.page(phone=phone)
    page.goto(f"{server.base}/build?lang=en{query}")
    settle(page)
    return page


def settle(page: Page) -> None:
    """Wait until the page has checked its last change (POST /api/build/check answered)."""
    page.wait_for_function("() => !!window.rrBuild && rrBuild.checker.settled()", timeout=20_000)


def point(page: Page, x: int, y: int, dx: float = 0.5, dy: float = 0.5) -> tuple[float, float]:
    """The screen point of space x,y (dx, dy: where in the space, 0..1)."""
    page.locator(".build-svg").scroll_into_view_if_needed()
    xy = page.evaluate(
        """([x, y]) => { const m = rrBuild.view.svg.getScreenCTM();
            const p = new DOMPoint(x * 48, y * 48).matrixTransform(m); return [p.x, p.y]; }""",
        [x + dx, y + dy],
    )
    return xy[0], xy[1]


def click_space(page: Page, x: int, y: int, dx: float = 0.5, dy: float = 0.5) -> None:
    page.mouse.click(*point(page, x, y, dx, dy))


def drag(page: Page, spaces: list[tuple[int, int]]) -> None:
    page.mouse.move(*point(page, *spaces[0]))
    page.mouse.down()
    for x, y in spaces[1:]:
        page.mouse.move(*point(page, x, y), steps=3)
    page.mouse.up()


def cell(page: Page, x: int, y: int) -> dict[str, Any]:
    return dict(page.evaluate("([x, y]) => rrBuild.board.get(x, y)", [x, y]))


def walls(page: Page, x: int, y: int) -> list[str]:
    return list(page.evaluate("([x, y]) => rrBuild.board.wallsOf(x, y)", [x, y]))


def codes(page: Page) -> list[str]:
    settle(page)
    return list(page.evaluate("() => rrBuild.checked().findings.map((f) => f.code)"))


def png(width: int, height: int, pixel: Any) -> bytes:
    """A small PNG file: pixel(x, y) -> (r, g, b)."""
    rows = b"".join(
        b"\x00" + b"".join(bytes(pixel(x, y)) for x in range(width)) for y in range(height)
    )

    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    head = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", head)
        + chunk(b"IDAT", zlib.compress(rows))
        + chunk(b"IEND", b"")
    )


def board_photo(path: Path) -> None:
    """A 'photo' of a 6 x 4 board taken at an angle: a grey quadrilateral with grid lines, a
    green belt row and a dark pit, over a wooden table."""
    from PIL import Image, ImageDraw

    img = Image.new("RGB", (480, 360), (120, 84, 52))
    draw = ImageDraw.Draw(img)
    corners = [(70, 60), (420, 40), (450, 320), (40, 300)]  # nw ne se sw

    # A real camera's view: the projective map of the unit square onto those corners.
    rows: list[list[float]] = []
    rhs: list[float] = []
    for (u, v), (x, y) in zip([(0, 0), (1, 0), (1, 1), (0, 1)], corners, strict=True):
        rows += [[u, v, 1, 0, 0, 0, -x * u, -x * v], [0, 0, 0, u, v, 1, -y * u, -y * v]]
        rhs += [x, y]
    m: list[list[float]] = [[*row, b] for row, b in zip(rows, rhs, strict=True)]
    for c in range(8):
        p = max(range(c, 8), key=lambda r: abs(m[r][c]))
        m[c], m[p] = m[p], m[c]
        for r in range(8):
            if r != c:
                f = m[r][c] / m[c][c]
                m[r] = [a - f * b for a, b in zip(m[r], m[c], strict=True)]
    h = [m[i][8] / m[i][i] for i in range(8)]

    def at(u: float, v: float) -> tuple[float, float]:
        d = h[6] * u + h[7] * v + 1
        return (h[0] * u + h[1] * v + h[2]) / d, (h[3] * u + h[4] * v + h[5]) / d

    draw.polygon(corners, fill=(200, 205, 212))
    for (u0, v0), colour in {
        (1, 1): (58, 157, 78),
        (2, 1): (58, 157, 78),
        (3, 1): (58, 157, 78),
        (4, 2): (20, 20, 24),
    }.items():
        quad = [
            at(u0 / 6, v0 / 4),
            at((u0 + 1) / 6, v0 / 4),
            at((u0 + 1) / 6, (v0 + 1) / 4),
            at(u0 / 6, (v0 + 1) / 4),
        ]
        draw.polygon(quad, fill=colour)
    for i in range(7):
        draw.line([at(i / 6, 0), at(i / 6, 1)], fill=(90, 96, 104), width=2)
    for j in range(5):
        draw.line([at(0, j / 4), at(1, j / 4)], fill=(90, 96, 104), width=2)
    draw.line([at(2 / 6, 3 / 4), at(3 / 6, 3 / 4)], fill=(245, 166, 35), width=6)
    img.save(path)


# --------------------------------------------------------------------- tests
def test_a_board_from_scratch_a_course_with_a_dock_a_live_error_fixed_a_test_drive_and_a_game(
    live_server: ServerProcess, contexts: Contexts, ui: Any, doc_shot: Any
) -> None:
    page = open_builder(contexts, live_server)
    # An empty 12 x 5 factory board.
    page.locator("details.new-board summary").click()
    page.fill("[data-testid=new-width]", "12")
    page.fill("[data-testid=new-height]", "5")
    page.click("[data-testid=new-board]")
    page.fill("[data-testid=board-title-input]", "Test Yard")
    page.locator("[data-testid=board-title-input]").press("Tab")
    page.fill("[data-testid=board-name]", "test-yard")
    page.locator("[data-testid=board-name]").press("Tab")
    assert page.evaluate("() => [rrBuild.board.width, rrBuild.board.height]") == [12, 5]

    # Belts by dragging: they follow the path and turn where it turns (a curved entry).
    page.click("[data-testid=tool-belt]")
    drag(page, [(1, 3), (2, 3), (3, 3), (3, 2), (3, 1)])
    assert cell(page, 1, 3)["belt"] == {"color": "green", "out": "E", "curved": []}
    assert cell(page, 3, 3)["belt"] == {"color": "green", "out": "N", "curved": ["W"]}
    assert cell(page, 3, 1)["belt"]["out"] == "N"
    # A blue belt, a gear, a pit, a laser (it gets the wall behind it), a pusher, a battery.
    page.select_option("[data-testid=param-color]", "blue")
    click_space(page, 6, 4)
    assert cell(page, 6, 4)["belt"]["color"] == "blue"
    page.keyboard.press("g")
    click_space(page, 8, 3)
    page.keyboard.press("p")
    click_space(page, 10, 3)
    page.keyboard.press("l")
    click_space(page, 7, 0)
    assert cell(page, 7, 0)["lasers"] == [{"direction": "S", "beams": 1}]
    assert "N" in walls(page, 7, 0)
    page.keyboard.press("e")
    click_space(page, 0, 4)
    page.keyboard.press("r")
    click_space(page, 11, 0)
    assert cell(page, 11, 0)["reboot"] == "E"
    # Walls around space 5,1 (the side nearest the pointer); its checkpoint will be walled in.
    page.keyboard.press("w")
    for side, (dx, dy) in {
        "N": (0.5, 0.1),
        "E": (0.9, 0.5),
        "S": (0.5, 0.9),
        "W": (0.1, 0.5),
    }.items():
        click_space(page, 5, 1, dx, dy)
        assert side in walls(page, 5, 1)
    settle(page)
    assert page.evaluate("() => rrBuild.checked().ok") is True, codes(page)
    # Undo and redo (buttons and keys).
    page.click("[data-testid=undo]")
    assert "W" not in walls(page, 5, 1)
    page.keyboard.press("Control+y")
    assert "W" in walls(page, 5, 1)
    # The renderer's picture of the board.
    expect(page.locator(".server-layer *").first).to_be_attached()
    doc_shot(page, "builder-board-desktop")

    # The course: the board and a docking bay below it; the bay flipped to its other side.
    page.click("[data-testid=mode-course]")
    page.select_option("[data-testid=course-add-board]", "y23-dock-a")
    page.click("[data-testid=course-add]")
    expect(page.locator("[data-testid=placed-board]")).to_have_count(2)
    placed = page.evaluate(
        "() => rrBuild.state.course.boards.map((b) => [b.name || null, b.offset])"
    )
    assert placed == [[None, [0, 0]], ["y23-dock-a", [0, 5]]]
    expect(page.locator("[data-testid=course-panel]")).to_contain_text("Other side: Launch Bay B")
    page.click("[data-testid=board-flip]")
    assert page.evaluate("() => rrBuild.state.course.boards[1].name") == "y23-dock-b"
    page.keyboard.press("f")  # F flips back
    assert page.evaluate("() => rrBuild.state.course.boards[1].name") == "y23-dock-a"
    # A board dragged with the mouse (the Choose tool), and the move undone.
    page.click("[data-testid=course-palette] [data-testid=tool-pick]")
    drag(page, [(2, 6), (3, 6)])
    assert page.evaluate("() => rrBuild.state.course.boards[1].offset") == [1, 5]
    page.click("[data-testid=undo]")
    assert page.evaluate("() => rrBuild.state.course.boards[1].offset") == [0, 5]
    page.fill("[data-testid=course-title]", "Test Loop")
    page.locator("[data-testid=course-title]").press("Tab")
    page.fill("[data-testid=course-id]", "test-loop")
    page.locator("[data-testid=course-id]").press("Tab")
    page.select_option("[data-testid=course-tier]", "starter")

    # Checkpoint 1 inside the walls: a live error, marked on its space; a click shows it.
    page.click("[data-testid=course-palette] [data-testid=tool-checkpoint]")
    click_space(page, 5, 1)
    found = codes(page)
    assert any(re.match(r"check\.checkpoint(_1)?_unreachable", c) for c in found), found
    error = page.locator("[data-testid=finding][data-severity=error]").first
    expect(error).to_contain_text("5,1")
    expect(page.locator(".finding-mark.error[data-x='5'][data-y='1']")).to_have_count(1)
    doc_shot(page, "builder-course-desktop")
    error.locator("button").click()
    assert page.evaluate("() => rrBuild.view.cursor") == [5, 1]
    # The fix: the walls opened but the north one (in the board, through the inspector).
    page.click("[data-testid=mode-board]")
    page.evaluate("() => rrBuild.view.moveCursor(5, 1)")
    for side in "ESW":
        page.click(f"[data-testid=wall-{side}]")
    assert walls(page, 5, 1) == ["N"]
    page.click("[data-testid=mode-course]")
    found = codes(page)
    assert not any("unreachable" in c for c in found), found
    assert page.evaluate("() => rrBuild.checked().ok") is True

    # Test drive: a robot on start space 1 of the bay, five cards, the path drawn.
    page.click("[data-testid=drive-place]")
    click_space(page, 5, 7)
    expect(page.locator("[data-testid=drive-robot-at]")).to_contain_text("Robot on 5,7")
    regs = page.locator("[data-testid=drive-reg]")
    for n, card in enumerate(["move1", "rotate_right", "move1", "u_turn", "move1"]):
        regs.nth(n).select_option(card)
    page.click("[data-testid=drive-run]")
    page.wait_for_function("() => rrBuild.driver.el.dataset.state === 'done'", timeout=30_000)
    expect(page.locator("[data-testid=drive-register]")).to_have_count(5)
    assert page.locator(".drive-line").count() >= 1
    robot = page.locator("[data-testid=drive-robot]")
    assert (robot.get_attribute("data-x"), robot.get_attribute("data-y")) != ("5", "7")
    panel = page.locator("[data-testid=drive]").bounding_box()
    assert panel is not None
    doc_shot(page, "builder-drive-desktop", scroll=int(panel["y"] - 70 + page.evaluate("scrollY")))

    # Share and play: saved to the store (a link), then a game against a bot to its end.
    page.fill("[data-testid=play-author]", "Tess")
    page.check("[data-testid=play-variant-less_deadly]")  # kept in the course's file
    page.wait_for_function("() => rrBuild.state.course.variants.includes('less_deadly')")
    page.click("[data-testid=play-save]")
    link = page.locator("[data-testid=share-link]")
    expect(link).to_contain_text("/?course=c-")
    course_id = (link.get_attribute("href") or "").split("course=")[1]
    listed = httpx.get(live_server.base + "/api/custom-courses", timeout=10).json()["courses"]
    assert any(c["id"] == course_id and c["author"] == "Tess" for c in listed)
    stored = httpx.get(f"{live_server.base}/api/custom-courses/{course_id}", timeout=10).json()
    assert 'variants = ["less_deadly"]' in stored["text"]
    # Its author can take it off the server again (the owner token the page kept), and save anew.
    page.click("[data-testid=play-delete]")
    expect(page.locator("[data-testid=play-message]")).to_contain_text("deleted")
    gone = httpx.get(f"{live_server.base}/api/custom-courses/{course_id}", timeout=10)
    assert gone.status_code == 404
    page.click("[data-testid=play-save]")
    expect(link).to_have_attribute("href", re.compile(rf"course=(?!{course_id}$)c-"))  # a new id
    course_id = (link.get_attribute("href") or "").split("course=")[1]
    page.fill("[data-testid=play-bots]", "1")
    page.fill("[data-testid=play-rounds]", "2")
    page.evaluate("() => localStorage.setItem('rr.speed', '0')")
    page.click("[data-testid=play-now]")
    page.wait_for_url(re.compile(r"\?game="))
    game_id = page.url.split("game=")[1].split("#")[0].split("&")[0]
    game = httpx.get(f"{live_server.base}/api/games/{game_id}", timeout=10).json()
    assert game["course"] == course_id and game["variants"] == ["less_deadly"]
    expect(page.locator(".gtitle")).to_have_text("Test Loop")  # its title, not its id
    ui.play_until(page, lambda: ui.visible(page, "[data-testid=result]"), timeout=120)
    expect(page.locator("[data-testid=result]")).to_be_visible()
    page.goto(f"{live_server.base}/?replay={game_id}&lang=en")  # its replay names it too
    expect(page).to_have_title("Replay · Test Loop · RoboRally")


def test_every_shipped_board_and_course_opens_in_the_builder_and_saves_back_equal(
    live_server: ServerProcess, contexts: Contexts
) -> None:
    page = open_builder(contexts, live_server)
    boards = sorted(
        p.name[: -len(".board")] for p in (DATA / "boards").iterdir() if p.name.endswith(".board")
    )
    courses = sorted(
        p.name[: -len(".course")]
        for p in (DATA / "courses").iterdir()
        if p.name.endswith(".course")
    )
    # The page's own calls: open the shipped file, wait for its check, keep its text.
    texts = page.evaluate(
        """async ([boards, courses]) => {
            const settled = async () => {
                while (!rrBuild.checker.settled()) await new Promise((r) => setTimeout(r, 40));
            };
            const out = {};
            for (const name of boards) {
                await rrBuild.loadShippedBoard(name);
                await settled();
                out[name + ".board"] = rrBuild.results.board.text;
            }
            rrBuild.setMode("course");
            for (const id of courses) {
                await rrBuild.loadShippedCourse(id);
                await settled();
                out[id + ".course"] = rrBuild.results.course.text;
            }
            return out;
        }""",
        [boards, courses],
    )
    differ = []
    for name, text in texts.items():
        folder = "boards" if name.endswith(".board") else "courses"
        if text != (DATA / folder / name).read_text(encoding="utf-8"):
            differ.append(name)
    assert len(texts) == len(boards) + len(courses)
    assert not differ, differ


def test_a_photo_traced_under_the_grid(
    live_server: ServerProcess, contexts: Contexts, tmp_path: Path, doc_shot: Any
) -> None:
    page = open_builder(contexts, live_server)
    page.locator("details.new-board summary").click()
    page.fill("[data-testid=new-width]", "6")
    page.fill("[data-testid=new-height]", "4")
    page.click("[data-testid=new-board]")
    photo = tmp_path / "board-photo.png"
    board_photo(photo)
    page.set_input_files("[data-testid=trace-file]", str(photo))
    img = page.locator("[data-testid=trace-photo]")
    expect(img).to_be_visible()
    assert (img.get_attribute("src") or "").startswith("blob:"), "read in the browser, not uploaded"
    expect(page.locator("[data-testid=trace-opacity]")).to_be_visible()
    doc_shot(page, "builder-trace-loaded")
    # A pin moved with the keyboard moves the photo at its corner (and back with the other key).
    handle = page.locator("[data-testid=trace-handle-nw]")
    handle.focus()
    page.keyboard.press("ArrowRight")
    assert float(handle.get_attribute("data-x") or 0) < 0, "the photo moved right at that corner"
    page.keyboard.press("ArrowLeft")
    assert abs(float(handle.get_attribute("data-x") or 9)) < 0.5
    # Each pin dragged onto the board's corner in the photo (pixels 70,60 420,40 450,320 40,300
    # of the 480 x 360 photo, wherever the photo shows them now).
    for name, (px, py) in zip(
        ["nw", "ne", "se", "sw"], [(70, 60), (420, 40), (450, 320), (40, 300)], strict=True
    ):
        pin = page.locator(f"[data-testid=trace-handle-{name}]").bounding_box()
        assert pin is not None
        target = page.evaluate(
            """([px, py]) => { const [x, y] = rrBuild.tracer.photoToBoard([px, py]);
                const m = rrBuild.view.svg.getScreenCTM();
                const p = new DOMPoint(x, y).matrixTransform(m); return [p.x, p.y]; }""",
            [px, py],
        )
        page.mouse.move(pin["x"] + pin["width"] / 2, pin["y"] + pin["height"] / 2)
        page.mouse.down()
        page.mouse.move(*target, steps=4)
        page.mouse.up()
    pinned = page.evaluate("() => rrBuild.tracer.points")
    for (x, y), (px, py) in zip(pinned, [(70, 60), (420, 40), (450, 320), (40, 300)], strict=True):
        assert abs(x - px) < 3 and abs(y - py) < 3, pinned
    page.fill("[data-testid=trace-opacity]", "60")
    page.locator("[data-testid=trace-opacity]").dispatch_event("input")
    assert img.evaluate("(el) => el.style.opacity") == "0.6"
    assert "matrix3d" in (img.evaluate("(el) => el.style.transform") or "")
    # Paint over it: the belt row and the pit of the photo.
    page.click("[data-testid=tool-belt]")
    drag(page, [(1, 1), (2, 1), (3, 1)])
    page.keyboard.press("p")
    click_space(page, 4, 2)
    page.keyboard.press("w")
    click_space(page, 2, 2, 0.5, 0.95)
    assert cell(page, 1, 1)["belt"]["out"] == "E" and cell(page, 4, 2)["pit"] is True
    settle(page)
    page.evaluate("() => rrBuild.view.moveCursor(5, 3)")
    doc_shot(page, "builder-trace-desktop")


def test_files_download_and_upload_errors(
    live_server: ServerProcess, contexts: Contexts, tmp_path: Path
) -> None:
    page = open_builder(contexts, live_server, query="&board=training-ground")
    expect(page.locator("[data-testid=board-name]")).to_have_value("training-ground")
    settle(page)
    with page.expect_download() as info:
        page.click("[data-testid=download]")
    download = info.value
    assert download.suggested_filename == "training-ground.board"
    saved = Path(download.path()).read_text(encoding="utf-8")
    assert saved == (DATA / "boards" / "training-ground.board").read_text(encoding="utf-8")

    # A malformed board: the message names its line and column.
    bad = tmp_path / "broken.board"
    bad.write_text(
        "board: broken\nsize: 3x2\n\n    0   1   2\n  +---+---+---+\n"
        "0 | .   Q   > |\n  +   +---+   +\n1 | O   E   cw|\n  +---+---+---+\n"
    )
    page.set_input_files("[data-testid=open-file]", str(bad))
    message = page.locator("[data-testid=file-message]")
    expect(message).to_contain_text(re.compile(r"broken\.board, line 6, column \d+: .*Q"))
    # Too large: refused before it is sent, with the limit.
    big = tmp_path / "huge.course"
    big.write_text("# " + "x" * 300_000 + "\n")
    page.set_input_files("[data-testid=open-file]", str(big))
    expect(message).to_contain_text("huge.course is too large")
    # A good course file opens as a course.
    good = tmp_path / "mine.course"
    good.write_text((DATA / "courses" / "tiny.course").read_text(encoding="utf-8"))
    page.set_input_files("[data-testid=open-file]", str(good))
    expect(message).to_contain_text("Opened mine.course")
    assert page.evaluate("() => rrBuild.mode") == "course"
    assert page.evaluate("() => rrBuild.state.course.id") == "tiny"


def test_a_board_built_with_the_keyboard_only(
    live_server: ServerProcess, contexts: Contexts
) -> None:
    page = open_builder(contexts, live_server)
    for _ in range(80):
        if page.evaluate("() => document.activeElement === rrBuild.view.scroller"):
            break
        page.keyboard.press("Tab")
    assert page.evaluate("() => document.activeElement === rrBuild.view.scroller"), (
        "Tab reaches the board"
    )
    # Every tool button is reachable by Tab too (they are buttons), with a visible focus.
    outline = page.evaluate("() => getComputedStyle(rrBuild.view.scroller).outlineStyle")
    assert outline != "none"
    page.keyboard.press("b")  # belt, pointing east
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowDown")
    page.keyboard.press("Enter")  # 1,1
    page.keyboard.press("ArrowRight")
    page.keyboard.press("Space")  # 2,1
    page.keyboard.press("d")  # the belt turns: south
    page.keyboard.press("ArrowRight")
    page.keyboard.press("Enter")  # 3,1 going south
    assert cell(page, 1, 1)["belt"]["out"] == "E"
    assert cell(page, 3, 1)["belt"]["out"] == "S"
    page.keyboard.press("w")  # wall on the north side (the wall tool's side)
    page.keyboard.press("ArrowDown")
    page.keyboard.press("Enter")
    assert walls(page, 3, 2) == ["N"]
    page.keyboard.press("s")  # start spaces 1 and 2
    page.keyboard.press("ArrowLeft")
    page.keyboard.press("Enter")
    page.keyboard.press("ArrowLeft")
    page.keyboard.press("Enter")
    assert cell(page, 2, 2)["start"] == 1 and cell(page, 1, 2)["start"] == 2
    # Select a region with Shift + arrows, turn it (]), mirror it (M), undo both.
    page.keyboard.press("ArrowUp")
    page.keyboard.press("Shift+ArrowRight")
    page.keyboard.press("Shift+ArrowRight")
    assert page.evaluate("() => rrBuild.selection") == {"x": 1, "y": 1, "w": 3, "h": 1}
    page.keyboard.press("m")
    assert cell(page, 1, 1)["belt"]["out"] == "S" and cell(page, 3, 1)["belt"]["out"] == "W"
    page.keyboard.press("Control+z")
    assert cell(page, 1, 1)["belt"]["out"] == "E"
    page.keyboard.press("Control+y")
    assert cell(page, 3, 1)["belt"]["out"] == "W"
    page.keyboard.press("Control+z")
    page.keyboard.press("Escape")
    page.keyboard.press("x")  # erase the cursor's space, 3,1
    page.keyboard.press("Enter")
    assert cell(page, 3, 1) == {} and walls(page, 3, 2) == []
    settle(page)
    text = page.evaluate("() => rrBuild.checked().text")
    assert "S1" in text and "S2" in text


def test_region_turns_and_mirrors_move_directions_walls_and_curves(
    live_server: ServerProcess, contexts: Contexts
) -> None:
    page = open_builder(contexts, live_server)
    result = page.evaluate(
        """async () => {
            const m = await import("/js/build/model.js");
            const b = new m.BoardModel({ width: 4, height: 3 });
            m.paint(b, 0, 0, { id: "belt", color: "blue", out: "E", curved: ["S"] });
            m.paint(b, 1, 0, { id: "laser", direction: "S", beams: 2 });
            m.paint(b, 0, 1, { id: "gear", turn: "left" });
            m.paint(b, 1, 1, { id: "start", number: 3, facing: "W" });
            b.setWall(1, 1, "E", true);
            const r = m.transformRegion(b, { x: 0, y: 0, w: 2, h: 2 }, "cw");
            const turned = b.toJSON().cells;
            const sides = { laser: b.wallsOf(1, 1), start: b.wallsOf(0, 1) };
            m.transformRegion(b, r, "mirror-x");
            const mirrored = b.toJSON().cells;
            const off = m.transformRegion(b, { x: 2, y: 0, w: 2, h: 3 }, "cw");
            return { r, turned, sides, mirrored, off };
        }"""
    )
    at = {(c["x"], c["y"]): c for c in result["turned"]}
    # A quarter turn right: 0,0 -> 1,0; 1,0 -> 1,1; 0,1 -> 0,0; 1,1 -> 0,1.
    assert at[(1, 0)]["belt"] == {"color": "blue", "out": "S", "curved": ["W"]}
    # The laser's mount turns with it (a wall on a space's side, as the file keeps it, once).
    assert (
        at[(1, 1)]["lasers"] == [{"direction": "W", "beams": 2}] and "E" in result["sides"]["laser"]
    )
    assert at[(0, 0)]["gear"] == "left"
    assert (
        at[(0, 1)]["start"] == 3
        and at[(0, 1)]["start_facing"] == "N"
        and "S" in result["sides"]["start"]
    )
    mirrored = {(c["x"], c["y"]): c for c in result["mirrored"]}
    assert mirrored[(1, 0)]["gear"] == "right", "a mirror swaps a gear's turn"
    assert mirrored[(0, 0)]["belt"] == {"color": "blue", "out": "S", "curved": ["E"]}
    assert result["off"] is None, "a turn that leaves the board is refused"


def test_a_selected_region_dragged_with_the_mouse(
    live_server: ServerProcess, contexts: Contexts
) -> None:
    page = open_builder(contexts, live_server)
    page.keyboard.press("g")
    click_space(page, 1, 1)
    page.keyboard.press("p")
    click_space(page, 2, 2)
    page.keyboard.press("v")
    drag(page, [(1, 1), (2, 1), (2, 2)])  # select 1,1 - 2,2
    assert page.evaluate("() => rrBuild.selection") == {"x": 1, "y": 1, "w": 2, "h": 2}
    drag(page, [(1, 1), (2, 1), (3, 1), (4, 1), (4, 2)])  # grabbed inside, let go 3 right, 1 down
    assert cell(page, 4, 2)["gear"] == "right" and cell(page, 5, 3) == {"pit": True}
    assert cell(page, 1, 1) == {} and cell(page, 2, 2) == {}
    assert page.evaluate("() => rrBuild.selection") == {"x": 4, "y": 2, "w": 2, "h": 2}
    # Past the board's edge: refused, nothing moves.
    page.evaluate("() => rrBuild.view.moveCursor(0, 0)")
    before = page.evaluate("() => JSON.stringify(rrBuild.board.toJSON())")
    drag(page, [(4, 2), (4, 3), (4, 4), (4, 5), (4, 6), (4, 7), (4, 8), (4, 9), (4, 10), (4, 11)])
    assert page.evaluate("() => JSON.stringify(rrBuild.board.toJSON())") == before
    expect(page.locator(".build-status")).to_contain_text("leave the board")
    page.click("[data-testid=undo]")  # one undo step for the whole drag
    assert cell(page, 1, 1)["gear"] == "right" and cell(page, 4, 2) == {}


def test_the_phone_layout_with_its_drawer_and_touch_painting(
    live_server: ServerProcess, contexts: Contexts, doc_shot: Any
) -> None:
    page = open_builder(contexts, live_server, phone=True)
    assert page.evaluate("() => document.documentElement.scrollWidth") <= 390
    drawer = page.locator("[data-testid=tools-drawer]")
    toggle = page.locator("[data-testid=drawer-toggle]")
    expect(toggle).to_be_visible()
    toggle.tap()
    expect(drawer).to_have_class(re.compile("open"))
    page.locator("[data-testid=tool-pit]").tap()
    doc_shot(page, "builder-phone-tools")
    toggle.tap()
    expect(drawer).not_to_have_class(re.compile("open"))
    page.wait_for_function(
        "() => document.querySelector('.build-tools').getBoundingClientRect().top >= innerHeight"
    )
    page.touchscreen.tap(*point(page, 2, 2))
    page.touchscreen.tap(*point(page, 5, 7))
    assert cell(page, 2, 2) == {"pit": True} and cell(page, 5, 7) == {"pit": True}
    # The zoom buttons work on the phone (the view closes in on the board).
    page.locator("[data-testid=zoom-in]").tap()
    assert page.evaluate("() => rrBuild.view.viewport.zoom") > 1
    page.touchscreen.tap(*point(page, 3, 3))
    assert cell(page, 3, 3) == {"pit": True}
    settle(page)
    page.locator("[data-testid=zoom-fit]").tap()
    doc_shot(page, "builder-phone")
    # The course view on the phone.
    page.locator("[data-testid=mode-course]").tap()
    settle(page)
    assert page.evaluate("() => document.documentElement.scrollWidth") <= 390


def tool(page: Page, testid: str, scope: str = "") -> None:
    """On a phone: open the palette's drawer, tap a tool, close the drawer again."""
    toggle = page.locator("[data-testid=drawer-toggle]")
    toggle.tap()
    expect(page.locator(".build-tools")).to_have_class(re.compile("open"))
    page.locator(f"{scope} [data-testid={testid}]".strip()).first.tap()
    toggle.tap()
    page.wait_for_function(
        "() => document.querySelector('.build-tools').getBoundingClientRect().top >= innerHeight"
    )


def tap_space(page: Page, x: int, y: int, dx: float = 0.5, dy: float = 0.5) -> None:
    page.touchscreen.tap(*point(page, x, y, dx, dy))


def test_on_a_phone_a_board_a_course_a_live_error_fixed_a_test_drive_and_a_game(
    live_server: ServerProcess, contexts: Contexts, ui: Any, doc_shot: Any
) -> None:
    """The whole way on a 390 x 844 phone, by touch: a small board from scratch, a course of it
    with a dock, an unreachable checkpoint shown and fixed, a test drive, a game to its end."""
    page = open_builder(contexts, live_server, phone=True)
    page.locator("details.new-board summary").tap()
    page.fill("[data-testid=new-width]", "6")
    page.fill("[data-testid=new-height]", "4")
    page.locator("[data-testid=new-board]").tap()
    assert page.evaluate("() => [rrBuild.board.width, rrBuild.board.height]") == [6, 4]
    tool(page, "tool-belt")
    tap_space(page, 1, 1)
    tap_space(page, 2, 1)
    assert cell(page, 2, 1)["belt"]["color"] == "green"
    tool(page, "tool-reboot")
    tap_space(page, 0, 3)
    assert "reboot" in cell(page, 0, 3)
    tool(page, "tool-wall")  # a finger near a side puts the wall on that side
    for side, (dx, dy) in {
        "N": (0.5, 0.1),
        "E": (0.9, 0.5),
        "S": (0.5, 0.9),
        "W": (0.1, 0.5),
    }.items():
        tap_space(page, 4, 1, dx, dy)
        assert side in walls(page, 4, 1)

    page.locator("[data-testid=mode-course]").tap()
    page.select_option("[data-testid=course-add-board]", "y23-dock-a")
    page.locator("[data-testid=course-add]").tap()
    expect(page.locator("[data-testid=placed-board]")).to_have_count(2)
    tool(page, "tool-checkpoint", "[data-testid=course-palette]")
    tap_space(page, 4, 1)
    error = page.locator("[data-testid=finding][data-severity=error]").first
    expect(error).to_contain_text("4,1")
    assert any("unreachable" in c for c in codes(page)), codes(page)
    doc_shot(page, "builder-phone-course")
    error.locator("button").tap()  # the cursor goes to the space
    assert page.evaluate("() => rrBuild.view.cursor") == [4, 1]
    page.locator("[data-testid=mode-board]").tap()
    for side in "ESW":
        page.locator(f"[data-testid=wall-{side}]").tap()
    assert walls(page, 4, 1) == ["N"]
    page.locator("[data-testid=mode-course]").tap()
    assert not any("unreachable" in c for c in codes(page)), codes(page)
    assert page.evaluate("() => rrBuild.checked().ok") is True, codes(page)

    page.locator("[data-testid=drive-place]").tap()
    tap_space(page, 2, 5)
    expect(page.locator("[data-testid=drive-robot-at]")).to_contain_text("Robot on 2,5")
    regs = page.locator("[data-testid=drive-reg]")
    for n, card in enumerate(["move1", "move2", "rotate_left", "move1", "u_turn"]):
        regs.nth(n).select_option(card)
    page.locator("[data-testid=drive-run]").tap()
    page.wait_for_function("() => rrBuild.driver.el.dataset.state === 'done'", timeout=30_000)
    expect(page.locator("[data-testid=drive-register]")).to_have_count(5)
    assert page.evaluate("() => document.documentElement.scrollWidth") <= 390

    page.fill("[data-testid=play-author]", "Pia")
    page.fill("[data-testid=play-bots]", "1")
    page.fill("[data-testid=play-rounds]", "1")
    page.evaluate("() => localStorage.setItem('rr.speed', '0')")
    page.locator("[data-testid=play-now]").tap()
    page.wait_for_url(re.compile(r"\?game="))
    ui.play_until(page, lambda: ui.visible(page, "[data-testid=result]"), timeout=120)
    expect(page.locator("[data-testid=result]")).to_be_visible()


def test_the_lobby_links_lists_and_plays_custom_courses(
    live_server: ServerProcess, contexts: Contexts
) -> None:
    text = httpx.get(live_server.base + "/api/build/courses/tiny", timeout=10).json()["text"]
    text = text.replace('id = "tiny"', 'id = "lobby-run"').replace(
        'title = "Training Run"', 'title = "Lobby Run"\nvariants = ["less_deadly"]'
    )
    made = httpx.post(
        live_server.base + "/api/custom-courses",
        json={"text": text, "author": "Lou", "listed": True},
        timeout=30,
    )
    assert made.status_code == 201, made.text
    course = made.json()["id"]
    page = contexts.page()
    page.goto(live_server.base + "/?lang=en")
    expect(page.locator("[data-testid=build-link]")).to_have_attribute("href", "/build")
    row = page.locator(f"[data-testid=custom-courses] [data-custom='{course}']")
    expect(row).to_contain_text("Lobby Run")
    expect(row).to_contain_text("by Lou")
    # /?course=ID opens the lobby with it chosen.
    page.goto(f"{live_server.base}/?lang=en&course={course}")
    expect(page.locator("[data-testid=course]")).to_have_value(course)
    expect(page.locator("[data-testid=variant-less_deadly]")).to_be_checked()  # its author's
    # Play: a game on it at once (with the form's seats).
    page.locator(f"[data-testid=custom-play-{course}]").click()
    page.wait_for_url(re.compile(r"\?game="))
    game_id = page.url.split("game=")[1].split("#")[0].split("&")[0]
    assert (
        httpx.get(f"{live_server.base}/api/games/{game_id}", timeout=10).json()["course"] == course
    )
    # A course this browser saved (its owner token kept) can be deleted from the list.
    assert page.locator(f"[data-testid=custom-delete-{course}]").count() == 0
    token = made.json()["owner_token"]
    page.evaluate(
        "([id, token]) => localStorage.setItem("
        " 'rr.custom.' + id, JSON.stringify({owner_token: token}))",
        [course, token],
    )
    page.goto(live_server.base + "/?lang=en")
    page.locator(f"[data-testid=custom-delete-{course}]").click()
    expect(row).to_have_count(0)
    expect(page.locator(f"[data-testid=course] option[value='{course}']")).to_have_count(0)
    gone = httpx.get(f"{live_server.base}/api/custom-courses/{course}", timeout=10)
    assert gone.status_code == 404
    # Past the 12 newest, the rest on request.
    for n in range(13):
        more = text.replace('id = "lobby-run"', f'id = "lobby-run-{n}"')
        more = more.replace('title = "Lobby Run"', f'title = "Lobby Run {n}"')
        posted = httpx.post(
            live_server.base + "/api/custom-courses",
            json={"text": more, "author": "Lou", "listed": True},
            timeout=30,
        )
        assert posted.status_code == 201, posted.text
    page.goto(live_server.base + "/?lang=en")
    rows = page.locator("[data-testid=custom-courses] li[data-custom]")
    expect(rows).to_have_count(12)
    total = len(httpx.get(live_server.base + "/api/custom-courses", timeout=10).json()["courses"])
    page.click("[data-testid=custom-more]")
    expect(rows).to_have_count(total)
    # The builder's link in the lobby opens the builder.
    page.goto(live_server.base + "/?lang=en")
    page.click("[data-testid=build-link]")
    page.wait_for_url(re.compile(r"/build$"))
    settle(page)


@pytest.mark.parametrize("scheme", ["dark", "light"])
def test_axe_finds_no_serious_problem_in_the_builder(
    live_server: ServerProcess, contexts: Contexts, scheme: str
) -> None:
    axe_script()
    page = contexts.custom(viewport=conftest.DESKTOP, device_scale_factor=1, color_scheme=scheme)
    page.goto(live_server.base + "/build?lang=en&board=training-ground")
    settle(page)
    page.evaluate("() => rrBuild.view.moveCursor(4, 4)")
    problems = axe_problems(page)
    page.click("[data-testid=mode-course]")
    settle(page)
    problems += axe_problems(page)
    assert not problems, "\n".join(problems)


def test_texts_come_from_the_translation_files() -> None:
    """Every build.* key the builder's scripts use is in the English file (and so, by
    tests/test_i18n.py, in every language)."""
    english = json.loads((DATA / "i18n" / "en.json").read_text(encoding="utf-8"))
    static = Path(__file__).resolve().parents[3] / "src" / "roborally" / "server" / "static"
    used: set[str] = set()
    for path in [*(static / "js" / "build").glob("*.js"), static / "js" / "lobby.js"]:
        used |= set(
            re.findall(r"""t\(\s*["'](build\.[\w.]+)["']""", path.read_text(encoding="utf-8"))
        )
    missing = sorted(
        k
        for k in used
        if k not in english and not any(x.startswith(k) for x in english if k[-1] in "._")
    )
    assert not missing, missing


#: Literals of the builder's scripts that look like words but are no text (values, selectors).
NOT_TEXT = {
    ("main.js", "input, textarea, select, [contenteditable=true]"),
    ("boardpanel.js", "factory"),
    ("boardpanel.js", "dock"),
}


def test_the_builder_writes_no_text_into_its_code() -> None:
    """The page-text scanner of tests/server/test_page_texts.py over js/build/*.js: every text
    a person reads goes through t()."""
    import importlib.util
    import sys

    here = Path(__file__).resolve().parents[1] / "test_page_texts.py"
    spec = importlib.util.spec_from_file_location("rr_page_texts", here)
    assert spec and spec.loader
    scanner = importlib.util.module_from_spec(spec)
    sys.modules["rr_page_texts"] = scanner
    spec.loader.exec_module(scanner)
    static = Path(__file__).resolve().parents[3] / "src" / "roborally" / "server" / "static"
    problems = []
    for path in sorted((static / "js" / "build").glob("*.js")):
        found = scanner.untranslated(path.name, path.read_text(encoding="utf-8"))
        problems += [p for p in found if (path.name, p.split(": ", 1)[1][1:-1]) not in NOT_TEXT]
    assert not problems, problems
