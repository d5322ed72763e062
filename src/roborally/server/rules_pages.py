"""The rules help pages: ``/rules/2023``, ``/rules/classic`` and ``/rules/classic-1994``.

Each page explains a round, every board element (with a picture of a small example board drawn
by :mod:`roborally.render`) and every card of its edition (texts from the card catalogue, as
``GET /api/web/cards`` serves them). The words live in ``content/data/rules/``: one TOML file
per edition family (``2023.toml``, ``classic.toml``, whose keys ending in ``_1994`` replace
the plain key on the 1994 page) and the example boards in ``rules/boards/*.board``. This module
only puts them together. docs/rules-help.md lists the URLs and the anchors:

* ``#el-<kind>`` for a board element, ``<kind>`` being the key of a cell in the board JSON
  (``walls`` and ``lasers`` give ``#el-wall`` and ``#el-laser``, ``start_facing`` belongs to
  ``#el-start``): see :func:`element_anchor`;
* ``#card-<id>`` for a card, ``<id>`` being its id in ``GET /api/web/cards?edition=E``.

Every page exists in the languages of :data:`roborally.content.i18n.LANGUAGES`:
``/rules/2023?lang=uk`` (without ``?lang`` the browser's Accept-Language picks one, else
English). The words of another language come from ``2023.LANG.toml`` beside ``2023.toml``: the
same tables and keys, holding only the texts (:func:`translated`); the page's own chrome comes
from the translation files (``rules.*`` keys), card names and texts from the card catalogue's
translations when they exist (:func:`card_words`).

A page is built once per process and language (the pictures take a moment to draw), off the
event loop, and then served from memory. Mount :data:`routes` before the static files.
"""

from __future__ import annotations

import html
import re
import tomllib
from collections.abc import Callable, Iterable
from functools import cache
from importlib import resources
from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import HTMLResponse, Response
from starlette.routing import BaseRoute, Route

from roborally.content.boardtext import parse_board
from roborally.content.catalogue import cards_json, catalogue
from roborally.content.i18n import DEFAULT, LANGUAGES, strings, text
from roborally.engine.core.board import Board, Course, Grid
from roborally.engine.core.geometry import Direction, Pos
from roborally.engine.editions import all_editions
from roborally.render import RobotMark, render
from roborally.server.index_page import choose_language

RULES = resources.files("roborally.content") / "data" / "rules"
CELL = 48
CACHE = "public, max-age=3600"
#: Robot colours in the pictures: the page's seat colours (static/js/util.js), by label 1, 2 ...
ROBOT_COLOURS = ("#e8453c", "#2f80ed", "#27ae60", "#f2c94c", "#9b51e0", "#f2994a")
#: Board JSON keys whose anchor is not ``el-<key>``.
ANCHOR_OF_KEY = {"walls": "wall", "lasers": "laser", "start_facing": "start"}
#: Keys of a board JSON cell that say where it is, not what is on it.
PLACE_KEYS = frozenset({"x", "y", "board"})


def element_anchor(key: str) -> str:
    """The anchor of the section about a board JSON cell key: ``walls`` -> ``el-wall``."""
    return "el-" + ANCHOR_OF_KEY.get(key, key)


def element_keys(board_json: dict[str, Any]) -> set[str]:
    """The element keys that the cells of a board JSON (``GET /api/courses/{id}``) use."""
    return {key for cell in board_json["cells"] for key in cell if key not in PLACE_KEYS}


# --------------------------------------------------------------------------------- the data
def family(edition: str) -> str:
    """The data file an edition's page comes from: ``classic-1994`` -> ``classic``."""
    return edition.split("-", 1)[0]


#: Keys whose values are not words to translate: a translation leaves them out (``id`` and
#: ``kind`` excepted: they name the topic or element a translated table belongs to).
NOT_WORDS = frozenset(
    {"editions", "board", "robots", "only", "overlays_switch_off", "classic_colours"}
)
#: Keys a translated table repeats from the English one, to say which table it is.
NAMES = ("id", "kind")


def _read(name: str) -> dict[str, Any] | None:
    path = RULES / f"{name}.toml"
    if not path.is_file():
        return None
    return tomllib.loads(path.read_text(encoding="utf-8"))


def translated(english: Any, words: Any, where: str = "") -> Any:
    """The English data with the texts of ``words`` (a translation with the same tables and
    keys, holding only texts) put in place; a list of tables is matched entry by entry, and an
    entry's ``id`` or ``kind`` must be the English one's (``ValueError`` when not)."""
    if isinstance(english, dict) and isinstance(words, dict):
        for name in NAMES:
            if name in words and words[name] != english.get(name):
                raise ValueError(f"{where}: {name} {words[name]!r} is not {english.get(name)!r}")
        return {
            key: translated(value, words[key], f"{where}.{key}") if key in words else value
            for key, value in english.items()
        }
    if isinstance(english, list) and isinstance(words, list):
        if len(words) != len(english):
            raise ValueError(f"{where}: {len(words)} entries, English has {len(english)}")
        return [
            translated(e, w, f"{where}[{i}]")
            for i, (e, w) in enumerate(zip(english, words, strict=True))
        ]
    return words


@cache
def _family_data(name: str, lang: str = DEFAULT) -> dict[str, Any] | None:
    english = _read(name)
    if english is None or lang == DEFAULT:
        return english
    words = _read(f"{name}.{lang}")
    return english if words is None else translated(english, words, f"{name}.{lang}.toml")


def page_editions() -> tuple[str, ...]:
    """The editions that have a rules page: registered, and described in the data."""
    return tuple(
        e.id
        for e in all_editions()
        if (data := _family_data(family(e.id))) and e.id in data.get("editions", ())
    )


def _suffix(edition: str) -> str | None:
    """The key suffix of an edition's own texts: ``classic-1994`` -> ``_1994``."""
    return "_" + edition.split("-", 1)[1] if "-" in edition else None


def _specialise(value: Any, edition: str, suffixes: frozenset[str]) -> Any:
    """``value`` for ``edition``: tables whose ``only`` leaves the edition out are dropped, and
    a key ``K_<suffix>`` (``text_1994`` on the ``classic-1994`` page) replaces ``K``; keys with
    another edition's suffix (``suffixes``) are left out."""
    suffix = _suffix(edition)
    if isinstance(value, list):
        kept = [
            item
            for item in value
            if not isinstance(item, dict) or edition in item.get("only", (edition,))
        ]
        return [_specialise(item, edition, suffixes) for item in kept]
    if isinstance(value, dict):
        out: dict[str, Any] = {}
        for key, item in value.items():
            if any(key.endswith(s) for s in suffixes):
                continue
            if suffix and key + suffix in value:
                item = value[key + suffix]
            out[key] = _specialise(item, edition, suffixes)
        return out
    return value


def rules_data(edition: str, lang: str = DEFAULT) -> dict[str, Any]:
    """The page data of ``edition`` in ``lang`` (``ValueError`` when it has no page)."""
    data = _family_data(family(edition), lang)
    if data is None or edition not in data.get("editions", ()):
        raise ValueError(f"no rules page for edition {edition!r}")
    suffixes = frozenset(s for e in data["editions"] if (s := _suffix(e)))
    result: dict[str, Any] = _specialise(data, edition, suffixes)
    return result


@cache
def example_board(name: str) -> Board:
    """An example board of the pages (``rules/boards/NAME.board``)."""
    path = RULES / "boards" / f"{name}.board"
    return parse_board(path.read_text(encoding="utf-8"), f"rules/boards/{name}.board")


# ----------------------------------------------------------------------------- small markup
_STRONG = re.compile(r"\*\*(.+?)\*\*")
_EM = re.compile(r"(?<![\w*])\*(?![\s*])(.+?)(?<![\s*])\*(?![\w*])")
_LINK = re.compile(r"\[([^\]]+)\]\(([^)\s]+)\)")
_ITEM = re.compile(r"^(?:- |\d+\. )")


def inline(text: str) -> str:
    """Escaped text with ``**strong**``, ``*emphasis*`` and ``[links](#anchor)``."""
    out = html.escape(" ".join(text.split()))
    out = _LINK.sub(r'<a href="\2">\1</a>', out)
    out = _STRONG.sub(r"<strong>\1</strong>", out)
    return _EM.sub(r"<em>\1</em>", out)


def markdown(text: str) -> str:
    """The small Markdown of the data files: paragraphs, ``-`` and ``1.`` lists, ``|`` tables
    (the first row is the header) and :func:`inline` markup."""
    out: list[str] = []
    for block in re.split(r"\n[ \t]*\n", text.strip()):
        lines = [line.rstrip() for line in block.splitlines() if line.strip()]
        if not lines:
            continue
        if _ITEM.match(lines[0]):
            items: list[str] = []
            for line in lines:
                if _ITEM.match(line):
                    items.append(_ITEM.sub("", line))
                else:
                    items[-1] += " " + line.strip()
            tag = "ul" if lines[0].startswith("- ") else "ol"
            body = "".join(f"<li>{inline(item)}</li>" for item in items)
            out.append(f"<{tag}>{body}</{tag}>")
        elif lines[0].startswith("|"):
            out.append(_table(lines))
        else:
            out.append(f"<p>{inline(' '.join(lines))}</p>")
    return "\n".join(out)


def _table(lines: list[str]) -> str:
    rows = [
        [cell.strip() for cell in line.strip().strip("|").split("|")]
        for line in lines
        if not re.fullmatch(r"\|[\s:|-]+\|?", line.strip())
    ]
    head = "".join(f"<th>{inline(cell)}</th>" for cell in rows[0])
    body = "".join(
        "<tr>" + "".join(f"<td>{inline(cell)}</td>" for cell in row) + "</tr>" for row in rows[1:]
    )
    table = f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"
    return f'<div class="table">{table}</div>'


def _attr(value: str) -> str:
    return html.escape(value, quote=True)


def plain(text: str) -> str:
    """The words of a text in the small Markdown, without its marks (for ``aria-label``)."""
    return " ".join(_LINK.sub(r"\1", text).replace("*", "").split())


# ----------------------------------------------------------------------------------- pictures
def figure_svg(
    board: Board,
    robots: Iterable[dict[str, Any]],
    *,
    classic: bool,
    overlays_switch_off: bool,
    prefix: str,
    label: str,
) -> str:
    """``board`` drawn by the renderer as inline SVG, with ``robots`` (``label``, ``at``,
    ``facing``) on it; its element ids start with ``prefix`` (one page holds many pictures)."""
    grid = Grid(Course.single(board), overlays_disable_elements=overlays_switch_off)
    marks = [
        RobotMark(
            Pos(*robot["at"]),
            Direction.parse(robot["facing"]),
            ROBOT_COLOURS[(int(robot["label"]) - 1) % len(ROBOT_COLOURS)],
            str(robot["label"]),
        )
        for robot in robots
    ]
    svg = render(grid, robots=marks, cell=CELL, classic=classic).strip()
    svg = svg.replace(' id="rr-', f' id="{prefix}-rr-')
    # The renderer's <title> names the board; the label says what the picture shows.
    svg = re.sub(r"<title>.*?</title>\n?", "", svg, count=1)
    return svg.replace("<svg ", f'<svg role="img" aria-label="{_attr(label)}" ', 1)


def _figures(element: dict[str, Any], data: dict[str, Any], anchor: str) -> str:
    figures = element.get("figure") or [{}]
    out = ['<div class="figures">']
    for number, fig in enumerate(figures, start=1):
        board = example_board(fig.get("board", element.get("board", "")))
        caption = fig.get("caption", "")
        svg = figure_svg(
            board,
            fig.get("robots", ()),
            classic=bool(data.get("classic_colours")),
            overlays_switch_off=bool(data.get("overlays_switch_off", True)),
            prefix=f"{anchor}-{number}",
            label=plain(caption or element["title"]),
        )
        out.append(f"<figure>{svg}")
        if caption:
            out.append(f"<figcaption>{inline(caption)}</figcaption>")
        out.append("</figure>")
    out.append("</div>")
    return "\n".join(out)


# ------------------------------------------------------------------------------------ the page
def _topic(topic: dict[str, Any]) -> str:
    return (
        f'<section class="topic" id="{_attr(topic["id"])}">'
        f"<h3>{inline(topic['title'])}</h3>\n{markdown(topic['text'])}</section>"
    )


#: The facts under an element's text, and the key of their label in the translation files.
FACTS = (("when", "rules.when"), ("params", "rules.on_the_board"))


def _element(element: dict[str, Any], data: dict[str, Any], lang: str) -> str:
    anchor = "el-" + element["kind"]
    facts = "".join(
        f"<dt>{html.escape(text(lang, label))}</dt><dd>{inline(element[key])}</dd>"
        for key, label in FACTS
        if element.get(key)
    )
    layout = "side" if len(element.get("figure") or [{}]) == 1 else "stacked"
    return (
        f'<section class="element {layout}" id="{anchor}"><h3>{inline(element["title"])}</h3>\n'
        f"{_figures(element, data, anchor)}\n"
        f'<div class="about">{markdown(element["text"])}'
        + (f'<dl class="facts">{facts}</dl>' if facts else "")
        + "</div></section>"
    )


def card_words(lang: str, card_id: str, card: dict[str, Any]) -> tuple[str, str]:
    """A card's name and text in ``lang``: the translation of the catalogue's ``key``
    (``KEY.name`` and ``KEY.text`` in the translation files) when there is one, else the card
    data's English words."""
    table = strings(lang)
    key = card.get("key")
    if not key:
        return card["name"], card["text"]
    return table.get(f"{key}.name", card["name"]), table.get(f"{key}.text", card["text"])


def _card_facts(card: dict[str, Any], entry: dict[str, Any], words: dict[str, Any]) -> str:
    """The small line above a card's text: its kind, cost and copies, in the section's words."""
    bits: list[str] = []
    kind = words.get("kinds", {}).get(card["type"])
    if kind:
        bits.append(kind)
    if "cost" in card and "cost" in words:
        bits.append(words["cost"].format(cost=card["cost"]))
    if entry.get("movement") and "movement" in words:
        bits.append(words["movement"])
    if "count" in entry and "copies" in words:
        bits.append(words["copies"].format(count=entry["count"]))
    return " · ".join(html.escape(bit) for bit in bits)


def _card_open(anchor: str, kind: str, name: str, facts: str, text: str, note: str) -> str:
    """A card's ``<article>`` with its name, facts, text and note; the caller closes it."""
    return (
        f'<article class="card {_attr(kind)}" id="card-{_attr(anchor)}">'
        f"<h4>{html.escape(name)}</h4>"
        + (f'<p class="card-facts">{facts}</p>' if facts else "")
        + f'<p class="card-text">{html.escape(text)}</p>'
        + (f'<div class="note">{markdown(note)}</div>' if note else "")
    )


def _card(
    card_id: str,
    card: dict[str, Any],
    entry: dict[str, Any],
    words: dict[str, Any],
    notes: dict[str, str],
    lang: str,
) -> str:
    facts = _card_facts(card, entry, words)
    name, card_text = card_words(lang, card_id, card)
    head = _card_open(card_id, card["type"], name, facts, card_text, notes.get(card_id, ""))
    return head + "</article>"


def _priority_types(
    cards: list[tuple[str, dict[str, Any]]],
    words: dict[str, Any],
    notes: dict[str, str],
    lang: str,
) -> list[str]:
    """Cards with priority numbers (classic): one article per type, fastest type first, with a
    chip per card that carries the card's own anchor."""
    types: dict[str, list[tuple[str, dict[str, Any]]]] = {}
    for card_id, card in cards:
        types.setdefault(card["type"], []).append((card_id, card))
    ordered = sorted(types.items(), key=lambda item: -max(c["priority"] for _, c in item[1]))
    out = []
    for kind, members in ordered:
        name, card_text = card_words(lang, *members[0])
        facts = html.escape(words.get("copies", "{count}").format(count=len(members)))
        chips = "".join(
            f'<li id="card-{_attr(card_id)}">{card["priority"]}</li>'
            for card_id, card in sorted(members, key=lambda m: m[1]["priority"])
        )
        label = html.escape(words.get("priorities", text(lang, "rules.priorities")))
        out.append(
            _card_open(kind, "program", name, facts, card_text, notes.get(kind, ""))
            + f'<p class="priorities-label">{label}</p><ul class="priorities">{chips}</ul>'
            "</article>"
        )
    return out


def _card_sections(
    edition: str, data: dict[str, Any], lang: str
) -> tuple[list[str], list[tuple[str, str]]]:
    """The card sections (HTML) and their contents entries (anchor, title)."""
    served = cards_json(edition)
    assert served is not None, edition
    entries = {
        str(entry["id"]): entry for section in catalogue(edition).values() for entry in section
    }
    sections: dict[str, list[tuple[str, dict[str, Any]]]] = {}
    for card_id, card in served["cards"].items():
        sections.setdefault(card["section"], []).append((card_id, card))
    about = data.get("card_sections", {})
    notes: dict[str, str] = data.get("card_notes", {})
    html_out: list[str] = []
    toc: list[tuple[str, str]] = []
    for name, cards in sections.items():
        words = about.get(name, {})
        anchor = name.replace("_", "-")
        title = words.get("title", name.replace("_", " ").capitalize())
        toc.append((anchor, title))
        parts = [f'<section class="cards" id="{anchor}"><h3>{inline(title)}</h3>']
        if words.get("intro"):
            parts.append(markdown(words["intro"]))
        if any("priority" in card for _, card in cards):
            parts.append('<div class="card-grid">')
            parts += _priority_types(cards, words, notes, lang)
            parts.append("</div>")
        else:
            groups: dict[str, list[tuple[str, dict[str, Any]]]] = {}
            for card_id, card in cards:
                groups.setdefault(card["type"], []).append((card_id, card))
            group_titles = words.get("groups", {})
            for kind, members in groups.items():
                if len(groups) > 1 and kind in group_titles:
                    parts.append(f'<h4 class="group">{inline(group_titles[kind])}</h4>')
                parts.append('<div class="card-grid">')
                parts += [_card(i, c, entries.get(i, {}), words, notes, lang) for i, c in members]
                parts.append("</div>")
        parts.append("</section>")
        html_out.append("\n".join(parts))
    return html_out, toc


def _toc(groups: list[tuple[str, str, list[tuple[str, str]]]], lang: str) -> str:
    contents = html.escape(text(lang, "rules.contents"))
    out = [f'<nav class="toc" aria-label="{contents}"><h2>{contents}</h2><ol>']
    for anchor, title, entries in groups:
        links = "".join(f'<li><a href="#{_attr(a)}">{inline(t)}</a></li>' for a, t in entries)
        out.append(
            f'<li><a class="part-link" href="#{_attr(anchor)}">{inline(title)}</a>'
            f'<ul class="chips">{links}</ul></li>'
        )
    out.append("</ol></nav>")
    return "\n".join(out)


def _head(title: str, lang: str) -> str:
    return (
        f'<!doctype html>\n<html lang="{_attr(lang)}">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        '<meta name="color-scheme" content="dark">\n'
        '<meta name="theme-color" content="#151922">\n'
        f"<title>{html.escape(title)}</title>\n"
        '<link rel="icon" href="/favicon.svg" type="image/svg+xml">\n'
        '<link rel="stylesheet" href="/theme.css">\n'
        '<link rel="stylesheet" href="/rules.css">\n</head>\n'
    )


@cache
def _page_names(lang: str = DEFAULT) -> tuple[tuple[str, str, str], ...]:
    """Each page's edition, short name (the bar at the top) and title."""
    return tuple((e, (d := rules_data(e, lang))["short"], d["title"]) for e in page_editions())


def _page_list(lang: str) -> str:
    return "".join(
        f'<li><a href="/rules/{e}">{html.escape(title)}</a></li>'
        for e, _, title in _page_names(lang)
    )


def _languages(lang: str) -> str:
    """Links to the same page in every language (``?lang=xx`` keeps the path)."""
    links = []
    for code in LANGUAGES:
        here = ' aria-current="true"' if code == lang else ""
        name = html.escape(text(code, "language.name"))
        links.append(f'<a href="?lang={code}" hreflang="{code}" lang="{code}"{here}>{name}</a>')
    label = html.escape(text(lang, "rules.languages"))
    return f'<nav class="languages" aria-label="{label}">{"".join(links)}</nav>'


def _top_bar(current: str | None, lang: str) -> str:
    links = []
    for edition, short, _ in _page_names(lang):
        label = html.escape(short)
        here = ' aria-current="page"' if edition == current else ""
        links.append(f'<a href="/rules/{edition}"{here}>{label}</a>')
    editions = html.escape(text(lang, "rules.editions"))
    back = html.escape(text(lang, "rules.back"))
    return (
        f'<header class="top" id="top"><a class="back" href="/">{back}</a>'
        f'<nav class="editions" aria-label="{editions}">{"".join(links)}</nav>'
        f"{_languages(lang)}</header>\n"
    )


_SITE_LINK = re.compile(r'href="(/(?:rules/[^"#?]*)?)(#[^"]*)?"')


def _keep_language(page: str, lang: str) -> str:
    """``page`` with its links to the lobby and to the rules pages in ``lang`` too."""
    if lang == DEFAULT:
        return page
    return _SITE_LINK.sub(lambda m: f'href="{m[1]}?lang={lang}{m[2] or ""}"', page)


PART_TITLES = {"round": "How a round goes", "elements": "Board elements", "cards": "Cards"}


def _part(anchor: str, title: str, body: Iterable[str]) -> str:
    return "\n".join(
        [f'<section class="part" id="{anchor}"><h2>{inline(title)}</h2>', *body, "</section>"]
    )


@cache
def page_html(edition: str, lang: str = DEFAULT) -> str:
    """The whole rules page of ``edition`` in ``lang`` (``ValueError`` when it has none)."""
    data = rules_data(edition, lang)
    topics = data.get("topic", [])
    elements = data.get("element", [])
    card_html, card_toc = _card_sections(edition, data, lang)
    titles = PART_TITLES | data.get("parts", {})
    toc = _toc(
        [
            ("round", titles["round"], [(t["id"], t.get("short", t["title"])) for t in topics]),
            (
                "elements",
                titles["elements"],
                [("el-" + e["kind"], e.get("short", e["title"])) for e in elements],
            ),
            ("cards", titles["cards"], card_toc),
        ],
        lang,
    )
    body = [
        _head(data["title"], lang),
        f'<body class="rules" data-edition="{_attr(edition)}">\n',
        _top_bar(edition, lang),
        '<div class="layout">',
        f'<div class="intro"><h1>{inline(data["title"])}</h1>',
        f'<div class="lead">{markdown(data.get("intro", ""))}</div></div>',
        toc,
        "<main>",
        _part("round", titles["round"], (_topic(t) for t in topics)),
        _part("elements", titles["elements"], (_element(e, data, lang) for e in elements)),
        _part("cards", titles["cards"], card_html),
        f'<footer><a href="/">{html.escape(text(lang, "rules.back_to_lobby"))}</a> · '
        f'<a href="#top">{html.escape(text(lang, "rules.top"))}</a></footer>',
        "</main></div>\n</body>\n</html>\n",
    ]
    return _keep_language("\n".join(body), lang)


def not_found_html(edition: str, lang: str = DEFAULT) -> str:
    """The answer to an unknown edition (cheap: it is made on the event loop)."""
    shown = f"<strong>{html.escape(edition[:40])}</strong>"
    about = html.escape(text(lang, "rules.no_page_text", edition="\0")).replace("\0", shown)
    page = (
        _head(text(lang, "rules.no_page_title"), lang)
        + '<body class="rules">\n'
        + _top_bar(None, lang)
        + f'<main class="alone"><h1>{html.escape(text(lang, "rules.no_page_heading"))}</h1>'
        f"<p>{about}</p><ul>{_page_list(lang)}</ul></main>\n</body>\n</html>\n"
    )
    return _keep_language(page, lang)


@cache
def index_html(lang: str = DEFAULT) -> str:
    title = html.escape(text(lang, "rules.index_title"))
    page = (
        _head(text(lang, "rules.index_title"), lang)
        + '<body class="rules">\n'
        + _top_bar(None, lang)
        + f'<main class="alone"><h1>{title}</h1><ul>{_page_list(lang)}</ul></main>\n'
        + "</body>\n</html>\n"
    )
    return _keep_language(page, lang)


# ---------------------------------------------------------------------------------- the routes
#: The pages served so far, by page ("" for the index) and language (only known editions and
#: languages get here, so it stays small).
BUILT: dict[tuple[str, str], str] = {}


def page_language(request: Request) -> str:
    """The language of the page asked for: ``?lang=xx``, else the first of the browser's
    languages (Accept-Language, by weight) that the pages have, else English."""
    return choose_language(
        request.query_params.get("lang"), None, request.headers.get("accept-language")
    )


#: The pages depend on the browser's languages when the address names none.
HEADERS = {"Cache-Control": CACHE, "Vary": "Accept-Language"}


async def _built(key: str, lang: str, build: Callable[[], str]) -> Response:
    """The page ``key`` in ``lang`` from memory; the first time it is built in a worker thread
    (drawing the pictures takes a moment that the event loop should not wait for)."""
    page = BUILT.get((key, lang))
    if page is None:
        page = BUILT[key, lang] = await run_in_threadpool(build)
    return HTMLResponse(page, headers=HEADERS)


async def rules_index(request: Request) -> Response:
    lang = page_language(request)
    return await _built("", lang, lambda: index_html(lang))


async def rules_page(request: Request) -> Response:
    edition = request.path_params["edition"]
    lang = page_language(request)
    if edition not in {e for e, _, _ in _page_names()}:
        return HTMLResponse(not_found_html(edition, lang), status_code=404)
    return await _built(edition, lang, lambda: page_html(edition, lang))


routes: list[BaseRoute] = [
    Route("/rules", rules_index),
    Route("/rules/", rules_index),
    Route("/rules/{edition}", rules_page),
]
