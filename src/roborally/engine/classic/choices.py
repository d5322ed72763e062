"""The classic decisions' answers: what a seat may see (damage tokens, lives, option cards),
how a choice is checked and normalised (programs with Crab Legs and Dual Processor pairs), what
a timed-out or absent player does, and every legal choice of a decision.
"""

from __future__ import annotations

from collections.abc import Iterator
from itertools import permutations
from typing import Any

from roborally.engine.classic.base import PLACE, POWER, ClassicBase
from roborally.engine.classic.model import MOVES, NUM_REGISTERS, ROTATIONS, card_type
from roborally.engine.core.decisions import (
    PROGRAM,
    Decision,
    IllegalActionError,
    InvalidActionError,
)
from roborally.engine.core.view import ViewMemo


class ClassicChoices(ClassicBase):
    """Observations, validation, defaults and legal choices of the classic decisions."""

    def observation(
        self, seat: int | None, pending: list[Decision], memo: ViewMemo | None = None
    ) -> dict[str, Any]:
        """The classic view: damage tokens, lives and option cards too (private hands)."""
        from roborally.engine.classic.view import classic_observation

        return classic_observation(self.s, seat, pending, memo)

    def validate_answer(self, decision: Decision, choice: Any) -> Any:
        """Check a choice other than a program against its decision; return it normalised."""
        if decision.kind is POWER:
            if isinstance(choice, str) and choice.strip().lower() in ("yes", "no", "true", "false"):
                choice = choice.strip().lower() in ("yes", "true")
            if not isinstance(choice, bool):
                raise InvalidActionError(f"{decision.id}: answer true or false, got {choice!r}")
            return choice
        if not isinstance(choice, str):
            raise InvalidActionError(f"{decision.id}: expected one of the options, got {choice!r}")
        choice = " ".join(choice.split())
        choice = choice.upper() if decision.kind is PLACE else choice.lower()
        return self.one_of_options(decision, choice)

    def validate_program(self, decision: Decision, choice: Any) -> tuple[str | None, ...]:
        """One card per unlocked register (card names, or a bare type like ``move1``); a pair
        ``move1@490+rotate_left@70`` with Crab Legs or Dual Processor (8.3 #6, #8)."""
        if not isinstance(choice, (list, tuple)) or len(choice) != NUM_REGISTERS:
            raise InvalidActionError(
                f"{decision.id}: a program lists {NUM_REGISTERS} registers, got {choice!r}"
            )
        locked: list[int] = decision.info["locked"]
        remaining: list[str] = list(decision.info["hand"])
        pairs: list[str] = decision.info.get("pairs", [])
        program: list[str | None] = []
        for index, entry in enumerate(choice):
            if entry is None or entry == "-" or entry == "":
                program.append(None)
                continue
            if not isinstance(entry, str):
                raise InvalidActionError(f"{decision.id}: {entry!r} is not a card name")
            if index + 1 in locked:
                raise IllegalActionError(
                    f"{decision.id}: register {index + 1} is locked and keeps its card"
                    " (damage locks registers)"
                )
            names: list[str] = []
            for raw in entry.split("+"):
                name = raw.strip().lower()
                if name in remaining:
                    picked = name
                else:
                    picked = next((h for h in remaining if card_type(h) == name), "")
                if not picked:
                    raise IllegalActionError(
                        f"{decision.id}: {name!r} is not in the hand (or used twice);"
                        f" hand: {' '.join(decision.info['hand'])}"
                    )
                remaining.remove(picked)
                names.append(picked)
            if len(names) > 2:
                raise IllegalActionError(f"{decision.id}: at most two cards in one register")
            if len(names) == 2 and not self.pair_modes(names, pairs):
                raise IllegalActionError(
                    f"{decision.id}: {'+'.join(names)} is not a pair your option cards allow"
                    " (Crab Legs: Move 1 with Rotate Left/Right; Dual Processor: a move and a"
                    " turn)"
                )
            program.append("+".join(names))
        empty = [i + 1 for i, e in enumerate(program) if e is None and i + 1 not in locked]
        if empty and remaining:
            raise IllegalActionError(
                f"{decision.id}: every unlocked register must get a card; registers {empty}"
                " are empty"
            )
        return tuple(program)

    @staticmethod
    def pair_modes(names: list[str], pairs: list[str]) -> list[str]:
        """The ways two cards may share a register with the options held."""
        types = sorted((card_type(n) for n in names), key=lambda t: t in ROTATIONS)
        move, turn = types
        if move not in MOVES or turn not in ROTATIONS:
            return []
        modes = []
        if "crab_legs" in pairs and move == "move1" and turn in ("rotate_left", "rotate_right"):
            modes.append("crab_legs")
        if "dual_processor" in pairs:
            modes.append("dual_processor")
        return modes

    def default_choice(self, decision: Decision) -> Any:
        """A timed-out or absent player: random program fill (3.3, A-11), else the default."""
        if decision.kind is PROGRAM:
            hand = list(decision.info["hand"])
            self.s.rng.shuffle(hand)
            program: list[str | None] = []
            for index in range(NUM_REGISTERS):
                if index + 1 in decision.info["locked"] or not hand:
                    program.append(None)
                else:
                    program.append(hand.pop())
            return tuple(program)
        if decision.kind is POWER:
            return bool(decision.info.get("default", False))
        return decision.options[0]

    def legal_choices(self, decision: Decision) -> Iterator[Any]:
        """Every legal choice (programs: every assignment of single hand cards; pairs that
        Crab Legs or Dual Processor allow are legal too but not listed)."""
        if decision.kind is not PROGRAM:
            yield from decision.options
            return
        locked = decision.info["locked"]
        open_slots = [i for i in range(NUM_REGISTERS) if i + 1 not in locked]
        hand = decision.info["hand"]
        count = min(len(open_slots), len(hand))
        for combo in permutations(hand, count):
            program: list[str | None] = [None] * NUM_REGISTERS
            for slot, name in zip(open_slots, combo, strict=False):
                program[slot] = name
            yield tuple(program)
