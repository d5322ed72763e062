"""The engine's own seeded random generators (versioned, so records replay on any machine).

A game's randomness follows from its seed alone: nothing in the engine touches Python's global
``random`` module, a clock or the operating system's entropy. Two generator versions exist, and a
game config names the one it uses (``GameConfig.rng``):

* ``blake2b-ctr/1`` (:data:`RNG_VERSION`, the default): BLAKE2b as a keyed counter-mode stream.
  The key is the seed as 32 big-endian bytes, the stream's label (:data:`MAIN_STREAM`,
  :data:`UPGRADE_STREAM`) is BLAKE2b's ``person`` and the version its ``salt``; block ``i`` is the
  64-byte digest of ``i`` as 8 big-endian bytes, read as eight big-endian 64-bit words. Seeing
  some of the output (a player's own hand) tells nothing about the seed or the other draws, so a
  256-bit seed cannot be brute-forced. The generator's state is the number of words drawn.
* ``splitmix64/1`` (:data:`LEGACY_RNG`): the 64-bit SplitMix generator of the first
  records, kept bit for bit so that they replay exactly. Its 64-bit seed can be recovered from a
  hand, so it is never used for a new game.

>>> rng = make_rng(1)
>>> rng.version, rng.state
('blake2b-ctr/1', 0)
>>> [rng.below(6) for _ in range(5)], rng.state
([1, 2, 5, 4, 1], 5)
>>> legacy = make_rng(1, LEGACY_RNG)
>>> [legacy.below(6) for _ in range(5)]
[5, 1, 0, 5, 3]

The helpers at the end are pure functions of the seed: a published commitment to it, its text
form, and seeds derived from it for other generators (bots), which reveal nothing about it.

>>> seed_text(255)
'0x00000000000000000000000000000000000000000000000000000000000000ff'
>>> parse_seed("0xff") == parse_seed("255") == 255
True
>>> seed_commitment(1)[:16]
'ec4916dd28fc4c10'
"""

from __future__ import annotations

import hashlib
import re
import struct
from abc import ABC, abstractmethod
from typing import TypeVar

T = TypeVar("T")

#: The generator of new games.
RNG_VERSION = "blake2b-ctr/1"
#: The generator of the first records (format version 1), kept so that they replay exactly.
LEGACY_RNG = "splitmix64/1"
#: Every generator version the engine can run, the default first.
RNG_VERSIONS = (RNG_VERSION, LEGACY_RNG)
#: Seeds are whole numbers ``0 <= seed < 2**SEED_BITS``.
SEED_BITS = 256
#: The stream of the game's shuffles (programming decks, damage deck, random fills, first player).
MAIN_STREAM = "main"
#: The upgrade deck's own stream, so that dealing upgrades leaves the main stream as it was.
UPGRADE_STREAM = "upgrades"
#: splitmix64/1 made the upgrade stream by XOR-ing the seed with "UPGR".
UPGRADE_RNG_SALT = 0x5550_4752

_MASK = (1 << 64) - 1
_WORDS = 1 << 64  # how many 64-bit words there are
_SEED_LIMIT = 1 << SEED_BITS
_SEED_BYTES = SEED_BITS // 8
_LEGACY_SALTS = {MAIN_STREAM: 0, UPGRADE_STREAM: UPGRADE_RNG_SALT}
_BLOCK = struct.Struct(">8Q")  # one BLAKE2b-512 digest = eight 64-bit words
_DERIVE_SALT = b"derive_seed/1"


class Rng(ABC):
    """A seeded generator. ``state`` (an integer) is all that changes as it draws; the digest of
    a game holds it, so equal digests mean the generators stand at the same place."""

    __slots__ = ("state",)

    #: The version name recorded with a game (``GameConfig.rng``).
    version: str
    state: int

    @abstractmethod
    def next64(self) -> int:
        """The next uniform 64-bit word."""

    @abstractmethod
    def copy(self) -> Rng:
        """An independent generator at the same place."""

    def below(self, n: int) -> int:
        """A uniform integer in ``[0, n)`` (rejection sampling, no modulo bias)."""
        if n <= 0:
            raise ValueError("below() needs a positive bound")
        limit = (1 << 64) - ((1 << 64) % n)
        while True:
            value = self.next64()
            if value < limit:
                return value % n

    def shuffle(self, items: list[T]) -> None:
        """Fisher-Yates shuffle in place."""
        for i in range(len(items) - 1, 0, -1):
            j = self.below(i + 1)
            items[i], items[j] = items[j], items[i]

    def choice(self, items: list[T] | tuple[T, ...]) -> T:
        return items[self.below(len(items))]


class Blake2bCtr(Rng):
    """``blake2b-ctr/1``: BLAKE2b keyed with the seed, run over a block counter.

    ``state`` counts the 64-bit words drawn; word ``w`` is word ``w % 8`` of block ``w // 8``.
    The current block is cached, so a block is hashed once per eight words. It pickles (and
    deep-copies) as its seed, stream and state.
    """

    __slots__ = ("_block", "_hasher", "_seed", "_stream", "_words")
    version = RNG_VERSION

    def __init__(self, seed: int, stream: str = MAIN_STREAM) -> None:
        person = stream.encode()
        if not 0 < len(person) <= hashlib.blake2b.PERSON_SIZE:
            raise ValueError(f"a stream label has 1 to 16 bytes, got {stream!r}")
        self.state = 0
        self._seed = seed
        self._stream = stream
        self._hasher = hashlib.blake2b(
            key=_seed_bytes(seed), salt=RNG_VERSION.encode(), person=person
        )
        self._block = -1
        self._words: tuple[int, ...] = ()

    def next64(self) -> int:
        word = self.state
        self.state = word + 1
        block = word >> 3
        if block != self._block:
            hasher = self._hasher.copy()
            hasher.update(block.to_bytes(8, "big"))
            self._words = _BLOCK.unpack(hasher.digest())
            self._block = block
        return self._words[word & 7]

    def shuffle(self, items: list[T]) -> None:
        """:meth:`Rng.shuffle` with :meth:`below` and :meth:`next64` written out (the same
        words, the same swaps): every deck is shuffled this way, a call or two per card."""
        words, current = self._words, self._block
        word = self.state
        for i in range(len(items) - 1, 0, -1):
            n = i + 1
            limit = _WORDS - _WORDS % n
            while True:
                block = word >> 3
                if block != current:
                    hasher = self._hasher.copy()
                    hasher.update(block.to_bytes(8, "big"))
                    words = _BLOCK.unpack(hasher.digest())
                    current = block
                value = words[word & 7]
                word += 1
                if value < limit:
                    break
            j = value % n
            items[i], items[j] = items[j], items[i]
        self.state, self._words, self._block = word, words, current

    def copy(self) -> Blake2bCtr:
        clone = Blake2bCtr.__new__(Blake2bCtr)
        clone.state = self.state
        clone._seed = self._seed
        clone._stream = self._stream
        clone._hasher = self._hasher  # never updated in place: each block hashes a copy
        clone._block = self._block
        clone._words = self._words
        return clone

    def __reduce__(self) -> tuple[object, tuple[int, str, int]]:
        return _restore_blake2b_ctr, (self._seed, self._stream, self.state)


def _restore_blake2b_ctr(seed: int, stream: str, state: int) -> Blake2bCtr:
    rng = Blake2bCtr(seed, stream)
    rng.state = state
    return rng


class SplitMix64(Rng):
    """``splitmix64/1``: SplitMix64, whose whole state is one 64-bit integer (legacy)."""

    __slots__ = ()
    version = LEGACY_RNG

    def __init__(self, seed: int) -> None:
        self.state = seed & _MASK

    def next64(self) -> int:
        self.state = (self.state + 0x9E3779B97F4A7C15) & _MASK
        z = self.state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
        return z ^ (z >> 31)

    def copy(self) -> SplitMix64:
        clone = SplitMix64(0)
        clone.state = self.state
        return clone


def make_rng(seed: int, version: str = RNG_VERSION, stream: str = MAIN_STREAM) -> Rng:
    """The generator ``version`` for ``stream`` of the game with ``seed``.

    >>> make_rng(7, "mersenne/1")
    Traceback (most recent call last):
    ...
    ValueError: unknown random generator 'mersenne/1' (known: blake2b-ctr/1, splitmix64/1)
    """
    check_seed(seed, version)
    if version == RNG_VERSION:
        return Blake2bCtr(seed, stream)
    if stream not in _LEGACY_SALTS:
        raise ValueError(f"the {LEGACY_RNG} generator has no stream {stream!r}")
    return SplitMix64(seed ^ _LEGACY_SALTS[stream])


def check_seed(seed: int, version: str = RNG_VERSION) -> None:
    """Raise a ``ValueError`` saying why ``seed`` cannot seed generator ``version``."""
    if version not in RNG_VERSIONS:
        raise ValueError(f"unknown random generator {version!r} (known: {', '.join(RNG_VERSIONS)})")
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise ValueError(f"the seed must be a whole number, got {seed!r}")
    if not 0 <= seed < _SEED_LIMIT:
        raise ValueError(
            f"the seed must be a whole number from 0 to 2**{SEED_BITS} - 1, got {seed}"
        )
    if version == LEGACY_RNG and seed > _MASK:
        raise ValueError(f"the {LEGACY_RNG} generator takes seeds below 2**64")


# ------------------------------------------------------------------------- seed helpers
def _seed_bytes(seed: int) -> bytes:
    check_seed(seed)
    return seed.to_bytes(_SEED_BYTES, "big")


def seed_commitment(seed: int) -> str:
    """The lowercase hex SHA-256 of the seed as 32 big-endian bytes.

    Published before a game, it binds the game to its seed without revealing it; once the seed
    is shown anyone can check it (``echo -n HEX64 | xxd -r -p | sha256sum``, where ``HEX64`` is
    :func:`seed_text` without its ``0x``).
    """
    return hashlib.sha256(_seed_bytes(seed)).hexdigest()


def seed_text(seed: int) -> str:
    """The seed as ``0x`` and 64 lowercase hex digits (how records write it)."""
    check_seed(seed)
    return f"0x{seed:0{_SEED_BYTES * 2}x}"


_SEED_PATTERN = re.compile(r"(?:[0-9]+|0[xX][0-9a-fA-F]+)")


def parse_seed(text: str) -> int:
    """A seed written in decimal or as ``0x`` hex (surrounding spaces allowed).

    >>> parse_seed("-3")
    Traceback (most recent call last):
    ...
    ValueError: a seed is a whole number in decimal or 0x-hex, got '-3'
    """
    if not isinstance(text, str) or not _SEED_PATTERN.fullmatch(text.strip()):
        raise ValueError(f"a seed is a whole number in decimal or 0x-hex, got {text!r}")
    seed = int(text.strip(), 0 if text.strip()[:2].lower() == "0x" else 10)
    check_seed(seed)
    return seed


def derive_seed(seed: int, label: str) -> int:
    """A 63-bit seed for another generator (a bot's, say), derived from the game seed by a keyed
    hash: different labels give independent seeds, and none reveals the game seed.

    >>> derive_seed(1, "bot/0") != derive_seed(1, "bot/1")
    True
    >>> 0 <= derive_seed(2**256 - 1, "bot/0") < 2**63
    True
    """
    digest = hashlib.blake2b(
        label.encode(), key=_seed_bytes(seed), salt=_DERIVE_SALT, digest_size=8
    ).digest()
    return int.from_bytes(digest, "big") >> 1
