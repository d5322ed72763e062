"""Pictures of boards, courses and robots: SVG strings, and PNG files through cairosvg.

>>> from roborally.render import render
>>> from roborally.content.courses import find_course
>>> render(find_course("tiny").course).startswith("<svg")
True
"""

from __future__ import annotations

from roborally.render.png import CairoMissingError, cairo_available, render_png, svg_to_png
from roborally.render.svg import RobotMark, board_layer, render, robot_layer

__all__ = [
    "CairoMissingError",
    "RobotMark",
    "board_layer",
    "cairo_available",
    "render",
    "render_png",
    "robot_layer",
    "svg_to_png",
]
