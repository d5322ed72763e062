"""``roborally verify`` says what it proved: a record checked only against itself is called
consistent, never verified; ``--commitment`` ties it to the game the player saw (a wholly forged
record with its own seed and commitment fails it); a record whose game did not reach its end is
unfinished (exit 3); server records name their game, older records without it still verify."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from roborally.bots.random_bot import RandomBot, seat_seed
from roborally.bots.runner import new_game
from roborally.cli import main
from roborally.content.record import parse_record, write_record
from roborally.engine.core.decisions import Action
from roborally.engine.core.rng import seed_commitment
from test_fairness import SEED, honest_game

DOC = Path(__file__).resolve().parent.parent / "docs" / "record-format.md"
OTHER_SEED = SEED ^ (1 << 200)


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(argv)
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.fixture(scope="module")
def records(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The real game's record, as the server writes it (with its game id), and a wholly
    forged one: another game with a seed and commitment of its own, claiming the same id."""
    folder = tmp_path_factory.mktemp("records")
    paths = {}
    for name, seed in (("real", SEED), ("forged", OTHER_SEED)):
        paths[name] = folder / f"{name}.rec"
        paths[name].write_text(write_record(honest_game(seed), "tiny", "k3JX9a2Q"))
    return paths


def test_a_record_checked_only_against_itself_is_not_called_verified(
    records: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    for name in ("real", "forged"):  # both are consistent; nothing here tells them apart
        code, out, _ = run(["verify", str(records[name])], capsys)
        assert code == 0
        assert "verified" not in out
        last = out.splitlines()[-3:]
        assert last[0].startswith("consistent with itself (a forged record can be too)")
        commitment = parse_record(records[name].read_text()).headers["seed-commitment"]
        assert last[1] == f"compare its commitment {commitment}"
        assert "--commitment" in last[2]


def test_the_commitment_the_players_saw_tells_the_real_record_from_a_forged_one(
    records: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    seen = seed_commitment(SEED)
    code, out, err = run(["verify", str(records["real"]), "--commitment", seen.upper()], capsys)
    assert code == 0 and err == ""
    assert f"commitment   {seen} = SHA-256 of the seed = the one you gave" in out
    assert out.splitlines()[-1].startswith("verified: its seed is the one your game committed")
    code, out, err = run(["verify", str(records["forged"]), "--commitment", seen], capsys)
    assert code == 1 and out == ""
    assert err == (
        f"roborally verify: NOT verified: {records['forged']}: the record's commitment"
        f" {seed_commitment(OTHER_SEED)} is not the one your game showed ({seen}): this is not"
        " the record of that game\n"
    )


def test_a_commitment_that_is_no_sha256_is_refused(
    records: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as info:
        main(["verify", str(records["real"]), "--commitment", "f61b73"])
    assert info.value.code == 2
    assert "is not a commitment (64 hex digits" in capsys.readouterr().err


def unfinished_game(actions: int) -> str:
    game = new_game("tiny", 3, SEED, max_rounds=3)
    bots = [RandomBot(seat_seed(SEED, seat)) for seat in range(3)]
    while len(game.actions) < actions:
        d = game.pending_decisions()[0]
        game.apply(Action(d.id, d.seat, bots[d.seat].choose(game.observation(d.seat), d)))
    return write_record(game, "tiny")


def test_a_record_saved_during_the_game_is_unfinished(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "saved.rec"
    path.write_text(unfinished_game(12))
    assert "result: unfinished" in path.read_text()
    for extra in ([], ["--commitment", seed_commitment(SEED)]):
        code, out, err = run(["verify", str(path), *extra], capsys)
        assert code == 3 and out == ""
        assert err.startswith(f"roborally verify: NOT verified, UNFINISHED: {path}: the game")
        assert re.search(r"did not reach its end: the record holds 12 actions, up to round \d", err)
        assert "saved during the game" in err and len(err.splitlines()) == 1


def test_a_record_cut_short_is_unfinished(
    records: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lines = records["real"].read_text().splitlines(keepends=True)
    path = tmp_path / "cut.rec"
    path.write_text("".join(lines[:-10]))
    code, out, err = run(["verify", str(path), "--commitment", seed_commitment(SEED)], capsys)
    assert code == 3 and out == ""
    assert "did not reach its end" in err and "(cut short or changed)" in err


def test_server_records_name_their_game_and_older_records_still_verify(
    records: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = records["real"].read_text()
    assert text.splitlines()[1] == "game-id: k3JX9a2Q"
    assert parse_record(text).game_id == "k3JX9a2Q"
    code, out, _ = run(["verify", str(records["real"])], capsys)
    assert code == 0 and out.splitlines()[0] == "game         k3JX9a2Q"
    # A record without the header (headless games, and every record before it) verifies too.
    (example,) = re.findall(r"```record\n(.*?)```", DOC.read_text(encoding="utf-8"), re.S)
    assert "game-id" not in example and parse_record(example).game_id is None
    old = tmp_path / "old.rec"
    old.write_text(example)
    seen = parse_record(example).headers["seed-commitment"]
    code, out, _ = run(["verify", str(old), "--commitment", seen], capsys)
    assert code == 0 and out.startswith("commitment ")
    assert out.splitlines()[-1].startswith("verified: ")
