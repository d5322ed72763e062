"""Headless games between bots, with a readable round-by-round log."""

from __future__ import annotations

from typing import Any, TextIO

from roborally.bots.random_bot import make_bot, seat_seed
from roborally.content.cards import damage_deck
from roborally.content.courses import find_course
from roborally.content.fairness import new_seed
from roborally.content.record import write_record
from roborally.engine.core.decisions import Action
from roborally.engine.core.events import EventKind
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
) -> Outcome | None:
    """Play a game between bots, printing it. ``seed=None`` draws a fresh seed and prints only
    its commitment until the game is over (the fair way); a given seed is printed at once."""
    if len(bots) < 1:
        raise ValueError("name at least one bot")
    chosen = seed is not None
    seed = new_seed() if seed is None else seed
    game = new_game(course, len(bots), seed, max_rounds, variants, edition)
    players = [make_bot(kind, seat_seed(seed, i)) for i, kind in enumerate(bots)]
    names = game.config.players
    info = find_course(course)
    out.write(
        f"RoboRally {edition} - course {info.title} ({info.id}),"
        f" players: {', '.join(f'{n} ({b})' for n, b in zip(names, bots, strict=True))}\n"
    )
    if chosen:
        out.write(
            f"Seed {seed_text(seed)} (chosen, not drawn; commitment {seed_commitment(seed)})\n"
        )
    else:
        out.write(f"Seed commitment {seed_commitment(seed)} (the seed is shown at the end)\n")
    for event in game.events:
        if verbose:
            out.write(f"  {event}\n")
    while not game.is_over():
        for decision in game.pending_decisions():
            bot = players[decision.seat]
            choice = bot.choose(game.observation(decision.seat), decision)
            for event in game.apply(Action(decision.id, decision.seat, choice)):
                if verbose:
                    out.write(f"  {event}\n")
                if event.kind is EventKind.ROUND_ENDED or event.kind is EventKind.GAME_WON:
                    _round_summary(game, event.round, out)
    outcome = game.outcome()
    assert outcome is not None
    out.write(f"Result after {game.state.round} round(s): {outcome.result_text(names)}\n")
    view = game.observation(None)
    for rank, seat in enumerate(outcome.standings, start=1):
        out.write(f"  {rank}. {names[seat]}: {_facts(view, seat)}\n")
    if not chosen:
        out.write(f"Seed {seed_text(seed)} (its SHA-256 is the commitment above)\n")
    if record_path:
        with open(record_path, "w", encoding="utf-8") as handle:
            handle.write(write_record(game, info.id))
        out.write(f"Record written to {record_path}\n")
    return outcome


def _round_summary(game: Game, round_number: int, out: TextIO) -> None:
    view = game.observation(None)
    parts = []
    for p in view["players"]:
        pos = p["pos"]
        if pos is not None:
            where = f"{pos[0]},{pos[1]} {p['facing']}"
        elif "classic" in p:
            where = "out of the game" if p["classic"]["eliminated"] else "destroyed"
        else:
            where = "rebooting"
        parts.append(f"{p['name']}: {where}, {_facts(view, p['seat'], short=True)}")
    out.write(f"Round {round_number}: " + "; ".join(parts) + "\n")


def _facts(view: dict[str, Any], seat: int, short: bool = False) -> str:
    """A robot's progress as its edition counts it (public facts only)."""
    p = view["players"][seat]
    goals = len(view["checkpoints"])
    classic = p.get("classic")
    if classic:
        flags = f"flag {p['checkpoint']}" if short else f"flag {p['checkpoint']}/{goals}"
        return f"{flags}, damage {classic['damage']}, lives {classic['lives']}"
    cps = f"cp {p['checkpoint']}" if short else f"checkpoint {p['checkpoint']}/{goals}"
    return f"{cps}, energy {p['energy']}"
