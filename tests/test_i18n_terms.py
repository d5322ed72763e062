"""The game's words follow the rulebooks: no translation (``i18n/LANG.json``, the rules pages
``rules/EDITION.LANG.toml``) uses a word the glossary rules out, and every term the glossary
holds to is listed in the glossary of ``docs/web-client.md``.

The rules are in ``i18n_terms.json`` next to this file: per language, one entry per concept
with the ``term`` to use, where the rulebook gives it (``"rulebook": "002: 32"``, the
``BOOK: LINE`` convention of the scenarios; ``null`` when the rulebook does not name the
concept and the term is our choice, kept the same everywhere) and the words it replaces
(``not``: regular expressions, matched whole-word and case-insensitively against every text)."""

from __future__ import annotations

import json
import re
import tomllib
from collections.abc import Iterator
from importlib import resources
from pathlib import Path
from typing import Any

import pytest

from roborally.content.i18n import LANGUAGES, strings

TERMS_FILE = Path(__file__).with_name("i18n_terms.json")
GLOSSARY = Path(__file__).parents[1] / "docs" / "web-client.md"
OTHERS = [lang for lang in LANGUAGES if lang != "en"]
RULES = resources.files("roborally.content") / "data" / "rules"
CITE = re.compile(r"^00[0-4]: \d+(-\d+)?$")


def terms() -> dict[str, list[dict[str, Any]]]:
    data: dict[str, list[dict[str, Any]]] = json.loads(TERMS_FILE.read_text(encoding="utf-8"))
    return {lang: rules for lang, rules in data.items() if not lang.startswith("_")}


def forbidden(rule: dict[str, Any]) -> re.Pattern[str]:
    """One pattern for all the words a rule replaces, each matched as whole words."""
    return re.compile(r"(?<!\w)(?:" + "|".join(rule["not"]) + r")(?!\w)", re.IGNORECASE)


def strings_of(data: Any, where: str) -> Iterator[tuple[str, str]]:
    if isinstance(data, str):
        yield where, data
    elif isinstance(data, dict):
        for key, value in data.items():
            yield from strings_of(value, f"{where}.{key}")
    elif isinstance(data, list):
        for number, item in enumerate(data):
            yield from strings_of(item, f"{where}[{number}]")


def texts(lang: str) -> Iterator[tuple[str, str]]:
    """Every text of a language with its place: the translation file's keys, then every string
    of its rules pages."""
    for key, value in strings(lang).items():
        yield f"{lang}.json {key}", value
    for edition in ("2023", "classic"):
        name = f"{edition}.{lang}.toml"
        yield from strings_of(tomllib.loads((RULES / name).read_text(encoding="utf-8")), name)


def offences(lang: str, rules: list[dict[str, Any]]) -> list[str]:
    found = []
    patterns = [(rule, forbidden(rule)) for rule in rules]
    for place, value in texts(lang):
        for rule, pattern in patterns:
            for match in pattern.finditer(value):
                found.append(
                    f"{place}: {match.group(0)!r}, but the glossary says {rule['term']!r} "
                    f"for {rule['concept']}"
                )
    return found


def test_the_glossary_file_is_well_formed() -> None:
    data = terms()
    assert sorted(data) == sorted(OTHERS)
    for lang, rules in data.items():
        concepts = [rule["concept"] for rule in rules]
        assert len(concepts) == len(set(concepts)), f"{lang}: a concept twice"
        for rule in rules:
            assert set(rule) == {"concept", "term", "rulebook", "not"}, rule
            assert rule["rulebook"] is None or CITE.match(rule["rulebook"]), rule
            assert rule["not"], rule
            # The term itself is never one of the words it replaces.
            assert not forbidden(rule).search(rule["term"]), rule


@pytest.mark.parametrize("lang", OTHERS)
def test_no_text_uses_a_word_the_glossary_rules_out(lang: str) -> None:
    found = offences(lang, terms()[lang])
    assert found == [], "\n".join(found)


def test_the_check_finds_a_ruled_out_word() -> None:
    rule = {"concept": "option card", "term": "vylepšení", "rulebook": None, "not": [r"vybaven\w*"]}
    assert forbidden(rule).search("Hra bez karet Vybavení.")
    assert not forbidden(rule).search("nevybavený")  # whole words only


def glossary_columns() -> dict[str, str]:
    """The glossary table of docs/web-client.md, one text per language column."""
    section = GLOSSARY.read_text(encoding="utf-8").split("## Translations: glossary", 1)[1]
    rows = [line for line in section.splitlines() if line.startswith("| ")]
    header = [cell.strip() for cell in rows[0].strip("|").split("|")]
    names = {"Українська": "uk", "Русский": "ru", "Čeština": "cs", "Polski": "pl"}
    columns: dict[str, list[str]] = {lang: [] for lang in names.values()}
    for row in rows[1:]:
        cells = [cell.strip() for cell in row.strip("|").split("|")]
        for title, cell in zip(header, cells, strict=True):
            if title in names:
                columns[names[title]].append(cell)
    return {lang: "\n".join(cells).lower() for lang, cells in columns.items()}


def test_the_docs_glossary_lists_every_term() -> None:
    columns = glossary_columns()
    for lang, rules in terms().items():
        for rule in rules:
            assert rule["term"].lower() in columns[lang], (
                f"docs/web-client.md: the {lang} glossary lacks {rule['term']!r}"
            )
