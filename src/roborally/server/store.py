"""Persistence: one SQLite file under the data directory holds every game.

A game is its settings (seed, options, seats) plus the ordered list of actions applied: the same
causes a game record holds, so replaying them reproduces the game exactly. The finished game's
record text is kept too, for export. Seat and host tokens are stored only as SHA-256 hashes.
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

SCHEMA_VERSION = "1"
DB_NAME = "roborally.sqlite3"

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
"""


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


class Store:
    """A small synchronous store; calls are short (WAL mode, no fsync per commit)."""

    def __init__(self, path: str | Path) -> None:
        self.path = str(path)
        self.db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("PRAGMA synchronous=NORMAL")
        self.db.executescript(_SCHEMA)
        row = self.db.execute("SELECT value FROM meta WHERE key='schema'").fetchone()
        if row is None:
            self.db.execute("INSERT INTO meta VALUES ('schema', ?)", (SCHEMA_VERSION,))
        elif row[0] != SCHEMA_VERSION:
            raise RuntimeError(f"{self.path}: schema {row[0]!r}, this server has {SCHEMA_VERSION}")

    @classmethod
    def in_dir(cls, data_dir: str | Path) -> Store:
        directory = Path(data_dir)
        directory.mkdir(parents=True, exist_ok=True)
        return cls(directory / DB_NAME)

    def close(self) -> None:
        self.db.close()

    # ------------------------------------------------------------ writes
    def create_game(
        self,
        game_id: str,
        settings: dict[str, Any],
        seats: list[dict[str, Any]],
        host_hash: str,
        status: str,
    ) -> None:
        now = time.time()
        self.db.execute(
            "INSERT INTO games (id, created, updated, status, settings, seats, host_hash)"
            " VALUES (?, ?, ?, ?, ?, ?, ?)",
            (game_id, now, now, status, json.dumps(settings), json.dumps(seats), host_hash),
        )

    def update_game(
        self,
        game_id: str,
        *,
        status: str | None = None,
        seats: list[dict[str, Any]] | None = None,
        result: str | None = None,
        record: str | None = None,
    ) -> None:
        sets = ["updated = ?"]
        values: list[Any] = [time.time()]
        for column, value in (
            ("status", status),
            ("seats", None if seats is None else json.dumps(seats)),
            ("result", result),
            ("record", record),
        ):
            if value is not None:
                sets.append(f"{column} = ?")
                values.append(value)
        values.append(game_id)
        self.db.execute(f"UPDATE games SET {', '.join(sets)} WHERE id = ?", values)

    def append_actions(
        self, game_id: str, first: int, rows: Iterable[tuple[str, int, str]]
    ) -> None:
        now = time.time()
        data = [(game_id, first + i, d, s, c, now) for i, (d, s, c) in enumerate(rows)]
        if not data:
            return
        self.db.execute("BEGIN")
        try:
            self.db.executemany(
                "INSERT INTO actions (game_id, n, decision_id, seat, choice, at)"
                " VALUES (?, ?, ?, ?, ?, ?)",
                data,
            )
            self.db.execute("UPDATE games SET updated = ? WHERE id = ?", (now, game_id))
        except BaseException:
            self.db.execute("ROLLBACK")
            raise
        self.db.execute("COMMIT")

    # ------------------------------------------------------------- reads
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
        )

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
        out = []
        for r in rows:
            settings = json.loads(r[3])
            out.append(
                {
                    "game_id": r[0],
                    "status": "finished",
                    "created": r[1],
                    "finished": r[2],
                    "edition": settings.get("edition"),
                    "course": settings.get("course"),
                    "variants": settings.get("variants", []),
                    "seats": [
                        {
                            "seat": i,
                            "name": s.get("name"),
                            "kind": s.get("kind"),
                            "bot": s.get("bot"),
                        }
                        for i, s in enumerate(json.loads(r[4]))
                    ],
                    "result": r[5],
                }
            )
        return out
