"""The base of the classic rules: what every part of them shares.

:class:`ClassicBase` holds the rules' settings for this game (1994 or 2005, the power-down
rule, option cards, flag repairs, the timer), the wrapper that undoes a stage that suspends
(:func:`stage`: on a snapshot, unless ``QUIET_WHEN`` or ``ASK_FIRST`` says none is needed), the
helpers every concern uses (asking one seat, drawing and discarding program and option
cards, priorities, register locks), the damage about to be received (:class:`Hit`), and typed
declarations of the methods one concern calls in another, so that each mixin of
:class:`~roborally.engine.classic.rules.RulesClassic` type-checks alone.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from roborally.engine.classic.model import (
    NUM_REGISTERS,
    ClassicPlayer,
    ClassicState,
    is_move,
    locks_for,
)
from roborally.engine.core.board import BeltColor
from roborally.engine.core.cards import Card
from roborally.engine.core.decisions import Decision, DecisionKind
from roborally.engine.core.driver import StageDriver
from roborally.engine.core.events import (
    CARD_REPLACED,
    CARD_REVEALED,
    CONVEYED,
    DECK_SHUFFLED,
    MOVED,
    PUSHED,
)
from roborally.engine.core.geometry import Direction, Pos
from roborally.engine.core.mechanics import Suspend
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


def _quiet_unless(*options: str, falls: bool = False) -> Callable[[ClassicState], bool]:
    """The test of a stage that asks only through ``options`` and, with ``falls``, when a robot
    holding two option cards or more is destroyed (it chooses the one it loses, 6.5)."""
    asking = frozenset(options)

    def quiet(state: ClassicState) -> bool:
        for player in state.cplayers:
            if not player.options:
                continue
            if falls and len(player.options) > 1:
                return False
            if any(card.name in asking for card in player.options):
                return False
        return True

    return quiet


#: Stages that cannot ask anything while their test holds, so they run without a snapshot (the
#: snapshots were most of the classic engine's time). A stage asks only through the option
#: cards its test names (Crab Legs: how a pair runs when Dual Processor is held too), through
#: the card a destroyed robot loses (``falls``), through any option card (lasers: a weapon, or
#: a card given up to prevent damage), or never.
QUIET_WHEN: dict[str, Callable[[ClassicState], bool]] = {
    "stage_round_start": _never,
    "stage_power_down": _never,
    "stage_deal": _never,
    "stage_touch": _never,
    "stage_cleanup": _never,
    "stage_recompile": _quiet_unless("recompile"),
    "stage_store": _quiet_unless("conditional_program", "flywheel"),
    "stage_reveal": _quiet_unless(
        "gyroscopic_stabilizer", "conditional_program", "abort_switch", "crab_legs"
    ),
    "stage_move": _quiet_unless(
        "brakes", "fourth_gear", "reverse_gear", "ramming_gear", falls=True
    ),
    "stage_elements": _quiet_unless(falls=True),
    "stage_lasers": _no_option_cards,
}

#: Stages that ask every question before they change anything (a question may depend on the
#: answers before it, as a re-entry square on the squares chosen before it, never on a change
#: the stage made): a suspension leaves the state as it was (only the events are cut back), so
#: they need no snapshot either. Tests check this claim on whole games
#: (``RulesClassic.check_untouched``).
ASK_FIRST = frozenset(
    {"stage_first_card", "stage_program", "stage_announce", "stage_stay_down", "stage_reenter"}
)


def stage(method: F) -> F:
    """Run a stage so that if it suspends, every change it made is undone: on a snapshot,
    unless the stage is known not to need one (the sets above)."""
    name = method.__name__
    quiet = QUIET_WHEN.get(name)
    asks_first = name in ASK_FIRST

    @functools.wraps(method)
    def run(self: ClassicBase) -> None:
        self._asked = 0
        self._queued = []
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


def options_enabled(config: GameConfig) -> bool:
    if config.edition == "classic-1994":
        return "option_cards" in config.variants
    return "no_option_cards" not in config.variants


#: [V1994] The events after which the 1994 rules look for a checkpoint under the robot: it
#: counts as soon as the robot passes over it (5.10, A-60).
PASSING = frozenset({MOVED, PUSHED, CONVEYED})


class ClassicBase(StageDriver):
    """The shared state and helpers of the classic rules' mixins (see the module docstring)."""

    s: ClassicState

    def __init__(self, state: GameState) -> None:
        assert isinstance(state, ClassicState), "the classic rules need a ClassicState"
        super().__init__(state)
        variants = state.config.variants
        self.y94 = state.config.edition == "classic-1994"
        if self.y94:
            self.arrival_kinds = PASSING  # checkpoints count in passing (see arrived)
        self.emergency = "emergency_shutdown" in variants
        self.classic_power_down = not self.y94 and not self.emergency
        self.options_on = options_enabled(state.config)
        self.flags_repair = "no_flag_repair" not in variants
        self.timer = ("timer" in variants) if self.y94 else ("no_timer" not in variants)
        self.powered_down_fire = "powered_down_robots_fire" in variants
        self._asked = 0
        self._queued: list[Decision] = []  # questions waiting their turn (ask_in_turn)
        self.check_untouched = False  # tests: verify the ASK_FIRST stages' claim
        self._rammed: set[int] = set()  # robots this card's movement rammed (Ramming Gear)
        # Seats by ascending dock number, the order of announcements and choices (0.2). The
        # docks are dealt before the first stage and never change, and stages ask for the
        # order all the time, so it is sorted once here.
        self.dock_order: tuple[int, ...] = tuple(state.dock_order())

    def pending_after(self, answered: Decision, pending: list[Decision]) -> list[Decision] | None:
        """As the driver's, but the last programmer's decision changes (it gets the timer),
        and the next question :meth:`ask_in_turn` queued is the one a run would ask."""
        rest = super().pending_after(answered, pending)
        if rest is not None and self.timer and len(rest) == 1 and self.s.stage == "program":
            return None
        while rest is None and self._queued:
            question = self._queued.pop(0)
            if question.id not in self.s.answers:
                return [question]
        return rest

    # ============================================ provided by the concern mixins
    # (each is defined in one mixin; declared here so that every mixin type-checks alone.)
    # activation.py
    def replace_from_deck(self, p: ClassicPlayer, register: Any, cause: str) -> None:
        raise NotImplementedError

    def check_touch_win(self, by_dock: bool) -> bool:
        raise NotImplementedError

    # choices.py
    @staticmethod
    def pair_modes(names: list[str], pairs: list[str]) -> list[str]:
        raise NotImplementedError

    # damage.py
    def apply_damage(self, hits: list[Hit]) -> None:
        raise NotImplementedError

    def destroy(self, seat: int, cause: str, where: Pos | None) -> None:
        raise NotImplementedError

    # flags.py
    def check_end(self) -> None:
        raise NotImplementedError

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
        return self.s.players[seat]  # type: ignore[return-value]  # always ClassicPlayers

    def in_dock_order(self) -> list[ClassicPlayer]:
        """The robots by ascending dock number (0.2)."""
        players = self.s.cplayers
        return [players[seat] for seat in self.dock_order]

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
        decision = Decision(
            self.question_id(seat, what),
            seat,
            kind,
            prompt,
            options,
            default or (f"{options[0]}" if options else ""),
            info or {},
        )
        return self.answer(decision)

    def question_id(self, seat: int, what: str) -> str:
        """The id of the stage's next question (numbered in the order the stage asks them)."""
        self._asked += 1
        s = self.s
        return f"t{s.round}-r{s.register}-{s.stage}-{self._asked}-p{seat + 1}-{what}"

    def answer(self, decision: Decision) -> Any:
        """The answer to one question (the stage suspends until it is there), checked again:
        answers may be given to a stage directly (scenarios)."""
        return self.validate(decision, self.ask_one(decision))

    def ask_in_turn(self, questions: list[Decision]) -> list[Any]:
        """The answers to questions known before any is answered, asked one at a time in this
        order, as :meth:`choose` would. The ones after the question that suspends the stage
        wait in turn: :meth:`pending_after` asks them without running the stage again for
        every answer."""
        answers = []
        for index, decision in enumerate(questions):
            if decision.id not in self.s.answers:
                self._queued = questions[index + 1 :]
            answers.append(self.answer(decision))
        return answers

    def yes(self, seat: int, what: str, prompt: str) -> bool:
        return bool(self.choose(seat, CHOICE, what, prompt, NO_YES, "no") == "yes")

    def power_question(self, seat: int, what: str, prompt: str, default: bool = False) -> bool:
        return bool(self.answer(self.power_decision(seat, what, prompt, default)))

    def power_decision(self, seat: int, what: str, prompt: str, default: bool = False) -> Decision:
        """A power-down question (true/false) to one seat."""
        question_id = self.question_id(seat, what)
        fallback = "yes" if default else "no"
        return Decision(
            question_id, seat, POWER, prompt, (False, True), fallback, {"default": default}
        )

    def occupants(self) -> dict[Pos, list[int]]:
        """Robots on the board by square (several only where 1994 robots share a square)."""
        occ: dict[Pos, list[int]] = {}
        for seat in self.dock_order:
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
            self.emit(DECK_SHUFFLED, amount=len(cards), cause=f"{deck} deck")
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
        self.emit(CARD_REPLACED, seat=player.seat, card=name, cause=cause)

    def register_priority(self, player: ClassicPlayer, r: int) -> int | None:
        cards = player.registers[r - 1].cards
        if len(cards) <= 1:
            return cards[0].priority if cards else None
        moves = [c for c in cards if is_move(c)]  # a pair's priority is its move's
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
                            CARD_REVEALED,
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
