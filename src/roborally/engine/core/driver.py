"""The core of every ruleset: named stages run until the game needs decisions.

A ruleset (:class:`~roborally.engine.rules2023.Rules2023`,
:class:`~roborally.engine.classic.rules.RulesClassic`) subclasses :class:`StageDriver`, writes
its stages as ``stage_<name>`` methods that set ``state.stage`` to the next one, and asks
questions with :meth:`StageDriver.ask`: a missing answer raises
:class:`~roborally.engine.core.mechanics.Suspend`, the driver returns the pending decisions, and
the stage runs again once they are answered. The driver knows no edition.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import Any, ClassVar

from roborally.engine.core.board import default_start_facing
from roborally.engine.core.decisions import PROGRAM, TIMEOUT, Decision, IllegalActionError
from roborally.engine.core.events import GAME_ENDED, GAME_WON
from roborally.engine.core.geometry import Direction, Pos
from roborally.engine.core.mechanics import Mechanics, Suspend
from roborally.engine.core.programs import next_units
from roborally.engine.core.state import GameState
from roborally.engine.core.view import ViewMemo

#: The stage functions of each ruleset class by name (:meth:`StageDriver.advance`).
_STAGE_TABLES: dict[type, dict[str, Callable[[Any], None]]] = {}


class StageDriver(Mechanics):
    """Runs a ruleset's stages, collects answers, ends the game. The ruleset supplies what a
    player sees (:meth:`observation`), the legal and default answers and their validation."""

    def __init__(self, state: GameState) -> None:
        super().__init__(state)
        # advance's stage functions by name, one table per ruleset class. Not bound methods
        # kept on the instance: those would refer back to it, and every finished game would
        # then be a reference cycle left for the garbage collector to find (a tenth of the
        # engine's time went to those collections).
        self._stages = _STAGE_TABLES.setdefault(type(self), {})

    # ------------------------------------------------- supplied by each ruleset
    def observation(
        self, seat: int | None, pending: list[Decision], memo: ViewMemo | None = None
    ) -> dict[str, Any]:
        """What ``seat`` may see; ``memo`` shares parts between the views of one state."""
        raise NotImplementedError

    def validate(self, decision: Decision, choice: Any) -> Any:
        """Check a choice against its decision; return it normalised or raise an error. A
        timeout stands for the default; programs and the other kinds are the ruleset's."""
        if choice == TIMEOUT:
            return TIMEOUT
        if decision.kind is PROGRAM:
            return self.validate_program(decision, choice)
        return self.validate_answer(decision, choice)

    def validate_program(self, decision: Decision, choice: Any) -> tuple[str | None, ...]:
        raise NotImplementedError

    def validate_answer(self, decision: Decision, choice: Any) -> Any:
        """:meth:`validate` for every decision but a program (and a timeout)."""
        raise NotImplementedError

    def default_choice(self, decision: Decision) -> Any:
        raise NotImplementedError

    def legal_choices(self, decision: Decision) -> Iterator[Any]:
        raise NotImplementedError

    #: Whether :meth:`legal_choices` lists programs with two cards in a register (the 2023
    #: Crab Legs pairs); :meth:`program_next` offers them only then.
    LISTS_PAIRS: ClassVar[bool] = False

    def program_next(self, decision: Decision, prefix: Sequence[str]) -> tuple[str, ...]:
        """The units (card names, or pairs) that may fill the next open register of a program
        that starts with ``prefix``, exactly as :meth:`legal_choices` lists programs, without
        listing them (:func:`roborally.engine.core.programs.next_units`)."""
        if decision.kind is not PROGRAM:
            raise ValueError(f"{decision.id} is a {decision.kind.value} decision, not a program")
        pairs = self.LISTS_PAIRS and bool(decision.info.get("pairs"))
        return next_units(decision.info, prefix, pairs=pairs)

    def pending_after(self, answered: Decision, pending: list[Decision]) -> list[Decision] | None:
        """The decisions still pending once ``answered`` (one of ``pending``) has its answer,
        when that is known without running the stage again; ``None``: run it.

        A stage changes nothing before it asks (or it is rolled back), so while other
        decisions of the same batch are still missing, running it again would only ask them
        again: the same decisions, in the same order. A ruleset whose questions depend on
        other answers (the classic timer goes to the last programmer) says so here.
        """
        # A loop, not a list comprehension (a function made and called on Python 3.11): this
        # runs for every action.
        rest: list[Decision] = []
        answered_id = answered.id
        for decision in pending:
            if decision.id != answered_id:
                rest.append(decision)
        return rest or None

    # ------------------------------------------------------------------ driver
    def advance(self) -> list[Decision]:
        """Run stages until the game needs decisions or ends; return the pending decisions."""
        stages = self._stages
        while not self.s.over:
            stage = stages.get(self.s.stage)
            if stage is None:
                stage = stages[self.s.stage] = getattr(type(self), "stage_" + self.s.stage)
            try:
                stage(self)
            except Suspend as suspend:
                return [d for d in suspend.decisions if isinstance(d, Decision)]
            self.s.answers.clear()
        return []

    def ask(self, decisions: list[Decision]) -> dict[str, Any]:
        """The answers to ``decisions``; suspends the stage while any is missing."""
        answers = self.s.answers
        # One loop, not two comprehensions (each a function made and called on Python 3.11):
        # every question of every stage comes here.
        missing: list[Decision] = []
        chosen: dict[str, Any] = {}
        for decision in decisions:
            answer = answers.get(decision.id)
            if answer is None:
                missing.append(decision)
            else:
                chosen[decision.id] = answer.choice
        if missing:
            raise Suspend(missing)
        return chosen

    def ask_one(self, decision: Decision) -> Any:
        """The answer to one decision (its default on a timeout); suspends until it comes.
        Through :meth:`ask`, which previews override to answer by themselves."""
        choice = self.ask([decision])[decision.id]
        if choice == TIMEOUT:
            return self.default_choice(decision)
        return choice

    def did(self, decision_id: str) -> str:
        return f"t{self.s.round}-r{self.s.register}-{decision_id}"

    @staticmethod
    def one_of_options(decision: Decision, choice: Any) -> Any:
        """``choice`` if the decision lists it, else an error naming the legal options."""
        if choice not in decision.options:
            raise IllegalActionError(
                f"{decision.id}: {choice!r} is not a legal choice; choose one of "
                + ", ".join(repr(o) for o in decision.options)
            )
        return choice

    def facing_towards_factory(self, pos: Pos) -> Direction:
        """The default start facing: towards the middle of the factory boards (spec 2.1, 12-C3)."""
        return default_start_facing(self.s.grid, pos)

    def finish(self, winner: int | None, termination: str) -> None:
        self.s.winner = winner
        self.s.over = True
        self.s.termination = termination
        if winner is not None:
            self.emit(GAME_WON, seat=winner)
        self.emit(GAME_ENDED, cause=termination)
