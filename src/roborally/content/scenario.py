"""Scenario files: a small board, robots, programs, what to run and the expected outcome.

A scenario checks one rule the way the rulebook states it. ``docs/scenario-format.md`` describes
the format; :func:`run_scenario` runs one and returns the mismatches as readable lines.

Scenarios set up a position directly (no setup phase), so they can start at any register.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from roborally.content.boardtext import BoardFormatError, parse_board
from roborally.content.classic_scenario import EXPECTATIONS as CLASSIC_EXPECTATIONS
from roborally.content.courses import CourseFormatError, list_courses, parse_course
from roborally.content.scenario_error import ScenarioError as ScenarioError
from roborally.engine.core.board import Board, Course, Grid
from roborally.engine.core.cards import PROGRAMMING_CARDS, Card
from roborally.engine.core.decisions import Action, Decision, DecisionKind
from roborally.engine.core.driver import StageDriver
from roborally.engine.core.events import Event, EventKind
from roborally.engine.core.geometry import Direction, Pos
from roborally.engine.core.mechanics import Suspend as _Suspend
from roborally.engine.core.state import (
    NUM_REGISTERS,
    VARIANTS,
    GameConfig,
    GameState,
    Player,
    Register,
)
from roborally.engine.editions import edition as edition_named
from roborally.engine.rules2023.choices import Choices2023


@dataclass
class RobotSetup:
    name: str
    line: int
    pos: Pos | None = None
    facing: Direction = Direction.NORTH
    energy: int | None = None
    checkpoint: int = 0
    hand: list[str] = field(default_factory=list)
    deck: list[str] | None = None  # top first
    discard: list[str] = field(default_factory=list)
    locked: dict[int, str] = field(default_factory=dict)  # register -> carried face-down Haywire
    reentry: tuple[Pos, Direction] | None = None
    rebooted_this_round: bool = False
    archive: tuple[Pos, Direction] | None = None
    shutdown: bool = False
    classic: list[tuple[str, str, int]] = field(default_factory=list)  # (word, rest, line)
    upgrades: list[str] = field(default_factory=list)  # installed upgrade cards (2023)
    reserve: list[str] = field(default_factory=list)  # upgrade cards in reserve (2023)
    memory: list[str] = field(default_factory=list)  # cards parked on Memory Cards (2023)
    declares_shutdown: int = 0  # line of 'declares shutdown' (2023): shuts down as the run starts


@dataclass
class Expectation:
    line: int
    robot: str | None
    what: str
    value: str


@dataclass
class Scenario:
    path: str
    edition: str = "2023"
    name: str = ""
    cites: str = ""
    rule: str = ""
    variants: frozenset[str] = frozenset()
    reboot_damage: int = 2
    reboot_damage_set: bool = False  # 'reboot damage:' given: it overrides a course file's
    course: Course | None = None
    robots: list[RobotSetup] = field(default_factory=list)
    priority: str | None = None
    programs: dict[str, tuple[str | None, ...]] = field(default_factory=dict)
    program_lines: dict[str, int] = field(default_factory=dict)
    answers: dict[tuple[str, str], list[str]] = field(default_factory=dict)
    answer_lines: dict[tuple[str, str], list[int]] = field(default_factory=dict)
    damage_deck: list[str] | None = None
    damage_discard: list[str] = field(default_factory=list)
    run_from: int = 1
    run_to: int = 5
    run_rounds: int = 0  # >0: run whole rounds from the programming phase
    run_deal: bool = False  # after the whole rounds, run the next round up to its deal
    run_line: int = 0
    round: int = 1
    seed: int = 1
    expectations: list[Expectation] = field(default_factory=list)
    event_lines: list[tuple[int, str]] = field(default_factory=list)
    events_line: int = 0
    classic: dict[str, tuple[str, int]] = field(default_factory=dict)  # key -> (value, line)
    upgrade_deck: list[str] | None = None  # top first; None: the unused upgrades, shuffled
    upgrade_discard: list[str] = field(default_factory=list)

    @property
    def from_round_start(self) -> bool:
        """The run starts at the beginning of a round (``run: round(s)`` or ``... deal``)."""
        return bool(self.run_rounds or self.run_deal)


_ROBOT_RE = re.compile(r"^robot\s+(\w+)\s*:\s*(.*)$")
_NAMED_BOARD_RE = re.compile(r"^board\s+([a-z0-9][a-z0-9_-]*)\s*:$")
_EXPECT_RE = re.compile(r"^expect\s+(?:(\w+)\s+)?([\w ]+?)\s*:\s*(.*)$")
_SPACE_RE = re.compile(r"^expect\s+space\s+(\S+)\s*:\s*(.*)$")


def _course(
    scenario: Scenario,
    where: str,
    boards: dict[str, Board],
    lineno: int,
    fail: Callable[[int, str], ScenarioError],
) -> Course:
    """``course: ID`` (a shipped course) or ``course: FILE.course`` (beside the scenario):
    the course, its boards placed as the file says; the boards drawn in ``board NAME:``
    blocks above stand for shipped boards of the same name or add new ones."""
    if not where:
        raise fail(lineno, "course: needs a shipped course's id or a .course file")
    if where.endswith(".course"):
        path = Path(scenario.path).parent / where
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as problem:
            raise fail(lineno, f"course: cannot read {path}: {problem}") from None
        try:
            info = parse_course(text, str(path), boards=boards, folder=path.parent)
        except CourseFormatError as error:
            raise fail(lineno, f"course: {error}") from None
    else:
        found = [c for c in list_courses() if c.id == where]
        if not found:
            known = ", ".join(sorted({c.id for c in list_courses()}))
            raise fail(lineno, f"course: no shipped course {where!r} (known: {known})")
        info = found[0]
        if boards:
            raise fail(
                lineno,
                "board NAME: blocks are for a course file; a shipped course keeps its boards",
            )
    edition = "classic" if scenario.edition.startswith("classic") else "2023"
    if info.edition != edition:
        message = (
            f"course: {where} is a course of the {info.edition} edition; this scenario's"
            f" edition is {scenario.edition} (put 'edition:' before the course)"
        )
        raise fail(lineno, message)
    course = info.course
    if scenario.reboot_damage_set:
        course = dataclasses.replace(course, reboot_damage=scenario.reboot_damage)
    return course


def _split_facing(text: str, err: ScenarioError) -> tuple[Pos, Direction]:
    parts = text.split()
    if len(parts) != 2:
        raise err
    try:
        return Pos.parse(parts[0]), Direction.parse(parts[1])
    except ValueError:
        raise err from None


def parse_scenario(text: str, filename: str = "<scenario>") -> Scenario:
    """Parse a scenario file. Raises :class:`ScenarioError` with the line and column at fault."""
    scenario = Scenario(filename)
    lines = text.splitlines()
    i = 0
    current: RobotSetup | None = None
    names: set[str] = set()
    boards: dict[str, Board] = {}  # drawn by 'board NAME:' blocks, for a course: line

    def fail(line: int, message: str, column: int = 1) -> ScenarioError:
        return ScenarioError(filename, line, column, message)

    while i < len(lines):
        raw = lines[i]
        lineno = i + 1
        stripped = raw.split("#", 1)[0].rstrip() if not raw.lstrip().startswith("#") else ""
        i += 1
        if not stripped.strip():
            continue
        indented = raw[:1].isspace()
        line = stripped.strip()
        if indented and current is not None:
            _robot_attribute(current, line, lineno, fail)
            continue
        current = None
        named = _NAMED_BOARD_RE.match(line)
        if line == "board:" or named:
            start = i
            while i < len(lines) and lines[i].strip() != "end board":
                i += 1
            if i >= len(lines):
                raise fail(lineno, f"{line} block has no 'end board' line")
            name = named.group(1) if named else "scenario"
            block = "\n" * (start - 1) + f"board: {name}\n" + "\n".join(lines[start:i])
            i += 1
            try:
                board = parse_board(block, filename)
            except BoardFormatError as error:
                raise ScenarioError(filename, error.line, error.column, error.message) from None
            if named:  # one of the boards a course file may name (a course: line later)
                if name in boards:
                    raise fail(lineno, f"board {name} is drawn twice")
                boards[name] = board
                continue
            if scenario.course is not None:
                raise fail(lineno, "a scenario has one board: block or one course: line")
            scenario.course = Course.single(board, reboot_damage=scenario.reboot_damage)
            continue
        if line.startswith("course:"):
            if scenario.course is not None:
                raise fail(lineno, "a scenario has one board: block or one course: line")
            named_course = line.split(":", 1)[1].strip()
            scenario.course = _course(scenario, named_course, boards, lineno, fail)
            continue
        if line == "expect events:":
            scenario.events_line = lineno
            while i < len(lines) and lines[i].strip() != "end events":
                event_line = lines[i].strip()
                if event_line and not event_line.startswith("#"):
                    scenario.event_lines.append((i + 1, event_line))
                i += 1
            if i >= len(lines):
                raise fail(lineno, "expect events: block has no 'end events' line")
            i += 1
            continue
        robot = _ROBOT_RE.match(line)
        if robot:
            name = robot.group(1)
            if name in names:
                raise fail(lineno, f"robot {name} is declared twice")
            names.add(name)
            current = RobotSetup(name, lineno)
            where = robot.group(2).strip()
            if where == "off board":
                current.pos = None
            else:
                current.pos, current.facing = _split_facing(
                    where,
                    fail(
                        lineno,
                        f"robot {name}: expected 'x,y FACING' or 'off board'",
                        len(line) - len(where) + 1,
                    ),
                )
            scenario.robots.append(current)
            continue
        space = _SPACE_RE.match(line)
        if space:
            try:
                where = Pos.parse(space.group(1))
            except ValueError:
                message = f"expect space: {space.group(1)!r} is not a square x,y"
                raise fail(lineno, message) from None
            value = space.group(2).strip()
            if not value:
                raise fail(lineno, "expect space x,y: needs 'empty' or the robot standing there")
            scenario.expectations.append(Expectation(lineno, None, f"space {where}", value))
            continue
        if line.startswith("expect"):
            match = _EXPECT_RE.match(line)
            if not match:
                raise fail(lineno, "expected 'expect [ROBOT] WHAT: VALUE'")
            robot_name, what, value = match.group(1), match.group(2).strip(), match.group(3).strip()
            if robot_name is not None and robot_name not in names:
                # "expect winner: A" has no robot; a word before WHAT must be a robot
                what = f"{robot_name} {what}"
                robot_name = None
            if what not in _EXPECT_KINDS:
                raise fail(
                    lineno,
                    f"unknown expectation {what!r}; use one of " + ", ".join(sorted(_EXPECT_KINDS)),
                )
            scenario.expectations.append(Expectation(lineno, robot_name, what, value))
            continue
        if ":" not in line:
            raise fail(lineno, f"cannot read {line!r}: expected 'key: value'")
        key, value = (part.strip() for part in line.split(":", 1))
        _top_level(scenario, key, value, lineno, names, fail)
    if scenario.course is None:
        raise fail(max(1, len(lines)), "the scenario has no board: block and no course: line")
    if not scenario.robots:
        raise fail(max(1, len(lines)), "the scenario declares no robot")
    _check_expectations(scenario)
    return scenario


#: Expectations about the whole game, not one robot (shared piles and squares aside).
_GAME_FACTS = frozenset(
    {"winner", "over", "round", "termination", "priority", "places", "program cards"}
)
#: The shared piles: ``expect damage deck: ...`` and its ``contains`` / ``top`` checks.
_SHARED_PILES = (
    "damage discard",
    "damage deck",
    "upgrade discard",
    "upgrade deck",
    "program discard",
    "program deck",
    "option discard",
    "option deck",
)
#: The lists only classic games hold (a robot's option cards, the shared program and option
#: piles), with their ``contains`` / ``top`` checks.
_CLASSIC_LISTS = ("options", "program ", "option ")


def _check_expectations(scenario: Scenario) -> None:
    """An expectation names a robot exactly when it is about one, and the classic ones appear
    only in classic scenarios (else the run could not read the value it checks)."""
    for exp in scenario.expectations:
        what = exp.what
        classic = what in CLASSIC_EXPECTATIONS or what.startswith(_CLASSIC_LISTS)
        if classic and not scenario.edition.startswith("classic"):
            message = f"expect {what}: only classic and classic-1994 scenarios have it"
        elif exp.robot is None and not _about_the_game(what):
            message = f"expect {what}: name the robot it is about ('expect NAME {what}: ...')"
        else:
            continue
        raise ScenarioError(scenario.path, exp.line, 1, message)


def _about_the_game(what: str) -> bool:
    """Whether ``expect WHAT`` checks the game, a shared pile or a square rather than a robot."""
    return what in _GAME_FACTS or what.startswith(_SHARED_PILES) or what.startswith("space ")


_EXPECT_KINDS = {
    "at",
    "energy",
    "checkpoint",
    "damage",
    "hand",
    "discard",
    "deck",
    "register",
    "reboots",
    "shutdown",
    "winner",
    "facing",
    "damage discard",
    "damage deck",
    "removed",
    "priority",
    "over",
    "termination",
    # upgrade cards of the 2023 edition
    "upgrades",
    "reserve",
    "memory",
    "upgrade deck",
    "upgrade discard",
    "damage count",
    "round",
} | CLASSIC_EXPECTATIONS

#: Card lists that ``expect ... LIST contains:`` and ``does not contain:`` can check (robot
#: lists, then shared piles; the classic editions add their own).
_LISTS = (
    "hand",
    "discard",
    "deck",
    "removed",
    "upgrades",
    "reserve",
    "memory",
    "damage discard",
    "damage deck",
    "upgrade discard",
    "upgrade deck",
    "options",
    "program discard",
    "program deck",
    "option discard",
    "option deck",
)
#: Piles whose top cards ``expect ... DECK top:`` checks (top first).
_DECKS = ("deck", "damage deck", "upgrade deck", "program deck", "option deck")
_EXPECT_KINDS |= {f"{name} contains" for name in _LISTS}
_EXPECT_KINDS |= {f"{name} does not contain" for name in _LISTS}
_EXPECT_KINDS |= {f"{name} top" for name in _DECKS}


def _cards(value: str) -> list[str]:
    return [] if value in ("", "-", "none") else value.split()


def _whole_number(text: str, what: str, error: Callable[[str], Exception]) -> int:
    """``text`` as a whole number, or the error ``error`` makes of a message naming ``what``."""
    try:
        return int(text)
    except ValueError:
        raise error(f"{what}: {text!r} is not a whole number") from None


def _top_level(
    scenario: Scenario, key: str, value: str, lineno: int, names: set[str], fail: object
) -> None:
    def error(message: str) -> ScenarioError:
        return ScenarioError(scenario.path, lineno, 1, message)

    if key == "scenario":
        scenario.name = value
    elif key == "edition":
        try:
            edition_named(value)
        except ValueError as problem:
            raise error(str(problem)) from None
        scenario.edition = value
    elif key == "cites":
        scenario.cites = value
    elif key == "rule":
        scenario.rule = value
    elif key == "seed":
        scenario.seed = _whole_number(value, key, error)
    elif key == "round":
        scenario.round = _whole_number(value, key, error)
    elif key == "variants":
        chosen = frozenset(v.strip() for v in value.replace(",", " ").split())
        known: tuple[str, ...] = VARIANTS
        if scenario.edition != "2023":
            known = edition_named(scenario.edition).variants
        unknown = chosen - set(known)
        if unknown:
            raise error(f"unknown variant(s) {sorted(unknown)}; known: {', '.join(known)}")
        scenario.variants = chosen
    elif key == "reboot damage":
        scenario.reboot_damage = _whole_number(value, key, error)
        scenario.reboot_damage_set = True
        if scenario.course is not None:
            raise error("put 'reboot damage:' before the board or the course")
    elif key == "priority":
        if value not in names:
            raise error(f"priority: {value} is not a declared robot")
        scenario.priority = value
    elif key == "upgrade deck":
        scenario.upgrade_deck = _cards(value)
    elif key == "upgrade discard":
        scenario.upgrade_discard = _cards(value)
    elif key in ("program deck", "option deck"):
        scenario.classic[key] = (value, lineno)  # classic editions: shared decks, top first
    elif key.startswith("program "):
        name = key.split()[1]
        if name not in names:
            raise error(f"program for undeclared robot {name}")
        entries = value.split()
        if len(entries) != 5:
            raise error(f"a program has 5 registers ('-' for empty), got {len(entries)}")
        scenario.programs[name] = tuple(None if e == "-" else e for e in entries)
        scenario.program_lines[name] = lineno
    elif key.startswith("answer "):
        parts = key.split()
        if len(parts) != 3 or parts[1] not in names:
            raise error("expected 'answer ROBOT KIND: CHOICE'")
        kinds = {k.value for k in DecisionKind}
        if parts[2] not in kinds:
            raise error(f"unknown decision kind {parts[2]!r}; use one of {sorted(kinds)}")
        scenario.answers.setdefault((parts[1], parts[2]), []).append(value)
        scenario.answer_lines.setdefault((parts[1], parts[2]), []).append(lineno)
    elif key == "damage deck":
        scenario.damage_deck = _cards(value)
    elif key == "damage discard":
        scenario.damage_discard = _cards(value)
    elif key == "run":
        scenario.run_line = lineno
        _parse_run(scenario, value, error)
    else:
        raise error(f"unknown key {key!r}")


def _parse_run(scenario: Scenario, value: str, error: object) -> None:
    assert callable(error)
    words = value.split()
    if len(words) == 2 and words[0] in ("register", "registers"):
        span = words[1].split("-")
        try:
            lo, hi = int(span[0]), int(span[-1])
        except ValueError:
            raise error(f"bad register range {words[1]!r}") from None
        if not 1 <= lo <= hi <= 5:
            raise error(f"register range {words[1]!r} must lie within 1-5")
        scenario.run_from, scenario.run_to = lo, hi
    elif words == ["deal"]:
        scenario.run_deal = True
    elif words[-2:] == ["then", "deal"] and _rounds(words[:-2]):
        scenario.run_rounds = _rounds(words[:-2])
        scenario.run_deal = True
    elif _rounds(words):
        scenario.run_rounds = _rounds(words)
    else:
        raise error(
            "run: expects 'register N', 'registers N-M', 'round', 'rounds N', 'deal',"
            " 'round then deal' or 'rounds N then deal'"
        )


def _rounds(words: list[str]) -> int:
    """``round`` -> 1, ``rounds N`` -> N, anything else -> 0."""
    if words == ["round"]:
        return 1
    if len(words) == 2 and words[0] == "rounds" and words[1].isdigit() and int(words[1]) > 0:
        return int(words[1])
    return 0


def _robot_attribute(
    robot: RobotSetup, line: str, lineno: int, fail: Callable[[int, str], ScenarioError]
) -> None:
    word, _, rest = line.partition(" ")
    rest = rest.strip()

    def error(message: str) -> ScenarioError:
        return fail(lineno, message)

    if word == "energy":
        robot.energy = _whole_number(rest, word, error)
    elif word == "checkpoint":
        robot.checkpoint = _whole_number(rest, word, error)
    elif word == "hand":
        robot.hand = _cards(rest)
    elif word == "deck":
        robot.deck = _cards(rest)
    elif word == "discard":
        robot.discard = _cards(rest)
    elif word == "haywire":
        parts = rest.split()
        if len(parts) != 3 or parts[0] != "in":
            raise fail(lineno, "expected 'haywire in REGISTER CARD'")
        register = _whole_number(parts[1], "haywire in", error)
        if not 1 <= register <= NUM_REGISTERS:
            raise fail(lineno, f"haywire in {register}: the registers are 1 to {NUM_REGISTERS}")
        robot.locked[register] = parts[2]
    elif word == "reenters":
        parts = rest.split(maxsplit=1)
        bad = fail(lineno, "expected 'reenters at x,y ARROW'")
        if len(parts) != 2 or parts[0] != "at":
            raise bad
        robot.reentry = _split_facing(parts[1], bad)
    elif word == "archive":
        robot.archive = _split_facing(rest, fail(lineno, "expected 'archive x,y ARROW'"))
    elif word == "shutdown":
        robot.shutdown = True
    elif word == "declares":
        if rest != "shutdown":
            raise fail(lineno, "expected 'declares shutdown'")
        robot.declares_shutdown = lineno
    elif word == "rebooted":
        robot.rebooted_this_round = True
    elif word == "upgrades":
        robot.upgrades = _cards(rest)
    elif word == "reserve":
        robot.reserve = _cards(rest)
    elif word == "memory":
        robot.memory = _cards(rest)
    elif word in _CLASSIC_ATTRIBUTES:
        robot.classic.append((word, rest, lineno))
    else:
        raise fail(lineno, f"unknown robot attribute {word!r}")


#: Robot attributes of the classic editions (roborally.content.classic_scenario).
_CLASSIC_ATTRIBUTES = frozenset(
    {"damage", "lives", "options", "powered", "announced", "dock", "register", "stored"}
    | {"destroyed"}
)


# --------------------------------------------------------------------------- running
@dataclass
class Result:
    scenario: Scenario
    failures: list[str]
    events: list[str]

    @property
    def ok(self) -> bool:
        return not self.failures


def build_state(scenario: Scenario) -> GameState:
    """The scenario's starting position as a game state."""
    assert scenario.course is not None
    names = tuple(r.name for r in scenario.robots)
    seated = names
    if scenario.edition.startswith("classic") and len(names) == 1:
        seated = (*names, "_")  # the classic games need 2 players; a scenario may show one robot
    try:
        config = GameConfig(
            scenario.course,
            seated,
            seed=scenario.seed,
            edition=scenario.edition,
            variants=scenario.variants,
            first_player=0,
        )
    except ValueError as problem:
        raise ScenarioError(scenario.path, 1, 1, str(problem)) from None
    if seated != names:
        object.__setattr__(config, "players", names)  # checked above with a stand-in seat
    _check_squares(scenario)
    _check_shutdown_declarations(scenario)
    if scenario.edition.startswith("classic"):
        from roborally.content.classic_scenario import build_state as build_classic_state

        return build_classic_state(scenario, config)
    state: GameState = edition_named(scenario.edition).new_state(config)
    spec = config.damage_deck
    if scenario.priority is not None:
        state.priority = names.index(scenario.priority)
    known = set(PROGRAMMING_CARDS) | {c.name for c in spec.cards}

    def make(name: str, line: int) -> Card:
        if name not in known:
            raise ScenarioError(scenario.path, line, 1, f"unknown card {name!r}")
        return state.new_card(name)

    if scenario.damage_deck is not None:
        state.damage_deck = [make(n, 1) for n in reversed(scenario.damage_deck)]
    state.damage_discard = [make(n, 1) for n in scenario.damage_discard]
    for setup, player in zip(scenario.robots, state.players, strict=True):
        player.pos, player.facing = setup.pos, setup.facing
        player.archive, player.archive_arrow = setup.archive or (setup.pos, setup.facing)
        if setup.energy is not None:
            player.energy = setup.energy
        player.checkpoint = setup.checkpoint
        player.hand = [make(n, setup.line) for n in setup.hand]
        player.discard = [make(n, setup.line) for n in setup.discard]
        if setup.deck is not None:
            player.deck = [make(n, setup.line) for n in reversed(setup.deck)]
        program = scenario.programs.get(setup.name)
        if not scenario.from_round_start and program is not None:
            for index, entry in enumerate(program):
                if entry is None:
                    continue
                if "+" in entry:
                    _check_crab_legs_pair(scenario, setup, entry)
                cards: list[Card] = []
                for name in entry.split("+"):  # a Crab Legs pair: "move1+rotate_left"
                    card = next((c for c in player.deck if c.name == name), None)
                    if card is not None and setup.deck is None:
                        player.deck.remove(card)
                    else:
                        card = make(name, setup.line)
                    cards.append(card)
                player.registers[index].cards = cards
        for register in setup.locked:
            if program is not None and not scenario.from_round_start and program[register - 1]:
                raise ScenarioError(
                    scenario.path,
                    setup.line,
                    1,
                    f"robot {setup.name}: register {register} holds a face-down Haywire and"
                    " cannot be programmed (write '-' there)",
                )
        for register, name in setup.locked.items():
            player.registers[register - 1] = Register(cards=[make(name, setup.line)], locked=True)
        if setup.reentry is not None:
            player.pos = None
            player.reentry, player.reentry_arrow = setup.reentry
        player.rebooted_this_round = setup.rebooted_this_round
        player.shutdown = setup.shutdown
        player.programmed = True
    _place_upgrades(scenario, state)
    state.round = scenario.round
    if scenario.from_round_start:
        state.round = scenario.round - 1
        state.stage = "round_start"
    elif any(r.declares_shutdown for r in scenario.robots):
        state.register = 0
        state.stage = "shutdown"  # 4.2 step 5: the declaration opens the run (stage_shutdown)
    else:
        state.register = scenario.run_from
        state.stage = "reveal"
    return state


def _check_squares(scenario: Scenario) -> None:
    """The squares a robot's lines name (where it stands, re-enters, has its archive) lie on
    the scenario's board: the rules would index outside it."""
    assert scenario.course is not None
    grid = Grid(scenario.course)
    for robot in scenario.robots:
        named = [("stands on", robot.pos)]
        if robot.reentry is not None:
            named.append(("re-enters at", robot.reentry[0]))
        if robot.archive is not None:
            named.append(("has its archive at", robot.archive[0]))
        for what, square in named:
            if square is not None and grid.cell(square) is None:
                shape = "board" if len(scenario.course.boards) == 1 else "course's boards"
                message = (
                    f"robot {robot.name} {what} {square}, outside the"
                    f" {grid.width}x{grid.height} {shape}"
                )
                raise ScenarioError(scenario.path, robot.line, 1, message)


def _check_shutdown_declarations(scenario: Scenario) -> None:
    """``declares shutdown`` (2023) needs a run that starts with register 1."""
    for robot in scenario.robots:
        line = robot.declares_shutdown
        if not line:
            continue
        if scenario.edition != "2023":
            message = (
                f"robot {robot.name}: 'declares shutdown' is for the 2023 edition; a classic"
                " robot uses 'announced' or 'powered down'"
            )
        elif scenario.from_round_start:
            message = (
                f"robot {robot.name}: with a run of whole rounds write 'answer {robot.name}"
                " shutdown: yes' instead of 'declares shutdown'"
            )
        elif scenario.run_from != 1:
            message = f"robot {robot.name}: 'declares shutdown' needs a run from register 1"
        elif robot.shutdown:
            message = f"robot {robot.name}: 'declares shutdown' and 'shutdown' exclude each other"
        else:
            continue
        raise ScenarioError(scenario.path, line, 1, message)


def _check_crab_legs_pair(scenario: Scenario, setup: RobotSetup, entry: str) -> None:
    """A register of two cards (``move1+rotate_left``) is a Crab Legs pair, the only one the
    2023 rules have: the engine would resolve any two cards as a sidestep."""
    if "crab_legs" not in setup.upgrades:
        message = f"a '+' pair needs Crab Legs; {setup.name} does not hold it"
    elif Choices2023.pair_of(entry) is None:
        message = f"{entry!r} is not a Crab Legs pair (move1 with rotate_left or rotate_right)"
    else:
        return
    line = _program_line(scenario, setup.name) or setup.line
    raise ScenarioError(scenario.path, line, 1, message)


def _place_upgrades(scenario: Scenario, state: GameState) -> None:
    """Upgrade cards (2023): none are dealt; robots hold what their lines say."""
    wanted = any(r.upgrades or r.reserve or r.memory for r in scenario.robots)
    wanted = wanted or bool(scenario.upgrade_deck or scenario.upgrade_discard)
    if not state.upgrades:
        if wanted:
            raise ScenarioError(scenario.path, 1, 1, "this game has no upgrade cards")
        return
    pool: list[Card] = list(state.upgrade_deck)
    for player in state.players:
        pool.extend(player.reserve)
        player.reserve = []

    def take(name: str, line: int) -> Card:
        card = next((c for c in pool if c.name == name), None)
        if card is None:
            raise ScenarioError(
                scenario.path, line, 1, f"no upgrade card {name!r} left (each exists once)"
            )
        pool.remove(card)
        return card

    for setup, player in zip(scenario.robots, state.players, strict=True):
        player.installed = [take(n, setup.line) for n in setup.upgrades]
        player.reserve = [take(n, setup.line) for n in setup.reserve]
        for name in setup.memory:
            if name not in PROGRAMMING_CARDS:
                raise ScenarioError(
                    scenario.path, setup.line, 1, f"not a programming card {name!r}"
                )
            player.memory.append(state.new_card(name))
    state.upgrade_discard = [take(n, 1) for n in scenario.upgrade_discard]
    if scenario.upgrade_deck is not None:
        state.upgrade_deck = [take(n, 1) for n in reversed(scenario.upgrade_deck)]
    else:
        state.upgrade_deck = pool


#: Decision kinds about upgrades: an unanswered one takes its default (use nothing, done).
_UPGRADE_KINDS = (DecisionKind.UPGRADE_PHASE, DecisionKind.UPGRADE)
#: The options that decline a classic option-card question (yes/no, keep a card on an option,
#: discard an option against damage, use an option weapon instead of the main laser).
_DECLINE = ("no", "none", "keep", "laser")


@dataclass
class _Answering:
    """What the run has answered so far: answers used per (robot, kind), and the scenario line
    behind each decision answered in the current stage (for error messages)."""

    used: dict[tuple[str, str], int] = field(default_factory=dict)
    lines: dict[str, int] = field(default_factory=dict)  # decision id -> answer line


def _answer(
    scenario: Scenario, decision: Decision, names: tuple[str, ...], answering: _Answering
) -> Action:
    name = names[decision.seat]
    used = answering.used
    if decision.kind is DecisionKind.PROGRAM:
        program = scenario.programs.get(name)
        if program is None:
            raise _RunError(f"no 'program {name}:' line for decision {decision.id}")
        answering.lines[decision.id] = _program_line(scenario, name)
        return Action(decision.id, decision.seat, program)
    key = (name, decision.kind.value)
    given = scenario.answers.get(key, [])
    index = used.get(key, 0)
    if index < len(given):
        answering.lines[decision.id] = scenario.answer_lines[key][index]
    if decision.kind in _UPGRADE_KINDS:
        options = {" ".join(str(o).split()).lower(): o for o in decision.options}
        if index >= len(given):
            return Action(decision.id, decision.seat, decision.options[0])
        wanted = " ".join(given[index].split()).lower()
        if wanted not in options:
            answering.lines.pop(decision.id, None)
            if decision.kind is DecisionKind.UPGRADE:
                # the next answer is for a later question: this one takes its default
                return Action(decision.id, decision.seat, decision.options[0])
            raise ScenarioError(
                scenario.path,
                scenario.answer_lines[key][index],
                1,
                f"answer {name} {decision.kind.value}: {given[index]!r} is not legal at"
                f" {decision.id}; the options are: {', '.join(map(str, decision.options))}",
            )
        used[key] = index + 1
        return Action(decision.id, decision.seat, options[wanted])
    if index >= len(given):
        if decision.kind is DecisionKind.SHUTDOWN:
            setup = scenario.robots[names.index(name)]
            return Action(decision.id, decision.seat, bool(setup.declares_shutdown))
        if decision.kind is DecisionKind.POWER_DOWN:
            return Action(decision.id, decision.seat, False)
        decline = next((o for o in decision.options if o in _DECLINE), None)
        if decision.kind is DecisionKind.CHOICE and decline is not None:
            return Action(decision.id, decision.seat, decline)  # classic: use no option
        raise _RunError(
            f"the game asks {name} for {decision.kind.value} ({decision.id}:"
            f" {decision.prompt}) but the scenario gives no 'answer {name}"
            f" {decision.kind.value}:' line"
        )
    used[key] = index + 1
    raw = given[index]
    choice: object = raw
    try:
        if decision.kind in (DecisionKind.SHUTDOWN, DecisionKind.POWER_DOWN):
            if raw.lower() not in ("yes", "no", "true", "false"):
                raise ValueError("answer yes or no")
            choice = raw.lower() in ("yes", "true")
        elif decision.kind is DecisionKind.CARD_ORDER:
            choice = tuple(int(x) for x in raw.split())
        elif decision.kind in (DecisionKind.START_SPACE, DecisionKind.BLOCK_START):
            choice = int(raw)
    except ValueError as problem:
        raise ScenarioError(
            scenario.path,
            scenario.answer_lines[key][index],
            1,
            f"answer {name} {decision.kind.value}: cannot read {raw!r} ({problem})",
        ) from None
    return Action(decision.id, decision.seat, choice)


def _program_line(scenario: Scenario, name: str) -> int:
    """The line of ``program NAME:`` (0 if there is none)."""
    return scenario.program_lines.get(name, 0)


class _RunError(Exception):
    pass


#: The stage that follows the deal, by edition family: the hands are dealt (classic) or drawn
#: (2023) and nobody has programmed yet.
_AFTER_DEAL = {"classic": "recompile", "2023": "prog_window"}


def _stopped(state: GameState, scenario: Scenario, start_round: int) -> bool:
    if state.over:
        return True
    if scenario.run_deal:
        family = "classic" if scenario.edition.startswith("classic") else "2023"
        deal_round = start_round + scenario.run_rounds + 1
        return state.stage == _AFTER_DEAL[family] and state.round == deal_round
    if scenario.run_rounds:
        return state.stage == "round_start" and state.round >= start_round + scenario.run_rounds
    if scenario.run_to == 5:
        return state.stage == "round_start"
    return state.stage == "reveal" and state.register == scenario.run_to + 1


def event_text(event: Event, names: tuple[str, ...]) -> str:
    """An event as a scenario line: robot names instead of seats, without the time stamp."""
    text = str(event).split(" ", 1)[1]
    for seat, name in enumerate(names):
        text = text.replace(f"[P{seat + 1}]", f"[{name}]")
        if text.startswith(f"P{seat + 1} "):
            text = name + text[len(f"P{seat + 1}") :]
    return text


_QUIET = {
    EventKind.ELEMENT_STEP,
    EventKind.REGISTER_STARTED,
    EventKind.CARDS_DRAWN,
    EventKind.PROGRAMMED,
    EventKind.ROUND_STARTED,
    EventKind.ROUND_ENDED,
}


def run_scenario(scenario: Scenario) -> Result:
    """Run a parsed scenario; the result lists every expectation that did not hold.

    A position that cannot be built, or an answer the game refuses (an illegal choice), raises
    :class:`ScenarioError` naming the scenario line at fault (the answer's line where known).
    """
    try:
        state = build_state(scenario)
    except ScenarioError:
        raise
    except Exception as problem:  # any failure to build is the scenario's
        raise ScenarioError(
            scenario.path, 1, 1, f"the position cannot be built: {_describe(problem)}"
        ) from problem
    names = tuple(r.name for r in scenario.robots)
    rules = edition_named(scenario.edition).rules(state)
    answering = _Answering()
    start_round = state.round
    failures: list[str] = []
    start_events = len(state.events)
    try:
        for _ in range(10_000):
            if _stopped(state, scenario, start_round):
                break
            stage = getattr(rules, "stage_" + state.stage)
            try:
                stage()
                state.answers.clear()
                answering.lines.clear()
            except _Suspend as suspend:
                for decision in suspend.decisions:
                    assert isinstance(decision, Decision)
                    action = _answer(scenario, decision, names, answering)
                    state.answers[action.decision_id] = action
    except _RunError as error:
        failures.append(f"{scenario.path}: {error}")
    except ScenarioError:
        raise
    except Exception as problem:  # reported with the line that caused it
        line, answered = _culprit(scenario, answering, problem)
        message = _describe(problem)
        if answered:
            message = f"the game refuses this answer: {message}"
        raise ScenarioError(scenario.path, line, 1, message) from problem
    events = [e for e in state.events[start_events:] if e.kind not in _QUIET]
    lines = [event_text(e, names) for e in events]
    if not failures:
        failures.extend(_check(scenario, state, names, events, lines))
    return Result(scenario, failures, lines)


def _describe(problem: Exception) -> str:
    """An error as one line: the engine's refusals and bad values by their message, anything
    else with its type."""
    text = " ".join(str(problem).split())
    if isinstance(problem, ValueError) and text:  # ActionError is a ValueError too
        return text
    return f"{type(problem).__name__}: {text}" if text else type(problem).__name__


def _culprit(scenario: Scenario, answering: _Answering, problem: Exception) -> tuple[int, bool]:
    """The scenario line behind a failure during the run, and whether it is an answer (or
    program) line: the answer to the decision the error names, else an answer given to the
    failing stage, else the ``run:`` line."""
    text = str(problem)
    for decision_id, line in answering.lines.items():
        if decision_id in text and line:
            return line, True
    given = [line for line in answering.lines.values() if line]
    if given:
        return given[0], True
    return scenario.run_line or 1, False


def _pos_text(pos: Pos | None) -> str:
    return "off board" if pos is None else str(pos)


def _check(
    scenario: Scenario,
    state: GameState,
    names: tuple[str, ...],
    events: list[Event],
    lines: list[str],
) -> list[str]:
    failures: list[str] = []
    rules = edition_named(scenario.edition).rules(state)
    for exp in scenario.expectations:
        player = state.players[names.index(exp.robot)] if exp.robot else None
        actual = _actual(exp, state, player, names, events, rules)
        wanted = " ".join(exp.value.split())
        if actual != wanted:
            who = f"{exp.robot} " if exp.robot else ""
            failures.append(
                f"{scenario.path}:{exp.line}: expect {who}{exp.what}: {exp.value}\n"
                f"    expected: {wanted}\n    actual:   {actual}"
            )
    for lineno, wanted in scenario.event_lines:
        if wanted.startswith("not ") and wanted[4:] in lines:
            failures.append(f"{scenario.path}:{lineno}: this event should not happen: {wanted[4:]}")
    if scenario.event_lines:
        position = 0
        for lineno, wanted in (e for e in scenario.event_lines if not e[1].startswith("not ")):
            while position < len(lines) and lines[position] != wanted:
                position += 1
            if position >= len(lines):
                shown = "\n      ".join(lines) or "(no events)"
                failures.append(
                    f"{scenario.path}:{lineno}: expected event not found (in order): {wanted}\n"
                    f"    actual events:\n      {shown}"
                )
                break
            position += 1
    return failures


def _actual(
    exp: Expectation,
    state: GameState,
    player: object,
    names: tuple[str, ...],
    events: list[Event],
    rules: StageDriver,
) -> str:
    what = exp.what
    if what == "winner":
        return "none" if state.winner is None else names[state.winner]
    if what == "over":
        if exp.value.split()[:2] == ["after", "register"] and state.over:
            ended = [e.register for e in events if e.kind is EventKind.GAME_ENDED]
            if ended and 1 <= ended[-1] <= 5:
                return f"after register {ended[-1]}"
        return "yes" if state.over else "no"
    if what == "round":
        return str(state.round)
    if what.startswith("space "):
        here = Pos.parse(what.split()[1])
        standing = [names[p.seat] for p in state.players if p.pos == here]
        return " ".join(standing) or "empty"
    for suffix in (" contains", " does not contain", " top"):
        if what.endswith(suffix):
            listing = _listing(what[: -len(suffix)], state, player)
            return _list_check(suffix.strip(), listing, exp.value)
    if what == "termination":
        return state.termination if state.over and state.termination else "-"
    if what == "priority":
        return names[state.priority]
    if what == "damage discard":
        return " ".join(c.name for c in state.damage_discard) or "-"
    if what == "damage deck":
        return " ".join(c.name for c in reversed(state.damage_deck)) or "-"
    if what == "upgrade discard":
        return " ".join(c.name for c in state.upgrade_discard) or "-"
    if what == "upgrade deck":
        return " ".join(c.name for c in reversed(state.upgrade_deck)) or "-"
    if state.config.edition.startswith("classic"):
        from roborally.content.classic_scenario import EXPECTATIONS, expectation

        if what in EXPECTATIONS:
            return expectation(what, state, player, names, events)
    assert isinstance(player, Player), f"expect {what} needs a robot"
    if what == "at":
        if player.pos is None:
            return "off board"
        if len(exp.value.split()) == 1:  # 'expect A at: 3,2': the square only
            return str(player.pos)
        return f"{player.pos} {player.facing.letter}"
    if what == "damage count":
        return str(_damage_count(player.seat, events))
    if what == "facing":
        return player.facing.letter
    if what == "energy":
        return str(player.energy)
    if what == "checkpoint":
        return str(player.checkpoint)
    if what == "shutdown":
        return "yes" if player.shutdown else "no"
    if what == "reboots":
        return str(sum(1 for e in events if e.kind is EventKind.REBOOTED and e.seat == player.seat))
    if what == "damage":
        got = [
            e.card or "" for e in events if e.kind is EventKind.DAMAGED and e.seat == player.seat
        ]
        return " ".join(got) or "-"
    if what == "hand":
        return " ".join(sorted(c.name for c in player.hand)) or "-"
    if what == "discard":
        return " ".join(sorted(c.name for c in player.discard)) or "-"
    if what == "deck":
        return " ".join(c.name for c in reversed(player.deck)) or "-"
    if what == "removed":
        return " ".join(sorted(c.name for c in player.removed)) or "-"
    if what == "upgrades":
        return " ".join(sorted(c.name for c in player.installed)) or "-"
    if what == "reserve":
        return " ".join(sorted(c.name for c in player.reserve)) or "-"
    if what == "memory":
        return " ".join(sorted(c.name for c in player.memory)) or "-"
    if what == "register":
        number, _, _ = exp.value.partition(" ")
        if not number.isdigit() or not 1 <= int(number) <= 5:
            return "register expectation needs 'N CARDS'"
        register = player.registers[int(number) - 1]
        parts = [c.name for c in register.cards]
        if register.facedown_haywire is not None:
            parts.append(f"facedown:{register.facedown_haywire.name}")
        return f"{number} " + (" ".join(parts) or "-")
    raise AssertionError(what)


def _listing(name: str, state: GameState, player: object) -> list[str]:
    """The card names of a list that ``contains`` / ``top`` checks read: decks top first,
    the other lists in their order."""
    if name in ("damage discard", "damage deck", "upgrade discard", "upgrade deck"):
        cards: list[Card] = getattr(state, name.replace(" ", "_"))
    elif name in ("program discard", "program deck", "option discard", "option deck"):
        cards = getattr(state, name.replace(" ", "_"), [])  # classic states only
    else:
        assert isinstance(player, Player), f"expect {name} needs a robot"
        attribute = {"upgrades": "installed", "options": "options"}.get(name, name)
        cards = getattr(player, attribute, [])
    names = [c.name for c in cards]
    return names[::-1] if name.endswith("deck") else names


def _card_matches(wanted: str, card: str) -> bool:
    """A card name, or (classic) a bare type for any card of that type (``move1``)."""
    return card == wanted or card.split("@", 1)[0] == wanted


def _list_check(check: str, cards: list[str], value: str) -> str:
    """The actual value of a ``contains`` / ``does not contain`` / ``top`` check: the expected
    value when it holds, else what the list holds."""
    wanted = _cards(value)
    shown = " ".join(cards) or "-"
    if check == "top":
        return " ".join(cards[: len(wanted)]) or "-"
    left = list(cards)
    missing: list[str] = []
    found: list[str] = []
    for name in wanted:
        card = next((c for c in left if _card_matches(name, c)), None)
        if card is None:
            missing.append(name)
        else:
            left.remove(card)
            found.append(name)
    normal = " ".join(wanted) or "-"
    if check == "contains":
        return normal if not missing else f"{shown} (no {' '.join(missing)})"
    return normal if not found else f"{shown} (has {' '.join(found)})"


def _damage_count(seat: int, events: list[Event]) -> int:
    """Damage received during the run: cards (2023), or tokens from hits (classic; not the
    damage a robot re-enters with)."""
    count = 0
    for event in events:
        if event.kind is EventKind.DAMAGED and event.seat == seat:
            if event.card is not None or event.amount is None:
                count += 1
            elif event.cause != "re-entry":
                count += event.amount
    return count


def load_scenario(path: str | Path) -> Scenario:
    path = Path(path)
    return parse_scenario(path.read_text(encoding="utf-8"), str(path))
