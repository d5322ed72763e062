"""Scenario support for the classic rulesets: the starting position of a classic scenario and
the classic expectations (``docs/scenario-format.md``).

:mod:`roborally.content.scenario` parses the file and calls :func:`build_state` and
:func:`expectation` for scenarios with ``edition: classic`` or ``edition: classic-1994``.
Program cards are named ``TYPE@PRIORITY`` (``move1@490``); a bare type (``move1``) takes the
lowest-priority card of that type that is still free.
"""

from __future__ import annotations

from typing import Any

from roborally.content.scenario_error import ScenarioError
from roborally.engine.classic.choices import ClassicChoices
from roborally.engine.classic.model import (
    NUM_REGISTERS,
    ClassicPlayer,
    ClassicState,
    card_type,
    locks_for,
)
from roborally.engine.classic.setup import setup_state
from roborally.engine.core.cards import Card
from roborally.engine.core.events import Event, EventKind
from roborally.engine.core.state import GameConfig

#: Robot attributes (indented lines under ``robot NAME:``) only classic scenarios use.
ROBOT_ATTRIBUTES = frozenset(
    {"damage", "lives", "options", "powered", "announced", "dock", "register", "stored"}
    | {"destroyed"}
)
#: The option cards that let two program cards share a register (a ``+`` pair).
PAIR_OPTIONS = ("crab_legs", "dual_processor")
#: Top-level keys only classic scenarios use.
TOP_LEVEL_KEYS = frozenset({"program deck", "option deck"})
#: Expectations only classic scenarios use.
EXPECTATIONS = frozenset(
    {
        "damage tokens",
        "lives",
        "options",
        "powered down",
        "announced",
        "locked",
        "archive",
        "eliminated",
        "destructions",
        "stored",
        "places",
        "program discard",
        "option discard",
        "program cards",
        "dealt",
    }
)


def _error(scenario: Any, line: int, message: str) -> Exception:
    return ScenarioError(scenario.path, line, 1, message)


class _Pool:
    """The cards of one deck, taken out by name as the scenario places them."""

    def __init__(self, cards: list[Card], scenario: Any, what: str) -> None:
        self.cards = list(cards)
        self.scenario = scenario
        self.what = what

    def take(self, name: str, line: int) -> Card:
        name = name.strip().lower()
        exact = next((c for c in self.cards if c.name == name), None)
        if exact is None:
            matches = [c for c in self.cards if card_type(c) == name]
            exact = min(matches, key=lambda c: c.priority) if matches else None
        if exact is None:
            raise _error(
                self.scenario, line, f"no {self.what} {name!r} left (each card exists once)"
            )
        self.cards.remove(exact)
        return exact


def build_state(scenario: Any, config: GameConfig) -> ClassicState:
    """The starting position of a classic scenario (robots, registers, decks) for ``config``
    (the scenario's course, robots, seed and variants)."""
    try:
        state = setup_state(config)
    except ValueError as problem:
        raise _error(scenario, 1, str(problem)) from None
    programs = _Pool(state.program_deck, scenario, "program card")
    options = _Pool(state.option_deck, scenario, "option card")
    seq = 0
    for setup, player in zip(scenario.robots, state.players, strict=True):
        assert isinstance(player, ClassicPlayer)
        player.pos, player.facing = setup.pos, setup.facing
        player.archive, player.archive_arrow = setup.archive or (setup.pos, setup.facing)
        player.checkpoint = setup.checkpoint
        player.hand = [programs.take(n, setup.line) for n in setup.hand]
        player.shutdown = setup.shutdown
        player.programmed = True
        given: set[int] = set()
        pairs: dict[int, int] = {}  # register index -> the line that put several cards in it
        for word, rest, line in setup.classic:
            parts = rest.split()
            try:
                if word == "damage":
                    player.damage = int(rest)
                elif word == "lives":
                    player.lives = int(rest)
                    player.eliminated = player.lives <= 0
                elif word == "options":
                    for entry in parts:
                        option, _, tokens = entry.partition(":")
                        player.options.append(options.take(option, line))
                        if tokens:
                            player.option_tokens[option] = int(tokens)
                elif word == "powered":
                    player.shutdown = True
                elif word == "announced":
                    player.announced = True
                elif word == "dock":
                    player.dock = int(rest)
                elif word == "register":
                    number = int(parts[0])
                    if not 1 <= number <= NUM_REGISTERS or len(parts) != 2:
                        raise ValueError
                    player.registers[number - 1].cards = [
                        programs.take(n, line) for n in parts[1].split("+")
                    ]
                    player.registers[number - 1].revealed = True
                    given.add(number)
                    if "+" in parts[1]:
                        pairs[number - 1] = line
                elif word == "stored":
                    player.stored[parts[0]] = programs.take(parts[1], line)
                elif word == "destroyed":
                    seq += 1
                    player.pos = None
                    player.destroyed = True
                    player.destroyed_seq = seq
                    state.destroy_count = seq
                    player.reentry = player.archive
            except (ValueError, IndexError) as problem:
                if type(problem).__name__ == "ScenarioError":
                    raise
                message = f"cannot read robot attribute {word} {rest!r}"
                raise _error(scenario, line, message) from None
        program = scenario.programs.get(setup.name)
        if not scenario.from_round_start and program is not None:
            for index, entry in enumerate(program):
                if entry is None or index + 1 in given:
                    continue
                register = player.registers[index]
                line = scenario.program_lines.get(setup.name, setup.line)
                register.cards = [programs.take(n, line) for n in entry.split("+")]
                if "+" in entry:
                    pairs[index] = line
        _check_pairs(scenario, setup.name, player, pairs)
        for r in locks_for(player.damage):
            player.registers[r - 1].locked = True
    if len({p.dock for p in state.cplayers}) != len(state.players):
        raise _error(scenario, 1, "two robots have the same dock number")
    state.priority = min(range(len(state.players)), key=lambda s: state.player(s).dock)
    deck = list(programs.cards)
    top = scenario.classic.get("program deck")
    if top is not None:
        chosen = [programs.take(n, top[1]) for n in top[0].split()]
        deck = [c for c in deck if c not in chosen] + list(reversed(chosen))
        state.stacked = True
    state.program_deck = deck
    option_deck = list(options.cards)
    otop = scenario.classic.get("option deck")
    if otop is not None:
        chosen_options = [options.take(n, otop[1]) for n in otop[0].split()]
        option_deck = [c for c in option_deck if c not in chosen_options]
        option_deck += list(reversed(chosen_options))
    state.option_deck = option_deck
    state.round = scenario.round
    if scenario.from_round_start:
        state.round = scenario.round - 1
        state.stage = "round_start"
    else:
        state.register = scenario.run_from
        state.stage = "reveal"
    return state


def _check_pairs(scenario: Any, name: str, player: ClassicPlayer, lines: dict[int, int]) -> None:
    """Two cards share a register only as a pair the robot's options allow (8.3 #6, #8): the
    rules would execute any other pair wrongly, or stop on it. ``lines`` maps the registers
    holding several cards to the scenario lines that put them there."""
    held = [option for option in PAIR_OPTIONS if player.has(option)]
    for index, line in lines.items():
        cards = [c.name for c in player.registers[index].cards]
        if len(cards) > 2:
            message = f"{'+'.join(cards)}: at most two cards share a register"
        elif not held:
            message = f"a '+' pair needs Crab Legs or Dual Processor; {name} has neither"
        elif not ClassicChoices.pair_modes(cards, held):
            message = (
                f"{'+'.join(cards)} is not a pair {name}'s options allow (Crab Legs: a Move 1"
                " with a Rotate Left or Right; Dual Processor: a move and a turn)"
            )
        else:
            continue
        raise _error(scenario, line, message)


def expectation(
    what: str, state: Any, player: Any, names: tuple[str, ...], events: list[Event]
) -> str:
    """The actual value of a classic expectation, as the scenario writes it."""
    assert isinstance(state, ClassicState)
    if what == "places":
        return " ".join(names[s] for s in state.places) or "-"
    if what == "program discard":
        return " ".join(sorted(c.name for c in state.program_discard)) or "-"
    if what == "option discard":
        return " ".join(sorted(c.name for c in state.option_discard)) or "-"
    if what == "program cards":
        return str(len(state.all_program_cards()))
    assert isinstance(player, ClassicPlayer), f"expect {what} needs a robot"
    if what == "dealt":
        return str(player.dealt)
    if what == "damage tokens":
        return str(player.damage)
    if what == "lives":
        return str(player.lives)
    if what == "options":
        return " ".join(sorted(player.option_names())) or "-"
    if what == "powered down":
        return "yes" if player.shutdown else "no"
    if what == "announced":
        return "yes" if player.announced else "no"
    if what == "locked":
        return " ".join(str(r) for r in player.locked_registers()) or "-"
    if what == "archive":
        return "-" if player.archive is None else str(player.archive)
    if what == "eliminated":
        return "yes" if player.eliminated else "no"
    if what == "destructions":
        destroyed = [e for e in events if e.kind is EventKind.DESTROYED and e.seat == player.seat]
        return str(len(destroyed))
    if what == "stored":
        return " ".join(f"{k} {v.name}" for k, v in sorted(player.stored.items())) or "-"
    raise AssertionError(what)
