"""The public face of the engine: :class:`Game`.

A game is created from a :class:`~roborally.engine.core.state.GameConfig`; it lists the decisions it
waits for, takes actions, and emits events. Nothing else changes a game, so a game is fully
reproduced by its config (with the seed) and the list of actions applied.

>>> from roborally.engine.testing import tiny_course
>>> game = Game(GameConfig(tiny_course(), ("Ada", "Bo"), seed=7))
>>> [d.kind.value for d in game.pending_decisions()]
['start_space']
>>> d = game.pending_decisions()[0]
>>> _ = game.apply(Action(d.id, d.seat, d.options[0]))
>>> game.is_over()
False
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from roborally.engine.core.decisions import (
    TIMEOUT,
    Action,
    ActionError,
    Decision,
    IllegalActionError,
    InvalidActionError,
    NotYourDecisionError,
)
from roborally.engine.core.events import Event
from roborally.engine.core.state import GameConfig, GameState
from roborally.engine.core.view import ViewMemo
from roborally.engine.editions import edition

#: The 2023 edition's rules version (each edition carries its own: ``Game.rules_version``).
RULES_VERSION = "2023/3"


class Termination(StrEnum):
    CHECKPOINTS = "checkpoints"  # a robot completed the course
    ROUND_LIMIT = "round_limit"  # the configured round limit was reached
    ELIMINATED = "eliminated"  # classic: every robot lost its last life (no winner)
    LAST_STANDING = "last_robot_standing"  # classic variant: the only robot left in the race won


@dataclass(frozen=True)
class Outcome:
    """How a game ended: the winner (if any) and every seat ranked by checkpoints reached."""

    termination: Termination
    winner: int | None
    standings: tuple[int, ...]

    def result_text(self, names: tuple[str, ...]) -> str:
        if self.winner is not None:
            return f"{names[self.winner]} wins ({self.termination.value})"
        return f"no winner ({self.termination.value})"


class Game:
    """One game of RoboRally, played by the rules of its config's edition."""

    def __init__(self, config: GameConfig, *, _state: GameState | None = None) -> None:
        rules = edition(config.edition)
        self.config = config
        self.rules_version = rules.rules_version
        self.actions: list[Action] = []
        self._forget_views()
        if _state is None:
            self._state = rules.new_state(config)
            self._rules = rules.rules(self._state)
            self._pending = self._rules.advance()
        else:
            self._state = _state
            self._rules = rules.rules(self._state)
            self._pending = []

    # ------------------------------------------------------------ queries
    @property
    def state(self) -> GameState:
        """The full state (hidden information included): for the engine, tests and replays.

        Bots and clients must use :meth:`observation` instead.
        """
        self._forget_views()  # whoever holds the state may change it
        return self._state

    def _forget_views(self) -> None:
        self._views: dict[int | None, dict[str, Any]] = {}
        self._view_parts: ViewMemo = {}

    @property
    def events(self) -> list[Event]:
        return self._state.events

    def pending_decisions(self, seat: int | None = None) -> list[Decision]:
        """The decisions the game waits for (all seats, or one seat's)."""
        if seat is None:
            return list(self._pending)
        return [d for d in self._pending if d.seat == seat]

    def legal_choices(self, decision: Decision) -> Iterator[Any]:
        """Every legal choice for a pending decision (a program decision yields many)."""
        return self._rules.legal_choices(decision)

    def program_next(self, decision: Decision, prefix: Sequence[str] = ()) -> tuple[str, ...]:
        """For a program decision: the card names (or Crab Legs pairs) that may fill the next
        open register after ``prefix`` (the first open registers' entries, in order) so that a
        program :meth:`legal_choices` lists starts that way; ``()`` once ``prefix`` is complete.
        Fast (no program is listed); :func:`roborally.engine.core.programs.complete_program`
        turns the entries into the program to answer with."""
        return self._rules.program_next(decision, prefix)

    def legal_actions(self, seat: int) -> Iterator[Action]:
        for decision in self.pending_decisions(seat):
            for choice in self._rules.legal_choices(decision):
                yield Action(decision.id, seat, choice)

    def is_over(self) -> bool:
        return self._state.over

    def outcome(self) -> Outcome | None:
        if not self._state.over:
            return None
        players = self._state.players
        standings = tuple(
            sorted(
                range(len(players)),
                key=lambda s: (s != self._state.winner, -players[s].checkpoint, s),
            )
        )
        return Outcome(Termination(self._state.termination), self._state.winner, standings)

    def observation(self, seat: int | None) -> dict[str, Any]:
        """What ``seat`` may see (spec 4.7); ``None`` gives the public spectator view.

        Built once per state of the game: asking again before the next action gives the same
        view (a new top-level dict), and the views of different seats share the players'
        entries that look alike to them. Treat what it contains as read-only.
        """
        view = self._views.get(seat)
        if view is None:
            view = self._views[seat] = self._rules.observation(
                seat, self.pending_decisions(), self._view_parts
            )
        return dict(view)

    def events_for(self, seat: int | None, start: int = 0) -> list[Event]:
        """The events from ``start`` on as ``seat`` may see them (``None``: a spectator); a
        face-down Haywire's name is left out for everyone but its owner."""
        return [event.seen_by(seat) for event in self._state.events[start:]]

    def digest(self) -> str:
        return self._state.digest()

    # ------------------------------------------------------------- change
    def check(self, action: Action) -> Any:
        """Validate an action without applying it; returns the normalised choice."""
        return self._checked(action)[1]

    def _checked(self, action: Action) -> tuple[Decision, Any]:
        """The pending decision ``action`` answers and its normalised choice (or an error)."""
        if self._state.over:
            raise IllegalActionError("the game is over")
        decision = self._pending_decision(action.decision_id)
        if not isinstance(action.seat, int) or action.seat != decision.seat:
            raise NotYourDecisionError(
                f"decision {decision.id!r} belongs to seat {decision.seat + 1}, not {action.seat!r}"
            )
        _check_choice_type(decision, action.choice)
        try:
            return decision, self._rules.validate(decision, action.choice)
        except (TypeError, KeyError, ValueError) as error:
            if isinstance(error, ActionError):
                raise
            raise InvalidActionError(f"{decision.id}: malformed choice ({error})") from None

    def _pending_decision(self, decision_id: str) -> Decision:
        for decision in self._pending:
            if decision.id == decision_id:
                return decision
        waiting = ", ".join(d.id for d in self._pending) or "nothing"
        raise NotYourDecisionError(
            f"no pending decision {decision_id!r} (the game waits for {waiting})"
        )

    def apply(self, action: Action) -> list[Event]:
        """Apply one action; returns the events it caused. Illegal actions change nothing."""
        answered, choice = self._checked(action)
        self._forget_views()
        # An answer given as offered is kept as it is (actions are frozen): building a new one
        # costs more than the rest of applying most answers.
        same = choice is action.choice and type(action) is Action
        normal = action if same else Action(action.decision_id, action.seat, choice)
        before = len(self._state.events)
        self._state.answers[normal.decision_id] = normal
        self.actions.append(normal)
        rest = self._rules.pending_after(answered, self._pending)
        self._pending = self._rules.advance() if rest is None else rest
        return self._state.events[before:]

    def copy(self) -> Game:
        """An independent copy of this game (for search and what-ifs)."""
        clone = Game(self.config, _state=self._state.copy())
        clone.actions = list(self.actions)
        clone._pending = list(self._pending)
        return clone


def _same_shape(choice: Any, option: Any) -> bool:
    """Whether ``choice`` has the type of ``option`` (bools are not numbers here)."""
    if isinstance(option, bool) or isinstance(choice, bool):
        return isinstance(option, bool) and isinstance(choice, bool)
    if isinstance(option, int):
        return isinstance(choice, int) or (
            isinstance(choice, str) and choice.strip().isascii() and choice.strip().isdigit()
        )
    if isinstance(option, str):
        return isinstance(choice, str)
    if isinstance(option, tuple):
        return (
            isinstance(choice, (tuple, list))
            and len(choice) == len(option)
            and all(_same_shape(c, o) for c, o in zip(choice, option, strict=True))
        )
    return True


def _check_choice_type(decision: Decision, choice: Any) -> None:
    """Refuse a choice whose type cannot match any option, as malformed (not merely illegal)."""
    if choice == TIMEOUT or not decision.options:
        return
    if type(choice) is str and choice in decision.options:
        return  # an option as offered (only a string equals a string): nothing to check
    if not any(_same_shape(choice, option) for option in decision.options):
        if all(isinstance(o, bool) for o in decision.options):
            raise InvalidActionError(f"{decision.id}: answer true or false, got {choice!r}")
        shown = ", ".join(repr(o) for o in decision.options)
        raise InvalidActionError(
            f"{decision.id}: {choice!r} is not a {decision.kind.value} choice (options: {shown})"
        )
