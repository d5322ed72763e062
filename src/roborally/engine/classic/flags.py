"""The classic step E and cleanup (3.5 E, 3.6, 5.10-5.12, 10): robots touch flags and repair
sites (Mechanical Arm), the archive marker moves, finishers rank and the game ends; at cleanup
repairs and option cards, Circuit Breaker, the registers wiped, and who stays powered down.
"""

from __future__ import annotations

from roborally.engine.classic.base import ClassicBase, stage
from roborally.engine.classic.model import NUM_REGISTERS, ClassicPlayer
from roborally.engine.core.decisions import Prompt
from roborally.engine.core.events import (
    ARCHIVED,
    CARDS_DRAWN,
    CHECKPOINT_REACHED,
    DAMAGE_PREVENTED,
    ELEMENT_STEP,
    GAME_WON,
    SHUT_DOWN,
)
from roborally.engine.core.geometry import DIRECTIONS, Pos, Turn


class ClassicFlags(ClassicBase):
    """Flags, the finish, repairs and the end of the round."""

    def reach(self, player: ClassicPlayer) -> list[Pos]:
        """Squares the robot touches: its own, and with Mechanical Arm the 8 around it that no
        wall separates (8.3 #15, A-51)."""
        pos = player.pos
        assert pos is not None
        squares = [pos]
        if not player.has("mechanical_arm"):
            return squares
        grid = self.grid
        for d in DIRECTIONS:
            if not grid.wall_between(pos, d) and grid.is_on_course(pos.step(d)):
                squares.append(pos.step(d))
        for d in DIRECTIONS:
            e = d.turned(Turn.RIGHT)
            corner = pos.step(d).step(e)
            if not grid.is_on_course(corner):
                continue
            via_d = grid.is_on_course(pos.step(d)) and not grid.wall_between(pos, d)
            via_d = via_d and not grid.wall_between(pos.step(d), e)
            via_e = grid.is_on_course(pos.step(e)) and not grid.wall_between(pos, e)
            via_e = via_e and not grid.wall_between(pos.step(e), d)
            if via_d or via_e:
                squares.append(corner)
        return squares

    @stage
    def stage_touch(self) -> None:
        """3.5 E / 5.10-5.11: robots on flags and repair sites touch them; next flags are
        reached in order and the archive marker moves; then check for a winner (10)."""
        s = self.s
        grid = self.grid
        total = len(grid.checkpoints)
        self.emit(ELEMENT_STEP, cause="flags")
        finishers: list[int] = []
        for player in self.in_dock_order():
            seat = player.seat
            if player.pos is None:
                continue
            touched: Pos | None = None
            reach = self.reach(player)
            for square in reach:
                cell = grid.cell(square)
                if cell is not None and cell.checkpoint == player.checkpoint + 1:
                    player.checkpoint += 1
                    touched = square
                    self.emit(
                        CHECKPOINT_REACHED,
                        seat=seat,
                        pos=square,
                        amount=player.checkpoint,
                        cause=None if square == player.pos else "mechanical arm",
                    )
                    break
            if touched is None and not self.y94:
                # [V1994] the backup token moves only to a checkpoint credited (004: 56-58)
                for square in reach:
                    cell = grid.cell(square)
                    if cell is not None and (cell.checkpoint is not None or cell.repair):
                        touched = square
                        break
            if touched is not None and (
                player.archive != touched or player.archive_arrow != player.facing
            ):
                player.archive, player.archive_arrow = touched, player.facing
                self.emit(
                    ARCHIVED,
                    seat=seat,
                    pos=touched,
                    facing=player.facing,
                    cause=None if touched == player.pos else "mechanical arm",
                )
            if total and player.checkpoint >= total:
                finishers.append(seat)
        if finishers:
            self.finished(finishers)
            if s.over:
                return
        if s.register < NUM_REGISTERS:
            s.register += 1
            s.stage = "reveal"
        else:
            s.stage = "cleanup"

    def finished(self, seats: list[int]) -> None:
        """10 / A-52-A-54: simultaneous finishers rank by the priority they executed, then by
        dock; without play_for_places the first of them wins and the game ends here."""
        s = self.s
        r = s.register

        def key(seat: int) -> tuple[int, int]:
            priority = self.executed_priority(self.p(seat), r)
            return (-(priority if priority is not None else -1), self.p(seat).dock)

        ranked = sorted(seats, key=key)
        if "shared_ties" in s.config.variants:
            ranked = sorted(seats, key=lambda seat: self.p(seat).dock)
        if "play_for_places" not in s.config.variants:
            s.places.extend(ranked)
            if "shared_ties" in s.config.variants:
                for seat in ranked[1:]:
                    self.emit(GAME_WON, seat=seat, cause="shared")
            self.finish(ranked[0], "checkpoints")
            return
        for seat in ranked:
            player = self.p(seat)
            s.places.append(seat)
            self.emit(GAME_WON, seat=seat, amount=len(s.places), cause="place")
            player.finished = True
            player.pos = None
            player.damage = 0
            player.fire_locks.clear()
            for register in player.registers:
                register.locked = False
        self.check_end()

    def check_end(self) -> None:
        """10 / A-55: the game ends when nobody is racing any more (or a sole survivor wins)."""
        s = self.s
        if s.over:
            return
        racing = [p for p in s.cplayers if p.in_game]
        if not racing:
            if s.places:
                self.finish(s.places[0], "checkpoints")
            else:
                self.finish(None, "eliminated")  # every robot lost its last life
            return
        if (
            "last_robot_standing_wins" in s.config.variants
            and len(racing) == 1
            and not s.places
            and len(s.players) > 1
        ):
            s.places.append(racing[0].seat)
            self.finish(racing[0].seat, "last_robot_standing")

    # ============================================================== cleanup
    @stage
    def stage_cleanup(self) -> None:
        """3.6 P5.1-2: repairs and option cards (5.11-5.12), Circuit Breaker, then the
        registers are wiped except locked ones."""
        s = self.s
        grid = self.grid
        s.register = 0
        self.emit(ELEMENT_STEP, cause="repairs")
        for player in self.in_dock_order():
            seat = player.seat
            if player.pos is None:
                continue
            best = 0  # 2 = crossed wrench and hammer, 1 = wrench, flag counts as 1
            what = ""
            for square in self.reach(player):
                cell = grid.active(square)
                if cell is None:
                    continue
                value = cell.repair
                if not value and cell.checkpoint is not None and self.flags_repair:
                    value = 1
                if value > best:
                    best = value
                    what = "flag" if not cell.repair else f"repair site {cell.repair}"
            if not best:
                continue
            amount = best if self.y94 else 1
            removed = min(amount, player.damage)
            player.damage -= removed
            player.fire_locks.clear()
            self.emit(
                DAMAGE_PREVENTED,
                seat=seat,
                pos=player.pos,
                amount=removed,
                cause=f"repaired by {what}",
            )
            self.update_locks(player)
            draws = self.options_on and best == 2
            if draws and player.shutdown and self.has_variant("no_options_when_powered_down"):
                draws = False
            if draws:
                card = self.draw_option()
                if card is not None:
                    player.options.append(card)
                    self.emit(
                        CARDS_DRAWN,
                        seat=seat,
                        card=card.name,
                        amount=1,
                        cause="option card",
                    )
        for player in self.in_dock_order():
            seat = player.seat
            if player.pos is not None and player.has("circuit_breaker") and player.damage >= 3:
                player.announced = True
                player.round_flags.add("breaker")
                self.emit(SHUT_DOWN, seat=seat, pos=player.pos, cause="circuit breaker")
        for player in s.cplayers:
            for register in player.registers:
                if register.locked and player.pos is not None:
                    register.revealed = True
                    register.done = list(register.done)
                    continue
                self.discard_program(register.cards)
                register.cards = []
                register.locked = False
                register.revealed = False
                register.done = []
            stored = player.stored.pop("conditional_program", None)
            if stored is not None:
                self.discard_program([stored])
            player.controlled_by = None
        s.stage = "stay_down"

    @stage
    def stage_stay_down(self) -> None:
        """3.6 P5.3 / 7.5: powered-down robots announce in dock order whether they stay down."""
        if self.classic_power_down:
            asked = [
                p.seat
                for p in self.in_dock_order()
                if p.pos is not None and p.shutdown and "breaker" not in p.round_flags
            ]
            # Every answer first, then the announcements (ASK_FIRST: no snapshot needed).
            questions = [
                self.power_decision(
                    seat, "stay_down", Prompt("Stay powered down next round?", "stay_down")
                )
                for seat in asked
            ]
            answers = self.ask_in_turn(questions)
            stay = [seat for seat, yes in zip(asked, answers, strict=True) if yes]
            for seat in stay:
                player = self.p(seat)
                player.announced = True
                self.emit(SHUT_DOWN, seat=seat, pos=player.pos, cause="stays powered down")
        self.s.stage = "reenter"
