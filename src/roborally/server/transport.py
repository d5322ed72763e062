"""What the server adds to uvicorn's WebSocket transport and logs.

* :class:`GameWebSocketProtocol` (uvicorn's sans-I/O WebSocket protocol, two changes): a text
  frame that is not valid UTF-8 reaches the app as bytes, so it gets a ``bad_text`` error reply
  and the socket keeps working (instead of the connection failing); and the app can cut a
  connection at once (``scope["roborally.abort"]``), which a client that never reads needs:
  a polite close would wait behind the unread data for ever.
* :class:`RedactTokens`: a log filter that hides seat and host tokens in any logged URL (a
  client that still puts ``?token=`` in its WebSocket URL must not put it in the log).
"""

from __future__ import annotations

import logging
import re
from typing import Any

from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol

ABORT_KEY = "roborally.abort"


class GameWebSocketProtocol(WebSocketsSansIOProtocol):
    """uvicorn's WebSocket protocol, forgiving invalid UTF-8 and able to abort."""

    def handle_connect(self, event: Any) -> None:
        super().handle_connect(event)
        scope = getattr(self, "scope", None)
        if scope is not None:
            scope[ABORT_KEY] = self.abort

    def abort(self) -> None:
        if not self.transport.is_closing():
            self.transport.abort()

    def send_receive_event_to_app(self) -> None:
        if self.curr_msg_data_type == "text":
            data = b"".join(self.frames)
            try:
                data.decode("utf-8")
            except UnicodeDecodeError:
                self.curr_msg_data_type = "bytes"  # the app answers 'bad_text'
            self.frames = [data]
        super().send_receive_event_to_app()


_TOKEN = re.compile(r"((?:^|[?&#])(?:token|host_token)=)[^&\s\"']+")


def redact(text: str) -> str:
    """``text`` with the value of every ``token=`` / ``host_token=`` parameter hidden.

    >>> redact('"WebSocket /ws/abc?token=s3cr3t&x=1" [accepted]')
    '"WebSocket /ws/abc?token=[hidden]&x=1" [accepted]'
    """
    return _TOKEN.sub(r"\1[hidden]", text)


class RedactTokens(logging.Filter):
    """Hide tokens in every log record's message and arguments."""

    def filter(self, record: logging.LogRecord) -> bool:
        if isinstance(record.msg, str):
            record.msg = redact(record.msg)
        if isinstance(record.args, tuple):
            record.args = tuple(redact(a) if isinstance(a, str) else a for a in record.args)
        return True


def install_log_redaction() -> None:
    """Put :class:`RedactTokens` on the server's and uvicorn's loggers."""
    for name in ("uvicorn", "uvicorn.error", "uvicorn.access", "roborally.server"):
        logger = logging.getLogger(name)
        if not any(isinstance(f, RedactTokens) for f in logger.filters):
            logger.addFilter(RedactTokens())
