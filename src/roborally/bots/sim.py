"""Fast simulation for the bots: a lone robot's transition tables and a small multi-robot model.

Everything here is built from public board data (a :class:`~roborally.engine.core.board.Course` and
the edition's family) and runs the engine's own movement code,
:class:`~roborally.engine.core.mechanics.Mechanics`, on a scratch
:class:`~roborally.engine.core.state.GameState`; nothing reads a game in progress.

* :class:`BoardModel` caches, per course, what a **lone robot** does in one register: from a
  *state* (``cell * 4 + facing``) a card *effect* is performed and then the board elements of that
  register act (belts of both colours with their turning pieces, the push panels of that
  register, gears, crushers in the classic editions); the result is the new state (or a fall),
  the board-laser damage taken and the energy gained. Each transition is computed once, the
  first time it is needed, and kept. The model also holds a **distance field** per checkpoint:
  the number of registers a robot needs from any (cell, facing) to stand on that checkpoint,
  found by a backward Dijkstra search over the same transitions (so it knows walls, pits,
  belts, gears and lasers).
* :class:`MultiSim` plays the five registers of one round for a few robots at once (pushes,
  blocked belts, board and robot lasers), for the expert bot's look at its neighbours.

States are plain integers so that the planner's search can index flat lists.
"""

from __future__ import annotations

import heapq
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any

from roborally.engine.core.board import BeltColor, Course, Grid
from roborally.engine.core.events import EventKind
from roborally.engine.core.geometry import Direction, Pos, Turn
from roborally.engine.core.mechanics import Mechanics
from roborally.engine.core.rng import make_rng
from roborally.engine.core.state import GameConfig, GameState, Player

# ------------------------------------------------------------------------------ effects
#: The card effects a lone robot can perform (programming cards, Haywires, classic options).
EFFECTS: tuple[str, ...] = (
    "noop",
    "move1",
    "move2",
    "move3",
    "move_back",
    "rotate_right",
    "rotate_left",
    "u_turn",
    "move1_right_move1",
    "move3_uturn",
    "side2_left",
    "side2_right",
    "move4",
    "back2",
    # upgrades (2023): Crab Legs pairs, Drifting / Power Slide, Pressure Release, All Aboard
    "crab_left",
    "crab_right",
    "rotate_left_move1",
    "rotate_right_move1",
    "back5",
    "all_aboard",
)
NE = len(EFFECTS)
E_NOOP, E_MOVE1, E_MOVE2, E_MOVE3, E_BACK, E_RIGHT, E_LEFT, E_UTURN = range(8)
E_M1RM1, E_M3U, E_SIDE_L, E_SIDE_R, E_MOVE4, E_BACK2 = range(8, 14)
E_CRAB_L, E_CRAB_R, E_LEFT_M1, E_RIGHT_M1, E_BACK5, E_ALL_ABOARD = range(14, 20)
EFFECT_INDEX = {name: i for i, name in enumerate(EFFECTS)}

#: Card codes beyond the deterministic effects (what a card in a register does for the bots).
C_POWER = 100  # Power Up: no movement, +1 energy
C_AGAIN = 101  # Again: repeat the previous register's action
C_UNKNOWN = 102  # SPAM (or a drawn card): replaced by an unknown card from the deck
C_SIDE2 = 103  # Haywire "move 2 left or right": the owner chooses
C_EMPTY = 104  # no card in the register
C_TWO = 105  # Haywire "draw and resolve 2 cards": two unknown cards

#: The effects the distance field assumes a robot can choose from in any register.
DIST_EFFECTS = (E_NOOP, E_MOVE1, E_MOVE2, E_MOVE3, E_BACK, E_RIGHT, E_LEFT, E_UTURN)

_ROTATE = {E_RIGHT: Turn.RIGHT, E_LEFT: Turn.LEFT, E_UTURN: Turn.U_TURN}
_MOVES = {E_MOVE1: 1, E_MOVE2: 2, E_MOVE3: 3, E_MOVE4: 4}

BLUE = frozenset({BeltColor.BLUE})
GREEN = frozenset({BeltColor.GREEN})
ALL_BELTS = frozenset({BeltColor.BLUE, BeltColor.GREEN})

#: The 2023 programming cards and the classic program card types, as card codes.
_CODES_2023 = {
    "move1": E_MOVE1,
    "move2": E_MOVE2,
    "move3": E_MOVE3,
    "move_back": E_BACK,
    "rotate_right": E_RIGHT,
    "rotate_left": E_LEFT,
    "u_turn": E_UTURN,
    "power_up": C_POWER,
    "again": C_AGAIN,
    "spam": C_UNKNOWN,
}
_CODES_CLASSIC = {
    "move1": E_MOVE1,
    "move2": E_MOVE2,
    "move3": E_MOVE3,
    "back_up": E_BACK,
    "rotate_right": E_RIGHT,
    "rotate_left": E_LEFT,
    "u_turn": E_UTURN,
}
_HAYWIRE_CODES = {
    "two_cards": C_TWO,
    "move1_right_move1": E_M1RM1,
    "install_permanent": E_NOOP,
    "side2": C_SIDE2,
    "move3_uturn": E_M3U,
    "spam": C_UNKNOWN,
}


def family_of(edition: str) -> str:
    """``"2023"``, ``"classic"`` or ``"classic-1994"``: what decides the board step order."""
    if edition == "classic-1994":
        return edition
    if edition.startswith("classic"):
        return "classic"
    return "2023"


@cache
def _damage_effects() -> dict[str, str]:
    """Damage card name -> effect, from the shipped damage deck (public card data)."""
    try:
        from roborally.content.cards import damage_deck

        deck = damage_deck()
    except Exception:  # pragma: no cover - a broken data file must not stop the bots
        from roborally.engine.core.cards import default_damage_deck

        deck = default_damage_deck()
    return {spec.name: spec.effect for spec in deck.cards}


def card_type(name: str) -> str:
    """The type of a card name: ``move1@490`` (classic) -> ``move1``; 2023 names unchanged."""
    return name.split("@", 1)[0]


def card_code(name: str | None, family: str) -> int:
    """What a card in a register does, as a card code (unknown names are unknown cards)."""
    if name is None:
        return C_EMPTY
    if family != "2023":
        kind = card_type(name)
        if "+" in name:  # a classic pair (Crab Legs / Dual Processor): approximate by the move
            kind = card_type(name.split("+")[0])
        return _CODES_CLASSIC.get(kind, C_UNKNOWN)
    code = _CODES_2023.get(name)
    if code is not None:
        return code
    parts = name.split("+")
    if len(parts) == 2 and "move1" in parts:  # a Crab Legs pair: a sidestep to that side
        if "rotate_left" in parts:
            return E_CRAB_L
        if "rotate_right" in parts:
            return E_CRAB_R
    effect = _damage_effects().get(name)
    if effect is None:
        return C_UNKNOWN
    return _HAYWIRE_CODES.get(effect, C_UNKNOWN)


# ----------------------------------------------------------------------------- scratch
class _Scratch(Mechanics):
    """The engine's movement code on a scratch state: falls are recorded, events dropped.

    ``hovering`` (Hover Unit, set while a card acts): a movement passes over pits and falls
    only if it ends on one, as the engine's upgrade rules do (12-B8).
    """

    def __init__(self, state: GameState, track: bool) -> None:
        super().__init__(state)
        self.track = track
        self.falls: list[tuple[int, int]] = []  # (seat, board index)
        self.passed: list[tuple[int, Pos]] = []  # (seat, space entered), when tracking
        self.hovering = False
        self._no_pits = [False] * len(state.grid.pits)

    def move(self, seat: int, direction: Direction, steps: int, cause: str) -> int:
        if not self.hovering:
            return super().move(seat, direction, steps, cause)
        grid = self.grid
        pits = grid.pits
        grid.pits = self._no_pits
        try:
            moved = super().move(seat, direction, steps, cause)
        finally:
            grid.pits = pits
        robot = self.s.players[seat]
        pos = robot.pos
        if pos is not None and pits[grid.index(pos)]:
            robot.pos = None
            self.on_fall(seat, pos, grid.board_index(pos), "pit")
        return moved

    def emit(self, kind: EventKind, **fields: object) -> None:
        if self.track and kind in (EventKind.MOVED, EventKind.CONVEYED, EventKind.PUSHED):
            seat, to = fields.get("seat"), fields.get("to")
            if isinstance(seat, int) and isinstance(to, Pos):
                self.passed.append((seat, to))

    def on_fall(self, seat: int, where: Pos, board: int, cause: str) -> None:
        self.s.players[seat].pos = None
        self.falls.append((seat, board))


def _scratch_state(course: Course, grid: Grid, players: int, less_deadly: bool) -> GameState:
    variants = frozenset({"less_deadly"}) if less_deadly else frozenset()
    names = tuple(f"bot{i}" for i in range(players))
    config = GameConfig(course, names, seed=1, edition="2023", variants=variants)
    rng = make_rng(config.seed, config.rng)
    return GameState(config, grid, rng, [Player(i, names[i]) for i in range(players)])


def build_grid(course: Course, family: str, variants: frozenset[str]) -> Grid:
    """The grid exactly as the edition builds it (overlays, reboot tokens)."""
    if family == "2023":
        return Grid(course, reboot_tokens="dynamic_archiving" not in variants)
    return Grid(course, overlays_disable_elements=False, reboot_tokens=False)


#: A register transition: (new state or -1 - board index after a fall, laser damage,
#: energy gained, checkpoint numbers passed through on the way (classic-1994 only)).
Step = tuple[int, int, int, tuple[int, ...]]

INF = 10**9


class BoardModel:
    """One course under one edition family: lone-robot transitions and distance fields."""

    def __init__(
        self,
        course: Course,
        family: str,
        variants: frozenset[str] = frozenset(),
        hover: bool = False,
    ):
        self.course = course
        self.family = family
        self.variants = variants
        self.hover = hover  # Hover Unit installed: card moves pass over pits
        self.grid = grid = build_grid(course, family, variants)
        self.less_deadly = family == "2023" and "less_deadly" in variants
        self.track = family == "classic-1994"
        self.width = grid.width
        self.size = grid.width * grid.height
        self.nstates = self.size * 4
        self.state = _scratch_state(course, grid, 1, self.less_deadly)
        self.mech = _Scratch(self.state, self.track)
        self.robot = self.state.players[0]
        # Per-cell facts.
        self.cp_at = [0] * self.size
        for number, pos in enumerate(grid.checkpoints, start=1):
            self.cp_at[grid.index(pos)] = number
        self.checkpoints = [grid.index(p) for p in grid.checkpoints]
        self.laser = [0] * self.size
        for _origin, laser, path in grid.lasers:
            for i in path:
                self.laser[i] += laser.beams
        self.battery = [False] * self.size
        self.repair = [0] * self.size
        self.repair_site = [0] * self.size  # repair sites alone (not flags)
        self.standable = [False] * self.size
        for i, cell in enumerate(grid.cells):
            if cell is None:
                continue
            self.standable[i] = not cell.pit
            active = grid.active(grid.pos(i))
            if family == "2023":
                self.battery[i] = active is not None and active.battery
            else:
                self.repair[i] = cell.repair or (1 if cell.checkpoint is not None else 0)
                self.repair_site[i] = cell.repair
        self.board_kind = list(grid.board_kinds)
        self.reboot_cell: dict[int, tuple[int, Direction]] = {
            b: (grid.index(t.pos), t.arrow) for b, t in grid.reboot_of_board.items()
        }
        # register-specific elements: a board step differs between registers only on them
        self.register_cells = [False] * self.size
        for i, cell in enumerate(grid.cells):
            if cell is not None and (cell.pusher is not None or cell.crusher is not None):
                self.register_cells[i] = True
        self._card: dict[int, tuple[int, tuple[int, ...]]] = {}
        self._board: dict[int, Step] = {}
        #: tables[r][state * NE + effect]: the whole register r (0 = no push panels)
        self.tables: list[list[Step | None]] = [[None] * (self.nstates * NE) for _ in range(6)]
        self._dist: dict[int, list[float]] = {}
        self._chain: list[float] | None = None
        self._to_go: dict[int, list[float]] = {}
        self.transitions = 0

    # ------------------------------------------------------------------ simulation
    def _passed(self) -> tuple[int, ...]:
        if not self.track:
            return ()
        cps = []
        for _seat, pos in self.mech.passed:
            if self.grid.is_on_course(pos):
                n = self.cp_at[self.grid.index(pos)]
                if n:
                    cps.append(n)
        self.mech.passed.clear()
        return tuple(cps)

    def _perform(self, effect: int) -> None:
        """Carry out one effect for the scratch robot (seat 0) with the engine's Mechanics."""
        perform(self.mech, 0, effect)

    def card(self, state: int, effect: int) -> tuple[int, tuple[int, ...]]:
        """The state after a card effect alone (no board elements); falls are ``-1 - board``."""
        key = state * NE + effect
        hit = self._card.get(key)
        if hit is not None:
            return hit
        robot = self.robot
        robot.pos = self.grid.pos(state >> 2)
        robot.facing = Direction(state & 3)
        self.mech.falls.clear()
        self.mech.passed.clear()
        self.mech.hovering = self.hover
        try:
            self._perform(effect)
        finally:
            self.mech.hovering = False
        passed = self._passed()
        if robot.pos is None:
            result = (-1 - self.mech.falls[-1][1], passed)
        else:
            result = (self.grid.index(robot.pos) * 4 + int(robot.facing), passed)
        self._card[key] = result
        return result

    def displace(self, state: int, direction: Direction, steps: int) -> int:
        """The state after moving ``steps`` spaces in ``direction`` without turning (an upgrade
        such as Magnetic or a push); falls are ``-1 - board``. Not cached."""
        robot = self.robot
        robot.pos = self.grid.pos(state >> 2)
        robot.facing = Direction(state & 3)
        self.mech.falls.clear()
        self.mech.move(0, direction, steps, "upgrade")
        self.mech.passed.clear()
        if robot.pos is None:
            return -1 - self.mech.falls[-1][1]
        return self.grid.index(robot.pos) * 4 + int(robot.facing)

    def board(self, state: int, register: int) -> Step:
        """The board elements of ``register`` on a lone robot, then lasers and batteries."""
        cell = state >> 2
        key = state * 8 + (register if self._register_sensitive(cell) else 0)
        hit = self._board.get(key)
        if hit is not None:
            return hit
        robot = self.robot
        grid = self.grid
        mech = self.mech
        robot.pos = grid.pos(cell)
        robot.facing = Direction(state & 3)
        mech.falls.clear()
        mech.passed.clear()
        if self.family == "2023":
            mech.convey(BLUE, "blue belt")
            mech.convey(BLUE, "blue belt")
            mech.convey(GREEN, "green belt")
        else:
            mech.convey(BLUE, "express belt")
            mech.convey(ALL_BELTS, "belt")
        if robot.pos is not None and register:
            mech.push_panels(register)
        if robot.pos is not None:
            mech.gears()
        if robot.pos is not None and self.family != "2023" and register:
            active = grid.active(robot.pos)
            if active is not None and active.crusher is not None and register in active.crusher:
                mech.falls.append((0, grid.board_index(robot.pos)))
                robot.pos = None
        passed = self._passed()
        if robot.pos is None:
            result: Step = (-1 - mech.falls[-1][1], 0, 0, passed)
        else:
            i = grid.index(robot.pos)
            result = (i * 4 + int(robot.facing), self.laser[i], 1 if self.battery[i] else 0, passed)
        self._board[key] = result
        return result

    def _register_sensitive(self, cell: int) -> bool:
        """Whether the board step from ``cell`` may meet a push panel or crusher (belts carry a
        robot at most 3 spaces, so look that far)."""
        if self.register_cells[cell]:
            return True
        grid = self.grid
        pos = grid.pos(cell)
        for _ in range(3):
            belt = grid.belts[grid.index(pos)]
            if belt is None:
                return False
            pos = pos.step(belt.out)
            if not grid.is_on_course(pos):
                return False
            if self.register_cells[grid.index(pos)]:
                return True
        return False

    def step(self, register: int, state: int, effect: int) -> Step:
        """One whole register for a lone robot: the effect, then the board (memoised).

        ``effect`` must be one of :data:`EFFECTS` (a card code such as :data:`C_POWER` is
        resolved first, see :func:`resolve_code`): the tables are flat, so an out-of-range
        effect would read and overwrite another state's entry.
        """
        if not 0 <= effect < NE:
            raise ValueError(f"not a card effect: {effect} (resolve card codes first)")
        table = self.tables[register]
        key = state * NE + effect
        hit = table[key]
        if hit is not None:
            return hit
        self.transitions += 1
        after, passed = self.card(state, effect)
        if after < 0:
            result: Step = (after, 0, 0, passed)
        else:
            s2, damage, energy, passed2 = self.board(after, register)
            result = (s2, damage, energy, passed + passed2)
        table[key] = result
        return result

    # ------------------------------------------------------------- distance fields
    def states(self) -> list[int]:
        return [i * 4 + f for i in range(self.size) if self.standable[i] for f in range(4)]

    def dist(self, number: int) -> list[float]:
        """Registers needed from each state to stand on checkpoint ``number`` (INF: never).

        Every register is assumed to offer any of the basic cards; a register costs 1 plus a
        little per laser beam taken on the way. Computed once per checkpoint.
        """
        cached = self._dist.get(number)
        if cached is not None:
            return cached
        target = self.checkpoints[number - 1]
        dist = self._backward({target * 4 + f: 0.0 for f in range(4)})
        self._dist[number] = dist
        return dist

    def _backward(self, seeds: dict[int, float]) -> list[float]:
        """A backward Dijkstra search over the register transitions from ``seeds`` (state ->
        cost already there): for every state, the cheapest cost to reach one of them."""
        reverse = self._reverse()
        dist = [float(INF)] * self.nstates
        heap: list[tuple[float, int]] = []
        for state, cost in seeds.items():
            dist[state] = cost
            heap.append((cost, state))
        heapq.heapify(heap)
        while heap:
            d, s = heapq.heappop(heap)
            if d > dist[s]:
                continue
            for prev, cost in reverse[s]:
                nd = d + cost
                if nd < dist[prev]:
                    dist[prev] = nd
                    heapq.heappush(heap, (nd, prev))
        return dist

    _rev: list[list[tuple[int, float]]] | None = None

    def _reverse(self) -> list[list[tuple[int, float]]]:
        if self._rev is not None:
            return self._rev
        reverse: list[list[tuple[int, float]]] = [[] for _ in range(self.nstates)]
        for s in self.states():
            best: dict[int, float] = {}
            for e in DIST_EFFECTS:
                s2, damage, _energy, _ = self.step(0, s, e)
                if s2 < 0 or (s2 == s and e != E_NOOP):
                    continue
                cost = 1.0 + 0.35 * damage
                if cost < best.get(s2, INF):
                    best[s2] = cost
            for s2, cost in best.items():
                reverse[s2].append((s, cost))
        self._rev = reverse
        return reverse

    def to_go(self, reached: int) -> list[float]:
        """Registers from each state to finish the course having reached ``reached``
        checkpoints. Legs are chained exactly: the search towards the next checkpoint starts
        from the cost of finishing from each facing the robot may have when it stands there,
        so arriving facing the right way counts. Unreachable states get a large finite cost."""
        cached = self._to_go.get(reached)
        if cached is not None:
            return cached
        total = len(self.checkpoints)
        if reached >= total:
            result = [0.0] * self.nstates
        else:
            target = self.checkpoints[reached]
            after = self.to_go(reached + 1)
            seeds = {target * 4 + f: after[target * 4 + f] for f in range(4)}
            cap = 60.0 + min(seeds.values())
            result = [min(d, cap) for d in self._backward(seeds)]
        self._to_go[reached] = result
        return result


def perform(mech: Mechanics, seat: int, effect: int) -> None:
    """Carry out one effect for ``seat`` with the engine's movement code."""
    robot = mech.s.players[seat]
    if robot.pos is None or effect == E_NOOP:
        return
    if effect in _MOVES:
        mech.move(seat, robot.facing, _MOVES[effect], "card")
    elif effect == E_BACK:
        mech.move(seat, robot.facing.opposite, 1, "card")
    elif effect == E_BACK2:
        mech.move(seat, robot.facing.opposite, 2, "card")
    elif effect in _ROTATE:
        mech.rotate(seat, _ROTATE[effect], "card")
    elif effect == E_M1RM1:
        mech.move(seat, robot.facing, 1, "haywire")
        if robot.pos is not None:
            mech.rotate(seat, Turn.RIGHT, "haywire")
            mech.move(seat, robot.facing, 1, "haywire")
    elif effect == E_M3U:
        mech.move(seat, robot.facing, 3, "haywire")
        if robot.pos is not None:
            mech.rotate(seat, Turn.U_TURN, "haywire")
    elif effect == E_SIDE_L:
        mech.move(seat, robot.facing.turned(Turn.LEFT), 2, "haywire")
    elif effect == E_SIDE_R:
        mech.move(seat, robot.facing.turned(Turn.RIGHT), 2, "haywire")
    elif effect in (E_CRAB_L, E_CRAB_R):
        turn = Turn.LEFT if effect == E_CRAB_L else Turn.RIGHT
        mech.move(seat, robot.facing.turned(turn), 1, "crab legs")
    elif effect in (E_LEFT_M1, E_RIGHT_M1):
        mech.rotate(seat, Turn.LEFT if effect == E_LEFT_M1 else Turn.RIGHT, "card")
        mech.move(seat, robot.facing, 1, "upgrade")
    elif effect == E_BACK5:  # Pressure Release: a lone robot stops only at walls and pits
        mech.move(seat, robot.facing.opposite, 5, "pressure release")
    elif effect == E_ALL_ABOARD:
        mech.convey(BLUE, "all aboard", only=seat)
        mech.convey(BLUE, "all aboard", only=seat)
        mech.convey(GREEN, "all aboard", only=seat)


# Values keep the course itself: an id() can be reused once a course is garbage collected.
_MODELS: dict[tuple[Any, ...], tuple[Course, BoardModel]] = {}


def board_model(
    course: Course, family: str, variants: frozenset[str] = frozenset(), hover: bool = False
) -> BoardModel:
    """The cached model of ``course`` (one per course, family, the variants that matter and
    whether the robot has a Hover Unit)."""
    relevant = frozenset(v for v in variants if v in ("less_deadly", "dynamic_archiving"))
    key = (id(course), course.name, family, relevant, hover)
    entry = _MODELS.get(key)
    if entry is not None and entry[0] is course:
        return entry[1]
    if len(_MODELS) > 32:
        _MODELS.clear()
    model = BoardModel(course, family, relevant, hover)
    _MODELS[key] = (course, model)
    return model


# ------------------------------------------------------------------------ multi-robot
@dataclass
class SimRobot:
    """A robot in a :class:`MultiSim` round: where it starts and the cards it plays."""

    pos: Pos | None
    facing: Direction
    checkpoint: int
    codes: Sequence[int]  # one card code per register (C_EMPTY for nothing)
    priorities: Sequence[int] = ()  # classic: card priority per register (move order)
    shutdown: bool = False


@dataclass
class SimResult:
    state: int  # final state, or -1 - board after a fall
    checkpoint: int
    damage: int
    energy: int
    fell: bool
    fell_register: int


class MultiSim:
    """Five registers of one round for several robots, with pushes and robot lasers.

    The register card effects and board elements run through the engine's Mechanics; the order
    is the edition's (2023: turn order, then blue belts twice, green belts, push panels, gears,
    board lasers, robot lasers; classic: by card priority, express belts, all belts, pushers,
    gears, crushers, lasers). Unknown cards (SPAM) do nothing here.
    """

    def __init__(self, model: BoardModel, robots: int) -> None:
        self.model = model
        self.state = _scratch_state(model.course, model.grid, robots, model.less_deadly)
        self.mech = _Scratch(self.state, model.track)

    def run(self, robots: list[SimRobot], order: list[int]) -> list[SimResult]:
        model = self.model
        grid = model.grid
        mech = self.mech
        s = self.state
        classic = model.family != "2023"
        players = s.players
        n = len(robots)
        for seat, robot in enumerate(robots):
            players[seat].pos = robot.pos
            players[seat].facing = robot.facing
        for seat in range(n, len(players)):
            players[seat].pos = None
        s.priority = order[0] if order else 0
        damage = [0] * n
        energy = [0] * n
        cps = [r.checkpoint for r in robots]
        fell = [0] * n
        last = [E_NOOP] * n
        total = len(model.checkpoints)
        mech.falls.clear()
        mech.passed.clear()
        fall_board: dict[int, int] = {}

        def note_falls(register: int) -> None:
            for seat, board in mech.falls:
                if seat < n and not fell[seat]:
                    fell[seat] = register
                    fall_board[seat] = board
            mech.falls.clear()

        for r in range(1, 6):
            if classic:
                movers = sorted(
                    (i for i in range(n) if not robots[i].shutdown),
                    key=lambda i: -(robots[i].priorities[r - 1] if robots[i].priorities else 0),
                )
            else:
                movers = [i for i in order if i < n and not robots[i].shutdown]
            for seat in movers:
                if players[seat].pos is None:
                    continue
                code = robots[seat].codes[r - 1] if r - 1 < len(robots[seat].codes) else C_EMPTY
                effect = resolve_code(code, last[seat], r)
                if code == C_POWER or (code == C_AGAIN and last[seat] == C_POWER and r > 1):
                    energy[seat] += 1
                    last[seat] = C_POWER
                    continue
                if effect == C_SIDE2:
                    effect = self._best_side(seat, cps[seat])
                last[seat] = last[seat] if code == C_AGAIN else effect
                perform(mech, seat, effect)
            note_falls(r)
            if classic:
                mech.convey(BLUE, "express belt")
                mech.convey(ALL_BELTS, "belt")
            else:
                mech.convey(BLUE, "blue belt")
                mech.convey(BLUE, "blue belt")
                mech.convey(GREEN, "green belt")
            mech.push_panels(r)
            mech.gears()
            if classic:
                for seat in range(n):
                    pos = players[seat].pos
                    if pos is None:
                        continue
                    cell = grid.active(pos)
                    if cell is not None and cell.crusher is not None and r in cell.crusher:
                        players[seat].pos = None
                        mech.falls.append((seat, grid.board_index(pos)))
            hits = mech.board_laser_hits()
            for seat, amount in hits.items():
                if seat < n:
                    damage[seat] += amount
            for seat in range(n):
                if players[seat].pos is None or robots[seat].shutdown:
                    continue
                target, _end = mech.trace_shot(seat, players[seat].facing)
                if target is not None and target < n:
                    damage[target] += 1
            note_falls(r)
            for seat in range(n):
                pos = players[seat].pos
                if pos is None or robots[seat].shutdown:
                    continue
                i = grid.index(pos)
                if model.battery[i]:
                    energy[seat] += 1
                if model.track:
                    for who, where in mech.passed:
                        entered = grid.is_on_course(where) and model.cp_at[grid.index(where)]
                        if who == seat and entered == cps[seat] + 1:
                            cps[seat] += 1
                if model.cp_at[i] == cps[seat] + 1:
                    cps[seat] += 1
            mech.passed.clear()
            if any(c >= total for c in cps) and total:
                break
        results = []
        for seat in range(n):
            pos = players[seat].pos
            if pos is None:
                state = -1 - fall_board.get(seat, 0)
            else:
                state = grid.index(pos) * 4 + int(players[seat].facing)
            results.append(
                SimResult(
                    state, cps[seat], damage[seat], energy[seat], bool(fell[seat]), fell[seat]
                )
            )
        return results

    def _best_side(self, seat: int, reached: int) -> int:
        robot = self.state.players[seat]
        if robot.pos is None:
            return E_NOOP
        here = self.model.grid.index(robot.pos) * 4 + int(robot.facing)
        to_go = self.model.to_go(reached)
        best, best_cost = E_SIDE_L, float(INF)
        for effect in (E_SIDE_L, E_SIDE_R):
            s2 = self.model.card(here, effect)[0]
            cost = to_go[s2] if s2 >= 0 else float(INF)
            if cost < best_cost:
                best, best_cost = effect, cost
        return best


def resolve_code(code: int, last: int, register: int) -> int:
    """The effect a card code performs given the previous register's action."""
    if code < NE:
        return code
    if code == C_AGAIN:
        if register == 1:
            return E_NOOP  # replaced by an unknown card
        return last if last < NE else E_NOOP
    if code == C_SIDE2:
        return C_SIDE2
    return E_NOOP
