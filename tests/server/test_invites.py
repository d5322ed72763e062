"""A seat belongs to whoever holds it (docs/protocol.md 1, "Seats belong to their holders"):
invite links are one-time codes, the invitee's token is made for the invitee alone, and
nothing the creator holds (the create response, its own token, the invites, the rematch
links) opens an invitee's seat or shows its hand; a holder sees and closes its other tabs."""

from __future__ import annotations

import json
from typing import Any

from starlette.testclient import TestClient

from roborally.server.client import view_leaks

from .conftest import Ws, connect, create, hello, refused_hello, room_of

FAST_END = {"max_rounds": 1, "decision_seconds": 0.05, "program_seconds": 0.05}


def two_people(client: TestClient, **body: Any) -> dict[str, Any]:
    return create(client, seats=[{"kind": "human", "name": "Ada"}, {"kind": "human"}], **body)


def refusal_of(client: TestClient, gid: str, **hello_fields: Any) -> str:
    """The error code a hello with these fields gets."""
    with connect(client, gid) as session:
        session.send_json({"type": "hello", "v": 1, **hello_fields})
        reply: dict[str, Any] = session.receive_json()
    assert reply["type"] == "error", reply
    return str(reply["code"])


def host_attempts(client: TestClient, game: dict[str, Any], seat: int) -> dict[str, int | str]:
    """Everything the creator could try with what it holds to get seat ``seat``: each
    attempt's answer (a status code or an error code)."""
    gid, host = game["game_id"], game["host_token"]
    tried: dict[str, int | str] = {
        "invite again": refusal_of(client, gid, invite=game["seats"][seat]["invite"]),
        "host token as a seat token": refusal_of(client, gid, token=host),
    }
    new = client.post(f"/api/games/{gid}/seats/{seat}/invite", json={"host_token": host})
    tried["a new invite"] = new.json()["error"]["code"]
    qr = client.post(
        f"/api/games/{gid}/seats/{seat}/qr", json={"invite": game["seats"][seat]["invite"]}
    )
    tried["its QR code"] = qr.status_code
    tried["join"] = client.post(f"/api/games/{gid}/join", json={"seat": seat}).status_code
    return tried


def test_an_invite_gives_its_first_user_a_token_nobody_else_ever_sees(client: TestClient) -> None:
    game = two_people(client)
    gid, invite = game["game_id"], game["seats"][1]["invite"]
    with connect(client, gid, game["seats"][0]["token"]) as a, connect(client, gid) as w:
        ada, watcher = hello(a), hello(w)
        with connect(client, gid, invite=invite) as b:
            session_b = b
            session_b.send_json({"type": "hello", "v": 1, "invite": invite, "name": "Bo"})
            welcome = session_b.receive_json()
            assert welcome["type"] == "welcome" and welcome["seat"] == 1
            bo_token = welcome["token"]
            assert bo_token and bo_token != invite
            ada.until("state", lambda m: m["seats"][1]["taken"] and m["seats"][1]["connected"])
            watcher.until("state", lambda m: m["seats"][1]["connected"])
        # Nobody else was ever sent Bo's token.
        for ws in (ada, watcher):
            assert not [text for text in ws.raw if bo_token in text]
    stored = json.dumps([s.stored() for s in room_of(client, gid).seats])
    assert bo_token not in stored and invite not in stored  # hashes only
    # The invite worked once; Bo's own token opens the seat again.
    assert refusal_of(client, gid, invite=invite) == "invite_used"
    with connect(client, gid, bo_token) as again:
        assert hello(again).session is again
    # Malformed hellos: both keys, an unknown code.
    assert refusal_of(client, gid, invite=invite, token=bo_token) == "bad_message"
    assert refusal_of(client, gid, invite="not-a-code") == "bad_invite"
    assert refusal_of(client, gid, invite=7) == "bad_invite"


def test_the_creator_cannot_open_or_watch_an_invitees_seat(client: TestClient) -> None:
    game = two_people(client, variants=["lighter"])
    gid = game["game_id"]
    assert "token" not in game["seats"][1]  # the creator never receives another seat's token
    with connect(client, gid, invite=game["seats"][1]["invite"]) as b:
        bo = hello(b, name="Bo")
        tried = host_attempts(client, game, 1)
        assert tried == {
            "invite again": "invite_used",
            "host token as a seat token": "bad_token",
            "a new invite": "seat_taken",
            "its QR code": 409,
            "join": 409,
        }
        with connect(client, gid, game["seats"][0]["token"]) as a:
            ada = hello(a)
            ada.send(type="start")
            mine = until_program(ada, bo)  # Bo has a hand to play (after the start spaces)
            bo_hand = mine["pending"][0]["info"]["hand"]
            # The host's own seat sees counts of Bo's cards, never the cards.
            ada.until("state", lambda m: m["status"] == "running")
            assert not [view_leaks(text, 0) for text in ada.raw if view_leaks(text, 0)]
            # Nor can the host's token act for Bo.
            ada.send(type="decide", decision_id=mine["pending"][0]["id"], choice=bo_hand[:5])
            assert ada.error()["code"] in ("not_your_decision", "not_pending")


def until_program(first: Ws, second: Ws) -> dict[str, Any]:
    """Both seats answer what comes before programming with its first option; the second
    seat's state once it is asked for its program."""
    while True:
        for ws in (first, second):
            state = ws.last_state
            fresh = [p for p in (state or {}).get("pending", []) if p["id"] not in ws.answered]
            if ws is second and fresh and fresh[0]["kind"] == "program":
                return state or {}
            for decision in fresh:
                if decision["kind"] != "program":
                    ws.answered.add(decision["id"])
                    choice = decision["options"][0]
                    ws.send(type="decide", decision_id=decision["id"], choice=choice)
        second.recv()  # a new state for one of them comes to both
        first.recv()


def test_a_seat_holder_sees_its_other_tabs_and_closes_them(client: TestClient) -> None:
    game = two_people(client)
    gid = game["game_id"]
    with connect(client, gid, invite=game["seats"][1]["invite"]) as first:
        phone = hello(first)
        token = phone.token
        with connect(client, gid, token) as second:
            laptop = hello(second)
            state = laptop.until("state", lambda m: m["devices"] == 2)
            assert state["seat"] == 1
            phone.until("state", lambda m: m["devices"] == 2)
            laptop.send(type="close_others", id="c")
            ack = laptop.until("ack")
            assert (ack["for"], ack["closed"], ack["ref"]) == ("close_others", 1, "c")
            fresh = ack["token"]
            assert fresh and fresh != token
            gone = phone.error()
            assert gone["code"] == "signed_out"
            laptop.until("state", lambda m: m["devices"] == 1)
    # The old token opens nothing now; the new one does.
    with connect(client, gid, token) as old:
        assert refused_hello(old)["code"] == "bad_token"
    with connect(client, gid, fresh) as new:
        assert hello(new).session is new
    # Spectators are not told about seats' devices.
    with connect(client, gid) as w:
        watcher = Ws(w)
        watcher.send(type="hello")
        assert watcher.until("state")["devices"] is None


def test_only_the_host_seat_makes_invites_and_only_for_free_seats(client: TestClient) -> None:
    game = create(client, seats=[{"kind": "human"}] * 3)
    gid = game["game_id"]
    with (
        connect(client, gid, game["seats"][0]["token"]) as a,
        connect(client, gid, invite=game["seats"][1]["invite"]) as b,
    ):
        host, guest = hello(a), hello(b)
        guest.send(type="invite", seat=2, id="g")
        assert guest.error()["code"] == "not_host"
        host.send(type="invite", seat=1, id="taken")
        assert host.error()["code"] == "seat_taken"
        host.send(type="invite", seat=9, id="none")
        assert host.error()["code"] == "unknown_seat"
        host.send(type="invite", seat=2, id="ok")
        made = host.until("ack", lambda m: m["ref"] == "ok")
        assert made["for"] == "invite" and made["url"] == f"/?game={gid}#invite={made['invite']}"
    # The first invite of seat 2 stopped working; the new one opens it.
    assert refusal_of(client, gid, invite=game["seats"][2]["invite"]) == "bad_invite"
    with connect(client, gid, invite=made["invite"]) as c:
        assert hello(c).token


def test_a_rematch_seat_is_reachable_only_from_its_players_token(client: TestClient) -> None:
    game = two_people(client, **FAST_END)
    gid, host = game["game_id"], game["host_token"]
    with connect(client, gid, invite=game["seats"][1]["invite"]) as b:
        bo = hello(b, name="Bo")
        bo_token = bo.token
        with connect(client, gid, game["seats"][0]["token"]) as a:
            ada = hello(a)
            ada.send(type="start")
            for ws in (ada, bo):
                ws.until("game_over", limit=20_000)
            ada.send(type="rematch")
            new_id = ada.until("ack")["game_id"]
            told = {name: ws.until("rematch") for name, ws in (("ada", ada), ("bo", bo))}
    # Bo's rematch seat came to Bo alone; nothing Ada holds derives it.
    assert told["bo"]["token"] not in json.dumps(told["ada"])
    url = f"/api/games/{new_id}/rematch_seat"
    for credential in (host, game["seats"][0]["token"], game["seats"][1]["invite"]):
        answer = client.post(url, json={"previous": gid, "token": credential})
        seat = answer.json().get("seat") if answer.status_code == 200 else None
        assert seat != 1, credential
    # The rematch keeps its host token (a tabletop's screen hosts it), which makes invites
    # only for seats nobody holds: Bo's seat is his once he took it.
    with connect(client, new_id, told["bo"]["token"]) as b2:
        hello(b2)
    taken = client.post(f"/api/games/{new_id}/seats/1/invite", json={"host_token": host})
    assert taken.status_code == 409 and taken.json()["error"]["code"] == "seat_taken"
    mine = client.post(url, json={"previous": gid, "token": bo_token})
    assert mine.status_code == 200 and mine.json()["token"] == told["bo"]["token"]
