"""Storage: nothing is acknowledged before it is stored, a failed save changes nothing, one
server per data directory, and a damaged database is refused with a message."""

from __future__ import annotations

import contextlib
import dataclasses
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import psycopg
import pytest

from roborally.server.app import create_app
from roborally.server.database import open_database
from roborally.server.store import (
    DB_NAME,
    DamagedStore,
    DataDirInUse,
    GameStore,
    Store,
    StoreError,
)

from .conftest import FAST, connect, create, hello, make_client, room_of

ONE_PERSON = [{"kind": "human"}, {"kind": "bot"}]


class _WriteLock:
    """Another program (a backup tool, say) takes the database's write lock and keeps it
    until :meth:`release`."""

    def __init__(self, data_dir: Path, database: str | None) -> None:
        self.sqlite: sqlite3.Connection | None = None
        self.postgres: psycopg.Connection[Any] | None = None
        if database is None:
            self.sqlite = sqlite3.connect(data_dir / DB_NAME, isolation_level=None)
            self.sqlite.execute("BEGIN EXCLUSIVE")
        else:  # reads go on; every write waits
            self.postgres = psycopg.connect(database)
            self.postgres.execute("LOCK TABLE games, actions IN EXCLUSIVE MODE")

    def release(self) -> None:
        if self.sqlite is not None:
            self.sqlite.execute("ROLLBACK")
            self.sqlite.close()
        if self.postgres is not None:
            self.postgres.rollback()
            self.postgres.close()


def _execute(data_dir: Path, database: str | None, query: str, *args: Any) -> list[Any]:
    """Run one statement on the server's database behind its back (``?`` marks)."""
    if database is None:
        with contextlib.closing(sqlite3.connect(data_dir / DB_NAME)) as db, db:
            return db.execute(query, args).fetchall()
    with psycopg.connect(database) as conn:
        cur = conn.execute(query.replace("?", "%s").encode(), args)
        return cur.fetchall() if cur.description else []


def _open_store(data_dir: Path, database: str | None) -> GameStore:
    return Store(data_dir / DB_NAME) if database is None else open_database(database)


def test_a_failed_save_changes_nothing_and_says_so(tmp_path: Path, database: str | None) -> None:
    options = dataclasses.replace(FAST, busy_seconds=0.2, database=database)
    with make_client(tmp_path, options) as client:
        game = create(client, seats=ONE_PERSON, variants=["lighter"])
        gid = game["game_id"]
        room = room_of(client, gid)
        with connect(client, gid, game["seats"][0]["token"]) as session:
            ws = hello(session)
            ws.send(type="ready")
            state = ws.pending_state()
            decision = state["pending"][0]
            before = (room.game.digest(), len(room.game.actions), room.saved, len(room.events))
            stored_before = len(room.store.load(gid).actions)  # type: ignore[union-attr]
            lock = _WriteLock(tmp_path, database)
            ws.send(type="decide", decision_id=decision["id"], choice=decision["options"][0], id=7)
            error = ws.error()
            assert error["code"] == "storage_failed" and error["ref"] == 7
            assert "nothing changed" in error["message"]
            lock.release()
            after = (room.game.digest(), len(room.game.actions), room.saved, len(room.events))
            assert after == before
            assert len(room.store.load(gid).actions) == stored_before  # type: ignore[union-attr]
            assert [p.id for p in room.pending] == [decision["id"]]
            # The same decision, sent again, now goes through.
            ws.send(type="decide", decision_id=decision["id"], choice=decision["options"][0], id=8)
            assert ws.until("ack")["ref"] == 8
            assert len(room.store.load(gid).actions) > stored_before  # type: ignore[union-attr]


def test_a_failed_join_takes_no_seat(tmp_path: Path, database: str | None) -> None:
    options = dataclasses.replace(FAST, busy_seconds=0.2, database=database)
    with make_client(tmp_path, options) as client:
        game = create(client, seats=[{"kind": "human"}, {"kind": "human"}])
        gid = game["game_id"]
        lock = _WriteLock(tmp_path, database)
        response = client.post(f"/api/games/{gid}/join", json={"name": "Bo"})
        lock.release()
        assert response.status_code == 503
        assert response.json()["error"]["code"] == "storage_failed"
        seat = room_of(client, gid).seats[1]
        assert not seat.taken and seat.name == "Blue"
        assert client.post(f"/api/games/{gid}/join", json={"name": "Bo"}).status_code == 200


def test_a_second_server_on_the_same_directory_refuses_to_start(tmp_path: Path) -> None:
    with make_client(tmp_path):
        with pytest.raises(DataDirInUse) as refused:
            create_app(tmp_path, FAST)
        assert "another roborally server" in str(refused.value)
        assert str(tmp_path) in str(refused.value)
    with make_client(tmp_path) as client:  # free again once the first one stopped
        assert client.get("/api/health").json()["ok"]


def test_the_command_line_says_why_it_cannot_start(tmp_path: Path) -> None:
    (tmp_path / DB_NAME).write_bytes(b"this is not a database, it is a shopping list\n" * 100)
    result = subprocess.run(
        [sys.executable, "-m", "roborally.server", "--data", str(tmp_path), "--port", "1"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 1
    assert "is damaged" in result.stderr and "restore" in result.stderr
    assert "Traceback" not in result.stderr


def _store_with_a_game(tmp_path: Path) -> None:
    with make_client(tmp_path) as client:
        create(client, seats=[{"kind": "human"}, {"kind": "human"}])


def test_a_damaged_database_is_refused_at_start(tmp_path: Path) -> None:
    _store_with_a_game(tmp_path)
    path = tmp_path / DB_NAME
    data = bytearray(path.read_bytes())
    data[100:4096] = b"\xff" * (4096 - 100)  # the first page's b-tree header and cells
    path.write_bytes(bytes(data))
    with pytest.raises(DamagedStore) as refused:
        Store(path)
    message = str(refused.value)
    assert "damaged" in message and "Nothing was changed" in message and ".recover" in message
    assert path.read_bytes() == bytes(data)  # left exactly as it was


def test_an_emptied_or_swapped_database_is_refused(tmp_path: Path) -> None:
    _store_with_a_game(tmp_path)
    path = tmp_path / DB_NAME
    for suffix in ("-wal", "-shm"):
        Path(str(path) + suffix).unlink(missing_ok=True)
    path.write_bytes(b"")  # truncated: SQLite alone would take it for a new, empty database
    with pytest.raises(DamagedStore) as refused:
        Store(path)
    assert "truncated, deleted or replaced" in str(refused.value)
    other = tmp_path / "other"
    _store_with_a_game(other)
    path.write_bytes((other / DB_NAME).read_bytes())  # another server's database
    with pytest.raises(DamagedStore) as swapped:
        Store(path)
    assert "replaced by another server's file" in str(swapped.value)


def test_a_game_that_no_longer_replays_is_kept_and_reported(
    tmp_path: Path, database: str | None
) -> None:
    options = dataclasses.replace(FAST, database=database)
    with make_client(tmp_path, options) as client:
        game = create(client, seats=ONE_PERSON, variants=["lighter"])
        gid = game["game_id"]
        client.post(f"/api/games/{gid}/start", json={"host_token": game["host_token"]})
    stray = "INSERT INTO actions VALUES (?, 99, 't9-p1-program', 0, 'move1', 0)"
    _execute(tmp_path, database, stray, gid)  # an action the game never asked for
    with make_client(tmp_path, options) as client:
        health = client.get("/api/health").json()
        assert health["broken_games"] == 1
        gone = client.get(f"/api/games/{gid}")
        assert gone.status_code == 404
        assert "could not be restored" in gone.json()["error"]["message"]
    [(status, actions)] = _execute(
        tmp_path,
        database,
        "SELECT status, (SELECT count(*) FROM actions WHERE game_id = id) FROM games WHERE id=?",
        gid,
    )
    assert status == "broken" and actions >= 1  # nothing was deleted


def test_store_errors_roll_back_whole_transactions(tmp_path: Path, database: str | None) -> None:
    store = _open_store(tmp_path, database)
    store.create_game("g", {"seed": 1}, [], "h", "running")
    store.append_actions("g", 0, [("a", 0, "x")])
    with pytest.raises(StoreError):  # a duplicate action number: the whole save fails
        store.append_actions("g", 0, [("b", 0, "y")], status="finished", record="r")
    stored = store.load("g")
    assert stored is not None and stored.actions == [("a", 0, "x")]
    assert stored.status == "running" and stored.record is None
    store.close()


def test_the_statuses_of_many_games_in_one_call(tmp_path: Path, database: str | None) -> None:
    """``statuses`` (the per-address limits of scale-out mode read them at each new game):
    the stored ones only, in one query, also past SQLite's limit on parameters."""
    store = _open_store(tmp_path, database)
    store.create_game("open1", {"seed": 1}, [], "h", "open")
    store.create_game("run1", {"seed": 2}, [], "h", "running")
    asked = ["open1", "run1", "nothing", *(f"x{n}" for n in range(1200))]
    assert store.statuses(asked) == {"open1": "open", "run1": "running"}
    assert store.statuses([]) == {}
    store.close()
