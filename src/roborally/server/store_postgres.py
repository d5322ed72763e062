"""The game store on PostgreSQL (``roborally serve --database postgresql://...``).

The same tables and the same meaning as the SQLite :class:`~roborally.server.store.Store`
(docs/server.md "Storage"): a game is its settings and seats plus its ordered actions; tokens
are kept only as SHA-256 hashes; every write is one transaction, and a failed write raises
:class:`~roborally.server.store.StoreError` and changes nothing.

The schema is made by the migrations in ``roborally/server/migrations`` (``NNNN_name.sql``),
applied when the store opens: in order, each once, recorded in ``schema_migrations``, under a
transaction-scoped advisory lock so that several servers opening one database at the same time
apply each migration exactly once. A database with a migration this code does not know (written
by a newer roborally) is refused with :class:`~roborally.server.store.DatabaseUnavailable`.

Calls are synchronous (psycopg 3): the server runs them on :class:`AsyncStore`'s thread. A lost
connection fails the call under way (a :class:`StoreError`); the next call connects again.
"""

from __future__ import annotations

import json
import re
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from importlib import resources
from typing import Any
from urllib.parse import urlsplit

import psycopg

from roborally.server.store import (
    CUSTOM_COLUMNS,
    DatabaseUnavailable,
    OwnershipLost,
    StoredCourse,
    StoredGame,
    StoreError,
    action_rows,
    finished_summary,
    game_update,
    safe_url,
    stored_course,
)

#: The key of the advisory lock held while migrations run ("roborally" in ASCII, 8 bytes' worth).
MIGRATION_LOCK = 0x726F626F72616C6C
#: The key of the advisory lock that makes a custom course's quota check and insert one step.
CUSTOM_COURSE_LOCK = MIGRATION_LOCK + 1
MIGRATION_NAME = re.compile(r"(\d{4})_([a-z0-9_]+)\.sql")
CONNECT_SECONDS = 10


@dataclass(frozen=True)
class Migration:
    version: int
    name: str
    sql: str


def migrations() -> list[Migration]:
    """The schema migrations shipped with this code, in order."""
    folder = resources.files("roborally.server").joinpath("migrations")
    found = []
    for entry in folder.iterdir():
        match = MIGRATION_NAME.fullmatch(entry.name)
        if match is not None:
            found.append(Migration(int(match[1]), match[2], entry.read_text(encoding="utf-8")))
    found.sort(key=lambda m: m.version)
    versions = [m.version for m in found]
    if len(set(versions)) != len(versions):
        raise RuntimeError(f"two schema migrations have the same number: {versions}")
    return found


class PostgresStore:
    """The PostgreSQL database, synchronously (the server uses it through AsyncStore)."""

    errors: tuple[type[Exception], ...] = (psycopg.Error,)
    #: The process this store writes for (scale-out mode sets it); a game's row names the
    #: process that last took it over, and a write for any other is refused (:meth:`claim`).
    writer: str | None = None

    def __init__(self, url: str, busy_seconds: float = 2.0) -> None:
        self.url = url
        self.shown_url = safe_url(url)
        self.busy_ms = max(1, round(busy_seconds * 1000))
        # One call at a time on the connection: the server calls from its store thread only,
        # but tests and tools read from theirs (a transaction must not take in their queries).
        self.mutex = threading.RLock()
        try:
            self.conn = self._connect()
        except psycopg.Error as error:
            raise self._unavailable(error) from None
        try:
            self._migrate()
        except psycopg.Error as error:
            self.conn.close()
            raise self._unavailable(error) from None
        except DatabaseUnavailable:
            self.conn.close()
            raise

    def _unavailable(self, error: Exception) -> DatabaseUnavailable:
        text = " ".join(str(error).split()) or type(error).__name__
        password = urlsplit(self.url).password
        if password:
            text = text.replace(password, "***")
        return DatabaseUnavailable(
            f"cannot use the game database {self.shown_url}: {text}\n"
            "Check the URL, that PostgreSQL runs there and lets this user in (put a password in"
            " PGPASSWORD or ~/.pgpass rather than in the URL), and that the database exists."
        )

    def _connect(self) -> psycopg.Connection[Any]:
        conn = psycopg.connect(self.url, autocommit=True, connect_timeout=CONNECT_SECONDS)
        conn.execute(f"SET lock_timeout = {self.busy_ms}")
        return conn

    def _connection(self) -> psycopg.Connection[Any]:
        """The connection, made again if it was lost."""
        if self.conn.closed or self.conn.broken:
            self.conn.close()
            self.conn = self._connect()
        return self.conn

    def _migrate(self) -> None:
        known = migrations()
        with self.conn.transaction(), self.conn.cursor() as cur:
            cur.execute("SELECT pg_advisory_xact_lock(%s)", (MIGRATION_LOCK,))
            cur.execute(
                "CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY,"
                " name TEXT NOT NULL, applied DOUBLE PRECISION NOT NULL)"
            )
            cur.execute("SELECT version FROM schema_migrations")
            done = {int(row[0]) for row in cur.fetchall()}
            unknown = sorted(done - {m.version for m in known})
            if unknown:
                newest = known[-1].version if known else 0
                raise DatabaseUnavailable(
                    f"the game database {self.shown_url} has schema migration {unknown[-1]:04d},"
                    f" but this roborally knows migrations up to {newest:04d}: a newer roborally"
                    " wrote it. Nothing was changed; use that version (or a newer one)."
                )
            for migration in known:
                if migration.version in done:
                    continue
                cur.execute(migration.sql.encode("utf-8"))
                cur.execute(
                    "INSERT INTO schema_migrations (version, name, applied) VALUES (%s, %s, %s)",
                    (migration.version, migration.name, time.time()),
                )

    def schema_versions(self) -> list[int]:
        """The migrations applied to this database, in order."""
        rows = self._connection().execute("SELECT version FROM schema_migrations ORDER BY version")
        return [int(row[0]) for row in rows.fetchall()]

    def close(self) -> None:
        self.conn.close()

    def _transaction(self, work: Callable[[psycopg.Cursor[Any]], object]) -> None:
        try:
            with self.mutex:
                conn = self._connection()
                with conn.transaction(), conn.cursor() as cur:
                    work(cur)
        except psycopg.Error as error:
            text = " ".join(str(error).split()) or type(error).__name__
            raise StoreError(f"the database refused the save: {text}") from None

    # ----------------------------------------------------------- fencing
    def claim(self, game_id: str) -> None:
        """Make :attr:`writer` the only process whose writes to the game are taken: a stalled
        process that lost the game's lease may still try one write before it notices, and
        that write must fail on its side, not on the new owner's. Called before the game is
        loaded, so the load sees every write the old owner made."""
        if self.writer is None:
            return
        self._transaction(
            lambda cur: cur.execute(
                "UPDATE games SET owner = %s WHERE id = %s", (self.writer, game_id)
            )
        )

    def _fenced_update(
        self, cur: psycopg.Cursor[Any], game_id: str, query: str, values: list[Any]
    ) -> None:
        """Run a game row's ``UPDATE`` (which locks the row) if this process may write it."""
        if self.writer is not None:
            query += " AND (owner IS NULL OR owner = %s)"
            values = [*values, self.writer]
        cur.execute(query.encode(), values)
        if cur.rowcount == 0:
            self._refused_write(cur, game_id)

    def _refused_write(self, cur: psycopg.Cursor[Any], game_id: str) -> None:
        """After a fenced write that changed no row: :class:`OwnershipLost` if another
        process took the game over (no game, or no row to change, is not an error)."""
        if self.writer is None:
            return
        cur.execute("SELECT owner FROM games WHERE id = %s", (game_id,))
        row = cur.fetchone()
        if row is not None and row[0] is not None and row[0] != self.writer:
            raise OwnershipLost(
                f"game {game_id} was taken over by process {row[0]}; this process"
                f" ({self.writer}) may no longer write it"
            )

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
        row = (
            game_id,
            now,
            now,
            status,
            json.dumps(settings),
            json.dumps(seats),
            host_hash,
            self.writer,
        )
        self._transaction(
            lambda cur: cur.execute(
                "INSERT INTO games (id, created, updated, status, settings, seats, host_hash,"
                " owner) VALUES (%s, %s, %s, %s, %s, %s, %s, %s)",
                row,
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
        query, values = game_update(game_id, status, seats, result, record, "%s")
        self._transaction(lambda cur: self._fenced_update(cur, game_id, query, values))

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
        query, values = game_update(game_id, status, None, result, record, "%s")

        def work(cur: psycopg.Cursor[Any]) -> None:
            self._fenced_update(cur, game_id, query, values)  # first: it locks the row
            if data:
                cur.executemany(
                    "INSERT INTO actions (game_id, n, decision_id, seat, choice, at)"
                    " VALUES (%s, %s, %s, %s, %s, %s)",
                    data,
                )

        self._transaction(work)

    def set_rematch(self, game_id: str, rematch_id: str) -> None:
        """Game ``rematch_id`` is the rematch of the finished game ``game_id``."""
        self._transaction(
            lambda cur: cur.execute(
                "INSERT INTO rematches (game_id, rematch_id) VALUES (%s, %s)"
                " ON CONFLICT (game_id) DO UPDATE SET rematch_id = EXCLUDED.rematch_id",
                (game_id, rematch_id),
            )
        )

    def save_runtime(self, game_id: str, data: dict[str, Any] | None) -> None:
        """What a running game's room keeps besides its actions (see Store.save_runtime);
        ``None`` forgets it."""
        text = None if data is None else json.dumps(data)
        # One statement each way: the game's row is checked (and held) by the same statement
        # that writes, so no takeover comes between.
        mine = "SELECT 1 FROM games WHERE id = %s AND (owner IS NULL OR owner = %s) FOR SHARE"
        if self.writer is None:  # the only server: any game is its own
            mine = "SELECT 1 FROM games WHERE id = %s AND %s::text IS NULL FOR SHARE"

        def work(cur: psycopg.Cursor[Any]) -> None:
            if text is None:
                cur.execute(
                    f"DELETE FROM runtime WHERE game_id = %s AND EXISTS ({mine})",
                    (game_id, game_id, self.writer),
                )
            else:
                cur.execute(
                    f"INSERT INTO runtime (game_id, data, at) SELECT %s, %s, %s WHERE EXISTS"
                    f" ({mine}) ON CONFLICT (game_id) DO UPDATE SET data = EXCLUDED.data,"
                    " at = EXCLUDED.at",
                    (game_id, text, time.time(), game_id, self.writer),
                )
            if cur.rowcount == 0:
                self._refused_write(cur, game_id)

        self._transaction(work)

    # ------------------------------------------------------------- reads
    def _rows(self, query: str, args: tuple[Any, ...]) -> list[tuple[Any, ...]]:
        with self.mutex:
            return self._connection().execute(query.encode(), args).fetchall()

    def _one(self, query: str, args: tuple[Any, ...]) -> tuple[Any, ...] | None:
        rows = self._rows(query, args)
        return rows[0] if rows else None

    def rematch_of(self, game_id: str) -> str | None:
        row = self._one("SELECT rematch_id FROM rematches WHERE game_id = %s", (game_id,))
        return None if row is None else str(row[0])

    def load(self, game_id: str) -> StoredGame | None:
        with self.mutex:
            return self._load(game_id)

    def _load(self, game_id: str) -> StoredGame | None:
        conn = self._connection()
        with conn.transaction(), conn.cursor() as cur:  # one snapshot of the game
            cur.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY")
            cur.execute(
                "SELECT id, created, status, settings, seats, host_hash, result, record, updated"
                " FROM games WHERE id = %s",
                (game_id,),
            )
            row = cur.fetchone()
            if row is None:
                return None
            cur.execute(
                "SELECT decision_id, seat, choice FROM actions WHERE game_id = %s ORDER BY n",
                (game_id,),
            )
            actions = cur.fetchall()
            cur.execute("SELECT data FROM runtime WHERE game_id = %s", (game_id,))
            runtime = cur.fetchone()
        return StoredGame(
            row[0],
            float(row[1]),
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
        row = self._one("SELECT status FROM games WHERE id = %s", (game_id,))
        return None if row is None else str(row[0])

    def statuses(self, game_ids: list[str]) -> dict[str, str]:
        rows = self._rows("SELECT id, status FROM games WHERE id = ANY(%s)", (game_ids,))
        return {str(r[0]): str(r[1]) for r in rows}

    def ids_with_status(self, *statuses: str) -> list[str]:
        rows = self._rows(
            "SELECT id FROM games WHERE status = ANY(%s) ORDER BY created", (list(statuses),)
        )
        return [str(r[0]) for r in rows]

    def finished_summaries(self, limit: int = 50) -> list[dict[str, Any]]:
        rows = self._rows(
            "SELECT id, created, updated, settings, seats, result FROM games"
            " WHERE status = 'finished' ORDER BY updated DESC LIMIT %s",
            (limit,),
        )
        return [finished_summary(*r) for r in rows]

    # ------------------------------------------------------------ custom courses
    def add_custom_course(self, course: StoredCourse, per_address: int, total: int) -> str | None:
        """See :meth:`GameStore.add_custom_course`; an advisory lock makes the counts and the
        insert one step for every process."""
        refusal: list[str] = []

        def work(cur: psycopg.Cursor[Any]) -> None:
            cur.execute("SELECT pg_advisory_xact_lock(%s)", (CUSTOM_COURSE_LOCK,))
            cur.execute("SELECT 1 FROM custom_courses WHERE id = %s", (course.id,))
            if cur.fetchone() is not None:
                refusal.append("id")
                return
            cur.execute(
                "SELECT COUNT(*) FROM custom_courses WHERE address = %s AND deleted IS NULL",
                (course.address,),
            )
            row = cur.fetchone()
            if row is not None and row[0] >= per_address:
                refusal.append("address")
                return
            cur.execute("SELECT COUNT(*) FROM custom_courses WHERE deleted IS NULL")
            row = cur.fetchone()
            if row is not None and row[0] >= total:
                refusal.append("total")
                return
            cur.execute(
                f"INSERT INTO custom_courses ({CUSTOM_COLUMNS}, text)"
                " VALUES (%s, %s, %s, %s, %s, %s, %s, %s)".encode(),
                (
                    course.id,
                    course.created,
                    course.address,
                    course.author,
                    course.listed,
                    course.owner_hash,
                    json.dumps(course.summary),
                    course.text,
                ),
            )

        self._transaction(work)
        return refusal[0] if refusal else None

    def custom_course(self, course_id: str) -> StoredCourse | None:
        row = self._one(
            f"SELECT {CUSTOM_COLUMNS}, text FROM custom_courses WHERE id = %s AND deleted IS NULL",
            (course_id,),
        )
        return None if row is None else stored_course(row, str(row[7]))

    def custom_courses(self, limit: int) -> list[StoredCourse]:
        rows = self._rows(
            f"SELECT {CUSTOM_COLUMNS} FROM custom_courses WHERE listed AND deleted IS NULL"
            " ORDER BY created DESC LIMIT %s",
            (limit,),
        )
        return [stored_course(row) for row in rows]

    def delete_custom_course(self, course_id: str) -> bool:
        done: list[int] = []

        def work(cur: psycopg.Cursor[Any]) -> None:
            cur.execute(
                "UPDATE custom_courses SET text = NULL, deleted = %s"
                " WHERE id = %s AND deleted IS NULL",
                (time.time(), course_id),
            )
            done.append(cur.rowcount)

        self._transaction(work)
        return bool(done and done[0])
