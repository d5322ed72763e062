"""Wire protocol version 1: limits, error codes, and validation of client messages.

See ``docs/protocol.md``. Every client message is checked here before it reaches a game room;
anything that does not fit raises :class:`ProtocolError`, which becomes an ``error`` reply.
"""

from __future__ import annotations

import json
import re
import unicodedata
from dataclasses import dataclass
from typing import Any

from roborally.server.rulesets import PROTOCOL_VERSION

MAX_MESSAGE_BYTES = 65_536
MAX_REF_CHARS = 64
NAME_MAX = 20

CLIENT_TYPES = ("hello", "ready", "start", "decide", "draft", "sync", "ping")

# Close codes (4000-4999 are free for applications).
CLOSE_BAD_TOKEN = 4401
CLOSE_UNKNOWN_GAME = 4404
CLOSE_TOO_SLOW = 4408


class ProtocolError(Exception):
    """A refused message: ``code`` (docs/protocol.md 2.4) and a human-readable message."""

    def __init__(self, code: str, message: str, ref: str | int | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.ref = ref


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


def parse_message(text: str) -> ClientMessage:
    """Parse and check the envelope of one client message (size, JSON, ``type``, ``v``).

    A refused message raises :class:`ProtocolError`; its ``ref`` is set when the message had a
    usable ``id``.
    """
    if len(text) > MAX_MESSAGE_BYTES or len(text.encode("utf-8")) > MAX_MESSAGE_BYTES:
        raise ProtocolError("too_large", f"messages are limited to {MAX_MESSAGE_BYTES} bytes")
    try:
        data = json.loads(text)
    except (ValueError, RecursionError) as error:  # JSONDecodeError, huge numbers, nesting
        raise ProtocolError("bad_json", f"not valid JSON: {error}") from None
    if not isinstance(data, dict):
        raise ProtocolError("bad_message", "a message is a JSON object")
    ref = _ref_of(data)
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


_SPACES = re.compile(r"\s+")


def clean_name(value: Any) -> str:
    """A player name fit for the record: 1-20 printable characters, no commas."""
    if not isinstance(value, str):
        raise ProtocolError("bad_name", "a name is a string")
    name = _SPACES.sub(" ", value).strip()
    if not 1 <= len(name) <= NAME_MAX:
        raise ProtocolError("bad_name", f"a name has 1 to {NAME_MAX} characters")
    if "," in name or any(unicodedata.category(c)[0] == "C" for c in name):
        raise ProtocolError("bad_name", "a name may not hold commas or control characters")
    return name


def to_json_value(value: Any) -> Any:
    """Engine values (tuples) as JSON values (lists)."""
    if isinstance(value, tuple | list):
        return [to_json_value(v) for v in value]
    return value


def message(kind: str, **fields: Any) -> dict[str, Any]:
    return {"type": kind, "v": PROTOCOL_VERSION, **fields}


def error_message(
    code: str, text: str, ref: str | int | None = None, for_type: str | None = None
) -> dict[str, Any]:
    return message("error", code=code, message=text, ref=ref, **{"for": for_type})
