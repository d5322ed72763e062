"""The tabletop mode's seat codes (docs/web-client.md, "Tabletop mode").

One shared screen shows the board; every player joins on a phone by scanning the QR code of a
seat's link. The shared screen is the browser that created the game: it holds every seat's
token (from the create response) and watches the game as a spectator, so no hand is ever sent
to it. It asks the server for each code:

``POST /api/games/{game_id}/seats/{seat}/qr`` with ``{"token": SEAT_TOKEN}``: the QR code of
that seat's link (``/?game=ID#token=T``, on the address the players' phones reach, as in the
create response) as an SVG picture. The token travels in the body, never in a URL, and must be
that seat's: only whoever holds a seat's link gets its code. The answer is never cached.
"""

from __future__ import annotations

import io

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from roborally.server.app import ApiError, _body, _room, _server, invite_url


def qr_svg(text: str) -> str | None:
    """``text`` as a QR code in SVG (black on white, a quiet zone of four modules, sized by
    its viewBox); ``None`` without segno (the server extra installs it)."""
    try:
        import segno
    except ImportError:  # pragma: no cover - segno comes with the server extra
        return None
    code = segno.make(text, error="m", micro=False)
    out = io.BytesIO()
    code.save(out, kind="svg", xmldecl=False, omitsize=True, border=4, dark="#000", light="#fff")
    return out.getvalue().decode("utf-8")


async def seat_qr(request: Request) -> Response:
    room = await _room(request)
    body = await _body(request)
    token = body.get("token")
    try:
        seat = int(request.path_params["seat"])
    except ValueError:
        raise ApiError(404, "unknown_seat", "no such seat") from None
    if not any(s.index == seat and s.human for s in room.seats):
        raise ApiError(404, "unknown_seat", f"seat {seat} is not a player's seat in this game")
    if not isinstance(token, str) or len(token) > 200 or room.seat_for_token(token) != seat:
        raise ApiError(403, "bad_token", "the token is not this seat's")
    svg = qr_svg(invite_url(_server(request).link_base(request), room.id, token))
    if svg is None:  # pragma: no cover - segno comes with the server extra
        raise ApiError(501, "no_qr_codes", "this server cannot draw QR codes (segno is missing)")
    return Response(svg, media_type="image/svg+xml", headers={"Cache-Control": "no-store"})


routes: list[BaseRoute] = [
    Route("/api/games/{game_id}/seats/{seat}/qr", seat_qr, methods=["POST"]),
]
