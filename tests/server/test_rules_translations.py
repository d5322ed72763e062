"""The rules help pages in every language: each translation file (``rules/EDITION.LANG.toml``)
has every text of the English file and nothing else, for the same topics and elements; each
page answers in its language, with every section, anchor and card, and no English paragraph
left over; the language is picked from ``?lang=`` or the browser's languages."""

from __future__ import annotations

import html
import re
import tomllib
from collections.abc import Iterator
from typing import Any

import pytest

from roborally.content.i18n import LANGUAGES
from roborally.server import rules_pages

from .conftest import make_client
from .test_rules_pages import EDITIONS, parse

FAMILIES = ("2023", "classic")
OTHERS = tuple(lang for lang in LANGUAGES if lang != "en")


def raw(name: str) -> dict[str, Any]:
    path = rules_pages.RULES / f"{name}.toml"
    assert path.is_file(), f"rules/{name}.toml is missing"
    data: dict[str, Any] = tomllib.loads(path.read_text(encoding="utf-8"))
    return data


def words(data: Any, where: str = "") -> dict[str, Any]:
    """Every text of a rules file by its place (``topic[3].text``), and the names (``id``,
    ``kind``) that say which topic or element a place belongs to."""
    found: dict[str, Any] = {}
    if isinstance(data, dict):
        for key, value in data.items():
            if key not in rules_pages.NOT_WORDS:
                found |= words(value, f"{where}.{key}" if where else key)
    elif isinstance(data, list) and all(isinstance(item, dict) for item in data):
        for number, item in enumerate(data):
            found |= words(item, f"{where}[{number}]")
    else:
        found[where] = data
    return found


@pytest.mark.parametrize("lang", OTHERS)
@pytest.mark.parametrize("name", FAMILIES)
def test_every_translation_has_every_text_of_the_english_file(name: str, lang: str) -> None:
    english, other = words(raw(name)), words(raw(f"{name}.{lang}"))
    assert sorted(set(english) - set(other)) == [], f"{name}.{lang}.toml lacks these texts"
    assert sorted(set(other) - set(english)) == [], f"{name}.{lang}.toml has texts English lacks"
    for place, value in english.items():
        if place.endswith((".id", ".kind")):
            assert other[place] == value, place  # the same topic or element in the same place
            continue
        assert type(other[place]) is type(value), place
        if isinstance(value, str):
            assert other[place].strip(), place
            # The same links to the same anchors, and the same placeholders.
            assert re.findall(r"\]\(([^)]+)\)", other[place]) == re.findall(
                r"\]\(([^)]+)\)", value
            ), place
            assert set(re.findall(r"\{\w+\}", other[place])) == set(
                re.findall(r"\{\w+\}", value)
            ), place
            if value.count("\n|") or value.startswith("|"):
                assert other[place].count("|") == value.count("|"), place  # the same table


@pytest.mark.parametrize("lang", OTHERS)
@pytest.mark.parametrize("name", FAMILIES)
def test_a_translation_is_laid_over_the_english_data(name: str, lang: str) -> None:
    data = rules_pages._family_data(name, lang)
    english = rules_pages._family_data(name)
    assert data is not None and english is not None
    assert data["editions"] == english["editions"]
    # The pictures are the English file's: boards and robots.
    for mine, theirs in zip(data["element"], english["element"], strict=True):
        assert mine["board"] == theirs["board"]
        assert mine.get("figure") == [
            f | {k: v for k, v in m.items() if k.startswith("caption")}
            for f, m in zip(theirs.get("figure", []), mine.get("figure", []), strict=True)
        ]
    with pytest.raises(ValueError, match="kind"):
        rules_pages.translated({"element": [{"kind": "belt"}]}, {"element": [{"kind": "gear"}]})


@pytest.fixture(scope="module")
def pages(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[Any, Any]]:
    with make_client(tmp_path_factory.mktemp("rules-i18n")) as client:
        answers: dict[Any, Any] = {
            (e, lang): client.get(f"/rules/{e}?lang={lang}") for e in EDITIONS for lang in LANGUAGES
        }
        yield {"client": client, **answers}


def english_sentences(edition: str) -> set[str]:
    """The texts of 4 words or more on the English page that a translation must not keep:
    paragraphs, list items, table cells, captions, headings (not the card data's texts)."""
    found = set()
    for place, value in words(rules_pages.rules_data(edition)).items():
        if not isinstance(value, str) or place.endswith((".id", ".kind")):
            continue
        for piece in re.split(r"\n\s*\n|\n\s*(?:- |\d+\. )|\|", value):
            plain = rules_pages.plain(piece)
            if len(plain.split()) >= 4:
                found.add(html.escape(" ".join(plain.split())))
    return found


def visible_text(page: str) -> str:
    """The page's words, marks taken out, spaces made single (card texts left in; the
    pictures left out: their board name tags, hidden by the page's CSS, name the example
    boards)."""
    page = re.sub(r"<svg\b.*?</svg>", " ", page, flags=re.S)
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", page)).split())


@pytest.mark.parametrize("lang", OTHERS)
@pytest.mark.parametrize("edition", EDITIONS)
def test_the_page_in_another_language(pages: dict[Any, Any], edition: str, lang: str) -> None:
    response = pages[edition, lang]
    assert response.status_code == 200
    text = response.text
    assert f'<html lang="{lang}">' in text
    page = parse(text)
    assert not page.errors and not page.stack, page.errors[:5]
    # Every anchor of the English page, and no other.
    assert sorted(page.ids) == sorted(parse(pages[edition, "en"].text).ids)
    # The links stay in the language: the lobby, the other rules pages.
    for link in page.links:
        if link.startswith(("/rules", "/?", "/")) and not link.endswith((".css", ".svg")):
            assert f"?lang={lang}" in link, link
    # No English sentence of the page's own texts is left over.
    shown = " ".join(html.escape(visible_text(text)).split())
    left = sorted(s for s in english_sentences(edition) if s in shown)
    assert left == [], f"English left on the {lang} page: {left[:3]}"
    # The chrome is in the language too.
    for english in ("Back to the lobby", "Top of the page", "Contents", "On the board"):
        assert english not in text, english


@pytest.mark.parametrize("edition", EDITIONS)
def test_every_page_links_its_other_languages(pages: dict[Any, Any], edition: str) -> None:
    for lang in LANGUAGES:
        text = pages[edition, lang].text
        nav = re.search(r'<nav class="languages"[^>]*>(.*?)</nav>', text, re.S)
        assert nav, lang
        codes = re.findall(r'href="\?lang=(\w+)"', nav.group(1))
        assert codes == list(LANGUAGES)
        assert f'href="?lang={lang}" hreflang="{lang}" lang="{lang}" aria-current="true"' in text


def test_the_language_comes_from_the_address_or_the_browser(pages: dict[Any, Any]) -> None:
    client = pages["client"]
    assert '<html lang="en">' in client.get("/rules/2023").text
    assert '<html lang="en">' in client.get("/rules/2023?lang=xx").text
    asked = client.get("/rules/2023", headers={"Accept-Language": "de-DE, pl;q=0.8, uk;q=0.9"})
    assert '<html lang="uk">' in asked.text
    assert asked.headers["vary"] == "Accept-Language"
    # The address wins over the browser.
    assert (
        '<html lang="cs">'
        in client.get("/rules/classic?lang=cs", headers={"Accept-Language": "ru"}).text
    )
    # The index and the answer to an unknown edition speak the language too.
    index = client.get("/rules?lang=ru")
    assert '<html lang="ru">' in index.text and 'href="/rules/2023?lang=ru"' in index.text
    missing = client.get("/rules/chess?lang=pl")
    assert missing.status_code == 404 and '<html lang="pl">' in missing.text
    assert "<strong>chess</strong>" in missing.text


def test_card_words_come_from_the_translations_when_there_are_some() -> None:
    from roborally.content.catalogue import cards_json

    cards_2023, cards_classic = cards_json("2023"), cards_json("classic")
    assert cards_2023 is not None and cards_classic is not None
    move1 = cards_2023["cards"]["move1"]
    assert rules_pages.card_words("en", "move1", move1) == (move1["name"], move1["text"])
    uk = rules_pages.strings("uk")
    assert rules_pages.card_words("uk", "move1", move1) == (
        uk[f"{move1['key']}.name"],
        uk[f"{move1['key']}.text"],
    )
    # A classic program card has the classic words, whatever its priority, not the 2023 ones.
    u_turn = cards_classic["cards"]["u_turn@10"]
    assert rules_pages.card_words("en", "u_turn@10", u_turn) == (u_turn["name"], u_turn["text"])
    assert (
        rules_pages.card_words("pl", "u_turn@10", u_turn)[1]
        == rules_pages.strings("pl")[f"{u_turn['key']}.text"]
    )
    # Without a key (not a catalogue card), the English words.
    assert rules_pages.card_words("uk", "x", {"name": "X", "text": "Y."}) == ("X", "Y.")
