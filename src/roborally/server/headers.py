"""Security headers on every HTTP response of the server: the page, its files, the API, the
rules pages and every error (docs/server.md, "Names and headers").

* ``Content-Security-Policy``: the page runs only its own scripts and style sheets, from this
  server; nothing inline (the page sets styles through the CSSOM, ``el.style.x = ...``, which a
  policy without ``'unsafe-inline'`` allows, and the SVG it draws uses presentation attributes,
  not ``style=""``). Pictures may also be ``data:`` and ``blob:`` URLs (the table view shows
  the seats' QR codes as blobs). Connections go to this server only: ``'self'``, and its
  WebSocket origin by name for browsers whose ``'self'`` does not cover ws:/wss: yet (and the
  page's own ``blob:`` URLs, which never leave the browser). No plug-ins, no
  ``<base>``, forms post here only, and no other site may show the page in a frame.
* ``X-Frame-Options: DENY``: the same for browsers that do not know ``frame-ancestors``.
* ``X-Content-Type-Options: nosniff``: a file is what its type says (a record or an uploaded
  name is never run as a script because a browser guessed it was one).
* ``Referrer-Policy: no-referrer``: a link out of the page tells the other site nothing, not
  even the path (``/?game=ID`` names a private game). Seat tokens and invites travel in the
  address's fragment, which is never sent anyway; ``fetch()`` calls still carry ``Origin``.

WebSocket and lifespan scopes pass through untouched.
"""

from __future__ import annotations

import re

from starlette.types import ASGIApp, Message, Receive, Scope, Send

POLICY = (
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data: blob:",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
)
FIXED = {
    "x-content-type-options": "nosniff",
    "x-frame-options": "DENY",
    "referrer-policy": "no-referrer",
}
NAMES = ("content-security-policy", *FIXED)
_RAW = frozenset(name.encode() for name in NAMES)
#: The start of the plain 500 Starlette's error handler would have answered a crash with.
_CRASH_START: Message = {
    "type": "http.response.start",
    "status": 500,
    "headers": [(b"content-type", b"text/plain; charset=utf-8"), (b"content-length", b"21")],
}
#: A Host header fit to name in the policy (a name or address, and a port).
_HOST = re.compile(r"[A-Za-z0-9.-]+(:\d{1,5})?|\[[0-9A-Fa-f:.]+\](:\d{1,5})?")


def content_policy(host: str | None) -> str:
    """The Content-Security-Policy for a request that came to ``host`` (its Host header)."""
    # blob: URLs are made by the page itself (the table's QR pictures) and lead to no server:
    # reading one back with fetch() opens no way out.
    connect = "connect-src 'self' blob:"
    if host and _HOST.fullmatch(host):
        connect += f" ws://{host} wss://{host}"
    return "; ".join((*POLICY, connect))


def _host(scope: Scope) -> str | None:
    for key, value in scope.get("headers", ()):
        if key == b"host":
            return str(value.decode("latin-1"))
    return None


class SecurityHeaders:
    """ASGI middleware: :data:`NAMES` on every HTTP response, replacing any the app set."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        ours = [(k.encode(), v.encode()) for k, v in FIXED.items()]
        ours.append((b"content-security-policy", content_policy(_host(scope)).encode()))
        started = False

        async def with_headers(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
                kept = [(k, v) for k, v in message.get("headers", ()) if k.lower() not in _RAW]
                message = {**message, "headers": kept + ours}
            await send(message)

        try:
            await self.app(scope, receive, with_headers)
        except Exception:
            # Starlette's outermost error handler answers a crash with its own 500, sent past
            # every middleware; this one answers first, with the headers, and the error goes
            # on up to be logged as before.
            if not started:
                await with_headers(_CRASH_START)
                await with_headers({"type": "http.response.body", "body": b"Internal Server Error"})
            raise
