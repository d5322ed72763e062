"""The planner's program search gives the same decisions as recorded before it was optimised.

``bots_search_expected.json`` holds, for seeded positions of classic and 2023 games between
planner bots, what the search returned (best programs, their costs to the last bit, leaves
and programs counted) with the hand dealt, a hand of many programs, the 2023 movement upgrades
and ``top=16`` (the levels and the expert ask for several candidates). Regenerate it only on
purpose: ``uv run python tests/test_bots_search.py --record``.
"""

from __future__ import annotations

import importlib.util
import json
import random
import sys
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from roborally.bots.planner import DECK_2023, PlannerBot, ProgramSearch, SearchResult, Weights
from roborally.bots.random_bot import make_bot
from roborally.bots.runner import new_game
from roborally.engine.core.decisions import Action, Decision, DecisionKind

FIXTURE = Path(__file__).with_name("bots_search_expected.json")


def _bench() -> Any:
    spec = importlib.util.spec_from_file_location("bots_bench", BENCH)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


BENCH = Path(__file__).parents[1] / "bench" / "bots_bench.py"
CLASSIC_HAND: list[str] = _bench().CLASSIC_WORST_HAND  # the classic hand of the most programs
MOVERS = ["crab_legs", "brakes", "drifting", "power_slide"]
#: (edition, course, seed): short games between 4 planner bots.
GAMES = [
    ("classic", "cl-first-shift", 41),
    ("classic-1994", "cl-first-shift", 42),
    ("2023", "y23-for-glory", 11),
    ("2023", "y23-rush-hour", 12),
]


@cache  # both tests search the same positions
def positions(edition: str, course: str, seed: int) -> list[tuple[dict[str, Any], Decision]]:
    game = new_game(course, 4, seed, max_rounds=10, edition=edition)
    bots = [make_bot("planner", seed * 7 + i) for i in range(4)]
    found = []
    while not game.is_over():
        for decision in game.pending_decisions():
            obs = game.observation(decision.seat)
            if decision.kind is DecisionKind.PROGRAM:
                found.append((obs, decision))
            choice = bots[decision.seat].choose(obs, decision)
            game.apply(Action(decision.id, decision.seat, choice))
    return found[::3]


def variants(obs: dict[str, Any], decision: Decision, classic: bool) -> list[tuple[str, Any, Any]]:
    """(label, observation, decision) for each search to check at one position."""
    out: list[tuple[str, Any, Any]] = [("dealt", obs, decision)]
    many = CLASSIC_HAND if classic else sorted(DECK_2023)
    info = dict(decision.info, hand=list(many))
    out.append(("many", obs, Decision(decision.id, decision.seat, decision.kind, "", (), "", info)))
    if not classic:
        view = dict(obs, players=[dict(p) for p in obs["players"]])
        view["players"][decision.seat]["upgrades"] = MOVERS
        info = dict(decision.info, hand=list(many), pairs=True)
        out.append(
            ("movers", view, Decision(decision.id, decision.seat, decision.kind, "", (), "", info))
        )
    return out


def results() -> list[dict[str, Any]]:
    rows = []
    for edition, course, seed in GAMES:
        for n, (obs, decision) in enumerate(positions(edition, course, seed)):
            for label, view, question in variants(obs, decision, edition != "2023"):
                for top in (1, 16):
                    result = PlannerBot(1).plan(view, question, top=top)
                    where = f"{edition} {course} {seed} #{n} {label} top={top}"
                    rows.append({"where": where, **summary(result)})
    return rows


def summary(result: SearchResult) -> dict[str, Any]:
    """What a search returned, costs to the last bit."""
    return {
        "programs": result.programs,
        "leaves": result.leaves,
        "top": [[c.cost.hex(), list(c.program), c.start] for c in result.top],
    }


def test_search_matches_the_recorded_decisions() -> None:
    expected = json.loads(FIXTURE.read_text())
    got = results()
    assert len(got) == len(expected)
    for row, want in zip(got, expected, strict=True):
        assert row == want, row["where"]


#: Cards the recorded hands seldom hold: damage (SPAM, Haywires: no floor) and classic cards.
DAMAGE = ["spam", "hw_two", "hw_m1rm1", "hw_side2", "hw_m3u", "trojan"]
CLASSIC_TYPES = ["move1", "move2", "move3", "back_up", "rotate_right", "rotate_left", "u_turn"]


def unusual(
    rng: random.Random, edition: str, obs: dict[str, Any], decision: Decision
) -> tuple[dict[str, Any], Decision]:
    """The position with a random hand (short ones leave registers empty), maybe locked
    registers, the 2023 movement upgrades, or classic damage near destruction."""
    view = dict(obs, players=[dict(p) for p in obs["players"]])
    me = view["players"][decision.seat]
    size = rng.choice([3, 5, 7, 9])
    if edition == "2023":
        deck = [name for name, n in DECK_2023.items() for _ in range(n)]
        hand = rng.sample(deck + DAMAGE * rng.randint(0, 1), size)
        me["upgrades"] = rng.sample(MOVERS, rng.randint(0, len(MOVERS)))
    else:
        hand = [f"{rng.choice(CLASSIC_TYPES)}@{10 * rng.randint(1, 84)}" for _ in range(size)]
        me["classic"] = dict(me["classic"], damage=rng.choice([0, 4, 8, 9, 9]))
    info = dict(decision.info, hand=hand, pairs="crab_legs" in me["upgrades"])
    if rng.random() < 0.4:
        info["locked"] = sorted(rng.sample(range(1, 6), rng.randint(1, 3)))
        me["registers"] = [
            dict(register, cards=[rng.choice(hand)] if r + 1 in info["locked"] else [])
            for r, register in enumerate(me["registers"])
        ]
    return view, Decision(decision.id, decision.seat, decision.kind, "", (), "", info)


def test_pruning_changes_no_result(monkeypatch: pytest.MonkeyPatch) -> None:
    """The search skips what cannot beat the programs it keeps; scoring every program instead
    gives the same results, leaf counts included, on hands the recorded ones leave out."""
    rng = random.Random(13)
    # A larger weight on early progress makes a classic robot's destruction (scored without it)
    # cheaper than the bound of the programs it ends.
    weights = [Weights(), Weights(early=0.3)]
    for edition, course, seed in [*GAMES, ("classic", "cl-crossfire", 43)]:  # many lasers
        for obs, decision in positions(edition, course, seed):
            for _ in range(6):
                view, question = unusual(rng, edition, obs, decision)
                top = rng.choice([1, 16])
                bot = PlannerBot(1, weights=rng.choice(weights))
                pruned = summary(bot.plan(view, question, top=top))
                with monkeypatch.context() as patch:
                    patch.setattr(ProgramSearch, "pruning", False)
                    full = summary(bot.plan(view, question, top=top))
                assert pruned == full, (edition, course, seed, question.info)


if __name__ == "__main__":
    if "--record" in sys.argv:
        FIXTURE.write_text(json.dumps(results(), indent=0) + "\n")
        print(f"wrote {FIXTURE}")
