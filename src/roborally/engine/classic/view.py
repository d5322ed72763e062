"""Observations for the classic editions: the shared view plus each robot's classic facts.

:func:`roborally.engine.core.view.observation` shows positions, hands (own only) and registers
(own, or revealed); this adds what every player may see in a classic game (damage tokens, life
tokens, option cards and their counters, power-down state, docks, flags, the shared decks'
sizes) and the cards a robot keeps face down on Flywheel or Conditional Program (own only).
"""

from __future__ import annotations

from typing import Any

from roborally.engine.classic.model import ClassicPlayer, ClassicState
from roborally.engine.core.decisions import Decision
from roborally.engine.core.view import ViewMemo, observation, player_view


def classic_observation(
    state: ClassicState, seat: int | None, pending: list[Decision], memo: ViewMemo | None = None
) -> dict[str, Any]:
    """What ``seat`` may see of a classic game (``None``: a spectator); ``memo`` as in
    :func:`roborally.engine.core.view.observation`."""
    view = observation(state, seat, pending, memo, classic_player_view)
    view["program_deck"] = len(state.program_deck)
    view["program_discard"] = len(state.program_discard)
    view["option_deck"] = len(state.option_deck)
    view["option_discard"] = [c.name for c in state.option_discard]
    view["places"] = list(state.places)
    return view


def classic_player_view(player: ClassicPlayer, own: bool) -> dict[str, Any]:
    """One robot as its owner (``own``) or anyone else sees it, with its classic facts."""
    entry = player_view(player, own)
    entry["classic"] = {
        "dock": player.dock,
        "damage": player.damage,
        "lives": player.lives,
        "flags": player.checkpoint,
        "options": player.option_names(),
        "option_tokens": dict(player.option_tokens),
        "stored": (
            {k: v.name for k, v in player.stored.items()}
            if own
            else {k: None for k in player.stored}
        ),
        "powered_down": player.shutdown,
        "announced": player.announced,
        "destroyed": player.destroyed,
        "eliminated": player.eliminated,
        "finished": player.finished,
        "locked": player.locked_registers(),
    }
    return entry
