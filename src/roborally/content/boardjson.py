"""The compiled course grid as JSON, for clients that draw the board (protocol 1.2), and the
start spaces of a course.

The server's ``GET /api/courses/{course}`` and ``welcome`` send :func:`course_board`; bots and
tools outside the server use the same functions (``roborally.api.board_json`` and
``roborally.api.start_spaces``).
"""

from __future__ import annotations

from dataclasses import replace
from functools import cache, lru_cache
from typing import Any

from roborally.content.courses import find_course, register_course_text
from roborally.engine.core.board import Cell, Grid, StartSpace, default_start_facing
from roborally.engine.core.geometry import DIRECTIONS, Turn
from roborally.engine.editions import edition


def course_grid(
    course: str, edition_id: str = "2023", variants: frozenset[str] = frozenset()
) -> Grid:
    """A course (a shipped course id or a ``.course`` file) compiled as ``edition_id`` plays it
    with ``variants`` (in 2023 checkpoints and reboot tokens switch off the elements under
    them; Dynamic Archiving removes the reboot tokens)."""
    return edition(edition_id).grid(find_course(course).course, variants)


@cache
def course_board(course: str, edition_id: str, variants: frozenset[str]) -> dict[str, Any]:
    """A course's grid as the edition plays it, as JSON for drawing (one per course, edition
    and set of variants a game was created with)."""
    return grid_to_json(course_grid(course, edition_id, variants))


@lru_cache(maxsize=64)  # custom courses come and go: only the ones in use stay
def custom_course_board(text: str, edition_id: str, variants: frozenset[str]) -> dict[str, Any]:
    """:func:`course_board` of a custom course, given by its file text
    (:func:`~roborally.content.courses.register_course_text`)."""
    info = register_course_text(text)
    return grid_to_json(edition(edition_id).grid(info.course, variants))


def start_spaces(grid: Grid) -> list[StartSpace]:
    """The grid's start spaces in number order, each with the facing a robot placed there gets
    (its printed facing, else toward the factory boards)."""
    spaces = sorted(grid.start_spaces, key=lambda s: s.number)
    return [
        s if s.facing is not None else replace(s, facing=default_start_facing(grid, s.pos))
        for s in spaces
    ]


def _xy(grid: Grid, index: int) -> list[int]:
    pos = grid.pos(index)
    return [pos.x, pos.y]


def cell_elements(cell: Cell) -> dict[str, Any]:
    """A cell's elements as JSON (no walls: a grid and a board model give those their own
    way), only the fields it has."""
    entry: dict[str, Any] = {}
    if cell.pit:
        entry["pit"] = True
    if cell.belt is not None:
        entry["belt"] = {
            "color": cell.belt.color.value,
            "out": cell.belt.out.letter,
            "curved": sorted(d.letter for d in cell.belt.curved),
        }
    if cell.gear is not None and cell.gear is not Turn.NONE:
        entry["gear"] = "left" if cell.gear is Turn.LEFT else "right"
    if cell.pusher is not None:
        entry["pusher"] = {
            "direction": cell.pusher.direction.letter,
            "registers": sorted(cell.pusher.registers),
        }
    if cell.lasers:
        entry["lasers"] = [{"direction": x.direction.letter, "beams": x.beams} for x in cell.lasers]
    if cell.battery:
        entry["battery"] = True
    if cell.repair:
        entry["repair"] = cell.repair
    if cell.crusher is not None:
        entry["crusher"] = sorted(cell.crusher)
    if cell.start is not None:
        entry["start"] = cell.start
        if cell.start_facing is not None:
            entry["start_facing"] = cell.start_facing.letter
    if cell.checkpoint is not None:
        entry["checkpoint"] = cell.checkpoint
    if cell.reboot is not None:
        entry["reboot"] = cell.reboot.letter
    return entry


def grid_to_json(grid: Grid) -> dict[str, Any]:
    cells: list[dict[str, Any]] = []
    for index, cell in enumerate(grid.cells):
        if cell is None:
            continue
        pos = grid.pos(index)
        entry: dict[str, Any] = {"x": pos.x, "y": pos.y, "board": grid.board_of[index]}
        walls = [d.letter for d in DIRECTIONS if grid.wall_between(pos, d)]
        if walls:
            entry["walls"] = walls
        entry |= cell_elements(cell)
        if grid.inactive[index]:
            entry["inactive"] = True
        cells.append(entry)
    return {
        "width": grid.width,
        "height": grid.height,
        "cells": cells,
        "boards": [
            {"name": name, "kind": kind}
            for name, kind in zip(grid.board_names, grid.board_kinds, strict=True)
        ],
        "checkpoints": [[p.x, p.y] for p in grid.checkpoints],
        "start_spaces": [
            {"number": s.number, "pos": [s.pos.x, s.pos.y]} for s in grid.start_spaces
        ],
        "lasers": [
            {
                "from": [pos.x, pos.y],
                "direction": laser.direction.letter,
                "beams": laser.beams,
                "path": [_xy(grid, i) for i in path],
            }
            for pos, laser, path in grid.lasers
        ],
    }
