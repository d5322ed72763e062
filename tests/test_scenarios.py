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
