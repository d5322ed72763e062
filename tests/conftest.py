"""Settings for every test."""

from __future__ import annotations

import pytest

from roborally.cli import env_language


@pytest.fixture(autouse=True)
def _english_command_line(monkeypatch: pytest.MonkeyPatch) -> None:
    """The command line's log speaks the language LC_ALL or LANG names (``roborally play
    --lang``); the tests read its English, whatever the machine's locale."""
    if env_language() != "en":
        monkeypatch.delenv("LC_ALL", raising=False)
        monkeypatch.setenv("LANG", "C.UTF-8")
