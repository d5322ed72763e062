"""Cards: programming cards, damage cards and the data that describes them.

Every physical card is a :class:`Card` with a game-unique ``uid``; cards with the same ``name``
are interchangeable for play, so decisions name cards by ``name`` (``"move2"``, ``"spam"``).

>>> PROGRAMMING_CARDS["move2"].copies
3
>>> sum(spec.copies for spec in PROGRAMMING_CARDS.values())
20
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from enum import StrEnum


class CardType(StrEnum):
    PROGRAMMING = "programming"
    SPAM = "spam"
    HAYWIRE = "haywire"

    @property
    def is_damage(self) -> bool:
        return self is not PROGRAMMING


# The members as module constants, as the engine's rules write them (like events.MOVED):
# ``CardType.X`` costs about ten times a global on Python 3.11 (tests/test_enum_constants.py).
PROGRAMMING = CardType.PROGRAMMING
SPAM = CardType.SPAM
HAYWIRE = CardType.HAYWIRE


@dataclass(frozen=True, slots=True)
class Card:
    """One physical card. ``uid`` tells copies apart; ``name`` says what it does."""

    uid: int
    name: str
    priority: int = 0

    def __str__(self) -> str:
        return self.name


@dataclass(frozen=True, slots=True)
class CardSpec:
    """What a card of this ``name`` is: its type, effect script and text."""

    name: str
    type: CardType
    title: str
    copies: int = 1
    effect: str = ""
    text: str = ""
    source: str = ""
    source_name: str = ""  # the name in the rulebook's language (Ukrainian for 2023)


# The 2023 personal programming deck (spec 1.3, 000: 349-394).
_SOURCE_NAMES = {
    "move1": "Рух 1",
    "move2": "Рух 2",
    "move3": "Рух 3",
    "rotate_right": "Поворот праворуч",
    "rotate_left": "Поворот ліворуч",
    "u_turn": "Розворот",
    "move_back": "Рух назад",
    "power_up": "Заряд",
    "again": "Повтор",
}

PROGRAMMING_CARDS: dict[str, CardSpec] = {
    spec.name: replace(spec, source_name=_SOURCE_NAMES[spec.name])
    for spec in (
        CardSpec(
            "move1",
            CardType.PROGRAMMING,
            "Move 1",
            4,
            "move1",
            "Move forward 1 space.",
            "000: 351-357",
        ),
        CardSpec(
            "move2",
            CardType.PROGRAMMING,
            "Move 2",
            3,
            "move2",
            "Move forward 2 spaces, one at a time.",
            "000: 351-357",
        ),
        CardSpec(
            "move3",
            CardType.PROGRAMMING,
            "Move 3",
            1,
            "move3",
            "Move forward 3 spaces, one at a time.",
            "000: 351-357",
        ),
        CardSpec(
            "rotate_right",
            CardType.PROGRAMMING,
            "Rotate Right",
            4,
            "rotate_right",
            "Turn 90 degrees clockwise in place.",
            "000: 360-362",
        ),
        CardSpec(
            "rotate_left",
            CardType.PROGRAMMING,
            "Rotate Left",
            4,
            "rotate_left",
            "Turn 90 degrees counter-clockwise in place.",
            "000: 364-366",
        ),
        CardSpec(
            "u_turn",
            CardType.PROGRAMMING,
            "U-Turn",
            1,
            "u_turn",
            "Turn around in place.",
            "000: 370-372",
        ),
        CardSpec(
            "move_back",
            CardType.PROGRAMMING,
            "Move Back",
            1,
            "move_back",
            "Move 1 space backwards without turning.",
            "000: 376-378",
        ),
        CardSpec(
            "power_up",
            CardType.PROGRAMMING,
            "Power Up",
            1,
            "power_up",
            "Gain 1 energy.",
            "000: 382-384",
        ),
        CardSpec(
            "again",
            CardType.PROGRAMMING,
            "Again",
            1,
            "again",
            "Do the previous register's action once more.",
            "000: 388-394",
        ),
    )
}

#: Card actions a robot can perform (effects of programming and Haywire cards).
MOVE_EFFECTS = {"move1": 1, "move2": 2, "move3": 3}


@dataclass(frozen=True, slots=True)
class DamageDeckSpec:
    """The damage deck: its card kinds and how many of each (loaded from data, spec 12-A1)."""

    cards: tuple[CardSpec, ...]
    note: str = ""

    @property
    def size(self) -> int:
        return sum(c.copies for c in self.cards)

    def spec(self, name: str) -> CardSpec:
        for card in self.cards:
            if card.name == name:
                return card
        raise KeyError(name)


#: The Haywire effects the engine implements (spec 5.7). Data files name one per Haywire card.
HAYWIRE_EFFECTS = ("two_cards", "move1_right_move1", "install_permanent", "side2", "move3_uturn")


def default_damage_deck() -> DamageDeckSpec:
    """A built-in damage deck (the same as the shipped data file) for tests and pure use."""
    haywire = [
        (
            "hw_two",
            "Double Draw",
            "two_cards",
            "Draw and reveal the top 2 cards of your programming deck; resolve both in the order"
            " you choose.",
            "003: 66-70",
        ),
        (
            "hw_m1rm1",
            "Jolt",
            "move1_right_move1",
            "Move 1, Rotate Right, Move 1.",
            "003: 1323-1327",
        ),
        (
            "hw_install",
            "Glitch Install",
            "install_permanent",
            "Install a permanent upgrade from your reserve; discard it at the end of the round.",
            "003: 1355-1367",
        ),
        (
            "hw_side2",
            "Sideslip",
            "side2",
            "Move 2 to the left or right without turning.",
            "003: 1369-1375",
        ),
        ("hw_m3u", "Overrun", "move3_uturn", "Move 3, then U-Turn.", "000: 697; 003: 1506-1512"),
    ]
    cards = [
        CardSpec(
            "spam",
            CardType.SPAM,
            "SPAM",
            30,
            "spam",
            "When revealed, put this card in the damage discard pile and replace it with"
            " the top card of your programming deck.",
            "000: 580-588",
            "спам",
        )
    ]
    for name, title, effect, text, source in haywire:
        cards.append(CardSpec(name, CardType.HAYWIRE, title, 2, effect, text, source, "збій"))
    return DamageDeckSpec(tuple(cards), "placeholder split 30 SPAM / 10 Haywire (spec 12-A1)")
