"""The classic setup (2.1-2.6): the course as the classic rules play it, the new game's state
(players, lives, shuffled program and option decks, docks dealt clockwise from the first
player) and the robots' placement on their docks ([V1994]: on checkpoint 1).
"""

from __future__ import annotations

from roborally.engine.classic.base import PLACE, ClassicBase, options_enabled, stage
from roborally.engine.classic.cards import option_cards, program_deck
from roborally.engine.classic.model import LIVES, ClassicPlayer, ClassicState, empty_registers
from roborally.engine.core.board import Course, Grid, shared_grid
from roborally.engine.core.decisions import Prompt
from roborally.engine.core.events import CHECKPOINT_REACHED, GAME_STARTED, PLACED
from roborally.engine.core.geometry import DIRECTIONS, Direction
from roborally.engine.core.rng import make_rng
from roborally.engine.core.state import GameConfig


def new_state(config: GameConfig) -> ClassicState:
    """Set up a classic game (2.1-2.6): decks shuffled, docks dealt clockwise from dock 1."""
    state = setup_state(config)
    grid, n = state.grid, len(state.players)
    if config.edition == "classic-1994":
        if len(grid.checkpoints) < 2:
            raise ValueError(
                f"course {config.course.name!r}: classic-1994 starts on checkpoint 1 and needs"
                " at least 2 checkpoints"
            )
    else:
        numbers = {space.number for space in grid.start_spaces}
        missing = [d for d in range(1, n + 1) if d not in numbers]
        if missing:
            raise ValueError(
                f"course {config.course.name!r} has no dock(s) {missing} for {n} robots"
                " (each robot starts on the start space of its dock number)"
            )
    return state


def board_grid(course: Course, variants: frozenset[str]) -> Grid:
    """The course as the classic rules play it: flags do not switch off the element under
    them, and there are no reboot tokens (robots restart on their archive marker)."""
    return shared_grid(course, overlays_disable_elements=False, reboot_tokens=False)


def setup_state(config: GameConfig) -> ClassicState:
    """The state before robots are placed: players, shuffled decks, dock numbers."""
    grid = board_grid(config.course, config.variants)
    rng = make_rng(config.seed, config.rng)
    n = len(config.players)
    lives = LIVES
    if "four_lives" in config.variants:
        if n < 5:
            raise ValueError(
                f"the four_lives rule (4 lives a robot) needs 5 or more robots, got {n}"
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


class ClassicSetup(ClassicBase):
    """The setup stage: robots placed."""

    @stage
    def stage_place(self) -> None:
        """2.5: robots on docks 1..n clockwise from the first player, facing the factory.
        [V1994] 2.6: every robot starts on checkpoint 1, facing where its player chooses."""
        s = self.s
        for seat in self.dock_order:
            player = self.p(seat)
            if self.y94:
                cp1 = s.grid.checkpoints[0]
                default = self.facing_towards_factory(cp1)
                letters = (default.letter, *(d.letter for d in DIRECTIONS if d != default))
                choice = self.choose(
                    seat,
                    PLACE,
                    "facing",
                    Prompt("Your robot starts on checkpoint 1: choose its facing", "start_facing"),
                    letters,
                )
                player.pos = cp1
                player.facing = Direction.parse(choice)
                player.checkpoint = 1
                player.archive, player.archive_arrow = cp1, player.facing
                self.emit(PLACED, seat=seat, pos=cp1, facing=player.facing, amount=player.dock)
                self.emit(CHECKPOINT_REACHED, seat=seat, pos=cp1, amount=1)
                continue
            space = next(sp for sp in s.grid.start_spaces if sp.number == player.dock)
            player.pos = space.pos
            player.facing = space.facing or self.facing_towards_factory(space.pos)
            player.archive, player.archive_arrow = space.pos, player.facing
            self.emit(PLACED, seat=seat, pos=space.pos, facing=player.facing, amount=player.dock)
        self.emit(GAME_STARTED, seat=s.priority)
        s.stage = "round_start"
