"""The planner bot: it tries every distinct program its hand allows and plays the best one.

For the programming decision the planner enumerates every distinct program (all orderings of
5 of the hand's cards, deduplicated by card type; damage cards, Haywires and locked registers
included) as a depth-first search over the registers, so that programs sharing a prefix share
its simulation; the last two registers are skipped (only counted) where a lower bound shows that
none of their programs can beat the best found (:mod:`roborally.bots.bounds`). Its own robot is
simulated alone, register by register, with the cached transitions of
:class:`~roborally.bots.sim.BoardModel` (the card's move, then every board element of that
register), and each program's end is scored:

* progress: the distance field to the next checkpoint and on through the remaining ones (in
  registers), including checkpoints claimed during the program (the last one wins the game);
* a fall (pit or edge): the reboot space's distance plus a penalty and the reboot damage;
* damage from board lasers, energy gained, SPAM programmed (it leaves the deck), and a small
  term for progress made early in the round (robust against pushes later on).

A SPAM (or a card the bot cannot know) is scored as doing nothing plus the expected change of
the register it occupies over the cards left in the deck.

The other decisions (start space, shutdown, reboot facing, Haywire sidesteps and card order,
upgrade phase, the classic power down, re-entry and option-card questions) use the same
distance field. The bot sees only its seat's observation; the board comes from the course id.
"""

from __future__ import annotations

import random
import time
from collections import Counter
from dataclasses import dataclass, field
from functools import cache
from typing import Any

from roborally.bots.bounds import Pruner
from roborally.bots.common import DECK_2023, GOOD_UPGRADES, BotError, register_code
from roborally.bots.sim import (
    C_AGAIN,
    C_EMPTY,
    C_POWER,
    C_SIDE2,
    C_TWO,
    C_UNKNOWN,
    E_BACK,
    E_BACK2,
    E_CRAB_L,
    E_CRAB_R,
    E_LEFT,
    E_LEFT_M1,
    E_MOVE1,
    E_MOVE3,
    E_MOVE4,
    E_NOOP,
    E_RIGHT,
    E_RIGHT_M1,
    E_SIDE_L,
    E_SIDE_R,
    NE,
    BoardModel,
    board_model,
    card_code,
    card_type,
    family_of,
)
from roborally.bots.upgrade_play import choose_upgrade, weapon
from roborally.engine.core.board import Course, default_start_facing
from roborally.engine.core.decisions import TIMEOUT, Decision, DecisionKind
from roborally.engine.core.geometry import Direction, Pos

NUM_REGISTERS = 5
MAX_ENERGY = 10
INF_COST = float("inf")

#: The classic 84-card deck by type (counts; priorities differ per card).
DECK_CLASSIC = {
    "u_turn": 6,
    "rotate_left": 18,
    "rotate_right": 18,
    "back_up": 6,
    "move1": 18,
    "move2": 12,
    "move3": 6,
}


@dataclass(frozen=True)
class Weights:
    """How the planner trades progress (in registers) against everything else."""

    damage: float = 0.6  # per damage card taken (2023)
    classic_damage: float = 1.1  # per damage token (classic: smaller hands, locked registers)
    energy: float = 0.12  # per energy gained (2023, not in the lighter game)
    early: float = 0.04  # per register of distance left after each register (favours early)
    fall: float = 6.0  # a reboot, on top of its damage and the reboot space's distance
    destroy: float = 7.0  # classic: a destroyed robot loses a life and its option cards
    last_life: float = 40.0  # classic: losing the last life
    spam: float = 0.45  # per SPAM programmed (it leaves the deck for good)
    win: float = 1000.0


@dataclass
class Candidate:
    cost: float
    program: tuple[str | None, ...]
    start: int  # the start state (cell * 4 + facing)


@dataclass
class SearchResult:
    """What one program search found (``programs``: distinct programs covered)."""

    best: Candidate
    top: list[Candidate]
    programs: int
    leaves: int
    seconds: float


@dataclass
class Me:
    """The facts about the bot's own robot that the planner uses (from the observation)."""

    seat: int
    pos: Pos | None
    facing: Direction
    reached: int
    energy: int
    archive: Pos | None
    reentry: Pos | None
    damage: int = 0  # classic damage tokens
    lives: int = 3
    hand: list[str] = field(default_factory=list)
    discard: list[str] = field(default_factory=list)
    upgrades: frozenset[str] = frozenset()  # installed upgrade cards (2023)


# =============================================================================== search
class ProgramSearch:
    """Depth-first search over every distinct program of one hand (see the module doc)."""

    #: Skip the subtrees of registers 4-5 that cannot beat the programs kept (the same results;
    #: off, every program is scored, which the tests compare against).
    pruning = True

    def __init__(self, model: BoardModel, me: Me, weights: Weights, variants: frozenset[str]):
        self.model = model
        self.me = me
        self.w = weights
        self.variants = variants
        self.family = model.family
        self.classic = model.family != "2023"
        self.total = len(model.checkpoints)
        self.to_go = [model.to_go(k) for k in range(self.total + 1)]
        self.energy_room = max(0, MAX_ENERGY - me.energy)
        self.w_energy = 0.0 if (self.classic or "lighter" in variants) else weights.energy
        if self.classic:
            self.w_damage = weights.classic_damage * (1.0 + 0.12 * me.damage)
        else:
            self.w_damage = weights.damage
        self.reboot_damage = model.course.reboot_damage
        if self.classic:  # a destroyed robot re-enters with 2 damage (1994: only as a variant)
            self.reboot_damage = 2
            if model.family == "classic-1994" and "worse_backup_copy" not in variants:
                self.reboot_damage = 0
        # Flags repair in the classic editions unless the variant says otherwise.
        self.repair = model.repair_site if "no_flag_repair" in variants else model.repair
        # SPAM left in the hand is discarded anyway in the less-SPAM variant: no reason to play it.
        self.w_spam = 0.0 if "less_spam" in variants else weights.spam
        # Upgrades that change what the robot's own cards do (the bot decides them at reveal).
        ups = me.upgrades if not self.classic else frozenset()
        self.brakes = "brakes" in ups
        self.drifting = "drifting" in ups
        self.power_slide = "power_slide" in ups
        self.chaos = "chaos_theory" in ups
        self.crab_legs = "crab_legs" in ups
        self._fall: dict[tuple[int, int], float] = {}
        self._unknown: dict[tuple[int, int, int], float] = {}
        self.deck = self._deck_estimate()

    # ------------------------------------------------------------------ costs
    def fall_cost(self, board: int, reached: int) -> float:
        """The cost of ending the round off the board after falling from ``board``."""
        key = (board, reached)
        hit = self._fall.get(key)
        if hit is not None:
            return hit
        model = self.model
        to_go = self.to_go[reached]
        cell: int | None = None
        if not self.classic:
            token = model.reboot_cell.get(board)
            dock = 0 <= board < len(model.board_kind) and model.board_kind[board] == "dock"
            if token is not None and not dock:
                cell = token[0]
        if cell is None and self.me.archive is not None:
            cell = model.grid.index(self.me.archive)
        base = 60.0 if cell is None else min(to_go[cell * 4 + f] for f in range(4))
        if self.classic:
            penalty = self.w.destroy + (self.w.last_life if self.me.lives <= 1 else 0.0)
            cost = base + penalty + self.reboot_damage * self.w_damage
        else:
            cost = base + self.w.fall + self.reboot_damage * self.w_damage
        self._fall[key] = cost
        return cost

    def _deck_estimate(self) -> list[tuple[int, float]]:
        """The regular cards an unknown replacement may be, with their probabilities."""
        if self.classic:
            counts = Counter(DECK_CLASSIC)
        else:
            counts = Counter(DECK_2023)
            seen = Counter(n for n in self.me.hand + self.me.discard if n in DECK_2023)
            left = counts - seen
            if sum(left.values()) >= 3:
                counts = left
        total = sum(counts.values())
        codes: Counter[int] = Counter()
        for name, n in counts.items():
            code = card_code(name, self.family)
            if code in (C_POWER, C_AGAIN):
                code = E_NOOP
            codes[code] += n
        return [(code, n / total) for code, n in sorted(codes.items())]

    def unknown_adjust(self, register: int, state: int, reached: int) -> float:
        """Expected change of one register's outcome if an unknown card replaces a no-op."""
        key = (register, state, reached)
        hit = self._unknown.get(key)
        if hit is not None:
            return hit
        step = self.model.step
        to_go = self.to_go

        def outcome(effect: int) -> float:
            s2, damage, _energy, passed = step(register, state, effect)
            if s2 < 0:
                return self.fall_cost(-1 - s2, reached)
            return to_go[self._advance(s2, reached, passed)][s2] + damage * self.w_damage

        base = outcome(E_NOOP)
        expected = sum(p * outcome(code) for code, p in self.deck)
        value = expected - base
        self._unknown[key] = value
        return value

    def _advance(self, state: int, reached: int, passed: tuple[int, ...]) -> int:
        for number in passed:
            if number == reached + 1:
                reached += 1
        if self.model.cp_at[state >> 2] == reached + 1:
            reached += 1
        return min(reached, self.total)

    # ------------------------------------------------------------------- search
    def search(
        self,
        hand: list[str],
        locked: list[str | None] | None,
        starts: list[int],
        top: int = 1,
        forced: list[str] | None = None,
        first_kinds: set[str] | None = None,
        pairs: bool = False,
    ) -> SearchResult:
        """Evaluate every distinct program of ``hand``; ``locked[r]`` is the card that stays in
        register r+1 (``None``: open). ``starts`` are the possible start states (several when
        the robot re-enters and may choose its facing). ``first_kinds`` restricts register 1
        to those card types (classic-1994). ``pairs``: Crab Legs pairs (a Move 1 with a
        rotation in one register) may be programmed. Returns the best ``top`` candidates.

        Brakes, Drifting and Power Slide are choices made when the card is revealed, so a
        register they apply to costs the better of its two outcomes."""
        began = time.perf_counter()
        model = self.model
        family = self.family
        w = self.w
        total = self.total
        to_go = self.to_go
        tables = model.tables
        step = model.step
        cp_at = model.cp_at
        track = model.track
        w_damage = self.w_damage
        w_energy = self.w_energy
        w_early = w.early
        room = self.energy_room
        classic = self.classic
        damage0 = self.me.damage
        repair = self.repair
        brakes, drifting, power_slide, chaos = (
            self.brakes,
            self.drifting,
            self.power_slide,
            self.chaos,
        )
        branching = brakes or drifting or power_slide

        # Hand cards grouped by type (classic names carry priorities: higher ones first).
        groups: dict[str, list[str]] = {}
        for name in hand:
            groups.setdefault(card_type(name) if classic else name, []).append(name)
        for names in groups.values():
            names.sort(key=_priority, reverse=True)
        keys = sorted(groups)
        nk = len(keys)
        codes = [card_code(groups[k][0], family) for k in keys]
        counts = [len(groups[k]) for k in keys]
        bonus = [(-self.w_spam if (not classic and k == "spam") else 0.0) for k in keys]
        # Crab Legs: a Move 1 and a rotation share a register (marks -3 left, -4 right).
        crab = []
        if pairs and self.crab_legs and "move1" in groups:
            move1 = keys.index("move1")
            for rotation, effect, mark in (
                ("rotate_left", E_CRAB_L, -3),
                ("rotate_right", E_CRAB_R, -4),
            ):
                if rotation in groups:
                    crab.append((move1, keys.index(rotation), effect, mark))
        locked_codes: list[int | None] = [None] * NUM_REGISTERS
        if locked:
            for r, fixed in enumerate(locked):
                if fixed is not None:
                    locked_codes[r] = card_code(fixed, family)
        open_slots = sum(1 for c in locked_codes if c is None)
        n_fill = min(open_slots, len(hand))
        empties = [open_slots - n_fill]
        forced_keys = [keys.index(k) for k in (forced or []) if k in groups]
        first_allowed = (
            [i for i, k in enumerate(keys) if k in first_kinds] if first_kinds is not None else None
        )
        LAST = NUM_REGISTERS - 1
        prog = [-2] * NUM_REGISTERS  # hand group per register; -1: empty; -2: locked
        keep = max(1, top)
        # (cost, leaf number, program, start, trajectory)
        best: list[tuple[float, int, tuple[int, ...], int, tuple[int, ...]]] = []
        traj = [0] * NUM_REGISTERS  # the state after each register on the current path
        worst = [INF_COST]  # the cost a leaf must beat to enter ``best``
        leaves = [0]
        start_state = [0]
        fall_cost = self.fall_cost
        unknown_adjust = self.unknown_adjust
        advance_passed = self.advance_passed
        priority = forced_keys + [k for k in range(nk) if k not in forced_keys]

        def record(cost: float, upto: int) -> None:
            """A program's cost; registers from ``upto`` on are filled with what is left."""
            chosen = list(prog)
            if upto < NUM_REGISTERS:
                left = list(counts)
                for i in range(upto, NUM_REGISTERS):
                    if locked_codes[i] is not None:
                        chosen[i] = -2
                        continue
                    k = next((j for j in priority if left[j]), -1)
                    chosen[i] = k
                    if k >= 0:
                        left[k] -= 1
                if forced_keys and any(left[k] for k in forced_keys):
                    return
            elif forced_keys and any(counts[k] for k in forced_keys):
                return
            if keep > 1:  # keep one program per trajectory (the states after each register)
                key = (start_state[0], *traj[:upto])
                for i, entry in enumerate(best):
                    if entry[4] == key:
                        if entry[0] <= cost:
                            return
                        del best[i]
                        break
            else:
                key = ()
            best.append((cost, leaves[0], tuple(chosen), start_state[0], key))
            best.sort()
            del best[keep:]
            if len(best) >= keep:
                worst[0] = best[-1][0]

        def go(
            r: int,
            s: int,
            cp: int,
            last: int,
            code: int,
            dmg: int,
            en: int,
            acc: float,
            extra: float,
        ) -> None:
            """Play card ``code`` in register r+1 from state s, then continue the search."""
            again = code == C_AGAIN
            if again:
                code = C_UNKNOWN if r == 0 else (E_NOOP if last == C_EMPTY else last)
            if code >= NE:
                if code == C_POWER:
                    en += 1
                    effect = E_NOOP
                    last_next = C_POWER
                elif code in (C_UNKNOWN, C_TWO):
                    extra += unknown_adjust(r + 1, s, cp) * (2 if code == C_TWO else 1)
                    if chaos and r < 3 and code == C_UNKNOWN and not again:
                        en += 1  # Chaos Theory: a SPAM revealed in registers 1-3
                    effect = E_NOOP
                    last_next = C_UNKNOWN
                elif code == C_SIDE2:
                    go(r, s, cp, last, E_SIDE_L, dmg, en, acc, extra)
                    go(r, s, cp, last, E_SIDE_R, dmg, en, acc, extra)
                    return
                else:  # an empty register
                    effect = E_NOOP
                    last_next = C_EMPTY
            else:
                effect = code
                last_next = code
                if branching:  # the other outcome of a reveal choice (never branches again)
                    if effect == E_MOVE1:
                        if brakes and not again:  # Again after a Move 1 cannot brake
                            go(r, s, cp, last, E_NOOP, dmg, en, acc, extra)
                    elif effect == E_LEFT:
                        if drifting:
                            go(r, s, cp, last, E_LEFT_M1, dmg, en, acc, extra)
                    elif effect == E_RIGHT and power_slide:
                        go(r, s, cp, last, E_RIGHT_M1, dmg, en, acc, extra)
            res = tables[r + 1][s * NE + effect]
            if res is None:
                res = step(r + 1, s, effect)
            s2, d, e, passed = res
            dmg += d
            en += e
            traj[r] = s2
            if s2 < 0:
                if track and passed:
                    cp = advance_passed(cp, passed)
                leaves[0] += 1
                off = fall_cost(-1 - s2, cp)
                cost = off + w_early * (acc + (NUM_REGISTERS - r) * off) + w_damage * dmg + extra
                if cost < worst[0]:
                    record(cost, r + 1)
                return
            if track and passed:
                cp = advance_passed(cp, passed)
            if cp_at[s2 >> 2] == cp + 1:
                cp += 1
            if cp >= total:
                leaves[0] += 1
                cost = r + 1 - win + w_damage * dmg + extra
                if cost < worst[0]:
                    record(cost, r + 1)
                return
            if r == NUM_REGISTERS - 1:
                leaves[0] += 1
                if classic:
                    if damage0 + dmg >= 10:
                        cost = fall_cost(model.grid.board_of[s2 >> 2], cp) + extra
                        if cost < worst[0]:
                            record(cost, NUM_REGISTERS)
                        return
                    if repair[s2 >> 2] and damage0 + dmg > 0:
                        dmg -= 1
                gained = en if en < room else room
                cost = (
                    to_go[cp][s2]
                    + w_early * (acc + to_go[cp][s2])
                    + w_damage * dmg
                    - w_energy * gained
                    + extra
                )
                if cost < worst[0]:
                    record(cost, NUM_REGISTERS)
                return
            rec(r + 1, s2, cp, last_next, dmg, en, acc + to_go[cp][s2], extra)

        last_table = tables[NUM_REGISTERS]
        board_of = model.grid.board_of

        # Subtrees of registers 4 and 5 that cannot beat ``worst`` are only counted (see
        # roborally.bots.bounds): same leaf numbers, same results.
        pruner = Pruner(self, codes, bonus, counts, empties, crab, worst, locked_codes)
        prune = pruner.prune
        prune_from = pruner.first if self.pruning else NUM_REGISTERS

        def leaf(
            s: int, cp0: int, last: int, dmg0: int, en0: int, acc: float, extra: float
        ) -> None:
            """The last register's cards from state s: ``go`` inlined for the plain effects
            (same arithmetic, same order, so the same costs and the same ties)."""
            base = s * NE
            r = LAST
            for k in range(nk):
                if not counts[k]:
                    continue
                code = codes[k]
                ex = extra + bonus[k]
                gain = 0
                if code >= NE:
                    if code == C_POWER:
                        code = E_NOOP
                        gain = 1
                    elif code == C_AGAIN and last < NE:
                        code = last
                    elif code == C_AGAIN and last == C_EMPTY:
                        code = E_NOOP
                    else:  # unknown cards, Again after a Power Up or an unknown card
                        counts[k] -= 1
                        prog[r] = k
                        go(r, s, cp0, last, code, dmg0, en0, acc, ex)
                        counts[k] += 1
                        continue
                res = last_table[base + code]
                if res is None:
                    res = step(NUM_REGISTERS, s, code)
                s2, d, e, passed = res
                dmg = dmg0 + d
                cp = cp0
                leaves[0] += 1
                if s2 < 0:
                    if track and passed:
                        cp = advance_passed(cp, passed)
                    off = fall_cost(-1 - s2, cp)
                    cost = off + w_early * (acc + (NUM_REGISTERS - r) * off) + w_damage * dmg + ex
                else:
                    if track and passed:
                        cp = advance_passed(cp, passed)
                    if cp_at[s2 >> 2] == cp + 1:
                        cp += 1
                    if cp >= total:
                        cost = r + 1 - win + w_damage * dmg + ex
                    elif classic and damage0 + dmg >= 10:
                        cost = fall_cost(board_of[s2 >> 2], cp) + ex
                    else:
                        if classic and repair[s2 >> 2] and damage0 + dmg > 0:
                            dmg -= 1
                        en = en0 + gain + e
                        gained = en if en < room else room
                        here = to_go[cp][s2]
                        cost = (
                            here + w_early * (acc + here) + w_damage * dmg - w_energy * gained + ex
                        )
                if cost < worst[0]:
                    counts[k] -= 1
                    prog[r] = k
                    traj[r] = s2
                    record(cost, NUM_REGISTERS)
                    counts[k] += 1

        def rec(
            r: int, s: int, cp: int, last: int, dmg: int, en: int, acc: float, extra: float
        ) -> None:
            lk = locked_codes[r]
            if lk is not None:
                prog[r] = -2
                go(r, s, cp, last, lk, dmg, en, acc, extra)
                return
            if r >= prune_from and worst[0] < INF_COST:
                pruned = prune(r, s, cp, last, dmg, en, acc, extra)
                if pruned >= 0:
                    leaves[0] += pruned
                    return
            only_first = r == 0 and first_allowed is not None
            if r == LAST and not branching:
                leaf(s, cp, last, dmg, en, acc, extra)
            else:
                for k in first_allowed if only_first and first_allowed is not None else range(nk):
                    if counts[k]:
                        counts[k] -= 1
                        prog[r] = k
                        go(r, s, cp, last, codes[k], dmg, en, acc, extra + bonus[k])
                        counts[k] += 1
            if crab and not only_first:
                for move1, rotation, effect, mark in crab:
                    if counts[move1] and counts[rotation]:
                        counts[move1] -= 1
                        counts[rotation] -= 1
                        prog[r] = mark
                        go(r, s, cp, last, effect, dmg, en, acc, extra)
                        counts[move1] += 1
                        counts[rotation] += 1
            if empties[0] > 0 and not only_first:
                empties[0] -= 1
                prog[r] = -1
                go(r, s, cp, last, C_EMPTY, dmg, en, acc, extra)
                empties[0] += 1

        win = w.win
        for start in starts:
            start_state[0] = start
            rec(0, start, min(self.me.reached, total), C_EMPTY, 0, 0, 0.0, 0.0)
        if not best and first_allowed is not None:
            first_allowed = None  # no card of the required kind: any card then
            for start in starts:
                start_state[0] = start
                rec(0, start, min(self.me.reached, total), C_EMPTY, 0, 0, 0.0, 0.0)

        candidates = [
            Candidate(cost, self._program(chosen, groups, keys, locked_codes), start)
            for cost, _n, chosen, start, _key in best
        ]
        if not candidates:
            raise BotError("no program found")
        pair_groups = tuple((m, rot) for m, rot, _effect, _mark in crab)
        programs = _count_programs(tuple(counts), open_slots - n_fill, open_slots, pair_groups)
        return SearchResult(
            candidates[0],
            candidates,
            programs * len(starts),
            leaves[0],
            time.perf_counter() - began,
        )

    def advance_passed(self, cp: int, passed: tuple[int, ...]) -> int:
        """The checkpoints reached after moving across ``passed`` (classic-1994), in order."""
        for number in passed:
            if number == cp + 1:
                cp += 1
        return cp

    def _program(
        self,
        chosen: tuple[int, ...],
        groups: dict[str, list[str]],
        keys: list[str],
        locked_codes: list[int | None],
    ) -> tuple[str | None, ...]:
        pools = {k: list(v) for k, v in groups.items()}
        program: list[str | None] = []
        for r, k in enumerate(chosen):
            if k in (-3, -4):  # a Crab Legs pair
                rotation = "rotate_left" if k == -3 else "rotate_right"
                pools["move1"].pop(0)
                pools[rotation].pop(0)
                program.append(f"move1+{rotation}")
            elif locked_codes[r] is not None or k < 0:
                program.append(None)
            else:
                program.append(pools[keys[k]].pop(0))
        return tuple(program)

    # ------------------------------------------------------------ fixed sequences
    def evaluate(
        self,
        start: int,
        first_register: int,
        codes: list[int],
        reached: int,
        last: int = C_EMPTY,
        bonus: float = 0.0,
        decided: int = 0,
    ) -> float:
        """The cost of playing card ``codes`` in registers ``first_register``.. from state
        ``start``, scored exactly as the search scores a program (``bonus``: program terms
        such as SPAM programmed). Brakes, Drifting and Power Slide are taken where they help,
        except in the first ``decided`` registers (their choice is already made)."""
        return self._sequence(
            start, first_register, codes, reached, last, 0, 0, 0.0, bonus, decided
        )

    def alternative(self, effect: int, again: bool) -> int:
        """The other outcome an upgrade offers for ``effect`` at reveal (-1: none)."""
        if effect == E_MOVE1 and self.brakes and not again:
            return E_NOOP
        if effect == E_LEFT and self.drifting:
            return E_LEFT_M1
        if effect == E_RIGHT and self.power_slide:
            return E_RIGHT_M1
        return -1

    def _sequence(
        self,
        s: int,
        r: int,
        codes: list[int],
        cp: int,
        last: int,
        dmg: int,
        en: int,
        acc: float,
        extra: float,
        decided: int = 0,
    ) -> float:
        """``codes[0]`` in register ``r`` (1-based) from state ``s``, then the rest."""
        model = self.model
        w = self.w
        w_damage = self.w_damage
        cp = min(cp, self.total)
        for offset, code in enumerate(codes):
            reg = r + offset
            again = code == C_AGAIN
            if again:
                code = C_UNKNOWN if reg == 1 else (E_NOOP if last == C_EMPTY else last)
            if offset >= decided and code < NE:
                alt = self.alternative(code, again)
                if alt >= 0:
                    rest = codes[offset + 1 :]
                    return min(
                        self._sequence(s, reg, [e, *rest], cp, last, dmg, en, acc, extra, 1)
                        for e in (code, alt)
                    )
            if code == C_POWER:
                en += 1
                effect, last = E_NOOP, C_POWER
            elif code in (C_UNKNOWN, C_TWO):
                extra += self.unknown_adjust(reg, s, cp) * (2 if code == C_TWO else 1)
                if self.chaos and reg <= 3 and code == C_UNKNOWN and not again:
                    en += 1
                effect, last = E_NOOP, C_UNKNOWN
            elif code == C_SIDE2:
                rest = codes[offset + 1 :]
                return min(
                    self._sequence(s, reg, [side, *rest], cp, last, dmg, en, acc, extra)
                    for side in (E_SIDE_L, E_SIDE_R)
                )
            elif code >= NE:  # an empty register
                effect, last = E_NOOP, C_EMPTY
            else:
                effect, last = code, code
            s2, d, e, passed = model.step(reg, s, effect)
            dmg += d
            en += e
            if s2 < 0:
                if model.track and passed:
                    cp = self.advance_passed(cp, passed)
                off = self.fall_cost(-1 - s2, cp)
                early = w.early * (acc + (NUM_REGISTERS + 1 - reg) * off)
                return off + early + w_damage * dmg + extra
            cp = self._advance(s2, cp, passed)
            if cp >= self.total:
                return reg - w.win + w_damage * dmg + extra
            s = s2
            if reg == NUM_REGISTERS:
                break
            acc += self.to_go[cp][s]
        if self.classic:
            if self.me.damage + dmg >= 10:
                return self.fall_cost(model.grid.board_of[s >> 2], cp) + extra
            if self.repair[s >> 2] and self.me.damage + dmg > 0:
                dmg -= 1
        gained = min(en, self.energy_room)
        here = self.to_go[cp][s]
        return here + w.early * (acc + here) + w_damage * dmg - self.w_energy * gained + extra


@cache
def _count_programs(
    counts: tuple[int, ...],
    empties: int,
    slots: int,
    pairs: tuple[tuple[int, int], ...] = (),
) -> int:
    """Distinct sequences filling ``slots`` registers from a multiset plus ``empties`` blanks
    (``counts`` here are what is left after the search, i.e. the full hand again); a register
    may also take one of ``pairs`` (two groups' cards at once: Crab Legs)."""
    items = (*counts, empties)

    @cache
    def ways(left: tuple[int, ...], n: int) -> int:
        if n == 0:
            return 1
        total = 0
        for i, c in enumerate(left):
            if c:
                nxt = list(left)
                nxt[i] -= 1
                total += ways(tuple(nxt), n - 1)
        for a, b in pairs:
            if left[a] and left[b]:
                nxt = list(left)
                nxt[a] -= 1
                nxt[b] -= 1
                total += ways(tuple(nxt), n - 1)
        return total

    return ways(items, slots)


def _priority(name: str) -> int:
    _, _, tail = name.partition("@")
    return int(tail) if tail.isdigit() else 0


# ================================================================================= bot
_COURSES: dict[str, Course] = {}


def register_course(course: Course) -> None:
    """Let the bots find a course that is not shipped (they look courses up by name)."""
    _COURSES[course.name] = course


def course_for(name: str) -> Course:
    course = _COURSES.get(name)
    if course is not None:
        return course
    from roborally.content.courses import find_course

    try:
        return find_course(name).course
    except ValueError as error:
        raise BotError(str(error)) from None


#: Classic option cards by value to the bots, least valuable first (lost first).
OPTION_VALUE = (
    "recompile",
    "abort_switch",
    "conditional_program",
    "gyroscopic_stabilizer",
    "scrambler",
    "radio_control",
    "fire_control",
    "tractor_beam",
    "pressor_beam",
    "mini_howitzer",
    "rear_firing_laser",
    "brakes",
    "reverse_gear",
    "fourth_gear",
    "circuit_breaker",
    "crab_legs",
    "dual_processor",
    "mechanical_arm",
    "flywheel",
    "double_barreled_laser",
    "high_power_laser",
    "ramming_gear",
    "extra_memory",
    "superior_archive",
    "power_down_shield",
    "ablative_coat",
)
_CARD_RANK = ("move3", "move2", "move1", "u_turn", "rotate_right", "rotate_left", "back_up")


class PlannerBot:
    """Plays the best program of every distinct program its hand allows (see the module doc).

    ``course`` and ``variants`` may be given for games on courses the bot cannot look up by
    name, or when the observation does not list the game's variants.
    """

    name = "planner"

    def __init__(
        self,
        seed: int = 0,
        course: Course | None = None,
        variants: frozenset[str] | None = None,
        weights: Weights | None = None,
    ) -> None:
        self.seed = seed
        self.rng = random.Random(seed)
        self.course = course
        self.variants = variants
        self.weights = weights or Weights()
        self.last_search: SearchResult | None = None
        self._facing: dict[int, Direction] = {}  # round -> planned re-entry facing
        self._program_cost: dict[int, float] = {}  # round -> best program cost
        self._classic_damage = 0
        self.decisions = 0
        self.fallbacks = 0  # decisions answered safely because the game could not be modelled
        self.errors: list[str] = []  # unexpected exceptions (answered safely too)
        self.strict = False  # re-raise unexpected exceptions (tests)

    # -------------------------------------------------------------- observation
    def model_for(self, obs: dict[str, Any], seat: int | None = None) -> BoardModel:
        """The board model for the robot in ``seat`` (default: the bot's own); a robot with a
        Hover Unit gets a model in which its cards carry it over pits."""
        name = obs["course"]
        course = self.course if self.course is not None and self.course.name == name else None
        if course is None:
            course = course_for(name)
        variants = self._variants(obs)
        family = family_of(obs.get("edition", "2023"))
        if seat is None:
            seat = obs.get("seat")
        hover = False
        if family == "2023" and seat is not None:
            hover = "hover_unit" in (obs["players"][seat].get("upgrades") or ())
        model = board_model(course, family, variants, hover)
        seen = [tuple(p) for p in obs.get("checkpoints", []) if p is not None]
        if seen and seen != [tuple(p) for p in model.grid.checkpoints]:
            raise BotError(f"course {name!r} does not match the game's checkpoints")
        return model

    def _variants(self, obs: dict[str, Any]) -> frozenset[str]:
        if self.variants is not None:
            return frozenset(self.variants)
        return frozenset(obs.get("variants") or ())

    def me(self, obs: dict[str, Any], seat: int | None = None) -> Me:
        if seat is None:
            seat = obs["seat"]
        assert seat is not None
        p = obs["players"][seat]
        classic = p.get("classic") or {}
        hand = p["hand"] if isinstance(p["hand"], list) else []
        damage = classic.get("damage")
        if damage is None:
            damage = self._classic_damage if family_of(obs.get("edition", "2023")) != "2023" else 0
        return Me(
            seat=seat,
            pos=_pos(p.get("pos")),
            facing=Direction.parse(p.get("facing", "N")),
            reached=int(p.get("checkpoint", 0)),
            energy=int(p.get("energy", 0)),
            archive=_pos(p.get("archive")),
            reentry=_pos(p.get("reentry")),
            damage=int(damage),
            lives=int(classic.get("lives", 3)),
            hand=list(hand),
            discard=list(p.get("discard", [])),
            upgrades=frozenset(p.get("upgrades") or ()),
        )

    def searcher(self, obs: dict[str, Any], seat: int | None = None) -> ProgramSearch:
        model = self.model_for(obs, seat)
        return ProgramSearch(model, self.me(obs, seat), self.weights, self._variants(obs))

    # -------------------------------------------------------------------- choose
    def choose(self, observation: dict[str, Any], decision: Decision) -> Any:
        """Answer one decision from the seat's observation (never the full game state)."""
        self.decisions += 1
        try:
            choice = self._choose(observation, decision)
        except BotError:
            self.fallbacks += 1
            choice = self._fallback(decision)
        except Exception as error:  # a bot must not stop a game: note it, play safe
            if self.strict:
                raise
            self.errors.append(f"{decision.id}: {error!r}")
            choice = self._fallback(decision)
        return choice

    def _choose(self, obs: dict[str, Any], decision: Decision) -> Any:
        kind = decision.kind
        if kind is DecisionKind.START_SPACE or kind is DecisionKind.BLOCK_START:
            return self.choose_start(obs, decision, block=kind is DecisionKind.BLOCK_START)
        answer = {
            DecisionKind.PROGRAM: self.choose_program,
            DecisionKind.SHUTDOWN: self.choose_shutdown,
            DecisionKind.POWER_DOWN: self.choose_power,
            DecisionKind.REBOOT_FACING: self.choose_placement,
            DecisionKind.SIDESTEP: self.choose_sidestep,
            DecisionKind.CHOICE: self.choose_classic_option,
            DecisionKind.CARD_ORDER: self.choose_card_order,
            DecisionKind.UPGRADE_PHASE: self.choose_upgrade_phase,
            DecisionKind.UPGRADE: self.choose_upgrade,
        }.get(kind)
        if answer is None:  # a kind added later: its first option is a safe default
            return self._fallback(decision)
        return answer(obs, decision)

    def choose_upgrade(self, obs: dict[str, Any], decision: Decision) -> Any:
        """An upgrade question during a round (see :mod:`roborally.bots.upgrade_play`)."""
        return choose_upgrade(self, obs, decision)

    def _fallback(self, decision: Decision) -> Any:
        """A safe legal answer: a random program, or the decision's first option."""
        if decision.kind is DecisionKind.PROGRAM:
            return random_program(decision, self.rng)
        if decision.options:
            return decision.options[0]
        return TIMEOUT

    # ------------------------------------------------------------------ programs
    def plan(
        self,
        obs: dict[str, Any],
        decision: Decision,
        top: int = 1,
        usable: list[str] | None = None,
    ) -> SearchResult:
        """Search every distinct program for this program decision (``usable``: the part of the
        hand the search may use; default: all of it)."""
        search = self.searcher(obs)
        me = search.me
        info = decision.info
        hand = list(info.get("hand", []))
        locked_regs = set(info.get("locked", []))
        own = obs["players"][me.seat]
        locked: list[str | None] = [None] * NUM_REGISTERS
        for r in range(NUM_REGISTERS):
            if r + 1 in locked_regs:
                cards = own["registers"][r].get("cards") if r < len(own["registers"]) else None
                locked[r] = (cards[0] if cards else "spam") or "spam"
        if search.classic and me.damage == 0 and not (own.get("classic") or {}):
            self._classic_damage = max(0, 9 - len(hand))
            search.me.damage = self._classic_damage
        starts = self.start_states(search.model, me)
        if not starts:
            raise BotError("the robot is nowhere")
        return search.search(
            hand if usable is None else list(usable),
            locked,
            starts,
            top=top,
            forced=info.get("forced"),
            pairs=bool(info.get("pairs")),
        )

    def start_states(self, model: BoardModel, me: Me) -> list[int]:
        if me.pos is not None:
            return [model.grid.index(me.pos) * 4 + int(me.facing)]
        where = me.reentry or me.archive
        if where is None:
            return []
        return [model.grid.index(where) * 4 + f for f in range(4)]

    def choose_program(self, obs: dict[str, Any], decision: Decision) -> Any:
        result = self.plan(obs, decision)
        return self.commit(obs, result.best, result)

    def commit(self, obs: dict[str, Any], best: Candidate, result: SearchResult) -> Any:
        self.last_search = result
        rnd = int(obs.get("round", 0))
        if obs["players"][obs["seat"]].get("pos") is None:  # it re-enters in register 1
            self._facing[rnd] = Direction(best.start & 3)
        self._program_cost[rnd] = best.cost
        return best.program

    # ------------------------------------------------------------- placements
    def choose_start(self, obs: dict[str, Any], decision: Decision, block: bool) -> Any:
        model = self.model_for(obs)
        to_go = model.to_go(0)
        scored = []
        for number in decision.options:
            space = next((s for s in model.grid.start_spaces if s.number == number), None)
            if space is None:
                continue
            facing = space.facing or default_start_facing(model.grid, space.pos)
            cost = to_go[model.grid.index(space.pos) * 4 + int(facing)]
            scored.append((cost, number))
        if not scored:
            return decision.options[0]
        scored.sort()
        if block and len(scored) > 1:
            return scored[1][1]  # keep the best space for ourselves, deny the next best
        return scored[0][1]

    def choose_placement(self, obs: dict[str, Any], decision: Decision) -> Any:
        """A facing (and in the classic editions maybe a square) to (re-)enter with."""
        me = self.me(obs)
        rnd = int(obs.get("round", 0))
        options = [str(o) for o in decision.options]
        if all(len(o) == 1 for o in options) and rnd in self._facing and not me.pos:
            letter = self._facing[rnd].letter
            if letter in options:
                return letter
        model = self.model_for(obs)
        reached = me.reached
        base = me.reentry or me.archive
        if decision.id.endswith("-facing") and obs.get("checkpoints"):
            base = _pos(obs["checkpoints"][0])  # classic-1994: start on checkpoint 1
            reached = max(reached, 1)
        to_go = model.to_go(min(reached, len(model.checkpoints)))
        best, best_cost = decision.options[0], float("inf")
        for option in decision.options:
            text = str(option)
            where = base
            letter = text
            if " " in text:
                square, letter = text.split()
                where = Pos.parse(square)
            if where is None or letter not in "NESW" or not model.grid.is_on_course(where):
                continue
            cost = to_go[model.grid.index(where) * 4 + int(Direction.parse(letter))]
            if cost < best_cost:
                best, best_cost = option, cost
        return best

    # ------------------------------------------------------------------ shutdown
    def choose_shutdown(self, obs: dict[str, Any], decision: Decision) -> Any:
        """2023: shut down when the damage to clear outweighs this round's progress."""
        me = self.me(obs)
        own = obs["players"][me.seat]
        damage = sum(1 for n in me.hand + me.discard if n not in DECK_2023)
        for register in own.get("registers", []):
            damage += sum(1 for n in register.get("cards") or [] if n not in DECK_2023)
            if register.get("facedown_haywire"):
                damage += 1
        if damage < 4 or me.pos is None:
            return False
        search = self.searcher(obs)
        model = search.model
        start = model.grid.index(me.pos) * 4 + int(me.facing)
        idle = search.evaluate(start, 1, [C_EMPTY] * NUM_REGISTERS, me.reached)
        rnd = int(obs.get("round", 0))
        program = self._program_cost.get(rnd)
        if program is None:
            return False
        relief = 0.9 * damage
        return bool(idle - relief < program)

    def choose_power(self, obs: dict[str, Any], decision: Decision) -> Any:
        """Classic power down questions (announce, stay down, emergency, re-entry)."""
        me = self.me(obs)
        damage = me.damage
        if "stay_down" in decision.id:
            return damage >= 4
        if me.lives <= 1:
            return damage >= 3
        return damage >= 4

    # ------------------------------------------------------------ in the round
    def _remaining(self, obs: dict[str, Any], seat: int, register: int) -> list[int]:
        """The card codes of the registers after ``register`` (1-based)."""
        return [register_code(obs, seat, r) for r in range(register, NUM_REGISTERS)]

    def choose_sidestep(self, obs: dict[str, Any], decision: Decision) -> Any:
        """Haywire "move 2 left or right": the side with the better rest of the program."""
        me = self.me(obs)
        if me.pos is None:
            return decision.options[0]
        search = self.searcher(obs)
        model = search.model
        r = max(1, int(obs.get("register", 1)))
        state = model.grid.index(me.pos) * 4 + int(me.facing)
        rest = self._remaining(obs, me.seat, r)
        best, best_cost = decision.options[0], float("inf")
        for option, effect in (("LEFT", E_SIDE_L), ("RIGHT", E_SIDE_R)):
            if option not in decision.options:
                continue
            cost = search.evaluate(state, r, [effect, *rest], me.reached)
            if cost < best_cost:
                best, best_cost = option, cost
        return best

    def choose_card_order(self, obs: dict[str, Any], decision: Decision) -> Any:
        """Haywire "resolve both drawn cards in the order you choose"."""
        me = self.me(obs)
        cards = list(decision.info.get("cards", []))
        if me.pos is None or len(cards) != 2:
            return decision.options[0]
        search = self.searcher(obs)
        model = search.model
        family = model.family
        r = max(1, int(obs.get("register", 1)))
        state = model.grid.index(me.pos) * 4 + int(me.facing)
        rest = self._remaining(obs, me.seat, r)
        best, best_cost = decision.options[0], float("inf")
        for order in decision.options:
            first, second = (card_code(cards[i], family) for i in order)
            s = state
            fell = False
            for code in (first, second):
                effect = code if code < NE else E_NOOP
                s = model.card(s, effect)[0]
                if s < 0:
                    fell = True
                    break
            if fell:
                cost = search.fall_cost(-1 - s, me.reached)
            else:
                cost = search.evaluate(s, r, [E_NOOP, *rest], me.reached)
            if cost < best_cost:
                best, best_cost = order, cost
        return best

    # ------------------------------------------------------------------ upgrades
    def choose_upgrade_phase(self, obs: dict[str, Any], decision: Decision) -> Any:
        options = [str(o) for o in decision.options]
        energy = int(decision.info.get("energy", self.me(obs).energy))
        installs = [o for o in options if o.startswith("install ")]
        for name in GOOD_UPGRADES:
            if f"install {name}" in installs:
                return f"install {name}"
        deck = int(obs.get("upgrade_deck", 0)) + len(obs.get("upgrade_discard", []))
        reserve = self.me_reserve(obs)
        if "draw" in options and energy >= 3 and reserve < 3 and deck > len(obs["players"]):
            return "draw"
        if "use recharge" in options and energy <= 5:
            return "use recharge"
        if "use rewire" in options:  # face-down Haywires back in the hand: we pick registers
            return "use rewire"
        if "done" in options:
            return "done"
        return decision.options[0]

    @staticmethod
    def me_reserve(obs: dict[str, Any]) -> int:
        reserve = obs["players"][obs["seat"]].get("reserve", [])
        return len(reserve) if isinstance(reserve, list) else int(reserve)

    def choose_classic_option(self, obs: dict[str, Any], decision: Decision) -> Any:
        """The classic editions' other questions (option cards, the 1994 first card)."""
        what = decision.id.rsplit("-", 1)[-1]
        options = [str(o) for o in decision.options]
        if what == "first_card":
            return self.choose_first_card(obs, decision)
        if what in ("brakes", "fourth_gear", "reverse_gear"):
            return self.choose_gear(obs, decision, what)
        if what == "lose_option":
            return min(options, key=lambda o: OPTION_VALUE.index(o) if o in OPTION_VALUE else -1)
        if what == "flywheel":
            cards = [o for o in options if o != "none"]
            if not cards:
                return options[0]
            return min(cards, key=lambda o: _rank(card_type(o)))
        if what == "weapon":
            return weapon(self, obs, decision, options)
        if what == "shield" and "keep" in options:
            # give up the least useful option card when the damage would lock or destroy
            numbers = [int(w) for w in decision.prompt.split() if w.isdigit()]
            coming = numbers[0] if numbers else 1
            cards = [o for o in options if o != "keep"]
            if cards and self.me(obs).damage + coming >= 5:
                return min(cards, key=lambda o: OPTION_VALUE.index(o) if o in OPTION_VALUE else -1)
            return "keep"
        if "no" in options:
            return "no"
        return decision.options[0]

    def choose_first_card(self, obs: dict[str, Any], decision: Decision) -> Any:
        search = self.searcher(obs)
        hand = list(decision.info.get("hand", []))
        moves = {card_type(str(o)) for o in decision.options}
        starts = self.start_states(search.model, search.me)
        if not starts:
            return decision.options[0]
        result = search.search(hand, None, starts, first_kinds=moves)
        first = result.best.program[0]
        if first in decision.options:
            return first
        kind = card_type(first or "")
        same = [o for o in decision.options if card_type(str(o)) == kind]
        return same[0] if same else decision.options[0]

    def choose_gear(self, obs: dict[str, Any], decision: Decision, what: str) -> Any:
        me = self.me(obs)
        if me.pos is None:
            return "no"
        search = self.searcher(obs)
        model = search.model
        r = max(1, int(obs.get("register", 1)))
        state = model.grid.index(me.pos) * 4 + int(me.facing)
        rest = self._remaining(obs, me.seat, r)
        plain = {"brakes": E_MOVE1, "fourth_gear": E_MOVE3, "reverse_gear": E_BACK}[what]
        other = {"brakes": E_NOOP, "fourth_gear": E_MOVE4, "reverse_gear": E_BACK2}[what]
        no = search.evaluate(state, r, [plain, *rest], me.reached)
        yes = search.evaluate(state, r, [other, *rest], me.reached)
        return "yes" if yes < no else "no"


def _rank(kind: str) -> int:
    return _CARD_RANK.index(kind) if kind in _CARD_RANK else len(_CARD_RANK)


def _pos(value: Any) -> Pos | None:
    if value is None:
        return None
    return Pos(int(value[0]), int(value[1]))


def random_program(decision: Decision, rng: random.Random) -> tuple[str | None, ...]:
    """A legal random program (what a timed-out player gets), forced cards first."""
    hand = list(decision.info.get("hand", []))
    forced = list(decision.info.get("forced", []))
    rng.shuffle(hand)
    for name in forced:
        if name in hand:
            hand.remove(name)
            hand.append(name)  # popped first
    program: list[str | None] = []
    locked = decision.info.get("locked", [])
    for index in range(decision.info.get("registers", NUM_REGISTERS)):
        if index + 1 in locked or not hand:
            program.append(None)
        else:
            program.append(hand.pop())
    return tuple(program)


__all__ = [
    "BotError",
    "Candidate",
    "PlannerBot",
    "ProgramSearch",
    "SearchResult",
    "Weights",
    "random_program",
    "register_course",
]
