"""``roborally bot SEAT_LINK --bot KIND``: play one seat of a running server with any bot.

The seat link is what the server hands a player: a seat's own link
(``http://HOST:PORT/?game=ID#token=TOKEN``, or the old ``?game=ID&token=TOKEN`` form) or its
one-time invite link (``#invite=CODE``, the create response's ``seats[].url``: the command then
prints the seat's own link, the way back to it); the bot is a
built-in kind (``random``, ``planner``, ``expert``, the levels ...) or ``module:Class`` for a
class importable from anywhere on ``PYTHONPATH`` (it is called with ``--seed``). The command
connects as the web page does (``docs/protocol.md`` section 4), says it is ready in the lobby,
answers every decision of its seat, comes back with a growing pause (up to 5 s) when the
connection drops, and prints the result when the game is over (exit status 0). Problems are
one line on stderr: a bad link or bot (status 2), a server that cannot be reached or that
turns the link away (status 1).
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from collections.abc import Coroutine
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, TypeVar
from urllib.parse import parse_qs, quote, urlsplit

from roborally.bots.base import Bot
from roborally.extras import require

PROG = "roborally bot"
T = TypeVar("T")


@dataclass(frozen=True)
class SeatLink:
    """What a seat link names: the game's WebSocket address, the game, and the seat's token
    or its invite."""

    ws_url: str
    game_id: str
    token: str | None
    invite: str | None = None


def parse_seat_link(link: str) -> SeatLink:
    """The WebSocket address, game and token of a seat link (:class:`ValueError` if it is not
    one).

    >>> parse_seat_link("https://rally.example.org/?game=k3JX#token=Qm9i").ws_url
    'wss://rally.example.org/ws/k3JX'
    >>> parse_seat_link("http://127.0.0.1:8000/?game=k3JX&token=Qm9i").token
    'Qm9i'
    >>> parse_seat_link("http://127.0.0.1:8000/?game=k3JX#invite=aW52").invite
    'aW52'
    """
    parts = urlsplit(link.strip())
    schemes = {"http": "ws", "https": "wss", "ws": "ws", "wss": "wss"}
    if parts.scheme not in schemes or not parts.netloc:
        raise ValueError(
            f"not a seat link: {link!r} (expected http://HOST:PORT/?game=ID#token=TOKEN,"
            " as the server gives each player)"
        )
    query = parse_qs(parts.query)
    fragment = parse_qs(parts.fragment)
    game = (query.get("game") or [""])[0]
    if not game and parts.path.startswith("/ws/"):  # a WebSocket address with #token=
        game = parts.path[len("/ws/") :]
    token = (fragment.get("token") or query.get("token") or [""])[0]
    invite = (fragment.get("invite") or [""])[0]
    if not game:
        raise ValueError(f"the link names no game (no ?game=ID): {link!r}")
    if not token and not invite:
        raise ValueError(
            f"the link has no seat token or invite (#token=... or #invite=...): {link!r} is a"
            " spectator's link; use the seat's own link or its invite link"
        )
    ws_url = f"{schemes[parts.scheme]}://{parts.netloc}/ws/{quote(game, safe='')}"
    return SeatLink(ws_url, game, token or None, None if token else invite)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("link", metavar="SEAT_LINK", help="the seat's link from the server")
    parser.add_argument(
        "--bot",
        default="planner",
        help="a bot kind (random, planner, expert, ...) or module:Class (default: planner)",
    )
    parser.add_argument("--seed", type=int, default=1, help="the bot's seed (default 1)")
    parser.add_argument("--name", help="the seat's name, taken in the lobby only")
    parser.add_argument(
        "--retries",
        type=int,
        default=8,
        help="connection attempts in a row before giving up (default 8, about 20 s)",
    )
    parser.add_argument("-q", "--quiet", action="store_true", help="print only the result")


def _fail(message: str) -> None:
    print(f"{PROG}: {' '.join(message.split())}", file=sys.stderr)


def make_bot(kind: str, seed: int) -> Bot:
    """The bot, or :class:`ValueError` with a one-line reason."""
    from roborally.bots.tournament import make

    return make(kind, seed)


def run(args: argparse.Namespace) -> int:
    try:
        link = parse_seat_link(args.link)
    except ValueError as error:
        _fail(str(error))
        return 2
    try:
        bot = make_bot(args.bot, args.seed)
    except ValueError as error:
        _fail(str(error))
        return 2
    require("websockets", "server", "a bot playing on a server")  # one line from main()
    from roborally.server.client import Refused, RemotePlayer

    def status(text: str) -> None:
        if not args.quiet:
            print(f"{PROG}: {text}", file=sys.stderr, flush=True)

    player: RemotePlayer

    def seat_status(text: str) -> None:
        status(text)
        if text.startswith("took seat") and player.token is not None:  # say how to come back
            back = urlsplit(args.link.strip())._replace(fragment=f"token={player.token}")
            print(f"{PROG}: this seat's own link (to come back): {back.geturl()}", file=sys.stderr)

    player = RemotePlayer(
        link.ws_url,
        link.token,
        bot=bot,
        name=args.name,
        reconnect=max(0, args.retries),
        on_status=seat_status,
        invite=link.invite,
    )
    try:
        result = run_to_end(player.run(timeout=None))
    except Refused as error:
        _fail(refusal(error.code, error.message, link))
        return 1
    except ConnectionError as error:
        _fail(f"cannot reach the server at {link.ws_url}: {error}")
        return 1
    except KeyboardInterrupt:
        _fail("stopped")
        return 130
    outcome: dict[str, Any] = result.outcome or {}
    seat = result.seat
    place = ""
    standings = outcome.get("standings") or []
    if seat is not None and seat in standings:
        place = f"; seat {seat} ({args.bot}) placed {standings.index(seat) + 1} of {len(standings)}"
    print(f"game {link.game_id} over: {outcome.get('result', 'no result')}{place}")
    if result.bot_failures:
        print(
            f"the bot failed {len(result.bot_failures)} time(s) (answered with the default);"
            f" first: {result.bot_failures[0]}"
        )
    return 0


def run_to_end(job: Coroutine[Any, Any, T]) -> T:
    """Run ``job`` on an event loop of its own. Called from code that already runs one in this
    thread (a notebook, a test harness driving a browser), it runs on a thread of its own, as
    ``asyncio.run`` refuses to start a second loop in a thread."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(job)
    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(asyncio.run, job).result()


def refusal(code: str, message: str, link: SeatLink) -> str:
    """A refused link in plain words."""
    if code in ("unknown_game", "4404"):
        return f"the server has no game {link.game_id!r} (finished long ago, or a wrong link)"
    if code == "invite_used":
        return f"the invite was used already: its seat of game {link.game_id!r} is taken"
    if code == "bad_invite":
        return f"the invite is not valid in game {link.game_id!r}; ask the host for the new one"
    if code == "signed_out":
        return "the seat's holder closed this connection from another device"
    if code in ("bad_token", "4401"):
        return f"the link's token is not a seat of game {link.game_id!r} (a wrong or old link)"
    if code in ("replaced", "4409"):
        return "the seat was opened somewhere else (another tab or bot); not coming back"
    return f"the server refused the seat: {message}"
