"""Tournaments survive bots that end or break their process, and always end with their table.

A worker process that dies (``os._exit``, a signal as from the out-of-memory killer) or is killed
(its bot stuck where the time limit's signal cannot reach) loses the game it was playing, counted
against the bot that was running, and a new worker plays on. ``sys.exit``, a bot's own
``KeyboardInterrupt`` and ``MemoryError`` (also past ``--max-memory``) are errors of that bot,
with ``--jobs 1`` as in workers: the decision gets its default answer. A real Ctrl-C still stops
the tournament. The bots are in ``tournament_crash_bots.py``; each misbehaves once, in seat 0.
"""

from __future__ import annotations

import faulthandler
import json
import multiprocessing
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from roborally.bots import tournament
from roborally.bots.tournament import TournamentResult, run_tournament
from roborally.cli import main

BOUND = 30.0  # seconds for one tournament of a few short games, even on a busy machine
MOVE_TIME = 5.0  # generous: a loaded machine must not make a random bot's answer late
MEMORY_MB = 1024  # far above what a worker uses, far below what the machine has


@pytest.fixture(autouse=True)
def no_hang() -> Iterator[None]:
    """A hang must fail the run, not block it: past twice the bound, faulthandler prints every
    thread's stack and ends the test process."""
    faulthandler.dump_traceback_later(2 * BOUND, exit=True)
    try:
        yield
    finally:
        faulthandler.cancel_dump_traceback_later()


def bot(name: str) -> str:
    return f"tournament_crash_bots:{name}"


def play(bots: list[str], jobs: int, games: int, **options: Any) -> TournamentResult:
    """A short tournament on the tiny course, which must end well within ``BOUND``."""
    options.setdefault("move_time", MOVE_TIME)
    began = time.perf_counter()
    result = run_tournament(
        "2023", "tiny", bots, games=games, seed=5, max_rounds=2, jobs=jobs, **options
    )
    assert time.perf_counter() - began < BOUND
    assert len(result.games) == games
    return result


def finished_normally(result: TournamentResult, indexes: list[int]) -> None:
    for index in indexes:
        game = result.games[index]
        assert game.error is None and game.lost_seat is None, game.error
        assert game.termination in ("checkpoints", "round_limit") and game.rounds >= 1


@pytest.mark.parametrize("jobs", [1, 2])
def test_sys_exit_and_a_bots_own_keyboard_interrupt_are_its_errors(jobs: int) -> None:
    exits, interrupts = bot("CallsSysExit"), bot("RaisesKeyboardInterrupt")
    result = play([exits, interrupts, "random"], jobs, games=3)  # each in seat 0 once
    assert result.errors == []
    finished_normally(result, [0, 1, 2])
    stats = result.stats()
    assert stats[exits].failures == 1 and stats[exits].games == 3
    assert "raised SystemExit(3)" in (stats[exits].first_failure or "")
    assert stats[interrupts].failures == 1
    assert "raised KeyboardInterrupt(" in (stats[interrupts].first_failure or "")
    assert stats["random"].failures == 0 and stats["random"].lost_games == 0
    assert f"{exits}: 1 answer(s) replaced by the default; first: game 1:" in result.table()


@pytest.mark.parametrize(
    ("jobs", "max_memory_mb", "told"),
    [
        (1, None, "raised MemoryError()"),  # in this process, no limit: asks for 1 EiB
        (1, MEMORY_MB, f"over the limit of {MEMORY_MB} MB"),  # a worker, even with one job
        (2, MEMORY_MB, f"over the limit of {MEMORY_MB} MB"),
    ],
)
def test_a_bot_out_of_memory_gets_memory_error(
    jobs: int, max_memory_mb: int | None, told: str
) -> None:
    eater = bot("EatsMemory")
    result = play([eater, "random"], jobs, games=4, max_memory_mb=max_memory_mb)
    assert result.errors == []
    finished_normally(result, [0, 1, 2, 3])
    stats = result.stats()
    assert stats[eater].failures == 2 and stats[eater].lost_games == 0
    assert told in (stats[eater].first_failure or "")
    assert stats["random"].failures == 0


@pytest.mark.parametrize(
    ("crasher", "what"),
    [
        ("ExitsProcess", "worker process died (exit code 3)"),
        ("KillsItself", "worker process died (exit code -9 / signal SIGKILL)"),
    ],
)
def test_a_dead_worker_loses_only_its_game(crasher: str, what: str) -> None:
    kind = bot(crasher)
    result = play([kind, "random"], jobs=2, games=4)  # dies in games 1 and 3 (indexes 0, 2)
    lost = [game.index for game in result.errors]
    assert lost == [0, 2]
    for index in lost:
        game = result.games[index]
        assert game.lost_seat == 0
        assert game.error == (
            f"{what} while the bot in seat 0 ({kind}) was running; the game is lost (not replayed)"
        )
    finished_normally(result, [1, 3])
    stats = result.stats()
    assert stats[kind].lost_games == 2 and stats[kind].failures == 0
    assert stats[kind].games == 2  # the finished games only
    assert stats["random"].lost_games == 0 and stats["random"].games == 2
    table = result.table()
    assert f"{kind}: 2 game(s) lost; first: game 1: {what} while the bot in seat 0" in table
    assert "2 game(s) on tiny (2023)" in table and "errors: 2" in table
    rows = {row["bot"]: row for row in result.to_json()["per_bot"]}
    assert rows[kind]["errors"] == 2 and rows[kind]["lost_games"] == 2
    assert rows[kind]["first_error"].startswith(f"game 1: {what}")
    assert rows["random"]["errors"] == 0


def test_a_bot_stuck_where_signals_do_not_reach_is_killed(monkeypatch: pytest.MonkeyPatch) -> None:
    """A bot that blocks the timer signal and loops stands for one stuck in C code: its worker
    is killed past twice the time limit and a grace period."""
    monkeypatch.setattr(tournament, "STUCK_GRACE", 0.5)
    kind = bot("StuckInC")
    result = play([kind, "random"], jobs=2, games=4, move_time=0.5)
    assert [game.index for game in result.errors] == [0, 2]
    for index in (0, 2):
        error = result.games[index].error or ""
        assert error.startswith("worker process killed: its bot was still deciding after ")
        assert f"while the bot in seat 0 ({kind}) was running" in error
    finished_normally(result, [1, 3])
    assert result.stats()[kind].lost_games == 2


@pytest.mark.parametrize(
    ("jobs", "presser"),
    [(1, "PressesCtrlC"), (2, "PressesCtrlCOnParent")],
)
def test_a_real_ctrl_c_still_stops_the_tournament(jobs: int, presser: str) -> None:
    began = time.perf_counter()
    with pytest.raises(KeyboardInterrupt):
        run_tournament("2023", "tiny", [bot(presser), "random"], games=6, max_rounds=2, jobs=jobs)
    assert time.perf_counter() - began < BOUND
    assert multiprocessing.active_children() == []  # no worker left behind


def test_the_command_line_counts_a_dead_worker_and_memory_errors(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    killed, eater = bot("KillsItself"), bot("EatsMemory")
    out = tmp_path / "results.json"
    argv = ["tournament", "--bots", f"{killed},{eater},random", "--games", "3"]
    argv += ["--max-rounds", "2", "--jobs", "2", "--max-memory", str(MEMORY_MB)]
    argv += ["--json", str(out), "-q"]
    began = time.perf_counter()
    assert main(argv) == 1  # a game was lost: an error, as when the engine fails
    assert time.perf_counter() - began < BOUND
    printed = capsys.readouterr().out
    died = "worker process died (exit code -9 / signal SIGKILL)"
    assert f"{killed}: 1 game(s) lost; first: game 1: {died}" in printed
    assert f"{eater}: 1 answer(s) replaced by the default; first: game 2:" in printed
    assert "error in game 1 (seed 1," in printed
    data = json.loads(out.read_text())
    assert data["games_played"] == 3 and data["errors"] == 1
    rows = {row["bot"]: row for row in data["per_bot"]}
    assert (rows[killed]["errors"], rows[killed]["lost_games"], rows[killed]["games"]) == (1, 1, 2)
    assert rows[eater]["answers_replaced"] == 1 and "MemoryError" in rows[eater]["first_error"]
    assert rows["random"]["errors"] == 0
    assert [game["lost_seat"] for game in data["games"]] == [0, None, None]
    assert {game["termination"] for game in data["games"][1:]} <= {"checkpoints", "round_limit"}


def test_the_memory_limit_is_checked(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as refused:
        main(["tournament", "--bots", "random", "--games", "1", "--max-memory", "0", "-q"])
    assert refused.value.code == 2
    assert "--max-memory: 0 is out of range" in capsys.readouterr().err
    with pytest.raises(ValueError, match="at least 1 MB"):
        run_tournament("2023", "tiny", ["random"], games=1, max_memory_mb=-5)
