"""Headless games between bots, with a readable round-by-round log in any of the languages
(``roborally play --lang``). English keeps the compact event lines (``R1.2 P1 moved ...``) that
scripts and tests read; the other languages print each event as the page's log says it."""

from __future__ import annotations

from typing import Any, TextIO

from roborally.bots.random_bot import make_bot, seat_seed
from roborally.content.cards import damage_deck
from roborally.content.courses import find_course
from roborally.content.eventwords import EventWords
from roborally.content.fairness import new_seed
from roborally.content.i18n import text, title_of
from roborally.content.record import write_record
from roborally.engine.core.decisions import Action, Decision, DecisionKind
from roborally.engine.core.events import Event, EventKind
from roborally.engine.core.rng import seed_commitment, seed_text
from roborally.engine.core.state import GameConfig
from roborally.engine.game import Game, Outcome

COLOURS = ("Red", "Blue", "Green", "Yellow", "Purple", "Orange", "Cyan", "Grey")


def new_game(
    course: str,
    players: int,
    seed: int,
    max_rounds: int = 50,
    variants: list[str] | None = None,
    edition: str = "2023",
) -> Game:
    info = find_course(course)
    names = tuple(f"{COLOURS[i % len(COLOURS)]}" for i in range(players))
    config = GameConfig(
        info.course,
        names,
        seed=seed,
        edition=edition,
        variants=frozenset(variants or ()),
        max_rounds=max_rounds,
        damage_deck=damage_deck(),
    )
    return Game(config)


def run_bots(game: Game, bots: list[object]) -> None:
    """Let the bots answer every pending decision until the game ends."""
    while not game.is_over():
        pending = game.pending_decisions()
        if not pending:
            raise RuntimeError("the game waits for nothing but is not over")
        for decision in pending:
            bot = bots[decision.seat]
            choice = bot.choose(game.observation(decision.seat), decision)  # type: ignore[attr-defined]
            game.apply(Action(decision.id, decision.seat, choice))


def play_game(
    edition: str,
    course: str,
    bots: list[str],
    seed: int | None,
    max_rounds: int,
    variants: list[str],
    out: TextIO,
    verbose: bool = False,
    record_path: str | None = None,
    lang: str = "en",
) -> Outcome | None:
    """Play a game between bots, printing it in ``lang``. ``seed=None`` draws a fresh seed and
    prints only its commitment until the game is over (the fair way); a given seed is printed
    at once."""
    if len(bots) < 1:
        raise ValueError("name at least one bot")
    chosen = seed is not None
    seed = new_seed() if seed is None else seed
    game = new_game(course, len(bots), seed, max_rounds, variants, edition)
    players = [make_bot(kind, seat_seed(seed, i)) for i, kind in enumerate(bots)]
    names = game.config.players
    info = find_course(course)
    log = EventLog(lang, edition, names)
    seated = ", ".join(f"{n} ({b})" for n, b in zip(names, bots, strict=True))
    out.write(
        text(
            lang,
            "cli.header",
            edition=edition,
            title=title_of(lang, "course", info.id, info.title),
            id=info.id,
            players=seated,
        )
        + "\n"
    )
    if chosen:
        out.write(
            text(lang, "cli.seed_chosen", seed=seed_text(seed), commitment=seed_commitment(seed))
            + "\n"
        )
    else:
        out.write(text(lang, "cli.seed_commitment", commitment=seed_commitment(seed)) + "\n")
    for event in game.events:
        if verbose:
            log.write(event, out)
    while not game.is_over():
        for decision in game.pending_decisions():
            bot = players[decision.seat]
            choice = bot.choose(game.observation(decision.seat), decision)
            if verbose and decision.kind is not DecisionKind.PROGRAM:
                out.write(f"  {log.question(decision)}\n    → {log.answer(decision, choice)}\n")
            for event in game.apply(Action(decision.id, decision.seat, choice)):
                if verbose:
                    log.write(event, out)
                if event.kind is EventKind.ROUND_ENDED or event.kind is EventKind.GAME_WON:
                    _round_summary(game, event.round, out, lang)
    outcome = game.outcome()
    assert outcome is not None
    result = result_text(outcome, names, lang, edition)
    out.write(text(lang, "cli.result", count=game.state.round, result=result) + "\n")
    view = game.observation(None)
    for rank, seat in enumerate(outcome.standings, start=1):
        out.write(f"  {rank}. {names[seat]}: {_facts(view, seat, lang)}\n")
    if not chosen:
        out.write(text(lang, "cli.seed_revealed", seed=seed_text(seed)) + "\n")
    if record_path:
        with open(record_path, "w", encoding="utf-8") as handle:
            handle.write(write_record(game, info.id))
        out.write(text(lang, "cli.record_written", path=record_path) + "\n")
    return outcome


class EventLog:
    """Event lines: the compact form in English, the log's sentences in the other languages."""

    def __init__(self, lang: str, edition: str, names: tuple[str, ...]) -> None:
        self.lang = lang
        self.edition, self.names = edition, names
        self.words = None if lang == "en" else EventWords(lang, edition, names)

    def question(self, decision: Decision) -> str:
        """The line of a question a bot is asked: who, and the question in the language."""
        words = self.words or EventWords("en", self.edition, self.names)
        asked = words.question(decision.prompt_key, decision.prompt_args, decision.prompt)
        return text(self.lang, "cli.asked", name=words.name(decision.seat), question=asked)

    def answer(self, decision: Decision, choice: Any) -> str:
        """A bot's answer to ``decision`` in words, as the page labels the option."""
        words = self.words or EventWords("en", self.edition, self.names)
        return words.option(decision.kind.value, choice, decision.info)

    def line(self, event: Event) -> str | None:
        """The line of ``event`` (``None``: the other languages leave bookkeeping out)."""
        if self.words is None:
            return str(event)
        sentence = self.words.sentence(event)
        if sentence is None:
            return None
        key = "cli.when.register" if event.register else "cli.when.round"
        when = text(self.lang, key, round=event.round, register=event.register)
        return f"{when} {sentence}"

    def write(self, event: Event, out: TextIO, indent: str = "  ") -> None:
        line = self.line(event)
        if line is not None:
            out.write(f"{indent}{line}\n")


def result_text(
    outcome: Outcome, names: tuple[str, ...], lang: str = "en", edition: str = "2023"
) -> str:
    """Who won and why, as :meth:`Outcome.result_text` says it in English, in the words of
    ``edition`` (a classic race is to flags)."""
    why = EventWords(lang, edition, names).termination(outcome.termination.value)
    if outcome.winner is not None:
        return text(lang, "cli.wins", name=names[outcome.winner], termination=why)
    return text(lang, "cli.no_winner", termination=why)


def _round_summary(game: Game, round_number: int, out: TextIO, lang: str = "en") -> None:
    view = game.observation(None)
    parts = []
    for p in view["players"]:
        pos = p["pos"]
        if pos is not None:
            facing = text(lang, f"cli.facing.{p['facing']}")
            where = text(lang, "cli.where.at", x=pos[0], y=pos[1], facing=facing)
        elif "classic" in p:
            where = text(
                lang, "cli.where.out" if p["classic"]["eliminated"] else "cli.where.destroyed"
            )
        else:
            where = text(lang, "cli.where.rebooting")
        parts.append(f"{p['name']}: {where}, {_facts(view, p['seat'], lang, short=True)}")
    out.write(text(lang, "cli.round_summary", round=round_number, players="; ".join(parts)) + "\n")


def _facts(view: dict[str, Any], seat: int, lang: str = "en", short: bool = False) -> str:
    """A robot's progress as its edition counts it (public facts only)."""
    p = view["players"][seat]
    goals = len(view["checkpoints"])
    classic = p.get("classic")
    form = "short" if short else "long"
    if classic:
        return text(
            lang,
            f"cli.facts.classic_{form}",
            flag=p["checkpoint"],
            flags=goals,
            damage=classic["damage"],
            lives=classic["lives"],
        )
    return text(
        lang, f"cli.facts.{form}", checkpoint=p["checkpoint"], checkpoints=goals, energy=p["energy"]
    )
