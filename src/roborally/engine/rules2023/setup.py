"""The 2023 setup (spec 2.1, 11.1.5): the course as the 2023 rules play it, the new game's
state (decks, damage deck, energy, priority token, the upgrades dealt), the competitive start
and the robots' placement on start spaces.
"""

from __future__ import annotations

from roborally.engine.core.board import Course, Grid, shared_grid
from roborally.engine.core.cards import PROGRAMMING_CARDS
from roborally.engine.core.decisions import (
    BLOCK_START,
    START_SPACE,
    Decision,
    IllegalActionError,
    Prompt,
)
from roborally.engine.core.events import GAME_STARTED, PLACED
from roborally.engine.core.geometry import Pos
from roborally.engine.core.rng import UPGRADE_STREAM, make_rng
from roborally.engine.core.state import (
    NUM_REGISTERS,
    START_ENERGY,
    GameConfig,
    GameState,
    Player,
    Register,
)
from roborally.engine.rules2023.base import Base2023, upgrade_specs


def board_grid(course: Course, variants: frozenset[str]) -> Grid:
    """The course as the 2023 rules play it: a checkpoint or reboot token switches off the
    element under it (6.0); Dynamic Archiving has no reboot tokens (11.1.4)."""
    return shared_grid(course, reboot_tokens="dynamic_archiving" not in variants)


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


class Setup2023(Base2023):
    """Setup stages: start spaces blocked (competitive start) and robots placed."""

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
                    BLOCK_START,
                    Prompt("Block a start space with your energy cube", "block_start"),
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
                START_SPACE,
                Prompt("Choose your start space", "start_space"),
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
            self.emit(PLACED, seat=seat, pos=space.pos, facing=player.facing, amount=number)
            self.s.turn += 1
        self.s.turn = 0
        self.emit(GAME_STARTED, seat=self.s.priority)
        self.s.stage = "round_start"
