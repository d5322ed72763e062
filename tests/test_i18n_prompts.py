"""The engine's questions in every language: each ``Prompt`` the engine builds names a message
(``decision.prompt.KEY``) whose English text is the engine's own words and whose placeholders
are the values it passes; every question of real games carries its key and reads in each
language without English left over (the page's ``question`` in decisions.js does the same)."""

from __future__ import annotations

import ast
import io
import re
from contextlib import redirect_stdout
from pathlib import Path

import pytest

from roborally import cli
from roborally.bots.random_bot import make_bot, seat_seed
from roborally.bots.runner import new_game
from roborally.content.eventwords import EventWords
from roborally.content.i18n import LANGUAGES, strings, text
from roborally.engine.core.decisions import Action, Decision, DecisionKind, Prompt
from roborally.engine.core.view import decision_from_json, decision_to_json

ENGINE = Path(__file__).parents[1] / "src" / "roborally" / "engine"
PLACEHOLDER = re.compile(r"\{(\w+)\}")
FORMS = ("one", "few", "many", "other")


def prompt_calls() -> list[tuple[str, ast.Call]]:
    """Every ``Prompt(...)`` call of the editions' rules, with where it is (core/ only passes
    them on)."""
    found = []
    for path in sorted(p for p in ENGINE.rglob("*.py") if "core" not in p.parts):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "Prompt":
                found.append((f"{path.relative_to(ENGINE)}:{node.lineno}", node))
    return found


def english_forms(key: str) -> dict[str, str]:
    table = strings("en")
    base = f"decision.prompt.{key}"
    if base in table:
        return {"": table[base]}
    return {form: table[f"{base}.{form}"] for form in FORMS if f"{base}.{form}" in table}


def test_every_prompt_of_the_engine_names_an_english_text_with_its_values() -> None:
    calls = prompt_calls()
    assert len(calls) >= 40
    keys = set()
    for where, call in calls:
        assert len(call.args) == 2 and isinstance(call.args[1], ast.Constant), where
        key = call.args[1].value
        keys.add(key)
        forms = english_forms(key)
        assert forms, f"{where}: no text decision.prompt.{key}"
        values = {k.arg for k in call.keywords}
        for form, english in forms.items():
            assert set(PLACEHOLDER.findall(english)) == values, (where, form)
        if isinstance(call.args[0], ast.Constant):  # a fixed question: the same English words
            assert forms == {"": call.args[0].value}, where
    # Every message key of the page's list is one the engine uses.
    table = strings("en")
    listed = {k.split(".")[2] for k in table if k.startswith("decision.prompt.")}
    assert listed == keys, sorted(listed ^ keys)


def real_decisions(edition_id: str, course: str, seed: int) -> list[Decision]:
    game = new_game(course, 4, seed, 6, [], edition_id)
    bots = [make_bot(k, seat_seed(seed, i)) for i, k in enumerate(["casual", "random"] * 2)]
    asked: list[Decision] = []
    while not game.is_over():
        for decision in game.pending_decisions():
            asked.append(decision)
            choice = bots[decision.seat].choose(game.observation(decision.seat), decision)
            game.apply(Action(decision.id, decision.seat, choice))
    return asked


@pytest.fixture(scope="module")
def decisions() -> list[tuple[str, Decision]]:
    return [
        (edition_id, d)
        for edition_id, course, seed in [("2023", "y23-high-voltage", 3), ("classic", "tiny", 5)]
        for d in real_decisions(edition_id, course, seed)
    ]


def test_every_question_of_real_games_carries_its_key(
    decisions: list[tuple[str, Decision]],
) -> None:
    assert len({d.prompt_key for _, d in decisions}) >= 6
    for _, decision in decisions:
        assert decision.prompt_key, decision.prompt
        words = EventWords("en", "2023", ("Red", "Blue", "Green", "Yellow"))
        english = words.question(decision.prompt_key, decision.prompt_args)
        if not decision.prompt_args:
            assert english == decision.prompt
        # The JSON form (the server's and the bots') keeps the key and its values.
        data = decision_to_json(decision)
        assert (data["prompt_key"], data["prompt_args"]) == (
            decision.prompt_key,
            decision.prompt_args,
        )
        again = decision_from_json(data)
        assert (again.prompt, again.prompt_key, again.prompt_args) == (
            decision.prompt,
            decision.prompt_key,
            decision.prompt_args,
        )


@pytest.mark.parametrize("lang", [lang for lang in LANGUAGES if lang != "en"])
def test_every_question_reads_in_the_language(
    lang: str, decisions: list[tuple[str, Decision]]
) -> None:
    for edition_id, decision in decisions:
        words = EventWords(lang, edition_id, ("Red", "Blue", "Green", "Yellow"))
        said = words.question(decision.prompt_key, decision.prompt_args, decision.prompt)
        assert said != decision.prompt and not PLACEHOLDER.search(said), (lang, said)
    # Values become words: a card's title, a player's name, a direction.
    words = EventWords(lang, "2023", ("Red", "Blue"))
    said = words.question("card_order", {"card": "move1", "card2": "again"})
    assert text(lang, "card.move1.name") in said and text(lang, "card.again.name") in said
    said = words.question("piercing_drill", {"player": 1})
    assert "Blue" in said


def test_a_prompt_is_its_english_text() -> None:
    prompt = Prompt("Magnetic: move 2 space(s) north along with P1?", "magnetic", count=2)
    assert prompt == "Magnetic: move 2 space(s) north along with P1?"
    assert Decision("d", 0, DecisionKind.CHOICE, prompt).prompt_key == "magnetic"
    assert Decision("d", 0, DecisionKind.CHOICE, "plain").prompt_args == {}


def test_the_command_line_prints_the_questions_in_the_language() -> None:
    out = io.StringIO()
    argv = ["play", "--lang", "cs", "-v", "--seed", "4", "--max-rounds", "1"]
    with redirect_stdout(out):
        assert cli.main([*argv, "--bots", "random,random"]) == 0
    asked = text("cs", "cli.asked", name="Red", question=text("cs", "decision.prompt.start_space"))
    assert asked in out.getvalue()


@pytest.mark.parametrize("lang", [lang for lang in LANGUAGES if lang != "en"])
def test_every_option_of_real_games_reads_in_the_language(
    lang: str, decisions: list[tuple[str, Decision]]
) -> None:
    """The command line names a bot's answer as the page's button does (decisions.js
    ``labelFor``): no engine id (``spam_filter``, ``p2``) and no English word left."""
    english_words = {  # an option word whose English differs from the language's
        value
        for key, value in strings("en").items()
        if key.startswith("decision.word.") and strings(lang)[key] != value
    }
    labelled = 0
    for edition_id, decision in decisions:
        names = ("Red", "Blue", "Green", "Yellow")
        words, english = EventWords(lang, edition_id, names), EventWords("en", edition_id, names)
        for option in decision.options:
            said = words.option(decision.kind.value, option, decision.info)
            assert "_" not in said and not PLACEHOLDER.search(said), (lang, option, said)
            assert said not in english_words, (lang, option, said)
            if isinstance(option, str) and not option.isdigit():
                assert said != english.option(decision.kind.value, option, decision.info) or (
                    said.strip("↑→↓← ") == ""
                ), (lang, option, said)
            labelled += 1
    assert labelled > 50


def test_the_command_line_prints_a_bots_answer_in_the_language() -> None:
    out = io.StringIO()
    argv = ["play", "--lang", "pl", "-v", "--seed", "3", "--max-rounds", "1"]
    with redirect_stdout(out):
        assert cli.main([*argv, "--bots", "beginner,beginner"]) == 0
    answers = [line.strip() for line in out.getvalue().splitlines() if "→" in line]
    assert answers, out.getvalue()
    space = re.compile(text("pl", "decision.space_n", n=0).replace("0", r"\d+"))
    assert any(space.fullmatch(a.removeprefix("→ ")) for a in answers), answers
    assert f"→ {text('pl', 'decision.word.done')}" in answers or any(
        text("pl", "common.no") in a for a in answers
    ), answers


#: Defaults that are option words the page already names (decision.word.*).
OPTION_WORDS = {"left", "stay", "use nothing", "yes", "no"}
#: Where a call takes its default: Decision(..., options, default), ask_choice(..., default).
DEFAULT_AT = {"Decision": 5, "ask_choice": 4, "choose": 5}


def asking_calls() -> list[tuple[ast.expr, ast.expr]]:
    """The options and the default of every call of the editions' rules that asks a player
    (``DEFAULT_AT``), as written."""
    found = []
    for path in sorted(p for p in ENGINE.rglob("*.py") if "core" not in p.parts):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.Call):
                continue
            name = getattr(node.func, "id", None) or getattr(node.func, "attr", None)
            at = DEFAULT_AT.get(str(name))
            if at is not None and len(node.args) > at:
                found.append((node.args[at - 1], node.args[at]))
    return found


def strings_in(node: ast.expr) -> list[str]:
    return [node.value] if isinstance(node, ast.Constant) and isinstance(node.value, str) else []


def test_every_fixed_default_of_the_engine_has_words_in_every_language() -> None:
    found = {text for _, default in asking_calls() for text in strings_in(default)}
    assert len(found) >= 12
    for default in found - OPTION_WORDS:
        key = "decision.fallback." + re.sub(r"[^a-z0-9]+", "_", default.lower()).strip("_")
        for lang in LANGUAGES:
            assert key in strings(lang), (lang, default)
        assert text("en", key) == default


def test_every_fixed_option_word_of_the_engine_has_words_in_every_language() -> None:
    """Options written into the rules (``("move", "brake")``, ``("stay", "follow")``...) are
    labelled from decision.word.* on the page and the command line, never shown as the
    engine's English id."""
    found = {
        text
        for options, _ in asking_calls()
        if isinstance(options, ast.Tuple)
        for element in options.elts
        for text in strings_in(element)
    }
    assert {"move", "brake", "stay", "follow", "take", "shield"} <= found
    for lang in LANGUAGES:
        words = EventWords(lang, "2023", ("Red", "Blue"))
        for option in found:
            key = "decision.word." + option.lower().replace(" ", "_")
            assert key in strings(lang), (lang, option)
            assert words.option("choice", option) == text(lang, key)
