"""Playing through the WebSocket API, and hidden information checked on the wire."""

from __future__ import annotations

import asyncio
import concurrent.futures
import json
import re
from pathlib import Path
from typing import Any

import httpx
import pytest
from starlette.testclient import TestClient

from roborally.bots.random_bot import RandomBot
from roborally.content.record import write_record
from roborally.engine.core.events import Event, EventKind
from roborally.engine.core.rng import parse_seed, seed_commitment
from roborally.server.client import RemotePlayer, hands_in, seat_key, view_leaks
from roborally.server.host import GameHost, HostSpec
from roborally.server.room import GameRoom
from roborally.server.rulesets import edition_available
from roborally.server.settings import GameSettings

from .conftest import LiveServer, connect, create, final_game, hello, room_of


def test_a_human_seat_plays_a_whole_game(client: TestClient) -> None:
    game = create(client, seats=[{"kind": "human"}, {"kind": "bot"}, {"kind": "bot"}])
    gid = game["game_id"]
    with connect(client, gid, game["seats"][0]["token"]) as session:
        ws = hello(session, name="Ada")
        lobby = ws.until("state")
        assert lobby["status"] == "open" and lobby["observation"] is None
        assert lobby["seats"][0]["name"] == "Ada" and lobby["seats"][0]["taken"]
        ws.send(type="ready", id="r1")
        assert ws.until("ack")["ref"] == "r1"
        over = ws.play_to_end(RandomBot(5))
    room = room_of(client, gid)
    final = final_game(client, gid)
    assert room.status == "finished" and final.is_over()
    assert over["outcome"]["result"] == final.outcome().result_text(  # type: ignore[union-attr]
        final.config.players
    )
    assert final.config.players[0] == "Ada"
    # the end reveals the seed, which matches the commitment shown from the start
    assert over["seed"] is not None and over["seed_commitment"] == seed_commitment(
        parse_seed(over["seed"])
    )
    # Every event reached the player exactly once, in order, with register segments.
    indexes = []
    for text in ws.raw:
        msg = json.loads(text)
        if msg["type"] == "events":
            assert [e["i"] for e in msg["events"]] == list(range(msg["first"], msg["next"]))
            for seg in msg["segments"]:
                chunk = msg["events"][seg["start"] : seg["end"]]
                assert {(e["round"], e["register"]) for e in chunk} == {
                    (seg["round"], seg["register"])
                }
            indexes.extend(e["i"] for e in msg["events"])
    assert indexes == list(range(len(final.events)))
    # The export is the engine's record, and it replays to the same game.
    text = client.get(f"/api/games/{gid}/record").text
    assert text == write_record(final, "tiny", gid)
    assert room.store.load(gid).record == text  # type: ignore[union-attr]


@pytest.mark.parametrize(
    ("edition", "course"),
    [
        ("2023", "tiny"),
        pytest.param(
            "classic",
            "cl-tune-up",
            marks=pytest.mark.skipif(not edition_available("classic"), reason="no classic"),
        ),
    ],
)
def test_hidden_information_on_the_wire(tmp_path: Path, edition: str, course: str) -> None:
    """Two remote players and a spectator over real sockets: each frame holds only its view."""

    async def play(base: str) -> tuple[str, list[Any]]:
        async with httpx.AsyncClient(base_url=base) as http:
            body = {
                "edition": edition,
                "course": course,
                "seats": [{"kind": "human"}, {"kind": "human"}, {"kind": "bot"}],
                "max_rounds": 12,
                "seed": 4,
            }
            game = (await http.post("/api/games", json=body)).json()
        players = [
            RemotePlayer(game["ws_url"], **seat_key(s), seed=i, keep_raw=True)
            for i, s in enumerate(game["seats"][:2])
        ]
        spectator = RemotePlayer(game["ws_url"], act=False, keep_raw=True)
        results = await asyncio.gather(spectator.run(), *(p.run() for p in players))
        return game["game_id"], list(results)

    with LiveServer(tmp_path) as live:
        # A fresh thread: Playwright's sync API (browser tests) may own this thread's loop.
        with concurrent.futures.ThreadPoolExecutor(1) as pool:
            gid, (watcher, first, second) = pool.submit(asyncio.run, play(live.base)).result()
        room = live.room(gid)
    assert room.status == "finished"
    for result, viewer in ((first, 0), (second, 1), (watcher, None)):
        assert result.errors == [] and result.outcome is not None
        assert result.seat == viewer
        for text in result.raw:
            assert view_leaks(text, viewer) == [], text
    assert first.decisions > 10 and second.decisions > 10
    assert any(hands_in(text) for text in first.raw)  # the check above did see hands


def test_face_down_haywire_is_redacted_for_others() -> None:
    """The worker marks a face-down Haywire's name as its owner's; the room sends each seat
    its copy."""
    settings = GameSettings("2023", "tiny", (), 0, 60, 30, 1, 5, 0, seed_chosen=True)
    host = GameHost(HostSpec("g", settings.to_json(), ("A", "B"), {0: "random", 1: "random"}))
    game = host.game
    haywire = next(c.name for c in game.config.damage_deck.cards if c.type.value == "haywire")
    game.state.events.append(
        Event(
            EventKind.DAMAGED,
            1,
            2,
            seat=1,
            card=haywire,
            amount=1,
            cause="laser; to register 2",
            secret=True,  # as the engine marks a face-down Haywire
        )
    )
    game.state.events.append(
        Event(EventKind.DAMAGED, 1, 2, seat=1, card="spam", amount=1, cause="laser; to discard")
    )
    update = host.update([])
    secret, public = update.events[-2:]
    assert json.loads(secret.private[1])["card"] == haywire  # type: ignore[index]
    hidden = json.loads(secret.text)
    assert "card" not in hidden and hidden["hidden"] is True
    assert public.private is None and json.loads(public.text)["card"] == "spam"
    room = GameRoom(None, "g", settings, [], "", 0.0)  # type: ignore[arg-type]
    room.events = update.events
    last = len(room.events) - 2
    assert json.loads(room.events_text(last, last + 1, 1))["events"][0]["card"] == haywire
    for viewer in (0, None):
        shown = json.loads(room.events_text(last, last + 2, viewer))["events"]
        assert "card" not in shown[0] and shown[0]["hidden"] is True
        assert shown[1]["card"] == "spam"


def test_the_minimal_client_of_the_protocol_doc_plays_a_game(tmp_path: Path) -> None:
    """docs/protocol.md section 3 is a working client."""
    doc = (Path(__file__).resolve().parents[2] / "docs" / "protocol.md").read_text("utf-8")
    section = doc.split("## 3. A minimal client (Python)", 1)[1]
    code = re.search(r"```python\n(.*?)```", section, re.S)
    assert code is not None
    namespace: dict[str, Any] = {}
    exec(code.group(1), namespace)

    async def run(base: str) -> Any:
        async with httpx.AsyncClient(base_url=base) as http:
            body = {
                "course": "tiny",
                "seats": [{"kind": "human"}, {"kind": "bot"}],
                "max_rounds": 2,
            }
            game = (await http.post("/api/games", json=body)).json()
        return await namespace["play"](game["ws_url"], game["seats"][0]["token"])

    with LiveServer(tmp_path) as live, concurrent.futures.ThreadPoolExecutor(1) as pool:
        outcome = pool.submit(asyncio.run, run(live.base)).result()
    assert outcome["termination"] in ("checkpoints", "round_limit")


def test_a_path_preview_for_the_program_being_written(client: TestClient) -> None:
    """``preview`` answers where the robot ends after each register if nothing else moved it
    (the engine's own rules, in the worker); it changes nothing and is the asker's alone."""
    game = create(client, seats=[{"kind": "human"}, {"kind": "bot"}], variants=["lighter"])
    gid = game["game_id"]
    with connect(client, gid, game["seats"][0]["token"]) as session:
        ws = hello(session)
        ws.send(type="ready")
        state = ws.pending_state()
        start = state["pending"][0]
        ws.answered.add(start["id"])
        ws.send(type="decide", decision_id=start["id"], choice=start["options"][0])
        state = ws.pending_state()
        program = state["pending"][0]
        assert program["kind"] == "program"
        hand = program["info"]["hand"]
        room = room_of(client, gid)
        before = room.game.digest()  # type: ignore[union-attr]
        ws.send(
            type="preview",
            decision_id=program["id"],
            program=[hand[0], None, None, None, None],
            id="p",
        )
        reply = ws.until("preview")
        assert reply["ref"] == "p" and reply["decision_id"] == program["id"]
        assert [r["register"] for r in reply["registers"]] == [1, 2, 3, 4, 5]
        assert all("pos" in r and "facing" in r for r in reply["registers"])
        assert room.game.digest() == before  # type: ignore[union-attr]
        missing = next(c for c in ("move3", "u_turn", "again", "power_up") if c not in hand)
        ws.send(type="preview", decision_id=program["id"], program=[missing] + [None] * 4, id="x")
        assert ws.error()["code"] == "illegal_action"
