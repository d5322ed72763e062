"""The public :class:`Game` API: refusing illegal actions, enumerating choices, observations.

Illegal actions must raise the right :class:`ActionError` subclass and leave the game exactly as it
was (digest, pending decisions, actions, events). Observations must show each seat only what the
rules let it see (spec 4.7).
"""

from __future__ import annotations

import dataclasses
import doctest
import importlib
import json
import pkgutil
from collections import Counter
from collections.abc import Callable
from functools import cache
from itertools import permutations, product
from types import ModuleType
from typing import Any

import pytest

import roborally.bots.random_bot
import roborally.engine
from roborally.bots.random_bot import RandomBot
from roborally.bots.runner import new_game
from roborally.engine.core.cards import PROGRAMMING_CARDS
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
from roborally.engine.core.events import EventKind
from roborally.engine.core.state import NUM_REGISTERS
from roborally.engine.game import Game

ALL_NAMES = list(PROGRAMMING_CARDS)  # the 9 kinds of programming card


# ------------------------------------------------------------------------------ helpers
def bot_move(game: Game, bots: list[RandomBot]) -> None:
    d = game.pending_decisions()[0]
    game.apply(Action(d.id, d.seat, bots[d.seat].choose(game.observation(d.seat), d)))


@cache
def _find(what: str, players: int = 3, variants: tuple[str, ...] = ()) -> tuple[int, int]:
    """(seed, number of actions) of the first random-bot game reaching a decision ``what``."""
    wanted = FINDERS[what]
    for seed in range(500):
        game = new_game("tiny", players, seed, max_rounds=20, variants=list(variants))
        bots = [RandomBot(seed=seed * 10 + i) for i in range(players)]
        while not game.is_over():
            if any(wanted(game, d) for d in game.pending_decisions()):
                return seed, len(game.actions)
            bot_move(game, bots)
    raise AssertionError(f"no game reached {what}")


def reach(what: str, players: int = 3, variants: tuple[str, ...] = ()) -> tuple[Game, Decision]:
    """A fresh game stopped at a pending decision matching ``what``."""
    seed, count = _find(what, players, variants)
    game = new_game("tiny", players, seed, max_rounds=20, variants=list(variants))
    bots = [RandomBot(seed=seed * 10 + i) for i in range(players)]
    for _ in range(count):
        bot_move(game, bots)
    decision = next(d for d in game.pending_decisions() if FINDERS[what](game, d))
    return game, decision


def _facedown(game: Game, d: Decision) -> bool:
    return any(r.facedown_haywire is not None for p in game.state.players for r in p.registers)


def _revealed_mix(game: Game, d: Decision) -> bool:
    """Mid-activation: some register revealed, later registers still face down."""
    s = game.state
    return s.register in (1, 2, 3) and any(
        p.registers[s.register].cards and not p.registers[s.register].revealed for p in s.players
    )


FINDERS: dict[str, Callable[[Game, Decision], bool]] = {
    "program": lambda g, d: d.kind is DecisionKind.PROGRAM,
    "locked": lambda g, d: d.kind is DecisionKind.PROGRAM and bool(d.info["locked"]),
    "shutdown": lambda g, d: d.kind is DecisionKind.SHUTDOWN,
    "reboot_facing": lambda g, d: d.kind is DecisionKind.REBOOT_FACING,
    "sidestep": lambda g, d: d.kind is DecisionKind.SIDESTEP,
    "card_order": lambda g, d: d.kind is DecisionKind.CARD_ORDER,
    "block_start": lambda g, d: d.kind is DecisionKind.BLOCK_START,
    "facedown": _facedown,
    "revealed_mix": _revealed_mix,
}


def snapshot(game: Game) -> tuple[Any, ...]:
    return (
        game.digest(),
        game.pending_decisions(),
        list(game.actions),
        len(game.events),
        game.state.to_dict(),
    )


def assert_refused(game: Game, action: Action, error: type[ActionError]) -> str:
    before = snapshot(game)
    with pytest.raises(ActionError) as info:
        game.apply(action)
    assert type(info.value) is error, (
        f"{action.choice!r}: {type(info.value).__name__}: {info.value}"
    )
    assert snapshot(game) == before, "a refused action changed the game"
    # check() refuses it the same way and changes nothing either.
    with pytest.raises(error):
        game.check(action)
    assert snapshot(game) == before
    return str(info.value)


def a_legal_program(decision: Decision) -> tuple[str | None, ...]:
    return next(iter(Game.legal_choices(_any_game(), decision)))


@cache
def _any_game() -> Game:
    return new_game("tiny", 2, 1)


# ------------------------------------------------------------------- refused actions
def test_wrong_decision_id_is_refused() -> None:
    game = new_game("tiny", 2, 5)
    d = game.pending_decisions()[0]
    message = assert_refused(
        game, Action("t9-p1-program", d.seat, d.options[0]), NotYourDecisionError
    )
    assert "t9-p1-program" in message and d.id in message
    assert_refused(game, Action("", d.seat, d.options[0]), NotYourDecisionError)


def test_wrong_seat_is_refused() -> None:
    game, d = reach("program")
    choice = a_legal_program(d)
    other = (d.seat + 1) % 3
    assert_refused(game, Action(d.id, other, choice), NotYourDecisionError)
    assert_refused(game, Action(d.id, str(d.seat), choice), NotYourDecisionError)
    assert_refused(game, Action(d.id, -1, choice), NotYourDecisionError)
    assert_refused(game, Action(d.id, other, TIMEOUT), NotYourDecisionError)


def test_a_decision_cannot_be_answered_twice() -> None:
    game, d = reach("program")
    game.apply(Action(d.id, d.seat, TIMEOUT))
    assert d.id not in [p.id for p in game.pending_decisions()]
    assert_refused(game, Action(d.id, d.seat, TIMEOUT), NotYourDecisionError)


def test_program_with_a_card_not_in_hand_is_refused() -> None:
    game, d = reach("program")
    hand = Counter(d.info["hand"])
    absent = next((n for n in ALL_NAMES if n not in hand), "hw_two")
    program = list(a_legal_program(d))
    program[0] = absent
    message = assert_refused(game, Action(d.id, d.seat, tuple(program)), IllegalActionError)
    assert absent in message
    program[0] = "warp_drive"  # not a card at all
    assert_refused(game, Action(d.id, d.seat, tuple(program)), IllegalActionError)


def test_program_using_a_card_more_often_than_held_is_refused() -> None:
    game, d = reach("program")
    hand = Counter(d.info["hand"])
    name, held = min(hand.items(), key=lambda item: item[1])
    assert held < NUM_REGISTERS
    program = [name] * (held + 1) + [n for n in d.info["hand"] if n != name]
    message = assert_refused(
        game, Action(d.id, d.seat, tuple(program[:NUM_REGISTERS])), IllegalActionError
    )
    assert f"{name} is used {held + 1} time(s)" in message


def test_program_with_too_few_cards_is_refused() -> None:
    game, d = reach("program")
    program = list(a_legal_program(d))
    program[2] = None
    assert_refused(game, Action(d.id, d.seat, tuple(program)), IllegalActionError)
    program[2] = "-"
    assert_refused(game, Action(d.id, d.seat, tuple(program)), IllegalActionError)
    assert_refused(game, Action(d.id, d.seat, (None,) * NUM_REGISTERS), IllegalActionError)


def test_program_for_a_locked_register_is_refused() -> None:
    game, d = reach("locked")
    locked = d.info["locked"]
    assert game.state.players[d.seat].registers[locked[0] - 1].locked
    hand = list(d.info["hand"])
    program = [hand.pop() for _ in range(NUM_REGISTERS)]  # a card in every register
    message = assert_refused(game, Action(d.id, d.seat, tuple(program)), IllegalActionError)
    assert f"register {locked[0]}" in message
    # Leaving the locked register empty is the legal form.
    legal = tuple(None if i + 1 in locked else name for i, name in enumerate(program))
    game.check(Action(d.id, d.seat, legal))
    game.apply(Action(d.id, d.seat, legal))


@pytest.mark.parametrize(
    "choice",
    [3, {"registers": []}, None, ("move1",) * 4, ("move1",) * 6, "move1 move1 move1 move1 move1"],
    ids=["int", "dict", "none", "four", "six", "string"],
)
def test_malformed_program_is_invalid(choice: Any) -> None:
    game, d = reach("program")
    assert_refused(game, Action(d.id, d.seat, choice), InvalidActionError)


def test_program_entries_must_be_card_names() -> None:
    game, d = reach("program")
    program: list[Any] = list(a_legal_program(d))
    for bad in (1, 2.5, ["move1"], {"card": "move1"}, True):
        program[0] = bad
        assert_refused(game, Action(d.id, d.seat, tuple(program)), InvalidActionError)


def test_unknown_start_space_is_refused() -> None:
    game = new_game("tiny", 2, 5)
    d = game.pending_decisions()[0]
    assert d.kind is DecisionKind.START_SPACE
    for number in (99, 0, -1, max(d.options) + 1):
        assert_refused(game, Action(d.id, d.seat, number), IllegalActionError)
    game.apply(Action(d.id, d.seat, d.options[0]))
    d2 = game.pending_decisions()[0]
    taken = d.options[0]
    assert taken not in d2.options
    assert_refused(game, Action(d2.id, d2.seat, taken), IllegalActionError)


@pytest.mark.parametrize("choice", ["three", 1.0, True, None, {"space": 1}, [1, 2]])
def test_malformed_start_space_is_invalid(choice: Any) -> None:
    game = new_game("tiny", 2, 5)
    d = game.pending_decisions()[0]
    assert_refused(game, Action(d.id, d.seat, choice), InvalidActionError)


def test_unicode_digit_start_space_is_an_action_error() -> None:
    game = new_game("tiny", 2, 5)
    d = game.pending_decisions()[0]
    assert_refused(game, Action(d.id, d.seat, "²"), InvalidActionError)


@pytest.mark.parametrize("choice", ["yes", "no", "true", 1, 0, None, [True]])
def test_shutdown_must_be_a_bool(choice: Any) -> None:
    game, d = reach("shutdown")
    message = assert_refused(game, Action(d.id, d.seat, choice), InvalidActionError)
    assert "true or false" in message


MALFORMED = {"int": 7, "dict": {"choice": 1}, "none": None}


@pytest.mark.parametrize("bad", MALFORMED, ids=list(MALFORMED))
@pytest.mark.parametrize("kind", ["card_order", "block_start"])
def test_malformed_choices_are_invalid(kind: str, bad: str) -> None:
    variants = ("competitive_start",) if kind == "block_start" else ()
    game, d = reach(kind, variants=variants)
    choice = MALFORMED[bad]
    if kind == "block_start" and bad == "int":
        choice = "seven"
    assert_refused(game, Action(d.id, d.seat, choice), InvalidActionError)


@pytest.mark.parametrize("bad", MALFORMED, ids=list(MALFORMED))
@pytest.mark.parametrize("kind", ["reboot_facing", "sidestep"])
def test_malformed_facing_and_side_are_invalid(kind: str, bad: str) -> None:
    game, d = reach(kind)
    assert_refused(game, Action(d.id, d.seat, MALFORMED[bad]), InvalidActionError)


@pytest.mark.parametrize("kind", ["reboot_facing", "sidestep", "card_order"])
def test_wrong_values_are_refused_for_every_kind(kind: str) -> None:
    game, d = reach(kind)
    for bad in (7, {"choice": 1}, None, "NE", "UP", [0, 1, 2], (0, 0), ["N", "E"], 2.0):
        before = snapshot(game)
        with pytest.raises(ActionError):
            game.apply(Action(d.id, d.seat, bad))
        assert snapshot(game) == before


def test_forgiving_spellings_are_normalised() -> None:
    game, d = reach("reboot_facing")
    assert game.check(Action(d.id, d.seat, " e ")) == "E"
    game, d = reach("sidestep")
    assert game.check(Action(d.id, d.seat, "right")) == "RIGHT"
    game, d = reach("card_order")
    assert game.check(Action(d.id, d.seat, [1, 0])) == (1, 0)
    game, d = reach("program")
    program = a_legal_program(d)
    shouted = tuple(None if n is None else f" {n.upper()} " for n in program)
    assert game.check(Action(d.id, d.seat, shouted)) == program
    game = new_game("tiny", 2, 5)
    d = game.pending_decisions()[0]
    assert game.check(Action(d.id, d.seat, f" {d.options[1]} ")) == d.options[1]


def test_actions_after_the_game_is_over_are_refused() -> None:
    game = new_game("tiny", 2, 3, max_rounds=1)
    bots = [RandomBot(seed=1), RandomBot(seed=2)]
    while not game.is_over():
        bot_move(game, bots)
    assert game.pending_decisions() == []
    assert game.outcome() is not None
    first = game.actions[0]
    for action in (first, Action("t2-p1-program", 0, TIMEOUT), Action("x", 5, None)):
        assert_refused(game, action, IllegalActionError)


def test_apply_returns_the_new_events_only() -> None:
    game = new_game("tiny", 2, 5)
    d = game.pending_decisions()[0]
    before = len(game.events)
    events = game.apply(Action(d.id, d.seat, d.options[0]))
    assert events == game.events[before:]
    assert events and events[0].kind.value == "placed"


# ------------------------------------------------------------------------- digest
def test_digest_tells_apart_different_blocked_start_spaces() -> None:
    game = new_game("tiny", 2, 1, variants=["competitive_start"])
    d = game.pending_decisions()[0]
    assert d.kind is DecisionKind.BLOCK_START
    a, b = game.copy(), game.copy()
    a.apply(Action(d.id, d.seat, d.options[0]))
    b.apply(Action(d.id, d.seat, d.options[-1]))
    assert a.pending_decisions() != b.pending_decisions()
    assert a.digest() != b.digest()


def test_digest_changes_when_a_program_is_answered() -> None:
    game, d = reach("program")
    before = game.digest()
    game.apply(Action(d.id, d.seat, TIMEOUT))
    assert game.digest() != before


# ----------------------------------------------------------------- legal choices
def count_programs(hand: list[str], slots: int) -> int:
    """Distinct sequences of ``slots`` cards drawn from the multiset ``hand`` (brute force)."""
    have = Counter(hand)
    return sum(
        1
        for seq in product(sorted(have), repeat=slots)
        if all(Counter(seq)[n] <= have[n] for n in set(seq))
    )


def program_decision(hand: list[str], locked: list[int] | None = None) -> Decision:
    return Decision(
        "t1-p1-program",
        0,
        DecisionKind.PROGRAM,
        "Program your registers",
        (),
        "",
        {"hand": hand, "locked": locked or [], "registers": NUM_REGISTERS},
    )


def test_nine_distinct_cards_give_15120_programs() -> None:
    game = new_game("tiny", 2, 1)
    programs = list(game.legal_choices(program_decision(ALL_NAMES)))
    assert len(programs) == 9 * 8 * 7 * 6 * 5 == 15120
    assert len(set(programs)) == len(programs)
    assert all(len(set(p)) == NUM_REGISTERS for p in programs)


@pytest.mark.parametrize(
    ("hand", "expected"),
    [
        (["move1"] * 9, 1),
        (["move1"] * 5 + ["move2"] * 4, 31),  # all 2**5 words over {1, 2} except 22222
        (["move1"] * 4 + ["move2"] * 3 + ["again", "u_turn"], None),
        (["spam"] * 3 + ["move1"] * 3 + ["rotate_left"] * 3, None),
    ],
)
def test_programs_from_a_hand_with_duplicates_are_distinct(
    hand: list[str], expected: int | None
) -> None:
    game = new_game("tiny", 2, 1)
    programs = list(game.legal_choices(program_decision(hand)))
    assert len(set(programs)) == len(programs)
    assert len(programs) == count_programs(hand, NUM_REGISTERS)
    if expected is not None:
        assert len(programs) == expected


def test_programs_skip_locked_registers() -> None:
    game = new_game("tiny", 2, 1)
    programs = list(game.legal_choices(program_decision(ALL_NAMES, locked=[2, 5])))
    assert len(programs) == 9 * 8 * 7
    assert all(p[1] is None and p[4] is None for p in programs)


def test_legal_choices_of_a_real_program_are_all_legal() -> None:
    game, d = reach("program")
    programs = list(game.legal_choices(d))
    assert len(programs) == count_programs(d.info["hand"], NUM_REGISTERS)
    for program in programs[:: max(1, len(programs) // 200)]:
        assert game.check(Action(d.id, d.seat, program)) == program
    actions = list(game.legal_actions(d.seat))
    assert [a.choice for a in actions] == programs
    assert {a.decision_id for a in actions} == {d.id}


def test_legal_choices_of_a_locked_program() -> None:
    game, d = reach("locked")
    programs = list(game.legal_choices(d))
    open_slots = NUM_REGISTERS - len(d.info["locked"])
    assert len(programs) == count_programs(d.info["hand"], open_slots)
    for program in programs[:50]:
        assert all(program[i - 1] is None for i in d.info["locked"])
        game.check(Action(d.id, d.seat, program))


def test_legal_choices_of_small_decisions_are_their_options() -> None:
    game = new_game("tiny", 2, 1)
    d = game.pending_decisions()[0]
    assert tuple(game.legal_choices(d)) == d.options
    assert [a.choice for a in game.legal_actions(d.seat)] == list(d.options)
    assert list(game.legal_actions(1 - d.seat)) == []
    game, d = reach("shutdown")
    assert set(game.legal_choices(d)) == {True, False}


# ------------------------------------------------------------------ observations
def test_observation_shows_own_hand_and_only_counts_of_others() -> None:
    game, _ = reach("program")
    for seat, player in enumerate(game.state.players):
        view = game.observation(seat)
        json.dumps(view)
        assert view["seat"] == seat
        for other in view["players"]:
            real = game.state.players[other["seat"]]
            if other["seat"] == seat:
                assert other["hand"] == [c.name for c in real.hand]
            else:
                assert other["hand"] == len(real.hand)
        assert [p["id"] for p in view["pending"]] == [x.id for x in game.pending_decisions(seat)]
        assert all(p["info"]["hand"] == [c.name for c in player.hand] for p in view["pending"])


def test_observation_hides_unrevealed_register_cards_of_others() -> None:
    game, _ = reach("revealed_mix")
    s = game.state
    assert any(r.revealed for p in s.players for r in p.registers)
    for seat in (*range(len(s.players)), None):
        view = game.observation(seat)
        for pv in view["players"]:
            real = s.players[pv["seat"]]
            for rv, register in zip(pv["registers"], real.registers, strict=True):
                assert rv["count"] == len(register.cards)
                if pv["seat"] == seat or register.revealed:
                    assert rv["cards"] == [c.name for c in register.cards]
                else:
                    assert rv["cards"] is None


def test_observation_hides_face_down_haywires_of_others() -> None:
    game, _ = reach("facedown")
    s = game.state
    owners = {
        (p.seat, i): r.facedown_haywire.name
        for p in s.players
        for i, r in enumerate(p.registers)
        if r.facedown_haywire is not None
    }
    assert owners
    for seat in (*range(len(s.players)), None):
        view = game.observation(seat)
        for pv in view["players"]:
            for i, rv in enumerate(pv["registers"]):
                key = (pv["seat"], i)
                if pv["seat"] == seat:
                    assert rv["facedown_haywire"] == owners.get(key)
                else:
                    assert rv["facedown_haywire"] is (key in owners)
        json.dumps(view)


def test_observation_hides_locked_haywires_of_others() -> None:
    game, d = reach("locked")
    locked = d.info["locked"]
    owner = d.seat
    for seat in (*range(len(game.state.players)), None):
        rv = game.observation(seat)["players"][owner]["registers"][locked[0] - 1]
        assert rv["locked"] is True
        assert rv["count"] == 1
        if seat == owner:
            assert rv["cards"] == [game.state.players[owner].registers[locked[0] - 1].cards[0].name]
        else:
            assert rv["cards"] is None


def test_spectator_sees_no_hand_and_no_decisions() -> None:
    game, _ = reach("program")
    view = game.observation(None)
    json.dumps(view)
    assert view["seat"] is None
    assert view["pending"] == []
    assert view["waiting_for"] == sorted({d.seat for d in game.pending_decisions()})
    for pv in view["players"]:
        assert isinstance(pv["hand"], int)
        assert isinstance(pv["deck"], int)
        for rv in pv["registers"]:
            assert rv["cards"] is None or rv["revealed"]
            assert rv["facedown_haywire"] in (True, False)


def test_observation_does_not_leak_the_deck_order() -> None:
    game, _ = reach("program")
    for seat in (0, 1, 2, None):
        view = game.observation(seat)
        for pv in view["players"]:
            assert isinstance(pv["deck"], int)
        assert isinstance(view["damage_deck"], int)


def test_blocked_start_spaces_are_in_every_observation() -> None:
    """Competitive start (11.1.5): the spaces blocked by cubes are public."""
    game = new_game("tiny", 2, 3, variants=["competitive_start"])
    assert game.observation(None)["blocked_starts"] == []
    blocked = []
    while True:
        d = game.pending_decisions()[0]
        if d.kind is not DecisionKind.BLOCK_START:
            break
        space = next(s for s in game.state.grid.start_spaces if s.number == d.options[0])
        blocked.append([space.pos.x, space.pos.y])
        game.apply(Action(d.id, d.seat, d.options[0]))
    assert blocked
    for seat in (None, 0, 1):
        assert game.observation(seat)["blocked_starts"] == sorted(blocked)


def test_face_down_haywires_are_secret_events() -> None:
    """A Haywire dealt face down into a register is named to its owner alone: the engine marks
    the event, and ``events_for`` leaves the name out for the others and for spectators."""
    found = 0
    for seed in range(40):
        game = new_game("y23-high-voltage", 4, seed, max_rounds=10)
        bots = [RandomBot(seed * 10 + i) for i in range(4)]
        while not game.is_over():
            d = game.pending_decisions()[0]
            game.apply(Action(d.id, d.seat, bots[d.seat].choose(game.observation(d.seat), d)))
        for index, event in enumerate(game.events):
            if event.kind is not EventKind.DAMAGED:
                continue
            assert event.secret == ("to register" in (event.cause or "")), event
            if not event.secret:
                continue
            found += 1
            assert game.events_for(event.seat, index)[0].card == event.card
            for viewer in (None, *(s for s in range(4) if s != event.seat)):
                seen = game.events_for(viewer, index)[0]
                assert seen.card is None and seen.to_json()["hidden"] is True
        if found >= 3:
            break
    assert found >= 3


# ------------------------------------------------------------------------ doctests
def _modules() -> list[ModuleType]:
    found = pkgutil.walk_packages(roborally.engine.__path__, "roborally.engine.")
    names = [m.name for m in found]
    modules = [importlib.import_module(name) for name in sorted(names)]
    return [*modules, roborally.bots.random_bot]


@pytest.mark.parametrize("module", _modules(), ids=lambda m: m.__name__)
def test_doctests(module: ModuleType) -> None:
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS, verbose=False)
    assert result.failed == 0, f"{result.failed} doctest(s) failed in {module.__name__}"


def test_the_engine_has_doctests() -> None:
    attempted = sum(doctest.testmod(m, verbose=False).attempted for m in _modules())
    assert attempted >= 10


def test_permutations_helper_matches_engine_for_small_hands() -> None:
    """The brute-force counter used above agrees with a direct set of permutations."""
    hand = ["a", "a", "b", "c"]
    assert count_programs(hand, 3) == len(set(permutations(hand, 3)))


def test_a_decision_sets_every_field_and_stays_frozen() -> None:
    """Decision writes its fields by hand (for speed): every field, and still immutable."""
    decision = Decision("d", 1, DecisionKind.UPGRADE, "?", ("a", "b"), "a", {"x": 1})
    assert set(vars(decision)) == {f.name for f in dataclasses.fields(Decision)}
    assert dataclasses.replace(decision, seat=2).seat == 2
    assert Decision("d", 1, DecisionKind.UPGRADE, "?").info == {}
    with pytest.raises(dataclasses.FrozenInstanceError):
        decision.seat = 3  # type: ignore[misc]
