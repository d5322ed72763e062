"""Work off the event loop: games live in worker processes, a lost worker costs no game, a bot
has a time budget, and no game waits for ever for an idle player."""

from __future__ import annotations

import dataclasses
import os
import signal
import time
from pathlib import Path
from typing import Any

from roborally.bots.random_bot import RandomBot
from roborally.engine.core.decisions import TIMEOUT, Action
from roborally.server.host import GameHost, HostSpec, Play
from roborally.server.settings import GameSettings

from .conftest import FAST, connect, create, final_game, hello, make_client, room_of, wait_for

PROCESSES = dataclasses.replace(FAST, engine_workers=1, bot_workers=1)


def test_games_run_in_worker_processes_and_survive_a_lost_worker(tmp_path: Path) -> None:
    with make_client(tmp_path, PROCESSES) as client:
        pids = client.get("/api/health").json()["workers"]
        assert len(pids) == 2 and os.getpid() not in pids
        bots = create(client, seats=[{"kind": "bot"}] * 3, max_rounds=3)
        game = create(client, seats=[{"kind": "human"}, {"kind": "bot"}], max_rounds=3)
        gid = game["game_id"]
        room = room_of(client, gid)
        assert room.game is None  # the engine's game is in a worker, not in this process
        bot = RandomBot(2)
        with connect(client, gid, game["seats"][0]["token"]) as session:
            ws = hello(session)
            ws.send(type="ready")
            ws.answer(ws.pending_state(), bot)
            ws.until("ack")
            # The people lane's worker dies mid-game: the room rebuilds the game from the
            # store in a fresh worker and play goes on.
            people = client.app.state.server.pool.lanes["people"][0]  # type: ignore[attr-defined]
            os.kill(people.pid, signal.SIGKILL)
            over = ws.play_to_end(bot)
        assert over["outcome"]["result"]
        replayed = final_game(client, gid)
        assert replayed.is_over() and len(replayed.actions) == room.saved
        assert client.portal.call(room.digest)["digest"] == replayed.digest()  # type: ignore[union-attr]
        fresh = client.get("/api/health").json()["workers"]
        assert people.pid not in fresh and len(fresh) == 2
        wait_for(lambda: room_of(client, bots["game_id"]).status == "finished", 30)


def test_worker_processes_end_with_the_server(tmp_path: Path) -> None:
    with make_client(tmp_path, PROCESSES) as client:
        pids = client.get("/api/health").json()["workers"]
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and any(_alive(p) for p in pids):
        time.sleep(0.05)
    assert not any(_alive(p) for p in pids)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    with open(f"/proc/{pid}/stat") as stat:  # a zombie has ended
        return stat.read().split()[2] != "Z"


class _SlowBot:
    name = "slow"

    def choose(self, observation: dict[str, Any], decision: Any) -> Any:
        time.sleep(5)
        return decision.default


def test_a_bot_that_thinks_too_long_gets_its_default() -> None:
    """The budget is a timer signal, as in a worker process's main thread."""
    settings = GameSettings("2023", "tiny", ("lighter",), 0, 60, 30, 2, 3, 0, seed_chosen=True)
    spec = HostSpec("g", settings.to_json(), ("A", "B"), {0: "random", 1: "random"})
    host = GameHost(spec, bot_seconds=0.2, budgets=True)
    host.bots[0] = _SlowBot()
    started = time.monotonic()
    update = host.drive(Play(budget=0.0))
    assert time.monotonic() - started < 2
    first = update.actions[0]
    assert first[1] == 0 and first[2] == TIMEOUT  # the slow bot's decision timed out
    assert not isinstance(host.bots[0], _SlowBot)  # a fresh bot of its kind took over


def test_an_idle_player_is_auto_played_and_takes_the_seat_back(tmp_path: Path) -> None:
    """No programming timer and a player who never programs: after ``program_seconds`` the
    game plays the seat, and the player takes it back with 'back'."""
    with make_client(tmp_path) as client:
        game = create(
            client,
            seats=[{"kind": "human"}, {"kind": "human"}],
            variants=["lighter"],
            decision_seconds=0.3,
            program_seconds=0.3,
            max_rounds=20,
        )
        gid = game["game_id"]
        room = room_of(client, gid)
        bot = RandomBot(4)
        with (
            connect(client, gid, game["seats"][0]["token"]) as idle_session,
            connect(client, gid, invite=game["seats"][1]["invite"]) as busy_session,
        ):
            idle, busy = hello(idle_session), hello(busy_session)
            idle.send(type="ready")
            busy.send(type="ready")
            busy.answer(busy.pending_state(), bot)  # seat 1 plays promptly; seat 0 never
            away = idle.until("state", lambda m: m["seats"][0]["auto"])
            assert away["status"] == "running" and room.seats[0].auto
            assert away["seats"][0]["auto_reason"] == "idle"
            assert [t for t in away["timers"] if t["seat"] == 0] == []  # nothing waits for it
            busy.answer(busy.pending_state(), bot)
            idle.send(type="decide", decision_id="t1-p1-program", choice=TIMEOUT, id="late")
            assert idle.until("error")["code"] in ("auto_play", "not_pending")
            idle.send(type="back", id="b")
            assert idle.until("ack", lambda m: m["for"] == "back")["ref"] == "b"
            assert not room.seats[0].auto
            back = idle.until("state", lambda m: not m["seats"][0]["auto"])
            assert back["status"] == "running"
            # From the next decision on, the game waits for seat 0 again (with a deadline).
            busy.answer(busy.pending_state(), bot)
            mine = idle.pending_state()
            assert mine["pending"] and mine["pending"][0]["seat"] == 0
            assert mine["pending"][0]["deadline"] is not None


def test_a_facing_chosen_while_programming_is_used_at_reentry() -> None:
    """A preset (the page's reboot facing, chosen while programming) answers the re-entry
    question when the engine asks it in register 1; other questions stay the player's."""
    settings = GameSettings("2023", "tiny", ("lighter",), 0, 60, 30, 20, 7, 0, seed_chosen=True)
    host = GameHost(HostSpec("g", settings.to_json(), ("A", "B"), {1: "random"}))
    game = host.game
    preset = {0: {"reboot_facing": "W"}}
    for _ in range(400):
        if game.is_over():
            break
        update = host.drive(Play(presets=preset))
        if update.presets_used:
            assert update.presets_used == [(0, "reboot_facing")]
            used = [a for a in game.actions if a.decision_id.endswith("reboot_facing")]
            assert used[-1].seat == 0 and used[-1].choice == "W"
            return
        mine = [d for d in game.pending_decisions() if d.seat == 0]
        assert all(d.kind.value != "reboot_facing" for d in mine)  # the preset answered it
        if mine:
            game.apply(Action(mine[0].id, 0, TIMEOUT))  # a random program: it will fall
    raise AssertionError("seat 0 never rebooted in this game; pick another seed")


def test_preset_messages_are_checked(tmp_path: Path) -> None:
    with make_client(tmp_path) as client:
        game = create(client, seats=[{"kind": "human"}, {"kind": "bot"}], variants=["lighter"])
        with connect(client, game["game_id"], game["seats"][0]["token"]) as session:
            ws = hello(session)
            ws.send(type="preset", decision_kind="reboot_facing", choice="N", id=1)
            assert ws.error()["code"] == "out_of_phase"  # the game has not started
            ws.send(type="ready")
            ws.pending_state()
            ws.send(type="preset", decision_kind="shutdown", choice=True, id=2)
            assert ws.error()["code"] == "bad_message"
            ws.send(type="preset", decision_kind="reboot_facing", choice="up", id=3)
            assert ws.error()["code"] == "invalid_action"
            ws.send(type="preset", decision_kind="reboot_facing", choice="E", id=4)
            ack = ws.until("ack", lambda m: m["ref"] == 4)
            assert ack["for"] == "preset" and room_of(client, game["game_id"]).seats[0].presets
