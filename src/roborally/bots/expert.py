"""The expert bot: the planner, plus its neighbours and a look at the next round.

The expert runs the planner's search and keeps its best programs with distinct trajectories
(32 by default). Each candidate is then judged twice more:

* **Neighbours.** For the robots near its own (3 nearest within 6 spaces) it samples likely
  programs: it deals each neighbour a plausible hand from what it cannot see (the neighbour's
  deck is its cards missing from its visible discard pile; in the classic editions the unseen
  cards of the shared deck) and lets the planner's search choose that neighbour's best program
  (neighbours are assumed to play well). Every candidate is played out against each sample with
  :class:`~roborally.bots.sim.MultiSim` (pushes, belts blocked by robots, board and robot
  lasers) and alone; the expert adds the mean and the worst change the neighbours cause, minus
  a reward for pushing them off the board and hitting them.
* **The next round.** From the candidate's end (or its reboot space after a fall) the planner's
  search is run on a few hands the robot may draw next (from the cards of its own deck it
  cannot see in hand, discard pile or registers), and half of the difference between that
  result and what the distance field promised is added: ends from which the cards actually
  available make good progress are preferred.

It keeps the candidate with the best total. Only the seat's observation is used; samples come
from a generator seeded by the bot's seed and the decision id, so a decision is reproducible
(unless the time budget, 2 s, cuts the list of candidates short: a safety net for a busy
machine, well under the server's 5 s per decision and far above the usual decision time).
"""

from __future__ import annotations

import random
import time
from collections import Counter
from functools import cache
from typing import Any

from roborally.bots.common import DECK_2023, BotError
from roborally.bots.planner import (
    NUM_REGISTERS,
    Candidate,
    Me,
    PlannerBot,
    ProgramSearch,
    SearchResult,
    Weights,
    _pos,
    random_program,
)
from roborally.bots.sim import (
    C_EMPTY,
    MultiSim,
    SimResult,
    SimRobot,
    card_code,
)
from roborally.engine.core.board import Course
from roborally.engine.core.decisions import Decision, DecisionKind
from roborally.engine.core.geometry import Direction

FIRST_MOVES = ("move1", "move2", "move3", "back_up")


@cache
def _classic_deck() -> tuple[str, ...]:
    from roborally.content.classic_cards import program_deck

    return tuple(card.id for card in program_deck())


class ExpertBot(PlannerBot):
    """The planner with sampled opponents (see the module doc).

    ``candidates``: how many of the planner's best programs are compared; ``samples``: how
    many programs are sampled per neighbour; ``radius``: how close (in spaces) a robot must be
    to count as a neighbour; ``budget``: seconds after which sampling stops early.
    """

    name = "expert"

    def __init__(
        self,
        seed: int = 0,
        course: Course | None = None,
        variants: frozenset[str] | None = None,
        weights: Weights | None = None,
        candidates: int = 32,
        samples: int = 4,
        radius: int = 6,
        neighbours: int = 3,
        budget: float = 2.0,
        knock: float = 2.0,
        hit: float = 0.12,
        caution: float = 0.5,
        lookahead: int = 2,
        future: float = 0.5,
    ) -> None:
        super().__init__(seed, course, variants, weights)
        self.candidates = candidates
        self.samples = samples
        self.radius = radius
        self.neighbours = neighbours
        self.budget = budget  # seconds: later candidates are skipped after this
        self.knock = knock  # reward per neighbour reboot in a sample
        self.hit = hit  # reward per damage dealt to a neighbour
        self.caution = caution  # weight of the worst sample (the mean gets the rest)
        self.lookahead = lookahead  # next-round hands sampled to score each candidate's end
        self.weight_future = future  # how much the sampled next round replaces the field
        self._hands: list[list[str]] = []
        self._future: dict[tuple[int, int], float] = {}
        self.last_rivals = 0

    def choose_program(self, obs: dict[str, Any], decision: Decision) -> Any:
        began = time.perf_counter()
        result = self.plan(obs, decision, top=self.candidates)
        search = self.searcher(obs)
        me = search.me
        rivals = self.rivals(obs, me)
        self.last_rivals = len(rivals)
        if (not rivals and not self.lookahead) or len(result.top) < 2:
            return self.commit(obs, result.best, result)
        rng = random.Random(f"{self.seed}:{decision.id}")
        self._hands = self.next_hands(obs, search, rng) if self.lookahead else []
        self._future = {}
        scenarios: list[list[SimRobot]] = []
        for _ in range(self.samples if rivals else 0):
            if scenarios and time.perf_counter() - began > self.budget / 2:
                break
            scenarios.append([self.sample(obs, search, seat, rng) for seat in rivals])
        best = self.rank(obs, search, result, rivals, scenarios, began)
        return self.commit(obs, best, result)

    # ------------------------------------------------------------------- rivals
    def rivals(self, obs: dict[str, Any], me: Me) -> list[int]:
        """The seats of the robots on the board near ours (nearest first)."""
        where = me.pos or me.reentry or me.archive
        if where is None:
            return []
        near: list[tuple[int, int]] = []
        for p in obs["players"]:
            if p["seat"] == me.seat or p.get("pos") is None or p.get("shutdown"):
                continue
            pos = _pos(p["pos"])
            assert pos is not None
            distance = abs(pos.x - where.x) + abs(pos.y - where.y)
            if distance <= self.radius:
                near.append((distance, p["seat"]))
        near.sort()
        return [seat for _, seat in near[: self.neighbours]]

    def sample(
        self, obs: dict[str, Any], search: ProgramSearch, seat: int, rng: random.Random
    ) -> SimRobot:
        """A likely program for ``seat``: a hand dealt from its unseen cards, played well."""
        p = obs["players"][seat]
        classic = search.classic
        size = p["hand"] if isinstance(p["hand"], int) else len(p["hand"])
        if not size:
            size = 9
        hand = self._deal(obs, seat, size, classic, rng)
        locked: list[str | None] = [None] * NUM_REGISTERS
        for r, register in enumerate(p.get("registers", [])[:NUM_REGISTERS]):
            if register.get("locked"):
                cards = register.get("cards")
                locked[r] = cards[0] if cards else "spam"
        classic_info = p.get("classic") or {}
        rival = Me(
            seat=seat,
            pos=_pos(p["pos"]),
            facing=Direction.parse(p.get("facing", "N")),
            reached=int(p.get("checkpoint", 0)),
            energy=int(p.get("energy", 0)),
            archive=_pos(p.get("archive")),
            reentry=None,
            damage=int(classic_info.get("damage", max(0, 9 - size) if classic else 0)),
            lives=int(classic_info.get("lives", 3)),
            hand=hand,
            discard=list(p.get("discard", [])),
            upgrades=frozenset(p.get("upgrades") or ()),
        )
        assert rival.pos is not None
        their = ProgramSearch(self.model_for(obs, seat), rival, self.weights, self._variants(obs))
        start = search.model.grid.index(rival.pos) * 4 + int(rival.facing)
        try:
            program = their.search(hand, locked, [start], pairs=True).best.program
        except BotError:
            info = {"hand": hand, "locked": [r + 1 for r, c in enumerate(locked) if c]}
            fake = Decision("sample", seat, DecisionKind.PROGRAM, "", (), "", info)
            program = random_program(fake, rng)
        names = [locked[r] if locked[r] is not None else program[r] for r in range(NUM_REGISTERS)]
        return SimRobot(
            rival.pos,
            rival.facing,
            rival.reached,
            [card_code(n, search.family) if n else C_EMPTY for n in names],
            [_priority(n) for n in names] if classic else (),
        )

    def _deal(
        self, obs: dict[str, Any], seat: int, size: int, classic: bool, rng: random.Random
    ) -> list[str]:
        p = obs["players"][seat]
        if classic:
            seen: set[str] = set()
            for q in obs["players"]:
                if isinstance(q["hand"], list):
                    seen.update(q["hand"])
                for register in q.get("registers", []):
                    seen.update(register.get("cards") or [])
            pool = [c for c in _classic_deck() if c not in seen]
        else:
            left = Counter(DECK_2023) - Counter(n for n in p.get("discard", []) if n in DECK_2023)
            pool = list(left.elements())
            if len(pool) < size:
                pool = list(Counter(DECK_2023).elements())
        rng.shuffle(pool)
        return pool[:size]

    # ------------------------------------------------------------------ ranking
    def rank(
        self,
        obs: dict[str, Any],
        search: ProgramSearch,
        result: SearchResult,
        rivals: list[int],
        scenarios: list[list[SimRobot]],
        began: float,
    ) -> Candidate:
        """The candidate whose outcome stays best against the sampled neighbour programs and
        over the sampled next hands (candidates in the planner's order, until the budget)."""
        model = search.model
        sim = MultiSim(model, 1 + len(rivals))
        alone = MultiSim(model, 1)
        me = search.me
        seats = [me.seat, *rivals]
        turn = [s for s in obs.get("turn_order", seats) if s in seats]
        order = [seats.index(s) for s in turn]
        classic = search.classic
        best, best_score = result.best, float("inf")
        for candidate in result.top:
            if best_score < float("inf") and time.perf_counter() - began > self.budget:
                break
            mine = SimRobot(
                model.grid.pos(candidate.start >> 2),
                Direction(candidate.start & 3),
                me.reached,
                self._codes(obs, candidate, search),
                [_priority(n) if n else 0 for n in self._names(obs, candidate)] if classic else (),
            )
            lone = alone.run([mine], [0])[0]
            base = self.outcome(search, lone)
            future = self.future(search, lone) if self._hands else 0.0
            deltas = [0.0]
            if scenarios:
                deltas = []
            for rivals_robots in scenarios:
                results = sim.run([mine, *rivals_robots], order)
                cost = self.outcome(search, results[0])
                for rival in results[1:]:
                    cost -= self.knock * rival.fell + self.hit * rival.damage
                deltas.append(cost - base)
            mean = sum(deltas) / len(deltas)
            score = candidate.cost + future + (1 - self.caution) * mean + self.caution * max(deltas)
            if score < best_score:
                best, best_score = candidate, score
        return best

    def next_hands(
        self, obs: dict[str, Any], search: ProgramSearch, rng: random.Random
    ) -> list[list[str]]:
        """Hands the robot may hold next round: its deck is the regular cards it cannot see
        in its hand, discard pile or registers (a small deck is reshuffled with the rest)."""
        me = search.me
        if search.classic:
            pool = [c for c in _classic_deck() if c not in set(me.hand)]
            return [rng.sample(pool, min(9, len(pool))) for _ in range(self.lookahead)]
        own = obs["players"][me.seat]
        seen = Counter(n for n in me.hand + me.discard if n in DECK_2023)
        for register in own.get("registers", []):
            seen.update(n for n in register.get("cards") or [] if n in DECK_2023)
        deck = list((Counter(DECK_2023) - seen).elements())
        rest = list((Counter(DECK_2023) - Counter(deck)).elements())
        hands = []
        for _ in range(self.lookahead):
            drawn = rng.sample(deck, min(9, len(deck)))
            if len(drawn) < 9:
                drawn += rng.sample(rest, min(9 - len(drawn), len(rest)))
            hands.append(drawn)
        return hands

    def future(self, search: ProgramSearch, end: SimResult) -> float:
        """How much better (negative) or worse the end of this round is than the distance
        field says, judged by the best next-round program over sampled hands."""
        key = (end.state, end.checkpoint)
        hit = self._future.get(key)
        if hit is not None:
            return hit
        model = search.model
        if end.checkpoint >= search.total:
            value = 0.0
        else:
            me = search.me
            if end.state >= 0:
                pos = model.grid.pos(end.state >> 2)
                starts = [end.state]
                now = search.to_go[end.checkpoint][end.state]
            else:
                board = -1 - end.state
                token = model.reboot_cell.get(board)
                dock = 0 <= board < len(model.board_kind) and model.board_kind[board] == "dock"
                where = model.grid.pos(token[0]) if token and not dock else me.archive
                if where is None:
                    return 0.0
                pos = where
                cell = model.grid.index(where)
                starts = [cell * 4 + f for f in range(4)]
                now = min(search.to_go[end.checkpoint][s] for s in starts)
            nxt = Me(
                me.seat,
                pos,
                Direction(starts[0] & 3),
                end.checkpoint,
                me.energy,
                me.archive,
                None,
                me.damage,
                me.lives,
                upgrades=me.upgrades,
            )
            their = ProgramSearch(model, nxt, self.weights, search.variants)
            # classic-1994: register 1 must hold a move (a Back Up counts)
            first = set(FIRST_MOVES) if model.family == "classic-1994" else None
            costs = []
            for hand in self._hands:
                try:
                    costs.append(their.search(hand, None, starts, first_kinds=first).best.cost)
                except BotError:
                    costs.append(now)
            # the next round's best end, measured against what the field promised now
            value = self.weight_future * (sum(costs) / len(costs) - (now - 5.0))
        self._future[key] = value
        return value

    def _names(self, obs: dict[str, Any], candidate: Candidate) -> list[str | None]:
        own = obs["players"][obs["seat"]]
        names: list[str | None] = []
        for r in range(NUM_REGISTERS):
            name = candidate.program[r]
            if name is None:
                regs = own.get("registers", [])
                cards = regs[r].get("cards") if r < len(regs) and regs[r].get("locked") else None
                name = cards[0] if cards else None
            names.append(name)
        return names

    def _codes(self, obs: dict[str, Any], candidate: Candidate, search: ProgramSearch) -> list[int]:
        return [card_code(n, search.family) if n else C_EMPTY for n in self._names(obs, candidate)]

    def outcome(self, search: ProgramSearch, result: SimResult) -> float:
        """The planner's end-of-round score of a simulated robot (without the path terms)."""
        if result.state < 0:
            return search.fall_cost(-1 - result.state, result.checkpoint) + (
                search.w_damage * result.damage
            )
        if result.checkpoint >= search.total:
            return -search.w.win
        gained = min(result.energy, search.energy_room)
        return (
            search.to_go[result.checkpoint][result.state]
            + search.w_damage * result.damage
            - search.w_energy * gained
        )


def _priority(name: str | None) -> int:
    if not name:
        return 0
    _, _, tail = name.partition("@")
    return int(tail) if tail.isdigit() else 0


__all__ = ["ExpertBot"]
