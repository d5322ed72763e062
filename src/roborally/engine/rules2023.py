"""The 2023 edition's rules: setup, the round, programming, activation, damage, reboots.

The game runs as a sequence of named stages (``state.stage``). Each stage either finishes and
names the next one, or raises :class:`~roborally.engine.core.mechanics.Suspend` with the
decisions it needs. A stage asks before it changes anything, or runs on a snapshot that is thrown
away when it suspends, so answering a decision and re-running the stage gives exactly the same
game.

Section numbers (``4.3.1``) refer to ``shared/rules/edition-2023.md``; line references
(``000: 584``) to the rulebook sources it cites.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from itertools import permutations
from typing import Any

from roborally.engine.core.board import BeltColor, Course, Grid
from roborally.engine.core.cards import MOVE_EFFECTS, PROGRAMMING_CARDS, Card, CardType
from roborally.engine.core.decisions import (
    TIMEOUT,
    Decision,
    DecisionKind,
    IllegalActionError,
    InvalidActionError,
)
from roborally.engine.core.events import EventKind
from roborally.engine.core.geometry import DIRECTIONS, Direction, Pos, Turn
from roborally.engine.core.rng import make_rng
from roborally.engine.core.state import (
    HAND_SIZE,
    MAX_ENERGY,
    NUM_REGISTERS,
    START_ENERGY,
    GameConfig,
    GameState,
    Player,
    Register,
)
from roborally.engine.core.view import observation
from roborally.engine.upgrades import REPLACEMENT_WEAPONS, UpgradeRules, deal_upgrades

BLUE = frozenset({BeltColor.BLUE})
GREEN = frozenset({BeltColor.GREEN})
ROTATIONS = {"rotate_right": Turn.RIGHT, "rotate_left": Turn.LEFT, "u_turn": Turn.U_TURN}
#: The parts of one player's turn in step A2 (4.3.1, 4.5): re-entry, the window before the
#: card (W-PRE), the card, the window after it (W-POST).
TURN_STEPS = ("reenter", "pre", "resolve", "post")
#: Upgrades that may ask their owner something while the owner's register card resolves.
ASKING_ON_OWN_CARD = ("brakes", "drifting", "power_slide", "piercing_drill", "modular_chassis")
#: Decision kinds whose choice is one of a few option strings.
STRING_KINDS = (DecisionKind.UPGRADE_PHASE, DecisionKind.UPGRADE)


def board_grid(course: Course, variants: frozenset[str]) -> Grid:
    """The course as the 2023 rules play it: a checkpoint or reboot token switches off the
    element under it (6.0); Dynamic Archiving has no reboot tokens (11.1.4)."""
    return Grid(course, reboot_tokens="dynamic_archiving" not in variants)


def new_state(config: GameConfig) -> GameState:
    """Set up a game (spec 2.1): decks shuffled, damage deck shuffled, energy 3, priority token."""
    grid = board_grid(config.course, config.variants)
    rng = make_rng(config.seed, config.rng)
    players = [Player(seat, name) for seat, name in enumerate(config.players)]
    state = GameState(config, grid, rng, players)
    lighter = "lighter" in config.variants
    for player in players:
        for spec in PROGRAMMING_CARDS.values():
            for _ in range(spec.copies):
                player.deck.append(state.new_card(spec.name))
        rng.shuffle(player.deck)
        player.registers = [Register() for _ in range(NUM_REGISTERS)]
        player.energy = 0 if lighter else START_ENERGY
    for dspec in config.damage_deck.cards:
        for _ in range(dspec.copies):
            state.damage_deck.append(state.new_card(dspec.name))
    rng.shuffle(state.damage_deck)
    if config.first_player is None:
        state.priority = rng.below(len(players))
    else:
        state.priority = config.first_player
    if not lighter:
        deal_upgrades(state)  # 2.1 step 4; not in the lighter game (11.1.1)
    state.stage = "competitive" if "competitive_start" in config.variants else "place"
    return state


class Rules2023(UpgradeRules):
    """The rules of the 2023 edition, run as stages over a :class:`GameState`.

    The upgrade cards (phase, windows, triggers, weapons) come from
    :class:`~roborally.engine.upgrades.UpgradeRules`.
    """

    def observation(self, seat: int | None, pending: list[Decision]) -> dict[str, Any]:
        """What ``seat`` may see (spec 4.7); rulesets with more public state override it."""
        return observation(self.s, seat, pending)

    # ============================================================ validation
    def validate(self, decision: Decision, choice: Any) -> Any:
        """Check a choice against its decision; return it normalised or raise an error."""
        if choice == TIMEOUT:
            return TIMEOUT
        if decision.kind is DecisionKind.PROGRAM:
            return self.validate_program(decision, choice)
        if decision.kind in STRING_KINDS:
            if not isinstance(choice, str):
                raise InvalidActionError(
                    f"{decision.id}: the choice is one of the option texts, got {choice!r}"
                )
            wanted = " ".join(choice.split()).lower()
            for option in decision.options:
                if option.lower() == wanted:
                    return option
            raise IllegalActionError(
                f"{decision.id}: {choice!r} is not a legal choice; choose one of "
                + ", ".join(repr(o) for o in decision.options)
            )
        if decision.kind is DecisionKind.CARD_ORDER:
            if not isinstance(choice, (list, tuple)) or not all(isinstance(c, int) for c in choice):
                raise InvalidActionError(f"{decision.id}: the order must be a list of positions")
            if tuple(choice) not in decision.options:
                raise IllegalActionError(
                    f"{decision.id}: {list(choice)} is not one of {list(decision.options)}"
                )
            return tuple(choice)
        if isinstance(choice, str) and decision.kind in (
            DecisionKind.REBOOT_FACING,
            DecisionKind.SIDESTEP,
        ):
            choice = choice.strip().upper()
        if isinstance(choice, list):
            choice = tuple(choice)
        if decision.kind in (DecisionKind.START_SPACE, DecisionKind.BLOCK_START):
            if isinstance(choice, str) and choice.strip().isdigit():
                choice = int(choice)
            if isinstance(choice, bool) or not isinstance(choice, int):
                raise InvalidActionError(
                    f"{decision.id}: a start space is a number, got {choice!r}"
                )
        if decision.kind is DecisionKind.SHUTDOWN and not isinstance(choice, bool):
            raise InvalidActionError(f"{decision.id}: answer true or false, got {choice!r}")
        return self.one_of_options(decision, choice)

    def validate_program(self, decision: Decision, choice: Any) -> tuple[str | None, ...]:
        if not isinstance(choice, (list, tuple)) or len(choice) != NUM_REGISTERS:
            raise InvalidActionError(
                f"{decision.id}: a program lists {NUM_REGISTERS} registers, got {choice!r}"
            )
        program: list[str | None] = []
        for entry in choice:
            if entry is None or entry == "-":
                program.append(None)
            elif isinstance(entry, str):
                program.append(entry.strip().lower())
            else:
                raise InvalidActionError(f"{decision.id}: {entry!r} is not a card name")
        locked: list[int] = decision.info["locked"]
        hand: list[str] = decision.info["hand"]
        wanted = Counter[str]()
        for index, entry in enumerate(program):
            if index + 1 in locked and entry is not None:
                raise IllegalActionError(
                    f"{decision.id}: register {index + 1} holds a face-down Haywire and cannot"
                    " be programmed (000: 598-606)"
                )
            if entry is not None and "+" in entry:
                pair = self.pair_of(entry)
                if pair is None or not decision.info.get("pairs"):
                    raise IllegalActionError(
                        f"{decision.id}: {entry!r}: only Crab Legs lets a register hold two"
                        " cards, a move1 with a rotate_left or rotate_right (000: 733)"
                    )
                program[index] = "+".join(pair)
                wanted.update(pair)
            elif entry is not None:
                wanted[entry] += 1
        have = Counter(hand)
        for name, count in wanted.items():
            if have[name] < count:
                held = have[name]
                raise IllegalActionError(
                    f"{decision.id}: {name} is used {count} time(s) but the hand holds {held}"
                    f" (hand: {' '.join(sorted(hand))})"
                )
        for name, count in Counter(decision.info.get("forced", [])).items():
            if wanted[name] < count:
                raise IllegalActionError(
                    f"{decision.id}: Rewire: every Haywire in your hand ({name}) must be"
                    " programmed this round (000: 868)"
                )
        open_registers = NUM_REGISTERS - len(locked)
        must_fill = min(open_registers, len(hand))
        if sum(1 for e in program if e is not None) < must_fill:
            empty = [i + 1 for i, e in enumerate(program) if e is None and i + 1 not in locked]
            raise IllegalActionError(
                f"{decision.id}: every register must be filled; registers {empty} are empty"
                " (000: 168)"
            )
        return tuple(program)

    def default_choice(self, decision: Decision) -> Any:
        """What a timed-out or absent player does (random fill for programs, spec 11.1.6)."""
        if decision.kind is DecisionKind.PROGRAM:
            hand = list(decision.info["hand"])
            self.s.rng.shuffle(hand)
            forced = list(decision.info.get("forced", []))
            if forced:
                # 12-B13: the Haywires Rewire put in the hand are placed first.
                for name in forced:
                    hand.remove(name)
                hand.extend(forced)
            program: list[str | None] = []
            for index in range(NUM_REGISTERS):
                if index + 1 in decision.info["locked"] or not hand:
                    program.append(None)
                else:
                    program.append(hand.pop())
            if forced:
                slots = [i for i, e in enumerate(program) if e is not None]
                names = [program[i] for i in slots]
                self.s.rng.shuffle(names)
                for i, name in zip(slots, names, strict=True):
                    program[i] = name
            return tuple(program)
        if decision.kind is DecisionKind.SHUTDOWN:
            return False
        if decision.kind is DecisionKind.BLOCK_START:
            return decision.options[-1]
        return decision.options[0]

    def legal_choices(self, decision: Decision) -> Iterator[Any]:
        """Every legal choice of a decision (programs: every distinct assignment of hand cards)."""
        if decision.kind is not DecisionKind.PROGRAM:
            yield from decision.options
            return
        locked = decision.info["locked"]
        open_slots = [i for i in range(NUM_REGISTERS) if i + 1 not in locked]
        hand = decision.info["hand"]
        count = min(len(open_slots), len(hand))
        forced = Counter(decision.info.get("forced", []))
        have = Counter(hand)
        units: list[str] = list(hand)
        if decision.info.get("pairs"):  # Crab Legs: as many pairs as the hand can make
            for rotation in ("rotate_left", "rotate_right"):
                pair = f"move1+{rotation}"
                units.extend([pair] * min(have["move1"], have[rotation]))
        seen: set[tuple[str, ...]] = set()
        for combo in permutations(units, count):
            if combo in seen:
                continue
            seen.add(combo)
            if len(units) > len(hand) or forced:
                used = Counter(n for entry in combo for n in entry.split("+"))
                if used - have or any(used[n] < c for n, c in forced.items()):
                    continue
            program: list[str | None] = [None] * NUM_REGISTERS
            for slot, name in zip(open_slots, combo, strict=False):
                program[slot] = name
            yield tuple(program)

    # ================================================================ setup
    def free_starts(self) -> list[int]:
        taken = {p.pos for p in self.s.players if p.pos is not None}
        return [
            s.number
            for s in self.s.grid.start_spaces
            if s.pos not in taken and s.pos not in self.s.blocked_starts
        ]

    def stage_competitive(self) -> None:
        """11.1.5: each player in turn order blocks one start space with their cube."""
        order = self.s.turn_order()
        while self.s.turn < len(order):
            seat = order[self.s.turn]
            free = self.free_starts()
            if len(free) - 1 >= len(self.s.players):
                decision = Decision(
                    f"t0-p{seat + 1}-block_start",
                    seat,
                    DecisionKind.BLOCK_START,
                    "Block a start space with your energy cube",
                    tuple(free),
                    "the highest-numbered free start space",
                )
                choice = self.ask_one(decision)
                pos = self.start_pos(int(choice))
                self.s.blocked_starts.add(pos)
            self.s.turn += 1
        self.s.turn = 0
        self.s.stage = "place"

    def start_pos(self, number: int) -> Pos:
        for space in self.s.grid.start_spaces:
            if space.number == number:
                return space.pos
        raise IllegalActionError(f"no start space {number}")

    def stage_place(self) -> None:
        """2.1 step 7: robots go on start spaces, the first player first, then clockwise."""
        order = self.s.turn_order()
        if len(self.s.grid.start_spaces) - len(self.s.blocked_starts) < len(order):
            raise ValueError(
                f"course {self.s.grid.course.name!r} has"
                f" {len(self.s.grid.start_spaces)} usable start spaces for {len(order)} robots"
            )
        while self.s.turn < len(order):
            seat = order[self.s.turn]
            free = self.free_starts()
            decision = Decision(
                f"t0-p{seat + 1}-start_space",
                seat,
                DecisionKind.START_SPACE,
                "Choose your start space",
                tuple(free),
                "the lowest-numbered free start space",
            )
            number = int(self.ask_one(decision))
            space = next(s for s in self.s.grid.start_spaces if s.number == number)
            player = self.s.players[seat]
            player.pos = space.pos
            player.facing = space.facing or self.facing_towards_factory(space.pos)
            player.archive = space.pos
            player.archive_arrow = player.facing
            self.emit(
                EventKind.PLACED, seat=seat, pos=space.pos, facing=player.facing, amount=number
            )
            self.s.turn += 1
        self.s.turn = 0
        self.emit(EventKind.GAME_STARTED, seat=self.s.priority)
        self.s.stage = "round_start"

    # ================================================================ round
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
        self.emit(EventKind.ROUND_STARTED, seat=self.s.priority)
        self.return_memory()  # Memory Cards: at the start of the upgrade phase (000: 727)
        self.s.stage = "upgrade"

    def stage_draw(self) -> None:
        """4.2 step 1: draw up to the hand size, reshuffling the discard when the deck runs out."""
        for seat in self.s.turn_order():
            player = self.s.players[seat]
            drawn = 0
            while len(player.hand) < self.hand_size(player):
                card = self.draw(player)
                if card is None:
                    break
                player.hand.append(card)
                drawn += 1
            self.emit(EventKind.CARDS_DRAWN, seat=seat, amount=drawn)
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
        if not player.deck:
            if not player.discard:
                return None  # 12-B12: the draw fails silently
            player.deck = player.discard
            player.discard = []
            self.s.rng.shuffle(player.deck)
            self.emit(EventKind.DECK_SHUFFLED, seat=player.seat, amount=len(player.deck))
        player.top_visible = False  # Spam Filter shows the top card only until it is drawn
        return player.deck.pop()

    def program_decision(self, player: Player) -> Decision:
        locked = [i + 1 for i, r in enumerate(player.registers) if r.locked]
        return Decision(
            f"t{self.s.round}-p{player.seat + 1}-program",
            player.seat,
            DecisionKind.PROGRAM,
            "Program your registers",
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
        decisions = [self.program_decision(p) for p in self.s.players]
        answers = self.ask(decisions)
        for seat in self.s.turn_order():
            decision = decisions[seat]
            choice = answers[decision.id]
            if choice == TIMEOUT:
                choice = self.default_choice(decision)
            self.install_program(self.s.players[seat], choice)
        self.reset_windows()
        self.s.stage = "memory"

    def install_program(self, player: Player, program: tuple[str | None, ...]) -> None:
        for index, entry in enumerate(program):
            if entry is None:
                continue
            cards: list[Card] = []
            for name in entry.split("+"):  # a Crab Legs pair holds two cards (000: 733)
                card = next(c for c in player.hand if c.name == name)
                player.hand.remove(card)
                cards.append(card)
            player.registers[index].cards = cards
        player.programmed = True
        self.emit(EventKind.PROGRAMMED, seat=player.seat)
        if not (self.s.upgrades and self.has(player, "memory_cards")):
            self.discard_hand(player)  # Memory Cards first (stage_memory)

    def discard_hand(self, player: Player) -> None:
        """4.2 step 4: discard the rest of the hand; damage cards stay (000: 174)."""
        less_spam = "less_spam" in self.s.config.variants
        keep: list[Card] = []
        for card in player.hand:
            kind = self.card_type(card)
            if kind is CardType.HAYWIRE or (kind is CardType.SPAM and not less_spam):
                keep.append(card)
            else:
                player.discard.append(card)
        player.hand = keep

    def card_type(self, card: Card) -> CardType:
        if card.name in PROGRAMMING_CARDS:
            return CardType.PROGRAMMING
        return self.s.config.damage_deck.spec(card.name).type

    def stage_shutdown(self) -> None:
        """4.2 step 5 / 8.8: after everyone programmed, any player may shut down."""
        decisions = [
            Decision(
                f"t{self.s.round}-p{p.seat + 1}-shutdown",
                p.seat,
                DecisionKind.SHUTDOWN,
                "Shut down this round? (clears all your damage; your robot does nothing)",
                (False, True),
                "no shutdown",
            )
            for p in self.s.players
        ]
        answers = self.ask(decisions)
        for seat in self.s.turn_order():
            if answers[decisions[seat].id] is True:
                self.shut_down(self.s.players[seat])
        self.s.register = 1
        self.s.stage = "reveal"

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
        self.emit(EventKind.SHUT_DOWN, seat=player.seat, pos=player.pos, amount=len(damage))

    # =========================================================== activation
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

    def effect_of(self, card: Card) -> str:
        if card.name in PROGRAMMING_CARDS:
            return card.name
        return self.s.config.damage_deck.spec(card.name).effect

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
            DecisionKind.REBOOT_FACING,
            "Your robot re-enters the board: choose its facing",
            tuple(d.letter for d in DIRECTIONS),
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
        self.emit(EventKind.REENTERED, seat=player.seat, pos=target, to_facing=facing)
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
            self.emit(EventKind.DISPLACED, seat=seat, pos=pos, to=nxt, facing=arrow)
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

    def resolve_turn(self, seat: int) -> None:
        player = self.s.players[seat]
        if player.pos is None or player.shutdown:
            return
        register = player.registers[self.s.register - 1]
        if not register.cards:
            return
        effects = {self.effect_of(c) for c in register.cards}
        risky = bool(effects & {"again", "two_cards", "side2", "install_permanent"})
        if self.s.upgrades:
            asks = (
                risky
                or any(c.name in ASKING_ON_OWN_CARD for c in player.installed)
                or self.anyone_has("magnetic", besides=seat)
            )
            self.attempt(seat, self.resolve_register, seat, register, asks=asks)
        elif risky:
            self.attempt(seat, self.resolve_register, seat, register)
        else:
            self.resolve_register(seat, register)

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
            r = self.s.register
            previous = self.s.players[seat].registers[r - 2] if r > 1 else None
            if previous is None or not previous.done:
                return
            repeated = previous.done[-1]
            if repeated == "install_permanent":
                return  # 12-B4 (e): no second free install
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
            decision = Decision(
                self.did(f"p{seat + 1}-sidestep-{len(register.done)}"),
                seat,
                DecisionKind.SIDESTEP,
                "Move 2 to the left or to the right?",
                ("LEFT", "RIGHT"),
                "left",
            )
            side = self.ask_one(decision)
            turn = Turn.LEFT if side == "LEFT" else Turn.RIGHT
            self.move(seat, player.facing.turned(turn), 2, "haywire")
        elif effect == "install_permanent":
            self.install_permanent_haywire(seat)
        elif effect == "spam":
            return  # an unreplaced SPAM (empty deck) does nothing (12-B12)
        else:
            raise AssertionError(f"unknown card effect {effect!r}")

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

    # ============================================================= step B/C
    def stage_board(self) -> None:
        """4.3.2 step B, elements 1-4: belts, push panels, gears (no decisions here)."""
        r = self.s.register
        self.emit(EventKind.ELEMENT_STEP, cause="blue belts")
        self.convey(BLUE, "blue belt")
        self.convey(BLUE, "blue belt")
        self.emit(EventKind.ELEMENT_STEP, cause="green belts")
        self.convey(GREEN, "green belt")
        self.emit(EventKind.ELEMENT_STEP, cause="push panels")
        self.push_panels(r)
        self.emit(EventKind.ELEMENT_STEP, cause="gears")
        self.gears()
        self.s.stage = "lasers"

    def stage_lasers(self) -> None:
        """Step B5: board lasers (Deflector Shield and Energy Conversion may be asked)."""
        if self.s.upgrades:
            asks = self.anyone_has("deflector_shield", "energy_conversion")
            self.attempt(None, self.board_lasers, asks=asks)
        else:
            self.board_lasers()
        self.emit(EventKind.ELEMENT_STEP, cause="robot lasers")
        self.s.order = self.s.turn_order()
        self.s.turn = 0
        self.s.stage = "weapons"

    def board_lasers(self) -> None:
        self.emit(EventKind.ELEMENT_STEP, cause="board lasers")
        hits = self.board_laser_hits()
        for seat in self.s.turn_order():
            if seat in hits:
                before = self._received
                self.weapon_damage(seat, hits[seat], "board laser")
                if self.s.upgrades and self._received > before:
                    self.energy_conversion(seat)

    def stage_weapons(self) -> None:
        """Step B6: robot weapons, one robot at a time in turn order (12-B19, 12-C5)."""
        order = self.s.order or self.s.turn_order()
        while self.s.turn < len(order):
            seat = order[self.s.turn]
            if self.s.upgrades:
                asks = self.anyone_has("deflector_shield") or any(
                    c.name in REPLACEMENT_WEAPONS for c in self.s.players[seat].installed
                )
                self.attempt(seat, self.fire_weapons, seat, asks=asks)
            else:
                self.fire_weapons(seat)
            self.s.turn += 1
        self.s.turn = 0
        self.s.stage = "register_end"

    def robot_weapons(self) -> None:
        """B6 in one go (every robot in turn order); the stages use :meth:`stage_weapons`."""
        for seat in self.s.turn_order():
            self.fire_weapons(seat)

    def stage_register_end(self) -> None:
        """Step C: batteries, checkpoints (Self-Diagnostics), dynamic archiving."""
        if self.s.upgrades:
            self.attempt(None, self.register_end, asks=self.anyone_has("self_diagnostics"))
        else:
            self.register_end()

    def register_end(self) -> None:
        r = self.s.register
        self.emit(EventKind.ELEMENT_STEP, cause="batteries")
        self.batteries()
        self.emit(EventKind.ELEMENT_STEP, cause="checkpoints")
        reached = self.checkpoints()
        if self.s.over:
            return
        if self.s.upgrades:
            for seat in reached:
                self.self_diagnostics(seat)
        if "dynamic_archiving" in self.s.config.variants:
            self.archive()
        if r < NUM_REGISTERS:
            self.s.register = r + 1
            self.s.stage = "reveal"
        else:
            self.s.stage = "end_round"

    def batteries(self) -> None:
        """C7: +1 energy on a battery space (not while shut down, not under an overlay)."""
        for seat in self.s.turn_order():
            player = self.s.players[seat]
            if player.pos is None or player.shutdown:
                continue
            cell = self.s.grid.active(player.pos)
            if cell is not None and cell.battery:
                self.gain_energy(player, 1, "battery")

    def checkpoints(self) -> list[int]:
        """C8: claim the next checkpoint; completing the last one ends the race (3, 12-B1).

        Returns the seats that reached a checkpoint, in turn order.
        """
        grid = self.s.grid
        total = len(grid.checkpoints)
        winner: int | None = None
        reached: list[int] = []
        for seat in self.s.turn_order():
            player = self.s.players[seat]
            if player.pos is None or player.shutdown:
                continue
            cell = grid.cells[grid.index(player.pos)]
            if cell is not None and cell.checkpoint == player.checkpoint + 1:
                player.checkpoint += 1
                reached.append(seat)
                self.emit(
                    EventKind.CHECKPOINT_REACHED,
                    seat=seat,
                    pos=player.pos,
                    amount=player.checkpoint,
                )
                if player.checkpoint == total and winner is None:
                    winner = seat
        if winner is not None:
            self.finish(winner, "checkpoints")
        return reached

    def archive(self) -> None:
        """11.1.4 / 12-D2: ending a register on a checkpoint or active battery archives there."""
        grid = self.s.grid
        for seat in self.s.turn_order():
            player = self.s.players[seat]
            if player.pos is None:
                continue
            cell = grid.cells[grid.index(player.pos)]
            active = grid.active(player.pos)
            on_battery = active is not None and active.battery
            on_marker = cell is not None and (cell.checkpoint is not None or on_battery)
            moved = player.archive != player.pos or player.archive_arrow != player.facing
            if on_marker and moved:
                player.archive = player.pos
                player.archive_arrow = player.facing
                self.emit(EventKind.ARCHIVED, seat=seat, pos=player.pos, facing=player.facing)

    def stage_end_round(self) -> None:
        """4.4: pass the priority token left; clear face-up register cards."""
        if self.s.upgrades:
            self.discard_glitches()  # 4.4 step 5: HW-INSTALL's upgrade leaves (003: 1357-1367)
        n = len(self.s.players)
        before = self.s.priority
        self.s.priority = (before + 1) % n
        self.emit(EventKind.PRIORITY_PASSED, seat=self.s.priority, other=before)
        for player in self.s.players:
            for register in player.registers:
                for card in register.cards:
                    if self.card_type(card).is_damage:
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
                self.emit(EventKind.DECK_SHUFFLED, seat=player.seat, amount=len(player.deck))
        self.emit(EventKind.ROUND_ENDED)
        self.s.register = 0
        self.s.stage = "round_start"

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
                self.emit(EventKind.DAMAGE_PREVENTED, seat=seat, cause="damage deck empty")
                return
            self.receive_damage(player, card, cause)

    def draw_damage(self) -> Card | None:
        if not self.s.damage_deck:
            if not self.s.damage_discard:
                return None
            self.s.damage_deck = self.s.damage_discard
            self.s.damage_discard = []
            self.s.rng.shuffle(self.s.damage_deck)
            self.emit(EventKind.DECK_SHUFFLED, amount=len(self.s.damage_deck), cause="damage")
        return self.s.damage_deck.pop()

    def receive_damage(self, player: Player, card: Card, cause: str) -> None:
        self._received += 1
        kind = self.card_type(card)
        placed = "discard"
        facedown = False
        if kind is CardType.SPAM:
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
            EventKind.DAMAGED,
            seat=player.seat,
            pos=player.pos,
            card=card.name,
            amount=1,
            cause=f"{cause}; to {placed}",
            secret=facedown,
        )

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
            EventKind.REBOOTED,
            seat=seat,
            pos=player.reentry,
            facing=player.reentry_arrow,
            cause=cause,
        )
        self.deal_damage(seat, self.reboot_damage(player, cause), "reboot")

    def discard_on_reboot(self, player: Player, card: Card) -> None:
        """8.2: Haywires to the damage discard; SPAM and regular cards to the own discard."""
        if self.card_type(card) is CardType.HAYWIRE:
            self.s.damage_discard.append(card)
        else:
            player.discard.append(card)

    def reboot_damage(self, player: Player, cause: str) -> int:
        """2 (the course may say otherwise); Firewall: none after a pit fall (000: 721-723)."""
        if cause == "pit" and self.s.upgrades and self.has(player, "firewall"):
            self.upgrade_event(player.seat, "firewall", "used")
            return 0
        return self.s.grid.course.reboot_damage


#: The edition's facts, read by :mod:`roborally.engine.editions` (which registers it).
TITLE = "RoboRally (2023 edition)"
RULES_VERSION = "2023/3"
MIN_PLAYERS = 1
MAX_PLAYERS = 6
