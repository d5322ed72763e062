"""Every text the web page shows comes from the translation files: a scanner over the page's
JavaScript (and index.html) finds words written into the code instead of passed through t().

A string literal is taken for text a person reads when

* it holds two or more words (runs of letters) separated by spaces, wherever it stands; or
* it holds one word and stands where the page shows it: a child of ``h(...)``/``s(...)``, the
  value of a shown attribute (title, placeholder, aria-label, alt, label) in ``h``'s attributes
  or ``setAttribute``, the value given to ``textContent``, ``innerText``, ``title``,
  ``placeholder`` or ``document.title``, or an argument of ``toast``, ``confirm``, ``alert``
  or ``prompt``.

Literals inside another call (``t("lobby.create")``, ``icon("clock")``) and in comments are
not looked at; CSS selectors, markup and identifiers hold no word (a word is letters only).
``ALLOWED`` lists the few technical strings that look like words; ``PENDING`` the files whose
texts are still being translated (remove a file from it when its texts go through t()).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

import pytest

STATIC = Path(__file__).resolve().parents[2] / "src" / "roborally" / "server" / "static"
JS = STATIC / "js"

#: Files other parts of the work are still translating: not scanned until they are done.
PENDING: set[str] = set()

#: Literals that look like words but are not text to translate: (file, literal; a template
#: literal by its fixed text, without its ${...} parts).
ALLOWED = {
    ("*", "RoboRally"),  # the game's name
    ("util.js", "st"),  # English ordinal suffixes (ordinal() uses them for English only)
    ("util.js", "nd"),
    ("util.js", "rd"),
    ("util.js", "th"),
    ("decisions.js", "use nothing"),  # an option's value (its text: decision.word.use_nothing)
    ("fair.js", "roborally verify "),  # a command to type (a template: its fixed text)
    ("table.js", "roborally serve --host 0.0.0.0 --port "),  # a command to type, as above
    ("keys.js", "input, textarea, select, [contenteditable=true]"),  # CSS selectors
    ("keys.js", "button, a, summary, [role=button]"),
    ("keys.js", "Enter, Space"),  # key caps, as printed on keyboards
    ("cards.js", "damage spam"),  # CSS classes of card faces
    ("cards.js", "damage haywire"),
    ("cards.js", "upgrade option"),
    ("cards.js", "upgrade permanent"),
    ("cards.js", "upgrade temporary"),
    ("spaceinfo.js", "(hover: hover)"),  # a media query
    # The engine's causes the log's sentences are chosen by (each sentence is a log.* text).
    ("words.js", "only rotations"),
    ("words.js", "radio control ended"),
    ("words.js", "removed from the game"),
    ("words.js", "empty deck"),
    ("words.js", "install undone"),
    ("words.js", "spam filter"),
    ("words.js", "lucky booster"),
}

WORD = re.compile(r"^[^\W\d_]{2,}['’]?[^\W\d_]*$")
SHOWN_ATTRS = {"title", "placeholder", "aria-label", "alt", "label", "aria-description"}
SHOWN_PROPS = {"textContent", "innerText", "title", "placeholder"}
SHOWING_CALLS = {"toast", "confirm", "alert", "prompt"}
ELEMENT_CALLS = {"h", "s"}
OPENING = "(\"'«„“["
CLOSING = ".,:;!?…)\"'»”]"
#: Calls whose arguments the page never shows (messages for developers).
HIDDEN_CALLS = {"Error", "TypeError", "RangeError"}
COMPARISONS = {"===", "!==", "==", "!="}


@dataclass
class Tok:
    kind: str  # "str", "tpl", "id", "num", "punct", "regex"
    text: str  # the literal's value (a template: its fixed parts joined by spaces)
    line: int
    parts: list[list[Tok]] = field(default_factory=list)  # a template's ${...} expressions


def words(text: str) -> list[str]:
    """The words of a literal: space-separated tokens of letters only (trailing and leading
    punctuation aside); "data-testid", ".player", "M0" and 'x="6"' are none."""
    found = []
    for token in text.split():
        bare = token.lstrip(OPENING).rstrip(CLOSING)
        if bare and WORD.match(bare):
            found.append(bare)
    return found


def tokenize(
    src: str, start: int = 0, line: int = 1, stop: str | None = None
) -> tuple[list[Tok], int, int]:
    """JavaScript tokens from ``start`` (until an unmatched ``stop``, for ``${...}``): strings,
    templates (with their expressions), regular expressions, names, numbers and punctuation;
    comments are dropped. Returns the tokens, the end offset and the line there."""
    toks: list[Tok] = []
    i = start
    depth = 0
    n = len(src)
    while i < n:
        c = src[i]
        if c == "\n":
            line += 1
            i += 1
        elif c.isspace():
            i += 1
        elif src.startswith("//", i):
            i = src.find("\n", i)
            i = n if i < 0 else i
        elif src.startswith("/*", i):
            end = src.find("*/", i + 2)
            end = n if end < 0 else end + 2
            line += src.count("\n", i, end)
            i = end
        elif c in "\"'":
            j = i + 1
            out = []
            while j < n and src[j] != c:
                if src[j] == "\\":
                    out.append(src[j : j + 2])
                    j += 2
                else:
                    out.append(src[j])
                    j += 1
            toks.append(Tok("str", "".join(out), line))
            i = j + 1
        elif c == "`":
            j = i + 1
            fixed: list[str] = []
            parts: list[list[Tok]] = []
            begin = line
            while j < n and src[j] != "`":
                if src[j] == "\\":
                    fixed.append(src[j : j + 2])
                    j += 2
                elif src.startswith("${", j):
                    inner, j, line = tokenize(src, j + 2, line, stop="}")
                    parts.append(inner)
                else:
                    if src[j] == "\n":
                        line += 1
                    fixed.append(src[j])
                    j += 1
            toks.append(Tok("tpl", "".join(fixed), begin, parts))
            i = j + 1
        elif c == "/" and _regex_allowed(toks):
            j = i + 1
            in_class = False
            while j < n and (src[j] != "/" or in_class):
                if src[j] == "\\":
                    j += 1
                elif src[j] == "[":
                    in_class = True
                elif src[j] == "]":
                    in_class = False
                j += 1
            j += 1
            while j < n and src[j].isalpha():
                j += 1
            toks.append(Tok("regex", src[i:j], line))
            i = j
        elif c.isalpha() or c in "_$":
            j = i
            while j < n and (src[j].isalnum() or src[j] in "_$"):
                j += 1
            toks.append(Tok("id", src[i:j], line))
            i = j
        elif c.isdigit():
            j = i
            while j < n and (src[j].isalnum() or src[j] in "._"):
                j += 1
            toks.append(Tok("num", src[i:j], line))
            i = j
        else:
            if stop is not None and c == "{":
                depth += 1
            if stop is not None and c == stop:
                if depth == 0:
                    return toks, i + 1, line
                depth -= 1
            for op in ("=>", "===", "!==", "==", "!=", "&&", "||", "??", "?.", "..."):
                if src.startswith(op, i):
                    toks.append(Tok("punct", op, line))
                    i += len(op)
                    break
            else:
                toks.append(Tok("punct", c, line))
                i += 1
    return toks, i, line


def _regex_allowed(toks: list[Tok]) -> bool:
    """A "/" starts a regular expression unless it follows a value (a division)."""
    if not toks:
        return True
    last = toks[-1]
    if last.kind in ("num", "str", "tpl", "regex"):
        return False
    if last.kind == "id":
        return last.text in {"return", "typeof", "case", "in", "of", "new", "delete", "void"}
    return last.text not in {")", "]", "}"}


def matching(toks: list[Tok], i: int) -> int:
    """The index of the bracket closing the one at ``i``."""
    pairs = {"(": ")", "[": "]", "{": "}"}
    stack = []
    for j in range(i, len(toks)):
        t = toks[j]
        if t.kind != "punct":
            continue
        if t.text in pairs:
            stack.append(pairs[t.text])
        elif stack and t.text == stack[-1]:
            stack.pop()
            if not stack:
                return j
    return len(toks) - 1


def split_args(toks: list[Tok]) -> list[list[Tok]]:
    """A call's arguments (the tokens between its parentheses), split at top-level commas."""
    args: list[list[Tok]] = [[]]
    depth = 0
    for t in toks:
        if t.kind == "punct" and t.text in "([{":
            depth += 1
        elif t.kind == "punct" and t.text in ")]}":
            depth -= 1
        if depth == 0 and t.kind == "punct" and t.text == ",":
            args.append([])
        else:
            args[-1].append(t)
    return [a for a in args if a]


def shown_literals(expr: list[Tok]) -> list[Tok]:
    """The literals an expression can evaluate to as text: those at its top level (through
    ternaries, ``||``, arrays, grouping parentheses and template expressions), not those inside
    a call, an object, a function body or an index."""
    found: list[Tok] = []
    i = 0
    while i < len(expr):
        t = expr[i]
        compared = (i > 0 and expr[i - 1].text in COMPARISONS) or (
            i + 1 < len(expr) and expr[i + 1].text in COMPARISONS
        )
        if t.kind in ("str", "tpl") and not compared:
            found.append(t)
            for part in t.parts:
                found.extend(shown_literals(part))
        elif t.kind == "punct" and t.text in "({[":
            end = matching(expr, i)
            prev = expr[i - 1] if i else None
            called = prev is not None and (prev.kind == "id" or prev.text in (")", "]"))
            arrow = end + 1 < len(expr) and expr[end + 1].text == "=>"
            if (
                t.text == "{"
                or called
                or arrow
                or (t.text == "[" and prev is not None and prev.kind == "id")
            ):
                i = end + 1
                if arrow:  # an arrow function: its body is not the value
                    break
                continue
        elif t.kind == "punct" and t.text == "=>":
            break
        i += 1
    return found


def attr_values(obj: list[Tok]) -> list[tuple[str, list[Tok]]]:
    """``key: value`` pairs of an object literal's tokens (without its braces)."""
    pairs = []
    for entry in split_args(obj):
        if len(entry) >= 2 and entry[1].text == ":" and entry[0].kind in ("id", "str"):
            pairs.append((entry[0].text, entry[2:]))
    return pairs


def shown_attr(arg: list[Tok]) -> bool:
    """Whether a setAttribute name is a shown attribute ("title", "aria-label", ...)."""
    return arg[0].kind == "str" and arg[0].text in SHOWN_ATTRS


def assigned_value(ts: list[Tok], j: int) -> list[Tok]:
    """The tokens of the value assigned from ``j`` on (up to the end of the statement)."""
    expr = []
    depth = 0
    while j < len(ts) and not (depth == 0 and ts[j].text in (";", ",", ")", "}")):
        if ts[j].text in "([{":
            depth += 1
        elif ts[j].text in ")]}":
            depth -= 1
        expr.append(ts[j])
        j += 1
    return expr


def candidates(toks: list[Tok]) -> list[tuple[Tok, bool]]:
    """Every literal with whether it stands where the page shows it."""
    shown: set[int] = set()
    hidden: set[int] = set()
    everything: list[Tok] = []

    def walk(ts: list[Tok]) -> None:
        for i, t in enumerate(ts):
            if t.kind in ("str", "tpl"):
                everything.append(t)
                for part in t.parts:
                    walk(part)
            if t.kind == "id" and i + 1 < len(ts) and ts[i + 1].text == "(":
                end = matching(ts, i + 1)
                args = split_args(ts[i + 2 : end])
                is_method = i > 0 and ts[i - 1].text == "."
                console = is_method and i > 1 and ts[i - 2].text == "console"
                if t.text in HIDDEN_CALLS or console:
                    hidden.update(id(x) for x in ts[i + 2 : end])
                elif t.text in ELEMENT_CALLS and not is_method:
                    for child in args[2:]:
                        shown.update(id(x) for x in shown_literals(child))
                    if len(args) > 1 and args[1] and args[1][0].text == "{":
                        for key, value in attr_values(args[1][1:-1]):
                            if key in SHOWN_ATTRS:
                                shown.update(id(x) for x in shown_literals(value))
                elif t.text in SHOWING_CALLS and not is_method and args:
                    shown.update(id(x) for x in shown_literals(args[0]))
                elif t.text == "setAttribute" and len(args) == 2 and shown_attr(args[0]):
                    shown.update(id(x) for x in shown_literals(args[1]))
            assigned = i > 0 and ts[i - 1].text == "." and i + 1 < len(ts) and ts[i + 1].text == "="
            if t.kind == "id" and t.text in SHOWN_PROPS and assigned:
                shown.update(id(x) for x in shown_literals(assigned_value(ts, i + 2)))

    walk(toks)
    return [(t, id(t) in shown) for t in everything if id(t) not in hidden]


def untranslated(name: str, src: str) -> list[str]:
    toks, _, _ = tokenize(src)
    problems = []
    for tok, shown in candidates(toks):
        if (name, tok.text) in ALLOWED or ("*", tok.text) in ALLOWED:
            continue
        found = words(tok.text)
        if len(found) >= 2 or (shown and found):
            problems.append(f"{name}:{tok.line}: {tok.text!r}")
    return problems


def scanned() -> list[Path]:
    return sorted(p for p in JS.glob("*.js") if p.name not in PENDING)


def test_the_pending_files_exist() -> None:
    """A file renamed or removed is taken off the list (the list names real files)."""
    assert sorted(PENDING - {p.name for p in JS.glob("*.js")}) == []


@pytest.mark.parametrize("path", scanned(), ids=lambda p: p.name)
def test_no_text_is_written_into_the_code(path: Path) -> None:
    problems = untranslated(path.name, path.read_text(encoding="utf-8"))
    assert problems == [], "texts not passed through t():\n" + "\n".join(problems)


def test_index_html_texts_are_filled_in_by_language() -> None:
    """index.html's texts carry data-text keys (the server fills them in the page's language);
    no other text stands in its body."""
    html = (STATIC / "index.html").read_text(encoding="utf-8")
    body = html[html.index("<body") :]
    keyed = re.sub(r"(<(\w+)[^>]*\bdata-text=\"[\w.]+\"[^>]*>)[^<]*(</\2>)", r"\1\3", body)
    texts = [w for chunk in re.findall(r">([^<]+)<", keyed) for w in words(chunk)]
    assert texts == []
    assert re.search(r'<html lang="en"', html)


# ----------------------------------------------------------- the scanner itself
def flagged(src: str) -> list[str]:
    return [line.split(": ", 1)[1] for line in untranslated("x.js", src)]


def test_the_scanner_finds_texts_where_the_page_shows_them() -> None:
    src = """
    h("button.primary", { title: "Close", "data-testid": "close" }, "Close");
    h("p", null, ok ? "Ready" : t("game.wait"));
    el.textContent = `Round ${n}`;
    toast("Saved");
    card.setAttribute("aria-label", "Card");
    const note = "Two words anywhere";
    """
    assert flagged(src) == [
        "'Close'",
        "'Close'",
        "'Ready'",
        "'Round '",
        "'Saved'",
        "'Card'",
        "'Two words anywhere'",
    ]


def test_the_scanner_leaves_code_alone() -> None:
    src = """
    // A comment with Words in it, and "quotes".
    h("div.players-box", { "data-testid": "players" }, t("lobby.players"), icon("clock"));
    document.querySelectorAll(".player .badge.warn");
    const re = /'([^']+)'|"([^"]+)"/;
    el.innerHTML = `<svg viewBox="0 0 24 24"><path d="M3 5l8 7"/></svg>`;
    const x = a / b; const y = "kind";
    store.set("name", value);
    """
    assert flagged(src) == []
