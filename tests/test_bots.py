"""The bots: the lone-robot simulator agrees with the engine, the planner evaluates every
distinct program and scores them consistently, bots see only their observation, every decision
kind of every edition gets a legal answer, and the tournament command works.

Long runs (200-game comparisons, the 1,000-game soak) live in ``bench/bots_bench.py``.
"""

from __future__ import annotations

import io
import json
import random
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from roborally import api
from roborally.bots import runner, tournament
from roborally.bots.expert import ExpertBot
from roborally.bots.planner import DECK_2023, Me, PlannerBot, ProgramSearch, Weights, random_program
from roborally.bots.random_bot import BOTS, RandomBot, make_bot
from roborally.bots.runner import new_game
from roborally.bots.sim import (
    C_EMPTY,
    C_POWER,
    E_ALL_ABOARD,
    E_BACK5,
    E_CRAB_L,
    E_CRAB_R,
    E_LEFT_M1,
    E_MOVE3,
    E_NOOP,
    E_RIGHT_M1,
    EFFECTS,
    MultiSim,
    SimRobot,
    board_model,
    card_code,
    resolve_code,
)
from roborally.bots.tournament import play_one, run_tournament, tasks, wilson
from roborally.cli import main
from roborally.content.courses import find_course
from roborally.content.record import load_record, replay
from roborally.engine.core.board import BeltColor
from roborally.engine.core.decisions import Action, Decision, DecisionKind
from roborally.engine.core.events import EventKind
from roborally.engine.core.geometry import Direction, Pos
from roborally.engine.core.rng import derive_seed
from roborally.engine.game import Game

ROOT = Path(__file__).parent.parent


def advance_to_program(game: Game, bots: list[Any], seat: int = 0, round_: int = 1) -> Decision:
    """Let the bots play until ``seat`` must program in round ``round_`` (or later)."""
    while True:
        mine = [
            d
            for d in game.pending_decisions(seat)
            if d.kind is DecisionKind.PROGRAM and game.state.round >= round_
        ]
        if mine:
            return mine[0]
        assert not game.is_over(), "the game ended first"
        d = game.pending_decisions()[0]
        game.apply(Action(d.id, d.seat, bots[d.seat].choose(game.observation(d.seat), d)))


def play(game: Game, bots: list[Any]) -> None:
    while not game.is_over():
        for d in game.pending_decisions():
            choice = bots[d.seat].choose(game.observation(d.seat), d)
            game.apply(Action(d.id, d.seat, choice))


# ----------------------------------------------------------------------- the simulator
def robot_track(events: list[Any], seat: int, pos: Pos | None, facing: Direction) -> dict:
    """The robot's (pos, facing) at the end of each register, read from the events."""
    ends: dict[int, tuple[Pos | None, Direction]] = {}
    for e in events:
        if e.seat == seat:
            if e.kind in (EventKind.MOVED, EventKind.CONVEYED, EventKind.PUSHED):
                pos = e.to
            elif e.kind is EventKind.ROTATED:
                facing = e.to_facing
            elif e.kind is EventKind.FELL:
                pos = None
            elif e.kind is EventKind.REENTERED:
                pos, facing = e.pos, e.to_facing
        if e.register:
            ends[e.register] = (pos, facing)
    return ends


@pytest.mark.parametrize("course", ["tiny", "y23-rush-hour", "y23-high-voltage"])
def test_lone_simulation_matches_the_engine(course: str) -> None:
    """A robot alone on the course ends every register where the cached transitions say
    (random programs of regular cards; the lighter game has no upgrades to change moves)."""
    rng = random.Random(course)
    checked = 0
    for seed in range(3):
        game = new_game(course, 1, seed, max_rounds=8, variants=["lighter"])
        model = board_model(game.config.course, "2023", frozenset({"lighter"}))
        bot = RandomBot(seed)
        while not game.is_over():
            decision = game.pending_decisions()[0]
            choice = bot.choose(game.observation(0), decision)
            if decision.kind is not DecisionKind.PROGRAM:
                game.apply(Action(decision.id, 0, choice))
                continue
            player = game.state.players[0]
            if player.pos is None or any(r.locked for r in player.registers):
                game.apply(Action(decision.id, 0, choice))
                continue
            hand = [c for c in decision.info["hand"] if c in DECK_2023 and c != "again"]
            rng.shuffle(hand)
            program = tuple(hand[:5])
            if len(program) < 5:
                game.apply(Action(decision.id, 0, choice))
                continue
            start, facing = player.pos, player.facing
            mark = len(game.events)
            rnd = game.state.round
            game.apply(Action(decision.id, 0, program))
            while not game.is_over() and game.state.round == rnd:
                d = game.pending_decisions()[0]
                game.apply(Action(d.id, 0, bot.choose(game.observation(0), d)))
            ends = robot_track([e for e in game.events[mark:] if e.round == rnd], 0, start, facing)
            state = model.grid.index(start) * 4 + int(facing)
            for r, name in enumerate(program, start=1):
                effect = resolve_code(card_code(name, "2023"), E_NOOP, r)
                state = model.step(r, state, effect)[0]
                pos, face = ends[r]
                if state < 0:
                    assert pos is None, f"{course} seed {seed}: predicted a fall in register {r}"
                    break
                assert pos == model.grid.pos(state >> 2) and face == Direction(state & 3), (
                    f"{course} seed {seed} round {rnd} register {r}: {program}"
                )
                checked += 1
    assert checked > 20


@pytest.mark.parametrize("hover", [False, True])
def test_upgrade_effects_match_the_engine(hover: bool) -> None:
    """Crab Legs, Drifting / Power Slide, Pressure Release, All Aboard and Hover Unit moves of
    the lone model end where the engine's upgrade rules put the robot, from every state."""
    game = new_game("y23-dangerous-turns", 1, 0, max_rounds=1)
    rules: Any = game._rules
    s = game.state
    player = s.players[0]
    if hover:
        pool = [*s.upgrade_deck, *player.reserve]
        card = next(c for c in pool if c.name == "hover_unit")
        (s.upgrade_deck if card in s.upgrade_deck else player.reserve).remove(card)
        player.installed.append(card)
    model = board_model(game.config.course, "2023", frozenset(), hover)
    register = player.registers[0]
    actions: dict[int, Any] = {
        E_CRAB_L: lambda: rules.perform(0, "crab_left", register),
        E_CRAB_R: lambda: rules.perform(0, "crab_right", register),
        E_LEFT_M1: lambda: (rules.perform(0, "rotate_left", register), move1()),
        E_RIGHT_M1: lambda: (rules.perform(0, "rotate_right", register), move1()),
        E_MOVE3: lambda: rules.perform(0, "move3", register),
        E_BACK5: lambda: rules.moving(lambda: rules.pressure_release(0)),
        E_ALL_ABOARD: lambda: [
            rules.convey(frozenset({c}), "all aboard", only=0)
            for c in (BeltColor.BLUE, BeltColor.BLUE, BeltColor.GREEN)
        ],
    }

    def move1() -> None:
        if player.pos is not None:
            rules.move(0, player.facing, 1, "upgrade")

    rules._step_a = True
    rules._activation = 0
    checked = falls = 0
    for state in model.states():
        for effect, act in actions.items():
            player.pos, player.facing = model.grid.pos(state >> 2), Direction(state & 3)
            act()
            rules.settle_hover()
            predicted = model.card(state, effect)[0]
            if predicted < 0:
                falls += 1
                assert player.pos is None, (model.grid.pos(state >> 2), EFFECTS[effect])
            else:
                assert (player.pos, player.facing) == (
                    model.grid.pos(predicted >> 2),
                    Direction(predicted & 3),
                ), (model.grid.pos(state >> 2), Direction(state & 3), EFFECTS[effect])
            checked += 1
    assert checked > 1000 and falls > 50
    if hover:  # the Hover Unit model really differs: some moves cross pits
        plain = board_model(game.config.course, "2023")
        assert any(model.card(x, E_MOVE3) != plain.card(x, E_MOVE3) for x in model.states())


def test_observations_list_the_variants_and_the_planner_follows_them() -> None:
    """Bots read the game's variants from the observation (nothing else tells them)."""
    game = new_game("tiny", 2, 1, variants=["less_spam", "less_deadly"])
    obs = game.observation(0)
    assert obs["variants"] == ["less_deadly", "less_spam"]
    search = PlannerBot().searcher(obs)
    assert search.w_spam == 0.0 and search.model.less_deadly
    assert PlannerBot().searcher(new_game("tiny", 2, 1).observation(0)).w_spam > 0
    # classic-1994: a destroyed robot re-enters undamaged unless "worse backup copy" is on;
    # flags repair unless "no flag repair" is on
    for variants, damage, flags_repair in (([], 0, True), (["worse_backup_copy"], 2, True)):
        obs = new_game("cl-first-shift", 2, 1, edition="classic-1994", variants=variants)
        search = PlannerBot().searcher(obs.observation(0))
        assert search.reboot_damage == damage
        assert (search.repair is search.model.repair) is flags_repair
    obs = new_game("cl-first-shift", 2, 1, edition="classic", variants=["no_flag_repair"])
    search = PlannerBot().searcher(obs.observation(0))
    assert search.reboot_damage == 2 and search.repair is search.model.repair_site


def test_lone_step_refuses_card_codes() -> None:
    """Card codes are not effects: the flat tables would alias another state's entry (this once
    made a cached model disagree with the engine after Power Up was looked up directly)."""
    model = board_model(find_course("tiny").course, "2023")
    with pytest.raises(ValueError, match="not a card effect"):
        model.step(1, 0, C_POWER)


@pytest.mark.parametrize("course", ["y23-rush-hour", "y23-dangerous-turns"])
def test_multi_robot_simulation_matches_the_engine(course: str) -> None:
    """A round of several robots (pushes, blocked belts, lasers) ends where MultiSim says, for
    rounds whose programs hold only regular cards."""
    checked = 0
    for seed in range(5):
        game = new_game(course, 4, seed, max_rounds=8, variants=["lighter"])
        model = board_model(game.config.course, "2023", frozenset({"lighter"}))
        bots: list[Any] = [PlannerBot(seed), RandomBot(seed), PlannerBot(seed + 1), RandomBot(1)]
        while not game.is_over():
            decision = advance_to_program(game, bots, 0, game.state.round)
            rnd = game.state.round
            players = game.state.players
            starts = [(p.pos, p.facing, p.checkpoint) for p in players]
            order = game.state.turn_order()
            programs: dict[int, Any] = {}
            while not game.is_over() and game.state.round == rnd:
                d = game.pending_decisions()[0]
                choice = bots[d.seat].choose(game.observation(d.seat), d)
                if d.kind is DecisionKind.PROGRAM:
                    programs[d.seat] = choice
                if d.kind is DecisionKind.SHUTDOWN:
                    choice = False
                game.apply(Action(d.id, d.seat, choice))
            regular = all(
                name in DECK_2023 for prog in programs.values() for name in prog if name is not None
            )
            if (
                game.is_over()
                or not regular
                or len(programs) != 4
                or any(s[0] is None for s in starts)
                or any(None in prog or prog[0] == "again" for prog in programs.values())
            ):
                continue
            robots = [
                SimRobot(pos, facing, cp, [card_code(n, "2023") for n in programs[seat]])
                for seat, (pos, facing, cp) in enumerate(starts)
            ]
            results = MultiSim(model, 4).run(robots, order)
            for seat, result in enumerate(results):
                p = game.state.players[seat]
                if result.fell:
                    assert p.rebooted_this_round or p.pos is None, (course, seed, rnd, seat)
                    continue
                assert not p.rebooted_this_round, (course, seed, rnd, seat)
                expected = model.grid.index(p.pos) * 4 + int(p.facing)
                assert result.state == expected, (course, seed, rnd, seat, programs)
                assert result.checkpoint == p.checkpoint
                checked += 1
            del decision
    assert checked >= 12


def test_distance_field_is_zero_on_checkpoints_and_grows_away() -> None:
    model = board_model(find_course("tiny").course, "2023")
    first = model.grid.index(model.grid.checkpoints[0])
    dist = model.dist(1)
    assert all(dist[first * 4 + f] == 0 for f in range(4))
    to_go = model.to_go(0)
    start = model.grid.start_spaces[0].pos
    assert 0 < to_go[model.grid.index(start) * 4] < 60


# -------------------------------------------------------------------------- the search
def search_for(game: Game, seat: int = 0) -> tuple[ProgramSearch, Any]:
    bot = PlannerBot()
    obs = game.observation(seat)
    return bot.searcher(obs), obs


def best_by_evaluation(search: ProgramSearch, start: int, programs: set[Any]) -> float:
    """The lowest cost over ``programs``, each scored on its own register by register."""
    return min(
        search.evaluate(
            start,
            1,
            [card_code(n, "2023") for n in program],
            search.me.reached,
            bonus=-Weights().spam * program.count("spam"),
        )
        for program in programs
    )


def test_search_covers_every_distinct_program_and_finds_the_best() -> None:
    """The search covers exactly the distinct programs the engine lists, and its best cost
    equals the minimum of an independent register-by-register evaluation of all of them."""
    rng = random.Random(5)
    game = new_game("y23-rush-hour", 2, 3)
    bots = [RandomBot(1), RandomBot(2)]
    decision = advance_to_program(game, bots, 0, 3)
    search, obs = search_for(game)
    me = search.me
    assert me.pos is not None
    start = search.model.grid.index(me.pos) * 4 + int(me.facing)
    names = [*sorted(DECK_2023), "spam", "hw_m1rm1", "hw_side2", "hw_two"]
    for trial in range(6):
        hand = [rng.choice(names) for _ in range(9)] if trial else sorted(DECK_2023)
        result = search.search(hand, None, [start])
        fake = Decision("t", 0, DecisionKind.PROGRAM, "", (), "", {"hand": hand, "locked": []})
        programs = set(game.legal_choices(fake))
        assert result.programs == len(programs)
        best = best_by_evaluation(search, start, programs)
        assert result.best.cost == pytest.approx(best), hand
        assert result.best.program in programs
    del decision, obs


def test_search_with_movement_upgrades_finds_the_best_program() -> None:
    """With Crab Legs, Brakes, Drifting, Power Slide and Chaos Theory the search still covers
    exactly the engine's distinct programs (pairs included) and its best cost is the minimum
    of an independent evaluation of all of them (each reveal choice taken where it helps)."""
    rng = random.Random(8)
    game = new_game("y23-dangerous-turns", 2, 3)
    advance_to_program(game, [RandomBot(1), RandomBot(2)])
    plain, _obs = search_for(game)
    me = plain.me
    me.upgrades = frozenset({"crab_legs", "brakes", "drifting", "power_slide", "chaos_theory"})
    search = ProgramSearch(plain.model, me, Weights(), frozenset())
    assert me.pos is not None
    rules: Any = game._rules
    start = search.model.grid.index(me.pos) * 4 + int(me.facing)
    names = [*sorted(DECK_2023), "spam", "move1", "rotate_left", "rotate_right"]
    for trial in range(5):
        hand = [rng.choice(names) for _ in range(9)] if trial else sorted(DECK_2023)
        result = search.search(hand, None, [start], pairs=True)
        info = {"hand": hand, "locked": [], "registers": 5, "pairs": True}
        fake = Decision("t1-p1-program", 0, DecisionKind.PROGRAM, "", (), "", info)
        programs = set(rules.legal_choices(fake))
        assert result.programs == len(programs), hand
        if not trial:
            assert any("+" in (name or "") for program in programs for name in program)
        best = best_by_evaluation(search, start, programs)
        assert result.best.cost == pytest.approx(best), hand
        assert rules.validate(fake, result.best.program) == result.best.program
    # the upgrades matter: without them the best program costs more on some hand
    assert (
        plain.search(sorted(DECK_2023), None, [start]).best.cost
        >= search.search(sorted(DECK_2023), None, [start], pairs=True).best.cost
    )


def test_full_hand_of_nine_distinct_cards_evaluates_15120_programs() -> None:
    game = new_game("y23-rush-hour", 2, 3)
    advance_to_program(game, [RandomBot(1), RandomBot(2)])
    search, _ = search_for(game)
    me = search.me
    assert me.pos is not None
    start = search.model.grid.index(me.pos) * 4 + int(me.facing)
    result = search.search(sorted(DECK_2023), None, [start])
    assert result.programs == 15120
    assert result.leaves <= 15120


def test_locked_registers_stay_empty_in_the_program() -> None:
    game = new_game("tiny", 2, 4)
    decision = advance_to_program(game, [RandomBot(1), RandomBot(2)])
    obs = game.observation(0)
    obs["players"][0]["registers"][2] = {
        "cards": ["hw_m3u"],
        "count": 1,
        "revealed": False,
        "locked": True,
        "facedown_haywire": None,
    }
    info = dict(decision.info, locked=[3])
    locked = Decision(decision.id, 0, DecisionKind.PROGRAM, "", (), "", info)
    program = PlannerBot().choose(obs, locked)
    assert program[2] is None and all(p is not None for i, p in enumerate(program) if i != 2)
    assert Counter(p for p in program if p) <= Counter(decision.info["hand"])


# ------------------------------------------------------------------------ information
def shuffle_hidden(game: Game, seat: int, rng: random.Random) -> None:
    """Change everything ``seat`` may not see: the other hands and upgrade reserves, and every
    deck's order."""
    state = game.state
    for player in state.players:
        if player.seat != seat and player.reserve:  # a hidden reserve: other upgrade cards
            pool = player.reserve + state.upgrade_deck
            rng.shuffle(pool)
            player.reserve = pool[: len(player.reserve)]
            state.upgrade_deck = pool[len(player.reserve) :]
        top = player.deck[-1:] if player.top_visible else []  # Spam Filter's card is public
        rest = player.deck[: len(player.deck) - len(top)]
        if player.seat != seat:
            pool = player.hand + rest
            rng.shuffle(pool)
            player.hand, rest = pool[: len(player.hand)], pool[len(player.hand) :]
        rng.shuffle(rest)
        player.deck = rest + top
    rng.shuffle(state.damage_deck)
    rng.shuffle(state.upgrade_deck)


def bot_for(kind: str) -> PlannerBot:
    if kind == "expert":
        return ExpertBot(7, budget=60.0)
    bot = make_bot(kind, 7)
    assert isinstance(bot, PlannerBot)
    return bot


@pytest.mark.parametrize("kind", ["planner", "expert", "beginner", "casual"])
def test_bots_cannot_see_hidden_information(kind: str) -> None:
    """Bots receive only ``game.observation(seat)``; changing what that seat may not see
    (other hands, deck orders) changes neither the observation nor the bot's decision."""
    for seed in (1, 2):
        game = new_game("y23-rush-hour", 4, seed)
        bots = [RandomBot(seed * 10 + i) for i in range(4)]
        decision = advance_to_program(game, bots, 0, 2)
        before = game.observation(0)
        choice = bot_for(kind).choose(before, decision)
        other = game.copy()
        shuffle_hidden(other, 0, random.Random(seed))
        assert other.digest() != game.digest()
        after = other.observation(0)
        assert after == before
        assert all(isinstance(p["hand"], int) for p in after["players"][1:])
        assert bot_for(kind).choose(after, decision) == choice
        json.dumps(after)  # plain data: no reference to the game state


def test_runner_and_tournament_hand_bots_only_observations() -> None:
    seen: list[dict[str, Any]] = []

    class Spy:
        name = "spy"

        def __init__(self, seed: int = 0) -> None:
            self.inner = PlannerBot(seed)

        def choose(self, observation: dict[str, Any], decision: Decision) -> Any:
            assert isinstance(observation, dict) and observation["seat"] == decision.seat
            json.dumps(observation)
            seen.append(observation)
            return self.inner.choose(observation, decision)

    BOTS["spy"] = Spy
    try:
        task = next(iter(tasks("2023", "tiny", ["spy", "random"], 1, 3, 20, [], None)))
        result = play_one(task)
    finally:
        del BOTS["spy"]
    assert result.error is None and seen


# --------------------------------------------------------------------------- decisions
def test_planner_beats_random_on_a_beginner_course() -> None:
    wins = 0
    for seed in range(6):
        game = new_game("y23-fortress-tour", 4, 100 + seed, max_rounds=30)
        kinds = ["planner", "random", "random", "random"]
        shift = seed % 4
        kinds = kinds[shift:] + kinds[:shift]
        play(game, [make_bot(k, seed * 10 + i) for i, k in enumerate(kinds)])
        wins += game.state.winner is not None and kinds[game.state.winner] == "planner"
    assert wins >= 5


@pytest.mark.parametrize(
    ("edition", "course", "variants"),
    [
        ("2023", "y23-little-canyon", []),
        ("2023", "tiny", ["less_deadly", "dynamic_archiving", "competitive_start"]),
        ("2023", "y23-river-run", ["lighter", "less_spam", "less_predictable"]),
        ("classic", "cl-first-shift", []),
        ("classic", "cl-tune-up", ["emergency_shutdown", "power_down_without_damage"]),
        ("classic-1994", "cl-sinking-feeling", ["option_cards"]),
    ],
)
def test_bots_play_every_edition(edition: str, course: str, variants: list[str]) -> None:
    kinds = ["planner", "expert", "random", "planner"]
    game = new_game(course, 4, 3, max_rounds=12, variants=variants, edition=edition)
    bots = [make_bot(k, i) for i, k in enumerate(kinds)]
    for bot in bots:
        if isinstance(bot, PlannerBot):
            bot.variants = frozenset(variants)
            bot.strict = True
    play(game, bots)
    assert game.is_over()
    for bot in bots:
        if isinstance(bot, PlannerBot):
            assert bot.fallbacks == 0 and bot.errors == []


def test_every_decision_kind_gets_a_legal_answer() -> None:
    """Synthetic decisions of every kind (and an unknown one) on a real observation."""
    game = new_game("tiny", 2, 5)
    advance_to_program(game, [RandomBot(1), RandomBot(2)], 0, 2)
    obs = game.observation(0)
    bot = PlannerBot(1)
    bot.strict = True
    cases = [
        Decision("t2-p1-shutdown", 0, DecisionKind.SHUTDOWN, "", (False, True), "no"),
        Decision("t2-r1-p1-reboot_facing", 0, DecisionKind.REBOOT_FACING, "", tuple("NESW")),
        Decision("t2-r1-p1-sidestep-1", 0, DecisionKind.SIDESTEP, "", ("LEFT", "RIGHT")),
        Decision(
            "t2-r1-p1-card_order",
            0,
            DecisionKind.CARD_ORDER,
            "",
            ((0, 1), (1, 0)),
            "",
            {"cards": ["move2", "rotate_left"]},
        ),
        Decision(
            "t2-p1-upgrade-0",
            0,
            DecisionKind.UPGRADE_PHASE,
            "",
            ("done", "draw", "install firewall", "uninstall brakes"),
            "done",
            {"energy": 5},
        ),
        Decision("t2-r1-p1-brakes", 0, DecisionKind.UPGRADE, "", ("no", "yes"), "no"),
        Decision("t0-p1-block_start", 0, DecisionKind.BLOCK_START, "", (1, 2, 3), ""),
    ]
    for decision in cases:
        choice = bot.choose(obs, decision)
        assert choice in decision.options, decision
    # A damaged robot weighs a shutdown (its hand and discard full of SPAM).
    heavy = json.loads(json.dumps(obs))
    heavy["players"][0]["discard"] = ["spam"] * 8
    assert bot.choose(heavy, cases[0]) in (False, True)
    # An unknown decision kind never crashes the bot: it takes a listed option.
    odd = Decision("t2-p1-odd", 0, DecisionKind.UPGRADE, "", ("keep", "swap"), "keep")
    assert ExpertBot(1).choose(obs, odd) in odd.options


def test_classic_questions_get_legal_answers() -> None:
    game = new_game("cl-first-shift", 3, 4, edition="classic")
    advance_to_program(game, [RandomBot(1), RandomBot(2), RandomBot(3)], 0, 2)
    obs = game.observation(0)
    bot = PlannerBot(1)
    bot.strict = True
    cases = [
        ("t2-r1-move-1-p1-brakes", ("no", "yes")),
        ("t2-r1-move-1-p1-fourth_gear", ("no", "yes")),
        ("t2-r1-move-1-p1-reverse_gear", ("no", "yes")),
        ("t2-r1-lasers-1-p1-weapon", ("laser", "mini_howitzer", "fire_control lock 2")),
        ("t2-r1-lasers-1-p1-shield", ("keep", "brakes", "ablative_coat")),
        ("t2-r0-store-1-p1-flywheel", ("none", "move1@490", "move3@800")),
        ("t2-r0-cleanup-1-p1-lose_option", ("ablative_coat", "recompile")),
        ("t2-r0-recompile-1-p1-recompile", ("no", "yes")),
        ("t2-r0-x-1-p1-something_new", ("first", "second")),
    ]
    for decision_id, options in cases:
        decision = Decision(decision_id, 0, DecisionKind.CHOICE, "takes 3 damage", options)
        assert bot.choose(obs, decision) in options, decision_id
    power = Decision(
        "t2-r0-announce-1-p1-power_down", 0, DecisionKind.POWER_DOWN, "", (False, True)
    )
    assert bot.choose(obs, power) in (False, True)
    place = Decision("t2-r0-reenter-1-p1-reenter", 0, DecisionKind.REBOOT_FACING, "", ("1,1 N",))
    assert bot.choose(obs, place) == "1,1 N"


def test_unknown_course_falls_back_to_a_legal_program() -> None:
    game = new_game("tiny", 2, 6)
    decision = advance_to_program(game, [RandomBot(1), RandomBot(2)])
    obs = dict(game.observation(0), course="no-such-course")
    bot = PlannerBot(1)
    program = bot.choose(obs, decision)
    assert bot.fallbacks == 1
    game.check(Action(decision.id, 0, program))


def test_random_program_is_legal() -> None:
    game = new_game("tiny", 2, 6)
    decision = advance_to_program(game, [RandomBot(1), RandomBot(2)])
    for seed in range(5):
        game.check(Action(decision.id, 0, random_program(decision, random.Random(seed))))


def test_expert_uses_its_neighbours() -> None:
    game = new_game("y23-rush-hour", 4, 9)
    bots = [PlannerBot(i) for i in range(4)]
    decision = advance_to_program(game, bots, 0, 2)
    expert = ExpertBot(3)
    program = expert.choose(game.observation(0), decision)
    game.check(Action(decision.id, 0, program))
    assert expert.last_search is not None and len(expert.last_search.top) > 1


def test_planner_plans_its_reentry_facing() -> None:
    game = new_game("tiny", 2, 2)
    decision = advance_to_program(game, [RandomBot(1), RandomBot(2)])
    obs = game.observation(0)
    me = obs["players"][0]
    me["reentry"], me["pos"] = me["pos"], None
    bot = PlannerBot(1)
    bot.choose(obs, decision)
    assert bot.last_search is not None and bot.last_search.programs % 4 == 0
    facing = Decision("t1-r1-p1-reboot_facing", 0, DecisionKind.REBOOT_FACING, "", tuple("NESW"))
    assert bot.choose(obs, facing) == Direction(bot.last_search.best.start & 3).letter


def test_classic_program_names_real_cards() -> None:
    game = new_game("cl-first-shift", 3, 4, edition="classic")
    decision = advance_to_program(game, [RandomBot(1), RandomBot(2), RandomBot(3)])
    program = PlannerBot(1).choose(game.observation(0), decision)
    assert all(p is None or p in decision.info["hand"] for p in program)
    game.check(Action(decision.id, 0, program))


def test_search_me_defaults() -> None:
    me = Me(0, Pos(1, 1), Direction.NORTH, 0, 3, None, None)
    assert me.damage == 0 and me.lives == 3 and me.hand == []
    assert C_EMPTY > 100


# --------------------------------------------------------------------------- tournament
def test_wilson_interval() -> None:
    low, high = wilson(95, 100)
    assert 0.88 < low < 0.95 < high < 0.99
    assert wilson(0, 0) == (0.0, 1.0)


def test_tournament_rotates_seats_and_counts() -> None:
    result = run_tournament("2023", "tiny", ["planner", "random", "random"], games=3, seed=4)
    assert [g.seats[0] for g in result.games] == ["planner", "random", "random"]
    stats = result.stats()
    assert stats["planner"].games == 3 and stats["random"].games == 6
    assert result.errors == []
    assert "planner" in result.table() and "head to head" in result.table()


def test_tournament_command(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "results.json"
    records = tmp_path / "records"
    code = main(
        [
            "tournament",
            "--course",
            "tiny",
            "--bots",
            "planner,expert,random",
            "--games",
            "3",
            "--seed",
            "2",
            "--jobs",
            "2",
            "--json",
            str(out),
            "--records",
            str(records),
            "-q",
        ]
    )
    printed = capsys.readouterr().out
    assert code == 0, printed
    assert "win rate" in printed and "expert" in printed
    data = json.loads(out.read_text())
    assert {row["bot"] for row in data["per_bot"]} == {"planner", "expert", "random"}
    assert data["games_played"] == 3 and data["errors"] == 0
    files = sorted(records.glob("*.rec"))
    assert len(files) == 3
    replayed = replay(load_record(files[0]))
    assert replayed.is_over()


def test_tournament_command_rejects_unknown_bots(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["tournament", "--bots", "planner,nobody", "--games", "1", "-q"]) == 2
    assert "unknown bot" in capsys.readouterr().err


# ------------------------------------------------------------------------ bot seeds
def test_bots_get_derived_seeds(monkeypatch: pytest.MonkeyPatch) -> None:
    """play, tournament and the API seed seat N's bot with derive_seed(game seed, "bot/N")."""
    seen: list[int] = []

    def spy(kind: str, seed: int) -> Any:
        seen.append(seed)
        return RandomBot(seed)

    monkeypatch.setattr(runner, "make_bot", spy)
    runner.play_game("2023", "tiny", ["random"] * 3, 77, 1, [], out=io.StringIO())
    assert seen == [derive_seed(77, f"bot/{seat}") for seat in range(3)]

    seen.clear()
    monkeypatch.setattr(tournament, "make", spy)
    task = tournament.GameTask(0, 78, "2023", "tiny", ("random", "random"), 1, (), None)
    assert play_one(task).error is None
    assert seen == [derive_seed(78, f"bot/{seat}") for seat in range(2)]

    bots = api.bots_for(["random", "random"], seed=79)
    for seat, bot in enumerate(bots):
        assert isinstance(bot, RandomBot)
        expected = RandomBot(derive_seed(79, f"bot/{seat}"))
        assert bot.rng.getstate() == expected.rng.getstate()
