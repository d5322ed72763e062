"""Fair games: seeds nobody can predict, and records anyone can check.

A game's seed decides every shuffle, so whoever knows it knows every hand. A fair game therefore
draws a fresh 256-bit seed (:func:`new_seed`), publishes only its commitment (the SHA-256 of the
seed, :func:`~roborally.engine.core.rng.seed_commitment`) while the game runs, and reveals the
seed at the end. Its record (format version 2) holds the seed, the commitment, every decision
and the final state digest; :func:`verify_record` (``roborally verify GAME.rec``) checks that the
seed is the one committed to and that the decisions, replayed from it, lead to the recorded end.

>>> from roborally.engine.core.rng import seed_commitment
>>> seed = new_seed()
>>> 0 <= seed < 2**256 and len(seed_commitment(seed)) == 64
True
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass

from roborally.content.record import Record, replay
from roborally.engine.core.rng import LEGACY_RNG, SEED_BITS, seed_commitment, seed_text


def new_seed() -> int:
    """A fresh seed: 256 bits from the operating system's secure random source."""
    return secrets.randbits(SEED_BITS)


class NotVerified(Exception):
    """A record that does not verify; ``str()`` says in one line what is wrong."""


@dataclass(frozen=True)
class Verification:
    """What :func:`verify_record` checked, all of it as recorded."""

    commitment: str
    seed: int
    rng: str
    actions: int
    result: str
    digest: str

    def lines(self) -> list[str]:
        legacy = " (legacy: a hand reveals its seed)" if self.rng == LEGACY_RNG else ""
        return [
            f"commitment   {self.commitment} = SHA-256 of the seed",
            f"seed         {seed_text(self.seed)}",
            f"generator    {self.rng}{legacy}",
            f"actions      {self.actions} replayed",
            f"result       {self.result}",
            f"final state  {self.digest}",
        ]


def verify_record(record: Record) -> Verification:
    """Check a record: its seed matches its ``seed-commitment``, and its actions, replayed from
    that seed, are legal and end in its ``final-digest`` and ``result``.

    Raises :class:`NotVerified` for a record that does not verify (a version-1 record, which has
    no commitment, included) and :class:`~roborally.content.record.RecordError` for one whose
    headers cannot even set up a game.
    """
    name = record.filename
    commitment = record.headers.get("seed-commitment", "").lower()
    if not commitment:
        if record.version == "1":
            raise NotVerified(
                f"{name}: a version-1 record has no seed-commitment, so nothing shows its seed"
                " was fixed before the game; it cannot be verified (roborally replay replays it)"
            )
        raise NotVerified(f"{name}: no seed-commitment header, so the seed cannot be verified")
    seed = record.seed()
    if seed_commitment(seed) != commitment:
        raise NotVerified(
            f"{name}: the seed does not match the seed-commitment (SHA-256 of seed"
            f" {seed_text(seed)} is {seed_commitment(seed)}, the record commits to {commitment})"
        )
    expected = record.headers.get("final-digest", "").lower()
    if not expected:
        raise NotVerified(f"{name}: no final-digest header, so the end cannot be verified")
    game = replay(record, forgiving=True)
    if record.errors:
        raise NotVerified(record.errors[0])
    if game.digest() != expected:
        raise NotVerified(f"{name}: replay ended in a different state than recorded")
    outcome = game.outcome()
    result = outcome.result_text(game.config.players) if outcome else "unfinished"
    recorded = record.headers.get("result")
    if recorded is not None and recorded != result:
        raise NotVerified(f"{name}: the record says {recorded!r} but the replay gives {result!r}")
    return Verification(commitment, seed, record.rng, len(game.actions), result, expected)
