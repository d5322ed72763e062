"""Headless tournaments: many seeded games between bots, with statistics per bot.

``roborally tournament --edition 2023 --course tiny --bots planner,expert,random --games 100``
plays the games (on all cores with ``--jobs``), shows a progress bar on stderr and prints one
table row per bot kind: games, wins, win rate with a 95 % Wilson confidence interval, mean rounds
of the games it won, checkpoints reached, reboots (classic: destructions) per game and the mean
decision time. ``--json FILE`` writes everything, ``--records DIR`` saves every game's record
(``roborally replay DIR/game-0001-seed-1.rec``).

Game ``i`` (from 0) is played with seed ``seed + i`` and the bot list rotated by ``i`` places,
so every bot sits in every seat (the first seat holds the priority token first).

A bot that raises, answers too late or answers illegally does not stop a game: that decision
gets its default answer (what :data:`~roborally.engine.core.decisions.TIMEOUT` does: a random
program, no shutdown, the first option ...), the failure is counted against the bot kind (the
table's ``errors`` column, ``errors`` and ``first_error`` per bot in the JSON, a line with the
first message under the table) and the game goes on to its normal end. "Raises" means any
exception: ``sys.exit`` (``SystemExit``), ``MemoryError`` and a ``KeyboardInterrupt`` the bot
raises itself are its errors too, with ``--jobs 1`` as in workers. A real Ctrl-C (SIGINT reached
the process, whatever the bot did with it) stops the tournament: ``KeyboardInterrupt``, no
table (the command exits with 130), and the workers are ended. The time limit per decision
(``move_time``, ``--move-time``, 10 s by default) is kept without threads: each answer is timed
and one that took longer is thrown away (the default is played instead), and where the game
runs in a process's main thread (every worker, and ``--jobs 1`` from the command line) a timer
signal also stops a bot still thinking at twice the limit.

A bot can also end its process (``os._exit``, a crash in C code, the out-of-memory killer) or get
stuck where signals do not reach (C code). With ``--jobs 2`` or more (and with ``--max-memory``)
the games run in worker processes (:mod:`roborally.bots.tournament_workers`): a worker that dies
is noticed at once, one whose bot is still deciding :data:`STUCK_GRACE` seconds after the timer
signal is killed, and a new worker plays on. The game it was playing is lost, not played again
(its bots are seeded from the game: a second try would most likely end the same way): it is an
error of the tournament (``errors`` in the JSON and the last line of the table; the command
exits with 1) and, when a bot was running, a lost game of that bot's kind (counted in its
``errors`` column and in ``lost_games`` in the JSON, with a line under the table: ``planner: 1
game(s) lost; first: game 3: worker process died (exit code -9 / signal SIGKILL) while the bot
in seat 1 (planner) was running ...``); the games and wins of the table count finished games
only. With ``--jobs 1`` (no ``--max-memory``) the games run in the tournament's own process,
which such a bot ends or blocks. ``--max-memory MB`` (``max_memory_mb``; no cap by default: the
address space a worker needs depends on the bots, the built-in ones play within 128 MB) caps
each worker's address space with ``RLIMIT_AS``, so that a bot allocating beyond it gets a
``MemoryError`` (its error, as above) where the machine would otherwise swap or the
out-of-memory killer end a worker.

A bot is named by a kind registered in :data:`roborally.bots.random_bot.BOTS` (``random``,
``planner``, ``expert``, or one added with :func:`register_bot`), or as ``module:Class`` for a
class importable from any module (it is called with a seed).
"""

from __future__ import annotations

import json
import math
import os
import signal
import sys
import threading
import time
import traceback
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, TextIO

from roborally.bots.base import Bot
from roborally.bots.random_bot import BOTS, make_bot, seat_seed
from roborally.bots.tournament_workers import (
    SeatWatch,
    check_memory_limit,
    noting_ctrl_c,
    play_in_workers,
    stop_on_ctrl_c,
)
from roborally.engine.core.decisions import TIMEOUT, Action, ActionError, Decision, DecisionKind
from roborally.engine.core.events import EventKind
from roborally.engine.game import Game

DEFAULT_COURSES = {"2023": "tiny", "classic": "cl-first-shift", "classic-1994": "cl-first-shift"}
#: Seconds a bot may take for one decision in a tournament before its answer is replaced.
DEFAULT_MOVE_TIME = 10.0
#: Seconds past the timer signal (twice the time per decision) before a worker whose bot is
#: still deciding is killed.
STUCK_GRACE = 2.0


def register_bot(kind: str, factory: Callable[[int], Bot]) -> None:
    """Make ``factory`` (a class or function taking a seed) playable as bot ``kind``."""
    BOTS[kind] = factory


def make(kind: str, seed: int) -> Bot:
    """A bot of ``kind``: a registered name or ``module:Class``."""
    return make_bot(kind, seed)


# ------------------------------------------------------------------------------ one game
@dataclass(frozen=True)
class GameTask:
    index: int
    seed: int
    edition: str
    course: str
    seats: tuple[str, ...]  # bot kind per seat
    max_rounds: int
    variants: tuple[str, ...]
    records: str | None
    move_time: float = DEFAULT_MOVE_TIME  # seconds per decision (0: no limit)


@dataclass
class GameResult:
    index: int
    seed: int
    seats: list[str]
    winner: int | None = None
    rounds: int = 0
    termination: str = ""
    checkpoints: list[int] = field(default_factory=list)
    reboots: list[int] = field(default_factory=list)
    decisions: list[int] = field(default_factory=list)
    seconds: list[float] = field(default_factory=list)  # decision time per seat
    programs: list[int] = field(default_factory=list)  # program decisions per seat
    program_seconds: list[float] = field(default_factory=list)
    record: str | None = None
    error: str | None = None
    bot_errors: list[str] = field(default_factory=list)  # exceptions bots caught themselves
    failures: list[int] = field(default_factory=list)  # per seat: answers replaced by default
    first_failure: list[str] = field(default_factory=list)  # per seat: the first one ("": none)
    lost_seat: int | None = None  # its worker process died while this seat's bot was running


class BotTimeout(Exception):
    """Raised inside a bot that is still thinking at twice the time limit."""


class _Guard:
    """Interrupts a bot that thinks for ``hard`` seconds, with a timer signal (only in the
    main thread of a process, where Python delivers signals; elsewhere it does nothing)."""

    def __init__(self, hard: float) -> None:
        self.hard = hard
        self.usable = (
            hard > 0
            and hasattr(signal, "setitimer")
            and threading.current_thread() is threading.main_thread()
        )
        self.previous: Any = None

    def __enter__(self) -> _Guard:
        if self.usable:
            self.previous = signal.signal(signal.SIGALRM, self._expired)
            signal.setitimer(signal.ITIMER_REAL, self.hard)
        return self

    def __exit__(self, *exc: object) -> None:
        if self.usable:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, self.previous)

    def _expired(self, signum: int, frame: Any) -> None:
        raise BotTimeout(f"still thinking after {self.hard:g} s")


def _one_line(text: str, limit: int = 300) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def ask_bot(bot: Bot, observation: dict[str, Any], decision: Decision, move_time: float) -> Any:
    """The bot's answer, or :class:`BotTimeout` / the bot's own exception. The answer of a bot
    that took longer than ``move_time`` raises :class:`BotTimeout` too (0: no limit)."""
    began = time.perf_counter()
    with _Guard(2 * move_time):
        choice = bot.choose(observation, decision)
    spent = time.perf_counter() - began
    if move_time > 0 and spent > move_time:
        raise BotTimeout(f"took {spent:.2f} s (limit {move_time:g} s)")
    return choice


def new_tournament_game(task: GameTask) -> Game:
    from roborally.bots.runner import new_game

    return new_game(
        task.course, len(task.seats), task.seed, task.max_rounds, list(task.variants), task.edition
    )


def _blank_result(task: GameTask) -> GameResult:
    n = len(task.seats)
    return GameResult(
        task.index,
        task.seed,
        list(task.seats),
        checkpoints=[0] * n,
        reboots=[0] * n,
        decisions=[0] * n,
        seconds=[0.0] * n,
        programs=[0] * n,
        program_seconds=[0.0] * n,
        failures=[0] * n,
        first_failure=[""] * n,
    )


def play_one(task: GameTask, watch: SeatWatch | None = None) -> GameResult:
    """Play one game of a tournament (in a worker process or in this one). ``watch`` is told
    whose bot runs (a worker shares it with the tournament's process, see
    :mod:`roborally.bots.tournament_workers`)."""
    watch = watch or SeatWatch()
    result = _blank_result(task)
    game: Game | None = None
    bots: list[Bot] = []
    with noting_ctrl_c():
        try:
            bots = _make_bots(task, watch)
            game = new_tournament_game(task)
            while not game.is_over():
                pending = game.pending_decisions()
                if not pending:
                    raise RuntimeError("the game waits for nothing but is not over")
                for decision in pending:
                    _decide(game, bots[decision.seat], decision, task, result, watch)
        except BaseException:  # SystemExit or MemoryError too: an error of this game only
            stop_on_ctrl_c()
            result.error = traceback.format_exc()
    for bot in bots:
        result.bot_errors.extend(getattr(bot, "errors", []))
    if game is not None:
        _game_figures(game, task, result)
    return result


def _make_bots(task: GameTask, watch: SeatWatch) -> list[Bot]:
    bots = []
    for seat, kind in enumerate(task.seats):
        watch.running(seat, deciding=False)
        bots.append(make(kind, seat_seed(task.seed, seat)))
    watch.idle()
    return bots


def _decide(
    game: Game, bot: Bot, decision: Decision, task: GameTask, result: GameResult, watch: SeatWatch
) -> None:
    """Ask ``bot`` for ``decision`` and apply its answer, or the default one (counted)."""
    seat = decision.seat
    observation = game.observation(seat)
    began = time.perf_counter()
    failure = ""
    watch.running(seat)
    try:
        choice = ask_bot(bot, observation, decision, task.move_time)
    except BotTimeout as error:
        failure, choice = f"timed out: {error}", TIMEOUT
    except BaseException as error:  # also SystemExit, MemoryError, its own KeyboardInterrupt
        failure, choice = f"raised {error!r}", TIMEOUT
    watch.idle()
    stop_on_ctrl_c()  # a real Ctrl-C ends the tournament, whatever the bot made of it
    spent = time.perf_counter() - began
    result.decisions[seat] += 1
    result.seconds[seat] += spent
    if decision.kind is DecisionKind.PROGRAM:
        result.programs[seat] += 1
        result.program_seconds[seat] += spent
    try:
        game.apply(Action(decision.id, seat, choice))
    except ActionError as error:
        failure = f"illegal answer {choice!r}: {error}"
        game.apply(Action(decision.id, seat, TIMEOUT))
    if failure:
        result.failures[seat] += 1
        if not result.first_failure[seat]:
            result.first_failure[seat] = _one_line(f"{decision.id}: {failure}")


def _game_figures(game: Game, task: GameTask, result: GameResult) -> None:
    """Copy the figures of a game played (to its end or not) into ``result``; save its record."""
    state = game.state
    result.rounds = state.round
    result.winner = state.winner
    result.termination = state.termination or ("error" if result.error else "")
    result.checkpoints = [p.checkpoint for p in state.players]
    for event in state.events:
        if event.kind in (EventKind.REBOOTED, EventKind.DESTROYED) and event.seat is not None:
            result.reboots[event.seat] += 1
    if task.records and game.actions:
        from roborally.content.record import write_record

        path = Path(task.records) / f"game-{task.index + 1:04d}-seed-{task.seed}.rec"
        try:
            path.write_text(write_record(game, task.course), encoding="utf-8")
            result.record = str(path)
        except Exception as error:  # an unfinished game may not be recordable
            result.error = (result.error or "") + f"record: {error}"


def lost_game(task: GameTask, seat: int | None, what: str) -> GameResult:
    """The result of a game whose worker process died (``what``): an error of the game, and a
    lost game of the bot in ``seat`` that was running then (None: no bot was)."""
    result = _blank_result(task)
    who = f"the bot in seat {seat} ({task.seats[seat]})" if seat is not None else "no bot"
    result.error = f"{what} while {who} was running; the game is lost (not replayed)"
    result.termination = "error"
    result.lost_seat = seat
    return result


# ---------------------------------------------------------------------------- statistics
def wilson(wins: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """The Wilson score interval of a win rate (95 % by default).

    >>> [round(x, 3) for x in wilson(8, 10)]
    [0.49, 0.943]
    """
    if n == 0:
        return (0.0, 1.0)
    p = wins / n
    denominator = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denominator
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denominator
    return (max(0.0, centre - half), min(1.0, centre + half))


@dataclass
class BotStats:
    """One bot kind's figures over a tournament (per seat it played)."""

    kind: str
    games: int = 0  # seats played (one per game per seat of this kind)
    wins: int = 0
    win_rounds: int = 0
    checkpoints: int = 0
    reboots: int = 0
    decisions: int = 0
    seconds: float = 0.0
    programs: int = 0
    program_seconds: float = 0.0
    failures: int = 0  # answers replaced by the default (raised, too late, illegal)
    first_failure: str | None = None  # the first of them (earliest game), with its decision
    lost_games: int = 0  # games lost: the worker process died while this kind's bot ran
    first_lost_game: str | None = None  # the first of them, with what happened
    first_error: str | None = None  # the first failure or lost game, whichever came first

    @property
    def win_rate(self) -> float:
        return self.wins / self.games if self.games else 0.0

    def count_lost_game(self, game: GameResult) -> None:
        """A game lost when its worker died while this kind's bot ran (not in ``games``)."""
        self.lost_games += 1
        if self.first_lost_game is None:
            self.first_lost_game = f"game {game.index + 1}: {_one_line(game.error or '')}"
            self.first_error = self.first_error or self.first_lost_game

    def summary(self) -> dict[str, Any]:
        low, high = wilson(self.wins, self.games)
        return {
            "bot": self.kind,
            "games": self.games,
            "wins": self.wins,
            "win_rate": round(self.win_rate, 4),
            "win_rate_ci95": [round(low, 4), round(high, 4)],
            "mean_rounds_to_win": round(self.win_rounds / self.wins, 2) if self.wins else None,
            "checkpoints_per_game": round(self.checkpoints / self.games, 3) if self.games else 0,
            "reboots_per_game": round(self.reboots / self.games, 3) if self.games else 0,
            "decisions": self.decisions,
            "mean_decision_ms": round(1000 * self.seconds / self.decisions, 3)
            if self.decisions
            else 0,
            "mean_program_ms": round(1000 * self.program_seconds / self.programs, 3)
            if self.programs
            else 0,
            "errors": self.failures + self.lost_games,
            "first_error": self.first_error,
            "answers_replaced": self.failures,
            "lost_games": self.lost_games,
            "first_lost_game": self.first_lost_game,
        }


@dataclass
class TournamentResult:
    edition: str
    course: str
    bots: list[str]
    seed: int
    max_rounds: int
    variants: list[str]
    jobs: int
    seconds: float = 0.0
    games: list[GameResult] = field(default_factory=list)

    def stats(self) -> dict[str, BotStats]:
        table: dict[str, BotStats] = {kind: BotStats(kind) for kind in self.bots}
        for game in self.games:
            if game.error:
                if game.lost_seat is not None:
                    table[game.seats[game.lost_seat]].count_lost_game(game)
                continue
            for seat, kind in enumerate(game.seats):
                s = table[kind]
                s.games += 1
                s.checkpoints += game.checkpoints[seat]
                s.reboots += game.reboots[seat]
                s.decisions += game.decisions[seat]
                s.seconds += game.seconds[seat]
                s.programs += game.programs[seat]
                s.program_seconds += game.program_seconds[seat]
                if seat < len(game.failures) and game.failures[seat]:
                    s.failures += game.failures[seat]
                    if s.first_failure is None:
                        s.first_failure = f"game {game.index + 1}: {game.first_failure[seat]}"
                        s.first_error = s.first_error or s.first_failure
                if game.winner == seat:
                    s.wins += 1
                    s.win_rounds += game.rounds
        return table

    def head_to_head(self) -> dict[str, dict[str, list[int]]]:
        """For kinds A and B: [games A won, games B won] among games with both at the table."""
        kinds = list(dict.fromkeys(self.bots))
        table = {a: {b: [0, 0] for b in kinds if b != a} for a in kinds}
        for game in self.games:
            if game.error:
                continue
            present = set(game.seats)
            won = game.seats[game.winner] if game.winner is not None else None
            for a in present:
                for b in present:
                    if a == b:
                        continue
                    if won == a:
                        table[a][b][0] += 1
                    elif won == b:
                        table[a][b][1] += 1
        return table

    @property
    def errors(self) -> list[GameResult]:
        return [g for g in self.games if g.error]

    def to_json(self) -> dict[str, Any]:
        return {
            "edition": self.edition,
            "course": self.course,
            "bots": self.bots,
            "seed": self.seed,
            "max_rounds": self.max_rounds,
            "variants": self.variants,
            "jobs": self.jobs,
            "seconds": round(self.seconds, 3),
            "games_played": len(self.games),
            "errors": len(self.errors),
            "no_winner": sum(1 for g in self.games if g.winner is None and not g.error),
            "per_bot": [s.summary() for s in self.stats().values()],
            "head_to_head": self.head_to_head(),
            "games": [asdict(g) for g in sorted(self.games, key=lambda g: g.index)],
        }

    def table(self) -> str:
        """The per-bot table as text."""
        per_bot = self.stats().values()
        rows = [s.summary() for s in per_bot]
        header = (
            f"{'bot':<12} {'games':>5} {'wins':>5} {'win rate':>8} {'95% CI':>15}"
            f" {'rounds/win':>10} {'checkpts':>8} {'reboots':>7} {'ms/decision':>11}"
            f" {'ms/program':>10} {'errors':>6}"
        )
        lines = [header, "-" * len(header)]
        for row in rows:
            low, high = row["win_rate_ci95"]
            rounds = row["mean_rounds_to_win"]
            lines.append(
                f"{row['bot']:<12} {row['games']:>5} {row['wins']:>5}"
                f" {100 * row['win_rate']:>7.1f}% {f'{100 * low:.1f}-{100 * high:.1f}%':>15}"
                f" {rounds if rounds is not None else '-':>10} {row['checkpoints_per_game']:>8.2f}"
                f" {row['reboots_per_game']:>7.2f} {row['mean_decision_ms']:>11.2f}"
                f" {row['mean_program_ms']:>10.2f} {row['errors']:>6}"
            )
        for stats in per_bot:
            if stats.failures:
                lines.append(
                    f"{stats.kind}: {stats.failures} answer(s) replaced by the default;"
                    f" first: {stats.first_failure}"
                )
            if stats.lost_games:
                lines.append(
                    f"{stats.kind}: {stats.lost_games} game(s) lost; first: {stats.first_lost_game}"
                )
        played = len(self.games) - len(self.errors)
        rate = len(self.games) / self.seconds if self.seconds else 0.0
        lines.append(
            f"{played} game(s) on {self.course} ({self.edition}) in {self.seconds:.1f} s"
            f" ({rate:.2f} games/s, {self.jobs} job(s)); no winner: "
            f"{sum(1 for g in self.games if g.winner is None and not g.error)};"
            f" errors: {len(self.errors)}"
            + (
                f"; bot errors (answered safely): {sum(len(g.bot_errors) for g in self.games)}"
                if any(g.bot_errors for g in self.games)
                else ""
            )
        )
        kinds = list(dict.fromkeys(self.bots))
        if len(kinds) > 1:
            h2h = self.head_to_head()
            pairs = []
            for i, a in enumerate(kinds):
                for b in kinds[i + 1 :]:
                    won, lost = h2h[a][b]
                    pairs.append(f"{a} {won} - {lost} {b}")
            lines.append("head to head (games won): " + "; ".join(pairs))
        return "\n".join(lines)


# ------------------------------------------------------------------------------ running
class Progress:
    """A progress bar on a stream (redrawn in place on a terminal, a line per 10 % else)."""

    def __init__(self, total: int, stream: TextIO | None = sys.stderr, width: int = 30) -> None:
        self.total = total
        self.stream = stream
        self.width = width
        self.began = time.perf_counter()
        self.tty = bool(stream is not None and hasattr(stream, "isatty") and stream.isatty())
        self.shown = -1

    def update(self, done: int) -> None:
        if self.stream is None or self.total <= 0:
            return
        elapsed = time.perf_counter() - self.began
        rate = done / elapsed if elapsed > 0 else 0.0
        eta = (self.total - done) / rate if rate > 0 else 0.0
        filled = int(self.width * done / self.total)
        bar = "#" * filled + "-" * (self.width - filled)
        text = f"[{bar}] {done}/{self.total} games  {rate:.2f} games/s  ETA {eta:.0f} s"
        if self.tty:
            self.stream.write("\r" + text + ("\n" if done == self.total else ""))
            self.stream.flush()
        else:
            step = done * 10 // self.total
            if step != self.shown:
                self.shown = step
                self.stream.write(text + "\n")
                self.stream.flush()


def tasks(
    edition: str,
    course: str,
    bots: list[str],
    games: int,
    seed: int,
    max_rounds: int,
    variants: list[str],
    records: str | None,
    move_time: float = DEFAULT_MOVE_TIME,
) -> Iterator[GameTask]:
    for index in range(games):
        shift = index % len(bots)
        seats = tuple(bots[shift:] + bots[:shift])
        yield GameTask(
            index,
            seed + index,
            edition,
            course,
            seats,
            max_rounds,
            tuple(variants),
            records,
            move_time,
        )


def run_tournament(
    edition: str = "2023",
    course: str | None = None,
    bots: list[str] | None = None,
    games: int = 10,
    seed: int = 1,
    jobs: int = 1,
    max_rounds: int = 50,
    variants: list[str] | None = None,
    records: str | Path | None = None,
    progress: TextIO | None = None,
    move_time: float = DEFAULT_MOVE_TIME,
    max_memory_mb: int | None = None,
) -> TournamentResult:
    """Play a tournament and return its results (see the module doc).

    ``move_time``: seconds a bot may take per decision (0: no limit); a later answer, an
    exception or an illegal answer is replaced by the decision's default and counted.

    ``jobs`` > 1 plays games in that many worker processes (bots registered with
    :func:`register_bot` are inherited where processes fork, as on Linux); a game whose worker
    dies is lost and counted against the bot that was running (see the module doc).

    ``max_memory_mb`` caps the address space of each worker process (games are then played in
    workers even with ``jobs`` 1): a bot that allocates beyond it gets ``MemoryError``.
    """
    bots = list(bots or ["planner", "random"])
    if move_time < 0:
        raise ValueError(f"the time per decision cannot be negative: {move_time}")
    if max_memory_mb is not None:
        check_memory_limit(max_memory_mb)
    if not bots:
        raise ValueError("name at least one bot")
    course = course or DEFAULT_COURSES.get(edition, "tiny")
    for kind in dict.fromkeys(bots):
        make(kind, 0)  # fail early on unknown bots
    from roborally.bots.runner import new_game

    new_game(course, len(bots), seed, max_rounds, list(variants or ()), edition)  # check setup
    if records is not None:
        Path(records).mkdir(parents=True, exist_ok=True)
    work = list(
        tasks(
            edition,
            course,
            bots,
            games,
            seed,
            max_rounds,
            list(variants or ()),
            str(records) if records is not None else None,
            move_time,
        )
    )
    jobs = max(1, min(jobs, len(work) or 1))
    result = TournamentResult(edition, course, bots, seed, max_rounds, list(variants or ()), jobs)
    bar = Progress(len(work), progress)
    began = time.perf_counter()

    def finished(game: GameResult) -> None:
        result.games.append(game)
        bar.update(len(result.games))

    if jobs == 1 and max_memory_mb is None:
        for task in work:
            finished(play_one(task))
    else:
        play_in_workers(
            work, jobs, play_one, lost_game, finished, max_memory_mb, stuck_after(move_time)
        )
    result.seconds = time.perf_counter() - began
    result.games.sort(key=lambda g: g.index)
    return result


def stuck_after(move_time: float) -> float:
    """Seconds after which a worker whose bot is still deciding is killed (0: never). The timer
    signal stops a bot at twice ``move_time``; a bot still deciding well after that is stuck
    where signals do not reach it (C code)."""
    return 2 * move_time + STUCK_GRACE if move_time > 0 else 0.0


def cpu_count() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not on Linux
        return os.cpu_count() or 1


def write_json(result: TournamentResult, path: str | Path) -> None:
    Path(path).write_text(json.dumps(result.to_json(), indent=2) + "\n", encoding="utf-8")
