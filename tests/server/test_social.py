"""Chat, quick emotes and rematches (docs/protocol.md 2.7): server-authoritative and safe to
put on the internet (lengths, invisible characters, a per-seat rate, spectators only read)."""

from __future__ import annotations

import contextlib
import dataclasses
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from roborally.server.social import CHAT_BURST, CHAT_KEEP, CHAT_MAX_CHARS, EMOTES, clean_chat

from .conftest import FAST, Ws, connect, create, hello, make_client, room_of, wait_for

XSS = "<img src=x onerror=alert(1)>"


@contextlib.contextmanager
def table(client: TestClient, **body: Any) -> Iterator[tuple[dict[str, Any], Ws, Ws, Ws]]:
    """A game of Ada and Bo (and a bot) with both players and a spectator connected."""
    body.setdefault("seats", [{"kind": "human"}, {"kind": "human"}, {"kind": "bot"}])
    game = create(client, **body)
    gid = game["game_id"]
    with (
        connect(client, gid, game["seats"][0]["token"]) as a,
        connect(client, gid, invite=game["seats"][1]["invite"]) as b,
        connect(client, gid) as w,
    ):
        ada, bo, watcher = hello(a, name="Ada"), hello(b, name="Bo"), hello(w)
        yield game, ada, bo, watcher


def chat_entry(ws: Ws) -> dict[str, Any]:
    entry: dict[str, Any] = ws.until("chat")["entry"]
    return entry


def test_players_chat_in_the_waiting_room_and_everyone_reads(client: TestClient) -> None:
    with table(client) as (_, ada, bo, watcher):
        ada.send(type="chat", text="  good   luck,\neveryone!  ", id="c1")
        ack = ada.until("ack")
        assert (ack["for"], ack["ref"]) == ("chat", "c1")
        for ws in (ada, bo, watcher):
            entry = chat_entry(ws)
            assert entry["seat"] == 0 and entry["name"] == "Ada"
            assert entry["text"] == "good luck, everyone!"  # one line, spaces folded
        bo.send(type="chat", text="thanks")
        assert chat_entry(ada)["text"] == "thanks"
        # Spectators read but do not write.
        watcher.send(type="chat", text="hello", id="w1")
        error = watcher.error()
        assert (error["code"], error["for"], error["ref"]) == ("not_a_player", "chat", "w1")


def test_chat_goes_on_in_the_running_game(client: TestClient) -> None:
    with table(client) as (_, ada, bo, _watcher):
        ada.send(type="start")
        ada.until("state", lambda m: m["status"] == "running")
        bo.send(type="chat", text="nice move")
        entry = chat_entry(ada)
        assert (entry["name"], entry["text"]) == ("Bo", "nice move")


def test_a_late_page_gets_the_last_messages_in_its_welcome(client: TestClient) -> None:
    with table(client) as (game, ada, _bo, _watcher):
        for n in range(CHAT_BURST):
            ada.send(type="chat", text=f"message {n}")
            ada.until("ack")
        room = room_of(client, game["game_id"])
        with connect(client, game["game_id"]) as late:
            late.send_json({"type": "hello", "v": 1})
            welcome = late.receive_json()
        chat = welcome["chat"]
        assert [m["text"] for m in chat["messages"]] == [f"message {n}" for n in range(5)]
        assert chat["max_chars"] == CHAT_MAX_CHARS and chat["emotes"] == list(EMOTES)
        assert chat["can_write"] is False and welcome["rematch"] is None
        # The room keeps only the last CHAT_KEEP entries.
        for n in range(CHAT_KEEP + 3):
            room.talk.add(room, room.seats[0], text=str(n))
        assert len(room.talk.entries) == CHAT_KEEP and room.talk.entries[0]["text"] == "3"


def test_lengths_invisible_characters_and_markup(client: TestClient) -> None:
    with table(client) as (_, ada, bo, _watcher):
        ada.send(type="chat", text="x" * (CHAT_MAX_CHARS + 1), id="long")
        error = ada.error()
        assert error["code"] == "chat_too_long" and str(CHAT_MAX_CHARS) in error["message"]
        ada.send(type="chat", text=" \n\t\u200b ", id="empty")
        assert ada.error()["code"] == "chat_empty"
        ada.send(type="chat", text=["not", "text"])
        assert ada.error()["code"] == "bad_message"
        # Still connected: a refusal is an error reply, not a disconnect.
        ada.send(type="ping", t=1)
        assert ada.until("pong")["t"] == 1
        # Exactly CHAT_MAX_CHARS is fine; markup is passed on as text (the page never renders
        # it as HTML); controls and bidirectional overrides go.
        ada.send(type="chat", text="y" * CHAT_MAX_CHARS)
        assert chat_entry(bo)["text"] == "y" * CHAT_MAX_CHARS
        ada.send(type="chat", text=XSS)
        assert chat_entry(bo)["text"] == XSS
        ada.send(type="chat", text="a\u202eb\x00c\x1bd\ufeff e")
        assert chat_entry(bo)["text"] == "abcd e"


def test_cleaning() -> None:
    assert clean_chat("family 👨\u200d👩\u200d👧 ok") == "family 👨\u200d👩\u200d👧 ok"
    assert clean_chat("e" + "\u0301" * 30) == "é" + "\u0301" * 3  # NFC, then 3 marks at most
    assert clean_chat("line\r\nbreak") == "line break"
    assert clean_chat("\ue000private") == "private"


def test_a_seat_has_a_chat_budget_and_is_told_when_to_try_again(client: TestClient) -> None:
    with table(client) as (_, ada, bo, _watcher):
        for n in range(CHAT_BURST):
            ada.send(type="chat" if n % 2 else "emote", text=f"m{n}", emote="gg")
            assert ada.until("ack")["for"] in ("chat", "emote")
        ada.send(type="chat", text="one more", id="x")
        error = ada.error()
        assert error["code"] == "chat_too_fast" and error["ref"] == "x"
        assert error["retry_after"] >= 1 and f"{error['retry_after']} s" in error["message"]
        # Another seat has its own budget.
        bo.send(type="chat", text="me too")
        assert bo.until("ack")["for"] == "chat"


def test_emotes(client: TestClient) -> None:
    with table(client) as (_, ada, bo, watcher):
        bo.send(type="emote", emote="thumbs_up")
        for ws in (ada, watcher):
            entry = chat_entry(ws)
            assert entry["emote"] == "thumbs_up" and entry["seat"] == 1 and "text" not in entry
        bo.send(type="emote", emote="<b>", id="e")
        error = bo.error()
        assert error["code"] == "unknown_emote" and "thumbs_up" in error["message"]
        watcher.send(type="emote", emote="gg")
        assert watcher.error()["code"] == "not_a_player"


def finish(*players: Ws) -> None:
    """Wait for the end of a game whose deadlines are short (every seat is auto-played)."""
    for ws in players:
        ws.until("game_over", limit=20_000)


FAST_END = {"max_rounds": 1, "decision_seconds": 0.05, "program_seconds": 0.05}


def test_a_rematch_takes_everyone_to_a_new_game_with_the_same_seats(client: TestClient) -> None:
    with table(client, variants=["lighter"], **FAST_END) as (game, ada, bo, watcher):
        ada.send(type="rematch", id="early")
        assert ada.error()["code"] == "out_of_phase"
        ada.send(type="start")
        finish(ada, bo, watcher)
        old = room_of(client, game["game_id"])
        watcher.send(type="rematch")
        assert watcher.error()["code"] == "not_a_player"
        bo.send(type="rematch", id="r")
        ack = bo.until("ack")
        assert ack["for"] == "rematch" and ack["ref"] == "r"
        new_id = ack["game_id"]
        told = {name: ws.until("rematch") for name, ws in (("ada", ada), ("bo", bo))}
        seen = watcher.until("rematch")
        # Asked again (by anyone): the same game; the same seat link.
        ada.send(type="rematch")
        again = ada.until("rematch")
    assert again["game_id"] == new_id and again["token"] == told["ada"]["token"]
    assert seen["game_id"] == new_id and seen["token"] is None and seen["by"] == "Bo"
    assert seen["url"] == f"/?game={new_id}"
    for seat, name in ((0, "ada"), (1, "bo")):
        msg = told[name]
        assert msg["seat"] == seat and msg["url"] == f"/?game={new_id}#token={msg['token']}"
    new = room_of(client, new_id)
    assert new.status == "open"
    assert [(s.kind, s.name, s.bot_kind) for s in new.seats] == [
        (s.kind, s.name, s.bot_kind) for s in old.seats
    ]
    same = ("edition", "course", "variants", "timer_seconds", "max_rounds", "decision_seconds")
    for key in same:
        assert getattr(new.settings, key) == getattr(old.settings, key), key
    assert new.settings.seed != old.settings.seed and not new.settings.seed_chosen
    assert client.get(f"/api/games/{new_id}").json()["free_seats"] == []
    # Each player lands in their own seat of the new game.
    for seat, name in ((0, "Ada"), (1, "Bo")):
        token = told[name.lower()]["token"]
        with connect(client, new_id, token) as session:
            session.send_json({"type": "hello", "v": 1, "token": token})
            welcome = session.receive_json()
        assert (welcome["type"], welcome["seat"], welcome["name"]) == ("welcome", seat, name)


def test_a_player_who_was_away_gets_to_the_rematch_later(tmp_path: Path) -> None:
    with make_client(tmp_path) as client:
        game = create(client, seats=[{"kind": "human"}, {"kind": "human"}], **FAST_END)
        gid = game["game_id"]
        with connect(client, gid, invite=game["seats"][1]["invite"]) as b:
            bo_token = hello(b, name="Bo").token  # Bo takes the seat, then closes the page
        with connect(client, gid, game["seats"][0]["token"]) as a:
            ada = hello(a, name="Ada")
            ada.send(type="start")
            finish(ada)
            ada.send(type="rematch")
            new_id = ada.until("ack")["game_id"]
        # Bo's seat in the rematch is kept for Bo: nobody else can join it.
        assert client.get(f"/api/games/{new_id}").json()["free_seats"] == []
    # Later, after a restart: the finished game's page says there is a rematch.
    with make_client(tmp_path) as client:
        with connect(client, gid, bo_token) as b:
            bo = hello(b)
            with connect(client, gid) as w:
                w.send_json({"type": "hello", "v": 1})
                assert w.receive_json()["rematch"] == new_id
            bo.send(type="rematch")
            told = bo.until("rematch")
        assert told["game_id"] == new_id and told["seat"] == 1 and told["by"] == "Bo"
        with connect(client, new_id, told["token"]) as b2:
            b2.send_json({"type": "hello", "v": 1, "token": told["token"]})
            welcome = b2.receive_json()
        assert welcome["type"] == "welcome" and welcome["seat"] == 1
        # The old link does not play the new game, and the derived one only its own seat.
        with connect(client, new_id, bo_token) as wrong:
            wrong.send_json({"type": "hello", "v": 1, "token": bo_token})
            assert wrong.receive_json()["code"] == "bad_token"


def test_a_rematch_counts_against_the_address_limits(tmp_path: Path) -> None:
    with make_client(tmp_path, dataclasses.replace(FAST, lobbies_per_address=1)) as client:
        game = create(client, seats=[{"kind": "human"}, {"kind": "bot"}], **FAST_END)
        with connect(client, game["game_id"], game["seats"][0]["token"]) as a:
            ada = hello(a)
            ada.send(type="start")
            finish(ada)
            create(client)  # another waiting lobby from this address: the limit is reached
            ada.send(type="rematch")
            error = ada.error()
            assert error["code"] == "rematch_refused" and "waiting for players" in error["message"]
            ada.send(type="ping")
            assert ada.until("pong")["type"] == "pong"  # still connected


def test_a_player_takes_their_rematch_seat_over_http(tmp_path: Path) -> None:
    """``POST /api/games/{rematch}/rematch_seat`` with the seat's token of the finished game
    (docs/protocol.md 1.9): what a ``rematch`` message does, without a socket."""
    with make_client(tmp_path) as client:
        game = create(client, seats=[{"kind": "human"}, {"kind": "human"}], **FAST_END)
        gid = game["game_id"]
        with connect(client, gid, invite=game["seats"][1]["invite"]) as b:
            bo_token = hello(b, name="Bo").token
        with connect(client, gid, game["seats"][0]["token"]) as a:
            ada = hello(a, name="Ada")
            url = f"/api/games/{gid}/rematch_seat"
            early = client.post(url, json={"previous": gid, "token": bo_token})
            assert early.status_code == 404 and early.json()["error"]["code"] == "not_a_rematch"
            ada.send(type="start")
            finish(ada)
            ada.send(type="rematch")
            new_id = ada.until("ack")["game_id"]
        taken = client.post(
            f"/api/games/{new_id}/rematch_seat", json={"previous": gid, "token": bo_token}
        )
        assert taken.status_code == 200, taken.text
        seat = taken.json()
        assert seat["seat"] == 1 and seat["url"] == f"/?game={new_id}#token={seat['token']}"
        with connect(client, new_id, seat["token"]) as b2:
            b2.send_json({"type": "hello", "v": 1, "token": seat["token"]})
            assert b2.receive_json()["seat"] == 1
        ada_token = game["seats"][0]["token"]
        mine = client.post(
            f"/api/games/{new_id}/rematch_seat", json={"previous": gid, "token": ada_token}
        )
        assert mine.status_code == 200 and mine.json()["seat"] == 0


def test_a_rematch_room_its_players_left_is_closed_soon(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A rematch's waiting room nobody is in goes after REMATCH_LOBBY_SECONDS (other lobbies
    wait lobby_seconds): it does not stay under "Open games"; asked again, a new one is made."""
    from roborally.server import app as app_module

    monkeypatch.setattr(app_module, "REMATCH_LOBBY_SECONDS", 0.2)
    with make_client(tmp_path) as client:
        game = create(client, seats=[{"kind": "human"}, {"kind": "bot"}], **FAST_END)
        gid = game["game_id"]
        with connect(client, gid, game["seats"][0]["token"]) as a:
            ada = hello(a)
            ada.send(type="start")
            finish(ada)
            ada.send(type="rematch")
            first = ada.until("ack")["game_id"]

            def listed() -> set[str]:
                return {g["game_id"] for g in client.get("/api/games").json()["games"]}

            assert first in listed()
            wait_for(lambda: first not in listed(), 10)  # the list is made anew each second
            ada.send(type="rematch")
            assert ada.until("ack")["game_id"] != first  # a new waiting room
