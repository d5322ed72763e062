"""The game's own words in the page's language: the event log says every event of real games in
each language exactly as the command line does (static/js/words.js and
roborally.content.eventwords share the log.* texts), cards show their translated names and
texts, and the board's spaces explain themselves in the language."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import expect

from roborally.bots.random_bot import make_bot, seat_seed
from roborally.bots.runner import new_game, run_bots
from roborally.content.eventwords import EventWords
from roborally.content.i18n import LANGUAGES, text

from .conftest import Contexts, ServerProcess, start_game

GAMES = [("2023", "y23-high-voltage", 3), ("classic", "cl-grand-tour", 5)]

#: Runs describe() of words.js over a game's events in each language.
DESCRIBE = """async ([edition, names, events, languages]) => {
  const i18n = await import("/js/i18n.js");
  const cards = await import("/js/cards.js");
  const words = await import("/js/words.js");
  const api = await import("/js/api.js");
  cards.setCatalogue(await api.cardCatalogue(edition));
  const found = {};
  for (const lang of languages) {
    await i18n.loadLanguage(lang);
    found[lang] = events.map((e) => {
      const line = words.describe(e, (seat) => names[seat], edition.startsWith("classic"));
      return line ? line.text : null;
    });
  }
  await i18n.loadLanguage("en");
  return found;
}"""


def _game(edition_id: str, course: str, seed: int) -> tuple[list[Any], tuple[str, ...]]:
    game = new_game(course, 4, seed, 6, [], edition_id)
    kinds = ["casual", "random", "casual", "random"]
    run_bots(game, [make_bot(kind, seat_seed(seed, i)) for i, kind in enumerate(kinds)])
    # What a spectator sees: secret cards left out.
    return [event.seen_by(None) for event in game.events], game.config.players


@pytest.mark.parametrize(("edition_id", "course", "seed"), GAMES)
def test_the_page_log_says_what_the_command_line_says(
    live_server: ServerProcess, contexts: Contexts, edition_id: str, course: str, seed: int
) -> None:
    events, names = _game(edition_id, course, seed)
    page = contexts.page()
    page.goto(live_server.base + "/?lang=en")
    expect(page.locator("body")).not_to_be_empty()
    found = page.evaluate(
        DESCRIBE, [edition_id, list(names), [e.to_json() for e in events], list(LANGUAGES)]
    )
    kinds = set()
    for lang in LANGUAGES:
        words = EventWords(lang, edition_id, names)
        for event, shown in zip(events, found[lang], strict=True):
            assert shown == words.sentence(event), (lang, event.to_json())
            if shown is not None:
                kinds.add(event.kind.value)
                assert "{" not in shown and "log." not in shown, (lang, shown)
        if lang != "en":
            # Translated: not one sentence left as the English one.
            english = found["en"]
            same = [s for s, e in zip(found[lang], english, strict=True) if s and s == e]
            assert not same, (lang, same[:3])
    assert len(kinds) >= 15, sorted(kinds)


def test_cards_and_spaces_in_the_page_language(
    live_server: ServerProcess, contexts: Contexts, shots: Any
) -> None:
    game = live_server.create(
        seats=[{"kind": "human", "name": "Олена"}, {"kind": "bot", "bot": "random"}], seed=4
    )
    page = contexts.page()
    page.goto(live_server.seat_url(game, 0, speed=0, lang="uk"))
    start_game(page)
    titles = page.evaluate(
        """async () => {
          const cards = await import("/js/cards.js");
          return ["move_back", "again", "spam", "brakes", "hw_m3u"].map(
            (c) => [cards.cardTitle(c), cards.cardText(c), cards.cardTypeLine(c)]);
        }"""
    )
    assert titles[0][0] == "Рух назад" == text("uk", "card.move_back.name")
    assert titles[1][0] == "Повтор"
    assert titles[2][0] == "СПАМ" and titles[2][2] == "Карта пошкодження (СПАМ)"
    assert titles[3][0] == "Гальма" and titles[3][2].startswith(
        "Постійне поліпшення · коштує 2 заряди"
    )
    assert titles[4][1] == "Рух 3, потім розворот."
    # A space of the tiny course explains itself: the blue belt at (5, 1).
    cx, cy = page.evaluate(
        """() => { const r = window.rrGame.board.cellRect(5, 1);
                   return [(r.left + r.right) / 2, (r.top + r.bottom) / 2]; }"""
    )
    page.mouse.click(cx, cy)
    info = page.get_by_test_id("space-info")
    expect(info).to_contain_text("Синій конвеєр (швидкий)")
    expect(info).to_contain_text("на 2 клітинки на південь")
    expect(info).to_contain_text("Робот, якого конвеєр привозить із заходу, повертає праворуч")
    expect(info).to_contain_text("Стовпець 6, рядок 2")
    shots(page, "i18n-uk-space-info")
    page.keyboard.press("Escape")
    legend = page.get_by_test_id("legend")
    expect(legend).to_contain_text("Легенда поля")
    page.evaluate("""async () => (await import("/js/cardview.js")).openCard("brakes")""")
    view = page.get_by_test_id("card-view")
    expect(view).to_contain_text("Гальма")
    expect(view.get_by_test_id("card-text")).to_contain_text("«Рух 1»")
    expect(view.get_by_test_id("card-view-close")).to_have_text("Закрити")
    shots(page, "i18n-uk-card-view")
