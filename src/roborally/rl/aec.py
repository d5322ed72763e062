"""The PettingZoo AEC environment: one agent per seat, one decision (or one register of a
program) per step. See docs/rl.md for the action numbering, the observation layout, the rewards
and the seeds."""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any, ClassVar

import gymnasium
import numpy as np
from pettingzoo import AECEnv  # type: ignore[import-untyped]

from roborally.bots.runner import new_game
from roborally.engine.core.decisions import TIMEOUT, Action, Decision, DecisionKind
from roborally.engine.core.programs import PAIRS, complete_program, program_length
from roborally.engine.core.state import GameState
from roborally.engine.game import Game
from roborally.rl.encoding import HAND, NUM_ACTIONS, PAIR, Encoder, decision_actions

Observation = dict[str, np.ndarray]


class RoboRallyEnv(AECEnv):  # type: ignore[misc]
    """RoboRally as a PettingZoo AEC environment (build it with :func:`roborally.rl.env`).

    The agent to act is the seat of the first decision the game waits for. A decision with a
    single answer (a program with no card to place, one option) is answered by the
    environment. Illegal actions raise ``ValueError``; ``observe(agent)["action_mask"]`` marks
    the legal ones (all zero for an agent that is not asked).

    ``edition``: ``"2023"``, ``"classic"`` or ``"classic-1994"``; ``course``: a shipped course
    id; ``players``: the seats; ``seed``: seeds the generator of the games' seeds (see
    :meth:`reset`); ``variants``: the edition's alternative rules; ``max_rounds``: a game that
    reaches it ends without a winner (truncation); ``render_mode``: ``"ansi"`` or ``"human"``;
    ``checkpoint_reward``: added when a seat's robot reaches a checkpoint.
    """

    metadata: ClassVar[dict[str, Any]] = {
        "name": "roborally_v0",
        "render_modes": ["ansi", "human"],
        "is_parallelizable": False,
    }

    def __init__(
        self,
        edition: str = "2023",
        course: str = "tiny",
        players: int = 2,
        seed: int | None = None,
        variants: Sequence[str] = (),
        max_rounds: int = 30,
        render_mode: str | None = None,
        checkpoint_reward: float = 0.0,
    ) -> None:
        super().__init__()
        if render_mode not in (None, "ansi", "human"):
            raise ValueError("render_mode is None, 'ansi' or 'human'")
        self.edition = edition
        self.course = course
        self.players = players
        self.variants = tuple(variants)
        self.max_rounds = max_rounds
        self.render_mode = render_mode
        self.checkpoint_reward = checkpoint_reward
        self._seeds = random.Random(seed)
        self.possible_agents = [f"seat_{i}" for i in range(players)]
        self.agent_seat = {agent: i for i, agent in enumerate(self.possible_agents)}
        probe = self._new_game(0)
        self.encoder = Encoder(probe.config, probe.state.grid, max_rounds)
        box = gymnasium.spaces.Box(0.0, 1.0, (self.encoder.size,), np.float32)
        mask = gymnasium.spaces.Box(0, 1, (NUM_ACTIONS,), np.int8)
        self.observation_spaces = {
            agent: gymnasium.spaces.Dict({"observation": box, "action_mask": mask})
            for agent in self.possible_agents
        }
        self.action_spaces = {
            agent: gymnasium.spaces.Discrete(NUM_ACTIONS) for agent in self.possible_agents
        }
        self.game: Game = probe
        self.game_seed = 0
        self._no_mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
        self.agents: list[str] = []

    # ----------------------------------------------------------------- spaces
    def observation_space(self, agent: str) -> gymnasium.spaces.Space[Any]:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> gymnasium.spaces.Space[Any]:
        return self.action_spaces[agent]

    # ----------------------------------------------------------------- reset
    def _new_game(self, seed: int) -> Game:
        return new_game(
            self.course, self.players, seed, self.max_rounds, list(self.variants), self.edition
        )

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """A new game: seeded ``seed`` (the game's seed, as ``api.new_game(seed=...)``), or
        the next seed of the environment's own generator (seeded by ``env(seed=...)``, and
        reseeded by every ``reset(seed=...)``)."""
        if seed is not None:
            self._seeds = random.Random(seed)
            self.game_seed = seed
        else:
            self.game_seed = self._seeds.getrandbits(63)
        self.game = self._new_game(self.game_seed)
        self._state: GameState = self.game.state  # the same object for the whole game
        self.encoder.static_for(self._state.grid)
        self.agents = list(self.possible_agents)
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {agent: {} for agent in self.agents}
        self._reached = [0] * self.players
        self._version = 0
        self._cache: dict[str, tuple[int, Observation]] = {}
        self._next_decision()

    # ----------------------------------------------------------------- decisions
    def _next_decision(self) -> None:
        """Answer the decisions with a single answer, then ask the first one left (or end)."""
        game = self.game
        self._version += 1
        while not game.is_over():
            decision = game.pending_decisions()[0]
            if decision.kind is DecisionKind.PROGRAM:
                if program_length(decision.info) == 0:
                    self._apply(decision, complete_program(decision.info, ()))
                    continue
                self._actions: dict[int, Any] = {}
            else:
                self._actions = decision_actions(decision)
                if len(self._actions) <= 1:
                    only = next(iter(self._actions.values()), TIMEOUT)
                    self._apply(decision, only)
                    continue
            self._decision: Decision | None = decision
            self._placed: list[str] = []
            self._used: list[int] = []
            self.agent_selection = self.possible_agents[decision.seat]
            self._mask = self._mask_now()
            return
        self._decision = None
        self._end()

    def _mask_now(self) -> np.ndarray:
        mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
        decision = self._decision
        assert decision is not None
        if decision.kind is not DecisionKind.PROGRAM:
            mask[list(self._actions)] = 1
            return mask
        units = self.game.program_next(decision, self._placed)
        used = self._used
        for slot, name in enumerate(decision.info["hand"]):
            if name in units and slot not in used:
                mask[HAND + slot] = 1
        for k, pair in enumerate(PAIRS):
            if pair in units:
                mask[PAIR + k] = 1
        return mask

    def _apply(self, decision: Decision, choice: Any) -> None:
        self.game.apply(Action(decision.id, decision.seat, choice))
        if self.checkpoint_reward:
            for seat, player in enumerate(self._state.players):
                gained = player.checkpoint - self._reached[seat]
                if gained > 0:
                    self.rewards[self.possible_agents[seat]] += gained * self.checkpoint_reward
                    self._reached[seat] = player.checkpoint

    def answer(self, choice: Any) -> None:
        """Answer the current decision with a whole choice at once (a complete program, an
        option): how the single-agent environment lets bots play the other seats. The rewards
        it causes are added as :meth:`step` adds them."""
        decision = self._decision
        assert decision is not None, "no decision is pending"
        self._clear_rewards()
        self._cumulative_rewards[self.agent_selection] = 0
        self._apply(decision, choice)
        self._next_decision()
        self._accumulate_rewards()

    def _end(self) -> None:
        outcome = self.game.outcome()
        assert outcome is not None
        truncated = outcome.termination == "round_limit"
        for seat, agent in enumerate(self.possible_agents):
            if outcome.winner is not None:
                self.rewards[agent] += 1.0 if seat == outcome.winner else -1.0
            self.terminations[agent] = not truncated
            self.truncations[agent] = truncated
            self.infos[agent] = {
                "winner": outcome.winner,
                "termination": outcome.termination.value,
                "rounds": self._state.round,
            }
        self.agent_selection = self.possible_agents[0]

    # ----------------------------------------------------------------- step
    def step(self, action: Any) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        decision = self._decision
        assert decision is not None
        index = int(action)
        if not 0 <= index < NUM_ACTIONS or not self._mask[index]:
            raise ValueError(
                f"action {action!r} is not legal for {decision.id} ({decision.kind.value});"
                f" legal: {np.flatnonzero(self._mask).tolist()}"
            )
        self._clear_rewards()
        self._cumulative_rewards[agent] = 0
        if decision.kind is DecisionKind.PROGRAM:
            self._place(decision, index)
        else:
            self._apply(decision, self._actions[index])
            self._next_decision()
        self._accumulate_rewards()

    def _place(self, decision: Decision, index: int) -> None:
        """One register of a program; the program is played once it is complete."""
        hand = decision.info["hand"]
        if index < PAIR:
            self._used.append(index - HAND)
            self._placed.append(hand[index - HAND])
        else:
            pair = PAIRS[index - PAIR]
            for name in pair.split("+"):
                slot = next(i for i, n in enumerate(hand) if n == name and i not in self._used)
                self._used.append(slot)
            self._placed.append(pair)
        if len(self._placed) == program_length(decision.info):
            self._apply(decision, complete_program(decision.info, self._placed))
            self._next_decision()
        else:
            self._version += 1
            self._mask = self._mask_now()

    # ----------------------------------------------------------------- observe
    def observe(self, agent: str) -> Observation:
        cached = self._cache.get(agent)
        if cached is not None and cached[0] == self._version:
            return cached[1]
        seat = self.agent_seat[agent]
        asked = self._decision is not None and agent == self.agent_selection
        observation = self.encoder.encode(
            self._state,
            seat,
            self._decision if asked else None,
            self._placed if asked else (),
            self._used if asked else (),
            int(self._mask.sum()) if asked else 0,
        )
        mask = self._mask.copy() if asked else self._no_mask.copy()
        result = {"observation": observation, "action_mask": mask}
        self._cache[agent] = (self._version, result)
        return result

    @property
    def decision(self) -> Decision | None:
        """The engine decision the selected agent is answering (``None`` once the game is
        over)."""
        return self._decision

    def legal_actions(self) -> list[int]:
        """The legal actions of the selected agent."""
        if self._decision is None:
            return []
        return np.flatnonzero(self._mask).tolist()

    # ----------------------------------------------------------------- render
    def render(self) -> str | None:
        if self.render_mode is None:
            gymnasium.logger.warn("render() needs a render_mode ('ansi' or 'human')")
            return None
        text = board_text(self._state)
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        pass


ARROWS = "^>v<"


def board_text(state: GameState) -> str:
    """The course as text: ``#`` a pit, ``1``-``9`` checkpoints, robots as ``A``-``H`` with
    an arrow for their facing, ``.`` floor; then one line per robot."""
    grid = state.grid
    rows = []
    robots = {p.pos: p for p in state.players if p.pos is not None}
    for y in range(grid.height):
        line = []
        for x in range(grid.width):
            cell = grid.cells[y * grid.width + x]
            robot = robots.get((x, y))  # type: ignore[call-overload]
            if robot is not None:
                line.append(chr(ord("A") + robot.seat) + ARROWS[robot.facing])
            elif cell is None:
                line.append("  ")
            elif cell.checkpoint is not None:
                line.append(f"{cell.checkpoint} ")
            elif cell.pit:
                line.append("# ")
            else:
                line.append(". ")
        rows.append("".join(line).rstrip())
    rows.append(f"round {state.round}, register {state.register}")
    for p in state.players:
        where = f"{p.pos.x},{p.pos.y} {p.facing.letter}" if p.pos is not None else "off the board"
        rows.append(
            f"{chr(ord('A') + p.seat)} (seat_{p.seat}): {where},"
            f" checkpoints {p.checkpoint}, energy {p.energy}"
        )
    return "\n".join(rows)
