"""Translations: the texts players read, in English, Ukrainian, Russian, Czech and Polish.

One JSON file per language (``data/i18n/LANG.json``) maps a key to its text. The browser
fetches the same files (``/i18n/LANG.json``) and the command line reads them here, so a text
is translated once for both. ``{name}`` placeholders are filled from keyword values; a
``count`` value picks the language's plural form (``key.one``, ``key.few``, ``key.many``,
``key.other``).

>>> text("en", "language.name")
'English'
>>> text("uk", "language.name")
'Українська'
>>> plural_category("pl", 3), plural_category("pl", 5), plural_category("en", 1)
('few', 'many', 'one')
"""

from __future__ import annotations

import json
from functools import cache
from importlib import resources
from typing import Any

#: The languages, in the order the page's switcher lists them.
LANGUAGES = ("en", "uk", "ru", "cs", "pl")
DEFAULT = "en"


class TranslationError(ValueError):
    """A translation file is missing or malformed."""


@cache
def strings(lang: str) -> dict[str, str]:
    """Every text of ``lang`` by key (read once)."""
    if lang not in LANGUAGES:
        raise TranslationError(f"unknown language {lang!r}; choose one of {', '.join(LANGUAGES)}")
    path = resources.files("roborally.content") / "data" / "i18n" / f"{lang}.json"
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as error:
        raise TranslationError(f"cannot read the {lang} translations: {error}") from None
    if not isinstance(data, dict) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in data.items()
    ):
        raise TranslationError(f"the {lang} translations must map keys to texts")
    return data


def raw_file(lang: str) -> bytes:
    """The translation file of ``lang`` as stored (what the server sends the page)."""
    strings(lang)  # checks the language and the file
    path = resources.files("roborally.content") / "data" / "i18n" / f"{lang}.json"
    return path.read_bytes()


def plural_category(lang: str, count: int) -> str:
    """The CLDR plural category of a whole ``count`` in ``lang`` (``one``, ``few``,
    ``many`` or ``other``), as the browser's ``Intl.PluralRules`` gives it."""
    n = abs(count)
    if lang in ("uk", "ru"):
        if n % 10 == 1 and n % 100 != 11:
            return "one"
        if 2 <= n % 10 <= 4 and not 12 <= n % 100 <= 14:
            return "few"
        return "many"
    if lang == "pl":
        if n == 1:
            return "one"
        if 2 <= n % 10 <= 4 and not 12 <= n % 100 <= 14:
            return "few"
        return "many"
    if lang == "cs":
        return "one" if n == 1 else "few" if 2 <= n <= 4 else "other"
    return "one" if n == 1 else "other"


def title_of(lang: str, kind: str, id: str, english: str = "") -> str:
    """A course's or a board's title (``kind`` ``course`` or ``board``) in ``lang``: the text
    ``KIND.ID.title``, else ``english`` (the data's own title), else the id.

    >>> title_of("pl", "course", "y23-high-voltage"), title_of("uk", "board", "new-board", "New")
    ('Wysokie napięcie', 'New')
    """
    key = f"{kind}.{id}.title"
    found = strings(lang).get(key) or strings(DEFAULT).get(key)
    return found or english or id


def text(lang: str, key: str, **values: Any) -> str:
    """The text of ``key`` in ``lang`` (English when ``lang`` lacks it; the key itself when
    no language has it), placeholders filled from ``values``."""
    table, english = strings(lang), strings(DEFAULT)
    found: str | None = None
    count = values.get("count")
    if isinstance(count, int):
        for form in (f"{key}.{plural_category(lang, count)}", f"{key}.other"):
            found = table.get(form) or english.get(form)
            if found is not None:
                break
    if found is None:
        found = table.get(key) or english.get(key) or key
    for name, value in values.items():
        found = found.replace("{" + name + "}", str(value))
    return found
