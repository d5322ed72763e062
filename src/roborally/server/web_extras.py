"""Two read-only endpoints the web page uses besides the protocol (docs/web-client.md).

* ``GET /api/web/board.svg?course=ID[&variants=a,b][&edition=E][&lang=L]``: the course's
  board layer, drawn by :mod:`roborally.render`, as a standalone SVG, the boards' labels in
  language ``L`` (default English). The page puts its own robot layer on
  top, in the same coordinates (cell ``(x, y)`` spans ``x*cell .. (x+1)*cell``; the document
  has ``data-cell`` and a ``viewBox`` with ``data-margin`` around the course).
  ``dynamic_archiving`` among the variants leaves the reboot tokens off, as in the game.
* ``GET /api/web/cards?edition=E``: the card catalogue (``id -> name, type, text``), so the
  page can show card titles and texts.

Both answers depend only on their query, so they are cached in memory and by the browser.
The rules pages come with them.

Mount them before the static files::

    from roborally.server import web_extras
    app = create_app(...)
    web_extras.install(app)          # or: routes = [*web_extras.routes, ..., Mount("/", ...)]
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route

from roborally.content.catalogue import cards_json
from roborally.content.courses import list_courses
from roborally.content.i18n import DEFAULT, LANGUAGES, text, title_of
from roborally.engine.core.board import Board, Grid
from roborally.engine.editions import all_editions, edition
from roborally.render import board_layer
from roborally.server import rules_pages

CELL = 48
MARGIN = 12
CACHE = "public, max-age=3600"


def _error(status: int, code: str, text: str) -> JSONResponse:
    return JSONResponse({"v": 1, "error": {"code": code, "message": text}}, status_code=status)


@cache  # bounded: only known courses, editions and their own variants are asked for
def board_svg_text(
    course_id: str, edition_id: str, variants: frozenset[str], lang: str = DEFAULT
) -> str | None:
    """The board layer of ``course_id`` as the edition plays it with these variants, as a
    standalone SVG document, its boards labelled in ``lang`` (``None``: no such course)."""
    info = next((c for c in list_courses() if c.id == course_id), None)
    if info is None:
        return None
    grid = edition(edition_id).grid(info.course, variants)
    classic = edition_id.startswith("classic")  # the classic colours
    return grid_svg(grid, classic, lang)


def grid_svg(grid: Grid, classic: bool = False, lang: str = DEFAULT) -> str:
    """A course's board layer as the standalone SVG document the page draws on (``data-cell``,
    ``data-margin``, a ``viewBox`` with the margin around the course), labels in ``lang``."""
    width = grid.width * CELL + 2 * MARGIN
    height = grid.height * CELL + 2 * MARGIN
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" class="rr-board" viewBox="{-MARGIN} {-MARGIN}'
        f' {width} {height}" width="{width}" height="{height}" data-cell="{CELL}"'
        f' data-margin="{MARGIN}" data-width="{grid.width}" data-height="{grid.height}">'
        f'<rect class="background" x="{-MARGIN}" y="{-MARGIN}" width="{width}"'
        f' height="{height}" fill="#1f2430"/>'
        f"{board_layer(grid, cell=CELL, classic=classic, label_of=board_label(lang))}</svg>\n"
    )


def board_label(lang: str) -> Callable[[Board], str]:
    """A board's label on the course picture in ``lang``: its title, a dock's said so."""

    def label(board: Board) -> str:
        title = title_of(lang, "board", board.name, board.title)
        return text(lang, "game.board.dock_label", board=title) if board.kind == "dock" else title

    return label


async def board_svg(request: Request) -> Response:
    course = request.query_params.get("course", "")
    lang = request.query_params.get("lang", DEFAULT)
    lang = lang if lang in LANGUAGES else DEFAULT  # unknown languages never reach the cache
    variants = set(filter(None, request.query_params.get("variants", "").split(",")))
    known = {e.id: e for e in all_editions()}
    rules = known.get(request.query_params.get("edition", "") or "2023", known["2023"])
    if not any(c.id == course for c in list_courses()):  # unknown ids never reach the cache
        return _error(404, "unknown_course", f"no course {course[:40]!r}")
    svg = board_svg_text(course, rules.id, frozenset(variants) & frozenset(rules.variants), lang)
    if svg is None:
        return _error(404, "unknown_course", f"no course {course[:40]!r}")
    return Response(svg, media_type="image/svg+xml", headers={"Cache-Control": CACHE})


async def cards(request: Request) -> Response:
    edition = request.query_params.get("edition", "2023")
    data = cards_json(edition) if edition in {e.id for e in all_editions()} else None
    if data is None:
        return _error(404, "unknown_edition", f"no card data for {edition[:40]!r}")
    return JSONResponse(data, headers={"Cache-Control": CACHE})


routes: list[BaseRoute] = [
    Route("/api/web/board.svg", board_svg),
    Route("/api/web/cards", cards),
    *rules_pages.routes,  # the rules help pages, /rules/EDITION
]


def install(app: Starlette) -> None:
    """Put :data:`routes` in front of ``app``'s routes (before the static files at ``/``)."""
    if not any(getattr(r, "path", None) == "/api/web/board.svg" for r in app.router.routes):
        app.router.routes[0:0] = routes
