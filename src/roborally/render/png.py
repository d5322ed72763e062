"""PNG pictures through cairosvg (which needs the cairo C library at run time)."""

from __future__ import annotations

import os
from pathlib import Path
from types import ModuleType

from roborally.engine.core.board import Board, Course, Grid
from roborally.extras import MissingExtra, require
from roborally.render.svg import RobotMark, render

__all__ = ["CairoMissingError", "cairo_available", "render_png", "svg_to_png"]

_NO_CAIRO = (
    "PNG output needs the cairo graphics library, which cairosvg cannot find: install it"
    " (apt-get install libcairo2, dnf install cairo or brew install cairo); SVG output works"
    " without it"
)


class CairoMissingError(MissingExtra, RuntimeError):
    """cairosvg or the cairo library it loads is not installed (SVG output works without
    them)."""


def _cairosvg() -> ModuleType:
    try:
        return require("cairosvg", "png", "PNG output", CairoMissingError)
    except OSError as error:  # cairocffi raises OSError without the cairo library
        raise CairoMissingError("PNG output", "png", message=_NO_CAIRO) from error


def cairo_available() -> bool:
    """Whether :func:`svg_to_png` can work here."""
    try:
        _cairosvg()
    except CairoMissingError:
        return False
    return True


def svg_to_png(svg: str, path: str | os.PathLike[str]) -> None:
    """Write the SVG document ``svg`` as a PNG file of the SVG's own pixel size."""
    module = _cairosvg()
    data = module.svg2png(bytestring=svg.encode("utf-8"))
    Path(path).write_bytes(data)


def render_png(
    course_or_board: Course | Board | Grid,
    path: str | os.PathLike[str],
    *,
    robots: list[RobotMark] | None = None,
    cell: int = 48,
    classic: bool = False,
    title: str | None = None,
) -> None:
    """:func:`roborally.render.render` written to ``path`` as a PNG."""
    svg_to_png(
        render(course_or_board, robots=robots, cell=cell, classic=classic, title=title), path
    )
