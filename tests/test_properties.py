"""Property tests: invariants that hold after every action of any legal game.

Random legal games are played on the shipped ``tiny`` course with 2-6 players, random subsets of
the alternative rules and a short round limit. After every applied action the test checks
robot placement, card conservation (programming and damage cards), energy and checkpoint bounds,
that replaying the actions reproduces the game, and that :meth:`Game.copy` is independent and
behaves like the original.
"""

from __future__ import annotations

import importlib.util
import json
import random
import sys
from collections import Counter
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from roborally.bots.random_bot import RandomBot
from roborally.bots.runner import new_game
from roborally.engine.core.cards import PROGRAMMING_CARDS, Card
from roborally.engine.core.decisions import TIMEOUT, Action, Decision, DecisionKind
from roborally.engine.core.events import Event, EventKind
from roborally.engine.core.geometry import Turn
from roborally.engine.core.state import HAND_SIZE, MAX_ENERGY, NUM_REGISTERS, VARIANTS, GameState
from roborally.engine.game import Game

EXPECTED_PROGRAMMING = {"move1": 4, "move2": 3, "move3": 1, "rotate_right": 4, "rotate_left": 4}
EXPECTED_PROGRAMMING |= {"u_turn": 1, "move_back": 1, "power_up": 1, "again": 1}

SETTINGS = settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    derandomize=True,
)

Chooser = Callable[[Game, Decision], Any]


# --------------------------------------------------------------------------- invariants
def register_cards(state: GameState, seat: int) -> list[Card]:
    cards: list[Card] = []
    for register in state.players[seat].registers:
        cards.extend(register.cards)
        if register.facedown_haywire is not None:
            cards.append(register.facedown_haywire)
    return cards


def owned_cards(state: GameState, seat: int) -> list[Card]:
    """Every card a player holds anywhere: deck, hand, discard, registers, on Memory Cards and
    removed from the game by Self-Diagnostics."""
    p = state.players[seat]
    return [*p.deck, *p.hand, *p.discard, *register_cards(state, seat), *p.memory, *p.removed]


def hand_size(state: GameState, seat: int) -> int:
    """9 cards, 10 with Flash Drive (000: 821)."""
    flash = any(c.name == "flash_drive" for c in state.players[seat].installed)
    return HAND_SIZE + 1 if flash else HAND_SIZE


def check_invariants(game: Game, last_checkpoints: list[int]) -> None:
    """Assert every invariant of a game state; updates ``last_checkpoints`` in place."""
    state = game.state
    grid = state.grid
    total_checkpoints = len(grid.checkpoints)
    started = state.stage not in ("setup", "competitive", "place")

    # Robots: one per cell, on a course cell, never on a pit.
    positions = [p.pos for p in state.players if p.pos is not None]
    assert len(positions) == len(set(positions)), f"two robots share a cell: {positions}"
    for p in state.players:
        if p.pos is not None:
            assert grid.is_on_course(p.pos), f"P{p.seat + 1} stands off the course at {p.pos}"
            assert not grid.pits[grid.index(p.pos)], f"P{p.seat + 1} stands on a pit at {p.pos}"
        elif started and not state.over:
            assert p.reentry is not None, f"P{p.seat + 1} is off the board with nowhere to return"

    # Programming cards: 20 per player, all somewhere, unique.
    damage_names = {spec.name for spec in state.config.damage_deck.cards}
    for p in state.players:
        assert all(c.name in PROGRAMMING_CARDS or c.name in damage_names for c in p.removed)
        cards = owned_cards(state, p.seat)
        programming = [c for c in cards if c.name in PROGRAMMING_CARDS]
        unknown = [
            c.name for c in cards if c.name not in PROGRAMMING_CARDS and c.name not in damage_names
        ]
        assert not unknown, f"P{p.seat + 1} holds unknown cards {unknown}"
        assert Counter(c.name for c in programming) == EXPECTED_PROGRAMMING, (
            f"P{p.seat + 1} programming cards: {sorted(Counter(c.name for c in programming))}"
        )
        assert len({c.uid for c in programming}) == 20, f"P{p.seat + 1} has duplicated cards"
        assert all(c.uid >= 0 for c in cards), f"P{p.seat + 1} holds a placeholder card"
        # Memory Cards and Rewire put cards in the hand before it is drawn up, so it may hold
        # more than the hand size then; after the draw it never does more than that.
        if state.stage in ("prog_window", "program"):
            kept = sum(1 for c in p.hand if c.name in damage_names)
            assert len(p.hand) <= max(hand_size(state, p.seat), kept + len(p.memory) + 5)

    # Damage cards: 40, conserved, unique, with the composition of the deck spec.
    damage = [*state.damage_deck, *state.damage_discard]
    for p in state.players:
        damage.extend(c for c in owned_cards(state, p.seat) if c.name in damage_names)
    spec = state.config.damage_deck
    assert len(damage) == spec.size == 40, f"{len(damage)} damage cards in play"
    assert len({c.uid for c in damage}) == 40, "a damage card is in two places at once"
    assert Counter(c.name for c in damage) == {c.name: c.copies for c in spec.cards}
    assert all(c.name in damage_names for c in [*state.damage_deck, *state.damage_discard])

    # Every uid anywhere is unique (programming and damage together).
    everything = [*state.damage_deck, *state.damage_discard]
    for p in state.players:
        everything.extend(owned_cards(state, p.seat))
    assert len({c.uid for c in everything}) == len(everything)

    # Registers: at most one face-down Haywire; locked registers hold exactly that Haywire.
    for p in state.players:
        assert len(p.registers) == NUM_REGISTERS
        for register in p.registers:
            if register.locked:
                assert len(register.cards) == 1
                assert register.cards[0].name in damage_names

    # Energy and checkpoints.
    for p in state.players:
        assert 0 <= p.energy <= MAX_ENERGY, f"P{p.seat + 1} energy {p.energy}"
        if "lighter" in state.config.variants:
            assert p.energy == 0
        assert 0 <= p.checkpoint <= total_checkpoints
        assert p.checkpoint >= last_checkpoints[p.seat], f"P{p.seat + 1} lost a checkpoint"
        last_checkpoints[p.seat] = p.checkpoint

    # The game is over exactly when it waits for nothing.
    pending = game.pending_decisions()
    assert game.is_over() == (not pending)
    if state.over:
        outcome = game.outcome()
        assert outcome is not None
        assert sorted(outcome.standings) == list(range(len(state.players)))
        if outcome.winner is not None:
            assert state.players[outcome.winner].checkpoint == total_checkpoints
        else:
            assert state.round == state.config.max_rounds
    assert len({d.id for d in pending}) == len(pending), "two pending decisions share an id"


class EventRules:
    """Rules checked on the event stream, action by action (spec 4.3, 5.2, 5.5, 8.2-8.5, 8.8)."""

    def __init__(self, game: Game) -> None:
        self.players = len(game.state.players)
        self.lighter = "lighter" in game.config.variants
        self.rebooted: set[tuple[int, int]] = set()  # (round, seat)
        self.shut_down: set[tuple[int, int]] = set()
        self.checkpoint = [0] * self.players
        self.priority_passes: dict[int, int] = {}
        self.ended = False

    def feed(self, events: list[Event]) -> None:
        for e in events:
            assert not self.ended, f"event after the game ended: {e}"
            key = (e.round, e.seat)
            if e.kind is EventKind.GAME_ENDED:
                self.ended = True
            elif e.kind in (EventKind.REBOOTED, EventKind.DESTROYED):
                self.rebooted.add(key)
            elif e.kind is EventKind.SHUT_DOWN:
                self.shut_down.add(key)
            elif e.kind is EventKind.REENTERED:
                assert e.register == 1, f"re-entered outside register 1: {e}"
                assert key not in self.rebooted, f"re-entered in the round it rebooted: {e}"
            elif e.kind is EventKind.CARD_RESOLVED:
                assert key not in self.rebooted, f"a rebooted robot resolved a card: {e}"
                assert key not in self.shut_down, f"a shut-down robot resolved a card: {e}"
                assert e.card != "spam", f"a SPAM resolved instead of being replaced: {e}"
                assert not (e.card == "again" and e.register == 1), f"Again resolved in 1: {e}"
            elif e.kind is EventKind.ENERGY_GAINED:
                assert key not in self.shut_down, f"a shut-down robot gained energy: {e}"
                assert not self.lighter, f"energy gained in the lighter game: {e}"
            elif e.kind is EventKind.CHECKPOINT_REACHED:
                assert key not in self.shut_down, f"a shut-down robot claimed a checkpoint: {e}"
                assert e.seat is not None
                assert e.amount == self.checkpoint[e.seat] + 1, f"skipped a checkpoint: {e}"
                self.checkpoint[e.seat] += 1
            elif e.kind is EventKind.SHOT and e.cause == "robot laser":
                assert key not in self.shut_down, f"a shut-down robot fired: {e}"
                assert key not in self.rebooted, f"an off-board robot fired: {e}"
            elif e.kind is EventKind.PRIORITY_PASSED:
                assert e.round not in self.priority_passes, "priority passed twice in a round"
                assert e.other is not None and e.seat == (e.other + 1) % self.players
                self.priority_passes[e.round] = e.seat


# ------------------------------------------------------------------------ game driver
def random_choice(rng: random.Random, decision: Decision, timeout_rate: float) -> Any:
    if rng.random() < timeout_rate:
        return TIMEOUT
    if decision.kind is DecisionKind.PROGRAM:
        hand = list(decision.info["hand"])
        rng.shuffle(hand)
        for name in decision.info.get("forced", []):  # Rewire: these must be programmed
            hand.remove(name)
            hand.append(name)
        program = [
            None if i + 1 in decision.info["locked"] or not hand else hand.pop()
            for i in range(NUM_REGISTERS)
        ]
        return tuple(program)
    if decision.kind in (DecisionKind.SHUTDOWN, DecisionKind.POWER_DOWN):
        return rng.random() < 0.05
    if decision.kind is DecisionKind.REBOOT_FACING:
        # Also exercise the forgiving spellings of a facing.
        return rng.choice([*decision.options, "n", " e ", "s"])
    return rng.choice(list(decision.options))


def play_checked(
    game: Game,
    choose: Chooser,
    order_rng: random.Random,
    *,
    check_copy: bool = True,
    on_action: Callable[[Game, Decision, Action], None] | None = None,
) -> None:
    """Play ``game`` to the end, checking every invariant after every action."""
    last = [0] * len(game.state.players)
    check_invariants(game, last)
    event_rules = EventRules(game)
    event_rules.feed(game.events)
    steps = 0
    while not game.is_over():
        pending = game.pending_decisions()
        decision = order_rng.choice(pending)  # answer simultaneous decisions in any order
        action = Action(decision.id, decision.seat, choose(game, decision))
        if check_copy:
            before = game.digest()
            clone = game.copy()
            clone_events = clone.apply(action)
            assert game.digest() == before, "applying to a copy changed the original"
            assert clone.state.players is not game.state.players
        events = game.apply(action)
        if check_copy:
            assert clone.digest() == game.digest(), "a copy diverged from the original"
            assert clone_events == events
            assert [d.id for d in clone.pending_decisions()] == [
                d.id for d in game.pending_decisions()
            ]
        if on_action is not None:
            on_action(game, decision, action)
        event_rules.feed(events)
        check_invariants(game, last)
        _check_program_decisions(game)
        steps += 1
        assert steps < 5000, "the game does not end"


def _check_program_decisions(game: Game) -> None:
    """A program decision offers the whole hand and locks exactly the Haywire registers."""
    for d in game.pending_decisions():
        if d.kind is not DecisionKind.PROGRAM:
            continue
        player = game.state.players[d.seat]
        assert d.info["hand"] == [c.name for c in player.hand]
        locked = [i + 1 for i, r in enumerate(player.registers) if r.cards]
        assert d.info["locked"] == locked, "a register holds a card before programming"
        for i in locked:
            assert player.registers[i - 1].locked
        reserve = len(player.deck) + len(player.discard)
        size = hand_size(game.state, d.seat)
        assert len(player.hand) >= size or reserve == 0, "the hand was not filled to 9"


def replayed(game: Game, actions: list[Action] | None = None) -> Game:
    fresh = Game(game.config)
    for action in game.actions if actions is None else actions:
        fresh.apply(action)
    return fresh


def variants_strategy() -> st.SearchStrategy[frozenset[str]]:
    return st.frozensets(st.sampled_from(VARIANTS))


# ------------------------------------------------------------------------------- tests
@SETTINGS
@given(
    seed=st.integers(0, 2**32 - 1),
    players=st.integers(2, 6),
    variants=variants_strategy(),
    bot_seed=st.integers(0, 2**16),
    order_seed=st.integers(0, 2**16),
    max_rounds=st.integers(1, 8),
)
def test_random_bot_games_keep_every_invariant(
    seed: int,
    players: int,
    variants: frozenset[str],
    bot_seed: int,
    order_seed: int,
    max_rounds: int,
) -> None:
    game = new_game("tiny", players, seed, max_rounds=max_rounds, variants=sorted(variants))
    bots = [RandomBot(seed=bot_seed * 7 + i, shutdown_rate=0.1) for i in range(players)]

    def choose(g: Game, d: Decision) -> Any:
        return bots[d.seat].choose(g.observation(d.seat), d)

    play_checked(game, choose, random.Random(order_seed))
    again = replayed(game)
    assert again.digest() == game.digest()
    assert again.events == game.events
    assert again.outcome() == game.outcome()


@SETTINGS
@given(
    seed=st.integers(0, 2**32 - 1),
    players=st.integers(2, 6),
    variants=variants_strategy(),
    choice_seed=st.integers(0, 2**32 - 1),
    timeout_rate=st.sampled_from([0.0, 0.1, 0.5]),
    first_player=st.one_of(st.none(), st.integers(0, 5)),
)
def test_random_choices_keep_every_invariant(
    seed: int,
    players: int,
    variants: frozenset[str],
    choice_seed: int,
    timeout_rate: float,
    first_player: int | None,
) -> None:
    game = new_game("tiny", players, seed, max_rounds=8, variants=sorted(variants))
    if first_player is not None:
        first_player %= players
    game = Game(replace(game.config, first_player=first_player))
    rng = random.Random(choice_seed)
    prefixes: list[tuple[int, str]] = []

    def choose(g: Game, d: Decision) -> Any:
        return random_choice(rng, d, timeout_rate)

    def note(g: Game, d: Decision, a: Action) -> None:
        if rng.random() < 0.05:
            prefixes.append((len(g.actions), g.digest()))

    play_checked(game, choose, random.Random(choice_seed + 1), on_action=note)
    assert replayed(game).digest() == game.digest()
    for length, digest in prefixes[:5]:
        assert replayed(game, game.actions[:length]).digest() == digest


@settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    derandomize=True,
)
@given(
    data=st.data(),
    seed=st.integers(0, 2**16),
    players=st.integers(2, 4),
    variants=variants_strategy(),
)
def test_hypothesis_drawn_choices_keep_every_invariant(
    data: st.DataObject, seed: int, players: int, variants: frozenset[str]
) -> None:
    """Short games whose every choice is drawn by hypothesis (so failures shrink)."""
    game = new_game("tiny", players, seed, max_rounds=2, variants=sorted(variants))

    def choose(g: Game, d: Decision) -> Any:
        if data.draw(st.integers(0, 9), label="timeout?") == 0:
            return TIMEOUT
        if d.kind is DecisionKind.PROGRAM:
            forced = list(d.info.get("forced", []))  # Rewire: these must be programmed
            rest = list(d.info["hand"])
            for name in forced:
                rest.remove(name)
            hand = data.draw(st.permutations(rest), label=d.id)
            cards = iter([*forced, *hand])
            return tuple(
                None if i + 1 in d.info["locked"] else next(cards, None)
                for i in range(NUM_REGISTERS)
            )
        return data.draw(st.sampled_from(list(d.options)), label=d.id)

    play_checked(game, choose, random.Random(seed))
    assert replayed(game).digest() == game.digest()


@pytest.mark.parametrize("seed", range(4))
def test_answer_order_of_simultaneous_decisions_does_not_matter(seed: int) -> None:
    """Programs and shutdowns are simultaneous: answering them in another order is the same game."""
    game = new_game("tiny", 5, seed, max_rounds=6, variants=["competitive_start"])
    bots = [RandomBot(seed=seed * 10 + i) for i in range(5)]
    while not game.is_over():
        for d in game.pending_decisions():
            game.apply(Action(d.id, d.seat, bots[d.seat].choose(game.observation(d.seat), d)))
    by_id = {a.decision_id: a for a in game.actions}
    other = Game(game.config)
    while not other.is_over():
        for d in reversed(other.pending_decisions()):
            other.apply(by_id[d.id])
    assert other.digest() == game.digest()
    assert sorted(a.decision_id for a in other.actions) == sorted(by_id)


def test_every_decision_kind_accepts_timeout() -> None:
    """TIMEOUT is legal for every decision kind of the 2023 edition and applies the documented
    default (the classic kinds are timed out in the checked games of ``test_classic.py``)."""
    kinds = set(DecisionKind) - {DecisionKind.POWER_DOWN, DecisionKind.CHOICE}
    seen: Counter[DecisionKind] = Counter()
    for seed in range(400):
        players = 2 + seed % 4
        variants = ["competitive_start"] if seed % 3 == 0 else []
        game = new_game("tiny", players, seed, max_rounds=10, variants=variants)
        rng = random.Random(seed)
        last = [0] * players
        timed_out_programs: dict[int, Counter[str]] = {}
        while not game.is_over():
            decision = game.pending_decisions()[0]
            wanted = seen[decision.kind] < 3 or rng.random() < 0.2
            choice = TIMEOUT if wanted else random_choice(rng, decision, 0.0)
            before = game.state.copy()
            if choice == TIMEOUT and decision.kind is DecisionKind.PROGRAM:
                timed_out_programs[decision.seat] = Counter(decision.info["hand"])
            events = game.apply(Action(decision.id, decision.seat, choice))
            check_invariants(game, last)
            if choice == TIMEOUT:
                seen[decision.kind] += 1
                _check_default(decision, before, game.state, events)
            if any(e.kind is EventKind.PROGRAMMED for e in events):
                for seat, hand in timed_out_programs.items():
                    _check_random_fill(game.state, seat, hand)
                timed_out_programs.clear()
        if all(seen[k] >= 10 for k in kinds):
            break
    assert set(seen) == kinds, f"never met: {kinds - set(seen)}"


def _check_default(
    decision: Decision, before: GameState, after: GameState, events: list[Event]
) -> None:
    """What a TIMEOUT answer to ``decision`` must have done (the decision's ``default``)."""
    seat = decision.seat
    starts = {s.number: s.pos for s in before.grid.start_spaces}
    if decision.kind is DecisionKind.START_SPACE:
        assert after.players[seat].pos == starts[min(decision.options)], "lowest free start"
    elif decision.kind is DecisionKind.BLOCK_START:
        assert starts[max(decision.options)] in after.blocked_starts, "highest free start blocked"
    elif decision.kind is DecisionKind.SHUTDOWN or (
        decision.kind is DecisionKind.POWER_DOWN and not decision.info.get("default")
    ):
        assert not any(e.kind is EventKind.SHUT_DOWN and e.seat == seat for e in events)
    elif decision.kind is DecisionKind.REBOOT_FACING:
        entered = [e for e in events if e.kind is EventKind.REENTERED and e.seat == seat]
        assert entered, "the robot did not re-enter"
        assert entered[0].to_facing == before.players[seat].reentry_arrow
    elif decision.kind is DecisionKind.SIDESTEP:
        moves = [
            e
            for e in events
            if e.seat == seat
            and (
                (e.kind is EventKind.MOVED and e.cause == "haywire")
                or e.kind is EventKind.BLOCKED  # stopped by a wall or a robot at once
            )
        ]
        assert moves, "no sidestep happened"
        facing = before.players[seat].facing  # as it was when the question came:
        for e in events:  # a card drawn before it in the same register may have turned it
            if e is moves[0]:
                break
            if e.seat == seat and e.kind is EventKind.ROTATED and e.to_facing is not None:
                facing = e.to_facing
        assert moves[0].facing == facing.turned(Turn.LEFT), "the default sidestep is to the left"
    elif decision.kind is DecisionKind.CARD_ORDER:
        # "in the order drawn": the register's actions follow the drawn cards' order.
        round_number, register_number = (int(part[1:]) for part in decision.id.split("-")[:2])
        register = after.players[seat].registers[register_number - 1]
        names = [c.name for c in register.cards[1:]]
        if (
            after.round == round_number
            and len(names) == 2
            and "again" not in names
            and len(register.done) == 2
        ):
            assert register.done == names, f"resolved {register.done}, drawn {names}"


def _check_random_fill(state: GameState, seat: int, hand: Counter[str]) -> None:
    """A timed-out program fills every open register from the hand (spec 11.1.6, 12-B13)."""
    p = state.players[seat]
    if p.shutdown:
        return
    open_registers = [r for r in p.registers if not r.locked]
    names = Counter(r.cards[0].name for r in open_registers if r.cards)
    assert not names - hand, f"the random fill used cards not in hand: {names - hand}"
    assert sum(names.values()) == min(len(open_registers), sum(hand.values()))


def test_legal_choices_are_all_accepted() -> None:
    """Every option a decision lists (and a sample of every program) passes ``check``."""
    for seed in range(30):
        game = new_game("tiny", 3, seed, max_rounds=4, variants=["competitive_start"])
        bots = [RandomBot(seed=seed + i) for i in range(3)]
        while not game.is_over():
            for d in game.pending_decisions():
                for n, choice in enumerate(game.legal_choices(d)):
                    game.check(Action(d.id, d.seat, choice))
                    if n > 50:
                        break
                game.apply(Action(d.id, d.seat, bots[d.seat].choose(game.observation(d.seat), d)))


def test_observation_is_json_every_step() -> None:
    game = new_game("tiny", 4, 11, max_rounds=5)
    bots = [RandomBot(seed=i) for i in range(4)]
    while not game.is_over():
        for seat in (None, 0, 1, 2, 3):
            json.dumps(game.observation(seat))
        d = game.pending_decisions()[0]
        game.apply(Action(d.id, d.seat, bots[d.seat].choose(game.observation(d.seat), d)))


# ---------------------------------------------------------------------------- soak
def _load_soak() -> Any:
    path = Path(__file__).resolve().parent.parent / "bench" / "soak.py"
    spec = importlib.util.spec_from_file_location("roborally_bench_soak", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while loading
    spec.loader.exec_module(module)
    return module


def test_soak_main_runs_a_few_games(capsys: pytest.CaptureFixture[str]) -> None:
    soak = _load_soak()
    code = soak.main(["--games", "5", "--seed", "3", "--check"])
    out = capsys.readouterr().out
    assert code == 0, out
    assert "games/s" in out
    assert "exceptions: 0" in out


def test_soak_reports_exceptions_with_seed_and_exit_code(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    soak = _load_soak()

    def explode(setup: Any, check: bool) -> Game:
        raise RuntimeError(f"boom {setup.seed}")

    monkeypatch.setattr(soak, "play_one", explode)
    code = soak.main(["--games", "2", "--seed", "40"])
    out = capsys.readouterr().out
    assert code == 1
    assert "seed=40" in out and "seed=41" in out
    assert "RuntimeError: boom 40" in out and "Traceback" in out
    assert "exceptions: 2" in out
