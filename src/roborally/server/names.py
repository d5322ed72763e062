"""Player names: what a name may hold, and when two names look the same.

A name is kept as the player typed it, in NFC (the composed form, so that ``e`` + a combining
acute and ``é`` are one name) with its runs of spaces made one space: the scoreboard shows what
the player chose, fullwidth ``Ａｄａ`` included. Names are *compared* by what a reader sees.
Two names clash when their confusable skeletons (Unicode UTS #39, section 4) are equal:

* the skeleton of the name after NFKC (``Ａｄａ`` is ``Ada``), which finds the look-alikes
  that differ in case-sensitive shapes (``Il`` and ``ll``, Cyrillic ``А`` and Latin ``A``);
* the skeleton after NFKC and case folding, which finds names that differ only in case
  (``ADA`` and ``ada``), or in case and script at once (Greek ``ΑDA`` and ``ada``).

The skeleton keeps accents: ``Štěpán`` and ``Stepan`` are two names, as are ``Łukasz`` and
``Lukasz``. Mixed-script names are allowed (people have them), and their skeletons clash all
the same. Each character's prototype comes from Unicode's ``confusables.txt``
(``unicode/confusables.txt`` beside this file, version 17.0.0 as Unicode publishes it, under
the Unicode License V3 in ``unicode/LICENSE``). No package fit: those on PyPI either keep no
prototypes (pairs both ways), are unmaintained with 2020 data, or fold further than the
standard (Cyrillic Б to b) in a native build. Skeletons are never stored, so a newer file can
replace this one at any time.

Refused with a reason instead of being cut silently: invisible characters (zero-width spaces,
direction overrides, fillers that draw nothing), control characters, commas (a record lists
the players' names with commas) and towers of combining marks (more than :data:`MAX_MARKS` on
one letter).
"""

from __future__ import annotations

import re
import unicodedata
from functools import cache
from importlib import resources
from typing import Any

NAME_MAX = 20
#: Combining marks allowed in a row on one letter, counted decomposed (NFD): Vietnamese ệ is e
#: with two, Thai and pointed Hebrew put two or three on a letter, Tibetan stacks three; a
#: fourth only piles up over the line above.
MAX_MARKS = 3

_SPACES = re.compile(r"\s+")
#: The text and emoji presentation selectors: emoji keyboards put them after a symbol (❤️),
#: so they are allowed there; they change no letter, so the skeleton leaves them out.
_EMOJI_STYLE = {0xFE0E: None, 0xFE0F: None}
#: Characters outside the C categories that draw nothing (Default_Ignorable_Code_Point
#: letters and marks, the Braille blank): a name holding one can pass for another name.
_INVISIBLE = frozenset(
    [
        *(0x034F, 0x115F, 0x1160, 0x17B4, 0x17B5, 0x180B, 0x180C, 0x180D, 0x180F, 0x2800),
        *(0x3164, 0xFFA0, *range(0xFE00, 0xFE0E), *range(0xE0100, 0xE01F0)),
    ]
)


class BadName(ValueError):
    """A name that cannot be taken; its text says why, in words for the player."""


def clean(value: Any) -> str:
    """``value`` as a name to keep (NFC, one space between words), or :class:`BadName`."""
    if not isinstance(value, str):
        raise BadName("a name is a string")
    name = _SPACES.sub(" ", unicodedata.normalize("NFC", value)).strip()
    if not 1 <= len(name) <= NAME_MAX:
        raise BadName(f"a name has 1 to {NAME_MAX} characters")
    if "," in name:
        raise BadName("a name may not hold commas")
    hidden = next((c for c in name if _hidden(c)), None)
    if hidden is not None:
        raise BadName(f"a name may not hold invisible or control characters ({_named(hidden)})")
    if _longest_marks(unicodedata.normalize("NFD", name)) > MAX_MARKS:
        raise BadName(f"a name may have at most {MAX_MARKS} accents or marks on one letter")
    return name


def look_alike(a: str, b: str) -> bool:
    """Whether names ``a`` and ``b`` look the same to a reader (see the module's text)."""
    return any(x == y for x, y in zip(_keys(a), _keys(b), strict=True))


def skeleton(text: str) -> str:
    """The UTS #39 skeleton of ``text``: NFD, each character replaced by its prototype, NFD
    again (the emoji presentation selectors dropped)."""
    decomposed = unicodedata.normalize("NFD", text).translate(_EMOJI_STYLE)
    return unicodedata.normalize("NFD", decomposed.translate(_prototypes()))


def _keys(name: str) -> tuple[str, str]:
    """The two skeletons a name is compared by: of its NFKC form, and of that case-folded."""
    shown = _SPACES.sub(" ", unicodedata.normalize("NFKC", name)).strip()
    folded = unicodedata.normalize("NFKC", shown.casefold())
    return skeleton(shown), skeleton(folded)


def _hidden(char: str) -> bool:
    """Control, format (zero-width, direction), unassigned, private-use, or drawing nothing."""
    return unicodedata.category(char).startswith("C") or ord(char) in _INVISIBLE


def _named(char: str) -> str:
    return f"U+{ord(char):04X} {unicodedata.name(char, '')}".strip()


def _longest_marks(text: str) -> int:
    """The longest run of non-spacing or enclosing marks (what stacks on one letter)."""
    longest = run = 0
    for char in text:
        run = run + 1 if unicodedata.category(char) in ("Mn", "Me") else 0
        longest = max(longest, run)
    return longest


@cache
def _prototypes() -> dict[int, str]:
    """confusables.txt as a ``str.translate`` table: code point to its prototype."""
    data = resources.files("roborally.server") / "unicode" / "confusables.txt"
    table: dict[int, str] = {}
    for line in data.read_text(encoding="utf-8-sig").splitlines():
        fields = line.split("#", 1)[0].split(";")
        if len(fields) >= 2:  # SOURCE ; PROTOTYPE ; TYPE
            target = "".join(chr(int(code, 16)) for code in fields[1].split())
            table[int(fields[0], 16)] = target
    return table
