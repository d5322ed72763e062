"""Events: everything that happens in a game, in order, with enough detail to animate it.

Events are derived on replay; they are never recorded as causes. Each event names its ``kind``
(a closed enum), the round and register (0 outside activation), the robot's seat where one is
concerned, and the positions, facings, cards and amounts involved.

>>> from roborally.engine.core.geometry import Pos, NORTH
>>> str(Event(EventKind.MOVED, 1, 2, seat=0, pos=Pos(1, 1), to=Pos(1, 0), facing=NORTH))
'R1.2 P1 moved 1,1 -> 1,0'
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any, NamedTuple

from roborally.engine.core.geometry import Direction, Pos


class EventKind(StrEnum):
    GAME_STARTED = "game_started"
    ROUND_STARTED = "round_started"
    PHASE_STARTED = "phase_started"
    PLACED = "placed"  # a robot put on its start space
    CARDS_DRAWN = "cards_drawn"  # count only (what was drawn is private)
    DECK_SHUFFLED = "deck_shuffled"
    PROGRAMMED = "programmed"  # a player locked in a program (cards stay secret)
    SHUT_DOWN = "shut_down"
    REGISTER_STARTED = "register_started"
    CARD_REVEALED = "card_revealed"
    UPGRADE = "upgrade"  # an upgrade card installed, used, triggered, received or lost (cause)
    CARD_REPLACED = "card_replaced"  # SPAM / Again-in-register-1 replacement
    CARD_RESOLVED = "card_resolved"
    MOVED = "moved"  # one step by the robot's own action
    BLOCKED = "blocked"  # a step stopped by a wall or an unpushable robot
    PUSHED = "pushed"  # one robot pushed one space (by a robot or a push panel)
    CONVEYED = "conveyed"
    ROTATED = "rotated"
    ELEMENT_STEP = "element_step"  # a board element type starts acting
    SHOT = "shot"  # a laser beam (board or robot) and what it hit
    DAMAGED = "damaged"  # one damage card received
    DAMAGE_PREVENTED = "damage_prevented"
    FELL = "fell"
    REBOOTED = "rebooted"
    DESTROYED = "destroyed"  # classic: a robot destroyed (amount: lives left; cause: why)
    REENTERED = "reentered"
    DISPLACED = "displaced"  # moved along a reboot-token arrow
    ENERGY_GAINED = "energy_gained"
    CHECKPOINT_REACHED = "checkpoint_reached"
    ARCHIVED = "archived"
    PRIORITY_PASSED = "priority_passed"
    ROUND_ENDED = "round_ended"
    GAME_WON = "game_won"
    GAME_ENDED = "game_ended"


# Every kind as a module constant, as the engine's rules write them: on Python 3.11 reading a
# member off an enum class (``EventKind.MOVED``) goes through EnumType.__getattr__'s slot hook,
# about ten times the cost of a module global, and a register emits some 45 events
# (tests/test_enum_constants.py checks that each is the member of its name).
GAME_STARTED = EventKind.GAME_STARTED
ROUND_STARTED = EventKind.ROUND_STARTED
PHASE_STARTED = EventKind.PHASE_STARTED
PLACED = EventKind.PLACED
CARDS_DRAWN = EventKind.CARDS_DRAWN
DECK_SHUFFLED = EventKind.DECK_SHUFFLED
PROGRAMMED = EventKind.PROGRAMMED
SHUT_DOWN = EventKind.SHUT_DOWN
REGISTER_STARTED = EventKind.REGISTER_STARTED
CARD_REVEALED = EventKind.CARD_REVEALED
UPGRADE = EventKind.UPGRADE
CARD_REPLACED = EventKind.CARD_REPLACED
CARD_RESOLVED = EventKind.CARD_RESOLVED
MOVED = EventKind.MOVED
BLOCKED = EventKind.BLOCKED
PUSHED = EventKind.PUSHED
CONVEYED = EventKind.CONVEYED
ROTATED = EventKind.ROTATED
ELEMENT_STEP = EventKind.ELEMENT_STEP
SHOT = EventKind.SHOT
DAMAGED = EventKind.DAMAGED
DAMAGE_PREVENTED = EventKind.DAMAGE_PREVENTED
FELL = EventKind.FELL
REBOOTED = EventKind.REBOOTED
DESTROYED = EventKind.DESTROYED
REENTERED = EventKind.REENTERED
DISPLACED = EventKind.DISPLACED
ENERGY_GAINED = EventKind.ENERGY_GAINED
CHECKPOINT_REACHED = EventKind.CHECKPOINT_REACHED
ARCHIVED = EventKind.ARCHIVED
PRIORITY_PASSED = EventKind.PRIORITY_PASSED
ROUND_ENDED = EventKind.ROUND_ENDED
GAME_WON = EventKind.GAME_WON
GAME_ENDED = EventKind.GAME_ENDED


# A named tuple: immutable, and the cheapest object to build (a register emits dozens, and the
# engine builds each one straight from a tuple, see Mechanics.emit).
class Event(NamedTuple):
    kind: EventKind
    round: int
    register: int
    seat: int | None = None
    pos: Pos | None = None
    to: Pos | None = None
    facing: Direction | None = None
    to_facing: Direction | None = None
    card: str | None = None
    amount: int | None = None
    other: int | None = None
    cause: str | None = None
    #: ``card`` is known to ``seat`` alone (a Haywire dealt face down into a register).
    secret: bool = False

    def seen_by(self, viewer: int | None) -> Event:
        """This event as ``viewer`` may see it (``None``: a spectator): a secret card's name
        is removed for everyone but its owner.

        >>> e = Event(EventKind.DAMAGED, 1, 2, seat=0, card="hw_side2", secret=True)
        >>> e.seen_by(0).card, e.seen_by(1).card, e.seen_by(None).to_json()["hidden"]
        ('hw_side2', None, True)
        """
        if self.secret and viewer != self.seat and self.card is not None:
            return self._replace(card=None)
        return self

    def to_json(self) -> dict[str, Any]:
        """A JSON-friendly dict (positions as ``[x, y]``, facings as ``"N"``...)."""
        data: dict[str, Any] = {
            "kind": self.kind.value,
            "round": self.round,
            "register": self.register,
        }
        for key in ("seat", "card", "amount", "other", "cause"):
            value = getattr(self, key)
            if value is not None:
                data[key] = value
        for key in ("pos", "to"):
            value = getattr(self, key)
            if value is not None:
                data[key] = [value.x, value.y]
        for key in ("facing", "to_facing"):
            value = getattr(self, key)
            if value is not None:
                data[key] = value.letter
        if self.secret and self.card is None:
            data["hidden"] = True  # a card was named here, but not to this viewer
        return data

    def __str__(self) -> str:
        where = f"R{self.round}.{self.register}" if self.register else f"R{self.round}"
        who = f" P{self.seat + 1}" if self.seat is not None else ""
        text = f"{where}{who} {self.kind.value.replace('_', ' ')}"
        upgrade = self.kind is EventKind.UPGRADE  # reads "P1 upgrade used brakes"
        if upgrade and self.cause:
            text += f" {self.cause}"
        if self.card:
            text += f" {self.card}"
        if self.pos is not None and self.to is not None:
            text += f" {self.pos} -> {self.to}"
        elif self.pos is not None:
            text += f" at {self.pos}"
        if self.kind is EventKind.PLACED and self.facing is not None:
            text += f" facing {self.facing.letter}"
        if self.facing is not None and self.to_facing is not None:
            text += f" {self.facing.letter} -> {self.to_facing.letter}"
        if self.amount is not None:
            text += f" ({self.amount})"
        if self.other is not None:
            text += f" [P{self.other + 1}]"
        if self.cause and not upgrade:
            text += f" by {self.cause}"
        return text
