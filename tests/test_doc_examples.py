"""Every example of the README and of ``docs/*.md`` runs.

* A ```` ```python ```` block runs on its own, in a fresh namespace, in an empty temporary
  folder (examples may write files): as a doctest when it holds ``>>>`` lines, else as a
  script. It must not raise.
* A ```` ```shell ```` block holds ``roborally`` commands, one a line (``# comments`` allowed);
  each runs in-process through :func:`roborally.cli.main` in the same temporary folder, in
  order, and must exit with status 0.
* A block right after a line ``<!-- not run: REASON -->`` is skipped (say why: it needs a
  server, a network, a file the reader supplies, ...). Blocks without a language
  (```` ``` ````, ```` ```console ````, ...) are text: output, file formats, commands for a
  shell; they are not run.
* The pages of :data:`DEDICATED` are left to their own tests, which run their examples with
  what they need (a server, optional packages).
"""

from __future__ import annotations

import doctest
import re
import shlex
from dataclasses import dataclass
from pathlib import Path

import pytest

from roborally.cli import main

ROOT = Path(__file__).resolve().parent.parent

#: Pages whose examples their own test runs: page -> that test (a page that exists must be
#: named by some test under ``tests/``).
DEDICATED = {
    "docs/api.md": "tests/test_api_docs.py",  # every block, plus what the tutorial prints
    "docs/protocol.md": "tests/server/test_play.py",  # its client plays against a server
    "docs/install.md": "tests/test_install_docs.py",
    "docs/rl.md": "tests/test_rl_docs.py",
    "docs/simulator.md": "tests/test_simulator.py",
}

NOT_RUN = re.compile(r"<!--\s*not run:\s*\S[^>]*-->\s*$")
FENCE = re.compile(r"^```(\S*)\s*$")


@dataclass(frozen=True)
class Block:
    page: str
    line: int  # of the opening fence, from 1
    language: str
    code: str
    skipped: bool

    @property
    def name(self) -> str:
        return f"{self.page}:{self.line}"


def page_blocks(page: str, text: str | None = None) -> list[Block]:
    """The fenced blocks of ``page`` (relative to the repository; ``text``: its text)."""
    if text is None:
        text = (ROOT / page).read_text(encoding="utf-8")
    lines = text.splitlines()
    found: list[Block] = []
    index = 0
    while index < len(lines):
        fence = FENCE.match(lines[index])
        if fence is None:
            index += 1
            continue
        end = index + 1
        while end < len(lines) and not lines[end].startswith("```"):
            end += 1
        before = next((text for text in reversed(lines[:index]) if text.strip()), "")
        code = "\n".join(lines[index + 1 : end]) + "\n"
        skipped = NOT_RUN.search(before) is not None
        found.append(Block(page, index + 1, fence.group(1), code, skipped))
        index = end + 1
    return found


def pages() -> list[str]:
    paths = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
    return [p.relative_to(ROOT).as_posix() for p in paths]


def runnable(language: str) -> list[Block]:
    return [
        block
        for page in pages()
        if page not in DEDICATED
        for block in page_blocks(page)
        if block.language == language
    ]


def run_python(block: Block) -> None:
    if re.search(r"^\s*>>> ", block.code, re.M):
        parser = doctest.DocTestParser()
        test = parser.get_doctest(block.code, {}, block.name, block.page, block.line)
        runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
        runner.run(test)
        assert runner.failures == 0, f"{block.name}: a doctest failed (see the output)"
    else:
        exec(compile(block.code, block.name, "exec"), {"__name__": "doc_example"})


def run_shell(block: Block) -> None:
    for number, text in enumerate(block.code.splitlines(), start=block.line + 1):
        words = shlex.split(text, comments=True)
        if not words:
            continue
        assert words[0] == "roborally", (
            f"{block.page}:{number}: a shell example runs only roborally commands;"
            " mark the block <!-- not run: REASON --> or leave its language out"
        )
        assert main(words[1:]) == 0, f"{block.page}:{number}: {text}"


RUNNERS = {"python": run_python, "shell": run_shell}


@pytest.mark.parametrize(
    "block", [b for language in RUNNERS for b in runnable(language)], ids=lambda b: b.name
)
def test_example_runs(
    block: Block,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    if block.skipped:
        pytest.skip("marked not run")
    monkeypatch.chdir(tmp_path)
    RUNNERS[block.language](block)
    capsys.readouterr()


def test_the_examples_are_found() -> None:
    python = runnable("python")
    assert {b.page for b in python} >= {"README.md", "docs/rendering.md", "docs/record-format.md"}
    assert any(b.page == "README.md" for b in runnable("shell"))


def test_skips_say_why_and_dedicated_pages_have_their_test() -> None:
    for page in pages():
        text = (ROOT / page).read_text(encoding="utf-8")
        for marker in re.findall(r"<!--\s*not run\b[^>]*-->", text):
            assert NOT_RUN.search(marker), f"{page}: {marker} gives no reason"
    tests = [p for p in (ROOT / "tests").rglob("test_*.py") if p.name != Path(__file__).name]
    for page, test in DEDICATED.items():
        if (ROOT / page).exists():
            readers = [t for t in tests if Path(page).name in t.read_text(encoding="utf-8")]
            assert readers, f"{page} is left to its own test ({test}), but no test names it"


def test_a_block_after_the_marker_is_skipped() -> None:
    text = (
        "Run this:\n\n```python\nprint(1)\n```\n\n<!-- not run: needs a server -->\n"
        "```python\nconnect()\n```\n\n```\nroborally serve\n```\n"
    )
    found = page_blocks("page.md", text)
    assert [(b.line, b.language, b.skipped) for b in found] == [
        (3, "python", False),
        (8, "python", True),
        (12, "", False),
    ]
    assert found[1].code == "connect()\n"
