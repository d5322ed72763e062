"""The classic board elements (3.5 C, 5.5-5.7, 5.14): express belts, all belts with their
conflict rules, pushers that may cancel each other, gears and crushers.
"""

from __future__ import annotations

from collections.abc import Callable

from roborally.engine.classic.base import ALL_BELTS, BLUE, ClassicBase, stage
from roborally.engine.core.board import BeltColor
from roborally.engine.core.events import BLOCKED, ELEMENT_STEP, FELL
from roborally.engine.core.geometry import Direction, Pos


class ClassicElements(ClassicBase):
    """Step C: the board moves, turns and crushes the robots."""

    @stage
    def stage_elements(self) -> None:
        """3.5 C: express belts, all belts, pushers, gears, crushers (5.5-5.7, 5.14)."""
        s = self.s
        steps: list[tuple[str, Callable[[], None]]] = [
            ("express belts", lambda: self.convey_all(BLUE, "express belt")),
            ("belts", lambda: self.convey_all(ALL_BELTS, "belt")),
            ("pushers", lambda: self.pushers(s.register)),
            ("gears", self.gears),
            ("crushers", lambda: self.crushers(s.register)),
        ]
        for name, step in steps:
            self.emit(ELEMENT_STEP, cause=name)
            step()
            if self.y94 and self.check_touch_win(by_dock=True):
                return
        s.stage = "lasers"

    def convey_all(self, colors: frozenset[BeltColor], cause: str) -> None:
        """One belt step (5.5): all robots on moving belts at once, with the conflict rules."""
        grid = self.grid
        movers: dict[int, tuple[Pos, Pos, Direction]] = {}
        for seat in self.dock_order:
            pos = self.s.players[seat].pos
            if pos is None:
                continue
            belt = grid.belts[grid.index(pos)]
            if belt is not None and belt.color in colors:
                movers[seat] = (pos, pos.step(belt.out), belt.out)
        if not movers:
            return
        occ = self.occupants()
        blocked: set[int] = set()
        sources: dict[Pos, set[Pos]] = {}
        for seat, (pos, target, out) in movers.items():
            sources.setdefault(target, set()).add(pos)
            if self.edge_blocks(pos, out):
                blocked.add(seat)  # 5.5 3.1: a belt cannot carry a robot through a wall
        for seat, (pos, target, _) in movers.items():
            if len(sources[target]) > 1:
                blocked.add(seat)  # 5.5 3.2: two belts meet; both robots stay (001: 251-254)
            for other in occ.get(target, []):
                if other in movers and movers[other][1] == pos:
                    blocked.update((seat, other))  # 5.5 3.4: no swapping (002: 222)
        changed = True
        while changed:  # 5.5 3.3: a robot that stays blocks the one behind it (001: 255-256)
            changed = False
            for seat, (_, target, _) in movers.items():
                if seat in blocked:
                    continue
                if any(o not in movers or o in blocked for o in occ.get(target, [])):
                    blocked.add(seat)
                    changed = True
        moving = [seat for seat in movers if seat not in blocked]
        for seat in moving:
            self.s.players[seat].pos = movers[seat][1]
        for seat in moving:
            self.conveyed(seat, *movers[seat], cause)

    def pushers(self, register: int) -> None:
        """5.6 / A-29: active pushers push at once; pushes that share a robot or a destination
        cancel each other."""
        grid = self.grid
        planned: list[tuple[Pos, Direction, set[int], set[Pos]]] = []
        for pos, seats in self.occupants().items():
            cell = grid.active(pos)
            if cell is None or cell.pusher is None or register not in cell.pusher.registers:
                continue
            direction = cell.pusher.direction
            groups, movable = self.push_line(pos, direction)
            if not movable:
                for seat in seats:
                    self.emit(BLOCKED, seat=seat, pos=pos, facing=direction, cause="pusher")
                continue
            robots = {seat for group in groups for seat in group}
            targets = set()
            for group in groups:
                where = self.s.players[group[0]].pos
                assert where is not None
                targets.add(where.step(direction))
            planned.append((pos, direction, robots, targets))
        for i, (pos, direction, robots, targets) in enumerate(planned):
            clash = any(
                robots & other_robots or targets & other_targets
                for j, (_, _, other_robots, other_targets) in enumerate(planned)
                if j != i
            )
            if clash:
                self.emit(BLOCKED, pos=pos, facing=direction, cause="pushers clash")
                continue
            if self.s.robot_at(pos) is not None:
                self.push(pos, direction, None, "pusher")

    def crushers(self, register: int) -> None:
        """5.14 / A-40: an active crusher destroys the robot under it."""
        for seat in self.dock_order:
            pos = self.s.players[seat].pos
            if pos is None:
                continue
            cell = self.grid.active(pos)
            if cell is not None and cell.crusher is not None and register in cell.crusher:
                self.emit(FELL, seat=seat, pos=pos, cause="crusher")
                self.destroy(seat, "crusher", pos)
