"""Every scenario in tests/scenarios passes, and each one cites the rulebook lines it checks."""

from __future__ import annotations

from pathlib import Path

import pytest

from roborally.content.scenario import load_scenario, run_scenario

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
    from roborally.content.scenario import ScenarioError

    text = EXAMPLE.read_text(encoding="utf-8")
    assert replace in text
    broken = tmp_path / "bad.scenario"
    broken.write_text(text.replace(replace, by, 1), encoding="utf-8")
    with pytest.raises(ScenarioError) as caught:
        load_scenario(broken)
    first = str(caught.value)
    assert first.startswith(f"{broken}:")
    assert "\n" not in first
    assert message in first, first
    _, line, column, _ = first.split(":", 3)
    assert int(line) >= 1 and int(column) >= 1


def test_unanswered_decision_is_reported(tmp_path: Path) -> None:
    text = """scenario: reboot facing must be answered
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
    path = tmp_path / "unanswered.scenario"
    path.write_text(text, encoding="utf-8")
    result = run_scenario(load_scenario(path))
    assert not result.ok
    assert "gives no 'answer A reboot_facing:' line" in result.failures[0]
