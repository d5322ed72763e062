"""Fair games: seeds nobody can predict, and records anyone can check.

A game's seed decides every shuffle, so whoever knows it knows every hand. A fair game therefore
draws a fresh 256-bit seed (:func:`new_seed`), publishes only its commitment (the SHA-256 of the
seed, :func:`~roborally.engine.core.rng.seed_commitment`) while the game runs, and reveals the
seed at the end. Its record (format version 2) holds the seed, the commitment, every decision
and the final state digest; :func:`verify_record` (``roborally verify GAME.rec``) checks that the
seed is the one committed to and that the decisions, replayed from it, lead to the recorded end.

A record is only checked against itself unless the player gives the commitment their game
showed (``--commitment``): anyone can write a consistent record with a seed and commitment of
their own, so only that comparison ties a record to the game that was played.

>>> from roborally.engine.core.rng import seed_commitment
>>> seed = new_seed()
>>> 0 <= seed < 2**256 and len(seed_commitment(seed)) == 64
True
"""

from __future__ import annotations

import dataclasses
import secrets
from dataclasses import dataclass

from roborally.content.record import Record, replay
from roborally.engine.core.rng import LEGACY_RNG, SEED_BITS, seed_commitment, seed_text
from roborally.engine.game import Game


def new_seed() -> int:
    """A fresh seed: 256 bits from the operating system's secure random source."""
    return secrets.randbits(SEED_BITS)


class NotVerified(Exception):
    """A record that does not verify; ``str()`` says in one line what is wrong."""


class Unfinished(NotVerified):
    """A record whose game did not reach its end (saved during the game, or cut short): it
    shows nothing of how the game ended, so it is never verified."""


@dataclass(frozen=True)
class Verification:
    """What :func:`verify_record` checked: the record as recorded, and ``shown``, the
    commitment the player's game showed if they gave it (``None``: only checked against
    itself)."""

    commitment: str
    seed: int
    rng: str
    actions: int
    result: str
    digest: str
    game_id: str | None = None
    shown: str | None = None

    def lines(self) -> list[str]:
        legacy = " (legacy: a hand reveals its seed)" if self.rng == LEGACY_RNG else ""
        given = " = the one you gave" if self.shown else ""
        return [
            *([f"game         {self.game_id}"] if self.game_id else []),
            f"commitment   {self.commitment} = SHA-256 of the seed{given}",
            f"seed         {seed_text(self.seed)}",
            f"generator    {self.rng}{legacy}",
            f"actions      {self.actions} replayed",
            f"result       {self.result}",
            f"final state  {self.digest}",
        ]

    def verdict(self) -> list[str]:
        """The last lines: what was proved, and (without ``shown``) what was not."""
        if self.shown:
            return [
                "verified: its seed is the one your game committed to, and its moves replay"
                " to the recorded end"
            ]
        return [
            "consistent with itself (a forged record can be too); NOT compared with your game:",
            f"compare its commitment {self.commitment}",
            "with the one your game showed before it began, or pass that one with --commitment HEX",
        ]


def verify_record(record: Record, commitment: str | None = None) -> Verification:
    """Check a record: its seed matches its ``seed-commitment`` (and ``commitment``, the one
    the player's game showed, if given), and its actions, replayed from that seed, are legal,
    reach the end of the game and end in its ``final-digest`` and ``result``.

    Raises :class:`Unfinished` for a record whose game did not reach its end,
    :class:`NotVerified` for any other record that does not verify (a version-1 record, which
    has no commitment, included) and :class:`~roborally.content.record.RecordError` for one
    whose headers cannot even set up a game.
    """
    name = record.filename
    committed, seed = _committed_seed(record)
    shown = commitment.strip().lower() if commitment else None
    if shown is not None and committed != shown:
        raise NotVerified(
            f"{name}: the record's commitment {committed} is not the one your game showed"
            f" ({shown}): this is not the record of that game"
        )
    expected = record.headers.get("final-digest", "").lower()
    if not expected:
        raise NotVerified(f"{name}: no final-digest header, so the end cannot be verified")
    game = _replay_moves(record)
    outcome = game.outcome()
    if outcome is None:
        raise Unfinished(_unfinished(record, game, expected))
    if game.digest() != expected:
        raise NotVerified(f"{name}: replay ended in a different state than recorded")
    result = outcome.result_text(game.config.players)
    recorded = record.headers.get("result")
    if recorded is not None and recorded != result:
        raise NotVerified(f"{name}: the record says {recorded!r} but the replay gives {result!r}")
    return Verification(
        committed, seed, record.rng, len(game.actions), result, expected, record.game_id, shown
    )


def _committed_seed(record: Record) -> tuple[str, int]:
    """The record's commitment and seed, once the seed is shown to match it."""
    name = record.filename
    committed = record.headers.get("seed-commitment", "").lower()
    if not committed:
        if record.version == "1":
            raise NotVerified(
                f"{name}: a version-1 record has no seed-commitment, so nothing shows its seed"
                " was fixed before the game; it cannot be verified (roborally replay replays it)"
            )
        raise NotVerified(f"{name}: no seed-commitment header, so the seed cannot be verified")
    seed = record.seed()
    if seed_commitment(seed) != committed:
        raise NotVerified(
            f"{name}: the seed does not match the seed-commitment (SHA-256 of seed"
            f" {seed_text(seed)} is {seed_commitment(seed)}, the record commits to {committed})"
        )
    return committed, seed


def _replay_moves(record: Record) -> Game:
    """The game the record's action lines make; :class:`NotVerified` at an illegal one. The
    final digest is compared by the caller, after it knows whether the game ended."""
    headers = {k: v for k, v in record.headers.items() if k != "final-digest"}
    moves = dataclasses.replace(record, headers=headers, errors=[])
    game = replay(moves, forgiving=True)
    if moves.errors:
        raise NotVerified(moves.errors[0])
    return game


def _unfinished(record: Record, game: Game, expected: str) -> str:
    """Why a record whose game did not end is not verified, with what it holds."""
    reached = f"round {game.state.round}" if game.state.round else "the setup"
    held = (
        f"{record.filename}: the game did not reach its end: the record holds"
        f" {len(game.actions)} actions, up to {reached}"
    )
    if game.digest() != expected:  # its recorded end lies elsewhere: lines missing or changed
        return held + ", and they do not reach its recorded final state (cut short or changed)"
    return held + " (it was saved during the game), so it shows nothing of how the game ended"
