"""The README's examples run and show what they print; the docs name files that exist."""

from __future__ import annotations

import doctest
import re
import shlex
from pathlib import Path

import pytest

from roborally.cli import main

ROOT = Path(__file__).parent.parent
README = ROOT / "README.md"


def readme_blocks(language: str) -> list[str]:
    """The README's fenced blocks of ``language`` (``""``: no language given)."""
    text = README.read_text(encoding="utf-8")
    return re.findall(rf"```{language}\n(.*?)```", text, re.S)


def test_readme_examples_run() -> None:
    blocks = readme_blocks("python")
    assert blocks, "the README has Python examples"
    parser = doctest.DocTestParser()
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    for number, block in enumerate(blocks):
        test = parser.get_doctest(block, {}, f"README block {number}", "README.md", 0)
        runner.run(test)
    assert runner.failures == 0


def first_game() -> tuple[str, str, str]:
    """The README's first game: its command, the output it shows, and the Python version."""
    fenced = re.findall(r"```(\w*)\n(.*?)```", README.read_text(encoding="utf-8"), re.S)
    at = next(i for i, (lang, b) in enumerate(fenced) if lang == "shell")
    command, shown = fenced[at][1], fenced[at + 1][1]
    assert command.startswith("roborally play ") and fenced[at + 1][0] == ""
    python = readme_blocks("python")[0]
    return command.strip(), shown, python


def test_the_first_game_in_the_readme_has_a_winner(capsys: pytest.CaptureFixture[str]) -> None:
    command, shown, _ = first_game()
    assert main(shlex.split(command)[1:]) == 0
    printed = capsys.readouterr().out
    assert shown.startswith("...\n"), "the README shows the end of what the command prints"
    assert printed.endswith(shown.removeprefix("...\n")), printed
    result = next(line for line in printed.splitlines() if line.startswith("Result after"))
    assert " wins " in result and "no winner" not in result


def test_the_python_first_game_prints_what_the_readme_says(
    capsys: pytest.CaptureFixture[str],
) -> None:
    _, _, python = first_game()
    said = python.strip().splitlines()[-1]
    assert said.startswith("# "), "the block ends with a comment showing its output"
    exec(compile(python, "README.md first Python block", "exec"), {"__name__": "readme"})
    assert capsys.readouterr().out == said.removeprefix("# ") + "\n"
    assert " wins " in said


def test_the_readme_opens_with_a_picture_of_a_game() -> None:
    text = README.read_text(encoding="utf-8")
    first = text.split("\n## ", 1)[0]
    pictures = re.findall(r"!\[[^\]]+\]\(([^)]+\.png)\)", first)
    assert pictures, "the README opens with a picture"
    for picture in pictures:
        path = ROOT / picture
        assert path.is_file() and path.stat().st_size > 10_000, picture


def test_the_readme_says_how_to_install() -> None:
    text = README.read_text(encoding="utf-8")
    install = text.split("## Install\n", 1)[1].split("\n## ", 1)[0]
    assert "pip install roborally" in install
    for extra in ("server", "png", "rl", "all"):
        assert f"roborally[{extra}]" in install, extra


def test_docs_links_exist() -> None:
    for page in (README, *sorted((ROOT / "docs").glob("*.md"))):
        text = page.read_text(encoding="utf-8")
        for link in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", text):
            if re.match(r"[a-z]+:", link):
                continue  # a web address
            target = (page.parent / link).resolve()
            assert target.exists(), f"{page.relative_to(ROOT)} links to missing {link}"
            assert target.is_relative_to(ROOT), f"{page.relative_to(ROOT)} links outside: {link}"


def anchors(page: Path) -> set[str]:
    """The anchors of a page: those GitHub makes of its headings (lower case, punctuation
    dropped, spaces as hyphens) and its ``<a id="...">`` tags."""
    text = page.read_text(encoding="utf-8")
    headings = re.findall(r"^#+ (.+)$", text, re.M)
    made = {re.sub(r"[^\w\- ]", "", h.strip().lower()).replace(" ", "-") for h in headings}
    return made | set(re.findall(r'<a id="([^"]+)"', text))


def test_docs_link_to_headings_that_exist() -> None:
    for page in (README, *sorted((ROOT / "docs").glob("*.md"))):
        text = re.sub(r"```.*?```|`[^`\n]*`", "", page.read_text(encoding="utf-8"), flags=re.S)
        for link, anchor in re.findall(r"\]\(([^)#\s]*\.md|)#([^)\s]+)\)", text):
            target = page.parent / link if link else page
            assert anchor in anchors(target), f"{page.relative_to(ROOT)}: no heading #{anchor}"
