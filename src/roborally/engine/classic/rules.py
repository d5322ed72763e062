"""The classic edition's rules (2005, ``classic``) and the 1994 variant (``classic-1994``).

The game runs as named stages on the edition-free core
(:class:`~roborally.engine.core.driver.StageDriver`: the driver, ``ask`` and ``finish``; the
movement and board elements of :class:`~roborally.engine.core.mechanics.Mechanics`), beside the 2023
rules and not built on them. Every classic stage
runs on a snapshot: when it needs a decision it raises ``Suspend`` and the stage's changes are
thrown away, so answering and re-running it replays the same steps with one more answer.

Section numbers (``6.3``) refer to ``shared/rules/edition-classic.md``, ``A-nn`` to its engine
decisions (12.2), line references (``001: 415``) to the rulebook sources. ``docs/rules-classic.md``
lists the decisions this engine makes on top of the spec.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from itertools import permutations
from typing import Any, TypeVar

from roborally.engine.classic.cards import option_cards, program_deck
from roborally.engine.classic.model import (
    ABLATIVE_CAPACITY,
    DESTROYED_AT,
    HAND_SIZE,
    HOWITZER_USES,
    LIVES,
    MOVES,
    NUM_REGISTERS,
    ROTATIONS,
    TIMER_SECONDS,
    ClassicPlayer,
    ClassicState,
    card_type,
    empty_registers,
    is_move,
    is_rotation,
    locks_for,
)
from roborally.engine.core.board import BeltColor, Course, Grid
from roborally.engine.core.cards import Card
from roborally.engine.core.decisions import (
    TIMEOUT,
    Decision,
    DecisionKind,
    IllegalActionError,
    InvalidActionError,
)
from roborally.engine.core.driver import StageDriver
from roborally.engine.core.events import EventKind
from roborally.engine.core.geometry import DIRECTIONS, Direction, Pos, Turn
from roborally.engine.core.mechanics import Suspend
from roborally.engine.core.rng import make_rng
from roborally.engine.core.state import GameConfig, GameState

BLUE = frozenset({BeltColor.BLUE})
ALL_BELTS = frozenset({BeltColor.BLUE, BeltColor.GREEN})

#: Decision kinds. The engine's DecisionKind has no classic kinds yet, so the classic rules use
#: SHUTDOWN for every power-down question (true/false), REBOOT_FACING for the re-entry square
#: and facing, PROGRAM for programs, and SIDESTEP for every other choice (option cards, damage
#: shields, the 1994 first card): a string from ``options``, whose first entry is the default.
POWER = DecisionKind.POWER_DOWN
PLACE = DecisionKind.REBOOT_FACING
CHOICE = DecisionKind.CHOICE
NO_YES = ("no", "yes")

#: The event cause when a radio-controlled robot is free again (its controller was destroyed).
RC_ENDED = "radio control ended"

#: Causes of movement under which Ramming Gear hurts (the robot's own move, 8.3 #20).
RAM_CAUSES = frozenset({"card", "crab legs", "dual processor"})

F = TypeVar("F", bound=Callable[..., None])


def _never(state: ClassicState) -> bool:
    return True


def _no_option_cards(state: ClassicState) -> bool:
    return not any(p.options for p in state.cplayers)


def _nobody_to_reenter(state: ClassicState) -> bool:
    return not any(p.destroyed and not p.eliminated for p in state.cplayers)


#: Stages that cannot ask anything while their test holds, so they run without a snapshot (the
#: snapshots were most of the classic engine's time). A stage asks only through an option card
#: (a shield, a weapon, Brakes, a gear, Abort Switch, Recompile, Flywheel, a card to lose ...),
#: only for a robot to re-enter, or never.
QUIET_WHEN: dict[str, Callable[[ClassicState], bool]] = {
    "stage_round_start": _never,
    "stage_power_down": _never,
    "stage_deal": _never,
    "stage_touch": _never,
    "stage_cleanup": _never,
    "stage_recompile": _no_option_cards,
    "stage_store": _no_option_cards,
    "stage_reveal": _no_option_cards,
    "stage_move": _no_option_cards,
    "stage_elements": _no_option_cards,
    "stage_lasers": _no_option_cards,
    "stage_reenter": _nobody_to_reenter,
}

#: Stages that ask every question before they change anything, and whose questions do not
#: depend on each other's answers: a suspension leaves the state as it was (only the events
#: are cut back), so they need no snapshot either. Tests check this claim on whole games
#: (``RulesClassic.check_untouched``).
ASK_FIRST = frozenset({"stage_first_card", "stage_program", "stage_announce", "stage_stay_down"})


def stage(method: F) -> F:
    """Run a stage so that if it suspends, every change it made is undone: on a snapshot,
    unless the stage is known not to need one (the sets above)."""
    name = method.__name__
    quiet = QUIET_WHEN.get(name)
    asks_first = name in ASK_FIRST

    @functools.wraps(method)
    def run(self: RulesClassic) -> None:
        self._asked = 0
        if quiet is not None and quiet(self.s):
            try:
                method(self)
            except Suspend:  # a bug: the state cannot be rolled back
                raise AssertionError(
                    f"{name} asked a question although QUIET_WHEN said it could not"
                ) from None
            return
        if asks_first:
            events = len(self.s.events)
            before = self.s.digest() if self.check_untouched else ""
            try:
                method(self)
            except Suspend:
                del self.s.events[events:]
                if self.check_untouched and self.s.digest() != before:
                    raise AssertionError(f"{name} changed the game before it asked") from None
                raise
            return
        mark = self._snapshot()
        try:
            method(self)
        except Suspend:
            self._rollback(mark)
            raise

    return run  # type: ignore[return-value]


@dataclass(frozen=True)
class Hit:
    """Damage about to be received: ``side`` is where a beam or shot enters the square."""

    seat: int
    amount: int
    cause: str
    side: Direction | None = None
    shooter: int | None = None
    shieldable: bool = True  # option cards may absorb it (not for Fire Control, 8.3 #10)


@dataclass
class Shot:
    """A robot's declared main-laser use in one register (8.4)."""

    seat: int
    direction: Direction
    groups: list[list[int]]
    end: Pos
    use: str  # "laser" or a weapon option ("fire_control lock 3", "mini_howitzer", ...)
    pierced: bool = False  # High-Power Laser: hit a robot behind a wall or robot


# =========================================================================== setup
def options_enabled(config: GameConfig) -> bool:
    if config.edition == "classic-1994":
        return "option_cards" in config.variants
    return "no_option_cards" not in config.variants


def new_state(config: GameConfig) -> ClassicState:
    """Set up a classic game (2.1-2.6): decks shuffled, docks dealt clockwise from dock 1."""
    state = setup_state(config)
    grid, n = state.grid, len(state.players)
    if config.edition == "classic-1994":
        if len(grid.checkpoints) < 2:
            raise ValueError(
                f"course {config.course.name!r}: classic-1994 starts on checkpoint 1 and needs"
                " at least 2 checkpoints (004: 17-19)"
            )
    else:
        numbers = {space.number for space in grid.start_spaces}
        missing = [d for d in range(1, n + 1) if d not in numbers]
        if missing:
            raise ValueError(
                f"course {config.course.name!r} has no dock(s) {missing} for {n} robots"
                " (001: 52-54)"
            )
    return state


def board_grid(course: Course, variants: frozenset[str]) -> Grid:
    """The course as the classic rules play it: flags do not switch off the element under
    them, and there are no reboot tokens (robots restart on their archive marker)."""
    return Grid(course, overlays_disable_elements=False, reboot_tokens=False)


def setup_state(config: GameConfig) -> ClassicState:
    """The state before robots are placed: players, shuffled decks, dock numbers."""
    grid = board_grid(config.course, config.variants)
    rng = make_rng(config.seed, config.rng)
    n = len(config.players)
    lives = LIVES
    if "four_lives" in config.variants:
        if n < 5:
            raise ValueError(
                f"the four_lives rule needs 5 or more robots, got {n} (001: 47; 002: 27-29)"
            )
        lives = 4
    players = [
        ClassicPlayer(seat, name, registers=empty_registers(), energy=0, lives=lives)
        for seat, name in enumerate(config.players)
    ]
    state = ClassicState(config, grid, rng, list(players))
    for spec in program_deck():
        state.program_deck.append(state.new_card(spec.id, spec.priority))
    rng.shuffle(state.program_deck)
    if options_enabled(config):
        for option in option_cards():
            if option.enabled:
                state.option_deck.append(state.new_card(option.id))
        rng.shuffle(state.option_deck)
    first = config.first_player if config.first_player is not None else rng.below(n)
    state.priority = first  # turn order = dock order from here on
    for i in range(n):
        players[(first + i) % n].dock = i + 1
    state.stage = "place"
    return state


# =========================================================================== rules
class RulesClassic(StageDriver):
    """The classic rules, run as stages over a :class:`ClassicState`."""

    s: ClassicState

    def observation(self, seat: int | None, pending: list[Decision]) -> dict[str, Any]:
        """The classic view: damage tokens, lives and option cards too (private hands)."""
        from roborally.engine.classic.view import classic_observation

        return classic_observation(self.s, seat, pending)

    def __init__(self, state: GameState) -> None:
        assert isinstance(state, ClassicState), "the classic rules need a ClassicState"
        super().__init__(state)
        variants = state.config.variants
        self.y94 = state.config.edition == "classic-1994"
        self.emergency = "emergency_shutdown" in variants
        self.classic_power_down = not self.y94 and not self.emergency
        self.options_on = options_enabled(state.config)
        self.flags_repair = "no_flag_repair" not in variants
        self.timer = ("timer" in variants) if self.y94 else ("no_timer" not in variants)
        self._asked = 0
        self.check_untouched = False  # tests: verify the ASK_FIRST stages' claim
        self._shot_paths: dict[tuple[Pos, Direction], tuple[Pos, ...]] = {}
        self._rammed: set[int] = set()  # robots this card's movement rammed (Ramming Gear)

    def pending_after(self, answered: Decision, pending: list[Decision]) -> list[Decision] | None:
        """As the driver's, but the last programmer's decision changes (it gets the timer)."""
        rest = super().pending_after(answered, pending)
        if rest is not None and self.timer and len(rest) == 1 and self.s.stage == "program":
            return None
        return rest

    # ----------------------------------------------------------- snapshots
    def _snapshot(self) -> tuple[ClassicState, int]:
        # The events (all of the game's) and the answers (those of this stage) are not copied:
        # a rollback keeps the answers as they are and cuts the events back to their count.
        s = self.s
        events, answers = s.events, s.answers
        s.events, s.answers = [], {}
        try:
            snap = s.copy()
        finally:
            s.events, s.answers = events, answers
        return snap, len(events)

    def _rollback(self, mark: tuple[ClassicState, int]) -> None:
        snap, count = mark
        answers, events = self.s.answers, self.s.events
        self.s.__dict__.update(snap.__dict__)
        self.s.answers = answers
        del events[count:]
        self.s.events = events

    # ----------------------------------------------------------- helpers
    def p(self, seat: int) -> ClassicPlayer:
        return self.s.player(seat)

    def has_variant(self, name: str) -> bool:
        return name in self.s.config.variants

    def choose(
        self,
        seat: int,
        kind: DecisionKind,
        what: str,
        prompt: str,
        options: tuple[Any, ...],
        default: str = "",
        info: dict[str, Any] | None = None,
    ) -> Any:
        """Ask one seat one question (one at a time, in the order the stage reaches them)."""
        self._asked += 1
        decision = Decision(
            f"t{self.s.round}-r{self.s.register}-{self.s.stage}-{self._asked}-p{seat + 1}-{what}",
            seat,
            kind,
            prompt,
            options,
            default or (f"{options[0]}" if options else ""),
            info or {},
        )
        choice = self.ask_one(decision)
        return self.validate(decision, choice)  # answers given to a stage directly (scenarios)

    def yes(self, seat: int, what: str, prompt: str) -> bool:
        return bool(self.choose(seat, CHOICE, what, prompt, NO_YES, "no") == "yes")

    def power_question(self, seat: int, what: str, prompt: str, default: bool = False) -> bool:
        return bool(
            self.choose(
                seat,
                POWER,
                what,
                prompt,
                (False, True),
                "yes" if default else "no",
                {"default": default},
            )
        )

    def occupants(self) -> dict[Pos, list[int]]:
        """Robots on the board by square (several only where 1994 robots share a square)."""
        occ: dict[Pos, list[int]] = {}
        for seat in self.s.dock_order():
            pos = self.s.players[seat].pos
            if pos is not None:
                occ.setdefault(pos, []).append(seat)
        return occ

    def draw_program(self) -> Card | None:
        """The top program card; the discard pile is shuffled in when the deck runs out."""
        return self._draw("program")

    def draw_option(self) -> Card | None:
        """The top option card; the discard pile is reshuffled when the deck is empty (A-38)."""
        return self._draw("option")

    def _draw(self, deck: str) -> Card | None:
        """The top card of the shared ``program`` or ``option`` deck (its discard pile shuffled
        in when it runs out); None when both are empty."""
        s = self.s
        cards: list[Card] = getattr(s, f"{deck}_deck")
        if not cards:
            discard: list[Card] = getattr(s, f"{deck}_discard")
            if not discard:
                return None
            cards = discard
            setattr(s, f"{deck}_deck", cards)
            setattr(s, f"{deck}_discard", [])
            s.rng.shuffle(cards)
            self.emit(EventKind.DECK_SHUFFLED, amount=len(cards), cause=f"{deck} deck")
        return cards.pop()

    def discard_program(self, cards: list[Card]) -> None:
        self.s.program_discard.extend(cards)

    def lose_option(self, player: ClassicPlayer, name: str, cause: str) -> None:
        card = next(c for c in player.options if c.name == name)
        player.options.remove(card)
        player.option_tokens.pop(name, None)
        stored = player.stored.pop(name, None)
        if stored is not None:
            self.discard_program([stored])
        self.s.option_discard.append(card)
        self.emit(EventKind.CARD_REPLACED, seat=player.seat, card=name, cause=cause)

    def register_priority(self, player: ClassicPlayer, r: int) -> int | None:
        cards = player.registers[r - 1].cards
        if not cards:
            return None
        moves = [c for c in cards if is_move(c)]
        return (moves or cards)[0].priority

    def executed_priority(self, player: ClassicPlayer, r: int) -> int | None:
        """The priority of the card the robot executed in register ``r`` (ties, A-52)."""
        if player.controlled_by is not None:
            return self.register_priority(self.p(player.controlled_by), r)
        if player.shutdown:
            return None
        return self.register_priority(player, r)

    def update_locks(self, player: ClassicPlayer) -> None:
        """Lock and unlock registers for the robot's damage and Fire Control locks (6.3).

        A register that locks while empty gets the top program card face up (001: 402-412,
        A-42); a locked card stays where it is and is executed in its register.
        """
        wanted = locks_for(player.damage) | player.fire_locks
        for r in range(1, NUM_REGISTERS + 1):
            register = player.registers[r - 1]
            if r in wanted and not register.locked:
                register.locked = True
                if not register.cards:
                    card = self.draw_program()
                    if card is not None:
                        register.cards = [card]
                        register.revealed = True
                        self.emit(
                            EventKind.CARD_REVEALED,
                            seat=player.seat,
                            card=card.name,
                            amount=r,
                            cause="locked register filled",
                        )
            elif r not in wanted and register.locked:
                register.locked = False

    def clear_registers(self, player: ClassicPlayer) -> None:
        for register in player.registers:
            self.discard_program(register.cards)
            register.cards = []
            register.locked = False
            register.revealed = False
            register.done = []

    # ----------------------------------------------------------- decisions
    def validate(self, decision: Decision, choice: Any) -> Any:
        if choice == TIMEOUT:
            return TIMEOUT
        if decision.kind is DecisionKind.PROGRAM:
            return self.validate_program(decision, choice)
        if decision.kind is POWER:
            if isinstance(choice, str) and choice.strip().lower() in ("yes", "no", "true", "false"):
                choice = choice.strip().lower() in ("yes", "true")
            if not isinstance(choice, bool):
                raise InvalidActionError(f"{decision.id}: answer true or false, got {choice!r}")
            return choice
        if not isinstance(choice, str):
            raise InvalidActionError(f"{decision.id}: expected one of the options, got {choice!r}")
        choice = " ".join(choice.split())
        choice = choice.upper() if decision.kind is PLACE else choice.lower()
        return self.one_of_options(decision, choice)

    def validate_program(self, decision: Decision, choice: Any) -> tuple[str | None, ...]:
        """One card per unlocked register (card names, or a bare type like ``move1``); a pair
        ``move1@490+rotate_left@70`` with Crab Legs or Dual Processor (8.3 #6, #8)."""
        if not isinstance(choice, (list, tuple)) or len(choice) != NUM_REGISTERS:
            raise InvalidActionError(
                f"{decision.id}: a program lists {NUM_REGISTERS} registers, got {choice!r}"
            )
        locked: list[int] = decision.info["locked"]
        remaining: list[str] = list(decision.info["hand"])
        pairs: list[str] = decision.info.get("pairs", [])
        program: list[str | None] = []
        for index, entry in enumerate(choice):
            if entry is None or entry == "-" or entry == "":
                program.append(None)
                continue
            if not isinstance(entry, str):
                raise InvalidActionError(f"{decision.id}: {entry!r} is not a card name")
            if index + 1 in locked:
                raise IllegalActionError(
                    f"{decision.id}: register {index + 1} is locked and keeps its card"
                    " (001: 420-424)"
                )
            names: list[str] = []
            for raw in entry.split("+"):
                name = raw.strip().lower()
                if name in remaining:
                    picked = name
                else:
                    picked = next((h for h in remaining if card_type(h) == name), "")
                if not picked:
                    raise IllegalActionError(
                        f"{decision.id}: {name!r} is not in the hand (or used twice);"
                        f" hand: {' '.join(decision.info['hand'])}"
                    )
                remaining.remove(picked)
                names.append(picked)
            if len(names) > 2:
                raise IllegalActionError(f"{decision.id}: at most two cards in one register")
            if len(names) == 2 and not self.pair_modes(names, pairs):
                raise IllegalActionError(
                    f"{decision.id}: {'+'.join(names)} is not a pair your option cards allow"
                    " (Crab Legs: Move 1 with Rotate Left/Right; Dual Processor: a move and a"
                    " turn)"
                )
            program.append("+".join(names))
        empty = [i + 1 for i, e in enumerate(program) if e is None and i + 1 not in locked]
        if empty and remaining:
            raise IllegalActionError(
                f"{decision.id}: every unlocked register must get a card; registers {empty}"
                " are empty (001: 109-112)"
            )
        return tuple(program)

    @staticmethod
    def pair_modes(names: list[str], pairs: list[str]) -> list[str]:
        """The ways two cards may share a register with the options held."""
        types = sorted((card_type(n) for n in names), key=lambda t: t in ROTATIONS)
        move, turn = types
        if move not in MOVES or turn not in ROTATIONS:
            return []
        modes = []
        if "crab_legs" in pairs and move == "move1" and turn in ("rotate_left", "rotate_right"):
            modes.append("crab_legs")
        if "dual_processor" in pairs:
            modes.append("dual_processor")
        return modes

    def default_choice(self, decision: Decision) -> Any:
        """A timed-out or absent player: random program fill (3.3, A-11), else the default."""
        if decision.kind is DecisionKind.PROGRAM:
            hand = list(decision.info["hand"])
            self.s.rng.shuffle(hand)
            program: list[str | None] = []
            for index in range(NUM_REGISTERS):
                if index + 1 in decision.info["locked"] or not hand:
                    program.append(None)
                else:
                    program.append(hand.pop())
            return tuple(program)
        if decision.kind is POWER:
            return bool(decision.info.get("default", False))
        return decision.options[0]

    def legal_choices(self, decision: Decision) -> Iterator[Any]:
        """Every legal choice (programs: every assignment of single hand cards; pairs that
        Crab Legs or Dual Processor allow are legal too but not listed)."""
        if decision.kind is not DecisionKind.PROGRAM:
            yield from decision.options
            return
        locked = decision.info["locked"]
        open_slots = [i for i in range(NUM_REGISTERS) if i + 1 not in locked]
        hand = decision.info["hand"]
        count = min(len(open_slots), len(hand))
        for combo in permutations(hand, count):
            program: list[str | None] = [None] * NUM_REGISTERS
            for slot, name in zip(open_slots, combo, strict=False):
                program[slot] = name
            yield tuple(program)

    # ================================================================ setup
    @stage
    def stage_place(self) -> None:
        """2.5: robots on docks 1..n clockwise from the first player, facing the factory.
        [V1994] 2.6: every robot starts on checkpoint 1, facing where its player chooses."""
        s = self.s
        for seat in s.dock_order():
            player = self.p(seat)
            if self.y94:
                cp1 = s.grid.checkpoints[0]
                default = self.facing_towards_factory(cp1)
                letters = (default.letter, *(d.letter for d in DIRECTIONS if d != default))
                choice = self.choose(
                    seat,
                    PLACE,
                    "facing",
                    "Your robot starts on checkpoint 1: choose its facing",
                    letters,
                )
                player.pos = cp1
                player.facing = Direction.parse(choice)
                player.checkpoint = 1
                player.archive, player.archive_arrow = cp1, player.facing
                self.emit(
                    EventKind.PLACED, seat=seat, pos=cp1, facing=player.facing, amount=player.dock
                )
                self.emit(EventKind.CHECKPOINT_REACHED, seat=seat, pos=cp1, amount=1)
                continue
            space = next(sp for sp in s.grid.start_spaces if sp.number == player.dock)
            player.pos = space.pos
            player.facing = space.facing or self.facing_towards_factory(space.pos)
            player.archive, player.archive_arrow = space.pos, player.facing
            self.emit(
                EventKind.PLACED, seat=seat, pos=space.pos, facing=player.facing, amount=player.dock
            )
        self.emit(EventKind.GAME_STARTED, seat=s.priority)
        s.stage = "round_start"

    # ================================================================ round
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
        self.emit(EventKind.ROUND_STARTED, seat=s.priority)
        s.stage = "emergency" if self.emergency else "power_down"

    @stage
    def stage_emergency(self) -> None:
        """7.7: before dealing, each robot may shut down for this round (dock order)."""
        for seat in self.s.dock_order():
            player = self.p(seat)
            if not player.active:
                continue
            if player.announced:  # Circuit Breaker (8.3 #4): no choice
                player.announced = False
                self.power_down(player, "circuit breaker")
                continue
            if player.shutdown:
                prompt = "Leave your robot shut down this round (its new damage is removed)?"
            else:
                prompt = "Shut your robot down for this round (all damage is removed)?"
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
        self.emit(
            EventKind.SHUT_DOWN, seat=player.seat, pos=player.pos, amount=removed, cause=cause
        )

    @stage
    def stage_power_down(self) -> None:
        """3.1 P0: announced robots power down (damage removed); the deck is rebuilt."""
        s = self.s
        if not self.emergency:
            for seat in s.dock_order():
                player = self.p(seat)
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
            self.emit(EventKind.DECK_SHUFFLED, amount=len(s.program_deck), cause="program deck")
        s.stage = "deal"

    def programmers(self) -> list[ClassicPlayer]:
        return [
            self.p(seat)
            for seat in self.s.dock_order()
            if self.p(seat).active and not self.p(seat).shutdown
        ]

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
                        EventKind.CARD_REPLACED,
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
            self.emit(EventKind.CARDS_DRAWN, seat=player.seat, amount=len(hand))
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
                "Recompile: discard your hand, draw as many new cards and take 1 damage?",
            ):
                size = len(player.hand)
                self.discard_program(player.hand)
                player.hand = [c for c in (self.draw_program() for _ in range(size)) if c]
                player.round_flags.add("recompiled")
                self.emit(EventKind.CARDS_DRAWN, seat=player.seat, amount=size, cause="recompile")
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
                    "Choose the move card for register 1 (it must be a move or Back Up)",
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
            DecisionKind.PROGRAM,
            "Program your registers (one card per unlocked register)",
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
        for index, entry in enumerate(program):
            if entry is None:
                continue
            cards = []
            for name in entry.split("+"):
                card = next(c for c in player.hand if c.name == name)
                player.hand.remove(card)
                cards.append(card)
            register = player.registers[index]
            register.cards = cards
            register.revealed = False
            register.done = []
        player.programmed = True
        self.emit(EventKind.PROGRAMMED, seat=player.seat)

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
                    f"{title}: keep one of your unused cards on it?",
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
                seat
                for seat in self.s.dock_order()
                if self.p(seat).active
                and not self.p(seat).shutdown
                and not self.p(seat).announced
                and (self.p(seat).damage >= 1 or anyone)
            ]
            # Every answer first, then the announcements (ASK_FIRST: no snapshot needed).
            down = [
                s for s in asked if self.power_question(s, "power_down", "Power down next round?")
            ]
            for seat in down:
                player = self.p(seat)
                player.announced = True
                self.emit(EventKind.SHUT_DOWN, seat=seat, pos=player.pos, cause="announced")
        self.s.register = 1
        self.s.stage = "reveal"

    # ========================================================== activation
    def acting(self, player: ClassicPlayer) -> bool:
        return player.active and not player.shutdown

    @stage
    def stage_reveal(self) -> None:
        """3.5 A: reveal register r, with Gyroscopic Stabilizer (register 1), Conditional
        Program (before), Abort Switch (after) and the Crab Legs / Dual Processor choice."""
        s = self.s
        r = s.register
        order = s.dock_order()
        self.emit(EventKind.REGISTER_STARTED)
        for seat in order:
            p = self.p(seat)
            p.shield_used.clear()
            if (
                r == 1
                and p.active
                and p.has("gyroscopic_stabilizer")
                and self.yes(
                    seat, "stabilizer", "Gyroscopic Stabilizer: switch it on for this round?"
                )
            ):
                p.round_flags.add("stabilizer")
        for seat in order:
            p = self.p(seat)
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
                    f"Conditional Program: put {stored.name} into register {r} instead?",
                )
            ):
                continue
            del p.stored["conditional_program"]
            self.emit(
                EventKind.CARD_REPLACED,
                seat=seat,
                card=" ".join(c.name for c in register.cards),
                cause=f"conditional program: {stored.name}",
            )
            self.discard_program(register.cards)
            register.cards = [stored]
            register.done = []
        for seat in order:
            p = self.p(seat)
            register = p.registers[r - 1]
            if not self.acting(p) or not register.cards:
                continue
            register.revealed = True
            for card in register.cards:
                self.emit(EventKind.CARD_REVEALED, seat=seat, card=card.name, amount=r)
            if "aborting" in p.round_flags and not register.locked:
                self.replace_from_deck(p, register, "abort switch")
        for seat in order:
            p = self.p(seat)
            register = p.registers[r - 1]
            if (
                not p.has("abort_switch")
                or "abort_used" in p.round_flags
                or not self.acting(p)
                or register.locked
                or not register.cards
                or not self.yes(
                    seat, "abort_switch", "Abort Switch: replace your revealed cards from the deck?"
                )
            ):
                continue
            p.round_flags.update(("abort_used", "aborting"))
            self.replace_from_deck(p, register, "abort switch")
        for seat in order:
            p = self.p(seat)
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
                    "Use this pair with Crab Legs (side step) or Dual Processor (move, then turn)?",
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
        self.emit(EventKind.CARD_REPLACED, seat=p.seat, card=old, cause=f"{cause}: {card.name}")

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
        seat = player.seat
        names = " ".join(c.name for c in cards)
        mode = (done[0] if done else "dual_processor") if len(cards) == 2 else ""
        causes = [w for w in ("radio control" if remote else "", mode.replace("_", " ")) if w]
        self.emit(EventKind.CARD_RESOLVED, seat=seat, card=names, cause=" ".join(causes) or None)
        if len(cards) == 2:
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
            return
        kind = card_type(cards[0])
        if kind in ROTATIONS:
            self.rotate(seat, ROTATIONS[kind], "card")
            return
        steps = self.gear(player, kind, remote)
        if steps >= 0:
            self.move(seat, player.facing, steps, "card")
        else:
            self.move(seat, player.facing.opposite, -steps, "card")

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
            if self.yes(seat, "brakes", "Brakes: stay where you are instead of Move 1?"):
                return 0
        elif kind == "move3" and player.has("fourth_gear"):
            if self.yes(seat, "fourth_gear", "Fourth Gear: move 4 squares instead of 3?"):
                return 4
        elif kind == "back_up" and player.has("reverse_gear"):  # noqa: SIM102
            if self.yes(seat, "reverse_gear", "Reverse Gear: back up 2 instead of 1?"):
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

    def emit(self, kind: EventKind, **fields: object) -> None:
        super().emit(kind, **fields)
        if self.y94 and kind in (EventKind.MOVED, EventKind.PUSHED, EventKind.CONVEYED):
            self.touch_in_passing(fields)

    def touch_in_passing(self, fields: dict[str, object]) -> None:
        """[V1994] 5.10 / A-60: a checkpoint counts as soon as the robot enters its square."""
        seat, to = fields.get("seat"), fields.get("to")
        if not isinstance(seat, int) or not isinstance(to, Pos):
            return
        cell = self.grid.cell(to)
        player = self.p(seat)
        if cell is None or cell.checkpoint != player.checkpoint + 1 or player.finished:
            return
        player.checkpoint += 1
        player.archive, player.archive_arrow = to, player.facing
        super().emit(EventKind.CHECKPOINT_REACHED, seat=seat, pos=to, amount=player.checkpoint)
        super().emit(EventKind.ARCHIVED, seat=seat, pos=to, facing=player.facing)
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

    # ------------------------------------------------------------ elements
    @stage
    def stage_elements(self) -> None:
        """3.5 C: express belts, all belts, pushers, gears, crushers (5.5-5.7, 5.14)."""
        s = self.s
        steps: list[tuple[str, Callable[[], None]]] = [
            ("express belts", lambda: self.convey_all(BLUE, "express belt")),
            ("belts", lambda: self.convey_all(ALL_BELTS, "belt")),
            ("pushers", lambda: self.pushers(s.register)),
            ("gears", self.gears),
            ("crushers", lambda: self.crushers(s.register)),
        ]
        for name, step in steps:
            self.emit(EventKind.ELEMENT_STEP, cause=name)
            step()
            if self.y94 and self.check_touch_win(by_dock=True):
                return
        s.stage = "lasers"

    def convey_all(self, colors: frozenset[BeltColor], cause: str) -> None:
        """One belt step (5.5): all robots on moving belts at once, with the conflict rules."""
        grid = self.grid
        movers: dict[int, tuple[Pos, Pos, Direction]] = {}
        for seat in self.s.dock_order():
            pos = self.s.players[seat].pos
            if pos is None:
                continue
            belt = grid.belts[grid.index(pos)]
            if belt is not None and belt.color in colors:
                movers[seat] = (pos, pos.step(belt.out), belt.out)
        if not movers:
            return
        occ = self.occupants()
        blocked: set[int] = set()
        sources: dict[Pos, set[Pos]] = {}
        for seat, (pos, target, out) in movers.items():
            sources.setdefault(target, set()).add(pos)
            if self.edge_blocks(pos, out):
                blocked.add(seat)  # 5.5 3.1: a belt cannot carry a robot through a wall
        for seat, (pos, target, _) in movers.items():
            if len(sources[target]) > 1:
                blocked.add(seat)  # 5.5 3.2: two belts meet; both robots stay (001: 251-254)
            for other in occ.get(target, []):
                if other in movers and movers[other][1] == pos:
                    blocked.update((seat, other))  # 5.5 3.4: no swapping (002: 222)
        changed = True
        while changed:  # 5.5 3.3: a robot that stays blocks the one behind it (001: 255-256)
            changed = False
            for seat, (_, target, _) in movers.items():
                if seat in blocked:
                    continue
                if any(o not in movers or o in blocked for o in occ.get(target, [])):
                    blocked.add(seat)
                    changed = True
        moving = [seat for seat in movers if seat not in blocked]
        for seat in moving:
            self.s.players[seat].pos = movers[seat][1]
        for seat in moving:
            self.conveyed(seat, *movers[seat], cause)

    def pushers(self, register: int) -> None:
        """5.6 / A-29: active pushers push at once; pushes that share a robot or a destination
        cancel each other."""
        grid = self.grid
        planned: list[tuple[Pos, Direction, set[int], set[Pos]]] = []
        for pos, seats in self.occupants().items():
            cell = grid.active(pos)
            if cell is None or cell.pusher is None or register not in cell.pusher.registers:
                continue
            direction = cell.pusher.direction
            groups, movable = self.push_line(pos, direction)
            if not movable:
                for seat in seats:
                    self.emit(
                        EventKind.BLOCKED, seat=seat, pos=pos, facing=direction, cause="pusher"
                    )
                continue
            robots = {seat for group in groups for seat in group}
            targets = set()
            for group in groups:
                where = self.s.players[group[0]].pos
                assert where is not None
                targets.add(where.step(direction))
            planned.append((pos, direction, robots, targets))
        for i, (pos, direction, robots, targets) in enumerate(planned):
            clash = any(
                robots & other_robots or targets & other_targets
                for j, (_, _, other_robots, other_targets) in enumerate(planned)
                if j != i
            )
            if clash:
                self.emit(EventKind.BLOCKED, pos=pos, facing=direction, cause="pushers clash")
                continue
            if self.s.robot_at(pos) is not None:
                self.push(pos, direction, None, "pusher")

    def crushers(self, register: int) -> None:
        """5.14 / A-40: an active crusher destroys the robot under it."""
        for seat in self.s.dock_order():
            pos = self.s.players[seat].pos
            if pos is None:
                continue
            cell = self.grid.active(pos)
            if cell is not None and cell.crusher is not None and register in cell.crusher:
                self.emit(EventKind.FELL, seat=seat, pos=pos, cause="crusher")
                self.destroy(seat, "crusher", pos)

    # -------------------------------------------------------------- lasers
    def shot_blocked(self, pos: Pos, direction: Direction) -> bool:
        """Walls and pushers stop robot lasers (5.9, 001: 291, A-31)."""
        if self.grid.wall_between(pos, direction):
            return True
        here = self.grid.cell(pos)
        if (
            here is not None
            and here.pusher is not None
            and here.pusher.direction == direction.opposite
        ):
            return True
        there = self.grid.cell(pos.step(direction))
        return (
            there is not None and there.pusher is not None and there.pusher.direction == direction
        )

    def shot_path(self, start: Pos, direction: Direction) -> tuple[Pos, ...]:
        """The squares after ``start`` a robot laser crosses until a wall, a pusher
        (:meth:`shot_blocked`) or the course edge stops it; computed once per square and
        direction (the board never changes)."""
        key = (start, direction)
        path = self._shot_paths.get(key)
        if path is None:
            squares: list[Pos] = []
            cur = start
            while not self.shot_blocked(cur, direction):
                cur = cur.step(direction)
                if not self.grid.is_on_course(cur):
                    break
                squares.append(cur)
            path = self._shot_paths[key] = tuple(squares)
        return path

    def trace(
        self, seat: int, direction: Direction, through: int
    ) -> tuple[list[list[int]], Pos, bool]:
        """The robots a shot from ``seat`` hits (the first one; with High-Power Laser also the
        next one behind one wall or robot), where the shot ends, and whether it hit a robot
        after passing an obstacle."""
        pos = self.s.players[seat].pos
        assert pos is not None
        occ = self.occupants()
        if through <= 0:  # the common case: the first robot on a path known in advance
            path = self.shot_path(pos, direction)
            for square in path:
                if square in occ:
                    return [occ[square]], square, False
            return [], path[-1] if path else pos, False
        groups: list[list[int]] = []
        cur = pos
        passed = False
        while True:
            if self.shot_blocked(cur, direction):
                if through <= 0:
                    return groups, cur, False
                through -= 1
                passed = True
            nxt = cur.step(direction)
            if not self.grid.is_on_course(nxt):
                return groups, cur, False
            cur = nxt
            if cur in occ:
                groups.append(occ[cur])
                if through <= 0:
                    return groups, cur, passed
                through -= 1
                passed = True

    @staticmethod
    def shot_cause(shot: Shot) -> str:
        weapon = shot.use.split()[0]
        if weapon == "rear":
            return "rear laser"
        if weapon == "laser":
            return "high-power laser" if shot.pierced else "robot laser"
        return weapon.replace("_", " ")

    def fires(self, player: ClassicPlayer) -> bool:
        if not player.active:
            return False
        return not player.shutdown or self.has_variant("powered_down_robots_fire")

    def weapon_uses(self, player: ClassicPlayer, target: ClassicPlayer, distance: int) -> list[str]:
        r = self.s.register
        uses: list[str] = []
        if player.has("fire_control"):
            uses.extend(
                f"fire_control lock {i + 1}"
                for i, reg in enumerate(target.registers)
                if not reg.locked
            )
            uses.extend(f"fire_control destroy {name}" for name in target.option_names())
        if player.has("mini_howitzer"):
            uses.append("mini_howitzer")
        if player.has("pressor_beam"):
            uses.append("pressor_beam")
        if player.has("radio_control") and r < NUM_REGISTERS:
            uses.append("radio_control")
        if player.has("scrambler") and r < NUM_REGISTERS:
            uses.append("scrambler")
        if player.has("tractor_beam") and distance > 1:
            uses.append("tractor_beam")
        return uses

    @stage
    def stage_lasers(self) -> None:
        """3.5 D / 5.8-5.9 / 8.4: board and robot lasers fire at once; weapon options are
        declared first in dock order; damage, destruction, pushes, then register effects."""
        s = self.s
        order = s.dock_order()
        self.emit(EventKind.ELEMENT_STEP, cause="lasers")
        hits: list[Hit] = []
        occ = self.occupants()
        for origin, laser, path in self.grid.lasers:
            targets: list[int] = []
            last = path[-1]
            for index in path:
                here = self.grid.pos(index)
                if here in occ:
                    targets, last = occ[here], index
                    break
            self.emit(
                EventKind.SHOT,
                seat=targets[0] if targets else None,
                pos=origin,
                to=self.grid.pos(last),
                facing=laser.direction,
                amount=laser.beams,
                cause="board laser",
            )
            hits.extend(
                Hit(t, laser.beams, "board laser", laser.direction.opposite) for t in targets
            )
        shots: list[Shot] = []
        for seat in order:
            player = self.p(seat)
            if not self.fires(player):
                continue
            through = 1 if player.has("high_power_laser") else 0
            groups, end, pierced = self.trace(seat, player.facing, through)
            use = "laser"
            if groups:
                target = self.p(groups[0][0])
                assert player.pos is not None and target.pos is not None
                distance = abs(target.pos.x - player.pos.x) + abs(target.pos.y - player.pos.y)
                uses = self.weapon_uses(player, target, distance)
                if uses:
                    use = self.choose(
                        seat,
                        CHOICE,
                        "weapon",
                        f"Your main laser hits {target.name}: fire it, or use an option instead?",
                        ("laser", *uses),
                        info={"target": target.seat},
                    )
            shots.append(Shot(seat, player.facing, groups, end, use, pierced))
            if player.has("rear_firing_laser"):
                back, back_end, _ = self.trace(seat, player.facing.opposite, 0)
                shots.append(Shot(seat, player.facing.opposite, back, back_end, "rear"))
        for shot in shots:
            player = self.p(shot.seat)
            rear = shot.use == "rear"
            amount = 2 if player.has("double_barreled_laser") and not rear else 1
            if not shot.groups:
                continue  # a robot's shot that hits nothing is no event (docs/rules-classic.md)
            first = shot.groups[0]
            weapon = shot.use.split()[0]
            self.emit(
                EventKind.SHOT,
                seat=shot.seat,
                pos=player.pos,
                to=shot.end,
                facing=shot.direction,
                other=first[0],
                amount=amount,
                cause=self.shot_cause(shot),
            )
            side = shot.direction.opposite
            if weapon == "mini_howitzer":
                hits.extend(Hit(t, 1, "mini howitzer", side, shot.seat) for t in first)
                continue
            if weapon in ("laser", "rear", "fire_control"):
                for index, group in enumerate(shot.groups):
                    if index == 0 and weapon == "fire_control":
                        continue
                    hits.extend(
                        Hit(t, amount, "rear laser" if rear else "robot laser", side, shot.seat)
                        for t in group
                    )
        self.apply_damage(hits)
        # 8.4 (3): pushes and pulls of surviving targets, in dock order of the firing robots.
        for shot in shots:
            player = self.p(shot.seat)
            weapon = shot.use.split()[0]
            if weapon == "mini_howitzer":
                used = player.option_tokens.get("mini_howitzer", 0) + 1
                player.option_tokens["mini_howitzer"] = used
                if used >= HOWITZER_USES:
                    self.lose_option(player, "mini_howitzer", "used up")
            if weapon not in ("mini_howitzer", "pressor_beam", "tractor_beam") or not shot.groups:
                continue
            target = self.p(shot.groups[0][0])
            if target.pos is None:
                continue
            direction = shot.direction if weapon != "tractor_beam" else shot.direction.opposite
            self.push(target.pos, direction, None, weapon.replace("_", " "))
        # 8.4 (4): register effects.
        for shot in shots:
            weapon, *rest = shot.use.split()
            if not shot.groups or weapon not in ("fire_control", "scrambler", "radio_control"):
                continue
            target = self.p(shot.groups[0][0])
            if weapon == "fire_control" and rest[0] == "lock":
                register = int(rest[1])
                target.fire_locks.add(register)
                self.update_locks(target)
                self.emit(
                    EventKind.CARD_REVEALED,
                    seat=target.seat,
                    amount=register,
                    other=shot.seat,
                    cause="fire control lock",
                )
            elif weapon == "fire_control" and target.has(rest[1]):
                self.lose_option(target, rest[1], "fire control")
            elif weapon == "scrambler":
                nxt = target.registers[s.register]
                if target.active and nxt.cards and not nxt.locked:
                    self.replace_from_deck(target, nxt, "scrambler")
                    nxt.revealed = False
            elif weapon == "radio_control" and target.active and self.p(shot.seat).active:
                target.controlled_by = shot.seat
                self.emit(
                    EventKind.CARD_REPLACED,
                    seat=target.seat,
                    other=shot.seat,
                    cause="radio control",
                )
        s.stage = "touch"

    # -------------------------------------------------------------- damage
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
        for seat in self.s.dock_order():
            player = self.p(seat)
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
                        EventKind.DAMAGE_PREVENTED,
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
                self.emit(EventKind.DAMAGE_PREVENTED, seat=seat, amount=take, cause="ablative coat")
                if used + take >= ABLATIVE_CAPACITY:
                    self.lose_option(player, "ablative_coat", "ablative coat full")
            while shieldable > 0 and player.options:
                choice = self.choose(
                    seat,
                    CHOICE,
                    "shield",
                    f"Your robot takes {total} damage: discard an option card to prevent 1?",
                    ("keep", *player.option_names()),
                    "take the damage",
                )
                if choice == "keep":
                    break
                self.lose_option(player, choice, "prevents 1 damage")
                self.emit(
                    EventKind.DAMAGE_PREVENTED,
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
                EventKind.DAMAGED,
                seat=seat,
                pos=player.pos,
                amount=total,
                other=shooter,
                cause=cause,
            )
            if player.damage < DESTROYED_AT:
                self.update_locks(player)
        for seat in self.s.dock_order():
            player = self.p(seat)
            if player.pos is not None and player.damage >= DESTROYED_AT:
                self.destroy(seat, "damage", player.pos)

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
        self.emit(EventKind.DESTROYED, seat=seat, pos=where, amount=player.lives, cause=cause)
        for other in s.cplayers:
            if other.controlled_by == seat:  # Radio Control ends with its controller (8.3 #19)
                other.controlled_by = None
                self.emit(EventKind.CARD_REPLACED, seat=other.seat, other=seat, cause=RC_ENDED)
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
                "Your robot was destroyed: which option card does it lose?",
                tuple(player.option_names()),
            )
            self.lose_option(player, name, "destroyed")

    # ----------------------------------------------------------- flags, E
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
        self.emit(EventKind.ELEMENT_STEP, cause="flags")
        finishers: list[int] = []
        for seat in s.dock_order():
            player = self.p(seat)
            if player.pos is None:
                continue
            touched: Pos | None = None
            for square in self.reach(player):
                cell = grid.cell(square)
                if cell is not None and cell.checkpoint == player.checkpoint + 1:
                    player.checkpoint += 1
                    touched = square
                    self.emit(
                        EventKind.CHECKPOINT_REACHED,
                        seat=seat,
                        pos=square,
                        amount=player.checkpoint,
                        cause=None if square == player.pos else "mechanical arm",
                    )
                    break
            if touched is None and not self.y94:
                # [V1994] the backup token moves only to a checkpoint credited (004: 56-58)
                for square in self.reach(player):
                    cell = grid.cell(square)
                    if cell is not None and (cell.checkpoint is not None or cell.repair):
                        touched = square
                        break
            if touched is not None and (
                player.archive != touched or player.archive_arrow != player.facing
            ):
                player.archive, player.archive_arrow = touched, player.facing
                self.emit(
                    EventKind.ARCHIVED,
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
                    self.emit(EventKind.GAME_WON, seat=seat, cause="shared")
            self.finish(ranked[0], "checkpoints")
            return
        for seat in ranked:
            player = self.p(seat)
            s.places.append(seat)
            self.emit(EventKind.GAME_WON, seat=seat, amount=len(s.places), cause="place")
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
        self.emit(EventKind.ELEMENT_STEP, cause="repairs")
        for seat in s.dock_order():
            player = self.p(seat)
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
                EventKind.DAMAGE_PREVENTED,
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
                        EventKind.CARDS_DRAWN,
                        seat=seat,
                        card=card.name,
                        amount=1,
                        cause="option card",
                    )
        for seat in s.dock_order():
            player = self.p(seat)
            if player.pos is not None and player.has("circuit_breaker") and player.damage >= 3:
                player.announced = True
                player.round_flags.add("breaker")
                self.emit(EventKind.SHUT_DOWN, seat=seat, pos=player.pos, cause="circuit breaker")
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
                seat
                for seat in self.s.dock_order()
                if self.p(seat).pos is not None
                and self.p(seat).shutdown
                and "breaker" not in self.p(seat).round_flags
            ]
            # Every answer first, then the announcements (ASK_FIRST: no snapshot needed).
            stay = [
                s
                for s in asked
                if self.power_question(s, "stay_down", "Stay powered down next round?")
            ]
            for seat in stay:
                player = self.p(seat)
                player.announced = True
                self.emit(
                    EventKind.SHUT_DOWN, seat=seat, pos=player.pos, cause="stays powered down"
                )
        self.s.stage = "reenter"

    def reentry_options(self, player: ClassicPlayer) -> tuple[str, ...]:
        """6.7 / A-47: the archive square with a free facing, or, when it is occupied, a free
        square around it whose facing sees no robot within 3 squares ([V1994]: any facing)."""
        archive = player.archive
        assert archive is not None
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
        2 damage (+ damage taken while powered down, A-46); they may power down next round."""
        s = self.s
        waiting = sorted(
            (p for p in s.cplayers if p.destroyed and not p.eliminated),
            key=lambda p: p.destroyed_seq,
        )
        for player in waiting:
            seat = player.seat
            options = self.reentry_options(player)
            choice = self.choose(
                seat,
                PLACE,
                "reenter",
                "Your robot re-enters: choose its facing"
                if len(options[0]) == 1
                else "The archive square is taken: choose a square and facing next to it",
                options,
            )
            pos = player.archive
            letter = choice
            if " " in choice:
                where, letter = choice.split()
                pos = Pos.parse(where)
            assert pos is not None
            player.pos = pos
            player.facing = Direction.parse(letter)
            player.destroyed = False
            player.reentry = None
            if self.y94:
                base = 2 if self.has_variant("worse_backup_copy") else 0
            else:
                base = 0 if player.has("superior_archive") else 2
            player.damage = min(base + player.reentry_extra, DESTROYED_AT - 1)
            player.reentry_extra = 0
            player.pd_damage = 0
            self.emit(EventKind.REENTERED, seat=seat, pos=pos, to_facing=player.facing)
            if player.damage:
                self.emit(
                    EventKind.DAMAGED, seat=seat, pos=pos, amount=player.damage, cause="re-entry"
                )
            self.update_locks(player)
            if self.classic_power_down:
                player.announced = self.power_question(
                    seat,
                    "power_down",
                    "Re-enter powered down (your robot powers down next round)?",
                    player.announced,
                )
        self.check_end()
        if s.over:
            return
        self.emit(EventKind.ROUND_ENDED)
        s.stage = "round_start"
