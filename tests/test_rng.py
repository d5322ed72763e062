"""The engine's random generators: the keyed BLAKE2b stream (determinism, independent streams,
unbiased below(), copy, state in the digest, a known-answer test of the construction), the legacy
SplitMix64 bit for bit, the seed helpers, and replays from 256-bit seeds."""

from __future__ import annotations

import ast
import copy
import hashlib
import json
import pickle
import random
import struct
from collections import Counter
from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from roborally.bots.random_bot import RandomBot
from roborally.bots.runner import new_game
from roborally.content.courses import find_course
from roborally.engine.core.decisions import Action
from roborally.engine.core.rng import (
    LEGACY_RNG,
    MAIN_STREAM,
    RNG_VERSION,
    SEED_BITS,
    UPGRADE_RNG_SALT,
    UPGRADE_STREAM,
    Blake2bCtr,
    Rng,
    SplitMix64,
    derive_seed,
    make_rng,
    parse_seed,
    seed_commitment,
    seed_text,
)
from roborally.engine.core.state import GameConfig
from roborally.engine.game import Game

BIG = 2**256 - 1


def words(rng: Rng, n: int) -> list[int]:
    return [rng.next64() for _ in range(n)]


# ---------------------------------------------------------------------- blake2b-ctr/1
def test_the_default_generator_is_blake2b_ctr() -> None:
    assert RNG_VERSION == "blake2b-ctr/1" and SEED_BITS == 256
    rng = make_rng(1)
    assert isinstance(rng, Blake2bCtr) and rng.version == RNG_VERSION


def test_words_are_the_documented_construction() -> None:
    """Block i = BLAKE2b-512(key = seed as 32 big-endian bytes, salt = version, person = stream
    label; message = i as 8 big-endian bytes), read as eight big-endian 64-bit words."""
    seed = 0x1234_5678_9ABC_DEF0 << 190 | 77
    for stream in (MAIN_STREAM, UPGRADE_STREAM):
        expected: list[int] = []
        for block in range(3):
            digest = hashlib.blake2b(
                block.to_bytes(8, "big"),
                key=seed.to_bytes(32, "big"),
                salt=b"blake2b-ctr/1",
                person=stream.encode(),
            ).digest()
            expected.extend(struct.unpack(">8Q", digest))
        assert words(make_rng(seed, RNG_VERSION, stream), 24) == expected


def test_known_answers() -> None:
    """Pinned outputs: a change here changes every new game and breaks their records."""
    rng = make_rng(1)
    assert [rng.below(6) for _ in range(5)] == [1, 2, 5, 4, 1]
    deck = list(range(10))
    make_rng(2**255 + 3, RNG_VERSION, UPGRADE_STREAM).shuffle(deck)
    assert deck == [8, 1, 7, 5, 2, 6, 0, 3, 9, 4]


def test_same_seed_same_words_and_different_seeds_differ() -> None:
    assert words(make_rng(42), 50) == words(make_rng(42), 50)
    seen = {tuple(words(make_rng(seed), 4)) for seed in (0, 1, 2, 2**64, 2**128, BIG)}
    assert len(seen) == 6


def test_streams_are_independent() -> None:
    main = words(make_rng(9, RNG_VERSION, MAIN_STREAM), 400)
    upgrades = words(make_rng(9, RNG_VERSION, UPGRADE_STREAM), 400)
    assert not set(main) & set(upgrades)  # not even shifted copies of each other
    # Drawing from one stream leaves the other where it was.
    a, b = make_rng(9, RNG_VERSION, MAIN_STREAM), make_rng(9, RNG_VERSION, UPGRADE_STREAM)
    words(a, 17)
    assert words(b, 400) == upgrades


def test_a_stream_label_has_1_to_16_bytes() -> None:
    with pytest.raises(ValueError, match="stream label"):
        make_rng(1, RNG_VERSION, "a-label-far-too-long")
    with pytest.raises(ValueError, match="stream label"):
        make_rng(1, RNG_VERSION, "")


def test_below_is_uniform() -> None:
    """A chi-square test for each of a few bounds (the threshold is the 0.999 quantile)."""
    rng = make_rng(2024)
    for n, critical in ((2, 10.83), (6, 20.52), (13, 32.91), (52, 85.35)):
        draws = 600 * n
        counts = Counter(rng.below(n) for _ in range(draws))
        assert set(counts) == set(range(n))
        chi2 = sum((counts[k] - 600) ** 2 / 600 for k in range(n))
        assert chi2 < critical, (n, chi2)


class Scripted(Rng):
    """A generator that returns given words, to watch below() reject."""

    __slots__ = ("script",)
    version = "scripted"

    def __init__(self, script: list[int]) -> None:
        self.state = 0
        self.script = script

    def next64(self) -> int:
        self.state += 1
        return self.script.pop(0)

    def copy(self) -> Scripted:
        return Scripted(list(self.script))


def test_below_rejects_the_words_that_would_bias_it() -> None:
    """2**64 = 3 * q + 1: the single word 2**64 - 1 would favour 0, so it is drawn again."""
    rng = Scripted([2**64 - 1, 2**64 - 2, 5])
    assert rng.below(3) == (2**64 - 2) % 3 and rng.state == 2
    # For n = 2**63 + 1 only the words below n are kept (one each): taking the rest modulo n
    # would make the values below 2**63 - 1 twice as likely.
    n = 2**63 + 1
    rng = Scripted([2**63 + 1, 2**64 - 1, 2**63])
    assert rng.below(n) == 2**63 and rng.state == 3
    with pytest.raises(ValueError, match="positive"):
        make_rng(1).below(0)
    assert make_rng(1).below(1) == 0


def test_shuffle_and_choice() -> None:
    items = list(range(30))
    make_rng(5).shuffle(items)
    assert sorted(items) == list(range(30)) and items != list(range(30))
    firsts = Counter()
    for seed in range(3000):
        deck = list(range(4))
        make_rng(seed).shuffle(deck)
        firsts[tuple(deck)] += 1
    assert len(firsts) == 24  # every permutation of 4 appears
    assert max(firsts.values()) < 3000 / 24 * 1.5
    assert make_rng(3).choice(("a", "b", "c")) in "abc"


def test_copy_is_independent_and_continues_alike() -> None:
    for version in (RNG_VERSION, LEGACY_RNG):
        rng = make_rng(11, version)
        words(rng, 5)  # mid-block
        clone = rng.copy()
        assert type(clone) is type(rng) and clone.state == rng.state
        before = rng.state
        ahead = words(clone, 20)
        assert rng.state == before != clone.state
        assert words(rng, 20) == ahead


def test_the_state_is_the_word_counter_and_restores_the_generator() -> None:
    rng = make_rng(2**200 + 5)
    for drawn in (0, 1, 7, 8, 9, 100):
        fresh = make_rng(2**200 + 5)
        words(fresh, drawn)
        assert fresh.state == drawn
        restored = make_rng(2**200 + 5)
        restored.state = drawn  # the key comes from the seed; the state is all that moves
        assert words(restored, 10) == words(fresh, 10)
    assert rng.state == 0


def test_generators_and_games_pickle_and_deep_copy() -> None:
    for version in (RNG_VERSION, LEGACY_RNG):
        rng = make_rng(2**50 + 1, version, UPGRADE_STREAM)
        words(rng, 13)
        for clone in (pickle.loads(pickle.dumps(rng)), copy.deepcopy(rng)):
            assert type(clone) is type(rng) and clone.state == rng.state
            assert words(clone, 20) == words(rng.copy(), 20)
    game = new_game("tiny", 2, 2**255 + 9)
    for clone_game in (pickle.loads(pickle.dumps(game)), copy.deepcopy(game)):
        assert clone_game.digest() == game.digest()
        assert clone_game.state.rng.next64() == game.copy().state.rng.next64()


def test_the_digest_holds_the_generators_state_not_the_seed() -> None:
    seed = 2**255 + 12345
    game = new_game("tiny", 3, seed)
    snapshot = game.state.to_dict()
    assert snapshot["rng"] == game.state.rng.state > 0
    assert snapshot["upgrade_rng"] == game.state.upgrade_rng.state > 0
    text = json.dumps(snapshot)
    assert str(seed) not in text and f"{seed:x}" not in text
    copy = game.copy()
    assert copy.digest() == game.digest()
    assert json.loads(json.dumps(snapshot)) == copy.state.to_dict()
    # The same game with another seed is dealt differently.
    assert new_game("tiny", 3, seed + 1).digest() != game.digest()


# ------------------------------------------------------------------------ splitmix64/1
def test_legacy_splitmix64_is_bit_exact() -> None:
    """Values of the generator as it was before blake2b-ctr/1 (records of version 1)."""
    rng = make_rng(1, LEGACY_RNG)
    assert isinstance(rng, SplitMix64) and rng.version == "splitmix64/1"
    assert [rng.below(6) for _ in range(5)] == [5, 1, 0, 5, 3]
    assert words(SplitMix64(1), 3) == [
        10451216379200822465,
        13757245211066428519,
        17911839290282890590,
    ]
    upgrades = make_rng(1, LEGACY_RNG, UPGRADE_STREAM)
    assert UPGRADE_RNG_SALT == 0x5550_4752 and upgrades.state == 1 ^ UPGRADE_RNG_SALT
    assert [upgrades.below(40) for _ in range(6)] == [18, 35, 21, 22, 32, 2]
    with pytest.raises(ValueError, match="no stream"):
        make_rng(1, LEGACY_RNG, "bots")


def test_an_unknown_generator_is_a_clear_error() -> None:
    with pytest.raises(ValueError, match=r"unknown random generator 'mt19937/1' \(known: "):
        make_rng(1, "mt19937/1")
    course = find_course("tiny").course
    with pytest.raises(ValueError, match="unknown random generator"):
        GameConfig(course, ("A", "B"), rng="mt19937/1")


# ----------------------------------------------------------------------------- seeds
@pytest.mark.parametrize("seed", [-1, 2**256, 1.5, True, "7"])
def test_game_config_refuses_bad_seeds(seed: object) -> None:
    course = find_course("tiny").course
    with pytest.raises(ValueError, match="seed must be a whole number"):
        GameConfig(course, ("A", "B"), seed=seed)  # type: ignore[arg-type]


def test_game_config_takes_256_bit_seeds_and_the_legacy_generator_64_bit_ones() -> None:
    course = find_course("tiny").course
    assert GameConfig(course, ("A", "B"), seed=BIG).seed == BIG
    assert GameConfig(course, ("A", "B"), seed=2**64 - 1, rng=LEGACY_RNG).rng == LEGACY_RNG
    with pytest.raises(ValueError, match="splitmix64/1 generator takes seeds below 2\\*\\*64"):
        GameConfig(course, ("A", "B"), seed=2**64, rng=LEGACY_RNG)


def test_seed_commitment_is_sha256_of_32_big_endian_bytes() -> None:
    for seed in (0, 1, 2**64 + 3, BIG):
        expected = hashlib.sha256(seed.to_bytes(32, "big")).hexdigest()
        assert seed_commitment(seed) == expected
        assert (
            seed_commitment(seed) == hashlib.sha256(bytes.fromhex(seed_text(seed)[2:])).hexdigest()
        )
    assert seed_commitment(0) == "66687aadf862bd776c8fc18b8e9f8e20089714856ee233b3902a591d0d5f2925"
    with pytest.raises(ValueError):
        seed_commitment(2**256)


def test_seed_text_and_parse_seed_round_trip() -> None:
    assert seed_text(0) == "0x" + "0" * 64
    assert seed_text(BIG) == "0x" + "f" * 64
    for seed in (0, 7, 2**63, BIG):
        assert parse_seed(seed_text(seed)) == seed
        assert parse_seed(str(seed)) == seed
    assert parse_seed(" 0XfF ") == 255 and parse_seed("007") == 7


@pytest.mark.parametrize("text", ["", "-1", "1.5", "0x", "0xg1", "1_000", "seven", "0b101"])
def test_parse_seed_refuses_what_is_not_a_seed(text: str) -> None:
    with pytest.raises(ValueError, match="a seed is a whole number in decimal or 0x-hex"):
        parse_seed(text)


def test_parse_seed_refuses_seeds_of_more_than_256_bits() -> None:
    with pytest.raises(ValueError, match="2\\*\\*256"):
        parse_seed(str(2**256))
    with pytest.raises(ValueError, match="2\\*\\*256"):
        parse_seed("0x1" + "0" * 64)


def test_derive_seed_is_a_keyed_63_bit_hash() -> None:
    labels = [f"bot/{seat}" for seat in range(8)] + ["fill/t1-p1-program"]
    for seed in (0, 1, 2**64, BIG):
        derived = [derive_seed(seed, label) for label in labels]
        assert all(0 <= d < 2**63 for d in derived)
        assert len(set(derived)) == len(labels)
        assert derived == [derive_seed(seed, label) for label in labels]
    assert derive_seed(1, "bot/0") != derive_seed(2, "bot/0")
    # Not the seed's own bits, nor the generator's words.
    assert derive_seed(5, "bot/0") != 5
    assert derive_seed(5, "bot/0") not in {w >> 1 for w in words(make_rng(5), 64)}


# ------------------------------------------------------------------------ replays
@settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
    derandomize=True,
)
@given(
    seed=st.integers(0, 2**256 - 1),
    players=st.integers(2, 5),
    bot_seed=st.integers(0, 2**32),
    first_random=st.booleans(),
    stop=st.integers(1, 200),
)
def test_replaying_seed_and_actions_gives_the_same_digest(
    seed: int, players: int, bot_seed: int, first_random: bool, stop: int
) -> None:
    game = new_game("tiny", players, seed, max_rounds=3)
    if first_random:
        game = Game(replace(game.config, first_player=None))
    assert game.config.rng == RNG_VERSION
    bots = [RandomBot(bot_seed + i) for i in range(players)]
    while not game.is_over() and len(game.actions) < stop:
        d = game.pending_decisions()[0]
        game.apply(Action(d.id, d.seat, bots[d.seat].choose(game.observation(d.seat), d)))
    again = Game(game.config)
    for action in game.actions:
        again.apply(action)
    assert again.digest() == game.digest()
    assert again.events == game.events


def test_the_legacy_generator_plays_other_games() -> None:
    modern = new_game("tiny", 2, 5)
    legacy = Game(replace(modern.config, rng=LEGACY_RNG))
    assert legacy.digest() != modern.digest()
    assert legacy.state.rng.version == LEGACY_RNG and modern.state.rng.version == RNG_VERSION


# ---------------------------------------------------------------------- engine purity
ENGINE = Path(__file__).resolve().parent.parent / "src" / "roborally" / "engine"
IMPURE = {"random", "secrets", "time", "datetime", "os", "socket", "pathlib", "io", "uuid"}


def test_the_engine_reads_no_clock_file_socket_or_os_randomness() -> None:
    for path in sorted(ENGINE.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            else:
                continue
            for name in names:
                assert name.split(".")[0] not in IMPURE, f"{path.name} imports {name}"


def test_random_module_state_does_not_matter() -> None:
    random.seed(1)
    first = new_game("tiny", 2, 99).digest()
    random.seed(2)
    assert new_game("tiny", 2, 99).digest() == first


@settings(max_examples=200, deadline=None)
@given(
    seed=st.integers(min_value=0, max_value=2**64 - 1),
    drawn=st.integers(min_value=0, max_value=40),
    size=st.integers(min_value=0, max_value=70),
)
def test_blake2b_shuffle_is_the_generic_shuffle(seed: int, drawn: int, size: int) -> None:
    """Blake2bCtr.shuffle writes out below() and next64() for speed: the same swaps, and the
    generator ends at the same place, as the generic Fisher-Yates over below()."""
    fast, generic = Blake2bCtr(seed), Blake2bCtr(seed)
    for rng in (fast, generic):
        for _ in range(drawn):
            rng.next64()
    fast_items, generic_items = list(range(size)), list(range(size))
    fast.shuffle(fast_items)
    Rng.shuffle(generic, generic_items)
    assert fast_items == generic_items
    assert fast.state == generic.state
    assert fast.next64() == generic.next64()
