"""The 2023 activation phase, step A (4.3.1): the registers revealed (SPAM and Again in
register 1 replaced), the turns in turn order, and each register card resolved: Crab Legs
pairs, the Haywires, Again, energy gains.
"""

from __future__ import annotations

from roborally.engine.core.cards import MOVE_EFFECTS, PROGRAMMING_CARDS, Card
from roborally.engine.core.decisions import CARD_ORDER, SIDESTEP, Decision, Prompt
from roborally.engine.core.events import (
    CARD_REPLACED,
    CARD_RESOLVED,
    CARD_REVEALED,
    ENERGY_GAINED,
    REGISTER_STARTED,
)
from roborally.engine.core.geometry import Pos, Turn
from roborally.engine.core.mechanics import Suspend
from roborally.engine.core.state import MAX_ENERGY, Player, Register
from roborally.engine.rules2023.base import Base2023
from roborally.engine.rules2023.turn_windows import WINDOW_UPGRADES

ROTATIONS = {"rotate_right": Turn.RIGHT, "rotate_left": Turn.LEFT, "u_turn": Turn.U_TURN}
#: The parts of one player's turn in step A2 (4.3.1, 4.5): re-entry, the window before the
#: card (W-PRE), the card, the window after it (W-POST).
TURN_STEPS = ("reenter", "pre", "resolve", "post")  # stage_turns knows them by position
#: Card effects that never move the robot: no push, no Magnetic neighbour, while they resolve.
STILL_EFFECTS = frozenset(
    {"rotate_left", "rotate_right", "u_turn", "power_up", "spam", "install_permanent"}
)
#: Programming card effects that ask nothing up front (but Brakes on a Move 1): for a robot
#: holding none of :data:`ASKING_ON_OWN_CARD` they ask nothing of their own
#: (:meth:`Activation2023.prepare_plain_card`, :meth:`Activation2023.resolve_turn`).
PLAIN_EFFECTS = frozenset(
    {"move1", "move2", "move3", "move_back", "rotate_left", "rotate_right", "u_turn", "power_up"}
)
#: The upgrades that may ask their owner while the owner's own card resolves (Brakes up front;
#: Drifting and Power Slide after a Rotate; Piercing Drill and Modular Chassis after a push).
ASKING_ON_OWN_CARD = frozenset(
    {"brakes", "drifting", "power_slide", "piercing_drill", "modular_chassis"}
)
#: The upgrade that may ask its owner after a card with this effect changed something
#: (Drifting and Power Slide after a Rotate; Brakes asks before, up front).
ASKING_ON_EFFECT = {"rotate_left": "drifting", "rotate_right": "power_slide"}
#: The upgrades that act after their owner's Rotate card (Triggers2023.after_rotation).
AFTER_ROTATION = frozenset(ASKING_ON_EFFECT.values())
#: Upgrades that may ask their owner when the owner's card pushes a robot.
ASKING_ON_PUSH = frozenset({"piercing_drill", "modular_chassis"})
#: How far (in spaces, Manhattan) a Magnetic robot can stand from a robot whose card may make
#: it follow: next to where one of the card's moves starts. Every card makes one move from
#: where the robot stands, but Move 1, Right, Move 1 makes its second from 1 space ahead (a
#: robot that came next to that space meanwhile was pushed along from 1 space ahead, or
#: followed by Magnetic from next to the start).
MAGNET_REACH = {"move1_right_move1": 2}
#: How far a robot that may be pushed or follow can stand from Double Draw's robot: its two
#: cards move it up to 6 spaces, in an order chosen up front; the whole board is looked at.
ANYWHERE = 1000
#: Card effects whose question (the sidestep, HW-INSTALL's choice) is asked up front only when
#: the register holds them, not when Double Draw draws them.
ASKING_WHEN_DRAWN = frozenset({"side2", "install_permanent", "two_cards"})


class Activation2023(Base2023):
    """Step A: revealing the registers and resolving each player's card."""

    def stage_reveal(self) -> None:
        """4.3.1 step A1: every register card is revealed; SPAM and Again-in-1 are replaced."""
        r = self.s.register
        self.emit(REGISTER_STARTED)
        order = self.s.turn_order()
        for seat in order:
            player = self.s.players[seat]
            register = player.registers[r - 1]
            if not register.cards or register.revealed:
                continue
            register.revealed = True
            register.locked = False
            for card in register.cards:
                self.emit(CARD_REVEALED, seat=seat, card=card.name, amount=r)
            if len(register.cards) != 1:
                continue  # a Crab Legs pair: a Move 1 and a Rotate card, nothing to replace
            name = register.cards[0].name
            if name == "spam" or (name == "again" and r == 1):
                self.replace_first(player, register, r)
        for player in self.s.players:
            if player.fresh:
                player.fresh = []
        self.s.turn = 0
        self.s.window = 0
        self.s.order = order
        self.s.stage = "turns"

    def replace_first(self, player: Player, register: Register, r: int) -> None:
        """A revealed SPAM (Chaos Theory gains from it) or Again in register 1 is replaced."""
        if (
            register.cards[0].name == "spam"
            and r <= 3
            and self.s.upgrades
            and self.has(player, "chaos_theory")
        ):
            self.gain_energy(player, 1, "chaos theory")  # 000: 813-817
        first = self.replace_revealed(player, register.cards[0], r)
        register.cards = [first] if first.uid >= 0 else []

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
                CARD_REPLACED,
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
        state = self.s
        players = state.players
        first = state.register == 1  # robots re-enter at the start of a round (8.5)
        self._step_a = True
        try:
            # state.turn counts the parts of every turn: it is where a re-run after a question
            # picks up. Each turn's parts are walked in a loop of their own, from the part the
            # re-run picks up at (a plain walk over the parts of all turns cost more).
            for index in range(state.turn // parts, len(order)):
                seat = order[index]
                base = index * parts
                start = state.turn - base if state.turn > base else 0
                if not start and not first and not players[seat].installed:
                    # Nothing to re-enter, no W-PRE without upgrades: straight to "resolve",
                    # and no W-POST either unless the card gave it an upgrade (Chassis).
                    state.turn = base + 2
                    self.resolve_turn(seat)
                    state.window = 0
                    if not players[seat].installed:
                        continue
                    start = 3
                for part in range(start, parts):
                    state.turn = base + part
                    if part == 2:  # "resolve"
                        self.resolve_turn(seat)
                    elif part:  # "pre" or "post": no window without an upgrade for it
                        player = players[seat]
                        if player.installed and self.holds_any(player, WINDOW_UPGRADES):
                            self.turn_window(seat, TURN_STEPS[part])
                    elif first:  # "reenter"
                        self.maybe_reenter(seat)
                    state.window = 0
        finally:
            self._step_a = False
        state.turn = 0
        state.stage = "board"

    def resolve_turn(self, seat: int) -> None:
        player = self.s.players[seat]
        if player.pos is None or player.shutdown:
            return
        register = player.registers[self.s.register - 1]
        cards = register.cards
        if not cards:
            return
        effect = self._card_effects[cards[0].name]
        if (
            len(cards) == 1
            and effect in PLAIN_EFFECTS
            # A plain card asks nothing up front (ask_up_front), but Brakes on a Move 1.
            and (effect != "move1" or not (player.installed and self.has(player, "brakes")))
        ):
            # The common case: nothing asked up front, so the unit of work begun here is the
            # one the card runs in (attempt() would begin the same one again).
            asks = self.prepare_plain_card(seat, effect)
            if not asks and player.installed and self.holds_any(player, ASKING_ON_OWN_CARD):
                asks = self.card_may_ask(seat, {effect}, None)
            if asks:
                self.attempt(seat, self.resolve_register, seat, register)
                return
            try:
                self.resolve_register(seat, register)
            except Suspend as suspend:  # prepare_plain_card's test missed a case: fail loudly
                raise AssertionError("resolve_register asked without a snapshot") from suspend
            return
        asks = self.prepare_card(seat, register)
        if self.s.upgrades or asks:
            self.attempt(seat, self.resolve_register, seat, register, asks=asks)
        else:
            self.resolve_register(seat, register)

    def prepare_plain_card(self, seat: int, effect: str) -> bool:
        """:meth:`prepare_card` for a plain programming card (:data:`PLAIN_EFFECTS`) that asks
        nothing up front (not a Move 1 with Brakes, :meth:`ask_up_front`): returns whether a
        Magnetic robot next to it may be asked. (Whether the card's owner may be asked, when it
        holds one of :data:`ASKING_ON_OWN_CARD`, is :meth:`card_may_ask`'s to say.)"""
        self.begin_unit(seat)
        self._magnets_near = effect not in STILL_EFFECTS and self.magnetic_near(seat, 1)
        return self._magnets_near

    def prepare_card(self, seat: int, register: Register) -> bool:
        """Before ``register``'s card resolves: ask what it asks before it changes anything
        (:meth:`ask_up_front`, :meth:`ask_card_order`), and find out whether it may ask
        anything more (then it runs on a snapshot). Returns whether it may."""
        effects = self.acted_effects(seat, register)
        self.ask_up_front(seat, register, effects)
        drawn = self.ask_card_order(seat) if "two_cards" in effects else None
        if drawn is None:
            reach = max((MAGNET_REACH.get(effect, 1) for effect in effects), default=1)
        else:
            effects, reach = self.drawn_effects(seat, drawn), ANYWHERE
        # Only a Magnetic robot within reach can follow the card's moves: most often there is
        # none, and then the moves do not look for one (Triggers2023.move).
        self._magnets_near = not effects <= STILL_EFFECTS and self.magnetic_near(seat, reach)
        return self._magnets_near or self.card_may_ask(seat, effects, drawn)

    def acted_effects(self, seat: int, register: Register) -> set[str]:
        """The effects resolving ``register``'s cards carries out (an Again: what it repeats;
        a Crab Legs pair: its sidestep)."""
        cards = register.cards
        if len(cards) == 2 and all(c.name in PROGRAMMING_CARDS for c in cards):
            return {self.crab_effect(cards)}
        effects = {self.effect_of(c) for c in cards}
        if effects == {"again"}:
            repeated = self.repeated_effect(seat)
            return set() if repeated is None else {repeated}
        return effects

    @staticmethod
    def crab_effect(cards: list[Card]) -> str:
        """The sidestep of a Crab Legs pair (000: 733-735): towards its Rotate card's side."""
        rotation = next(c.name for c in cards if c.name != "move1")
        return "crab_left" if rotation == "rotate_left" else "crab_right"

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

    def ask_card_order(self, seat: int) -> list[Card]:
        """Double Draw up front: the cards it will draw, and (two different ones) the order
        to resolve them in, asked here, outside a snapshot. The cards are found by drawing
        them on a scratch copy of what drawing touches; the game is left as it was."""
        s = self.s
        saved = s.players, s.rng, s.damage_discard, s.events
        players = list(s.players)
        players[seat] = players[seat].copy()
        s.players, s.rng, s.damage_discard, s.events = players, s.rng.copy(), [], []
        try:
            drawn = self.draw_two_cards(seat, players[seat].registers[s.register - 1])
        finally:
            s.players, s.rng, s.damage_discard, s.events = saved
        if len(drawn) == 2 and drawn[0].name != drawn[1].name:
            self.ask_one(self.card_order_decision(seat, drawn))
        return drawn

    def card_may_ask(self, seat: int, effects: set[str], drawn: list[Card] | None) -> bool:
        """Whether carrying out ``effects`` (one card's, :meth:`acted_effects`, or the cards
        Double Draw ``drawn``) can ask its owner anything beyond the questions asked up front
        (:meth:`ask_up_front`, :meth:`ask_card_order`) when no Magnetic robot is near: if
        not, the card runs without a snapshot. Errs on the side of asking."""
        player = self.s.players[seat]
        names = {c.name for c in player.installed}
        if drawn is not None and self.drawn_cards_ask(names, effects, drawn):
            return True
        if any(ASKING_ON_EFFECT.get(effect) in names for effect in effects):
            return True
        if effects <= STILL_EFFECTS or not names & ASKING_ON_PUSH:
            return False
        # No robot follows by Magnetic, so a robot one card pushes stands in its path; the
        # second of Double Draw's cards moves from wherever the first left the robot.
        if drawn is None:
            pushable = self.robots_in_path(player, effects)
        else:
            pushable = self.robots_near(seat, ANYWHERE, self.s.players)
        return self.push_asks(names, pushable)

    def drawn_effects(self, seat: int, drawn: list[Card]) -> set[str]:
        """The effects Double Draw's ``drawn`` cards carry out (an Again: what it repeats)."""
        effects = {self.effect_of(c) for c in drawn}
        if "again" in effects:
            effects.discard("again")
            effects.add(self.repeated_effect(seat) or "spam")
        return effects

    @staticmethod
    def drawn_cards_ask(names: set[str], effects: set[str], drawn: list[Card]) -> bool:
        """Whether Double Draw's cards ask a question that a register's card asks up front:
        the sidestep, HW-INSTALL's choice, Brakes on a Move 1 (``names``: the upgrades)."""
        if effects & ASKING_WHEN_DRAWN:
            return True
        return "brakes" in names and any(c.name == "move1" for c in drawn)

    @staticmethod
    def push_asks(names: set[str], pushable: list[Player]) -> bool:
        """Whether pushing one of ``pushable`` asks the owner of the upgrades ``names``."""
        if "piercing_drill" in names and pushable:
            return True
        return "modular_chassis" in names and any(p.installed for p in pushable)

    def magnetic_near(self, seat: int, reach: int) -> bool:
        """Whether another robot with Magnetic stands within ``reach`` spaces of ``seat``'s."""
        # One pass, no lists: this runs for nearly every card, and mostly nobody has Magnetic.
        pos = self.s.players[seat].pos
        assert pos is not None
        x, y = pos
        for p in self.s.players:
            if not p.installed or p.seat == seat or p.pos is None:
                continue
            for card in p.installed:
                if card.name == "magnetic":
                    if abs(p.pos[0] - x) + abs(p.pos[1] - y) <= reach:
                        return True
                    break
        return False

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

    def robots_in_path(self, player: Player, effects: set[str]) -> list[Player]:
        """The other robots standing in the path of ``player``'s card (:meth:`card_path`)."""
        path: set[Pos] = set()
        for effect in effects:
            path.update(self.card_path(player, effect))
        return [p for p in self.s.players if p.pos in path and p is not player]

    @staticmethod
    def card_path(player: Player, effect: str) -> list[Pos]:
        """The spaces the card's own steps can take the robot into, walls aside. A robot the
        card pushes stands on one of them when the card starts, unless one that follows by
        Magnetic gets there: robots pushed along stay in the path (Move 1, Right, Move 1
        pushes forward only in its first move, so away from its second; its second move
        starts from the robot's own space when a wall stops the first)."""
        pos, facing = player.pos, player.facing
        assert pos is not None
        if effect in MOVE_EFFECTS or effect == "move3_uturn":
            spaces = MOVE_EFFECTS.get(effect, 3)
            return [pos.step(facing, k) for k in range(1, spaces + 1)]
        if effect == "move_back":
            return [pos.step(facing.opposite)]
        if effect in ("crab_left", "crab_right"):
            return [pos.step(facing.turned(Turn.LEFT if effect == "crab_left" else Turn.RIGHT))]
        if effect == "move1_right_move1":
            ahead = pos.step(facing)
            right = facing.turned(Turn.RIGHT)
            return [ahead, ahead.step(right), pos.step(right)]
        if effect == "side2":
            sides = (facing.turned(Turn.LEFT), facing.turned(Turn.RIGHT))
            return [pos.step(side, k) for side in sides for k in (1, 2)]
        assert effect in STILL_EFFECTS, effect  # no steps
        return []

    def resolve_register(self, seat: int, register: Register) -> None:
        self._activation = seat  # "during your programming card activation" (12-C14)
        self._pushed = []
        try:
            cards = register.cards
            if len(cards) == 2 and all(c.name in PROGRAMMING_CARDS for c in cards):
                # Crab Legs (000: 733-735): a sidestep instead of both cards' effects.
                rotation = next(c.name for c in cards if c.name != "move1")
                self.emit(CARD_RESOLVED, seat=seat, card=f"move1+{rotation}")
                self.perform(seat, self.crab_effect(cards), register)
            else:
                card = cards[0]
                self.emit(CARD_RESOLVED, seat=seat, card=card.name)
                effect = self._card_effects[card.name]  # effect_of(), once a card a register
                if effect == "two_cards":
                    self.resolve_two_cards(seat, register)
                elif card.name == "move1" and self.s.upgrades and self.brakes(seat, card):
                    register.done.append(effect)  # braked: Again still repeats a Move 1
                else:
                    self.perform(seat, effect, register)
            if self.s.upgrades and self._pushed:
                self.modular_chassis(seat)  # only after a push
        finally:
            self._activation = None

    def resolve_two_cards(self, seat: int, register: Register) -> None:
        """HW-TWO at its owner's turn: draw and reveal 2 cards, resolve both in the chosen order.

        The cards are drawn when the Haywire resolves (its printed text, 5.6), so a robot that
        fell before its turn draws nothing. A drawn SPAM is replaced at once (5.5); both cards
        stay face up in the register (12-B5).
        """
        drawn = self.draw_two_cards(seat, register)
        order: tuple[int, ...] = tuple(range(len(drawn)))
        if len(drawn) == 2 and drawn[0].name != drawn[1].name:
            order = tuple(self.ask_one(self.card_order_decision(seat, drawn)))
        for index in order:
            if self.s.players[seat].pos is None:
                return
            if self.s.upgrades and self.brakes(seat, drawn[index]):
                register.done.append("move1")
                continue
            self.perform(seat, self.effect_of(drawn[index]), register)

    def draw_two_cards(self, seat: int, register: Register) -> list[Card]:
        """HW-TWO's draw: 2 cards revealed into ``register`` (a SPAM replaced at once, 5.5);
        returns the cards drawn."""
        r = self.s.register
        player = self.s.players[seat]
        for _ in range(2):
            card = self.draw(player)
            if card is None:
                break
            self.emit(CARD_REVEALED, seat=seat, card=card.name, amount=r, cause="haywire")
            replacement = self.replace_revealed(player, card, r)
            if replacement.uid >= 0:
                register.cards.append(replacement)
        return register.cards[1:]

    def card_order_decision(self, seat: int, drawn: list[Card]) -> Decision:
        """Which of HW-TWO's two (different) drawn cards resolves first."""
        return Decision(
            self.did(f"p{seat + 1}-card_order"),
            seat,
            CARD_ORDER,
            Prompt(
                f"Resolve {drawn[0].name} and {drawn[1].name} in which order?",
                "card_order",
                card=drawn[0].name,
                card2=drawn[1].name,
            ),
            ((0, 1), (1, 0)),
            "in the order drawn",
            {"cards": [c.name for c in drawn]},
        )

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
            # Only Drifting and Power Slide act after a Rotate card (not after an Again).
            if (
                not again
                and player.installed
                and self.s.upgrades
                and self.holds_any(player, AFTER_ROTATION)
            ):
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
            SIDESTEP,
            Prompt("Move 2 to the left or to the right?", "sidestep"),
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
        self.emit(ENERGY_GAINED, seat=player.seat, pos=player.pos, amount=gained, cause=cause)
