"""``roborally.rl``: the PettingZoo AEC environment and the Gymnasium single-seat environment.

PettingZoo's ``api_test`` and Gymnasium's ``check_env`` pass for both editions; the action mask
offers exactly the legal answers (programs: the cards that can start a listed program, checked
against ``legal_choices``); seeds, rewards, truncation, the observation layout and rendering.
"""

from __future__ import annotations

import subprocess
import sys
import warnings
from typing import Any

import numpy as np
import pytest

pytest.importorskip("pettingzoo")

from gymnasium.utils.env_checker import check_env
from pettingzoo.test import api_test

from roborally import api, rl
from roborally.engine.core.decisions import DecisionKind
from roborally.engine.core.programs import PAIRS, open_registers
from roborally.rl.encoding import (
    FACING,
    HAND,
    NO,
    NUM_ACTIONS,
    OPTION,
    PAIR,
    PLANES,
    SIDE,
    START,
    YES,
)

EDITIONS = ["2023", "classic", "classic-1994"]


def quiet_api_test(env: Any, cycles: int) -> None:
    with warnings.catch_warnings():
        # The dict observation with "action_mask" is PettingZoo's own convention, but the
        # test warns that it is not a single array.
        warnings.simplefilter("ignore", UserWarning)
        api_test(env, num_cycles=cycles)


@pytest.mark.parametrize("edition", EDITIONS)
def test_pettingzoo_api_test(edition: str) -> None:
    quiet_api_test(rl.env(edition=edition, seed=1), cycles=400)


def test_pettingzoo_api_test_with_more_seats_and_variants() -> None:
    env = rl.env(players=4, seed=2, variants=["competitive_start", "less_deadly"])
    quiet_api_test(env, cycles=150)


@pytest.mark.parametrize("edition", ["2023", "classic"])
def test_gymnasium_check_env(edition: str) -> None:
    env = rl.single_agent_env(edition=edition, illegal_action="first")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        check_env(env, skip_render_check=True)


def random_actions(env: rl.RoboRallyEnv, seed: int, steps: int) -> list[int]:
    """Play ``steps`` random legal actions (from the mask); returns them."""
    rng = np.random.default_rng(seed)
    taken = []
    for _ in range(steps):
        if env.decision is None:
            break
        mask = env.observe(env.agent_selection)["action_mask"]
        action = int(rng.choice(np.flatnonzero(mask)))
        env.step(action)
        taken.append(action)
    return taken


@pytest.mark.parametrize("edition", EDITIONS)
def test_the_mask_offers_exactly_the_legal_answers(edition: str) -> None:
    """Walk random games; at every step compare the mask with the decision's legal choices."""
    env = rl.raw_env(edition=edition, players=3, max_rounds=8)
    rng = np.random.default_rng(4)
    programs = 0
    for game_seed in range(3):
        env.reset(seed=game_seed)
        while env.decision is not None:
            decision = env.decision
            mask = env.observe(env.agent_selection)["action_mask"]
            assert mask.dtype == np.int8 and mask.shape == (NUM_ACTIONS,)
            legal = set(np.flatnonzero(mask).tolist())
            assert legal
            if decision.kind is DecisionKind.PROGRAM:
                placed = list(env._placed)
                hand = decision.info["hand"]
                slots = open_registers(decision.info)
                follows = set()
                for program in env.game.legal_choices(decision):
                    units = [program[r] for r in slots if program[r] is not None]
                    if units[: len(placed)] == placed and len(units) > len(placed):
                        follows.add(units[len(placed)])
                offered = {hand[a - HAND] for a in legal if a < PAIR}
                offered |= {PAIRS[a - PAIR] for a in legal if a >= PAIR}
                assert offered == follows, (decision.info, placed)
                assert all(a - HAND not in env._used for a in legal if a < PAIR)
                programs += 1
            else:
                answers = rl.decision_actions(decision)
                assert legal == set(answers)
                assert sorted(answers.values(), key=repr) == sorted(decision.options, key=repr)
                for action, choice in answers.items():
                    env.game.check(api.Action(decision.id, decision.seat, choice))
                    block = {
                        DecisionKind.REBOOT_FACING: (FACING, FACING + 4),
                        DecisionKind.SIDESTEP: (SIDE, SIDE + 2),
                        DecisionKind.SHUTDOWN: (NO, YES + 1),
                        DecisionKind.POWER_DOWN: (NO, YES + 1),
                        DecisionKind.START_SPACE: (START, START + 8),
                    }.get(decision.kind)
                    if block is not None and not (
                        decision.kind is DecisionKind.REBOOT_FACING and len(str(choice)) > 1
                    ):
                        assert block[0] <= action < block[1], (decision.kind, action)
            env.step(int(rng.choice(sorted(legal))))
    assert programs > 50


def test_a_program_takes_one_step_per_register() -> None:
    env = rl.raw_env(seed=1)
    env.reset(seed=1)
    while env.decision is not None and env.decision.kind is not DecisionKind.PROGRAM:
        env.step(int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])[0]))
    decision = env.decision
    assert decision is not None and decision.kind is DecisionKind.PROGRAM
    seat = decision.seat
    for register in range(5):
        assert env.decision is decision
        obs = env.observe(env.agent_selection)
        parts = env.encoder.split(obs["observation"])
        assert parts["decision"][-2] == pytest.approx(register / 5)  # registers placed
        env.step(int(np.flatnonzero(obs["action_mask"])[0]))
    answered = env.game.actions[-1]  # the other seat is still to program: nothing ran yet
    assert answered.decision_id == decision.id and answered.seat == seat
    assert sum(entry is not None for entry in answered.choice) == 5
    assert env.decision is not decision


def test_illegal_actions_are_refused() -> None:
    env = rl.raw_env(seed=1)
    env.reset(seed=1)
    mask = env.observe(env.agent_selection)["action_mask"]
    illegal = int(np.flatnonzero(mask == 0)[0])
    with pytest.raises(ValueError, match="not legal"):
        env.step(illegal)
    with pytest.raises(ValueError):
        env.step(NUM_ACTIONS)
    single = rl.single_agent_env()
    obs, _ = single.reset(seed=1)
    with pytest.raises(ValueError):
        single.step(int(np.flatnonzero(obs["action_mask"] == 0)[0]))


@pytest.mark.parametrize("edition", ["2023", "classic"])
def test_seeds_reproduce_games(edition: str) -> None:
    env = rl.raw_env(edition=edition)
    env.reset(seed=9)
    assert env.game.digest() == api.new_game("tiny", 2, 9, edition, max_rounds=30).digest()
    actions = random_actions(env, seed=1, steps=200)
    first = env.game.digest(), env.observe(env.agent_selection)["observation"].copy()
    env.reset(seed=9)
    for action in actions:
        env.step(action)
    assert env.game.digest() == first[0]
    assert np.array_equal(env.observe(env.agent_selection)["observation"], first[1])
    # Without a seed: the environment's own generator, seeded by env(seed=...).
    a, b = rl.raw_env(seed=3), rl.raw_env(seed=3)
    a.reset()
    b.reset()
    assert a.game_seed == b.game_seed and a.game.digest() == b.game.digest()
    a.reset()
    assert a.game_seed != b.game_seed


def play_out(env: Any, seed: int) -> dict[str, float]:
    """Play a whole game with random legal actions; returns each agent's total reward."""
    env.reset(seed=seed)
    totals = dict.fromkeys(env.possible_agents, 0.0)
    rng = np.random.default_rng(seed)
    for agent in env.agent_iter():
        obs, reward, terminated, truncated, _ = env.last()
        totals[agent] += reward
        action = None
        if not (terminated or truncated):
            action = int(rng.choice(np.flatnonzero(obs["action_mask"])))
        env.step(action)
    return totals


def test_rewards_at_the_end_and_checkpoint_shaping() -> None:
    env = rl.raw_env(players=2, max_rounds=60, checkpoint_reward=0.25)
    for seed in range(40):
        totals = play_out(env, seed)
        game = env.game
        outcome = game.outcome()
        assert outcome is not None
        for seat, agent in enumerate(env.possible_agents):
            end = 0.0
            if outcome.winner is not None:
                end = 1.0 if seat == outcome.winner else -1.0
            expected = end + 0.25 * game.state.players[seat].checkpoint
            assert totals[agent] == pytest.approx(expected)
        if outcome.winner is not None:
            break
    else:
        pytest.fail("no random game of 60 rounds had a winner")


def test_single_agent_rewards_add_up() -> None:
    """The single-seat rewards sum to the end reward plus the checkpoint shaping, whoever's
    move ended the game (the bots' included)."""
    env = rl.single_agent_env(opponents=["planner"], max_rounds=40, checkpoint_reward=0.5)
    for seed in range(6):
        obs, _ = env.reset(seed=seed)
        total, done = 0.0, False
        while not done:
            obs, reward, terminated, truncated, info = env.step(
                int(np.flatnonzero(obs["action_mask"])[-1])
            )
            total += reward
            done = terminated or truncated
        winner = info["winner"]
        end = 0.0 if winner is None else (1.0 if winner == 0 else -1.0)
        reached = env.aec.game.state.players[0].checkpoint
        assert total == pytest.approx(end + 0.5 * reached)
        assert terminated == (winner is not None)


def test_truncation_at_max_rounds() -> None:
    env = rl.raw_env(max_rounds=2)
    play_out(env, 5)
    outcome = env.game.outcome()
    assert outcome is not None and outcome.termination.value == "round_limit"
    assert env.agents == []  # every agent was stepped out with None
    single = rl.single_agent_env(max_rounds=2)
    obs, _ = single.reset(seed=5)
    truncated = terminated = False
    while not (truncated or terminated):
        obs, reward, terminated, truncated, info = single.step(
            int(np.flatnonzero(obs["action_mask"])[0])
        )
    assert truncated and not terminated and reward == 0.0
    assert info["termination"] == "round_limit"


def test_observation_layout() -> None:
    env = rl.raw_env(seed=1)
    env.reset(seed=1)
    random_actions(env, seed=2, steps=40)
    obs = env.observe(env.agent_selection)["observation"]
    space = env.observation_space(env.agent_selection)["observation"]
    assert obs.dtype == np.float32 and space.contains(obs)
    parts = env.encoder.split(obs)
    layout = env.encoder.layout()
    grid = env.game.state.grid
    assert parts["board"].shape == (len(PLANES), grid.height, grid.width)
    assert sum(np.prod(shape) for _, shape in layout.values()) == obs.size
    pits = {
        (x, y)
        for i, c in enumerate(grid.cells)
        if c is not None and c.pit
        for x, y in [grid.pos(i)]
    }
    board = parts["board"]
    assert {(x, y) for y, x in zip(*np.nonzero(board[PLANES.index("pit")]), strict=True)} == pits
    seat = env.agent_seat[env.agent_selection]
    me = env.game.state.players[seat]
    if me.pos is not None:
        assert board[PLANES.index("me"), me.pos.y, me.pos.x] == 1
        assert parts["robots"][0][2] == pytest.approx(me.pos.x / (grid.width - 1))
    hand = parts["hand"]
    assert hand[: len(me.hand), : len(env.encoder.cards)].sum() == len(me.hand)


def test_render_ansi() -> None:
    env = rl.raw_env(render_mode="ansi", seed=1)
    env.reset(seed=1)
    random_actions(env, seed=1, steps=30)
    text = env.render()
    assert isinstance(text, str) and "seat_0" in text and "round" in text


def test_other_decisions_use_the_option_block() -> None:
    decision = api.Decision(
        "x", 0, DecisionKind.UPGRADE_PHASE, "", ("done", "draw", "install zoop"), "done"
    )
    assert rl.decision_actions(decision) == {
        OPTION: "done",
        OPTION + 1: "draw",
        OPTION + 2: "install zoop",
    }
    yes_no = api.Decision("y", 0, DecisionKind.CHOICE, "", ("no", "yes"), "no")
    assert rl.decision_actions(yes_no) == {NO: "no", YES: "yes"}


def test_import_error_names_the_extra() -> None:
    code = (
        "import sys; sys.modules['pettingzoo'] = None\n"
        "try:\n    import roborally.rl\nexcept ImportError as e:\n    print(e)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert "pip install 'roborally[rl]'" in out.stdout
