"""The 2023 activation phase, step A (4.3.1): the registers revealed (SPAM and Again in
register 1 replaced), the turns in turn order, and each register card resolved: Crab Legs
pairs, the Haywires, Again, energy gains.
"""

from __future__ import annotations

from roborally.engine.core.cards import MOVE_EFFECTS, PROGRAMMING_CARDS, Card
from roborally.engine.core.decisions import Decision, DecisionKind
from roborally.engine.core.events import EventKind
from roborally.engine.core.geometry import Turn
from roborally.engine.core.state import MAX_ENERGY, Player, Register
from roborally.engine.rules2023.base import Base2023

ROTATIONS = {"rotate_right": Turn.RIGHT, "rotate_left": Turn.LEFT, "u_turn": Turn.U_TURN}
#: The parts of one player's turn in step A2 (4.3.1, 4.5): re-entry, the window before the
#: card (W-PRE), the card, the window after it (W-POST).
TURN_STEPS = ("reenter", "pre", "resolve", "post")
#: Card effects that never move the robot: no push, no Magnetic neighbour, while they resolve.
STILL_EFFECTS = frozenset(
    {"rotate_left", "rotate_right", "u_turn", "power_up", "spam", "install_permanent"}
)
#: The upgrade that may ask its owner after a card with this effect changed something
#: (Drifting and Power Slide after a Rotate; Brakes asks before, up front).
ASKING_ON_EFFECT = {"rotate_left": "drifting", "rotate_right": "power_slide"}
#: Upgrades that may ask their owner when the owner's card pushes a robot.
ASKING_ON_PUSH = frozenset({"piercing_drill", "modular_chassis"})
#: How far a Magnetic robot can stand from a robot whose (not risky) card may make it follow:
#: it must be next to where one of the card's moves starts, at most 2 spaces from the robot
#: (Move 1, Right, Move 1); 4 errs on the safe side.
MAGNET_REACH = 4
#: How far a robot that a card pushes (Piercing Drill, Modular Chassis) can stand from the
#: card's robot when the card starts: a card moves its robot at most 3 spaces, and every robot
#: in its way stood within that distance (those pushed along or following by Magnetic only
#: move away or along); 4 errs on the safe side, as for Magnetic.
PUSH_REACH = 4


class Activation2023(Base2023):
    """Step A: revealing the registers and resolving each player's card."""

    def stage_reveal(self) -> None:
        """4.3.1 step A1: every register card is revealed; SPAM and Again-in-1 are replaced."""
        r = self.s.register
        self.emit(EventKind.REGISTER_STARTED)
        for seat in self.s.turn_order():
            player = self.s.players[seat]
            register = player.registers[r - 1]
            if not register.cards or register.revealed:
                continue
            register.revealed = True
            register.locked = False
            for card in register.cards:
                self.emit(EventKind.CARD_REVEALED, seat=seat, card=card.name, amount=r)
            if len(register.cards) != 1:
                continue  # a Crab Legs pair: a Move 1 and a Rotate card, nothing to replace
            if (
                register.cards[0].name == "spam"
                and r <= 3
                and self.s.upgrades
                and self.has(player, "chaos_theory")
            ):
                self.gain_energy(player, 1, "chaos theory")  # 000: 813-817
            first = self.replace_revealed(player, register.cards[0], r)
            register.cards = [first] if first.uid >= 0 else []
        for player in self.s.players:
            player.fresh = []
        self.s.turn = 0
        self.s.window = 0
        self.s.order = self.s.turn_order()
        self.s.stage = "turns"

    def replace_revealed(self, player: Player, card: Card, r: int) -> Card:
        """5.5 / 5.2: a revealed SPAM (or Again in register 1) is replaced from the deck."""
        while card.name == "spam" or (card.name == "again" and r == 1):
            if card.name == "spam":
                self.s.damage_discard.append(card)
                replacement = self.draw(player)
            else:
                # The Again is discarded after its replacement is drawn, so that a reshuffle
                # can never make it its own replacement (docs/rules-2023.md).
                replacement = self.draw(player)
                player.discard.append(card)
            self.emit(
                EventKind.CARD_REPLACED,
                seat=player.seat,
                card=card.name,
                cause=replacement.name if replacement else "empty deck",
            )
            if replacement is None:
                return Card(-1, "")  # an empty register: no action (12-B12)
            card = replacement
        return card

    def stage_turns(self) -> None:
        """4.3.1 step A2: in turn order, each player re-enters (register 1) and resolves.

        Each part of a turn (:data:`TURN_STEPS`) is committed before the next one asks
        anything, so every decision sees the board as it is. The turn order is the one fixed
        when the step began (12-B7: Re-Initialize acts at the next step).
        """
        order = self.s.order or self.s.turn_order()
        parts = len(TURN_STEPS)
        self._step_a = True
        try:
            while self.s.turn < parts * len(order):
                seat = order[self.s.turn // parts]
                part = TURN_STEPS[self.s.turn % parts]
                if part == "reenter":
                    self.maybe_reenter(seat)
                elif part == "resolve":
                    self.resolve_turn(seat)
                else:
                    self.turn_window(seat, part)
                self.s.turn += 1
                self.s.window = 0
        finally:
            self._step_a = False
        self.s.turn = 0
        self.s.stage = "board"

    def resolve_turn(self, seat: int) -> None:
        player = self.s.players[seat]
        if player.pos is None or player.shutdown:
            return
        register = player.registers[self.s.register - 1]
        if not register.cards:
            return
        effects = self.acted_effects(seat, register)
        self.ask_up_front(seat, register, effects)
        asks = self.card_may_ask(seat, effects)
        if self.s.upgrades or asks:
            self.attempt(seat, self.resolve_register, seat, register, asks=asks)
        else:
            self.resolve_register(seat, register)

    def acted_effects(self, seat: int, register: Register) -> set[str]:
        """The effects resolving ``register``'s cards carries out (an Again: what it repeats)."""
        effects = {self.effect_of(c) for c in register.cards}
        if effects == {"again"}:
            repeated = self.repeated_effect(seat)
            return set() if repeated is None else {repeated}
        return effects

    def ask_up_front(self, seat: int, register: Register, effects: set[str]) -> None:
        """Ask the questions the card asks before it changes anything (the sidestep, Brakes
        on a Move 1 card, HW-INSTALL's choice) here, outside a snapshot; the card finds them
        answered when it runs. The unit of work is begun so that they get the same ids."""
        self.begin_unit(seat)
        if "side2" in effects:
            self.ask_one(self.sidestep_decision(seat, len(register.done) + 1))
        if not self.s.upgrades:
            return
        player = self.s.players[seat]
        if "install_permanent" in effects and len(names := self.glitch_choices(player)) > 1:
            self.ask_glitch(seat, names)
        cards = register.cards
        if len(cards) == 1 and cards[0].name == "move1" and self.has(player, "brakes"):
            self.ask_brakes(seat)

    def card_may_ask(self, seat: int, effects: set[str]) -> bool:
        """Whether carrying out ``effects`` can ask anyone anything beyond the questions
        asked up front (:meth:`ask_up_front`): if not, the card runs without a snapshot.
        Errs on the side of asking."""
        if "two_cards" in effects:
            return True  # the order of the two cards it draws
        names = {c.name for c in self.s.players[seat].installed}
        if any(ASKING_ON_EFFECT.get(effect) in names for effect in effects):
            return True
        if effects <= STILL_EFFECTS:
            return False
        players = self.s.players
        if names & ASKING_ON_PUSH:
            pushable = self.robots_near(seat, PUSH_REACH, players)
            if "piercing_drill" in names and pushable:
                return True
            if "modular_chassis" in names and any(p.installed for p in pushable):
                return True  # something to exchange Modular Chassis for
        magnetic = [p for p in players if self.has(p, "magnetic")]  # mostly none: look first
        return bool(magnetic and self.robots_near(seat, MAGNET_REACH, magnetic))

    def robots_near(self, seat: int, reach: int, robots: list[Player]) -> list[Player]:
        """The other ``robots`` on the board within ``reach`` spaces (Manhattan) of
        ``seat``'s."""
        pos = self.s.players[seat].pos
        assert pos is not None
        return [
            p
            for p in robots
            if p.pos is not None
            and p.seat != seat
            and abs(p.pos.x - pos.x) + abs(p.pos.y - pos.y) <= reach
        ]

    def resolve_register(self, seat: int, register: Register) -> None:
        self._activation = seat  # "during your programming card activation" (12-C14)
        self._pushed = []
        try:
            cards = register.cards
            if len(cards) == 2 and all(c.name in PROGRAMMING_CARDS for c in cards):
                # Crab Legs (000: 733-735): a sidestep instead of both cards' effects.
                rotation = next(c.name for c in cards if c.name != "move1")
                self.emit(EventKind.CARD_RESOLVED, seat=seat, card=f"move1+{rotation}")
                side = "crab_left" if rotation == "rotate_left" else "crab_right"
                self.perform(seat, side, register)
            else:
                card = cards[0]
                self.emit(EventKind.CARD_RESOLVED, seat=seat, card=card.name)
                effect = self.effect_of(card)
                if effect == "two_cards":
                    self.resolve_two_cards(seat, register)
                elif self.s.upgrades and self.brakes(seat, card):
                    register.done.append(effect)  # braked: Again still repeats a Move 1
                else:
                    self.perform(seat, effect, register)
            if self.s.upgrades:
                self.modular_chassis(seat)
        finally:
            self._activation = None

    def resolve_two_cards(self, seat: int, register: Register) -> None:
        """HW-TWO at its owner's turn: draw and reveal 2 cards, resolve both in the chosen order.

        The cards are drawn when the Haywire resolves (its printed text, 5.6), so a robot that
        fell before its turn draws nothing. A drawn SPAM is replaced at once (5.5); both cards
        stay face up in the register (12-B5).
        """
        r = self.s.register
        player = self.s.players[seat]
        for _ in range(2):
            card = self.draw(player)
            if card is None:
                break
            self.emit(EventKind.CARD_REVEALED, seat=seat, card=card.name, amount=r, cause="haywire")
            replacement = self.replace_revealed(player, card, r)
            if replacement.uid >= 0:
                register.cards.append(replacement)
        drawn = register.cards[1:]
        order: tuple[int, ...] = tuple(range(len(drawn)))
        if len(drawn) == 2 and drawn[0].name != drawn[1].name:
            decision = Decision(
                self.did(f"p{seat + 1}-card_order"),
                seat,
                DecisionKind.CARD_ORDER,
                f"Resolve {drawn[0].name} and {drawn[1].name} in which order?",
                ((0, 1), (1, 0)),
                "in the order drawn",
                {"cards": [c.name for c in drawn]},
            )
            order = tuple(self.ask_one(decision))
        for index in order:
            if self.s.players[seat].pos is None:
                return
            if self.s.upgrades and self.brakes(seat, drawn[index]):
                register.done.append("move1")
                continue
            self.perform(seat, self.effect_of(drawn[index]), register)

    def perform(self, seat: int, effect: str, register: Register, again: bool = False) -> None:
        """Carry out one card action for a robot and note it for Again (5.1, 5.2, 5.7).

        ``again``: the action is an Again repeating it. Again repeats the card's action (000:
        390) but is not the card itself, so upgrades that name a card (Drifting, Power Slide,
        like Brakes) do not follow it (000: 693, 709).
        """
        player = self.s.players[seat]
        if player.pos is None or not effect:
            return
        if effect == "again":
            repeated = self.repeated_effect(seat)
            if repeated is not None:
                self.perform(seat, repeated, register, again=True)
            return
        register.done.append(effect)
        if effect in MOVE_EFFECTS:
            self.move(seat, player.facing, MOVE_EFFECTS[effect], "card")
        elif effect == "move_back":
            self.move(seat, player.facing.opposite, 1, "card")
        elif effect in ROTATIONS:
            self.rotate(seat, ROTATIONS[effect], "card")
            if self.s.upgrades and not again:
                self.after_rotation(seat, effect, register)
        elif effect in ("crab_left", "crab_right"):
            turn = Turn.LEFT if effect == "crab_left" else Turn.RIGHT
            self.move(seat, player.facing.turned(turn), 1, "crab legs")
        elif effect == "power_up":
            self.gain_energy(player, 1, "power up")
        elif effect == "move1_right_move1":
            self.move(seat, player.facing, 1, "haywire")
            if player.pos is not None:
                self.rotate(seat, Turn.RIGHT, "haywire")
                self.move(seat, player.facing, 1, "haywire")
        elif effect == "move3_uturn":
            self.move(seat, player.facing, 3, "haywire")
            if player.pos is not None:
                self.rotate(seat, Turn.U_TURN, "haywire")
        elif effect == "side2":
            side = self.ask_one(self.sidestep_decision(seat, len(register.done)))
            turn = Turn.LEFT if side == "LEFT" else Turn.RIGHT
            self.move(seat, player.facing.turned(turn), 2, "haywire")
        elif effect == "install_permanent":
            self.install_permanent_haywire(seat)
        elif effect == "spam":
            return  # an unreplaced SPAM (empty deck) does nothing (12-B12)
        else:
            raise AssertionError(f"unknown card effect {effect!r}")

    def repeated_effect(self, seat: int) -> str | None:
        """What an Again in the current register repeats: the last action of the register
        before (None: nothing, as in register 1 or after HW-INSTALL, 12-B4 (e))."""
        r = self.s.register
        previous = self.s.players[seat].registers[r - 2] if r > 1 else None
        if previous is None or not previous.done:
            return None
        repeated = previous.done[-1]
        return None if repeated == "install_permanent" else repeated

    def sidestep_decision(self, seat: int, action: int) -> Decision:
        """The question of a Haywire's sidestep, the register's ``action``-th action."""
        return Decision(
            self.did(f"p{seat + 1}-sidestep-{action}"),
            seat,
            DecisionKind.SIDESTEP,
            "Move 2 to the left or to the right?",
            ("LEFT", "RIGHT"),
            "left",
        )

    def install_permanent_haywire(self, seat: int) -> None:
        """HW-INSTALL: free, beyond the limit, for this round; ignored without a permanent
        upgrade in reserve (and in the lighter game)."""
        self.install_glitch(seat)

    def gain_energy(self, player: Player, amount: int, cause: str) -> None:
        if "lighter" in self.s.config.variants:
            return  # 12-D1: no energy in the lighter game
        gained = min(MAX_ENERGY, player.energy + amount) - player.energy
        player.energy += gained
        self.emit(
            EventKind.ENERGY_GAINED, seat=player.seat, pos=player.pos, amount=gained, cause=cause
        )
