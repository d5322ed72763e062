"""Soak test: many seeded random-bot games on the shipped 2023 courses, counting crashes.

``python bench/soak.py --games N [--seed S]`` plays N games in total, cycling through every
shipped course of the 2023 edition (game ``i`` is played on course ``i mod #courses`` with seed
``S + i``). Each game draws its player count (2-6, within the course's limits) and a random subset
of the alternative rules from its own seed, so any game can be replayed alone with
``--games 1 --seed SEED --course ID``. Any exception is counted and printed with its seed and
traceback; the exit code is 1 if there was one. ``--check`` also asserts the engine's invariants
after every action (cards conserved, robots on distinct non-pit spaces, bounds) and that a replay
of the actions reproduces the final digest.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
import traceback
from collections import Counter
from dataclasses import dataclass

from roborally.bots.random_bot import RandomBot
from roborally.content.cards import damage_deck
from roborally.content.courses import CourseInfo, list_courses
from roborally.engine.core.board import Grid
from roborally.engine.core.cards import PROGRAMMING_CARDS
from roborally.engine.core.decisions import Action
from roborally.engine.core.state import MAX_ENERGY, VARIANTS, GameConfig, GameState
from roborally.engine.game import Game

COLOURS = ("Red", "Blue", "Green", "Yellow", "Purple", "Orange")


@dataclass(frozen=True)
class Setup:
    course: CourseInfo
    seed: int
    players: int
    variants: tuple[str, ...]
    max_rounds: int

    def describe(self) -> str:
        return (
            f"course={self.course.id} seed={self.seed} players={self.players}"
            f" variants={','.join(self.variants) or '-'} max_rounds={self.max_rounds}"
        )


def courses_2023() -> list[CourseInfo]:
    return [c for c in list_courses() if c.edition in ("2023", "any")]


def make_setup(course: CourseInfo, seed: int, max_rounds: int) -> Setup:
    rng = random.Random(seed)
    starts = len(Grid(course.course).start_spaces)
    low = max(2, course.players[0])
    high = min(6, course.players[1], starts)
    players = rng.randint(low, max(low, high))
    variants = tuple(v for v in VARIANTS if rng.random() < 0.3)
    return Setup(course, seed, players, variants, max_rounds)


def check_state(state: GameState, last_checkpoints: list[int]) -> None:
    """The cheap invariants of a game state (raises AssertionError)."""
    grid = state.grid
    spots = [p.pos for p in state.players if p.pos is not None]
    assert len(spots) == len(set(spots)), f"two robots share a space: {spots}"
    for pos in spots:
        assert grid.is_on_course(pos) and not grid.pits[grid.index(pos)], f"robot at {pos}"
    damage_names = {c.name for c in state.config.damage_deck.cards}
    damage = [*state.damage_deck, *state.damage_discard]
    for p in state.players:
        cards = p.all_programming_cards()
        own = [c for c in cards if c.name in PROGRAMMING_CARDS]
        expected = {name: spec.copies for name, spec in PROGRAMMING_CARDS.items()}
        assert Counter(c.name for c in own) == expected, f"P{p.seat + 1} lost a card"
        assert len({c.uid for c in own}) == len(own), f"P{p.seat + 1} has a card twice"
        damage.extend(c for c in cards if c.name in damage_names)
        assert 0 <= p.energy <= MAX_ENERGY, f"P{p.seat + 1} energy {p.energy}"
        assert last_checkpoints[p.seat] <= p.checkpoint <= len(grid.checkpoints)
        last_checkpoints[p.seat] = p.checkpoint
    assert len(damage) == state.config.damage_deck.size, f"{len(damage)} damage cards"
    assert len({c.uid for c in damage}) == len(damage), "a damage card is in two places"


def play_one(setup: Setup, check: bool) -> Game:
    config = GameConfig(
        setup.course.course,
        COLOURS[: setup.players],
        seed=setup.seed,
        variants=frozenset(setup.variants),
        max_rounds=setup.max_rounds,
        damage_deck=damage_deck(),
    )
    game = Game(config)
    bots = [RandomBot(seed=setup.seed * 101 + i) for i in range(setup.players)]
    last = [0] * setup.players
    while not game.is_over():
        pending = game.pending_decisions()
        if not pending:
            raise RuntimeError("the game waits for nothing but is not over")
        for decision in pending:
            bot = bots[decision.seat]
            choice = bot.choose(game.observation(decision.seat), decision)
            game.apply(Action(decision.id, decision.seat, choice))
            if check:
                check_state(game.state, last)
    if check:
        again = Game(config)
        for action in game.actions:
            again.apply(action)
        assert again.digest() == game.digest(), "the replay ended in a different state"
    return game


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, required=True, help="games in total")
    parser.add_argument("--seed", type=int, default=1, help="seed of the first game")
    parser.add_argument("--max-rounds", type=int, default=30, help="round limit of each game")
    parser.add_argument("--course", help="play only this course id")
    parser.add_argument("--check", action="store_true", help="also check invariants")
    parser.add_argument("-q", "--quiet", action="store_true", help="no progress lines")
    args = parser.parse_args(argv)

    courses = courses_2023()
    if args.course:
        courses = [c for c in courses if c.id == args.course]
    if not courses:
        print(f"soak: no 2023 course {args.course or ''}".rstrip(), file=sys.stderr)
        return 2

    endings: Counter[str] = Counter()
    per_course: Counter[str] = Counter()
    failures: list[str] = []
    rounds = 0
    start = time.perf_counter()
    for i in range(args.games):
        setup = make_setup(courses[i % len(courses)], args.seed + i, args.max_rounds)
        per_course[setup.course.id] += 1
        try:
            game = play_one(setup, args.check)
        except Exception:
            failures.append(setup.describe())
            endings["exception"] += 1
            print(f"EXCEPTION in game {i + 1}: {setup.describe()}")
            print(
                f"  reproduce: python bench/soak.py --games 1 --seed {setup.seed}"
                f" --course {setup.course.id} --max-rounds {setup.max_rounds}"
            )
            print("  " + traceback.format_exc().rstrip().replace("\n", "\n  "))
            continue
        endings[game.state.termination] += 1
        rounds += game.state.round
        done = i + 1
        if not args.quiet and done % 100 == 0 and done < args.games:
            rate = done / (time.perf_counter() - start)
            print(f"  {done}/{args.games} games, {rate:.1f} games/s", flush=True)
    elapsed = time.perf_counter() - start
    played = args.games - endings["exception"]

    print(f"soak: {args.games} games in {elapsed:.1f} s ({args.games / elapsed:.1f} games/s)")
    print(f"  courses: {', '.join(f'{c} x{n}' for c, n in sorted(per_course.items()))}")
    print(f"  finished by checkpoints: {endings['checkpoints']}")
    print(f"  stopped by round limit ({args.max_rounds}): {endings['round_limit']}")
    if played:
        print(f"  mean rounds: {rounds / played:.1f}")
    print(f"  exceptions: {endings['exception']}")
    for line in failures:
        print(f"    {line}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
