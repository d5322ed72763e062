"""The page in every language: the lobby, a running game and (in Polish) whole games to the
result show no English text of the page's own (the translation files' English texts of two or
more words, the engine's questions and defaults among them) when another language is chosen,
and ``<html lang>`` says which; the switcher changes the language and the page
remembers it; ``?lang=`` picks one directly."""

from __future__ import annotations

import re
import time
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from roborally.content.i18n import LANGUAGES, strings

from .conftest import Contexts, ServerProcess, start_game

#: The page's own texts (the other namespaces belong to content, the log, the rules help and
#: the tutorial, translated on their own).
PAGE_NAMESPACES = (
    "common.", "lobby.", "game.", "program.", "decision.", "panel.", "notify.", "error.",
    "fair.", "preview.", "replay.", "net.", "bots.", "variant.", "page.", "language.",
)  # fmt: skip
MARK = re.compile(r"\{/?\w+\}")
WORD = re.compile(r"[^\W\d_]{2,}")

#: Every text on the page a person can read: visible text, form values of selects (their
#: options), and the titles, labels and placeholders that tooltips and screen readers give.
COLLECT = """() => {
  // The log, the legend, cards and their texts: the other parts' translations.
  const skip = (el) => el.closest('.log-box, .legend-slot, .space-info, .coach, [data-card]')
    || (el.matches('[data-testid=choice]') && el.getAttribute('title'));
  const out = [document.title, document.body.innerText];
  const named = '[title], [aria-label], [placeholder], option, optgroup';
  for (const el of document.querySelectorAll(named)) {
    if (skip(el)) continue;
    for (const name of ['title', 'aria-label', 'placeholder', 'label']) {
      if (el.getAttribute(name)) out.push(el.getAttribute(name));
    }
    if (el.tagName === 'OPTION') out.push(el.textContent);
  }
  for (const el of document.querySelectorAll('.log-box, .legend-slot')) {
    out[1] = out[1].replace(el.innerText, '');
  }
  return out.join('\\n');
}"""


def english_phrases(lang: str) -> list[tuple[str, str]]:
    """(key, phrase): the parts of the page's English texts between placeholders that hold two
    or more words, unless the language's own text of that key holds the same words."""
    english, other = strings("en"), strings(lang)
    found = []
    for key, value in english.items():
        if not key.startswith(PAGE_NAMESPACES):
            continue
        for part in MARK.split(value):
            phrase = part.strip(" .,:;!?…()·–-")
            if len(WORD.findall(phrase)) >= 2 and phrase not in other.get(key, ""):
                found.append((key, phrase))
    return found


def untranslated(page: Page, lang: str) -> list[str]:
    text = page.evaluate(COLLECT)
    return [f"{key}: {phrase!r}" for key, phrase in english_phrases(lang) if phrase in text]


def check(page: Page, lang: str, where: str) -> None:
    expect(page.locator("html")).to_have_attribute("lang", lang)
    if lang != "en":
        problems = untranslated(page, lang)
        assert problems == [], f"English on the {where} page in {lang}:\n" + "\n".join(problems)


def assert_card_titles_fit(page: Page, lang: str) -> None:
    """Every word of every card title in the tray fits its card's face on one line (a long
    word gets a smaller type: cards.js lengthClass and fitTitles), so none breaks mid-word."""
    too_wide = page.evaluate(
        """() => [...document.querySelectorAll('.card .card-name')].flatMap((name) => {
            const style = getComputedStyle(name);
            return name.textContent.split(/\\s+/).filter(Boolean).filter((word) => {
                const probe = document.createElement('span');
                probe.textContent = word;
                probe.style.font = style.font;
                probe.style.letterSpacing = style.letterSpacing;
                probe.style.textTransform = style.textTransform;
                probe.style.position = 'absolute';
                probe.style.whiteSpace = 'nowrap';
                document.body.appendChild(probe);
                const wide = probe.getBoundingClientRect().width > name.clientWidth + 0.5;
                probe.remove();
                return wide;
            });
        })"""
    )
    assert not too_wide, f"{lang}: card title words wider than the card: {too_wide}"


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_lobby_and_a_game_speak_the_chosen_language(
    live_server: ServerProcess, contexts: Contexts, shots: Any, ui: Any, lang: str
) -> None:
    page = contexts.page()
    page.goto(f"{live_server.base}/?lang={lang}&speed=0")
    expect(page.locator("[data-testid=create-game]")).to_have_text(strings(lang)["lobby.create"])
    page.wait_for_selector(".course-preview svg")
    page.click("details.advanced summary")  # the form's hidden part too
    expect(page.get_by_test_id("language")).to_have_value(lang)
    check(page, lang, "lobby")
    page.evaluate("() => window.scrollTo(0, 0)")
    if lang in ("uk", "pl"):
        shots(page, f"lobby-{lang}")

    game = live_server.create(
        seats=[{"kind": "human", "name": "Ada"}] + [{"kind": "bot", "bot": "beginner"}] * 2,
        max_rounds=3,
    )
    page.goto(live_server.seat_url(game, 0, lang=lang, speed=0))
    expect(page.get_by_test_id("ready")).to_be_visible()
    check(page, lang, "waiting room")
    page.get_by_test_id("ready").click()
    decision = page.locator("[data-testid=decision]")
    expect(decision).to_have_attribute("data-kind", "start_space")
    check(page, lang, "start space question")
    page.locator("[data-testid=choice]").first.click()
    expect(page.locator("[data-testid=decision][data-kind=upgrade_phase]")).to_be_visible()
    check(page, lang, "upgrade phase")
    ui.until_program(page)
    ui.program_first_cards(page, 3)
    ui.preview_drawn(page)
    page.locator("details.info-box summary").click()
    check(page, lang, "programming")
    assert_card_titles_fit(page, lang)
    if lang in ("uk", "pl"):
        shots(page, f"program-{lang}")
    assert page.title().endswith("RoboRally")


def test_the_switcher_changes_the_language_and_it_is_remembered(
    live_server: ServerProcess, contexts: Contexts
) -> None:
    page = contexts.page()
    page.goto(live_server.base + "/")
    # The test browser reads English (en-US): the page starts in English.
    expect(page.locator("html")).to_have_attribute("lang", "en")
    expect(page.get_by_test_id("create-game")).to_have_text("Create game")
    page.get_by_test_id("language").select_option("cs")
    expect(page.locator("html")).to_have_attribute("lang", "cs")
    expect(page.get_by_test_id("create-game")).to_have_text("Vytvořit hru")
    assert "lang=" not in page.url
    # Another visit: the page and the server's first words are in Czech.
    page.goto(live_server.base + "/")
    expect(page.get_by_test_id("create-game")).to_have_text("Vytvořit hru")
    first = page.context.request.get(live_server.base + "/")
    assert '<html lang="cs"' in first.text()
    assert "Načítání…" in first.text()
    # ?lang= wins over the remembered language, and is remembered in its turn.
    page.goto(live_server.base + "/?lang=ru")
    expect(page.get_by_test_id("create-game")).to_have_text("Создать игру")
    expect(page.get_by_role("heading", name="Новая игра")).to_be_visible()
    page.goto(live_server.base + "/")
    expect(page.locator("html")).to_have_attribute("lang", "ru")


def test_the_game_page_has_a_switcher_too(live_server: ServerProcess, contexts: Contexts) -> None:
    game = live_server.create(seats=[{"kind": "human"}, {"kind": "bot", "bot": "beginner"}])
    page = contexts.page()
    page.goto(live_server.seat_url(game, 0))
    expect(page.get_by_test_id("ready")).to_have_text("I'm ready")
    page.locator(".topbar [data-testid=language]").select_option("pl")
    expect(page.get_by_test_id("ready")).to_have_text("Jestem gotowy")
    # The seat's link keeps working: the page came back to the same seat.
    expect(page).to_have_url(re.compile(r"#token="))
    expect(page.get_by_test_id("name-input")).to_be_visible()


@pytest.mark.parametrize(("edition", "course"), [("2023", "tiny"), ("classic", "cl-first-shift")])
def test_a_whole_game_speaks_polish_to_the_end(
    live_server: ServerProcess, contexts: Contexts, ui: Any, edition: str, course: str
) -> None:
    """Every question of a game (the engine's, by its message key), what a timeout does, and
    the game-over sentence: no English words of the page's, to the result."""
    game = live_server.create(
        seats=[{"kind": "human", "name": "Ada"}, {"kind": "bot", "bot": "random"}],
        max_rounds=2,
        edition=edition,
        course=course,
        seed=5,
    )
    page = contexts.page()
    page.goto(live_server.seat_url(game, 0, lang="pl", speed=0))
    page.get_by_test_id("ready").click()
    kinds: list[str] = []
    deadline = time.monotonic() + 150
    while not ui.visible(page, "[data-testid=result]"):
        assert time.monotonic() < deadline, f"the game did not end; answered {kinds}"
        if ui.visible(page, "[data-testid=decision]"):
            check(page, "pl", f"{edition} question")  # the question as it is asked
        kind = ui.act(page)
        if kind:
            kinds.append(kind)
        page.wait_for_timeout(50)
    assert "program" in kinds, kinds
    check(page, "pl", f"{edition} result")
    expect(page.locator("[data-testid=result] .result-text")).to_have_text(
        re.compile("wygrywa|bez zwycięzcy")
    )


# A constructed style sheet (CSSOM): the page's Content-Security-Policy refuses a <style>.
WIDER_TYPE = """
document.addEventListener("DOMContentLoaded", () => {
  const sheet = new CSSStyleSheet();
  sheet.replaceSync(
    ".card .card-name { font-family: monospace !important; letter-spacing: 0.2em !important; }");
  document.adoptedStyleSheets = [...document.adoptedStyleSheets, sheet];
});
"""


def test_card_titles_fit_in_a_wider_typeface(
    live_server: ServerProcess, contexts: Contexts, ui: Any
) -> None:
    """Letter count alone cannot size a title: another machine's fonts run wider. With a wide
    monospace type forced on every card title, the page still shrinks each one until its
    longest word fits (cards.js fitTitles)."""
    page = contexts.page()
    page.add_init_script(WIDER_TYPE)
    game = live_server.create(
        seats=[{"kind": "human", "name": "Ada"}, {"kind": "bot", "bot": "beginner"}],
        max_rounds=2,
    )
    page.goto(live_server.seat_url(game, 0, lang="pl", speed=0))
    page.get_by_test_id("ready").click()
    page.locator("[data-testid=decision][data-kind=start_space] [data-testid=choice]").first.click()
    ui.until_program(page)
    assert page.evaluate(
        "() => getComputedStyle(document.querySelector('.card .card-name')).fontFamily"
    ).startswith("monospace")
    assert_card_titles_fit(page, "pl")


def test_a_finished_english_game_shows_the_default_seat_names_in_the_page_language(
    live_server: ServerProcess, contexts: Contexts, ui: Any
) -> None:
    """The server names the seats nobody named by colour, in English ("Red" for seat 1,
    "Green" for seat 3): a Polish page shows those in Polish in the result window, the finished
    tray, the replay and the lobby's finished games; a name a player chose stays as it is, a
    colour's name too ("Yellow" on seat 2, whose own colour is blue)."""
    game = live_server.create(
        seats=[
            {"kind": "human"},
            {"kind": "bot", "bot": "random", "name": "Yellow"},
            {"kind": "bot", "bot": "random"},
        ],
        variants=["lighter"],
        max_rounds=1,
        seed=2,
    )
    names = [seat["name"] for seat in game["seats"]]
    assert names == ["Red", "Yellow", "Green"], names
    english = re.compile(r"\b(Red|Green)\b")
    page = contexts.page()
    page.goto(live_server.seat_url(game, 0, lang="pl", speed=0))
    start_game(page)
    ui.play_until(page, lambda: ui.visible(page, "[data-testid=result]"), timeout=60)
    standings = page.get_by_test_id("standings")
    for name in ("Czerwony", "Yellow", "Zielony"):
        expect(standings).to_contain_text(name)
    assert not english.search(page.get_by_test_id("result").inner_text())
    page.keyboard.press("Escape")
    expect(page.get_by_test_id("result-line")).to_be_visible()
    for testid in ("result-line", "players"):
        assert not english.search(page.get_by_test_id(testid).inner_text()), testid

    page.goto(f"{live_server.base}/?replay={game['game_id']}&lang=pl")
    players = page.get_by_test_id("players")
    for name in ("Czerwony", "Yellow", "Zielony"):
        expect(players).to_contain_text(name)
    assert not english.search(page.get_by_test_id("replay").inner_text())

    page.goto(f"{live_server.base}/?lang=pl")
    row = page.locator(f'[data-testid=finished-games] [data-game="{game["game_id"]}"]')
    chips = row.locator(".seat-chip")
    expect(chips).to_have_count(3)
    titles = [chips.nth(i).get_attribute("title") or "" for i in range(3)]
    assert titles[0] == "Czerwony" and "Yellow" in titles[1] and "Zielony" in titles[2], titles
    assert not english.search(row.inner_text())
    # A finished game's result words from the list ("Red wins (checkpoints)"), with its seats.
    won = page.evaluate(
        """async () => {
            const { prettyResult } = await import('/js/game.js');
            const seats = [{ seat: 0, name: 'Red' }, { seat: 1, name: 'Yellow' }];
            return ['Red', 'Yellow'].map((n) => prettyResult(`${n} wins (checkpoints)`, seats));
        }"""
    )
    assert won[0].startswith("Czerwony wygrywa") and won[1].startswith("Yellow wygrywa"), won
