"""Reinforcement learning environments for RoboRally (docs/rl.md).

* :func:`env` / :func:`raw_env`: a PettingZoo AEC environment, one agent per seat
  (``seat_0``, ``seat_1``, ...), a fixed ``Discrete`` action numbering
  (:mod:`roborally.rl.encoding`) with an ``action_mask``, programs built one register per step.
* :func:`single_agent_env`: a Gymnasium environment for one seat against built-in bots.

Needs numpy, gymnasium and pettingzoo: ``pip install 'roborally[rl]'``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

try:
    import gymnasium  # noqa: F401
    import numpy  # noqa: F401
    import pettingzoo  # type: ignore[import-untyped]  # noqa: F401
except ImportError as error:  # pragma: no cover - exercised in a subprocess by the tests
    raise ImportError(
        f"roborally.rl needs numpy, gymnasium and pettingzoo ({error.name} is missing):"
        " pip install 'roborally[rl]'"
    ) from error

from roborally.rl.aec import RoboRallyEnv, board_text
from roborally.rl.encoding import BLOCKS, NUM_ACTIONS, Encoder, decision_actions
from roborally.rl.single import SingleAgentEnv

__all__ = [
    "BLOCKS",
    "NUM_ACTIONS",
    "Encoder",
    "RoboRallyEnv",
    "SingleAgentEnv",
    "board_text",
    "decision_actions",
    "env",
    "raw_env",
    "single_agent_env",
]


#: The AEC environment without PettingZoo's checking wrapper (faster): the class itself.
raw_env = RoboRallyEnv


def env(*args: Any, **kwargs: Any) -> Any:
    """The AEC environment in PettingZoo's order-enforcing wrapper (the usual ``env()``);
    the arguments are :class:`RoboRallyEnv`'s: ``edition`` (``"2023"``, ``"classic"`` or
    ``"classic-1994"``), a shipped ``course`` id, ``players`` seats, ``seed``, the edition's
    ``variants``, ``max_rounds`` (then the game is truncated), ``render_mode`` (``"ansi"``,
    ``"human"``) and ``checkpoint_reward`` (shaping, per checkpoint reached)."""
    from pettingzoo.utils import wrappers  # type: ignore[import-untyped]

    return wrappers.OrderEnforcingWrapper(RoboRallyEnv(*args, **kwargs))


def single_agent_env(
    edition: str = "2023",
    course: str = "tiny",
    opponents: Sequence[str] = ("random",),
    seat: int = 0,
    **options: Any,
) -> SingleAgentEnv:
    """A Gymnasium environment for ``seat``; ``opponents`` (bot kinds) play the other seats.
    ``options``: ``players``, ``seed``, ``variants``, ``max_rounds``, ``render_mode``,
    ``checkpoint_reward``, ``illegal_action`` (``"raise"`` or ``"first"``),
    ``illegal_penalty``."""
    return SingleAgentEnv(edition, course, opponents, seat, **options)
