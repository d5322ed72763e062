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
        # The same steps and checkpoint counting as the planner's search (its ``go``).
        search = self.search
        model = search.model
        table = model.tables[register]
        cp_at = model.cp_at
        track = model.track
        to_go = search.to_go
        total = search.total
        early = self.early
        is_last = register == LAST_REGISTER
        # A fall's cost stands for the distance in each register left, this one included.
        fall_weight = 1.0 + (LAST_REGISTER + 1 - register) * early
        base = state * NE
        low = float("inf")
        most_damage = most_energy = 0
        ends = []
        for effect in self.effects:
            res = table[base + effect]
            if res is None:
                res = model.step(register, state, effect)
            s2, damage, energy, passed = res
            cp = reached
            if track and passed:
                cp = search._advance_passed(cp, passed)
            if s2 < 0:
                ends.append(effect)
                value = fall_weight * search.fall_cost(-1 - s2, cp)
            else:
                if cp_at[s2 >> 2] == cp + 1:
                    cp += 1
                if cp >= total:  # a win is scored on another scale: no floor
                    return _NO_FLOOR
                here = to_go[cp][s2]
                if is_last:
                    value = (1.0 + early) * here
                else:
                    value, more_damage, more_energy, _ = self.one(s2, cp)
                    value += early * here
                    damage += more_damage
                    energy += more_energy
            if value < low:
                low = value
            if damage > most_damage:
                most_damage = damage
            if energy > most_energy:
                most_energy = energy
        return low, most_damage, most_energy, frozenset(ends)


_NO_FLOOR: Floor = (float("-inf"), 0, 0, frozenset())
