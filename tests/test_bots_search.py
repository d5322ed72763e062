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
import sys
from pathlib import Path
from typing import Any

from roborally.bots.planner import DECK_2023, PlannerBot
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
                    rows.append(
                        {
                            "where": f"{edition} {course} {seed} #{n} {label} top={top}",
                            "programs": result.programs,
                            "leaves": result.leaves,
                            "top": [[c.cost.hex(), list(c.program), c.start] for c in result.top],
                        }
                    )
    return rows


def test_search_matches_the_recorded_decisions() -> None:
    expected = json.loads(FIXTURE.read_text())
    got = results()
    assert len(got) == len(expected)
    for row, want in zip(got, expected, strict=True):
        assert row == want, row["where"]


if __name__ == "__main__":
    if "--record" in sys.argv:
        FIXTURE.write_text(json.dumps(results(), indent=0) + "\n")
        print(f"wrote {FIXTURE}")
