"""The real Redis and PostgreSQL the scale-out tests use start, answer and keep data."""

from __future__ import annotations

import psycopg
import redis


def test_redis_answers(redis_url: str) -> None:
    client = redis.Redis.from_url(redis_url)
    try:
        client.set("roborally:probe", "1")
        assert client.get("roborally:probe") == b"1"
        client.delete("roborally:probe")
    finally:
        client.close()


def test_postgres_answers(postgres_url: str) -> None:
    with psycopg.connect(postgres_url, autocommit=True) as conn:
        conn.execute("CREATE TABLE IF NOT EXISTS probe (n integer)")
        conn.execute("INSERT INTO probe VALUES (7)")
        row = conn.execute("SELECT sum(n) FROM probe").fetchone()
        assert row is not None and row[0] >= 7
        conn.execute("DROP TABLE probe")
