"""2023 damage and reboots: damage cards drawn and received (5.4-5.6), weapon damage that
Deflector Shield stops, a robot leaving the board (8.2, Firewall), and its re-entry on the
reboot space, moving robots off it (8.5, 8.6, 12-C1).
"""

from __future__ import annotations

from roborally.engine.core.cards import HAYWIRE, SPAM, Card
from roborally.engine.core.decisions import REBOOT_FACING, TIMEOUT, Decision, Prompt
from roborally.engine.core.events import (
    DAMAGE_PREVENTED,
    DAMAGED,
    DECK_SHUFFLED,
    DISPLACED,
    REBOOTED,
    REENTERED,
)
from roborally.engine.core.geometry import FACING_LETTERS, Direction, Pos, Turn
from roborally.engine.core.state import Player
from roborally.engine.rules2023.base import Base2023


class Damage2023(Base2023):
    """Damage, rebooting and re-entering."""

    # =============================================================== damage
    def deal_damage(self, seat: int, amount: int, cause: str) -> None:
        """5.4: draw damage one card at a time; SPAM to the discard, Haywire face down (5.5-5.6)."""
        player = self.s.players[seat]
        key = self.s.round * 10 + self.s.register
        for _ in range(amount):
            if self.s.no_damage_register == key:
                return
            card = self.draw_damage()
            if card is None:
                self.s.no_damage_register = key  # 12-B14: nobody takes damage this register
                self.emit(DAMAGE_PREVENTED, seat=seat, cause="damage deck empty")
                return
            self.receive_damage(player, card, cause)

    def draw_damage(self) -> Card | None:
        if not self.s.damage_deck:
            if not self.s.damage_discard:
                return None
            self.s.damage_deck = self.s.damage_discard
            self.s.damage_discard = []
            self.s.rng.shuffle(self.s.damage_deck)
            self.emit(DECK_SHUFFLED, amount=len(self.s.damage_deck), cause="damage")
        return self.s.damage_deck.pop()

    def receive_damage(self, player: Player, card: Card, cause: str) -> None:
        self._received += 1
        kind = self.card_type(card)
        placed = "discard"
        facedown = False
        if kind is SPAM:
            player.discard.append(card)
        else:
            register = player.registers[max(self.s.register, 1) - 1]
            if register.facedown_haywire is None:
                register.facedown_haywire = card
                placed = f"register {max(self.s.register, 1)}"
                facedown = True  # hidden from the others, its owner may look (000: 592, 598)
            else:
                self.s.damage_discard.append(card)
                placed = "damage discard"
        self.emit(
            DAMAGED,
            seat=player.seat,
            pos=player.pos,
            card=card.name,
            amount=1,
            cause=f"{cause}; to {placed}",
            secret=facedown,
        )

    def weapon_damage(self, seat: int, amount: int, cause: str) -> None:
        """Damage from lasers and weapons, which Deflector Shield can stop (000: 783-787)."""
        player = self.s.players[seat]
        if self.s.upgrades and self.has(player, "deflector_shield"):
            if player.shield == self.register_key():
                self.emit(DAMAGE_PREVENTED, seat=seat, cause="deflector shield")
                return
            if player.energy >= 1:
                choice = self.ask_choice(
                    self.next_id(seat, "deflector_shield"),
                    seat,
                    Prompt(
                        f"Deflector Shield: pay 1 energy to stop {amount} {cause} damage"
                        " (and all weapon damage this register)?",
                        "deflector_shield",
                        count=amount,
                        cause=cause,
                    ),
                    ("take", "shield"),
                    "take the damage",
                    {"card": "deflector_shield", "amount": amount, "cause": cause},
                )
                if choice == "shield":
                    self.spend(player, 1)
                    player.shield = self.register_key()
                    self.upgrade_event(seat, "deflector_shield", "used", amount=1)
                    self.emit(DAMAGE_PREVENTED, seat=seat, cause="deflector shield")
                    return
        self.deal_damage(seat, amount, cause)

    # =============================================================== reboot
    def on_fall(self, seat: int, where: Pos, board: int, cause: str) -> None:
        """8.2: off the board for the round, programming cancelled, cards discarded, damage."""
        player = self.s.players[seat]
        player.pos = None
        grid = self.s.grid
        token = grid.reboot_of_board.get(board)
        dynamic = "dynamic_archiving" in self.s.config.variants
        if dynamic or grid.board_kinds[board] == "dock" or token is None:
            player.reentry = player.archive
            player.reentry_arrow = player.archive_arrow
        else:
            player.reentry = token.pos
            player.reentry_arrow = token.arrow
        for register in player.registers:
            cards = list(register.cards)
            if register.facedown_haywire is not None:
                cards.append(register.facedown_haywire)
            for card in cards:
                self.discard_on_reboot(player, card)
            register.cards = []
            register.facedown_haywire = None
            register.locked = False
        for card in player.hand:
            self.discard_on_reboot(player, card)
        player.hand = []
        player.rebooted_this_round = True
        self.emit(
            REBOOTED,
            seat=seat,
            pos=player.reentry,
            facing=player.reentry_arrow,
            cause=cause,
        )
        self.deal_damage(seat, self.reboot_damage(player, cause), "reboot")

    def discard_on_reboot(self, player: Player, card: Card) -> None:
        """8.2: Haywires to the damage discard; SPAM and regular cards to the own discard."""
        if self.card_type(card) is HAYWIRE:
            self.s.damage_discard.append(card)
        else:
            player.discard.append(card)

    def reboot_damage(self, player: Player, cause: str) -> int:
        """2 (the course may say otherwise); Firewall: none after a pit fall (000: 721-723)."""
        if cause == "pit" and self.s.upgrades and self.has(player, "firewall"):
            self.upgrade_event(player.seat, "firewall", "used")
            return 0
        return self.s.grid.course.reboot_damage

    # ============================================================= re-entry
    def maybe_reenter(self, seat: int) -> None:
        player = self.s.players[seat]
        if (
            self.s.register != 1
            or player.pos is not None
            or player.reentry is None
            or player.rebooted_this_round
        ):
            return
        decision = Decision(
            self.did(f"p{seat + 1}-reboot_facing"),
            seat,
            REBOOT_FACING,
            Prompt("Your robot re-enters the board: choose its facing", "reenter_facing"),
            FACING_LETTERS,
            "face along the reboot token's arrow",
        )
        choice = self.ask([decision])[decision.id]
        facing = player.reentry_arrow if choice == TIMEOUT else Direction.parse(choice)
        self.reenter(player, facing)

    def reenter(self, player: Player, facing: Direction) -> None:
        """8.5 / 8.6: place the robot on its reboot space; an occupant is moved along the arrow."""
        target = player.reentry
        assert target is not None
        arrow = player.reentry_arrow
        occupant = self.s.robot_at(target)
        if occupant is not None and not self.displace(target, arrow):
            target = self.nearest_free(target, arrow)
        player.pos = target
        player.facing = facing
        player.reentry = None
        self.emit(REENTERED, seat=player.seat, pos=target, to_facing=facing)
        if self.s.grid.pits[self.s.grid.index(target)]:
            player.pos = None
            self.fall(player.seat, target, target, "pit")

    def displace(self, start: Pos, arrow: Direction) -> bool:
        """Move the robots in line from ``start`` one space along ``arrow`` (not a push, 8.6)."""
        occupancy = self.s.occupancy()
        chain: list[int] = []
        cur = start
        while cur in occupancy:
            chain.append(occupancy[cur])
            if self.edge_blocks(cur, arrow):
                return False
            nxt = cur.step(arrow)
            if not self.s.grid.is_on_course(nxt):
                break
            cur = nxt
        for seat in reversed(chain):
            player = self.s.players[seat]
            pos = player.pos
            assert pos is not None
            nxt = pos.step(arrow)
            self.emit(DISPLACED, seat=seat, pos=pos, to=nxt, facing=arrow)
            if not self.s.grid.is_on_course(nxt):
                player.pos = None
                self.fall(seat, pos, nxt, "edge")
                continue
            player.pos = nxt
            if self.s.grid.pits[self.s.grid.index(nxt)]:
                player.pos = None
                self.fall(seat, pos, nxt, "pit")
        return True

    def nearest_free(self, start: Pos, arrow: Direction) -> Pos:
        """12-C1: the nearest free, non-pit space by breadth-first search (no walls crossed)."""
        grid = self.s.grid
        order = [arrow.turned(Turn(i)) for i in range(4)]
        seen = {start}
        frontier = [start]
        occupied = set(self.s.occupancy())
        while frontier:
            nxt_frontier: list[Pos] = []
            for pos in frontier:
                for d in order:
                    if grid.wall_between(pos, d):
                        continue
                    q = pos.step(d)
                    if q in seen or not grid.is_on_course(q):
                        continue
                    seen.add(q)
                    if q not in occupied and not grid.pits[grid.index(q)]:
                        return q
                    nxt_frontier.append(q)
            frontier = nxt_frontier
        raise AssertionError("no free space on the course")
