"""The planner with 2023 upgrades: every upgrade question gets a considered, legal answer.

The program search with upgrades (Crab Legs pairs, Brakes, Drifting, Power Slide, Hover Unit)
is checked against the engine in ``test_bots.py``; here the other upgrade decisions are played
in whole games and on hand-made positions of the ``tiny`` course (Training Ground: checkpoint 1
at 7,6, pits at 8,1, 0,5 and 4,6).
"""

from __future__ import annotations

import copy
from collections import Counter
from typing import Any

import pytest

from roborally.bots.expert import ExpertBot
from roborally.bots.planner import PlannerBot
from roborally.bots.runner import new_game
from roborally.engine.core.decisions import Action, Decision, DecisionKind


def planners(seed: int, expert: bool = False) -> list[Any]:
    bots: list[Any] = [
        (ExpertBot if expert and i == 0 else PlannerBot)(seed * 10 + i) for i in range(4)
    ]
    for bot in bots:
        bot.strict = True  # an unexpected exception fails the test instead of a safe fallback
    return bots


def question(decision: Decision) -> str:
    info = decision.info
    if "over_limit" in decision.id:
        return "over_limit"
    if decision.id.endswith("-weapon"):
        return "weapon"
    return str(info.get("card") or info.get("window") or decision.id)


@pytest.mark.parametrize("course", ["y23-dangerous-turns", "y23-rush-hour"])
def test_planners_answer_upgrade_questions_in_whole_games(course: str) -> None:
    """Whole 4-planner games with upgrades: no exception, every answer legal (the engine checks
    it), and the answers are decisions, not defaults (some brakes, slides, shields ...)."""
    asked: Counter[str] = Counter()
    answers: Counter[tuple[str, str]] = Counter()
    for seed in range(6):
        game = new_game(course, 4, seed, max_rounds=15)
        bots = planners(seed, expert=seed == 0)
        while not game.is_over():
            d = game.pending_decisions()[0]
            choice = bots[d.seat].choose(game.observation(d.seat), d)
            if d.kind is DecisionKind.UPGRADE:
                asked[question(d)] += 1
                answers[question(d), str(choice).split(" ")[0]] += 1
            game.apply(Action(d.id, d.seat, choice))
        assert all(not bot.errors and not bot.fallbacks for bot in bots)
    assert len(asked) >= 5, asked
    assert any(verb not in ("none", "done", "stay", "keep", "no", "take") for _q, verb in answers)


@pytest.fixture(scope="module")
def base_obs() -> dict[str, Any]:
    game = new_game("tiny", 2, 5)
    return game.observation(0)


def at(
    obs: dict[str, Any],
    pos: tuple[int, int],
    facing: str,
    card: list[str] | None = None,
    register: int = 1,
    upgrades: tuple[str, ...] = (),
) -> dict[str, Any]:
    """The observation with seat 0's robot placed, its register card and upgrades set."""
    view = copy.deepcopy(obs)
    view["register"] = register
    view["stage"] = "turns"
    me = view["players"][0]
    me.update(pos=list(pos), facing=facing, checkpoint=0, upgrades=list(upgrades), energy=3)
    me["registers"] = [
        {"cards": list(card) if r == register - 1 and card else [], "locked": False}
        for r in range(5)
    ]
    view["players"][1]["pos"] = [9, 9]
    return view


def ask(kind: str, options: tuple[str, ...], **info: Any) -> Decision:
    return Decision(f"t1-r1-p1-{kind}", 0, DecisionKind.UPGRADE, "", options, options[0], info)


def test_brakes_stop_short_of_a_pit_and_not_of_a_checkpoint(base_obs: dict[str, Any]) -> None:
    bot = PlannerBot(1)
    brakes = ask("brakes", ("move", "brake"), card="brakes")
    pit = at(base_obs, (4, 5), "S", ["move1"], upgrades=("brakes",))
    assert bot.choose(pit, brakes) == "brake"
    checkpoint = at(base_obs, (7, 7), "N", ["move1"], upgrades=("brakes",))
    assert bot.choose(checkpoint, brakes) == "move"


def test_power_slide_moves_only_when_it_helps(base_obs: dict[str, Any]) -> None:
    bot = PlannerBot(1)
    slide = ask("power_slide", ("stay", "move"), card="power_slide")
    # after its Rotate Right the robot faces the checkpoint one space ahead
    assert bot.choose(at(base_obs, (7, 7), "N", ["rotate_right"]), slide) == "move"
    # ... or a pit
    assert bot.choose(at(base_obs, (4, 5), "S", ["rotate_right"]), slide) == "stay"


def test_a_movement_upgrade_is_spent_to_dodge_a_pit(base_obs: dict[str, Any]) -> None:
    bot = PlannerBot(1)
    options = ("none", "boink N", "boink E", "boink S", "boink W", "use recharge")
    pre = ask("pre-0", options, window="pre")
    # a Move 1 into the pit at 4,6 is coming: step aside first
    above_pit = at(base_obs, (4, 5), "S", ["move1"], upgrades=("boink",))
    assert bot.choose(above_pit, pre) in ("boink E", "boink W")
    # far from anything useful and with energy to spare: keep the temporary card
    far = at(base_obs, (1, 8), "E", ["move1"], upgrades=("boink",))
    far["players"][0]["energy"] = 9
    assert bot.choose(far, pre) == "none"
    # low on energy with nothing better to do: Recharge
    far["players"][0]["energy"] = 1
    assert bot.choose(far, pre) == "use recharge"


def test_pressor_beam_pushes_a_rival_into_a_pit(base_obs: dict[str, Any]) -> None:
    bot = PlannerBot(1)
    view = at(base_obs, (2, 5), "W")
    view["players"][1].update(pos=[1, 5], facing="N", checkpoint=0)
    weapon = Decision(
        "t1-r1-p1-weapon", 0, DecisionKind.UPGRADE, "", ("main", "pressor_beam"), "main", {}
    )
    weapon.info["target"] = 1
    assert bot.choose(view, weapon) == "pressor_beam"
    view["players"][1].update(pos=[3, 5])  # a rival behind us: no gain, fire the laser
    view["players"][0]["facing"] = "E"
    assert bot.choose(view, weapon) == "main"


def test_classic_pressor_beam_is_valued_the_same_way(base_obs: dict[str, Any]) -> None:
    bot = PlannerBot(1)
    view = at(base_obs, (2, 5), "W")
    view["edition"] = "classic"
    view["players"][1].update(pos=[1, 5], facing="N", checkpoint=0)
    weapon = Decision(
        "t1-r1-lasers-3-p1-weapon",
        0,
        DecisionKind.CHOICE,
        "",
        ("laser", "pressor_beam", "radio_control"),
        "laser",
        {"target": 1},
    )
    assert bot.choose(view, weapon) == "pressor_beam"
    # pushing this rival would put it on its checkpoint: fire the laser
    view["players"][1].update(pos=[7, 7])
    view["players"][0].update(pos=[7, 8], facing="N")
    assert bot.choose(view, weapon) == "laser"


def test_deflector_self_diagnostics_and_memory_cards(base_obs: dict[str, Any]) -> None:
    bot = PlannerBot(1)
    view = at(base_obs, (1, 8), "E")
    shield = ask("deflector_shield", ("take", "shield"), card="deflector_shield", amount=1)
    assert bot.choose(view, shield) == "shield"
    diag = ask(
        "self_diagnostics",
        ("none", "hand move1", "hand spam", "discard u_turn"),
        card="self_diagnostics",
    )
    assert bot.choose(view, diag) == "hand spam"
    clean = ask("self_diagnostics", ("none", "hand move1"), card="self_diagnostics")
    assert bot.choose(view, clean) == "none"
    view["players"][0]["memory"] = []
    park = ask("memory_cards", ("done", "store move2", "store u_turn"), window="memory_cards")
    assert bot.choose(view, park) == "store move2"
    view["players"][0]["memory"] = ["move3", "move2", "move1"]
    assert bot.choose(view, park) == "done"


def test_memory_swap_keeps_the_cards_the_program_needs(base_obs: dict[str, Any]) -> None:
    bot = PlannerBot(1)
    view = at(base_obs, (7, 9), "N")
    view["register"] = 0
    hand = ["move3", "move2", "spam", "u_turn", "rotate_left", "rotate_left", "move_back"]
    view["players"][0]["hand"] = hand
    put = ask(
        "memory_swap",
        tuple(f"put {n}" for n in dict.fromkeys(hand)),
        card="memory_swap",
        hand=hand,
        left=3,
    )
    choice = bot.choose(view, put)
    assert choice in put.options and choice != "put spam"


def test_unknown_upgrade_questions_take_the_quiet_option(base_obs: dict[str, Any]) -> None:
    bot = PlannerBot(1)
    odd = ask("mystery", ("go", "stay"), card="mystery")
    assert bot.choose(at(base_obs, (1, 8), "E"), odd) == "stay"
