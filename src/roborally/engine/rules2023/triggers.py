"""The 2023 upgrades that act inside a movement or a card's resolution: the movement hooks
(Hover Unit, Spiky, Ramming Gear, Piercing Drill, Magnetic) over the core's moves and pushes,
and the triggers of one's own card (Brakes, Drifting, Power Slide, Modular Chassis and the
install limit after its exchange).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from roborally.engine.core.cards import Card
from roborally.engine.core.decisions import Prompt
from roborally.engine.core.geometry import DIRECTIONS, Direction, Pos
from roborally.engine.core.mechanics import Mechanics
from roborally.engine.core.state import Player, Register
from roborally.engine.rules2023.base import MAX_INSTALLED, Base2023, is_permanent, upgrade_specs

T = TypeVar("T")


class Triggers2023(Base2023):
    """Upgrades triggered by movements, pushes and one's own register card."""

    # ======================================================= movement hooks
    def moving(self, work: Callable[..., T], *args: Any) -> T:
        """Run a movement, ``work(*args)``; hovering robots that end it on a pit fall
        afterwards (12-B8)."""
        self._depth += 1
        try:
            result = work(*args)
        finally:
            self._depth -= 1
        if self._depth == 0 and self._hovering:
            self.settle_hover()
        return result

    def settle_hover(self) -> None:
        hovering, self._hovering = self._hovering, []
        for seat in hovering:
            player = self.s.players[seat]
            pos = player.pos
            if pos is not None and self.grid.pits[self.grid.index(pos)]:
                player.pos = None
                self.fall(seat, pos, pos, "pit")

    def hovers(self, seat: int) -> bool:
        return self._step_a and self.has(seat, "hover_unit")

    def move(self, seat: int, direction: Direction, steps: int, cause: str) -> int:
        if not self.s.upgrades:
            return super().move(seat, direction, steps, cause)
        outer = self._depth == 0
        if outer:
            self._rammed = set()
            self._spiked = set()
        if not (outer and self._activation == seat and self._magnets_near):
            # moving() written out: nearly every card moves this way.
            self._depth += 1
            try:
                moved: int = Mechanics.move(self, seat, direction, steps, cause)
            finally:
                self._depth -= 1
            if outer and self._hovering:
                self.settle_hover()
            return moved
        # A move of the resolving card, with a Magnetic robot near: it may follow.
        pushed_before = len(self._pushed)
        magnets = self.magnet_candidates(seat)
        moved = self.moving(Mechanics.move, self, seat, direction, steps, cause)
        if magnets and moved > 0:
            pushed = set(self._pushed[pushed_before:])
            self.magnetic(seat, [m for m in magnets if m not in pushed], direction, moved)
        return moved

    def floats(self, seat: int) -> bool:
        """Hover Unit (12-B8): a hovering robot falls only where its movement ends."""
        if not self.hovers(seat):
            return False
        if seat not in self._hovering:
            self._hovering.append(seat)
        return True

    def push(self, start: Pos, direction: Direction, pusher: int | None, cause: str) -> bool:
        """Push a line of robots (as in :class:`Mechanics`); a push that is not part of a
        movement settles hovering robots at its end."""
        if not self.s.upgrades:
            return super().push(start, direction, pusher, cause)
        if self._depth == 0:
            self._spiked = set()
        movable = super().push(start, direction, pusher, cause)
        if self._depth == 0 and self._hovering:
            self.settle_hover()
        return movable

    def pushed_line(
        self,
        groups: list[list[int]],
        movable: bool,
        direction: Direction,
        pusher: int | None,
        cause: str,
    ) -> None:
        """Spiky (000: 823-827, 12-B18): whoever moves or is pushed into a Spiky robot's space
        takes 1 damage, whether or not the Spiky robot actually moves."""
        if not self.s.upgrades:
            return
        chain = [seat for group in groups for seat in group]
        for mover, spiky in zip([pusher, *chain[:-1]], chain, strict=True):
            if mover is None or (mover, spiky) in self._spiked or not self.has(spiky, "spiky"):
                continue
            self._spiked.add((mover, spiky))
            self.upgrade_event(spiky, "spiky", "triggered", other=mover)
            self.deal_damage(mover, 1, "spiky")

    def after_push(self, seat: int, pushed: int, moved: bool) -> None:
        """Ramming Gear, Piercing Drill, Modular Chassis: pushes by the resolving card (12-C14).

        A push is a push however far the other robot travels, even 0 spaces against a wall,
        and a push over several steps of one movement is one push (000: 542, 548): each of
        the three acts once per movement and pushed robot, whether or not ``moved``.
        """
        if not self.s.upgrades or self._activation != seat or pushed in self._rammed:
            return
        self._rammed.add(pushed)
        if self.armed(seat, "ramming_gear"):
            self.upgrade_event(seat, "ramming_gear", "triggered", other=pushed)
            self.deal_damage(pushed, 1, "ramming gear")
        if pushed not in self._pushed:
            self._pushed.append(pushed)
        target = self.s.players[pushed]
        if self.armed(seat, "piercing_drill") and target.pos is not None:
            options = ("no", *(f"use {d.letter}" for d in DIRECTIONS))
            choice = self.ask_choice(
                self.next_id(seat, "piercing_drill"),
                seat,
                Prompt(
                    f"Piercing Drill: deal 1 damage to P{pushed + 1} and choose its facing?",
                    "piercing_drill",
                    player=pushed,
                ),
                options,
                "do not use it",
                {"card": "piercing_drill", "target": pushed},
            )
            if choice != "no":
                self.use_temporary(seat, "piercing_drill", other=pushed)
                self.deal_damage(pushed, 1, "piercing drill")
                if target.pos is not None:
                    self.face(pushed, Direction.parse(choice.split()[1]), "piercing drill")

    # --------------------------------------------------------------- Magnetic
    def adjacent(self, pos: Pos) -> dict[int, Direction]:
        """Robots orthogonally next to ``pos`` with no wall between (000: 681-683)."""
        occupancy = self.s.occupancy()
        result: dict[int, Direction] = {}
        for d in DIRECTIONS:
            other = occupancy.get(pos.step(d))
            if other is not None and not self.grid.wall_between(pos, d):
                result[other] = d
        return result

    def magnet_candidates(self, seat: int) -> list[int]:
        pos = self.s.players[seat].pos
        if pos is None:
            return []
        magnetic = {p.seat for p in self.holders("magnetic", besides=seat)}
        if not magnetic:
            return []  # most often: no need to look at the neighbours
        near = self.adjacent(pos)
        players = self.s.players  # a shut-down robot does not follow: its own action (12-C5)
        return [
            o
            for o in self.s.turn_order()
            if o in near and o in magnetic and not players[o].shutdown
        ]

    def magnetic(self, mover: int, seats: list[int], direction: Direction, n: int) -> None:
        """12-C9: move the same number of spaces the neighbour moved, in the same direction."""
        saved = self._activation
        for seat in seats:
            player = self.s.players[seat]
            if player.pos is None or not self.has(seat, "magnetic"):
                continue
            choice = self.ask_choice(
                self.next_id(seat, "magnetic"),
                seat,
                Prompt(
                    f"Magnetic: move {n} space(s) {direction.name.lower()}"
                    f" along with P{mover + 1}?",
                    "magnetic",
                    count=n,
                    direction=direction.letter,
                    player=mover,
                ),
                ("stay", "follow"),
                "stay",
                {"card": "magnetic", "mover": mover, "direction": direction.letter, "spaces": n},
            )
            if choice == "follow":
                self.use_temporary(seat, "magnetic", other=mover)
                self._activation = None
                try:
                    self.move(seat, direction, n, "magnetic")
                finally:
                    self._activation = saved

    # ============================================================ resolution
    def brakes(self, seat: int, card: Card) -> bool:
        """Brakes (000: 705-709): a revealed Move 1 card may be resolved as Move 0."""
        if card.name != "move1" or not self.has(seat, "brakes"):
            return False
        if self.ask_brakes(seat) == "brake":
            self.upgrade_event(seat, "brakes", "used")
            return True
        return False

    def ask_brakes(self, seat: int) -> str:
        return self.ask_choice(
            self.next_id(seat, "brakes"),
            seat,
            Prompt("Brakes: resolve this Move 1 as Move 0?", "brakes"),
            ("move", "brake"),
            "move 1 as printed",
            {"card": "brakes"},
        )

    def after_rotation(self, seat: int, effect: str, register: Register) -> None:
        """Drifting / Power Slide (000: 717-719, 789-791): after a Rotate card, move 1 forward."""
        name = {"rotate_left": "drifting", "rotate_right": "power_slide"}.get(effect)
        player = self.s.players[seat]
        if name is None or player.pos is None or not self.has(seat, name):
            return
        choice = self.ask_choice(
            self.next_id(seat, name),
            seat,
            Prompt(
                f"{upgrade_specs()[name].name}: move 1 space forward?", "step_forward", card=name
            ),
            ("stay", "move"),
            "stay",
            {"card": name},
        )
        if choice == "move":
            self.upgrade_event(seat, name, "used")
            saved = self._activation
            self._activation = None  # not "during your programming card activation" (12-C14)
            try:
                self.move(seat, player.facing, 1, name.replace("_", " "))
            finally:
                self._activation = saved

    def modular_chassis(self, seat: int) -> None:
        """Modular Chassis (000: 759-763): swap it for an upgrade of a robot you pushed."""
        if not self.armed(seat, "modular_chassis") or not self._pushed:
            return
        options = ["keep"]
        for pushed in self._pushed:
            if pushed == seat:
                continue
            names = sorted({c.name for c in self.s.players[pushed].installed})
            options.extend(f"swap p{pushed + 1} {n}" for n in names)
        if len(options) == 1:
            return
        choice = self.ask_choice(
            self.next_id(seat, "modular_chassis"),
            seat,
            Prompt(
                "Modular Chassis: exchange it for an installed upgrade of a robot you pushed?",
                "modular_chassis",
            ),
            tuple(dict.fromkeys(options)),
            "keep Modular Chassis",
            {"card": "modular_chassis"},
        )
        if choice == "keep":
            return
        _, who, name = choice.split()
        other = self.s.players[int(who[1:]) - 1]
        me = self.s.players[seat]
        chassis = next(c for c in me.installed if c.name == "modular_chassis")
        taken = next(c for c in other.installed if c.name == name)
        me.installed.remove(chassis)
        other.installed.remove(taken)
        other.installed.append(chassis)
        me.installed.append(taken)
        me.fresh.append(taken.uid)
        other.fresh.append(chassis.uid)
        self.drop_memory(other, taken)
        self.upgrade_event(seat, name, "received", other=other.seat)
        self.upgrade_event(other.seat, "modular_chassis", "received", other=seat)
        self.enforce_limit(me, taken)
        self.enforce_limit(other, chassis)

    def enforce_limit(self, player: Player, received: Card) -> None:
        """12-C12: over 3 of a type after an exchange, discard one of that type at once."""
        permanent = is_permanent(received.name)
        if self.count_installed(player, permanent) <= MAX_INSTALLED:
            return
        names = [
            c.name
            for c in player.installed
            if is_permanent(c.name) == permanent and c.uid not in self.s.glitch_installed
        ]
        ordered = [received.name, *sorted(set(names) - {received.name})]
        choice = self.ask_choice(
            self.next_id(player.seat, "over_limit"),
            player.seat,
            Prompt("You hold more than 3 upgrades of this type: discard one", "too_many_upgrades"),
            tuple(f"discard {n}" for n in ordered),
            f"discard {received.name}",
            {"card": received.name},
        )
        name = choice.partition(" ")[2]
        card = next(c for c in player.installed if c.name == name)
        self.lose_upgrade(player, card)
