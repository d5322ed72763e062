"""The base of the 2023 rules: what every part of them shares.

:class:`Base2023` holds the rules' own state beside the game state (the resolving card, the
movement in progress, the unit of work that names the decisions), the helpers every concern uses
(upgrade ownership and events, energy, the snapshot that makes a stage safe to re-run, the
``upgrade`` questions), the upgrade cards' data, and typed declarations of the methods one
concern calls in another, so that each mixin of :class:`~roborally.engine.rules2023.rules.Rules2023`
type-checks alone.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from typing import Any, TypeVar

from roborally.engine.core.board import BeltColor
from roborally.engine.core.cards import PROGRAMMING, PROGRAMMING_CARDS, Card, CardType
from roborally.engine.core.decisions import Decision, DecisionKind
from roborally.engine.core.driver import StageDriver
from roborally.engine.core.events import DECK_SHUFFLED, UPGRADE
from roborally.engine.core.geometry import Direction, Pos
from roborally.engine.core.mechanics import Suspend
from roborally.engine.core.state import GameState, Player, Register
from roborally.engine.rules2023.upgrade_cards import PERMANENT, UpgradeSpec, load_upgrades

#: Push-triggered upgrades, which a card received by Modular Chassis cannot fire in that
#: register (000: 763).
PUSH_TRIGGERS = ("ramming_gear", "piercing_drill", "modular_chassis")
MAX_INSTALLED = 3  # per type (000: 151)

T = TypeVar("T")

BLUE = frozenset({BeltColor.BLUE})
GREEN = frozenset({BeltColor.GREEN})


@cache
def upgrade_specs() -> dict[str, UpgradeSpec]:
    """The shipped upgrade cards by id (loaded and validated from the data file)."""
    return {spec.id: spec for spec in load_upgrades()}


_PERMANENT = frozenset(PERMANENT)  # a set: PERMANENT is an ordered tuple of 24


def is_permanent(name: str) -> bool:
    return name in _PERMANENT


class Base2023(StageDriver):
    """The shared state and helpers of the 2023 rules' mixins (see the module docstring)."""

    def __init__(self, state: GameState) -> None:
        super().__init__(state)
        self._activation: int | None = None  # seat whose register card is resolving (12-C14)
        self._step_a = False  # inside step A: Hover Unit works (12-B8)
        self._depth = 0  # nesting of movements; falls of hovering robots settle at 0
        self._hovering: list[int] = []
        self._pushed: list[int] = []  # robots pushed by the resolving card (Modular Chassis)
        self._magnets_near = True  # a Magnetic robot may follow the resolving card's moves
        self._rammed: set[int] = set()  # robots pushed by this movement: one push each (000: 542)
        self._spiked: set[tuple[int, int]] = set()  # Spiky: (mover, spiky) once per movement
        self._unit: int | None = None  # whose turn or shot the current unit of work is
        self._counts: dict[tuple[int, str], int] = {}  # numbers repeated decisions in a unit
        self._received = 0  # damage cards received (Energy Conversion)
        # Each card name's type and effect (the programming cards' effect is their name), looked
        # up for every card drawn, discarded or resolved; a programming card's name wins.
        damage = state.config.damage_deck.cards
        self._card_types = {c.name: c.type for c in damage}
        self._card_types.update((name, PROGRAMMING) for name in PROGRAMMING_CARDS)
        self._card_effects = {c.name: c.effect for c in damage}
        self._card_effects.update((name, name) for name in PROGRAMMING_CARDS)

    # ============================================ provided by the concern mixins
    # (each is defined in one mixin; declared here so that every mixin type-checks alone.)
    # activation.py
    def replace_revealed(self, player: Player, card: Card, r: int) -> Card:
        raise NotImplementedError

    def gain_energy(self, player: Player, amount: int, cause: str) -> None:
        raise NotImplementedError

    # choices.py
    def program_info(self, player: Player) -> dict[str, Any]:
        raise NotImplementedError

    # damage.py
    def deal_damage(self, seat: int, amount: int, cause: str) -> None:
        raise NotImplementedError

    def draw_damage(self) -> Card | None:
        raise NotImplementedError

    def weapon_damage(self, seat: int, amount: int, cause: str) -> None:
        raise NotImplementedError

    def maybe_reenter(self, seat: int) -> None:
        raise NotImplementedError

    def displace(self, start: Pos, arrow: Direction) -> bool:
        raise NotImplementedError

    def nearest_free(self, start: Pos, arrow: Direction) -> Pos:
        raise NotImplementedError

    # round.py
    def draw(self, player: Player) -> Card | None:
        raise NotImplementedError

    def discard_hand(self, player: Player) -> None:
        raise NotImplementedError

    # triggers.py
    def moving(self, work: Callable[..., T], *args: Any) -> T:
        raise NotImplementedError

    def brakes(self, seat: int, card: Card) -> bool:
        raise NotImplementedError

    def ask_brakes(self, seat: int) -> str:
        raise NotImplementedError

    def after_rotation(self, seat: int, effect: str, register: Register) -> None:
        raise NotImplementedError

    def modular_chassis(self, seat: int) -> None:
        raise NotImplementedError

    # turn_windows.py
    def turn_window(self, seat: int, which: str) -> None:
        raise NotImplementedError

    def replace_register(self, player: Player, register: Register) -> None:
        raise NotImplementedError

    # upgrade_phase.py
    def reset_windows(self) -> None:
        raise NotImplementedError

    def use_any_time(self, player: Player, what: str) -> None:
        raise NotImplementedError

    def return_memory(self) -> None:
        raise NotImplementedError

    def spam_filter(self) -> None:
        raise NotImplementedError

    def install_glitch(self, seat: int) -> None:
        raise NotImplementedError

    def glitch_choices(self, player: Player) -> list[str]:
        raise NotImplementedError

    def ask_glitch(self, seat: int, names: list[str]) -> str:
        raise NotImplementedError

    def discard_glitches(self) -> None:
        raise NotImplementedError

    # =========================================================== helpers
    def card_type(self, card: Card) -> CardType:
        return self._card_types[card.name]

    def effect_of(self, card: Card) -> str:
        return self._card_effects[card.name]

    def has(self, seat: int | Player, name: str) -> bool:
        """Whether a player has upgrade ``name`` installed."""
        player = seat if isinstance(seat, Player) else self.s.players[seat]
        # A plain loop, three times faster than any() over a generator: this runs very often.
        for card in player.installed:  # noqa: SIM110
            if card.name == name:
                return True
        return False

    def holds_any(self, player: Player, names: frozenset[str]) -> bool:
        """Whether ``player`` has any of the upgrades ``names`` installed."""
        for card in player.installed:  # noqa: SIM110 - as in has()
            if card.name in names:
                return True
        return False

    def holders(self, name: str, besides: int | None = None) -> list[Player]:
        """The players (other than ``besides``) with upgrade ``name`` installed: one pass over
        every player's upgrades, cheaper than :meth:`has` for each."""
        found: list[Player] = []
        for player in self.s.players:
            if player.seat != besides:
                for card in player.installed:
                    if card.name == name:
                        found.append(player)
                        break
        return found

    def armed(self, seat: int, name: str) -> bool:
        """Installed and not received by Modular Chassis in this register (000: 763)."""
        player = self.s.players[seat]
        for card in player.installed:  # noqa: SIM110 - as in has()
            if card.name == name and card.uid not in player.fresh:
                return True
        return False

    def upgrade_event(
        self,
        seat: int,
        card: str,
        what: str,
        amount: int | None = None,
        other: int | None = None,
    ) -> None:
        """An upgrade card changes place or is used (``cause`` says what happened)."""
        player = self.s.players[seat]
        self.emit(
            UPGRADE,
            seat=seat,
            pos=player.pos,
            card=card,
            amount=amount,
            other=other,
            cause=what,
        )

    def spend(self, player: Player, amount: int) -> None:
        """Pay energy (12-B10: only when it can be paid; energy never goes below 0)."""
        assert 0 <= amount <= player.energy, f"P{player.seat + 1} cannot pay {amount}"
        player.energy -= amount

    def count_installed(self, player: Player, permanent: bool) -> int:
        """Installed upgrades of one type, not counting HW-INSTALL's free extra (5.7)."""
        glitch = self.s.glitch_installed
        count = 0
        for card in player.installed:
            if (card.name in _PERMANENT) == permanent and card.uid not in glitch:
                count += 1
        return count

    def lose_upgrade(self, player: Player, card: Card, what: str = "discarded") -> None:
        """An installed upgrade goes to the upgrade discard (Memory Cards drop their cards)."""
        player.installed.remove(card)
        self.s.upgrade_discard.append(card)
        self.drop_memory(player, card)
        self.upgrade_event(player.seat, card.name, what)

    def drop_memory(self, player: Player, card: Card) -> None:
        """Memory Cards lost with cards on it: they go to the discard pile (000: 729)."""
        if card.name == "memory_cards" and player.memory and not self.has(player, "memory_cards"):
            player.discard.extend(player.memory)
            player.memory = []

    def use_temporary(self, seat: int, name: str, other: int | None = None) -> None:
        """A temporary upgrade is used: it goes to the upgrade discard (9.1.1)."""
        player = self.s.players[seat]
        card = next(c for c in player.installed if c.name == name)
        player.installed.remove(card)
        self.s.upgrade_discard.append(card)
        self.upgrade_event(seat, name, "used", other=other)

    def draw_upgrade(self) -> Card | None:
        """The top upgrade card; the discard is reshuffled when the deck is empty (000: 691)."""
        if not self.s.upgrade_deck:
            if not self.s.upgrade_discard:
                return None  # 12-B11
            self.s.upgrade_deck = self.s.upgrade_discard
            self.s.upgrade_discard = []
            self.s.upgrade_rng.shuffle(self.s.upgrade_deck)
            self.emit(DECK_SHUFFLED, amount=len(self.s.upgrade_deck), cause="upgrade")
        return self.s.upgrade_deck.pop()

    def register_key(self) -> int:
        return self.s.round * 10 + self.s.register

    # ============================================================ snapshots
    def shield_ready(self, besides: int | None = None) -> bool:
        """Whether a robot (other than ``besides``) could be asked to raise Deflector Shield."""
        return any(self.shield_asks(p) for p in self.s.players if p.seat != besides)

    def shield_asks(self, player: Player) -> bool:
        """Whether weapon damage to ``player`` asks to raise Deflector Shield: the robot is
        on the board, has one, energy to pay, and no shield up in this register yet."""
        return (
            player.pos is not None
            and player.energy >= 1
            and player.shield != self.register_key()
            and self.has(player, "deflector_shield")
        )

    def attempt(
        self, unit: int | None, work: Callable[..., None], *args: Any, asks: bool = True
    ) -> None:
        """Run ``work`` so that a decision it asks half-way leaves the game untouched.

        The state is copied first; if ``work`` suspends, the copy is put back (the answers
        given so far are kept), so re-running after the answer gives the same game. Events are
        truncated instead of copied. ``unit`` is the seat whose turn (or shot) this is: it
        names the decisions other players are asked meanwhile (:meth:`next_id`). A caller
        that knows no decision can come (``asks=False``) skips the copy.
        """
        self.begin_unit(unit)
        if not asks:
            try:
                work(*args)
            except Suspend as suspend:  # a caller's "asks" test missed a case: fail loudly
                raise AssertionError(f"{work.__name__} asked without a snapshot") from suspend
            return
        # The events (all of the game's) and the answers (those of this stage) are not
        # copied: a rollback cuts the events back and keeps the answers as they are.
        events, answers = self.s.events, self.s.answers
        self.s.events, self.s.answers = [], {}
        try:
            snapshot = self.s.copy()
        finally:
            self.s.events, self.s.answers = events, answers
        mark = len(events)
        try:
            work(*args)
        except Suspend:
            answers = self.s.answers
            self.s.__dict__.update(snapshot.__dict__)
            del events[mark:]
            self.s.events = events
            self.s.answers = answers
            self._activation = None
            self._depth = 0
            self._hovering = []
            raise

    def begin_unit(self, unit: int | None) -> None:
        """Start naming the decisions of a unit of work (:meth:`attempt`, :meth:`next_id`)."""
        self._unit = unit
        self._counts = {}

    def next_id(self, seat: int, what: str) -> str:
        """A decision id inside a unit of work, from the position: ``t3-r2-p1-brakes``.

        A decision asked during another player's turn or shot names that player
        (``t3-r2-p2-magnetic-p1``); a repeated question gets a number (``...-brakes-2``).
        """
        count = self._counts.get((seat, what), 0) + 1
        self._counts[(seat, what)] = count
        text = f"p{seat + 1}-{what}"
        if self._unit is not None and self._unit != seat:
            text += f"-p{self._unit + 1}"
        if count > 1:
            text += f"-{count}"
        return self.did(text)

    def ask_choice(
        self,
        decision_id: str,
        seat: int,
        prompt: str,
        options: tuple[str, ...],
        default: str,
        info: dict[str, Any] | None = None,
    ) -> str:
        """Ask one ``upgrade`` decision; ``options[0]`` is what a timeout does."""
        decision = Decision(
            decision_id, seat, DecisionKind.UPGRADE, prompt, options, default, info or {}
        )
        choice = self.ask_one(decision)
        return str(choice)
