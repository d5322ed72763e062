"""A game room: one game with its seats, connections, bots and timers.

Every change to a game goes through its room, under the room's lock: a player's ``decide``, a
bot's answer, an expired timer, auto-play for an absent player. Each change is validated by the
engine first (an illegal action changes nothing), saved to the store, and then sent to every
connection as that connection may see it (spec 4.7).
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import json
import logging
import random
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from roborally.bots.base import Bot
from roborally.bots.random_bot import make_bot
from roborally.content.cards import damage_deck
from roborally.content.courses import find_course
from roborally.content.record import decode_choice, encode_choice, write_record
from roborally.engine.board import Grid
from roborally.engine.decisions import (
    TIMEOUT,
    Action,
    ActionError,
    Decision,
    DecisionKind,
    IllegalActionError,
    InvalidActionError,
    NotYourDecisionError,
)
from roborally.engine.events import EventKind
from roborally.engine.game import Game
from roborally.engine.state import NUM_REGISTERS, GameConfig
from roborally.engine.view import decision_to_json
from roborally.server.boardjson import grid_to_json
from roborally.server.protocol import (
    CLOSE_BAD_TOKEN,
    CLOSE_TOO_SLOW,
    MAX_MESSAGE_BYTES,
    ClientMessage,
    ProtocolError,
    clean_name,
    error_message,
    field_bool,
    field_index,
    field_str,
    message,
    parse_message,
    to_json_value,
)
from roborally.server.rulesets import PROTOCOL_VERSION, timer_rule
from roborally.server.store import Store, StoredGame

log = logging.getLogger("roborally.server")

OPEN, RUNNING, FINISHED = "open", "running", "finished"
#: A lobby closed because nobody used it for a long time (it never started; nothing to replay).
CLOSED = "closed"
MAX_QUEUE = 2_000  # outgoing messages a slow client may have waiting before it is dropped
RATE_PER_SECOND = 50.0
RATE_BURST = 100.0
YIELD_EVERY = 16  # automatic actions between two yields to the event loop


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


def _dumps(data: dict[str, Any]) -> str:
    return json.dumps(data, separators=(",", ":"), ensure_ascii=False, check_circular=False)


@dataclass
class GameSettings:
    """The options a game was created with (stored; the seed stays secret until the end)."""

    edition: str
    course: str
    variants: tuple[str, ...]
    timer_seconds: float
    decision_seconds: float
    grace_seconds: float
    max_rounds: int
    seed: int
    first_player: int | None
    public: bool = True

    def to_json(self) -> dict[str, Any]:
        return {
            "edition": self.edition,
            "course": self.course,
            "variants": list(self.variants),
            "timer_seconds": self.timer_seconds,
            "decision_seconds": self.decision_seconds,
            "grace_seconds": self.grace_seconds,
            "max_rounds": self.max_rounds,
            "seed": self.seed,
            "first_player": self.first_player,
            "public": self.public,
        }

    def public_json(self) -> dict[str, Any]:
        data = self.to_json()
        del data["seed"]
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> GameSettings:
        return cls(
            str(data["edition"]),
            str(data["course"]),
            tuple(data.get("variants", ())),
            float(data.get("timer_seconds", 0)),
            float(data.get("decision_seconds", 0)),
            float(data.get("grace_seconds", 30)),
            int(data.get("max_rounds", 0)),
            int(data["seed"]),
            data.get("first_player"),
            bool(data.get("public", True)),
        )

    def config(self, names: tuple[str, ...]) -> GameConfig:
        speed = self.edition == "2023" and "speed" in self.variants
        return GameConfig(
            find_course(self.course).course,
            names,
            seed=self.seed,
            edition=self.edition,
            variants=frozenset(self.variants),
            first_player=self.first_player,
            max_rounds=self.max_rounds,
            timer_seconds=round(self.timer_seconds) if speed else 0,
            damage_deck=damage_deck(),
        )


class Connection:
    """One WebSocket as a room sees it: its seat, its outgoing queue and its event cursor."""

    def __init__(self, token: str | None = None, peer: str = "?") -> None:
        self.token = token
        self.peer = peer
        self.seat: int | None = None
        self.hello = False
        self.cursor = 0
        self.queue: asyncio.Queue[str | None] = asyncio.Queue()
        self.closed = False
        self.close_code: int | None = None
        self._tokens = RATE_BURST
        self._stamp = time.monotonic()

    def send(self, data: dict[str, Any]) -> None:
        self.send_text(_dumps(data))

    def send_text(self, text: str) -> None:
        if self.closed:
            return
        if self.queue.qsize() >= MAX_QUEUE:
            log.warning("connection %s: too slow (%d messages waiting)", self.peer, MAX_QUEUE)
            self.close(CLOSE_TOO_SLOW)
            return
        self.queue.put_nowait(text)

    def close(self, code: int = 1000) -> None:
        """Stop sending; the writer closes the socket with ``code`` after the queued messages."""
        if not self.closed:
            self.closed = True
            self.close_code = code
            self.queue.put_nowait(None)

    def allow(self) -> bool:
        """A token bucket: at most ``RATE_PER_SECOND`` messages a second on average."""
        now = time.monotonic()
        self._tokens = min(RATE_BURST, self._tokens + (now - self._stamp) * RATE_PER_SECOND)
        self._stamp = now
        if self._tokens < 1:
            return False
        self._tokens -= 1
        return True

    def refund(self) -> None:
        """An accepted decision costs nothing: a fast bot is paced by the game, not the limit."""
        self._tokens = min(RATE_BURST, self._tokens + 1)


@dataclass(eq=False)
class Seat:
    index: int
    kind: str  # "human" or "bot"
    name: str
    bot_kind: str | None = None
    token_hash: str | None = None
    taken: bool = False
    ready: bool = False
    auto: bool = False
    away_since: float | None = None
    conns: set[Connection] = field(default_factory=set)
    drafts: dict[str, list[str | None]] = field(default_factory=dict)

    @property
    def human(self) -> bool:
        return self.kind == "human"

    def stored(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "bot": self.bot_kind,
            "name": self.name,
            "token_hash": self.token_hash,
            "taken": self.taken,
        }

    @classmethod
    def from_stored(cls, index: int, data: dict[str, Any]) -> Seat:
        return cls(
            index,
            str(data["kind"]),
            str(data["name"]),
            data.get("bot"),
            data.get("token_hash"),
            bool(data.get("taken", False)),
        )

    def public(self) -> dict[str, Any]:
        bot = not self.human
        return {
            "seat": self.index,
            "name": self.name,
            "kind": self.kind,
            "bot": self.bot_kind,
            "taken": bot or self.taken,
            "connected": bot or bool(self.conns),
            "ready": bot or self.ready,
            "auto": self.auto,
        }


def outcome_json(game: Game) -> dict[str, Any] | None:
    outcome = game.outcome()
    if outcome is None:
        return None
    names = game.config.players
    return {
        "termination": outcome.termination.value,
        "winner": outcome.winner,
        "winner_name": None if outcome.winner is None else names[outcome.winner],
        "standings": list(outcome.standings),
        "result": outcome.result_text(names),
    }


def segments(events: list[dict[str, Any]]) -> list[dict[str, int]]:
    """Split a list of event JSON at round/register boundaries (protocol 2.3)."""
    out: list[dict[str, int]] = []
    for index, event in enumerate(events):
        key = (event["round"], event["register"])
        if out and (out[-1]["round"], out[-1]["register"]) == key:
            out[-1]["end"] = index + 1
        else:
            out.append({"round": key[0], "register": key[1], "start": index, "end": index + 1})
    return out


class GameRoom:
    """One game on the server (lobby, running or finished)."""

    def __init__(
        self,
        store: Store,
        game_id: str,
        settings: GameSettings,
        seats: list[Seat],
        host_hash: str,
        created: float,
        status: str = OPEN,
    ) -> None:
        self.store = store
        self.id = game_id
        self.settings = settings
        self.seats = seats
        self.host_hash = host_hash
        self.created = created
        self.status = status
        self.touched = time.time()  # the last join, connection or disconnection (lobby clean-up)
        self.game: Game | None = None
        self.lock = asyncio.Lock()
        self.conns: set[Connection] = set()
        self.bots: dict[int, Bot] = {}
        self.deadlines: dict[str, tuple[float, str, int]] = {}
        self.timer_task: asyncio.Task[None] | None = None
        self.saved = 0
        self._events_json: list[dict[str, Any]] = []
        self._grid: dict[str, Any] | None = None
        self.timer_rule = timer_rule(settings.edition)
        self.host_seat = next((s.index for s in seats if s.human), None)
        self.refused = 0  # messages refused (for tests and health)

    # ------------------------------------------------------------ building
    @classmethod
    def from_stored(cls, store: Store, stored: StoredGame) -> GameRoom:
        """Rebuild a room from the store, replaying the saved actions (the engine is exact)."""
        settings = GameSettings.from_json(stored.settings)
        seats = [Seat.from_stored(i, s) for i, s in enumerate(stored.seats)]
        room = cls(store, stored.id, settings, seats, stored.host_hash, stored.created)
        room.status = stored.status
        room.touched = stored.updated or stored.created
        if stored.status in (RUNNING, FINISHED):
            game = Game(settings.config(tuple(s.name for s in seats)))
            for number, (decision_id, seat, text) in enumerate(stored.actions):
                decision = next((d for d in game.pending_decisions() if d.id == decision_id), None)
                if decision is None or decision.seat != seat:
                    raise ValueError(
                        f"game {stored.id}: action {number} ({decision_id}) is not pending"
                    )
                game.apply(Action(decision_id, seat, decode_choice(decision, text.split())))
            room.game = game
            room.saved = len(game.actions)
            room._make_bots()
            now = time.time()
            for s in seats:
                if s.human:
                    s.away_since = now
            if game.is_over():
                room.status = FINISHED
        return room

    def _make_bots(self) -> None:
        for seat in self.seats:
            if not seat.human:
                self.bots[seat.index] = make_bot(
                    seat.bot_kind or "random", self.settings.seed * 101 + seat.index
                )

    # ------------------------------------------------------------- queries
    def seat_for_token(self, token: str) -> int | None:
        digest = token_hash(token)
        for seat in self.seats:
            if seat.token_hash is not None and hmac.compare_digest(seat.token_hash, digest):
                return seat.index
        return None

    def is_host(self, token: str) -> bool:
        return hmac.compare_digest(self.host_hash, token_hash(token))

    def board(self) -> dict[str, Any]:
        if self._grid is None:
            if self.game is not None:
                grid = self.game.state.grid
            else:
                grid = Grid(
                    find_course(self.settings.course).course,
                    reboot_tokens="dynamic_archiving" not in self.settings.variants,
                )
            self._grid = grid_to_json(grid)
        return self._grid

    def joinable(self) -> list[Seat]:
        """Human seats that ``join`` may hand out: nobody holds them, and not the host's (the
        host holds its seat's link from the start; a joiner must not take it first)."""
        return [s for s in self.seats if s.human and not s.taken and s.index != self.host_seat]

    def summary(self, base_url: str = "") -> dict[str, Any]:
        game = self.game
        outcome = outcome_json(game) if game is not None else None
        return {
            "game_id": self.id,
            "status": self.status,
            "created": self.created,
            "edition": self.settings.edition,
            "course": self.settings.course,
            "variants": list(self.settings.variants),
            "timer_seconds": self.settings.timer_seconds,
            "max_rounds": self.settings.max_rounds,
            "round": game.state.round if game is not None else 0,
            "public": self.settings.public,
            "seats": [s.public() for s in self.seats],
            "free_seats": [s.index for s in self.joinable()],
            "spectators": sum(1 for c in self.conns if c.hello and c.seat is None),
            "result": outcome["result"] if outcome else None,
            "spectator_url": f"{base_url}/?game={self.id}",
        }

    def event_json(self, index: int, viewer: int | None) -> dict[str, Any]:
        """Event ``index`` as ``viewer`` may see it (the engine knows what is secret: a
        face-down Haywire is its owner's)."""
        assert self.game is not None
        events = self.game.events
        while len(self._events_json) <= index:
            i = len(self._events_json)
            data = events[i].to_json()
            data["i"] = i
            self._events_json.append(data)
        event = events[index]
        if event.seen_by(viewer) is not event:
            data = event.seen_by(viewer).to_json()
            data["i"] = index
            return data
        return self._events_json[index]

    def events_message(self, first: int, end: int, viewer: int | None) -> dict[str, Any]:
        events = [self.event_json(i, viewer) for i in range(first, end)]
        return message("events", first=first, next=end, events=events, segments=segments(events))

    def state_message(self, seat: int | None) -> dict[str, Any]:
        game = self.game
        pending: list[dict[str, Any]] = []
        submitted: list[dict[str, Any]] = []
        if game is not None and seat is not None:
            for decision in game.pending_decisions(seat):
                entry = decision_to_json(decision)
                deadline = self.deadlines.get(decision.id)
                entry["deadline"] = deadline[0] if deadline else None
                pending.append(entry)
            submitted = [
                {"decision_id": a.decision_id, "choice": to_json_value(a.choice)}
                for a in game.state.answers.values()
                if a.seat == seat
            ]
        timers = [
            {
                "seat": s,
                "decision_id": None if reason == "grace" else key,
                "kind": self._decision_kind(key) if reason != "grace" else None,
                "deadline": at,
                "reason": reason,
            }
            for key, (at, reason, s) in sorted(self.deadlines.items(), key=lambda kv: kv[1][0])
        ]
        return message(
            "state",
            game_id=self.id,
            status=self.status,
            seat=seat,
            server_time=time.time(),
            event_count=len(game.events) if game is not None else 0,
            seats=[s.public() for s in self.seats],
            observation=game.observation(seat) if game is not None else None,
            pending=pending,
            submitted=submitted,
            timers=timers,
            outcome=outcome_json(game) if game is not None else None,
        )

    def _decision_kind(self, decision_id: str) -> str | None:
        if self.game is None:
            return None
        for decision in self.game.pending_decisions():
            if decision.id == decision_id:
                return decision.kind.value
        return None

    def welcome_message(self, conn: Connection) -> dict[str, Any]:
        seat = None if conn.seat is None else self.seats[conn.seat]
        return message(
            "welcome",
            protocol=PROTOCOL_VERSION,
            game_id=self.id,
            seat=conn.seat,
            role="spectator" if seat is None else "player",
            name=None if seat is None else seat.name,
            host=seat is not None and seat.index == self.host_seat,
            server_time=time.time(),
            limits={"message_bytes": MAX_MESSAGE_BYTES},
            settings=self.settings.public_json(),
            board=self.board(),
        )

    def game_over_message(self) -> dict[str, Any]:
        assert self.game is not None
        return message(
            "game_over",
            game_id=self.id,
            outcome=outcome_json(self.game),
            record_url=f"/api/games/{self.id}/record",
            replay_url=f"/api/games/{self.id}/replay",
        )

    def record_text(self) -> str:
        assert self.game is not None
        return write_record(self.game, self.settings.course)

    def replay_json(self) -> dict[str, Any]:
        """Events, actions and public frames of a finished game (protocol 1.8)."""
        assert self.game is not None
        game = self.game
        fresh = Game(game.config)
        frames = [{"action": 0, "event": len(fresh.events), "observation": fresh.observation(None)}]
        actions = []
        for number, action in enumerate(game.actions):
            fresh.apply(action)
            actions.append(
                {
                    "n": number,
                    "decision_id": action.decision_id,
                    "seat": action.seat,
                    "choice": to_json_value(action.choice),
                }
            )
            frames.append(
                {
                    "action": number + 1,
                    "event": len(fresh.events),
                    "observation": fresh.observation(None),
                }
            )
        return {
            "v": PROTOCOL_VERSION,
            "game_id": self.id,
            "settings": self.settings.to_json(),
            "seats": [
                {"seat": s.index, "name": s.name, "kind": s.kind, "bot": s.bot_kind}
                for s in self.seats
            ],
            "board": self.board(),
            "events": [self.event_json(i, None) for i in range(len(game.events))],
            "actions": actions,
            "frames": frames,
            "outcome": outcome_json(game),
        }

    # ------------------------------------------------------- connections
    def attach(self, conn: Connection) -> None:
        self.conns.add(conn)
        self.touched = time.time()

    async def detach(self, conn: Connection) -> None:
        async with self.lock:
            self.conns.discard(conn)
            self.touched = time.time()
            if conn.seat is None or not conn.hello:
                return
            seat = self.seats[conn.seat]
            seat.conns.discard(conn)
            if not seat.conns:
                seat.away_since = time.time()
                if self.status == OPEN:
                    seat.ready = False
                log.info("game %s: seat %d disconnected", self.id, seat.index)
            self._reschedule()
            self._broadcast()

    async def handle(self, conn: Connection, text: str) -> None:
        """Handle one text frame from a client; refusals get an ``error`` reply and a log line."""
        kind: str | None = None
        try:
            if not conn.allow():
                raise ProtocolError("rate_limited", "too many messages; slow down")
            msg = parse_message(text)
            kind = msg.type
            if msg.type == "ping":
                conn.send(
                    message("pong", t=msg.data.get("t"), server_time=time.time(), ref=msg.ref)
                )
                return
            if not conn.hello and msg.type != "hello":
                raise ProtocolError("hello_required", "send 'hello' first", msg.ref)
            async with self.lock:
                await self._dispatch(conn, msg)
            if msg.type == "decide":
                conn.refund()
        except ProtocolError as error:
            self.refuse(conn, error, kind)
        except Exception:  # a server bug: say so, keep the socket and the room
            log.exception("game %s: internal error on %s", self.id, kind)
            conn.send(
                error_message("internal_error", "the server failed on this message", None, kind)
            )

    def refuse(self, conn: Connection, error: ProtocolError, kind: str | None) -> None:
        self.refused += 1
        log.warning(
            "game %s seat %s (%s): refused %s: %s: %s",
            self.id,
            "-" if conn.seat is None else conn.seat,
            conn.peer,
            kind or "message",
            error.code,
            error.message,
        )
        conn.send(error_message(error.code, error.message, error.ref, kind))
        if error.code == "bad_token":
            conn.close(CLOSE_BAD_TOKEN)

    async def _dispatch(self, conn: Connection, msg: ClientMessage) -> None:
        try:
            if msg.type == "hello":
                await self._hello(conn, msg)
            elif msg.type == "sync":
                since = field_index(msg.data, "since")
                self._send_update(conn, since)
            elif msg.type == "ready":
                await self._ready(conn, msg)
            elif msg.type == "start":
                await self._start(conn, msg)
            elif msg.type == "decide":
                await self._decide(conn, msg)
            elif msg.type == "draft":
                self._draft(conn, msg)
        except ProtocolError as error:
            if error.ref is None:
                error.ref = msg.ref
            raise

    def _send_update(self, conn: Connection, since: int | None) -> None:
        """Events from ``since`` (or the connection's cursor) and the state, to one connection."""
        total = len(self.game.events) if self.game is not None else 0
        first = conn.cursor if since is None else min(since, total)
        if first < total:
            conn.send(self.events_message(first, total, conn.seat))
        conn.cursor = total
        conn.send(self.state_message(conn.seat))

    async def _hello(self, conn: Connection, msg: ClientMessage) -> None:
        if conn.hello:
            raise ProtocolError("out_of_phase", "'hello' was already sent")
        token = conn.token
        if token is None and msg.data.get("token") is not None:
            token = msg.data["token"]
            if not isinstance(token, str) or len(token) > 200:
                raise ProtocolError("bad_token", "the token is not valid for this game")
        seat_index = None
        if token is not None:
            seat_index = self.seat_for_token(token)
            if seat_index is None:
                raise ProtocolError("bad_token", "the token is not valid for this game")
        name = None
        if msg.data.get("name") is not None and seat_index is not None and self.status == OPEN:
            name = clean_name(msg.data["name"])
        since = field_index(msg.data, "since")
        # Accepted: from here on the room changes.
        conn.hello = True
        conn.seat = seat_index
        total = len(self.game.events) if self.game is not None else 0
        conn.cursor = total if since is None else min(since, total)
        if seat_index is not None:
            seat = self.seats[seat_index]
            seat.conns.add(conn)
            seat.away_since = None
            dirty = not seat.taken or (name is not None and name != seat.name)
            seat.taken = True
            if name is not None:
                seat.name = name
            if seat.auto:
                seat.auto = False
                log.info("game %s: seat %d taken back from auto-play", self.id, seat_index)
            if dirty:
                self._save_seats()
        conn.send(self.welcome_message(conn))
        self._reschedule()
        self._broadcast()
        if self.status == FINISHED:
            conn.send(self.game_over_message())

    async def _ready(self, conn: Connection, msg: ClientMessage) -> None:
        seat = self._own_seat(conn)
        if self.status != OPEN:
            raise ProtocolError("out_of_phase", "the game has already started")
        seat.ready = field_bool(msg.data, "ready", True)
        conn.send(message("ack", ref=msg.ref, **{"for": "ready"}))
        if all(s.ready and s.conns for s in self.seats if s.human):
            await self.start_game()
        else:
            self._broadcast()

    async def _start(self, conn: Connection, msg: ClientMessage) -> None:
        seat = self._own_seat(conn)
        if self.status != OPEN:
            raise ProtocolError("out_of_phase", "the game has already started")
        if seat.index != self.host_seat:
            raise ProtocolError("not_host", "only the host seat may start the game")
        conn.send(message("ack", ref=msg.ref, **{"for": "start"}))
        await self.start_game()

    def _own_seat(self, conn: Connection) -> Seat:
        if conn.seat is None:
            raise ProtocolError("not_a_player", "spectators cannot act")
        return self.seats[conn.seat]

    def _pending_for(self, conn: Connection, decision_id: str) -> Decision:
        if self.status == OPEN:
            raise ProtocolError("out_of_phase", "the game has not started")
        if self.status == FINISHED or self.game is None or self.game.is_over():
            raise ProtocolError("out_of_phase", "the game is over")
        decision = next((d for d in self.game.pending_decisions() if d.id == decision_id), None)
        if decision is None:
            raise ProtocolError(
                "not_pending", f"the game does not wait for decision {decision_id!r}"
            )
        if decision.seat != conn.seat:
            raise ProtocolError(
                "not_your_decision", f"decision {decision_id!r} belongs to another seat"
            )
        return decision

    async def _decide(self, conn: Connection, msg: ClientMessage) -> None:
        self._own_seat(conn)
        decision_id = field_str(msg.data, "decision_id", max_len=100)
        if "choice" not in msg.data:
            raise ProtocolError("bad_message", "'decide' needs a 'choice'")
        decision = self._pending_for(conn, decision_id)
        choice = self._check(decision, msg.data["choice"])
        self._apply(Action(decision.id, decision.seat, choice))
        self._persist()  # saved before it is acknowledged
        conn.send(message("ack", ref=msg.ref, decision_id=decision.id, **{"for": "decide"}))
        await self._drive()
        self._after_change()

    def _draft(self, conn: Connection, msg: ClientMessage) -> None:
        seat = self._own_seat(conn)
        decision_id = field_str(msg.data, "decision_id", max_len=100)
        decision = self._pending_for(conn, decision_id)
        if decision.kind is not DecisionKind.PROGRAM:
            raise ProtocolError("invalid_action", "only a program decision takes a draft")
        program = msg.data.get("program")
        if not isinstance(program, list) or len(program) != NUM_REGISTERS:
            raise ProtocolError("invalid_action", f"a draft lists {NUM_REGISTERS} registers")
        cleaned: list[str | None] = []
        for entry in program:
            if entry is None:
                cleaned.append(None)
            elif isinstance(entry, str) and len(entry) <= 40:
                cleaned.append(entry.strip().lower())
            else:
                raise ProtocolError("invalid_action", f"{entry!r} is not a card name")
        locked = decision.info["locked"]
        if any(c is not None and i + 1 in locked for i, c in enumerate(cleaned)):
            raise ProtocolError("illegal_action", "a locked register cannot be programmed")
        have = Counter(decision.info["hand"])
        for name, count in Counter(c for c in cleaned if c is not None).items():
            if have[name] < count:
                raise ProtocolError(
                    "illegal_action",
                    f"{name} is used {count} time(s) but the hand holds {have[name]}",
                )
        seat.drafts = {decision.id: cleaned}
        conn.send(message("ack", ref=msg.ref, decision_id=decision.id, **{"for": "draft"}))

    def _check(self, decision: Decision, choice: Any) -> Any:
        assert self.game is not None
        try:
            return self.game.check(Action(decision.id, decision.seat, choice))
        except InvalidActionError as error:
            raise ProtocolError("invalid_action", str(error)) from None
        except NotYourDecisionError as error:
            raise ProtocolError("not_your_decision", str(error)) from None
        except (IllegalActionError, ActionError) as error:
            raise ProtocolError("illegal_action", str(error)) from None
        except Exception as error:  # a malformed choice the engine did not foresee
            log.exception("game %s: unexpected error checking %s", self.id, decision.id)
            raise ProtocolError("invalid_action", f"malformed choice ({error})") from None

    # ---------------------------------------------------------- changes
    async def start_game(self) -> None:
        """Start the game (the lock is held, or the room is not shared yet)."""
        if self.status != OPEN:
            return
        self.game = Game(self.settings.config(tuple(s.name for s in self.seats)))
        self.status = RUNNING
        self._grid = None
        self._make_bots()
        now = time.time()
        for seat in self.seats:
            if seat.human and not seat.conns:
                seat.away_since = now
        self.store.update_game(self.id, status=RUNNING, seats=[s.stored() for s in self.seats])
        log.info("game %s: started (%s, %d seats)", self.id, self.settings.course, len(self.seats))
        # Everyone connected in the lobby gets the whole game from its first event.
        for conn in self.conns:
            conn.cursor = 0
        await self._drive()
        self._after_change()

    def _apply(self, action: Action) -> None:
        assert self.game is not None
        self.game.apply(action)
        self.seats[action.seat].drafts.pop(action.decision_id, None)

    def _automatic(self, seat: int) -> bool:
        s = self.seats[seat]
        return not s.human or s.auto

    def _fallback(self, decision: Decision) -> Any:
        """What happens when time runs out or the player is absent: the decision's default,
        except that a drafted program keeps its cards (empty registers filled at random)."""
        draft = self.seats[decision.seat].drafts.get(decision.id)
        if decision.kind is not DecisionKind.PROGRAM or not draft or not any(draft):
            return TIMEOUT
        rest = Counter(decision.info["hand"])
        rest.subtract(c for c in draft if c is not None)
        pool = sorted(rest.elements())
        random.Random(f"{self.settings.seed}/{decision.id}").shuffle(pool)
        locked = decision.info["locked"]
        program = [
            card if card is not None else (None if i + 1 in locked or not pool else pool.pop())
            for i, card in enumerate(draft)
        ]
        try:
            return self._check(decision, program)
        except ProtocolError:
            return TIMEOUT

    def _bot_choice(self, decision: Decision) -> Any:
        assert self.game is not None
        bot = self.bots.get(decision.seat)
        if bot is None:
            return self._fallback(decision)
        try:
            choice = bot.choose(self.game.observation(decision.seat), decision)
            return self._check(decision, choice)
        except Exception as error:
            log.error(
                "game %s: bot of seat %d failed on %s: %s",
                self.id,
                decision.seat,
                decision.id,
                error,
            )
            return TIMEOUT

    async def _drive(self) -> None:
        """Let bots and auto-played seats answer until a human must decide or the game ends."""
        game = self.game
        steps = 0
        while game is not None and not game.is_over():
            decision = next((d for d in game.pending_decisions() if self._automatic(d.seat)), None)
            if decision is None:
                break
            if self.seats[decision.seat].human:
                choice = self._fallback(decision)
            else:
                choice = self._bot_choice(decision)
            self._apply(Action(decision.id, decision.seat, choice))
            steps += 1
            if steps % YIELD_EVERY == 0:
                await asyncio.sleep(0)

    def _after_change(self) -> None:
        """Save the new actions, finish the game if it is over, reset timers and tell everyone."""
        self._persist()
        finished = False
        if self.game is not None and self.game.is_over() and self.status == RUNNING:
            self.status = FINISHED
            finished = True
            outcome = outcome_json(self.game)
            self.store.update_game(
                self.id,
                status=FINISHED,
                result=outcome["result"] if outcome else "",
                record=self.record_text(),
            )
            log.info("game %s: over: %s", self.id, outcome["result"] if outcome else "?")
        self._reschedule()
        self._broadcast()
        if finished:
            text = _dumps(self.game_over_message())
            for conn in self.conns:
                if conn.hello:
                    conn.send_text(text)

    def _persist(self) -> None:
        if self.game is None or self.saved >= len(self.game.actions):
            return
        rows = [
            (a.decision_id, a.seat, encode_choice(a.choice))
            for a in self.game.actions[self.saved :]
        ]
        self.store.append_actions(self.id, self.saved, rows)
        self.saved = len(self.game.actions)

    def _save_seats(self) -> None:
        self.store.update_game(self.id, seats=[s.stored() for s in self.seats])

    def _broadcast(self) -> None:
        """Send every connection the events it has not seen, then the state as it may see it."""
        total = len(self.game.events) if self.game is not None else 0
        states: dict[int | None, str] = {}
        events: dict[tuple[int, int | None], str] = {}
        private: dict[int, bool] = {}
        for conn in list(self.conns):
            if not conn.hello or conn.closed:
                continue
            first = conn.cursor
            if first < total:
                if first not in private:
                    private[first] = self._any_private(first, total)
                key = (first, conn.seat if private[first] else None)
                if key not in events:
                    events[key] = _dumps(self.events_message(first, total, key[1]))
                conn.send_text(events[key])
                conn.cursor = total
            if conn.seat not in states:
                states[conn.seat] = _dumps(self.state_message(conn.seat))
            conn.send_text(states[conn.seat])

    def _any_private(self, first: int, end: int) -> bool:
        """Whether events ``first:end`` hold something only some seats may see."""
        assert self.game is not None
        events = self.game.events
        return any(
            events[i].kind is EventKind.DAMAGED and "to register" in (events[i].cause or "")
            for i in range(first, end)
        )

    # ------------------------------------------------------------ timers
    def _reschedule(self) -> None:
        """Work out every deadline (keeping those already running) and arm one timer task."""
        now = time.time()
        old = self.deadlines
        new: dict[str, tuple[float, str, int]] = {}
        game = self.game
        if self.status == RUNNING and game is not None:
            settings = self.settings
            pending = game.pending_decisions()
            speed = self.timer_rule.kind == "speed" and self.timer_rule.variant in settings.variants
            for d in pending:
                if self._automatic(d.seat):
                    continue
                if d.kind is DecisionKind.PROGRAM:
                    engine_timer = d.info.get("timer")  # the engine marks a timed decision
                    length = 0.0
                    if isinstance(engine_timer, int | float) and engine_timer > 0:
                        length = settings.timer_seconds or float(engine_timer)
                    elif speed:
                        length = settings.timer_seconds
                    if length > 0:
                        new[d.id] = old.get(d.id) or (now + length, "timer", d.seat)
                elif settings.decision_seconds > 0:
                    new[d.id] = old.get(d.id) or (
                        now + settings.decision_seconds,
                        "decision",
                        d.seat,
                    )
            for seat in self.seats:
                if seat.human and not seat.auto and not seat.conns:
                    away = seat.away_since if seat.away_since is not None else now
                    new[f"grace:{seat.index}"] = (
                        away + settings.grace_seconds,
                        "grace",
                        seat.index,
                    )
        self.deadlines = new
        current = asyncio.current_task()
        if self.timer_task is not None and self.timer_task is not current:
            self.timer_task.cancel()
        self.timer_task = None
        if new:
            first = min(entry[0] for entry in new.values())
            self.timer_task = asyncio.get_running_loop().create_task(self._timer(first))

    async def _timer(self, at: float) -> None:
        await asyncio.sleep(max(0.0, at - time.time()))
        async with self.lock:
            if asyncio.current_task() is not self.timer_task:
                return
            try:
                await self._expire()
            except Exception:
                log.exception("game %s: timer failed", self.id)

    async def _expire(self) -> None:
        now = time.time() + 0.002
        for at, reason, index in list(self.deadlines.values()):
            if reason == "grace" and at <= now:
                seat = self.seats[index]
                if not seat.conns and not seat.auto:
                    seat.auto = True
                    log.info("game %s: seat %d absent; auto-play takes over", self.id, index)
        game = self.game
        while game is not None and not game.is_over() and self.status == RUNNING:
            expired = next(
                (
                    d
                    for d in game.pending_decisions()
                    if d.id in self.deadlines and self.deadlines[d.id][0] <= now
                ),
                None,
            )
            if expired is None:
                break
            log.info("game %s: %s expired (%s)", self.id, expired.id, self.deadlines[expired.id][1])
            self._apply(Action(expired.id, expired.seat, self._fallback(expired)))
        await self._drive()
        self._after_change()

    async def close(self) -> None:
        """Stop the timer (server shutdown); connections are closed by the app."""
        if self.timer_task is not None:
            self.timer_task.cancel()
            self.timer_task = None

    async def resume(self) -> None:
        """After loading from the store: let bots catch up and start the timers again."""
        async with self.lock:
            if self.status == RUNNING:
                await self._drive()
            self._after_change()


# Re-exported for the app module.
__all__ = [
    "FINISHED",
    "OPEN",
    "RUNNING",
    "Connection",
    "GameRoom",
    "GameSettings",
    "Seat",
    "message",
    "parse_message",
    "token_hash",
]
