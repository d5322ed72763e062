"""A small Python API for bot authors and researchers (in the spirit of OpenSpiel).

Create a game, ask which decisions it waits for and their legal options, apply a choice, clone
the game, observe it from a seat, and step through its events; let bots play games and
tournaments. Everything here is a thin layer over :class:`roborally.engine.game.Game`
(``docs/api.md`` has the reference table and longer examples).

>>> from roborally import api
>>> game = api.new_game("tiny", players=2, seed=7)
>>> decision = api.pending(game)[0]
>>> decision.kind.value, decision.seat, decision.options
('start_space', 0, (1, 2, 3, 4, 5, 6))
>>> events = api.apply(game, decision, 3)
>>> str(events[0])
'R0 P1 placed at 4,11 facing N (3)'
>>> what_if = api.clone(game)             # an independent copy for search
>>> _ = api.apply(what_if, api.pending(what_if)[0], 1)
>>> len(game.actions), len(what_if.actions)
(1, 2)
>>> obs = api.observe(game, seat=1)       # what seat 1 may see (a JSON-friendly dict)
>>> api.me(obs)["seat"], obs["players"][0]["hand"]
(1, 0)
>>> outcome = api.play(game, [api.make_bot("planner", 1), api.make_bot("random", 2)])
>>> outcome.winner
0
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from roborally.bots.base import Bot
from roborally.bots.expert import ExpertBot
from roborally.bots.planner import PlannerBot, random_program, register_course
from roborally.bots.random_bot import RandomBot, seat_seed
from roborally.bots.sim import C_EMPTY, BoardModel, MultiSim, SimRobot, card_code
from roborally.bots.simulator import End, Simulator
from roborally.bots.tournament import TournamentResult, register_bot, run_tournament
from roborally.engine.core.board import StartSpace
from roborally.engine.core.decisions import (
    TIMEOUT,
    Action,
    ActionError,
    Decision,
    DecisionKind,
    IllegalActionError,
    InvalidActionError,
    NotYourDecisionError,
)
from roborally.engine.core.events import Event, EventKind
from roborally.engine.core.geometry import Direction, Pos
from roborally.engine.core.view import choice_to_json, decision_from_json
from roborally.engine.game import Game, Outcome

__all__ = [
    "TIMEOUT",
    "Action",
    "ActionError",
    "Board",
    "Bot",
    "Decision",
    "DecisionKind",
    "Direction",
    "End",
    "Event",
    "EventKind",
    "ExpertBot",
    "Game",
    "IllegalActionError",
    "InvalidActionError",
    "NotYourDecisionError",
    "Outcome",
    "PlannerBot",
    "Pos",
    "RandomBot",
    "Simulator",
    "StartSpace",
    "Step",
    "TournamentResult",
    "apply",
    "board",
    "board_json",
    "bots_for",
    "cards",
    "choice_to_json",
    "clone",
    "decision_from_json",
    "direction",
    "legal_choices",
    "make_bot",
    "me",
    "new_game",
    "observe",
    "pending",
    "play",
    "pos",
    "random_program",
    "register_bot",
    "register_course",
    "run_tournament",
    "simulator",
    "start_spaces",
    "steps",
]


# ------------------------------------------------------------------------------- games
def new_game(
    course: str = "tiny",
    players: int = 2,
    seed: int = 1,
    edition: str = "2023",
    variants: Sequence[str] = (),
    max_rounds: int = 50,
) -> Game:
    """A new game on a shipped course (or a ``.course`` file) with ``players`` robots.

    ``edition`` is ``"2023"``, ``"classic"`` or ``"classic-1994"``; ``variants`` are that
    edition's alternative rules; ``max_rounds`` ends a game without a winner (0: no limit).
    """
    from roborally.bots.runner import new_game as _new_game

    return _new_game(course, players, seed, max_rounds, list(variants), edition)


def pending(game: Game, seat: int | None = None) -> list[Decision]:
    """The decisions the game waits for (every seat's, or one seat's)."""
    return game.pending_decisions(seat)


def legal_choices(game: Game, decision: Decision) -> list[Any]:
    """Every legal choice of a pending decision (for a program: every distinct program)."""
    return list(game.legal_choices(decision))


def apply(game: Game, decision: Decision, choice: Any) -> list[Event]:
    """Answer ``decision`` with ``choice``; returns the events it caused.

    An illegal choice raises an :class:`ActionError` and leaves the game unchanged;
    :data:`TIMEOUT` applies the decision's default.
    """
    return game.apply(Action(decision.id, decision.seat, choice))


def clone(game: Game) -> Game:
    """An independent copy of ``game`` (for search and what-ifs)."""
    return game.copy()


def observe(game: Game, seat: int | None) -> dict[str, Any]:
    """What ``seat`` may see (``None``: a spectator): positions, facings, energy, checkpoints,
    registers (own, or revealed), the own hand, and the seat's pending decisions."""
    return game.observation(seat)


def me(observation: dict[str, Any]) -> dict[str, Any]:
    """The observing seat's own player entry of an observation."""
    seat = observation["seat"]
    if seat is None:
        raise ValueError("a spectator's observation has no own robot")
    player: dict[str, Any] = observation["players"][seat]
    return player


# -------------------------------------------------------------------------------- bots
def make_bot(kind: str, seed: int = 0) -> Bot:
    """A bot by kind: ``random``, ``planner``, ``expert``, a kind added with
    :func:`register_bot`, or ``module:Class``."""
    from roborally.bots.tournament import make

    return make(kind, seed)


def bots_for(kinds: Sequence[str], seed: int = 0) -> list[Bot]:
    """One bot per seat, each with its own seed derived from the game's ``seed`` (as tournaments
    and ``roborally play`` seed them)."""
    return [make_bot(kind, seat_seed(seed, seat)) for seat, kind in enumerate(kinds)]


@dataclass(frozen=True)
class Step:
    """One answered decision while a game is played: who chose what, and what followed."""

    decision: Decision
    choice: Any
    events: list[Event]


def steps(game: Game, bots: Sequence[Bot]) -> Iterator[Step]:
    """Play ``game`` with one bot per seat, yielding every answered decision and its events.

    Each bot only ever receives ``observe(game, its seat)`` and the decision it must answer.
    """
    if len(bots) != len(game.config.players):
        raise ValueError(f"{len(game.config.players)} seats but {len(bots)} bots")
    while not game.is_over():
        waiting = game.pending_decisions()
        if not waiting:
            raise RuntimeError("the game waits for nothing but is not over")
        for decision in waiting:
            choice = bots[decision.seat].choose(game.observation(decision.seat), decision)
            events = game.apply(Action(decision.id, decision.seat, choice))
            yield Step(decision, choice, events)


def play(
    game: Game, bots: Sequence[Bot], on_event: Callable[[Event], None] | None = None
) -> Outcome:
    """Let the bots finish ``game`` (one per seat); returns its outcome."""
    for step in steps(game, bots):
        if on_event is not None:
            for event in step.events:
                on_event(event)
    outcome = game.outcome()
    assert outcome is not None
    return outcome


# ------------------------------------------------------------------------------- board
@dataclass(frozen=True)
class RobotEnd:
    """Where a lone robot ends a program: ``pos`` is ``None`` after a fall."""

    pos: Pos | None
    facing: Direction
    checkpoint: int
    fell: bool
    damage: int
    cost: float  # the planner's score: about the registers still needed to finish


class Board:
    """The public board of an observed game, with the bots' lone-robot simulator.

    It answers "where does my robot end if I play this program, ignoring the other robots?"
    and "how many registers does a robot here still need to finish?" (the distance field the
    planner uses: it knows walls, pits, belts, gears, push panels and lasers).
    """

    def __init__(self, observation: dict[str, Any]) -> None:
        self._bot = PlannerBot()
        self.observation = observation
        self.model: BoardModel = self._bot.model_for(observation)

    def to_go(self, pos: Pos, facing: Direction, reached: int = 0) -> float:
        """Registers a robot at ``pos`` facing ``facing`` needs to finish the course, having
        reached ``reached`` checkpoints (about 60 per leg where no path exists)."""
        total = len(self.model.checkpoints)
        table = self.model.to_go(min(reached, total))
        return table[self.model.grid.index(pos) * 4 + int(facing)]

    def simulate(self, program: Sequence[str | None], seat: int | None = None) -> RobotEnd:
        """Play ``program`` (5 card names, ``None`` for a locked register) for the robot of
        ``seat`` (default: the observer) alone on the board."""
        obs = self.observation
        seat = obs["seat"] if seat is None else seat
        search = self._bot.searcher(obs, seat)
        rob = search.me
        own = obs["players"][seat]
        codes = []
        for r, name in enumerate(program):
            if name is None and r < len(own["registers"]):
                cards = own["registers"][r].get("cards") or []
                name = cards[0] if cards else None
            codes.append(card_code(name, search.family) if name else C_EMPTY)
        where = rob.pos or rob.reentry or rob.archive
        if where is None:
            raise ValueError("the robot is not on the board and has no re-entry space")
        start = self.model.grid.index(where) * 4 + int(rob.facing)
        cost = search.evaluate(start, 1, codes, rob.reached)
        robot = SimRobot(where, rob.facing, rob.reached, codes)
        end = MultiSim(self.model, 1).run([robot], [0])[0]
        if end.fell:
            return RobotEnd(None, rob.facing, end.checkpoint, True, end.damage, cost)
        pos = self.model.grid.pos(end.state >> 2)
        return RobotEnd(pos, Direction(end.state & 3), end.checkpoint, False, end.damage, cost)


def board(observation: dict[str, Any]) -> Board:
    """The :class:`Board` of the observed game (cached per course and edition)."""
    return Board(observation)


def simulator(observation: dict[str, Any], seat: int | None = None) -> Simulator:
    """The fast lone-robot :class:`Simulator` of the observer's robot (or of ``seat``'s):
    integer states, ``run``, ``score_programs``, ``best_programs``, distance-to-go
    (``docs/simulator.md``)."""
    return Simulator(observation, seat)


# ------------------------------------------------------------------ course and cards
def board_json(course: str, edition: str = "2023", variants: Sequence[str] = ()) -> dict[str, Any]:
    """The course's spaces and elements as the server sends them for drawing (width, height,
    cells with walls, pits, belts, gears, pushers, lasers, checkpoints, start spaces, ...;
    ``docs/protocol.md`` 1.2), compiled as ``edition`` plays it with ``variants``."""
    from roborally.content.boardjson import course_board

    return course_board(course, edition, frozenset(variants))


def start_spaces(
    course: str, edition: str = "2023", variants: Sequence[str] = ()
) -> list[StartSpace]:
    """The course's start spaces (``number``, ``pos``, ``facing``: the facing a robot placed
    there gets) in number order."""
    from roborally.content.boardjson import course_grid
    from roborally.content.boardjson import start_spaces as _start_spaces

    return _start_spaces(course_grid(course, edition, frozenset(variants)))


def cards(edition: str = "2023") -> dict[str, list[dict[str, Any]]]:
    """The edition's cards as ``roborally cards --json`` lists them: sections (programming,
    damage, upgrade cards, ...) of entries with ``id`` (the name decisions and observations
    use), ``name``, ``type``, ``count`` and ``text``."""
    from roborally.content.catalogue import catalogue

    return catalogue(edition)


# ------------------------------------------------------------------ observation values
def pos(xy: Sequence[int] | None) -> Pos | None:
    """An observation's ``[x, y]`` (``pos``, ``reentry``, ``archive``, a checkpoint) as the
    :class:`Pos` that :meth:`Board.to_go` takes; ``None`` (off the board) stays ``None``.

    >>> pos([4, 11])
    Pos(x=4, y=11)
    """
    return None if xy is None else Pos(int(xy[0]), int(xy[1]))


def direction(letter: str) -> Direction:
    """An observation's facing (``"N"``, ``"E"``, ``"S"`` or ``"W"``) as a :class:`Direction`.

    >>> direction("E")
    <Direction.EAST: 1>
    >>> direction("W").letter
    'W'
    """
    return Direction.parse(letter)
