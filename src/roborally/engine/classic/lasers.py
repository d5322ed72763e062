"""The classic lasers and weapons (3.5 D, 5.8-5.9, 8.4): board and robot lasers fire at once;
robot shots are traced through walls, pushers and robots (High-Power Laser), weapon option
cards are declared in dock order, and their pushes, pulls and register effects follow the
damage.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

from roborally.engine.classic.base import CHOICE, ClassicBase, Hit, stage
from roborally.engine.classic.model import HOWITZER_USES, NUM_REGISTERS, ClassicPlayer
from roborally.engine.core.board import WALL_BIT
from roborally.engine.core.decisions import Prompt
from roborally.engine.core.events import CARD_REPLACED, CARD_REVEALED, ELEMENT_STEP, SHOT
from roborally.engine.core.geometry import DIRECTIONS, Direction, Pos


@dataclass
class Shot:
    """A robot's declared main-laser use in one register (8.4)."""

    seat: int
    direction: Direction
    groups: list[list[int]]
    end: Pos
    use: str  # "laser" or a weapon option ("fire_control lock 3", "mini_howitzer", ...)
    pierced: bool = False  # High-Power Laser: hit a robot behind a wall or robot


class ClassicLasers(ClassicBase):
    """Step D: board lasers, robot lasers and weapon options."""

    @functools.cached_property
    def shot_lines(self) -> tuple[list[int], ...]:
        """For each direction, the square (grid index) a robot laser leaving each square enters
        next, or -1 where a wall, a pusher (5.9, 001: 291, A-31) or the course edge stops it.
        Built once per game, when the first robot fires: the board never changes."""
        grid = self.grid
        width, height, cells = grid.width, grid.height, grid.cells
        stops = list(grid.walls)  # the sides of each square a shot cannot cross
        for i, cell in enumerate(cells):
            if cell is not None and cell.pusher is not None:
                stops[i] |= WALL_BIT[cell.pusher.direction.opposite]  # the side it hangs on
        squares = [(i, i % width, i // width) for i, cell in enumerate(cells) if cell is not None]
        lines = []
        for direction in DIRECTIONS:
            out, into = WALL_BIT[direction], WALL_BIT[direction.opposite]
            dx, dy = direction.dx, direction.dy
            line = [-1] * len(cells)
            for i, x, y in squares:
                to_x, to_y = x + dx, y + dy
                if stops[i] & out or not (0 <= to_x < width and 0 <= to_y < height):
                    continue
                nxt = to_y * width + to_x
                if cells[nxt] is not None and not stops[nxt] & into:
                    line[i] = nxt
            lines.append(line)
        return tuple(lines)

    def occupied_squares(self) -> dict[int, list[int]]:
        """:meth:`occupants` by grid index, as :attr:`shot_lines` and board lasers name them."""
        index = self.grid.index
        return {index(pos): seats for pos, seats in self.occupants().items()}

    def trace(
        self, seat: int, direction: Direction, through: int, occupied: dict[int, list[int]]
    ) -> tuple[list[list[int]], Pos, bool]:
        """The robots a shot from ``seat`` hits (the first one; with High-Power Laser also the
        next one behind one wall or robot), where the shot ends, and whether it hit a robot
        after passing an obstacle. ``occupied``: :meth:`occupied_squares`."""
        grid = self.grid
        pos = self.s.players[seat].pos
        assert pos is not None
        ahead = self.shot_lines[direction]
        here = grid.index(pos)
        groups: list[list[int]] = []
        passed = False
        while True:
            nxt = ahead[here]
            if nxt < 0:
                beyond = grid.pos(here).step(direction)
                if through <= 0 or not grid.is_on_course(beyond):
                    return groups, grid.pos(here), False
                through -= 1  # through a wall or pusher
                passed = True
                nxt = grid.index(beyond)
            here = nxt
            if here in occupied:
                groups.append(occupied[here])
                if through <= 0:
                    return groups, grid.pos(here), passed
                through -= 1
                passed = True

    @staticmethod
    def shot_cause(shot: Shot) -> str:
        weapon = shot.use.split()[0]
        if weapon == "rear":
            return "rear laser"
        if weapon == "laser":
            return "high-power laser" if shot.pierced else "robot laser"
        return weapon.replace("_", " ")

    def fires(self, player: ClassicPlayer) -> bool:
        if not player.active:
            return False
        return not player.shutdown or self.powered_down_fire

    def weapon_uses(self, player: ClassicPlayer, target: ClassicPlayer, distance: int) -> list[str]:
        r = self.s.register
        uses: list[str] = []
        if player.has("fire_control"):
            uses.extend(
                f"fire_control lock {i + 1}"
                for i, reg in enumerate(target.registers)
                if not reg.locked
            )
            uses.extend(f"fire_control destroy {name}" for name in target.option_names())
        if player.has("mini_howitzer"):
            uses.append("mini_howitzer")
        if player.has("pressor_beam"):
            uses.append("pressor_beam")
        if player.has("radio_control") and r < NUM_REGISTERS:
            uses.append("radio_control")
        if player.has("scrambler") and r < NUM_REGISTERS:
            uses.append("scrambler")
        if player.has("tractor_beam") and distance > 1:
            uses.append("tractor_beam")
        return uses

    @stage
    def stage_lasers(self) -> None:
        """3.5 D / 5.8-5.9 / 8.4: board and robot lasers fire at once; weapon options are
        declared first in dock order; damage, destruction, pushes, then register effects."""
        self.emit(ELEMENT_STEP, cause="lasers")
        occupied = self.occupied_squares()  # nobody moves before the damage
        hits = self.board_laser_fire(occupied)
        shots = self.declare_shots(occupied)
        hits.extend(self.shot_hits(shots))
        self.apply_damage(hits)
        self.weapon_pushes(shots)
        self.weapon_register_effects(shots)
        self.s.stage = "touch"

    def board_laser_fire(self, occupied: dict[int, list[int]]) -> list[Hit]:
        """Every board laser fires (5.8): the first robot in its beam is hit."""
        grid = self.grid
        hits: list[Hit] = []
        for origin, laser, path in grid.lasers:
            targets: list[int] = []
            last = path[-1]
            for index in path:
                if index in occupied:
                    targets, last = occupied[index], index
                    break
            self.emit(
                SHOT,
                seat=targets[0] if targets else None,
                pos=origin,
                to=grid.pos(last),
                facing=laser.direction,
                amount=laser.beams,
                cause="board laser",
            )
            hits.extend(
                Hit(t, laser.beams, "board laser", laser.direction.opposite) for t in targets
            )
        return hits

    def declare_shots(self, occupied: dict[int, list[int]]) -> list[Shot]:
        """The robot shots that hit a robot, in dock order, each with its use: the main laser
        or a weapon option its player declares instead (8.4). A shot that hits nothing does
        nothing (and is no event, docs/rules-classic.md)."""
        shots: list[Shot] = []
        for player in self.in_dock_order():
            seat = player.seat
            if not self.fires(player):
                continue
            through = 1 if player.has("high_power_laser") else 0
            groups, end, pierced = self.trace(seat, player.facing, through, occupied)
            if groups:
                use = self.declare_use(player, self.p(groups[0][0]))
                shots.append(Shot(seat, player.facing, groups, end, use, pierced))
            if player.has("rear_firing_laser"):
                back, back_end, _ = self.trace(seat, player.facing.opposite, 0, occupied)
                if back:
                    shots.append(Shot(seat, player.facing.opposite, back, back_end, "rear"))
        return shots

    def declare_use(self, player: ClassicPlayer, target: ClassicPlayer) -> str:
        """How the robot's main laser hits ``target``: ``laser``, or a weapon option."""
        assert player.pos is not None and target.pos is not None
        distance = abs(target.pos.x - player.pos.x) + abs(target.pos.y - player.pos.y)
        uses = self.weapon_uses(player, target, distance)
        if not uses:
            return "laser"
        use: str = self.choose(
            player.seat,
            CHOICE,
            "weapon",
            Prompt(
                f"Your main laser hits {target.name}: fire it, or use an option instead?",
                "weapon_classic",
                player=target.seat,
            ),
            ("laser", *uses),
            info={"target": target.seat},
        )
        return use

    def shot_hits(self, shots: list[Shot]) -> list[Hit]:
        """The robot shots fire (a SHOT event each): the damage of lasers and Mini Howitzer."""
        hits: list[Hit] = []
        for shot in shots:
            player = self.p(shot.seat)
            rear = shot.use == "rear"
            amount = 2 if player.has("double_barreled_laser") and not rear else 1
            first = shot.groups[0]
            weapon = shot.use.split()[0]
            self.emit(
                SHOT,
                seat=shot.seat,
                pos=player.pos,
                to=shot.end,
                facing=shot.direction,
                other=first[0],
                amount=amount,
                cause=self.shot_cause(shot),
            )
            side = shot.direction.opposite
            if weapon == "mini_howitzer":
                hits.extend(Hit(t, 1, "mini howitzer", side, shot.seat) for t in first)
                continue
            if weapon in ("laser", "rear", "fire_control"):
                for index, group in enumerate(shot.groups):
                    if index == 0 and weapon == "fire_control":
                        continue
                    hits.extend(
                        Hit(t, amount, "rear laser" if rear else "robot laser", side, shot.seat)
                        for t in group
                    )
        return hits

    def weapon_pushes(self, shots: list[Shot]) -> None:
        """8.4 (3): Mini Howitzer uses, then the pushes and pulls of surviving targets, in dock
        order of the firing robots."""
        for shot in shots:
            player = self.p(shot.seat)
            weapon = shot.use.split()[0]
            if weapon == "mini_howitzer":
                used = player.option_tokens.get("mini_howitzer", 0) + 1
                player.option_tokens["mini_howitzer"] = used
                if used >= HOWITZER_USES:
                    self.lose_option(player, "mini_howitzer", "used up")
            if weapon not in ("mini_howitzer", "pressor_beam", "tractor_beam") or not shot.groups:
                continue
            target = self.p(shot.groups[0][0])
            if target.pos is None:
                continue
            direction = shot.direction if weapon != "tractor_beam" else shot.direction.opposite
            self.push(target.pos, direction, None, weapon.replace("_", " "))

    def weapon_register_effects(self, shots: list[Shot]) -> None:
        """8.4 (4): Fire Control, Scrambler and Radio Control act on the target's registers."""
        for shot in shots:
            weapon, *rest = shot.use.split()
            if not shot.groups or weapon not in ("fire_control", "scrambler", "radio_control"):
                continue
            target = self.p(shot.groups[0][0])
            if weapon == "fire_control" and rest[0] == "lock":
                register = int(rest[1])
                target.fire_locks.add(register)
                self.update_locks(target)
                self.emit(
                    CARD_REVEALED,
                    seat=target.seat,
                    amount=register,
                    other=shot.seat,
                    cause="fire control lock",
                )
            elif weapon == "fire_control" and target.has(rest[1]):
                self.lose_option(target, rest[1], "fire control")
            elif weapon == "scrambler":
                nxt = target.registers[self.s.register]
                if target.active and nxt.cards and not nxt.locked:
                    self.replace_from_deck(target, nxt, "scrambler")
                    nxt.revealed = False
            elif weapon == "radio_control" and target.active and self.p(shot.seat).active:
                target.controlled_by = shot.seat
                self.emit(
                    CARD_REPLACED,
                    seat=target.seat,
                    other=shot.seat,
                    cause="radio control",
                )
