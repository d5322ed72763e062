"""Game records: write, parse and replay round-trips, error messages, and the CLI path."""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest

from roborally.bots.random_bot import RandomBot
from roborally.bots.runner import new_game
from roborally.cli import main
from roborally.content.record import (
    FORMAT_VERSION,
    RecordError,
    decode_choice,
    encode_choice,
    load_record,
    parse_record,
    replay,
    write_record,
)
from roborally.engine.core.decisions import (
    TIMEOUT,
    Action,
    Decision,
    DecisionKind,
    InvalidActionError,
)
from roborally.engine.core.rng import LEGACY_RNG, RNG_VERSION, seed_commitment, seed_text
from roborally.engine.core.state import VARIANTS
from roborally.engine.game import RULES_VERSION, Game


def play(
    seed: int,
    players: int = 3,
    max_rounds: int = 6,
    variants: tuple[str, ...] = (),
    timeout_rate: float = 0.0,
    stop_after: int | None = None,
) -> Game:
    game = new_game("tiny", players, seed, max_rounds=max_rounds, variants=list(variants))
    bots = [RandomBot(seed=seed * 31 + i, shutdown_rate=0.1) for i in range(players)]
    rng = random.Random(seed)
    while not game.is_over():
        if stop_after is not None and len(game.actions) >= stop_after:
            break
        d = game.pending_decisions()[0]
        choice = (
            TIMEOUT
            if rng.random() < timeout_rate
            else bots[d.seat].choose(game.observation(d.seat), d)
        )
        game.apply(Action(d.id, d.seat, choice))
    return game


def body_lines(text: str) -> list[tuple[int, str]]:
    """(line number, text) of every action line of a record."""
    lines = text.splitlines()
    start = lines.index("---")
    return [(n, line) for n, line in enumerate(lines, start=1) if n > start + 1 and line.strip()]


def a_record(seed: int = 4, **kwargs: object) -> tuple[Game, str]:
    game = play(seed, **kwargs)  # type: ignore[arg-type]
    return game, write_record(game, "tiny")


# ------------------------------------------------------------------------ round trip
@pytest.mark.parametrize("seed", range(8))
def test_round_trip_reproduces_the_game(seed: int) -> None:
    rng = random.Random(seed)
    variants = tuple(sorted(v for v in VARIANTS if rng.random() < 0.3))
    game = play(
        seed, players=2 + seed % 5, max_rounds=4 + seed, variants=variants, timeout_rate=0.1
    )
    text = write_record(game, "tiny")
    record = parse_record(text, "game.rec")
    assert record.headers["roborally-record"] == FORMAT_VERSION
    assert record.headers["rules"] == RULES_VERSION
    assert record.headers["rng"] == RNG_VERSION
    assert record.headers["final-digest"] == game.digest()
    assert len(record.lines) == len(game.actions)
    again = replay(record)
    assert again.digest() == game.digest()
    assert again.actions == game.actions
    assert again.events == game.events
    assert again.outcome() == game.outcome()
    assert record.errors == []
    # Writing the replayed game gives the same text.
    assert write_record(again, "tiny") == text


def test_round_trip_of_an_unfinished_game() -> None:
    game = play(2, stop_after=20)
    assert not game.is_over()
    text = write_record(game, "tiny")
    assert "result: unfinished" in text
    again = replay(parse_record(text))
    assert again.digest() == game.digest()
    assert again.pending_decisions() == game.pending_decisions()


def test_round_trip_with_random_first_player_and_competitive_start() -> None:
    from dataclasses import replace

    base = new_game("tiny", 3, 9, max_rounds=3, variants=["competitive_start", "speed"])
    game = Game(replace(base.config, first_player=None))
    bots = [RandomBot(seed=i) for i in range(3)]
    while not game.is_over():
        d = game.pending_decisions()[0]
        game.apply(Action(d.id, d.seat, bots[d.seat].choose(game.observation(d.seat), d)))
    text = write_record(game, "tiny")
    assert "first-player: random" in text
    assert "block_start" in text
    assert replay(parse_record(text)).digest() == game.digest()


def test_every_decision_kind_round_trips_through_the_text() -> None:
    """encode_choice/decode_choice are inverse for every kind met in real games (2023 on the
    tiny course, then the classic editions for their own kinds)."""
    kinds: set[DecisionKind] = set()
    classic = [
        classic_game(seed, edition) for seed in range(4) for edition in ("classic", "classic-1994")
    ]
    for seed in range(60):
        game = classic[seed] if seed < len(classic) else None
        if game is None:
            game = play(seed, players=3, max_rounds=10, variants=("competitive_start",))
        fresh = Game(game.config)
        for action in game.actions:
            decision = next(d for d in fresh.pending_decisions() if d.id == action.decision_id)
            kinds.add(decision.kind)
            text = encode_choice(action.choice)
            assert "\n" not in text and text.strip() == text
            assert decode_choice(decision, text.split()) == action.choice
            fresh.apply(action)
        if kinds == set(DecisionKind):
            break
    assert kinds == set(DecisionKind)


def classic_game(seed: int, edition: str) -> Game:
    """A finished classic game between random bots (power downs and option cards included)."""
    variants = ["emergency_shutdown", "option_cards"] if edition == "classic-1994" else []
    game = new_game("cl-first-shift", 4, seed, 10, variants, edition)
    bots = [RandomBot(seed * 10 + i) for i in range(4)]
    while not game.is_over():
        d = game.pending_decisions()[0]
        game.apply(Action(d.id, d.seat, bots[d.seat].choose(game.observation(d.seat), d)))
    return game


def test_timeout_is_recorded_as_timeout() -> None:
    game = play(5, timeout_rate=1.0, max_rounds=2)
    text = write_record(game, "tiny")
    assert all(line.split()[-1] == "timeout" for _, line in body_lines(text))
    assert replay(parse_record(text)).digest() == game.digest()


def test_comments_and_blank_lines_are_ignored() -> None:
    game, text = a_record()
    lines = text.splitlines()
    lines.insert(1, "# a comment in the headers")
    lines.insert(lines.index("---") + 2, "")
    lines.insert(lines.index("---") + 3, "   # a comment between actions")
    assert replay(parse_record("\n".join(lines))).digest() == game.digest()


# ---------------------------------------------------------------------- bad records
def tamper(text: str, index: int, new_choice: str) -> tuple[str, int]:
    """Replace the choice of the ``index``-th action line; returns (text, its line number)."""
    lines = text.splitlines()
    number, line = body_lines(text)[index]
    decision_id, seat = line.split()[:2]
    lines[number - 1] = f"{decision_id}  {seat}  {new_choice}"
    return "\n".join(lines) + "\n", number


def first_program(text: str) -> int:
    return next(i for i, (_, line) in enumerate(body_lines(text)) if "-program" in line)


def test_tampered_choice_fails_with_file_and_line() -> None:
    _, text = a_record()
    bad, number = tamper(text, first_program(text), "move3 move3 move3 move3 move3")
    with pytest.raises(RecordError) as info:
        replay(parse_record(bad, "games/tampered.rec"))
    message = str(info.value)
    assert message.startswith(f"games/tampered.rec:{number}: ")
    assert "move3" in message


@pytest.mark.parametrize(
    ("choice", "words"),
    [
        ("99", "not a legal choice"),  # start space that does not exist
        ("three", "three"),  # not a number
    ],
)
def test_tampered_start_space(choice: str, words: str) -> None:
    _, text = a_record()
    bad, number = tamper(text, 0, choice)
    with pytest.raises(RecordError, match=rf"^x\.rec:{number}: .*{words}"):
        replay(parse_record(bad, "x.rec"))


def test_tampered_shutdown_answer() -> None:
    _, text = a_record()
    index = next(i for i, (_, line) in enumerate(body_lines(text)) if "-shutdown" in line)
    bad, number = tamper(text, index, "maybe")
    with pytest.raises(RecordError, match=rf"^x\.rec:{number}: expected yes or no"):
        replay(parse_record(bad, "x.rec"))


def test_wrong_seat_and_unknown_decision_fail_with_line() -> None:
    _, text = a_record()
    lines = text.splitlines()
    number, line = body_lines(text)[0]
    lines[number - 1] = line.replace("P1", "P2", 1)
    with pytest.raises(RecordError, match=rf"^x\.rec:{number}: .*seat"):
        replay(parse_record("\n".join(lines), "x.rec"))
    lines[number - 1] = line.replace("t0-p1-start_space", "t0-p9-start_space")
    with pytest.raises(RecordError, match=rf"^x\.rec:{number}: .*t0-p9-start_space"):
        replay(parse_record("\n".join(lines), "x.rec"))


def test_forgiving_mode_collects_the_error_and_stops() -> None:
    game, text = a_record()
    index = first_program(text)
    bad, number = tamper(text, index, "move3 move3 move3 move3 move3")
    record = parse_record(bad, "x.rec")
    partial = replay(record, forgiving=True)
    assert len(record.errors) == 1
    assert record.errors[0].startswith(f"x.rec:{number}: ")
    assert partial.actions == game.actions[:index]
    assert not partial.is_over()


def test_forgiving_mode_notes_a_digest_mismatch() -> None:
    _, text = a_record()
    bad = re.sub(r"final-digest: \w+", "final-digest: " + "0" * 64, text)
    with pytest.raises(RecordError, match="different state"):
        replay(parse_record(bad, "x.rec"))
    record = parse_record(bad, "x.rec")
    replay(record, forgiving=True)
    assert len(record.errors) == 1 and "different state" in record.errors[0]


def test_truncated_finished_record_is_detected() -> None:
    game, text = a_record()
    assert game.is_over()
    cut = "\n".join(text.splitlines()[:-1]) + "\n"
    with pytest.raises(RecordError, match="different state"):
        replay(parse_record(cut, "x.rec"))


def test_truncated_unfinished_record_is_detected() -> None:
    # The lighter game has no upgrade phase: 3 start spaces, then P1's program.
    game = play(2, players=3, stop_after=4, variants=("lighter",))
    assert game.actions[-1].decision_id.endswith("-program")
    text = write_record(game, "tiny")
    cut = "\n".join(text.splitlines()[:-1]) + "\n"
    with pytest.raises(RecordError, match="different state"):
        replay(parse_record(cut, "x.rec"))


def test_an_accepted_card_order_replays() -> None:
    for seed in range(200):
        game = new_game("tiny", 3, seed, max_rounds=20)
        bots = [RandomBot(seed=seed * 10 + i) for i in range(3)]
        while not game.is_over():
            d = game.pending_decisions()[0]
            if d.kind is DecisionKind.CARD_ORDER:
                # Booleans are not positions: the order is refused, so no record can hold it.
                before = game.digest()
                with pytest.raises(InvalidActionError):
                    game.apply(Action(d.id, d.seat, (True, False)))
                assert game.digest() == before
                game.apply(Action(d.id, d.seat, (1, 0)))
                text = write_record(game, "tiny")
                assert replay(parse_record(text)).digest() == game.digest()
                return
            game.apply(Action(d.id, d.seat, bots[d.seat].choose(game.observation(d.seat), d)))
    raise AssertionError("no card_order decision met")


def header_variant(text: str, key: str, value: str | None) -> str:
    lines = []
    for line in text.splitlines():
        if line.startswith(f"{key}:"):
            if value is None:
                continue
            line = f"{key}: {value}"
        lines.append(line)
    return "\n".join(lines) + "\n"


def test_unknown_course_gives_a_clear_error() -> None:
    _, text = a_record()
    bad = header_variant(text, "course", "nowhere-land")
    with pytest.raises(RecordError) as info:
        replay(parse_record(bad, "x.rec"))
    message = str(info.value)
    assert message.startswith("x.rec:")
    assert "unknown course 'nowhere-land'" in message and "tiny" in message


def test_missing_header_gives_a_clear_error() -> None:
    _, text = a_record()
    for key in ("seed", "players", "course"):
        with pytest.raises(RecordError, match=rf"^x\.rec: missing header '{key}'"):
            replay(parse_record(header_variant(text, key, None), "x.rec"))


def test_header_line_without_colon_gives_file_and_line() -> None:
    _, text = a_record()
    lines = text.splitlines()
    lines.insert(3, "this is not a header")
    with pytest.raises(RecordError, match=r"^x\.rec:4: expected 'key: value' or '---'"):
        parse_record("\n".join(lines), "x.rec")


def test_bad_action_line_gives_file_and_line() -> None:
    _, text = a_record()
    lines = text.splitlines()
    number = lines.index("---") + 2
    for bad in ("t0-p1-start_space", "t0-p1-start_space 1 4", "t0-p1-start_space Px 4"):
        lines[number - 1] = bad
        with pytest.raises(RecordError, match=rf"^x\.rec:{number}: expected 'DECISION-ID P<seat>"):
            parse_record("\n".join(lines), "x.rec")


@pytest.mark.parametrize("value", ["3", "0", ""])
def test_wrong_format_version_is_refused(value: str) -> None:
    _, text = a_record()
    with pytest.raises(RecordError, match=r"^x\.rec:1: not a roborally record"):
        parse_record(header_variant(text, "roborally-record", value), "x.rec")
    with pytest.raises(RecordError, match="not a roborally record"):
        parse_record("hello: world\n---\n", "x.rec")


def test_wrong_rng_version_gives_a_clear_error() -> None:
    _, text = a_record()
    with pytest.raises(RecordError) as info:
        parse_record(header_variant(text, "rng", "mersenne/7"), "x.rec")
    message = str(info.value)
    assert message.startswith("x.rec")
    assert "'mersenne/7'" in message and RNG_VERSION in message


@pytest.mark.parametrize(
    ("key", "value", "words"),
    [
        ("variants", "turbo", "unknown variant"),
        ("first-player", "9", "first_player"),
        ("players", "A, B, C, D, E, F, G", "1 to 6 players"),
    ],
)
def test_bad_header_values_give_record_errors(key: str, value: str, words: str) -> None:
    _, text = a_record()
    with pytest.raises(RecordError, match=rf"^x\.rec: .*{words}"):
        replay(parse_record(header_variant(text, key, value), "x.rec"))


def test_non_numeric_seed_header_names_the_header() -> None:
    _, text = a_record()
    with pytest.raises(RecordError) as info:
        replay(parse_record(header_variant(text, "seed", "abc"), "x.rec"))
    assert "seed" in str(info.value)


def test_unknown_edition_header_gives_a_record_error() -> None:
    _, text = a_record()
    with pytest.raises(RecordError, match=r"^x\.rec: .*unknown edition '1999'"):
        replay(parse_record(header_variant(text, "edition", "1999"), "x.rec"))


# ------------------------------------------------------------------- format versions
RECORDS = Path(__file__).resolve().parent / "records"
VERSION_1 = sorted(RECORDS.glob("v1-*.rec"))


def test_new_records_are_version_2_with_seed_and_commitment() -> None:
    seed = 2**256 - 2**70 + 12345
    game = new_game("tiny", 2, seed, max_rounds=2)
    text = write_record(game, "tiny")
    record = parse_record(text)
    assert FORMAT_VERSION == "2" and record.version == "2"
    assert record.headers["rng"] == RNG_VERSION == "blake2b-ctr/1"
    assert re.fullmatch(r"0x[0-9a-f]{64}", record.headers["seed"])
    assert record.headers["seed"] == seed_text(seed)
    assert record.headers["seed-commitment"] == seed_commitment(seed)
    assert record.seed() == seed and record.config().rng == RNG_VERSION
    assert replay(record).digest() == game.digest()
    # The order of the headers: the generator, then what it is seeded with.
    keys = [line.split(":")[0] for line in text.split("---")[0].splitlines()]
    assert keys[:7] == [
        "roborally-record",
        "edition",
        "rules",
        "rng",
        "course",
        "seed",
        "seed-commitment",
    ]


def test_a_version_2_record_may_write_its_seed_in_decimal() -> None:
    game, text = a_record()
    decimal = header_variant(text, "seed", str(game.config.seed))
    assert replay(parse_record(decimal)).digest() == game.digest()


def test_version_2_needs_the_rng_header() -> None:
    _, text = a_record()
    with pytest.raises(RecordError, match=r"^x\.rec: missing header 'rng'"):
        parse_record(header_variant(text, "rng", None), "x.rec")


@pytest.mark.parametrize("path", VERSION_1, ids=lambda p: p.name)
def test_version_1_records_still_replay_exactly(path: Path) -> None:
    """Records written before fair seeds (tests/records, written by commit 97f28e0): the legacy
    generator reproduces them to their recorded digest and result."""
    record = load_record(path)
    assert record.version == "1" and record.rng == LEGACY_RNG
    assert "seed-commitment" not in record.headers
    game = replay(record)
    assert game.config.rng == LEGACY_RNG
    assert game.digest() == record.headers["final-digest"]
    outcome = game.outcome()
    assert outcome is not None
    assert outcome.result_text(game.config.players) == record.headers["result"]


def test_version_1_records_cover_both_editions_upgrades_and_odd_seeds() -> None:
    headers = [load_record(path).headers for path in VERSION_1]
    assert {h.get("edition") for h in headers} >= {"2023", "classic", "classic-1994"}
    assert any(h["seed"].startswith("-") for h in headers)
    assert any("install" in path.read_text() for path in VERSION_1)


def test_a_negative_version_1_seed_is_taken_modulo_2_64() -> None:
    (path,) = [p for p in VERSION_1 if "negative" in p.name]
    record = load_record(path)
    assert record.headers["seed"] == "-5" and record.seed() == 2**64 - 5


def test_a_replayed_version_1_game_is_written_as_version_2_with_its_generator() -> None:
    record = load_record(RECORDS / "v1-2023-upgrades.rec")
    game = replay(record)
    text = write_record(game, record.headers["course"])
    again = parse_record(text)
    assert again.version == "2" and again.headers["rng"] == LEGACY_RNG
    assert again.headers["seed"] == seed_text(int(record.headers["seed"]))
    assert replay(again).digest() == record.headers["final-digest"]


def test_a_version_1_record_cannot_claim_the_new_generator() -> None:
    text = (RECORDS / "v1-classic.rec").read_text()
    with pytest.raises(RecordError, match="a version-1 record has 'splitmix64/1'"):
        parse_record(header_variant(text, "rng", RNG_VERSION), "x.rec")
    # Without the header, a version-1 record means splitmix64/1.
    record = parse_record(header_variant(text, "rng", None), "x.rec")
    assert replay(record).digest() == record.headers["final-digest"]


# ------------------------------------------------------------------------------ CLI
def test_cli_play_record_then_replay(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "game.rec"
    code = main(
        [
            "play",
            "--course",
            "tiny",
            "--bots",
            "random,random,random",
            "--seed",
            "3",
            "--max-rounds",
            "6",
            "--record",
            str(path),
        ]
    )
    out = capsys.readouterr().out
    assert code == 0
    assert f"Record written to {path}" in out
    record = load_record(path)
    assert record.filename == str(path)
    digest = record.headers["final-digest"]
    assert record.headers["seed"] == seed_text(3) and record.headers["max-rounds"] == "6"
    assert record.headers["seed-commitment"] == seed_commitment(3)

    code = main(["replay", str(path)])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    assert f"state digest: {digest}" in captured.out
    result = record.headers["result"]
    assert result in captured.out


def test_cli_replay_of_a_bad_record(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _, text = a_record()
    bad, number = tamper(text, first_program(text), "move3 move3 move3 move3 move3")
    path = tmp_path / "bad.rec"
    path.write_text(bad, encoding="utf-8")
    assert main(["replay", str(path)]) == 2
    err = capsys.readouterr().err
    assert f"{path}:{number}: " in err


def test_record_decisions_are_named_after_their_position() -> None:
    game, text = a_record(seed=7, max_rounds=8)
    pattern = re.compile(
        r"^(t0-p[1-6]-(start_space|block_start)"
        r"|t\d+-p[1-6]-(program|shutdown)"
        r"|t\d+-p[1-6]-(upgrade|program_window|memory_cards)-\d+"
        r"|t\d+-r[0-5]-p[1-6]-[a-z_]+(-p[1-6])?(-\d+)?"
        r"|t\d+-r[1-5]-p[1-6]-(reboot_facing|card_order|sidestep-\d+))$"
    )
    for _, line in body_lines(text):
        decision_id, seat = line.split()[:2]
        assert pattern.match(decision_id), decision_id
        assert f"-p{seat[1:]}-" in decision_id
    assert len(body_lines(text)) == len(game.actions)


def test_decode_choice_by_kind() -> None:
    def d(kind: DecisionKind) -> Decision:
        return Decision("x", 0, kind, "")

    assert decode_choice(d(DecisionKind.PROGRAM), ["move1", "-", "again", "u_turn", "-"]) == (
        "move1",
        None,
        "again",
        "u_turn",
        None,
    )
    assert decode_choice(d(DecisionKind.SHUTDOWN), ["yes"]) is True
    assert decode_choice(d(DecisionKind.SHUTDOWN), ["no"]) is False
    assert decode_choice(d(DecisionKind.START_SPACE), ["4"]) == 4
    assert decode_choice(d(DecisionKind.BLOCK_START), ["6"]) == 6
    assert decode_choice(d(DecisionKind.CARD_ORDER), ["1", "0"]) == (1, 0)
    assert decode_choice(d(DecisionKind.REBOOT_FACING), ["W"]) == "W"
    assert decode_choice(d(DecisionKind.SIDESTEP), ["RIGHT"]) == "RIGHT"
    for kind in DecisionKind:
        assert decode_choice(d(kind), ["timeout"]) == TIMEOUT
    assert encode_choice(("move1", None, "again", "u_turn", None)) == "move1 - again u_turn -"
    assert encode_choice(True) == "yes" and encode_choice(False) == "no"
    assert encode_choice((1, 0)) == "1 0"


# -------------------------------------------------------------------------- the docs
DOC = Path(__file__).resolve().parent.parent / "docs" / "record-format.md"


def doc_blocks(kind: str) -> list[str]:
    return re.findall(rf"```{kind}\n(.*?)```", DOC.read_text(encoding="utf-8"), re.S)


def test_the_documented_example_replays() -> None:
    (example,) = doc_blocks("record")
    record = parse_record(example, "docs/record-format.md")
    game = replay(record)
    assert record.errors == []
    assert game.digest() == record.headers["final-digest"]
    assert game.outcome() is not None
    assert game.outcome().result_text(game.config.players) == record.headers["result"]


def test_the_documented_example_is_what_the_documented_code_writes(
    capsys: pytest.CaptureFixture[str],
) -> None:
    (example,) = doc_blocks("record")
    (code,) = doc_blocks("python")
    exec(compile(code, "docs/record-format.md", "exec"), {})
    assert capsys.readouterr().out == example, (
        "the engine now plays this game differently: regenerate the example in"
        " docs/record-format.md with the code block below it"
    )
