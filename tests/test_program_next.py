"""``Game.program_next``: the cards that may fill the next register of a program, without listing
the programs, agree exactly with the prefixes of the programs ``legal_choices`` lists.

Checked on the program decisions of random games of both editions (locked registers, damage
hands in classic, the 1994 first card) and on made-up 2023 decisions with Haywires that Rewire
put in the hand (which must be programmed), damage cards, locked registers and Crab Legs pairs.
"""

from __future__ import annotations

import doctest
import random
from collections.abc import Iterator
from typing import Any

import pytest

from roborally import api
from roborally.engine.core import programs
from roborally.engine.core.decisions import Decision, DecisionKind
from roborally.engine.core.programs import complete_program, next_units, open_registers
from roborally.engine.game import Game


def listed_prefixes(game: Game, decision: Decision) -> dict[tuple[str, ...], set[str]]:
    """prefix -> the units that follow it in some listed program (the open registers only)."""
    follows: dict[tuple[str, ...], set[str]] = {}
    slots = open_registers(decision.info)
    for program in game.legal_choices(decision):
        units = [program[r] for r in slots if program[r] is not None]
        for k in range(len(units)):
            follows.setdefault(tuple(units[:k]), set()).add(units[k])
        follows.setdefault(tuple(units), set())
    return follows


def check_against_listing(game: Game, decision: Decision) -> int:
    """Compare every prefix of every listed program; returns how many were checked."""
    follows = listed_prefixes(game, decision)
    for prefix, units in follows.items():
        offered = game.program_next(decision, prefix)
        assert len(offered) == len(set(offered)), offered
        assert set(offered) == units, (decision.info, prefix)
        if not units:  # complete: the program it makes is legal
            game.check(
                api.Action(decision.id, decision.seat, complete_program(decision.info, prefix))
            )
    return len(follows)


def program_decisions(edition: str, games: int, seed: int) -> Iterator[tuple[Game, Decision]]:
    """Program decisions met in random games (bots play every decision)."""
    rng = random.Random(seed)
    for g in range(games):
        players = rng.randint(2, 4)
        game = api.new_game("tiny", players=players, seed=seed + g, edition=edition, max_rounds=12)
        bots = api.bots_for(["random"] * players, seed=seed + g)
        while not game.is_over():
            for decision in game.pending_decisions():
                if decision.kind is DecisionKind.PROGRAM and rng.random() < 0.3:
                    yield game, decision
                    break
                choice = bots[decision.seat].choose(game.observation(decision.seat), decision)
                game.apply(api.Action(decision.id, decision.seat, choice))


@pytest.mark.parametrize("edition", ["2023", "classic", "classic-1994"])
def test_program_next_matches_the_listed_programs_in_random_games(edition: str) -> None:
    checked = 0
    seen_locked = False
    for game, decision in program_decisions(edition, games=4, seed=11):
        checked += check_against_listing(game, decision)
        seen_locked = seen_locked or bool(decision.info["locked"])
        if checked > 60_000:
            break
    assert checked > 1000
    if edition == "classic-1994":
        assert seen_locked  # the first card dealt face up takes register 1


#: Card names of made-up 2023 hands: programming cards, SPAM and the Haywires.
NAMES = ["move1", "move2", "rotate_left", "rotate_right", "again", "spam", "hw_m3u", "hw_two"]


def made_up_decision(rng: random.Random) -> Decision:
    size = rng.randint(0, 7)
    hand = [rng.choice(NAMES) for _ in range(size)]
    haywires = [n for n in hand if n.startswith("hw_")]
    info: dict[str, Any] = {
        "hand": hand,
        "locked": sorted(rng.sample(range(1, 6), rng.choice([0, 0, 1, 2, 3, 4]))),
        "registers": 5,
    }
    if haywires and rng.random() < 0.7:
        info["forced"] = haywires  # Rewire: every Haywire in the hand must be programmed
    if rng.random() < 0.5:
        info["pairs"] = True  # Crab Legs
    return Decision("t1-p1-program", 0, DecisionKind.PROGRAM, "", (), "", info)


def test_program_next_matches_the_listing_on_made_up_2023_hands() -> None:
    game = api.new_game("tiny", players=2, seed=3)
    rng = random.Random(5)
    kinds = {"forced": 0, "pairs": 0, "stuck": 0}
    for _ in range(400):
        decision = made_up_decision(rng)
        follows = listed_prefixes(game, decision)
        if not follows:  # no legal program at all: the first register offers nothing
            kinds["stuck"] += 1
            assert game.program_next(decision, ()) == ()
            continue
        for prefix, units in follows.items():
            assert set(game.program_next(decision, prefix)) == units, (decision.info, prefix)
        kinds["forced"] += "forced" in decision.info
        kinds["pairs"] += any("+" in u for units in follows.values() for u in units)
    assert kinds["forced"] > 20 and kinds["pairs"] > 20


def test_forced_haywires_must_take_the_last_registers() -> None:
    info = {"hand": ["move1", "move2", "hw_m3u", "hw_two"], "locked": [1, 2], "registers": 5}
    info["forced"] = ["hw_m3u", "hw_two"]
    assert next_units(info, ["move1"]) == ("hw_m3u", "hw_two")
    assert next_units(info, ["hw_m3u"]) == ("move1", "move2", "hw_two")
    assert next_units(info, ["hw_m3u", "move1"]) == ("hw_two",)


def test_pairs_only_when_listed() -> None:
    hand = ["move1", "rotate_left", "move2", "move3", "u_turn", "again"]
    info = {"hand": hand, "locked": [], "pairs": ["crab_legs"]}
    assert next_units(info, [])[-1] == "move1+rotate_left"
    assert next_units(info, [], pairs=False) == tuple(hand)
    classic = api.new_game("tiny", players=2, seed=1, edition="classic")
    decision = Decision("t1-p1-program", 0, DecisionKind.PROGRAM, "", (), "", info)
    assert classic.program_next(decision, []) == tuple(hand)  # classic lists no pairs
    # A pair takes two cards for one register: not when the others would then run short.
    short = {"hand": ["move1", "rotate_left", "move2"], "locked": [], "pairs": True}
    assert next_units(short, []) == ("move1", "rotate_left", "move2")


def test_bad_prefixes_are_refused() -> None:
    info = {"hand": ["move1", "move2"], "locked": [], "registers": 5}
    with pytest.raises(ValueError):
        next_units(info, ["move3"])
    with pytest.raises(ValueError):
        next_units(info, ["move1", "move1"])
    with pytest.raises(ValueError):
        next_units(info, ["move1", "move2", "move1"])
    with pytest.raises(ValueError):
        next_units(info, ["move1+rotate_left"])
    game = api.new_game("tiny", players=2, seed=1)
    start = game.pending_decisions()[0]
    with pytest.raises(ValueError):
        game.program_next(start, [])


def test_doctests() -> None:
    assert doctest.testmod(programs).failed == 0
