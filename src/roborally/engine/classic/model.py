"""The classic edition's game state: robots with damage tokens, lives, option cards and power
down, one shared 84-card program deck and the option deck.

Section numbers (``6.3``) are those of the project's rules specification for the classic
editions, which ``docs/rules-classic.md`` follows; ``001: 415-416`` cites a passage of the
printed rules by rulebook and line.

Program cards are named ``TYPE@PRIORITY`` (``move1@490``): the priority makes every one of the
84 cards unique, so a program names exactly the cards it uses. Option cards are named by their
id (``ablative_coat``).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from typing import Any, ClassVar

from roborally.engine.core.cards import Card
from roborally.engine.core.geometry import Direction, Turn
from roborally.engine.core.state import GameState, Player, Register, _cards

NUM_REGISTERS = 5
HAND_SIZE = 9  # 9 minus the damage tokens (6.2)
DESTROYED_AT = 10  # the 10th damage token destroys the robot (6.5)
LIVES = 3  # life tokens per robot (2.4); 4 with the four_lives rule
PROGRAM_DECK_SIZE = 84
OPTION_DECK_SIZE = 26
TIMER_SECONDS = 30  # the sand timer (3.3 item 5)

#: Program card types and what they do (4.1). Forward moves count squares; Back Up is -1.
MOVES = {"move1": 1, "move2": 2, "move3": 3, "back_up": -1}
ROTATIONS = {"rotate_left": Turn.LEFT, "rotate_right": Turn.RIGHT, "u_turn": Turn.U_TURN}
PROGRAM_TYPES = ("u_turn", "rotate_left", "rotate_right", "back_up", "move1", "move2", "move3")

#: The 26 option cards of the 2005 deck (8.3), by id; the engine implements each of them.
OPTION_IDS = (
    "ablative_coat",
    "abort_switch",
    "brakes",
    "circuit_breaker",
    "conditional_program",
    "crab_legs",
    "double_barreled_laser",
    "dual_processor",
    "extra_memory",
    "fire_control",
    "flywheel",
    "fourth_gear",
    "gyroscopic_stabilizer",
    "high_power_laser",
    "mechanical_arm",
    "mini_howitzer",
    "power_down_shield",
    "pressor_beam",
    "radio_control",
    "ramming_gear",
    "rear_firing_laser",
    "recompile",
    "reverse_gear",
    "scrambler",
    "superior_archive",
    "tractor_beam",
)

#: Options that replace the main laser's shot at a robot (8.4).
WEAPON_OPTIONS = (
    "fire_control",
    "mini_howitzer",
    "pressor_beam",
    "radio_control",
    "scrambler",
    "tractor_beam",
)
ABLATIVE_CAPACITY = 3
HOWITZER_USES = 5

#: The alternative rules of spec 11.1, by ruleset. Each names a change from that ruleset's
#: default (so ``classic`` has ``no_timer`` and ``classic-1994`` has ``timer``).
CLASSIC_VARIANTS = (
    "four_lives",  # 2.4: 4 life tokens (only with 5 or more robots)
    "no_timer",  # 3.3: no sand-timer deadline on the last programmer
    "power_down_without_damage",  # 7.1: undamaged robots may announce a power down
    "emergency_shutdown",  # 7.7: the 1994 power down instead of 7.1-7.6
    "no_flag_repair",  # 5.12: flags do not repair
    "no_options_when_powered_down",  # 5.11: powered-down robots draw no option cards
    "powered_down_robots_fire",  # 5.9: powered-down robots fire their main laser
    "no_option_cards",  # 8: play without the option deck
    "play_for_places",  # 10: keep playing after the first robot finished
    "shared_ties",  # 10: simultaneous finishers share the win instead of priority order
    "last_robot_standing_wins",  # 10: a sole survivor wins
)
CLASSIC_1994_VARIANTS = (
    "four_lives",
    "timer",  # 3.3: use the 2005 sand timer
    "emergency_shutdown",  # 7.7: the optional 1994 shutdown (without it: no power down)
    "worse_backup_copy",  # 6.7 / 004: 101: re-enter with 2 damage tokens
    "no_flag_repair",
    "powered_down_robots_fire",
    "option_cards",  # 8: add the 2005 option deck
    "play_for_places",
    "last_robot_standing_wins",
)


def card_type(card: Card | str) -> str:
    """The type of a program card: ``move1@490`` -> ``move1``."""
    name = card if isinstance(card, str) else card.name
    return name.split("@", 1)[0]


def is_move(card: Card | str) -> bool:
    return card_type(card) in MOVES


def is_rotation(card: Card | str) -> bool:
    return card_type(card) in ROTATIONS


@functools.cache  # asked whenever damage changes, for a handful of values
def locks_for(damage: int) -> frozenset[int]:
    """Registers locked by ``damage`` tokens: register r locks from 10 - r tokens (6.2)."""
    return frozenset(r for r in range(1, NUM_REGISTERS + 1) if damage >= DESTROYED_AT - r)


@dataclass
class ClassicPlayer(Player):
    """A classic robot: the 2023 fields it shares (position, facing, hand, registers, archive,
    ``checkpoint`` = flags reached, ``shutdown`` = powered down this round) and its own."""

    CONTAINERS: ClassVar[tuple[str, ...]] = (
        *Player.CONTAINERS,
        "options",
        "option_tokens",
        "stored",
        "fire_locks",
        "shield_used",
        "round_flags",
    )

    dock: int = 0
    damage: int = 0
    lives: int = LIVES
    options: list[Card] = field(default_factory=list)  # face up, in the order received
    option_tokens: dict[str, int] = field(default_factory=dict)  # Ablative Coat, Mini Howitzer
    stored: dict[str, Card] = field(default_factory=dict)  # Flywheel / Conditional Program card
    announced: bool = False  # powers down next round (7.2, 7.5, 7.6)
    destroyed: bool = False  # destroyed this round, re-enters at cleanup (6.5)
    destroyed_seq: int = 0
    eliminated: bool = False  # lost its last life (6.6)
    finished: bool = False  # reached the last flag (play for places)
    pd_damage: int = 0  # damage received while powered down this round (6.7)
    reentry_extra: int = 0  # damage it brings into re-entry
    fire_locks: set[int] = field(default_factory=set)  # Fire Control locks
    shield_used: set[Direction] = field(default_factory=set)  # Power-Down Shield, this register
    round_flags: set[str] = field(default_factory=set)  # abort, aborting, stabilizer, recompiled
    controlled_by: int | None = None  # Radio Control: runs this seat's program (8.3 #19)
    dealt: int = 0  # program cards dealt this round (3.2)

    @property
    def in_game(self) -> bool:
        """Still racing: not eliminated and not finished."""
        return not self.eliminated and not self.finished

    @property
    def active(self) -> bool:
        """On the board (not destroyed, eliminated or finished)."""
        return self.pos is not None

    def has(self, option: str) -> bool:
        # Asked for every robot at every step; most robots hold no option card at all.
        return bool(self.options) and any(c.name == option for c in self.options)

    def option_names(self) -> list[str]:
        return [c.name for c in self.options]

    def locked_registers(self) -> list[int]:
        return [i + 1 for i, r in enumerate(self.registers) if r.locked]

    def program_cards(self) -> list[Card]:
        """Every program card this robot holds: hand, registers and cards stored on options."""
        cards = list(self.hand)
        for register in self.registers:
            cards.extend(register.cards)
        cards.extend(self.stored.values())
        return cards

    def to_dict(self) -> dict[str, Any]:
        data = super().to_dict()
        data.update(
            {
                "dock": self.dock,
                "damage": self.damage,
                "lives": self.lives,
                "options": _cards(self.options),
                "option_tokens": dict(sorted(self.option_tokens.items())),
                "stored": {k: _cards([v]) for k, v in sorted(self.stored.items())},
                "announced": self.announced,
                "destroyed": self.destroyed,
                "destroyed_seq": self.destroyed_seq,
                "eliminated": self.eliminated,
                "finished": self.finished,
                "pd_damage": self.pd_damage,
                "reentry_extra": self.reentry_extra,
                "fire_locks": sorted(self.fire_locks),
                "shield_used": sorted(d.letter for d in self.shield_used),
                "round_flags": sorted(self.round_flags),
                "controlled_by": self.controlled_by,
                "dealt": self.dealt,
            }
        )
        return data


@dataclass
class ClassicState(GameState):
    """The game state with the shared decks of the classic edition."""

    CONTAINERS: ClassVar[tuple[str, ...]] = (
        *GameState.CONTAINERS,
        "program_deck",
        "program_discard",
        "option_deck",
        "option_discard",
        "places",
        "touched_last",
    )

    program_deck: list[Card] = field(default_factory=list)  # top is the END of the list
    program_discard: list[Card] = field(default_factory=list)
    option_deck: list[Card] = field(default_factory=list)  # top is the END of the list
    option_discard: list[Card] = field(default_factory=list)
    destroy_count: int = 0
    places: list[int] = field(default_factory=list)  # finishing order (10)
    stacked: bool = False  # scenarios: the deck keeps the given order (rebuilds do not shuffle)
    touched_last: list[int] = field(default_factory=list)  # 1994: who touched the last flag

    @property
    def cplayers(self) -> list[ClassicPlayer]:
        return self.players  # type: ignore[return-value]

    def player(self, seat: int) -> ClassicPlayer:
        return self.players[seat]  # type: ignore[return-value]  # always ClassicPlayers

    def to_dict(self) -> dict[str, Any]:
        data = super().to_dict()
        data.update(
            {
                "program_deck": _cards(self.program_deck),
                "program_discard": _cards(self.program_discard),
                "option_deck": _cards(self.option_deck),
                "option_discard": _cards(self.option_discard),
                "destroy_count": self.destroy_count,
                "places": list(self.places),
                "stacked": self.stacked,
                "touched_last": list(self.touched_last),
            }
        )
        return data

    def all_program_cards(self) -> list[Card]:
        """Every program card in the game: decks, hands, registers and options (always 84)."""
        cards = [*self.program_deck, *self.program_discard]
        for p in self.cplayers:
            cards.extend(p.program_cards())
        return cards

    def all_option_cards(self) -> list[Card]:
        """Every option card in the game: deck, discard pile and robots (26 with options on)."""
        cards = [*self.option_deck, *self.option_discard]
        for p in self.cplayers:
            cards.extend(p.options)
        return cards

    def dock_order(self) -> list[int]:
        """Seats by ascending dock number (0.2): the order of announcements and choices."""
        players = self.players
        return sorted(range(len(players)), key=lambda s: players[s].dock)  # type: ignore[attr-defined]


def empty_registers() -> list[Register]:
    return [Register() for _ in range(NUM_REGISTERS)]
