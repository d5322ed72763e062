"""The tabletop mode's seat codes (docs/web-client.md, "Tabletop mode").

One shared screen shows the board; every player joins on a phone by scanning the QR code of a
seat's link. The shared screen is the browser that created the game: it holds every seat's
invite and the host token (from the create response) and watches the game as a spectator, so
no hand is ever sent to it. It asks the server for each code (the route is the server's,
``app.api_seat_qr``):

``POST /api/games/{game_id}/seats/{seat}/qr`` with ``{"invite": CODE}``: the QR code of that
seat's invite link (``/?game=ID#invite=CODE``, on the address the players' phones reach, as in
the create response) as an SVG picture. The invite travels in the body, never in a URL, and
must be that seat's current one: only whoever holds a seat's invite gets its code. The answer is
never cached, and its ``X-Link-Reach`` header says who can open the link in the code
(:func:`link_reach`), so the shared screen can warn when no phone can.
"""

from __future__ import annotations

import io
import ipaddress
from urllib.parse import urlsplit

#: ``X-Link-Reach``: the link opens on other machines too (a network address or a public name).
NETWORK = "network"
#: The link names this machine's loopback and the server listens only there (``make play``).
LOOPBACK = "loopback"
#: The link names the loopback although the server listens on the network: this machine has
#: no network address to put in links (no Wi-Fi or cable), and no ``--public-url`` gives one.
NO_LAN = "no-lan"


def link_reach(base: str, listening_wide: bool) -> str:
    """Who can open links that start with ``base``: :data:`NETWORK`, :data:`LOOPBACK` or
    :data:`NO_LAN`. Decided from the link itself (the server builds it), not from the address
    the shared screen was opened at: ``localhost`` there may still give network links."""
    if not is_loopback(base):
        return NETWORK
    return NO_LAN if listening_wide else LOOPBACK


def is_loopback(base: str) -> bool:
    """Whether the host of the URL ``base`` means "this machine" to whoever opens it: a phone
    that opens such a link looks for the game on the phone itself."""
    host = (urlsplit(base).hostname or "").lower()
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        address = ipaddress.ip_address(host)
    except ValueError:  # a name: resolved by the phone, through its own network
        return False
    return address.is_loopback or address.is_unspecified


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
