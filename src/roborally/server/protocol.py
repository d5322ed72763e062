"""Wire protocol version 1: limits, error codes, and validation of client messages.

See ``docs/protocol.md``. Every client message is checked here before it reaches a game room;
anything that does not fit raises :class:`ProtocolError`, which becomes an ``error`` reply.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from roborally.server import names
from roborally.server.rulesets import PROTOCOL_VERSION

MAX_MESSAGE_BYTES = 65_536  # the default of ServerOptions.message_bytes
MAX_REF_CHARS = 64
NAME_MAX = names.NAME_MAX

CLIENT_TYPES = (
    "hello",
    "ready",
    "start",
    "decide",
    "draft",
    "sync",
    "ping",
    "back",
    "shown",
    "preset",
    "preview",
    "chat",
    "emote",
    "rematch",
    "invite",
    "close_others",
)

# Close codes (4000-4999 are free for applications).
CLOSE_BAD_REQUEST = 4400  # a token in the URL
CLOSE_BAD_TOKEN = 4401
CLOSE_UNKNOWN_GAME = 4404
CLOSE_TOO_SLOW = 4408  # the client did not read its messages
CLOSE_REPLACED = 4409  # the same seat connected once too often; the oldest socket goes
CLOSE_HELLO_TIMEOUT = 4410  # no 'hello' in time
CLOSE_TOO_MANY = 4429  # too many sockets from one address


class ProtocolError(Exception):
    """A refused message: ``code`` (docs/protocol.md 2.4) and a human-readable message;
    ``retry_after``: the seconds until the same message would be taken (0: not a question of
    time)."""

    def __init__(
        self, code: str, message: str, ref: str | int | None = None, retry_after: int = 0
    ) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.ref = ref
        self.retry_after = retry_after


@dataclass(frozen=True)
class ClientMessage:
    type: str
    data: dict[str, Any]
    ref: str | int | None


def _ref_of(data: dict[str, Any]) -> str | int | None:
    ref = data.get("id")
    if isinstance(ref, bool):
        return None
    if isinstance(ref, int) and abs(ref) < 2**53:
        return ref
    if isinstance(ref, str) and len(ref) <= MAX_REF_CHARS:
        return ref
    return None


def _lone_surrogate(value: Any) -> bool:
    """Whether a decoded JSON value holds a string with an unpaired UTF-16 surrogate
    (``"\\ud800"`` is valid JSON but not text; echoing it back would break the socket)."""
    if isinstance(value, str):
        return not value.isascii() and _SURROGATE.search(value) is not None
    if isinstance(value, list):
        return any(_lone_surrogate(v) for v in value)
    if isinstance(value, dict):
        return any(_lone_surrogate(k) or _lone_surrogate(v) for k, v in value.items())
    return False


_SURROGATE = re.compile("[\ud800-\udfff]")


def decode_frame(data: bytes) -> str:
    """A binary frame (or a text frame that was not UTF-8) as text, or ``bad_text``."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise ProtocolError(
            "bad_text", f"the message is not valid UTF-8 text (byte {error.start})"
        ) from None


def parse_message(text: str, limit: int = MAX_MESSAGE_BYTES) -> ClientMessage:
    """Parse and check the envelope of one client message (size, JSON, text, ``type``, ``v``).

    A refused message raises :class:`ProtocolError`; its ``ref`` is set when the message had a
    usable ``id``.
    """
    if len(text) > limit or len(text.encode("utf-8", "replace")) > limit:
        raise ProtocolError("too_large", f"messages are limited to {limit} bytes")
    try:
        data = json.loads(text)
    except (ValueError, RecursionError) as error:  # JSONDecodeError, huge numbers, nesting
        raise ProtocolError("bad_json", f"not valid JSON: {error}") from None
    if not isinstance(data, dict):
        raise ProtocolError("bad_message", "a message is a JSON object")
    ref = _ref_of(data)
    if _lone_surrogate(data):
        raise ProtocolError(
            "bad_text",
            "the message holds a lone UTF-16 surrogate (such as \\ud800), which is not text",
            None if _lone_surrogate(ref) else ref,
        )
    kind = data.get("type")
    if not isinstance(kind, str):
        raise ProtocolError("bad_message", "the message has no 'type' string", ref)
    if data.get("v") != PROTOCOL_VERSION or isinstance(data.get("v"), bool):
        raise ProtocolError(
            "bad_version", f"'v' must be {PROTOCOL_VERSION} (got {data.get('v')!r})", ref
        )
    if kind not in CLIENT_TYPES:
        shown = kind if len(kind) <= 40 else kind[:40] + "..."
        raise ProtocolError(
            "unknown_type",
            f"unknown message type {shown!r} (known: {', '.join(CLIENT_TYPES)})",
            ref,
        )
    return ClientMessage(kind, data, ref)


def field_str(data: dict[str, Any], key: str, *, max_len: int = 200) -> str:
    value = data.get(key)
    if not isinstance(value, str) or not value or len(value) > max_len:
        raise ProtocolError("bad_message", f"'{key}' must be a non-empty string")
    return value


def field_bool(data: dict[str, Any], key: str, default: bool) -> bool:
    value = data.get(key, default)
    if not isinstance(value, bool):
        raise ProtocolError("bad_message", f"'{key}' must be true or false")
    return value


def field_index(data: dict[str, Any], key: str) -> int | None:
    value = data.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ProtocolError("bad_message", f"'{key}' must be a whole number >= 0")
    return value


def clean_name(value: Any) -> str:
    """A player name fit for the record (names.py: 1-20 visible characters in NFC, no commas,
    no invisible characters, no towers of accents); ``bad_name`` with the reason if not."""
    try:
        return names.clean(value)
    except names.BadName as error:
        raise ProtocolError("bad_name", str(error)) from None


def same_name(a: str, b: str) -> bool:
    """Whether two player names look the same to a reader: case, spacing, width and look-alike
    letters of other scripts aside (their UTS #39 confusable skeletons are equal; names.py)."""
    return names.look_alike(a, b)


def message(kind: str, **fields: Any) -> dict[str, Any]:
    return {"type": kind, "v": PROTOCOL_VERSION, **fields}


def error_message(
    code: str, text: str, ref: str | int | None = None, for_type: str | None = None
) -> dict[str, Any]:
    return message("error", code=code, message=text, ref=ref, **{"for": for_type})
