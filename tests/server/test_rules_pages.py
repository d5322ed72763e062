"""The rules help pages (/rules/2023, /rules/classic, /rules/classic-1994): every board element
of the edition's courses has a section with a picture, every card of its catalogue has its
anchor, anchors are unique and every link inside a page finds its target."""

from __future__ import annotations

import html
import re
from collections.abc import Iterator
from html.parser import HTMLParser
from typing import Any

import pytest

from roborally.content.boardtext import parse_board
from roborally.content.i18n import LANGUAGES
from roborally.engine.core.board import Course, Grid
from roborally.engine.core.geometry import Pos
from roborally.render.showcase import showcase_board
from roborally.server import rules_pages
from roborally.server.boardjson import grid_to_json
from roborally.server.rulesets import courses_for

from .conftest import make_client

EDITIONS = ("2023", "classic", "classic-1994")
VOID = {"meta", "link", "br", "hr", "img", "input", "wbr", "col", "source", "area", "base"}


class Page(HTMLParser):
    """Ids, links, and a check that every element is closed where it should be."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.ids: list[str] = []
        self.links: list[str] = []
        self.stack: list[str] = []
        self.errors: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self._attrs(attrs)
        if tag not in VOID:
            self.stack.append(tag)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self._attrs(attrs)

    def _attrs(self, attrs: list[tuple[str, str | None]]) -> None:
        for name, value in attrs:
            if name == "id" and value is not None:
                self.ids.append(value)
            if name == "href" and value is not None:
                self.links.append(value)

    def handle_endtag(self, tag: str) -> None:
        if not self.stack or self.stack[-1] != tag:
            self.errors.append(f"</{tag}> closes {self.stack[-1:]} at {self.getpos()}")
            return
        self.stack.pop()


def parse(text: str) -> Page:
    page = Page()
    page.feed(text)
    page.close()
    return page


@pytest.fixture(scope="module")
def pages(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    """Every rules page as the server answers it, and a client to ask more."""
    with make_client(tmp_path_factory.mktemp("rules")) as client:
        answers = {e: client.get(f"/rules/{e}") for e in EDITIONS}
        yield {"client": client, **answers}


def section(text: str, anchor: str) -> str:
    """The HTML of the section (or article) with id ``anchor``."""
    match = re.search(
        rf'<(section|article)\b[^>]*\bid="{re.escape(html.escape(anchor))}"[^>]*>(.*?)</\1>',
        text,
        re.S,
    )
    assert match, f"no section #{anchor}"
    return match.group(2)


@pytest.mark.parametrize("edition", EDITIONS)
def test_the_page_answers_with_html(pages: dict[str, Any], edition: str) -> None:
    response = pages[edition]
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/html")
    assert "max-age" in response.headers["cache-control"]
    text = response.text
    assert text.startswith("<!doctype html>")
    assert '<meta name="viewport"' in text
    assert 'href="/theme.css"' in text and 'href="/rules.css"' in text
    assert '<a class="back" href="/">' in text  # back to the lobby
    assert '<nav class="toc"' in text  # the contents list
    page = parse(text)
    assert not page.errors, page.errors[:5]
    assert not page.stack, page.stack


@pytest.mark.parametrize("edition", EDITIONS)
def test_every_element_of_the_editions_courses_has_a_section_with_a_picture(
    pages: dict[str, Any], edition: str
) -> None:
    client, text = pages["client"], pages[edition].text
    kinds: set[str] = set()
    for course in courses_for(edition):
        board = client.get(f"/api/courses/{course.id}").json()["board"]
        kinds |= rules_pages.element_keys(board)
    # The courses do hold the elements of the edition (a sanity check of the test itself).
    assert {"belt", "walls", "lasers", "pit", "gear", "pusher", "checkpoint", "start"} <= kinds
    for key in sorted(kinds):
        anchor = rules_pages.element_anchor(key)
        body = section(text, anchor)
        assert "<svg" in body and 'class="board-layer"' in body, anchor
        assert "<figure>" in body and "<dl" in body, anchor  # what it does, when, parameters


@pytest.mark.parametrize("edition", EDITIONS)
def test_every_element_the_board_model_has_a_section_on_every_page(
    pages: dict[str, Any], edition: str
) -> None:
    """A hand-made course may hold any element (the showcase board holds them all): the game
    page may link to any of them, whatever the edition."""
    board = grid_to_json(Grid(Course.single(showcase_board())))
    text = pages[edition].text
    for key in rules_pages.element_keys(board) | {"walls"}:
        assert "<svg" in section(text, rules_pages.element_anchor(key))
    assert "<svg" in section(text, "el-edge")


def test_the_anchors_of_the_board_json_keys() -> None:
    assert rules_pages.element_anchor("walls") == "el-wall"
    assert rules_pages.element_anchor("lasers") == "el-laser"
    assert rules_pages.element_anchor("start_facing") == "el-start"
    assert rules_pages.element_anchor("belt") == "el-belt"
    cell = {"x": 1, "y": 2, "board": 0, "walls": ["N"], "belt": {}, "inactive": True}
    assert rules_pages.element_keys({"cells": [cell]}) == {"walls", "belt", "inactive"}


@pytest.mark.parametrize("edition", EDITIONS)
def test_every_card_of_the_catalogue_has_its_section(pages: dict[str, Any], edition: str) -> None:
    client, text = pages["client"], pages[edition].text
    cards = client.get(f"/api/web/cards?edition={edition}").json()["cards"]
    expected = {"2023": 55, "classic": 110, "classic-1994": 110}[edition]
    assert len(cards) == expected
    ids = set(parse(text).ids)
    for card_id, card in cards.items():
        assert f"card-{card_id}" in ids, card_id
        # The card's own text from the card data, word for word.
        assert html.escape(card["text"]) in text, card_id
        assert html.escape(card["name"]) in text, card_id
    if edition == "2023":
        for card_id in ("move1", "spam", "recharge", "hw_two", "crab_legs"):
            assert html.escape(cards[card_id]["text"]) in section(text, f"card-{card_id}")
    else:
        # One article per card type, a chip (and anchor) per card with its priority.
        assert re.search(r'<li id="card-move1@490">490</li>', text)
        assert cards["move1@490"]["text"] in section(text, "card-move1")
        assert "card-ablative_coat" in ids


@pytest.mark.parametrize("edition", EDITIONS)
def test_anchors_are_unique_and_every_link_finds_its_target(
    pages: dict[str, Any], edition: str
) -> None:
    page = parse(pages[edition].text)
    duplicates = sorted({i for i in page.ids if page.ids.count(i) > 1})
    assert not duplicates
    ids = set(page.ids)
    others = {e: set(parse(pages[e].text).ids) for e in EDITIONS}
    for link in page.links:
        if link.startswith("#"):
            assert link[1:] in ids, link
        elif link.startswith("/rules/"):
            path, _, anchor = link.partition("#")
            target = path.removeprefix("/rules/")
            assert target in others, link
            assert not anchor or anchor in others[target], link
        elif link.startswith("?lang="):  # the same page in another language
            assert link.removeprefix("?lang=") in LANGUAGES, link
        else:
            assert link in ("/", "/theme.css", "/rules.css", "/favicon.svg"), link
    # The contents list links every part, topic, element and card section.
    for anchor in (
        "round",
        "elements",
        "cards",
        "goal",
        "el-belt",
        "program-cards" if edition != "2023" else "programming-cards",
    ):
        assert f'href="#{anchor}"' in pages[edition].text


def test_the_pages_follow_their_edition(pages: dict[str, Any]) -> None:
    y23, classic, y94 = (pages[e].text for e in EDITIONS)
    assert "priority token" in y23 and "Upgrades" in y23
    # Classic flags leave the element under them working (the 2023 overlay rule does not apply),
    # so the picture draws the belt under the flag at full strength.
    under_flag = section(classic, "el-inactive")
    assert 'class="belt green' in under_flag and 'class="belt green inactive' not in under_flag
    assert 'class="belt green inactive"' in section(y23, "el-inactive")
    # Classic belts are yellow, as on the classic boards.
    assert "#e3b82a" in section(classic, "el-belt") and "#e3b82a" not in section(y23, "el-belt")
    # The 1994 page has its own texts; neither page shows the other's.
    assert "start on checkpoint 1" in y94 and "Worse backup copy" in y94
    assert "Worse backup copy" not in classic and "dock 1" in classic
    assert "classic rules of 1994" in y94 and "classic rules of 1994" not in classic
    for text in (classic, y94):
        assert "_1994" not in text


def test_one_data_file_serves_the_1994_page_too() -> None:
    data = {
        "editions": ["classic", "classic-1994"],
        "title": "2005",
        "title_1994": "1994",
        "topic": [{"id": "a", "text": "x"}, {"id": "b", "text": "y", "only": ["classic-1994"]}],
    }
    classic = rules_pages._specialise(data, "classic", frozenset({"_1994"}))
    y94 = rules_pages._specialise(data, "classic-1994", frozenset({"_1994"}))
    assert classic["title"] == "2005" and "title_1994" not in classic
    assert y94["title"] == "1994" and "title_1994" not in y94
    assert [t["id"] for t in classic["topic"]] == ["a"]
    assert [t["id"] for t in y94["topic"]] == ["a", "b"]


def test_an_unknown_edition_is_answered_with_a_clear_404(pages: dict[str, Any]) -> None:
    client = pages["client"]
    response = client.get("/rules/chess")
    assert response.status_code == 404
    assert response.headers["content-type"].startswith("text/html")
    assert "no rules page for the edition <strong>chess</strong>" in response.text.lower()
    for edition in EDITIONS:
        assert f'href="/rules/{edition}"' in response.text
    evil = client.get("/rules/%3Cscript%3Ealert(1)%3C%2Fscript%3E")
    assert evil.status_code == 404 and "<script>" not in evil.text
    index = client.get("/rules")
    assert index.status_code == 200
    assert all(f'href="/rules/{e}"' in index.text for e in EDITIONS)
    assert client.get("/rules.css").status_code == 200
    assert client.get("/theme.css").status_code == 200


def test_a_page_is_built_once_and_served_from_memory(pages: dict[str, Any]) -> None:
    client = pages["client"]
    before = rules_pages.page_html.cache_info()
    again = client.get("/rules/2023")
    assert rules_pages.page_html.cache_info() == before  # not even looked up again
    assert again.text == pages["2023"].text == rules_pages.BUILT["2023", "en"]
    assert {page for page, _ in rules_pages.BUILT} <= {"", *EDITIONS}
    assert {lang for _, lang in rules_pages.BUILT} <= set(LANGUAGES)


def test_every_example_board_is_valid_and_its_robots_stand_on_it() -> None:
    names = set()
    for edition in EDITIONS:
        for element in rules_pages.rules_data(edition)["element"]:
            for figure in element.get("figure", [{}]):
                name = figure.get("board", element["board"])
                names.add(name)
                board = rules_pages.example_board(name)
                taken = set()
                for robot in figure.get("robots", ()):
                    pos = Pos(*robot["at"])
                    assert board.contains(pos), (name, robot)
                    assert pos not in taken, (name, robot)
                    taken.add(pos)
    folder = rules_pages.RULES / "boards"
    files = {p.name.removesuffix(".board") for p in folder.iterdir() if p.name.endswith(".board")}
    assert names == files  # no board file is left unused
    for name in files:
        parse_board((folder / f"{name}.board").read_text(encoding="utf-8"), name)


def test_the_small_markup_escapes_and_links() -> None:
    assert rules_pages.inline("a <b> & **c** *d* [e](#el-x)") == (
        'a &lt;b&gt; &amp; <strong>c</strong> <em>d</em> <a href="#el-x">e</a>'
    )
    text = "Intro.\n\n- one\n  more\n- two\n\n1. first\n2. second\n\n| a | b |\n|--|--|\n| 1 | 2 |"
    out = rules_pages.markdown(text)
    assert out.startswith("<p>Intro.</p>")
    assert "<ul><li>one more</li><li>two</li></ul>" in out
    assert "<ol><li>first</li><li>second</li></ol>" in out
    assert "<thead><tr><th>a</th><th>b</th></tr></thead><tbody><tr><td>1</td>" in out


def test_the_pictures_keep_their_ids_apart() -> None:
    svg = rules_pages.figure_svg(
        rules_pages.example_board("gears"),
        [{"label": "1", "at": [0, 0], "facing": "N"}],
        classic=False,
        overlays_switch_off=True,
        prefix="el-gear-1",
        label="Robot 1 on a gear",
    )
    assert 'id="el-gear-1-rr-board-layer"' in svg and 'id="rr-' not in svg
    assert 'aria-label="Robot 1 on a gear"' in svg and "<title>" not in svg
    assert rules_pages.plain("Robot 1 plays **Move 2** [here](#x).") == "Robot 1 plays Move 2 here."
    assert 'class="robot"' in svg


def test_the_routes_come_before_the_static_files(pages: dict[str, Any]) -> None:
    paths = [getattr(r, "path", "") for r in pages["client"].app.router.routes]
    assert paths.index("/rules/{edition}") < paths.index("")  # "" is the static Mount at "/"
