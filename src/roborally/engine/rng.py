"""The engine's own seeded random generator (versioned, so records replay on any machine).

It is a 64-bit SplitMix generator whose whole state is one integer held in the game state;
nothing in the engine touches Python's global ``random`` module.

>>> rng = Rng(1)
>>> [rng.below(6) for _ in range(5)]
[5, 1, 0, 5, 3]
"""

from __future__ import annotations

from typing import TypeVar

T = TypeVar("T")

RNG_VERSION = "splitmix64/1"
_MASK = (1 << 64) - 1


class Rng:
    """SplitMix64. ``state`` is the only data; copying the integer copies the generator."""

    __slots__ = ("state",)

    def __init__(self, seed: int) -> None:
        self.state = seed & _MASK

    def next64(self) -> int:
        self.state = (self.state + 0x9E3779B97F4A7C15) & _MASK
        z = self.state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
        return z ^ (z >> 31)

    def below(self, n: int) -> int:
        """A uniform integer in ``[0, n)`` (rejection sampling, no modulo bias)."""
        if n <= 0:
            raise ValueError("below() needs a positive bound")
        limit = (1 << 64) - ((1 << 64) % n)
        while True:
            value = self.next64()
            if value < limit:
                return value % n

    def shuffle(self, items: list[T]) -> None:
        """Fisher-Yates shuffle in place."""
        for i in range(len(items) - 1, 0, -1):
            j = self.below(i + 1)
            items[i], items[j] = items[j], items[i]

    def choice(self, items: list[T] | tuple[T, ...]) -> T:
        return items[self.below(len(items))]

    def copy(self) -> Rng:
        clone = Rng(0)
        clone.state = self.state
        return clone
