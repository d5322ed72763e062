"""``docs/install.md``: its Python examples run, its extras are the project's, and the messages
it shows are the ones the command line prints."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest

import roborally
from roborally.extras import EXTRAS, MissingExtra

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "install.md"


def text() -> str:
    return DOC.read_text(encoding="utf-8")


def blocks(language: str) -> list[str]:
    return re.findall(rf"```{language}\n(.*?)```", text(), re.S)


@pytest.mark.parametrize("number", range(len(blocks("python"))))
def test_doc_example_runs(number: int, capsys: pytest.CaptureFixture[str]) -> None:
    code = compile(blocks("python")[number], f"docs/install.md block {number + 1}", "exec")
    exec(code, {"__name__": f"install_doc_{number}"})
    assert capsys.readouterr().out  # each example prints what it shows


def test_the_extras_are_the_projects() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    extras = set(project["optional-dependencies"])
    section = text().split("## The extras", 1)[1].split("\n## ", 1)[0]
    documented = set(re.findall(r"^\| `(\w+)`", section, re.M))
    assert documented == extras == {*EXTRAS, "all"}
    for extra in extras:
        assert f"pip install 'roborally[{extra}]'" in blocks("sh")[0]


def test_the_shown_messages_are_the_real_ones() -> None:
    shown = [line for line in blocks("text")[0].splitlines() if not line.startswith("$")]
    assert shown == [
        f"roborally serve: {MissingExtra('the game server', 'server', 'missing: starlette')}",
        f"roborally render: {MissingExtra('PNG output', 'png', 'missing: cairosvg')}",
    ]


def test_the_api_table_names_exist() -> None:
    table = text().split("## The top-level API", 1)[1]
    rows = [line for line in table.split("```python", 1)[0].splitlines() if line.startswith("|")]
    found = {name for row in rows[2:] for name in re.findall(r"`(\w+)", row.split("|")[1])}
    assert {"Game", "GameConfig", "Action", "find_course", "make_bot", "api"} <= found
    assert found <= set(roborally.__all__)
