"""The store a ``roborally serve --database`` URL names (docs/server.md "Storage")."""

from __future__ import annotations

from roborally.extras import require
from roborally.server.store import GameStore, safe_url

SCHEMES = ("postgresql://", "postgres://")


def check_url(url: str) -> None:
    """A :class:`ValueError` naming the problem if ``url`` is no ``--database`` URL, and a
    :class:`~roborally.extras.MissingExtra` if the packages it needs are missing."""
    if not url.startswith(SCHEMES):
        raise ValueError(
            f"--database takes a postgresql:// URL (got {safe_url(url)!r}); leave it out to"
            " keep the games in SQLite in the data directory"
        )
    require("psycopg", "scale", "PostgreSQL storage (--database)")


def open_database(url: str, busy_seconds: float = 2.0) -> GameStore:
    """The store a ``--database`` URL names: ``postgresql://...`` (or ``postgres://``) is
    PostgreSQL; anything else is a :class:`ValueError` naming the problem."""
    check_url(url)
    from roborally.server.store_postgres import PostgresStore

    return PostgresStore(url, busy_seconds)
