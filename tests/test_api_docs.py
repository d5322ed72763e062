"""``docs/api.md``: every Python example runs (in order, sharing nothing), the reference table
names what ``roborally.api`` exports, and the API module's own doctests pass."""

from __future__ import annotations

import doctest
import re
from pathlib import Path

import pytest

import roborally.api

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
def test_doc_example_runs(number: int, capsys: pytest.CaptureFixture[str]) -> None:
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
