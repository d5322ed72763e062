"""The fixed action numbering and the observation layout of the RL environments (docs/rl.md).

Actions are one :class:`gymnasium.spaces.Discrete` space of :data:`NUM_ACTIONS` numbers in
blocks; each decision kind uses its block (:func:`decision_actions`), and a program is built
over several steps, one register at a time (:data:`HAND` and :data:`PAIR`).

An observation is one flat ``float32`` vector with values in ``[0, 1]``; :class:`Encoder`
builds it and :meth:`Encoder.layout` names its parts (:meth:`Encoder.split` gives them back
as shaped views).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from roborally.engine.core.board import Grid
from roborally.engine.core.decisions import Decision, DecisionKind
from roborally.engine.core.geometry import Direction, Turn
from roborally.engine.core.state import GameConfig, GameState

# ---------------------------------------------------------------------------- actions
#: The most cards a hand holds (9; 10 with Flash Drive or Extra Memory) and its action slots.
MAX_HAND = 12
#: The most options an option-list decision offers through :data:`OPTION` (more are not
#: reachable; no shipped course comes near).
MAX_OPTIONS = 48
#: The most start spaces (numbered 1..8).
MAX_STARTS = 8

HAND = 0  # HAND + i: put the card of hand slot i into the next open register
PAIR = HAND + MAX_HAND  # PAIR + 0 / 1: a Crab Legs pair move1+rotate_left / move1+rotate_right
START = PAIR + 2  # START + n - 1: start space n (start_space, block_start)
FACING = START + MAX_STARTS  # FACING + d: N, E, S, W (reboot_facing)
NO = FACING + 4  # no / False (shutdown, power_down, a yes/no choice)
YES = NO + 1  # yes / True
SIDE = YES + 1  # SIDE + 0 / 1: LEFT / RIGHT (sidestep)
OPTION = SIDE + 2  # OPTION + k: the k-th option of any other decision
NUM_ACTIONS = OPTION + MAX_OPTIONS

#: The blocks of the numbering: (name, first action, size, meaning), for docs/rl.md.
BLOCKS: tuple[tuple[str, int, int, str], ...] = (
    ("HAND", HAND, MAX_HAND, "program: the card of hand slot i into the next open register"),
    ("PAIR", PAIR, 2, "program (2023 Crab Legs): move1+rotate_left, move1+rotate_right"),
    ("START", START, MAX_STARTS, "start_space / block_start: start space n = i + 1"),
    ("FACING", FACING, 4, "reboot_facing: N, E, S, W"),
    ("NO", NO, 1, "shutdown / power_down: False; a choice between yes and no: no"),
    ("YES", YES, 1, "shutdown / power_down: True; a choice between yes and no: yes"),
    ("SIDE", SIDE, 2, "sidestep: LEFT, RIGHT"),
    ("OPTION", OPTION, MAX_OPTIONS, "any other decision: its i-th option (decision.options[i])"),
)

_LETTERS = {"N": 0, "E": 1, "S": 2, "W": 3}
_SIDES = {"LEFT": 0, "RIGHT": 1}


def decision_actions(decision: Decision) -> dict[int, Any]:
    """The actions that answer a decision other than a program, each with its choice.

    Start spaces, facings, yes/no and sides have their own blocks; every other option (an
    upgrade step, a card order, a classic re-entry square with its facing ``"8,12 N"``, an
    option card) is numbered by its place in ``decision.options``.
    """
    actions: dict[int, Any] = {}
    kind = decision.kind
    options = decision.options
    yes_no = set(options) <= {"yes", "no"} if kind is DecisionKind.CHOICE else False
    for index, option in enumerate(options):
        action: int | None = None
        if kind in (DecisionKind.START_SPACE, DecisionKind.BLOCK_START):
            if isinstance(option, int) and 1 <= option <= MAX_STARTS:
                action = START + option - 1
        elif isinstance(option, bool):
            action = YES if option else NO
        elif yes_no:
            action = YES if option == "yes" else NO
        elif kind is DecisionKind.REBOOT_FACING and option in _LETTERS:
            action = FACING + _LETTERS[option]
        elif kind is DecisionKind.SIDESTEP and option in _SIDES:
            action = SIDE + _SIDES[option]
        if action is None and index < MAX_OPTIONS:
            action = OPTION + index
        if action is not None and action not in actions:
            actions[action] = option
    return actions


# ------------------------------------------------------------------------ observation
#: Card types shared by both editions (a classic card ``move1@490`` has type ``move1``).
BASE_CARDS = (
    "move1",
    "move2",
    "move3",
    "back_up",
    "move_back",
    "rotate_left",
    "rotate_right",
    "u_turn",
    "power_up",
    "again",
)

#: The board planes: static ones (the course), then three that change.
PLANES = (
    "floor",
    "pit",
    "wall_n",
    "wall_e",
    "wall_s",
    "wall_w",
    "green_belt_n",
    "green_belt_e",
    "green_belt_s",
    "green_belt_w",
    "blue_belt_n",
    "blue_belt_e",
    "blue_belt_s",
    "blue_belt_w",
    "gear_cw",
    "gear_ccw",
    "pusher_n",
    "pusher_e",
    "pusher_s",
    "pusher_w",
    "laser",
    "battery",
    "repair",
    "crusher",
    "reboot",
    "start",
    "checkpoint",
    "next_checkpoint",
    "me",
    "others",
)
STATIC_PLANES = PLANES.index("next_checkpoint")

#: The features of each robot (one row per seat, the observer first).
ROBOT_FEATURES = (
    "in_game",
    "on_board",
    "x",
    "y",
    "facing_n",
    "facing_e",
    "facing_s",
    "facing_w",
    "checkpoints",
    "energy",
    "damage",
    "lives",
    "shutdown",
    "programmed",
    "priority",
    "upgrades",
)
#: The global features (after the kind of the decision asked, one-hot over DecisionKind).
GLOBAL_FEATURES = ("round", "register", "placed", "options")
KINDS = tuple(DecisionKind)
KIND_INDEX = {kind: i for i, kind in enumerate(KINDS)}


@dataclass(frozen=True)
class Part:
    """One part of the flat observation: ``obs[start:start + size].reshape(shape)``."""

    name: str
    start: int
    shape: tuple[int, ...]

    @property
    def size(self) -> int:
        return int(np.prod(self.shape))


class Encoder:
    """Turns a game state into the observation vector of one seat.

    Only what :func:`roborally.api.observe` shows that seat is encoded: the board, every
    robot's public facts (position, facing, checkpoints, energy, classic damage and lives,
    shutdown, installed upgrades), the seat's own hand and registers, and the decision asked.
    The course's planes are computed once (:meth:`static_for`) and copied into each
    observation.
    """

    def __init__(self, config: GameConfig, grid: Grid, max_rounds: int) -> None:
        self.width, self.height = grid.width, grid.height
        self.players = len(config.players)
        self.max_rounds = max(1, max_rounds)
        names = list(BASE_CARDS)
        for spec in config.damage_deck.cards:
            if spec.name not in names:
                names.append(spec.name)
        names.append("other")
        self.cards = tuple(names)
        self.card_index = {name: i for i, name in enumerate(names)}
        self.card_features = len(names) + 2  # types, priority, used (hand) / locked (register)
        self.checkpoints = len(grid.checkpoints)
        cells = self.width * self.height
        parts: list[Part] = []
        start = 0
        for name, shape in (
            ("board", (len(PLANES), self.height, self.width)),
            ("robots", (self.players, len(ROBOT_FEATURES))),
            ("hand", (MAX_HAND, self.card_features)),
            ("registers", (5, self.card_features)),
            ("decision", (len(KINDS) + len(GLOBAL_FEATURES),)),
        ):
            part = Part(name, start, shape)
            parts.append(part)
            start += part.size
        self.parts = tuple(parts)
        self.size = start
        self._robots = parts[1].start
        self._hand = parts[2].start
        self._registers = parts[3].start
        self._decision = parts[4].start
        self._cells = cells
        self._grid: Grid | None = None
        self._template = np.zeros(self.size, dtype=np.float32)
        self._card_cache: dict[str, tuple[int, float]] = {}
        self.static_for(grid)

    # ------------------------------------------------------------------ layout
    def layout(self) -> dict[str, tuple[int, tuple[int, ...]]]:
        """Each part's first index in the vector and its shape."""
        return {part.name: (part.start, part.shape) for part in self.parts}

    def split(self, observation: np.ndarray) -> dict[str, np.ndarray]:
        """The parts of an observation vector, as shaped views."""
        return {
            part.name: observation[part.start : part.start + part.size].reshape(part.shape)
            for part in self.parts
        }

    # ------------------------------------------------------------------ the board
    def static_for(self, grid: Grid) -> None:
        """Compute the course's planes (once per grid: the grids are shared and immutable)."""
        if grid is self._grid:
            return
        if (grid.width, grid.height) != (self.width, self.height):
            raise ValueError("the course changed size; make a new environment")
        planes = np.zeros((len(PLANES), self.height, self.width), dtype=np.float32)
        plane = {name: i for i, name in enumerate(PLANES)}
        beams = [0] * len(grid.cells)
        for _, laser, path in grid.lasers:
            for i in path:
                beams[i] += laser.beams
        total = max(1, len(grid.checkpoints))
        for i, cell in enumerate(grid.cells):
            if cell is None:
                continue
            x, y = i % self.width, i // self.width
            active = not grid.inactive[i]
            planes[plane["floor"], y, x] = 1
            planes[plane["pit"], y, x] = cell.pit
            for d in Direction:
                if grid.walls[i] & (1 << d):
                    planes[plane["wall_n"] + d, y, x] = 1
            belt = grid.belts[i]
            if belt is not None:
                base = plane["blue_belt_n"] if belt.color == "blue" else plane["green_belt_n"]
                planes[base + belt.out, y, x] = 1
            if active and cell.gear is not None:
                planes[plane["gear_cw"] if cell.gear is Turn.RIGHT else plane["gear_ccw"], y, x] = 1
            if active and cell.pusher is not None:
                planes[plane["pusher_n"] + cell.pusher.direction, y, x] = 1
            planes[plane["laser"], y, x] = min(beams[i], 3) / 3
            planes[plane["battery"], y, x] = active and cell.battery
            planes[plane["repair"], y, x] = active and cell.repair > 0
            planes[plane["crusher"], y, x] = active and cell.crusher is not None
            planes[plane["reboot"], y, x] = cell.reboot is not None
            planes[plane["start"], y, x] = cell.start is not None
            if cell.checkpoint is not None:
                planes[plane["checkpoint"], y, x] = cell.checkpoint / total
        self._template[: planes.size] = planes.ravel()
        self._grid = grid
        self._checkpoint_cells = [grid.index(p) for p in grid.checkpoints]

    # ------------------------------------------------------------------ one view
    def card(self, name: str) -> tuple[int, float]:
        """A card name's type index and priority (classic ``move1@490``: 0.49)."""
        known = self._card_cache.get(name)
        if known is None:
            kind, _, priority = name.partition("@")
            index = self.card_index.get(kind, len(self.cards) - 1)
            known = self._card_cache[name] = (index, int(priority) / 1000 if priority else 0.0)
        return known

    def encode(
        self,
        state: GameState,
        seat: int,
        decision: Decision | None,
        placed: Sequence[str] = (),
        used: Sequence[int] = (),
        options: int = 0,
    ) -> np.ndarray:
        """The observation of ``seat``: ``decision`` is the one it is asked (if any),
        ``placed`` the units it has put in its next registers so far, ``used`` their hand
        slots, ``options`` how many actions the decision offers."""
        obs = self._template.copy()
        width, cells = self.width, self._cells
        players = state.players
        n = len(players)
        me = players[seat]
        # Planes that change: my next checkpoint, me, the others.
        if me.checkpoint < len(self._checkpoint_cells):
            obs[STATIC_PLANES * cells + self._checkpoint_cells[me.checkpoint]] = 1
        robots = self._robots
        features = len(ROBOT_FEATURES)
        checkpoints = max(1, self.checkpoints)
        w1, h1 = max(1, self.width - 1), max(1, self.height - 1)
        first = state.priority % n
        for k in range(n):
            player = players[(seat + k) % n]
            row = robots + k * features
            pos = player.pos
            eliminated = getattr(player, "eliminated", False)
            obs[row] = not eliminated
            if pos is not None:
                obs[row + 1] = 1
                obs[row + 2] = pos[0] / w1
                obs[row + 3] = pos[1] / h1
                plane = STATIC_PLANES + (1 if k == 0 else 2)
                obs[plane * cells + pos[1] * width + pos[0]] = 1
            obs[row + 4 + player.facing] = 1
            obs[row + 8] = min(player.checkpoint / checkpoints, 1.0)
            obs[row + 9] = min(player.energy / 10, 1.0)
            damage = getattr(player, "damage", None)
            if damage is not None:  # classic: damage tokens and lives
                obs[row + 10] = min(damage / 10, 1.0)
                obs[row + 11] = min(player.lives / 4, 1.0)  # type: ignore[attr-defined]
            obs[row + 12] = player.shutdown
            obs[row + 13] = player.programmed
            obs[row + 14] = player.seat == first
            obs[row + 15] = min(len(player.installed) / 6, 1.0)
        # My hand and registers.
        stride = self.card_features
        hand = self._hand
        for slot, card in enumerate(me.hand[:MAX_HAND]):
            index, priority = self.card(card.name)
            at = hand + slot * stride
            obs[at + index] = 1
            obs[at + stride - 2] = priority
        for slot in used:
            obs[hand + slot * stride + stride - 1] = 1
        registers = self._registers
        if decision is not None and decision.kind is DecisionKind.PROGRAM:
            locked = decision.info["locked"]
        elif hasattr(me, "locked_registers"):  # classic: by damage tokens
            locked = me.locked_registers()
        else:
            locked = [r + 1 for r, register in enumerate(me.registers) if register.locked]
        open_registers = [r for r in range(len(me.registers)) if r + 1 not in locked]
        filling = dict(zip(open_registers, placed, strict=False))
        for r, register in enumerate(me.registers[:5]):
            at = registers + r * stride
            if r + 1 in locked:
                obs[at + stride - 1] = 1
            unit = filling.get(r)
            names = unit.split("+") if unit else [c.name for c in register.cards]
            for name in names:
                index, priority = self.card(name)
                obs[at + index] = 1
                obs[at + stride - 2] = priority
        # The decision.
        at = self._decision
        if decision is not None:
            obs[at + KIND_INDEX[decision.kind]] = 1
        at += len(KINDS)
        obs[at] = min(state.round / self.max_rounds, 1.0)
        obs[at + 1] = state.register / 5
        obs[at + 2] = len(placed) / 5
        obs[at + 3] = min(options / MAX_OPTIONS, 1.0)
        return obs
