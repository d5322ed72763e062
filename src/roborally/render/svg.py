"""SVG pictures of boards, courses and robots: pure functions of public data.

:func:`render` gives a complete standalone SVG document for a :class:`Course` or a single
:class:`Board`. It is made of two layers that callers can also use on their own:

- :func:`board_layer` draws the static course (floor, walls, every board element and the course
  overlays) as one SVG ``<g>`` group;
- :func:`robot_layer` draws robots (:class:`RobotMark`) as a separate group that a client can
  animate on top of the board.

The output depends only on the arguments: the same input always gives the same string. Every
element carries a ``class`` (``wall``, ``belt``, ``gear``, ``laser``, ``checkpoint`` ...) and
``data-x``/``data-y`` attributes so that CSS and scripts can find and restyle it. Presentation
attributes are used for the default look, so CSS rules override them.

>>> from roborally.engine.core.board import Board
>>> svg = render(Board.create("empty", 2, 1))
>>> svg.startswith("<svg")
True
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from xml.sax.saxutils import escape, quoteattr

from roborally.engine.core.board import WALL_BIT, Belt, BeltColor, Board, Cell, Course, Grid, Laser
from roborally.engine.core.geometry import DIRECTIONS, Direction, Pos, Turn

__all__ = ["RobotMark", "board_layer", "render", "robot_layer"]

FONT = "DejaVu Sans, Verdana, Arial, Helvetica, sans-serif"

# Colours. Plain hex so that every SVG renderer (browsers, cairosvg) agrees.
FLOOR = {"factory": "#c3c8ce", "dock": "#d9ceb0"}
FLOOR_LINE = {"factory": "#a7adb4", "dock": "#bfb292"}
FLOOR_SHINE = {"factory": "#ced2d7", "dock": "#e2d8bd"}
VOID = "#24282f"
INK = "#1d2126"
WALL_FILL = "#f0b323"
WALL_EDGE = "#5b4105"
BELT_COLORS = {  # band, border, arrows
    "green": ("#3f9b4f", "#1d5a28", "#e6ffe9"),
    "yellow": ("#e3b82a", "#7a5c05", "#3b2c00"),
    "blue": ("#2f6bd0", "#173a7a", "#ffffff"),
}
GEAR_COLORS = {Turn.RIGHT: ("#2f9e44", "#145222"), Turn.LEFT: ("#d9383a", "#7d1416")}
PIT_HOLE = ("#3a3d42", "#1a1c20", "#07080a")
HAZARD = ("#f2c12e", "#17181b")
LASER_RED = "#ff2b2b"
EMITTER = ("#3b3f46", "#15171a")
PUSHER = ("#f76707", "#6a2600", "#ffffff")
BATTERY = ("#1e8a6e", "#0c4536", "#ffd43b")
REPAIR = ("#edf3fb", "#1c5fa8")
CRUSHER = ("#8a9099", "#33373d", "#b3261e")
START = ("#34466d", "#ffffff")
CHECKPOINT = ("#fff6e5", "#f08c00", "#3b2a10")
REBOOT = ("#6f4bc6", "#2e1a66", "#ffffff")

INACTIVE_OPACITY = "0.35"

# Sizes as fractions of a cell.
WALL_THICK = 0.14
BELT_WIDTH = 0.62


@dataclass(frozen=True, slots=True)
class RobotMark:
    """A robot to draw: where it stands, where it faces, its colour (CSS) and a short label."""

    pos: Pos
    facing: Direction
    color: str
    label: str = ""


# ---------------------------------------------------------------------------------------------
# Small helpers


def _n(value: float) -> str:
    """A number for SVG: at most two decimals, no trailing zeros, never ``-0``."""
    text = f"{value:.2f}".rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


def _pts(points: Iterable[tuple[float, float]]) -> str:
    return " ".join(f"{_n(x)},{_n(y)}" for x, y in points)


def _transform(x: float, y: float, degrees: int = 0) -> str:
    rotate = f" rotate({degrees})" if degrees % 360 else ""
    return f"translate({_n(x)} {_n(y)}){rotate}"


def _text(
    x: float,
    y: float,
    text: str,
    size: float,
    fill: str,
    cls: str,
    *,
    weight: str = "bold",
    anchor: str = "middle",
    extra: str = "",
) -> str:
    """Text centred vertically on ``y`` (the baseline is computed, no ``dominant-baseline``)."""
    return (
        f'<text class="{cls}" x="{_n(x)}" y="{_n(y + size * 0.36)}" font-size="{_n(size)}"'
        f' font-weight="{weight}" text-anchor="{anchor}" fill="{fill}"{extra}>'
        f"{escape(text)}</text>"
    )


def _open(
    cls: str,
    pos: Pos,
    *,
    transform: str = "",
    inactive: bool = False,
    data: dict[str, str] | None = None,
) -> str:
    """The opening tag of an element's group: classes, cell, ``data-*`` and transform."""
    classes = f"{cls} inactive" if inactive else cls
    attrs = f'class="{classes}" data-x="{pos.x}" data-y="{pos.y}"'
    for key, value in (data or {}).items():
        attrs += f" data-{key}={quoteattr(value)}"
    if transform:
        attrs += f' transform="{transform}"'
    if inactive:
        attrs += f' opacity="{INACTIVE_OPACITY}"'
    return f"<g {attrs}>"


def _registers(registers: Iterable[int]) -> list[str]:
    return [str(r) for r in sorted(registers)]


def _arrowhead(
    tip: tuple[float, float], direction: tuple[float, float], length: float, half_width: float
) -> list[tuple[float, float]]:
    """A triangle whose tip is ``tip`` and which points along the unit vector ``direction``."""
    ux, uy = direction
    nx, ny = -uy, ux
    bx, by = tip[0] - ux * length, tip[1] - uy * length
    return [
        tip,
        (bx + nx * half_width, by + ny * half_width),
        (bx - nx * half_width, by - ny * half_width),
    ]


# ---------------------------------------------------------------------------------------------
# Floor, pits and walls


def _floor(grid: Grid, c: float) -> list[str]:
    out = ['<g class="floor">']
    inset = c * 0.07
    for i, cell in enumerate(grid.cells):
        if cell is None:
            continue
        pos = grid.pos(i)
        kind = grid.board_kinds[grid.board_of[i]]
        x, y = pos.x * c, pos.y * c
        out.append(
            f'<rect class="tile {kind}" data-x="{pos.x}" data-y="{pos.y}" x="{_n(x)}" y="{_n(y)}"'
            f' width="{_n(c)}" height="{_n(c)}" fill="{FLOOR[kind]}" stroke="{FLOOR_LINE[kind]}"'
            f' stroke-width="{_n(max(1.0, c / 48))}"/>'
        )
        out.append(
            f'<rect class="tile-shine" x="{_n(x + inset)}" y="{_n(y + inset)}"'
            f' width="{_n(c - 2 * inset)}" height="{_n(c - 2 * inset)}" rx="{_n(c * 0.05)}"'
            f' fill="{FLOOR_SHINE[kind]}"/>'
        )
    out.append("</g>")
    return out


def _pit(pos: Pos, c: float, inactive: bool) -> list[str]:
    x, y = pos.x * c, pos.y * c
    rim = c * 0.1
    edge = c * 0.05 + rim / 2
    side = c - 2 * edge
    dash = _n(c * 0.09)
    out = [_open("pit", pos, inactive=inactive)]
    out.append(
        f'<rect x="{_n(x + edge)}" y="{_n(y + edge)}" width="{_n(side)}" height="{_n(side)}"'
        f' fill="none" stroke="{HAZARD[0]}" stroke-width="{_n(rim)}"/>'
    )
    out.append(
        f'<rect x="{_n(x + edge)}" y="{_n(y + edge)}" width="{_n(side)}" height="{_n(side)}"'
        f' fill="none" stroke="{HAZARD[1]}" stroke-width="{_n(rim)}"'
        f' stroke-dasharray="{dash} {dash}"/>'
    )
    for step, color in enumerate(PIT_HOLE):
        inner = c * 0.05 + rim + step * c * 0.07
        out.append(
            f'<rect x="{_n(x + inner)}" y="{_n(y + inner)}" width="{_n(c - 2 * inner)}"'
            f' height="{_n(c - 2 * inner)}" fill="{color}"/>'
        )
    out.append("</g>")
    return out


def _wall_edges(grid: Grid) -> list[tuple[Pos, Direction]]:
    """Every wall edge once, as (cell, side), in a fixed order (cells row by row, N E S W)."""
    seen: set[tuple[int, int, str]] = set()
    edges: list[tuple[Pos, Direction]] = []
    for i, cell in enumerate(grid.cells):
        if cell is None:
            continue
        pos = grid.pos(i)
        for d in DIRECTIONS:
            if not grid.walls[i] & WALL_BIT[d]:
                continue
            if d == Direction.NORTH:
                key = (pos.x, pos.y, "h")
            elif d == Direction.SOUTH:
                key = (pos.x, pos.y + 1, "h")
            elif d == Direction.WEST:
                key = (pos.x, pos.y, "v")
            else:
                key = (pos.x + 1, pos.y, "v")
            if key not in seen:
                seen.add(key)
                edges.append((pos, d))
    return edges


def _walls(grid: Grid, c: float) -> list[str]:
    t = c * WALL_THICK
    out = ['<g class="walls">']
    for pos, d in _wall_edges(grid):
        x0, y0 = pos.x * c, pos.y * c
        if d in (Direction.NORTH, Direction.SOUTH):
            ey = y0 if d == Direction.NORTH else y0 + c
            x, y, w, h = x0 - t / 2, ey - t / 2, c + t, t
        else:
            ex = x0 if d == Direction.WEST else x0 + c
            x, y, w, h = ex - t / 2, y0 - t / 2, t, c + t
        out.append(
            f'<rect class="wall" data-x="{pos.x}" data-y="{pos.y}" data-side="{d.letter}"'
            f' x="{_n(x)}" y="{_n(y)}" width="{_n(w)}" height="{_n(h)}" rx="{_n(t * 0.3)}"'
            f' fill="{WALL_FILL}" stroke="{WALL_EDGE}" stroke-width="{_n(max(0.8, c / 60))}"/>'
        )
    out.append("</g>")
    return out


# ---------------------------------------------------------------------------------------------
# Belts
#
# A belt is drawn in a local frame centred on its cell where it moves north (out of the top
# edge); the group is then rotated to its real direction. Each entry is a path into the top edge:
# the straight one from the bottom edge, curved ones as quarter circles from a side edge.


def _belt_path(rel: int, h: float) -> str:
    if rel == 2:
        return f"M0 {_n(h)} L0 {_n(-h)}"
    if rel == 1:  # enters through the right-hand edge (local east)
        return f"M{_n(h)} 0 A{_n(h)} {_n(h)} 0 0 1 0 {_n(-h)}"
    return f"M{_n(-h)} 0 A{_n(h)} {_n(h)} 0 0 0 0 {_n(-h)}"


def _belt_point(rel: int, h: float, t: float) -> tuple[tuple[float, float], tuple[float, float]]:
    """The point at fraction ``t`` along an entry path and the unit travel direction there."""
    if rel == 2:
        return (0.0, h - 2 * h * t), (0.0, -1.0)
    if rel == 1:
        phi = math.radians(90 + 90 * t)
        return (h + h * math.cos(phi), -h + h * math.sin(phi)), (-math.sin(phi), math.cos(phi))
    psi = math.radians(90 - 90 * t)
    return (-h + h * math.cos(psi), -h + h * math.sin(psi)), (math.sin(psi), -math.cos(psi))


def _dart(point: tuple[float, float], u: tuple[float, float], size: float) -> str:
    """An arrowhead with a notched back, centred on ``point`` and pointing along ``u``."""
    ux, uy = u
    nx, ny = -uy, ux
    px, py = point
    local = [(0.55, 0.0), (-0.45, -0.62), (-0.12, 0.0), (-0.45, 0.62)]
    return _pts((px + (ux * a + nx * b) * size, py + (uy * a + ny * b) * size) for a, b in local)


def _belt_entries(grid: Grid, pos: Pos, belt: Belt) -> list[int]:
    """Entry paths to draw, as sides relative to ``out`` (1 right, 2 straight behind, 3 left).

    Curved entries come from the data. The straight entry is drawn when the piece has no curved
    entry, or when the space behind holds a belt that feeds straight into this one.
    """
    rels = sorted({(side - belt.out) % 4 for side in belt.curved} & {1, 3})
    behind = grid.cell(pos.step(belt.out.opposite))
    fed = behind is not None and behind.belt is not None and behind.belt.out == belt.out
    if not rels or fed:
        rels.append(2)
    return sorted(rels)


def _belt(grid: Grid, pos: Pos, belt: Belt, c: float, classic: bool, inactive: bool) -> list[str]:
    h = c / 2
    key = "blue" if belt.color == BeltColor.BLUE else "yellow" if classic else "green"
    band, border, arrow = BELT_COLORS[key]
    rels = _belt_entries(grid, pos, belt)
    curved = "".join(sorted(d.letter for d in belt.curved))
    cls = f"belt {belt.color.value}" + (" turn" if 2 not in rels else "")
    cls += " merge" if len(rels) > 1 else ""
    cx, cy = pos.x * c + h, pos.y * c + h
    transform = _transform(cx, cy, 90 * belt.out)
    data = {"out": belt.out.letter, "curved": curved}
    out = [_open(cls, pos, transform=transform, inactive=inactive, data=data)]
    w = c * BELT_WIDTH
    for rel in rels:
        out.append(
            f'<path d="{_belt_path(rel, h)}" fill="none" stroke="{border}"'
            f' stroke-width="{_n(w + c * 0.07)}"/>'
        )
    for rel in rels:
        out.append(
            f'<path class="belt-band" d="{_belt_path(rel, h)}" fill="none" stroke="{band}"'
            f' stroke-width="{_n(w)}"/>'
        )
    express = belt.color == BeltColor.BLUE
    size = c * 0.2
    darts: list[tuple[tuple[float, float], tuple[float, float]]] = []
    if len(rels) == 1:
        spots = (0.3, 0.68) if express else (0.5,)
        darts = [_belt_point(rels[0], h, t) for t in spots]
    else:
        for rel in rels:
            darts += [_belt_point(rel, h, t) for t in ((0.1, 0.32) if express else (0.22,))]
        darts.append(((0.0, -h * 0.66), (0.0, -1.0)))
        size = c * 0.17
    for point, u in darts:
        out.append(
            f'<polygon class="belt-arrow" points="{_dart(point, u, size)}" fill="{arrow}"'
            f' stroke="{border}" stroke-width="{_n(c / 96)}"/>'
        )
    out.append("</g>")
    return out


# ---------------------------------------------------------------------------------------------
# Gears, batteries, repair sites, crushers, start spaces


def _gear(pos: Pos, turn: Turn, c: float, inactive: bool) -> list[str]:
    fill, dark = GEAR_COLORS.get(turn, GEAR_COLORS[Turn.RIGHT])
    name = "cw" if turn == Turn.RIGHT else "ccw"
    cx, cy = pos.x * c + c / 2, pos.y * c + c / 2
    out = [_open(f"gear {name}", pos, transform=_transform(cx, cy), inactive=inactive)]
    tooth_w, outer, body = c * 0.13, c * 0.43, c * 0.33
    for k in range(8):
        out.append(
            f'<rect x="{_n(-tooth_w / 2)}" y="{_n(-outer)}" width="{_n(tooth_w)}"'
            f' height="{_n(outer - body + c * 0.04)}" rx="{_n(c * 0.02)}" fill="{fill}"'
            f' stroke="{dark}" stroke-width="{_n(c / 60)}" transform="rotate({k * 45 + 22.5})"/>'
        )
    out.append(
        f'<circle r="{_n(body)}" fill="{fill}" stroke="{dark}" stroke-width="{_n(c / 60)}"/>'
    )
    # A white arrow three quarters round the hub, drawn clockwise and mirrored for LEFT.
    r = c * 0.19
    start, end = math.radians(160), math.radians(55)
    sx, sy = r * math.cos(start), r * math.sin(start)
    ex, ey = r * math.cos(end), r * math.sin(end)
    mirror = ' transform="scale(-1 1)"' if turn == Turn.LEFT else ""
    out.append(f'<g class="gear-arrow"{mirror}>')
    out.append(
        f'<path d="M{_n(sx)} {_n(sy)} A{_n(r)} {_n(r)} 0 1 1 {_n(ex)} {_n(ey)}" fill="none"'
        f' stroke="#ffffff" stroke-width="{_n(c * 0.07)}"/>'
    )
    u = (-math.sin(end), math.cos(end))
    tip = (ex + u[0] * c * 0.14, ey + u[1] * c * 0.14)
    out.append(f'<polygon points="{_pts(_arrowhead(tip, u, c * 0.17, c * 0.11))}" fill="#ffffff"/>')
    out.append("</g></g>")
    return out


def _battery(pos: Pos, c: float, inactive: bool) -> list[str]:
    body, dark, bolt = BATTERY
    cx, cy = pos.x * c + c / 2, pos.y * c + c / 2
    out = [_open("battery", pos, transform=_transform(cx, cy), inactive=inactive)]
    w, h = c * 0.36, c * 0.54
    out.append(
        f'<rect x="{_n(-c * 0.09)}" y="{_n(-h / 2 - c * 0.07)}" width="{_n(c * 0.18)}"'
        f' height="{_n(c * 0.1)}" rx="{_n(c * 0.02)}" fill="{dark}"/>'
    )
    out.append(
        f'<rect x="{_n(-w / 2)}" y="{_n(-h / 2)}" width="{_n(w)}" height="{_n(h)}"'
        f' rx="{_n(c * 0.05)}" fill="{body}" stroke="{dark}" stroke-width="{_n(c / 32)}"/>'
    )
    bolt_pts = [
        (0.04, -0.2),
        (-0.1, 0.03),
        (-0.005, 0.03),
        (-0.04, 0.2),
        (0.1, -0.03),
        (0.005, -0.03),
    ]
    out.append(
        f'<polygon points="{_pts((x * c, y * c) for x, y in bolt_pts)}" fill="{bolt}"'
        f' stroke="{dark}" stroke-width="{_n(c / 96)}"/>'
    )
    out.append("</g>")
    return out


def _wrench(angle: int, c: float, plate: str, ink: str) -> list[str]:
    """One wrench pointing up, rotated by ``angle`` degrees about the cell centre."""
    return [
        f'<g transform="rotate({angle})">',
        f'<rect x="{_n(-c * 0.045)}" y="{_n(-c * 0.1)}" width="{_n(c * 0.09)}"'
        f' height="{_n(c * 0.42)}" rx="{_n(c * 0.045)}" fill="{ink}"/>',
        f'<circle cy="{_n(-c * 0.17)}" r="{_n(c * 0.115)}" fill="{ink}"/>',
        f'<rect x="{_n(-c * 0.042)}" y="{_n(-c * 0.31)}" width="{_n(c * 0.084)}"'
        f' height="{_n(c * 0.15)}" fill="{plate}"/>',
        "</g>",
    ]


def _repair(pos: Pos, wrenches: int, c: float, inactive: bool) -> list[str]:
    plate, ink = REPAIR
    cx, cy = pos.x * c + c / 2, pos.y * c + c / 2
    out = [_open(f"repair repair-{wrenches}", pos, transform=_transform(cx, cy), inactive=inactive)]
    out.append(
        f'<circle r="{_n(c * 0.41)}" fill="{plate}" stroke="{ink}" stroke-width="{_n(c / 24)}"/>'
    )
    angles = (45,) if wrenches <= 1 else (45, -45)
    for angle in angles:
        out += _wrench(angle, c, plate, ink)
    out.append("</g>")
    return out


def _crusher(pos: Pos, registers: frozenset[int], c: float, inactive: bool) -> list[str]:
    steel, dark, red = CRUSHER
    cx, cy = pos.x * c + c / 2, pos.y * c + c / 2
    data = {"registers": " ".join(_registers(registers))}
    out = [_open("crusher", pos, transform=_transform(cx, cy), inactive=inactive, data=data)]
    half, back, gums, teeth = c * 0.42, c * 0.44, c * 0.3, 5
    for sign in (-1, 1):
        pts: list[tuple[float, float]] = [(-half, sign * back), (half, sign * back)]
        step = 2 * half / teeth
        for k in range(teeth, 0, -1):
            right = -half + k * step
            pts += [(right, sign * gums), (right - step / 2, sign * c * 0.19)]
        pts.append((-half, sign * gums))
        out.append(
            f'<polygon class="crusher-jaw" points="{_pts(pts)}" fill="{steel}" stroke="{dark}"'
            f' stroke-width="{_n(c / 40)}" stroke-linejoin="round"/>'
        )
    label = " ".join(_registers(registers))
    size = c * 0.22
    width = max(1, len(label)) * size * 0.62 + c * 0.08
    out.append(
        f'<rect x="{_n(-width / 2)}" y="{_n(-c * 0.15)}" width="{_n(width)}"'
        f' height="{_n(c * 0.3)}" rx="{_n(c * 0.06)}" fill="#ffffff" stroke="{red}"'
        f' stroke-width="{_n(c / 48)}"/>'
    )
    out.append(_text(0, 0, label, size, red, "registers"))
    out.append("</g>")
    return out


def _start(pos: Pos, number: int, facing: Direction | None, c: float, inactive: bool) -> list[str]:
    fill, ink = START
    cx, cy = pos.x * c + c / 2, pos.y * c + c / 2
    data = {"number": str(number)} | ({"facing": facing.letter} if facing is not None else {})
    out = [_open("start", pos, transform=_transform(cx, cy), inactive=inactive, data=data)]
    out.append(
        f'<rect x="{_n(-c * 0.4)}" y="{_n(-c * 0.4)}" width="{_n(c * 0.8)}"'
        f' height="{_n(c * 0.8)}" rx="{_n(c * 0.1)}" fill="none" stroke="{fill}"'
        f' stroke-width="{_n(c / 32)}" stroke-dasharray="{_n(c * 0.08)} {_n(c * 0.05)}"/>'
    )
    out.append(
        f'<circle r="{_n(c * 0.25)}" fill="{fill}" stroke="{ink}" stroke-width="{_n(c / 48)}"/>'
    )
    if facing is not None:
        head = _arrowhead((0.0, -c * 0.47), (0.0, -1.0), c * 0.17, c * 0.15)
        out.append(
            f'<polygon class="facing" points="{_pts(head)}"'
            f' fill="{fill}" transform="rotate({90 * facing})"/>'
        )
    size = c * (0.3 if number < 10 else 0.24)
    out.append(_text(0, 0, str(number), size, ink, "number"))
    out.append("</g>")
    return out


# ---------------------------------------------------------------------------------------------
# Wall-mounted elements: push panels and lasers


def _pusher(pos: Pos, cell: Cell, c: float, inactive: bool) -> list[str]:
    assert cell.pusher is not None
    fill, dark, ink = PUSHER
    push = cell.pusher.direction
    regs = _registers(cell.pusher.registers)
    h, t, depth, length = c / 2, c * WALL_THICK, c * 0.24, c * 0.84
    cx, cy = pos.x * c + h, pos.y * c + h
    data = {"push": push.letter, "registers": " ".join(regs)}
    out = [_open("pusher", pos, transform=_transform(cx, cy), inactive=inactive, data=data)]
    # The arrows go in a frame rotated so that the push goes up; the plate sits on the bottom.
    out.append(f'<g transform="rotate({90 * push})">')
    for offset in (-0.24, 0.24):
        head = _arrowhead(
            (offset * c, h - t / 2 - depth - c * 0.15), (0.0, -1.0), c * 0.11, c * 0.1
        )
        out.append(
            f'<polygon class="push-arrow" points="{_pts(head)}"'
            f' fill="{fill}" stroke="{dark}" stroke-width="{_n(c / 96)}"/>'
        )
    out.append("</g>")
    side = push.opposite
    size = c * 0.2
    if side in (Direction.NORTH, Direction.SOUTH):
        x, w, hh = -length / 2, length, depth
        y = -h + t / 2 if side == Direction.NORTH else h - t / 2 - depth
        text_spots = [(0.0, y + depth / 2, " ".join(regs))]
    else:
        x, w, hh = (-h + t / 2 if side == Direction.WEST else h - t / 2 - depth), depth, length
        y = -length / 2
        step = min(c * 0.22, length / max(1, len(regs)))
        top = -step * (len(regs) - 1) / 2
        text_spots = [(x + depth / 2, top + k * step, r) for k, r in enumerate(regs)]
    out.append(
        f'<rect class="push-plate" x="{_n(x)}" y="{_n(y)}" width="{_n(w)}" height="{_n(hh)}"'
        f' rx="{_n(c * 0.04)}" fill="{fill}" stroke="{dark}" stroke-width="{_n(c / 40)}"/>'
    )
    for tx, ty, label in text_spots:
        out.append(_text(tx, ty, label, size, ink, "registers"))
    out.append("</g>")
    return out


def _laser_reach(grid: Grid, pos: Pos, direction: Direction) -> tuple[int, bool]:
    """How many cells a beam crosses from its emitter's cell, and whether a wall stops it."""
    count = 1
    here = pos
    while True:
        if grid.walls[grid.index(here)] & WALL_BIT[direction]:
            return count, True
        nxt = here.step(direction)
        if not grid.is_on_course(nxt):
            return count, False
        here = nxt
        count += 1


def _laser(grid: Grid, pos: Pos, laser: Laser, c: float) -> tuple[list[str], list[str]]:
    """The beam lines (drawn under the walls) and the emitter (drawn on its wall)."""
    h, t = c / 2, c * WALL_THICK
    beams = max(1, min(3, laser.beams))
    reach, walled = _laser_reach(grid, pos, laser.direction)
    cx, cy = pos.x * c + h, pos.y * c + h
    # Local frame: the laser fires up (north) from the wall on the bottom edge.
    transform = _transform(cx, cy, 90 * laser.direction)
    data = {"fires": laser.direction.letter, "beams": str(beams)}
    out = [_open("laser", pos, transform=transform, data=data | {"reach": str(reach)})]
    housing = c * 0.17
    start = h - t / 2 - housing
    end = -((reach - 1) * c + h) + (t / 2 if walled else 0)
    spacing = c * 0.12
    offsets = [(k - (beams - 1) / 2) * spacing for k in range(beams)]
    glow = (beams - 1) * spacing + c * 0.12
    out.append(
        f'<line class="beam-glow" x1="0" y1="{_n(start)}" x2="0" y2="{_n(end)}"'
        f' stroke="{LASER_RED}" stroke-opacity="0.13" stroke-width="{_n(glow)}"/>'
    )
    for off in offsets:
        out.append(
            f'<line class="beam" x1="{_n(off)}" y1="{_n(start)}" x2="{_n(off)}" y2="{_n(end)}"'
            f' stroke="{LASER_RED}" stroke-opacity="0.6" stroke-width="{_n(c * 0.035)}"/>'
        )
    out.append("</g>")
    width = max(c * 0.34, (beams - 1) * spacing + c * 0.22)
    emitter = [
        _open("laser-emitter", pos, transform=transform, data=data),
        f'<rect x="{_n(-width / 2)}" y="{_n(start)}" width="{_n(width)}"'
        f' height="{_n(housing + t / 2)}" rx="{_n(c * 0.05)}" fill="{EMITTER[0]}"'
        f' stroke="{EMITTER[1]}" stroke-width="{_n(c / 48)}"/>',
    ]
    for off in offsets:
        emitter.append(
            f'<circle cx="{_n(off)}" cy="{_n(start + c * 0.02)}" r="{_n(c * 0.045)}"'
            f' fill="{LASER_RED}" stroke="#ffd0d0" stroke-width="{_n(c / 96)}"/>'
        )
    emitter.append("</g>")
    return out, emitter


# ---------------------------------------------------------------------------------------------
# Course overlays: checkpoints and reboot tokens


def _checkpoint(pos: Pos, number: int, c: float) -> list[str]:
    base, flag, ink = CHECKPOINT
    cx, cy = pos.x * c + c / 2, pos.y * c + c / 2
    out = [_open("checkpoint", pos, transform=_transform(cx, cy), data={"number": str(number)})]
    out.append(
        f'<circle r="{_n(c * 0.44)}" fill="{base}" stroke="{flag}" stroke-width="{_n(c * 0.06)}"/>'
    )
    out.append(
        f'<ellipse cx="{_n(-c * 0.14)}" cy="{_n(c * 0.31)}" rx="{_n(c * 0.12)}"'
        f' ry="{_n(c * 0.04)}" fill="{ink}" opacity="0.45"/>'
    )
    pole = -c * 0.14
    out.append(
        f'<line x1="{_n(pole)}" y1="{_n(c * 0.31)}" x2="{_n(pole)}" y2="{_n(-c * 0.33)}"'
        f' stroke="{ink}" stroke-width="{_n(c * 0.05)}" stroke-linecap="round"/>'
    )
    top, bottom, right = -c * 0.33, c * 0.05, c * 0.3
    wave = (
        f"M{_n(pole)} {_n(top)} Q{_n(c * 0.06)} {_n(top - c * 0.07)} {_n(right)} {_n(top)}"
        f" L{_n(right)} {_n(bottom)} Q{_n(c * 0.06)} {_n(bottom - c * 0.07)} {_n(pole)}"
        f" {_n(bottom)} Z"
    )
    out.append(
        f'<path class="flag" d="{wave}" fill="{flag}" stroke="{ink}" stroke-width="{_n(c / 48)}"/>'
    )
    out.append(
        _text(
            (pole + right) / 2 + c * 0.01,
            (top + bottom) / 2 - c * 0.01,
            str(number),
            c * (0.28 if number < 10 else 0.22),
            "#ffffff",
            "number",
        )
    )
    out.append("</g>")
    return out


def _reboot(pos: Pos, arrow: Direction, c: float) -> list[str]:
    fill, dark, ink = REBOOT
    cx, cy = pos.x * c + c / 2, pos.y * c + c / 2
    out = [_open("reboot", pos, transform=_transform(cx, cy), data={"arrow": arrow.letter})]
    s = c * 0.42
    out.append(
        f'<rect x="{_n(-s)}" y="{_n(-s)}" width="{_n(2 * s)}" height="{_n(2 * s)}"'
        f' rx="{_n(c * 0.1)}" fill="{fill}" stroke="{dark}" stroke-width="{_n(c / 32)}"/>'
    )
    # A "restart" ring (a circle with a gap and an arrowhead) ...
    r = c * 0.24
    a0, a1 = math.radians(-60), math.radians(240)
    out.append(
        f'<path class="reboot-ring" d="M{_n(r * math.cos(a0))} {_n(r * math.sin(a0))}'
        f' A{_n(r)} {_n(r)} 0 1 1 {_n(r * math.cos(a1))} {_n(r * math.sin(a1))}" fill="none"'
        f' stroke="{ink}" stroke-opacity="0.55" stroke-width="{_n(c * 0.05)}"/>'
    )
    # ... and the big arrow: the direction robots face when they reboot here.
    out.append(f'<g class="reboot-arrow" transform="rotate({90 * arrow})">')
    out.append(
        f'<rect x="{_n(-c * 0.055)}" y="{_n(-c * 0.12)}" width="{_n(c * 0.11)}"'
        f' height="{_n(c * 0.38)}" fill="{ink}"/>'
    )
    out.append(
        f'<polygon points="{_pts(_arrowhead((0.0, -c * 0.4), (0.0, -1.0), c * 0.3, c * 0.2))}"'
        f' fill="{ink}"/>'
    )
    out.append("</g></g>")
    return out


# ---------------------------------------------------------------------------------------------
# Board outlines


def _board_rects(grid: Grid) -> list[tuple[int, int, int, int]]:
    rects = []
    for placed in grid.course.boards:
        b = placed.board
        w, h = (b.height, b.width) if placed.rotation % 2 else (b.width, b.height)
        rects.append((placed.offset.x, placed.offset.y, w, h))
    return rects


def _outlines(grid: Grid, c: float) -> list[str]:
    out = ['<g class="boards">']
    for index, (x, y, w, h) in enumerate(_board_rects(grid)):
        board = grid.course.boards[index].board
        out.append(
            f'<rect class="board-outline {board.kind}" id="rr-board-{index}"'
            f' data-name={quoteattr(board.name)} x="{_n(x * c)}" y="{_n(y * c)}"'
            f' width="{_n(w * c)}" height="{_n(h * c)}" fill="none" stroke="{INK}"'
            f' stroke-width="{_n(c * 0.06)}"/>'
        )
    out.append("</g>")
    return out


def _is_bare(cell: Cell | None) -> bool:
    return cell is not None and replace(cell, walls=frozenset()).is_plain


def _label_spot(grid: Grid, rect: tuple[int, int, int, int], span: int) -> tuple[bool, bool]:
    """The corner (bottom?, left?) of a board whose ``span`` cells along the edge are bare.

    Tried in the order bottom-left, bottom-right, top-left, top-right; bottom-left if none is.
    """
    x, y, w, h = rect
    span = min(span, w)
    for bottom, left in ((True, True), (True, False), (False, True), (False, False)):
        row = y + h - 1 if bottom else y
        columns = range(x, x + span) if left else range(x + w - span, x + w)
        if all(_is_bare(grid.cell(Pos(col, row))) for col in columns):
            return bottom, left
    return True, True


def _english_label(board: Board) -> str:
    return (board.title or board.name) + (" · dock" if board.kind == "dock" else "")


def _labels(grid: Grid, c: float, label_of: Callable[[Board], str] = _english_label) -> list[str]:
    """Each board's title in small text in a free corner (docks say so after the title);
    ``label_of`` words it (another language's, say)."""
    out = ['<g class="board-labels">']
    size = max(7.0, c * 0.2)
    pad = c * 0.1
    for index, rect in enumerate(_board_rects(grid)):
        x, y, w, h = rect
        board = grid.course.boards[index].board
        label = label_of(board)
        width = len(label) * size * 0.62 + size
        height = size * 1.4
        bottom, left = _label_spot(grid, rect, math.ceil((width + pad) / c))
        lx = x * c + pad if left else (x + w) * c - pad - width
        ly = (y + h) * c - pad - height if bottom else y * c + pad
        out.append(
            f'<g class="board-label {board.kind}" data-board="{index}">'
            f'<rect x="{_n(lx)}" y="{_n(ly)}" width="{_n(width)}" height="{_n(height)}"'
            f' rx="{_n(size * 0.3)}" fill="#ffffff" opacity="0.75"/>'
        )
        out.append(_text(lx + width / 2, ly + height / 2, label, size, INK, "board-label-text"))
        out.append("</g>")
    out.append("</g>")
    return out


# ---------------------------------------------------------------------------------------------
# Public API


def board_layer(
    grid: Grid,
    *,
    cell: int = 48,
    classic: bool = False,
    label_of: Callable[[Board], str] = _english_label,
) -> str:
    """An SVG ``<g>`` drawing the static course of ``grid``, with cell (0, 0) at the origin.

    The group spans ``grid.width * cell`` by ``grid.height * cell`` units (walls on the outer
    edge stick out by half their thickness). ``classic`` draws normal belts yellow, as on the
    classic edition's boards. ``label_of`` gives each board's label (default: its English title,
    `` · dock`` after a dock's).
    """
    c = float(cell)
    out = [f'<g class="board-layer" id="rr-board-layer" font-family="{FONT}">']
    out += _floor(grid, c)
    out.append('<g class="elements">')
    for i, cell_ in enumerate(grid.cells):
        if cell_ is None:
            continue
        pos = grid.pos(i)
        off = grid.inactive[i]
        if cell_.pit:
            out += _pit(pos, c, off)
        if cell_.belt is not None:
            out += _belt(grid, pos, cell_.belt, c, classic, off)
        if cell_.gear is not None:
            out += _gear(pos, cell_.gear, c, off)
        if cell_.battery:
            out += _battery(pos, c, off)
        if cell_.repair:
            out += _repair(pos, cell_.repair, c, off)
        if cell_.crusher is not None:
            out += _crusher(pos, cell_.crusher, c, off)
        if cell_.start is not None:
            out += _start(pos, cell_.start, cell_.start_facing, c, off)
    out.append("</g>")
    beams, emitters = ['<g class="lasers">'], ['<g class="laser-emitters">']
    for i, cell_ in enumerate(grid.cells):
        if cell_ is not None:
            for laser in cell_.lasers:
                beam, emitter = _laser(grid, grid.pos(i), laser, c)
                beams += beam
                emitters += emitter
    out += _outlines(grid, c)
    out += _walls(grid, c)
    out.append('<g class="pushers">')
    for i, cell_ in enumerate(grid.cells):
        if cell_ is not None and cell_.pusher is not None:
            out += _pusher(grid.pos(i), cell_, c, grid.inactive[i])
    out.append("</g>")
    out.append('<g class="overlays">')
    for i, cell_ in enumerate(grid.cells):
        if cell_ is None:
            continue
        if cell_.reboot is not None:
            out += _reboot(grid.pos(i), cell_.reboot, c)
        if cell_.checkpoint is not None:
            out += _checkpoint(grid.pos(i), cell_.checkpoint, c)
    out.append("</g>")
    # Beams go over the overlays (lasers still fire across checkpoints and reboot tokens).
    out += beams
    out.append("</g>")
    out += emitters
    out.append("</g>")
    out += _labels(grid, c, label_of)
    out.append("</g>")
    return "\n".join(out)


def robot_layer(robots: list[RobotMark], *, cell: int = 48) -> str:
    """An SVG ``<g>`` drawing each robot on its cell, facing its direction, with its label.

    Each robot is a group ``g.robot`` translated to its cell centre; an inner ``g.robot-body``
    is rotated to the facing, so a client can animate moves and turns by changing the two
    transforms. The label always stays upright.
    """
    c = float(cell)
    out = [f'<g class="robot-layer" id="rr-robot-layer" font-family="{FONT}">']
    for index, robot in enumerate(robots):
        cx, cy = robot.pos.x * c + c / 2, robot.pos.y * c + c / 2
        out.append(
            f'<g class="robot" id="rr-robot-{index}" data-x="{robot.pos.x}"'
            f' data-y="{robot.pos.y}" data-facing="{robot.facing.letter}"'
            f' data-label={quoteattr(robot.label)} transform="{_transform(cx, cy)}">'
        )
        out.append(
            f'<ellipse class="robot-shadow" cx="{_n(c * 0.04)}" cy="{_n(c * 0.06)}"'
            f' rx="{_n(c * 0.36)}" ry="{_n(c * 0.36)}" fill="#000000" opacity="0.3"/>'
        )
        out.append(f'<g class="robot-body" transform="rotate({90 * robot.facing})">')
        s = c * 0.32
        out.append(
            f'<rect x="{_n(-s)}" y="{_n(-s + c * 0.04)}" width="{_n(2 * s)}"'
            f' height="{_n(2 * s - c * 0.04)}" rx="{_n(c * 0.12)}" fill={quoteattr(robot.color)}'
            f' stroke="{INK}" stroke-width="{_n(c / 24)}"/>'
        )
        nose = [(0.0, -c * 0.49), (-c * 0.2, -c * 0.24), (c * 0.2, -c * 0.24)]
        out.append(
            f'<polygon class="robot-facing" points="{_pts(nose)}" fill="#ffffff"'
            f' stroke="{INK}" stroke-width="{_n(c / 32)}" stroke-linejoin="round"/>'
        )
        out.append("</g>")
        if robot.label:
            size = c * (0.26 if len(robot.label) <= 2 else 0.2)
            width = len(robot.label) * size * 0.66 + c * 0.1
            top = -size * 0.7 + c * 0.06
            out.append(
                f'<rect class="robot-label-bg" x="{_n(-width / 2)}" y="{_n(top)}"'
                f' width="{_n(width)}" height="{_n(size * 1.4)}" rx="{_n(size * 0.35)}"'
                f' fill="#ffffff" stroke="{INK}" stroke-width="{_n(c / 96)}"/>'
            )
            out.append(_text(0, c * 0.06, robot.label, size, INK, "robot-label"))
        out.append("</g>")
    out.append("</g>")
    return "\n".join(out)


def _grid_of(source: Course | Board | Grid) -> Grid:
    if isinstance(source, Grid):
        return source
    if isinstance(source, Board):
        return Grid(Course.single(source))
    return Grid(source)


def render(
    course_or_board: Course | Board | Grid,
    *,
    robots: list[RobotMark] | None = None,
    cell: int = 48,
    classic: bool = False,
    title: str | None = None,
) -> str:
    """A complete SVG document: the course (or a single board), robots on top, and a title.

    The picture is ``grid.width * cell + cell`` wide (half a cell of margin on each side) and as
    high plus the title band when ``title`` is given.
    """
    grid = _grid_of(course_or_board)
    c = float(cell)
    margin = c / 2
    band = c * 0.8 if title else 0.0
    width = math.ceil(grid.width * c + 2 * margin)
    height = math.ceil(grid.height * c + 2 * margin + band)
    name = grid.course.name
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}"'
        f' viewBox="0 0 {width} {height}" class="roborally" data-course={quoteattr(name)}'
        f' data-cell="{cell}" font-family="{FONT}">',
        f"<title>{escape(title or grid.course.title or name)}</title>",
        f'<rect class="background" width="{width}" height="{height}" fill="{VOID}"/>',
    ]
    if title:
        out.append(
            _text(
                margin,
                margin + band / 2 - c * 0.08,
                title,
                c * 0.4,
                "#f1f3f5",
                "title",
                anchor="start",
            )
        )
    out.append(f'<g class="course" transform="{_transform(margin, margin + band)}">')
    out.append(board_layer(grid, cell=cell, classic=classic))
    out.append(robot_layer(robots or [], cell=cell))
    out.append("</g>")
    out.append("</svg>")
    return "\n".join(out) + "\n"
