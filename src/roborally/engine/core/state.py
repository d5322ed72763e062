"""The mutable state of one game (a "playthrough"), and its configuration.

Only :mod:`roborally.engine.game` mutates a state, through decisions; everything here is plain
data with a fast :meth:`GameState.copy` and a canonical :meth:`GameState.digest` for replay checks.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cache
from typing import Any, ClassVar, Self

from roborally.engine.core.board import Course, Grid
from roborally.engine.core.cards import Card, DamageDeckSpec, default_damage_deck
from roborally.engine.core.decisions import Action
from roborally.engine.core.events import Event
from roborally.engine.core.geometry import Direction, Pos
from roborally.engine.core.rng import RNG_VERSION, Rng, SplitMix64, check_seed

#: Alternative rules of spec 11.1 that the engine offers as game options.
VARIANTS = (
    "lighter",  # 11.1.1: no upgrades, no energy, batteries and Power Up do nothing
    "less_deadly",  # 11.1.2: outer edges are walls
    "less_spam",  # 11.1.3: SPAM in hand is discarded at the end of programming
    "dynamic_archiving",  # 11.1.4: no reboot tokens; archive on checkpoints and batteries
    "competitive_start",  # 11.1.5: players block start spaces with their cubes
    "speed",  # 11.1.6: programming timer (the server runs the clock; random fill on timeout)
    "less_predictable",  # 11.1.7: reshuffle deck, discard and non-damage hand every round
)


def _cards(items: list[Card]) -> list[str]:
    return [f"{c.name}#{c.uid}" for c in items]


def _pos(p: Pos | None) -> list[int] | None:
    return None if p is None else [p.x, p.y]


def _jsonable(value: Any) -> Any:
    if isinstance(value, (tuple, list)):
        return [_jsonable(v) for v in value]
    return value


NUM_REGISTERS = 5
HAND_SIZE = 9
MAX_ENERGY = 10
START_ENERGY = 3


#: Checks every new :class:`GameConfig` runs (it raises ``ValueError``). The edition registry
#: (:mod:`roborally.engine.editions`, loaded with the ``roborally.engine`` package) adds the
#: edition's own (known variants, number of players): the state knows no edition.
CONFIG_CHECKS: list[Callable[[GameConfig], None]] = []


@dataclass(frozen=True)
class GameConfig:
    """Everything that defines a game before the first decision.

    ``first_player`` is the seat that takes the priority token first (the youngest player);
    ``None`` lets the seeded generator pick one. ``seed`` (``0 <= seed < 2**256``) decides
    every shuffle through the generator named by ``rng`` (:mod:`roborally.engine.core.rng`;
    old records name ``splitmix64/1``).
    """

    course: Course
    players: tuple[str, ...]
    seed: int = 1
    edition: str = "2023"
    variants: frozenset[str] = frozenset()
    first_player: int | None = 0
    max_rounds: int = 0  # 0 = no limit
    timer_seconds: int = 0  # speed mode: 120 or 180; the engine never reads a clock
    damage_deck: DamageDeckSpec = field(default_factory=default_damage_deck)
    rng: str = RNG_VERSION

    def __post_init__(self) -> None:
        check_seed(self.seed, self.rng)
        for check in CONFIG_CHECKS:
            check(self)
        if self.first_player is not None and not 0 <= self.first_player < len(self.players):
            raise ValueError(f"first_player {self.first_player} is not a seat")


@dataclass(slots=True)
class Register:
    """One program register.

    ``cards`` are the cards in play here (face down until ``revealed``); ``locked`` marks a
    Haywire carried over from the last round (not programmable); ``facedown_haywire`` is a Haywire
    received while this register was active, which stays for the next round; ``done`` records the
    effective actions resolved here (the last one is what Again repeats).
    """

    cards: list[Card] = field(default_factory=list)
    revealed: bool = False
    locked: bool = False
    facedown_haywire: Card | None = None
    done: list[str] = field(default_factory=list)

    def copy(self) -> Register:
        # Slot by slot, not through the constructor: snapshots copy every register (30 in a
        # 6-player game), and this is twice as fast.
        clone = object.__new__(Register)
        clone.cards = self.cards.copy()
        clone.revealed = self.revealed
        clone.locked = self.locked
        clone.facedown_haywire = self.facedown_haywire
        clone.done = self.done.copy()
        return clone


@dataclass
class Player:
    #: The fields holding a list, dict or set, copied by :meth:`copy` (the registers are
    #: copied one by one); a subclass adds its own.
    CONTAINERS: ClassVar[tuple[str, ...]] = (
        "deck",
        "discard",
        "hand",
        "removed",
        "installed",
        "reserve",
        "memory",
        "fresh",
    )

    seat: int
    name: str
    deck: list[Card] = field(default_factory=list)  # top of the deck is the END of the list
    discard: list[Card] = field(default_factory=list)
    hand: list[Card] = field(default_factory=list)
    registers: list[Register] = field(default_factory=list)
    energy: int = START_ENERGY
    checkpoint: int = 0
    pos: Pos | None = None
    facing: Direction = Direction.NORTH
    reentry: Pos | None = None  # where the robot re-enters (set while it is off the board)
    reentry_arrow: Direction = Direction.NORTH
    archive: Pos | None = None
    archive_arrow: Direction = Direction.NORTH
    shutdown: bool = False
    rebooted_this_round: bool = False
    removed: list[Card] = field(default_factory=list)  # cards removed from the game
    programmed: bool = False
    # Upgrade cards (spec 4.1, 9; engine/rules2023/). ``installed`` are face up (permanent and
    # temporary), ``reserve`` is hidden from the others; ``memory`` holds the cards parked on
    # Memory Cards; ``top_visible`` says Spam Filter turned the deck's top card face up.
    installed: list[Card] = field(default_factory=list)
    reserve: list[Card] = field(default_factory=list)
    memory: list[Card] = field(default_factory=list)
    top_visible: bool = False
    shield: int = -1  # round*10+register in which Deflector Shield was paid for
    fresh: list[int] = field(default_factory=list)  # upgrades received this register (Chassis)
    # Progress in the current free window (upgrade phase, programming, Memory Cards).
    steps: int = 0
    window_done: bool = False
    drew: bool = False  # drew an upgrade this upgrade phase
    installed_now: bool = False  # installed an upgrade this upgrade phase
    # The undo of this phase's install (engine decision, docs/rules-2023.md): the uid of the
    # card installed in this upgrade phase (0: none, or undone) and the undos used. Both are
    # reset when the phase ends, so they only show in the state while it runs.
    installed_uid: int = 0
    undos: int = 0

    def copy(self) -> Self:
        """An independent copy of the same class: every container (:data:`CONTAINERS`) is
        copied once, the rest shared (cards, positions and directions are immutable). This
        runs for every player of every state snapshot, so it copies the instance dictionary
        instead of calling the constructor."""
        clone = object.__new__(type(self))
        fields = self.__dict__.copy()
        for name in self.CONTAINERS:
            fields[name] = fields[name].copy()
        fields["registers"] = [r.copy() for r in self.registers]
        clone.__dict__ = fields
        return clone

    @property
    def on_board(self) -> bool:
        return self.pos is not None

    def to_dict(self) -> dict[str, Any]:
        """Everything about this player that matters for play (subclasses extend it).

        The undo of an install (``installed_uid``, ``undos``) is listed only while it is set,
        in the upgrade phase, so the digests of records written before it existed still match.
        """
        result: dict[str, Any] = {
            "deck": _cards(self.deck),
            "discard": _cards(self.discard),
            "hand": _cards(self.hand),
            "registers": [
                {
                    "cards": _cards(r.cards),
                    "revealed": r.revealed,
                    "locked": r.locked,
                    "facedown": _cards([r.facedown_haywire] if r.facedown_haywire else []),
                    "done": r.done,
                }
                for r in self.registers
            ],
            "energy": self.energy,
            "checkpoint": self.checkpoint,
            "pos": _pos(self.pos),
            "facing": self.facing.letter,
            "reentry": _pos(self.reentry),
            "archive": _pos(self.archive),
            "archive_arrow": self.archive_arrow.letter,
            "shutdown": self.shutdown,
            "removed": _cards(self.removed),
            "installed": _cards(self.installed),
            "reserve": _cards(self.reserve),
            "memory": _cards(self.memory),
            "top_visible": self.top_visible,
            "shield": self.shield,
            "fresh": list(self.fresh),
            "steps": self.steps,
            "window_done": self.window_done,
            "drew": self.drew,
            "installed_now": self.installed_now,
        }
        if self.installed_uid or self.undos:
            result["installed_uid"] = self.installed_uid
            result["undos"] = self.undos
        return result

    def all_programming_cards(self) -> list[Card]:
        """Every card this player owns: deck, hand, registers, discard, on Memory Cards, and
        the cards Self-Diagnostics removed from the game."""
        cards = [*self.deck, *self.discard, *self.hand, *self.memory, *self.removed]
        for register in self.registers:
            cards.extend(register.cards)
            if register.facedown_haywire is not None:
                cards.append(register.facedown_haywire)
        return cards


@cache
def turn_orders(players: int) -> tuple[tuple[int, ...], ...]:
    """The turn order of a table of ``players`` for each holder of the priority token (the
    rules ask for it about fifteen times a register; it is made once)."""
    seats = tuple(range(players))
    return tuple(seats[first:] + seats[:first] for first in seats)


@dataclass
class GameState:
    #: The fields holding a list, dict or set, copied by :meth:`copy`; a subclass adds its own.
    CONTAINERS: ClassVar[tuple[str, ...]] = (
        "damage_deck",
        "damage_discard",
        "answers",
        "events",
        "blocked_starts",
        "upgrade_deck",
        "upgrade_discard",
        "glitch_installed",
    )

    config: GameConfig
    grid: Grid
    rng: Rng
    players: list[Player]
    priority: int = 0
    round: int = 0
    register: int = 0
    stage: str = "setup"
    turn: int = 0  # index into the turn order inside a stepped stage
    damage_deck: list[Card] = field(default_factory=list)  # top is the END of the list
    damage_discard: list[Card] = field(default_factory=list)
    no_damage_register: int = -1  # (round*10+register) in which damage draws are skipped (12-B14)
    answers: dict[str, Action] = field(default_factory=dict)
    events: list[Event] = field(default_factory=list)
    winner: int | None = None
    over: bool = False
    termination: str = ""
    blocked_starts: set[Pos] = field(default_factory=set)
    next_uid: int = 1
    # Upgrade cards (spec 1.5, 4.1). ``upgrades`` is False in the lighter game (11.1.1) and in
    # editions without them; the upgrade deck has its own generator so that dealing upgrades
    # leaves the main generator's sequence as it was.
    upgrades: bool = False
    upgrade_deck: list[Card] = field(default_factory=list)  # top is the END of the list
    upgrade_discard: list[Card] = field(default_factory=list)
    # A placeholder until deal_upgrades keys the upgrade stream: its state 0 is what the digest
    # shows of a game without upgrades (as it always has).
    upgrade_rng: Rng = field(default_factory=lambda: SplitMix64(0))
    glitch_installed: list[int] = field(default_factory=list)  # HW-INSTALL: discard at round end
    order: tuple[int, ...] = ()  # turn order fixed for the current step
    window: int = 0  # uses made in the current activation window

    def copy(self) -> Self:
        """An independent copy (the grid and config are immutable and shared). Like
        :meth:`Player.copy` it copies the instance dictionary: snapshots call it often."""
        clone = object.__new__(type(self))
        fields = self.__dict__.copy()
        for name in self.CONTAINERS:
            fields[name] = fields[name].copy()
        fields["rng"] = self.rng.copy()
        fields["upgrade_rng"] = self.upgrade_rng.copy()
        fields["players"] = [p.copy() for p in self.players]
        clone.__dict__ = fields
        return clone

    def new_card(self, name: str, priority: int = 0) -> Card:
        card = Card(self.next_uid, name, priority)
        self.next_uid += 1
        return card

    def turn_order(self) -> tuple[int, ...]:
        """Seats in turn order: the priority token holder first, then clockwise.

        >>> turn_orders(4)[1]
        (1, 2, 3, 0)
        """
        n = len(self.players)
        return turn_orders(n)[self.priority % n]

    def robot_at(self, pos: Pos) -> int | None:
        for p in self.players:
            if p.pos == pos:
                return p.seat
        return None

    def occupancy(self) -> dict[Pos, int]:
        return {p.pos: p.seat for p in self.players if p.pos is not None}

    def to_dict(self) -> dict[str, Any]:
        """A canonical, JSON-friendly snapshot of everything that matters for play."""

        cards = _cards
        return {
            "rng": self.rng.state,
            "priority": self.priority,
            "round": self.round,
            "register": self.register,
            "stage": self.stage,
            "turn": self.turn,
            "damage_deck": cards(self.damage_deck),
            "damage_discard": cards(self.damage_discard),
            "winner": self.winner,
            "over": self.over,
            "players": [p.to_dict() for p in self.players],
            "upgrade_rng": self.upgrade_rng.state,
            "upgrade_deck": cards(self.upgrade_deck),
            "upgrade_discard": cards(self.upgrade_discard),
            "glitch_installed": list(self.glitch_installed),
            "order": list(self.order),
            "window": self.window,
            "blocked_starts": sorted([p.x, p.y] for p in self.blocked_starts),
            "answers": {
                key: [a.seat, _jsonable(a.choice)] for key, a in sorted(self.answers.items())
            },
        }

    def digest(self) -> str:
        """A SHA-256 of :meth:`to_dict`: equal digests mean equal game states."""
        blob = json.dumps(self.to_dict(), sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(blob.encode()).hexdigest()
