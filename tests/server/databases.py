"""A fresh PostgreSQL database per test on the session's server (``postgres_url``)."""

from __future__ import annotations

import contextlib
import secrets
from collections.abc import Iterator
from urllib.parse import urlsplit, urlunsplit

import psycopg


def with_database(url: str, name: str) -> str:
    """``url`` naming another database on the same server."""
    parts = urlsplit(url)
    return urlunsplit((parts.scheme, parts.netloc, "/" + name, parts.query, ""))


@contextlib.contextmanager
def fresh_database(admin_url: str) -> Iterator[str]:
    """A new, empty database (its URL), dropped afterwards with whatever still uses it."""
    name = "test_" + secrets.token_hex(6)
    with psycopg.connect(admin_url, autocommit=True) as admin:
        admin.execute(f'CREATE DATABASE "{name}"'.encode())
    try:
        yield with_database(admin_url, name)
    finally:
        with psycopg.connect(admin_url, autocommit=True) as admin:
            admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'.encode())
