"""A classic game in classic words: every event of real ``classic`` and ``classic-1994`` games
(and a few rare ones made here), and every way such a game ends, read in each of the five
languages without a word only the 2023 rules use (Haywire, shut down, checkpoint, reboot,
energy, upgrade, damage card), and every kind of event the classic rules emit has a sentence.
The page's log (``static/js/words.js``, run under Node when it is installed) says the very same
sentences, and the page's other texts for a classic game (the preview's fall, locked registers,
the panel's counts, the result) keep to the classic words too.

The 2023 words are taken from the 2023 texts themselves (``TERMS_2023`` names the text each
comes from, and a test checks it is there), so they follow the translations."""

from __future__ import annotations

import io
import json
import re
import shutil
import subprocess
from contextlib import redirect_stdout
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

import pytest

from roborally import api, cli
from roborally.bots.runner import result_text
from roborally.content.catalogue import cards_json
from roborally.content.eventwords import EventWords
from roborally.content.i18n import LANGUAGES, strings, text
from roborally.engine.core.events import Event, EventKind
from roborally.engine.core.geometry import Pos
from roborally.engine.game import Outcome, Termination

NAMES = ("Red", "Blue", "Green", "Yellow")
HERE = Path(__file__).parent
STATIC_JS = HERE.parent / "src" / "roborally" / "server" / "static" / "js"
I18N = resources.files("roborally.content") / "data" / "i18n"
PLACEHOLDER = re.compile(r"\{\w+\}")

#: Per language, the 2023 words a classic game must not show, each as (the 2023 text it is
#: taken from, a regular expression matched case-insensitively at the start of a word). Where
#: both editions' rulebooks use one word (power down and shut down are "вимкнення", "vypnutí",
#: "wyłączenie"; Czech option cards are "vylepšení" like the 2023 upgrades) nothing is ruled out.
TERMS_2023: dict[str, list[tuple[str, str]]] = {
    "en": [
        ("card.kind.haywire", r"haywire"),
        ("log.shut_down", r"shuts? down"),
        ("panel.shut_down", r"shuts? down"),
        ("log.checkpoint_reached", r"checkpoint"),
        ("log.rebooted", r"reboot"),
        ("panel.stat.energy", r"energy"),
        ("log.cause.upgrade", r"upgrade"),
        ("panel.stat.damage_cards", r"damage cards?"),
    ],
    "uk": [
        ("card.kind.haywire", r"зб(ій|о)"),
        ("log.checkpoint_reached", r"контрольн"),
        ("log.rebooted", r"перезавантаж"),
        ("panel.stat.energy", r"заряд"),
        ("log.cause.upgrade", r"поліпшен"),
        ("log.damaged.hidden", r"карт\w* пошкодж"),
    ],
    "ru": [
        ("card.kind.haywire", r"сбо"),
        ("panel.shut_down", r"отключ"),
        ("log.checkpoint_reached", r"контрольн"),
        ("log.rebooted", r"перезагру"),
        ("panel.stat.energy", r"энерги"),
        ("log.cause.upgrade", r"улучшен"),
        ("log.damaged.hidden", r"карт\w* повреж"),
    ],
    "cs": [
        ("card.kind.haywire", r"poruch"),
        ("log.checkpoint_reached", r"kontroln\w* bod"),
        ("log.rebooted", r"restart"),
        ("panel.stat.energy", r"energi"),
        ("log.damaged.hidden", r"kart\w* poškozen"),
    ],
    "pl": [
        ("card.kind.haywire", r"awari"),
        ("log.checkpoint_reached", r"checkpoint"),
        ("log.rebooted", r"restart"),
        ("panel.stat.energy", r"energi"),
        ("log.cause.upgrade", r"ulepsz"),
        ("log.damaged.hidden", r"kart\w* uszkodze"),
    ],
}

#: Seeded games between bots that see much of what a classic game can do: power downs
#: (announced, begun, kept; the 1994 shutdown), locked registers filled from the deck, places,
#: option cards lost and used as shields, belts, pushers, pits, the edge, every ending.
GAMES = [
    ("classic", "cl-crossfire", (), "planner", 1),
    ("classic", "cl-tune-up", ("play_for_places",), "planner", 2),
    ("classic", "cl-meltdown", (), "planner", 5),
    ("classic-1994", "cl-meltdown", ("emergency_shutdown", "option_cards"), "planner", 1),
    ("classic-1994", "cl-sinking-feeling", ("emergency_shutdown",), "random", 4),
]

LOCKED_FILLED = "locked register filled"


def rare(kind: EventKind, **fields: Any) -> Event:
    """An event of register 3 of round 2 (where it happens does not change its words)."""
    return Event(kind, 2, 3, **fields)


#: Events too rare for a few seeded games: option cards at work, shared wins, every ending.
RARE = [
    rare(EventKind.SHUT_DOWN, seat=0, cause="circuit breaker"),
    rare(EventKind.SHUT_DOWN, seat=0, amount=4, cause="circuit breaker"),
    rare(EventKind.GAME_WON, seat=1, cause="shared"),
    rare(EventKind.GAME_WON, seat=2, amount=2, cause="place"),
    rare(EventKind.DAMAGE_PREVENTED, seat=0, amount=1, cause="power-down shield (N)"),
    rare(EventKind.DAMAGE_PREVENTED, seat=0, amount=2, cause="ablative coat"),
    rare(EventKind.DAMAGE_PREVENTED, seat=0, amount=1, card="brakes", cause="option card"),
    rare(EventKind.CARD_REPLACED, seat=0, card="ablative_coat", cause="ablative coat full"),
    rare(EventKind.CARD_REPLACED, seat=0, card="move1@490", cause="abort switch: move2@670"),
    rare(EventKind.CARD_REPLACED, seat=1, card="move1@500", cause="scrambler: back_up@430"),
    rare(EventKind.CARD_REPLACED, seat=0, card="u_turn@10", cause="conditional program: move1@510"),
    rare(EventKind.CARD_REPLACED, seat=1, other=0, cause="radio control"),
    rare(EventKind.CARD_REPLACED, seat=1, other=0, cause="radio control ended"),
    rare(EventKind.CARD_REVEALED, seat=0, card="move2@680", amount=5, cause=LOCKED_FILLED),
    rare(EventKind.DAMAGED, seat=0, amount=3, other=1, cause="board laser, robot laser"),
    rare(EventKind.FELL, seat=0, pos=Pos(2, 2), cause="crusher"),
    rare(EventKind.DESTROYED, seat=0, pos=Pos(2, 2), amount=0, cause="crusher"),
    rare(EventKind.CHECKPOINT_REACHED, seat=0, amount=2, cause="mechanical arm"),
    rare(EventKind.ARCHIVED, seat=0, pos=Pos(1, 1), cause="mechanical arm"),
    *(rare(EventKind.GAME_ENDED, cause=end.value) for end in Termination),
]

#: What the classic rules never emit (the 2023 ones), and what no log says.
ONLY_2023 = {
    EventKind.PHASE_STARTED,
    EventKind.UPGRADE,
    EventKind.REBOOTED,
    EventKind.DISPLACED,
    EventKind.ENERGY_GAINED,
    EventKind.PRIORITY_PASSED,
}
SILENT = {
    EventKind.CARDS_DRAWN,
    EventKind.CARD_RESOLVED,
    EventKind.ELEMENT_STEP,
    EventKind.SHOT,
    EventKind.ROUND_ENDED,
}

#: The page's texts for a classic game besides the log (the preview, the program tray, the
#: panels, the result): what words.js, preview.js, program.js, panels.js and game.js pick there.
PAGE_KEYS_CLASSIC = [
    "preview.fall.classic",
    "preview.fall_title.classic",
    "program.locked_damage",
    "program.locked_damage_card",
    "program.locked_tip.classic",
    "program.locked_register",
    "program.power_down",
    "program.power_down_title",
    "panel.stat.flags",
    "panel.stat.damage_tokens",
    "panel.stat.lives",
    "panel.register_locked",
    "panel.register_locked_card",
    "panel.powered_down",
    "panel.powering_down",
    "panel.destroyed",
    "panel.out",
    "panel.finished",
]


def pattern(regex: str) -> re.Pattern[str]:
    return re.compile(r"(?<!\w)" + regex, re.IGNORECASE)


def words_2023(lang: str, said: str) -> list[str]:
    """The 2023 words in ``said`` (empty: none)."""
    return [m.group(0) for _, regex in TERMS_2023[lang] for m in pattern(regex).finditer(said)]


def texts_of(lang: str, key: str) -> list[str]:
    """The text of ``key``, or of each of its plural forms."""
    table = strings(lang)
    return [v for k, v in table.items() if k == key or k.rpartition(".")[0] == key]


@cache
def played() -> list[tuple[str, tuple[str, ...], list[Event]]]:
    """The games' events as a spectator sees them (edition, players, events), and the rare
    events as a classic game's."""
    found = []
    for edition, course, variants, bot, seed in GAMES:
        game = api.new_game(course, 4, seed, edition, variants, max_rounds=12)
        api.play(game, api.bots_for([bot] * 4, seed))
        found.append((edition, game.config.players, [e.seen_by(None) for e in game.events]))
    found.append(("classic", NAMES, RARE))
    return found


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_2023_words_are_those_of_the_2023_texts(lang: str) -> None:
    for key, regex in TERMS_2023[lang]:
        assert pattern(regex).search(text(lang, key)), (lang, key, regex)


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_classic_event_reads_in_classic_words(lang: str) -> None:
    kinds: set[EventKind] = set()
    for edition, names, events in played():
        words = EventWords(lang, edition, names)
        for event in events:
            said = words.sentence(event)
            if event.kind in SILENT:
                assert said is None, (lang, event)
                continue
            assert said, (lang, event)
            assert not PLACEHOLDER.search(said) and "log." not in said, (lang, said)
            assert not words_2023(lang, said), (lang, edition, str(event), said)
            kinds.add(event.kind)
    # Every kind of event the classic rules emit was said.
    assert kinds == set(EventKind) - ONLY_2023 - SILENT, sorted(set(EventKind) - kinds)


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("edition", ["classic", "classic-1994"])
def test_every_classic_result_reads_in_classic_words(lang: str, edition: str) -> None:
    for end in Termination:
        for winner in (0, None):
            outcome = Outcome(end, winner, (0, 1))
            said = result_text(outcome, NAMES[:2], lang, edition)
            assert not words_2023(lang, said), (lang, end, said)
    # The race is to flags: the words differ from the 2023 game's.
    won = Outcome(Termination.CHECKPOINTS, 0, (0, 1))
    assert result_text(won, NAMES[:2], lang, edition) != result_text(won, NAMES[:2], lang)
    assert text(lang, "game.end.checkpoints.classic") != text(lang, "game.end.checkpoints")


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_page_texts_of_a_classic_game_keep_to_classic_words(lang: str) -> None:
    # The result's end: its classic words, else the words both editions share (prettyResult).
    ends = [f"game.end.{end.value}" for end in Termination]
    ends = [key + ".classic" if texts_of(lang, key + ".classic") else key for key in ends]
    for key in PAGE_KEYS_CLASSIC + ends:
        found = texts_of(lang, key)
        assert found, (lang, key)
        for said in found:
            assert not words_2023(lang, said), (lang, key, said)


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_command_line_tells_a_classic_game_in_classic_words(lang: str) -> None:
    out = io.StringIO()
    argv = ["play", "--edition", "classic", "--course", "cl-crossfire", "--lang", lang]
    argv += ["--bots", "planner,planner,planner", "--seed", "1", "--max-rounds", "12"]
    # English verbose lines are the events' compact form (their kinds), not sentences.
    argv += [] if lang == "en" else ["-v"]
    with redirect_stdout(out):
        assert cli.main(argv) == 0
    printed = out.getvalue()
    assert not words_2023(lang, printed), words_2023(lang, printed)
    assert text(lang, "cli.termination.checkpoints.classic") in printed


NODE = shutil.which("node")


@pytest.mark.skipif(NODE is None, reason="no Node.js to run the page's words.js in")
def test_the_page_log_says_what_the_command_line_says() -> None:
    for edition, names, events in played():
        request = {
            "languages": list(LANGUAGES),
            "classic": True,
            "names": list(names),
            "catalogue": (cards_json(edition) or {})["cards"],
            "events": [e.to_json() for e in events],
        }
        run = subprocess.run(
            [str(NODE), str(HERE / "edition_words.mjs"), str(STATIC_JS), str(I18N)],
            input=json.dumps(request),
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        assert run.returncode == 0, run.stderr
        shown = json.loads(run.stdout)
        for lang in LANGUAGES:
            words = EventWords(lang, edition, names)
            for event, said in zip(events, shown[lang], strict=True):
                assert said == words.sentence(event), (lang, edition, event.to_json())
