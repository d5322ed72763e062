"""Rematches: a new game with the same seats, course and rules as a finished one, dealt with a
new seed (the page's **Rematch** button; docs/protocol.md 2.7). Each seat's token in the
rematch is made from the token its holder plays the finished game with
(:func:`social.rematch_token`): a seat's token is made for its holder alone (an invite gives
a fresh one), so only that player reaches the seat again; the store keeps only the link
between the two games. A seat nobody claims gets an invite from the rematch's host. Above
the rooms (it makes one), so the rooms know it only as the context's ``rematches``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from roborally.content.fairness import new_seed
from roborally.engine.core.rng import RNG_VERSION
from roborally.server.api_error import ApiError
from roborally.server.connection import Connection
from roborally.server.protocol import ClientMessage, ProtocolError, message
from roborally.server.room import GameRoom, Seat, token_hash
from roborally.server.rulesets import PROTOCOL_VERSION
from roborally.server.settings import GameSettings
from roborally.server.social import prepare, rematch_token, seat_path
from roborally.server.store import Store, StoreError

if TYPE_CHECKING:
    from roborally.server.app import GameServer


@dataclass(frozen=True)
class Owner:
    """A rematch owned by another process (scale-out mode, docs/scaling.md)."""

    game_id: str


class Rematches:
    """Makes the rematches of a server's finished games (one per game)."""

    def __init__(self, server: GameServer) -> None:
        self.server = server

    async def request(self, room: GameRoom, conn: Connection, msg: ClientMessage) -> None:
        if room.status != "finished":
            raise ProtocolError("out_of_phase", "a rematch can be asked for once the game is over")
        token = conn.token
        if token is None:  # a seat's socket always said hello with its token
            raise ProtocolError("not_a_player", "only a player of this game can ask")
        await prepare(room)
        existing = await self._existing(room)
        created = existing is None
        if existing is None:
            new_id = (await self._create(room, conn)).id
        elif isinstance(existing, GameRoom):
            new_id = existing.id
            await self._claim(existing, conn.seat, token)
        else:  # another process owns the rematch: it gives the seat
            new_id = existing.game_id
            await self._claim_there(room, existing, conn, token)
        conn.send(message("ack", ref=msg.ref, game_id=new_id, **{"for": "rematch"}))
        by = room.seats[conn.seat].name if conn.seat is not None else None
        told = [c for c in room.conns if c.hello] if created else [conn]
        for other in told:
            seat_token = None
            if other.seat is not None and other.token is not None:
                seat_token = rematch_token(other.token, new_id)
            other.send(
                message(
                    "rematch",
                    game_id=new_id,
                    seat=other.seat if seat_token else None,
                    token=seat_token,
                    url=seat_path(new_id, seat_token),
                    by=by,
                )
            )

    async def _existing(self, room: GameRoom) -> GameRoom | Owner | None:
        """The rematch already made, unless its lobby was closed (then a new one is made). In
        scale-out mode it may be owned by another process: then an :class:`Owner`."""
        game_id = room.talk.rematch
        if game_id is None:
            return None
        node = self.server.cluster
        if node is not None:  # takes it when nobody owns it and it is still going
            route = await node.route(game_id, socket=False)
            if route.owner is not None:
                return Owner(game_id)
        found = await self.server.get_room(game_id)
        if found is None or found.status not in ("open", "running", "finished"):
            return None
        return found

    async def _claim_there(
        self, room: GameRoom, owner: Owner, conn: Connection, token: str
    ) -> None:
        """Have the process that owns the rematch give this seat its token there: the
        ``rematch_seat`` call of the HTTP API, which the router sends to that process."""
        node = self.server.cluster
        assert node is not None
        body = json.dumps({"previous": room.id, "token": token}).encode()
        path = f"/api/games/{owner.game_id}/rematch_seat"
        status, answer = await node.call(path, body, conn.address)
        if status != 200:
            raise _refusal(status, answer)

    async def take_seat(self, new: GameRoom, body: dict[str, Any]) -> dict[str, Any]:
        """``POST /api/games/{new}/rematch_seat``: whoever holds a seat's link of the finished
        game ``previous`` takes the same seat of its rematch ``new`` (what a ``rematch`` message
        does, for a process that does not own the rematch, or any client)."""
        previous, token = body.get("previous"), body.get("token")
        if not isinstance(previous, str) or not isinstance(token, str):
            raise ApiError(400, "bad_request", "the body needs 'previous' (a game id) and 'token'")
        if len(previous) > 32 or len(token) > 200:
            raise ApiError(400, "bad_request", "'previous' or 'token' is too long to be one")
        store = self.server.store
        if await store.run(Store.rematch_of, previous) != new.id:
            raise ApiError(404, "not_a_rematch", f"game {new.id} is not the rematch of {previous}")
        old = await self.server.get_room(previous)  # finished: read anywhere
        index = old.seat_for_token(token) if old is not None else None
        if index is None:
            raise ApiError(403, "bad_token", f"the token is not a seat's of game {previous}")
        try:
            await self._claim(new, index, token)
        except ProtocolError as error:
            raise ApiError(409, error.code, error.message) from None
        except StoreError as error:
            raise ApiError(503, "storage_failed", f"the seat was not taken: {error}") from None
        seat_token = rematch_token(token, new.id)
        return {
            "v": PROTOCOL_VERSION,
            "game_id": new.id,
            "seat": index,
            "token": seat_token,
            "url": seat_path(new.id, seat_token),
        }

    async def _claim(self, new: GameRoom, index: int | None, token: str) -> None:
        """Give seat ``index`` of the rematch its token (made from the finished game's)."""
        if index is None:
            return
        async with new.lock:
            seat = new.seats[index]
            digest = _hash(rematch_token(token, new.id))
            if seat.token_hash == digest:
                return
            if seat.token_hash is not None:
                raise ProtocolError("no_free_seat", "somebody else took your seat in the rematch")
            seat.token_hash, seat.taken = digest, True
            try:
                await new._save_seats()
            except StoreError:
                seat.token_hash = None
                raise

    async def _create(self, room: GameRoom, conn: Connection) -> GameRoom:
        try:
            async with self.server.admitted(conn.address, False):
                new = await self._add(room, conn)
                new.rematch_of = room.id
        except ApiError as error:  # too many games: on this server, or from this address
            raise ProtocolError(
                "rematch_refused", error.message, retry_after=error.retry_after
            ) from None
        await room.ctx.store.run(Store.set_rematch, room.id, new.id)
        room.talk.rematch = new.id
        return new

    async def _add(self, room: GameRoom, conn: Connection) -> GameRoom:
        """The rematch's room: the finished game's seats and rules, a new seed; each seat
        whose player is here holds the token made from theirs."""
        server = self.server
        old = room.settings
        settings = GameSettings(
            edition=old.edition,
            course=old.course,
            variants=old.variants,
            timer_seconds=old.timer_seconds,
            decision_seconds=old.decision_seconds,
            grace_seconds=old.grace_seconds,
            max_rounds=old.max_rounds,
            seed=new_seed(),
            first_player=old.first_player,
            public=old.public,
            program_seconds=old.program_seconds,
            seed_chosen=False,
            rng=RNG_VERSION,
            table=old.table,
            course_text=old.course_text,
        )
        game_id = await server.new_game_id()
        holders = {c.seat: c.token for c in room.conns if c.seat is not None and c.token}
        seats = []
        for s in room.seats:
            seat = Seat(s.index, s.kind, s.name, s.bot_kind, taken=s.taken or not s.human)
            token = holders.get(s.index)
            if token is not None:
                seat.token_hash = _hash(rematch_token(token, game_id))
            seats.append(seat)
        # The same host token (a tabletop's shared screen) hosts the rematch.
        return await server.add_room(game_id, settings, seats, room.host_hash, conn.address)


def _refusal(status: int, answer: bytes) -> ProtocolError:
    """What the owner of a rematch refused, for the player who asked: a taken seat or a failed
    save as such; anything else (the rematch moving or gone) as a refusal to ask again."""
    try:
        error = json.loads(answer)["error"]
        code, text = str(error["code"]), str(error["message"])
    except (ValueError, KeyError, TypeError):
        code, text = "", f"the server of the rematch answered {status}"
    if code in ("no_free_seat", "storage_failed"):
        return ProtocolError(code, text)
    return ProtocolError("rematch_refused", f"{text}; ask again", retry_after=1)


def _hash(token: str) -> str:
    return token_hash(token)
