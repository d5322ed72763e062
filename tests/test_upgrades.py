"""Upgrade cards of the 2023 edition: data, programs, visibility and conservation.

The property part plays many seeded games between random players on the ``tiny`` course and
checks after every action that the 40 upgrade cards are all somewhere (upgrade deck, upgrade
discard, reserves, installed), each once, that programming and damage cards are conserved with
Memory Cards and Self-Diagnostics in play, that the 3 + 3 limits and the energy bounds hold,
and that replaying the actions gives the same game. The per-card effects are checked by the
``tests/scenarios/upgrade-*.scenario`` files.
"""

from __future__ import annotations

import json
import random
import re
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from roborally.bots.random_bot import RandomBot
from roborally.bots.runner import new_game
from roborally.cli import main
from roborally.content.cards import CardDataError
from roborally.content.upgrades import UPGRADE_FILE, catalogue, load_upgrades, parse_upgrades
from roborally.engine.core.cards import PROGRAMMING_CARDS
from roborally.engine.core.decisions import (
    TIMEOUT,
    Action,
    Decision,
    DecisionKind,
    IllegalActionError,
    InvalidActionError,
)
from roborally.engine.core.events import EventKind
from roborally.engine.core.state import MAX_ENERGY, GameState
from roborally.engine.game import Game
from roborally.engine.rules2023.base import MAX_INSTALLED, is_permanent
from roborally.engine.rules2023.upgrade_cards import IMPLEMENTED, MOVEMENT, PERMANENT, TEMPORARY
from roborally.engine.rules2023.upgrade_phase import MAX_UNDOS

# Costs as printed (spec 9.2 and 9.3; 000: 705-909).
COSTS = {
    "brakes": 2,
    "double_barrel_laser": 2,
    "drifting": 4,
    "firewall": 1,
    "memory_cards": 3,
    "crab_legs": 5,
    "laser_kata": 1,
    "hover_unit": 1,
    "scrambler": 4,
    "mini_howitzer": 3,
    "modular_chassis": 1,
    "energy_conversion": 3,
    "pressor_beam": 3,
    "rail_gun": 2,
    "self_diagnostics": 2,
    "deflector_shield": 2,
    "power_slide": 4,
    "ramming_gear": 2,
    "rear_laser": 2,
    "tractor_beam": 3,
    "spam_filter": 3,
    "chaos_theory": 2,
    "flash_drive": 4,
    "spiky": 2,
    "abort_switch": 1,
    "boink": 1,
    "piercing_drill": 1,
    "displacing_blast": 2,
    "zoop": 1,
    "memory_swap": 2,
    "rewire": 1,
    "magnetic": 1,
    "switch": 2,
    "recharge": 0,
    "re_initialize": 1,
    "calibration_protocol": 2,
    "overclocked": 2,
    "pressure_release": 2,
    "all_aboard": 1,
    "lucky_booster": 1,
}


# ------------------------------------------------------------------------------- data
def test_the_data_file_holds_the_40_upgrades_with_their_costs() -> None:
    specs = load_upgrades()
    assert len(specs) == 40
    assert {s.id for s in specs} == set(IMPLEMENTED) == set(COSTS)
    assert sum(1 for s in specs if s.permanent) == len(PERMANENT) == 24
    assert sum(1 for s in specs if not s.permanent) == len(TEMPORARY) == 16
    for spec in specs:
        assert spec.cost == COSTS[spec.id], spec.id
        assert spec.movement == (spec.id in MOVEMENT)
        assert spec.source.startswith("000: "), spec.id
        assert spec.name and spec.name_uk and spec.text


def _data() -> dict[str, Any]:
    return {"cards": [dict(c) for c in catalogue()]}


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda d: d["cards"].pop(), "missing upgrade"),
        (lambda d: d["cards"][0].update(id="warp_drive"), "unknown upgrade id 'warp_drive'"),
        (lambda d: d["cards"][0].update(type="temporary"), "brakes is a permanent upgrade"),
        (lambda d: d["cards"][0].update(cost=-1), "cost must be a whole number"),
        (lambda d: d["cards"][0].update(cost=True), "cost must be a whole number"),
        (lambda d: d["cards"][0].update(count=2), "count must be 1"),
        (lambda d: d["cards"][0].pop("text"), "missing field 'text'"),
        (lambda d: d["cards"][0].update(colour="red"), "unknown field(s) colour"),
        (lambda d: d["cards"][1].update(id="brakes"), "duplicate id 'brakes'"),
        (lambda d: d["cards"][25].update(movement=False), "movement must be true for boink"),
        (lambda d: d["cards"][0].update(name=""), "name must be a non-empty text"),
    ],
)
def test_malformed_upgrade_data_is_refused(change: Any, message: str) -> None:
    data = _data()
    for card in data["cards"]:
        card.pop("id_", None)
    change(data)
    with pytest.raises(CardDataError) as info:
        parse_upgrades(json.dumps(data))
    assert message in str(info.value)
    assert str(info.value).startswith(UPGRADE_FILE)


def test_unreadable_upgrade_data_names_the_position() -> None:
    with pytest.raises(CardDataError, match=r"upgrades-2023.json:1:2"):
        parse_upgrades("{,")


def test_cards_command_lists_programming_damage_and_upgrade_cards(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["cards", "--edition", "2023", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    programming = data["programming_cards"]
    assert len(programming) == 9 and sum(c["count"] for c in programming) == 20
    assert sum(c["count"] for c in data["damage_cards"]) == 40
    upgrades = data["upgrade_cards"]
    assert len(upgrades) == 40
    assert {(c["id"], c["cost"]) for c in upgrades} == set(COSTS.items())
    assert Counter(c["type"] for c in upgrades) == {"permanent": 24, "temporary": 16}
    assert all(c["name_uk"] and c["source"] for c in upgrades)
    assert main(["cards", "--edition", "2023"]) == 0
    table = capsys.readouterr().out
    assert "Upgrade cards (40 cards)" in table
    assert "crab_legs" in table and "Crab Legs" in table


SCENARIOS = Path(__file__).parent / "scenarios"


def test_every_upgrade_has_a_scenario_citing_its_lines() -> None:
    """Each card is installed or held in an upgrade scenario that cites its rulebook lines."""
    texts = [p.read_text(encoding="utf-8") for p in sorted(SCENARIOS.glob("upgrade-*.scenario"))]
    for spec in load_upgrades():
        first = spec.source.split(";")[0].split(",")[0].split("-")[0]  # "000: 705"
        held = re.compile(rf"^\s+(upgrades|reserve) .*\b{spec.id}\b", re.M)
        assert any(held.search(t) and first in t for t in texts), spec.id


# ----------------------------------------------------------------------------- setup
def test_each_player_is_dealt_three_upgrades_into_the_reserve() -> None:
    game = new_game("tiny", 4, 3)
    s = game.state
    assert s.upgrades
    assert [len(p.reserve) for p in s.players] == [3, 3, 3, 3]
    assert all(not p.installed for p in s.players)
    assert len(s.upgrade_deck) == 40 - 12
    assert [p.energy for p in s.players] == [3, 3, 3, 3]


def test_dealing_upgrades_does_not_change_the_main_generator() -> None:
    with_upgrades = new_game("tiny", 3, 5).state
    lighter = new_game("tiny", 3, 5, variants=["lighter"]).state
    assert with_upgrades.rng.state == lighter.rng.state
    for a, b in zip(with_upgrades.players, lighter.players, strict=True):
        assert [c.name for c in a.deck] == [c.name for c in b.deck]


def test_the_lighter_game_has_no_upgrades_and_asks_nothing_about_them() -> None:
    game = new_game("tiny", 3, 8, max_rounds=6, variants=["lighter"])
    assert not game.state.upgrades
    assert not game.state.upgrade_deck and all(not p.reserve for p in game.state.players)
    bots = [RandomBot(seed=i) for i in range(3)]
    while not game.is_over():
        d = game.pending_decisions()[0]
        assert d.kind not in (DecisionKind.UPGRADE_PHASE, DecisionKind.UPGRADE)
        game.apply(Action(d.id, d.seat, bots[d.seat].choose(game.observation(d.seat), d)))
    assert all(p.energy == 0 for p in game.state.players)


def first_upgrade_step(seed: int = 2) -> tuple[Game, Decision]:
    game = new_game("tiny", 2, seed)
    while True:
        d = game.pending_decisions()[0]
        if d.kind is DecisionKind.UPGRADE_PHASE:
            return game, d
        game.apply(Action(d.id, d.seat, d.options[0]))


def test_the_upgrade_phase_offers_draw_install_and_done() -> None:
    game, d = first_upgrade_step()
    player = game.state.players[d.seat]
    assert d.id == f"t1-p{d.seat + 1}-upgrade-0"
    assert d.options[0] == "done"
    assert "draw" in d.options
    for card in player.reserve:
        affordable = COSTS[card.name] <= player.energy
        assert (f"install {card.name}" in d.options) == affordable
    assert not any(o.startswith("uninstall") for o in d.options)


def answer_others(game: Game, seat: int) -> None:
    """The other players end their upgrade phase."""
    for other in game.pending_decisions():
        if other.seat != seat:
            game.apply(Action(other.id, other.seat, "done"))


def test_draw_costs_one_energy_and_only_once() -> None:
    game, d = first_upgrade_step()
    seat = d.seat
    player = game.state.players[seat]
    top = game.state.upgrade_deck[-1]
    game.apply(Action(d.id, seat, "DRAW"))  # choices are read case-insensitively
    assert player.energy == 3, "the upgrade phase is simultaneous: nothing applies yet"
    answer_others(game, seat)
    assert player.energy == 2 and top in player.reserve and len(player.reserve) == 4
    nxt = next(x for x in game.pending_decisions() if x.seat == seat)
    assert nxt.id.endswith("-upgrade-1")
    assert "draw" not in nxt.options


def test_install_pays_the_cost_and_only_one_per_phase() -> None:
    for seed in range(40):
        game, d = first_upgrade_step(seed)
        installs = [o for o in d.options if o.startswith("install ")]
        if installs:
            break
    player = game.state.players[d.seat]
    name = installs[0].split()[1]
    game.apply(Action(d.id, d.seat, installs[0]))
    answer_others(game, d.seat)
    assert [c.name for c in player.installed] == [name]
    assert player.energy == 3 - COSTS[name]
    nxt = next(x for x in game.pending_decisions() if x.seat == d.seat)
    assert not any(o.startswith("install ") for o in nxt.options)
    assert f"uninstall {name}" in nxt.options


def test_energy_never_goes_below_zero() -> None:
    """Without energy nothing can be drawn or installed (12-B10); Recharge (cost 0) can."""
    game = new_game("tiny", 2, 6)
    for player in game.state.players:
        player.energy = 0
        player.reserve.append(next(c for c in game.state.upgrade_deck if c.name == "recharge"))
        game.state.upgrade_deck.remove(player.reserve[-1])
        break
    while True:
        d = game.pending_decisions()[0]
        if d.kind is DecisionKind.UPGRADE_PHASE:
            break
        game.apply(Action(d.id, d.seat, d.options[0]))
    for d in game.pending_decisions():
        player = game.state.players[d.seat]
        if player.energy == 0:
            assert "draw" not in d.options
            assert [o for o in d.options if o.startswith("install ")] == ["install recharge"]


def test_no_draw_when_the_upgrade_deck_and_discard_are_empty() -> None:
    """12-B11: nothing to draw, so drawing is not offered (and nothing is paid)."""
    game = new_game("tiny", 2, 2)
    game.state.upgrade_deck = []  # before the first upgrade phase
    while True:
        d = game.pending_decisions()[0]
        if d.kind is DecisionKind.UPGRADE_PHASE:
            break
        game.apply(Action(d.id, d.seat, d.options[0]))
    assert all("draw" not in d.options for d in game.pending_decisions())


def test_illegal_upgrade_phase_choices_are_refused() -> None:
    game, d = first_upgrade_step()
    before = game.digest()
    with pytest.raises(IllegalActionError):
        game.apply(Action(d.id, d.seat, "install warp_drive"))
    with pytest.raises(InvalidActionError):
        game.apply(Action(d.id, d.seat, 3))
    with pytest.raises(InvalidActionError):
        game.apply(Action(d.id, d.seat, ["draw"]))
    assert game.digest() == before


# --------------------------------------------------------------------------- programs
def program_decision(
    hand: list[str], pairs: bool = False, forced: list[str] | None = None
) -> Decision:
    info: dict[str, Any] = {"hand": hand, "locked": [], "registers": 5}
    if pairs:
        info["pairs"] = True
    if forced:
        info["forced"] = forced
    return Decision("t1-p1-program", 0, DecisionKind.PROGRAM, "", (), "", info)


def rules() -> Any:
    return new_game("tiny", 2, 1)._rules


def test_crab_legs_pairs_are_legal_only_with_crab_legs() -> None:
    hand = ["move1", "rotate_left", "move2", "move3", "u_turn", "again", "power_up"]
    program = ("rotate_left+move1", "move2", "move3", "u_turn", "again")
    assert rules().validate(program_decision(hand, pairs=True), program) == (
        "move1+rotate_left",
        "move2",
        "move3",
        "u_turn",
        "again",
    )
    with pytest.raises(IllegalActionError, match="Crab Legs"):
        rules().validate(program_decision(hand), program)
    with pytest.raises(IllegalActionError, match="Crab Legs"):
        rules().validate(program_decision(hand, pairs=True), ("move2+rotate_left", *program[1:]))
    with pytest.raises(IllegalActionError):  # one Move 1 cannot be in two places
        rules().validate(
            program_decision(hand, pairs=True), ("move1+rotate_left", "move1", *program[2:])
        )


def test_legal_programs_include_pairs_and_all_validate() -> None:
    hand = ["move1", "rotate_left", "rotate_right", "move2", "move2", "u_turn"]
    decision = program_decision(hand, pairs=True)
    r = rules()
    programs = list(r.legal_choices(decision))
    assert any("move1+rotate_left" in p for p in programs)
    assert any("move1+rotate_right" in p for p in programs)
    assert len(set(programs)) == len(programs)
    for program in programs:
        assert r.validate(decision, program) == program


def test_rewired_haywires_must_be_programmed() -> None:
    hand = ["hw_two", "move1", "move2", "move3", "rotate_left", "rotate_right", "u_turn"]
    decision = program_decision(hand, forced=["hw_two"])
    r = rules()
    with pytest.raises(IllegalActionError, match="Rewire"):
        r.validate(decision, ("move1", "move2", "move3", "rotate_left", "rotate_right"))
    assert r.validate(decision, ("move1", "hw_two", "move3", "rotate_left", "u_turn"))
    programs = list(r.legal_choices(decision))
    assert programs and all("hw_two" in p for p in programs)
    for _ in range(20):
        assert "hw_two" in r.default_choice(decision)


def test_random_bot_programs_pairs_and_rewired_haywires_legally() -> None:
    r = rules()
    bot = RandomBot(seed=4)
    hand = ["hw_m3u", "move1", "rotate_left", "move1", "rotate_right", "move2", "again"]
    decision = program_decision(hand, pairs=True, forced=["hw_m3u"])
    seen_pair = False
    for _ in range(50):
        program = bot.choose({}, decision)
        assert r.validate(decision, program) == tuple(program)
        seen_pair = seen_pair or any("+" in (e or "") for e in program)
    assert seen_pair


# -------------------------------------------------------------------------- visibility
def test_observation_shows_installed_to_all_and_the_reserve_to_its_owner() -> None:
    game = new_game("tiny", 3, 4)
    s = game.state
    s.players[1].installed.append(s.upgrade_deck.pop())
    for seat in (0, 1, 2, None):
        view = game.observation(seat)
        json.dumps(view)
        assert view["upgrade_deck"] == len(s.upgrade_deck)
        for pv in view["players"]:
            real = s.players[pv["seat"]]
            assert pv["upgrades"] == [c.name for c in real.installed]
            if pv["seat"] == seat:
                assert pv["reserve"] == [c.name for c in real.reserve]
            else:
                assert pv["reserve"] == len(real.reserve)


# ---------------------------------------------------------------------- conservation
def check_upgrade_invariants(state: GameState) -> None:
    """The 40 upgrades are all somewhere, once; cards, limits and energy hold."""
    cards = [*state.upgrade_deck, *state.upgrade_discard]
    for p in state.players:
        cards.extend(p.reserve)
        cards.extend(p.installed)
    if not state.upgrades:  # the lighter game (11.1.1)
        assert not cards and all(not p.memory for p in state.players)
    else:
        assert len(cards) == 40, f"{len(cards)} upgrade cards"
        assert len({c.uid for c in cards}) == 40, "an upgrade card is in two places"
        assert sorted(c.name for c in cards) == sorted(IMPLEMENTED)
    damage_names = {c.name for c in state.config.damage_deck.cards}
    damage = [*state.damage_deck, *state.damage_discard]
    for p in state.players:
        owned = p.all_programming_cards()  # Memory Cards and removed cards included
        programming = [c for c in owned if c.name in PROGRAMMING_CARDS]
        assert Counter(c.name for c in programming) == {
            n: s.copies for n, s in PROGRAMMING_CARDS.items()
        }, f"P{p.seat + 1} lost a programming card"
        damage.extend(c for c in owned if c.name in damage_names)
        assert all(c.name in PROGRAMMING_CARDS or c.name in damage_names for c in owned)
        assert 0 <= p.energy <= MAX_ENERGY
        for permanent in (True, False):
            count = sum(
                1
                for c in p.installed
                if is_permanent(c.name) == permanent and c.uid not in state.glitch_installed
            )
            assert count <= MAX_INSTALLED, f"P{p.seat + 1} has {count} installed of a type"
        if p.memory:
            assert any(c.name == "memory_cards" for c in p.installed) or state.stage in (
                "end_round",
                "round_start",
            )
    assert len(damage) == 40 and len({c.uid for c in damage}) == 40
    robots = [p.pos for p in state.players if p.pos is not None]
    assert len(robots) == len(set(robots))
    assert all(not state.grid.pits[state.grid.index(pos)] for pos in robots)


def random_choice(rng: random.Random, bot: RandomBot, game: Game, d: Decision) -> Any:
    if rng.random() < 0.1:
        return TIMEOUT
    if d.kind is DecisionKind.PROGRAM or rng.random() < 0.5:
        return bot.choose(game.observation(d.seat), d)
    return rng.choice(list(d.options)) if d.options else bot.choose({}, d)


def play_checked(seed: int, players: int, max_rounds: int) -> Game:
    game = new_game("tiny", players, seed, max_rounds=max_rounds)
    rng = random.Random(seed)
    bots = [RandomBot(seed=seed * 7 + i, upgrade_rate=0.6) for i in range(players)]
    check_upgrade_invariants(game.state)
    while not game.is_over():
        pending = game.pending_decisions()
        assert len({d.id for d in pending}) == len(pending)
        d = rng.choice(pending)
        game.apply(Action(d.id, d.seat, random_choice(rng, bots[d.seat], game, d)))
        check_upgrade_invariants(game.state)
    return game


@pytest.mark.parametrize("seed", range(24))
def test_upgrade_cards_are_conserved_in_random_games(seed: int) -> None:
    game = play_checked(seed, 2 + seed % 5, max_rounds=12)
    again = Game(game.config)
    for action in game.actions:
        again.apply(action)
    assert again.digest() == game.digest(), "the replay ended in a different state"


def test_random_games_use_every_upgrade() -> None:
    """The random players do install and use the cards (so the soak exercises them)."""
    installed: Counter[str] = Counter()
    used: Counter[str] = Counter()
    for seed in range(40):
        game = new_game("tiny", 4, 100 + seed, max_rounds=15)
        bots = [RandomBot(seed=seed * 5 + i, upgrade_rate=0.6) for i in range(4)]
        while not game.is_over():
            d = game.pending_decisions()[0]
            for e in game.apply(
                Action(d.id, d.seat, bots[d.seat].choose(game.observation(d.seat), d))
            ):
                if e.kind is not EventKind.UPGRADE:
                    continue
                if e.cause == "installed" and e.card:
                    installed[e.card] += 1
                elif e.cause in ("used", "triggered") and e.card:
                    used[e.card] += 1
    assert set(installed) == set(IMPLEMENTED), set(IMPLEMENTED) - set(installed)
    temporaries = set(TEMPORARY) - {"piercing_drill"}  # its trigger is rare on a small board
    assert temporaries <= set(used), temporaries - set(used)


def test_a_copy_plays_on_like_the_original() -> None:
    game = new_game("tiny", 4, 21, max_rounds=5)
    bots = [RandomBot(seed=i, upgrade_rate=0.7) for i in range(4)]
    steps = 0
    while not game.is_over():
        d = game.pending_decisions()[0]
        choice = bots[d.seat].choose(game.observation(d.seat), d)
        if steps % 7 == 0:
            clone = game.copy()
            before = game.digest()
            clone.apply(Action(d.id, d.seat, choice))
            assert game.digest() == before
            game.apply(Action(d.id, d.seat, choice))
            assert clone.digest() == game.digest()
        else:
            game.apply(Action(d.id, d.seat, choice))
        steps += 1


def test_every_upgrade_decision_accepts_timeout() -> None:
    seen: Counter[DecisionKind] = Counter()
    for seed in range(6):
        game = new_game("tiny", 3, 50 + seed, max_rounds=8)
        bots = [RandomBot(seed=seed + i, upgrade_rate=0.8) for i in range(3)]
        rng = random.Random(seed)
        while not game.is_over():
            d = game.pending_decisions()[0]
            if d.kind in (DecisionKind.UPGRADE, DecisionKind.UPGRADE_PHASE) and rng.random() < 0.3:
                seen[d.kind] += 1
                assert d.options and d.default
                game.apply(Action(d.id, d.seat, TIMEOUT))
                continue
            game.apply(Action(d.id, d.seat, bots[d.seat].choose(game.observation(d.seat), d)))
    assert seen[DecisionKind.UPGRADE] and seen[DecisionKind.UPGRADE_PHASE]


# ------------------------------------------------------------------- undo of an install
def undo_setup(name: str = "", energy: int = 3) -> tuple[Game, int]:
    """A 2-player game at its first upgrade phase; P1 holds ``name`` in reserve (if given)
    and ``energy``; P2 has already said done."""
    game = new_game("tiny", 2, 2)
    first = game.state.players[0]
    if name and all(c.name != name for c in first.reserve):
        for pile in (game.state.upgrade_deck, *(p.reserve for p in game.state.players)):
            card = next((c for c in pile if c.name == name), None)
            if card is not None:
                pile.remove(card)
                first.reserve.append(card)
                break
    first.energy = energy
    while True:
        d = game.pending_decisions()[0]
        if d.kind is DecisionKind.UPGRADE_PHASE:
            break
        game.apply(Action(d.id, d.seat, d.options[0]))
    answer_others(game, 0)
    return game, 0


def step(game: Game, seat: int, choice: str) -> tuple[Decision, list[Any]]:
    """Answer ``seat``'s upgrade-phase question; returns the next one and the events."""
    d = next(x for x in game.pending_decisions() if x.seat == seat)
    assert choice in d.options, (choice, d.options)
    events = game.apply(Action(d.id, seat, choice))
    nxt = next((x for x in game.pending_decisions() if x.seat == seat), None)
    assert nxt is not None
    return nxt, events


def test_an_install_can_be_undone_with_the_energy_refunded() -> None:
    game, seat = undo_setup("spiky", energy=5)
    player = game.state.players[seat]
    reserve = sorted(c.name for c in player.reserve)
    nxt, _ = step(game, seat, "install spiky")
    assert player.energy == 3 and [c.name for c in player.installed] == ["spiky"]
    assert "undo install spiky" in nxt.options
    assert not any(o.startswith("install ") for o in nxt.options)
    nxt, events = step(game, seat, "undo install spiky")
    assert player.energy == 5 and not player.installed
    assert sorted(c.name for c in player.reserve) == reserve
    assert player.reserve[-1].name == "spiky", "back at the end of the reserve"
    assert [(e.card, e.cause, e.amount) for e in events if e.kind is EventKind.UPGRADE] == [
        ("spiky", "install undone", 2)
    ]
    # Installing is allowed again, and the undo is gone.
    assert "install spiky" in nxt.options
    assert not any(o.startswith("undo ") for o in nxt.options)
    assert game.state.upgrade_discard == []


def test_undo_is_bounded_per_phase() -> None:
    game, seat = undo_setup("spiky", energy=5)
    for _ in range(MAX_UNDOS):
        nxt, _ = step(game, seat, "install spiky")
        assert "undo install spiky" in nxt.options
        step(game, seat, "undo install spiky")
    nxt, _ = step(game, seat, "install spiky")
    assert MAX_UNDOS == 2
    assert not any(o.startswith("undo ") for o in nxt.options), "no third undo"
    assert not any(o.startswith("install ") for o in nxt.options)
    assert "uninstall spiky" in nxt.options


def test_no_undo_after_the_card_is_used_or_uninstalled() -> None:
    game, seat = undo_setup("recharge", energy=2)
    player = game.state.players[seat]
    nxt, _ = step(game, seat, "install recharge")
    assert {"undo install recharge", "use recharge"} <= set(nxt.options)
    nxt, _ = step(game, seat, "use recharge")
    assert player.energy == 5
    assert not any(o.startswith("undo ") for o in nxt.options)
    game, seat = undo_setup("spiky", energy=5)
    step(game, seat, "install spiky")
    nxt, _ = step(game, seat, "uninstall spiky")
    assert not any(o.startswith("undo ") for o in nxt.options)
    assert not any(o.startswith("install ") for o in nxt.options), "the install is spent"


def test_no_undo_that_would_pass_ten_energy() -> None:
    """The whole cost comes back or the undo is not offered (energy stays at most 10)."""
    game, seat = undo_setup("spiky", energy=5)
    player = game.state.players[seat]
    step(game, seat, "install spiky")
    player.energy = MAX_ENERGY  # as if something had filled it up meanwhile
    nxt, _ = step(game, seat, "draw")
    assert player.energy == MAX_ENERGY - 1
    assert not any(o.startswith("undo ") for o in nxt.options)


def test_no_undo_after_done_or_in_a_later_phase() -> None:
    game, seat = undo_setup("spiky", energy=5)
    step(game, seat, "install spiky")
    player = game.state.players[seat]
    assert "installed_uid" in player.to_dict(), "the undo is part of the state while it lasts"
    d = next(x for x in game.pending_decisions() if x.seat == seat)
    game.apply(Action(d.id, seat, "done"))
    assert all(x.kind is not DecisionKind.UPGRADE_PHASE for x in game.pending_decisions())
    assert player.installed_uid == 0 and player.undos == 0
    assert "installed_uid" not in player.to_dict()
    # Play on to the next upgrade phase: last round's install cannot be taken back.
    while game.state.round < 2 or game.pending_decisions()[0].kind is not (
        DecisionKind.UPGRADE_PHASE
    ):
        d = game.pending_decisions()[0]
        game.apply(Action(d.id, d.seat, TIMEOUT))
    for d in game.pending_decisions():
        assert not any(str(o).startswith("undo ") for o in d.options)


def test_a_game_with_undos_replays_from_its_record() -> None:
    from roborally.content.record import parse_record, replay, write_record

    for seed in range(40):  # a game as dealt (a record replays from its seed)
        game, d = first_upgrade_step(seed)
        installs = [o for o in d.options if o.startswith("install ")]
        if d.seat == 0 and installs:
            break
    answer_others(game, 0)
    name = installs[0].partition(" ")[2]
    step(game, 0, installs[0])
    step(game, 0, f"undo install {name}")
    step(game, 0, installs[0])
    text = write_record(game, "tiny")
    assert f"undo install {name}" in text
    again = replay(parse_record(text))
    assert again.digest() == game.digest()
    assert again.state.players[0].undos == 1


def test_the_bots_never_take_an_install_back() -> None:
    from roborally.bots.planner import PlannerBot

    game, seat = undo_setup("spiky", energy=5)
    nxt, _ = step(game, seat, "install spiky")
    obs = game.observation(seat)
    for n in range(30):
        assert not RandomBot(seed=n).choose(obs, nxt).startswith("undo ")
    assert not str(PlannerBot(seed=1).choose(obs, nxt)).startswith("undo ")
