"""Building a program one register at a time, without listing every program.

A PROGRAM decision has up to 15,120 legal programs (5 of 9 cards, in order). Someone who fills
the registers one by one (a player's hand on a screen, a learning agent) only needs to know,
after the first few registers, which cards may go into the next one so that the program can
still be completed. :func:`next_units` answers that from the decision's ``info`` in time linear
in the hand, and agrees exactly with the programs the editions list
(:meth:`~roborally.engine.core.driver.StageDriver.legal_choices`): a unit is offered after a
prefix if and only if some listed program starts with the prefix followed by that unit.

A listed program fills the first ``min(open registers, cards in hand)`` open registers in order
(the others stay ``None``), each with one *unit*: a card name, or (Crab Legs, 2023) a pair
``"move1+rotate_left"`` / ``"move1+rotate_right"``; the Haywires that Rewire put in the hand
(``info["forced"]``) must all be programmed.

>>> info = {"hand": ["move1", "rotate_left", "hw_m3u"], "locked": [1, 2], "forced": ["hw_m3u"]}
>>> next_units(info, [])
('move1', 'rotate_left', 'hw_m3u')
>>> next_units(info, ["move1", "rotate_left"])  # the Haywire must take the last register
('hw_m3u',)
>>> next_units(info, ["move1", "rotate_left", "hw_m3u"])  # complete
()
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

#: The registers of a program (both editions).
REGISTERS = 5
#: The units a Crab Legs pair makes (2023, 000: 733): Move 1 with a Rotate.
PAIRS = ("move1+rotate_left", "move1+rotate_right")


def open_registers(info: Mapping[str, Any]) -> list[int]:
    """The registers (0-based) a program may fill: those not locked, in order."""
    locked = info["locked"]
    return [r for r in range(info.get("registers", REGISTERS)) if r + 1 not in locked]


def program_length(info: Mapping[str, Any]) -> int:
    """How many registers a listed program fills: ``min(open registers, cards in hand)``."""
    return min(len(open_registers(info)), len(info["hand"]))


def _remaining(info: Mapping[str, Any], prefix: Sequence[str]) -> dict[str, int]:
    """The hand's cards by name once ``prefix``'s units are placed; ``ValueError`` when the
    prefix uses a card the hand does not hold (or holds fewer times)."""
    left: dict[str, int] = {}
    for name in info["hand"]:
        left[name] = left.get(name, 0) + 1
    for unit in prefix:
        for name in unit.split("+"):
            if left.get(name, 0) < 1:
                raise ValueError(f"{unit!r}: the hand holds no (more) {name!r}")
            left[name] -= 1
    return left


def next_units(
    info: Mapping[str, Any], prefix: Sequence[str], *, pairs: bool | None = None
) -> tuple[str, ...]:
    """The units that may fill the next open register after ``prefix`` (the units of the
    first open registers, in order) so that the program can still be completed; ``()`` once
    the prefix is a complete program.

    Each card name is given once (in the order of the hand), then the Crab Legs pairs when
    ``pairs`` (default: ``info["pairs"]``) allows them. ``ValueError`` if ``prefix`` is not
    itself the start of a program (a card not in the hand, too many units, a pair without
    Crab Legs).
    """
    allow_pairs = bool(info.get("pairs")) if pairs is None else pairs
    length = program_length(info)
    if len(prefix) > length:
        raise ValueError(f"a program fills {length} registers; the prefix has {len(prefix)}")
    if not allow_pairs and any("+" in unit for unit in prefix):
        raise ValueError("only Crab Legs lets a register hold two cards")
    left = _remaining(info, prefix)
    after = length - len(prefix) - 1  # registers still to fill after the next one
    if after < 0:
        return ()
    forced: dict[str, int] = {}
    for name in info.get("forced", ()):
        forced[name] = forced.get(name, 0) + 1
    # Every forced card still in the hand needs a register of its own (a Haywire is never in
    # a pair); the cards are there (they are in the hand), so the test is on registers only.
    owed = sum(min(count, left.get(name, 0)) for name, count in forced.items())
    cards = sum(left.values())

    def completes(used: Sequence[str]) -> bool:
        """Whether ``after`` registers can be filled once ``used`` has left the hand."""
        still_owed = owed - sum(1 for name in used if left[name] <= forced.get(name, 0))
        return after <= cards - len(used) and still_owed <= after

    units = [name for name, count in left.items() if count > 0 and completes((name,))]
    if allow_pairs and left.get("move1", 0) > 0:
        for pair in PAIRS:
            rotation = pair.split("+")[1]
            if left.get(rotation, 0) > 0 and completes(("move1", rotation)):
                units.append(pair)
    return tuple(units)


def complete_program(info: Mapping[str, Any], units: Sequence[str]) -> tuple[str | None, ...]:
    """The program (one entry per register, ``None`` for the others) that places ``units`` in
    the first open registers, in order.

    >>> complete_program({"hand": ["move1", "again"], "locked": [2]}, ["again", "move1"])
    ('again', None, 'move1', None, None)
    """
    program: list[str | None] = [None] * info.get("registers", REGISTERS)
    for register, unit in zip(open_registers(info), units, strict=False):
        program[register] = unit
    return tuple(program)
