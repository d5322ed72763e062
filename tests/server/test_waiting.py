"""Games wait for their people (docs/server.md "Deadlines"): a missed deadline plays that one
decision, the next has its whole clock again; a seat that lets several pass in a row is away
and played at a pace people can follow, never at once; a game nobody is connected to is
paused, its clocks standing still, until somebody comes back, and ends as abandoned after a
long while. Games of bots only do not wait."""

from __future__ import annotations

import dataclasses
import time
from pathlib import Path

from roborally.server.room import MISSES_AWAY

from .conftest import FAST, Ws, connect, create, hello, make_client, room_of, wait_for

QUICK = dataclasses.replace(FAST, grace_seconds=30, away_seconds=0.3)


def test_a_missed_deadline_plays_that_decision_only(tmp_path: Path) -> None:
    with make_client(tmp_path, QUICK) as client:
        game = create(
            client, seats=[{"kind": "human"}, {"kind": "bot"}], decision_seconds=0.3, max_rounds=3
        )
        gid = game["game_id"]
        room = room_of(client, gid)
        with connect(client, gid, game["seats"][0]["token"]) as session:
            ws = hello(session)
            ws.send(type="ready")
            first = ws.pending_state()["pending"][0]
            assert first["kind"] == "start_space"
            # Ada lets it pass: its default is played, and she is not played for after that.
            ws.until("state", lambda m: not any(p["id"] == first["id"] for p in m["pending"]))
            assert room.seats[0].missed == 1 and not room.seats[0].auto
            state = ws.until("state", lambda m: any(p["deadline"] for p in m["pending"]))
            again = state["pending"][0]
            assert state["seats"][0]["auto"] is False
            # The next decision has its whole clock (0.3 s here), and she answers it herself.
            assert again["deadline"] - state["server_time"] > 0.2
            ws.answered.add(again["id"])
            choice = again["options"][0] if again["options"] else again["info"]["hand"][:5]
            ws.send(type="decide", decision_id=again["id"], choice=choice)
            ws.until("ack")
            assert room.seats[0].missed == 0  # an answer of her own


def test_several_missed_in_a_row_mark_the_seat_away(tmp_path: Path) -> None:
    with make_client(tmp_path, QUICK) as client:
        game = create(
            client,
            seats=[{"kind": "human"}, {"kind": "bot"}],
            decision_seconds=0.2,
            program_seconds=0.2,
            max_rounds=5,
            variants=["lighter"],
        )
        gid = game["game_id"]
        room = room_of(client, gid)
        with connect(client, gid, game["seats"][0]["token"]) as session:
            ws = hello(session)
            ws.send(type="ready")
            away = ws.until("state", lambda m: m["seats"][0]["auto"], limit=5000)
            assert away["seats"][0]["auto_reason"] == "idle"
            assert room.seats[0].missed >= MISSES_AWAY
            # Away, its decisions wait away_seconds (0.3 s) each: never played at once.
            state = ws.until("state", lambda m: bool(m["pending"]) and m["status"] == "running")
            decision = state["pending"][0]
            timer = next(t for t in state["timers"] if t["decision_id"] == decision["id"])
            assert timer["reason"] == "away" and timer["deadline"] - state["server_time"] > 0.2
            # "I'm back": her decisions have their whole clocks again.
            ws.send(type="back", id="b")
            assert ws.until("ack", lambda m: m.get("ref") == "b")["for"] == "back"
            assert not room.seats[0].auto and room.seats[0].missed == 0


def test_a_game_nobody_is_connected_to_waits_and_goes_on_where_it_was(tmp_path: Path) -> None:
    with make_client(tmp_path, QUICK) as client:
        game = create(
            client,
            seats=[{"kind": "human"}, {"kind": "human"}, {"kind": "bot"}],
            decision_seconds=30,
            program_seconds=30,
            grace_seconds=0.1,
            variants=["lighter"],
        )
        gid = game["game_id"]
        room = room_of(client, gid)
        with (
            connect(client, gid, game["seats"][0]["token"]) as a,
            connect(client, gid, invite=game["seats"][1]["invite"]) as b,
        ):
            ada, bo = hello(a), hello(b)
            bo_token = bo.token
            ada.send(type="start")
            state = ada.until("state", lambda m: any(p["deadline"] for p in m["pending"]))
            mine = state["pending"][0]
            left = mine["deadline"] - state["server_time"]
        # Both left: the game is paused, nobody is played for (no grace passes, no clock).
        wait_for(lambda: room.paused_at is not None)
        pending = [d.id for d in room.pending]
        time.sleep(0.5)  # five grace periods and more away clocks: nothing happens
        assert [d.id for d in room.pending] == pending
        assert not any(s.auto for s in room.seats) and room.status == "running"
        with connect(client, gid) as w:  # a spectator is told the game waits
            watcher = Ws(w)
            watcher.send(type="hello")
            seen = watcher.until("state")
            assert seen["paused_since"] is not None
            assert [t["reason"] for t in seen["timers"]] == ["abandon"]
        # Bo comes back: the clocks go on from where they stood, Ada's decision waits for her.
        with connect(client, gid, bo_token) as b2:
            back = hello(b2)
            state = back.until("state", lambda m: m["paused_since"] is None)
            assert [d.id for d in room.pending] == pending
            ada_clock = room.deadlines[mine["id"]][0] - time.time()
            assert left - 1.0 < ada_clock <= left  # what was left when the pause began


def test_a_game_nobody_comes_back_to_is_abandoned(tmp_path: Path) -> None:
    options = dataclasses.replace(QUICK, abandon_seconds=0.5)
    with make_client(tmp_path, options) as client:
        game = create(client, seats=[{"kind": "human"}, {"kind": "bot"}])
        gid = game["game_id"]
        with connect(client, gid, game["seats"][0]["token"]) as a:
            ada = hello(a)
            ada.send(type="start")
            ada.until("state", lambda m: m["status"] == "running")
        server = client.app.state.server  # type: ignore[attr-defined]
        wait_for(lambda: gid not in server.rooms, 10)
        assert server.store.sync.status(gid) == "abandoned"
        gone = client.get(f"/api/games/{gid}")
        assert gone.status_code == 404 and "abandoned" in gone.json()["error"]["message"]
        with connect(client, gid, game["seats"][0]["token"]) as again:
            refused = again.receive_json()
            assert refused["code"] == "unknown_game" and "abandoned" in refused["message"]


def test_games_of_bots_only_do_not_wait(tmp_path: Path) -> None:
    with make_client(tmp_path, QUICK) as client:
        game = create(client, seats=[{"kind": "bot"}, {"kind": "bot"}], max_rounds=3)
        room = room_of(client, game["game_id"])
        wait_for(lambda: room.status == "finished", 30)
        assert room.paused_at is None
