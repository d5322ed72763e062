"""The classic activation (3.5 A-B, 4): register cards revealed (Gyroscopic Stabilizer,
Conditional Program, Abort Switch, the Crab Legs / Dual Processor choice), robots moving in
priority order (Radio Control), the option cards that change a move (Brakes, Fourth Gear,
Reverse Gear, Ramming Gear), and the classic hooks on the core's movement: falls destroy, and
[V1994] a checkpoint counts as soon as a robot enters it.
"""

from __future__ import annotations

from typing import Any

from roborally.engine.classic.base import CHOICE, RAM_CAUSES, ClassicBase, Hit, stage
from roborally.engine.classic.model import (
    MOVES,
    ROTATIONS,
    ClassicPlayer,
    card_type,
    is_move,
    is_rotation,
)
from roborally.engine.core.cards import Card
from roborally.engine.core.decisions import Prompt
from roborally.engine.core.events import (
    ARCHIVED,
    CARD_REPLACED,
    CARD_RESOLVED,
    CARD_REVEALED,
    CHECKPOINT_REACHED,
    REGISTER_STARTED,
)
from roborally.engine.core.geometry import Direction, Pos, Turn


class ClassicActivation(ClassicBase):
    """Revealing the registers and executing the cards."""

    def acting(self, player: ClassicPlayer) -> bool:
        return player.active and not player.shutdown

    @stage
    def stage_reveal(self) -> None:
        """3.5 A: reveal register r, with Gyroscopic Stabilizer (register 1), Conditional
        Program (before), Abort Switch (after) and the Crab Legs / Dual Processor choice."""
        s = self.s
        r = s.register
        robots = self.in_dock_order()
        self.emit(REGISTER_STARTED)
        for p in robots:
            seat = p.seat
            p.shield_used.clear()
            if (
                r == 1
                and p.active
                and p.has("gyroscopic_stabilizer")
                and self.yes(
                    seat,
                    "stabilizer",
                    Prompt("Gyroscopic Stabilizer: switch it on for this round?", "stabilizer"),
                )
            ):
                p.round_flags.add("stabilizer")
        for p in robots:
            seat = p.seat
            register = p.registers[r - 1]
            stored = p.stored.get("conditional_program")
            if (
                stored is None
                or not self.acting(p)
                or register.locked
                or not register.cards
                or not self.yes(
                    seat,
                    "conditional_program",
                    Prompt(
                        f"Conditional Program: put {stored.name} into register {r} instead?",
                        "conditional_program",
                        card=stored.name,
                        register=r,
                    ),
                )
            ):
                continue
            del p.stored["conditional_program"]
            self.emit(
                CARD_REPLACED,
                seat=seat,
                card=" ".join(c.name for c in register.cards),
                cause=f"conditional program: {stored.name}",
            )
            self.discard_program(register.cards)
            register.cards = [stored]
            register.done = []
        for p in robots:
            seat = p.seat
            register = p.registers[r - 1]
            if not self.acting(p) or not register.cards:
                continue
            register.revealed = True
            for card in register.cards:
                self.emit(CARD_REVEALED, seat=seat, card=card.name, amount=r)
            if "aborting" in p.round_flags and not register.locked:
                self.replace_from_deck(p, register, "abort switch")
        for p in robots:
            seat = p.seat
            register = p.registers[r - 1]
            if (
                not p.has("abort_switch")
                or "abort_used" in p.round_flags
                or not self.acting(p)
                or register.locked
                or not register.cards
                or not self.yes(
                    seat,
                    "abort_switch",
                    Prompt(
                        "Abort Switch: replace your revealed cards from the deck?", "abort_switch"
                    ),
                )
            ):
                continue
            p.round_flags.update(("abort_used", "aborting"))
            self.replace_from_deck(p, register, "abort switch")
        for p in robots:
            seat = p.seat
            register = p.registers[r - 1]
            if len(register.cards) != 2 or register.done:
                continue
            pairs = [o for o in ("crab_legs", "dual_processor") if p.has(o)]
            modes = self.pair_modes([c.name for c in register.cards], pairs) or ["dual_processor"]
            mode = modes[0]
            if len(modes) > 1 and self.acting(p):
                mode = self.choose(
                    seat,
                    CHOICE,
                    "pair",
                    Prompt(
                        "Use this pair with Crab Legs (side step) or Dual Processor"
                        " (move, then turn)?",
                        "pair",
                    ),
                    tuple(modes),
                )
            register.done = [mode]
        s.stage = "move"

    def replace_from_deck(self, p: ClassicPlayer, register: Any, cause: str) -> None:
        card = self.draw_program()
        if card is None:
            return
        old = " ".join(c.name for c in register.cards)
        self.discard_program(register.cards)
        register.cards = [card]
        register.done = []
        register.revealed = True
        self.emit(CARD_REPLACED, seat=p.seat, card=old, cause=f"{cause}: {card.name}")

    @stage
    def stage_move(self) -> None:
        """3.5 B / 4.2: robots execute their cards one at a time, highest priority first."""
        s = self.s
        r = s.register
        actors: list[tuple[int, int, int, int, int]] = []  # -prio, dock, sub, seat, owner
        for p in s.cplayers:
            if not p.active:
                continue
            owner = self.p(p.controlled_by) if p.controlled_by is not None else p
            if owner is p and p.shutdown:
                continue
            priority = self.register_priority(owner, r)
            if priority is None:
                continue
            actors.append((-priority, owner.dock, 0 if owner is p else 1, p.seat, owner.seat))
        actors.sort()
        for _, _, _, seat, owner_seat in actors:
            player = self.p(seat)
            if player.pos is None:
                continue  # destroyed earlier in this step
            if owner_seat != seat and player.controlled_by != owner_seat:
                continue  # the controller was destroyed: control ended (8.3 #19)
            register = self.p(owner_seat).registers[r - 1]
            self.execute(player, register.cards, register.done, owner_seat != seat)
            if self.y94 and self.check_touch_win(by_dock=False):
                return
        s.stage = "elements"

    def execute(
        self, player: ClassicPlayer, cards: list[Card], done: list[str], remote: bool
    ) -> None:
        """Carry out one register (4.1, 4.3): a card, or a Crab Legs / Dual Processor pair."""
        if len(cards) == 2:
            self.execute_pair(player, cards, done, remote)
            return
        seat = player.seat
        card = cards[0]
        cause = "radio control" if remote else None
        self.emit(CARD_RESOLVED, seat=seat, card=card.name, cause=cause)
        kind = card_type(card)
        if kind in ROTATIONS:
            self.rotate(seat, ROTATIONS[kind], "card")
            return
        steps = self.gear(player, kind, remote)
        if steps >= 0:
            self.move(seat, player.facing, steps, "card")
        else:
            self.move(seat, player.facing.opposite, -steps, "card")

    def execute_pair(
        self, player: ClassicPlayer, cards: list[Card], done: list[str], remote: bool
    ) -> None:
        """A move and a turn in one register: a Crab Legs sidestep, or a Dual Processor move
        then turn (8.3 #6, #8; ``done`` holds the mode chosen at reveal)."""
        seat = player.seat
        mode = done[0] if done else "dual_processor"
        causes = [w for w in ("radio control" if remote else "", mode.replace("_", " ")) if w]
        names = " ".join(c.name for c in cards)
        self.emit(CARD_RESOLVED, seat=seat, card=names, cause=" ".join(causes))
        move = next(c for c in cards if is_move(c))
        turn = next(c for c in cards if is_rotation(c))
        if mode == "crab_legs":
            side = player.facing.turned(ROTATIONS[card_type(turn)])
            self.move(seat, side, 1, "crab legs")
            return
        steps = self.gear(player, card_type(move), remote, pair=True)
        reduce = 2 if card_type(turn) == "u_turn" else 1
        length = max(0, abs(steps) - reduce)
        direction = player.facing if steps > 0 else player.facing.opposite
        self.move(seat, direction, length, "dual processor")
        if player.pos is not None:
            self.rotate(seat, ROTATIONS[card_type(turn)], "card")

    def gear(self, player: ClassicPlayer, kind: str, remote: bool, pair: bool = False) -> int:
        """The squares a move card of type ``kind`` moves (negative: backward), after Brakes,
        Fourth Gear and Reverse Gear (asked when the card is executed; never for a robot under
        Radio Control). In a Dual Processor pair (``pair``) the gears change the card's value
        before the pair takes its square(s) off; Brakes is not asked there, since a Move 1 in a
        pair moves no square anyway."""
        steps = MOVES[kind]
        seat = player.seat
        if remote:
            return steps
        if kind == "move1" and player.has("brakes") and not pair:
            if self.yes(
                seat,
                "brakes",
                Prompt("Brakes: stay where you are instead of Move 1?", "brakes_classic"),
            ):
                return 0
        elif kind == "move3" and player.has("fourth_gear"):
            if self.yes(
                seat,
                "fourth_gear",
                Prompt("Fourth Gear: move 4 squares instead of 3?", "fourth_gear"),
            ):
                return 4
        elif kind == "back_up" and player.has("reverse_gear"):  # noqa: SIM102
            if self.yes(
                seat,
                "reverse_gear",
                Prompt("Reverse Gear: back up 2 instead of 1?", "reverse_gear"),
            ):
                return -2
        return steps

    # ------------------------------------------------------------ movement
    # Moves, steps and pushes are :class:`Mechanics`' (the 2023 upgrade hooks stay idle: a
    # classic state has no upgrade cards); the classic extras are the hooks below.
    def rotate(self, seat: int, turn: Turn, cause: str) -> None:
        """Gyroscopic Stabilizer keeps gears and turning belts from turning the robot."""
        if cause in ("gear", "belt") and "stabilizer" in self.p(seat).round_flags:
            return
        super().rotate(seat, turn, cause)

    def pushed_line(
        self,
        groups: list[list[int]],
        movable: bool,
        direction: Direction,
        pusher: int | None,
        cause: str,
    ) -> None:
        """A push moves the robots in line from its start one square (4.4, A-18, A-19): the
        whole chain or nothing; robots sharing a square ([V1994] start) move together (see
        :meth:`occupants`). Ramming Gear hurts the robot(s) touched, pushed or not
        (8.3 #20), once per card: a move that pushes a robot several squares, or pushes it
        and then bumps it against a wall, rams it once (see :meth:`move`)."""
        if (
            pusher is not None
            and cause in RAM_CAUSES
            and groups
            and self.p(pusher).has("ramming_gear")
        ):
            rammed = [s for s in groups[0] if self.p(s).pos is not None and s not in self._rammed]
            self._rammed.update(rammed)
            self.apply_damage(
                [Hit(seat, 1, "ramming gear", direction.opposite, pusher) for seat in rammed]
            )

    def move(self, seat: int, direction: Direction, steps: int, cause: str) -> int:
        """A card's movement (each card moves once, also a Dual Processor pair or a Crab
        Legs sidestep): Ramming Gear starts counting the robots it rams afresh."""
        self._rammed.clear()
        return super().move(seat, direction, steps, cause)

    def on_fall(self, seat: int, where: Pos, board: int, cause: str) -> None:
        """6.5: a robot that leaves the board or enters a pit is destroyed."""
        self.destroy(seat, cause, where)

    def arrived(self, seat: int | None, to: Pos | None) -> None:
        """[V1994] 5.10 / A-60: a checkpoint counts as soon as the robot enters its square
        (the 1994 rules watch ``base.PASSING``, see ``arrival_kinds``)."""
        if seat is None or to is None:
            return
        cell = self.grid.cell(to)
        player = self.p(seat)
        if cell is None or cell.checkpoint != player.checkpoint + 1 or player.finished:
            return
        player.checkpoint += 1
        player.archive, player.archive_arrow = to, player.facing
        self.emit(CHECKPOINT_REACHED, seat=seat, pos=to, amount=player.checkpoint)
        self.emit(ARCHIVED, seat=seat, pos=to, facing=player.facing)
        if player.checkpoint == len(self.grid.checkpoints):
            self.s.touched_last.append(seat)

    def check_touch_win(self, by_dock: bool) -> bool:
        """[V1994] 10 / A-59: the first robot to touch its last checkpoint wins at once."""
        touched = self.s.touched_last
        if not touched:
            return False
        winner = min(touched, key=lambda seat: self.p(seat).dock) if by_dock else touched[0]
        self.s.places.append(winner)
        self.finish(winner, "checkpoints")
        return True
