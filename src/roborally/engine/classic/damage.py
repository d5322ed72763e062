"""Classic damage, destruction and re-entry (6.4-6.7): damage about to land is shielded
(Power-Down Shield, Ablative Coat, option cards given up), lands at once and locks registers;
a destroyed robot loses a life and an option card; destroyed robots re-enter at cleanup on
their archive square or next to it.
"""

from __future__ import annotations

from roborally.engine.classic.base import CHOICE, PLACE, RC_ENDED, ClassicBase, Hit, stage
from roborally.engine.classic.model import ABLATIVE_CAPACITY, DESTROYED_AT, ClassicPlayer
from roborally.engine.core.decisions import Decision, Prompt
from roborally.engine.core.events import (
    CARD_REPLACED,
    DAMAGE_PREVENTED,
    DAMAGED,
    DESTROYED,
    REENTERED,
    ROUND_ENDED,
)
from roborally.engine.core.geometry import DIRECTIONS, Direction, Pos


class ClassicDamage(ClassicBase):
    """Damage, destruction and re-entry."""

    def deal_damage(self, seat: int, amount: int, cause: str) -> None:
        self.apply_damage([Hit(seat, amount, cause)])

    def apply_damage(self, hits: list[Hit]) -> None:
        """6.4 / A-43: damage about to be received: Power-Down Shield and Ablative Coat first,
        then the owner may sacrifice option cards one for one (dock order); then all damage
        lands at once, registers lock, and robots at 10 damage are destroyed."""
        by_seat: dict[int, list[Hit]] = {}
        for hit in hits:
            if hit.amount > 0:
                by_seat.setdefault(hit.seat, []).append(hit)
        totals: dict[int, tuple[int, str, int | None]] = {}
        for player in self.in_dock_order():
            seat = player.seat
            if seat not in by_seat or player.pos is None:
                continue
            total = 0
            shieldable = 0
            for hit in by_seat[seat]:
                amount = hit.amount
                if (
                    player.shutdown
                    and hit.side is not None
                    and hit.side not in player.shield_used
                    and player.has("power_down_shield")
                ):
                    player.shield_used.add(hit.side)
                    amount -= 1
                    self.emit(
                        DAMAGE_PREVENTED,
                        seat=seat,
                        amount=1,
                        cause=f"power-down shield ({hit.side.letter})",
                    )
                total += amount
                if hit.shieldable:
                    shieldable += amount
            if shieldable and player.has("ablative_coat"):
                used = player.option_tokens.get("ablative_coat", 0)
                take = min(shieldable, ABLATIVE_CAPACITY - used)
                total -= take
                shieldable -= take
                player.option_tokens["ablative_coat"] = used + take
                self.emit(DAMAGE_PREVENTED, seat=seat, amount=take, cause="ablative coat")
                if used + take >= ABLATIVE_CAPACITY:
                    self.lose_option(player, "ablative_coat", "ablative coat full")
            while shieldable > 0 and player.options:
                choice = self.choose(
                    seat,
                    CHOICE,
                    "shield",
                    Prompt(
                        f"Your robot takes {total} damage: discard an option card to prevent 1?",
                        "option_shield",
                        count=total,
                    ),
                    ("keep", *player.option_names()),
                    "take the damage",
                )
                if choice == "keep":
                    break
                self.lose_option(player, choice, "prevents 1 damage")
                self.emit(
                    DAMAGE_PREVENTED,
                    seat=seat,
                    amount=1,
                    card=choice,
                    cause="option card",
                )
                total -= 1
                shieldable -= 1
            causes = list(dict.fromkeys(h.cause for h in by_seat[seat]))
            shooters = {h.shooter for h in by_seat[seat]}
            shooter = shooters.pop() if len(shooters) == 1 else None
            totals[seat] = (total, ", ".join(causes), shooter)
        for seat, (total, cause, shooter) in totals.items():
            if total <= 0:
                continue
            player = self.p(seat)
            player.damage += total
            if player.shutdown:
                player.pd_damage += total
            self.emit(
                DAMAGED,
                seat=seat,
                pos=player.pos,
                amount=total,
                other=shooter,
                cause=cause,
            )
            if player.damage < DESTROYED_AT:
                self.update_locks(player)
        for player in self.in_dock_order():
            if player.pos is not None and player.damage >= DESTROYED_AT:
                self.destroy(player.seat, "damage", player.pos)

    def destroy(self, seat: int, cause: str, where: Pos | None) -> None:
        """6.5: the robot leaves the board, loses an option card (player's choice) and a life;
        without lives left it is eliminated, otherwise it re-enters at cleanup."""
        s = self.s
        player = self.p(seat)
        if player.destroyed or player.eliminated or player.finished:
            return
        player.pos = None
        player.destroyed = True
        s.destroy_count += 1
        player.destroyed_seq = s.destroy_count
        powered_down_loss = player.shutdown and cause != "damage"
        player.reentry_extra = min(player.pd_damage, DESTROYED_AT - 1) if powered_down_loss else 0
        player.damage = 0
        player.fire_locks.clear()
        for register in player.registers:
            register.locked = False
        self.discard_program(player.hand)
        player.hand = []
        player.lives -= 1
        self.emit(DESTROYED, seat=seat, pos=where, amount=player.lives, cause=cause)
        for other in s.cplayers:
            if other.controlled_by == seat:  # Radio Control ends with its controller (8.3 #19)
                other.controlled_by = None
                self.emit(CARD_REPLACED, seat=other.seat, other=seat, cause=RC_ENDED)
        if player.lives <= 0:
            player.eliminated = True
            player.reentry = None
            for name in player.option_names():
                self.lose_option(player, name, "eliminated")
            return
        player.reentry = player.archive
        if len(player.options) == 1:
            self.lose_option(player, player.options[0].name, "destroyed")
        elif player.options:
            name = self.choose(
                seat,
                CHOICE,
                "lose_option",
                Prompt("Your robot was destroyed: which option card does it lose?", "lose_option"),
                tuple(player.option_names()),
            )
            self.lose_option(player, name, "destroyed")

    # ------------------------------------------------------------ re-entry
    def reentry_options(
        self, player: ClassicPlayer, occupied: set[Pos] | None = None
    ) -> tuple[str, ...]:
        """6.7 / A-47: the archive square with a free facing, or, when it is occupied, a free
        square around it whose facing sees no robot within 3 squares ([V1994]: any facing).
        ``occupied``: the squares taken (default: the robots on the board now)."""
        archive = player.archive
        assert archive is not None
        if occupied is None:
            occupied = {p.pos for p in self.s.cplayers if p.pos is not None}
        if archive not in occupied:
            first = player.archive_arrow
            return (first.letter, *(d.letter for d in DIRECTIONS if d != first))
        grid = self.grid
        ring = 1
        while ring <= max(grid.width, grid.height):
            options: list[str] = []
            for y in range(archive.y - ring, archive.y + ring + 1):
                for x in range(archive.x - ring, archive.x + ring + 1):
                    square = Pos(x, y)
                    if max(abs(x - archive.x), abs(y - archive.y)) != ring:
                        continue
                    if not grid.is_on_course(square) or grid.pits[grid.index(square)]:
                        continue
                    if square in occupied:
                        continue
                    for d in DIRECTIONS:
                        if self.y94 or self.clear_sight(square, d, occupied):
                            options.append(f"{x},{y} {d.letter}")
            if options:
                return tuple(options)
            ring += 1
        raise AssertionError("no free square to re-enter on")

    def clear_sight(self, square: Pos, direction: Direction, occupied: set[Pos]) -> bool:
        cur = square
        for _ in range(3):
            if self.grid.wall_between(cur, direction):
                return True
            cur = cur.step(direction)
            if not self.grid.is_on_course(cur):
                return True
            if cur in occupied:
                return False
        return True

    @stage
    def stage_reenter(self) -> None:
        """3.6 P5.4 / 6.7: destroyed robots re-enter in the order they were destroyed, with
        2 damage (+ damage taken while powered down, A-46); they may power down next round.

        Every robot's square and power-down answer is asked first, each square with the ones
        chosen before it taken, and only then do the robots re-enter (``ASK_FIRST``): the same
        questions in the same order as re-entering one by one, without a snapshot."""
        s = self.s
        waiting = sorted(
            (p for p in s.cplayers if p.destroyed and not p.eliminated),
            key=lambda p: p.destroyed_seq,
        )
        occupied = {p.pos for p in s.cplayers if p.pos is not None}
        plans: list[tuple[ClassicPlayer, Pos, Direction, bool]] = []
        for player in waiting:
            # The power-down question is known with the square's: both are asked in turn.
            questions = [self.reentry_decision(player, occupied)]
            if self.classic_power_down:
                prompt = Prompt(
                    "Re-enter powered down (your robot powers down next round)?",
                    "reenter_powered_down",
                )
                questions.append(
                    self.power_decision(player.seat, "power_down", prompt, player.announced)
                )
            answers = self.ask_in_turn(questions)
            pos, facing = self.reentry_square(player, answers[0])
            occupied.add(pos)
            down = bool(answers[1]) if self.classic_power_down else player.announced
            plans.append((player, pos, facing, down))
        for player, pos, facing, down in plans:
            self.reenter(player, pos, facing)
            player.announced = down
        self.check_end()
        if s.over:
            return
        self.emit(ROUND_ENDED)
        s.stage = "round_start"

    def reentry_decision(self, player: ClassicPlayer, occupied: set[Pos]) -> Decision:
        """The question where the robot re-enters (6.7): the archive square's facing, or a
        square and facing next to it when ``occupied`` includes the archive."""
        options = self.reentry_options(player, occupied)
        if len(options[0]) == 1:
            prompt = Prompt("Your robot re-enters: choose its facing", "reenter_facing_classic")
        else:
            prompt = Prompt(
                "The archive square is taken: choose a square and facing next to it",
                "archive_taken",
            )
        question_id = self.question_id(player.seat, "reenter")
        return Decision(question_id, player.seat, PLACE, prompt, options, options[0], {})

    @staticmethod
    def reentry_square(player: ClassicPlayer, choice: str) -> tuple[Pos, Direction]:
        """The square and facing a re-entry answer names (a facing alone: the archive)."""
        pos = player.archive
        letter = choice
        if " " in choice:
            where, letter = choice.split()
            pos = Pos.parse(where)
        assert pos is not None
        return pos, Direction.parse(letter)

    def reenter(self, player: ClassicPlayer, pos: Pos, facing: Direction) -> None:
        """The robot is back on the board with its re-entry damage (6.7, A-46)."""
        seat = player.seat
        player.pos = pos
        player.facing = facing
        player.destroyed = False
        player.reentry = None
        if self.y94:
            base = 2 if self.has_variant("worse_backup_copy") else 0
        else:
            base = 0 if player.has("superior_archive") else 2
        player.damage = min(base + player.reentry_extra, DESTROYED_AT - 1)
        player.reentry_extra = 0
        player.pd_damage = 0
        self.emit(REENTERED, seat=seat, pos=pos, to_facing=facing)
        if player.damage:
            self.emit(DAMAGED, seat=seat, pos=pos, amount=player.damage, cause="re-entry")
        self.update_locks(player)
