"""The error of a refused HTTP API request (and of what refuses like one: too many games)."""

from __future__ import annotations


class ApiError(Exception):
    """A refused request. ``close`` ends the connection after the answer (a body the server
    will not read is then not read at all)."""

    def __init__(
        self, status: int, code: str, message: str, retry_after: int = 0, close: bool = False
    ) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.retry_after = retry_after
        self.close = close
