"""The course builder's API (``roborally.server.builder_api``): the page, the shipped boards and
courses as models, reading files, checking models (findings, text, picture), the test drive
against what the engine does, the limits, and a fuzz of hostile inputs that never gets a 500."""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from roborally.content.boardtext import parse_board
from roborally.content.courses import DATA, parse_course
from roborally.server import builder_api
from roborally.server.app import ServerOptions, create_app
from roborally.server.limits import Buckets

from .conftest import FAST

BOARD_DIR = Path(str(DATA / "boards"))
COURSE_DIR = Path(str(DATA / "courses"))
#: The API's own per-address limit out of the way (the builder's own limits are tested).
OPEN = ServerOptions(**{**FAST.__dict__, "requests_per_second": 10_000.0, "request_burst": 10_000})


@pytest.fixture
def client(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[TestClient]:
    monkeypatch.setattr(builder_api, "GATE", builder_api._Gate())  # fresh rate buckets
    with TestClient(create_app(tmp_path, OPEN)) as test_client:
        yield test_client


def _error(response: Any, status: int, code: str) -> dict[str, Any]:
    assert response.status_code == status, response.text
    error: dict[str, Any] = response.json()["error"]
    assert error["code"] == code, error
    return error


def _strip() -> dict[str, Any]:
    """A small board model: a belt row, a pusher on its wall, a start, a reboot token."""
    return {
        "name": "strip",
        "title": "Strip",
        "kind": "factory",
        "width": 5,
        "height": 3,
        "comment": "",
        "cells": [
            {"x": 0, "y": 1, "belt": {"color": "green", "out": "E", "curved": []}},
            {"x": 1, "y": 1, "belt": {"color": "green", "out": "E", "curved": []}},
            {"x": 2, "y": 1, "belt": {"color": "blue", "out": "E", "curved": []}},
            {"x": 3, "y": 1, "belt": {"color": "blue", "out": "E", "curved": []}},
            {"x": 4, "y": 0, "pit": True},
            {"x": 0, "y": 2, "start": 1, "start_facing": "N"},
            {"x": 2, "y": 0, "reboot": "S"},
        ],
    }


def _course(board: dict[str, Any] | None = None, **facts: Any) -> dict[str, Any]:
    model: dict[str, Any] = {
        "id": "strip-course",
        "title": "Strip Course",
        "edition": "2023",
        "players": [1, 1],
        "checkpoints": [[4, 2]],
        "boards": [{"board": board or _strip(), "offset": [0, 0], "rotation": 0}],
    }
    return {**model, **facts}


# ----------------------------------------------------------------------------- the page


def test_the_page_is_served_with_the_security_headers(client: TestClient) -> None:
    page = client.get("/build")
    assert page.status_code == 200
    assert page.headers["content-type"].startswith("text/html")
    assert "script-src 'self'" in page.headers["content-security-policy"]
    assert page.headers["x-frame-options"] == "DENY"
    assert "<html" in page.text


def test_without_its_file_the_page_says_so(
    client: TestClient, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(builder_api, "STATIC_DIR", tmp_path / "nothing")
    page = client.get("/build")
    assert page.status_code == 200 and "not built yet" in page.text


# ---------------------------------------------------------------------- shipped content


def test_shipped_boards_and_courses_as_models(client: TestClient) -> None:
    boards = client.get("/api/build/boards").json()["boards"]
    assert len(boards) == len(list(BOARD_DIR.glob("*.board")))
    thorn = next(b for b in boards if b["name"] == "y23-thornfield")
    assert thorn == {
        "name": "y23-thornfield",
        "title": "Thornfield",
        "kind": "factory",
        "width": 12,
        "height": 12,
    }
    answer = client.get("/api/build/boards/y23-thornfield").json()
    assert answer["text"] == (BOARD_DIR / "y23-thornfield.board").read_text(encoding="utf-8")
    assert answer["board"]["comment"].startswith("Thornfield: a cactus of pits")
    course = client.get("/api/build/courses/y23-betrayal").json()
    placed = {"name": "y23-thornfield", "offset": [0, 0], "rotation": 2}
    assert course["course"]["boards"][0] == placed
    assert course["text"] == (COURSE_DIR / "y23-betrayal.course").read_text(encoding="utf-8")
    _error(client.get("/api/build/boards/nope"), 404, "unknown_board")
    _error(client.get("/api/build/courses/nope"), 404, "unknown_course")


# ----------------------------------------------------------------------------------- read


def test_read_a_board_and_a_course(client: TestClient) -> None:
    text = (BOARD_DIR / "training-bay.board").read_text(encoding="utf-8")
    answer = client.post("/api/build/read", json={"text": text, "filename": "training-bay.board"})
    assert answer.status_code == 200
    assert answer.json()["kind"] == "board" and answer.json()["board"]["kind"] == "dock"
    course = (COURSE_DIR / "tiny.course").read_text(encoding="utf-8")
    answer = client.post("/api/build/read", json={"text": course})  # no name: it looks like TOML
    assert answer.json()["kind"] == "course" and answer.json()["course"]["id"] == "tiny"


def test_read_names_the_problem_of_a_bad_file(client: TestClient) -> None:
    text = "board: bad\nsize: 2x1\n  +---+---+\n0 | Q | E |\n  +---+---+\n"
    error = _error(
        client.post("/api/build/read", json={"text": text, "filename": "C:\\x\\bad.board"}),
        400,
        "format",
    )
    assert (error["line"], error["column"], error["filename"]) == (4, 5, "bad.board")
    assert "unknown cell code 'Q'" in error["message"]
    error = _error(client.post("/api/build/read", json={"text": "id = 5\n"}), 400, "format")
    assert error["line"] == 1 and "missing required key 'title'" in error["message"]


@pytest.mark.parametrize(
    ("body", "status", "code", "words"),
    [
        (b"{", 400, "bad_json", "JSON"),
        (b"[1]", 400, "bad_request", "object"),
        (b'{"text": 5}', 400, "bad_request", "text"),
        (b'{"text": "", "filename": 3}', 400, "bad_request", "filename"),
        (b'{"text": "\\ud800"}', 400, "bad_request", "text"),
    ],
)
def test_read_refuses_bad_requests_naming_the_field(
    client: TestClient, body: bytes, status: int, code: str, words: str
) -> None:
    response = client.post(
        "/api/build/read", content=body, headers={"content-type": "application/json"}
    )
    assert words in _error(response, status, code)["message"]


def test_bodies_are_limited(client: TestClient) -> None:
    big = json.dumps({"text": "#" * (builder_api.MAX_BODY + 10)})
    response = client.post("/api/build/read", content=big)
    _error(response, 413, "too_large")

    def chunks() -> Iterator[bytes]:  # no Content-Length: cut off while reading
        yield b'{"text": "'
        for _ in range(builder_api.MAX_BODY // 4096 + 2):
            yield b"#" * 4096
        yield b'"}'

    _error(client.post("/api/build/check", content=chunks()), 413, "too_large")


# ---------------------------------------------------------------------------------- check


def test_check_a_shipped_board_gives_its_file_and_picture(client: TestClient) -> None:
    board = client.get("/api/build/boards/y23-squall").json()["board"]
    answer = client.post("/api/build/check", json={"board": board, "lang": "cs"}).json()
    assert answer["ok"] is True and answer["findings"] == []
    assert answer["text"] == (BOARD_DIR / "y23-squall.board").read_text(encoding="utf-8")
    assert answer["filename"] == "y23-squall.board"
    svg = answer["svg"]
    assert svg.startswith("<svg") and 'data-cell="48"' in svg and 'data-margin="12"' in svg
    assert 'viewBox="-12 -12 600 600"' in svg


def test_check_a_board_with_problems(client: TestClient) -> None:
    board = _strip()
    board["cells"] += [
        {"x": 1, "y": 2, "pusher": {"direction": "N", "registers": [2]}},
        {"x": 3, "y": 2, "start": 1},
        {"x": 3, "y": 0, "checkpoint": 2},
    ]
    answer = client.post("/api/build/check", json={"board": board, "lang": "uk"}).json()
    assert answer["ok"] is False and answer["text"] is None
    assert answer["svg"] is not None  # still drawn, checkpoint 2 alone included
    codes = {f["code"]: f for f in answer["findings"]}
    assert codes["check.pusher_no_wall"]["spaces"] == [[1, 2]]
    assert codes["check.pusher_no_wall"]["message"].startswith("клітинка 1,2: панель на пружинах")
    assert codes["check.start_twice"]["spaces"] == [[3, 2], [0, 2]]
    assert all(f["severity"] == "error" for f in answer["findings"])


def test_check_a_course_with_a_drawn_board(client: TestClient) -> None:
    answer = client.post("/api/build/check", json={"course": _course(), "lang": "en"}).json()
    assert answer["ok"] is True, answer["findings"]
    assert answer["filename"] == "strip-course.course"
    info = parse_course(answer["text"], "strip-course.course")
    assert info.course.boards[0].board.name == "strip"
    assert 'data-width="5"' in answer["svg"]
    read = client.post("/api/build/read", json={"text": answer["text"]}).json()
    assert read["course"]["boards"][0]["board"]["cells"] == parse_and_model("strip", answer)


def parse_and_model(name: str, answer: dict[str, Any]) -> list[dict[str, Any]]:
    from roborally.content.boardmodel import board_to_model

    info = parse_course(answer["text"], "x.course")
    board = next(pb.board for pb in info.course.boards if pb.board.name == name)
    cells: list[dict[str, Any]] = board_to_model(board)["cells"]
    return cells


def test_check_a_course_reports_rule_findings_at_spaces(client: TestClient) -> None:
    course = _course(checkpoints=[[4, 0]])  # checkpoint 1 in the pit
    answer = client.post("/api/build/check", json={"course": course}).json()
    assert answer["ok"] is False and answer["text"] is None
    pit = next(f for f in answer["findings"] if f["code"] == "check.checkpoint_in_pit")
    assert pit["spaces"] == [[4, 0]] and pit["params"] == {"number": 1, "pos": "4,0"}
    assert pit["message"] == "checkpoint 1 at 4,0 is in a pit"


@pytest.mark.parametrize(
    ("body", "words"),
    [
        ({}, "either board"),
        ({"board": {}, "course": {}}, "either board"),
        ({"board": {"width": 2, "height": "2"}}, "board.height"),
        ({"course": {"boards": [{"board": {"width": 1, "height": 1, "cells": [3]}}]}},
         "course.boards[0].board.cells[0]"),
        ({"course": {"checkpoints": [[1]]}}, "course.checkpoints[0]"),
        ({"course": {"boards": [{"name": "x", "rotation": 5}]}}, "course.boards[0].rotation"),
    ],
)  # fmt: skip
def test_check_refuses_models_of_the_wrong_shape(
    client: TestClient, body: dict[str, Any], words: str
) -> None:
    response = client.post("/api/build/check", json=body)
    assert response.status_code == 400, response.text
    assert words in response.json()["error"]["message"]


def test_check_and_drive_are_rate_limited_per_address(client: TestClient) -> None:
    board = _strip()
    codes = [
        client.post("/api/build/check", json={"board": board}).status_code
        for _ in range(builder_api.CHECK_BURST + 3)
    ]
    assert codes.count(200) >= builder_api.CHECK_BURST and codes[-1] == 429
    response = client.post("/api/build/check", json={"board": board})
    assert int(response.headers["retry-after"]) >= 1
    assert "try again" in response.json()["error"]["message"]
    drive = {"course": _course(), "robot": {"x": 0, "y": 1}, "program": [None] * 5}
    codes = [
        client.post("/api/build/drive", json=drive).status_code
        for _ in range(builder_api.DRIVE_BURST + 3)
    ]
    assert codes.count(200) >= builder_api.DRIVE_BURST and codes[-1] == 429
    # reading a file is not a check
    assert client.post("/api/build/read", json={"text": "board: a\nsize: 1x1\n"}).status_code == 400


# ---------------------------------------------------------------------------------- drive


def _drive(client: TestClient, program: list[str | None], **body: Any) -> dict[str, Any]:
    request = {
        "course": _course(),
        "edition": "2023",
        "robot": {"x": 0, "y": 1, "facing": "N"},
        "program": program,
        "lang": "en",
        **body,
    }
    response = client.post("/api/build/drive", json=request)
    assert response.status_code == 200, response.text
    answer: dict[str, Any] = response.json()
    return answer


def test_drive_a_robot_on_the_belts(client: TestClient) -> None:
    """A robot on a green belt turns right with its card, then rides the belts: the green
    belts carry it 1 space in their step, the blue ones 2 in theirs, and the pit at the end of
    the row takes it in register 3."""
    answer = _drive(client, ["rotate_right", "move1", None, "u_turn", None])
    assert answer["cards"] == [
        "move1", "move2", "move3", "rotate_right", "rotate_left", "u_turn", "move_back",
        "power_up", "again", "spam",
    ]  # fmt: skip
    first = answer["registers"][0]
    assert first["register"] == 1 and first["card"] == "rotate_right"
    steps = {s["what"]: (s["x"], s["y"], s["facing"], s["fell"]) for s in first["steps"]}
    assert first["steps"][0] == {
        "x": 0, "y": 1, "facing": "E", "fell": False, "what": "Rotate Right",
    }  # fmt: skip
    assert steps["blue belts"] == (0, 1, "E", False)  # not on a blue belt yet
    assert steps["green belts"] == (1, 1, "E", False)
    assert [s["what"] for s in first["steps"]][:5] == [
        "Rotate Right", "blue belts", "green belts", "push panels", "gears",
    ]  # fmt: skip
    assert "Register 1" in first["events"] and any("turns right" in e for e in first["events"])
    second = answer["registers"][1]  # move 1 onto the blue belt, which carries it 2
    assert second["steps"][0]["x"] == 2
    assert [(s["x"], s["what"]) for s in second["steps"][:3]] == [
        (2, "Move 1"), (4, "blue belts"), (4, "green belts"),
    ]  # fmt: skip
    positions = [(s["x"], s["y"]) for r in answer["registers"] for s in r["steps"]]
    assert positions[-1] == (4, 1)


DRIVEN = ["move1", "rotate_right", "move1", "rotate_left", "move_back"]
#: Where DRIVEN leaves a robot that starts on 0,2 facing N, register by register (by hand: the
#: green belt at 0,1 carries it to 1,1, then 2,1; the blue belt at 3,1 carries it to 4,1).
DRIVEN_ENDS = [(1, 1, "N"), (2, 1, "E"), (4, 1, "E"), (4, 1, "N"), (4, 2, "N")]


def test_drive_agrees_with_the_engine(client: TestClient) -> None:
    """The drive's path is the engine's: each register ends where the rules put the robot,
    and where a scenario of the same board and program (run by the scenario runner) expects
    it."""
    from roborally.content.scenario import parse_scenario, run_scenario

    course = _course(checkpoints=[[2, 2]])
    answer = _drive(client, list(DRIVEN), robot={"x": 0, "y": 2, "facing": "N"}, course=course)
    ends = [(r["steps"][-1]["x"], r["steps"][-1]["y"], r["steps"][-1]["facing"]) for r in
            answer["registers"]]  # fmt: skip
    assert ends == DRIVEN_ENDS
    text = client.post("/api/build/check", json={"board": _strip()}).json()["text"]
    drawing = "\n".join(
        line for line in text.splitlines() if not line.startswith(("board:", "title:"))
    )
    for register, (x, y, facing) in enumerate(DRIVEN_ENDS, start=1):
        scenario = parse_scenario(
            f"scenario: drive\nboard:\n{drawing}\nend board\n\nrobot A: 0,2 N\n"
            f"program A: {' '.join(DRIVEN)}\nrun: registers 1-{register}\n\n"
            f"expect A at: {x},{y} {facing}\n"
        )
        result = run_scenario(scenario)
        assert result.ok, result.failures


def test_drive_a_fall_into_a_pit(client: TestClient) -> None:
    answer = _drive(client, ["move1"] + [None] * 4, robot={"x": 4, "y": 1, "facing": "N"})
    first = answer["registers"][0]["steps"][0]
    assert first["fell"] is True and first["x"] is None
    assert any("fall" in e or "pit" in e for e in answer["registers"][0]["events"])


def test_drive_in_the_classic_edition(client: TestClient) -> None:
    course = _course(edition="classic")
    program: list[str | None] = ["move1", "back_up", None, None, None]
    answer = _drive(client, program, edition="classic", course=course, lang="pl")
    assert answer["cards"] == list(builder_api.CLASSIC_CARDS)
    first = answer["registers"][0]
    assert first["steps"][0]["what"] == "Naprzód 1"
    assert [s["what"] for s in first["steps"]][1:3] == ["szybkie pasy", "pasy"]
    assert (first["steps"][0]["x"], first["steps"][0]["y"]) == (0, 0)


@pytest.mark.parametrize(
    ("change", "words"),
    [
        ({"edition": "1999"}, "edition"),
        ({"edition": ["2023"]}, "edition"),
        ({"program": [[[["move1"]]], None, None, None, None]}, "program[0]: 'a list'"),
        ({"program": ["move1"]}, "program"),
        ({"program": ["fly", None, None, None, None]}, "program[0]"),
        ({"robot": {"x": 9, "y": 9, "facing": "N"}}, "not on the course"),
        ({"robot": {"x": -1, "y": 0, "facing": "N"}}, "not on the course"),
        ({"robot": {"x": 0, "y": 0, "facing": "up"}}, "robot.facing"),
        ({"robot": [0, 0]}, "robot"),
        ({"course": {"id": "x", "boards": []}}, "the course has errors"),
        ({"course": {"boards": 5}}, "course.boards"),
    ],
)
def test_drive_refuses_bad_requests(client: TestClient, change: dict[str, Any], words: str) -> None:
    request = {
        "course": _course(),
        "edition": "2023",
        "robot": {"x": 0, "y": 1, "facing": "N"},
        "program": [None] * 5,
        **change,
    }
    response = client.post("/api/build/drive", json=request)
    assert response.status_code == 400, response.text
    assert words in response.json()["error"]["message"]


# ----------------------------------------------------------------------------------- fuzz


def _mutate(rng: random.Random, value: Any, depth: int = 0) -> Any:
    """A hostile variant of a JSON value: wrong types, huge or negative numbers, odd strings,
    missing or extra keys, deep nesting."""
    odd: list[Any] = [
        None, True, -1, 0, 10**12, 1.5, "", "N", "Q", "\u0000", "\ud7ff" * 3, "x" * 300, [],
        {}, [[]], {"x": 0}, [1, 2, 3, 4, 5, 6], "../../etc/passwd", "<svg onload=x>",
    ]  # fmt: skip
    roll = rng.random()
    if roll < 0.08 or depth > 6:
        return rng.choice(odd)
    if isinstance(value, dict):
        out = dict(value)
        for key in list(out):
            if rng.random() < 0.15:
                out[key] = _mutate(rng, out[key], depth + 1)
            elif rng.random() < 0.03:
                del out[key]
        if rng.random() < 0.05:
            out[rng.choice(["extra", "x", "cells", "board", "walls"])] = rng.choice(odd)
        return out
    if isinstance(value, list):
        out_list = [_mutate(rng, v, depth + 1) if rng.random() < 0.1 else v for v in value]
        if out_list and rng.random() < 0.1:
            out_list.append(rng.choice(out_list))
        return out_list
    if isinstance(value, int) and not isinstance(value, bool) and roll < 0.3:
        return rng.choice([value + 1, value - 1, -value, value * 1000, 100, 101])
    return value


def test_fuzz_read_and_check_never_fail(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    """2,400 hostile requests (the same every run): mutated board and course models for check,
    mutated files and noise for read. Each gets an answer or a 4xx naming the problem."""
    gate = builder_api._Gate()
    gate.check = Buckets(1e9, 1e9)  # the rate limit is tested above
    monkeypatch.setattr(builder_api, "GATE", gate)
    rng = random.Random(28)
    texts = [p.read_text(encoding="utf-8") for p in sorted(BOARD_DIR.glob("*.board"))[:6]]
    texts.append((COURSE_DIR / "tiny.course").read_text(encoding="utf-8"))
    boards = [
        client.get(f"/api/build/boards/{name}").json()["board"]
        for name in ("training-bay", "y23-dock-b")
    ]
    boards.append(_strip())
    course = _course()
    statuses: dict[int, int] = {}
    for index in range(2400):
        kind = (0, 0, 1, 1, 2)[index % 5]  # read, check a board, check a course
        if kind == 0:
            text = rng.choice(texts)
            if rng.random() < 0.9:
                at = rng.randrange(len(text))
                text = (
                    text[:at]
                    + rng.choice(["", "Q", "|", "+", "\n", "x = [", "---", "9"])
                    + (text[at + rng.randrange(0, 5) :])
                )
            else:
                text = "".join(rng.choice("+-| \n.OEx=[]#\"'") for _ in range(rng.randrange(200)))
            body: Any = {"text": text, "filename": rng.choice(["a.board", "a.course", "", "a"])}
            path = "/api/build/read"
        elif kind == 1:
            body = {"board": _mutate(rng, rng.choice(boards)), "lang": rng.choice(["en", "uk", 5])}
            path = "/api/build/check"
        else:
            body = {"course": _mutate(rng, course), "lang": "ru"}
            path = "/api/build/check"
        if rng.random() < 0.02:
            body = _mutate(rng, body)
        response = client.post(path, content=json.dumps(body))
        statuses[response.status_code] = statuses.get(response.status_code, 0) + 1
        assert response.status_code in (200, 400), (path, body, response.text)
        if response.status_code == 200 and path.endswith("check"):
            answer = response.json()
            assert answer["ok"] == (answer["text"] is not None) or not answer["ok"]
            if answer["ok"] and "board" in body:
                assert parse_board(answer["text"]).name == answer["filename"].removesuffix(".board")
    assert statuses[200] > 400 and statuses[400] > 400, statuses


def test_a_busy_server_says_so(client: TestClient, monkeypatch: pytest.MonkeyPatch) -> None:
    """With every worker slot taken and WAITING calls queued, a check is refused at once."""
    gate = builder_api._Gate()
    gate.slots.held = builder_api.CONCURRENT + builder_api.WAITING  # every slot, and the queue
    monkeypatch.setattr(builder_api, "GATE", gate)
    response = client.post("/api/build/check", json={"board": _strip()})
    _error(response, 503, "busy")
    assert response.headers["retry-after"] == "2"


def test_fuzz_drive_never_fails(client: TestClient, monkeypatch: pytest.MonkeyPatch) -> None:
    """300 hostile test drives: an answer or a 400 naming the problem, never a 500."""
    gate = builder_api._Gate()
    gate.drive = Buckets(1e9, 1e9)
    monkeypatch.setattr(builder_api, "GATE", gate)
    rng = random.Random(6)
    base = {
        "course": _course(),
        "edition": "2023",
        "robot": {"x": 0, "y": 1, "facing": "N"},
        "program": ["move1", "again", "spam", "power_up", "u_turn"],
        "lang": "cs",
    }
    seen = set()
    for _ in range(300):
        body = _mutate(rng, base)
        if isinstance(body, dict) and rng.random() < 0.3:
            body["edition"] = rng.choice(["classic", "classic-1994", "2023"])
            body["program"] = [rng.choice([None, "move1", "back_up", "move3", "u_turn"])] * 5
        response = client.post("/api/build/drive", content=json.dumps(body))
        assert response.status_code in (200, 400), (body, response.text)
        seen.add(response.status_code)
    assert seen == {200, 400}
