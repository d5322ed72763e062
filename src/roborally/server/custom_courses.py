"""Custom courses: the courses players make and upload, kept by the server and played like the
shipped ones (docs/protocol.md "Custom courses", docs/server.md "Custom courses").

* ``POST /api/custom-courses`` ``{"text", "author", "listed"}`` checks a course file strictly
  (course_upload.py, in a worker of the bot lane: never on the event loop), gives it an id of
  its own (``c-`` and 8 characters of base32) and keeps its canonical text; the answer holds the
  ``owner_token`` that deletes it (kept as a SHA-256 hash, compared in constant time).
* ``GET /api/custom-courses`` lists the listed ones, newest first; ``GET .../{id}`` gives one
  (listed or not: whoever has the link) with its text and its board as JSON, ``.../{id}/file``
  its file; ``DELETE .../{id}`` ``{"owner_token"}`` deletes it.
* ``POST /api/games`` with ``"course": "c-..."`` plays it (:func:`custom_course_for`): the
  game's settings keep the course's text, so the game never needs the store for it again.
* ``GET /api/web/board.svg?course=c-...`` draws one (other courses go on to web_extras).

Limits (ServerOptions ``custom_*``): the file's size, boards, spaces and checkpoints (413),
uploads a minute and courses kept per address, courses kept in all (429), checks at once (503).
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import hmac
import logging
import math
import secrets
import time
import weakref
from collections import OrderedDict
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route

from roborally.content.boardjson import custom_course_board
from roborally.content.courses import (
    CourseFormatError,
    CourseInfo,
    is_custom_id,
    register_course_text,
)
from roborally.content.i18n import DEFAULT, LANGUAGES
from roborally.engine.editions import all_editions, edition
from roborally.server import names, web_extras
from roborally.server.api_error import ApiError
from roborally.server.course_upload import UploadLimits, check_upload
from roborally.server.limits import Buckets, WorkGate, client_key
from roborally.server.request_body import json_object
from roborally.server.rulesets import PROTOCOL_VERSION
from roborally.server.store import Store, StoredCourse, StoreError
from roborally.server.workers import BOTS

if TYPE_CHECKING:
    from roborally.server.app import GameServer

log = logging.getLogger("roborally.server")

LIST_LIMIT = 200  # courses GET /api/custom-courses lists at most
#: A JSON body may escape every character of the file (``\\u0416``): it may be this many
#: times the file's limit, plus room for the other fields.
BODY_FACTOR = 4
WAITING_PER_CHECK = 4  # uploads that may wait for each check slot before 503


@dataclass(frozen=True)
class CustomCourse:
    """A stored custom course, read for a game: its course and its canonical file."""

    info: CourseInfo
    text: str

    def misfit(self, edition_id: str) -> str:
        """Why the course does not fit ``edition_id``."""
        return f"course {self.info.id!r} is for the {self.info.edition} edition, not {edition_id}"


class Uploads:
    """A server's custom course state: per-address upload buckets and the check slots."""

    def __init__(self, server: GameServer) -> None:
        opts = server.options
        per_minute = max(1, opts.custom_uploads_per_minute)
        self.buckets = Buckets(per_minute / 60.0, per_minute)
        checks = max(1, opts.custom_checks)
        self.slots = WorkGate(checks, WAITING_PER_CHECK * checks, retry_after=5)


def _server(request: Request) -> GameServer:
    server: GameServer = request.app.state.server
    return server


_UPLOADS: weakref.WeakKeyDictionary[GameServer, Uploads] = weakref.WeakKeyDictionary()


def _uploads(server: GameServer) -> Uploads:
    uploads = _UPLOADS.get(server)
    if uploads is None:
        uploads = _UPLOADS[server] = Uploads(server)
    return uploads


def _address(request: Request) -> str:
    return client_key(request.client.host) if request.client else "?"


def _error(status: int, code: str, message: str, **extra: Any) -> JSONResponse:
    headers = {}
    retry = extra.pop("retry_after", 0)
    if retry:
        headers["Retry-After"] = str(retry)
    error = {"code": code, "message": message, **extra}
    return JSONResponse(
        {"v": PROTOCOL_VERSION, "error": error}, status_code=status, headers=headers
    )


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def new_course_id() -> str:
    """``c-`` and 8 characters of base32 (40 random bits)."""
    return "c-" + base64.b32encode(secrets.token_bytes(5)).decode("ascii").lower()


def limits_of(server: GameServer) -> UploadLimits:
    opts = server.options
    return UploadLimits(
        opts.custom_course_bytes,
        opts.custom_course_boards,
        opts.custom_course_spaces,
        opts.custom_course_checkpoints,
    )


async def _json_body(request: Request, limit: int) -> dict[str, Any]:
    """The JSON object of the request, at most ``limit`` bytes."""
    return await json_object(request, limit)


# ------------------------------------------------------------------------------ upload
async def upload(request: Request) -> Response:
    server = _server(request)
    opts = server.options
    address = _address(request)
    body = await _json_body(request, BODY_FACTOR * opts.custom_course_bytes + 4096)
    text = body.get("text")
    if not isinstance(text, str) or not text.strip():
        raise ApiError(400, "bad_request", "'text' must be the course file, as a string")
    try:
        size = len(text.encode("utf-8"))
    except UnicodeEncodeError:  # JSON may carry a lone surrogate (\ud800): no text has one
        raise ApiError(400, "bad_request", "the course file holds an unpaired surrogate") from None
    if size > opts.custom_course_bytes:
        raise ApiError(
            413,
            "too_large",
            f"the course file has {size} bytes; the limit is {opts.custom_course_bytes}",
        )
    try:
        author = names.clean(body.get("author"))
    except names.BadName as error:
        raise ApiError(400, "bad_name", f"author: {error}") from None
    listed = body.get("listed", True)
    if not isinstance(listed, bool):
        raise ApiError(400, "bad_request", "'listed' must be true or false")
    uploads = _uploads(server)
    wait = uploads.buckets.take(address)
    if wait:
        seconds = math.ceil(wait)
        raise ApiError(
            429,
            "rate_limited",
            f"this address may upload {opts.custom_uploads_per_minute} courses a minute; try"
            f" again in {seconds} s",
            seconds,
        )
    course_id = new_course_id()
    result = await _checked(server, uploads, text, course_id)
    if not result["ok"]:
        extra = {k: v for k, v in result.items() if k not in ("ok", "status", "code", "message")}
        log.info("custom course from %s refused: %s", address, result["message"][:200])
        return _error(result["status"], result["code"], result["message"], **extra)
    token = secrets.token_urlsafe(24)
    summary = dict(result["summary"])
    stored = StoredCourse(
        course_id, time.time(), address, author, listed, token_hash(token), summary, result["text"]
    )
    try:
        refused = await server.store.run(
            Store.add_custom_course,
            stored,
            opts.custom_courses_per_address,
            opts.custom_courses_total,
        )
    except StoreError as error:
        raise ApiError(503, "storage_failed", f"the course could not be saved: {error}") from None
    if refused == "address":
        raise ApiError(
            429,
            "too_many_courses",
            f"this address keeps {opts.custom_courses_per_address} courses already (the limit);"
            " delete one with its owner token first",
        )
    if refused == "total":
        raise ApiError(
            429, "too_many_courses", "the server keeps all the custom courses it can; try later"
        )
    if refused == "id":  # 40 random bits met a used id: the player just tries again
        raise ApiError(503, "try_again", "the course could not be given an id; send it again", 1)
    log.info("custom course %s stored (from %s, %d bytes)", course_id, address, size)
    return JSONResponse(
        {
            "v": PROTOCOL_VERSION,
            "id": course_id,
            "link": f"/?course={course_id}",
            "owner_token": token,
            "course": _public(stored),
            "warnings": result["warnings"],
        },
        status_code=201,
    )


async def _checked(
    server: GameServer, uploads: Uploads, text: str, course_id: str
) -> dict[str, Any]:
    """:func:`~roborally.server.course_upload.check_upload` off the event loop: in a worker of
    the bot lane (a thread when the server runs games in its own process), ``custom_checks``
    at a time; 503 when too many wait."""
    async with uploads.slots.slot():
        try:
            limits = limits_of(server)
            if server.pool.inline:
                return await asyncio.to_thread(check_upload, text, course_id, limits)
            result: dict[str, Any] = await server.pool.any_call(
                "check_course", text, course_id, limits, lane=BOTS
            )
            return result
        except RuntimeError as error:  # the check itself broke: a bug, said as such
            log.error("custom course %s: the check failed: %s", course_id, error)
            raise ApiError(
                500, "check_failed", "the course could not be checked (a bug in the server)"
            ) from None


def _public(stored: StoredCourse) -> dict[str, Any]:
    """What anybody may see of a stored course (never its address or owner hash)."""
    return {
        **stored.summary,
        "id": stored.id,
        "author": stored.author,
        "created": stored.created,
        "listed": stored.listed,
    }


# ------------------------------------------------------------------------------- reads
async def list_courses(request: Request) -> Response:
    server = _server(request)
    rows = await server.store.run(Store.custom_courses, LIST_LIMIT)
    return JSONResponse({"v": PROTOCOL_VERSION, "courses": [_public(r) for r in rows]})


async def _stored(server: GameServer, course_id: str) -> StoredCourse:
    """A kept custom course with its text; 404 ``unknown_course`` if there is none."""
    stored = None
    if is_custom_id(course_id):
        stored = await server.store.run(Store.custom_course, course_id)
    if stored is None or stored.text is None:
        raise ApiError(404, "unknown_course", f"no custom course {course_id[:40]!r}")
    return stored


async def get_course(request: Request) -> Response:
    stored = await _stored(_server(request), request.path_params["course"])
    assert stored.text is not None
    editions = {e.id for e in all_editions()}
    wanted = request.query_params.get("edition") or stored.summary.get("edition")
    edition_id = wanted if wanted in editions else "2023"
    if stored.summary.get("edition") == "classic" and wanted not in editions:
        edition_id = "classic"
    board = await asyncio.to_thread(custom_course_board, stored.text, edition_id, frozenset())
    return JSONResponse(
        {"v": PROTOCOL_VERSION, "course": _public(stored), "text": stored.text, "board": board}
    )


async def get_file(request: Request) -> Response:
    stored = await _stored(_server(request), request.path_params["course"])
    return Response(
        stored.text,
        media_type="text/plain; charset=utf-8",
        headers={"Content-Disposition": f'attachment; filename="{stored.id}.course"'},
    )


async def delete_course(request: Request) -> Response:
    server = _server(request)
    body = await _json_body(request, 4096)
    token = body.get("owner_token")
    if not isinstance(token, str) or not token:
        raise ApiError(400, "bad_request", "'owner_token' must be the course's owner token")
    stored = await _stored(server, request.path_params["course"])
    if not hmac.compare_digest(stored.owner_hash, token_hash(token)):
        raise ApiError(403, "not_owner", "this is not the course's owner token")
    if not await server.store.run(Store.delete_custom_course, stored.id):
        raise ApiError(404, "unknown_course", f"no custom course {stored.id!r}")
    log.info("custom course %s deleted", stored.id)
    return Response(status_code=204)


# ------------------------------------------------------------------------ games and pictures
async def custom_course_for(server: GameServer, body: dict[str, Any]) -> CustomCourse | None:
    """The stored custom course a create request names (``None``: it names no custom course);
    400 ``unknown_course`` if it is not kept (any more)."""
    course_id = body.get("course")
    if not is_custom_id(course_id):
        return None
    assert isinstance(course_id, str)
    try:
        stored = await server.store.run(Store.custom_course, course_id)
    except StoreError as error:
        raise ApiError(503, "storage_failed", f"the course could not be read: {error}") from None
    if stored is None or stored.text is None:
        raise ApiError(400, "unknown_course", f"no custom course {course_id!r} (deleted?)")
    return CustomCourse(await _registered(stored.text, course_id), stored.text)


async def _registered(text: str, course_id: str) -> CourseInfo:
    """The course a stored text holds, known by its id in this process (read in a thread: a
    large course takes a moment)."""
    try:
        info = await asyncio.to_thread(register_course_text, text, f"{course_id}.course")
    except (CourseFormatError, ValueError) as error:  # stored before a stricter parser
        message = f"course {course_id!r} no longer reads: {error}"
        raise ApiError(400, "unknown_course", message) from None
    return info


_SVGS: OrderedDict[tuple[str, str, frozenset[str], str], str] = OrderedDict()
SVG_CACHE = 32


async def board_svg(request: Request) -> Response:
    """``/api/web/board.svg`` of a custom course; any other course goes on to web_extras."""
    course_id = request.query_params.get("course", "")
    if not is_custom_id(course_id):
        return await web_extras.board_svg(request)
    lang = request.query_params.get("lang", DEFAULT)
    lang = lang if lang in LANGUAGES else DEFAULT
    known = {e.id: e for e in all_editions()}
    rules = known.get(request.query_params.get("edition", "") or "2023", known["2023"])
    asked = set(filter(None, request.query_params.get("variants", "").split(",")))
    variants = frozenset(asked) & frozenset(rules.variants)
    stored = await _stored(_server(request), course_id)
    assert stored.text is not None
    info = await _registered(stored.text, stored.id)
    key = (str(info.extra["sha256"]), rules.id, variants, lang)
    svg = _SVGS.get(key)
    if svg is None:

        def draw() -> str:
            grid = edition(rules.id).grid(info.course, variants)
            return web_extras.grid_svg(grid, rules.id.startswith("classic"), lang)

        svg = await asyncio.to_thread(draw)
        _SVGS[key] = svg
        while len(_SVGS) > SVG_CACHE:
            _SVGS.popitem(last=False)
    return Response(svg, media_type="image/svg+xml", headers={"Cache-Control": web_extras.CACHE})


routes: list[BaseRoute] = [
    Route("/api/custom-courses", list_courses, methods=["GET"]),
    Route("/api/custom-courses", upload, methods=["POST"]),
    Route("/api/custom-courses/{course}", get_course, methods=["GET"]),
    Route("/api/custom-courses/{course}", delete_course, methods=["DELETE"]),
    Route("/api/custom-courses/{course}/file", get_file, methods=["GET"]),
    Route("/api/web/board.svg", board_svg),
]


def install(app: Starlette) -> None:
    """Put :data:`routes` in front of ``app``'s routes (before web_extras' board picture)."""
    if not any(getattr(r, "path", None) == "/api/custom-courses" for r in app.router.routes):
        app.router.routes[0:0] = routes
