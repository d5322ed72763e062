"""The 2023 robot weapons (step B6, 9.1.5, 12-B19..B23, 12-C5): one robot at a time in turn
order fires its main laser (Laser Kata, Rail Gun, Double-Barrel) or one replacement weapon
(Scrambler, Mini Howitzer, Pressor Beam, Tractor Beam, Displacing Blast), and its Rear Laser.
"""

from __future__ import annotations

from roborally.engine.core.decisions import Prompt
from roborally.engine.core.events import CARD_REPLACED, DISPLACED, SHOT
from roborally.engine.core.geometry import DX, DY, Direction, Pos, Turn
from roborally.engine.core.state import NUM_REGISTERS, Player
from roborally.engine.rules2023.base import Base2023

#: Weapons used "instead of firing your main laser" (9.1.5): at most one per register.
REPLACEMENT_WEAPONS = (
    "scrambler",
    "mini_howitzer",
    "pressor_beam",
    "tractor_beam",
    "displacing_blast",
)
REPLACEMENT_SET = frozenset(REPLACEMENT_WEAPONS)
#: The upgrades that change what a robot fires in step B6; without any, it fires its plain
#: main laser (:meth:`Weapons2023.fire_main_laser`).
WEAPON_UPGRADES = REPLACEMENT_SET | {"laser_kata", "rail_gun", "double_barrel_laser", "rear_laser"}
#: One shot of a laser: its direction, the robots it hits (nearest first), where the beam
#: ends, the damage to each robot, and its cause.
Shot = tuple[Direction, list[int], Pos, int, str]


class Weapons2023(Base2023):
    """Step B6: the robots' weapons."""

    def stage_weapons(self) -> None:
        """Step B6: robot weapons, one robot at a time in turn order (12-B19, 12-C5)."""
        order = self.s.order or self.s.turn_order()
        for turn in range(self.s.turn, len(order)):
            self.s.turn = turn  # where a re-run after a question picks up
            self.fire_weapons(order[turn])
        self.s.turn = 0
        self.s.stage = "register_end"

    def fire_weapons(self, seat: int) -> None:
        """B6 for one robot: the main laser or one replacement weapon, plus the Rear Laser.

        The weapon is chosen before anything changes; the shots run on a snapshot only if a
        robot they may hit can be asked to raise its Deflector Shield. Weapon damage moves
        no robot, so the main and rear lasers' shots are traced before any is fired.
        """
        player = self.s.players[seat]
        if player.pos is None or player.shutdown:
            return  # 12-C5: a shut-down robot does not fire
        if not player.installed or not self.holds_any(player, WEAPON_UPGRADES):
            self.fire_main_laser(seat, player)  # most robots: no weapon upgrade, one shot ahead
            return
        if not self.robot_in_line(seat):
            return  # every shot and weapon goes along a row or column: nothing to hit
        weapon = self.choose_weapon(seat)
        if weapon == "main":
            shots = self.laser_shots(seat, main=True)
            if not shots:
                return  # nothing in line: no shot, no event
            self.attempt(seat, self.shoot, seat, shots, asks=self.shots_ask(shots))
        else:
            asks = self.shield_ready(besides=seat)  # Mini Howitzer or the Rear Laser may hit it
            self.attempt(seat, self.fire_replacement, seat, weapon, asks=asks)

    def fire_main_laser(self, seat: int, player: Player) -> None:
        """B6 for a robot without weapon upgrades: its main laser, 1 damage to the first robot
        ahead (:meth:`laser_shots` without the upgrades)."""
        facing = player.facing
        if not self.robot_ahead(seat, facing):
            return  # nothing in line ahead: no shot, no event
        target, end = self.trace_shot(seat, facing)
        if target is None:
            return
        shots: list[Shot] = [(facing, [target], end, 1, "robot laser")]
        if self.s.upgrades:
            self.attempt(seat, self.shoot, seat, shots, asks=self.shots_ask(shots))
        else:
            self.shoot(seat, shots)

    def shots_ask(self, shots: list[Shot]) -> bool:
        """Whether a robot ``shots`` hit can be asked to raise its Deflector Shield (then
        the shots run on a snapshot)."""
        players = self.s.players
        for shot in shots:
            for target in shot[1]:
                if players[target].installed and self.shield_asks(players[target]):
                    return True
        return False

    def choose_weapon(self, seat: int) -> str:
        """``main``, or the replacement weapon the player fires instead (asked only if one
        is usable: it needs a robot in the line of fire)."""
        player = self.s.players[seat]
        if not player.installed or not self.holds_any(player, REPLACEMENT_SET):
            return "main"
        hit = self.first_hit(seat, player.facing)
        if hit is None:
            return "main"
        target = hit[0]
        options = ["main"]
        options.extend(n for n in REPLACEMENT_WEAPONS if self.weapon_usable(player, n, target))
        if len(options) == 1:
            return "main"
        return self.ask_choice(
            self.did(f"p{seat + 1}-weapon"),
            seat,
            Prompt("Fire your main laser or a weapon upgrade instead?", "weapon"),
            tuple(options),
            "fire the main laser",
            {"target": target},
        )

    def weapon_usable(self, player: Player, name: str, target: int) -> bool:
        if not self.has(player, name):
            return False
        if name == "scrambler":
            return self.s.register < NUM_REGISTERS
        if name == "mini_howitzer":
            return player.energy >= 1
        if name == "tractor_beam":
            a, b = player.pos, self.s.players[target].pos
            assert a is not None and b is not None
            return abs(a.x - b.x) + abs(a.y - b.y) > 1
        return True

    def fire_replacement(self, seat: int, weapon: str) -> None:
        """A replacement weapon, then the Rear Laser from where the robot is afterwards."""
        self.replacement_weapon(seat, weapon)
        self.shoot(seat, self.laser_shots(seat, main=False))

    def laser_shots(self, seat: int, main: bool) -> list[Shot]:
        """The shots of ``seat``'s main laser (if ``main``) and Rear Laser as the robots stand
        now; a beam that hits nothing is no shot (no event, docs/rules-2023.md).

        The main laser: Laser Kata (4 directions after a U-turn), Rail Gun (every robot in
        line, through walls), Double-Barrel (2 damage).
        """
        player = self.s.players[seat]
        if player.pos is None:
            return []
        shots: list[Shot] = []
        names = {c.name for c in player.installed} if player.installed else set()
        if main:
            directions = [player.facing]
            if "laser_kata" in names and self.uturned(player):
                directions = [player.facing.turned(Turn(i)) for i in range(4)]
            damage = 2 if "double_barrel_laser" in names else 1
            for direction in directions:
                if "rail_gun" in names:
                    if not self.robot_ahead(seat, direction):
                        continue  # nothing to hit: no need to follow the rail
                    targets, end = self.rail_line(seat, direction)
                    if targets:
                        shots.append((direction, targets, end, damage, "robot laser"))
                elif hit := self.first_hit(seat, direction):
                    shots.append((direction, [hit[0]], hit[1], damage, "robot laser"))
        if "rear_laser" in names and (hit := self.first_hit(seat, player.facing.opposite)):
            shots.append((player.facing.opposite, [hit[0]], hit[1], 1, "rear laser"))
        return shots

    def first_hit(self, seat: int, direction: Direction) -> tuple[int, Pos] | None:
        """The robot a shot from ``seat`` towards ``direction`` hits and where its beam ends
        (None: it hits nothing). The beam is traced only if a robot stands in line ahead."""
        if not self.robot_ahead(seat, direction):
            return None
        target, end = self.trace_shot(seat, direction)
        return None if target is None else (target, end)

    def robot_in_line(self, seat: int) -> bool:
        """Whether another robot stands in ``seat``'s row or column (walls aside)."""
        pos = self.s.players[seat].pos
        assert pos is not None
        x, y = pos
        for p in self.s.players:
            other = p.pos
            if other is not None and p.seat != seat and (other[0] == x or other[1] == y):
                return True
        return False

    def robot_ahead(self, seat: int, direction: Direction) -> bool:
        """Whether another robot stands in line ahead of ``seat``'s towards ``direction``,
        walls aside: if not, no shot that way can hit a robot."""
        pos = self.s.players[seat].pos
        assert pos is not None
        x, y = pos
        dx, dy = DX[direction], DY[direction]
        for p in self.s.players:
            other = p.pos
            if other is None or p.seat == seat:
                continue
            ox, oy = other
            if (oy == y and (ox - x) * dx > 0) or (ox == x and (oy - y) * dy > 0):
                return True  # (a product is 0, never positive, off the line of fire)
        return False

    def uturned(self, player: Player) -> bool:
        """Whether the robot made a U-turn in this register (Laser Kata)."""
        register = player.registers[self.s.register - 1] if self.s.register else None
        return register is not None and any(e in ("u_turn", "move3_uturn") for e in register.done)

    def shoot(self, seat: int, shots: list[Shot]) -> None:
        player = self.s.players[seat]
        for direction, targets, end, damage, cause in shots:
            self.emit(
                SHOT,
                seat=seat,
                pos=player.pos,
                to=end,
                facing=direction,
                other=targets[0],
                amount=damage,
                cause=cause,
            )
            for target in targets:
                self.weapon_damage(target, damage, cause)

    def rail_line(self, seat: int, direction: Direction) -> tuple[list[int], Pos]:
        """Rail Gun (12-B21): every robot in line up to the course edge, through walls."""
        pos = self.s.players[seat].pos
        assert pos is not None
        occupancy = self.s.occupancy()
        targets: list[int] = []
        cur = pos
        while self.grid.is_on_course(cur.step(direction)):
            cur = cur.step(direction)
            if cur in occupancy:
                targets.append(occupancy[cur])
        return targets, cur

    def replacement_weapon(self, seat: int, name: str) -> None:
        player = self.s.players[seat]
        direction = player.facing
        target, end = self.trace_shot(seat, direction)
        assert target is not None
        victim = self.s.players[target]
        if name == "displacing_blast":
            self.use_temporary(seat, name, other=target)
        else:
            self.upgrade_event(seat, name, "used", other=target)
        self.emit(
            SHOT,
            seat=seat,
            pos=player.pos,
            to=end,
            facing=direction,
            other=target,
            amount=2 if name == "mini_howitzer" else 0,
            cause=name.replace("_", " "),
        )
        if name == "mini_howitzer":
            self.spend(player, 1)
            self.weapon_damage(target, 2, "mini howitzer")
            if victim.pos is not None:
                self.push(victim.pos, direction, None, "mini howitzer")
        elif name == "pressor_beam":
            assert victim.pos is not None
            self.push(victim.pos, direction, None, "pressor beam")
        elif name == "tractor_beam":
            self.move(target, direction.opposite, 1, "tractor beam")
        elif name == "scrambler":
            self.scramble(target)
        elif name == "displacing_blast":
            self.displacing_blast(target)
        else:
            raise AssertionError(name)

    def scramble(self, target: int) -> None:
        """Scrambler (000: 747-751, 12-B23): the next register's card(s) replaced, face down."""
        player = self.s.players[target]
        register = player.registers[self.s.register]  # register r + 1
        if not register.cards:
            return
        old = " ".join(c.name for c in register.cards)
        self.replace_register(player, register)
        register.locked = False
        register.revealed = False
        card = self.draw(player)
        self.emit(CARD_REPLACED, seat=target, card=old, cause="scrambler")
        if card is not None:
            register.cards = [card]

    def displacing_blast(self, target: int) -> None:
        """Displacing Blast (000: 854-856, 12-C11): to the reboot token of the robot's board."""
        player = self.s.players[target]
        pos = player.pos
        assert pos is not None
        board = self.grid.board_index(pos)
        token = self.grid.reboot_of_board.get(board)
        dynamic = "dynamic_archiving" in self.s.config.variants
        if dynamic or token is None or self.grid.board_kinds[board] == "dock":
            dest, arrow = player.archive, player.archive_arrow
        else:
            dest, arrow = token.pos, token.arrow
        if dest is None or dest == pos:
            return
        occupant = self.s.robot_at(dest)
        if occupant is not None and not self.displace(dest, arrow):
            dest = self.nearest_free(dest, arrow)
        if player.pos is None:
            return  # displaced into a pit by its own chain (cannot happen on a reboot token)
        start = player.pos
        player.pos = dest
        self.emit(DISPLACED, seat=target, pos=start, to=dest, cause="displacing blast")
