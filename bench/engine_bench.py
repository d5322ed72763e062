"""Engine benchmark: register activations per second and the wall time of whole bot games.

Run with ``make bench`` (or ``uv run python bench/engine_bench.py``). It prints figures and
asserts nothing. The course is built in code and uses every board element: blue and green belts
(with curved entries and merges), push panels, gears both ways, pits, walls, 1-3 beam lasers,
batteries, checkpoints, reboot tokens and start spaces on a docking bay.

Three measurements:

* **whole registers through Game.apply** (the headline, both editions): games of random
  programs, 6 robots in 2023 on the course below and 8 robots in classic on ``cl-first-shift``,
  every ``Game.apply`` timed; a register activation is one register resolved for all robots
  (cards, every board element, lasers, weapons, batteries or repairs, checkpoints, the end of
  the register), and the figure is all of the engine's time (the applies that only take a
  program or an upgrade answer included) divided by the registers resolved. It prints the lines
  ``engine 2023: N register activations/s (6 robots, whole register, Game.apply)`` and
  ``engine classic: N register activations/s (8 robots, whole register, Game.apply)``.
* **part of a register** (older, kept for comparison): steps A, B and C of one register for
  the whole table (reveal, every robot's card in turn order, belts, push panels, gears), run
  through ``Rules2023.stage_reveal / stage_turns /
  stage_board`` on a mid-game :class:`GameState` with 6 robots and randomly programmed
  registers. Only those three calls are timed; re-filling the registers between rounds is not.
  ``stage_board`` stops after the gears, so board and robot lasers, weapons, batteries and
  checkpoints are not in this figure: it is not a whole register.
* **games**: full 6-player games between random bots with a round limit, timed end to end.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass

from roborally.bots.random_bot import RandomBot
from roborally.bots.runner import run_bots
from roborally.content.cards import damage_deck
from roborally.content.courses import find_course
from roborally.engine.core.board import (
    Belt,
    BeltColor,
    Board,
    Cell,
    Course,
    Grid,
    Laser,
    PlacedBoard,
    Pusher,
    RebootToken,
)
from roborally.engine.core.cards import PROGRAMMING_CARDS
from roborally.engine.core.decisions import Action
from roborally.engine.core.events import EventKind
from roborally.engine.core.geometry import EAST, NORTH, SOUTH, WEST, Direction, Pos, Turn
from roborally.engine.core.mechanics import Suspend
from roborally.engine.core.state import NUM_REGISTERS, GameConfig, GameState
from roborally.engine.game import Game
from roborally.engine.rules2023 import Rules2023, new_state

TARGETS = {"2023": 5_000, "classic": 4_000}  # whole registers through Game.apply, per second
COLOURS = ("Red", "Blue", "Green", "Yellow", "Purple", "Orange")
COLOURS_8 = (*COLOURS, "Black", "White")
CLASSIC_COURSE = "cl-first-shift"  # one 12x12 factory board above a 12x4 dock, 8 starts


# ------------------------------------------------------------------------------ course
def blue(out: Direction, *curved: Direction) -> Cell:
    return Cell(belt=Belt(BeltColor.BLUE, out, frozenset(curved)))


def green(out: Direction, *curved: Direction) -> Cell:
    return Cell(belt=Belt(BeltColor.GREEN, out, frozenset(curved)))


def factory_board(name: str) -> Board:
    """A 12x12 factory board with every element."""
    cells: dict[Pos, Cell] = {}
    # An express (blue) loop with four curved corners ...
    for x in range(2, 9):
        cells[Pos(x, 2)] = blue(EAST)
        cells[Pos(x, 8)] = blue(WEST)
    for y in range(3, 8):
        cells[Pos(9, y)] = blue(SOUTH)
        cells[Pos(1, y)] = blue(NORTH)
    cells[Pos(9, 2)] = blue(SOUTH, WEST)
    cells[Pos(9, 8)] = blue(WEST, NORTH)
    cells[Pos(1, 8)] = blue(NORTH, EAST)
    cells[Pos(1, 2)] = blue(EAST, SOUTH)
    # ... fed by a blue spur from the north edge (a merge with one curved side) ...
    cells[Pos(5, 0)] = blue(SOUTH)
    cells[Pos(5, 1)] = blue(SOUTH)
    cells[Pos(5, 2)] = blue(EAST, NORTH)
    # ... and by two spurs from both sides at the bottom (a merge with two curved sides).
    cells[Pos(5, 9)] = blue(NORTH)
    cells[Pos(5, 10)] = blue(NORTH)
    cells[Pos(5, 7)] = blue(SOUTH)
    cells[Pos(5, 8)] = blue(WEST, SOUTH, NORTH)
    cells[Pos(6, 8)] = blue(WEST)
    # A green line with a curve and a side merge.
    for x in range(2, 8):
        cells[Pos(x, 5)] = green(EAST)
    cells[Pos(8, 5)] = green(NORTH, WEST)
    cells[Pos(8, 4)] = green(NORTH)
    cells[Pos(4, 6)] = green(NORTH)
    cells[Pos(4, 5)] = green(EAST, SOUTH)
    cells[Pos(11, 9)] = green(SOUTH)
    cells[Pos(11, 10)] = green(SOUTH)
    # Push panels (on walls), gears both ways, pits, walls.
    cells[Pos(3, 10)] = Cell(walls=frozenset({WEST}), pusher=Pusher(EAST, frozenset({1, 3, 5})))
    cells[Pos(10, 10)] = Cell(walls=frozenset({SOUTH}), pusher=Pusher(NORTH, frozenset({2, 4})))
    cells[Pos(0, 10)] = Cell(walls=frozenset({NORTH}), pusher=Pusher(SOUTH, frozenset({1, 2, 3})))
    cells[Pos(3, 4)] = Cell(gear=Turn.RIGHT)
    cells[Pos(7, 6)] = Cell(gear=Turn.LEFT)
    cells[Pos(10, 1)] = Cell(gear=Turn.RIGHT)
    cells[Pos(2, 11)] = Cell(gear=Turn.LEFT)
    for pit in (Pos(6, 3), Pos(2, 9), Pos(11, 5), Pos(7, 10), Pos(0, 0)):
        cells[pit] = Cell(pit=True)
    cells[Pos(6, 6)] = Cell(walls=frozenset({NORTH, EAST}))
    cells[Pos(10, 4)] = Cell(walls=frozenset({WEST}))
    cells[Pos(4, 7)] = Cell(walls=frozenset({SOUTH}))
    # Wall lasers with 1, 2 and 3 beams.
    cells[Pos(0, 4)] = Cell(walls=frozenset({WEST}), lasers=(Laser(EAST, 1),))
    cells[Pos(11, 7)] = Cell(walls=frozenset({EAST}), lasers=(Laser(WEST, 2),))
    cells[Pos(7, 0)] = Cell(walls=frozenset({NORTH}), lasers=(Laser(SOUTH, 3),))
    # Batteries.
    cells[Pos(3, 6)] = Cell(battery=True)
    cells[Pos(8, 10)] = Cell(battery=True)
    cells[Pos(10, 6)] = Cell(battery=True)
    return Board.create(name, 12, 12, cells)


def dock_board() -> Board:
    """A 12x4 docking bay with 6 start spaces, a few walls and a green belt."""
    cells: dict[Pos, Cell] = {}
    for number, x in enumerate((1, 3, 5, 6, 8, 10), start=1):
        cells[Pos(x, 2)] = Cell(start=number)
    cells[Pos(4, 1)] = Cell(walls=frozenset({EAST}))
    cells[Pos(7, 1)] = Cell(walls=frozenset({WEST}))
    cells[Pos(0, 3)] = green(EAST)
    cells[Pos(1, 3)] = green(EAST)
    cells[Pos(11, 0)] = Cell(battery=True)
    return Board.create("bench-dock", 12, 4, cells, kind="dock")


def bench_course() -> Course:
    """Two factory boards side by side (the second turned 180 degrees) above a docking bay."""
    return Course(
        "bench",
        (
            PlacedBoard(factory_board("bench-a")),
            PlacedBoard(factory_board("bench-b"), Pos(12, 0), rotation=2),
            PlacedBoard(dock_board(), Pos(0, 12)),
        ),
        checkpoints=(Pos(10, 3), Pos(17, 9), Pos(14, 2)),
        reboot_tokens=(RebootToken(Pos(6, 11), EAST), RebootToken(Pos(18, 1), WEST)),
        title="Benchmark Yard",
    )


# -------------------------------------------------------------------------- activation
class ActivationBench:
    """A mid-game state with 6 robots, re-programmed at random before every round."""

    def __init__(self, course: Course, players: int = 6, seed: int = 1) -> None:
        config = GameConfig(course, COLOURS[:players], seed=seed)
        self.state: GameState = new_state(config)
        self.rules = Rules2023(self.state)
        self.rng = random.Random(seed)
        grid = self.state.grid
        self.free_cells = [
            grid.pos(i)
            for i, cell in enumerate(grid.cells)
            if cell is not None
            and not grid.pits[i]
            and grid.board_kinds[grid.board_of[i]] == "factory"
        ]
        self.suspended = 0
        self.on_board_samples = 0
        self.on_board_total = 0
        self.state.stage = "reveal"
        self.state.round = 1
        self.place_off_board_robots()

    def place_off_board_robots(self) -> None:
        s = self.state
        taken = {p.pos for p in s.players if p.pos is not None}
        for player in s.players:
            player.rebooted_this_round = False
            player.shutdown = False
            if player.pos is None:
                pos = self.rng.choice([c for c in self.free_cells if c not in taken])
                taken.add(pos)
                player.pos = pos
                player.facing = Direction(self.rng.randrange(4))
                player.reentry = None
                if player.archive is None:
                    player.archive = pos

    def reprogram(self) -> None:
        """Collect every card, reset the damage deck, and deal 5 random programming cards."""
        s = self.state
        damage = {spec.name for spec in s.config.damage_deck.cards}
        for player in s.players:
            cards = [*player.deck, *player.discard, *player.hand]
            for register in player.registers:
                cards.extend(register.cards)
                if register.facedown_haywire is not None:
                    cards.append(register.facedown_haywire)
                register.cards = []
                register.facedown_haywire = None
                register.revealed = False
                register.locked = False
                register.done = []
            s.damage_deck.extend(c for c in cards if c.name in damage)
            own = [c for c in cards if c.name in PROGRAMMING_CARDS]
            self.rng.shuffle(own)
            for register in player.registers:
                register.cards = [own.pop()]
            player.deck, player.discard, player.hand = own, [], []
        s.damage_deck.extend(s.damage_discard)
        s.damage_discard = []
        self.rng.shuffle(s.damage_deck)
        s.events.clear()
        if s.over:
            s.over, s.winner, s.termination = False, None, ""
            for player in s.players:
                player.checkpoint = 0
        self.place_off_board_robots()
        s.round += 1
        s.priority = (s.priority + 1) % len(s.players)

    def run(self, seconds: float) -> tuple[int, float]:
        """Activate registers for about ``seconds``; returns (activations, timed seconds)."""
        s = self.state
        rules = self.rules
        activations = 0
        timed = 0.0
        deadline = time.perf_counter() + seconds
        while time.perf_counter() < deadline:
            self.reprogram()
            start = time.perf_counter()
            for r in range(1, NUM_REGISTERS + 1):
                s.register = r
                s.turn = 0
                try:
                    rules.stage_reveal()
                    rules.stage_turns()
                    rules.stage_board()
                except Suspend:
                    self.suspended += 1  # a decision was needed: abandon this round
                    s.answers.clear()
                    break
                activations += 1
                if s.over:
                    break
            timed += time.perf_counter() - start
            self.on_board_samples += 1
            self.on_board_total += sum(p.pos is not None for p in s.players)
        return activations, timed


# ------------------------------------------------------------------------------ games
def time_games(course: Course, games: int, rounds: int, seed: int) -> list[tuple[float, Game]]:
    results = []
    for i in range(games):
        config = GameConfig(course, COLOURS, seed=seed + i, max_rounds=rounds)
        bots: list[object] = [RandomBot(seed=(seed + i) * 10 + s) for s in range(6)]
        start = time.perf_counter()
        game = Game(config)
        run_bots(game, bots)
        results.append((time.perf_counter() - start, game))
    return results


def p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]


def table(rows: list[tuple[str, str]], out: Callable[[str], None] = print) -> None:
    width = max(len(k) for k, _ in rows)
    for key, value in rows:
        out(f"  {key:<{width}}  {value}")


# ----------------------------------------------------------- whole registers, Game.apply
@dataclass
class ApplyFigures:
    """Whole registers resolved through ``Game.apply`` (see ``apply_bench``)."""

    registers: int = 0
    seconds: float = 0.0
    games: int = 0
    robots_on_board: int = 0  # summed over the registers (for the mean)

    @property
    def per_second(self) -> float:
        return self.registers / self.seconds if self.seconds else 0.0


def apply_bench(
    course: Course, edition: str, players: int, seconds: float, seed: int, rounds: int
) -> ApplyFigures:
    """Play games of random programs and time every ``Game.apply``.

    Each pending decision is answered by a seeded ``RandomBot`` (a random legal program; the
    other questions at random), chosen outside the timed part. The timed part is every
    ``Game.apply`` call, whole: the applies that resolve registers (each card, every board
    element, board and robot lasers, weapons, batteries or repairs, checkpoints, the end of
    the register and of the round) and also the cheap ones that only take a program or answer
    an upgrade question, so the figure is the engine's whole cost divided by the registers it
    resolved (``register_started`` events). Games are cut at ``rounds`` so most robots stay in
    (classic robots can be eliminated); the mean number on the board is printed.
    """
    figures = ApplyFigures()
    game_seed = seed
    while figures.seconds < seconds:
        config = GameConfig(
            course,
            COLOURS_8[:players],
            seed=game_seed,
            edition=edition,
            max_rounds=rounds,
            damage_deck=damage_deck(),
        )
        game = Game(config)
        bots = [RandomBot(1000 * game_seed + seat) for seat in range(players)]
        seen = 0
        while not game.is_over():
            for decision in game.pending_decisions():
                action = Action(
                    decision.id, decision.seat, bots[decision.seat].choose({}, decision)
                )
                t0 = time.perf_counter()
                game.apply(action)
                figures.seconds += time.perf_counter() - t0
            events = game.state.events
            for event in events[seen:]:
                if event.kind is EventKind.REGISTER_STARTED:
                    figures.registers += 1
                    figures.robots_on_board += sum(p.pos is not None for p in game.state.players)
            seen = len(events)
        figures.games += 1
        game_seed += 1
    return figures


def print_apply_line(label: str, robots: int, figures: ApplyFigures) -> None:
    print(
        f"engine {label}: {figures.per_second:,.0f} register activations/s"
        f" ({robots} robots, whole register, Game.apply)"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=3.0, help="activation timing budget")
    parser.add_argument("--games", type=int, default=20, help="full games to time")
    parser.add_argument("--rounds", type=int, default=30, help="round limit of the games")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--apply-rounds", type=int, default=10, help="round limit of the Game.apply games"
    )
    args = parser.parse_args(argv)

    # The headline figures: whole registers through Game.apply, both editions.
    classic_course = find_course(CLASSIC_COURSE).course
    apply_bench(bench_course(), "2023", 6, min(0.5, args.seconds), args.seed, args.rounds)  # warm
    runs = [
        ("2023", "Benchmark Yard (below)", bench_course(), 6),
        ("classic", f"{CLASSIC_COURSE} (12x16)", classic_course, 8),
    ]
    for edition, where, course_of_run, robots in runs:
        figures = apply_bench(
            course_of_run, edition, robots, args.seconds, args.seed, args.apply_rounds
        )
        print_apply_line(edition, robots, figures)
        target = TARGETS[edition]
        met = "met" if figures.per_second >= target else "NOT met"
        print(
            f"  {figures.registers:,} registers in {figures.seconds:.2f} s of Game.apply,"
            f" {figures.games} games of random programs on {where}, round limit"
            f" {args.apply_rounds}; {figures.robots_on_board / max(1, figures.registers):.1f}"
            f" robots on the board per register on average; target {target:,}/s: {met}"
        )
    print()

    course = bench_course()
    grid = Grid(course)
    cells = sum(c is not None for c in grid.cells)
    print(
        f"Course {course.title!r}: {grid.width}x{grid.height}, {cells} spaces,"
        f" {len(grid.lasers)} lasers, {len(grid.checkpoints)} checkpoints,"
        f" {len(grid.start_spaces)} start spaces, {len(grid.reboot_of_board)} reboot tokens"
    )

    bench = ActivationBench(course, seed=args.seed)
    bench.run(min(0.3, args.seconds))  # warm up
    activations, timed = bench.run(args.seconds)
    per_second = activations / timed if timed else 0.0
    print(
        "\nPart of a register (6 robots, steps A+B+C only: reveal, cards, board elements;"
        " one core):"
    )
    table(
        [
            ("activations", f"{activations:,}"),
            ("timed seconds", f"{timed:.2f}"),
            ("activations/s", f"{per_second:,.0f}"),
            ("robot-registers/s", f"{per_second * 6:,.0f}"),
            ("us/activation", f"{1e6 / per_second:.1f}" if per_second else "-"),
            (
                "robots on board",
                f"{bench.on_board_total / max(1, bench.on_board_samples):.1f} of 6 after a round",
            ),
            ("rounds cut short", f"{bench.suspended} (a decision was needed)"),
        ]
    )

    results = time_games(course, args.games, args.rounds, args.seed)
    times = [t for t, _ in results]
    rounds = [g.state.round for _, g in results]
    actions = [len(g.actions) for _, g in results]
    won = sum(1 for _, g in results if g.state.winner is not None)
    print(f"\nFull games (6 random bots, round limit {args.rounds}, {len(results)} games):")
    table(
        [
            ("mean wall time", f"{statistics.mean(times) * 1000:.1f} ms"),
            ("p95 wall time", f"{p95(times) * 1000:.1f} ms"),
            ("max wall time", f"{max(times) * 1000:.1f} ms"),
            ("mean rounds", f"{statistics.mean(rounds):.1f}"),
            ("mean decisions", f"{statistics.mean(actions):.0f}"),
            ("won by checkpoints", f"{won}/{len(results)}"),
        ]
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
