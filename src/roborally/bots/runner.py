"""Headless games between bots, with a readable round-by-round log."""

from __future__ import annotations

from typing import TextIO

from roborally.bots.random_bot import make_bot
from roborally.content.cards import damage_deck
from roborally.content.courses import find_course
from roborally.content.record import write_record
from roborally.engine.decisions import Action
from roborally.engine.events import EventKind
from roborally.engine.game import Game, Outcome
from roborally.engine.state import GameConfig

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
    seed: int,
    max_rounds: int,
    variants: list[str],
    out: TextIO,
    verbose: bool = False,
    record_path: str | None = None,
) -> Outcome | None:
    if len(bots) < 1:
        raise ValueError("name at least one bot")
    players = [make_bot(kind, seed * 101 + i) for i, kind in enumerate(bots)]
    game = new_game(course, len(bots), seed, max_rounds, variants, edition)
    names = game.config.players
    info = find_course(course)
    out.write(
        f"RoboRally {edition} - course {info.title} ({info.id}), seed {seed},"
        f" players: {', '.join(f'{n} ({b})' for n, b in zip(names, bots, strict=True))}\n"
    )
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
    for rank, seat in enumerate(outcome.standings, start=1):
        p = game.state.players[seat]
        out.write(
            f"  {rank}. {names[seat]}: checkpoint {p.checkpoint}/"
            f"{len(game.state.grid.checkpoints)}, energy {p.energy}\n"
        )
    if record_path:
        with open(record_path, "w", encoding="utf-8") as handle:
            handle.write(write_record(game, info.id))
        out.write(f"Record written to {record_path}\n")
    return outcome


def _round_summary(game: Game, round_number: int, out: TextIO) -> None:
    s = game.state
    parts = []
    for p in s.players:
        where = f"{p.pos} {p.facing.letter}" if p.pos else "rebooting"
        parts.append(f"{p.name}: {where}, cp {p.checkpoint}, energy {p.energy}")
    out.write(f"Round {round_number}: " + "; ".join(parts) + "\n")
