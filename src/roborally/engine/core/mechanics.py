"""Robot movement, pushing, falling and the board elements, shared by the editions.

:class:`Mechanics` works on a :class:`~roborally.engine.core.state.GameState`; the edition's rules
class (for example :class:`roborally.engine.rules2023.Rules2023`) subclasses it and decides when
each piece runs and what a fall or a hit costs (the hooks :meth:`Mechanics.on_fall` and
:meth:`Mechanics.deal_damage`).
"""

from __future__ import annotations

from collections.abc import Sequence

from roborally.engine.core.board import WALL_BIT, BeltColor
from roborally.engine.core.events import (
    BLOCKED,
    CONVEYED,
    FELL,
    MOVED,
    PUSHED,
    ROTATED,
    SHOT,
    Event,
    EventKind,
)
from roborally.engine.core.geometry import DX, DY, Direction, Pos, Turn
from roborally.engine.core.state import GameState

_new_tuple = tuple.__new__

#: Builds an event straight from its fields' tuple, skipping the named tuple's constructor.
_new_event = tuple.__new__


class Suspend(Exception):
    """Raised inside a stage when it needs decisions that have not been answered yet."""

    def __init__(self, decisions: Sequence[object]) -> None:
        super().__init__()  # no message to format: stages suspend all the time
        self.decisions = decisions

    def __str__(self) -> str:
        return f"{len(self.decisions)} decision(s) pending"


class Mechanics:
    """Movement and board elements. Subclasses implement :meth:`on_fall` and damage."""

    def __init__(self, state: GameState) -> None:
        self.s = state
        self.grid = state.grid
        self.less_deadly = "less_deadly" in state.config.variants
        # Set on the instance too: emit reads it for every event, and Python 3.11 reads a
        # class attribute through an instance without its fast path (about 1% of a game).
        self.arrival_kinds = type(self).arrival_kinds

    # ----------------------------------------------------------------- events
    #: The kinds of event after which :meth:`arrived` hears where a robot went: none here
    #: (classic 1994 counts a checkpoint as soon as a robot passes over it).
    arrival_kinds: frozenset[EventKind] = frozenset()

    def emit(
        self,
        kind: EventKind,
        *,
        seat: int | None = None,
        pos: Pos | None = None,
        to: Pos | None = None,
        facing: Direction | None = None,
        to_facing: Direction | None = None,
        card: str | None = None,
        amount: int | None = None,
        other: int | None = None,
        cause: str | None = None,
        secret: bool = False,
    ) -> None:
        """Record an event of the current register (the fields are :class:`Event`'s).

        The fields are spelled out and passed on by position: a register emits about 45
        events, and collecting them as keyword arguments to unpack again cost a third more.
        """
        s = self.s
        s.events.append(
            _new_event(
                Event,
                (kind, s.round, s.register, seat, pos, to, facing, to_facing, card, amount,
                 other, cause, secret),
            )
        )  # fmt: skip
        if kind in self.arrival_kinds:
            self.arrived(seat, to)

    def arrived(self, seat: int | None, to: Pos | None) -> None:
        """A robot moved, was pushed or conveyed onto ``to`` (see :attr:`arrival_kinds`)."""

    # ---------------------------------------------------------------- hooks
    def on_fall(self, seat: int, where: Pos, board: int, cause: str) -> None:
        """A robot left the board (pit or edge); the edition decides what follows."""
        raise NotImplementedError

    # ------------------------------------------------------------- geometry
    def exits_course(self, pos: Pos, direction: Direction) -> bool:
        nxt = pos.step(direction)
        return not self.grid.is_on_course(nxt)

    def edge_blocks(self, pos: Pos, direction: Direction) -> bool:
        """Whether the step from ``pos`` is blocked by a wall (or an outer edge made a wall)."""
        grid = self.grid
        if grid.walls[pos[1] * grid.width + pos[0]] & WALL_BIT[direction]:
            return True
        return self.less_deadly and self.exits_course(pos, direction)

    # ------------------------------------------------------------- movement
    def move(self, seat: int, direction: Direction, steps: int, cause: str) -> int:
        """Move ``steps`` single steps (walls, pushes, pits, edges); returns the spaces moved."""
        moved = 0
        for _ in range(steps):
            if self.s.players[seat].pos is None:
                break
            if not self.step(seat, direction, cause):
                break
            moved += 1
        return moved

    def step(self, seat: int, direction: Direction, cause: str) -> bool:
        """One step; False when the robot stopped (wall, blocked push) or fell."""
        players = self.s.players
        player = players[seat]
        pos = player.pos
        assert pos is not None
        # edge_blocks, Pos.step, is_on_course and robot_at written out: a register takes
        # about 25 steps, and the four calls were a tenth of each.
        grid = self.grid
        width = grid.width
        x, y = pos
        if grid.walls[y * width + x] & WALL_BIT[direction] or (
            self.less_deadly and self.exits_course(pos, direction)
        ):
            self.emit(BLOCKED, seat=seat, pos=pos, facing=direction, cause="wall")
            return False
        nx, ny = x + DX[direction], y + DY[direction]
        nxt = _new_tuple(Pos, (nx, ny))
        if not (0 <= nx < width and 0 <= ny < grid.height) or grid.cells[ny * width + nx] is None:
            self.emit(MOVED, seat=seat, pos=pos, to=nxt, facing=direction, cause=cause)
            player.pos = None
            self.fall(seat, pos, nxt, "edge")
            return False
        occupant = None
        for other in players:
            if other.pos == nxt:
                occupant = other.seat
                break
        if occupant is not None:
            moved = self.push(nxt, direction, seat, cause)
            self.after_push(seat, occupant, moved)
            if player.pos is None:
                return False
            if not moved or self.s.robot_at(nxt) is not None:
                self.emit(
                    BLOCKED,
                    seat=seat,
                    pos=pos,
                    facing=direction,
                    other=occupant,
                    cause="robot",
                )
                return False
        self.emit(MOVED, seat=seat, pos=pos, to=nxt, facing=direction, cause=cause)
        return self.enter(seat, pos, nxt)

    def enter(self, seat: int, last: Pos, nxt: Pos) -> bool:
        """The robot arrives on ``nxt`` (on the course) from ``last``; a pit takes it unless
        :meth:`floats` says otherwise. Returns False if it fell."""
        player = self.s.players[seat]
        player.pos = nxt
        grid = self.grid
        if grid.pits[nxt[1] * grid.width + nxt[0]] and not self.floats(seat):
            player.pos = None
            self.fall(seat, last, nxt, "pit")
            return False
        return True

    def push(self, start: Pos, direction: Direction, pusher: int | None, cause: str) -> bool:
        """Push the line of robots starting at ``start`` one space; False if a wall stops it.

        The whole line moves or nothing does. Returns True when the line moved (the front
        robot may have fallen out of the course or into a pit). Pushes never deal damage by
        themselves (spec 7.2); :meth:`pushed_line` is where an edition's extras act.
        """
        groups, movable = self.push_line(start, direction)
        if movable:
            for group in reversed(groups):
                for seat in group:
                    self.shove(seat, direction, pusher, cause)
        self.pushed_line(groups, movable, direction, pusher, cause)
        return movable

    def push_line(self, start: Pos, direction: Direction) -> tuple[list[list[int]], bool]:
        """The robots a push from ``start`` would move, space by space, and whether it can."""
        occupants = self.occupants()
        groups: list[list[int]] = []
        cur = start
        while cur in occupants:
            groups.append(occupants[cur])
            if self.edge_blocks(cur, direction):
                return groups, False
            nxt = cur.step(direction)
            if not self.grid.is_on_course(nxt):
                break
            cur = nxt
        return groups, True

    def shove(self, seat: int, direction: Direction, pusher: int | None, cause: str) -> None:
        """Move one pushed robot one space (off the course or into a pit: it falls)."""
        player = self.s.players[seat]
        pos = player.pos
        assert pos is not None
        nxt = pos.step(direction)
        self.emit(
            PUSHED,
            seat=seat,
            pos=pos,
            to=nxt,
            facing=direction,
            other=pusher,
            cause=cause,
        )
        if not self.grid.is_on_course(nxt):
            player.pos = None
            self.fall(seat, pos, nxt, "edge")
            return
        self.enter(seat, pos, nxt)

    def occupants(self) -> dict[Pos, list[int]]:
        """The robots on the course by space (one each, unless an edition lets them share)."""
        return {pos: [seat] for pos, seat in self.s.occupancy().items()}

    # Hooks for the editions' extras (upgrades, option cards); the base rules have none.
    def floats(self, seat: int) -> bool:
        """Whether a robot entering a pit stays up for now (Hover Unit)."""
        return False

    def after_push(self, seat: int, pushed: int, moved: bool) -> None:
        """``seat``'s step tried to push ``pushed`` (``moved``: the line moved)."""

    def pushed_line(
        self,
        groups: list[list[int]],
        movable: bool,
        direction: Direction,
        pusher: int | None,
        cause: str,
    ) -> None:
        """A push of ``groups`` happened (or was blocked, ``movable`` False)."""

    def fall(self, seat: int, last: Pos, into: Pos, kind: str) -> None:
        """The robot left ``last`` into a pit at ``into`` or off the course."""
        board = self.grid.board_index(into) if kind == "pit" else self.grid.board_index(last)
        self.emit(FELL, seat=seat, pos=into, cause=kind)
        self.on_fall(seat, into if kind == "pit" else last, board, kind)

    def rotate(self, seat: int, turn: Turn, cause: str) -> None:
        player = self.s.players[seat]
        self.face(seat, player.facing.turned(turn), cause)

    def face(self, seat: int, facing: Direction, cause: str) -> None:
        """Turn the robot to ``facing`` (a rotation, or an upgrade that sets the facing)."""
        player = self.s.players[seat]
        before = player.facing
        player.facing = facing
        self.emit(
            ROTATED,
            seat=seat,
            pos=player.pos,
            facing=before,
            to_facing=player.facing,
            cause=cause,
        )

    # ---------------------------------------------------------------- belts
    def convey(self, colors: frozenset[BeltColor], cause: str, only: int | None = None) -> None:
        """One conveyance of every robot on a belt of ``colors`` (spec 6.3), all at once.

        ``only`` restricts the movers to one robot (All Aboard); the others still block.
        """
        grid = self.grid
        players = self.s.players
        movers: dict[int, tuple[Pos, Pos, Direction]] = {}
        for p in players:
            if p.pos is None or (only is not None and p.seat != only):
                continue
            belt = grid.belts[p.pos[1] * grid.width + p.pos[0]]
            if belt is not None and belt.color in colors:
                movers[p.seat] = (p.pos, p.pos.step(belt.out), belt.out)
        if not movers:
            return
        occupancy = self.s.occupancy()
        blocked: set[int] = set()
        claims: dict[Pos, list[int]] = {}
        for seat, (pos, target, out) in movers.items():
            claims.setdefault(target, []).append(seat)
            if self.edge_blocks(pos, out):
                blocked.add(seat)
        for seats in claims.values():
            if len(seats) > 1:
                blocked.update(seats)
        for seat, (pos, target, _) in movers.items():
            other = occupancy.get(target)
            if other is not None and other in movers and movers[other][1] == pos:
                blocked.update((seat, other))
        changed = True
        while changed:
            changed = False
            for seat, (_, target, _) in movers.items():
                if seat in blocked:
                    continue
                other = occupancy.get(target)
                if other is not None and (other not in movers or other in blocked):
                    blocked.add(seat)
                    changed = True
        moving = [seat for seat in self.s.turn_order() if seat in movers and seat not in blocked]
        for seat in moving:
            players[seat].pos = movers[seat][1]
        for seat in moving:
            self.conveyed(seat, *movers[seat], cause)

    def conveyed(self, seat: int, pos: Pos, target: Pos, out: Direction, cause: str) -> None:
        """A belt carried ``seat`` from ``pos`` to ``target`` (leaving ``pos`` towards ``out``):
        off the course it falls; a turning belt piece turns it; a pit takes it."""
        grid = self.grid
        player = self.s.players[seat]
        self.emit(CONVEYED, seat=seat, pos=pos, to=target, facing=out, cause=cause)
        if not grid.is_on_course(target):
            player.pos = None
            self.fall(seat, pos, target, "edge")
            return
        belt = grid.belts[grid.index(target)]
        if belt is not None:
            turn = belt.turn_on_entry(out)
            if turn is not Turn.NONE:
                self.rotate(seat, turn, "belt")
        if grid.pits[grid.index(target)]:
            player.pos = None
            self.fall(seat, pos, target, "pit")

    def on_belt(self, seat: int, colors: frozenset[BeltColor]) -> bool:
        pos = self.s.players[seat].pos
        if pos is None:
            return False
        belt = self.grid.belts[self.grid.index(pos)]
        return belt is not None and belt.color in colors

    # ------------------------------------------------------------ pushers, gears
    def push_panels(self, register: int) -> None:
        """Active push panels push their robot away from the wall, one at a time in turn order."""
        pushers, width = self.grid.pushers, self.grid.width
        players = self.s.players
        standing: list[tuple[int, Pos, Direction]] = []
        for seat in self.s.turn_order():
            pos = players[seat].pos
            if pos is None:
                continue
            pusher = pushers[pos[1] * width + pos[0]]
            if pusher is not None and register in pusher.registers:
                standing.append((seat, pos, pusher.direction))
        for seat, pos, direction in standing:
            if players[seat].pos == pos:
                self.push(pos, direction, None, "push panel")

    def gears(self) -> None:
        gear_turns, width = self.grid.gear_turns, self.grid.width
        players = self.s.players
        for seat in self.s.turn_order():
            pos = players[seat].pos
            if pos is None:
                continue
            turn = gear_turns[pos[1] * width + pos[0]]
            if turn is not None:
                self.rotate(seat, turn, "gear")

    # --------------------------------------------------------------- lasers
    def board_laser_hits(self) -> dict[int, int]:
        """Beams hitting each robot (nearest robot in each beam), emitting SHOT events."""
        grid = self.grid
        width = grid.width
        nearest: dict[int, tuple[int, int]] = {}  # laser number -> (distance, seat)
        for p in self.s.players:
            if p.pos is None:
                continue
            for number, distance in grid.beams_over.get(p.pos[1] * width + p.pos[0], ()):
                found = nearest.get(number)
                # "<=": of robots sharing a space (where an edition allows it) the later
                # player is the one hit, as it always was
                if found is None or distance <= found[0]:
                    nearest[number] = (distance, p.seat)
        hits: dict[int, int] = {}
        for number, (origin, laser, path) in enumerate(grid.lasers):
            found = nearest.get(number)
            target = None if found is None else found[1]
            self.emit(
                SHOT,
                seat=target,
                pos=origin,
                to=grid.beam_ends[number] if found is None else grid.pos(path[found[0]]),
                facing=laser.direction,
                amount=laser.beams,
                cause="board laser",
            )
            if target is not None:
                hits[target] = hits.get(target, 0) + laser.beams
        return hits

    def trace_shot(self, seat: int, direction: Direction) -> tuple[int | None, Pos]:
        """The first robot in line from ``seat`` towards ``direction`` and where the beam ends."""
        pos = self.s.players[seat].pos
        assert pos is not None
        grid = self.grid
        path = grid.beam_path(grid.index(pos), direction)
        if len(path) == 1:
            return None, pos
        width = grid.width
        occupied = {p.pos[1] * width + p.pos[0]: p.seat for p in self.s.players if p.pos}
        for i in path[1:]:
            target = occupied.get(i)
            if target is not None:
                return target, grid.pos(i)
        return None, grid.pos(path[-1])
