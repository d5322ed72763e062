"""The course builder's server side (``/build`` and ``/api/build/...``, docs/protocol.md,
"Builder API").

The builder page (``static/build.html``) paints boards and assembles courses as JSON models
(:mod:`roborally.content.boardmodel`); these endpoints turn models into files and back, check
them with the rules' checker and draw them with the project's renderer, and test-drive a
program on a course with the real engine:

* ``GET /build``: the page, in the reader's language (as ``/`` is);
* ``GET /api/build/boards``, ``GET /api/build/boards/{name}``: the shipped boards, and one as
  a model with its file text;
* ``GET /api/build/courses/{id}``: a shipped course as a model with its file text;
* ``POST /api/build/read``: a board or course file (uploaded text) as its model;
* ``POST /api/build/check``: a model's findings, canonical file text and picture;
* ``POST /api/build/drive``: one robot's program run register by register.

Every request is hostile until read: bodies are limited to :data:`MAX_BODY` bytes, models by
size (``boardmodel``), and the two that cost CPU (check and drive) by a per-address rate and
run in a worker thread, a few at a time.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import BaseRoute, Route

from roborally.content.boardmodel import (
    Draft,
    ModelError,
    board_to_model,
    course_to_model,
    read_board_model,
    read_course_model,
    read_text,
    shown,
    split_comment,
)
from roborally.content.boardtext import BoardFormatError
from roborally.content.catalogue import cards_json
from roborally.content.courses import DATA, CourseFormatError, board_named, list_courses
from roborally.content.eventwords import EventWords, slug
from roborally.content.i18n import DEFAULT, LANGUAGES, strings, text
from roborally.content.scenario import RobotSetup, Scenario, build_state
from roborally.engine.core.board import BoardError, Course, Grid
from roborally.engine.core.cards import PROGRAMMING_CARDS
from roborally.engine.core.decisions import TIMEOUT, Action, Decision
from roborally.engine.core.events import EventKind
from roborally.engine.core.geometry import Direction, Pos
from roborally.engine.core.mechanics import Suspend
from roborally.engine.editions import all_editions, edition
from roborally.server.api_error import ApiError
from roborally.server.index_page import COOKIE, choose_language, render
from roborally.server.limits import Buckets, WorkGate, client_key
from roborally.server.request_body import json_object
from roborally.server.rulesets import PROTOCOL_VERSION
from roborally.server.web_extras import grid_svg

STATIC_DIR = Path(__file__).parent / "static"
#: The largest request body, in bytes (a 100 x 100 board model is about 300 KiB at most).
MAX_BODY = 512 * 1024
#: Check and drive calls per address: a burst, then so many a second.
CHECK_BURST, CHECK_RATE = 20, 2.0
DRIVE_BURST, DRIVE_RATE = 10, 2.0
#: At most this many checks and drives run at once in the server (each holds a core), and this
#: many wait for their turn (more: ``503 busy``); a check of the largest model takes seconds.
CONCURRENT = 2
WAITING = 8
PLACEHOLDER = (
    '<!doctype html>\n<html lang="en"><meta charset="utf-8"><title>Course builder</title>\n'
    "<p>The course builder page is not built yet; its API is at /api/build/ (docs/protocol.md,"
    ' "Builder API").</p>\n'
)


def _error(status: int, code: str, message: str, **extra: Any) -> JSONResponse:
    headers = {"Retry-After": str(extra.pop("retry_after"))} if "retry_after" in extra else {}
    return JSONResponse(
        {"v": PROTOCOL_VERSION, "error": {"code": code, "message": message, **extra}},
        status_code=status,
        headers=headers,
    )


def _address(request: Request) -> str:
    return client_key(request.client.host) if request.client else "?"


def _lang(value: Any) -> str:
    return value if isinstance(value, str) and value in LANGUAGES else DEFAULT


async def _body(request: Request) -> dict[str, Any]:
    """The JSON object of the body, read up to :data:`MAX_BODY` bytes (413 past it)."""
    return await json_object(request, MAX_BODY)


class _Gate:
    """Per-address rates of the costly calls, and how many run at once (per event loop)."""

    def __init__(self) -> None:
        self.check = Buckets(CHECK_RATE, CHECK_BURST)
        self.drive = Buckets(DRIVE_RATE, DRIVE_BURST)
        self.slots = WorkGate(CONCURRENT, CONCURRENT + WAITING, retry_after=2)

    def take(self, buckets: Buckets, request: Request, what: str) -> None:
        wait = buckets.take(_address(request))
        if wait:
            seconds = max(1, round(wait + 0.5))
            raise ApiError(
                429,
                "rate_limited",
                f"too many {what} requests from this address; try again in {seconds} s",
                retry_after=seconds,
            )

    async def run(self, work: Callable[[], Any]) -> Any:
        """``work()`` in a worker thread, at most :data:`CONCURRENT` at once; with
        :data:`WAITING` calls waiting already, ``503 busy``."""
        async with self.slots.slot():
            return await run_in_threadpool(work)


GATE = _Gate()


# ------------------------------------------------------------------------------ the page


async def build_page(request: Request) -> Response:
    """``static/build.html`` in the reader's language (``data-text`` keys filled in)."""
    lang = choose_language(
        request.query_params.get("lang"),
        request.cookies.get(COOKIE),
        request.headers.get("accept-language"),
    )
    path = STATIC_DIR / "build.html"
    page = path.read_text(encoding="utf-8") if path.is_file() else PLACEHOLDER
    return HTMLResponse(
        render(page, lang),
        headers={"Cache-Control": "no-cache", "Vary": "Accept-Language, Cookie"},
    )


# ------------------------------------------------------------------------ shipped content


@cache
def _shipped_boards() -> tuple[dict[str, Any], ...]:
    found = []
    for path in sorted((DATA / "boards").iterdir(), key=lambda p: p.name):
        if path.name.endswith(".board"):
            board = board_named(path.name.removesuffix(".board"))
            found.append(
                {
                    "name": board.name,
                    "title": board.title,
                    "kind": board.kind,
                    "width": board.width,
                    "height": board.height,
                }
            )
    return tuple(found)


async def api_boards(request: Request) -> Response:
    return JSONResponse({"boards": list(_shipped_boards())})


async def api_board(request: Request) -> Response:
    name = request.path_params["name"]
    if name not in {b["name"] for b in _shipped_boards()}:
        raise ApiError(404, "unknown_board", f"no shipped board {name[:40]!r}")
    text = (DATA / "boards" / f"{name}.board").read_text(encoding="utf-8")
    comment, _ = split_comment(text)
    return JSONResponse({"board": board_to_model(board_named(name), comment), "text": text})


async def api_course(request: Request) -> Response:
    course_id = request.path_params["id"]
    info = next((c for c in list_courses() if c.id == course_id), None)
    if info is None:
        raise ApiError(404, "unknown_course", f"no shipped course {course_id[:40]!r}")
    text = (DATA / info.file).read_text(encoding="utf-8")
    comment, _ = split_comment(text)
    return JSONResponse({"course": course_to_model(info, comment, text), "text": text})


# ---------------------------------------------------------------------------- read, check


async def api_read(request: Request) -> Response:
    data = await _body(request)
    text = data.get("text")
    if not isinstance(text, str):
        raise ApiError(400, "bad_request", "text: the file's text (a string) is required")
    filename = data.get("filename", "")
    if not isinstance(filename, str):
        raise ApiError(400, "bad_request", "filename: must be a string")
    filename = filename.replace("\\", "/").rsplit("/", 1)[-1][:100]
    if not all(c.isprintable() for c in filename):
        raise ApiError(400, "bad_request", "filename: must be printable text")
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise ApiError(400, "bad_request", "text: not valid text (a lone surrogate)") from None
    try:
        kind, model = await GATE.run(lambda: read_text(text, filename))
    except (BoardFormatError, CourseFormatError) as error:
        return _error(
            400,
            "format",
            error.message,
            line=error.line,
            column=error.column,
            filename=filename or error.filename,
        )
    return JSONResponse({"kind": kind, kind: model})


def _board_grid(draft: Draft) -> Grid | None:
    """The grid a board draft is drawn on (its own checkpoint numbers even when a course could
    not number them so)."""
    board = draft.board
    if board is None:
        return None
    bare = board
    if any(c.checkpoint is not None for c in board.cells):
        from dataclasses import replace

        bare = replace(board, cells=tuple(replace(c, checkpoint=None) for c in board.cells))
    try:
        grid = Grid(Course.single(bare), overlays_disable_elements=False)
    except BoardError:
        return None
    grid.cells = tuple(board.cells)  # the picture shows the numbers as drawn
    return grid


def _course_grid(draft: Draft) -> Grid | None:
    if draft.course is None:
        return None
    rules = "classic" if draft.course.edition == "classic" else "2023"
    try:
        return edition(rules).grid(draft.course.course, frozenset())
    except BoardError:
        return None


def _check(data: dict[str, Any], lang: str) -> dict[str, Any]:
    if "board" in data:
        draft = read_board_model(data["board"], "board")
        grid = _board_grid(draft)
        classic = draft.name.startswith("cl-")
    else:
        draft = read_course_model(data["course"], "course")
        grid = _course_grid(draft)
        classic = draft.course is not None and draft.course.edition == "classic"
    return {
        "ok": draft.ok,
        "text": draft.text,
        "filename": draft.filename,
        "svg": grid_svg(grid, classic, lang) if grid is not None else None,
        "findings": [f.to_json(lang) for f in draft.findings],
    }


async def api_check(request: Request) -> Response:
    GATE.take(GATE.check, request, "check")
    data = await _body(request)
    if ("board" in data) == ("course" in data):
        raise ApiError(400, "bad_request", "give either board (a board model) or course")
    lang = _lang(data.get("lang"))
    try:
        answer = await GATE.run(lambda: _check(data, lang))
    except ModelError as error:
        raise ApiError(400, "bad_model", str(error)) from None
    return JSONResponse(answer)


# ---------------------------------------------------------------------------------- setup

routes: list[BaseRoute] = [
    Route("/build", build_page),
    Route("/api/build/boards", api_boards),
    Route("/api/build/boards/{name}", api_board),
    Route("/api/build/courses/{id}", api_course),
    Route("/api/build/read", api_read, methods=["POST"]),
    Route("/api/build/check", api_check, methods=["POST"]),
]


def install(app: Starlette) -> None:
    """Put :data:`routes` in front of ``app``'s routes (before the static files at ``/``)."""
    if not any(getattr(r, "path", None) == "/api/build/check" for r in app.router.routes):
        app.router.routes[0:0] = routes


# ---------------------------------------------------------------------------------- drive

#: The cards a program may hold in the test drive, by edition family.
CLASSIC_CARDS = ("move1", "move2", "move3", "back_up", "rotate_left", "rotate_right", "u_turn")


def drive_cards(edition_id: str) -> list[str]:
    """The card ids a player can put in a program in ``edition_id`` (2023: the programming
    cards and SPAM; classic: the card types, each played as its lowest free priority)."""
    if edition_id.startswith("classic"):
        return list(CLASSIC_CARDS)
    return [*PROGRAMMING_CARDS, "spam"]


def _card_id(card: str, edition_id: str) -> str:
    """The catalogue id of a card type (classic: its first card, ``move1@490``)."""
    if not edition_id.startswith("classic"):
        return card
    data = cards_json(edition_id) or {"cards": {}}
    return next((c for c in data["cards"] if c.split("@")[0] == card), card)


def _drive(
    course: Course,
    edition_id: str,
    pos: Pos,
    facing: Direction,
    program: list[str | None],
    lang: str,
) -> list[dict[str, Any]]:
    """Run ``program`` for one robot placed at ``pos`` facing ``facing`` on ``course``: what
    the engine does to it, register by register (see :func:`api_drive`)."""
    scenario = Scenario(
        path="<drive>",
        edition=edition_id,
        course=course,
        robots=[RobotSetup("Robot", 1, pos, facing)],
        programs={"Robot": tuple(program)},
        run_from=1,
        run_to=5,
    )
    state = build_state(scenario)
    rules = edition(edition_id).rules(state)
    player = state.players[0]
    marks: list[tuple[int, int, str]] = []  # (events so far, register, what begins)
    snaps: list[tuple[Pos | None, Direction]] = []
    emit = rules.emit

    def noting(kind: EventKind, *args: Any, **fields: Any) -> None:
        if kind is EventKind.ELEMENT_STEP or kind is EventKind.REGISTER_STARTED:
            snaps.append((player.pos, player.facing))  # where the step before left the robot
            emit(kind, *args, **fields)
            event = state.events[-1]
            marks.append((len(state.events) - 1, event.register, event.cause or ""))
        else:
            emit(kind, *args, **fields)

    rules.emit = noting  # type: ignore[method-assign]
    start = len(state.events)
    for _ in range(10_000):
        if state.over or state.stage in ("end_round", "cleanup", "round_start"):
            break
        try:
            getattr(rules, "stage_" + state.stage)()
            state.answers.clear()
        except Suspend as suspend:  # a question (a reboot facing ...): its default answer
            for decision in suspend.decisions:
                assert isinstance(decision, Decision)
                state.answers[decision.id] = Action(decision.id, decision.seat, TIMEOUT)
    marks.append((len(state.events), 6, ""))
    snaps.append((player.pos, player.facing))
    words = EventWords(lang, edition_id, (text(lang, "check.drive.robot"),))
    titles = {
        card: words.card_title(_card_id(card, edition_id)) for card in drive_cards(edition_id)
    }
    registers: list[dict[str, Any]] = []
    current: dict[str, Any] | None = None
    for index, (at, register, cause) in enumerate(marks[:-1]):
        if not 1 <= register <= 5:
            continue
        if current is None or current["register"] != register:
            card = program[register - 1]
            current = {"register": register, "card": card, "steps": [], "events": []}
            registers.append(current)
            what = titles.get(card, card) if card else ""
        else:
            key = f"check.step.{slug(cause)}"
            what = text(lang, key) if key in strings(DEFAULT) else words.cause_word(cause)
        end, _, _ = marks[index + 1]
        after_pos, after_facing = snaps[index + 1]
        current["steps"].append(
            {
                "x": after_pos.x if after_pos is not None else None,
                "y": after_pos.y if after_pos is not None else None,
                "facing": after_facing.letter,
                "fell": any(e.kind is EventKind.FELL for e in state.events[at:end]),
                "what": what,
            }
        )
        for event in state.events[max(at, start) : end]:
            sentence = words.sentence(event)
            if sentence:
                current["events"].append(sentence)
    return registers


async def api_drive(request: Request) -> Response:
    GATE.take(GATE.drive, request, "drive")
    data = await _body(request)
    lang = _lang(data.get("lang"))
    edition_id = data.get("edition", "2023")
    known = {e.id for e in all_editions()}
    if not isinstance(edition_id, str) or edition_id not in known:
        raise ApiError(400, "bad_request", f"edition: one of {', '.join(sorted(known))}")
    robot = data.get("robot")
    if not isinstance(robot, dict):
        raise ApiError(400, "bad_request", 'robot: {"x", "y", "facing"} is required')
    x, y, facing = robot.get("x"), robot.get("y"), robot.get("facing", "N")
    if (
        not (isinstance(x, int) and isinstance(y, int))
        or isinstance(x, bool)
        or isinstance(y, bool)
    ):
        raise ApiError(400, "bad_request", "robot.x, robot.y: whole numbers are required")
    if not (0 <= x < 100 and 0 <= y < 100):
        raise ApiError(400, "bad_request", f"robot: {x},{y} is not on the course")
    if facing not in ("N", "E", "S", "W"):
        raise ApiError(400, "bad_request", "robot.facing: N, E, S or W")
    cards = drive_cards(edition_id)
    program = data.get("program")
    if not isinstance(program, list) or len(program) != 5:
        raise ApiError(400, "bad_request", "program: a list of 5 card ids (or null)")
    for index, card in enumerate(program):
        if card is not None and card not in cards:
            raise ApiError(
                400,
                "bad_request",
                f"program[{index}]: {shown(card)!r} is not a card of {edition_id}"
                f" ({', '.join(cards)})",
            )
    if "course" not in data:
        raise ApiError(400, "bad_request", "course: a course model is required")

    def work() -> dict[str, Any]:
        draft = read_course_model(data["course"], "course", check=False)
        if draft.course is None or not draft.ok:
            problems = [f.words(lang) for f in draft.findings if f.severity == "error"]
            raise ApiError(400, "bad_course", "the course has errors: " + "; ".join(problems[:3]))
        grid = Grid(draft.course.course)
        pos = Pos(x, y)
        if grid.cell(pos) is None:
            raise ApiError(400, "bad_request", f"robot: {pos} is not on the course")
        return {
            "registers": _drive(
                draft.course.course,
                edition_id,
                pos,
                Direction("NESW".index(facing)),
                program,
                lang,
            ),
            "cards": cards,
        }

    try:
        answer = await GATE.run(work)
    except ModelError as error:
        raise ApiError(400, "bad_model", str(error)) from None
    return JSONResponse(answer)


routes.append(Route("/api/build/drive", api_drive, methods=["POST"]))
