"""Custom courses on the server (docs/protocol.md "Custom courses"): upload, list, read, play,
restart, records, limits, quotas and deletion by the owner token."""

from __future__ import annotations

import dataclasses
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from roborally.bots.random_bot import RandomBot
from roborally.content.courses import DATA, parse_course
from roborally.content.record import parse_record, replay, write_record
from roborally.server.settings import ServerOptions
from roborally.server.store import DB_NAME

from .conftest import FAST, Ws, connect, create, hello, make_client, room_of, wait_finished

CUSTOM = (Path(__file__).parents[1] / "custom-courses" / "cousin.course").read_text(
    encoding="utf-8"
)
RIVER = (DATA / "courses" / "y23-river-run.course").read_text(encoding="utf-8")


def upload(client: TestClient, text: str = CUSTOM, **body: Any) -> Any:
    body.setdefault("author", "Ada")
    return client.post("/api/custom-courses", json={"text": text, **body})


def uploaded(client: TestClient, text: str = CUSTOM, **body: Any) -> dict[str, Any]:
    response = upload(client, text, **body)
    assert response.status_code == 201, response.text
    data: dict[str, Any] = response.json()
    return data


def error_of(response: Any, status: int) -> dict[str, Any]:
    assert response.status_code == status, response.text
    error: dict[str, Any] = response.json()["error"]
    return error


def test_upload_list_read_and_play_a_custom_course_to_its_end(tmp_path: Path) -> None:
    with make_client(tmp_path) as client:
        made = uploaded(client, listed=True)
        cid = made["id"]
        assert cid.startswith("c-") and made["link"] == f"/?course={cid}"
        assert made["course"]["title"] == "Tiny's Cousin" and made["course"]["author"] == "Ada"
        assert made["course"]["players"] == [2, 4] and len(made["owner_token"]) >= 24
        hidden = uploaded(client, RIVER, listed=False, author="Bo")
        listing = client.get("/api/custom-courses").json()["courses"]
        assert [c["id"] for c in listing] == [cid]  # unlisted ones only by their link
        assert "owner_hash" not in str(listing) and "address" not in listing[0]
        one = client.get(f"/api/custom-courses/{hidden['id']}").json()
        assert one["course"]["author"] == "Bo" and one["course"]["listed"] is False
        assert f'id = "{hidden["id"]}"' in one["text"]
        assert one["text"].startswith("# River Run")  # its comment kept
        assert len(one["board"]["cells"]) == 12 * 16
        file = client.get(f"/api/custom-courses/{cid}/file")
        assert file.headers["content-disposition"] == f'attachment; filename="{cid}.course"'
        info = parse_course(file.text)
        assert info.id == cid and info.title == "Tiny's Cousin"
        assert file.text == CUSTOM.replace("c-abcdefgh", cid)  # canonical already: kept
        svg = client.get(f"/api/web/board.svg?course={cid}&lang=uk")
        assert svg.status_code == 200 and svg.text.startswith("<svg") and "data-cell" in svg.text
        assert client.get("/api/web/board.svg?course=tiny").status_code == 200

        game = create(
            client,
            course=cid,
            seats=[{"kind": "bot", "bot": "planner"}, {"kind": "bot", "bot": "random"}],
            max_rounds=6,
        )
        wait_finished(client, game["game_id"])
        record = client.get(f"/api/games/{game['game_id']}/record").text
    assert f"course: {cid}\n" in record and "\n--- course\n| # My first course" in record
    path = tmp_path / "custom.rec"
    path.write_text(record, encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "roborally", "verify", str(path)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    replayed = replay(parse_record(record))
    assert write_record(replayed, cid, game["game_id"]) == record


def test_a_game_on_a_custom_course_survives_a_restart_and_the_course_deleted(
    tmp_path: Path, database: str | None
) -> None:
    bot = RandomBot(3)
    options = dataclasses.replace(FAST, database=database)
    with make_client(tmp_path, options) as client:
        made = uploaded(client)
        cid, owner = made["id"], made["owner_token"]
        game = create(client, course=cid, max_rounds=3)
        gid, token = game["game_id"], game["seats"][0]["token"]
        with connect(client, gid, token) as session:
            ws = hello(session, name="Ada")
            ws.send(type="start")
            for _ in range(2):
                ws.answer(ws.pending_state(), bot)
            ws.until("ack")
        digest = room_of(client, gid).game.digest()  # type: ignore[union-attr]
        deleted = client.request(
            "DELETE", f"/api/custom-courses/{cid}", json={"owner_token": owner}
        )
        assert deleted.status_code == 204
    assert (tmp_path / DB_NAME).is_file() == (database is None)
    with make_client(tmp_path, options) as client:  # the store has no course: the game has it
        room = room_of(client, gid)
        assert room.game is not None and room.game.digest() == digest
        assert (room.board()["width"], room.board()["height"]) == (10, 6)
        with connect(client, gid, token) as session:
            over = hello(session).play_to_end(bot)
        assert over["outcome"]["result"]
        record = client.get(f"/api/games/{gid}/record").text
        assert replay(parse_record(record)).is_over()
        gone = client.post("/api/games", json={"course": cid, "seats": [{"kind": "human"}] * 2})
        assert "deleted" in error_of(gone, 400)["message"]
        assert client.get(f"/api/custom-courses/{cid}").status_code == 404


def test_bad_files_are_refused_with_the_line_or_the_rule_they_break(tmp_path: Path) -> None:
    with make_client(tmp_path) as client:
        error = error_of(upload(client, CUSTOM.replace("size: 5x3", "size: 5x4")), 400)
        assert error["code"] == "format" and error["line"] >= 20 and error["column"] >= 1
        error = error_of(upload(client, CUSTOM.replace("players = [2, 4]", "players = 3")), 400)
        assert (error["line"], error["code"]) == (8, "format")
        unreachable = CUSTOM.replace("checkpoints = [[3, 1]]", "checkpoints = [[2, 1]]")
        error = error_of(upload(client, unreachable), 400)  # a checkpoint on the pit
        assert error["code"] == "invalid_course" and error["errors"]
        few = CUSTOM.replace("players = [2, 4]", "players = [2, 8]")
        assert "start spaces" in error_of(upload(client, few), 400)["message"]
        classic = CUSTOM.replace('edition = "2023"', 'edition = "1999"')
        assert "unknown edition" in error_of(upload(client, classic), 400)["message"]
        long_title = CUSTOM.replace("Tiny's Cousin", "x" * 61)
        assert "title" in error_of(upload(client, long_title), 400)["message"]
        assert error_of(upload(client, CUSTOM, author="A,da"), 400)["code"] == "bad_name"
        assert error_of(upload(client, CUSTOM, author="Ada\u200b"), 400)["code"] == "bad_name"
        assert error_of(upload(client, CUSTOM, author=None), 400)["code"] == "bad_name"
        assert error_of(upload(client, CUSTOM, listed="yes"), 400)["code"] == "bad_request"
        assert error_of(upload(client, 5), 400)["code"] == "bad_request"
        bad_json = client.post("/api/custom-courses", content=b"{", headers={"content-type": "x"})
        assert error_of(bad_json, 400)["code"] == "bad_json"
        assert client.get("/api/custom-courses").json()["courses"] == []


def test_limits_refuse_large_courses_with_413(tmp_path: Path) -> None:
    options = dataclasses.replace(
        FAST,
        custom_course_bytes=2000,
        custom_course_boards=1,
        custom_course_spaces=40,
        custom_course_checkpoints=1,
    )
    with make_client(tmp_path, options) as client:
        padded = "# " + "x" * 2000 + "\n" + CUSTOM
        assert "2000" in error_of(upload(client, padded), 413)["message"]
        huge = client.post(
            "/api/custom-courses",
            content=b"{" + b" " * 20_000 + b"}",
            headers={"content-type": "application/json"},
        )
        assert error_of(huge, 413)["code"] == "too_large"
        assert "boards" in error_of(upload(client, CUSTOM), 413)["message"]
    options = dataclasses.replace(options, custom_course_boards=8)
    with make_client(tmp_path / "2", options) as client:
        assert "spaces" in error_of(upload(client, CUSTOM), 413)["message"]
    options = dataclasses.replace(options, custom_course_spaces=2500)
    with make_client(tmp_path / "3", options) as client:
        two = CUSTOM.replace("checkpoints = [[3, 1]]", "checkpoints = [[3, 1], [4, 2]]")
        assert "checkpoints" in error_of(upload(client, two), 413)["message"]
        assert upload(client).status_code == 201


def test_quotas_per_address_and_in_all_and_the_upload_rate(tmp_path: Path) -> None:
    options = dataclasses.replace(
        FAST, custom_courses_per_address=2, custom_courses_total=3, custom_uploads_per_minute=50
    )
    with make_client(tmp_path, options) as client:
        first = uploaded(client)
        uploaded(client)
        refused = error_of(upload(client), 429)
        assert refused["code"] == "too_many_courses" and "delete one" in refused["message"]
        client.request(
            "DELETE",
            f"/api/custom-courses/{first['id']}",
            json={"owner_token": first["owner_token"]},
        )
        uploaded(client)  # room again
        other = TestClient(client.app, client=("198.51.100.7", 1234))
        uploaded(other)  # another address: the server's total is now reached
        assert "server keeps" in error_of(upload(other), 429)["message"]
    options = dataclasses.replace(FAST, custom_uploads_per_minute=2)
    with make_client(tmp_path / "rate", options) as client:
        assert upload(client).status_code == 201
        assert upload(client, CUSTOM.replace("size: 5x3", "size: 5x4")).status_code == 400
        response = upload(client)
        assert error_of(response, 429)["code"] == "rate_limited"
        assert int(response.headers["retry-after"]) >= 1


def test_only_the_owner_token_deletes_and_unknown_ids_are_404(tmp_path: Path) -> None:
    with make_client(tmp_path) as client:
        made = uploaded(client)
        cid = made["id"]
        path = f"/api/custom-courses/{cid}"
        assert error_of(client.request("DELETE", path, json={}), 400)["code"] == "bad_request"
        wrong = client.request("DELETE", path, json={"owner_token": "not-it"})
        assert error_of(wrong, 403)["code"] == "not_owner"
        assert client.get(path).status_code == 200
        right = client.request("DELETE", path, json={"owner_token": made["owner_token"]})
        assert right.status_code == 204
        again = client.request("DELETE", path, json={"owner_token": made["owner_token"]})
        assert error_of(again, 404)["code"] == "unknown_course"
        for unknown in (cid, "c-zzzzzzzz", "tiny", "x" * 300, "c-ABCDEFGH"):
            for suffix in ("", "/file"):
                response = client.get(f"/api/custom-courses/{unknown}{suffix}")
                assert error_of(response, 404)["code"] == "unknown_course"
        assert client.get("/api/web/board.svg?course=c-zzzzzzzz").status_code == 404
        missing = client.post("/api/games", json={"course": "c-zzzzzzzz", "seats": [{}, {}]})
        assert error_of(missing, 400)["code"] == "unknown_course"


def test_a_custom_course_takes_its_players_and_edition(tmp_path: Path) -> None:
    with make_client(tmp_path) as client:
        cid = uploaded(client)["id"]
        five = [{"kind": "bot"}] * 5
        refused = client.post("/api/games", json={"course": cid, "seats": five})
        assert "2 to 4 players" in error_of(refused, 400)["message"]
        classic = client.post(
            "/api/games", json={"course": cid, "edition": "classic", "seats": five[:2]}
        )
        assert "for the 2023 edition" in error_of(classic, 400)["message"]
        lobby = create(client, course=cid, seats=[{"kind": "human"}, {"kind": "bot"}])
        listed = client.get(f"/api/games/{lobby['game_id']}").json()
        assert listed["course"] == cid and "course_text" not in str(listed)


def test_uploads_are_checked_and_games_played_in_worker_processes(tmp_path: Path) -> None:
    options = ServerOptions(engine_workers=1, bot_workers=1, min_seconds=0.01)
    with make_client(tmp_path, options) as client:
        cid = uploaded(client)["id"]
        assert error_of(upload(client, CUSTOM.replace("size: 5x3", "size: 5x4")), 400)["line"]
        game = create(client, course=cid, seats=[{"kind": "bot"}, {"kind": "bot"}], max_rounds=4)
        wait_finished(client, game["game_id"], timeout=60)
        record = client.get(f"/api/games/{game['game_id']}/record").text
        assert "--- course" in record and replay(parse_record(record)).is_over()


@pytest.mark.parametrize("name", ["y23-river-run", "cl-grand-tour", "tiny"])
def test_shipped_courses_upload_as_custom_ones(tmp_path: Path, name: str) -> None:
    text = (DATA / "courses" / f"{name}.course").read_text(encoding="utf-8")
    with make_client(tmp_path) as client:
        made = uploaded(client, text)
        stored = client.get(f"/api/custom-courses/{made['id']}/file").text
        assert stored == text.replace(f'id = "{name}"', f'id = "{made["id"]}"')


def test_a_rematch_is_played_on_the_same_custom_course(tmp_path: Path) -> None:
    with make_client(tmp_path) as client:
        made = uploaded(client)
        cid = made["id"]
        fast = {"max_rounds": 1, "decision_seconds": 0.05, "program_seconds": 0.05}
        game = create(client, course=cid, seats=[{"kind": "human"}, {"kind": "bot"}], **fast)
        client.request(
            "DELETE", f"/api/custom-courses/{cid}", json={"owner_token": made["owner_token"]}
        )
        with connect(client, game["game_id"], game["seats"][0]["token"]) as session:
            ada = hello(session, name="Ada")
            ada.send(type="start")
            ada.until("game_over", limit=20_000)
            ada.send(type="rematch")
            new_id = ada.until("ack")["game_id"]
        new = room_of(client, new_id)
        assert (
            new.settings.course == cid
            and new.settings.course_text == room_of(client, game["game_id"]).settings.course_text
        )
        assert new.board()["width"] == 10


def test_the_welcome_carries_a_custom_course_for_bots_on_other_machines(tmp_path: Path) -> None:
    """A remote bot (``roborally bot``, server/client.py) learns the course from the welcome:
    another process that never saw the store plans on it."""
    with make_client(tmp_path) as client:
        cid = uploaded(client)["id"]
        game = create(client, course=cid, max_rounds=3)
        with connect(client, game["game_id"], game["seats"][0]["token"]) as session:
            ws = Ws(session)
            ws.send(type="hello", token=game["seats"][0]["token"])
            welcome = ws.recv()
        shipped = create(client, course="tiny", max_rounds=3)
        with connect(client, shipped["game_id"], shipped["seats"][0]["token"]) as session:
            ws = Ws(session)
            ws.send(type="hello", token=shipped["seats"][0]["token"])
            plain = ws.recv()
    assert welcome["type"] == "welcome" and parse_course(welcome["course_file"]).id == cid
    assert "course_file" not in plain  # the shipped courses come with every install
    program = (
        "import sys\n"
        "from roborally.bots.planner import course_for\n"
        "from roborally.server.client import _register_course\n"
        "_register_course(sys.stdin.read())\n"
        f"print(course_for({cid!r}).name)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", program],
        input=welcome["course_file"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0 and done.stdout.strip() == cid, done.stderr


def test_a_game_starts_with_the_alternative_rules_its_course_names(tmp_path: Path) -> None:
    ruled = CUSTOM.replace("players = [2, 4]\n", 'players = [2, 4]\nvariants = ["less_deadly"]\n')
    with make_client(tmp_path) as client:
        made = uploaded(client, ruled)
        assert made["course"]["variants"] == ["less_deadly"]
        seats = [{"kind": "human"}, {"kind": "bot"}]
        named = create(client, course=made["id"], seats=seats)
        chosen = create(client, course=made["id"], seats=seats, variants=[])
        plain = create(client, course=uploaded(client)["id"], seats=seats)
        games = [client.get(f"/api/games/{g['game_id']}").json() for g in (named, chosen, plain)]
    assert [g["variants"] for g in games] == [["less_deadly"], [], []]
