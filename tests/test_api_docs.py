"""``docs/api.md``: every Python example runs (in order, sharing nothing), the reference table
names what ``roborally.api`` exports, and the API module's own doctests pass."""

from __future__ import annotations

import doctest
import random
import re
from pathlib import Path
from typing import Any

import pytest

import roborally.api
from roborally.engine.core.decisions import Decision, DecisionKind
from roborally.engine.core.geometry import Direction, Pos

ROOT = Path(__file__).parent.parent
DOC = ROOT / "docs" / "api.md"


def blocks() -> list[str]:
    return re.findall(r"```python\n(.*?)```", DOC.read_text(encoding="utf-8"), re.S)


def test_the_doc_has_examples_and_a_custom_bot() -> None:
    found = blocks()
    assert len(found) >= 4
    custom = next(b for b in found if "class GreedyBot" in b)
    bot = custom[custom.index("class GreedyBot") : custom.index("api.register_bot")]
    assert len(bot.strip().splitlines()) <= 30, "the custom bot should stay a 30-line example"
    assert "run_tournament" in custom


@pytest.mark.parametrize("number", range(len(blocks())))
def test_doc_example_runs(
    number: int,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.chdir(tmp_path)  # an example may write files (the drawing does)
    code = compile(blocks()[number], f"docs/api.md block {number + 1}", "exec")
    exec(code, {"__name__": f"api_doc_{number}"})
    capsys.readouterr()


def test_reference_table_matches_the_module() -> None:
    text = DOC.read_text(encoding="utf-8")
    for name in (
        "new_game",
        "pending",
        "legal_choices",
        "apply",
        "clone",
        "observe",
        "play",
        "steps",
        "board",
        "register_bot",
        "run_tournament",
        "make_bot",
    ):
        assert f"`{name}(" in text, name
        assert name in roborally.api.__all__, name


def test_api_doctests() -> None:
    result = doctest.testmod(roborally.api, optionflags=doctest.ELLIPSIS)
    assert result.attempted > 5 and result.failed == 0


# ---------------------------------------------------------------- the reference sections
def section(title: str) -> str:
    """The text of the doc's section ``## title`` (up to the next ``## ``)."""
    text = DOC.read_text(encoding="utf-8")
    start = text.index(f"\n## {title}\n")
    end = text.find("\n## ", start + 1)
    return text[start : end if end != -1 else len(text)]


def table_keys(text: str) -> list[set[str]]:
    """The backquoted names in the first column of each table of ``text``, table by table."""
    tables: list[set[str]] = []
    in_table = False
    for line in text.splitlines():
        if line.startswith("| key |"):
            tables.append(set())
            in_table = True
        elif in_table and line.startswith("|") and not line.startswith("|---"):
            tables[-1].update(re.findall(r"`([^`]+)`", line.split("|")[1]))
        elif not line.startswith("|"):
            in_table = False
    return tables


def documented_observation_keys() -> dict[str, set[str]]:
    top, player, register, classic_top, classic_player = table_keys(section("Observations"))
    return {
        "top": top,
        "player": player,
        "register": register,
        "classic_top": classic_top,
        "classic": classic_player,
    }


#: Games that reach many kinds of observations: both editions, upgrades, competitive start,
#: falls, reboots, destroyed classic robots, power downs.
GAMES = [
    ("2023", "y23-rush-hour", ("random", "random", "planner", "random"), (), 3),
    ("2023", "y23-dangerous-turns", ("random", "expert", "random"), ("competitive_start",), 5),
    ("2023", "tiny", ("random", "random"), ("lighter", "less_spam"), 8),
    ("classic", "cl-tune-up", ("random", "planner", "random", "random"), (), 2),
    ("classic-1994", "cl-tune-up", ("random", "random", "planner"), (), 4),
]


def played_observations() -> tuple[list[tuple[str, dict[str, Any]]], list[Decision]]:
    """Observations (own seats and a spectator) after every answer of real games, and every
    decision those games asked."""
    observations: list[tuple[str, dict[str, Any]]] = []
    decisions: list[Decision] = []
    for edition, course, kinds, variants, seed in GAMES:
        game = roborally.api.new_game(
            course, len(kinds), seed, edition, variants=variants, max_rounds=12
        )
        bots = roborally.api.bots_for(kinds, seed=seed)
        for step in roborally.api.steps(game, bots):
            decisions.append(step.decision)
            for seat in (step.decision.seat, None):
                observations.append((edition, roborally.api.observe(game, seat)))
    return observations, decisions


@pytest.fixture(scope="module")
def played() -> tuple[list[tuple[str, dict[str, Any]]], list[Decision]]:
    return played_observations()


def test_every_observation_key_is_documented(
    played: tuple[list[tuple[str, dict[str, Any]]], list[Decision]],
) -> None:
    doc = documented_observation_keys()
    seen: dict[str, set[str]] = {name: set() for name in doc}
    for edition, obs in played[0]:
        classic = edition != "2023"
        top = set(obs)
        if classic:
            extra = top - doc["top"]
            assert extra <= doc["classic_top"], (
                f"{edition}: undocumented {extra - doc['classic_top']}"
            )
            seen["classic_top"] |= extra
        else:
            assert top <= doc["top"], f"2023: undocumented top-level keys {top - doc['top']}"
        seen["top"] |= top & doc["top"]
        for entry in obs["players"]:
            keys = set(entry) - ({"classic"} if classic else set())
            assert keys <= doc["player"], f"{edition}: undocumented {keys - doc['player']}"
            seen["player"] |= keys
            if classic:
                assert set(entry["classic"]) <= doc["classic"], set(entry["classic"])
                seen["classic"] |= set(entry["classic"])
            for register in entry["registers"]:
                assert set(register) <= doc["register"], set(register) - doc["register"]
                seen["register"] |= set(register)
        for pending in obs["pending"]:
            assert set(pending) == {
                *("id", "seat", "kind", "prompt", "prompt_key", "prompt_args"),
                *("options", "default", "info"),
            }
    for name, keys in doc.items():
        assert keys <= seen[name], f"the doc lists {keys - seen[name]} ({name}), never seen"


def test_every_decision_kind_is_documented(
    played: tuple[list[tuple[str, dict[str, Any]]], list[Decision]],
) -> None:
    rows = {
        line.split("|")[1].strip().strip("`"): line
        for line in section("Decisions").splitlines()
        if line.startswith("| `")
    }
    for kind in DecisionKind:
        assert kind.value in rows, f"decision kind {kind.value} is not in the doc's table"
    for decision in played[1]:
        info_cell = rows[decision.kind.value].split("|")[5]
        for key in decision.info:
            assert f"`{key}`" in info_cell, f"{decision.kind.value}: info key {key} undocumented"
    asked = {d.kind for d in played[1]}
    assert asked >= {
        DecisionKind.START_SPACE,
        DecisionKind.BLOCK_START,
        DecisionKind.PROGRAM,
        DecisionKind.SHUTDOWN,
        DecisionKind.UPGRADE_PHASE,
        DecisionKind.UPGRADE,
        DecisionKind.POWER_DOWN,
        DecisionKind.CHOICE,
        DecisionKind.REBOOT_FACING,
    }, asked


def test_locked_registers_count_from_one(
    played: tuple[list[tuple[str, dict[str, Any]]], list[Decision]],
) -> None:
    """What the doc's counting table says of ``info["locked"]``: register ``n`` is entry
    ``n - 1`` of the observation's registers and of a program."""
    counting = section("Counting: what starts at 0, what at 1")
    assert '`decision.info["locked"]`' in counting
    found = 0
    for edition, course, seed in (("classic", "cl-tune-up", 2), ("classic", "cl-tune-up", 3)):
        game = roborally.api.new_game(course, 6, seed, edition, max_rounds=12)
        bots = roborally.api.bots_for(["random"] * 6, seed=seed)
        for step in roborally.api.steps(game, bots):
            decision = step.decision
            if decision.kind is not DecisionKind.PROGRAM or not decision.info["locked"]:
                continue
            found += 1
            own = roborally.api.observe(game, decision.seat)["players"][decision.seat]
            for number in range(1, 6):
                locked = number in decision.info["locked"]
                assert own["registers"][number - 1]["locked"] is locked
                assert (step.choice[number - 1] is None) is locked
            program = roborally.api.random_program(decision, random.Random(1))
            assert [n for n in range(1, 6) if program[n - 1] is None] == decision.info["locked"]
    assert found, "no locked register in these games"


def test_positions_and_facings_convert() -> None:
    assert roborally.api.pos([4, 11]) == Pos(4, 11)
    assert roborally.api.pos(None) is None
    assert roborally.api.direction("N") is Direction.NORTH
    assert [roborally.api.direction(d).letter for d in "NESW"] == list("NESW")
    for name in ("pos", "direction", "random_program", "Pos", "Direction"):
        assert name in roborally.api.__all__, name
        assert f"`{name}" in section("Reference"), name


def run_block(marker: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    """Run the doc's example that contains ``marker`` in ``tmp_path``; returns its names."""
    block = next(b for b in blocks() if marker in b)
    monkeypatch.chdir(tmp_path)
    names: dict[str, Any] = {"__name__": "api_doc"}
    exec(compile(block, "docs/api.md", "exec"), names)
    return names


def test_the_tutorials_greedy_bot_beats_random(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    names = run_block('bots=["greedy", "random"]', tmp_path, monkeypatch)
    stats = names["result"].stats()
    assert stats["greedy"].games == 10 and names["result"].errors == []
    assert stats["greedy"].wins > stats["random"].wins
    assert stats["greedy"].win_rate >= 0.8
    printed = capsys.readouterr().out
    assert "{'greedy': 10, 'random': 0}" in printed  # what the doc's comment says


def test_the_picture_of_the_readme_is_drawn_as_the_doc_says(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    run_block("RobotMark(", tmp_path, monkeypatch)
    svg = (tmp_path / "race.svg").read_text(encoding="utf-8")
    assert svg.count('class="robot"') == 4, "four robots on the board"
    if (tmp_path / "race.png").exists():
        readme = ROOT / "docs" / "gallery" / "race-rush-hour.png"
        # PNG width and height (bytes 16-24): the same picture size as the README's.
        assert (tmp_path / "race.png").read_bytes()[16:24] == readme.read_bytes()[16:24]


def test_a_bot_module_plays_from_the_command_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The doc's ``PYTHONPATH=. roborally tournament --bots mybots:GreedyBot,random``."""
    from roborally.cli import main

    block = next(b for b in blocks() if "class GreedyBot" in b)
    (tmp_path / "mybots.py").write_text(block[: block.index("api.register_bot")], "utf-8")
    command = re.search(
        r"PYTHONPATH=\. (roborally tournament [^\n`]+)", section("The bot interface")
    )
    assert command is not None
    argv = command.group(1).split()[1:]
    monkeypatch.chdir(tmp_path)
    assert main(argv) != 0  # without PYTHONPATH the module is not found
    assert "no module named 'mybots'" in capsys.readouterr().err.lower()
    monkeypatch.syspath_prepend(str(tmp_path))  # PYTHONPATH=.
    assert main(argv) == 0
    assert "head to head (games won): mybots:GreedyBot 20 - 0 random" in capsys.readouterr().out
