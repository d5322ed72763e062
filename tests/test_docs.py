"""The README's Python examples run as doctests, and the docs name files that exist."""

from __future__ import annotations

import doctest
import re
from pathlib import Path

ROOT = Path(__file__).parent.parent


def test_readme_examples_run() -> None:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```python\n(.*?)```", text, re.S)
    assert blocks, "the README has Python examples"
    parser = doctest.DocTestParser()
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    for number, block in enumerate(blocks):
        test = parser.get_doctest(block, {}, f"README block {number}", "README.md", 0)
        runner.run(test)
    assert runner.failures == 0


def test_docs_links_exist() -> None:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    for link in re.findall(r"\]\((docs/[^)]+)\)", text):
        assert (ROOT / link).is_file(), f"README links to missing {link}"
