"""Game records: the seed, the options and every decision, as a readable text file.

A record is the save file, the replay and the bug report: replaying it reproduces the game
exactly (``final-digest`` lets a reader check that). Only causes are recorded; moves, damage and
the winner are derived on replay. ``docs/record-format.md`` describes the format::

    roborally-record: 1
    edition: 2023
    rules: 2023/2
    rng: splitmix64/1
    course: tiny
    seed: 7
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
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from roborally.content.cards import damage_deck
from roborally.content.courses import find_course
from roborally.engine.decisions import TIMEOUT, Action, ActionError, Decision, DecisionKind
from roborally.engine.game import Game
from roborally.engine.rng import RNG_VERSION
from roborally.engine.state import GameConfig

FORMAT_VERSION = "1"


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

    def config(self) -> GameConfig:
        h = self.headers
        for key in ("seed", "max-rounds"):
            if key in h and not h[key].lstrip("-").isdigit():
                raise RecordError(
                    f"{self.filename}: header {key!r} must be a whole number, got {h[key]!r}"
                )
        try:
            course = find_course(h["course"]).course
            variants = frozenset(v for v in h.get("variants", "-").split() if v != "-")
            first = h.get("first-player", "1")
            return GameConfig(
                course,
                tuple(name.strip() for name in h["players"].split(",")),
                seed=int(h["seed"]),
                edition=h.get("edition", "2023"),
                variants=variants,
                first_player=None if first == "random" else int(first) - 1,
                max_rounds=int(h.get("max-rounds", "0")),
                damage_deck=damage_deck(),
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


def write_record(game: Game, course_id: str) -> str:
    """The record of a game (finished or not)."""
    config = game.config
    outcome = game.outcome()
    headers = [
        ("roborally-record", FORMAT_VERSION),
        ("edition", config.edition),
        ("rules", game.rules_version),
        ("rng", RNG_VERSION),
        ("course", course_id),
        ("seed", str(config.seed)),
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
    return "\n".join(lines) + "\n"


def parse_record(text: str, filename: str = "<record>") -> Record:
    headers: dict[str, str] = {}
    record = Record(headers, filename=filename)
    in_body = False
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
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
    if headers.get("roborally-record") != FORMAT_VERSION:
        raise RecordError(f"{filename}:1: not a roborally record (version {FORMAT_VERSION})")
    if headers.get("rng", RNG_VERSION) != RNG_VERSION:
        raise RecordError(
            f"{filename}: recorded with random generator {headers['rng']!r};"
            f" this engine has {RNG_VERSION!r}"
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
