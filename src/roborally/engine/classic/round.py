"""The classic round before the registers (3.1-3.4, 7): the start of a round, emergency
shutdowns, powering down, dealing, Recompile, the 1994 first card, programming (with the timer),
the cards kept on Conditional Program and Flywheel, and power-down announcements.
"""

from __future__ import annotations

from typing import Any

from roborally.engine.classic.base import CHOICE, ClassicBase, Hit, stage
from roborally.engine.classic.model import (
    HAND_SIZE,
    NUM_REGISTERS,
    TIMER_SECONDS,
    ClassicPlayer,
    is_move,
    is_rotation,
)
from roborally.engine.core.cards import Card
from roborally.engine.core.decisions import PROGRAM, TIMEOUT, Decision, Prompt
from roborally.engine.core.events import (
    CARD_REPLACED,
    CARDS_DRAWN,
    DECK_SHUFFLED,
    PROGRAMMED,
    ROUND_STARTED,
    SHUT_DOWN,
)


class ClassicRound(ClassicBase):
    """The round's stages up to the first register."""

    @stage
    def stage_round_start(self) -> None:
        s = self.s
        limit = s.config.max_rounds
        if limit and s.round >= limit:
            self.finish(None, "round_limit")
            return
        s.round += 1
        s.register = 0
        for player in s.cplayers:
            player.round_flags.clear()
            player.controlled_by = None
            player.shield_used.clear()
            player.pd_damage = 0
            player.programmed = False
            player.dealt = 0
        self.emit(ROUND_STARTED, seat=s.priority)
        s.stage = "emergency" if self.emergency else "power_down"

    @stage
    def stage_emergency(self) -> None:
        """7.7: before dealing, each robot may shut down for this round (dock order)."""
        for player in self.in_dock_order():
            seat = player.seat
            if not player.active:
                continue
            if player.announced:  # Circuit Breaker (8.3 #4): no choice
                player.announced = False
                self.power_down(player, "circuit breaker")
                continue
            if player.shutdown:
                prompt = Prompt(
                    "Leave your robot shut down this round (its new damage is removed)?",
                    "stay_shut_down",
                )
            else:
                prompt = Prompt(
                    "Shut your robot down for this round (all damage is removed)?",
                    "shut_down_classic",
                )
            if self.power_question(seat, "shutdown", prompt):
                self.power_down(player, "shut down")
            else:
                player.shutdown = False
        self.s.stage = "power_down"

    def power_down(self, player: ClassicPlayer, cause: str) -> None:
        """7.3 / 7.7: damage removed, registers unlocked and their cards discarded."""
        player.shutdown = True
        removed = player.damage
        player.damage = 0
        player.fire_locks.clear()
        self.clear_registers(player)
        self.emit(SHUT_DOWN, seat=player.seat, pos=player.pos, amount=removed, cause=cause)

    @stage
    def stage_power_down(self) -> None:
        """3.1 P0: announced robots power down (damage removed); the deck is rebuilt."""
        s = self.s
        if not self.emergency:
            for player in self.in_dock_order():
                down = player.announced and player.active
                player.announced = False
                if down:
                    self.power_down(player, "powered down")
                else:
                    player.shutdown = False
        # every card not in a locked register (or on an option) forms the new deck.
        s.program_deck = s.program_discard + s.program_deck
        s.program_discard = []
        if not s.stacked:
            s.rng.shuffle(s.program_deck)
            self.emit(DECK_SHUFFLED, amount=len(s.program_deck), cause="program deck")
        s.stage = "deal"

    def programmers(self) -> list[ClassicPlayer]:
        return [p for p in self.in_dock_order() if p.active and not p.shutdown]

    @stage
    def stage_deal(self) -> None:
        """3.2 P1: 9 minus damage cards (+1 Extra Memory) to every robot that is not powered down.
        [V1994] a hand of only rotations is shown and replaced (004: 28, A-57)."""
        s = self.s
        for player in self.programmers():
            count = max(0, HAND_SIZE - player.damage)
            if player.has("extra_memory"):
                count += 1
            hand: list[Card] = []
            for _ in range(count):
                card = self.draw_program()
                if card is None:
                    break
                hand.append(card)
            if self.y94:
                unseen = len(s.program_deck)
                while hand and all(is_rotation(c) for c in hand) and unseen > 0:
                    self.emit(
                        CARD_REPLACED,
                        seat=player.seat,
                        amount=len(hand),
                        cause="only rotations",
                    )
                    s.program_deck[0:0] = hand  # face down to the bottom of the deck
                    size = len(hand)
                    hand = [c for c in (self.draw_program() for _ in range(size)) if c]
                    unseen -= min(size, unseen)
            stored = player.stored.pop("flywheel", None)
            if stored is not None:
                hand.append(stored)
            player.hand = hand
            player.dealt = len(hand)
            self.emit(CARDS_DRAWN, seat=player.seat, amount=len(hand))
        s.stage = "recompile"

    @stage
    def stage_recompile(self) -> None:
        """Recompile (8.3 #22): once per round a new hand, for 1 damage."""
        for player in self.programmers():
            if not player.has("recompile") or not player.hand:
                continue
            if self.yes(
                player.seat,
                "recompile",
                Prompt(
                    "Recompile: discard your hand, draw as many new cards and take 1 damage?",
                    "recompile",
                ),
            ):
                size = len(player.hand)
                self.discard_program(player.hand)
                player.hand = [c for c in (self.draw_program() for _ in range(size)) if c]
                player.round_flags.add("recompiled")
                self.emit(CARDS_DRAWN, seat=player.seat, amount=size, cause="recompile")
                self.apply_damage([Hit(player.seat, 1, "recompile")])
        self.s.stage = "first_card" if self.y94 else "program"

    @stage
    def stage_first_card(self) -> None:
        """[V1994] 3.3 item 6: register 1 must hold a move (004: 33, A-56), asked first so
        that any program of the remaining registers is legal."""
        decisions = []
        for player in self.programmers():
            register = player.registers[0]
            moves = sorted(
                {c.name for c in player.hand if is_move(c)},
                key=lambda n: -int(n.split("@")[1]),
            )
            if register.locked or register.cards or not moves:
                continue
            decisions.append(
                Decision(
                    f"t{self.s.round}-p{player.seat + 1}-first_card",
                    player.seat,
                    CHOICE,
                    Prompt(
                        "Choose the move card for register 1 (it must be a move or Back Up)",
                        "first_card",
                    ),
                    tuple(moves),
                    moves[0],
                    {"hand": [c.name for c in player.hand]},
                )
            )
        answers = self.ask(decisions)
        for decision in decisions:
            choice = answers[decision.id]
            if choice == TIMEOUT:
                choice = self.default_choice(decision)
            choice = self.validate(decision, choice)
            player = self.p(decision.seat)
            card = next(c for c in player.hand if c.name == choice)
            player.hand.remove(card)
            player.registers[0].cards = [card]
            player.round_flags.add("first_card")
        self.s.stage = "program"

    def classic_program_decision(self, player: ClassicPlayer, timer: bool) -> Decision:
        locked = player.locked_registers()
        if "first_card" in player.round_flags:
            locked = sorted({1, *locked})
        info: dict[str, Any] = {
            "hand": [c.name for c in player.hand],
            "locked": locked,
            "registers": NUM_REGISTERS,
        }
        pairs = [o for o in ("crab_legs", "dual_processor") if player.has(o)]
        if pairs:
            info["pairs"] = pairs
        if timer:
            info["timer"] = self.s.config.timer_seconds or TIMER_SECONDS
        return Decision(
            f"t{self.s.round}-p{player.seat + 1}-program",
            player.seat,
            PROGRAM,
            Prompt("Program your registers (one card per unlocked register)", "program_classic"),
            (),
            "fill the empty registers at random from the hand",
            info,
        )

    @stage
    def stage_program(self) -> None:
        """3.3 P2: all robots program at once; the last one gets the 30 s timer (A-11, A-12)."""
        players = self.programmers()
        ids = [f"t{self.s.round}-p{p.seat + 1}-program" for p in players]
        waiting = [i for i in ids if i not in self.s.answers]
        decisions = [
            self.classic_program_decision(p, self.timer and len(waiting) == 1 and i in waiting)
            for p, i in zip(players, ids, strict=True)
        ]
        answers = self.ask(decisions)
        for player, decision in zip(players, decisions, strict=True):
            choice = answers[decision.id]
            if choice == TIMEOUT:
                choice = self.default_choice(decision)
            self.install_classic_program(player, self.validate_program(decision, choice))
        self.s.stage = "store"

    def install_classic_program(
        self, player: ClassicPlayer, program: tuple[str | None, ...]
    ) -> None:
        hand = {card.name: card for card in player.hand}  # every program card's name is unique
        for index, entry in enumerate(program):
            if entry is None:
                continue
            register = player.registers[index]
            register.cards = [hand.pop(name) for name in entry.split("+")]
            register.revealed = False
            register.done = []
        player.hand = list(hand.values())  # the cards left, in their order
        player.programmed = True
        self.emit(PROGRAMMED, seat=player.seat)

    @stage
    def stage_store(self) -> None:
        """3.3 item 3: unused cards are discarded ([V1994] to the bottom of the deck), after
        Conditional Program and Flywheel may keep one each (8.3 #5, #11)."""
        s = self.s
        for player in self.programmers():
            for option in ("conditional_program", "flywheel"):
                if not player.hand or not player.has(option) or option in player.stored:
                    continue
                names = tuple(sorted({c.name for c in player.hand}))
                title = option.replace("_", " ").title()
                choice = self.choose(
                    player.seat,
                    CHOICE,
                    option,
                    Prompt(
                        f"{title}: keep one of your unused cards on it?", "keep_card", card=option
                    ),
                    ("none", *names),
                )
                if choice != "none":
                    card = next(c for c in player.hand if c.name == choice)
                    player.hand.remove(card)
                    player.stored[option] = card
            if self.y94:
                s.program_deck[0:0] = player.hand
            else:
                self.discard_program(player.hand)
            player.hand = []
        s.stage = "announce"

    @stage
    def stage_announce(self) -> None:
        """3.4 P3 / 7.1-7.2: in dock order, damaged robots may announce a power down."""
        if self.classic_power_down:
            anyone = self.has_variant("power_down_without_damage")
            asked = [
                p.seat
                for p in self.in_dock_order()
                if p.active and not p.shutdown and not p.announced and (p.damage >= 1 or anyone)
            ]
            # Every answer first, then the announcements (ASK_FIRST: no snapshot needed).
            questions = [
                self.power_decision(
                    seat, "power_down", Prompt("Power down next round?", "power_down")
                )
                for seat in asked
            ]
            answers = self.ask_in_turn(questions)
            down = [seat for seat, yes in zip(asked, answers, strict=True) if yes]
            for seat in down:
                player = self.p(seat)
                player.announced = True
                self.emit(SHUT_DOWN, seat=seat, pos=player.pos, cause="announced")
        self.s.register = 1
        self.s.stage = "reveal"
