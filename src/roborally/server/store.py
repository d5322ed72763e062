"""Persistence: one SQLite file under the data directory holds every game.

A game is its settings (seed, options, seats) plus the ordered list of actions applied: the same
causes a game record holds, so replaying them reproduces the game exactly. The finished game's
record text is kept too, for export. Seat and host tokens are stored only as SHA-256 hashes.

Two backends have the same methods (:class:`GameStore`): :class:`Store`, SQLite in the data
directory (the default), and :class:`~roborally.server.store_postgres.PostgresStore`, PostgreSQL
(``roborally serve --database postgresql://...``), which
:func:`roborally.server.database.open_database` opens.

Safety (docs/server.md "Storage"):

* :class:`DataDirLock` lets one server at a time use a data directory.
* The data directory is only its owner's (0700) and so is every file the server writes there
  (0600): the database holds every running game's seed, and whoever reads a seed knows every
  hand. :func:`warn_if_open` names an older, open directory or file at start.
* :class:`Store` checks the database when it opens it (``PRAGMA quick_check``, and that it is
  the database this directory had) and raises :class:`DamagedStore` with what to do.
* Every write is one transaction; a failed write raises :class:`StoreError` and changes nothing.
* :class:`AsyncStore` runs every call on one thread of its own, so a slow disk or a locked
  database never blocks the event loop.
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import json
import logging
import os
import secrets
import shlex
import sqlite3
import stat
import time
from collections.abc import Callable, Iterable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol, TypeVar
from urllib.parse import parse_qsl, urlsplit, urlunsplit

SCHEMA_VERSION = "1"
DB_NAME = "roborally.sqlite3"
LOCK_NAME = "roborally.lock"
MARK_SUFFIX = ".id"  # beside the database: the id the database must hold
#: The data directory and the files in it are their owner's alone: the database holds every
#: running game's seed (docs/server.md, "What players trust the operator for").
DIR_MODE = 0o700
FILE_MODE = 0o600
#: Beside the database: SQLite's own files (they take the database file's mode).
SQLITE_SUFFIXES = ("-wal", "-shm", "-journal")

T = TypeVar("T")
log = logging.getLogger("roborally.server")

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS games (
    id TEXT PRIMARY KEY,
    created REAL NOT NULL,
    updated REAL NOT NULL,
    status TEXT NOT NULL,
    settings TEXT NOT NULL,
    seats TEXT NOT NULL,
    host_hash TEXT NOT NULL,
    result TEXT,
    record TEXT
);
CREATE INDEX IF NOT EXISTS games_status ON games (status, updated);
CREATE TABLE IF NOT EXISTS actions (
    game_id TEXT NOT NULL,
    n INTEGER NOT NULL,
    decision_id TEXT NOT NULL,
    seat INTEGER NOT NULL,
    choice TEXT NOT NULL,
    at REAL NOT NULL,
    PRIMARY KEY (game_id, n)
);
CREATE TABLE IF NOT EXISTS rematches (game_id TEXT PRIMARY KEY, rematch_id TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS runtime (game_id TEXT PRIMARY KEY, data TEXT NOT NULL, at REAL NOT NULL);
CREATE TABLE IF NOT EXISTS custom_courses (
    id TEXT PRIMARY KEY,
    created REAL NOT NULL,
    address TEXT NOT NULL,
    author TEXT NOT NULL,
    listed INTEGER NOT NULL,
    owner_hash TEXT NOT NULL,
    summary TEXT NOT NULL,
    text TEXT,
    deleted REAL
);
CREATE INDEX IF NOT EXISTS custom_courses_listed ON custom_courses (listed, deleted, created);
CREATE INDEX IF NOT EXISTS custom_courses_address ON custom_courses (address, deleted);
"""


class StoreError(Exception):
    """A save failed; nothing of it was written."""


class OwnershipLost(StoreError):
    """A write to a game another process has taken over since (scale-out mode: this process
    stalled past its lease). Nothing was written; this process must let the game go."""


class DamagedStore(Exception):
    """The database cannot be trusted; the message says what is wrong and what to do."""


class DatabaseUnavailable(DamagedStore):
    """The database cannot be opened (a wrong URL, a server that does not answer, a refused
    login, a schema newer than this code); the message names it (never its password)."""


class DataDirInUse(Exception):
    """Another server uses this data directory."""


@dataclass
class StoredGame:
    id: str
    created: float
    status: str
    settings: dict[str, Any]
    seats: list[dict[str, Any]]
    host_hash: str
    result: str | None
    record: str | None
    actions: list[tuple[str, int, str]]  # (decision_id, seat, encoded choice)
    updated: float = 0.0  # the last change of its row (a lobby's last join, a game's last move)
    runtime: dict[str, Any] | None = None  # what the room saved with save_runtime (timers)


class GameStore(Protocol):
    """What the server asks of a store; :class:`Store` (SQLite) and
    :class:`~roborally.server.store_postgres.PostgresStore` both do all of it, with the same
    meaning: every write is one transaction, and a failed write raises :class:`StoreError`
    and changes nothing."""

    #: The backend's own exceptions (:class:`AsyncStore` turns them into StoreError).
    errors: tuple[type[Exception], ...]

    def close(self) -> None: ...

    #: The process this store writes for in scale-out mode (``None``: the only server).
    writer: str | None

    def claim(self, game_id: str) -> None:
        """From now on, take writes to the game only from :attr:`writer` (the others get
        :class:`OwnershipLost`); a process taking a game over calls it before loading it."""

    def create_game(
        self,
        game_id: str,
        settings: dict[str, Any],
        seats: list[dict[str, Any]],
        host_hash: str,
        status: str,
    ) -> float: ...

    def update_game(
        self,
        game_id: str,
        *,
        status: str | None = None,
        seats: list[dict[str, Any]] | None = None,
        result: str | None = None,
        record: str | None = None,
    ) -> None: ...

    def append_actions(
        self,
        game_id: str,
        first: int,
        rows: Iterable[tuple[str, int, str]],
        *,
        status: str | None = None,
        result: str | None = None,
        record: str | None = None,
    ) -> None: ...

    def set_rematch(self, game_id: str, rematch_id: str) -> None: ...

    def save_runtime(self, game_id: str, data: dict[str, Any] | None) -> None: ...

    def rematch_of(self, game_id: str) -> str | None: ...

    def load(self, game_id: str) -> StoredGame | None: ...

    def status(self, game_id: str) -> str | None: ...

    def ids_with_status(self, *statuses: str) -> list[str]: ...

    def statuses(self, game_ids: list[str]) -> dict[str, str]:
        """The status of each of ``game_ids`` that is stored (one query)."""
        ...

    def finished_summaries(self, limit: int = 50) -> list[dict[str, Any]]: ...

    def add_custom_course(self, course: StoredCourse, per_address: int, total: int) -> str | None:
        """Store a custom course unless its address keeps ``per_address`` courses already
        (``"address"``) or the server ``total`` (``"total"``), or its id was ever used
        (``"id"``): the counts and the write in one transaction."""
        ...

    def custom_course(self, course_id: str) -> StoredCourse | None:
        """A kept custom course with its text (``None``: unknown or deleted)."""
        ...

    def custom_courses(self, limit: int) -> list[StoredCourse]:
        """The newest listed custom courses, without their texts."""
        ...

    def delete_custom_course(self, course_id: str) -> bool:
        """Forget a custom course's text; its id stays used (``False``: not kept)."""
        ...


@dataclass
class StoredCourse:
    """A custom course as the store keeps it (docs/server.md "Custom courses")."""

    id: str
    created: float
    address: str  # the per-address key of its uploader (limits.client_key)
    author: str
    listed: bool
    owner_hash: str  # SHA-256 of the owner token
    summary: dict[str, Any]
    text: str | None  # the canonical course file (None when listed without texts)


CUSTOM_COLUMNS = "id, created, address, author, listed, owner_hash, summary"


def stored_course(row: tuple[Any, ...], text: str | None = None) -> StoredCourse:
    """A :class:`StoredCourse` from a row of :data:`CUSTOM_COLUMNS` (both backends)."""
    return StoredCourse(
        str(row[0]),
        float(row[1]),
        str(row[2]),
        str(row[3]),
        bool(row[4]),
        str(row[5]),
        json.loads(row[6]),
        text,
    )


def finished_summary(
    game_id: str, created: float, finished: float, settings: str, seats: str, result: str | None
) -> dict[str, Any]:
    """One finished game as the list of finished games shows it (both backends)."""
    options = json.loads(settings)
    return {
        "game_id": game_id,
        "status": "finished",
        "created": created,
        "finished": finished,
        "edition": options.get("edition"),
        "course": options.get("course"),
        "variants": options.get("variants", []),
        "seats": [
            {"seat": i, "name": s.get("name"), "kind": s.get("kind"), "bot": s.get("bot")}
            for i, s in enumerate(json.loads(seats))
        ],
        "result": result,
    }


def game_update(
    game_id: str,
    status: str | None,
    seats: list[dict[str, Any]] | None,
    result: str | None,
    record: str | None,
    mark: str = "?",
) -> tuple[str, list[Any]]:
    """The ``UPDATE`` of a game's row and its values (``mark``: the database's parameter
    mark); ``updated`` is always set."""
    sets = [f"updated = {mark}"]
    values: list[Any] = [time.time()]
    for column, value in (
        ("status", status),
        ("seats", None if seats is None else json.dumps(seats)),
        ("result", result),
        ("record", record),
    ):
        if value is not None:
            sets.append(f"{column} = {mark}")
            values.append(value)
    values.append(game_id)
    return f"UPDATE games SET {', '.join(sets)} WHERE id = {mark}", values


def action_rows(
    game_id: str, first: int, rows: Iterable[tuple[str, int, str]]
) -> list[tuple[str, int, str, int, str, float]]:
    """The rows of the ``actions`` table for actions ``first, first+1, ...``."""
    now = time.time()
    return [(game_id, first + i, d, s, c, now) for i, (d, s, c) in enumerate(rows)]


class DataDirLock:
    """An exclusive lock on a data directory for the life of one server (``flock``: the
    system drops it when the process ends, even after ``kill -9``)."""

    def __init__(self, data_dir: str | Path) -> None:
        directory = Path(data_dir)
        make_private_dir(directory)
        self.path = directory / LOCK_NAME
        self.fd = os.open(self.path, os.O_RDWR | os.O_CREAT, FILE_MODE)
        try:
            fcntl.flock(self.fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            other = os.pread(self.fd, 32, 0).decode("ascii", "replace").strip() or "?"
            os.close(self.fd)
            raise DataDirInUse(
                f"another roborally server (pid {other}) is using the data directory"
                f" {directory}; stop it first, or give this one its own --data directory"
            ) from None
        os.ftruncate(self.fd, 0)
        os.pwrite(self.fd, f"{os.getpid()}\n".encode("ascii"), 0)

    def release(self) -> None:
        if self.fd >= 0:
            with contextlib.suppress(OSError):
                fcntl.flock(self.fd, fcntl.LOCK_UN)
            os.close(self.fd)
            self.fd = -1


def make_private_dir(directory: Path) -> None:
    """Create ``directory`` for its owner alone (0700) if it is missing (parents the usual
    way); an existing one keeps its mode (:func:`warn_if_open` names it if it is open)."""
    directory.mkdir(parents=True, exist_ok=True, mode=DIR_MODE)


def create_private_file(path: Path) -> None:
    """Create ``path`` empty and for its owner alone (0600) if it is missing, so that a file
    made by someone else's code (SQLite makes its files 0644) never starts readable."""
    with contextlib.suppress(FileExistsError):
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, FILE_MODE))


def open_paths(directory: Path) -> list[tuple[Path, int]]:
    """The data directory and the server's files in it that other users may read or write
    (group or others have any permission), with their modes."""
    database = directory / DB_NAME
    paths = [directory, database, Path(str(database) + MARK_SUFFIX), directory / LOCK_NAME]
    paths += [Path(str(database) + suffix) for suffix in SQLITE_SUFFIXES]
    found = []
    for path in paths:
        try:
            mode = stat.S_IMODE(path.stat().st_mode)
        except FileNotFoundError:
            continue
        if mode & 0o077:
            found.append((path, mode))
    return found


def warn_if_open(directory: Path) -> None:
    """Log one warning naming the data directory and files other users of this machine can
    read (left by an older version, or opened by hand), and the ``chmod`` that closes them.
    Their modes are not changed here: an operator may have opened them on purpose (a backup
    user's group), and it is their call; the warning comes at every start until it is made."""
    found = open_paths(directory)
    if not found:
        return
    listed = ", ".join(f"{path} ({mode:04o})" for path, mode in found)
    dirs = [shlex.quote(str(p)) for p, _ in found if p == directory]
    files = [shlex.quote(str(p)) for p, _ in found if p != directory]
    commands = [f"chmod {DIR_MODE:o} {' '.join(dirs)}"] if dirs else []
    commands += [f"chmod {FILE_MODE:o} {' '.join(files)}"] if files else []
    log.warning(
        "other users of this machine can open the data directory or its files: %s. The"
        " database holds every running game's seed, and whoever reads a seed knows every hand."
        " Fix it with: %s",
        listed,
        " && ".join(commands),
    )


def _damaged(path: str, problem: str) -> DamagedStore:
    return DamagedStore(
        f"the game database {path} is damaged: {problem}.\n"
        "Nothing was changed. Stop here and either:\n"
        f"  * restore {DB_NAME} from a backup (docs/server.md, 'Backups'), or\n"
        f"  * save what can be saved: sqlite3 {path} .recover | sqlite3 recovered.sqlite3,\n"
        f"    then move the damaged file (and its -wal/-shm files) aside and put\n"
        f"    recovered.sqlite3 in its place as {DB_NAME}, or\n"
        "  * move the damaged file aside to start with no games."
    )


class Store:
    """The SQLite database, synchronously (the server uses it through :class:`AsyncStore`)."""

    errors: tuple[type[Exception], ...] = (sqlite3.Error,)

    def __init__(self, path: str | Path, busy_seconds: float = 2.0) -> None:
        self.path = str(path)
        self.mark = Path(self.path + MARK_SUFFIX)
        existed = Path(self.path).exists()
        if not existed:  # SQLite would make it 0644 (and its -wal and -shm files after it)
            create_private_file(Path(self.path))
        self.db = sqlite3.connect(
            self.path, timeout=busy_seconds, check_same_thread=False, isolation_level=None
        )
        try:
            self._open(existed)
        except sqlite3.DatabaseError as error:
            self.db.close()
            raise _damaged(self.path, str(error)) from None
        except DamagedStore:
            self.db.close()
            raise

    def _open(self, existed: bool) -> None:
        """Check everything before writing anything: a refused file is left as it was."""
        if existed:
            problems = [row[0] for row in self.db.execute("PRAGMA quick_check").fetchall()]
            if problems != ["ok"]:
                raise _damaged(self.path, "; ".join(problems[:3]))
        ident = self._check_identity()
        schema = self._meta("schema")
        if schema is not None and schema != SCHEMA_VERSION:
            raise DamagedStore(
                f"{self.path}: schema {schema!r}, this server has {SCHEMA_VERSION}; use the"
                " roborally version that wrote it"
            )
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("PRAGMA synchronous=NORMAL")
        self.db.executescript(_SCHEMA)
        if schema is None:
            self.db.execute("INSERT INTO meta VALUES ('schema', ?)", (SCHEMA_VERSION,))
        if self._meta("id") is None:
            self.db.execute("INSERT INTO meta VALUES ('id', ?)", (ident,))
        if not self.mark.exists():
            create_private_file(self.mark)
            self.mark.write_text(ident + "\n", encoding="ascii")

    def _meta(self, key: str) -> str | None:
        has_meta = self.db.execute(
            "SELECT 1 FROM sqlite_master WHERE type='table' AND name='meta'"
        ).fetchone()
        if has_meta is None:
            return None
        row = self.db.execute("SELECT value FROM meta WHERE key=?", (key,)).fetchone()
        return None if row is None else str(row[0])

    def _check_identity(self) -> str:
        """The database must be the one this directory had: a truncated, emptied or swapped
        file would otherwise start as a new, empty store and every game would be lost.
        Returns the database's id (a new one for a new database)."""
        ident = self._meta("id")
        expected = self.mark.read_text(encoding="ascii").strip() if self.mark.exists() else None
        if ident is None:
            if expected is not None:
                raise _damaged(
                    self.path,
                    f"it is empty or new, but this directory's database had the id {expected}"
                    f" ({self.mark.name}); it was truncated, deleted or replaced",
                )
            return secrets.token_hex(8)
        if expected is not None and ident != expected:
            raise _damaged(
                self.path,
                f"it has the id {ident} but this directory's database had {expected}"
                f" ({self.mark.name}); it was replaced by another server's file",
            )
        return ident

    @classmethod
    def in_dir(cls, data_dir: str | Path, busy_seconds: float = 2.0) -> Store:
        """The store of a data directory (made for its owner alone if it is new); warns if
        the directory or its files are open to other users."""
        directory = Path(data_dir)
        make_private_dir(directory)
        store = cls(directory / DB_NAME, busy_seconds)
        warn_if_open(directory)
        return store

    def close(self) -> None:
        self.db.close()

    def _transaction(self, work: Callable[[], object]) -> None:
        try:
            self.db.execute("BEGIN IMMEDIATE")
        except sqlite3.Error as error:
            raise StoreError(f"the database refused the save: {error}") from None
        try:
            work()
        except BaseException as error:
            with contextlib.suppress(sqlite3.Error):
                self.db.execute("ROLLBACK")
            if isinstance(error, sqlite3.Error):
                raise StoreError(f"the database refused the save: {error}") from None
            raise
        try:
            self.db.execute("COMMIT")
        except sqlite3.Error as error:
            with contextlib.suppress(sqlite3.Error):
                self.db.execute("ROLLBACK")
            raise StoreError(f"the database refused the save: {error}") from None

    writer: str | None = None

    def claim(self, game_id: str) -> None:
        """Nothing to do: one server process at a time uses a data directory (its lock
        file), so no other writer can be fenced off."""

    # ------------------------------------------------------------ writes
    def create_game(
        self,
        game_id: str,
        settings: dict[str, Any],
        seats: list[dict[str, Any]],
        host_hash: str,
        status: str,
    ) -> float:
        now = time.time()
        self._transaction(
            lambda: self.db.execute(
                "INSERT INTO games (id, created, updated, status, settings, seats, host_hash)"
                " VALUES (?, ?, ?, ?, ?, ?, ?)",
                (game_id, now, now, status, json.dumps(settings), json.dumps(seats), host_hash),
            )
        )
        return now

    def update_game(
        self,
        game_id: str,
        *,
        status: str | None = None,
        seats: list[dict[str, Any]] | None = None,
        result: str | None = None,
        record: str | None = None,
    ) -> None:
        query, values = game_update(game_id, status, seats, result, record)
        self._transaction(lambda: self.db.execute(query, values))

    def append_actions(
        self,
        game_id: str,
        first: int,
        rows: Iterable[tuple[str, int, str]],
        *,
        status: str | None = None,
        result: str | None = None,
        record: str | None = None,
    ) -> None:
        """Store actions ``first, first+1, ...`` and, in the same transaction, the game's new
        status (a finished game's result and record): all of it or nothing."""
        data = action_rows(game_id, first, rows)
        if not data and status is None:
            return
        query, values = game_update(game_id, status, None, result, record)

        def work() -> None:
            self.db.executemany(
                "INSERT INTO actions (game_id, n, decision_id, seat, choice, at)"
                " VALUES (?, ?, ?, ?, ?, ?)",
                data,
            )
            self.db.execute(query, values)

        self._transaction(work)

    def set_rematch(self, game_id: str, rematch_id: str) -> None:
        """Game ``rematch_id`` is the rematch of the finished game ``game_id``."""
        self._transaction(
            lambda: self.db.execute(
                "INSERT OR REPLACE INTO rematches (game_id, rematch_id) VALUES (?, ?)",
                (game_id, rematch_id),
            )
        )

    def save_runtime(self, game_id: str, data: dict[str, Any] | None) -> None:
        """What a running game's room keeps besides its actions (the deadlines as wall-clock
        times, drafts, auto-play), for the server that runs it next; ``None`` forgets it."""
        if data is None:
            self._transaction(
                lambda: self.db.execute("DELETE FROM runtime WHERE game_id = ?", (game_id,))
            )
            return
        self._transaction(
            lambda: self.db.execute(
                "INSERT OR REPLACE INTO runtime (game_id, data, at) VALUES (?, ?, ?)",
                (game_id, json.dumps(data), time.time()),
            )
        )

    # ------------------------------------------------------------- reads
    def rematch_of(self, game_id: str) -> str | None:
        row = self.db.execute(
            "SELECT rematch_id FROM rematches WHERE game_id = ?", (game_id,)
        ).fetchone()
        return None if row is None else str(row[0])

    def load(self, game_id: str) -> StoredGame | None:
        row = self.db.execute(
            "SELECT id, created, status, settings, seats, host_hash, result, record, updated"
            " FROM games WHERE id = ?",
            (game_id,),
        ).fetchone()
        if row is None:
            return None
        actions = self.db.execute(
            "SELECT decision_id, seat, choice FROM actions WHERE game_id = ? ORDER BY n",
            (game_id,),
        ).fetchall()
        runtime = self.db.execute(
            "SELECT data FROM runtime WHERE game_id = ?", (game_id,)
        ).fetchone()
        return StoredGame(
            row[0],
            row[1],
            row[2],
            json.loads(row[3]),
            json.loads(row[4]),
            row[5],
            row[6],
            row[7],
            [(a[0], int(a[1]), a[2]) for a in actions],
            float(row[8]),
            None if runtime is None else json.loads(runtime[0]),
        )

    def status(self, game_id: str) -> str | None:
        row = self.db.execute("SELECT status FROM games WHERE id = ?", (game_id,)).fetchone()
        return None if row is None else str(row[0])

    def statuses(self, game_ids: list[str]) -> dict[str, str]:
        found: dict[str, str] = {}
        for start in range(0, len(game_ids), 500):  # SQLite's limit on parameters
            part = game_ids[start : start + 500]
            marks = ", ".join("?" for _ in part)
            rows = self.db.execute(f"SELECT id, status FROM games WHERE id IN ({marks})", part)
            found.update((str(r[0]), str(r[1])) for r in rows.fetchall())
        return found

    def ids_with_status(self, *statuses: str) -> list[str]:
        marks = ", ".join("?" for _ in statuses)
        rows = self.db.execute(
            f"SELECT id FROM games WHERE status IN ({marks}) ORDER BY created", statuses
        ).fetchall()
        return [r[0] for r in rows]

    def finished_summaries(self, limit: int = 50) -> list[dict[str, Any]]:
        rows = self.db.execute(
            "SELECT id, created, updated, settings, seats, result FROM games"
            " WHERE status = 'finished' ORDER BY updated DESC LIMIT ?",
            (limit,),
        ).fetchall()
        return [finished_summary(*r) for r in rows]

    # ------------------------------------------------------------ custom courses
    def add_custom_course(self, course: StoredCourse, per_address: int, total: int) -> str | None:
        refusal: list[str] = []

        def work() -> None:
            used = self.db.execute("SELECT 1 FROM custom_courses WHERE id = ?", (course.id,))
            if used.fetchone() is not None:
                refusal.append("id")
                return
            mine = self.db.execute(
                "SELECT COUNT(*) FROM custom_courses WHERE address = ? AND deleted IS NULL",
                (course.address,),
            ).fetchone()[0]
            if mine >= per_address:
                refusal.append("address")
                return
            kept = self.db.execute(
                "SELECT COUNT(*) FROM custom_courses WHERE deleted IS NULL"
            ).fetchone()[0]
            if kept >= total:
                refusal.append("total")
                return
            self.db.execute(
                f"INSERT INTO custom_courses ({CUSTOM_COLUMNS}, text)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    course.id,
                    course.created,
                    course.address,
                    course.author,
                    int(course.listed),
                    course.owner_hash,
                    json.dumps(course.summary),
                    course.text,
                ),
            )

        self._transaction(work)
        return refusal[0] if refusal else None

    def custom_course(self, course_id: str) -> StoredCourse | None:
        row = self.db.execute(
            f"SELECT {CUSTOM_COLUMNS}, text FROM custom_courses WHERE id = ? AND deleted IS NULL",
            (course_id,),
        ).fetchone()
        return None if row is None else stored_course(row, str(row[7]))

    def custom_courses(self, limit: int) -> list[StoredCourse]:
        rows = self.db.execute(
            f"SELECT {CUSTOM_COLUMNS} FROM custom_courses WHERE listed = 1 AND deleted IS NULL"
            " ORDER BY created DESC LIMIT ?",
            (limit,),
        ).fetchall()
        return [stored_course(row) for row in rows]

    def delete_custom_course(self, course_id: str) -> bool:
        done: list[int] = []

        def work() -> None:
            cursor = self.db.execute(
                "UPDATE custom_courses SET text = NULL, deleted = ?"
                " WHERE id = ? AND deleted IS NULL",
                (time.time(), course_id),
            )
            done.append(cursor.rowcount)

        self._transaction(work)
        return bool(done and done[0])


class AsyncStore:
    """The store on a thread of its own: ``await store.run(Store.method, args...)`` calls the
    method of that name of whichever backend this is (``Store.load`` or ``GameStore.load``
    name the method; a PostgresStore runs its own). Calls run one at a time, in order. Any
    database error becomes :class:`StoreError`."""

    def __init__(self, store: GameStore) -> None:
        self.sync = store
        self.executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="roborally-store")

    def _call(self, method: Callable[..., T], *args: Any, **kwargs: Any) -> Callable[[], T]:
        bound: Callable[..., T] = getattr(self.sync, method.__name__)

        def call() -> T:
            try:
                return bound(*args, **kwargs)
            except self.sync.errors as error:
                raise StoreError(f"the database failed: {error}") from None

        return call

    async def run(self, method: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        call = self._call(method, *args, **kwargs)
        return await asyncio.get_running_loop().run_in_executor(self.executor, call)

    def post(self, method: Callable[..., object], *args: Any, **kwargs: Any) -> None:
        """Queue a write nobody waits for (after every call queued before it); a failure is
        logged, not raised."""
        try:
            future = self.executor.submit(self._call(method, *args, **kwargs))
        except RuntimeError as error:  # the store is closed (the server stops)
            log.warning("a background save was not made: %s", error)
            return
        future.add_done_callback(_log_failure)

    def close(self) -> None:
        self.executor.shutdown(wait=True)
        self.sync.close()


def _log_failure(future: Future[Any]) -> None:
    error = future.exception()
    if error is not None:
        log.warning("a background save failed: %s", error)


def safe_url(url: str) -> str:
    """A database URL as it may be shown: without its password (in the address or as a
    ``password=`` parameter)."""
    parts = urlsplit(url)
    netloc = parts.netloc
    if "@" in netloc:
        user, _, host = netloc.rpartition("@")
        netloc = user.partition(":")[0] + "@" + host
    query = "&".join(
        f"{k}={v}" for k, v in parse_qsl(parts.query, keep_blank_values=True) if k != "password"
    )
    return urlunsplit((parts.scheme, netloc, parts.path, query, ""))
