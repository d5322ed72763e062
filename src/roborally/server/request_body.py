"""Reading a request's JSON body as hostile input: refused by its declared size before
anything is read, and cut off as soon as a body without a declared size grows past the limit."""

from __future__ import annotations

import json
from typing import Any

from starlette.requests import ClientDisconnect, Request

from roborally.server.api_error import ApiError


async def json_object(request: Request, limit: int, *, empty: bool = False) -> dict[str, Any]:
    """The JSON object of the body, at most ``limit`` bytes (``413 too_large`` past it, and the
    connection closed: the rest is never read). ``empty``: an empty body is ``{}``."""
    too_large = ApiError(413, "too_large", f"requests are limited to {limit} bytes", close=True)
    declared = request.headers.get("content-length")
    if declared is not None:
        if not declared.isdigit():
            raise ApiError(400, "bad_request", "the Content-Length header is not a number")
        if int(declared) > limit:
            raise too_large
    chunks: list[bytes] = []
    size = 0
    try:
        async for chunk in request.stream():
            size += len(chunk)
            if size > limit:
                raise too_large
            chunks.append(chunk)
    except ClientDisconnect:
        raise ApiError(400, "bad_request", "the request body was cut off") from None
    raw = b"".join(chunks)
    if empty and not raw.strip():
        return {}
    try:
        data = json.loads(raw)
    except (ValueError, RecursionError):
        raise ApiError(400, "bad_json", "the body is not valid JSON") from None
    if not isinstance(data, dict):
        raise ApiError(400, "bad_request", "the body must be a JSON object")
    return data
