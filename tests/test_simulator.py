"""The public fast simulator (``roborally.bots.simulator``, ``docs/simulator.md``): it agrees with
the multi-robot model on a lone robot, with the planner's search, and its conversions round-trip;
every Python block of ``docs/simulator.md`` runs."""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest

from roborally import api
from roborally.bots.simulator import Simulator
from roborally.engine.core.geometry import Direction, Pos
from roborally.engine.game import Game

DOC = Path(__file__).parent.parent / "docs" / "simulator.md"


def program_positions(course: str, edition: str, seed: int, rounds: int = 6) -> list[Game]:
    """Clones of a game between random bots at each program decision of a robot on the board."""
    game = api.new_game(course, players=2, seed=seed, edition=edition)
    bots = api.bots_for(["random", "random"], seed=seed)
    found: list[Game] = []
    while not game.is_over() and game.state.round <= rounds:
        d = api.pending(game)[0]
        obs = api.observe(game, d.seat)
        if d.kind is api.DecisionKind.PROGRAM and obs["players"][d.seat]["pos"] is not None:
            found.append(api.clone(game))
        api.apply(game, d, bots[d.seat].choose(obs, d))
    return found


@pytest.mark.parametrize(
    ("course", "edition"),
    [("tiny", "2023"), ("y23-for-glory", "2023"), ("cl-first-shift", "classic")],
)
def test_run_agrees_with_the_board_model_and_the_search(course: str, edition: str) -> None:
    compared = 0
    for game in program_positions(course, edition, seed=4)[:8]:
        decision = api.pending(game)[0]
        sim = Simulator.from_game(game, decision.seat)
        board = api.board(api.observe(game, decision.seat))
        rng = random.Random(compared)
        for _ in range(15):
            program = api.random_program(decision, rng)
            mine, theirs = sim.run(program), board.simulate(program)
            assert (mine.pos, mine.facing, mine.checkpoint, mine.fell, mine.damage) == (
                theirs.pos,
                theirs.facing,
                theirs.checkpoint,
                theirs.fell,
                theirs.damage,
            ), program
            assert mine.cost == sim.score(program)
            compared += 1
        best = sim.best_programs(decision, top=3)
        assert [c.cost for c in best] == sorted(c.cost for c in best)
        for candidate in best:
            assert sim.score(candidate.program, candidate.start) == pytest.approx(candidate.cost)
        # the program is a legal answer
        api.apply(api.clone(game), decision, best[0].program)
    assert compared >= 60


def test_score_programs_matches_score_and_the_search() -> None:
    game = program_positions("tiny", "2023", seed=9)[2]
    decision = api.pending(game)[0]
    sim = Simulator.from_game(game, decision.seat)
    rng = random.Random(1)
    programs = [api.random_program(decision, rng) for _ in range(200)]
    assert sim.score_programs(programs) == [sim.score(p) for p in programs]
    hand = decision.info["hand"]
    found = sim.search_programs(hand=hand)
    assert found.programs > 100
    assert sim.best_programs(decision)[0].cost == pytest.approx(found.best.cost)


def test_states_convert_both_ways() -> None:
    game = program_positions("tiny", "2023", seed=2)[0]
    seat = api.pending(game)[0].seat
    sim = Simulator.from_game(game, seat)
    me = api.me(api.observe(game, seat))
    assert sim.decode(sim.start) == (Pos(*me["pos"]), Direction.parse(me["facing"]))
    state = sim.encode([3, 4], "E")
    assert state == (4 * sim.width + 3) * 4 + 1
    assert sim.pos_of(state) == Pos(3, 4) and sim.facing_of(state) is Direction.EAST
    assert sim.decode(-3) is None and sim.fell_from(-3) == 2 and sim.pos_of(-3) is None
    with pytest.raises(ValueError, match="not on the course"):
        sim.encode(Pos(40, 40), Direction.NORTH)
    first = sim.checkpoints[0]
    on_it = sim.encode(first, "N")
    assert sim.distance(on_it, 1) == 0
    assert sim.to_go(on_it, 0) == sim.to_go(on_it, 1)  # standing on 1: the rest of the course
    assert sim.to_go_table(len(sim.checkpoints))[on_it] == 0
    with pytest.raises(ValueError, match="no checkpoint"):
        sim.distance(on_it, 9)
    step = sim.step(sim.start, 1, "u_turn")
    assert sim.decode(step.state) == (sim.pos_of(sim.start), sim.facing_of(sim.start).opposite)


def test_a_spectator_needs_a_seat() -> None:
    game = program_positions("tiny", "2023", seed=2)[0]
    with pytest.raises(ValueError, match="spectator"):
        Simulator(api.observe(game, None))
    assert Simulator(api.observe(game, None), 1).seat == 1


def blocks() -> list[str]:
    return re.findall(r"```python\n(.*?)```", DOC.read_text(encoding="utf-8"), re.S)


def test_the_doc_has_examples() -> None:
    assert len(blocks()) >= 4


@pytest.mark.parametrize("number", range(len(blocks())))
def test_doc_example_runs(number: int, capsys: pytest.CaptureFixture[str]) -> None:
    code = compile(blocks()[number], f"docs/simulator.md block {number + 1}", "exec")
    exec(code, {"__name__": f"simulator_doc_{number}"})
    capsys.readouterr()
