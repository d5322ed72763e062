"""Tournaments finish whatever the bots do: a bot that raises, answers illegally, answers too late
or never returns gets the decision's default answer, the failure is counted against its kind
(table and JSON: errors and the first message) and every game goes on to its normal end."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from roborally.bots.random_bot import BOTS, RandomBot
from roborally.bots.tournament import run_tournament
from roborally.cli import main
from roborally.engine.core.decisions import Decision, DecisionKind

MOVE_TIME = 0.5  # generous: a loaded 2-core machine must not make a quick answer late


class RaisesOnThird(RandomBot):
    """Plays randomly but raises on its 3rd decision of every game."""

    name = "raiser"

    def __init__(self, seed: int = 0) -> None:
        super().__init__(seed)
        self.asked = 0

    def choose(self, observation: dict[str, Any], decision: Decision) -> Any:
        self.asked += 1
        if self.asked == 3:
            raise RuntimeError("boom on the third decision")
        return super().choose(observation, decision)


class Illegal(RandomBot):
    """Programs cards it does not hold."""

    name = "illegal"

    def choose(self, observation: dict[str, Any], decision: Decision) -> Any:
        if decision.kind is DecisionKind.PROGRAM:
            return ("move3",) * 5 if "move3" not in decision.info["hand"] else ("nothing",) * 5
        return super().choose(observation, decision)


class Slow(RandomBot):
    """Takes longer than the limit over its first two programs of a game."""

    name = "slow"

    def __init__(self, seed: int = 0) -> None:
        super().__init__(seed)
        self.programs = 0

    def choose(self, observation: dict[str, Any], decision: Decision) -> Any:
        if decision.kind is DecisionKind.PROGRAM:
            self.programs += 1
            self.think()
        return super().choose(observation, decision)

    def think(self) -> None:
        if self.programs <= 2:
            time.sleep(1.2 * MOVE_TIME)


class Stuck(Slow):
    """Never returns from its first program decision (a busy loop)."""

    name = "stuck"

    def think(self) -> None:
        while self.programs == 1:
            pass


@pytest.fixture
def misbehaving() -> Iterator[None]:
    kinds = {"raiser": RaisesOnThird, "illegal": Illegal, "slow": Slow, "stuck": Stuck}
    BOTS.update(kinds)
    try:
        yield
    finally:
        for kind in kinds:
            del BOTS[kind]


def test_misbehaving_bots_cannot_stop_a_tournament(misbehaving: None) -> None:
    began = time.perf_counter()
    result = run_tournament(
        "2023",
        "tiny",
        ["raiser", "illegal", "slow", "stuck", "random"],
        games=5,
        seed=3,
        max_rounds=4,
        move_time=MOVE_TIME,
    )
    assert time.perf_counter() - began < 60
    assert result.errors == [] and len(result.games) == 5
    for game in result.games:
        assert game.termination in ("checkpoints", "round_limit"), game.error
        assert game.rounds >= 1
    stats = result.stats()
    assert stats["raiser"].failures == 5
    assert "boom on the third decision" in (stats["raiser"].first_failure or "")
    assert stats["illegal"].failures >= 5
    assert "illegal answer" in (stats["illegal"].first_failure or "")
    assert stats["slow"].failures == 10
    assert "timed out: took" in (stats["slow"].first_failure or "")
    assert stats["stuck"].failures == 5
    assert "still thinking after" in (stats["stuck"].first_failure or "")
    assert stats["random"].failures == 0 and stats["random"].first_failure is None
    table = result.table()
    assert "errors" in table.splitlines()[0]
    assert "raiser: 5 answer(s) replaced by the default; first: game 1:" in table
    rows = {row["bot"]: row for row in result.to_json()["per_bot"]}
    assert rows["slow"]["errors"] == 10 and rows["random"]["errors"] == 0
    assert rows["raiser"]["first_error"].startswith("game 1: ")


def test_the_command_takes_a_time_limit(
    misbehaving: None, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "results.json"
    argv = ["tournament", "--bots", "slow,random", "--games", "2", "--max-rounds", "2"]
    argv += ["--move-time", str(MOVE_TIME), "--json", str(out), "-q"]
    assert main(argv) == 0
    printed = capsys.readouterr().out
    assert "slow: 4 answer(s) replaced by the default; first: game 1:" in printed
    data = json.loads(out.read_text())
    assert data["errors"] == 0
    assert {row["bot"]: row["errors"] for row in data["per_bot"]} == {"slow": 4, "random": 0}
    assert (
        data["games"][0]["failures"][0] == 2 and "timed out" in data["games"][0]["first_failure"][0]
    )
    with pytest.raises(SystemExit) as refused:  # a usage error, told in one line
        main(["tournament", "--bots", "random", "--games", "1", "--move-time", "-1", "-q"])
    assert refused.value.code == 2
    assert "--move-time: -1 is out of range" in capsys.readouterr().err
