"""The error of a malformed scenario file (:mod:`roborally.content.scenario` re-exports it).

Its own module so that both scenario readers, the core and the classic one, can raise it
without importing each other.
"""

from __future__ import annotations


class ScenarioError(ValueError):
    """A malformed scenario file; ``str()`` is ``file:line:column: message``."""

    def __init__(self, filename: str, line: int, column: int, message: str) -> None:
        self.filename, self.line, self.column, self.message = filename, line, column, message
        super().__init__(f"{filename}:{line}:{column}: {message}")
