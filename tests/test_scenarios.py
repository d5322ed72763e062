"""Every scenario in tests/scenarios passes, and each one cites the rulebook lines it checks."""

from __future__ import annotations

from pathlib import Path

import pytest

from roborally.content.scenario import ScenarioError, load_scenario, run_scenario

SCENARIOS = sorted((Path(__file__).parent / "scenarios").rglob("*.scenario"))


@pytest.mark.parametrize("path", SCENARIOS, ids=[p.stem for p in SCENARIOS])
def test_scenario(path: Path) -> None:
    scenario = load_scenario(path)
    assert scenario.name, f"{path}: give the scenario a 'scenario:' line"
    assert scenario.cites, f"{path}: cite the rulebook lines it checks ('cites: 000: 226')"
    result = run_scenario(scenario)
    assert result.ok, "\n".join(result.failures)


def test_there_are_scenarios() -> None:
    assert len(SCENARIOS) >= 1


EXAMPLE = Path(__file__).parent / "scenarios" / "belt-blue-two-steps.scenario"


def _scenario_error(source: Path, path: Path, replace: str, by: str, *, run: bool) -> ScenarioError:
    """The error of ``source`` with ``replace`` written as ``by`` (loaded, and run if ``run``)."""
    text = source.read_text(encoding="utf-8")
    assert replace in text
    path.write_text(text.replace(replace, by, 1), encoding="utf-8")
    with pytest.raises(ScenarioError) as caught:
        scenario = load_scenario(path)
        if run:
            run_scenario(scenario)
    return caught.value


def test_a_wrong_expectation_fails_with_a_clear_diff(tmp_path: Path) -> None:
    text = EXAMPLE.read_text(encoding="utf-8").replace("expect A at: 3,0 W", "expect A at: 4,0 W")
    broken = tmp_path / "wrong.scenario"
    broken.write_text(text, encoding="utf-8")
    result = run_scenario(load_scenario(broken))
    assert not result.ok
    line = text.splitlines().index("expect A at: 4,0 W") + 1
    assert result.failures[0].startswith(f"{broken}:{line}: expect A at: 4,0 W")
    assert "expected: 4,0 W" in result.failures[0]
    assert "actual:   3,0 W" in result.failures[0]


def test_a_missing_event_prints_the_actual_events(tmp_path: Path) -> None:
    text = EXAMPLE.read_text(encoding="utf-8").replace(
        "A conveyed 2,0 -> 3,0", "A conveyed 2,0 -> 9,0"
    )
    broken = tmp_path / "events.scenario"
    broken.write_text(text, encoding="utf-8")
    result = run_scenario(load_scenario(broken))
    assert "expected event not found (in order): A conveyed 2,0 -> 9,0" in result.failures[0]
    assert "A conveyed 2,0 -> 3,0 by blue belt" in result.failures[0]


@pytest.mark.parametrize(
    ("replace", "by", "message"),
    [
        ("robot B: 3,1 E", "robot B: 3;1 E", "robot B: expected 'x,y FACING' or 'off board'"),
        ("run: register 1", "run: register 7", "register range '7' must lie within 1-5"),
        ("program A: rotate_left - - - -", "program A: rotate_left - -", "a program has 5"),
        ("program B:", "program Q:", "program for undeclared robot Q"),
        ("expect A at:", "expect A colour:", "unknown expectation 'colour'"),
        ("rule: 6.1", "rules: 6.1", "unknown key 'rules'"),
        ("end board", "end bored", "board: block has no 'end board' line"),
        ("0 | .   >>", "0 | .   Q ", "unknown cell code 'Q'"),
        ("robot A: 1,0 N\n", "robot A: 1,0 N\n  wings 2\n", "unknown robot attribute 'wings'"),
    ],
)
def test_malformed_scenarios_name_file_line_and_column(
    tmp_path: Path, replace: str, by: str, message: str
) -> None:
    broken = tmp_path / "bad.scenario"
    first = str(_scenario_error(EXAMPLE, broken, replace, by, run=False))
    assert first.startswith(f"{broken}:")
    assert "\n" not in first
    assert message in first, first
    _, line, column, _ = first.split(":", 3)
    assert int(line) >= 1 and int(column) >= 1


REENTRY = """scenario: reboot facing must be answered
cites: 000: 667
board:
size: 3x1
    0   1   2
  +---+---+---+
0 | .   R>  . |
  +---+---+---+
end board
robot A: off board
  reenters at 1,0 E
program A: move1 - - - -
run: register 1
expect A at: 2,0 E
"""


def test_unanswered_decision_is_reported(tmp_path: Path) -> None:
    text = REENTRY
    path = tmp_path / "unanswered.scenario"
    path.write_text(text, encoding="utf-8")
    result = run_scenario(load_scenario(path))
    assert not result.ok
    assert "gives no 'answer A reboot_facing:' line" in result.failures[0]


BAD_ANSWER = REENTRY.replace("run: register 1", "answer A reboot_facing: Q\nrun: register 1")

BAD_POSITION = """scenario: a program card that does not exist
cites: 001: 96
edition: classic
board:
size: 2x1
    0   1
  +---+---+
0 | .   . |
  +---+---+
end board
robot A: 0,0 E
robot B: 1,0 E
program A: move9 - - - -
run: register 1
expect A at: 0,0 E
"""

ILLEGAL_REENTRY = Path(__file__).parent / "scenarios" / "classic-reentry-archive-occupied.scenario"


def test_cli_reports_scenarios_that_cannot_run_and_goes_on(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from roborally.cli import main

    (tmp_path / "a-bad-answer.scenario").write_text(BAD_ANSWER, encoding="utf-8")
    (tmp_path / "b-bad-position.scenario").write_text(BAD_POSITION, encoding="utf-8")
    illegal = ILLEGAL_REENTRY.read_text(encoding="utf-8")
    assert "answer A reboot_facing: 3,2 E" in illegal
    illegal = illegal.replace("answer A reboot_facing: 3,2 E", "answer A reboot_facing: 3,2 W")
    (tmp_path / "c-illegal-facing.scenario").write_text(illegal, encoding="utf-8")
    good = tmp_path / "d-good.scenario"
    good.write_text(EXAMPLE.read_text(encoding="utf-8"), encoding="utf-8")
    files = sorted(str(p) for p in tmp_path.glob("*.scenario"))
    assert main(["scenario", "-v", *files]) == 1
    out = capsys.readouterr()
    assert "Traceback" not in out.out + out.err
    lines = out.out.splitlines()

    def line_of(text: str, wanted: str) -> int:
        return text.splitlines().index(wanted) + 1

    answer_line = line_of(BAD_ANSWER, "answer A reboot_facing: Q")
    program_line = line_of(BAD_POSITION, "program A: move9 - - - -")
    facing_line = line_of(illegal, "answer A reboot_facing: 3,2 W")
    assert any(
        line.startswith(f"ERROR {files[0]}:{answer_line}:") and "not a direction: 'Q'" in line
        for line in lines
    ), out.out
    assert any(
        line.startswith(f"ERROR {files[1]}:{program_line}:") and "'move9'" in line for line in lines
    ), out.out
    assert any(
        line.startswith(f"ERROR {files[2]}:{facing_line}:") and "'3,2 W' is not a legal" in line
        for line in lines
    ), out.out
    assert f"ok   {files[3]}: " + load_scenario(EXAMPLE).name in lines
    assert lines[-1] == "1 passed, 3 failed"


def test_an_illegal_answer_raises_a_scenario_error_naming_its_line(tmp_path: Path) -> None:
    from roborally.content.scenario import ScenarioError

    path = tmp_path / "bad.scenario"
    path.write_text(BAD_ANSWER, encoding="utf-8")
    with pytest.raises(ScenarioError) as caught:
        run_scenario(load_scenario(path))
    assert caught.value.line == BAD_ANSWER.splitlines().index("answer A reboot_facing: Q") + 1
    assert "the game refuses this answer" in caught.value.message


SHUTDOWN = Path(__file__).parent / "scenarios" / "reboot-shutdown-declared-at-run-start.scenario"


@pytest.mark.parametrize(
    ("replace", "by", "message"),
    [
        ("run: registers 1-2", "run: registers 2-3", "'declares shutdown' needs a run from"),
        ("run: registers 1-2", "run: round", "write 'answer A shutdown: yes' instead"),
        ("  declares shutdown\n", "  declares shutdown\n  shutdown\n", "exclude each other"),
    ],
)
def test_declares_shutdown_needs_a_run_from_register_1(
    tmp_path: Path, replace: str, by: str, message: str
) -> None:
    error = _scenario_error(SHUTDOWN, tmp_path / "shutdown.scenario", replace, by, run=True)
    text = SHUTDOWN.read_text(encoding="utf-8")
    assert error.line == text.splitlines().index("  declares shutdown") + 1
    assert message in error.message


def test_partial_list_checks_show_the_whole_list(tmp_path: Path) -> None:
    text = SHUTDOWN.read_text(encoding="utf-8")
    text = text.replace(
        "expect A discard does not contain: spam", "expect A discard contains: spam"
    )
    text = text.replace("expect A deck top: move1 move1", "expect A deck top: spam")
    text = text.replace("expect space 1,2: empty", "expect space 1,1: empty")
    path = tmp_path / "lists.scenario"
    path.write_text(text, encoding="utf-8")
    failures = "\n".join(run_scenario(load_scenario(path)).failures)
    assert "expect A discard contains: spam\n    expected: spam\n    actual:   " in failures
    assert "u_turn" in failures and "(no spam)" in failures
    assert "expected: spam\n    actual:   move1" in failures
    assert "expect space 1,1: empty\n    expected: empty\n    actual:   A" in failures


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("expect space 1;2: empty", "'1;2' is not a square x,y"),
        ("run: rounds 0", "run: expects 'register N'"),
        ("run: deal then round", "'round then deal'"),
    ],
)
def test_new_lines_are_checked(tmp_path: Path, line: str, message: str) -> None:
    from roborally.content.scenario import ScenarioError

    path = tmp_path / "bad.scenario"
    path.write_text(EXAMPLE.read_text(encoding="utf-8") + line + "\n", encoding="utf-8")
    with pytest.raises(ScenarioError) as caught:
        load_scenario(path)
    assert message in caught.value.message


# ------------------------------------------- malformed positions: one ERROR line, no traceback
PAIR = """scenario: two cards in one register
cites: 001: 109-112
edition: classic
board:
size: 3x3
    0   1   2
  +---+---+---+
0 | .   .   . |
  +   +   +   +
1 | .   .   . |
  +   +   +   +
2 | .   .   . |
  +---+---+---+
end board
robot Ada: 1,1 N
robot Bo: 2,2 N
program Ada: move1@490+rotate_left@70 - - - -
run: register 1
expect Ada at: 0,1 N
"""
ADA = "robot Ada: 1,1 N\n"
ADA_PAIR = "move1@490+rotate_left@70"


def _edited(text: str, edits: tuple[tuple[str, str], ...]) -> str:
    for old, new in edits:
        assert old in text, old
        text = text.replace(old, new, 1)
    return text


def _cli_error(tmp_path: Path, text: str, capsys: pytest.CaptureFixture[str]) -> str:
    """Run ``roborally scenario`` on ``text``: it must fail (exit status 1) with one ERROR
    line and no traceback; returns that line after the file name (``LINE:COLUMN: ...``)."""
    from roborally.cli import main

    path = tmp_path / "bad.scenario"
    path.write_text(text, encoding="utf-8")
    assert main(["scenario", str(path)]) == 1
    out = capsys.readouterr()
    assert "Traceback" not in out.out + out.err
    errors = [line for line in out.out.splitlines() if line.startswith("ERROR ")]
    assert len(errors) == 1, out.out
    assert errors[0].startswith(f"ERROR {path}:"), errors[0]
    return errors[0][len(f"ERROR {path}:") :]


def _line_of(text: str, start: str) -> int:
    return next(i for i, line in enumerate(text.splitlines(), 1) if line.startswith(start))


def test_a_classic_pair_without_crab_legs_or_dual_processor_names_its_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    error = _cli_error(tmp_path, PAIR, capsys)
    line = _line_of(PAIR, "program Ada:")
    assert error == f"{line}:1: a '+' pair needs Crab Legs or Dual Processor; Ada has neither"


@pytest.mark.parametrize(
    ("edits", "at", "message"),
    [
        (  # Crab Legs pairs only a Move 1 with a Rotate Left or Right
            ((ADA, ADA + "  options crab_legs\n"), (ADA_PAIR, "move2@670+rotate_left@70")),
            "program Ada:",
            "move2@670+rotate_left@70 is not a pair Ada's options allow",
        ),
        (  # Dual Processor pairs a move with a turn
            ((ADA, ADA + "  options dual_processor\n"), (ADA_PAIR, "move1@490+move2@670")),
            "program Ada:",
            "move1@490+move2@670 is not a pair Ada's options allow",
        ),
        (
            ((ADA, ADA + "  options dual_processor\n"), (ADA_PAIR, ADA_PAIR + "+move2")),
            "program Ada:",
            "move1@490+rotate_left@70+move2@670: at most two cards share a register",
        ),
        (  # a locked register's pair, checked against the options listed after it
            ((ADA, ADA + "  register 5 move3+u_turn\n  options crab_legs\n"),),
            "  register 5",
            "move3@790+u_turn@10 is not a pair Ada's options allow",
        ),
    ],
)
def test_a_classic_pair_the_options_do_not_allow_names_its_line(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    edits: tuple[tuple[str, str], ...],
    at: str,
    message: str,
) -> None:
    text = _edited(PAIR, edits)
    error = _cli_error(tmp_path, text, capsys)
    assert error.startswith(f"{_line_of(text, at)}:1: "), error
    assert message in error


A = "robot A: 1,0 N\n"
A_PROGRAM = "program A: rotate_left"


@pytest.mark.parametrize(
    ("edits", "at", "message"),
    [
        (
            ((A_PROGRAM, "program A: move1+rotate_left"),),
            "program A:",
            "a '+' pair needs Crab Legs; A does not hold it",
        ),
        (
            ((A, A + "  upgrades crab_legs\n"), (A_PROGRAM, "program A: move1+move2")),
            "program A:",
            "'move1+move2' is not a Crab Legs pair",
        ),
        (((A, A + "  energy lots\n"),), "  energy", "energy: 'lots' is not a whole number"),
        (((A, A + "  checkpoint x\n"),), "  checkpoint", "checkpoint: 'x' is not"),
        (((A, A + "  haywire in 9 spam\n"),), "  haywire", "the registers are 1 to 5"),
        (((A, A + "  haywire in x spam\n"),), "  haywire", "haywire in: 'x' is not"),
        (((A, A + "  reenters at 1;0 N\n"),), "  reenters", "'reenters at x,y ARROW'"),
        (((A, A + "  reenters at 9,0 N\n"),), "robot A:", "re-enters at 9,0, outside"),
        ((("robot A: 1,0 N", "robot A: 9,9 N"),), "robot A:", "stands on 9,9, outside the 6x2"),
        ((("run:", "seed: x\nrun:"),), "seed:", "seed: 'x' is not a whole number"),
        ((("run:", "round: 2nd\nrun:"),), "round:", "round: '2nd' is not a whole number"),
        ((("expect A at:", "expect energy: 3\nexpect A at:"),), "expect energy", "name the"),
        ((("expect A at:", "expect A lives: 3\nexpect A at:"),), "expect A lives", "classic"),
    ],
)
def test_malformed_values_name_their_line(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    edits: tuple[tuple[str, str], ...],
    at: str,
    message: str,
) -> None:
    text = _edited(EXAMPLE.read_text(encoding="utf-8"), edits)
    error = _cli_error(tmp_path, text, capsys)
    assert error.startswith(f"{_line_of(text, at)}:1: "), error
    assert message in error


SEAM = Path(__file__).parent / "scenarios" / "course-reboot-on-the-board-fallen-from.scenario"
TINY = Path(__file__).parent / "scenarios" / "course-seam-is-no-edge.scenario"


@pytest.mark.parametrize(
    ("source", "edits", "at", "message"),
    [
        (TINY, (("course: tiny", "course: tinny"),), "course:", "no shipped course 'tinny'"),
        (TINY, (("course: tiny", "course: cl-tune-up"),), "course:", "of the classic edition"),
        (TINY, (("course: tiny", "course:"),), "course:", "needs a shipped course's id"),
        (
            TINY,
            (("course: tiny", "course: tiny\ncourse: tiny"),),
            "course: tiny\ncourse",
            "one board: block or one course: line",
        ),
        (SEAM, (("course: courses/", "course: missing/"),), "course:", "cannot read"),
        (SEAM, (("board seam-east:", "board seam-west:"),), "board seam-west:#2", "drawn twice"),
        (SEAM, (("board seam-east:", "board other:"),), "course:", "unknown board 'seam-east'"),
        (
            SEAM,
            (("course: courses/two-factories.course", "course: tiny"),),
            "course:",
            "a shipped course keeps its boards",
        ),
        (SEAM, (("robot A: 2,1 E", "robot A: 6,1 E"),), "robot A:", "outside the 6x3 course's"),
    ],
)
def test_a_course_line_names_what_is_wrong(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    source: Path,
    edits: tuple[tuple[str, str], ...],
    at: str,
    message: str,
) -> None:
    """``course:`` scenarios (several boards and a dock) fail at the line at fault, in words."""
    text = _edited(source.read_text(encoding="utf-8"), edits)
    (tmp_path / "courses").mkdir()
    for course in (SEAM.parent / "courses").iterdir():
        (tmp_path / "courses" / course.name).write_text(course.read_text(encoding="utf-8"))
    error = _cli_error(tmp_path, text, capsys)
    start, _, nth = at.partition("#")  # '#2': the second line starting so
    lines = [
        i for i, row in enumerate(text.splitlines(), 1) if row.startswith(start.split("\n")[0])
    ]
    line = lines[int(nth or 1) - 1] + start.count("\n")
    assert error.startswith(f"{line}:1: "), error
    assert message in error, error
