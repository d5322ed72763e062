"""docs/rl.md: every Python block runs (the training example with few episodes), the action
table matches ``roborally.rl.encoding.BLOCKS``, and the learning curve it shows is checked in."""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

import pytest

pytest.importorskip("pettingzoo")

from roborally.rl.encoding import BLOCKS, NUM_ACTIONS

DOCS = Path(__file__).parent.parent / "docs"
PAGE = (DOCS / "rl.md").read_text(encoding="utf-8")
BLOCKS_OF_CODE = re.findall(r"```python\n(.*?)```", PAGE, re.S)


@pytest.mark.parametrize("index", range(len(BLOCKS_OF_CODE)))
def test_the_python_blocks_run(index: int, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RL_EXAMPLE_EPISODES", "48")  # the training example, shortened
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(BLOCKS_OF_CODE[index], f"docs/rl.md block {index + 1}", "exec"), {})
    if index == len(BLOCKS_OF_CODE) - 1:
        lines = out.getvalue().splitlines()
        assert lines[0].split() == ["episodes", "mean", "return", "win", "rate", "checkpoints"]
        assert len(lines) == 9  # eight blocks of six episodes


def test_the_action_table_matches_the_numbering() -> None:
    rows = re.findall(r"^\| `(\w+)` \| (\d+)(?:-(\d+))? \|", PAGE, re.M)
    table = [(name, int(first), int(last or first)) for name, first, last in rows]
    assert table == [(name, start, start + size - 1) for name, start, size, _ in BLOCKS]
    assert f"Discrete({NUM_ACTIONS})" in PAGE


def test_the_learning_curve_is_checked_in() -> None:
    assert (DOCS / "rl-curve.svg").read_text(encoding="utf-8").startswith("<svg")
    text = (DOCS / "rl-curve.txt").read_text(encoding="utf-8")
    means = [float(line.split()[1]) for line in text.splitlines()[2:]]
    assert len(means) == 8 and means[-1] > means[0]
