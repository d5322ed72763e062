"""The course validator: structural errors, the rules' hard constraints and design advice.

``roborally validate FILE...`` checks board files (``*.board``) and course files (``*.course``).
Malformed files give ``file:line:column: message``. For courses it then checks:

* errors: checkpoints numbered 1..N (at most 6 in the 2023 edition), none in a pit or in a
  corner between two walls, exactly one reboot token on each factory board and none on a docking
  bay (2023), reboot arrows that do not point into a pit, at least as many usable start spaces as
  the course's maximum player count, and that every checkpoint can be reached (from every start
  space for checkpoint 1, from the previous checkpoint for the others) by a lone robot playing
  cards, carried by the board elements (spec 10.6 [enforce] items);
* warnings (spec 10.6 advice): checkpoints next to a pit or the course edge, reboot tokens close
  to a checkpoint, fewer than 2 free spaces along a reboot arrow, a checkpoint 1 that a belt
  carries robots to straight from the docking bay.

The reachability check simulates one robot with the engine's own movement and board-element
code, over every (space, facing, register) state.

Each error and warning is also a :class:`Finding` (``Report.findings``) with a stable code
(``check.checkpoint_unreachable``, ``check.no_reboot_token``, ...: the key of its words in the
translation files), the key's params and the course spaces it concerns; the messages of
``Report.errors`` and ``Report.warnings`` (what ``roborally validate`` prints) are the English
words. The rulebook's design advice that the warnings do not cover (10.6: boards for the
number of players and the game's length, checkpoints with several ways in, a docking bay on a
quiet edge of a factory board, reboot tokens away from the checkpoints) is ``advice``: in
``Report.advice`` and the findings, which the course builder shows; the command line leaves it
out.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from typing import Any

from roborally.content.boardtext import BoardFormatError, load_board
from roborally.content.courses import CourseFormatError, CourseInfo, load_course_file
from roborally.content.i18n import DEFAULT, strings, text
from roborally.engine.core.board import BeltColor, BoardError, Grid
from roborally.engine.core.geometry import DIRECTIONS, Direction, Pos, Turn
from roborally.engine.core.mechanics import Mechanics
from roborally.engine.core.state import GameConfig
from roborally.engine.rules2023 import new_state

CARD_MOVES: tuple[tuple[int, Turn], ...] = (
    (1, Turn.NONE),
    (2, Turn.NONE),
    (3, Turn.NONE),
    (-1, Turn.NONE),
    (0, Turn.RIGHT),
    (0, Turn.LEFT),
    (0, Turn.U_TURN),
)

State = tuple[Pos, Direction, int]  # position, facing, register (1-5)
FELL = Pos(-1, -1)  # a state at FELL fell from the board numbered by its "register" field


@dataclass(frozen=True)
class Finding:
    """One thing the checker found: its ``severity`` (``error``, ``warning`` or ``advice``), a
    stable ``code`` (the ``check.*`` translation key), the key's ``params``, the English
    ``message`` and the course ``spaces`` it concerns."""

    severity: str
    code: str
    message: str
    params: dict[str, str | int] = field(default_factory=dict)
    spaces: tuple[Pos, ...] = ()

    def words(self, lang: str) -> str:
        """The finding in ``lang`` (the English message where no translation has the key)."""
        table, english = strings(lang), strings(DEFAULT)
        if self.code not in table and self.code not in english:
            return self.message
        values: dict[str, str | int] = dict(self.params)
        for name in ("element", "problem"):  # words of their own: check.element.*, ...
            value = values.get(name)
            if isinstance(value, str) and f"check.{name}.{value}" in english:
                values[name] = text(lang, f"check.{name}.{value}")
        return text(lang, self.code, **values)

    def to_json(self, lang: str = DEFAULT) -> dict[str, Any]:
        return {
            "severity": self.severity,
            "code": self.code,
            "params": dict(self.params),
            "message": self.words(lang),
            "spaces": [[p.x, p.y] for p in self.spaces],
        }


@dataclass
class Report:
    path: str
    errors: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    #: The rulebook's design advice (10.6) that the errors and warnings do not cover; the
    #: command line leaves it out, the builder shows it.
    advice: list[str] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)

    def lines(self) -> list[str]:
        return [f"{self.path}: error: {e}" for e in self.errors] + [
            f"{self.path}: warning: {w}" for w in self.warnings
        ]

    def add(
        self,
        severity: str,
        code: str,
        message: str,
        spaces: tuple[Pos, ...] = (),
        **params: str | int,
    ) -> None:
        """Note a finding: its message also goes to :attr:`errors`, :attr:`warnings` or
        :attr:`advice`."""
        {"error": self.errors, "warning": self.warnings, "advice": self.advice}[severity].append(
            message
        )
        self.findings.append(Finding(severity, code, message, params, spaces))


class _Lone(Mechanics):
    """One robot on the course: falls are noted, nothing else (no damage, no reboot)."""

    fell_from = -1

    def on_fall(self, seat: int, where: Pos, board: int, cause: str) -> None:
        self.fell_from = board

    def emit(self, kind: object, **fields: object) -> None:
        return None


class _TooBig(Exception):
    """The reachability search met its limit of states."""


_BLUE = frozenset({BeltColor.BLUE})
_GREEN = frozenset({BeltColor.GREEN})
_Landing = tuple[
    Pos | None, Direction, int
]  # where a robot ends up, or None and the board fell from


class Reachability:
    """Which spaces a lone robot can end a register on, from a given state.

    A register is the card's move, the belts, then the push panels and the gears. Only the push
    panels depend on the register, so the card's move and the belts are simulated once per
    space, facing and card, and the rest once per space and facing the belts leave the robot
    on (and the register, where a push panel acts). The search itself runs on whole numbers:
    ``((index * 4 + facing) * 5 + register - 1)``, a fall from board ``b`` as ``-b - 2``.
    ``max_states`` bounds the states explored (:class:`_TooBig` past it).
    """

    def __init__(self, grid: Grid, max_states: int | None = None) -> None:
        self.grid = grid
        self.max_states = max_states
        names = ("probe",)
        state = new_state(GameConfig(grid.course, names, seed=1))
        state.grid = grid
        self.state = state
        self.sim = _Lone(state)
        self.edges: dict[State, list[State]] = {}
        self.pushers = any(c is not None and c.pusher is not None for c in grid.cells)
        self._moved: dict[tuple[Pos, Direction], list[_Landing]] = {}
        self._settled: dict[tuple[Pos, Direction, int], _Landing] = {}
        self._codes: dict[int, tuple[int, ...]] = {}

    def _after_card(self, pos: Pos, facing: Direction) -> list[_Landing]:
        """Where each card, then the belts, leave a robot at ``pos`` facing ``facing``."""
        key = (pos, facing)
        cached = self._moved.get(key)
        if cached is not None:
            return cached
        sim = self.sim
        player = self.state.players[0]
        belts, width = self.grid.belts, self.grid.width
        result: list[_Landing] = []
        for steps, turn in CARD_MOVES:
            player.pos, player.facing = pos, facing
            sim.fell_from = -1
            if steps > 0:
                sim.move(0, facing, steps, "card")
            elif steps < 0:
                sim.move(0, facing.opposite, 1, "card")
            else:
                sim.rotate(0, turn, "card")
            at = player.pos
            if at is not None and belts[at[1] * width + at[0]] is not None:  # else none moves it
                sim.convey(_BLUE, "belt")
                sim.convey(_BLUE, "belt")
                sim.convey(_GREEN, "belt")
            result.append((player.pos, player.facing, sim.fell_from))
        self._moved[key] = result
        return result

    def _after_elements(self, pos: Pos, facing: Direction, register: int) -> _Landing:
        """Where the push panels (of ``register``) and the gears leave a robot."""
        pusher = self.grid.pushers[self.grid.index(pos)]
        active = register if pusher is not None and register in pusher.registers else 0
        key = (pos, facing, active)
        cached = self._settled.get(key)
        if cached is not None:
            return cached
        player = self.state.players[0]
        player.pos, player.facing = pos, facing
        self.sim.fell_from = -1
        self.sim.push_panels(register)
        self.sim.gears()
        landing = (player.pos, player.facing, self.sim.fell_from)
        self._settled[key] = landing
        return landing

    def _landings(self, pos: Pos, facing: Direction, register: int) -> list[_Landing]:
        result: list[_Landing] = []
        for landing in self._after_card(pos, facing):
            if landing[0] is not None:
                landing = self._after_elements(landing[0], landing[1], register)
            result.append(landing)
        return result

    def next_states(self, node: State) -> list[State]:
        cached = self.edges.get(node)
        if cached is not None:
            return cached
        pos, facing, register = node
        nxt_register = register % 5 + 1 if self.pushers else 1
        result: list[State] = [
            (FELL, Direction.NORTH, fell) if to is None else (to, to_facing, nxt_register)
            for to, to_facing, fell in self._landings(pos, facing, register)
        ]
        self.edges[node] = result
        return result

    def _code(self, pos: Pos, facing: Direction, register: int) -> int:
        return (self.grid.index(pos) * 4 + facing) * 5 + register - 1

    def _next_codes(self, code: int) -> tuple[int, ...]:
        cached = self._codes.get(code)
        if cached is not None:
            return cached
        if self.max_states is not None and len(self._codes) >= self.max_states:
            raise _TooBig
        self._expand(code // 5)
        return self._codes[code]

    def _base(self, pos: Pos, facing: Direction, register: int) -> int:
        """The code (register left out) of where the push panels of ``register`` and the gears
        leave a robot, or its fall."""
        end, end_facing, fell = self._after_elements(pos, facing, register)
        if end is None:
            return -fell - 2
        return ((end[1] * self.grid.width + end[0]) * 4 + end_facing) * 5

    def _expand(self, spot: int) -> None:
        """The next states of every register's state at ``spot`` (``index * 4 + facing``): the
        card and the belts once, the push panels and the gears once, and again only for the
        registers in which a push panel where the belts leave the robot acts."""
        grid = self.grid
        width, pushers = grid.width, grid.pushers
        index, facing = divmod(spot, 4)
        registers = (1, 2, 3, 4, 5) if self.pushers else (1,)
        rows: list[list[int]] = [[] for _ in registers]
        for to, to_facing, fell in self._after_card(grid.pos(index), Direction(facing)):
            if to is None:
                for row in rows:
                    row.append(-fell - 2)
                continue
            pusher = pushers[to[1] * width + to[0]]
            quiet: int | None = None
            for k, register in enumerate(registers):
                if pusher is not None and register in pusher.registers:
                    base = self._base(to, to_facing, register)
                else:
                    if quiet is None:
                        quiet = self._base(to, to_facing, 0)
                    base = quiet
                # a state's code ends in its register less 1: the next one's is register % 5
                rows[k].append(base + register % 5 if base >= 0 and self.pushers else base)
        for k, register in enumerate(registers):
            self._codes[spot * 5 + register - 1] = tuple(rows[k])

    def reachable(
        self, starts: list[State], archive: Pos, classic: bool, target: Pos | None = None
    ) -> set[Pos]:
        """Spaces where the robot can end a register, starting from ``starts``.

        A fall continues on the reboot token of the board it fell from (2023) or on ``archive``
        (a docking bay fall, a board without a token, the classic edition), in any facing.
        With ``target``, the search stops as soon as it reaches that space (the set then holds
        it, and the spaces found before it).
        """
        grid = self.grid
        archive_codes = [self._code(archive, d, 1) for d in DIRECTIONS]
        fallen: dict[int, list[int]] = {}
        seen: set[int] = {self._code(*state) for state in starts}
        queue = deque(seen)
        ends: set[int] = set()
        goal = grid.index(target) if target is not None else -1
        while queue:
            node = queue.popleft()
            for nxt in self._next_codes(node):
                if nxt < 0:
                    targets = fallen.get(nxt)
                    if targets is None:
                        token = None if classic else grid.reboot_of_board.get(-nxt - 2)
                        targets = (
                            [self._code(token.pos, d, 1) for d in DIRECTIONS]
                            if token
                            else archive_codes
                        )
                        fallen[nxt] = targets
                    for found in targets:
                        if found not in seen:
                            seen.add(found)
                            index = found // 20
                            ends.add(index)
                            queue.append(found)
                            if index == goal:
                                return {grid.pos(i) for i in ends}
                elif nxt not in seen:
                    seen.add(nxt)
                    index = nxt // 20
                    ends.add(index)
                    queue.append(nxt)
                    if index == goal:
                        return {grid.pos(i) for i in ends}
        return {grid.pos(i) for i in ends}


def _all_facings(pos: Pos, register: int = 1) -> list[State]:
    return [(pos, d, register) for d in DIRECTIONS]


def check_course(info: CourseInfo, *, max_states: int | None = None) -> Report:
    """Check a course: its rule errors, warnings and design advice (:class:`Finding` s in
    :attr:`Report.findings`). With ``max_states``, the reachability search stops after
    exploring that many robot states and says so (``check.skipped_for_size``)."""
    report = Report(info.file)
    try:
        grid = Grid(info.course)
    except BoardError as error:
        report.add("error", "check.course_problem", str(error), problem=str(error))
        return report
    edition = info.edition
    _check_checkpoints(grid, edition, report)
    if edition != "classic":
        _check_reboot_tokens(grid, report)
    usable = len(grid.start_spaces)
    if usable < info.players[1]:
        report.add(
            "error",
            "check.too_few_starts",
            f"{usable} usable start spaces for up to {info.players[1]} players",
            tuple(s.pos for s in grid.start_spaces),
            usable=usable,
            players=info.players[1],
        )
    if grid.checkpoints:
        _check_reachability(grid, edition, report, max_states)
    _advice(grid, info, report)
    _design_advice(grid, info, report)
    return report


def _check_checkpoints(grid: Grid, edition: str, report: Report) -> None:
    count = len(grid.checkpoints)
    if count == 0:
        report.add("error", "check.no_checkpoint", "the course has no checkpoint")
    limit = 6 if edition != "classic" else 8
    if count > limit:
        report.add(
            "error",
            "check.too_many_checkpoints",
            f"{count} checkpoints; at most {limit} (there are {limit} markers)",
            grid.checkpoints[limit:],
            count=count,
            limit=limit,
        )
    for number, pos in enumerate(grid.checkpoints, start=1):
        cell = grid.cell(pos)
        assert cell is not None
        if cell.pit:
            report.add(
                "error",
                "check.checkpoint_in_pit",
                f"checkpoint {number} at {pos} is in a pit",
                (pos,),
                number=number,
                pos=str(pos),
            )
        for d in DIRECTIONS:
            if d in cell.walls and d.turned(Turn.RIGHT) in cell.walls:
                other = d.turned(Turn.RIGHT)
                report.add(
                    "error",
                    "check.checkpoint_in_corner",
                    f"checkpoint {number} at {pos} sits in a corner between two walls"
                    f" ({d.letter} and {other.letter})",
                    (pos,),
                    number=number,
                    pos=str(pos),
                    first=d.letter,
                    second=other.letter,
                )
                break


def _board_spaces(grid: Grid, board: int) -> tuple[Pos, ...]:
    return tuple(grid.pos(i) for i, b in enumerate(grid.board_of) if b == board)


def _check_reboot_tokens(grid: Grid, report: Report) -> None:
    for index, name in enumerate(grid.board_names):
        token = grid.reboot_of_board.get(index)
        kind = grid.board_kinds[index]
        if kind == "dock" and token is not None:
            report.add(
                "error",
                "check.dock_reboot_token",
                f"docking bay {name!r} has a reboot token",
                (token.pos,),
                board=name,
            )
        if kind == "factory" and token is None:
            report.add(
                "error",
                "check.no_reboot_token",
                f"factory board {name!r} has no reboot token",
                _board_spaces(grid, index),
                board=name,
            )
    for token in grid.reboot_of_board.values():
        ahead = token.pos.step(token.arrow)
        cell = grid.cell(ahead)
        if cell is not None and cell.pit:
            report.add(
                "error",
                "check.reboot_into_pit",
                f"the reboot token at {token.pos} points ({token.arrow.letter}) into a pit",
                (token.pos, ahead),
                pos=str(token.pos),
                arrow=token.arrow.letter,
            )


def _check_reachability(
    grid: Grid, edition: str, report: Report, max_states: int | None = None
) -> None:
    reach = Reachability(grid, max_states)
    classic = edition == "classic"
    try:
        for space in grid.start_spaces:
            starts = _all_facings(space.pos)
            ends = reach.reachable(starts, space.pos, classic, grid.checkpoints[0])
            if grid.checkpoints[0] not in ends:
                first = grid.checkpoints[0]
                report.add(
                    "error",
                    "check.checkpoint_1_unreachable",
                    f"checkpoint 1 at {first} cannot be reached from start space"
                    f" {space.number} at {space.pos}",
                    (first, space.pos),
                    pos=str(first),
                    start=space.number,
                    start_pos=str(space.pos),
                )
        for number in range(1, len(grid.checkpoints)):
            here = grid.checkpoints[number - 1]
            target = grid.checkpoints[number]
            ends = reach.reachable(_all_facings(here), here, classic, target)
            if target not in ends:
                report.add(
                    "error",
                    "check.checkpoint_unreachable",
                    f"checkpoint {number + 1} at {target} cannot be reached from checkpoint"
                    f" {number}",
                    (target, here),
                    number=number + 1,
                    pos=str(target),
                    previous=number,
                )
    except _TooBig:
        report.add(
            "warning",
            "check.skipped_for_size",
            f"the course is too large to check that every checkpoint can be reached (more than"
            f" {max_states} robot positions)",
            limit=max_states or 0,
        )


def _advice(grid: Grid, info: CourseInfo, report: Report) -> None:
    for number, pos in enumerate(grid.checkpoints, start=1):
        for d in DIRECTIONS:
            if grid.wall_between(pos, d):
                continue
            nxt = pos.step(d)
            cell = grid.cell(nxt)
            if cell is None:
                report.add(
                    "warning",
                    "check.checkpoint_at_edge",
                    f"checkpoint {number} at {pos} is next to the course edge",
                    (pos,),
                    number=number,
                    pos=str(pos),
                )
                break
            if cell.pit:
                report.add(
                    "warning",
                    "check.checkpoint_by_pit",
                    f"checkpoint {number} at {pos} is next to a pit",
                    (pos, nxt),
                    number=number,
                    pos=str(pos),
                )
                break
    for token in grid.reboot_of_board.values():
        for number, pos in enumerate(grid.checkpoints, start=1):
            if abs(pos.x - token.pos.x) + abs(pos.y - token.pos.y) <= 2:
                report.add(
                    "warning",
                    "check.reboot_near_checkpoint",
                    f"the reboot token at {token.pos} is close to checkpoint {number}",
                    (token.pos, pos),
                    pos=str(token.pos),
                    number=number,
                )
        free = 0
        pos = token.pos
        while free < 2 and not grid.wall_between(pos, token.arrow):
            pos = pos.step(token.arrow)
            cell = grid.cell(pos)
            if cell is None or cell.pit:
                break
            free += 1
        if free < 2:
            report.add(
                "warning",
                "check.reboot_arrow_room",
                f"the reboot token at {token.pos} has {free} free space(s) along its arrow;"
                " 5-6 players need 2",
                (token.pos,),
                pos=str(token.pos),
                free=free,
            )
    if grid.checkpoints:
        first = grid.checkpoints[0]
        for space in grid.start_spaces:
            pos = space.pos
            path = [pos]
            for _ in range(grid.width + grid.height):
                cell = grid.cell(pos)
                if cell is None or cell.belt is None:
                    break
                pos = pos.step(cell.belt.out)
                path.append(pos)
                if pos == first:
                    report.add(
                        "warning",
                        "check.belt_to_checkpoint",
                        f"a belt carries robots from start space {space.number} to checkpoint 1;"
                        " checkpoint 1 should not be easy to reach by conveyor",
                        tuple(path),
                        start=space.number,
                    )
                    break


#: The share of the spaces in front of a docking bay that may hold pits, belts, gears, push
#: panels, crushers or lasers before the advice says the dock faces a crowded edge.
CROWDED_DOCK = 0.25


def _design_advice(grid: Grid, info: CourseInfo, report: Report) -> None:
    """The rulebook's design advice that no error or warning covers: boards for the
    player count and the game's length, open checkpoints, a dock on a quiet edge, reboot
    tokens away from the checkpoints."""
    factories = [i for i, kind in enumerate(grid.board_kinds) if kind == "factory"]
    fewest, most = info.players
    count = len(factories)
    if count >= 3 and fewest <= 4:
        report.add(
            "advice",
            "check.advice_many_boards",
            f"{count} factory boards for games of 4 or fewer players: the robots will rarely"
            " meet; more checkpoints on 2 boards usually play better than a 3rd or 4th board",
            boards=count,
        )
    if count == 1 and most >= 6:
        report.add(
            "advice",
            "check.advice_crowded_board",
            f"one factory board can be too cramped for {most} robots",
            players=most,
        )
    if info.length == "short" and (count > 2 or len(grid.checkpoints) > 2):
        report.add(
            "advice",
            "check.advice_one_hour",
            "for a game of about an hour, use 2 factory boards and only 2 checkpoints",
        )
    cornered = {
        f.params.get("number") for f in report.findings if f.code == "check.checkpoint_in_corner"
    }
    for number, pos in enumerate(grid.checkpoints, start=1):
        ways = 0
        for d in DIRECTIONS:
            cell = grid.cell(pos.step(d))
            if not grid.wall_between(pos, d) and cell is not None and not cell.pit:
                ways += 1
        if ways <= 1 and number not in cornered:
            report.add(
                "advice",
                "check.advice_checkpoint_entrance",
                f"checkpoint {number} at {pos} has only {ways} way(s) in; place checkpoints in"
                " the open, with several ways in and out",
                (pos,),
                number=number,
                pos=str(pos),
                ways=ways,
            )
    for board, kind in enumerate(grid.board_kinds):
        if kind == "dock":
            _dock_advice(grid, board, report)
    for token in grid.reboot_of_board.values():
        for number, pos in enumerate(grid.checkpoints, start=1):
            distance = abs(pos.x - token.pos.x) + abs(pos.y - token.pos.y)
            if 3 <= distance <= 4:
                report.add(
                    "advice",
                    "check.advice_reboot_far",
                    f"the reboot token at {token.pos} is only {distance} spaces from checkpoint"
                    f" {number}; a rebooted robot should not reappear close to a checkpoint",
                    (token.pos, pos),
                    pos=str(token.pos),
                    distance=distance,
                    number=number,
                )


def _factory_at(grid: Grid, pos: Pos) -> bool:
    if not grid.on_grid(pos):
        return False
    index = grid.index(pos)
    return grid.cells[index] is not None and grid.board_kinds[grid.board_of[index]] == "factory"


def _dock_advice(grid: Grid, board: int, report: Report) -> None:
    """A docking bay should touch a factory board's edge, and the spaces in front of it (two
    rows deep) should hold few obstacles or belts (10.6)."""
    name = grid.board_names[board]
    front: set[Pos] = set()
    for index, owner in enumerate(grid.board_of):
        if owner != board:
            continue
        pos = grid.pos(index)
        for d in DIRECTIONS:
            ahead = pos.step(d)
            if _factory_at(grid, ahead):
                front.add(ahead)
                if _factory_at(grid, ahead.step(d)):
                    front.add(ahead.step(d))
    if not front:
        report.add(
            "advice",
            "check.advice_dock_detached",
            f"the docking bay {name!r} does not touch a factory board: robots leave it straight"
            " onto the floor of none",
            _board_spaces(grid, board),
            board=name,
        )
        return
    busy = []
    for pos in sorted(front, key=lambda p: (p.y, p.x)):
        cell = grid.cell(pos)
        assert cell is not None
        if cell.pit or cell.belt or cell.gear or cell.pusher or cell.crusher or cell.lasers:
            busy.append(pos)
    if len(busy) > CROWDED_DOCK * len(front):
        report.add(
            "advice",
            "check.advice_dock_edge",
            f"the docking bay {name!r} faces a crowded edge: {len(busy)} of the {len(front)}"
            " spaces in front of it hold pits, belts or other elements; put the dock on an edge"
            " with few obstacles or conveyors",
            tuple(busy),
            board=name,
            count=len(busy),
            size=len(front),
        )


def validate_path(path: str) -> Report:
    """Validate one board or course file."""
    report = Report(path)
    try:
        if path.endswith(".board"):
            load_board(path)
            return report
        if path.endswith(".course"):
            info = load_course_file(path)
            return check_course(info)
        report.errors.append("not a .board or .course file")
    except (BoardFormatError, CourseFormatError) as error:
        report.errors.append(str(error))
        report.path = ""
    except OSError as error:
        report.errors.append(error.strerror or str(error))
    return report


def format_report(report: Report) -> list[str]:
    if not report.path:
        return [f"error: {e}" for e in report.errors]
    return report.lines()


__all__ = [
    "Finding",
    "Reachability",
    "Report",
    "check_course",
    "format_report",
    "validate_path",
]
