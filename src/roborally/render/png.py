"""PNG pictures through cairosvg (which needs the cairo C library at run time)."""

from __future__ import annotations

import importlib
import os
from pathlib import Path
from types import ModuleType

from roborally.engine.core.board import Board, Course, Grid
from roborally.render.svg import RobotMark, render

__all__ = ["CairoMissingError", "cairo_available", "render_png", "svg_to_png"]

_INSTALL_HINT = (
    "PNG output needs the cairo graphics library and the cairosvg package: install cairo with"
    " 'apt-get install libcairo2' (Debian/Ubuntu), 'dnf install cairo' (Fedora) or"
    " 'brew install cairo' (macOS), and cairosvg with 'pip install cairosvg'."
    " SVG output (roborally.render.render) works without them."
)


class CairoMissingError(RuntimeError):
    """cairosvg or the cairo library it loads is not installed."""


def _cairosvg() -> ModuleType:
    try:
        return importlib.import_module("cairosvg")
    except (ImportError, OSError) as error:  # cairocffi raises OSError without libcairo
        raise CairoMissingError(f"{_INSTALL_HINT} ({type(error).__name__}: {error})") from error


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
