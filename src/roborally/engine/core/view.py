"""Observations: exactly what one seat (or a spectator) may see (spec 4.7).

Bots and the server only ever handle observations, never the full state. Hidden: other players'
hands, their unrevealed register cards and face-down Haywires (only their presence shows), their
reserve upgrades and the cards on their Memory Cards (only the counts show), and every deck's
order (only its size shows; Spam Filter's face-up top card is public).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from roborally.engine.core.decisions import Decision, DecisionKind, Prompt
from roborally.engine.core.state import GameState, Player, Register


def _pos(p: Any) -> list[int] | None:
    return None if p is None else [p.x, p.y]


def decision_to_json(decision: Decision) -> dict[str, Any]:
    return {
        "id": decision.id,
        "seat": decision.seat,
        "kind": decision.kind.value,
        "prompt": decision.prompt,
        "prompt_key": decision.prompt_key,
        "prompt_args": decision.prompt_args,
        "options": [list(o) if isinstance(o, tuple) else o for o in decision.options],
        "default": decision.default,
        "info": decision.info,
    }


def decision_from_json(data: dict[str, Any]) -> Decision:
    """A decision back from its JSON form (:func:`decision_to_json`, or an entry of a server
    ``state`` message's ``pending``: its ``deadline`` is ignored), as the bots expect it.

    >>> d = decision_from_json({"id": "t1-p1-card_order", "seat": 0, "kind": "card_order",
    ...                         "prompt": "", "options": [[0, 1], [1, 0]]})
    >>> d.kind.value, d.options
    ('card_order', ((0, 1), (1, 0)))
    """
    options = tuple(tuple(o) if isinstance(o, list) else o for o in data["options"])
    return Decision(
        data["id"],
        data["seat"],
        DecisionKind(data["kind"]),
        Prompt(data["prompt"], data.get("prompt_key", ""), **data.get("prompt_args", {})),
        options,
        data.get("default", ""),
        data.get("info", {}),
    )


def choice_to_json(choice: Any) -> Any:
    """A bot's choice as JSON (tuples become lists), for a ``decide`` message.

    >>> choice_to_json(("move1", None, "move2"))
    ['move1', None, 'move2']
    """
    if isinstance(choice, tuple | list):
        return [choice_to_json(c) for c in choice]
    return choice


def _register_view(register: Register, own: bool) -> dict[str, Any]:
    visible = own or register.revealed
    return {
        "cards": [c.name for c in register.cards] if visible else None,
        "count": len(register.cards),
        "revealed": register.revealed,
        "locked": register.locked,
        "facedown_haywire": (
            (register.facedown_haywire.name if register.facedown_haywire else None)
            if own
            else register.facedown_haywire is not None
        ),
    }


def player_view(player: Player, own: bool) -> dict[str, Any]:
    return {
        "seat": player.seat,
        "name": player.name,
        "pos": _pos(player.pos),
        "facing": player.facing.letter,
        "on_board": player.pos is not None,
        "reentry": _pos(player.reentry),
        "archive": _pos(player.archive),
        "energy": player.energy,
        "checkpoint": player.checkpoint,
        "shutdown": player.shutdown,
        "programmed": player.programmed,
        "deck": len(player.deck),
        "discard": [c.name for c in player.discard],
        "hand": [c.name for c in player.hand] if own else len(player.hand),
        "registers": [_register_view(r, own) for r in player.registers],
        # Upgrades (4.7): installed ones are face up; the reserve and the cards on Memory Cards
        # only their owner sees (the others see how many); Spam Filter's top card is public.
        "upgrades": [c.name for c in player.installed],
        "reserve": [c.name for c in player.reserve] if own else len(player.reserve),
        "memory": [c.name for c in player.memory] if own else len(player.memory),
        "deck_top": player.deck[-1].name if player.top_visible and player.deck else None,
    }


#: Builds one player's entry of an observation: ``(player, own)`` -> a JSON-friendly dict.
PlayerView = Callable[[Any, bool], dict[str, Any]]
#: What observations of one state share (see :func:`observation`).
ViewMemo = dict[tuple[int, bool], dict[str, Any]]


def player_entries(
    players: Sequence[Any], seat: int | None, player_view: PlayerView, memo: ViewMemo | None
) -> list[dict[str, Any]]:
    """The players' entries as ``seat`` sees them. With a ``memo`` each entry is built once per
    state and shared: a robot looks the same to every seat but its owner, so the views of six
    seats and the spectators need twelve entries, not forty-two."""
    if memo is None:
        return [player_view(p, p.seat == seat) for p in players]
    entries = []
    for p in players:
        key = (p.seat, p.seat == seat)
        entry = memo.get(key)
        if entry is None:
            entry = memo[key] = player_view(p, key[1])
        entries.append(entry)
    return entries


def observation(
    state: GameState,
    seat: int | None,
    pending: list[Decision],
    memo: ViewMemo | None = None,
    player_view: PlayerView = player_view,
) -> dict[str, Any]:
    """A JSON-friendly view of ``state`` for ``seat`` (``None``: a spectator).

    ``memo`` (empty for a new state, then passed to every observation of that state) shares
    the players' entries between the views; they must then be treated as read-only.
    ``player_view`` builds one entry (an edition adds its own facts).
    """
    return {
        "seat": seat,
        "edition": state.config.edition,
        "variants": sorted(state.config.variants),
        "course": state.grid.course.name,
        "round": state.round,
        "register": state.register,
        "stage": state.stage,
        "priority": state.priority,
        "turn_order": list(state.turn_order()),
        "checkpoints": [_pos(p) for p in state.grid.checkpoints],
        # competitive start (11.1.5): start spaces blocked by the players' cubes, for all to see
        "blocked_starts": sorted([p.x, p.y] for p in state.blocked_starts),
        "over": state.over,
        "winner": state.winner,
        "damage_deck": len(state.damage_deck),
        "damage_discard": [c.name for c in state.damage_discard],
        "upgrade_deck": len(state.upgrade_deck),
        "upgrade_discard": [c.name for c in state.upgrade_discard],
        "players": player_entries(state.players, seat, player_view, memo),
        "pending": [decision_to_json(d) for d in pending if d.seat == seat],
        "waiting_for": sorted({d.seat for d in pending}),
    }
