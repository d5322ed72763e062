"""A Gymnasium environment for one seat; built-in bots play the other seats."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

import gymnasium
import numpy as np

from roborally.bots.base import Bot
from roborally.bots.random_bot import make_bot, seat_seed
from roborally.rl.aec import Observation, RoboRallyEnv


class SingleAgentEnv(gymnasium.Env[Observation, np.int64]):
    """One seat of :class:`~roborally.rl.aec.RoboRallyEnv` as a Gymnasium environment.

    ``opponents`` names the bots of the other seats in order (``random``, ``planner``,
    ``expert``, a level, ...; one name is used for them all); each is seeded from the game's
    seed and sees only its own seat's observation. The observation and the actions are the AEC
    environment's (a dict with ``observation`` and ``action_mask``). An action the mask does
    not allow raises ``ValueError``, or with ``illegal_action="first"`` plays the first legal
    action instead and says so in ``info["illegal_action"]`` (``illegal_penalty`` is then
    added to the reward): Gymnasium's ``check_env`` steps with unmasked random actions.
    """

    metadata: ClassVar[dict[str, Any]] = {"render_modes": ["ansi", "human"]}  # type: ignore[misc]

    def __init__(
        self,
        edition: str = "2023",
        course: str = "tiny",
        opponents: Sequence[str] = ("random",),
        seat: int = 0,
        players: int | None = None,
        seed: int | None = None,
        variants: Sequence[str] = (),
        max_rounds: int = 30,
        render_mode: str | None = None,
        checkpoint_reward: float = 0.0,
        illegal_action: str = "raise",
        illegal_penalty: float = 0.0,
    ) -> None:
        players = players if players is not None else len(opponents) + 1
        if len(opponents) == 1 and players > 2:
            opponents = list(opponents) * (players - 1)
        if len(opponents) != players - 1:
            raise ValueError(f"{players} seats need {players - 1} opponents, got {opponents}")
        if not 0 <= seat < players:
            raise ValueError(f"seat {seat} is not one of the {players} seats")
        if illegal_action not in ("raise", "first"):
            raise ValueError("illegal_action is 'raise' or 'first'")
        self.aec = RoboRallyEnv(
            edition, course, players, seed, variants, max_rounds, render_mode, checkpoint_reward
        )
        self.seat = seat
        self.agent = self.aec.possible_agents[seat]
        self.opponent_kinds = list(opponents)
        self.illegal_action = illegal_action
        self.illegal_penalty = illegal_penalty
        self.render_mode = render_mode
        self.observation_space = self.aec.observation_space(self.agent)
        self.action_space = self.aec.action_space(self.agent)
        self._bots: dict[int, Bot] = {}

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Observation, dict[str, Any]]:
        """A new game seeded ``seed``, or with the next seed of a generator that
        ``reset(seed=...)`` (or ``seed`` at construction) seeds."""
        super().reset(seed=seed)
        if seed is None:
            seed = int(self.np_random.integers(2**63))
        self.aec.reset(seed=seed)
        others = [s for s in range(self.aec.players) if s != self.seat]
        self._bots = {
            s: make_bot(kind, seat_seed(seed, s))
            for s, kind in zip(others, self.opponent_kinds, strict=True)
        }
        self._play_others()
        return self._observation(), self._info({})

    def _play_others(self) -> None:
        """Let the bots answer until this seat is asked or the game is over."""
        aec = self.aec
        game = aec.game
        while aec.decision is not None and aec.agent_selection != self.agent:
            decision = aec.decision
            bot = self._bots[decision.seat]
            aec.answer(bot.choose(game.observation(decision.seat), decision))

    def _observation(self) -> Observation:
        observed = self.aec.observe(self.agent)
        return {
            "observation": observed["observation"].copy(),
            "action_mask": observed["action_mask"].copy(),
        }

    def _info(self, extra: dict[str, Any]) -> dict[str, Any]:
        info = dict(self.aec.infos.get(self.agent, {}))
        info.update(extra)
        return info

    def step(self, action: Any) -> tuple[Observation, float, bool, bool, dict[str, Any]]:
        aec = self.aec
        if aec.decision is None:
            raise RuntimeError("the game is over: call reset()")
        extra: dict[str, Any] = {}
        penalty = 0.0
        legal = aec.legal_actions()
        if int(action) not in legal:
            if self.illegal_action == "raise":
                raise ValueError(f"action {action!r} is not legal (legal: {legal})")
            extra["illegal_action"] = int(action)
            penalty = self.illegal_penalty
            action = legal[0]
        aec.step(int(action))
        self._play_others()
        reward = float(aec._cumulative_rewards.get(self.agent, 0.0)) + penalty
        aec._cumulative_rewards[self.agent] = 0.0
        terminated = bool(aec.terminations.get(self.agent, False))
        truncated = bool(aec.truncations.get(self.agent, False))
        return self._observation(), reward, terminated, truncated, self._info(extra)

    def render(self) -> str | None:
        result: str | None = self.aec.render()
        return result

    def action_masks(self) -> np.ndarray:
        """The legal actions as booleans (the name sb3-contrib's MaskablePPO looks for)."""
        return self.aec.observe(self.agent)["action_mask"].astype(bool)
