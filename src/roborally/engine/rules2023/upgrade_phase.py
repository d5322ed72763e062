"""The 2023 upgrade phase and the other free windows (4.1, 4.5): draw, install, undo an
install, uninstall and use temporaries; W-PROG before programming; Memory Cards and Spam
Filter; and HW-INSTALL's free install for one round.
"""

from __future__ import annotations

from collections.abc import Callable
from itertools import chain

from roborally.engine.core.decisions import (
    TIMEOUT,
    UPGRADE,
    UPGRADE_PHASE,
    Decision,
    DecisionKind,
    Prompt,
)
from roborally.engine.core.events import CARD_REVEALED, CARDS_DRAWN, DECK_SHUFFLED
from roborally.engine.core.state import MAX_ENERGY, Player
from roborally.engine.rules2023.base import MAX_INSTALLED, Base2023, is_permanent, upgrade_specs

#: Undos of an install per player and upgrade phase (an engine decision, docs/rules-2023.md).
MAX_UNDOS = 2


def _options(*groups: list[str]) -> tuple[str, ...]:
    """The options of ``groups`` in order, each once."""
    return tuple(dict.fromkeys(chain.from_iterable(groups)))


class UpgradePhase2023(Base2023):
    """The free windows: every player with something to do answers one step at a time."""

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
        again once it is answered. ``options`` lists ``done`` first (the default); a player
        with nothing else is done without a question.
        """
        players = self.s.players
        while True:
            waiting = [
                players[seat] for seat in self.s.turn_order() if not players[seat].window_done
            ]
            choices = self.answered_round(name, waiting)
            if choices is None:
                choices = self.ask_window_round(name, waiting, options, kind, prompt)
                if not choices:
                    return  # nobody has anything left to do
            for _, choice in choices:  # a loop: cheaper than any() over a generator
                if choice.endswith("memory_swap"):
                    self.attempt(None, self.apply_window, choices, apply)  # it asks
                    break
            else:
                self.apply_window(choices, apply)

    def window_id(self, name: str, player: Player) -> str:
        return f"t{self.s.round}-p{player.seat + 1}-{name}-{player.steps}"

    def answered_round(self, name: str, waiting: list[Player]) -> list[tuple[Player, str]] | None:
        """The choices of a round of questions all of ``waiting`` have answered (None: not
        asked yet, or not all answered). Everyone not done was asked (a player with nothing
        to choose is done before the questions go out), so their options need not be built
        again; a timeout chooses ``done``."""
        answers = self.s.answers
        choices: list[tuple[Player, str]] = []
        for player in waiting:
            answer = answers.get(self.window_id(name, player))
            if answer is None:
                return None
            choices.append((player, "done" if answer.choice == TIMEOUT else str(answer.choice)))
        return choices or None

    def ask_window_round(
        self,
        name: str,
        waiting: list[Player],
        options: Callable[[Player], tuple[str, ...]],
        kind: DecisionKind,
        prompt: str,
    ) -> list[tuple[Player, str]]:
        """Ask the next round of a free window: those of ``waiting`` with something to do;
        the others are done. Suspends until they answer; returns their choices."""
        decisions: list[Decision] = []
        for player in waiting:
            legal = options(player)
            if len(legal) <= 1:
                player.window_done = True
                continue
            decisions.append(
                Decision(
                    self.window_id(name, player),
                    player.seat,
                    kind,
                    prompt,
                    legal,
                    f"{legal[0]}",
                    {"window": name, "energy": player.energy},
                )
            )
        answers = self.ask(decisions)
        return [
            (
                self.s.players[d.seat],
                str(d.options[0] if answers[d.id] == TIMEOUT else answers[d.id]),
            )
            for d in decisions
        ]

    def apply_window(
        self, choices: list[tuple[Player, str]], apply: Callable[[Player, str], None]
    ) -> None:
        """One round of a free window's answers, in turn order."""
        for player, choice in choices:
            if choice == "done":
                player.window_done = True
            else:
                apply(player, choice)
            player.steps += 1

    # ---------------------------------------------------------- upgrade phase
    def stage_upgrade(self) -> None:
        """4.1: draw (1 energy, once), install (its cost, once), uninstall, use temporaries."""
        if self.s.upgrades:
            self.run_free_window(
                "upgrade",
                self.upgrade_options,
                self.apply_upgrade_action,
                UPGRADE_PHASE,
                Prompt(
                    "Upgrade phase: draw, install, uninstall, use a temporary upgrade, or done",
                    "upgrade_phase",
                ),
            )
        for player in self.s.players:  # the undo of an install ends with the phase
            player.installed_uid = 0
            player.undos = 0
        self.s.stage = "draw"

    def upgrade_options(self, player: Player) -> tuple[str, ...]:
        options = ["done"]
        if (
            not player.drew
            and player.energy >= 1
            and (self.s.upgrade_deck or self.s.upgrade_discard)
        ):
            options.append("draw")
        if not player.installed_now and player.reserve:
            options.extend(self.install_options(player))
        if name := self.undoable(player):
            options.append(f"undo install {name}")
        if player.installed:
            options.extend(self.any_time_options(player, upgrade_phase=True))
            options.extend([f"uninstall {c.name}" for c in player.installed])
        return tuple(dict.fromkeys(options))  # each once, in order

    def install_options(self, player: Player) -> list[str]:
        """The reserve cards ``player`` can pay for and has room for (3 of each type)."""
        specs = upgrade_specs()
        full = {False: False, True: False}
        if player.installed:
            for permanent in full:
                full[permanent] = self.count_installed(player, permanent) >= MAX_INSTALLED
        result: list[str] = []
        for card in player.reserve:
            spec = specs[card.name]
            if spec.cost <= player.energy and not full[spec.permanent]:
                result.append(f"install {card.name}")
        return result

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
            self.emit(CARDS_DRAWN, seat=seat, amount=1, cause="upgrade deck")
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
        if not player.installed:
            return result
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
            self.emit(CARDS_DRAWN, seat=seat, amount=drawn_count, cause="calibration protocol")
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
        self.emit(CARDS_DRAWN, seat=seat, amount=len(drawn), cause="memory swap")
        suggestions = list(reversed(drawn))
        for left in range(min(3, len(player.hand)), 0, -1):
            names = sorted({c.name for c in player.hand})
            first = next((n for n in suggestions if n in names), names[0])
            choice = self.ask_choice(
                self.next_id(seat, "memory_swap"),
                seat,
                Prompt(
                    f"Memory Swap: put a card from your hand on top of your deck ({left} to go)",
                    "memory_swap",
                    count=left,
                ),
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
                UPGRADE,
                Prompt("Use a temporary upgrade before programming?", "temporary"),
            )
        self.s.stage = "program"

    def stage_memory(self) -> None:
        """Memory Cards (000: 727): at the end of programming, park non-damage hand cards."""
        if self.s.upgrades:
            self.run_free_window(
                "memory_cards",
                self.memory_options,
                self.store_memory,
                UPGRADE,
                Prompt(
                    "Memory Cards: park a card from your hand until the next upgrade phase?",
                    "memory_cards",
                ),
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
                    CARDS_DRAWN,
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
                self.emit(DECK_SHUFFLED, seat=seat, amount=len(player.deck))
            if player.deck:
                player.top_visible = True
                self.emit(
                    CARD_REVEALED,
                    seat=seat,
                    card=player.deck[-1].name,
                    cause="spam filter",
                )

    # ------------------------------------------------------------- HW-INSTALL
    def install_glitch(self, seat: int) -> None:
        """HW-INSTALL (003: 1355-1367): a free permanent upgrade from the reserve, this round."""
        player = self.s.players[seat]
        names = self.glitch_choices(player)
        if not self.s.upgrades or not names:
            return  # ignored without a permanent upgrade in reserve (000: 616)
        name = self.ask_glitch(seat, names) if len(names) > 1 else names[0]
        card = next(c for c in player.reserve if c.name == name)
        player.reserve.remove(card)
        player.installed.append(card)
        self.s.glitch_installed.append(card.uid)
        self.upgrade_event(seat, name, "installed", amount=0)

    def glitch_choices(self, player: Player) -> list[str]:
        """The permanent upgrades HW-INSTALL could install from ``player``'s reserve."""
        return sorted({c.name for c in player.reserve if is_permanent(c.name)})

    def ask_glitch(self, seat: int, names: list[str]) -> str:
        """Which of ``names`` (:meth:`glitch_choices`, two or more) HW-INSTALL installs."""
        return self.ask_choice(
            self.next_id(seat, "hw_install"),
            seat,
            Prompt(
                "Install which permanent upgrade from your reserve (free, for this round)?",
                "reserve_install",
            ),
            tuple(f"install {n}" for n in names),
            f"install {names[0]}",
            {"card": "hw_install"},
        ).partition(" ")[2]

    def discard_glitches(self) -> None:
        """End of round: upgrades installed by HW-INSTALL go to the upgrade discard (4.4)."""
        for uid in self.s.glitch_installed:
            for player in self.s.players:
                card = next((c for c in player.installed if c.uid == uid), None)
                if card is not None:
                    self.lose_upgrade(player, card)
                    break
        self.s.glitch_installed = []
