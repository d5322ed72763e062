"""The path preview for programming: where a robot ends after each register if nothing else
moved it (issue 12, point 4).

:func:`preview_program` takes a game waiting for a seat's program and a (possibly partial)
program, and returns one JSON-ready dict per register::

    {"register": 1, "pos": [4, 7], "facing": "N", "path": [[4, 9], [4, 8], [4, 7]],
     "rebooted": False, "certain": True}

``pos`` and ``facing`` are ``None`` while the robot is off the board; ``path`` lists the space
the robot stood on when the register began, then every space it entered during the register
(its cards, belts, push panels, a re-entry), in order, for drawing a ghost path (a step off the
course edge is left out: ``rebooted`` says it fell); ``rebooted`` says the robot left the board
in this register (a pit, the edge, a classic crusher or classic laser damage).

**How it works.** The preview runs the edition's own rules (the class the edition registers,
:class:`~roborally.engine.rules2023.Rules2023` or
:class:`~roborally.engine.classic.rules.RulesClassic`, through a subclass made here) over a
*copy* of the game state in which the other robots are off the board with nothing in their
hands, registers or upgrades, from register 1 to register 5 of the round being programmed. So
every movement, belt (express, turning), gear, push panel, pit, wall, board edge, crusher
(classic), checkpoint and the robot's own permanent upgrades (Hover Unit, Crab Legs pairs, a
Haywire's free install) act exactly as in a game where that robot is alone. The bots' lone-robot
model (``roborally.bots.sim``) was not used: it approximates several rules (Again, Brakes,
upgrades, re-entry) where this is the engine itself, and it lives above the engine.

**No hidden information.** On the copy the random generators are replaced by one that raises
if it is ever asked for a number, and every deck (the seat's own deck and discard pile, the
damage deck, the classic program and option decks, the upgrade deck) is emptied; the subclass
also answers every card draw with "no card" itself. So the preview never reads a deck's order,
another player's cards or the generator's future. Where the real game would draw a card the
preview cannot know (a SPAM's replacement, Again in register 1, the Haywire that draws two
cards, classic Abort Switch or a register locked while empty), the robot does nothing for that
card (the honest guess: it stays put) and that register and every later one are
``"certain": False``. The one card of a deck anybody may see, the top card Spam Filter turned
face up, is drawn as itself. Damage dealt in the 2023 edition (board lasers, reboots) takes no card
from the damage deck: it counts as one unknown damage card, which changes nothing in this
round's movement.

**Choices.** A question the real game would ask during activation is answered with its default
(the decision's first option or the engine's default: the reboot token's arrow, Move 2 to the
left, the cards in the order drawn, "move" for Brakes, "stay" for Drifting and Power Slide,
Gyroscopic Stabilizer off, ...) and makes that register and the later ones uncertain, except
for questions that cannot change where the robot goes: the temporary upgrades offered before
and after the card (Boink, Zoop, Overclocked, ... are not used by the preview, and say nothing
about certainty), Deflector Shield and Self-Diagnostics (2023), the option card lost on
destruction (classic), the classic damage shield unless that damage destroys the robot, and
Gyroscopic Stabilizer until a gear or turning belt would turn the robot.

A question the player answered ahead of time (``presets``: the facing a rebooted robot re-enters
with, chosen while programming) takes that answer and is as certain as any card.

A Haywire whose action is fixed (Move 1, Rotate Right, Move 1; Move 3 and U-Turn; a free
install when the reserve holds one permanent upgrade) is as certain as any card.

Nothing here changes the game (its digest is the same before and after) or advances any of
its generators. The round is previewed as it will run: a robot that falls in the 2023 edition
stays off the board until the next round; when the robot reaches its last checkpoint the game
ends and the later registers show it standing there.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any, cast

from roborally.engine.core.cards import Card, CardType
from roborally.engine.core.decisions import TIMEOUT, Decision, DecisionKind, IllegalActionError
from roborally.engine.core.driver import StageDriver
from roborally.engine.core.events import Event, EventKind
from roborally.engine.core.geometry import Pos
from roborally.engine.core.rng import Rng
from roborally.engine.core.state import NUM_REGISTERS, GameState, Player
from roborally.engine.editions import edition

if TYPE_CHECKING:
    from roborally.engine.game import Game

#: Stages that follow the last activation stage of a register in the editions' rules.
_AFTER_REGISTER = ("reveal", "end_round", "cleanup")
#: Events that put the robot on a space (``to``, or ``pos`` for a re-entry).
_ENTERING = (EventKind.MOVED, EventKind.PUSHED, EventKind.CONVEYED, EventKind.DISPLACED)
#: Upgrade questions whose answer cannot change where a lone robot goes (2023).
_QUIET_UPGRADES = ("deflector_shield", "self_diagnostics")


class NoRandom(Rng):
    """A generator that refuses to generate: the preview's copy of the game holds it."""

    __slots__ = ()
    version = "none"

    def __init__(self) -> None:
        self.state = 0

    def next64(self) -> int:
        raise AssertionError("the path preview must never use a random generator")

    def copy(self) -> NoRandom:
        return self


def preview_program(
    game: Game,
    seat: int,
    program: Sequence[str | None],
    presets: Mapping[str, Any] | None = None,
) -> list[dict[str, Any]]:
    """Where ``seat``'s robot ends after each register of ``program`` if it were alone.

    ``program`` has 5 entries like the ``program`` decision's choice: card names from the hand,
    ``None`` (or ``"-"``) for an empty or locked register, Crab Legs / Dual Processor pairs as
    ``"move1+rotate_left"``. Empty registers may be left empty (a partial program): the robot
    then does nothing but what the board does to it. Raises :class:`ValueError` (an
    :class:`~roborally.engine.core.decisions.ActionError`) when the seat is not programming now or
    the program is not one it could program (a card not in the hand, a locked register, ...).
    The game is not changed. See the module docstring for what "certain" means.

    ``presets`` maps a decision kind to the answer the seat gave ahead of its question (the
    server's ``preset`` message; today ``{"reboot_facing": "E"}``): that question of the seat's
    is answered with it, as the server will answer it, and does not make the preview
    uncertain. A preset that is not one of the question's options is ignored.
    """
    decision = _program_decision(game, seat)
    state = _lone_state(game.state, seat)
    runner = _preview_class(game.config.edition)(state)
    runner.seat = seat
    runner.presets = dict(presets or {})
    cards = runner.check_program(decision, program)
    runner.install(decision, cards)
    return runner.run()


def _program_decision(game: Game, seat: int) -> Decision:
    if game.is_over():
        raise IllegalActionError("the game is over: there is nothing to preview")
    for decision in game.pending_decisions(seat):
        if decision.kind is DecisionKind.PROGRAM:
            return decision
    raise IllegalActionError(
        f"seat {seat} is not programming now (a preview needs its pending program decision)"
    )


def _lone_state(original: GameState, seat: int) -> GameState:
    """A copy of the game with ``seat``'s robot alone, no decks and no random generator."""
    state = original.copy()
    state.events = []
    state.answers = {}
    state.rng = NoRandom()
    state.upgrade_rng = NoRandom()
    state.damage_deck = []
    state.damage_discard = []
    state.upgrade_deck = []
    state.upgrade_discard = []
    for name in ("program_deck", "program_discard", "option_deck", "option_discard"):
        if hasattr(state, name):
            setattr(state, name, [])  # the classic editions' shared decks
    for player in state.players:
        # Spam Filter's face-up top card is public (the observation shows it): it stays.
        visible = player.seat == seat and player.top_visible and player.deck
        player.deck = player.deck[-1:] if visible else []
        player.discard = []
        if player.seat != seat:
            _remove(player)
    return state


def _remove(player: Player) -> None:
    """Take a robot off the board for good, with nothing that could act or be seen."""
    player.pos = None
    player.reentry = None
    player.hand = []
    player.memory = []
    player.installed = []
    player.reserve = []
    for register in player.registers:
        register.cards = []
        register.facedown_haywire = None
        register.locked = False
    if hasattr(player, "options"):  # classic option cards
        player.options = []


class _Preview(StageDriver):
    """The edition's rules, running one round for one robot without decisions or draws."""

    seat = 0

    def __init__(self, state: GameState) -> None:
        super().__init__(state)
        self.presets: dict[str, Any] = {}  # decision kind -> the seat's answer given ahead
        self._unsure = False  # a register so far depended on something the preview cannot know
        self._shield = False  # classic: the damage shield was asked in this register
        self._stabilizer = False  # classic: Gyroscopic Stabilizer was asked (round 1)

    # ------------------------------------------------------------ the program
    def check_program(self, decision: Decision, program: Sequence[str | None]) -> list[str | None]:
        """The edition's own program check, with empty registers allowed."""
        if isinstance(program, (str, bytes)) or not isinstance(program, Sequence):
            raise IllegalActionError(f"a program is a list of {NUM_REGISTERS} entries")
        entries = [None if e in (None, "", "-") else e for e in program]
        empty = {i + 1 for i, e in enumerate(entries) if e is None}
        info = {k: v for k, v in decision.info.items() if k != "forced"}  # Rewire: partial is ok
        info["locked"] = sorted(set(decision.info["locked"]) | empty)
        return list(self.validate_program(replace(decision, info=info), tuple(entries)))

    def install(self, decision: Decision, program: list[str | None]) -> None:
        """Put the program's cards in the registers (locked registers keep theirs)."""
        player = self.s.players[self.seat]
        for index, entry in enumerate(program):
            if index + 1 in decision.info["locked"]:
                continue
            register = player.registers[index]
            register.cards = []
            register.revealed = False
            register.done = []
            for name in (entry or "").split("+"):
                if name:
                    card = next(c for c in player.hand if c.name == name)
                    player.hand.remove(card)
                    register.cards.append(card)
        self.s.register = 1
        self.s.stage = "reveal"
        self.s.turn = 0
        self.s.window = 0

    # ---------------------------------------------------------------- running
    def run(self) -> list[dict[str, Any]]:
        s = self.s
        player = s.players[self.seat]
        result: list[dict[str, Any]] = []
        for r in range(1, NUM_REGISTERS + 1):
            start = player.pos
            mark = len(s.events)
            self._shield = False
            if not s.over:
                for _ in range(50):
                    getattr(self, "stage_" + s.stage)()
                    if s.over or s.stage in _AFTER_REGISTER:
                        break
                else:  # pragma: no cover - a ruleset whose stages never finish a register
                    raise AssertionError(f"register {r} never ended (stage {s.stage})")
            events = [e for e in s.events[mark:] if e.seat == self.seat]
            result.append(self.register_result(r, start, events))
        return result

    def register_result(self, r: int, start: Pos | None, events: list[Event]) -> dict[str, Any]:
        player = self.s.players[self.seat]
        path: list[Pos] = [] if start is None else [start]
        left = False
        turned_by_board = False
        for event in events:
            if event.kind in _ENTERING and event.to is not None:
                if self.grid.is_on_course(event.to):
                    path.append(event.to)
            elif event.kind is EventKind.REENTERED and event.pos is not None:
                path.append(event.pos)
            elif event.kind in (EventKind.FELL, EventKind.DESTROYED):
                left = True
            elif event.kind is EventKind.ROTATED and event.cause in ("gear", "belt"):
                turned_by_board = True
        if self._stabilizer and turned_by_board:
            self._unsure = True  # with the stabilizer on, this turn would not happen
        if self._shield and any(
            e.kind is EventKind.DESTROYED and e.cause == "damage" for e in events
        ):
            self._unsure = True  # an option card given up would have saved the robot
        pos = player.pos
        return {
            "register": r,
            "pos": None if pos is None else [pos.x, pos.y],
            "facing": None if pos is None else player.facing.letter,
            "path": [[p.x, p.y] for p in path],
            "rebooted": left,
            "certain": not self._unsure,
        }

    def _snapshot(self) -> tuple[GameState, int]:
        """The classic stages copy the state in case they ask a question and must start over;
        here no question ever waits for an answer, so there is nothing to copy."""
        return self.s, len(self.s.events)

    # ------------------------------------------------- decisions and draws
    def ask(self, decisions: list[Decision]) -> dict[str, Any]:
        """A question the seat answered ahead (a preset) takes that answer; every other one
        takes its default, and a question that may matter makes the preview uncertain."""
        answers: dict[str, Any] = {}
        for decision in decisions:
            preset = self.presets.get(decision.kind.value)
            if decision.seat == self.seat and preset is not None and preset in decision.options:
                answers[decision.id] = preset
                continue
            self.note_question(decision)
            answers[decision.id] = TIMEOUT
        return answers

    def note_question(self, decision: Decision) -> None:
        info = decision.info
        if info.get("window") in ("pre", "post") or info.get("card") in _QUIET_UPGRADES:
            return  # temporary upgrades are not used; the others never move the robot
        what = decision.id.rsplit("-", 1)[-1]
        if decision.kind is DecisionKind.CHOICE and what == "lose_option":
            return
        if decision.kind is DecisionKind.CHOICE and what == "shield":
            self._shield = True
            return
        if decision.kind is DecisionKind.CHOICE and what == "stabilizer":
            self._stabilizer = True
            return
        self._unsure = True

    def draw(self, player: Player) -> Card | None:
        """The face-up top card (Spam Filter), else an unknown card: the robot does nothing
        for it."""
        if player.top_visible and player.deck:
            player.top_visible = False
            return player.deck.pop()
        self._unsure = True
        return None

    def _draw(self, deck: str) -> Card | None:
        """The classic editions' shared decks (see :meth:`draw`)."""
        self._unsure = True
        return None

    def draw_damage(self) -> Card | None:
        """An unknown damage card (2023): it changes nothing in this round's movement."""
        for spec in self.s.config.damage_deck.cards:
            if spec.type is CardType.SPAM:
                return Card(-1, spec.name)
        return None

    def draw_upgrade(self) -> Card | None:
        self._unsure = True
        return None


_CLASSES: dict[type, type[_Preview]] = {}


def _preview_class(edition_id: str) -> type[_Preview]:
    """:class:`_Preview` on top of the edition's own rules class."""
    rules = edition(edition_id).rules
    if not isinstance(rules, type) or not issubclass(rules, StageDriver):
        raise IllegalActionError(f"the {edition_id} edition has no rules class to preview with")
    made = _CLASSES.get(rules)
    if made is None:  # the preview's overrides first, then the edition's own rules
        made = cast(type[_Preview], type(f"Preview{rules.__name__}", (_Preview, rules), {}))
        _CLASSES[rules] = made
    return made
