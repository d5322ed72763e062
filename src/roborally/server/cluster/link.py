"""A WebSocket's way to its game: the room in this process, or the game's owner elsewhere.

The socket's own loop (app.py) only reads frames and hands them to its :class:`Link`. A link
whose game is here gives them to the room; a relayed link (scale-out mode) publishes them to
the process that owns the game, and that process's messages come back into the socket's own
:class:`~roborally.server.connection.Connection` (see :mod:`.node`).

When the game changes owner (its owner died, or let it go), :meth:`Link.move` points the link
at the new owner and says the player's ``hello`` again for it, asking for the events from the
last one this socket was sent: the page keeps its socket and its place in the game. The hello
said again carries the seat's newest token: an invite is used once (its welcome brings the
seat's token) and ``close_others`` replaces a token.
"""

from __future__ import annotations

import asyncio
import json
import logging
from typing import TYPE_CHECKING

from roborally.server.connection import Connection
from roborally.server.protocol import ProtocolError, error_message

if TYPE_CHECKING:
    from roborally.server.cluster.node import ClusterNode
    from roborally.server.room import GameRoom

log = logging.getLogger("roborally.server")


def _type_of(text: str, kind: str) -> bool:
    """Whether a client frame is a message of ``kind`` (cheap test first, then JSON)."""
    if f'"{kind}"' not in text:
        return False
    try:
        data = json.loads(text)
    except ValueError:
        return False
    return isinstance(data, dict) and data.get("type") == kind


class Link:
    """One socket's game: ``room`` when it is here, else ``owner`` (a process id)."""

    def __init__(
        self,
        conn: Connection,
        game_id: str,
        room: GameRoom | None = None,
        owner: str | None = None,
        node: ClusterNode | None = None,
        ident: str = "",
    ) -> None:
        self.conn = conn
        self.game_id = game_id
        self.room = room
        self.owner = owner
        self.node = node
        self.ident = ident
        self.gate = asyncio.Lock()  # one frame at a time, and none while the link moves
        self.hello_text: str | None = None  # the player's last hello (said again on a move)
        self.shown_text: str | None = None  # the page's last 'shown'
        self.cursor = 0  # the next event the owner sent this socket (a move asks from here)
        self.gone = False

    @property
    def relayed(self) -> bool:
        return self.room is None

    def open(self) -> None:
        if self.room is not None:
            self.room.attach(self.conn)
        elif self.node is not None:
            self.node.relay_attach(self)

    async def handle(self, text: str) -> None:
        async with self.gate:
            if self.node is not None:  # kept to be said again if the game moves
                if _type_of(text, "hello"):
                    self.hello_text = text
                elif _type_of(text, "shown"):
                    self.shown_text = text
            if self.room is not None:
                await self.room.handle(self.conn, text)
            elif self.node is not None:
                self.node.relay_frame(self, text)

    def refuse(self, error: ProtocolError) -> None:
        """A frame refused before it reached the game (too large, not UTF-8)."""
        if self.room is not None:
            self.room.refuse(self.conn, error, None)
            return
        log.warning("game %s (%s): refused: %s", self.game_id, self.conn.peer, error.code)
        self.conn.send(error_message(error.code, error.message, None, None))

    async def detach(self) -> None:
        async with self.gate:
            self.gone = True
            if self.room is not None:
                await self.room.detach(self.conn)
            elif self.node is not None:
                self.node.relay_detach(self)
            if self.node is not None:
                self.node.forget_link(self)

    def learn_token(self, text: str) -> None:
        """A relayed frame that gives this socket its seat's token (an invite's ``welcome``,
        the ``ack`` of ``close_others``): kept for the hello said again after a move (a room
        in this process sets ``conn.token`` itself)."""
        if '"token":' in text and text.startswith(('{"type":"welcome"', '{"type":"ack"')):
            token = json.loads(text).get("token")
            if isinstance(token, str) and token:
                self.conn.token = token

    def _hello_again(self) -> str | None:
        """The player's hello to say to the game's new place, with the seat's newest token."""
        if self.hello_text is None:
            return None
        hello = json.loads(self.hello_text)
        hello["since"] = self.cursor
        if self.conn.token and (hello.get("invite") or hello.get("token")):
            hello.pop("invite", None)
            hello["token"] = self.conn.token
        return json.dumps(hello)

    async def move(self, room: GameRoom | None, owner: str | None) -> None:
        """Point the link at the game's new place and say the player's hello there again."""
        async with self.gate:
            if self.gone:
                return
            if self.room is not None:
                self.cursor = self.conn.cursor
            self.room, self.owner = room, owner
            self.conn.hello, self.conn.seat = False, None
            self.open()
            hello = self._hello_again()
            if hello is None:
                return
            again = [hello] + ([self.shown_text] if self.shown_text else [])
            for text in again:
                if self.room is not None:
                    await self.room.handle(self.conn, text)
                elif self.node is not None:
                    self.node.relay_frame(self, text)
            log.info(
                "game %s: %s moved to %s", self.game_id, self.conn.peer, owner or "this process"
            )
