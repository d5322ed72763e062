"""PostgreSQL storage: migrations (in order, once, safe when several servers open one database),
clear errors for a database that cannot be used, and what is stored."""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import importlib.util
import json
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import httpx
import psycopg
import pytest
from websockets.sync.client import ClientConnection
from websockets.sync.client import connect as ws_connect

from roborally.bots.random_bot import RandomBot
from roborally.server.client import decision_from_json, json_choice
from roborally.server.database import open_database
from roborally.server.store import DatabaseUnavailable, OwnershipLost, safe_url
from roborally.server.store_postgres import PostgresStore, migrations

from .conftest import FAST, create, free_port, make_client
from .databases import with_database


def test_migrations_run_in_order_once_and_are_recorded(pg_database: str) -> None:
    known = [m.version for m in migrations()]
    assert known == sorted(known) and known[0] == 1
    store = PostgresStore(pg_database)
    assert store.schema_versions() == known
    store.close()
    store = PostgresStore(pg_database)  # opened again: nothing applied twice
    assert store.schema_versions() == known
    store.close()


def test_servers_opening_one_new_database_at_once_migrate_it_once(pg_database: str) -> None:
    opened: list[PostgresStore] = []
    failed: list[BaseException] = []
    start = threading.Barrier(6)

    def open_one() -> None:
        start.wait()
        try:
            opened.append(PostgresStore(pg_database))
        except BaseException as error:  # collected: the test says which
            failed.append(error)

    threads = [threading.Thread(target=open_one) for _ in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert failed == [] and len(opened) == 6
    with psycopg.connect(pg_database) as conn:
        rows = conn.execute("SELECT version FROM schema_migrations").fetchall()
    assert sorted(r[0] for r in rows) == [m.version for m in migrations()]
    for store in opened:
        store.close()


def test_a_database_from_a_newer_roborally_is_refused(pg_database: str) -> None:
    PostgresStore(pg_database).close()
    with psycopg.connect(pg_database) as conn:
        conn.execute("INSERT INTO schema_migrations VALUES (9999, 'future', 0)")
    with pytest.raises(DatabaseUnavailable) as refused:
        PostgresStore(pg_database)
    message = str(refused.value)
    assert "9999" in message and "newer roborally" in message and "Nothing was changed" in message


def test_a_process_whose_game_was_taken_over_can_no_longer_write_it(pg_database: str) -> None:
    """The fencing token: once another process claimed a game, every write of the old owner
    (actions, seats, runtime) fails with OwnershipLost and changes nothing; the new owner's
    writes go on from the same action number."""
    old, new = PostgresStore(pg_database), PostgresStore(pg_database)
    old.writer, new.writer = "process-a", "process-b"
    old.create_game("g1", {"course": "x"}, [{"kind": "human"}], "hash", "running")
    old.append_actions("g1", 0, [("d0", 0, '"a"')])
    old.save_runtime("g1", {"deadlines": 1})
    new.claim("g1")
    writes = [
        lambda: old.append_actions("g1", 1, [("d1", 0, '"stale"')]),
        lambda: old.update_game("g1", status="finished", result="stale"),
        lambda: old.save_runtime("g1", {"deadlines": 2}),
        lambda: old.save_runtime("g1", None),
    ]
    for write in writes:
        with pytest.raises(OwnershipLost, match="process-b"):
            write()
    new.append_actions("g1", 1, [("d1", 0, '"fresh"')])
    loaded = new.load("g1")
    assert loaded is not None
    assert loaded.actions == [("d0", 0, '"a"'), ("d1", 0, '"fresh"')]
    assert loaded.status == "running" and loaded.runtime == {"deadlines": 1}
    old.claim("g1")  # taken back: the other way round
    with pytest.raises(OwnershipLost, match="process-a"):
        new.append_actions("g1", 2, [("d2", 0, '"b"')])
    old.append_actions("g1", 2, [("d2", 0, '"a"')])
    unfenced = PostgresStore(pg_database)  # no writer: a game nobody claimed is anyone's
    unfenced.create_game("g2", {}, [], "hash", "open")
    old.update_game("g2", status="running")
    for store in (old, new, unfenced):
        store.close()


def test_an_unreachable_database_is_named_without_its_password() -> None:
    url = f"postgresql://ada:s3cret-pw@127.0.0.1:{free_port()}/games"
    with pytest.raises(DatabaseUnavailable) as refused:
        open_database(url)
    message = str(refused.value)
    assert "postgresql://ada@127.0.0.1:" in message and "/games" in message
    assert "s3cret-pw" not in message
    assert safe_url("postgresql://a:b@h/d?password=x&sslmode=require") == (
        "postgresql://a@h/d?sslmode=require"
    )


def test_a_missing_database_is_named(postgres_url: str) -> None:
    url = with_database(postgres_url, "no_such_database")
    with pytest.raises(DatabaseUnavailable) as refused:
        open_database(url)
    assert "no_such_database" in str(refused.value) and "does not exist" in str(refused.value)


def _serve(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "roborally.server", "--port", "1", *args],
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_the_command_line_names_a_bad_database_url(tmp_path: Path) -> None:
    wrong = _serve("--data", str(tmp_path), "--database", "mysql://root:hunter2@db/games")
    assert wrong.returncode == 2
    assert wrong.stderr.count("\n") == 1 and "postgresql://" in wrong.stderr
    assert "hunter2" not in wrong.stderr and "mysql://root@db/games" in wrong.stderr
    url = f"postgresql://ada:hunter2@127.0.0.1:{free_port()}/games"
    unreachable = _serve("--data", str(tmp_path), "--database", url)
    assert unreachable.returncode == 1
    assert "cannot use the game database postgresql://ada@127.0.0.1" in unreachable.stderr
    assert "hunter2" not in unreachable.stderr and "Traceback" not in unreachable.stderr


def test_tokens_are_stored_only_as_hashes(tmp_path: Path, pg_database: str) -> None:
    with make_client(tmp_path, dataclasses.replace(FAST, database=pg_database)) as client:
        game = create(client, seats=[{"kind": "human"}, {"kind": "human"}])
        joined = client.post(f"/api/games/{game['game_id']}/join", json={"name": "Bo"}).json()
    assert not list(tmp_path.glob("*.sqlite3"))  # nothing in the data directory
    with psycopg.connect(pg_database) as conn:
        dump = " ".join(str(row) for row in conn.execute("SELECT * FROM games").fetchall())
    tokens = [game["host_token"], game["seats"][0]["token"], game["seats"][1]["invite"]]
    tokens.append(joined["token"])  # invites too: a stored invite would open its seat
    for token in tokens:
        assert token not in dump
        assert hashlib.sha256(token.encode()).hexdigest() in dump


def _local_server() -> type[Any]:
    """bench/serverproc.py's LocalServer (a real server process on loopback)."""
    path = Path(__file__).resolve().parents[2] / "bench" / "serverproc.py"
    spec = importlib.util.spec_from_file_location("serverproc", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    server: type[Any] = module.LocalServer
    return server


class _Player:
    """One seat's page, reduced to what the test needs (websockets' blocking client)."""

    def __init__(self, ws: ClientConnection, token: str) -> None:
        self.ws = ws
        self.send(type="hello", token=token)
        assert self.recv()["type"] == "welcome"

    def send(self, **data: Any) -> None:
        self.ws.send(json.dumps({"v": 1, **data}))

    def recv(self) -> dict[str, Any]:
        data: dict[str, Any] = json.loads(self.ws.recv(timeout=30))
        if data["type"] == "state" and data["seat"] is not None:
            self.send(type="shown", event=data["event_count"])
        return data

    def waiting(self, answered: set[str]) -> dict[str, Any]:
        """The next running state with a started decision not answered yet."""
        for _ in range(500):
            msg = self.recv()
            if msg["type"] != "state" or msg["status"] != "running":
                continue
            fresh = [p for p in msg["pending"] if p["id"] not in answered]
            if fresh and all(p["deadline"] is not None for p in fresh):
                return msg
        raise AssertionError("no decision came")


def test_a_server_killed_mid_game_is_replaced_and_the_game_goes_on(
    tmp_path: Path, pg_database: str
) -> None:
    """kill -9 of the server process: another one on the same database (another port and data
    directory) has the same hands, positions and clocks."""
    local_server = _local_server()
    flags = (
        "--database",
        pg_database,
        "--workers",
        "1",
        "--bot-workers",
        "1",
        "--min-seconds",
        "1",
    )
    first = local_server(tmp_path / "one", *flags).start()
    with contextlib.ExitStack() as stack:
        stack.callback(first.stop)  # if the test fails before the kill
        body = {
            "course": "tiny",
            "seats": [{"kind": "human"}, {"kind": "bot"}, {"kind": "human"}],
            "first_player": 0,
            "seed": 5,
            "program_seconds": 600,
            "grace_seconds": 1,  # seat 2 never comes: played for it after 1 s
        }
        game = httpx.post(f"{first.base}/api/games", json=body, timeout=30).json()
        gid, token = game["game_id"], game["seats"][0]["token"]
        ws = stack.enter_context(ws_connect(f"{first.ws_base}/ws/{gid}", open_timeout=10))
        player = _Player(ws, token)
        player.send(type="start")
        bot, answered = RandomBot(4), set[str]()
        state = player.waiting(answered)
        while not any(p["kind"] == "program" for p in state["pending"]):
            for pending in state["pending"]:  # what comes before programming
                answered.add(pending["id"])
                choice = bot.choose(state["observation"], decision_from_json(pending))
                player.send(type="decide", decision_id=pending["id"], choice=json_choice(choice))
            state = player.waiting(answered)
        program = next(p for p in state["pending"] if p["kind"] == "program")
        hand = program["info"]["hand"]
        player.send(type="draft", decision_id=program["id"], program=[hand[2], *[None] * 4])
        with psycopg.connect(pg_database) as conn:  # saved in the background: wait for it
            deadline = time.monotonic() + 10
            while time.monotonic() < deadline:
                row = conn.execute("SELECT data FROM runtime WHERE game_id = %s", (gid,)).fetchone()
                if row is not None and hand[2] in row[0]:
                    break
                time.sleep(0.05)
            else:
                raise AssertionError("the draft was not saved")
        killed_at = time.time()
        first.kill9()

    with (
        local_server(tmp_path / "two", *flags) as second,
        ws_connect(f"{second.ws_base}/ws/{gid}", open_timeout=10) as ws,
    ):
        player = _Player(ws, token)
        again = player.waiting(set())
        assert [p["id"] for p in again["pending"]] == [p["id"] for p in state["pending"]]
        resumed = next(p for p in again["pending"] if p["id"] == program["id"])
        assert resumed["info"]["hand"] == hand
        # The same clock, not a new one: it ran while the server was down, and stood still
        # from the restart (nobody connected: the game paused) until the player came back.
        left_then = program["deadline"] - killed_at
        left_now = resumed["deadline"] - again["server_time"]
        assert left_then - 30 < left_now <= left_then + 0.5
        assert again["observation"] == state["observation"]  # robots, cards, damage
        assert again["event_count"] == state["event_count"]
