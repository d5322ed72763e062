"""Lower bounds of what the planner's last registers can still score, to prune its search.

A program's cost (see :mod:`roborally.bots.planner`) ends with the distance left after the
last register, plus :attr:`~roborally.bots.planner.Weights.early` times the distances left
after every register. From a state before register 4 (or 5), the least those terms can add up
to over any plain card effects is a *floor*: with the damage and energy bounded too, a subtree
whose floor cannot beat the worst program kept need not be scored. Floors are computed once per
(state, checkpoints reached) and search, over the effects of the hand's plain cards.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from roborally.bots.sim import NE

if TYPE_CHECKING:
    from roborally.bots.planner import ProgramSearch

LAST_REGISTER = 5

#: (value, most damage, most energy, the effects after which the program ends): ``value`` is
#: the least "distance left" part of the cost (already weighted; -inf when the course can be
#: finished), the damage and energy the most the board elements may give on the way; the ending
#: effects (a fall, or the last checkpoint) are those of the floor's first register.
Floor = tuple[float, int, int, frozenset[int]]


class Floors:
    """The floors of one search over the effects of its hand's plain cards."""

    def __init__(self, search: ProgramSearch, effects: list[int]) -> None:
        self.search = search
        self.effects = effects
        self.stride = search.total + 1
        self.early = search.w.early
        #: state * stride + checkpoints reached -> the floor of the last register
        self.last: dict[int, Floor] = {}
        #: the same for the last two registers
        self.last_two: dict[int, Floor] = {}

    def _outcome(
        self, register: int, state: int, reached: int, effect: int
    ) -> tuple[int, int, int, int]:
        """(state, damage, energy, checkpoints reached) after ``effect`` in ``register``: the
        checkpoints are counted as the planner's search counts them."""
        search = self.search
        model = search.model
        res = model.tables[register][state * NE + effect]
        if res is None:
            res = model.step(register, state, effect)
        s2, damage, energy, passed = res
        cp = reached
        if model.track and passed:
            cp = search._advance_passed(cp, passed)
        if s2 >= 0 and model.cp_at[s2 >> 2] == cp + 1:
            cp += 1
        return s2, damage, energy, cp

    def one(self, state: int, reached: int) -> Floor:
        """The floor of the last register: (1 + early) times the least distance left."""
        key = state * self.stride + reached
        floor = self.last.get(key)
        if floor is None:
            floor = self.last[key] = self._floor(LAST_REGISTER, state, reached)
        return floor

    def two(self, state: int, reached: int) -> Floor:
        """The floor of the last two registers: early times the distance left after the first,
        plus the last register's floor from there."""
        key = state * self.stride + reached
        floor = self.last_two.get(key)
        if floor is None:
            floor = self.last_two[key] = self._floor(LAST_REGISTER - 1, state, reached)
        return floor

    def _floor(self, register: int, state: int, reached: int) -> Floor:
        search = self.search
        early = self.early
        left = LAST_REGISTER + 1 - register  # the registers whose distance ``early`` weighs
        low = float("inf")
        most_damage = most_energy = 0
        ends = set()
        for effect in self.effects:
            s2, damage, energy, cp = self._outcome(register, state, reached, effect)
            if s2 < 0:  # a fall: its cost stands for the distance in every register left
                ends.add(effect)
                value = (1.0 + left * early) * search.fall_cost(-1 - s2, cp)
            elif cp >= search.total:  # a win: scored on another scale, no floor
                return float("-inf"), 0, 0, _NONE
            elif register == LAST_REGISTER:
                value = (1.0 + early) * search.to_go[cp][s2]
            else:
                value, more_damage, more_energy, _ = self.one(s2, cp)
                value += early * search.to_go[cp][s2]
                damage += more_damage
                energy += more_energy
            low = min(low, value)
            most_damage = max(most_damage, damage)
            most_energy = max(most_energy, energy)
        return low, most_damage, most_energy, frozenset(ends)


_NONE: frozenset[int] = frozenset()
