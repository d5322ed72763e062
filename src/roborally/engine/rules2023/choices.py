"""The 2023 decisions' answers: what a seat may see, how a choice is checked and normalised,
what a timed-out or absent player does, every legal choice of a decision, and the program
extras (Crab Legs pairs, the Haywires Rewire put in the hand).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from itertools import permutations
from typing import Any

from roborally.engine.core.cards import HAYWIRE
from roborally.engine.core.decisions import (
    BLOCK_START,
    CARD_ORDER,
    PROGRAM,
    REBOOT_FACING,
    SHUTDOWN,
    SIDESTEP,
    START_SPACE,
    UPGRADE,
    UPGRADE_PHASE,
    Decision,
    IllegalActionError,
    InvalidActionError,
)
from roborally.engine.core.state import NUM_REGISTERS, Player
from roborally.engine.core.view import ViewMemo, observation
from roborally.engine.rules2023.base import Base2023

#: Decision kinds whose choice is one of a few option strings.
STRING_KINDS = (UPGRADE_PHASE, UPGRADE)


class Choices2023(Base2023):
    """Observations, validation, defaults and legal choices of the 2023 decisions."""

    LISTS_PAIRS = True  # legal_choices lists the Crab Legs pairs

    def observation(
        self, seat: int | None, pending: list[Decision], memo: ViewMemo | None = None
    ) -> dict[str, Any]:
        """What ``seat`` may see (spec 4.7); rulesets with more public state override it."""
        return observation(self.s, seat, pending, memo)

    # ============================================================ validation
    def validate_answer(self, decision: Decision, choice: Any) -> Any:
        """Check a choice other than a program against its decision; return it normalised."""
        if type(choice) is str and decision.kind in STRING_KINDS and choice in decision.options:
            return choice  # as offered: the common case, nothing to normalise
        if decision.kind in STRING_KINDS:
            if not isinstance(choice, str):
                raise InvalidActionError(
                    f"{decision.id}: the choice is one of the option texts, got {choice!r}"
                )
            if choice in decision.options:
                return choice  # as offered (the options differ in more than case and spaces)
            wanted = " ".join(choice.split()).lower()
            for option in decision.options:
                if option.lower() == wanted:
                    return option
            raise IllegalActionError(
                f"{decision.id}: {choice!r} is not a legal choice; choose one of "
                + ", ".join(repr(o) for o in decision.options)
            )
        if decision.kind is CARD_ORDER:
            if not isinstance(choice, (list, tuple)) or not all(isinstance(c, int) for c in choice):
                raise InvalidActionError(f"{decision.id}: the order must be a list of positions")
            if tuple(choice) not in decision.options:
                raise IllegalActionError(
                    f"{decision.id}: {list(choice)} is not one of {list(decision.options)}"
                )
            return tuple(choice)
        if isinstance(choice, str) and decision.kind in (REBOOT_FACING, SIDESTEP):
            choice = choice.strip().upper()
        if isinstance(choice, list):
            choice = tuple(choice)
        if decision.kind in (START_SPACE, BLOCK_START):
            if isinstance(choice, str) and choice.strip().isdigit():
                choice = int(choice)
            if isinstance(choice, bool) or not isinstance(choice, int):
                raise InvalidActionError(
                    f"{decision.id}: a start space is a number, got {choice!r}"
                )
        if decision.kind is SHUTDOWN and not isinstance(choice, bool):
            raise InvalidActionError(f"{decision.id}: answer true or false, got {choice!r}")
        return self.one_of_options(decision, choice)

    def validate_program(self, decision: Decision, choice: Any) -> tuple[str | None, ...]:
        if not isinstance(choice, (list, tuple)) or len(choice) != NUM_REGISTERS:
            raise InvalidActionError(
                f"{decision.id}: a program lists {NUM_REGISTERS} registers, got {choice!r}"
            )
        locked: list[int] = decision.info["locked"]
        hand: list[str] = decision.info["hand"]
        program: list[str | None] = []
        for entry in choice:
            if entry is None or entry == "-":
                program.append(None)
            elif type(entry) is str and entry in hand:
                program.append(entry)  # a card of the hand as named there: nothing to tidy
            elif isinstance(entry, str):
                program.append(entry.strip().lower())
            else:
                raise InvalidActionError(f"{decision.id}: {entry!r} is not a card name")
        wanted: dict[str, int] = {}  # cards used by name (a dict: faster than a Counter)
        for index, entry in enumerate(program):
            if entry is None:
                continue
            if index + 1 in locked:
                raise IllegalActionError(
                    f"{decision.id}: register {index + 1} holds a face-down Haywire and cannot"
                    " be programmed"
                )
            cards: tuple[str, ...] = (entry,)
            if "+" in entry:
                pair = self.pair_of(entry)
                if pair is None or not decision.info.get("pairs"):
                    raise IllegalActionError(
                        f"{decision.id}: {entry!r}: only Crab Legs lets a register hold two"
                        " cards, a move1 with a rotate_left or rotate_right"
                    )
                program[index] = "+".join(pair)
                cards = pair
            for name in cards:
                wanted[name] = wanted.get(name, 0) + 1
        for name, count in wanted.items():
            held = hand.count(name)
            if held < count:
                raise IllegalActionError(
                    f"{decision.id}: {name} is used {count} time(s) but the hand holds {held}"
                    f" (hand: {' '.join(sorted(hand))})"
                )
        forced: list[str] = decision.info.get("forced", [])
        for name in dict.fromkeys(forced):
            if wanted.get(name, 0) < forced.count(name):
                raise IllegalActionError(
                    f"{decision.id}: Rewire: every Haywire in your hand ({name}) must be"
                    " programmed this round"
                )
        open_registers = NUM_REGISTERS - len(locked)
        must_fill = min(open_registers, len(hand))
        if NUM_REGISTERS - program.count(None) < must_fill:
            empty = [i + 1 for i, e in enumerate(program) if e is None and i + 1 not in locked]
            raise IllegalActionError(
                f"{decision.id}: every register must be filled while the hand has cards;"
                f" registers {empty} are empty"
            )
        return tuple(program)

    def default_choice(self, decision: Decision) -> Any:
        """What a timed-out or absent player does (random fill for programs, spec 11.1.6)."""
        if decision.kind is PROGRAM:
            hand = list(decision.info["hand"])
            self.s.rng.shuffle(hand)
            forced = list(decision.info.get("forced", []))
            if forced:
                # 12-B13: the Haywires Rewire put in the hand are placed first.
                for name in forced:
                    hand.remove(name)
                hand.extend(forced)
            program: list[str | None] = []
            for index in range(NUM_REGISTERS):
                if index + 1 in decision.info["locked"] or not hand:
                    program.append(None)
                else:
                    program.append(hand.pop())
            if forced:
                slots = [i for i, e in enumerate(program) if e is not None]
                names = [program[i] for i in slots]
                self.s.rng.shuffle(names)
                for i, name in zip(slots, names, strict=True):
                    program[i] = name
            return tuple(program)
        if decision.kind is SHUTDOWN:
            return False
        if decision.kind is BLOCK_START:
            return decision.options[-1]
        return decision.options[0]

    def legal_choices(self, decision: Decision) -> Iterator[Any]:
        """Every legal choice of a decision (programs: every distinct assignment of hand cards)."""
        if decision.kind is not PROGRAM:
            yield from decision.options
            return
        locked = decision.info["locked"]
        open_slots = [i for i in range(NUM_REGISTERS) if i + 1 not in locked]
        hand = decision.info["hand"]
        count = min(len(open_slots), len(hand))
        forced = Counter(decision.info.get("forced", []))
        have = Counter(hand)
        units: list[str] = list(hand)
        if decision.info.get("pairs"):  # Crab Legs: as many pairs as the hand can make
            for rotation in ("rotate_left", "rotate_right"):
                pair = f"move1+{rotation}"
                units.extend([pair] * min(have["move1"], have[rotation]))
        seen: set[tuple[str, ...]] = set()
        for combo in permutations(units, count):
            if combo in seen:
                continue
            seen.add(combo)
            if len(units) > len(hand) or forced:
                used = Counter(n for entry in combo for n in entry.split("+"))
                if used - have or any(used[n] < c for n, c in forced.items()):
                    continue
            program: list[str | None] = [None] * NUM_REGISTERS
            for slot, name in zip(open_slots, combo, strict=False):
                program[slot] = name
            yield tuple(program)

    # ============================================================ programs
    def program_info(self, player: Player) -> dict[str, Any]:
        """Extra PROGRAM info: Crab Legs pairs and Haywires that Rewire put in the hand."""
        info: dict[str, Any] = {}
        if self.s.upgrades and self.has(player, "crab_legs"):
            info["pairs"] = True
        types = self._card_types  # card_type() without a call per card
        forced = [c.name for c in player.hand if types[c.name] is HAYWIRE]
        if forced:
            info["forced"] = forced
        return info

    @staticmethod
    def pair_of(entry: str) -> tuple[str, str] | None:
        """``"move1+rotate_left"`` (either order) as (move, rotation); None if not a pair."""
        parts = entry.split("+")
        if len(parts) != 2:
            return None
        names = set(parts)
        if "move1" in names and names & {"rotate_left", "rotate_right"} and len(names) == 2:
            rotation = next(n for n in parts if n != "move1")
            return "move1", rotation
        return None
