"""RL environment benchmark: env steps per second against the raw engine's decisions per second.

Run with ``make bench`` (or ``uv run python bench/rl_bench.py``). It prints figures and asserts
nothing. Two measurements on the same course and table (``tiny``, 2 seats, 30 rounds at most):

* **rl**: ``roborally.rl.raw_env`` played by random legal actions drawn from the action mask;
  every step reads ``env.last()`` (the observation vector and the mask of the agent to act) and
  calls ``env.step``. A program takes one step per register, so a game has about three times
  more env steps than engine decisions. Lines ``rl: N env steps/s (2023, ...)`` and
  ``rl classic: N env steps/s (...)``.
* **engine**: the same games between random bots straight through ``Game.apply``, each bot
  given ``Game.observation(seat)``, as ``roborally play`` runs them. Lines
  ``engine: N decisions/s (2023, ...)`` and ``engine classic: ...``.

``--profile`` prints the top of a cProfile of the rl loop instead.
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import sys
import time

import numpy as np

from roborally import api, rl


def rl_steps(edition: str, course: str, players: int, seconds: float) -> tuple[int, float]:
    """Env steps of random legal actions until ``seconds`` have passed (whole games)."""
    env = rl.raw_env(edition=edition, course=course, players=players, seed=1)
    rng = np.random.default_rng(1)
    steps = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        env.reset()
        for _ in env.agent_iter():
            obs, _, terminated, truncated, _ = env.last()
            action = None
            if not (terminated or truncated):
                legal = np.flatnonzero(obs["action_mask"])
                action = int(legal[int(rng.integers(len(legal)))])
            env.step(action)
            steps += 1
    return steps, time.perf_counter() - start


def engine_decisions(edition: str, course: str, players: int, seconds: float) -> tuple[int, float]:
    """Decisions answered by random bots through Game.apply until ``seconds`` have passed."""
    decisions = 0
    seed = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        seed += 1
        game = api.new_game(course, players, seed, edition, max_rounds=30)
        bots = api.bots_for(["random"] * players, seed=seed)
        while not game.is_over():
            for decision in game.pending_decisions():
                choice = bots[decision.seat].choose(game.observation(decision.seat), decision)
                game.apply(api.Action(decision.id, decision.seat, choice))
                decisions += 1
    return decisions, time.perf_counter() - start


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=5.0, help="per measurement")
    parser.add_argument("--course", default="tiny")
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--editions", default="2023,classic")
    parser.add_argument("--profile", action="store_true", help="cProfile the 2023 rl loop")
    args = parser.parse_args(argv)
    table = f"{args.course}, {args.players} seats, 30 rounds at most"
    if args.profile:
        profiler = cProfile.Profile()
        profiler.runcall(rl_steps, "2023", args.course, args.players, args.seconds)
        pstats.Stats(profiler).sort_stats("tottime").print_stats(25)
        return 0
    ratios = []
    for edition in args.editions.split(","):
        label = "" if edition == "2023" else f" {edition}"
        steps, took = rl_steps(edition, args.course, args.players, args.seconds)
        rl_rate = steps / took
        print(
            f"rl{label}: {rl_rate:,.0f} env steps/s ({edition}, {table};"
            " random legal actions from the mask, env.last() every step)"
        )
        decisions, took = engine_decisions(edition, args.course, args.players, args.seconds)
        engine_rate = decisions / took
        print(
            f"engine{label}: {engine_rate:,.0f} decisions/s ({edition}, {table};"
            " random bots through Game.apply)"
        )
        ratios.append(f"{rl_rate / engine_rate:.2f} ({edition})")
        sys.stdout.flush()
    print("rl env steps per engine decision per second:", ", ".join(ratios))
    return 0


if __name__ == "__main__":
    sys.exit(main())
