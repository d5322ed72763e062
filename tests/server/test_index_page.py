"""The page's first words (index.html's "Loading…" and its <noscript> note) come in the
reader's language: ?lang=, the remembered choice (a cookie the page sets), Accept-Language."""

from __future__ import annotations

import doctest

import pytest
from starlette.testclient import TestClient

from roborally.content.i18n import LANGUAGES, text
from roborally.server import index_page


def test_the_doctests() -> None:
    assert doctest.testmod(index_page).failed == 0


@pytest.mark.parametrize("lang", LANGUAGES)
def test_index_html_is_written_in_the_asked_language(client: TestClient, lang: str) -> None:
    for path in ("/", "/index.html"):
        page = client.get(path, params={"lang": lang}, headers={"Accept-Language": "de"}).text
        assert f'<html lang="{lang}"' in page
        assert text(lang, "page.loading") in page
        assert text(lang, "page.needs_js") in page
        assert '<script type="module" src="js/main.js">' in page


def test_the_language_comes_from_the_cookie_then_the_browser(client: TestClient) -> None:
    header = {"Accept-Language": "pl-PL,pl;q=0.9,en;q=0.5"}
    assert '<html lang="pl"' in client.get("/", headers=header).text
    client.cookies.set(index_page.COOKIE, "uk")
    page = client.get("/", headers=header).text
    assert '<html lang="uk"' in page and "Завантаження…" in page
    client.cookies.clear()
    page = client.get("/", headers={"Accept-Language": "fr, de;q=0.8"}).text
    assert '<html lang="en"' in page and "Loading…" in page


def test_render_fills_the_keyed_elements() -> None:
    page = '<html lang="en"><p data-text="page.loading">x</p>'
    assert (
        index_page.render(page, "cs") == '<html lang="cs"><p data-text="page.loading">Načítání…</p>'
    )
