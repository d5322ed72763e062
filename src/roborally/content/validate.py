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
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field

from roborally.content.boardtext import BoardFormatError, load_board
from roborally.content.courses import CourseFormatError, CourseInfo, load_course_file
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


@dataclass
class Report:
    path: str
    errors: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)

    def lines(self) -> list[str]:
        return [f"{self.path}: error: {e}" for e in self.errors] + [
            f"{self.path}: warning: {w}" for w in self.warnings
        ]


class _Lone(Mechanics):
    """One robot on the course: falls are noted, nothing else (no damage, no reboot)."""

    fell_from = -1

    def on_fall(self, seat: int, where: Pos, board: int, cause: str) -> None:
        self.fell_from = board

    def emit(self, kind: object, **fields: object) -> None:
        return None


class Reachability:
    """Which spaces a lone robot can end a register on, from a given state."""

    def __init__(self, grid: Grid) -> None:
        self.grid = grid
        names = ("probe",)
        state = new_state(GameConfig(grid.course, names, seed=1))
        state.grid = grid
        self.state = state
        self.sim = _Lone(state)
        self.edges: dict[State, list[State]] = {}
        self.pushers = any(c is not None and c.pusher is not None for c in grid.cells)

    def next_states(self, node: State) -> list[State]:
        cached = self.edges.get(node)
        if cached is not None:
            return cached
        pos, facing, register = node
        result: list[State] = []
        player = self.state.players[0]
        nxt_register = register % 5 + 1 if self.pushers else 1
        for steps, turn in CARD_MOVES:
            player.pos, player.facing = pos, facing
            self.state.register = register
            self.sim.fell_from = -1
            if steps > 0:
                self.sim.move(0, facing, steps, "card")
            elif steps < 0:
                self.sim.move(0, facing.opposite, 1, "card")
            else:
                self.sim.rotate(0, turn, "card")
            if player.pos is not None:
                self.sim.convey(frozenset({BeltColor.BLUE}), "belt")
                self.sim.convey(frozenset({BeltColor.BLUE}), "belt")
                self.sim.convey(frozenset({BeltColor.GREEN}), "belt")
                self.sim.push_panels(register)
                self.sim.gears()
            if player.pos is None:
                result.append((FELL, Direction.NORTH, self.sim.fell_from))
            else:
                result.append((player.pos, player.facing, nxt_register))
        self.edges[node] = result
        return result

    def reachable(self, starts: list[State], archive: Pos, classic: bool) -> set[Pos]:
        """Spaces where the robot can end a register, starting from ``starts``.

        A fall continues on the reboot token of the board it fell from (2023) or on ``archive``
        (a docking bay fall, a board without a token, the classic edition), in any facing.
        """
        seen: set[State] = set(starts)
        queue = deque(starts)
        ends: set[Pos] = set()
        while queue:
            node = queue.popleft()
            for nxt in self.next_states(node):
                if nxt[0] == FELL:
                    token = None if classic else self.grid.reboot_of_board.get(nxt[2])
                    targets = _all_facings(token.pos if token else archive)
                else:
                    targets = [nxt]
                for target in targets:
                    if target not in seen:
                        seen.add(target)
                        ends.add(target[0])
                        queue.append(target)
        return ends


def _all_facings(pos: Pos, register: int = 1) -> list[State]:
    return [(pos, d, register) for d in DIRECTIONS]


def check_course(info: CourseInfo) -> Report:
    report = Report(info.file)
    try:
        grid = Grid(info.course)
    except BoardError as error:
        report.errors.append(str(error))
        return report
    edition = info.edition
    _check_checkpoints(grid, edition, report)
    if edition != "classic":
        _check_reboot_tokens(grid, report)
    usable = len(grid.start_spaces)
    if usable < info.players[1]:
        report.errors.append(
            f"{usable} usable start spaces for up to {info.players[1]} players (10.6)"
        )
    if grid.checkpoints:
        _check_reachability(grid, edition, report)
    _advice(grid, info, report)
    return report


def _check_checkpoints(grid: Grid, edition: str, report: Report) -> None:
    count = len(grid.checkpoints)
    if count == 0:
        report.errors.append("the course has no checkpoint")
    limit = 6 if edition != "classic" else 8
    if count > limit:
        report.errors.append(f"{count} checkpoints; at most {limit} (there are {limit} markers)")
    for number, pos in enumerate(grid.checkpoints, start=1):
        cell = grid.cell(pos)
        assert cell is not None
        if cell.pit:
            report.errors.append(f"checkpoint {number} at {pos} is in a pit")
        for d in DIRECTIONS:
            if d in cell.walls and d.turned(Turn.RIGHT) in cell.walls:
                report.errors.append(
                    f"checkpoint {number} at {pos} sits in a corner between two walls"
                    f" ({d.letter} and {d.turned(Turn.RIGHT).letter}) (10.6)"
                )
                break


def _check_reboot_tokens(grid: Grid, report: Report) -> None:
    for index, name in enumerate(grid.board_names):
        token = grid.reboot_of_board.get(index)
        kind = grid.board_kinds[index]
        if kind == "dock" and token is not None:
            report.errors.append(f"docking bay {name!r} has a reboot token (6.15)")
        if kind == "factory" and token is None:
            report.errors.append(f"factory board {name!r} has no reboot token (6.15)")
    for token in grid.reboot_of_board.values():
        ahead = token.pos.step(token.arrow)
        cell = grid.cell(ahead)
        if cell is not None and cell.pit:
            report.errors.append(
                f"the reboot token at {token.pos} points ({token.arrow.letter}) into a pit (10.6)"
            )


def _check_reachability(grid: Grid, edition: str, report: Report) -> None:
    reach = Reachability(grid)
    for space in grid.start_spaces:
        starts = _all_facings(space.pos)
        ends = reach.reachable(starts, space.pos, edition == "classic")
        if grid.checkpoints and grid.checkpoints[0] not in ends:
            report.errors.append(
                f"checkpoint 1 at {grid.checkpoints[0]} cannot be reached from start space"
                f" {space.number} at {space.pos}"
            )
    for number in range(1, len(grid.checkpoints)):
        here = grid.checkpoints[number - 1]
        ends = reach.reachable(_all_facings(here), here, edition == "classic")
        target = grid.checkpoints[number]
        if target not in ends:
            report.errors.append(
                f"checkpoint {number + 1} at {target} cannot be reached from checkpoint {number}"
            )


def _advice(grid: Grid, info: CourseInfo, report: Report) -> None:
    for number, pos in enumerate(grid.checkpoints, start=1):
        for d in DIRECTIONS:
            if grid.wall_between(pos, d):
                continue
            nxt = pos.step(d)
            cell = grid.cell(nxt)
            if cell is None:
                report.warnings.append(f"checkpoint {number} at {pos} is next to the course edge")
                break
            if cell.pit:
                report.warnings.append(f"checkpoint {number} at {pos} is next to a pit")
                break
    for token in grid.reboot_of_board.values():
        for number, pos in enumerate(grid.checkpoints, start=1):
            if abs(pos.x - token.pos.x) + abs(pos.y - token.pos.y) <= 2:
                report.warnings.append(
                    f"the reboot token at {token.pos} is close to checkpoint {number} (10.6)"
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
            report.warnings.append(
                f"the reboot token at {token.pos} has {free} free space(s) along its arrow;"
                " 5-6 players need 2 (10.6)"
            )
    if grid.checkpoints:
        first = grid.checkpoints[0]
        for space in grid.start_spaces:
            pos = space.pos
            for _ in range(grid.width + grid.height):
                cell = grid.cell(pos)
                if cell is None or cell.belt is None:
                    break
                pos = pos.step(cell.belt.out)
                if pos == first:
                    report.warnings.append(
                        f"a belt carries robots from start space {space.number} to checkpoint 1"
                        " (10.6: no easy conveyor access)"
                    )
                    break


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


__all__ = ["Reachability", "Report", "check_course", "format_report", "validate_path"]
