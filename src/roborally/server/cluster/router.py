"""ASGI middleware for scale-out mode: a call of the HTTP API about one game
(``/api/games/<id>/...``) is answered by the game's owner.

When this process owns the game, or nobody does and this process takes it, or the game is over
(a finished game is read from the database anywhere), the call goes on to this process's own
app. When another process owns it, the call is sent to that process as it came (method, path,
headers, body, the client's address) and its answer is given back as it is: every rule of the
API (tokens, limits, error messages) is the owner's, the same as in a single server.
"""

from __future__ import annotations

import base64
import json
import logging
import re
from typing import TYPE_CHECKING, Any

from roborally.server.cluster.node import FORWARDED
from roborally.server.rulesets import PROTOCOL_VERSION

if TYPE_CHECKING:
    from starlette.types import ASGIApp, Receive, Scope, Send

    from roborally.server.app import GameServer

log = logging.getLogger("roborally.server")

GAME_PATH = re.compile(r"/api/games/([A-Za-z0-9_-]{1,32})(?:/.*)?")
TRIES = 3


class ClusterRouter:
    def __init__(self, app: ASGIApp, server: GameServer) -> None:
        self.app = app
        self.server = server

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        node = self.server.cluster
        found = GAME_PATH.fullmatch(scope["path"]) if scope["type"] == "http" else None
        if node is None or found is None or scope.get(FORWARDED):
            await self.app(scope, receive, send)
            return
        game_id = found.group(1)
        body: bytes | None = None
        for _ in range(TRIES):
            route = await node.route(game_id, socket=False)
            if route.owner is None:
                break
            if body is None:
                body = await _read(receive, self.server.options.message_bytes)
                if body is None:
                    await _reply(send, 413, "too_large", "the request is too large")
                    return
            reply = await node.forward_http(route.owner, game_id, dict(scope), body)
            if reply is not None:
                await send(
                    {
                        "type": "http.response.start",
                        "status": reply["status"],
                        "headers": [
                            (k.encode("latin-1"), v.encode("latin-1")) for k, v in reply["headers"]
                        ],
                    }
                )
                await send({"type": "http.response.body", "body": base64.b64decode(reply["body"])})
                return
        else:
            await _reply(send, 503, "moving", "this game is moving to another server; try again")
            return
        if body is not None:  # the body was read already: give it to the app again
            receive = _replay(body)
        await self.app(scope, receive, send)


async def _read(receive: Receive, limit: int) -> bytes | None:
    chunks: list[bytes] = []
    size = 0
    while True:
        message = await receive()
        if message["type"] != "http.request":
            break
        chunk = message.get("body", b"")
        size += len(chunk)
        if size > limit:
            return None
        chunks.append(chunk)
        if not message.get("more_body", False):
            break
    return b"".join(chunks)


def _replay(body: bytes) -> Receive:
    done = False

    async def receive() -> Any:
        nonlocal done
        if not done:
            done = True
            return {"type": "http.request", "body": body, "more_body": False}
        return {"type": "http.disconnect"}

    return receive


async def _reply(send: Send, status: int, code: str, text: str) -> None:
    body = json.dumps({"v": PROTOCOL_VERSION, "error": {"code": code, "message": text}}).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    if status == 503:
        headers.append((b"retry-after", b"1"))
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})
