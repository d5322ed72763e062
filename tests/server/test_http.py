"""The lobby API: options, courses, creating, listing, joining and starting games, exports."""

from __future__ import annotations

from pathlib import Path

import pytest
from starlette.testclient import TestClient

from roborally.bots.random_bot import BOTS
from roborally.content.courses import list_courses
from roborally.content.record import write_record
from roborally.engine.core.rng import seed_commitment, seed_text
from roborally.engine.editions import all_editions
from roborally.server.app import ServerOptions
from roborally.server.rulesets import course_fits, courses_for, edition_available

from .conftest import (
    connect,
    create,
    final_game,
    hello,
    make_client,
    refused_hello,
    room_of,
    wait_finished,
)


def test_options_come_from_the_registries(client: TestClient) -> None:
    options = client.get("/api/options").json()
    assert options["v"] == 1 and options["protocol"] == 1
    editions = {e.id: e for e in all_editions() if edition_available(e.id)}
    assert "2023" in editions
    assert [e["id"] for e in options["editions"]] == list(editions)
    by_id = {e["id"]: e for e in options["editions"]}
    assert by_id["2023"]["timer"]["choices"] == [120, 180]
    for edition_id, edition in editions.items():
        assert by_id[edition_id]["variants"] == list(edition.variants)
        assert by_id[edition_id]["players"] == [edition.min_players, edition.max_players]
        assert set(by_id[edition_id]["courses"]) == {c.id for c in courses_for(edition_id)}
    listed = {v["id"] for v in options["variants"]}
    assert listed == {v for e in editions.values() for v in e.variants}
    assert sorted(b["id"] for b in options["bots"]) == sorted(BOTS)
    levels = [b["id"] for b in options["bots"] if b["level"]]
    assert levels == ["beginner", "casual", "strong", "expert"]  # weakest first, by name
    playable = {c.id for c in list_courses() if any(course_fits(c, e) for e in editions)}
    assert {c["id"] for c in options["courses"]} == playable
    assert options["limits"]["message_bytes"] == 65536


def test_course_board(client: TestClient) -> None:
    data = client.get("/api/courses/tiny").json()
    board = data["board"]
    assert data["course"]["id"] == "tiny"
    assert board["width"] == 10 and board["height"] == 13
    assert board["checkpoints"] == [[7, 6], [2, 2]]
    assert any("belt" in c for c in board["cells"])
    assert len(board["start_spaces"]) == 6
    assert client.get("/api/courses/nope").status_code == 404
    assert client.get("/api/courses").json()["courses"][0]["id"]


def test_course_board_as_each_edition_plays_it(client: TestClient) -> None:
    """2023 boards have reboot tokens; classic robots restart on their archive marker."""

    def reboots(edition: str) -> int:
        board = client.get(f"/api/courses/tiny?edition={edition}").json()["board"]
        return sum("reboot" in cell for cell in board["cells"])

    assert reboots("2023") >= 1
    assert reboots("classic") == 0
    refused = client.get("/api/courses/tiny?edition=1999")
    assert refused.status_code == 404
    assert refused.json()["error"]["code"] == "unknown_edition"


def test_create_refuses_bad_requests(client: TestClient) -> None:
    def code(body: object, status: int = 400) -> str:
        response = client.post("/api/games", json=body)
        assert response.status_code == status, response.text
        result: str = response.json()["error"]["code"]
        return result

    seats = [{"kind": "human"}, {"kind": "bot"}]
    assert code({"course": "nope", "seats": seats}) == "unknown_course"
    assert code({"course": "../../etc/passwd.course", "seats": seats}) == "unknown_course"
    assert code({"course": "tiny", "seats": seats, "edition": "1999"}) == "unknown_edition"
    assert code({"course": "tiny", "seats": [{"kind": "bot", "bot": "genius"}] * 2}) == (
        "unknown_bot"
    )
    assert code({"course": "tiny", "seats": seats, "variants": ["turbo"]}) == "unknown_variant"
    assert code({"course": "tiny", "seats": []}) == "bad_request"
    assert code({"course": "tiny", "seats": [{"kind": "human"}]}) == "bad_request"  # tiny: 2-6
    assert code({"course": "tiny", "seats": [{"kind": "alien"}] * 2}) == "bad_request"
    assert code({"course": "tiny", "seats": [{"kind": "human", "name": "a,b"}] * 2}) == "bad_name"
    assert code({"course": "tiny", "seats": seats, "max_rounds": -1}) == "bad_request"
    assert code({"course": "tiny", "seats": seats, "seed": "x"}) == "bad_request"
    assert code({"course": "tiny", "seats": seats, "timer_seconds": 10_000}) == "bad_request"
    assert code({"course": "tiny", "seats": seats, "first_player": 5}) == "bad_request"
    assert code([1, 2]) == "bad_request"
    response = client.post("/api/games", content=b"{nope")
    assert response.status_code == 400 and response.json()["error"]["code"] == "bad_json"
    response = client.post("/api/games", content=b"[" * 70_000)
    assert response.status_code == 413 and response.json()["error"]["code"] == "too_large"
    assert client.get("/api/games").json()["games"] == []


def test_speed_timer_turns_on_with_the_variant(client: TestClient) -> None:
    game = create(client, variants=["speed"])
    room = room_of(client, game["game_id"])
    assert room.settings.timer_seconds == 180 and "speed" in room.settings.variants
    game = create(client, timer_seconds=120)
    room = room_of(client, game["game_id"])
    assert room.settings.timer_seconds == 120 and "speed" in room.settings.variants
    game = create(client)
    assert room_of(client, game["game_id"]).settings.timer_seconds == 0


def test_create_list_join_and_start(client: TestClient) -> None:
    game = create(client, seats=[{"kind": "human", "name": "Ada"}, {"kind": "human"}], seed=None)
    gid = game["game_id"]
    assert [s["seat"] for s in game["seats"]] == [0, 1]
    # The creator gets its own seat's token and an invite for the other seat (never a token
    # of somebody else's seat), in the link's fragment, which browsers never send to a server.
    host_seat, other = game["seats"]
    assert host_seat["url"].endswith(f"?game={gid}#token={host_seat['token']}")
    assert other["url"].endswith(f"?game={gid}#invite={other['invite']}") and "token" not in other
    assert game["spectator_url"].endswith(f"/?game={gid}")
    assert game["ws_url"].startswith("ws://") and game["ws_url"].endswith(f"/ws/{gid}")
    listed = client.get("/api/games").json()["games"]
    assert [g["game_id"] for g in listed] == [gid]
    # the host's seat (the first human seat) is the host's: never free for others to join
    assert listed[0]["status"] == "open" and listed[0]["free_seats"] == [1]
    # the seed stays secret; its commitment is public
    assert listed[0]["seed"] is None and len(listed[0]["seed_commitment"]) == 64
    assert game["seed"] is None and game["seed_commitment"] == listed[0]["seed_commitment"]
    host = client.post(f"/api/games/{gid}/join", json={"seat": 0})
    assert host.status_code == 409 and "host's seat" in host.json()["error"]["message"]
    joined = client.post(f"/api/games/{gid}/join", json={"name": "Bo"}).json()
    assert joined["seat"] == 1 and joined["token"]
    summary = client.get(f"/api/games/{gid}").json()
    assert summary["free_seats"] == [] and summary["seats"][1]["name"] == "Bo"
    # The invite link of a joined seat no longer opens it; the host's link still does.
    with connect(client, gid, invite=other["invite"]) as session:
        assert refused_hello(session)["code"] == "invite_used"
    with connect(client, gid, game["seats"][0]["token"]) as session:
        assert hello(session).session is session
    assert client.post(f"/api/games/{gid}/join", json={"seat": 1}).status_code == 409
    bad = client.post(f"/api/games/{gid}/start", json={"host_token": "nope"})
    assert bad.status_code == 403
    assert client.get(f"/api/games/{gid}/record").status_code == 409
    assert client.get(f"/api/games/{gid}/replay").status_code == 409
    started = client.post(f"/api/games/{gid}/start", json={"host_token": game["host_token"]})
    assert started.json()["status"] == "running"
    assert client.post(f"/api/games/{gid}/join", json={}).json()["error"]["code"] == "not_open"
    again = client.post(f"/api/games/{gid}/start", json={"host_token": game["host_token"]})
    assert again.status_code == 409
    assert client.get("/api/games/zzz").status_code == 404
    assert client.get("/api/health").json()["games"] == 1


def test_private_games_are_not_listed(client: TestClient) -> None:
    game = create(client, seats=[{"kind": "human"}, {"kind": "human"}], public=False)
    assert client.get("/api/games").json()["games"] == []
    response = client.post(f"/api/games/{game['game_id']}/join", json={})
    assert response.status_code == 403


def test_bot_game_runs_at_once_and_exports_its_record(client: TestClient) -> None:
    game = create(client, seats=[{"kind": "bot"}] * 3, max_rounds=8, first_player=None)
    gid = game["game_id"]
    room = wait_finished(client, gid)
    assert room is not None and room.status == "finished"
    final = final_game(client, gid)
    text = client.get(f"/api/games/{gid}/record").text
    assert text == write_record(final, "tiny", gid) == room.store.load(gid).record  # type: ignore[union-attr]
    data = client.get(f"/api/games/{gid}/replay").json()
    assert len(data["frames"]) == len(data["actions"]) + 1 == len(final.actions) + 1
    assert len(data["events"]) == len(final.events)
    assert room.slim and room.events == []  # nobody watches: built for the answer, not kept
    assert data["frames"][-1]["event"] == len(final.events)
    assert data["outcome"]["result"] == final.outcome().result_text(final.config.players)  # type: ignore[union-attr]
    # the seed the host chose is public all along; the commitment matches it
    assert data["settings"]["seed"] == seed_text(11)
    assert data["settings"]["seed_commitment"] == seed_commitment(11)
    assert '"hand": [' not in str(data["frames"])
    finished = client.get("/api/games?status=finished").json()["games"]
    assert [g["game_id"] for g in finished] == [gid]
    # A spectator of a finished game gets the end at once.
    with connect(client, gid) as session:
        ws = hello(session)
        state = ws.until("state")
        assert state["status"] == "finished" and state["outcome"]
        assert ws.until("game_over")["outcome"] == data["outcome"]


def test_finished_games_leave_memory_but_not_the_store(tmp_path: Path) -> None:
    options = ServerOptions(keep_finished=1, min_seconds=0.01, engine_workers=0)
    with make_client(tmp_path, options) as client:
        ids = [
            create(client, seats=[{"kind": "bot"}] * 2, max_rounds=2)["game_id"] for _ in range(3)
        ]
        for gid in ids:
            wait_finished(client, gid)
        rooms = client.app.state.server.rooms  # type: ignore[attr-defined]
        for gid in ids:
            response = client.get(f"/api/games/{gid}/record")
            assert response.status_code == 200 and "result: " in response.text
        assert len(rooms) == 1


def test_abandoned_lobbies_close(tmp_path: Path) -> None:
    """An open game nobody joins, watches or leaves for ``lobby_seconds`` closes: it leaves the
    list and stops counting against ``max_games``; its link says why it is gone."""
    options = ServerOptions(min_seconds=0.01, lobby_seconds=3600, max_games=2, engine_workers=0)
    with make_client(tmp_path, options) as client:
        server = client.app.state.server  # type: ignore[attr-defined]
        seats = [{"kind": "human"}, {"kind": "human"}]
        old = create(client, seats=seats)["game_id"]
        fresh = create(client, seats=seats)["game_id"]
        assert client.post("/api/games", json={"course": "tiny", "seats": seats}).status_code == 503
        room_of(client, old).touched -= 2 * 3600  # nobody came for two hours
        listed = [g["game_id"] for g in client.get("/api/games").json()["games"]]
        assert listed == [fresh]
        gone = client.get(f"/api/games/{old}")
        assert gone.status_code == 404 and "closed" in gone.json()["error"]["message"]
        with connect(client, old) as session:
            assert "closed" in session.receive_json()["message"]
        assert server.store.sync.load(old).status == "closed"
        assert client.post("/api/games", json={"course": "tiny", "seats": seats}).status_code == 201
        # a lobby someone is in stays open however long they wait
        room_of(client, fresh).touched -= 2 * 3600
        with connect(client, fresh) as session:
            hello(session)
            assert fresh in [g["game_id"] for g in client.get("/api/games").json()["games"]]


def test_invite_links_name_an_address_the_others_can_reach(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A host who opened the lobby on this machine (127.0.0.1) of a server listening on the
    network gets links with the machine's network address; --public-url beats both."""
    import roborally.server.app as app_module

    monkeypatch.setattr(app_module, "lan_address", lambda: "192.168.1.5")
    body = {"course": "tiny", "seats": [{"kind": "human"}, {"kind": "bot"}]}
    with make_client(tmp_path) as client:
        server = client.app.state.server  # type: ignore[attr-defined]
        local = client.post("http://127.0.0.1:8000/api/games", json=body).json()
        assert local["seats"][0]["url"].startswith("http://127.0.0.1:8000/?game=")
        server.listen_host, server.listen_port = "0.0.0.0", 8000
        wide = client.post("http://127.0.0.1:8000/api/games", json=body).json()
        assert wide["seats"][0]["url"].startswith("http://192.168.1.5:8000/?game=")
        assert wide["ws_url"].startswith("ws://192.168.1.5:8000/ws/")
        friend = client.post("http://192.168.1.5:8000/api/games", json=body).json()
        assert friend["spectator_url"].startswith("http://192.168.1.5:8000/?game=")
        server.options.public_url = "https://rally.example.org/"
        public = client.post("http://127.0.0.1:8000/api/games", json=body).json()
        assert public["seats"][0]["url"].startswith("https://rally.example.org/?game=")
        assert public["ws_url"].startswith("wss://rally.example.org/ws/")


def test_the_translations_are_served(client: TestClient) -> None:
    response = client.get("/i18n/uk.json")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("application/json")
    assert response.json()["language.name"] == "Українська"
    missing = client.get("/i18n/xx.json")
    assert missing.status_code == 404 and "the languages are en, uk" in missing.json()["error"]
