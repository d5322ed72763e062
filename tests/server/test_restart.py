"""Persistence: a restarted server reloads its games and players continue where they were."""

from __future__ import annotations

import contextlib
import dataclasses
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from starlette.testclient import TestClient

from roborally.bots.random_bot import RandomBot
from roborally.content.record import parse_record, replay, write_record
from roborally.server.room import RUNTIME_SAVE_SECONDS
from roborally.server.store import DB_NAME

from .conftest import FAST, Ws, connect, create, hello, make_client, room_of, wait_for


def test_a_restarted_server_continues_running_games(tmp_path: Path, database: str | None) -> None:
    bot = RandomBot(8)
    options = dataclasses.replace(FAST, database=database)
    with make_client(tmp_path, options) as client:
        game = create(
            client,
            seats=[{"kind": "human"}, {"kind": "bot"}, {"kind": "human"}],
            max_rounds=4,
            grace_seconds=1.0,
        )
        gid = game["game_id"]
        token, idle = game["seats"][0]["token"], game["seats"][2]["invite"]
        lobby = create(client, seats=[{"kind": "human"}, {"kind": "human"}])
        joined = client.post(f"/api/games/{lobby['game_id']}/join", json={"name": "Cy"}).json()
        with connect(client, gid, token) as s0:  # seat 2 never comes: auto after 1 s
            ws = hello(s0, name="Ada")
            ws.send(type="start")
            for _ in range(3):  # a few decisions of seat 0
                ws.answer(ws.pending_state(), bot)
            ws.until("ack")
        room = room_of(client, gid)
        assert room.game is not None
        digest, actions = room.game.digest(), list(room.game.actions)
        pending = [d.id for d in room.game.pending_decisions()]
        assert len(actions) >= 4 and pending
    assert (tmp_path / DB_NAME).is_file() == (database is None)

    with make_client(tmp_path, options) as client:  # a new server on the same database
        room = room_of(client, gid)
        assert room.status == "running" and room.game is not None
        assert room.game.digest() == digest and room.game.actions == actions
        assert [d.id for d in room.game.pending_decisions()] == pending
        assert room.seats[0].name == "Ada" and room.game.config.players[0] == "Ada"
        open_game = client.get(f"/api/games/{lobby['game_id']}").json()
        assert open_game["status"] == "open" and open_game["seats"][1]["name"] == "Cy"
        assert open_game["free_seats"] == []
        with connect(client, lobby["game_id"], joined["token"]) as session:
            assert hello(session).session is session  # the joined token still works
        with connect(client, gid, invite=idle) as s2:  # seat 2 looks in, then leaves for good
            other = hello(s2)
            other.send(type="sync", since=0)
            events = other.until("events")
            assert events["first"] == 0 and events["next"] == len(room.game.events)
            assert other.until("state")["event_count"] == len(room.game.events)
        with connect(client, gid, token) as s0:
            ws = hello(s0)
            state = ws.pending_state()
            assert {p["id"] for p in state["pending"]} <= set(pending)
            over = ws.play_to_end(bot)  # seat 2 is auto-played after its grace period
        assert room.seats[2].auto and not room.seats[0].auto
        assert over["outcome"]["result"]
        text = client.get(f"/api/games/{gid}/record").text
        replayed = replay(parse_record(text))
        assert text == write_record(replayed, "tiny", gid)
        assert replayed.actions[: len(actions)] == actions
        assert replayed.is_over()

    with make_client(tmp_path, options) as client:  # finished games stay for replay and export
        assert gid not in client.app.state.server.rooms  # type: ignore[attr-defined]
        assert client.get(f"/api/games/{gid}/record").text == text
        frames = client.get(f"/api/games/{gid}/replay").json()["frames"]
        assert len(frames) == len(replayed.actions) + 1
        finished = client.get("/api/games?status=finished").json()["games"]
        assert [g["game_id"] for g in finished] == [gid]
        assert finished[0]["result"] == replayed.outcome().result_text(  # type: ignore[union-attr]
            replayed.config.players
        )


def test_a_restarted_server_keeps_the_clocks_drafts_and_away_times(
    tmp_path: Path, database: str | None
) -> None:
    """The deadlines are wall-clock times saved with the game, and so is its pause (nobody
    connected): after a restart the clocks go on from where they stood when the pause began
    instead of starting again, and a half-made program is kept."""
    options = dataclasses.replace(FAST, database=database)
    with make_client(tmp_path, options) as client:
        kinds = ("human", "bot", "human")
        # Nobody comes to seat 2: its start space is played for it once its 3 s pass.
        body = {"program_seconds": 600, "grace_seconds": 900, "decision_seconds": 3}
        with at_programming(client, kinds, **body) as started:
            game, ws, program = started
            gid = game["game_id"]
            hand = program["info"]["hand"]
            draft = [hand[0], hand[1], None, None, None]
            ws.send(type="draft", decision_id=program["id"], program=draft, id=3)
            assert ws.until("ack")["ref"] == 3
            deadline = program["deadline"]
        room = room_of(client, gid)
        wait_for(lambda: room.paused_at is not None)  # Ada left: nobody is connected
        away, paused = room.seats[0].away_since, room.paused_at
        assert deadline is not None and away is not None and paused is not None
        missed = room.seats[2].missed  # its start space (and upgrade phase) played for it
        assert missed >= 1 and not room.seats[2].auto  # each once: not away
        assert room.game is not None
        digest = room.game.digest()

    time.sleep(0.3)  # the new server starts later: a running clock would have run meanwhile
    with make_client(tmp_path, options) as client:
        room = room_of(client, gid)
        assert room.game is not None and room.game.digest() == digest
        assert room.deadlines[program["id"]][0] == deadline  # not 600 s from now
        assert room.paused_at == paused and room.seats[0].away_since == away
        assert room.seats[2].missed == missed and not room.seats[0].auto
        assert room.seats[0].drafts == {program["id"]: draft}
        with connect(client, gid, game["seats"][0]["token"]) as session:
            ws = hello(session)
            state = ws.pending_state()
            again = next(p for p in state["pending"] if p["id"] == program["id"])
            assert again["info"]["hand"] == hand
            # What was left when the pause began: neither the pause nor the restart counted.
            left = again["deadline"] - state["server_time"]
            assert deadline - paused - 1.0 < left <= deadline - paused


def test_runtime_changes_close_together_are_saved_once(tmp_path: Path) -> None:
    """Drafts (and a move's timers) change the runtime state several times in a few
    milliseconds; it is saved once, RUNTIME_SAVE_SECONDS after the first change, with the
    last of them."""
    with (
        make_client(tmp_path) as client,
        at_programming(client, ("human", "bot"), program_seconds=600) as started,
    ):
        game, ws, program = started
        gid = game["game_id"]
        hand = program["info"]["hand"]
        room = room_of(client, gid)
        store = room.ctx.store.sync
        saved: list[Any] = []
        real = store.save_runtime
        store.save_runtime = lambda game_id, data: (saved.append(data), real(game_id, data))  # type: ignore[method-assign]
        for n in range(1, 6):
            draft = [*hand[:n], *[None] * (5 - n)]
            ws.send(type="draft", decision_id=program["id"], program=draft, id=10 + n)
            assert ws.until("ack")["ref"] == 10 + n
        time.sleep(RUNTIME_SAVE_SECONDS + 0.3)
        assert len(saved) == 1, saved
        assert saved[0]["seats"][0]["drafts"] == {program["id"]: hand[:5]}
        stored = store.load(gid)
        assert stored is not None and stored.runtime == saved[0]


@contextlib.contextmanager
def at_programming(
    client: TestClient, kinds: tuple[str, ...], **body: Any
) -> Iterator[tuple[dict[str, Any], Ws, dict[str, Any]]]:
    """A game of ``kinds`` seats started by Ada in seat 0, at her first program decision:
    (the game as created, her socket, the decision)."""
    game = create(client, seats=[{"kind": kind} for kind in kinds], **body)
    with connect(client, game["game_id"], game["seats"][0]["token"]) as session:
        ws = hello(session, name="Ada")
        ws.send(type="start")
        yield game, ws, programming(ws)


def programming(ws: Ws) -> dict[str, Any]:
    """Answer what comes before programming (a random bot); the program decision."""
    state = ws.pending_state()
    while not any(p["kind"] == "program" for p in state["pending"]):
        ws.answer(state, RandomBot(3))
        state = ws.pending_state()
    return next(p for p in state["pending"] if p["kind"] == "program")
