"""The people at the table: chat, quick emotes and rematches (docs/protocol.md 2.7).

Chat and emotes are talk between the players, not part of the game: a room keeps its last
:data:`CHAT_KEEP` entries in memory (a page that reconnects or comes late gets them in its
``welcome``); they are never stored in the database or the game record, and a server restart
forgets them (in scale-out mode Redis keeps them a while too, so a process that takes a game
over shows its chat: :mod:`roborally.server.cluster.chat`). Seat holders write; spectators
read. Every seat may send :data:`CHAT_BURST` entries at once, then one every
``CHAT_SECONDS / CHAT_BURST`` seconds (its tabs share it).

A rematch is a new game with the same seats (names; bots stay bots), course, edition, variants
and timers, and a new seed. Any seated player of a finished game may ask for it; the first
request creates it and every later one leads to the same game. Each seat of the rematch has a
token made from the token its holder plays the finished game with (:func:`rematch_token`), so
the server never stores a token: the player who holds a seat of the finished game can get to
the same seat of the rematch, now or later, and nobody else (seat tokens are made for their
holders alone: the host of a game never learns an invited player's token).
"""

from __future__ import annotations

import base64
import collections
import hashlib
import hmac
import re
import time
import unicodedata
from typing import TYPE_CHECKING, Any

from roborally.server.limits import Buckets
from roborally.server.protocol import ClientMessage, ProtocolError, message
from roborally.server.store import Store

if TYPE_CHECKING:
    from roborally.server.connection import Connection
    from roborally.server.room import GameRoom, Seat

#: The client messages of this module.
TYPES = ("chat", "emote", "rematch")
CHAT_MAX_CHARS = 300  # after cleaning (whitespace folded, invisible characters removed)
CHAT_RAW_CHARS = 4 * CHAT_MAX_CHARS  # longer is refused before any cleaning
CHAT_KEEP = 50  # entries a room keeps for pages that connect later
CHAT_BURST = 5  # entries a seat may send at once ...
CHAT_SECONDS = 10.0  # ... and again after this long
#: The quick emotes, in the order the page shows them.
EMOTES = ("thumbs_up", "laugh", "wow", "oops", "gg", "good_luck")
COMBINING_RUN = 3  # combining marks kept on one character (no towers of accents)

_SPACES = re.compile(r"\s+")
_KEPT_FORMAT = {"\u200c", "\u200d"}  # joiners: emoji sequences and some scripts need them


def _kept(char: str) -> bool:
    """Whether a character may stay in a chat text: no control, private-use, unassigned or
    invisible formatting characters (bidirectional overrides could disguise a message), except
    the joiners and the tag characters that emoji flags are made of."""
    category = unicodedata.category(char)
    if category == "Cf":
        return char in _KEPT_FORMAT or "\U000e0020" <= char <= "\U000e007f"
    return category[0] != "C"


def clean_chat(value: Any) -> str:
    """A chat text fit to show: one line of at most :data:`CHAT_MAX_CHARS` characters.

    Runs of whitespace (new lines included) become one space, invisible and control characters
    go, and a character keeps at most :data:`COMBINING_RUN` combining marks. Refusals:
    ``chat_empty``, ``chat_too_long`` (never cut short: the player gets it back to shorten)."""
    if not isinstance(value, str):
        raise ProtocolError("bad_message", "'text' must be a string")
    if len(value) > CHAT_RAW_CHARS:
        raise ProtocolError(
            "chat_too_long", f"a chat message has at most {CHAT_MAX_CHARS} characters"
        )
    text = _SPACES.sub(" ", unicodedata.normalize("NFC", value))
    kept: list[str] = []
    marks = 0
    for char in text:
        if not _kept(char):
            continue
        if unicodedata.combining(char):
            marks += 1
            if marks > COMBINING_RUN:
                continue
        else:
            marks = 0
        kept.append(char)
    text = _SPACES.sub(" ", "".join(kept)).strip()
    if not text:
        raise ProtocolError("chat_empty", "the message is empty")
    if len(text) > CHAT_MAX_CHARS:
        raise ProtocolError(
            "chat_too_long",
            f"a chat message has at most {CHAT_MAX_CHARS} characters (this one has {len(text)})",
        )
    return text


def rematch_token(token: str, rematch_id: str) -> str:
    """The token of a seat in the rematch ``rematch_id``, made from the token of the same seat
    in the finished game (only that seat's holder can make it; the server keeps no token)."""
    digest = hmac.new(
        token.encode("utf-8", "surrogatepass"),
        b"roborally rematch " + rematch_id.encode("ascii"),
        hashlib.sha256,
    ).digest()
    return base64.urlsafe_b64encode(digest[:18]).decode("ascii")


def seat_path(game_id: str, token: str | None = None) -> str:
    """The page's link to a game (relative to the server): a seat's, or a spectator's."""
    return f"/?game={game_id}" + (f"#token={token}" if token else "")


def invite_path(game_id: str, code: str) -> str:
    """A seat's invite link (relative to the server): the first to open it gets the seat."""
    return f"/?game={game_id}#invite={code}"


class RoomTalk:
    """A room's chat: the last entries, the seats' budgets, and its rematch (once known)."""

    def __init__(self) -> None:
        self.entries: collections.deque[dict[str, Any]] = collections.deque(maxlen=CHAT_KEEP)
        self.count = 0
        self.budget = Buckets(CHAT_BURST / CHAT_SECONDS, CHAT_BURST)
        self.rematch: str | None = None
        self.looked_up = False  # the store was asked for this game's rematch

    def welcome(self, conn: Connection) -> dict[str, Any]:
        """What a ``welcome`` says of the chat and the rematch."""
        return {
            "chat": {
                "messages": list(self.entries),
                "max_chars": CHAT_MAX_CHARS,
                "emotes": list(EMOTES),
                "can_write": conn.seat is not None,
            },
            "rematch": self.rematch,
        }

    def restore(self, entries: list[dict[str, Any]]) -> None:
        """Take the entries said before (scale-out mode: the room was taken over from
        another process); new entries go on numbering after them."""
        ordered = sorted(entries, key=lambda e: e["n"])[-CHAT_KEEP:]
        self.entries.clear()
        self.entries.extend(ordered)
        self.count = max([self.count, *(e["n"] for e in ordered)])

    def spend(self, seat: int) -> None:
        wait = self.budget.take(str(seat))
        if wait:
            seconds = max(1, round(wait + 0.49))
            raise ProtocolError(
                "chat_too_fast",
                f"a seat may send {CHAT_BURST} chat messages or emotes in {CHAT_SECONDS:g} s;"
                f" try again in {seconds} s",
                retry_after=seconds,
            )

    def add(self, room: GameRoom, seat: Seat, **content: str) -> None:
        """Keep an entry and send it to everyone in the room (players and spectators)."""
        self.count += 1
        entry = {"n": self.count, "at": time.time(), "seat": seat.index, "name": seat.name}
        entry.update(content)
        self.entries.append(entry)
        if room.ctx.chat_said is not None:
            room.ctx.chat_said(room.id, entry)
        text = message("chat", entry=entry)
        for other in list(room.conns):
            if other.hello:
                other.send(text)


async def prepare(room: GameRoom) -> None:
    """Before a ``welcome`` to a finished game: learn from the store whether it has a rematch
    (a room reloaded from the store does not know it)."""
    talk = room.talk
    if room.status == "finished" and not talk.looked_up:
        talk.looked_up = True
        if talk.rematch is None:
            talk.rematch = await room.ctx.store.run(Store.rematch_of, room.id)


async def handle(room: GameRoom, conn: Connection, msg: ClientMessage) -> None:
    """A ``chat``, ``emote`` or ``rematch`` message (the room's lock is held)."""
    if conn.seat is None:
        what = "ask for a rematch" if msg.type == "rematch" else "write in the chat"
        raise ProtocolError("not_a_player", f"spectators cannot {what}")
    seat = room.seats[conn.seat]
    if msg.type == "rematch":
        rematches = room.ctx.rematches
        if rematches is None:
            raise ProtocolError("out_of_phase", "this server makes no rematches")
        await rematches.request(room, conn, msg)
        return
    if msg.type == "chat":
        content = {"text": clean_chat(msg.data.get("text"))}
    else:
        emote = msg.data.get("emote")
        if emote not in EMOTES:
            shown = str(emote)[:20]
            raise ProtocolError(
                "unknown_emote", f"no emote {shown!r}; the emotes are {', '.join(EMOTES)}"
            )
        content = {"emote": str(emote)}
    room.talk.spend(seat.index)
    conn.send(message("ack", ref=msg.ref, **{"for": msg.type}))
    room.talk.add(room, seat, **content)
