"""PostgreSQL storage: migrations (in order, once, safe when several servers open one database),
clear errors for a database that cannot be used, and what is stored."""

from __future__ import annotations

import dataclasses
import hashlib
import subprocess
import sys
import threading
from pathlib import Path

import psycopg
import pytest

from roborally.server.database import open_database
from roborally.server.store import DatabaseUnavailable, safe_url
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
    tokens = [game["host_token"], game["seats"][0]["token"], joined["token"]]
    for token in tokens:
        assert token not in dump
        assert hashlib.sha256(token.encode()).hexdigest() in dump
