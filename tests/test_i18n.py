"""The translation files (``roborally/content/data/i18n/LANG.json``): every language has every
text, with the same placeholders and the plural forms its grammar needs; the server sends them
and the command line reads them."""

from __future__ import annotations

import doctest
import json
import re
from importlib import resources

import pytest

from roborally.content import i18n
from roborally.content.i18n import LANGUAGES, plural_category, strings, text

#: The plural categories (CLDR) each language uses for whole numbers.
PLURAL_FORMS = {
    "en": {"one", "other"},
    "uk": {"one", "few", "many"},
    "ru": {"one", "few", "many"},
    "pl": {"one", "few", "many"},
    "cs": {"one", "few", "other"},
}
FORMS = {"zero", "one", "two", "few", "many", "other"}
PLACEHOLDER = re.compile(r"\{(\w+)\}")


def split(key: str) -> tuple[str, str | None]:
    """``("chat.unread", "few")`` for a plural form's key, else ``(key, None)``."""
    base, _, last = key.rpartition(".")
    return (base, last) if base and last in FORMS else (key, None)


def texts_by_base(lang: str) -> dict[str, dict[str | None, str]]:
    found: dict[str, dict[str | None, str]] = {}
    for key, value in strings(lang).items():
        base, form = split(key)
        found.setdefault(base, {})[form] = value
    return found


def test_the_files_are_sorted_json_objects_of_texts() -> None:
    folder = resources.files("roborally.content") / "data" / "i18n"
    names = sorted(p.name for p in folder.iterdir() if p.name.endswith(".json"))
    assert names == sorted(f"{lang}.json" for lang in LANGUAGES)
    for lang in LANGUAGES:
        raw = (folder / f"{lang}.json").read_text(encoding="utf-8")
        data = json.loads(raw)
        # One key a line, sorted: additions by several people merge without conflicts.
        assert list(data) == sorted(data), f"{lang}.json: keys out of order"
        assert all(value.strip() for value in data.values()), f"{lang}.json: an empty text"


@pytest.mark.parametrize("lang", [lang for lang in LANGUAGES if lang != "en"])
def test_every_language_has_every_text(lang: str) -> None:
    english, other = texts_by_base("en"), texts_by_base(lang)
    assert sorted(set(english) - set(other)) == [], f"{lang}.json lacks these texts"
    assert sorted(set(other) - set(english)) == [], f"{lang}.json has texts English lacks"
    for base, forms in english.items():
        if None in forms:
            assert None in other[base], f"{lang}.json: {base} must be a plain text"
            continue
        wanted = PLURAL_FORMS[lang]
        assert wanted <= set(other[base]), f"{lang}.json: {base} needs the forms {sorted(wanted)}"


@pytest.mark.parametrize("lang", LANGUAGES)
def test_plurals_have_the_forms_of_the_language(lang: str) -> None:
    for base, forms in texts_by_base(lang).items():
        if None not in forms:
            assert PLURAL_FORMS[lang] <= set(forms), f"{lang}.json: {base}"


@pytest.mark.parametrize("lang", [lang for lang in LANGUAGES if lang != "en"])
def test_placeholders_match_english(lang: str) -> None:
    english = texts_by_base("en")
    for base, forms in texts_by_base(lang).items():
        wanted = set().union(*(set(PLACEHOLDER.findall(v)) for v in english[base].values()))
        for form, value in forms.items():
            got = set(PLACEHOLDER.findall(value))
            assert got <= wanted, f"{lang}.json: {base}.{form} uses {got - wanted}"
            if form is None:
                assert got == wanted, f"{lang}.json: {base} leaves out {wanted - got}"


def test_plural_rules_follow_the_languages() -> None:
    assert [plural_category("uk", n) for n in (1, 2, 5, 11, 21, 22, 25)] == [
        "one", "few", "many", "many", "one", "few", "many",
    ]  # fmt: skip
    assert [plural_category("pl", n) for n in (1, 2, 5, 12, 21, 22)] == [
        "one", "few", "many", "many", "many", "few",
    ]  # fmt: skip
    assert [plural_category("cs", n) for n in (1, 2, 4, 5)] == ["one", "few", "few", "other"]
    assert [plural_category("en", n) for n in (0, 1, 2)] == ["other", "one", "other"]


def test_text_fills_placeholders_and_falls_back_to_english() -> None:
    assert text("cs", "language.name") == "Čeština"
    assert text("pl", "no.such.key") == "no.such.key"
    with pytest.raises(i18n.TranslationError, match="unknown language"):
        text("xx", "language.name")


def test_the_module_doctests() -> None:
    assert doctest.testmod(i18n).failed == 0
