"""Lower bounds of what the planner's last registers can still score, to prune its search.

A program's cost (see :mod:`roborally.bots.planner`) ends with the distance left after the
last register, plus :attr:`~roborally.bots.planner.Weights.early` times the distances left
after every register. From a state before register 4 (or 5), the least those terms can add up
to over the effects the hand allows there is a *floor*: with the damage and energy bounded too,
a subtree whose floor cannot beat the worst program kept need not be scored, only counted.
Floors are computed once per (state, checkpoints reached) and search.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from roborally.bots import sim
from roborally.bots.sim import E_NOOP, E_SIDE_L, E_SIDE_R, NE, resolve_code

if TYPE_CHECKING:
    from roborally.bots.planner import ProgramSearch

LAST_REGISTER = 5

#: Slack for the bounds: they are summed in another order than the costs they bound, so they
#: may differ in the last bits; a bound prunes only when it is clearly worse.
BOUND_MARGIN = 1e-9

#: (value, most damage, most energy, the effects after which the program ends): ``value`` is
#: the least "distance left" part of the cost (already weighted; -inf when the course can be
#: finished), the damage and energy the most the board elements may give on the way; the ending
#: effects (a fall, or the last checkpoint) are those of the floor's first register.
Floor = tuple[float, int, int, frozenset[int]]


class Floors:
    """The floors of one search over ``effects`` (all that its cards may do)."""

    def __init__(self, search: ProgramSearch, effects: list[int], unknown: int) -> None:
        self.search = search
        self.effects = effects
        #: how many unknown cards one register may draw (SPAM: 1, a "two cards" Haywire: 2)
        self.unknown = unknown
        self.stride = search.total + 1
        self.early = search.w.early
        #: per register (1-based): state * stride + checkpoints reached -> the floor from there
        self.cached: list[dict[int, Floor]] = [{} for _ in range(LAST_REGISTER + 1)]

    def floor(self, register: int, state: int, reached: int) -> Floor:
        """The floor of registers ``register``..5 from ``state``: early times the distance left
        after each but the last, (1 + early) times the distance left after the last."""
        key = state * self.stride + reached
        floor = self.cached[register].get(key)
        if floor is None:
            floor = self.cached[register][key] = self._floor(register, state, reached)
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
        low = noop = float("inf")
        most_damage = most_energy = 0
        ends = []
        for effect in self.effects:
            res = table[base + effect]
            if res is None:
                res = model.step(register, state, effect)
            s2, damage, energy, passed = res
            cp = reached
            if track and passed:
                cp = search.advance_passed(cp, passed)
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
                    value, more_damage, more_energy, _ = self.floor(register + 1, s2, cp)
                    value += early * here
                    damage += more_damage
                    energy += more_energy
            if effect == E_NOOP:
                noop = value
            if value < low:
                low = value
            if damage > most_damage:
                most_damage = damage
            if energy > most_energy:
                most_energy = energy
        if self.unknown:  # an unknown card does nothing, then adds what a drawn card may do
            gain = search.unknown_adjust(register, state, reached)
            if gain < 0:
                low = min(low, noop + self.unknown * gain)
        return low, most_damage, most_energy, frozenset(ends)


_NO_FLOOR: Floor = (float("-inf"), 0, 0, frozenset())


def _first_unlocked(locked_codes: list[int | None], search: ProgramSearch) -> int:
    """Register 4 or 5 (0-based 3 or 4) when no register is locked from there on, else one past
    the last (no pruning); none either with a negative weight, which the bounds assume away."""
    w = search.w
    if w.early < 0 or search.w_damage < 0 or search.w_energy < 0:
        return len(locked_codes)
    for r in (LAST_REGISTER - 2, LAST_REGISTER - 1):
        if all(code is None for code in locked_codes[r:]):
            return r
    return len(locked_codes)


class Pruner:
    """Prunes the planner's search in registers 4 and 5 (see the module doc).

    It reads the search's live state: ``counts`` (cards left per hand group), ``empties`` (empty
    registers left to place) and ``worst`` (the cost a program must beat to be kept); ``pairs``
    are the search's Crab Legs pairs (move 1 group, rotation group, effect, mark). A pruned
    subtree still counts its leaves, because the search numbers its leaves and the numbers
    order programs of equal cost: one per way the search fills the last register (a card type,
    the other outcome of a reveal choice or the other side of a Haywire sidestep, a pair, an
    empty register), and in register 4 one per way whose effect ends the program there.
    """

    def __init__(
        self,
        search: ProgramSearch,
        codes: list[int],
        bonus: list[float],
        counts: list[int],
        empties: list[int],
        pairs: list[tuple[int, int, int, int]],
        worst: list[float],
        locked_codes: list[int | None],
    ) -> None:
        self.search = search
        self.counts = counts
        self.empties = empties
        self.pairs = pairs
        self.worst = worst
        self.branching = search.brakes or search.drifting or search.power_slide
        # Per hand group: its effect in registers 4-5 and the other one its card may have (a
        # reveal choice, the other side of a Haywire sidestep; -1: none). Again's effects
        # depend on the register before it.
        self.effect_of = [self._effects_of(code)[0] for code in codes]
        self.other_of = [self._effects_of(code)[1] for code in codes]
        self.again = codes.index(sim.C_AGAIN) if sim.C_AGAIN in codes else -1
        self.other_keys = [k for k, o in enumerate(self.other_of) if o >= 0 and k != self.again]
        effects = self._effects(codes)
        unknown = 2 if sim.C_TWO in codes else 1 if sim.C_UNKNOWN in codes else 0
        self.floors = Floors(search, sorted(effects), unknown)
        # Again repeats an effect, nothing (after an empty register), a Power Up or an unknown
        # card: the floors know them all only with an unknown card in the hand.
        self.bounded_last = {*effects, sim.C_EMPTY, sim.C_POWER}
        if unknown:
            self.bounded_last.add(sim.C_UNKNOWN)
        self.power_gain = 1 if sim.C_POWER in codes or sim.C_POWER in locked_codes else 0
        self.repair_slack = 1 if search.classic else 0  # a classic repair takes a damage back
        # A program term per card (SPAM programmed): the least the last registers may add.
        self.cheapest = min(0.0, *bonus)
        self.bonus_keys = [k for k, b in enumerate(bonus) if b < 0]
        self.simple = not (self.branching or pairs or self.other_keys)  # one leaf per type
        # The search's facts, copied for :meth:`prune` (called at most nodes of registers 4-5).
        self.damage0 = search.me.damage
        self.classic = search.classic
        self.w_early = search.w.early
        self.w_damage = search.w_damage
        self.w_energy = search.w_energy
        self.room = search.energy_room
        self.cached = self.floors.cached
        self.stride = self.floors.stride
        #: the first register (0-based) it prunes from: registers 4 or 5, none locked from there
        self.first = _first_unlocked(locked_codes, search)
        #: (counts, empties, what Again repeats, ending effects) -> leaves of registers 4-5
        self._two_leaves: dict[tuple[tuple[int, ...], int, int, frozenset[int]], int] = {}

    def _effects_of(self, code: int) -> tuple[int, int]:
        """A card's effect in registers 4-5 and its other one (-1: none); unknown cards do
        nothing (the floors add what a drawn card may do)."""
        if code == sim.C_SIDE2:
            return E_SIDE_L, E_SIDE_R
        effect = resolve_code(code, sim.C_EMPTY, LAST_REGISTER)
        return effect, self.search.alternative(effect, False) if self.branching else -1

    def _effects(self, codes: list[int]) -> set[int]:
        """Every effect the cards may have in registers 4-5 (nothing: a Power Up, an unknown
        card or an empty register), reveal choices, sidesteps and Crab Legs pairs included
        (what Again repeats is one of them)."""
        effects = {E_NOOP, *self.effect_of, *self.other_of} - {-1}
        return effects | {effect for _move1, _rotation, effect, _mark in self.pairs}

    def prune(
        self, r: int, s: int, cp: int, last: int, dmg: int, en: int, acc: float, extra: float
    ) -> int:
        """Before register ``r`` + 1 (0-based ``r`` >= :attr:`first`) is searched from state
        ``s`` (the search's ``rec`` arguments): the number of leaves below when no program
        there can beat ``worst``, else -1."""
        counts = self.counts
        if self.again >= 0 and counts[self.again] and last not in self.bounded_last:
            return -1
        left = LAST_REGISTER - r
        floor = self.cached[r + 1].get(s * self.stride + cp) or self.floors.floor(r + 1, s, cp)
        low, most_damage, most_energy, ends = floor
        energy = en + most_energy + left * self.power_gain
        if self.bonus_keys:
            extra += self.cheapest * min(left, sum(counts[k] for k in self.bonus_keys))
        bound = (
            low
            + self.w_early * acc
            + self.w_damage * (dmg - self.repair_slack)
            - self.w_energy * (energy if energy < self.room else self.room)
            + extra
        )
        if bound - BOUND_MARGIN < self.worst[0]:
            return -1
        if self.classic and self.damage0 + dmg + most_damage >= 10:
            return -1  # the robot may be destroyed: scored on another scale
        return self._last_leaves(last) if left == 1 else self._last_two_leaves(ends, last)

    def _again(self, last: int) -> tuple[int, int]:
        """What Again does after ``last``: its effect and the other outcome (-1: none)."""
        effect = resolve_code(sim.C_AGAIN, last, LAST_REGISTER)
        return effect, self.search.alternative(effect, True) if self.branching else -1

    def _last_leaves(self, last: int) -> int:
        counts = self.counts
        n = len(counts) - counts.count(0)
        for k in self.other_keys:
            if counts[k]:
                n += 1
        again = self.again
        if self.branching and again >= 0 and counts[again] and self._again(last)[1] >= 0:
            n += 1
        for move1, rotation, _effect, _mark in self.pairs:
            if counts[move1] and counts[rotation]:
                n += 1
        if self.empties[0] > 0:
            n += 1
        return n

    def _last_two_leaves(self, ends: frozenset[int], last: int) -> int:
        counts = self.counts
        if self.simple and not (ends or self.empties[0]):
            kinds = len(counts) - counts.count(0)
            return kinds * kinds - counts.count(1)  # a type played in register 4 may run out
        again = self.again
        # ``last`` matters only for what Again repeats.
        repeats = self._again(last)[0] if again >= 0 and counts[again] else -1
        key = (tuple(counts), self.empties[0], repeats, ends)
        n = self._two_leaves.get(key)
        if n is None:
            n = self._two_leaves[key] = self._count_last_two(ends, last)
        return n

    def _count_last_two(self, ends: frozenset[int], last: int) -> int:
        counts = self.counts
        n = 0
        for k, count in enumerate(counts):
            if not count:
                continue
            if k == self.again:
                effect, other = self._again(last)
            else:
                effect, other = self.effect_of[k], self.other_of[k]
            counts[k] -= 1
            n += self._leaves_after(effect, ends)
            if other >= 0:
                n += self._leaves_after(other, ends)
            counts[k] += 1
        for move1, rotation, effect, _mark in self.pairs:
            if counts[move1] and counts[rotation]:
                self._take(move1, rotation, -1)
                n += self._leaves_after(effect, ends)
                self._take(move1, rotation, 1)
        if self.empties[0] > 0:
            self._take(-1, -1, -1)
            n += self._leaves_after(E_NOOP, ends)
            self._take(-1, -1, 1)
        return n

    def _leaves_after(self, effect: int, ends: frozenset[int]) -> int:
        """The leaves once register 4 did ``effect`` (the cards it took already taken): one if
        it ends the program, else the last register's. The effect stands for what the search
        passes on to Again there: a Power Up, an unknown card, nothing and an empty register
        all resolve to no effect, and none of them has another outcome."""
        return 1 if effect in ends else self._last_leaves(effect)

    def _take(self, first: int, second: int, sign: int) -> None:
        """Take (sign -1) or give back (+1) the cards of one way to fill a register."""
        if first < 0:
            self.empties[0] += sign
            return
        self.counts[first] += sign
        if second >= 0:
            self.counts[second] += sign
