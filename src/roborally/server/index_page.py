"""The page's first words in the reader's language: ``/`` (and ``/index.html``) is the static
``index.html`` with ``<html lang>`` and every ``data-text="KEY"`` element filled in from the
translation files, before any script runs ("Loading…", and the ``<noscript>`` note).

The language is the one the page itself would choose: ``?lang=xx``, else the one the page
remembered (the ``rr_lang`` cookie it sets), else the browser's ``Accept-Language``, else
English.

>>> choose_language("uk", None, "en-US,en;q=0.9")
'uk'
>>> choose_language(None, "pl", "de")
'pl'
>>> choose_language(None, None, "de-DE,cs;q=0.8,en;q=0.5")
'cs'
>>> choose_language("xx", None, "")
'en'
"""

from __future__ import annotations

import html
import re
from collections.abc import Awaitable, Callable
from pathlib import Path

from starlette.requests import Request
from starlette.responses import HTMLResponse

from roborally.content.i18n import DEFAULT, LANGUAGES, text

COOKIE = "rr_lang"
KEYED = re.compile(r'(<(\w+)[^>]*\bdata-text="([\w.]+)"[^>]*>)[^<]*(</\2>)')
HTML_LANG = re.compile(r'<html lang="[\w-]*"')


def accepted_languages(header: str) -> list[str]:
    """The language codes of an Accept-Language header, most wanted first (a malformed or
    zero weight leaves its language out).

    >>> accepted_languages("de-DE, pl;q=0.8, uk;q=0.9, ru;q=0, cs;q=x")
    ['de', 'uk', 'pl']
    """
    ranked = []
    for n, part in enumerate(header.split(",")):
        name, _, params = part.strip().partition(";")
        weight = 1.0
        if params.strip().startswith("q="):
            try:
                weight = float(params.strip()[2:])
            except ValueError:
                continue
        if name.strip() and weight > 0:
            ranked.append((-weight, n, name.strip().lower().split("-")[0]))
    return [name for _, _, name in sorted(ranked)]


def choose_language(asked: str | None, kept: str | None, header: str | None) -> str:
    """The page's language from ?lang=, the remembered choice and Accept-Language."""
    for wanted in [(asked or "").lower(), (kept or "").lower(), *accepted_languages(header or "")]:
        if wanted in LANGUAGES:
            return wanted
    return DEFAULT


def render(page: str, lang: str) -> str:
    """``page`` (index.html's text) in ``lang``."""
    page = HTML_LANG.sub(f'<html lang="{lang}"', page, count=1)
    return KEYED.sub(
        lambda m: m.group(1) + html.escape(text(lang, m.group(3)), quote=False) + m.group(4), page
    )


def index_route(static_dir: Path) -> Callable[[Request], Awaitable[HTMLResponse]]:
    """The endpoint serving ``static_dir/index.html`` in the request's language."""

    async def index(request: Request) -> HTMLResponse:
        lang = choose_language(
            request.query_params.get("lang"),
            request.cookies.get(COOKIE),
            request.headers.get("accept-language"),
        )
        page = (static_dir / "index.html").read_text(encoding="utf-8")
        return HTMLResponse(
            render(page, lang),
            headers={"Cache-Control": "no-cache", "Vary": "Accept-Language, Cookie"},
        )

    return index
