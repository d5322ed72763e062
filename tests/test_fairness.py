"""Fair games: fresh seeds, ``roborally verify`` (an honest record verifies; a changed seed,
commitment, decision, result or a missing digest does not; version-1 records say why they
cannot), and ``roborally play``'s fresh or chosen seeds. (Bot seeds: tests/test_bots.py.)"""

from __future__ import annotations

import doctest
import hashlib
import re
from pathlib import Path

import pytest

import roborally.content.fairness
from roborally.bots.random_bot import RandomBot, seat_seed
from roborally.bots.runner import new_game
from roborally.cli import main
from roborally.content.fairness import NotVerified, new_seed, verify_record
from roborally.content.record import (
    RecordError,
    decode_choice,
    encode_choice,
    parse_record,
    write_record,
)
from roborally.engine.core.decisions import Action
from roborally.engine.core.rng import seed_commitment, seed_text
from roborally.engine.game import Game
from test_record import first_program, header_variant, tamper  # the record tests' editors

RECORDS = Path(__file__).resolve().parent / "records"
SEED = 0x5EED_0F_A1B2_C3D4 << 180 | 0xFA1E


def honest_game(seed: int = SEED, rounds: int = 3) -> Game:
    game = new_game("tiny", 3, seed, max_rounds=rounds)
    bots = [RandomBot(seat_seed(seed, seat)) for seat in range(3)]
    while not game.is_over():
        d = game.pending_decisions()[0]
        game.apply(Action(d.id, d.seat, bots[d.seat].choose(game.observation(d.seat), d)))
    return game


@pytest.fixture(scope="module")
def honest() -> tuple[Game, str]:
    game = honest_game()
    return game, write_record(game, "tiny")


def refusal(text: str, name: str = "x.rec") -> str:
    with pytest.raises(NotVerified) as info:
        verify_record(parse_record(text, name))
    message = str(info.value)
    assert "\n" not in message
    return message


# --------------------------------------------------------------------------- new_seed
def test_new_seed_draws_256_fresh_bits() -> None:
    seeds = {new_seed() for _ in range(64)}
    assert len(seeds) == 64
    assert all(0 <= s < 2**256 for s in seeds)
    assert max(seeds).bit_length() > 240  # 64 draws below 2**240 would be a 1 in 2**1000 event


def test_fairness_doctests() -> None:
    result = doctest.testmod(roborally.content.fairness, optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0 and result.failed == 0


# ----------------------------------------------------------------------------- verify
def test_an_honest_record_verifies(honest: tuple[Game, str]) -> None:
    game, text = honest
    checked = verify_record(parse_record(text, "x.rec"))
    assert checked.seed == SEED and checked.commitment == seed_commitment(SEED)
    assert checked.actions == len(game.actions) and checked.digest == game.digest()
    outcome = game.outcome()
    assert outcome is not None and checked.result == outcome.result_text(game.config.players)


def test_an_altered_seed_does_not_verify(honest: tuple[Game, str]) -> None:
    _, text = honest
    message = refusal(header_variant(text, "seed", seed_text(SEED + 1)))
    assert message.startswith("x.rec: the seed does not match the seed-commitment")
    assert seed_text(SEED + 1) in message


def test_an_altered_commitment_does_not_verify(honest: tuple[Game, str]) -> None:
    _, text = honest
    message = refusal(header_variant(text, "seed-commitment", seed_commitment(SEED + 1)))
    assert message.startswith("x.rec: the seed does not match the seed-commitment")


def test_a_new_seed_with_its_own_commitment_does_not_reach_the_recorded_end(
    honest: tuple[Game, str],
) -> None:
    """Someone who swaps the seed and recomputes the commitment is caught by the replay: the
    same decisions from another seed are illegal or end elsewhere."""
    _, text = honest
    forged = header_variant(text, "seed", seed_text(SEED + 1))
    forged = header_variant(forged, "seed-commitment", seed_commitment(SEED + 1))
    message = refusal(forged)
    assert re.match(r"x\.rec(:\d+)?: ", message)
    assert "commitment" not in message


def test_a_legal_but_different_decision_does_not_verify(honest: tuple[Game, str]) -> None:
    game, text = honest
    before = Game(game.config)
    for action in game.actions[:-1]:
        before.apply(action)
    last = game.actions[-1]
    decision = next(d for d in before.pending_decisions() if d.id == last.decision_id)
    for choice in before.legal_choices(decision):
        other = before.copy()
        other.apply(Action(decision.id, decision.seat, choice))
        if other.digest() != game.digest():
            break
    else:
        raise AssertionError("no other legal choice changes the end")
    altered, _ = tamper(text, len(game.actions) - 1, encode_choice(choice))
    assert decode_choice(decision, encode_choice(choice).split()) == choice
    assert refusal(altered) == "x.rec: replay ended in a different state than recorded"


def test_an_illegal_decision_does_not_verify(honest: tuple[Game, str]) -> None:
    _, text = honest
    index = first_program(text)
    altered, number = tamper(text, index, "move3 move3 move3 move3 move3")
    decision_id = altered.splitlines()[number - 1].split()[0]
    message = refusal(altered)
    assert message.startswith(f"x.rec:{number}: {decision_id}: ") and "move3" in message


def test_a_record_without_digest_does_not_verify(honest: tuple[Game, str]) -> None:
    _, text = honest
    message = refusal(header_variant(text, "final-digest", None))
    assert message == "x.rec: no final-digest header, so the end cannot be verified"


def test_a_record_without_commitment_does_not_verify(honest: tuple[Game, str]) -> None:
    _, text = honest
    message = refusal(header_variant(text, "seed-commitment", None))
    assert message == "x.rec: no seed-commitment header, so the seed cannot be verified"


def test_an_altered_result_does_not_verify(honest: tuple[Game, str]) -> None:
    _, text = honest
    message = refusal(header_variant(text, "result", "Red wins (checkpoints)"))
    assert message.startswith("x.rec: the record says 'Red wins (checkpoints)' but the replay")


def test_a_version_1_record_says_why_it_cannot_be_verified() -> None:
    path = RECORDS / "v1-docs-example.rec"
    message = refusal(path.read_text(), str(path))
    assert "version-1 record has no seed-commitment" in message
    assert "cannot be verified" in message


def test_a_record_whose_headers_set_up_no_game_is_a_record_error(
    honest: tuple[Game, str],
) -> None:
    _, text = honest
    with pytest.raises(RecordError, match="unknown course"):
        verify_record(parse_record(header_variant(text, "course", "atlantis"), "x.rec"))


# -------------------------------------------------------------------------------- CLI
def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(argv)
    out = capsys.readouterr()
    return code, out.out, out.err


def test_cli_verify(
    honest: tuple[Game, str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    game, text = honest
    good = tmp_path / "good.rec"
    good.write_text(text)
    code, out, _ = run(["verify", str(good)], capsys)
    assert code == 0
    assert out.splitlines()[-3].startswith("consistent with itself")  # tests/test_verify.py
    assert seed_commitment(SEED) in out and seed_text(SEED) in out
    assert f"{len(game.actions)} replayed" in out and game.digest() in out

    bad = tmp_path / "bad.rec"
    bad.write_text(header_variant(text, "seed", seed_text(SEED + 1)))
    code, out, err = run(["verify", str(bad)], capsys)
    assert code == 1 and out == ""
    assert err.startswith(f"roborally verify: NOT verified: {bad}: the seed does not match")
    assert len(err.splitlines()) == 1

    code, _, err = run(["verify", str(RECORDS / "v1-classic.rec")], capsys)
    assert code == 1 and "version-1 record" in err

    for unreadable in ("hello\n", "hello: world\n---\n"):
        bad.write_text(unreadable)
        code, _, err = run(["verify", str(bad)], capsys)
        assert code == 2 and err.startswith(f"roborally verify: {bad}")
    code, _, err = run(["verify", str(tmp_path / "missing.rec")], capsys)
    assert code == 2 and "No such file" in err


def test_cli_play_draws_a_fresh_seed_and_reveals_it_at_the_end(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "game.rec"
    argv = ["play", "--course", "tiny", "--max-rounds", "2", "--record", str(path)]
    code, out, _ = run(argv, capsys)
    assert code == 0
    lines = out.splitlines()
    commitment = re.fullmatch(r"Seed commitment ([0-9a-f]{64}) \(.*\)", lines[1])
    assert commitment, lines[1]
    seed_line = next(line for line in reversed(lines) if line.startswith("Seed 0x"))
    seed = seed_line.split()[1]
    assert hashlib.sha256(bytes.fromhex(seed[2:])).hexdigest() == commitment.group(1)
    assert out.index(commitment.group(1)) < out.index(seed)  # the seed only at the end
    code, out, _ = run(["verify", str(path)], capsys)
    assert code == 0 and seed in out and commitment.group(1) in out
    # Another game gets another seed.
    code, again, _ = run(argv[:-2], capsys)
    assert code == 0 and commitment.group(1) not in again


def test_cli_play_with_a_chosen_seed_says_so(capsys: pytest.CaptureFixture[str]) -> None:
    code, hex_out, _ = run(["play", "--max-rounds", "2", "--seed", "0x1F"], capsys)
    assert code == 0
    assert f"Seed {seed_text(31)} (chosen, not drawn; commitment {seed_commitment(31)})" in hex_out
    code, decimal_out, _ = run(["play", "--max-rounds", "2", "--seed", "31"], capsys)
    assert code == 0 and decimal_out == hex_out


@pytest.mark.parametrize("seed", ["-1", "abc", str(2**256)])
def test_cli_play_refuses_a_bad_seed(seed: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        main(["play", "--seed", seed])
    assert info.value.code == 2
    assert "--seed" in capsys.readouterr().err


# ------------------------------------------------------------------------------ docs
DOC = Path(__file__).resolve().parent.parent / "docs" / "record-format.md"


def test_the_documented_verification_is_what_verify_prints(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = DOC.read_text(encoding="utf-8")
    (example,) = re.findall(r"```record\n(.*?)```", text, re.S)
    (shown,) = re.findall(r"\$ roborally verify game\.rec\n(.*?)```", text, re.S)
    path = tmp_path / "game.rec"
    path.write_text(example)
    code, out, _ = run(["verify", str(path)], capsys)
    assert code == 0 and out == shown
    # ... and the by-hand check of the commitment names the example's seed and commitment.
    record = parse_record(example)
    by_hand = f"$ echo -n {record.headers['seed'][2:]} | xxd -r -p | sha256sum\n"
    assert by_hand + f"{record.headers['seed-commitment']}  -\n" in text
