"""The strict check of an uploaded custom course (docs/server.md "Custom courses").

:func:`check_upload` reads a course file a player sent, refuses it with the line and column of
a format error, the limits it passes (:class:`UploadLimits`) or the rule errors of
:func:`~roborally.content.validate.check_course` (its warnings and advice do not refuse), makes
sure the engine sets up a game on it, and gives the canonical file under the course's new id.
It takes up to a second on a large course, so the server runs it in a worker process of the
bot lane (or a thread), never on its event loop; it only returns plain data (it is pickled).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from roborally.content.cards import damage_deck
from roborally.content.courses import (
    CourseFormatError,
    drawing_comments,
    leading_comment,
    parse_course,
    write_course,
)
from roborally.content.validate import check_course
from roborally.engine.core.board import BoardError, Grid
from roborally.engine.core.state import GameConfig
from roborally.engine.editions import all_editions
from roborally.engine.game import Game

#: The longest title, and the longest tier, length and "follows" texts, in characters.
TITLE_MAX = 60
WORD_MAX = 40


@dataclass(frozen=True)
class UploadLimits:
    """The limits a custom course must pass (:class:`~roborally.server.settings.ServerOptions`
    fields ``custom_course_*``)."""

    bytes: int
    boards: int
    spaces: int
    checkpoints: int


def refusal(status: int, code: str, message: str, **extra: Any) -> dict[str, Any]:
    return {"ok": False, "status": status, "code": code, "message": message, **extra}


def check_upload(text: str, course_id: str, limits: UploadLimits) -> dict[str, Any]:
    """``{"ok": True, "text": canonical file, "summary": {...}, "warnings": [...]}`` or
    ``{"ok": False, "status", "code", "message", ...}`` (a format error adds ``line`` and
    ``column``, a rule error ``errors``)."""
    size = len(text.encode("utf-8", "surrogatepass"))
    if size > limits.bytes:
        return refusal(
            413, "too_large", f"the course file has {size} bytes; the limit is {limits.bytes}"
        )
    try:
        info = parse_course(text, "course")
    except CourseFormatError as error:
        return refusal(
            400,
            "format",
            f"line {error.line}, column {error.column}: {error.message}",
            line=error.line,
            column=error.column,
        )
    course = info.course
    if len(course.boards) > limits.boards:
        return refusal(
            413,
            "too_large",
            f"the course has {len(course.boards)} boards; the limit is {limits.boards}",
        )
    spaces = sum(p.board.width * p.board.height for p in course.boards)
    if spaces > limits.spaces:
        return refusal(
            413,
            "too_large",
            f"the course's boards have {spaces} spaces together; the limit is {limits.spaces}",
        )
    problem = _words_problem(info.title, info.tier, info.length, info.follows)
    if problem is not None:
        return refusal(400, "invalid_course", problem)
    editions = {e.id for e in all_editions()}
    if info.edition != "any" and info.edition not in editions:
        known = ", ".join(sorted({*editions, "any"}))
        return refusal(400, "invalid_course", f"unknown edition {info.edition!r} (known: {known})")
    try:
        grid = Grid(course)
    except BoardError as error:
        return refusal(400, "invalid_course", str(error))
    if len(grid.checkpoints) > limits.checkpoints:
        return refusal(
            413,
            "too_large",
            f"the course has {len(grid.checkpoints)} checkpoints; the limit is"
            f" {limits.checkpoints}",
        )
    named = replace(info, id=course_id, course=replace(course, name=course_id))
    canonical = write_course(named, leading_comment(text), drawing_comments(text))
    final = parse_course(canonical, f"{course_id}.course")
    report = check_course(final)
    if report.errors:
        return refusal(
            400,
            "invalid_course",
            "the course breaks the rules: " + "; ".join(report.errors[:5]),
            errors=list(report.errors[:20]),
        )
    problem = _engine_problem(final.course, info.edition, info.players)
    if problem is not None:
        return refusal(400, "invalid_course", problem)
    summary = final.summary()
    summary["width"], summary["height"] = grid.width, grid.height
    return {"ok": True, "text": canonical, "summary": summary, "warnings": report.warnings[:20]}


def _words_problem(title: str, *words: str) -> str | None:
    if not 1 <= len(title.strip()) <= TITLE_MAX or not title.isprintable():
        return f"the title must be 1 to {TITLE_MAX} printable characters"
    for word in words:
        if len(word) > WORD_MAX or not word.isprintable():
            return f"tier, length and follows must be at most {WORD_MAX} printable characters"
    return None


def _engine_problem(course: Any, edition: str, players: tuple[int, int]) -> str | None:
    """Why the engine cannot set up a game on the course (with its fewest and most players, in
    each edition it is for), or ``None``."""
    targets = [
        e for e in all_editions() if edition in ("any", e.id) or e.id.startswith(edition + "-")
    ]
    for rules in targets:
        for count in sorted({players[0], players[1]}):
            if not rules.min_players <= count <= rules.max_players:
                continue
            names = tuple(f"P{i + 1}" for i in range(count))
            try:
                Game(GameConfig(course, names, edition=rules.id, damage_deck=damage_deck()))
            except Exception as error:  # the engine's refusal, whatever it is, refuses it
                return f"the {rules.id} rules cannot set up {count} robots on it: {error}"
    return None
