"""The data directory is its owner's alone: it holds every running game's seed, and whoever
reads a seed knows every hand. A new directory is 0700 and every file the server writes there
0600; an older, open directory or database gets a warning at start (docs/server.md "Storage")."""

from __future__ import annotations

import logging
import stat
from pathlib import Path

import pytest

from roborally.server.store import DB_NAME, LOCK_NAME, MARK_SUFFIX, Store

from .conftest import create, make_client

WARNING = "other users of this machine can open the data directory"
SERVER_FILES = {DB_NAME, f"{DB_NAME}-wal", f"{DB_NAME}-shm", DB_NAME + MARK_SUFFIX, LOCK_NAME}


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_a_new_data_directory_and_its_files_are_the_owners_alone(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    data = tmp_path / "data"
    with make_client(data) as client:
        create(client)  # a game stored: the database, its id file and its WAL exist
        database = data / DB_NAME
        files = {path.name: mode(path) for path in data.iterdir()}
        assert mode(data) == 0o700
        assert set(files) >= SERVER_FILES
        assert files == dict.fromkeys(files, 0o600), files
        assert database.stat().st_size > 0
    assert WARNING not in caplog.text


def test_an_open_directory_and_database_are_named_with_the_fix(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """A data directory of an older version (0755, database 0644): the server starts, and
    warns with each path, its mode and the chmod that closes it; it changes no mode itself."""
    data = tmp_path / "data"
    Store.in_dir(data).close()
    database = data / DB_NAME
    data.chmod(0o755)
    database.chmod(0o644)
    with caplog.at_level(logging.WARNING, logger="roborally.server"):
        Store.in_dir(data).close()
    warnings = [r.getMessage() for r in caplog.records if WARNING in r.getMessage()]
    assert len(warnings) == 1, caplog.text
    (message,) = warnings
    assert f"{data} (0755)" in message and f"{database} (0644)" in message
    assert "every running game's seed" in message
    assert f"Fix it with: chmod 700 {data} && chmod 600 {database}" in message
    assert (mode(data), mode(database)) == (0o755, 0o644)
    # Once fixed, nothing more is said.
    data.chmod(0o700)
    database.chmod(0o600)
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="roborally.server"):
        Store.in_dir(data).close()
    assert WARNING not in caplog.text
