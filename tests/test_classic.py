"""The classic rulesets (``classic`` and ``classic-1994``): setup, the card catalogue, views,
records, and seeded random-bot games for 2 to 8 robots with invariants checked after every
action (84 program cards and 26 option cards conserved, damage and lives in bounds, registers
locked exactly as the damage says, robots never on a pit or sharing a square)."""

from __future__ import annotations

import json
import random
from collections import Counter
from typing import Any

import pytest

from roborally.bots.random_bot import RandomBot
from roborally.bots.runner import new_game
from roborally.cli import main
from roborally.content.classic_cards import (
    ClassicCardDataError,
    catalogue,
    option_cards,
    parse_option_cards,
    parse_program_deck,
    program_deck,
)
from roborally.content.courses import list_courses
from roborally.engine.classic.model import (
    CLASSIC_1994_VARIANTS,
    CLASSIC_VARIANTS,
    MOVES,
    OPTION_IDS,
    ROTATIONS,
    ClassicPlayer,
    ClassicState,
    card_type,
    locks_for,
)
from roborally.engine.classic.view import classic_observation
from roborally.engine.core.decisions import TIMEOUT, Action, Decision, DecisionKind
from roborally.engine.core.events import EventKind
from roborally.engine.core.state import GameConfig
from roborally.engine.editions import edition
from roborally.engine.game import Game

CLASSIC_COURSES = [c for c in list_courses() if c.edition == "classic"]
EDITIONS = ("classic", "classic-1994")


def course_for(seed: int, players: int) -> str:
    fitting = [c for c in CLASSIC_COURSES if c.players[1] >= players] or CLASSIC_COURSES
    return fitting[seed % len(fitting)].id


# --------------------------------------------------------------------------- invariants
def check_invariants(game: Game, flags: list[int], lives: list[int]) -> None:
    state = game.state
    assert isinstance(state, ClassicState)
    grid = state.grid
    deck = {spec.id: spec.priority for spec in program_deck()}

    # 84 program cards, each exactly once, all accounted for.
    cards = state.all_program_cards()
    assert len(cards) == 84, f"{len(cards)} program cards in play"
    assert len({c.uid for c in cards}) == 84, "a program card is in two places"
    assert {c.name for c in cards} == set(deck), "program deck composition changed"
    assert all(deck[c.name] == c.priority for c in cards)

    # Option cards: all of them somewhere, each once.
    options = state.all_option_cards()
    expected = len(option_cards()) if game._rules.options_on else 0  # type: ignore[attr-defined]
    assert len(options) == expected, f"{len(options)} option cards in play"
    assert len({c.uid for c in options}) == len(options)
    assert len({c.name for c in options}) == len(options)

    y94 = state.config.edition == "classic-1994"
    positions = [p.pos for p in state.players if p.pos is not None]
    if not y94:
        assert len(positions) == len(set(positions)), f"two robots share a square: {positions}"
    for p in state.cplayers:
        assert isinstance(p, ClassicPlayer)
        start_lives = 4 if "four_lives" in state.config.variants else 3
        assert 0 <= p.lives <= start_lives
        assert p.lives <= lives[p.seat], f"P{p.seat + 1} gained a life"
        lives[p.seat] = p.lives
        assert p.eliminated == (p.lives == 0)
        assert 0 <= p.damage <= 9, f"P{p.seat + 1} has {p.damage} damage"
        assert flags[p.seat] <= p.checkpoint <= len(grid.checkpoints)
        flags[p.seat] = p.checkpoint
        assert len(p.registers) == 5
        if p.pos is not None:
            assert grid.is_on_course(p.pos) and not grid.pits[grid.index(p.pos)]
            assert not p.destroyed and not p.eliminated and not p.finished
            if state.stage not in ("power_down", "emergency"):
                wanted = locks_for(p.damage) | p.fire_locks
                assert set(p.locked_registers()) == wanted, (
                    f"P{p.seat + 1} damage {p.damage} locks {p.locked_registers()}"
                )
        else:
            assert p.damage == 0 or state.stage == "place"
            assert p.destroyed or p.eliminated or p.finished or state.stage == "place"
        for register in p.registers:
            assert len(register.cards) <= 2
        if p.shutdown:
            assert not p.hand
        assert len(p.hand) <= 11

    pending = game.pending_decisions()
    assert game.is_over() == (not pending)
    assert len({d.id for d in pending}) == len(pending)
    if state.over:
        outcome = game.outcome()
        assert outcome is not None
        sole = "last_robot_standing_wins" in state.config.variants
        if outcome.winner is not None and not sole:
            assert state.players[outcome.winner].checkpoint == len(grid.checkpoints)
        if outcome.winner is not None:
            assert state.places[0] == outcome.winner


def program_with_pairs(rng: random.Random, decision: Decision) -> tuple[str | None, ...]:
    """A random program that puts a Crab Legs / Dual Processor pair in a register when it can."""
    hand = list(decision.info["hand"])
    rng.shuffle(hand)
    slots = [i for i in range(5) if i + 1 not in decision.info["locked"]]
    program: list[str | None] = [None] * 5
    pairs = decision.info.get("pairs", [])
    moves = [h for h in hand if card_type(h) in MOVES]
    turns = [h for h in hand if card_type(h) in ROTATIONS]
    pair: list[str] = []
    if "dual_processor" in pairs and moves and turns:
        pair = [moves[0], turns[0]]
    elif "crab_legs" in pairs:
        ones = [m for m in moves if card_type(m) == "move1"]
        sides = [t for t in turns if card_type(t) != "u_turn"]
        if ones and sides:
            pair = [ones[0], sides[0]]
    if pair and slots:
        program[slots.pop(0)] = "+".join(pair)
        for name in pair:
            hand.remove(name)
    for slot in slots:
        if hand:
            program[slot] = hand.pop()
    return tuple(program)


def choice_for(rng: random.Random, bot: RandomBot, game: Game, decision: Decision) -> Any:
    if rng.random() < 0.03:
        return TIMEOUT
    if decision.kind is DecisionKind.PROGRAM and decision.info.get("pairs") and rng.random() < 0.5:
        return program_with_pairs(rng, decision)
    return bot.choose(game.observation(decision.seat), decision)


def test_classic_questions_have_their_own_decision_kinds() -> None:
    """Power-down questions are ``power_down`` and every other classic question ``choice``;
    the 2023 kinds ``shutdown`` and ``sidestep`` never appear in a classic game."""
    kinds: set[DecisionKind] = set()
    for seed in range(12):
        edition_id = EDITIONS[seed % len(EDITIONS)]
        variants = ["emergency_shutdown", "option_cards"] if edition_id == "classic-1994" else []
        game = new_game(CLASSIC_COURSES[0].id, 4, seed, 12, variants, edition_id)
        bot = RandomBot(seed)
        while not game.is_over():
            d = game.pending_decisions()[0]
            kinds.add(d.kind)
            game.apply(Action(d.id, d.seat, bot.choose(game.observation(d.seat), d)))
    assert {DecisionKind.POWER_DOWN, DecisionKind.CHOICE, DecisionKind.PROGRAM} <= kinds
    assert not kinds & {DecisionKind.SHUTDOWN, DecisionKind.SIDESTEP}


def setup_game(
    edition_id: str,
    players: int,
    seed: int,
    variants: list[str],
    give_options: int,
    max_rounds: int,
) -> Game:
    game = new_game(course_for(seed, players), players, seed, max_rounds, variants, edition_id)
    state = game.state
    assert isinstance(state, ClassicState)
    for p in state.cplayers:  # hand out option cards so that every card gets played
        for _ in range(give_options):
            if state.option_deck:
                p.options.append(state.option_deck.pop())
    return game


def play(
    edition_id: str,
    players: int,
    seed: int,
    variants: list[str] | None = None,
    give_options: int = 0,
    max_rounds: int = 12,
    check: bool = True,
    used: Counter[str] | None = None,
) -> Game:
    game = setup_game(edition_id, players, seed, variants or [], give_options, max_rounds)
    rng = random.Random(seed)
    bots = [RandomBot(seed * 31 + i, shutdown_rate=0.1) for i in range(players)]
    flags = [0] * players
    lives = [9] * players
    if check:
        check_invariants(game, flags, lives)
    steps = 0
    while not game.is_over():
        pending = game.pending_decisions()
        assert pending, "the game waits for nothing but is not over"
        decision = pending[0]
        choice = choice_for(rng, bots[decision.seat], game, decision)
        events = game.apply(Action(decision.id, decision.seat, choice))
        if used is not None:
            note_option_use(game, decision, choice, events, used)
        steps += 1
        assert steps < 200_000
        if check:
            check_invariants(game, flags, lives)
    return game


#: Evidence that an option card did its job: (event kind, cause prefix) per option.
EVIDENCE = {
    "ablative_coat": (EventKind.DAMAGE_PREVENTED, "ablative coat"),
    "abort_switch": (EventKind.CARD_REPLACED, "abort switch:"),
    "circuit_breaker": (EventKind.SHUT_DOWN, "circuit breaker"),
    "conditional_program": (EventKind.CARD_REPLACED, "conditional program:"),
    "crab_legs": (EventKind.CARD_RESOLVED, "crab legs"),
    "dual_processor": (EventKind.CARD_RESOLVED, "dual processor"),
    "fire_control": (EventKind.SHOT, "fire control"),
    "high_power_laser": (EventKind.SHOT, "high-power laser"),
    "mechanical_arm": (EventKind.ARCHIVED, "mechanical arm"),
    "mini_howitzer": (EventKind.SHOT, "mini howitzer"),
    "power_down_shield": (EventKind.DAMAGE_PREVENTED, "power-down shield"),
    "pressor_beam": (EventKind.SHOT, "pressor beam"),
    "radio_control": (EventKind.SHOT, "radio control"),
    "ramming_gear": (EventKind.DAMAGED, "ramming gear"),
    "rear_firing_laser": (EventKind.SHOT, "rear laser"),
    "recompile": (EventKind.CARDS_DRAWN, "recompile"),
    "scrambler": (EventKind.SHOT, "scrambler"),
    "tractor_beam": (EventKind.SHOT, "tractor beam"),
}
#: Options whose use is a "yes" to their own question.
ASKED = {
    "brakes": "brakes",
    "fourth_gear": "fourth_gear",
    "reverse_gear": "reverse_gear",
    "gyroscopic_stabilizer": "stabilizer",
    "flywheel": "flywheel",
}


def note_option_use(
    game: Game, decision: Decision, choice: Any, events: list[Any], used: Counter[str]
) -> None:
    what = decision.id.rsplit("-", 1)[-1]
    for option, question in ASKED.items():
        if what == question and choice not in ("no", "none", TIMEOUT):
            used[option] += 1
    state = game.state
    assert isinstance(state, ClassicState)
    for event in events:
        for option, (kind, cause) in EVIDENCE.items():
            if event.kind is kind and (event.cause or "").find(cause) >= 0:
                used[option] += 1
        if event.kind is EventKind.SHOT and event.cause == "robot laser" and event.amount == 2:
            used["double_barreled_laser"] += 1
        if event.kind is EventKind.CARDS_DRAWN and (event.amount or 0) >= 10:
            used["extra_memory"] += 1
        if event.kind is EventKind.REENTERED and event.seat is not None:
            player = state.player(event.seat)
            if player.has("superior_archive") and player.damage < 2:
                used["superior_archive"] += 1


# --------------------------------------------------------------------------- registry
def test_both_rulesets_are_registered_for_2_to_8_robots() -> None:
    for name, variants in (("classic", CLASSIC_VARIANTS), ("classic-1994", CLASSIC_1994_VARIANTS)):
        rules = edition(name)
        assert (rules.min_players, rules.max_players) == (2, 8)
        assert rules.variants == variants
        assert rules.rules_version.startswith(name)


def test_four_lives_needs_five_robots() -> None:
    """2.4 / A-7: 3 lives, or 4 with 5 or more robots (001: 46-47; 002: 27-29)."""
    course = CLASSIC_COURSES[0].course
    with pytest.raises(ValueError, match="5 or more robots"):
        Game(
            GameConfig(
                course, ("A", "B", "C", "D"), edition="classic", variants=frozenset({"four_lives"})
            )
        )
    game = Game(
        GameConfig(course, tuple("ABCDE"), edition="classic", variants=frozenset({"four_lives"}))
    )
    assert all(p.lives == 4 for p in game.state.cplayers)  # type: ignore[attr-defined]


def test_docks_are_dealt_clockwise_from_the_first_player() -> None:
    """2.5: dock 1 for the first player, then clockwise; the archive starts there
    (001: 52-56; 002: 35-41)."""
    course = CLASSIC_COURSES[0].course
    game = Game(GameConfig(course, tuple("ABCD"), edition="classic", first_player=2))
    state = game.state
    assert isinstance(state, ClassicState)
    assert [state.player(s).dock for s in range(4)] == [3, 4, 1, 2]
    assert state.dock_order() == [2, 3, 0, 1]
    starts = {sp.number: sp.pos for sp in state.grid.start_spaces}
    for p in state.cplayers:
        assert p.pos == starts[p.dock] == p.archive


def test_1994_robots_start_together_on_checkpoint_1() -> None:
    """2.6 / V2: all robots start on checkpoint 1, facing as their players choose (004: 19)."""
    course = CLASSIC_COURSES[0].course
    game = Game(GameConfig(course, tuple("ABC"), edition="classic-1994"))
    for _ in range(3):
        decision = game.pending_decisions()[0]
        assert decision.kind is DecisionKind.REBOOT_FACING
        game.apply(Action(decision.id, decision.seat, "W"))
    state = game.state
    assert {p.pos for p in state.players} == {state.grid.checkpoints[0]}
    assert all(p.checkpoint == 1 and p.facing.letter == "W" for p in state.players)


# --------------------------------------------------------------------------- cards
def test_program_deck_has_84_unique_priorities() -> None:
    """1.2: 84 cards, unique priorities 10-840 (004: 65); counts 18/12/6/6/6/18/18
    (001: 116-129)."""
    deck = program_deck()
    assert len(deck) == 84
    assert sorted(c.priority for c in deck) == list(range(10, 841, 10))
    counts = Counter(c.type for c in deck)
    assert counts == {
        "u_turn": 6,
        "rotate_left": 18,
        "rotate_right": 18,
        "back_up": 6,
        "move1": 18,
        "move2": 12,
        "move3": 6,
    }
    assert sorted(counts.values()) == sorted([18, 12, 6, 6, 6, 18, 18])  # 001: 116-129


def test_option_cards_are_the_26_the_engine_implements() -> None:
    """1.3 / 8.3: 26 option cards (001: 19)."""
    cards = option_cards()
    assert [c.id for c in cards] == list(OPTION_IDS)
    assert all(c.text and c.name and c.timing for c in cards)


def test_card_data_errors_name_the_problem() -> None:
    with pytest.raises(ClassicCardDataError, match="84 cards"):
        parse_program_deck(
            '{"cards": [{"type": "move1", "name": "M", "text": "", "priorities": [1]}]}'
        )
    with pytest.raises(ClassicCardDataError, match="also on a"):
        parse_program_deck(
            '{"cards": [{"type": "move1", "name": "M", "text": "", "priorities": [10, 10]}]}'
        )
    with pytest.raises(ClassicCardDataError, match="unknown card type"):
        parse_program_deck(
            '{"cards": [{"type": "fly", "name": "M", "text": "", "priorities": [1]}]}'
        )
    with pytest.raises(ClassicCardDataError, match="unknown option card"):
        parse_option_cards('{"cards": [{"id": "jetpack", "name": "J", "timing": "", "text": ""}]}')
    with pytest.raises(ClassicCardDataError, match="duplicate"):
        parse_option_cards(
            '{"cards": [{"id": "brakes", "name": "B", "timing": "", "text": ""},'
            ' {"id": "brakes", "name": "B", "timing": "", "text": ""}]}'
        )


def test_cards_command_lists_the_classic_catalogue(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["cards", "--edition", "classic", "--json"]) == 0
    listed = json.loads(capsys.readouterr().out)
    program = listed["program_cards"]
    assert len(program) == 84
    assert len({c["priority"] for c in program}) == 84
    assert all(c["id"] == f"{c['type']}@{c['priority']}" for c in program)
    assert len(listed["option_cards"]) == 26
    assert catalogue("classic-1994")["program_cards"] == program
    assert main(["cards", "--edition", "classic"]) == 0
    assert "move3@840" in capsys.readouterr().out


# --------------------------------------------------------------------------- views
def test_observation_keeps_hands_and_face_down_registers_private() -> None:
    game = setup_game("classic", 3, 4, [], 0, 3)
    decisions = game.pending_decisions()
    assert {d.kind for d in decisions} == {DecisionKind.PROGRAM}
    state = game.state
    assert isinstance(state, ClassicState)
    view = classic_observation(state, 0, game.pending_decisions())
    assert view["players"][0]["hand"] == [c.name for c in state.players[0].hand]
    assert view["players"][1]["hand"] == 9
    assert [d["seat"] for d in view["pending"]] == [0]
    # A face-down card in another robot's register stays hidden; a locked (face-up) one shows.
    other = state.player(1)
    other.registers[0].cards = [other.hand.pop()]
    other.registers[4].cards = [other.hand.pop()]
    other.registers[4].locked = other.registers[4].revealed = True
    other.stored["flywheel"] = other.hand.pop()
    view = classic_observation(state, 0, [])
    seen = view["players"][1]
    assert seen["registers"][0]["cards"] is None
    assert seen["registers"][4]["cards"] == [other.registers[4].cards[0].name]
    assert seen["classic"]["stored"] == {"flywheel": None}
    assert classic_observation(state, 1, [])["players"][1]["classic"]["stored"] == {
        "flywheel": other.stored["flywheel"].name
    }
    assert seen["classic"]["damage"] == 0 and seen["classic"]["lives"] == 3
    assert seen["classic"]["locked"] == [5]
    assert view["program_deck"] == 84 - 27
    assert json.dumps(view)


# --------------------------------------------------------------------------- games
@pytest.mark.parametrize("edition_id", EDITIONS)
def test_seeded_random_games_keep_every_invariant(edition_id: str) -> None:
    """Random-bot games for 2-8 robots, invariants after every single action."""
    for seed in range(150):
        players = 2 + seed % 7
        variants: list[str] = []
        if seed % 5 == 1:
            variants.append("emergency_shutdown")
        if seed % 7 == 3 and players >= 5:
            variants.append("four_lives")
        if seed % 6 == 2:
            variants.append("play_for_places")
        if seed % 11 == 4:
            variants.append("last_robot_standing_wins")
        if edition_id == "classic-1994" and seed % 3 == 0:
            variants.append("option_cards")
        play(edition_id, players, seed, variants, give_options=2 if seed % 2 else 0)


def test_option_cards_are_all_used_in_random_games() -> None:
    """Robots that start with option cards use every one of them across a few games."""
    used: Counter[str] = Counter()
    for seed in range(40):
        play(
            "classic",
            2 + seed % 7,
            1000 + seed,
            give_options=4,
            max_rounds=10,
            check=seed < 10,
            used=used,
        )
    assert set(used) == set(OPTION_IDS), sorted(set(OPTION_IDS) - set(used))


def test_games_replay_to_the_same_state_and_copies_are_independent() -> None:
    for seed, edition_id in ((3, "classic"), (8, "classic-1994"), (11, "classic")):
        game = play(edition_id, 4, seed, give_options=2, max_rounds=6, check=False)
        again = setup_game(edition_id, 4, seed, [], 2, 6)
        copy = again.copy()
        for action in game.actions:
            again.apply(action)
        assert again.digest() == game.digest()
        assert copy.digest() != again.digest()
        for action in game.actions:
            copy.apply(action)
        assert copy.digest() == game.digest()


def test_record_round_trip() -> None:
    from roborally.content.record import load_record, replay, write_record

    game = new_game(course_for(2, 3), 3, 2, 6, [], "classic")
    bots = [RandomBot(i) for i in range(3)]
    while not game.is_over():
        d = game.pending_decisions()[0]
        game.apply(Action(d.id, d.seat, bots[d.seat].choose({}, d)))
    text = write_record(game, course_for(2, 3))
    import tempfile
    from pathlib import Path

    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "game.record"
        path.write_text(text, encoding="utf-8")
        replayed = replay(load_record(path))
    assert replayed.digest() == game.digest()


@pytest.mark.parametrize("edition_id", EDITIONS)
def test_play_command_runs_a_headless_game(
    edition_id: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(
        [
            "play",
            "--edition",
            edition_id,
            "--course",
            CLASSIC_COURSES[0].id,
            "--bots",
            "random,random,random",
            "--seed",
            "3",
            "--max-rounds",
            "5",
        ]
    )
    out = capsys.readouterr()
    assert code == 0, out.err
    assert "Result after" in out.out
    # the summary counts what the classic rules count: flags, damage tokens, lives
    assert "damage" in out.out and "lives" in out.out and "flag" in out.out
    assert "energy" not in out.out and "rebooting" not in out.out


# --------------------------------------------------------------------------- details
def program_round(variants: list[str]) -> Game:
    course = CLASSIC_COURSES[0].course
    return Game(
        GameConfig(course, tuple("ABC"), seed=3, edition="classic", variants=frozenset(variants))
    )


def test_the_timer_runs_for_the_last_robot_still_programming() -> None:
    """3.3 item 5 (001: 131-136): the 30-second timer starts when one player is left."""
    game = program_round([])
    first, second, third = game.pending_decisions()
    assert all("timer" not in d.info for d in (first, second, third))
    game.apply(Action(first.id, first.seat, tuple(first.info["hand"][:5])))
    assert all("timer" not in d.info for d in game.pending_decisions())
    game.apply(Action(second.id, second.seat, tuple(second.info["hand"][:5])))
    (last,) = game.pending_decisions()
    assert last.info["timer"] == 30 and last.id == third.id
    untimed = program_round(["no_timer"])
    for d in untimed.pending_decisions()[:2]:
        untimed.apply(Action(d.id, d.seat, tuple(d.info["hand"][:5])))
    assert "timer" not in untimed.pending_decisions()[0].info


def test_a_timeout_fills_the_registers_at_random_from_the_hand() -> None:
    """A-11: the engine fills the empty registers with random hand cards."""
    game = program_round([])
    decisions = game.pending_decisions()
    hands = {d.seat: set(d.info["hand"]) for d in decisions}
    for decision in decisions:
        game.apply(Action(decision.id, decision.seat, TIMEOUT))
    for seat, hand in hands.items():
        revealed = [
            e.card
            for e in game.events
            if e.kind is EventKind.CARD_REVEALED and e.seat == seat and e.round == 1
        ]
        assert len(revealed) == len(set(revealed)) == 5
        assert set(revealed) <= hand


def test_programs_accept_bare_card_types_and_reject_bad_ones() -> None:
    from roborally.engine.core.decisions import IllegalActionError, InvalidActionError

    game = program_round([])
    decision = game.pending_decisions()[0]
    hand = decision.info["hand"]
    kind = card_type(hand[0])
    normalised = game.check(Action(decision.id, decision.seat, (kind, *hand[1:5])))
    assert normalised[0] in hand and card_type(normalised[0]) == kind
    with pytest.raises(IllegalActionError):
        game.check(Action(decision.id, decision.seat, (hand[0], hand[0], *hand[1:4])))
    with pytest.raises(IllegalActionError):
        game.check(Action(decision.id, decision.seat, (hand[0], None, *hand[1:4])))
    with pytest.raises(IllegalActionError):
        game.check(Action(decision.id, decision.seat, (f"{hand[0]}+{hand[1]}", *hand[2:6])))
    with pytest.raises(InvalidActionError):
        game.check(Action(decision.id, decision.seat, tuple(hand[:4])))
    legal = game.legal_choices(decision)
    assert game.check(Action(decision.id, decision.seat, next(legal)))


def test_reentry_next_to_an_occupied_archive_never_faces_a_robot_within_3() -> None:
    """6.7 / A-47 (001: 361-376)."""
    game = program_round([])
    state = game.state
    assert isinstance(state, ClassicState)
    rules = game._rules  # type: ignore[attr-defined]
    a, b = state.player(0), state.player(1)
    assert b.pos is not None
    a.archive = b.pos
    a.pos = None
    options = rules.reentry_options(a)
    assert options and all(" " in o for o in options)
    occupied = {p.pos for p in state.players if p.pos is not None}
    from roborally.engine.core.geometry import Direction, Pos

    for option in options:
        where, letter = option.split()
        square, facing = Pos.parse(where), Direction.parse(letter)
        assert max(abs(square.x - b.pos.x), abs(square.y - b.pos.y)) == 1
        assert square not in occupied
        assert rules.clear_sight(square, facing, occupied)
    # Facing straight at the robot on the archive square is never offered.
    for option in options:
        where, letter = option.split()
        square = Pos.parse(where)
        if square.step(Direction.parse(letter)) == b.pos:
            raise AssertionError(f"{option} faces the robot on the archive square")
    b.pos = None
    assert rules.reentry_options(a)[0] == a.archive_arrow.letter


def test_the_option_deck_is_reshuffled_when_empty() -> None:
    """A-38: an empty option deck is refilled from the discard pile."""
    game = program_round([])
    state = game.state
    assert isinstance(state, ClassicState)
    rules = game._rules  # type: ignore[attr-defined]
    state.option_discard = state.option_deck[:3]
    state.option_deck = []
    drawn = rules.draw_option()
    assert drawn is not None and len(state.option_deck) == 2
    state.option_deck, state.option_discard = [], []
    assert rules.draw_option() is None
