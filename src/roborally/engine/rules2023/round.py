"""The 2023 round outside the activation phase: the start of a round, drawing the hand,
programming, discarding, shutting down (4.2, 8.8) and the end of the round (4.4).
"""

from __future__ import annotations

from roborally.engine.core.cards import HAYWIRE, SPAM, Card
from roborally.engine.core.decisions import PROGRAM, SHUTDOWN, TIMEOUT, Decision, Prompt
from roborally.engine.core.events import (
    CARDS_DRAWN,
    DECK_SHUFFLED,
    PRIORITY_PASSED,
    PROGRAMMED,
    ROUND_ENDED,
    ROUND_STARTED,
    SHUT_DOWN,
)
from roborally.engine.core.state import HAND_SIZE, NUM_REGISTERS, Player
from roborally.engine.rules2023.base import Base2023

# Asked every round of every player: made once (the i18n key goes with the English text).
PROGRAM_PROMPT = Prompt("Program your registers", "program")
SHUTDOWN_PROMPT = Prompt(
    "Shut down this round? (clears all your damage; your robot does nothing)", "shutdown"
)


class Round2023(Base2023):
    """The round's stages before and after the registers."""

    def stage_round_start(self) -> None:
        limit = self.s.config.max_rounds
        if limit and self.s.round >= limit:
            self.finish(None, "round_limit")
            return
        self.s.round += 1
        self.s.register = 0
        for player in self.s.players:
            player.shutdown = False
            player.rebooted_this_round = False
            player.programmed = False
            player.drew = False
            player.installed_now = False
        self.reset_windows()
        self.emit(ROUND_STARTED, seat=self.s.priority)
        self.return_memory()  # Memory Cards: at the start of the upgrade phase (000: 727)
        self.s.stage = "upgrade"

    def stage_draw(self) -> None:
        """4.2 step 1: draw up to the hand size, reshuffling the discard when the deck runs out."""
        for seat in self.s.turn_order():
            player = self.s.players[seat]
            drawn = self.draw_into_hand(player, self.hand_size(player) - len(player.hand))
            self.emit(CARDS_DRAWN, seat=seat, amount=drawn)
        if self.s.upgrades:
            self.spam_filter()
        self.reset_windows()
        self.s.stage = "prog_window"

    def hand_size(self, player: Player) -> int:
        """9 cards; 10 with Flash Drive (000: 821)."""
        if self.s.upgrades and self.has(player, "flash_drive"):
            return HAND_SIZE + 1
        return HAND_SIZE

    def draw(self, player: Player) -> Card | None:
        """The top card of a player's deck; the discard is shuffled in when the deck is empty."""
        if not player.deck and not self.reshuffle(player):
            return None  # 12-B12: the draw fails silently
        player.top_visible = False  # Spam Filter shows the top card only until it is drawn
        return player.deck.pop()

    def draw_into_hand(self, player: Player, count: int) -> int:
        """Draw ``count`` cards into the hand, as :meth:`draw` one by one would, but taking
        them from the deck in slices; returns how many were drawn."""
        drawn = 0
        while drawn < count and (player.deck or self.reshuffle(player)):
            take = min(count - drawn, len(player.deck))
            player.hand.extend(reversed(player.deck[-take:]))  # the top (the end) first
            del player.deck[-take:]
            player.top_visible = False
            drawn += take
        return drawn

    def reshuffle(self, player: Player) -> bool:
        """The empty deck is made of the shuffled discard; False if that is empty too."""
        if not player.discard:
            return False
        player.deck = player.discard
        player.discard = []
        self.s.rng.shuffle(player.deck)
        self.emit(DECK_SHUFFLED, seat=player.seat, amount=len(player.deck))
        return True

    def program_id(self, player: Player) -> str:
        return f"t{self.s.round}-p{player.seat + 1}-program"

    def program_decision(self, player: Player) -> Decision:
        locked = [i + 1 for i, r in enumerate(player.registers) if r.locked]
        return Decision(
            self.program_id(player),
            player.seat,
            PROGRAM,
            PROGRAM_PROMPT,
            (),
            "fill the empty registers at random from the hand",
            {
                "hand": [c.name for c in player.hand],
                "locked": locked,
                "registers": NUM_REGISTERS,
                **self.program_info(player),
            },
        )

    def stage_program(self) -> None:
        """4.2 step 2-4: every player programs (simultaneously); then the hands are discarded."""
        players = self.s.players
        answers = self.s.answers
        ids = [self.program_id(p) for p in players]
        if not all(i in answers for i in ids):  # the decisions are built only to be asked
            self.ask([self.program_decision(p) for p in players])
        for seat in self.s.turn_order():
            choice = answers[ids[seat]].choice
            if choice == TIMEOUT:
                choice = self.default_choice(self.program_decision(players[seat]))
            self.install_program(players[seat], choice)
        self.reset_windows()
        self.s.stage = "memory"

    def install_program(self, player: Player, program: tuple[str | None, ...]) -> None:
        names = [c.name for c in player.hand]  # kept in step with the hand
        for index, entry in enumerate(program):
            if entry is None:
                continue
            cards: list[Card] = []
            for name in entry.split("+"):  # a Crab Legs pair holds two cards (000: 733)
                # By position: list.remove would compare the cards field by field.
                at = names.index(name)
                del names[at]
                cards.append(player.hand.pop(at))
            player.registers[index].cards = cards
        player.programmed = True
        self.emit(PROGRAMMED, seat=player.seat)
        if not (self.s.upgrades and self.has(player, "memory_cards")):
            self.discard_hand(player)  # Memory Cards first (stage_memory)

    def discard_hand(self, player: Player) -> None:
        """4.2 step 4: discard the rest of the hand; damage cards stay (000: 174)."""
        less_spam = "less_spam" in self.s.config.variants
        types = self._card_types  # card_type() without a call per card
        keep: list[Card] = []
        for card in player.hand:
            kind = types[card.name]
            if kind is HAYWIRE or (kind is SPAM and not less_spam):
                keep.append(card)
            else:
                player.discard.append(card)
        player.hand = keep

    def stage_shutdown(self) -> None:
        """4.2 step 5 / 8.8: after everyone programmed, any player may shut down."""
        answers = self.s.answers
        ids = [f"t{self.s.round}-p{p.seat + 1}-shutdown" for p in self.s.players]
        if not all(i in answers for i in ids):  # the decisions are built only to be asked
            self.ask([self.shutdown_decision(i, seat) for seat, i in enumerate(ids)])
        for seat in self.s.turn_order():
            if answers[ids[seat]].choice is True:
                self.shut_down(self.s.players[seat])
        self.s.register = 1
        self.s.stage = "reveal"

    @staticmethod
    def shutdown_decision(decision_id: str, seat: int) -> Decision:
        return Decision(
            decision_id,
            seat,
            SHUTDOWN,
            SHUTDOWN_PROMPT,
            (False, True),
            "no shutdown",
        )

    def shut_down(self, player: Player) -> None:
        """8.8: reveal the registers; damage to the damage discard, other cards to the discard."""
        player.shutdown = True
        to_discard: list[Card] = []
        damage: list[Card] = []
        sources = [*player.hand, *player.discard]
        for register in player.registers:
            sources.extend(register.cards)
            if register.facedown_haywire is not None:
                sources.append(register.facedown_haywire)
            register.cards = []
            register.facedown_haywire = None
            register.locked = False
            register.revealed = False
        for card in sources:
            (damage if self.card_type(card).is_damage else to_discard).append(card)
        player.hand = []
        player.discard = to_discard
        self.s.damage_discard.extend(damage)
        self.emit(SHUT_DOWN, seat=player.seat, pos=player.pos, amount=len(damage))

    def stage_end_round(self) -> None:
        """4.4: pass the priority token left; clear face-up register cards."""
        if self.s.upgrades:
            self.discard_glitches()  # 4.4 step 5: HW-INSTALL's upgrade leaves (003: 1357-1367)
        n = len(self.s.players)
        before = self.s.priority
        self.s.priority = (before + 1) % n
        self.emit(PRIORITY_PASSED, seat=self.s.priority, other=before)
        types = self._card_types  # card_type() without a call per card
        for player in self.s.players:
            for register in player.registers:
                for card in register.cards:
                    if types[card.name].is_damage:
                        self.s.damage_discard.append(card)
                    else:
                        player.discard.append(card)
                register.cards = []
                register.revealed = False
                register.done = []
                register.locked = False
                if register.facedown_haywire is not None:
                    register.cards = [register.facedown_haywire]
                    register.locked = True
                    register.facedown_haywire = None
            if "less_predictable" in self.s.config.variants:
                keep = [c for c in player.hand if self.card_type(c).is_damage]
                player.deck.extend(player.discard)
                player.deck.extend(c for c in player.hand if not self.card_type(c).is_damage)
                player.discard = []
                player.hand = keep
                self.s.rng.shuffle(player.deck)
                self.emit(DECK_SHUFFLED, seat=player.seat, amount=len(player.deck))
        self.emit(ROUND_ENDED)
        self.s.register = 0
        self.s.stage = "round_start"
