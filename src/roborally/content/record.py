"""Game records: the seed, the options and every decision, as a readable text file.

A record is the save file, the replay and the bug report: replaying it reproduces the game
exactly (``final-digest`` lets a reader check that). Only causes are recorded; moves, damage and
the winner are derived on replay. ``seed-commitment`` is the SHA-256 of the seed, published before
the game, which ``roborally verify`` (:mod:`roborally.content.fairness`) checks.
``docs/record-format.md`` describes the format::

    roborally-record: 2
    edition: 2023
    rules: 2023/3
    rng: blake2b-ctr/1
    course: tiny
    seed: 0x9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08
    seed-commitment: 954d5a49fd70d9b8bcdb35d252267829957f7ef7fa6c74f88419bdc5e82209f4
    players: Ada, Bo
    first-player: 1
    variants: -
    max-rounds: 50
    result: Ada wins (checkpoints)
    final-digest: 5be1...
    ---
    t0-p1-start_space          P1  2
    t1-p1-program              P1  move2 rotate_right move1 again power_up
    t1-p2-shutdown             P2  no
    t1-r1-p2-reboot_facing     P2  E

A game played on the server also names its game id (``game-id: k3JX9a2Q``, the second line),
so a record says which game it is; headless games and older records have none.

Version 1 records (before fair seeds) have no ``seed-commitment``, a decimal seed and
``rng: splitmix64/1``; they still parse and replay exactly.

A game on a custom course (a course a server keeps for its players, ``course: c-...``) carries
the course file after its actions, so that it replays anywhere: a line ``--- course`` and
then every line of the file behind ``| ``::

    --- course
    | # My first course
    | id = "c-mzxw6ytb"
    | ...
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from roborally.content.cards import damage_deck
from roborally.content.courses import (
    CourseFormatError,
    CourseInfo,
    find_course,
    register_course_text,
    registered_course_text,
    shipped_ids,
)
from roborally.engine.core.decisions import TIMEOUT, Action, ActionError, Decision, DecisionKind
from roborally.engine.core.rng import (
    LEGACY_RNG,
    RNG_VERSIONS,
    parse_seed,
    seed_commitment,
    seed_text,
)
from roborally.engine.core.state import GameConfig
from roborally.engine.game import Game

#: The format version written.
FORMAT_VERSION = "2"
#: The format versions read: 1 (``splitmix64/1``, decimal seed, no commitment) and 2.
FORMAT_VERSIONS = ("1", FORMAT_VERSION)
#: The line that starts a custom course's file after the actions, and each line's mark.
COURSE_SECTION = "--- course"
COURSE_PREFIX = "| "


class RecordError(ValueError):
    """A malformed or unreplayable record; ``str()`` is ``file:line: message``."""


@dataclass
class RecordLine:
    line: int
    decision_id: str
    seat: int
    tokens: list[str]


@dataclass
class Record:
    headers: dict[str, str]
    lines: list[RecordLine] = field(default_factory=list)
    filename: str = "<record>"
    errors: list[str] = field(default_factory=list)
    #: The custom course's file the record carries (``--- course``), else empty.
    course_text: str = ""
    course_line: int = 0  # the line of ``--- course``
    _course: CourseInfo | None = field(default=None, init=False, repr=False, compare=False)

    def course(self) -> CourseInfo:
        """The course the game was played on: the file the record carries (made known by its
        id in this process, see :func:`~roborally.content.courses.register_course_text`),
        else the shipped course its ``course`` header names."""
        name = self.headers.get("course")
        if name is None:
            raise RecordError(f"{self.filename}: missing header 'course'")
        if not self.course_text:
            try:
                return find_course(name)
            except ValueError as error:
                raise RecordError(f"{self.filename}: {error}") from None
        if self._course is None:
            where = f"{self.filename}:{self.course_line}"
            try:
                info = register_course_text(self.course_text, f"{where}: the course file")
            except CourseFormatError as error:
                line = self.course_line + error.line
                raise RecordError(
                    f"{self.filename}:{line}: the course it carries: {error.message}"
                ) from None
            except ValueError as error:
                raise RecordError(f"{where}: the course it carries: {error}") from None
            if info.id != name:
                raise RecordError(
                    f"{where}: the course it carries is {info.id!r}, the header names {name!r}"
                )
            self._course = info
        return self._course

    @property
    def version(self) -> str:
        """The format version (``"1"`` or ``"2"``)."""
        return self.headers.get("roborally-record", "")

    @property
    def game_id(self) -> str | None:
        """The server's id of the game (``None``: a headless game, or an older record)."""
        return self.headers.get("game-id") or None

    @property
    def rng(self) -> str:
        """The random generator version (version-1 records: always ``splitmix64/1``)."""
        return self.headers.get("rng", LEGACY_RNG)

    def seed(self) -> int:
        """The ``seed`` header: decimal or ``0x`` hex."""
        text = self.headers.get("seed")
        if text is None:
            raise RecordError(f"{self.filename}: missing header 'seed'")
        if self.version == "1" and text.lstrip("-").isdigit():
            # splitmix64/1 used the seed modulo 2**64 (negative seeds included).
            return int(text) % 2**64
        try:
            return parse_seed(text)
        except ValueError as error:
            raise RecordError(f"{self.filename}: header 'seed': {error}") from None

    def config(self) -> GameConfig:
        h = self.headers
        if "max-rounds" in h and not h["max-rounds"].isdigit():
            raise RecordError(
                f"{self.filename}: header 'max-rounds' must be a whole number,"
                f" got {h['max-rounds']!r}"
            )
        seed = self.seed()
        course = self.course().course
        try:
            variants = frozenset(v for v in h.get("variants", "-").split() if v != "-")
            first = h.get("first-player", "1")
            return GameConfig(
                course,
                tuple(name.strip() for name in h["players"].split(",")),
                seed=seed,
                edition=h.get("edition", "2023"),
                variants=variants,
                first_player=None if first == "random" else int(first) - 1,
                max_rounds=int(h.get("max-rounds", "0")),
                damage_deck=damage_deck(),
                rng=self.rng,
            )
        except KeyError as error:
            raise RecordError(f"{self.filename}: missing header {error.args[0]!r}") from None
        except ValueError as error:
            raise RecordError(f"{self.filename}: {error}") from None


def encode_choice(choice: Any) -> str:
    """A choice as record text."""
    if choice == TIMEOUT:
        return TIMEOUT
    if isinstance(choice, bool):
        return "yes" if choice else "no"
    if isinstance(choice, tuple):
        return " ".join("-" if c is None else str(c) for c in choice)
    return str(choice)


def decode_choice(decision: Decision, tokens: list[str]) -> Any:
    """Record text back to a choice, using the kind of the decision it answers."""
    if tokens == [TIMEOUT]:
        return TIMEOUT
    kind = decision.kind
    if kind is DecisionKind.PROGRAM:
        return tuple(None if t == "-" else t for t in tokens)
    if kind in (DecisionKind.SHUTDOWN, DecisionKind.POWER_DOWN):
        if tokens not in (["yes"], ["no"]):
            raise ValueError(f"expected yes or no, got {' '.join(tokens)!r}")
        return tokens == ["yes"]
    if kind is DecisionKind.CARD_ORDER:
        return tuple(int(t) for t in tokens)
    if kind in (DecisionKind.START_SPACE, DecisionKind.BLOCK_START):
        return int(tokens[0])
    return " ".join(tokens)


def write_record(
    game: Game, course_id: str, game_id: str | None = None, course_text: str | None = None
) -> str:
    """The record of a game (finished or not); ``game_id``: the server's id of the game.
    A course that is not shipped is carried after the actions (``--- course``): its
    ``course_text``, by default the file of the custom course of that id this process knows
    (:func:`~roborally.content.courses.registered_course_text`)."""
    config = game.config
    outcome = game.outcome()
    headers = [
        ("roborally-record", FORMAT_VERSION),
        *([("game-id", game_id)] if game_id else []),
        ("edition", config.edition),
        ("rules", game.rules_version),
        ("rng", config.rng),
        ("course", course_id),
        ("seed", seed_text(config.seed)),
        ("seed-commitment", seed_commitment(config.seed)),
        ("players", ", ".join(config.players)),
        ("first-player", "random" if config.first_player is None else str(config.first_player + 1)),
        ("variants", " ".join(sorted(config.variants)) or "-"),
        ("max-rounds", str(config.max_rounds)),
        ("result", outcome.result_text(config.players) if outcome else "unfinished"),
        ("final-digest", game.digest()),
    ]
    lines = [f"{key}: {value}" for key, value in headers]
    lines.append("---")
    width = max((len(a.decision_id) for a in game.actions), default=10)
    for action in game.actions:
        lines.append(
            f"{action.decision_id:<{width}}  P{action.seat + 1}  {encode_choice(action.choice)}"
        )
    if course_text is None and course_id not in shipped_ids():
        course_text = registered_course_text(course_id)
    if course_text:
        lines.append(COURSE_SECTION)
        mark = COURSE_PREFIX.rstrip()
        lines += [f"{COURSE_PREFIX}{line}" if line else mark for line in course_text.splitlines()]
    return "\n".join(lines) + "\n"


def parse_record(text: str, filename: str = "<record>") -> Record:
    headers: dict[str, str] = {}
    record = Record(headers, filename=filename)
    in_body = False
    course_lines: list[str] | None = None
    for number, raw in enumerate(text.splitlines(), start=1):
        if course_lines is not None:  # the course file, to the end
            if raw.startswith(COURSE_PREFIX) or raw.rstrip() == COURSE_PREFIX.rstrip():
                course_lines.append(raw[len(COURSE_PREFIX) :])
                continue
            if raw.strip():
                raise RecordError(
                    f"{filename}:{number}: after '{COURSE_SECTION}' every line of the course"
                    f" file starts with {COURSE_PREFIX.strip()!r}"
                )
            continue
        line = raw.strip()
        if in_body and line == COURSE_SECTION:
            course_lines = []
            record.course_line = number
            continue
        if not line or line.startswith("#"):
            continue
        if not in_body:
            if line == "---":
                in_body = True
                continue
            key, sep, value = line.partition(":")
            if not sep:
                raise RecordError(f"{filename}:{number}: expected 'key: value' or '---'")
            headers[key.strip()] = value.strip()
            continue
        parts = line.split()
        if len(parts) < 3 or not parts[1].startswith("P") or not parts[1][1:].isdigit():
            raise RecordError(f"{filename}:{number}: expected 'DECISION-ID P<seat> CHOICE...'")
        record.lines.append(RecordLine(number, parts[0], int(parts[1][1:]) - 1, parts[2:]))
    if course_lines is not None:
        record.course_text = "\n".join(course_lines) + "\n"
    if record.version not in FORMAT_VERSIONS:
        raise RecordError(
            f"{filename}:1: not a roborally record (version {' or '.join(FORMAT_VERSIONS)})"
        )
    if record.version != "1" and "rng" not in headers:
        raise RecordError(f"{filename}: missing header 'rng'")
    known = RNG_VERSIONS if record.version != "1" else (LEGACY_RNG,)
    if record.rng not in known:
        raise RecordError(
            f"{filename}: recorded with random generator {record.rng!r};"
            f" a version-{record.version} record has {' or '.join(map(repr, known))}"
        )
    return record


def replay(record: Record, *, forgiving: bool = False) -> Game:
    """Replay a record. With ``forgiving``, a bad line is noted in ``record.errors`` and the
    replay stops there instead of raising."""
    game = Game(record.config())
    for line in record.lines:
        decision = next((d for d in game.pending_decisions() if d.id == line.decision_id), None)
        try:
            if decision is None:
                raise ValueError(f"the game does not wait for {line.decision_id!r} here")
            game.apply(Action(line.decision_id, line.seat, decode_choice(decision, line.tokens)))
        except (ActionError, ValueError) as error:
            message = f"{record.filename}:{line.line}: {error}"
            if forgiving:
                record.errors.append(message)
                break
            raise RecordError(message) from None
    expected = record.headers.get("final-digest")
    if (
        expected
        and not record.errors
        and game.digest() != expected
        and (record.headers.get("result") != "unfinished" or len(record.lines) > 0)
    ):
        message = f"{record.filename}: replay ended in a different state than recorded"
        if forgiving:
            record.errors.append(message)
        else:
            raise RecordError(message)
    return game


def load_record(path: str | Path) -> Record:
    path = Path(path)
    return parse_record(path.read_text(encoding="utf-8"), str(path))
