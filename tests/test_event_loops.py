"""The browser tests run first in a session, and Playwright's sync API keeps an event loop on
the main thread: a later test that starts its own loop there fails, but only in the whole
suite (``make test``), never alone. Tests run their coroutines with
``tests/server/conftest.py``'s ``run_fresh_loop`` (a fresh thread) instead."""

from __future__ import annotations

from pathlib import Path

TESTS = Path(__file__).parent
MAIN_THREAD_LOOP = "asyncio" + ".run("  # spelled apart so this file does not match itself


def test_no_test_starts_an_event_loop_on_the_main_thread() -> None:
    offenders = [
        str(path.relative_to(TESTS))
        for path in sorted(TESTS.rglob("*.py"))
        if path.name != "conftest.py" and MAIN_THREAD_LOOP in path.read_text(encoding="utf-8")
    ]
    assert offenders == [], f"use run_fresh_loop (tests/server/conftest.py) in {offenders}"
