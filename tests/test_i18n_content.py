"""The game's own words in every language: each card, upgrade and option card of every edition
has its name and text, each board element its explanation, each event of real games a sentence
(the same ones the command line prints), and ``roborally play --lang`` speaks the language."""

from __future__ import annotations

import doctest
import io
import re
from contextlib import redirect_stdout
from typing import Any

import pytest

from roborally import cli
from roborally.bots.random_bot import make_bot, seat_seed
from roborally.bots.runner import new_game, run_bots
from roborally.content import eventwords
from roborally.content.boardjson import grid_to_json
from roborally.content.catalogue import cards_json
from roborally.content.courses import list_courses
from roborally.content.eventwords import EventWords
from roborally.content.i18n import LANGUAGES, strings, text, title_of
from roborally.engine.core.events import EventKind
from roborally.engine.editions import all_editions, edition
from roborally.engine.game import Game

EDITIONS = [e.id for e in all_editions()]
OTHERS = [lang for lang in LANGUAGES if lang != "en"]
PLACEHOLDER = re.compile(r"\{\w+\}")


def test_every_course_and_board_has_its_title_in_every_language() -> None:
    boards: dict[str, str] = {}
    for course in list_courses():
        # The English texts are the data's own titles (a new course without a text shows them).
        assert text("en", f"course.{course.id}.title") == course.title, course.id
        for placed in course.course.boards:
            boards[placed.board.name] = placed.board.title
    for name, title in boards.items():
        assert text("en", f"board.{name}.title") == title, name
    listed = {k.split(".")[1] for k in strings("en") if k.startswith("board.")}
    assert listed == set(boards), "board titles of boards no course uses"
    for lang in OTHERS:
        for course in list_courses():
            assert title_of(lang, "course", course.id) != course.id
    assert title_of("pl", "course", "no-such-course", "Its Own Title") == "Its Own Title"


@pytest.mark.parametrize("edition_id", EDITIONS)
def test_every_card_has_its_name_and_text_in_every_language(edition_id: str) -> None:
    data = cards_json(edition_id)
    assert data is not None
    for card_id, card in data["cards"].items():
        key = card["key"]
        # The English texts are the catalogue's own: the translation files follow the card data.
        assert text("en", f"{key}.name") == card["name"], card_id
        assert not card["text"] or text("en", f"{key}.text") == card["text"], card_id
        for lang in OTHERS:
            table = strings(lang)
            assert table.get(f"{key}.name"), f"{lang}: no name for {card_id}"
            if card["text"]:
                assert table.get(f"{key}.text"), f"{lang}: no text for {card_id}"
    sections = {card["section"] for card in data["cards"].values()}
    wanted = {"2023": {"programming_cards", "damage_cards", "upgrade_cards"}}
    assert sections == wanted.get(edition_id, {"program_cards", "option_cards"})


def test_cards_shared_by_both_editions_keep_their_own_texts() -> None:
    """Brakes is a 2023 upgrade and a classic option card, with different rules."""
    modern = cards_json("2023")["cards"]["brakes"]  # type: ignore[index]
    classic = cards_json("classic")["cards"]["brakes"]  # type: ignore[index]
    assert (modern["key"], classic["key"]) == ("upgrade.brakes", "option.brakes")
    assert text("uk", "upgrade.brakes.name") == "Гальма"
    assert text("uk", "upgrade.brakes.text") != text("uk", "option.brakes.text")


#: The board JSON's cell keys (docs/protocol.md 1.2) and the texts that explain each.
ELEMENT_KEYS = {
    "start": "element.start.title",
    "checkpoint": "element.checkpoint.title",
    "reboot": "element.reboot.title",
    "pit": "element.pit.title",
    "belt": "element.belt.green.title",
    "pusher": "element.pusher.title",
    "gear": "element.gear.right.title",
    "crusher": "element.crusher.title",
    "lasers": "element.laser.legend",
    "battery": "element.battery.title",
    "repair": "element.repair.title",
    "walls": "element.wall.short",
}
BOOKKEEPING = {"x", "y", "board", "start_facing", "inactive"}


def test_every_board_element_of_every_course_is_explained_in_every_language() -> None:
    seen: set[str] = set()
    for info in list_courses():
        for edition_id in EDITIONS:
            if info.id.startswith("cl-") != edition_id.startswith("classic"):
                continue
            board = grid_to_json(edition(edition_id).grid(info.course, frozenset()))
            for cell in board["cells"]:
                seen |= set(cell) - BOOKKEEPING
    assert seen <= set(ELEMENT_KEYS), f"elements without words: {seen - set(ELEMENT_KEYS)}"
    assert seen == set(ELEMENT_KEYS), f"no course has {set(ELEMENT_KEYS) - seen}"
    # Each text in each language (plural texts in their "many" or "other" form).
    element_keys = {re.sub(r"\.(one|other)$", "", k) for k in strings("en") if k[:8] == "element."}
    assert len(element_keys) > 60
    for lang in OTHERS:
        table = strings(lang)
        for key in element_keys:
            assert any(table.get(key + form) for form in ("", ".many", ".other")), f"{lang}: {key}"


def play(edition_id: str, course: str, seed: int, rounds: int = 6) -> Game:
    """A real game between bots that buy and use upgrades (2023) or option cards (classic)."""
    game = new_game(course, 4, seed, rounds, [], edition_id)
    kinds = ["casual", "random", "casual", "random"]
    run_bots(game, [make_bot(kind, seat_seed(seed, i)) for i, kind in enumerate(kinds)])
    return game


GAMES = [("2023", "y23-high-voltage", 3), ("classic", "cl-grand-tour", 5)]


@pytest.fixture(scope="module")
def games() -> list[tuple[str, Game]]:
    return [(edition_id, play(edition_id, course, seed)) for edition_id, course, seed in GAMES]


SILENT = {"cards_drawn", "card_resolved", "element_step", "shot", "round_ended"}


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_event_of_real_games_has_a_sentence(lang: str, games: list[tuple[str, Game]]) -> None:
    kinds: set[str] = set()
    for edition_id, game in games:
        words = EventWords(lang, edition_id, game.config.players)
        for event in game.events:
            for seen in (event, event.seen_by(None)):
                sentence = words.sentence(seen)
                kinds.add(event.kind.value)
                if event.kind.value in SILENT:
                    assert sentence is None
                    continue
                assert sentence, (lang, event)
                assert not PLACEHOLDER.search(sentence), (lang, sentence)
                assert "log." not in sentence and "term." not in sentence, (lang, sentence)
    # The games are long enough to see most of what can happen.
    assert len(kinds) >= 25, sorted(set(EventKind) - kinds)


def _english_words() -> set[str]:
    """Words of the English texts of the log and the command line."""
    found: set[str] = set()
    for key, value in strings("en").items():
        if key.startswith(("log.", "cli.", "term.")):
            found |= {w.lower() for w in re.findall(r"[A-Za-z]{3,}", PLACEHOLDER.sub("", value))}
    return found


@pytest.mark.parametrize("lang", ["uk", "pl"])
def test_the_command_line_log_speaks_the_language(lang: str) -> None:
    out = io.StringIO()
    argv = ["play", "--lang", lang, "-v", "--seed", "11", "--max-rounds", "3"]
    argv += ["--course", "y23-high-voltage", "--bots", "casual,random,casual"]
    with redirect_stdout(out):
        assert cli.main(argv) == 0
    log = out.getvalue()
    # What stays as it is: player and bot names, the course's title, hex seeds.
    kept = {"red", "blue", "green", "casual", "random", "roborally", "high", "voltage", "sha"}
    own = {w.lower() for v in strings(lang).values() for w in re.findall(r"[A-Za-z]{3,}", v)}
    english = _english_words() - kept - own
    used = {w.lower() for w in re.findall(r"[A-Za-z]{3,}", re.sub(r"\b[0-9a-fx]{16,}\b", "", log))}
    assert not used & english, sorted(used & english)
    assert log.count("\n") > 50
    assert text(lang, "log.register", register=1) in log


def test_the_command_line_log_stays_english_by_default(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("LC_ALL", raising=False)
    monkeypatch.setenv("LANG", "C.UTF-8")
    out = io.StringIO()
    with redirect_stdout(out):
        assert cli.main(["play", "--seed", "5", "--max-rounds", "2", "-v"]) == 0
    assert out.getvalue().startswith("RoboRally 2023 - course Training Run (tiny), players:")
    assert "R1.1 P1 card revealed" in out.getvalue()
    # LANG names a translation: that is the default.
    monkeypatch.setenv("LANG", "cs_CZ.UTF-8")
    out = io.StringIO()
    with redirect_stdout(out):
        assert cli.main(["play", "--seed", "5", "--max-rounds", "2"]) == 0
    # The course's title too is in the language (course.ID.title).
    assert out.getvalue().startswith("RoboRally 2023 – trať Cvičná jízda (tiny), hráči:")


def test_replay_in_a_language(tmp_path: Any) -> None:
    record = tmp_path / "game.json"
    with redirect_stdout(io.StringIO()):
        cli.main(["play", "--seed", "9", "--max-rounds", "2", "--record", str(record)])
    out = io.StringIO()
    with redirect_stdout(out):
        assert cli.main(["replay", "--lang", "ru", str(record)]) == 0
    lines = out.getvalue().splitlines()
    assert re.fullmatch(
        r"Р0 Red стартует с клетки \d, направление — (север|восток|юг|запад)", lines[0]
    )
    assert "Раунд 1" in out.getvalue()
    assert lines[-1].startswith("отпечаток состояния: ")


def test_the_module_doctests() -> None:
    assert doctest.testmod(eventwords).failed == 0
    assert (
        doctest.run_docstring_examples(cli.env_language, {"env_language": cli.env_language}) is None
    )
