"""The target a weapon question names (``info.target``) in a real game, played the way the
browser test (tests/server/browser/test_browser_decisions.py) plays it in the page.

The server seeds its bots from the game seed (``derive_seed(seed, "bot/<seat>")``), so a game
with a host-chosen seed can be played here, in-process, exactly as the server plays it, with the
person's answers scripted the way the browser test clicks them: the first start space, a weapon
upgrade installed when one is offered (else one upgrade drawn), the first five hand cards as the
program, no shutdown. :func:`play_to_weapon_question` is also how :data:`WEAPON_SEED` was found
(the first seed from 0 whose game gets there with no other question for the person); if a change
to the engine or the random bot moves the game elsewhere, search again::

    next(s for s in range(1000) if isinstance(play_to_weapon_question(s), Reached))
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from roborally.bots.random_bot import make_bot
from roborally.engine.core.decisions import Action, Decision, DecisionKind
from roborally.engine.core.events import EventKind
from roborally.engine.core.geometry import Pos
from roborally.engine.core.rng import derive_seed
from roborally.engine.game import Game
from roborally.engine.rules2023.weapons import REPLACEMENT_WEAPONS
from roborally.server.settings import GameSettings, ServerOptions

#: Ada (the person, seat 0) against Bo (the random bot, seat 1) on the tiny course, 2023 rules.
NAMES = ("Ada", "Bo")
#: The seed whose game asks Ada to fire her Tractor Beam at Bo in round 1, register 4.
WEAPON_SEED = 23
WEAPON = "tractor_beam"
#: Ada's answers up to the question (decision id, choice) as the page gives them.
WEAPON_ANSWERS = [
    ("t0-p1-start_space", 1),
    ("t1-p1-upgrade-0", "install tractor_beam"),
    ("t1-p1-upgrade-1", "done"),
    ("t1-p1-program", ("move3", "rotate_left", "again", "rotate_left", "rotate_right")),
    ("t1-p1-shutdown", False),
]


@dataclass
class Reached:
    """The weapon question, the game waiting for it, and Ada's answers before it."""

    decision: Decision
    game: Game
    answers: list[tuple[str, Any]] = field(default_factory=list)


def new_game(seed: int) -> Game:
    """The game a server builds for ``POST /api/games`` with this seed, the tiny course and the
    2023 edition's defaults (no variants, no timer, the server's round limit)."""
    settings = GameSettings(
        edition="2023",
        course="tiny",
        variants=(),
        timer_seconds=0,
        decision_seconds=60,
        grace_seconds=30,
        max_rounds=ServerOptions().max_rounds,
        seed=seed,
        first_player=None,
    )
    return Game(settings.config(NAMES))


def _has_weapon(game: Game) -> bool:
    ada = game.state.players[0]
    return any(c.name in REPLACEMENT_WEAPONS for c in [*ada.installed, *ada.reserve])


def ada_answer(game: Game, decision: Decision) -> Any:
    """What the browser test clicks for ``decision``, or None if it is not in its script."""
    if decision.kind == DecisionKind.START_SPACE:
        return decision.options[0]
    if decision.kind == DecisionKind.SHUTDOWN:
        return False  # the page answers it from the program's (unticked) shutdown box
    if decision.kind == DecisionKind.UPGRADE_PHASE:
        options = [str(o) for o in decision.options]
        weapons = [o for o in options if o.split(" ")[-1] in REPLACEMENT_WEAPONS]
        installs = [o for o in weapons if o.startswith("install ")]
        if installs:
            return installs[0]
        return "draw" if "draw" in options and not _has_weapon(game) else "done"
    if decision.kind == DecisionKind.PROGRAM:
        hand, locked = decision.info["hand"], decision.info.get("locked")
        return None if locked or len(hand) < 5 else tuple(hand[:5])
    return None


def play_to_weapon_question(seed: int, rounds: int = 4) -> Reached | str:
    """Play the scripted game until Ada is asked which weapon to fire (a :class:`Reached`), or
    say why not (another question for Ada, too many rounds, the game over)."""
    game = new_game(seed)
    bot = make_bot("random", derive_seed(seed, "bot/1"))
    answers: list[tuple[str, Any]] = []
    while not game.is_over():
        pending = game.pending_decisions()
        mine = next((d for d in pending if d.seat == 1), None)
        if mine is not None:
            game.apply(Action(mine.id, 1, bot.choose(game.observation(1), mine)))
            continue
        decision = pending[0]
        if game.state.round > rounds:
            return "too many rounds"
        if decision.kind == DecisionKind.UPGRADE and decision.id.endswith("-weapon"):
            return Reached(decision, game, answers)
        choice = ada_answer(game, decision)
        if choice is None:
            return f"another question: {decision.id}"
        answers.append((decision.id, choice))
        game.apply(Action(decision.id, 0, choice))
    return "game over"


def test_the_weapon_question_names_the_robot_in_the_line_of_fire() -> None:
    reached = play_to_weapon_question(WEAPON_SEED)
    assert isinstance(reached, Reached), reached
    assert reached.answers == WEAPON_ANSWERS
    decision, game = reached.decision, reached.game
    assert decision.id == "t1-r4-p1-weapon" and decision.seat == 0
    assert decision.options == ("main", WEAPON)
    assert decision.info == {"target": 1}
    # Bo is the robot Ada's main laser would hit: in line, in front of her, nothing between.
    ada, bo = game.state.players
    assert ada.pos is not None and bo.pos is not None
    between: list[Pos] = []
    pos = ada.pos.step(ada.facing)
    while pos != bo.pos:
        assert abs(pos.x - ada.pos.x) + abs(pos.y - ada.pos.y) < 20, "Bo is not in front of Ada"
        between.append(pos)
        pos = pos.step(ada.facing)
    assert not set(between) & {p.pos for p in game.state.players}
    # The Tractor Beam pulls that robot one space towards Ada.
    seen, bo_pos, towards_ada = len(game.events), bo.pos, ada.facing.opposite
    game.apply(Action(decision.id, 0, WEAPON))
    moved = [
        e for e in game.events[seen:] if e.kind == EventKind.MOVED and e.cause == "tractor beam"
    ]
    assert [(e.seat, e.pos, e.to) for e in moved] == [(1, bo_pos, bo_pos.step(towards_ada))]
