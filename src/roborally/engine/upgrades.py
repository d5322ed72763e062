"""The 40 upgrade cards of the 2023 edition (spec 1.5, 4.1, 4.5, 9 and 12-B7..B24, 12-C5..C15).

Card data (names, costs, texts, source lines) lives in ``engine/data/cards/upgrades-2023.json``
and is validated against :data:`IMPLEMENTED` when it loads. This module holds the rules:
:class:`UpgradeRules` is mixed into :class:`~roborally.engine.rules2023.Rules2023` and provides

* the **upgrade phase** (4.1) and the two other "free" windows, programming (W-PROG) and the
  end of programming (Memory Cards): every player who can do something answers a small
  ``upgrade_phase`` / ``upgrade`` decision, one step at a time, applied in turn order;
* the **activation windows** (4.5): before and after each player's own register card (movement
  upgrades, Abort Switch, Lucky Booster, Recharge, Re-Initialize), and the triggers inside a
  resolution (Brakes, Drifting, Power Slide, Ramming Gear, Piercing Drill, Modular Chassis,
  Magnetic, Spiky, Hover Unit) and in step B (Deflector Shield, Energy Conversion, the weapons);
* the hooks the core rules call: hand size (Flash Drive), reboot damage (Firewall), HW-INSTALL.

Every choice is a decision whose first option is its default, so a timed-out or absent player
never blocks the game. A player is asked only when they hold a card that is usable right now,
so games in which nobody holds upgrades ask nothing beyond the upgrade phase itself.

>>> len(PERMANENT), len(TEMPORARY), len(IMPLEMENTED)
(24, 16, 40)
>>> [c for c in MOVEMENT]
['boink', 'zoop', 'switch', 'overclocked', 'pressure_release', 'all_aboard']
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from typing import Any

from roborally.engine.core.board import BeltColor
from roborally.engine.core.cards import Card, CardType
from roborally.engine.core.decisions import TIMEOUT, Decision, DecisionKind
from roborally.engine.core.driver import StageDriver
from roborally.engine.core.events import EventKind
from roborally.engine.core.geometry import DIRECTIONS, Direction, Pos, Turn
from roborally.engine.core.mechanics import Mechanics, Suspend
from roborally.engine.core.rng import UPGRADE_STREAM, make_rng
from roborally.engine.core.state import MAX_ENERGY, NUM_REGISTERS, GameState, Player, Register
from roborally.engine.upgrade_cards import IMPLEMENTED as IMPLEMENTED
from roborally.engine.upgrade_cards import MOVEMENT as MOVEMENT
from roborally.engine.upgrade_cards import PERMANENT as PERMANENT
from roborally.engine.upgrade_cards import TEMPORARY as TEMPORARY
from roborally.engine.upgrade_cards import UpgradeSpec, load_upgrades

#: Weapons used "instead of firing your main laser" (9.1.5): at most one per register.
REPLACEMENT_WEAPONS = (
    "scrambler",
    "mini_howitzer",
    "pressor_beam",
    "tractor_beam",
    "displacing_blast",
)
#: Push-triggered upgrades, which a card received by Modular Chassis cannot fire in that
#: register (000: 763).
PUSH_TRIGGERS = ("ramming_gear", "piercing_drill", "modular_chassis")
MAX_INSTALLED = 3  # per type (000: 151)
#: Undos of an install per player and upgrade phase (an engine decision, docs/rules-2023.md).
MAX_UNDOS = 2

BLUE = frozenset({BeltColor.BLUE})
GREEN = frozenset({BeltColor.GREEN})


@cache
def upgrade_specs() -> dict[str, UpgradeSpec]:
    """The shipped upgrade cards by id (loaded and validated from the data file)."""
    return {spec.id: spec for spec in load_upgrades()}


def is_permanent(name: str) -> bool:
    return name in PERMANENT


def deal_upgrades(state: GameState) -> None:
    """Spec 2.1 step 4: shuffle the 40 upgrades and deal 3 to each player's reserve.

    The deck has its own generator stream (keyed by the game seed), so dealing leaves the main
    generator's sequence exactly as in a game without upgrades.
    """
    state.upgrades = True
    state.upgrade_rng = make_rng(state.config.seed, state.config.rng, UPGRADE_STREAM)
    state.upgrade_deck = [state.new_card(spec_id) for spec_id in upgrade_specs()]
    state.upgrade_rng.shuffle(state.upgrade_deck)
    for _ in range(3):
        for seat in state.turn_order():
            state.players[seat].reserve.append(state.upgrade_deck.pop())


def _options(*groups: list[str]) -> tuple[str, ...]:
    result: list[str] = []
    for group in groups:
        for option in group:
            if option not in result:
                result.append(option)
    return tuple(result)


class UpgradeRules(StageDriver):
    """The upgrade cards, mixed into the 2023 rules (see the module docstring)."""

    def __init__(self, state: GameState) -> None:
        super().__init__(state)
        self._activation: int | None = None  # seat whose register card is resolving (12-C14)
        self._step_a = False  # inside step A: Hover Unit works (12-B8)
        self._depth = 0  # nesting of movements; falls of hovering robots settle at 0
        self._hovering: list[int] = []
        self._pushed: list[int] = []  # robots pushed by the resolving card (Modular Chassis)
        self._rammed: set[int] = set()  # robots pushed by this movement: one push each (000: 542)
        self._spiked: set[tuple[int, int]] = set()  # Spiky: (mover, spiky) once per movement
        self._unit: int | None = None  # whose turn or shot the current unit of work is
        self._counts: dict[tuple[int, str], int] = {}  # numbers repeated decisions in a unit
        self._received = 0  # damage cards received (Energy Conversion)

    # ============================================ provided by the edition's rules
    # (Rules2023 defines these; they are declared here so this mixin type-checks alone.)
    def card_type(self, card: Card) -> CardType:
        raise NotImplementedError

    def draw(self, player: Player) -> Card | None:
        raise NotImplementedError

    def draw_damage(self) -> Card | None:
        raise NotImplementedError

    def deal_damage(self, seat: int, amount: int, cause: str) -> None:
        raise NotImplementedError

    def gain_energy(self, player: Player, amount: int, cause: str) -> None:
        raise NotImplementedError

    def replace_revealed(self, player: Player, card: Card, r: int) -> Card:
        raise NotImplementedError

    def discard_hand(self, player: Player) -> None:
        raise NotImplementedError

    def displace(self, start: Pos, arrow: Direction) -> bool:
        raise NotImplementedError

    def nearest_free(self, start: Pos, arrow: Direction) -> Pos:
        raise NotImplementedError

    # =========================================================== helpers
    def has(self, seat: int | Player, name: str) -> bool:
        """Whether a player has upgrade ``name`` installed."""
        player = seat if isinstance(seat, Player) else self.s.players[seat]
        return any(c.name == name for c in player.installed)

    def armed(self, seat: int, name: str) -> bool:
        """Installed and not received by Modular Chassis in this register (000: 763)."""
        player = self.s.players[seat]
        return any(c.name == name and c.uid not in player.fresh for c in player.installed)

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
            EventKind.UPGRADE,
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
        return sum(
            1
            for c in player.installed
            if is_permanent(c.name) == permanent and c.uid not in self.s.glitch_installed
        )

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
            self.emit(EventKind.DECK_SHUFFLED, amount=len(self.s.upgrade_deck), cause="upgrade")
        return self.s.upgrade_deck.pop()

    def register_key(self) -> int:
        return self.s.round * 10 + self.s.register

    # ============================================================ snapshots
    def anyone_has(self, *names: str, besides: int | None = None) -> bool:
        """Whether any player (other than ``besides``) has one of these upgrades installed."""
        return any(
            c.name in names for p in self.s.players if p.seat != besides for c in p.installed
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
        self._unit = unit
        self._counts = {}
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

    # ========================================================== free windows
    def reset_windows(self) -> None:
        for player in self.s.players:
            player.steps = 0
            player.window_done = False

    def run_free_window(
        self,
        name: str,
        options: Callable[[Player], tuple[str, ...]],
        apply: Callable[[Player, str], None],
        kind: DecisionKind,
        prompt: str,
    ) -> None:
        """A simultaneous window: every player with something to do answers one step at a time.

        Each round of questions goes to every player who is not done; the answers apply in turn
        order (12-B2), and the progress is kept in the state, so observations stay current. If
        applying an answer asks a follow-up (Memory Swap), the whole round of answers is applied
        again once it is answered.
        """
        while True:
            decisions: list[Decision] = []
            for seat in self.s.turn_order():
                player = self.s.players[seat]
                if player.window_done:
                    continue
                legal = options(player)
                if len(legal) <= 1:
                    player.window_done = True
                    continue
                decisions.append(
                    Decision(
                        f"t{self.s.round}-p{seat + 1}-{name}-{player.steps}",
                        seat,
                        kind,
                        prompt,
                        legal,
                        f"{legal[0]}",
                        {"window": name, "energy": player.energy},
                    )
                )
            if not decisions:
                return
            answers = self.ask(decisions)
            if any(str(a).endswith("memory_swap") for a in answers.values()):
                self.attempt(None, self.apply_window, decisions, answers, apply)  # it asks
            else:
                self.apply_window(decisions, answers, apply)

    def apply_window(
        self,
        decisions: list[Decision],
        answers: dict[str, Any],
        apply: Callable[[Player, str], None],
    ) -> None:
        """One round of a free window's answers, in turn order."""
        for decision in decisions:
            player = self.s.players[decision.seat]
            choice = answers[decision.id]
            if choice == TIMEOUT:
                choice = decision.options[0]
            if choice == "done":
                player.window_done = True
            else:
                apply(player, str(choice))
            player.steps += 1

    # ---------------------------------------------------------- upgrade phase
    def stage_upgrade(self) -> None:
        """4.1: draw (1 energy, once), install (its cost, once), uninstall, use temporaries."""
        if self.s.upgrades:
            self.run_free_window(
                "upgrade",
                self.upgrade_options,
                self.apply_upgrade_action,
                DecisionKind.UPGRADE_PHASE,
                "Upgrade phase: draw, install, uninstall, use a temporary upgrade, or done",
            )
        for player in self.s.players:  # the undo of an install ends with the phase
            player.installed_uid = 0
            player.undos = 0
        self.s.stage = "draw"

    def upgrade_options(self, player: Player) -> tuple[str, ...]:
        draw: list[str] = []
        if (
            not player.drew
            and player.energy >= 1
            and (self.s.upgrade_deck or self.s.upgrade_discard)
        ):
            draw.append("draw")
        install: list[str] = []
        if not player.installed_now:
            specs = upgrade_specs()
            for card in player.reserve:
                spec = specs[card.name]
                if spec.cost <= player.energy and (
                    self.count_installed(player, spec.permanent) < MAX_INSTALLED
                ):
                    install.append(f"install {card.name}")
        undo = [f"undo install {name}"] if (name := self.undoable(player)) else []
        use = self.any_time_options(player, upgrade_phase=True)
        uninstall = [f"uninstall {c.name}" for c in player.installed]
        return _options(["done"], draw, install, undo, use, uninstall)

    def undoable(self, player: Player) -> str | None:
        """The card this phase's install put in place, if that install may be taken back.

        An engine decision (docs/rules-2023.md): the phase is simultaneous and nothing in it
        interacts between players (4.1), so a player may take back the install of this phase
        while the card is untouched (still installed: not used, not uninstalled), at most
        :data:`MAX_UNDOS` times a phase, and only when the whole cost can be refunded (energy
        stays at most 10). Saying "done" ends the player's phase, and with it the undo.
        """
        if not player.installed_uid or player.undos >= MAX_UNDOS:
            return None
        card = next((c for c in player.installed if c.uid == player.installed_uid), None)
        if card is None:
            return None
        if player.energy + upgrade_specs()[card.name].cost > MAX_ENERGY:
            return None
        return card.name

    def apply_upgrade_action(self, player: Player, choice: str) -> None:
        verb, _, rest = choice.partition(" ")
        seat = player.seat
        if verb == "draw":
            card = self.draw_upgrade()
            if card is None:
                # 12-B11: an earlier player in turn order took the last card; no draw, no cost.
                player.drew = True
                return
            self.spend(player, 1)
            player.reserve.append(card)
            player.drew = True
            self.emit(EventKind.CARDS_DRAWN, seat=seat, amount=1, cause="upgrade deck")
        elif verb == "install":
            card = next(c for c in player.reserve if c.name == rest)
            cost = upgrade_specs()[rest].cost
            self.spend(player, cost)
            player.reserve.remove(card)
            player.installed.append(card)
            player.installed_now = True
            player.installed_uid = card.uid
            self.upgrade_event(seat, rest, "installed", amount=cost)
        elif verb == "undo":
            name = rest.partition(" ")[2]
            assert rest.startswith("install ") and self.undoable(player) == name, choice
            card = next(c for c in player.installed if c.uid == player.installed_uid)
            cost = upgrade_specs()[name].cost
            player.installed.remove(card)
            player.reserve.append(card)
            player.energy += cost
            player.installed_now = False
            player.installed_uid = 0
            player.undos += 1
            self.upgrade_event(seat, name, "install undone", amount=cost)
        elif verb == "uninstall":
            card = next(c for c in player.installed if c.name == rest)
            self.lose_upgrade(player, card, "uninstalled")
        elif verb == "use":
            self.use_any_time(player, rest)
        else:
            raise AssertionError(f"unknown upgrade action {choice!r}")

    def any_time_options(self, player: Player, upgrade_phase: bool) -> list[str]:
        """Non-movement temporaries usable outside a register (4.5 W-UP / W-PROG, 12-C8)."""
        result: list[str] = []
        names = [c.name for c in player.installed]
        if "recharge" in names and player.energy < MAX_ENERGY:
            result.append("use recharge")
        if "rewire" in names and upgrade_phase and any(r.locked for r in player.registers):
            result.append("use rewire")
        if "memory_swap" in names and (player.deck or player.discard or player.hand):
            result.append("use memory_swap")
        if "calibration_protocol" in names and any(
            self.card_type(c).is_damage for c in player.hand
        ):
            result.append("use calibration_protocol")
        if "re_initialize" in names:
            result.extend(f"use re_initialize p{seat + 1}" for seat in range(len(self.s.players)))
        return result

    def use_any_time(self, player: Player, what: str) -> None:
        name, _, arg = what.partition(" ")
        seat = player.seat
        if name == "recharge":
            self.use_temporary(seat, name)
            self.gain_energy(player, 3, "recharge")
        elif name == "rewire":
            self.use_temporary(seat, name)
            for register in player.registers:
                if register.locked:
                    player.hand.extend(register.cards)
                    register.cards = []
                    register.locked = False
        elif name == "memory_swap":
            self.memory_swap(player)
        elif name == "calibration_protocol":
            self.use_temporary(seat, name)
            damage = [c for c in player.hand if self.card_type(c).is_damage]
            for card in damage:
                player.hand.remove(card)
                self.s.damage_discard.append(card)
            drawn_count = 0
            for _ in damage:
                new = self.draw(player)
                if new is None:
                    break
                player.hand.append(new)
                drawn_count += 1
            self.emit(
                EventKind.CARDS_DRAWN, seat=seat, amount=drawn_count, cause="calibration protocol"
            )
        elif name == "re_initialize":
            target = int(arg[1:]) - 1
            self.use_temporary(seat, name, other=target)
            self.s.priority = target  # 12-B7: the current step keeps its order (s.order)
        else:
            raise AssertionError(f"{name} is not usable now")

    def memory_swap(self, player: Player) -> None:
        """Memory Swap (000: 862-864): draw 3, then put 3 cards from the hand back on top.

        The three cards are chosen one at a time (the last one put back ends up on top). The
        default puts the drawn cards back as they were.
        """
        seat = player.seat
        self.use_temporary(seat, "memory_swap")
        drawn: list[str] = []
        for _ in range(3):
            card = self.draw(player)
            if card is None:
                break
            player.hand.append(card)
            drawn.append(card.name)
        self.emit(EventKind.CARDS_DRAWN, seat=seat, amount=len(drawn), cause="memory swap")
        suggestions = list(reversed(drawn))
        for left in range(min(3, len(player.hand)), 0, -1):
            names = sorted({c.name for c in player.hand})
            first = next((n for n in suggestions if n in names), names[0])
            choice = self.ask_choice(
                self.next_id(seat, "memory_swap"),
                seat,
                f"Memory Swap: put a card from your hand on top of your deck ({left} to go)",
                tuple(f"put {n}" for n in [first, *[n for n in names if n != first]]),
                f"put {first}",
                {"card": "memory_swap", "hand": [c.name for c in player.hand], "left": left},
            )
            name = choice.partition(" ")[2]
            if name in suggestions:
                suggestions.remove(name)
            put = next(c for c in player.hand if c.name == name)
            player.hand.remove(put)
            player.deck.append(put)
        player.top_visible = False

    # ------------------------------------------------------ programming windows
    def stage_prog_window(self) -> None:
        """W-PROG (4.5): after the hand is drawn, before programming (any-time temporaries)."""
        if self.s.upgrades:
            self.run_free_window(
                "program_window",
                lambda p: _options(["done"], self.any_time_options(p, upgrade_phase=False)),
                lambda p, c: self.use_any_time(p, c.partition(" ")[2]),
                DecisionKind.UPGRADE,
                "Use a temporary upgrade before programming?",
            )
        self.s.stage = "program"

    def stage_memory(self) -> None:
        """Memory Cards (000: 727): at the end of programming, park non-damage hand cards."""
        if self.s.upgrades:
            self.run_free_window(
                "memory_cards",
                self.memory_options,
                self.store_memory,
                DecisionKind.UPGRADE,
                "Memory Cards: park a card from your hand until the next upgrade phase?",
            )
            for player in self.s.players:
                self.discard_hand(player)
        self.s.stage = "shutdown"

    def memory_options(self, player: Player) -> tuple[str, ...]:
        if not self.has(player, "memory_cards"):
            return ()
        names = sorted({c.name for c in player.hand if not self.card_type(c).is_damage})
        return _options(["done"], [f"store {n}" for n in names])

    def store_memory(self, player: Player, choice: str) -> None:
        name = choice.partition(" ")[2]
        card = next(c for c in player.hand if c.name == name)
        player.hand.remove(card)
        player.memory.append(card)

    def return_memory(self) -> None:
        """Memory Cards: the parked cards return to the hand when the upgrade phase starts."""
        for player in self.s.players:
            if player.memory:
                player.hand.extend(player.memory)
                self.emit(
                    EventKind.CARDS_DRAWN,
                    seat=player.seat,
                    amount=len(player.memory),
                    cause="memory cards",
                )
                player.memory = []

    def spam_filter(self) -> None:
        """Spam Filter (000: 811): the top card of the deck is turned face up (12-B22)."""
        for seat in self.s.turn_order():
            player = self.s.players[seat]
            if not self.has(player, "spam_filter"):
                continue
            if not player.deck and player.discard:
                player.deck = player.discard
                player.discard = []
                self.s.rng.shuffle(player.deck)
                self.emit(EventKind.DECK_SHUFFLED, seat=seat, amount=len(player.deck))
            if player.deck:
                player.top_visible = True
                self.emit(
                    EventKind.CARD_REVEALED,
                    seat=seat,
                    card=player.deck[-1].name,
                    cause="spam filter",
                )

    # ============================================================ programs
    def program_info(self, player: Player) -> dict[str, Any]:
        """Extra PROGRAM info: Crab Legs pairs and Haywires that Rewire put in the hand."""
        info: dict[str, Any] = {}
        if self.s.upgrades and self.has(player, "crab_legs"):
            info["pairs"] = True
        forced = [c.name for c in player.hand if self.card_type(c) is CardType.HAYWIRE]
        if forced:
            info["forced"] = forced
        return info

    @staticmethod
    def pair_of(entry: str) -> tuple[str, str] | None:
        """``"move1+rotate_left"`` (either order) as (move, rotation); None if not a pair."""
        parts = entry.split("+")
        if len(parts) != 2:
            return None
        names = set(parts)
        if "move1" in names and names & {"rotate_left", "rotate_right"} and len(names) == 2:
            rotation = next(n for n in parts if n != "move1")
            return "move1", rotation
        return None

    # ======================================================= turn windows
    def turn_window(self, seat: int, which: str) -> None:
        """W-PRE / W-POST (4.5): before and after a player's own register card."""
        player = self.s.players[seat]
        while self.s.upgrades and player.pos is not None and not player.shutdown:
            options = self.window_options(player, which)
            if len(options) <= 1:
                return
            decision_id = self.did(f"p{seat + 1}-{which}-{self.s.window}")
            prompt = (
                "Use an upgrade before your register card?"
                if which == "pre"
                else "Use a movement upgrade after your register card?"
            )
            choice = self.ask_choice(
                decision_id, seat, prompt, options, "use nothing", {"window": which}
            )
            if choice == "none":
                return
            self.attempt(seat, self.use_in_window, seat, choice)
            self.s.window += 1

    def window_options(self, player: Player, which: str) -> tuple[str, ...]:
        names = {c.name for c in player.installed}
        result: list[str] = ["none"]
        if which == "pre":
            register = player.registers[self.s.register - 1]
            if register.cards and not register.done:
                result.extend(f"use {n}" for n in ("abort_switch", "lucky_booster") if n in names)
        result.extend(self.movement_options(player, names))
        if which == "pre":
            if "recharge" in names and player.energy < MAX_ENERGY:
                result.append("use recharge")
            if "re_initialize" in names:
                result.extend(
                    f"use re_initialize p{seat + 1}" for seat in range(len(self.s.players))
                )
        return tuple(result)

    def movement_options(self, player: Player, names: set[str]) -> list[str]:
        pos = player.pos
        assert pos is not None
        result: list[str] = []
        occupied = self.s.occupancy()
        if "boink" in names:
            for d in DIRECTIONS:
                nxt = pos.step(d)
                if (
                    not self.edge_blocks(pos, d)
                    and self.grid.is_on_course(nxt)
                    and nxt not in occupied
                ):
                    result.append(f"boink {d.letter}")
        if "zoop" in names:
            result.extend(f"zoop {d.letter}" for d in DIRECTIONS if d != player.facing)
        if "switch" in names:
            for d in DIRECTIONS:
                other = occupied.get(pos.step(d))
                if other is not None and not self.grid.wall_between(pos, d):
                    result.append(f"switch p{other + 1}")
        if "overclocked" in names:
            result.append("use overclocked")
        if "pressure_release" in names:
            result.append("use pressure_release")
        if "all_aboard" in names and self.grid.belts[self.grid.index(pos)] is not None:
            result.append("use all_aboard")
        return result

    def use_in_window(self, seat: int, choice: str) -> None:
        player = self.s.players[seat]
        verb, _, arg = choice.partition(" ")
        if verb == "boink":
            self.use_temporary(seat, "boink")
            self.moving(lambda: self.step(seat, Direction.parse(arg), "boink"))
        elif verb == "zoop":
            self.use_temporary(seat, "zoop")
            self.face(seat, Direction.parse(arg), "zoop")
        elif verb == "switch":
            other = self.s.players[int(arg[1:]) - 1]
            self.use_temporary(seat, "switch", other=other.seat)
            a, b = player.pos, other.pos
            assert a is not None and b is not None
            player.pos, other.pos = b, a
            self.emit(EventKind.MOVED, seat=seat, pos=a, to=b, cause="switch")
            self.emit(EventKind.MOVED, seat=other.seat, pos=b, to=a, cause="switch")
        elif verb == "use":
            name = arg.partition(" ")[0]
            if name in ("recharge", "re_initialize"):
                self.use_any_time(player, arg)
            elif name == "abort_switch":
                self.abort_switch(seat)
            elif name == "lucky_booster":
                self.lucky_booster(seat)
            elif name == "overclocked":
                self.use_temporary(seat, name)
                self.move(seat, player.facing, 2, "overclocked")
            elif name == "pressure_release":
                self.use_temporary(seat, name)
                self.moving(lambda: self.pressure_release(seat))
            elif name == "all_aboard":
                self.use_temporary(seat, name)
                self.convey(BLUE, "all aboard", only=seat)
                self.convey(BLUE, "all aboard", only=seat)
                self.convey(GREEN, "all aboard", only=seat)
            else:
                raise AssertionError(choice)
        else:
            raise AssertionError(choice)

    def pressure_release(self, seat: int) -> None:
        """Back up to 5 spaces; stop before a push, at a wall, or by falling (000: 894-897)."""
        player = self.s.players[seat]
        back = player.facing.opposite
        for _ in range(5):
            pos = player.pos
            if pos is None or self.edge_blocks(pos, back):
                return
            if self.s.robot_at(pos.step(back)) is not None:
                return
            if not self.step(seat, back, "pressure release"):
                return

    def replace_register(self, player: Player, register: Register) -> None:
        """The cards a replacement removes: damage to the damage discard, others to the discard."""
        for card in register.cards:
            if self.card_type(card).is_damage:
                self.s.damage_discard.append(card)
            else:
                player.discard.append(card)
        register.cards = []

    def abort_switch(self, seat: int) -> None:
        """Abort Switch (000: 840-844): the revealed card is replaced from the deck, face up."""
        player = self.s.players[seat]
        self.use_temporary(seat, "abort_switch")
        register = player.registers[self.s.register - 1]
        old = " ".join(c.name for c in register.cards)
        self.replace_register(player, register)
        card = self.draw(player)
        self.emit(
            EventKind.CARD_REPLACED,
            seat=seat,
            card=old,
            cause=card.name if card else "empty deck",
        )
        if card is None:
            return
        self.emit(EventKind.CARD_REVEALED, seat=seat, card=card.name, amount=self.s.register)
        card = self.replace_revealed(player, card, self.s.register)
        register.cards = [card] if card.uid >= 0 else []

    def lucky_booster(self, seat: int) -> None:
        """Lucky Booster (000: 905-909): turn damage cards until a Haywire, then keep or drop it."""
        player = self.s.players[seat]
        self.use_temporary(seat, "lucky_booster")
        found: Card | None = None
        for _ in range(len(self.s.damage_deck) + len(self.s.damage_discard)):
            card = self.draw_damage()
            if card is None:
                break
            self.emit(EventKind.CARD_REVEALED, seat=seat, card=card.name, cause="lucky booster")
            if self.card_type(card) is CardType.HAYWIRE:
                found = card
                break
            self.s.damage_discard.append(card)
        if found is None:
            return
        register = player.registers[self.s.register - 1]
        choice = self.ask_choice(
            self.next_id(seat, "lucky_booster"),
            seat,
            f"Lucky Booster found {found.name}: put it in place of your register card?",
            ("discard", "replace"),
            "discard the Haywire",
            {"card": "lucky_booster", "haywire": found.name},
        )
        if choice == "replace":
            old = " ".join(c.name for c in register.cards)
            self.replace_register(player, register)
            register.cards = [found]
            self.emit(EventKind.CARD_REPLACED, seat=seat, card=old, cause=found.name)
        else:
            self.s.damage_discard.append(found)

    # ======================================================= movement hooks
    def moving(self, work: Callable[[], object]) -> None:
        """Run a movement; hovering robots that end it on a pit fall afterwards (12-B8)."""
        self._depth += 1
        try:
            work()
        finally:
            self._depth -= 1
        if self._depth == 0:
            self.settle_hover()

    def settle_hover(self) -> None:
        hovering, self._hovering = self._hovering, []
        for seat in hovering:
            player = self.s.players[seat]
            pos = player.pos
            if pos is not None and self.grid.pits[self.grid.index(pos)]:
                player.pos = None
                self.fall(seat, pos, pos, "pit")

    def hovers(self, seat: int) -> bool:
        return self._step_a and self.has(seat, "hover_unit")

    def move(self, seat: int, direction: Direction, steps: int, cause: str) -> int:
        if not self.s.upgrades:
            return super().move(seat, direction, steps, cause)
        outer = self._depth == 0
        card_move = self._activation == seat and outer
        magnets: list[int] = []
        if outer:
            self._rammed = set()
            self._spiked = set()
        pushed_before = len(self._pushed)
        if card_move:
            magnets = self.magnet_candidates(seat)
        moved = 0

        def run() -> None:
            nonlocal moved
            moved = Mechanics.move(self, seat, direction, steps, cause)

        self.moving(run)
        if magnets and moved > 0:
            pushed = set(self._pushed[pushed_before:])
            self.magnetic(seat, [m for m in magnets if m not in pushed], direction, moved)
        return moved

    def floats(self, seat: int) -> bool:
        """Hover Unit (12-B8): a hovering robot falls only where its movement ends."""
        if not self.hovers(seat):
            return False
        if seat not in self._hovering:
            self._hovering.append(seat)
        return True

    def push(self, start: Pos, direction: Direction, pusher: int | None, cause: str) -> bool:
        """Push a line of robots (as in :class:`Mechanics`); a push that is not part of a
        movement settles hovering robots at its end."""
        if not self.s.upgrades:
            return super().push(start, direction, pusher, cause)
        if self._depth == 0:
            self._spiked = set()
        movable = super().push(start, direction, pusher, cause)
        if self._depth == 0:
            self.settle_hover()
        return movable

    def pushed_line(
        self,
        groups: list[list[int]],
        movable: bool,
        direction: Direction,
        pusher: int | None,
        cause: str,
    ) -> None:
        """Spiky (000: 823-827, 12-B18): whoever moves or is pushed into a Spiky robot's space
        takes 1 damage, whether or not the Spiky robot actually moves."""
        if not self.s.upgrades:
            return
        chain = [seat for group in groups for seat in group]
        for mover, spiky in zip([pusher, *chain[:-1]], chain, strict=True):
            if mover is None or (mover, spiky) in self._spiked or not self.has(spiky, "spiky"):
                continue
            self._spiked.add((mover, spiky))
            self.upgrade_event(spiky, "spiky", "triggered", other=mover)
            self.deal_damage(mover, 1, "spiky")

    def after_push(self, seat: int, pushed: int, moved: bool) -> None:
        """Ramming Gear, Piercing Drill, Modular Chassis: pushes by the resolving card (12-C14).

        A push is a push however far the other robot travels, even 0 spaces against a wall,
        and a push over several steps of one movement is one push (000: 542, 548): each of
        the three acts once per movement and pushed robot, whether or not ``moved``.
        """
        if not self.s.upgrades or self._activation != seat or pushed in self._rammed:
            return
        self._rammed.add(pushed)
        if self.armed(seat, "ramming_gear"):
            self.upgrade_event(seat, "ramming_gear", "triggered", other=pushed)
            self.deal_damage(pushed, 1, "ramming gear")
        if pushed not in self._pushed:
            self._pushed.append(pushed)
        target = self.s.players[pushed]
        if self.armed(seat, "piercing_drill") and target.pos is not None:
            options = ("no", *(f"use {d.letter}" for d in DIRECTIONS))
            choice = self.ask_choice(
                self.next_id(seat, "piercing_drill"),
                seat,
                f"Piercing Drill: deal 1 damage to P{pushed + 1} and choose its facing?",
                options,
                "do not use it",
                {"card": "piercing_drill", "target": pushed},
            )
            if choice != "no":
                self.use_temporary(seat, "piercing_drill", other=pushed)
                self.deal_damage(pushed, 1, "piercing drill")
                if target.pos is not None:
                    self.face(pushed, Direction.parse(choice.split()[1]), "piercing drill")

    # --------------------------------------------------------------- Magnetic
    def adjacent(self, pos: Pos) -> dict[int, Direction]:
        """Robots orthogonally next to ``pos`` with no wall between (000: 681-683)."""
        occupancy = self.s.occupancy()
        result: dict[int, Direction] = {}
        for d in DIRECTIONS:
            other = occupancy.get(pos.step(d))
            if other is not None and not self.grid.wall_between(pos, d):
                result[other] = d
        return result

    def magnet_candidates(self, seat: int) -> list[int]:
        pos = self.s.players[seat].pos
        if pos is None:
            return []
        near = self.adjacent(pos)
        return [o for o in self.s.turn_order() if o in near and self.has(o, "magnetic")]

    def magnetic(self, mover: int, seats: list[int], direction: Direction, n: int) -> None:
        """12-C9: move the same number of spaces the neighbour moved, in the same direction."""
        saved = self._activation
        for seat in seats:
            player = self.s.players[seat]
            if player.pos is None or not self.has(seat, "magnetic"):
                continue
            choice = self.ask_choice(
                self.next_id(seat, "magnetic"),
                seat,
                f"Magnetic: move {n} space(s) {direction.name.lower()} along with P{mover + 1}?",
                ("stay", "follow"),
                "stay",
                {"card": "magnetic", "mover": mover, "direction": direction.letter, "spaces": n},
            )
            if choice == "follow":
                self.use_temporary(seat, "magnetic", other=mover)
                self._activation = None
                try:
                    self.move(seat, direction, n, "magnetic")
                finally:
                    self._activation = saved

    # ============================================================ resolution
    def brakes(self, seat: int, card: Card) -> bool:
        """Brakes (000: 705-709): a revealed Move 1 card may be resolved as Move 0."""
        if card.name != "move1" or not self.has(seat, "brakes"):
            return False
        choice = self.ask_choice(
            self.next_id(seat, "brakes"),
            seat,
            "Brakes: resolve this Move 1 as Move 0?",
            ("move", "brake"),
            "move 1 as printed",
            {"card": "brakes"},
        )
        if choice == "brake":
            self.upgrade_event(seat, "brakes", "used")
            return True
        return False

    def after_rotation(self, seat: int, effect: str, register: Register) -> None:
        """Drifting / Power Slide (000: 717-719, 789-791): after a Rotate card, move 1 forward."""
        name = {"rotate_left": "drifting", "rotate_right": "power_slide"}.get(effect)
        player = self.s.players[seat]
        if name is None or player.pos is None or not self.has(seat, name):
            return
        choice = self.ask_choice(
            self.next_id(seat, name),
            seat,
            f"{upgrade_specs()[name].name}: move 1 space forward?",
            ("stay", "move"),
            "stay",
            {"card": name},
        )
        if choice == "move":
            self.upgrade_event(seat, name, "used")
            saved = self._activation
            self._activation = None  # not "during your programming card activation" (12-C14)
            try:
                self.move(seat, player.facing, 1, name.replace("_", " "))
            finally:
                self._activation = saved

    def modular_chassis(self, seat: int) -> None:
        """Modular Chassis (000: 759-763): swap it for an upgrade of a robot you pushed."""
        if not self.armed(seat, "modular_chassis") or not self._pushed:
            return
        options = ["keep"]
        for pushed in self._pushed:
            if pushed == seat:
                continue
            names = sorted({c.name for c in self.s.players[pushed].installed})
            options.extend(f"swap p{pushed + 1} {n}" for n in names)
        if len(options) == 1:
            return
        choice = self.ask_choice(
            self.next_id(seat, "modular_chassis"),
            seat,
            "Modular Chassis: exchange it for an installed upgrade of a robot you pushed?",
            tuple(dict.fromkeys(options)),
            "keep Modular Chassis",
            {"card": "modular_chassis"},
        )
        if choice == "keep":
            return
        _, who, name = choice.split()
        other = self.s.players[int(who[1:]) - 1]
        me = self.s.players[seat]
        chassis = next(c for c in me.installed if c.name == "modular_chassis")
        taken = next(c for c in other.installed if c.name == name)
        me.installed.remove(chassis)
        other.installed.remove(taken)
        other.installed.append(chassis)
        me.installed.append(taken)
        me.fresh.append(taken.uid)
        other.fresh.append(chassis.uid)
        self.drop_memory(other, taken)
        self.upgrade_event(seat, name, "received", other=other.seat)
        self.upgrade_event(other.seat, "modular_chassis", "received", other=seat)
        self.enforce_limit(me, taken)
        self.enforce_limit(other, chassis)

    def enforce_limit(self, player: Player, received: Card) -> None:
        """12-C12: over 3 of a type after an exchange, discard one of that type at once."""
        permanent = is_permanent(received.name)
        if self.count_installed(player, permanent) <= MAX_INSTALLED:
            return
        names = [
            c.name
            for c in player.installed
            if is_permanent(c.name) == permanent and c.uid not in self.s.glitch_installed
        ]
        ordered = [received.name, *sorted(set(names) - {received.name})]
        choice = self.ask_choice(
            self.next_id(player.seat, "over_limit"),
            player.seat,
            "You hold more than 3 upgrades of this type: discard one",
            tuple(f"discard {n}" for n in ordered),
            f"discard {received.name}",
            {"card": received.name},
        )
        name = choice.partition(" ")[2]
        card = next(c for c in player.installed if c.name == name)
        self.lose_upgrade(player, card)

    def install_glitch(self, seat: int) -> None:
        """HW-INSTALL (003: 1355-1367): a free permanent upgrade from the reserve, this round."""
        player = self.s.players[seat]
        names = sorted({c.name for c in player.reserve if is_permanent(c.name)})
        if not self.s.upgrades or not names:
            return  # ignored without a permanent upgrade in reserve (000: 616)
        name = names[0]
        if len(names) > 1:
            name = self.ask_choice(
                self.next_id(seat, "hw_install"),
                seat,
                "Install which permanent upgrade from your reserve (free, for this round)?",
                tuple(f"install {n}" for n in names),
                f"install {names[0]}",
                {"card": "hw_install"},
            ).partition(" ")[2]
        card = next(c for c in player.reserve if c.name == name)
        player.reserve.remove(card)
        player.installed.append(card)
        self.s.glitch_installed.append(card.uid)
        self.upgrade_event(seat, name, "installed", amount=0)

    def discard_glitches(self) -> None:
        """End of round: upgrades installed by HW-INSTALL go to the upgrade discard (4.4)."""
        for uid in self.s.glitch_installed:
            for player in self.s.players:
                card = next((c for c in player.installed if c.uid == uid), None)
                if card is not None:
                    self.lose_upgrade(player, card)
                    break
        self.s.glitch_installed = []

    # ============================================================== damage
    def weapon_damage(self, seat: int, amount: int, cause: str) -> None:
        """Damage from lasers and weapons, which Deflector Shield can stop (000: 783-787)."""
        player = self.s.players[seat]
        if self.s.upgrades and self.has(player, "deflector_shield"):
            if player.shield == self.register_key():
                self.emit(EventKind.DAMAGE_PREVENTED, seat=seat, cause="deflector shield")
                return
            if player.energy >= 1:
                choice = self.ask_choice(
                    self.next_id(seat, "deflector_shield"),
                    seat,
                    f"Deflector Shield: pay 1 energy to stop {amount} {cause} damage"
                    " (and all weapon damage this register)?",
                    ("take", "shield"),
                    "take the damage",
                    {"card": "deflector_shield", "amount": amount, "cause": cause},
                )
                if choice == "shield":
                    self.spend(player, 1)
                    player.shield = self.register_key()
                    self.upgrade_event(seat, "deflector_shield", "used", amount=1)
                    self.emit(EventKind.DAMAGE_PREVENTED, seat=seat, cause="deflector shield")
                    return
        self.deal_damage(seat, amount, cause)

    def energy_conversion(self, seat: int) -> None:
        """Energy Conversion (000: 765-767): after board-laser damage, move 1 forward or back."""
        player = self.s.players[seat]
        if player.pos is None or not self.has(player, "energy_conversion"):
            return
        choice = self.ask_choice(
            self.next_id(seat, "energy_conversion"),
            seat,
            "Energy Conversion: move 1 space forward or backward?",
            ("stay", "forward", "back"),
            "stay",
            {"card": "energy_conversion"},
        )
        if choice != "stay":
            self.upgrade_event(seat, "energy_conversion", "used")
            d = player.facing if choice == "forward" else player.facing.opposite
            self.move(seat, d, 1, "energy conversion")

    def self_diagnostics(self, seat: int) -> None:
        """Self-Diagnostics (000: 779-781): remove a card of the hand or discard from the game."""
        player = self.s.players[seat]
        if not self.has(player, "self_diagnostics"):
            return
        options = ["none"]
        options.extend(f"hand {n}" for n in sorted({c.name for c in player.hand}))
        options.extend(f"discard {n}" for n in sorted({c.name for c in player.discard}))
        if len(options) == 1:
            return
        choice = self.ask_choice(
            self.next_id(seat, "self_diagnostics"),
            seat,
            "Self-Diagnostics: remove a card of your hand or discard pile from the game?",
            tuple(options),
            "remove nothing",
            {"card": "self_diagnostics"},
        )
        if choice == "none":
            return
        where, _, name = choice.partition(" ")
        pile = player.hand if where == "hand" else player.discard
        card = next(c for c in pile if c.name == name)
        pile.remove(card)
        player.removed.append(card)
        self.upgrade_event(seat, "self_diagnostics", "used")
        self.emit(EventKind.CARD_REPLACED, seat=seat, card=name, cause="removed from the game")

    # ============================================================= weapons
    def fire_weapons(self, seat: int) -> None:
        """B6 for one robot: the main laser or one replacement weapon, plus the Rear Laser."""
        player = self.s.players[seat]
        if player.pos is None or player.shutdown:
            return  # 12-C5: a shut-down robot does not fire
        weapon = "main"
        if self.s.upgrades:
            target, _ = self.trace_shot(seat, player.facing)
            options = ["main"]
            if target is not None:
                for name in REPLACEMENT_WEAPONS:
                    if self.weapon_usable(player, name, target):
                        options.append(name)
            if len(options) > 1:
                weapon = self.ask_choice(
                    self.did(f"p{seat + 1}-weapon"),
                    seat,
                    "Fire your main laser or a weapon upgrade instead?",
                    tuple(options),
                    "fire the main laser",
                    {"target": target},
                )
        if weapon == "main":
            self.main_laser(seat)
        else:
            self.replacement_weapon(seat, weapon)
        if self.s.upgrades and self.has(player, "rear_laser") and player.pos is not None:
            self.rear_laser(seat)

    def weapon_usable(self, player: Player, name: str, target: int) -> bool:
        if not self.has(player, name):
            return False
        if name == "scrambler":
            return self.s.register < NUM_REGISTERS
        if name == "mini_howitzer":
            return player.energy >= 1
        if name == "tractor_beam":
            a, b = player.pos, self.s.players[target].pos
            assert a is not None and b is not None
            return abs(a.x - b.x) + abs(a.y - b.y) > 1
        return True

    def main_laser(self, seat: int) -> None:
        """The main laser: Laser Kata (4 directions), Rail Gun (piercing), Double-Barrel (+1)."""
        player = self.s.players[seat]
        pos = player.pos
        assert pos is not None
        directions = [player.facing]
        damage = 1
        rail = False
        if self.s.upgrades:
            register = player.registers[self.s.register - 1] if self.s.register else None
            uturned = register is not None and any(
                e in ("u_turn", "move3_uturn") for e in register.done
            )
            if uturned and self.has(player, "laser_kata"):
                directions = [player.facing.turned(Turn(i)) for i in range(4)]
            if self.has(player, "double_barrel_laser"):
                damage = 2
            rail = self.has(player, "rail_gun")
        for direction in directions:
            if player.pos is None:
                return
            if rail:
                targets, end = self.rail_line(seat, direction)
            else:
                target, end = self.trace_shot(seat, direction)
                targets = [] if target is None else [target]
            if not targets:
                continue  # a robot's shot that hits nothing is no event (docs/rules-2023.md)
            self.emit(
                EventKind.SHOT,
                seat=seat,
                pos=player.pos,
                to=end,
                facing=direction,
                other=targets[0] if targets else None,
                amount=damage,
                cause="robot laser",
            )
            for target in targets:
                self.weapon_damage(target, damage, "robot laser")

    def rail_line(self, seat: int, direction: Direction) -> tuple[list[int], Pos]:
        """Rail Gun (12-B21): every robot in line up to the course edge, through walls."""
        pos = self.s.players[seat].pos
        assert pos is not None
        occupancy = self.s.occupancy()
        targets: list[int] = []
        cur = pos
        while self.grid.is_on_course(cur.step(direction)):
            cur = cur.step(direction)
            if cur in occupancy:
                targets.append(occupancy[cur])
        return targets, cur

    def rear_laser(self, seat: int) -> None:
        player = self.s.players[seat]
        back = player.facing.opposite
        target, end = self.trace_shot(seat, back)
        if target is None:
            return  # hits nothing: no event
        self.emit(
            EventKind.SHOT,
            seat=seat,
            pos=player.pos,
            to=end,
            facing=back,
            other=target,
            amount=1,
            cause="rear laser",
        )
        self.weapon_damage(target, 1, "rear laser")

    def replacement_weapon(self, seat: int, name: str) -> None:
        player = self.s.players[seat]
        direction = player.facing
        target, end = self.trace_shot(seat, direction)
        assert target is not None
        victim = self.s.players[target]
        if name == "displacing_blast":
            self.use_temporary(seat, name, other=target)
        else:
            self.upgrade_event(seat, name, "used", other=target)
        self.emit(
            EventKind.SHOT,
            seat=seat,
            pos=player.pos,
            to=end,
            facing=direction,
            other=target,
            amount=2 if name == "mini_howitzer" else 0,
            cause=name.replace("_", " "),
        )
        if name == "mini_howitzer":
            self.spend(player, 1)
            self.weapon_damage(target, 2, "mini howitzer")
            if victim.pos is not None:
                self.push(victim.pos, direction, None, "mini howitzer")
        elif name == "pressor_beam":
            assert victim.pos is not None
            self.push(victim.pos, direction, None, "pressor beam")
        elif name == "tractor_beam":
            self.move(target, direction.opposite, 1, "tractor beam")
        elif name == "scrambler":
            self.scramble(target)
        elif name == "displacing_blast":
            self.displacing_blast(target)
        else:
            raise AssertionError(name)

    def scramble(self, target: int) -> None:
        """Scrambler (000: 747-751, 12-B23): the next register's card(s) replaced, face down."""
        player = self.s.players[target]
        register = player.registers[self.s.register]  # register r + 1
        if not register.cards:
            return
        old = " ".join(c.name for c in register.cards)
        self.replace_register(player, register)
        register.locked = False
        register.revealed = False
        card = self.draw(player)
        self.emit(EventKind.CARD_REPLACED, seat=target, card=old, cause="scrambler")
        if card is not None:
            register.cards = [card]

    def displacing_blast(self, target: int) -> None:
        """Displacing Blast (000: 854-856, 12-C11): to the reboot token of the robot's board."""
        player = self.s.players[target]
        pos = player.pos
        assert pos is not None
        board = self.grid.board_index(pos)
        token = self.grid.reboot_of_board.get(board)
        dynamic = "dynamic_archiving" in self.s.config.variants
        if dynamic or token is None or self.grid.board_kinds[board] == "dock":
            dest, arrow = player.archive, player.archive_arrow
        else:
            dest, arrow = token.pos, token.arrow
        if dest is None or dest == pos:
            return
        occupant = self.s.robot_at(dest)
        if occupant is not None and not self.displace(dest, arrow):
            dest = self.nearest_free(dest, arrow)
        if player.pos is None:
            return  # displaced into a pit by its own chain (cannot happen on a reboot token)
        start = player.pos
        player.pos = dest
        self.emit(EventKind.DISPLACED, seat=target, pos=start, to=dest, cause="displacing blast")
