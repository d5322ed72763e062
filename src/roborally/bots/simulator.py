"""A fast lone-robot simulator for bot authors: the planner's own model, as a public API.

:class:`Simulator` answers "where does my robot end if it plays this program, ignoring the other
robots, and how good is that?" thousands of times a millisecond. It is built from one seat's
observation (or a game and a seat) and wraps what makes the built-in planner fast:

* **integer states**: a robot standing on the course is ``cell * 4 + facing`` (``cell`` is
  ``y * width + x``, facings ``N=0, E=1, S=2, W=3``); a fall is ``-1 - board``.
  :meth:`Simulator.encode` and :meth:`Simulator.decode` convert to and from
  :class:`~roborally.engine.core.geometry.Pos` and
  :class:`~roborally.engine.core.geometry.Direction`;
* **precomputed card effects**: one register (the card, then that register's board elements:
  belts, push panels, gears, crushers, board lasers, batteries) is computed once with the
  engine's own movement code and kept in flat tables (:class:`~roborally.bots.sim.BoardModel`);
* **distance-to-go tables**: the registers a robot needs from any state to finish the course,
  by a backward search over the same transitions (walls, pits, belts, gears and lasers known);
* **the planner's search**: :meth:`Simulator.best_programs` runs
  :class:`~roborally.bots.planner.ProgramSearch` over every distinct program of a hand
  (programs sharing a prefix share their simulation; hopeless last registers are pruned).

Costs are the planner's score, in registers still needed to finish (lower is better; a win is
about -1000): the distance field at the end, plus penalties for falls and damage and a small
bonus for energy (``docs/simulator.md``).

Cards are named as in the game (``move2``, ``again``, ``spam``, classic ``move1@490``); a
register given as ``None`` keeps the card the robot already has there (a locked register) or
stays empty. Damage cards and other cards the robot cannot foresee count as doing nothing
(``run``) or as their expected effect (``score``).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from roborally.bots.common import register_code
from roborally.bots.planner import (
    NUM_REGISTERS,
    Candidate,
    PlannerBot,
    ProgramSearch,
    SearchResult,
    Weights,
)
from roborally.bots.sim import (
    C_AGAIN,
    C_EMPTY,
    C_POWER,
    C_SIDE2,
    E_NOOP,
    E_SIDE_L,
    E_SIDE_R,
    EFFECT_INDEX,
    NE,
    BoardModel,
    card_code,
    resolve_code,
)
from roborally.engine.core.board import Course
from roborally.engine.core.decisions import Decision, DecisionKind
from roborally.engine.core.geometry import Direction, Pos

__all__ = ["End", "Register", "Simulator"]


@dataclass(frozen=True)
class Register:
    """One register for a lone robot: the state after it (``-1 - board`` after a fall), the
    board-laser damage taken and the energy gained (a battery)."""

    state: int
    damage: int
    energy: int


@dataclass(frozen=True)
class End:
    """Where a lone robot ends a program.

    ``state`` is the integer end state (``-1 - board`` after a fall, then ``pos`` is ``None``
    and ``facing`` the facing it had at the start); ``checkpoint`` counts the checkpoints
    reached by then; ``fell_register`` is the register of the fall (0: none); ``cost`` is the
    planner's score of the program (lower is better)."""

    state: int
    pos: Pos | None
    facing: Direction
    checkpoint: int
    fell: bool
    fell_register: int
    damage: int
    energy: int
    cost: float


class Simulator:
    """The planner's lone-robot model of one seat's robot (see the module doc).

    ``observation`` is what the seat sees (``Game.observation(seat)``); ``seat`` picks another
    robot of the same observation (its public facts: position, facing, checkpoints). ``course``
    is needed only for a course the bots cannot look up by name (one built in code);
    ``weights`` changes the planner's score.
    """

    def __init__(
        self,
        observation: dict[str, Any],
        seat: int | None = None,
        *,
        course: Course | None = None,
        variants: Iterable[str] | None = None,
        weights: Weights | None = None,
    ) -> None:
        self.observation = observation
        self.seat: int = observation["seat"] if seat is None else seat
        if self.seat is None:
            raise ValueError("a spectator's observation has no robot: give a seat")
        self._bot = PlannerBot(
            course=course,
            variants=None if variants is None else frozenset(variants),
            weights=weights,
        )
        self.search: ProgramSearch = self._bot.searcher(observation, self.seat)
        #: The board model: transition tables and distance fields (shared per course).
        self.model: BoardModel = self.search.model
        self.family = self.model.family
        me = self.search.me
        #: The checkpoints the robot has reached (the next one is ``reached + 1``).
        self.reached: int = me.reached

    @classmethod
    def from_game(cls, game: Any, seat: int, *, weights: Weights | None = None) -> Simulator:
        """The simulator of ``seat``'s robot in a :class:`~roborally.engine.game.Game` (from that
        seat's observation; the game's course and variants are used directly)."""
        config = game.config
        return cls(
            game.observation(seat),
            seat,
            course=config.course,
            variants=config.variants,
            weights=weights,
        )

    # ------------------------------------------------------------- states
    @property
    def width(self) -> int:
        return self.model.width

    @property
    def checkpoints(self) -> list[Pos]:
        """The course's checkpoints in order (checkpoint ``n`` is ``checkpoints[n - 1]``)."""
        return list(self.model.grid.checkpoints)

    def encode(self, pos: Pos | Sequence[int], facing: Direction | str) -> int:
        """The integer state of a robot at ``pos`` (a :class:`Pos` or ``[x, y]``) facing
        ``facing`` (a :class:`Direction` or ``"N"``, ``"E"``, ``"S"``, ``"W"``)."""
        where = Pos(int(pos[0]), int(pos[1]))
        if not self.model.grid.is_on_course(where):
            raise ValueError(f"{where} is not on the course")
        way = Direction.parse(facing) if isinstance(facing, str) else facing
        return self.model.grid.index(where) * 4 + int(way)

    def decode(self, state: int) -> tuple[Pos, Direction] | None:
        """The position and facing of a state; ``None`` for a fall (a negative state)."""
        if state < 0:
            return None
        return self.model.grid.pos(state >> 2), Direction(state & 3)

    def pos_of(self, state: int) -> Pos | None:
        """The position of a state (``None`` after a fall)."""
        return None if state < 0 else self.model.grid.pos(state >> 2)

    def facing_of(self, state: int) -> Direction:
        """The facing of a state (a fall has none: :class:`ValueError`)."""
        if state < 0:
            raise ValueError("a fall has no facing")
        return Direction(state & 3)

    @staticmethod
    def fell_from(state: int) -> int | None:
        """The board index a negative state fell from (``None`` for a robot on the course)."""
        return -1 - state if state < 0 else None

    def start_states(self) -> list[int]:
        """The states the robot starts its next program from: where it stands, or (off the
        board, about to re-enter) its re-entry space in each of the four facings."""
        return self._bot.start_states(self.model, self.search.me)

    @property
    def start(self) -> int:
        """The robot's start state (the first of :meth:`start_states`)."""
        starts = self.start_states()
        if not starts:
            raise ValueError("the robot is not on the board and has no re-entry space")
        return starts[0]

    # ------------------------------------------------------------- distances
    def to_go(self, state: int, reached: int | None = None) -> float:
        """Registers a robot in ``state`` still needs to finish the course, having reached
        ``reached`` checkpoints (default: this robot's). About 60 per leg without a path."""
        return self.to_go_table(reached)[state]

    def to_go_table(self, reached: int | None = None) -> Sequence[float]:
        """:meth:`to_go` for every state at once (index it with a state; read only)."""
        done = self.reached if reached is None else reached
        return self.model.to_go(max(0, min(done, len(self.model.checkpoints))))

    def distance(self, state: int, checkpoint: int | None = None) -> float:
        """Registers needed from ``state`` to stand on checkpoint ``checkpoint`` (default: the
        robot's next one); ``inf`` where it cannot get there."""
        number = self.reached + 1 if checkpoint is None else checkpoint
        if not 1 <= number <= len(self.model.checkpoints):
            raise ValueError(f"no checkpoint {number}")
        value = self.model.dist(number)[state]
        return float("inf") if value >= 10**9 else value

    # ------------------------------------------------------------- programs
    def codes(self, program: Sequence[str | None]) -> list[int]:
        """The card codes of a program (``None``: the card locked in that register, or empty)."""
        if len(program) > NUM_REGISTERS:
            raise ValueError(f"a program has at most {NUM_REGISTERS} registers")
        codes = []
        for r, name in enumerate(program):
            if name is None:
                codes.append(register_code(self.observation, self.seat, r))
            else:
                codes.append(card_code(name, self.family))
        return codes + [C_EMPTY] * (NUM_REGISTERS - len(codes))

    def step(self, state: int, register: int, card: str) -> Register:
        """One register (1-5) from ``state``: card ``card`` (a card name or an effect of
        :data:`roborally.bots.sim.EFFECTS`), then the board elements of that register."""
        effect = EFFECT_INDEX.get(card)
        if effect is None:
            code = card_code(card, self.family)
            effect = code if code < NE else E_NOOP
        s2, damage, energy, _passed = self.model.step(register, state, effect)
        return Register(s2, damage, energy)

    def run(self, program: Sequence[str | None], start: int | None = None) -> End:
        """Play ``program`` (up to 5 card names) from ``start`` (default: :attr:`start`)."""
        model = self.model
        state = self.start if start is None else start
        codes = self.codes(program)
        cost = self.search.evaluate(state, 1, codes, self.reached, bonus=self._bonus(program))
        facing = Direction(state & 3)
        total = len(model.checkpoints)
        reached = min(self.reached, total)
        damage = energy = fell = 0
        last = E_NOOP
        for r, code in enumerate(codes, start=1):
            effect = resolve_code(code, last, r)
            if code == C_POWER or (code == C_AGAIN and last == C_POWER and r > 1):
                energy += 1
                last = C_POWER
                effect = E_NOOP
            elif effect == C_SIDE2:  # the owner picks the side closer to the finish
                effect = min(
                    (E_SIDE_L, E_SIDE_R), key=lambda e: self._after_card(state, e, reached)
                )
                last = effect
            elif code != C_AGAIN:
                last = effect
            s2, d, e, passed = model.step(r, state, effect)
            damage += d
            energy += e
            if s2 < 0:
                state, fell = s2, r
                break
            state = s2
            reached = self.search._advance(state, reached, passed)
            if reached >= total:
                break
        pos = self.pos_of(state)
        if pos is not None:
            facing = Direction(state & 3)
        return End(state, pos, facing, reached, bool(fell), fell, damage, energy, cost)

    def _after_card(self, state: int, effect: int, reached: int) -> float:
        after = self.model.card(state, effect)[0]
        return self.model.to_go(reached)[after] if after >= 0 else float("inf")

    def score(self, program: Sequence[str | None], start: int | None = None) -> float:
        """The planner's cost of ``program`` from ``start`` (lower is better)."""
        state = self.start if start is None else start
        codes = self.codes(program)
        return self.search.evaluate(state, 1, codes, self.reached, bonus=self._bonus(program))

    def _bonus(self, program: Sequence[str | None]) -> float:
        """The search's program terms: each SPAM played from the hand leaves the deck."""
        if self.search.classic:
            return 0.0
        return -self.search.w_spam * sum(1 for name in program if name == "spam")

    def score_programs(
        self, programs: Iterable[Sequence[str | None]], start: int | None = None
    ) -> list[float]:
        """:meth:`score` of many programs (in order). Programs whose cards do the same (two
        copies of a card, or the same cards in the classic editions with other priorities)
        are scored once."""
        state = self.start if start is None else start
        evaluate = self.search.evaluate
        reached = self.reached
        seen: dict[tuple[float, ...], float] = {}
        costs: list[float] = []
        for program in programs:
            codes = self.codes(program)
            bonus = self._bonus(program)
            key = (*codes, bonus)
            cost = seen.get(key)
            if cost is None:
                cost = seen[key] = evaluate(state, 1, codes, reached, bonus=bonus)
            costs.append(cost)
        return costs

    def best_programs(
        self,
        decision: Decision | None = None,
        *,
        hand: Sequence[str] | None = None,
        locked: Sequence[str | None] | None = None,
        top: int = 1,
    ) -> list[Candidate]:
        """The ``top`` best programs by the planner's search over every distinct program.

        Give the pending program ``decision`` (its hand, locked registers and forced cards are
        used, exactly as the planner plays), or a ``hand`` of card names and ``locked`` (one
        entry per register: the card that stays there, or ``None`` for an open one; default:
        none locked). Each :class:`~roborally.bots.planner.Candidate` has ``cost``,
        ``program`` (what to answer the decision with) and ``start`` (its start state).
        """
        return self.search_programs(decision, hand=hand, locked=locked, top=top).top

    def search_programs(
        self,
        decision: Decision | None = None,
        *,
        hand: Sequence[str] | None = None,
        locked: Sequence[str | None] | None = None,
        top: int = 1,
    ) -> SearchResult:
        """:meth:`best_programs` with the search's figures: ``programs`` (distinct programs
        covered), ``leaves`` and ``seconds``."""
        if decision is not None:
            if decision.kind is not DecisionKind.PROGRAM:
                raise ValueError(f"not a program decision: {decision.kind.value}")
            if decision.seat != self.seat:
                raise ValueError(f"decision {decision.id} is seat {decision.seat}'s")
            return self._bot.plan(self.observation, decision, top=top)
        cards = list(self.search.me.hand if hand is None else hand)
        fixed: list[str | None] = [None] * NUM_REGISTERS if locked is None else list(locked)
        fixed += [None] * (NUM_REGISTERS - len(fixed))
        starts = self.start_states()
        if not starts:
            raise ValueError("the robot is not on the board and has no re-entry space")
        return self.search.search(cards, fixed, starts, top=top)
