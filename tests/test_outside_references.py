"""What users read stands on its own: no file of ``src/``, ``docs/`` or the README points to a
file outside the repository (the rules specification and the rulebook transcriptions the
project was written from are not in it), and the text a user sees (the docs, the README, the
rules pages, error messages and help) cites no rulebook line.

Rules are cited by name, or by the repository's pages ``docs/rules-2023.md`` and
``docs/rules-classic.md``. Two places keep rulebook citations (``000: 584``, a rulebook and a
line) on purpose, as provenance: code comments and docstrings, which developers read, and the
card data's ``source`` fields (:data:`PROVENANCE`); ``docs/scenario-format.md`` explains the
``cites:`` line of scenario files, which holds them.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

#: Paths and file names outside the repository.
OUTSIDE = re.compile(
    r"(?<![\w.-])(?:\.\./)*shared/"  # the specification's folder beside the repository
    r"|edition-(?:2023|classic)\.md"  # the specification's files
    r"|(?<![\w.-])(?:\.\./)*sources?/"  # the rulebook transcriptions
    r"|(?<![\w.-])[a-z]{2}\.txt\b"  # a transcription named by its language (uk.txt)
    r"|rulebook[\w-]*\.(?:txt|pdf|md)\b",
    re.I,
)
#: A rulebook citation: book and line, ``000: 584`` or ``001: 415-416``.
CITATION = re.compile(r"\b\d{3}: ?\d+")
#: Files allowed to cite rulebook lines in their strings, and why.
PROVENANCE = {
    "src/roborally/engine/core/cards.py": "the card data's source fields",
    "docs/scenario-format.md": "it explains the cites: line of scenario files",
}
TEXT = {".py", ".md", ".json", ".toml", ".js", ".html", ".css", ".txt", ".svg", ".board"}


def files() -> list[Path]:
    found = [ROOT / "README.md", *sorted((ROOT / "docs").glob("**/*.md"))]
    found += sorted(p for p in (ROOT / "src").rglob("*") if p.suffix in TEXT and p.is_file())
    return found


def name(path: Path) -> str:
    return path.relative_to(ROOT).as_posix()


@pytest.mark.parametrize("path", files(), ids=name)
def test_no_path_outside_the_repository(path: Path) -> None:
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        match = OUTSIDE.search(line)
        assert match is None, f"{name(path)}:{number} points outside: {match.group(0)!r}"


def user_strings(path: Path) -> list[tuple[int, str]]:
    """The string constants of a module that are not docstrings: messages, help, output."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docstrings: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            first = node.body[0] if node.body else None
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                docstrings.add(id(first.value))
    return [
        (node.lineno, node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant)
        and isinstance(node.value, str)
        and id(node) not in docstrings
    ]


def test_what_users_read_cites_no_rulebook_line() -> None:
    found = []
    for path in files():
        if name(path) in PROVENANCE or path.suffix == ".json":  # JSON: card data (source)
            continue
        if path.suffix == ".py":
            lines = user_strings(path)
        else:
            lines = list(enumerate(path.read_text(encoding="utf-8").splitlines(), start=1))
        found += [
            f"{name(path)}:{number}: {text.strip()[:90]}"
            for number, text in lines
            if CITATION.search(text)
        ]
    assert not found, "rulebook lines cited where users read them:\n" + "\n".join(found)


def test_the_patterns_catch_what_they_should() -> None:
    for text in (
        "see shared/rules/edition-2023.md",
        "../shared/rules",
        "sources/uk.txt",
        "edition-classic.md 6.3",
        "the rulebook.pdf",
    ):
        assert OUTSIDE.search(text), text
    for text in ("docs/rules-2023.md", "src/roborally/content/data/boards/tiny.board", "./x.js"):
        assert not OUTSIDE.search(text), text
    assert CITATION.search("cannot be programmed (000: 598-606)")
    assert not CITATION.search("at 12:30, 4,11 facing N; 100 games: 3 won")
