"""Bot benchmark: planner and expert decision times, programs evaluated, games per second.

Run with ``uv run python bench/bots_bench.py`` (``make bench`` runs it after the engine
benchmark). It prints figures and asserts nothing.

* **planner**: decision time of a program decision with a full 9-card hand, p50 and p95 over
  many positions taken from games between planner bots on a busy course, one core; the number
  of distinct programs each search covered; and the worst case, a hand of 9 different cards
  (15,120 programs). Positions are collected first, then timed with the board model warm
  (its transitions and distance fields are built once per course and process; the cold
  start is printed separately).
* **classic** (``--only classic``): the planner's search on positions of classic games between
  planner bots on ``cl-first-shift`` with the classic hand of the most distinct programs (9 cards
  of the 7 classic types: 5,070 programs), board model warm, one core.
* **expert**: decision time of a program decision in 4-robot games on a beginner course.
* **simulator** (``--only simulator``): the public fast simulator
  (:class:`roborally.bots.simulator.Simulator`, ``docs/simulator.md``) on the same busy-course
  positions, board model warm, one core: programs per millisecond scored by
  ``best_programs`` (the planner's search over every distinct program of the hand),
  ``score_programs`` (a given list: every ordering of 5 of the hand's cards) and ``run``.
* **games/s**: whole games between 4 planner bots on a beginner course, one core.
* **levels** (``--only levels``): decision time of each level (Beginner, Casual, Strong,
  Expert) over the program decisions and over all decisions of 4-robot games between the levels
  on a beginner course; the worst hand (9 different cards with Crab Legs, Brakes, Drifting and
  Power Slide) for the levels built on the planner; and how often the weak levels play a
  program at least 1 register worse than the planner's best, by the planner's own yardstick.

``--compare N`` also plays the issue's comparisons (N games each, 4 robots, beginner course,
seats rotated): planner against 3 random bots, and 2 experts against 2 planners. ``--soak N``
plays N seeded games over every shipped course of every edition with random mixes of the bots
and variants and reports any exception (``--jobs K`` runs those in K processes).
"""

from __future__ import annotations

import argparse
import itertools
import random
import sys
import time
import traceback
from typing import Any

from roborally.bots.expert import ExpertBot
from roborally.bots.levels import LEVELS
from roborally.bots.planner import DECK_2023, PlannerBot, Weights
from roborally.bots.random_bot import make_bot
from roborally.bots.runner import new_game
from roborally.bots.sim import _MODELS, board_model, card_code
from roborally.bots.simulator import Simulator
from roborally.bots.tournament import GameTask, cpu_count, play_one, run_tournament
from roborally.content.courses import find_course, list_courses
from roborally.engine.core.decisions import Action, Decision, DecisionKind
from roborally.engine.editions import edition as edition_rules

BUSY_COURSE = "y23-for-glory"  # 4 factory boards: belts of both colours, gears, pushers, lasers
BEGINNER_COURSE = "y23-rush-hour"
CLASSIC_COURSE = "cl-first-shift"
#: The classic hand with the most distinct programs: the classic deck has 7 card types and the
#: search deduplicates by type, so 9 cards give at most 5,070 programs (2 + 2 + 1 x 5 by type;
#: 9 different types, 15,120 programs, cannot happen in classic). Priorities are all different.
CLASSIC_WORST_HAND = [
    "move1@490",
    "move1@500",
    "rotate_right@80",
    "rotate_right@100",
    "move2@670",
    "move3@790",
    "back_up@430",
    "rotate_left@70",
    "u_turn@10",
]


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def collect_positions(
    course: str,
    games: int,
    seed: int,
    kinds: list[str],
    max_rounds: int = 40,
    edition: str = "2023",
) -> list[tuple[dict[str, Any], Decision]]:
    """(observation, program decision) pairs met in games between the given bots."""
    positions: list[tuple[dict[str, Any], Decision]] = []
    for g in range(games):
        game = new_game(course, len(kinds), seed + g, max_rounds=max_rounds, edition=edition)
        bots = [make_bot(k, seed * 7 + g * 10 + i) for i, k in enumerate(kinds)]
        while not game.is_over():
            for decision in game.pending_decisions():
                obs = game.observation(decision.seat)
                if decision.kind is DecisionKind.PROGRAM and obs["players"][decision.seat]["pos"]:
                    positions.append((obs, decision))
                choice = bots[decision.seat].choose(obs, decision)
                game.apply(Action(decision.id, decision.seat, choice))
    return positions


def bench_planner(args: argparse.Namespace) -> None:
    course = find_course(BUSY_COURSE)
    _MODELS.clear()
    began = time.perf_counter()
    model = board_model(course.course, "2023")
    for n in range(1, len(model.checkpoints) + 1):
        model.dist(n)
    cold = time.perf_counter() - began
    positions = collect_positions(BUSY_COURSE, args.games, 11, ["planner"] * 4)
    full = [(o, d) for o, d in positions if len(d.info["hand"]) == 9 and not d.info["locked"]]
    full = full[: args.positions]
    # First pass on a new model (only the distance fields built): the register transitions are
    # computed as the positions need them, as in a game; second pass: all of them cached.
    _MODELS.clear()
    model = board_model(course.course, "2023")
    for n in range(1, len(model.checkpoints) + 1):
        model.dist(n)
    passes: list[list[float]] = []
    programs: list[int] = []
    for _ in range(2):
        times: list[float] = []
        programs = []
        for obs, decision in full:
            bot = PlannerBot(1)
            t0 = time.perf_counter()
            result = bot.plan(obs, decision)
            times.append(time.perf_counter() - t0)
            programs.append(result.programs)
        passes.append(times)
    print(f"planner on {BUSY_COURSE} ({len(full)} positions with a full 9-card hand, 1 core)")
    print(f"  board model build (transitions + distance fields, once): {1000 * cold:.0f} ms")
    for label, times in zip(("first visit", "cached"), passes, strict=True):
        print(
            f"  decision time ({label}): p50 {1000 * percentile(times, 0.5):.1f} ms,"
            f" p95 {1000 * percentile(times, 0.95):.1f} ms, max {1000 * max(times):.1f} ms"
        )
    print(
        f"  programs evaluated: p50 {percentile(programs, 0.5):.0f},"
        f" p95 {percentile(programs, 0.95):.0f}, max {max(programs)}"
    )
    sample = full[: max(10, len(full) // 10)]
    programs_nine, worst = time_nine_cards(sample, [])
    print(
        f"  9 different cards ({programs_nine} programs): p50"
        f" {1000 * percentile(worst, 0.5):.1f} ms, p95 {1000 * percentile(worst, 0.95):.1f} ms"
        f" over {len(worst)} positions"
    )
    # The same positions with Crab Legs (pairs), Brakes, Drifting and Power Slide installed:
    # more programs, and each Move 1 / rotation costs the better of its two outcomes.
    movers = ["crab_legs", "brakes", "drifting", "power_slide"]
    programs_up, upgraded = time_nine_cards(sample, movers)
    print(
        f"  9 different cards with {', '.join(movers)} ({programs_up} programs): p50"
        f" {1000 * percentile(upgraded, 0.5):.1f} ms, p95 {1000 * percentile(upgraded, 0.95):.1f}"
        f" ms over {len(upgraded)} positions"
    )


def bench_simulator(args: argparse.Namespace) -> None:
    """Programs per millisecond through the public simulator API (board model warm)."""
    positions = collect_positions(BUSY_COURSE, max(2, args.games // 3), 11, ["planner"] * 4)
    full = [(o, d) for o, d in positions if len(d.info["hand"]) == 9 and not d.info["locked"]]
    full = full[: max(10, args.positions // 10)]
    searched = scored = ran = 0
    search_s = score_s = run_s = 0.0
    for npass in range(2):  # the first pass fills the transition tables
        for obs, decision in full:
            sim = Simulator(obs)
            t0 = time.perf_counter()
            result = sim.search_programs(decision)
            t1 = time.perf_counter()
            programs = list(itertools.permutations(decision.info["hand"], 5))
            sim.score_programs(programs)
            t2 = time.perf_counter()
            for program in programs[:200]:
                sim.run(program)
            t3 = time.perf_counter()
            if npass:
                searched += result.programs
                scored += len(programs)
                ran += 200
                search_s += t1 - t0
                score_s += t2 - t1
                run_s += t3 - t2
    print(
        f"simulator: {searched / (1000 * search_s):,.0f} programs/ms (public API,"
        f" best_programs: the planner's search over every distinct program; {BUSY_COURSE},"
        f" {len(full)} positions with a full 9-card hand, board model warm, 1 core);"
        f" score_programs {scored / (1000 * score_s):,.0f} programs/ms (all 15,120 orderings"
        f" of 5 of the 9 cards, repeats scored once); run {ran / (1000 * run_s):,.1f}"
        " programs/ms"
    )


def bench_classic(args: argparse.Namespace) -> None:
    """The planner's search on classic positions with the classic hand of the most programs."""
    course = find_course(CLASSIC_COURSE)
    model = board_model(course.course, "classic")
    for n in range(1, len(model.checkpoints) + 1):
        model.to_go(n - 1)  # warm: distance fields built once per course and process
    positions = collect_positions(
        CLASSIC_COURSE, max(2, args.games // 2), 41, ["planner"] * 4, edition="classic"
    )
    sample = [(o, d) for o, d in positions if not d.info["locked"]][: args.positions]
    programs, times = time_hand(sample, CLASSIC_WORST_HAND, passes=2)
    print(
        f"planner, classic on {CLASSIC_COURSE}, hand of 9 cards of 7 types (2 Move 1,"
        f" 2 Rotate Right, 1 of each other type: {programs:,} programs, the classic maximum):"
        f" p50 {1000 * percentile(times, 0.5):.1f} ms, p95 {1000 * percentile(times, 0.95):.1f}"
        f" ms over {len(times)} positions (board model warm, 1 core)"
    )


def time_hand(
    positions: list[tuple[dict[str, Any], Decision]],
    hand: list[str],
    upgrades: list[str] | None = None,
    passes: int = 1,
) -> tuple[int, list[float]]:
    """Plan ``hand`` at each position (with ``upgrades`` installed, 2023); the last of
    ``passes`` timed passes is returned (the earlier ones fill the transition tables)."""
    times: list[float] = []
    programs = 0
    for _ in range(passes):
        times = []
        for obs, decision in positions:
            view = obs
            info = dict(decision.info, hand=list(hand))
            if upgrades is not None:
                view = dict(obs, players=[dict(p) for p in obs["players"]])
                view["players"][decision.seat]["upgrades"] = upgrades
                info["pairs"] = "crab_legs" in upgrades
            nine = Decision(decision.id, decision.seat, DecisionKind.PROGRAM, "", (), "", info)
            bot = PlannerBot(1)
            t0 = time.perf_counter()
            programs = bot.plan(view, nine).programs
            times.append(time.perf_counter() - t0)
    return programs, times


def time_nine_cards(
    positions: list[tuple[dict[str, Any], Decision]], upgrades: list[str]
) -> tuple[int, list[float]]:
    """Plan a hand of the 9 different cards at each position (with ``upgrades`` installed)."""
    return time_hand(positions, sorted(DECK_2023), upgrades)


def bench_expert(args: argparse.Namespace) -> None:
    positions = collect_positions(BEGINNER_COURSE, max(2, args.games // 2), 21, ["planner"] * 4)
    times: list[float] = []
    with_rivals = 0
    for obs, decision in positions[: args.positions]:
        bot = ExpertBot(1)
        t0 = time.perf_counter()
        bot.choose(obs, decision)
        times.append(time.perf_counter() - t0)
        with_rivals += bot.last_rivals > 0
    print(f"expert on {BEGINNER_COURSE} (4 robots, {len(times)} positions, 1 core)")
    print(
        f"  decision time: p50 {1000 * percentile(times, 0.5):.1f} ms,"
        f" p95 {1000 * percentile(times, 0.95):.1f} ms, max {1000 * max(times):.1f} ms;"
        f" neighbours in range in {100 * with_rivals / max(1, len(times)):.0f}% of positions"
    )


def bench_levels(args: argparse.Namespace) -> None:
    kinds = [level.id for level in LEVELS]
    board_model(find_course(BEGINNER_COURSE).course, "2023")  # warm, as in a server process
    seen: list[tuple[dict[str, Any], Decision]] = []  # every decision met, with its observation
    for g in range(max(2, args.games // 2)):
        game = new_game(BEGINNER_COURSE, len(kinds), 700 + g, max_rounds=40)
        bots = [make_bot(k, 31 * g + i) for i, k in enumerate(kinds)]
        while not game.is_over():
            for decision in game.pending_decisions():
                obs = game.observation(decision.seat)
                seen.append((obs, decision))
                choice = bots[decision.seat].choose(obs, decision)
                game.apply(Action(decision.id, decision.seat, choice))
    programs = [(o, d) for o, d in seen if d.kind is DecisionKind.PROGRAM][: args.positions]
    others = [(o, d) for o, d in seen if d.kind is not DecisionKind.PROGRAM][: args.positions]
    print(
        f"levels on {BEGINNER_COURSE} (4 robots, {len(programs)} program and {len(others)}"
        " other decisions, 1 core, a fresh bot per decision)"
    )
    for level in LEVELS:
        row = []
        for label, sample in (("program", programs), ("other", others)):
            times = []
            for obs, decision in sample:
                bot = level.factory(1)
                t0 = time.perf_counter()
                bot.choose(obs, decision)
                times.append(time.perf_counter() - t0)
            row.append(
                f"{label}: p50 {1000 * percentile(times, 0.5):.1f} ms,"
                f" p95 {1000 * percentile(times, 0.95):.1f} ms, max {1000 * max(times):.0f} ms"
            )
        print(f"  {level.title:<8} " + "; ".join(row))
    # The worst hand: 9 different cards with the four movement upgrades.
    full = [(o, d) for o, d in programs if o["players"][d.seat]["pos"] and not d.info["locked"]]
    sample = full[: max(10, len(full) // 10)]
    movers = ["crab_legs", "brakes", "drifting", "power_slide"]
    for level in LEVELS[:3]:
        times = []
        for obs, decision in sample:
            view = dict(obs, players=[dict(p) for p in obs["players"]])
            view["players"][decision.seat]["upgrades"] = movers
            info = dict(decision.info, hand=sorted(DECK_2023), pairs=True)
            nine = Decision(decision.id, decision.seat, DecisionKind.PROGRAM, "", (), "", info)
            bot = level.factory(1)
            t0 = time.perf_counter()
            bot.choose(view, nine)
            times.append(time.perf_counter() - t0)
        print(
            f"  {level.title:<8} 9 different cards with {', '.join(movers)}:"
            f" p50 {1000 * percentile(times, 0.5):.1f} ms,"
            f" p95 {1000 * percentile(times, 0.95):.1f} ms over {len(times)} positions"
        )
    mistakes(full)


def mistakes(positions: list[tuple[dict[str, Any], Decision]]) -> None:
    """How much worse than the planner's best the levels' programs are, by the planner's score
    (its distance field and weights, over the whole hand)."""
    spam = Weights().spam
    for level in LEVELS[:3]:
        gaps = []
        for obs, decision in positions:
            planner = PlannerBot(1)
            search = planner.searcher(obs)
            best = planner.plan(obs, decision).best.cost
            program = level.factory(5).choose(obs, decision)
            me = search.me
            assert me.pos is not None
            start = search.model.grid.index(me.pos) * 4 + int(me.facing)
            codes = [card_code(n, search.family) for n in program]
            cost = search.evaluate(start, 1, codes, me.reached, bonus=-spam * program.count("spam"))
            gaps.append(max(0.0, cost - best) if best > -500 or cost > -500 else 0.0)
        worse = sum(1 for g in gaps if g >= 1.0)
        capped = [min(g, 20.0) for g in gaps]
        print(
            f"  {level.title:<8} plays a program 1+ register worse than the planner's best in"
            f" {100 * worse / len(gaps):.0f}% of {len(gaps)} positions (mean gap"
            f" {sum(capped) / len(capped):.2f} registers, each capped at 20)"
        )


def bench_games(args: argparse.Namespace) -> None:
    board_model(find_course(BEGINNER_COURSE).course, "2023")  # warm, as in a tournament
    rounds = 0
    t0 = time.perf_counter()
    for g in range(args.games):
        result = play_one(
            GameTask(g, 500 + g, "2023", BEGINNER_COURSE, ("planner",) * 4, 50, (), None)
        )
        rounds += result.rounds
    elapsed = time.perf_counter() - t0
    print(
        f"games: {args.games} games of 4 planner bots on {BEGINNER_COURSE} in {elapsed:.1f} s:"
        f" {args.games / elapsed:.2f} games/s, {rounds / args.games:.1f} rounds/game (1 core)"
    )


def compare(args: argparse.Namespace) -> None:
    jobs = args.jobs or cpu_count()
    for bots in (["planner", "random", "random", "random"], ["expert", "planner"] * 2):
        result = run_tournament(
            "2023", BEGINNER_COURSE, bots, args.compare, seed=1000, jobs=jobs, progress=sys.stderr
        )
        print(f"\n{','.join(bots)}: {args.compare} games on {BEGINNER_COURSE}")
        print(result.table())


def soak_task(i: int, seed: int) -> GameTask:
    courses = list_courses()
    course = courses[i % len(courses)]
    rng = random.Random(seed + i)
    if course.edition.startswith("classic"):
        edition = rng.choice(["classic", "classic-1994"])
    else:
        edition = "2023"
    rules = edition_rules(edition)
    low = max(rules.min_players, course.players[0], 2)
    players = rng.randint(low, max(low, min(6, course.players[1])))
    variants = tuple(
        v
        for v in rules.variants
        if rng.random() < 0.2 and (v != "four_lives" or players >= 5)  # 4 lives: 5+ robots
    )
    seats = tuple(rng.choice(["planner", "expert", "random"]) for _ in range(players))
    return GameTask(i, seed + i, edition, course.id, seats, 30, variants, None)


def _soak_one(job: tuple[int, int]) -> tuple[GameTask, str | None, str]:
    task = soak_task(*job)
    result = play_one(task)
    error = result.error or ("\n".join(result.bot_errors) if result.bot_errors else None)
    return task, error, result.termination


def soak(args: argparse.Namespace) -> int:
    import multiprocessing

    jobs = args.jobs or cpu_count()
    work = [(i, args.seed) for i in range(args.soak)]
    errors = 0
    endings: dict[str, int] = {}
    editions: dict[str, int] = {}
    t0 = time.perf_counter()
    with multiprocessing.get_context("fork").Pool(jobs) as pool:
        for done, (task, error, ending) in enumerate(pool.imap_unordered(_soak_one, work), 1):
            editions[task.edition] = editions.get(task.edition, 0) + 1
            endings[ending or "?"] = endings.get(ending or "?", 0) + 1
            if error:
                errors += 1
                print(f"EXCEPTION: {task}\n{error}")
            if done % 100 == 0:
                print(f"  {done}/{len(work)} games, {errors} exception(s)", flush=True)
    elapsed = time.perf_counter() - t0
    print(
        f"soak: {len(work)} games ({', '.join(f'{k} x{v}' for k, v in sorted(editions.items()))})"
        f" in {elapsed:.0f} s with {jobs} job(s): {errors} exception(s);"
        f" endings {dict(sorted(endings.items()))}"
    )
    return 1 if errors else 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=12, help="games for positions and games/s")
    parser.add_argument("--positions", type=int, default=300, help="positions timed per bot")
    parser.add_argument("--compare", type=int, default=0, help="games per comparison (0: skip)")
    parser.add_argument("--soak", type=int, default=0, help="soak games over every edition")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--jobs", type=int, default=0, help="processes for --compare/--soak")
    parser.add_argument(
        "--only",
        choices=["planner", "simulator", "classic", "expert", "games", "levels"],
        help="one benchmark",
    )
    args = parser.parse_args(argv)
    try:
        if args.soak:
            return soak(args)
        if args.only in (None, "planner"):
            bench_planner(args)
        if args.only in (None, "simulator"):
            bench_simulator(args)
        if args.only in (None, "classic"):
            bench_classic(args)
        if args.only in (None, "expert"):
            bench_expert(args)
        if args.only in (None, "games"):
            bench_games(args)
        if args.only in (None, "levels"):
            bench_levels(args)
        if args.compare:
            compare(args)
    except Exception:
        traceback.print_exc()
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
