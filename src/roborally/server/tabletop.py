"""The tabletop mode's seat codes (docs/web-client.md, "Tabletop mode").

One shared screen shows the board; every player joins on a phone by scanning the QR code of a
seat's link. The shared screen is the browser that created the game: it holds every seat's
token (from the create response) and watches the game as a spectator, so no hand is ever sent
to it. It asks the server for each code (the route is the server's, ``app.api_seat_qr``):

``POST /api/games/{game_id}/seats/{seat}/qr`` with ``{"token": SEAT_TOKEN}``: the QR code of
that seat's link (``/?game=ID#token=T``, on the address the players' phones reach, as in the
create response) as an SVG picture. The token travels in the body, never in a URL, and must be
that seat's: only whoever holds a seat's link gets its code. The answer is never cached.
"""

from __future__ import annotations

import io


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
