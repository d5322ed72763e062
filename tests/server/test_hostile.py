"""Malformed and hostile messages: each gets an error reply, is logged, and changes nothing."""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from typing import Any

import pytest
from starlette.testclient import TestClient

from roborally.engine.core.cards import PROGRAMMING_CARDS

from .conftest import Ws, connect, create, hello, room_of


def _snapshot(client: TestClient, gid: str) -> tuple[Any, ...]:
    room = room_of(client, gid)
    stored = room.store.load(gid)
    assert stored is not None
    game = room.game
    return (
        room.status,
        None if game is None else game.digest(),
        None if game is None else len(game.actions),
        len(stored.actions),
        stored.seats,
        [(s.name, s.taken, s.ready, s.auto) for s in room.seats],
    )


def _refused(
    client: TestClient,
    gid: str,
    ws: Ws,
    send: Callable[[], None],
    code: str,
    caplog: pytest.LogCaptureFixture,
) -> dict[str, Any]:
    before = _snapshot(client, gid)
    caplog.clear()
    send()
    error = ws.error()
    assert error["code"] == code, error
    assert error["v"] == 1 and error["message"]
    assert _snapshot(client, gid) == before
    assert any(code in r.getMessage() for r in caplog.records), "the refusal is logged"
    return error


def test_hostile_messages(client: TestClient, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.WARNING, logger="roborally.server")
    game = create(
        client,
        seats=[{"kind": "human"}, {"kind": "human"}, {"kind": "bot"}],
        max_rounds=2,
        variants=["lighter"],  # no upgrade phase: start spaces, then programs
    )
    gid = game["game_id"]
    token0, invite1 = game["seats"][0]["token"], game["seats"][1]["invite"]

    # A wrong seat token: an error reply, then the socket is closed.
    with connect(client, gid) as session:
        session.send_json({"type": "hello", "v": 1, "token": "not-a-token", "id": "h"})
        reply = session.receive_json()
        assert reply["code"] == "bad_token" and reply["ref"] == "h"
    with connect(client, "no-such-game") as session:
        assert session.receive_json()["code"] == "unknown_game"
    # A token in the URL is refused (URLs end up in logs); nothing is taken.
    with client.websocket_connect(f"/ws/{gid}?token={token0}") as session:
        assert session.receive_json()["code"] == "token_in_url"
    assert not room_of(client, gid).seats[0].taken

    with (
        connect(client, gid, token0) as s0,
        connect(client, gid, invite=invite1) as s1,
        connect(client, gid) as s2,
    ):
        ws = Ws(s0)

        def refused(send: Callable[[], None], code: str, on: Ws | None = None) -> dict[str, Any]:
            return _refused(client, gid, on or ws, send, code, caplog)

        # Before hello.
        refused(lambda: ws.send(type="ready"), "hello_required")
        ws.send(type="hello", name="Ada", token=token0)
        assert ws.recv()["type"] == "welcome"
        other = hello(s1)
        token1 = other.token  # the invite gave seat 1 a token of its own
        assert token1 and token1 != invite1
        spectator = hello(s2)
        # Envelopes.
        refused(lambda: ws.send_raw("{not json"), "bad_json")
        refused(lambda: ws.send_raw("[1, 2, 3]"), "bad_message")
        refused(lambda: ws.send_raw('{"v": 1}'), "bad_message")
        refused(lambda: ws.send_raw('{"type": 7, "v": 1}'), "bad_message")
        refused(lambda: ws.send(type="ping", v=2), "bad_version")
        refused(lambda: ws.send_raw('{"type": "ping"}'), "bad_version")
        refused(lambda: ws.send(type="launch_missiles"), "unknown_type")
        refused(
            lambda: ws.send_raw(json.dumps({"type": "hello", "v": 1, "x": "a" * 70_000})),
            "too_large",
        )
        refused(lambda: ws.send_raw("9" * 5000), "bad_json")
        refused(lambda: ws.send_raw("[" * 50_000 + "]" * 50_000), "too_large")
        refused(lambda: ws.send_raw("[" * 20_000 + "]" * 20_000), "bad_json")
        refused(lambda: ws.session.send_bytes(b"\x00binary"), "bad_json")
        # Text that is not text: invalid UTF-8 and a lone surrogate; the socket keeps working.
        refused(lambda: ws.session.send_bytes(b'{"type":"ping","v":1,"t":"\xff\xfe"}'), "bad_text")
        error = refused(
            lambda: ws.send_raw('{"type":"ping","v":1,"t":"\\ud800","id":"s-1"}'), "bad_text"
        )
        assert error["ref"] == "s-1"
        ws.send(type="ping", id="alive")
        assert ws.until("pong")["ref"] == "alive"
        error = refused(lambda: ws.send(type="nope", id="m-1"), "unknown_type")
        assert error["ref"] == "m-1"
        # Out of phase in the lobby.
        refused(lambda: ws.send(type="hello"), "out_of_phase")
        refused(
            lambda: ws.send(type="decide", decision_id="t0-p1-start_space", choice=1),
            "out_of_phase",
        )
        refused(lambda: ws.send(type="ready", ready="yes"), "bad_message")
        refused(lambda: spectator.send(type="ready"), "not_a_player", spectator)
        refused(lambda: other.send(type="start"), "not_host", other)
        refused(lambda: ws.send(type="hello", name="x" * 50), "out_of_phase")
        # A name another seat has is refused (case and spacing aside).
        with connect(client, gid, token1) as s3:
            late = Ws(s3)
            refused(
                lambda: late.send(type="hello", token=token1, name=" ADA ", id="n"),
                "name_taken",
                late,
            )

        # Start the game; seat 0 chooses a start space first (first_player 0).
        ws.send(type="start", id="go")
        assert ws.until("ack")["ref"] == "go"
        state = ws.pending_state()
        decision = state["pending"][0]
        assert decision["kind"] == "start_space"
        refused(lambda: ws.send(type="ready"), "out_of_phase")
        refused(lambda: ws.send(type="start"), "out_of_phase")
        refused(lambda: ws.send(type="decide", choice=1), "bad_message")
        refused(lambda: ws.send(type="decide", decision_id=decision["id"]), "bad_message")
        refused(lambda: ws.send(type="decide", decision_id=["x"], choice=1), "bad_message")
        refused(
            lambda: ws.send(type="decide", decision_id="t9-p1-program", choice=1), "not_pending"
        )
        refused(
            lambda: ws.send(type="decide", decision_id=decision["id"], choice=99), "illegal_action"
        )
        refused(
            lambda: ws.send(type="decide", decision_id=decision["id"], choice="left"),
            "invalid_action",
        )
        refused(
            lambda: ws.send(type="decide", decision_id=decision["id"], choice={"a": 1}),
            "invalid_action",
        )
        refused(
            lambda: ws.send(type="decide", decision_id=decision["id"], choice=True),
            "invalid_action",
        )
        refused(
            lambda: spectator.send(type="decide", decision_id=decision["id"], choice=1),
            "not_a_player",
            spectator,
        )
        refused(
            lambda: other.send(type="decide", decision_id=decision["id"], choice=1),
            "not_your_decision",
            other,
        )
        ws.send(type="decide", decision_id=decision["id"], choice=decision["options"][0])
        ws.answered.add(decision["id"])
        state = other.pending_state()
        other.send(
            type="decide",
            decision_id=state["pending"][0]["id"],
            choice=state["pending"][0]["options"][0],
        )
        other.answered.add(state["pending"][0]["id"])

        # Programming: seat 0 and seat 1 both have a program decision pending.
        state = ws.pending_state()
        program = state["pending"][0]
        assert program["kind"] == "program"
        hand = program["info"]["hand"]
        did = program["id"]

        def decide(choice: Any) -> Callable[[], None]:
            return lambda: ws.send(type="decide", decision_id=did, choice=choice)

        missing = next(c for c in sorted(PROGRAMMING_CARDS) if c not in hand)
        doubled = next(c for c in hand if hand.count(c) == 1)
        refused(decide(["laser_cannon", *hand[1:5]]), "illegal_action")  # not a card
        refused(decide([missing, *hand[1:5]]), "illegal_action")  # a card not in the hand
        refused(
            decide([doubled, doubled, *[c for c in hand if c != doubled][:3]]), "illegal_action"
        )
        refused(decide([*hand[:4], None]), "illegal_action")  # an empty register
        refused(decide(hand[:3]), "invalid_action")  # three registers
        refused(decide([*hand[:5], "again"]), "invalid_action")
        refused(decide("move1 move2"), "invalid_action")
        refused(decide([1, 2, 3, 4, 5]), "invalid_action")
        refused(decide(None), "invalid_action")
        other_program = did.replace("-p1-", "-p2-")
        refused(
            lambda: ws.send(type="decide", decision_id=other_program, choice=hand[:5]),
            "not_your_decision",
        )
        refused(
            lambda: ws.send(
                type="draft", decision_id=did, program=[missing, None, None, None, None]
            ),
            "illegal_action",
        )
        refused(lambda: ws.send(type="draft", decision_id=did, program=[1]), "invalid_action")
        refused(
            lambda: ws.send(type="draft", decision_id=other_program, program=[None] * 5),
            "not_your_decision",
        )
        # Still pending and unchanged; a legal program is then accepted.
        ws.send(type="decide", decision_id=did, choice=hand[:5], id=42)
        ack = ws.until("ack")
        assert ack["ref"] == 42 and ack["decision_id"] == did
        refused(decide(hand[:5]), "not_pending")  # answered twice

        # Flooding is refused past the burst, without closing the socket.
        for _ in range(150):
            ws.send(type="ping")
        replies = []
        while len(replies) < 150:
            msg = ws.recv()
            if msg["type"] in ("pong", "error"):
                replies.append(msg.get("code", msg["type"]))
        assert "rate_limited" in replies and "pong" in replies
        assert room_of(client, gid).refused > 30
