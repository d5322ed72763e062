"""A game room: one game with its seats, connections, deadlines, and its game in a worker.

Every change to a game goes through its room, under the room's lock: a player's ``decide``, an
expired deadline, auto-play for an absent player, the bots' turns. The engine and the bots run
in a worker process (:mod:`roborally.server.workers`); the room sends them the change, stores
the actions that came of it, and only then acknowledges it and sends every connection what it
may see (spec 4.7). If storing fails, the worker goes back to the stored actions: the game stays
as it was, in memory and on disk.

The room keeps a mirror of what clients need (events and observations as JSON text, the pending
decisions), so answering a connection never waits for a worker.
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import logging
import secrets
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from roborally.content.boardjson import course_board, custom_course_board
from roborally.engine.core.state import NUM_REGISTERS
from roborally.engine.game import Game
from roborally.server import showtime, social
from roborally.server.connection import Connection
from roborally.server.host import (
    EventOut,
    HostSpec,
    PendingOut,
    Play,
    Refused,
    Update,
    View,
    dumps,
)
from roborally.server.protocol import (
    CLOSE_BAD_TOKEN,
    CLOSE_REPLACED,
    CLOSE_UNKNOWN_GAME,
    ClientMessage,
    ProtocolError,
    clean_name,
    error_message,
    field_bool,
    field_index,
    field_str,
    message,
    parse_message,
    same_name,
)
from roborally.server.rulesets import PROTOCOL_VERSION, timer_rule
from roborally.server.settings import GameSettings, ServerOptions
from roborally.server.store import (
    AsyncStore,
    GameStore,
    OwnershipLost,
    Store,
    StoredGame,
    StoreError,
)
from roborally.server.workers import BOTS, PEOPLE, HostLost, WorkerLost, WorkerPool

if TYPE_CHECKING:
    from roborally.server.rematch import Rematches

log = logging.getLogger("roborally.server")

OPEN, RUNNING, FINISHED = "open", "running", "finished"
#: A running game nobody came back to within ``abandon_seconds`` (kept in the store, ended).
ABANDONED = "abandoned"
#: A lobby closed because nobody used it for a while (it never started; nothing to replay).
CLOSED = "closed"
#: A game whose stored actions no longer replay (kept in the store, reported at start).
BROKEN = "broken"
#: Questions a player may answer ahead of time, and their answers.
PRESETS: dict[str, tuple[str, ...]] = {"reboot_facing": ("N", "E", "S", "W")}
RATE_STRIKES = 500  # refusals for rate in a row before the socket is closed
RETRY_SECONDS = (1.0, 2.0, 5.0, 10.0, 30.0)  # waits between tries of a failed automatic save
#: A game's runtime state (timers, drafts) is saved this long after it changed, once for every
#: change in between: a move changes the timers two or three times in a few milliseconds (the
#: answer, then each page saying it has shown the events), and each save is a transaction.
RUNTIME_SAVE_SECONDS = 0.2

#: What the deadlines are for: the game's own clock (speed mode, the classic sand timer), a
#: decision or programming without one (its default is then played, that once), the grace
#: period of a seat without a connection, a decision of a seat that is away (played after a
#: short pause: the game never runs faster than a person could follow), and the end of a
#: game nobody is connected to (it waits, paused, for ``abandon_seconds``).
TIMER, DECISION, IDLE, GRACE = "timer", "decision", "idle", "grace"
AWAY, ABANDON = "away", "abandon"
#: Deadlines in a row a connected player lets pass before the seat is marked away.
MISSES_AWAY = 3
#: Not a deadline: the time by which a decision's clock starts even if the player's page has
#: not reported that it finished showing what came before (fair time: nobody's clock runs while
#: their page still animates, and nobody can hold a clock back for ever).
SHOW = "show"
#: The wait every page gets (the state's way there, a moment to look); a page that has never
#: said ``shown`` gets only this: a client that never reports cannot stretch anyone's clock.
SHOW_BASE_SECONDS = 2.0


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


def with_raw(data: dict[str, Any], **raw: str) -> str:
    """``data`` as JSON text with the ``raw`` fields spliced in as JSON text already made (the
    worker's observations and events are not decoded and encoded again)."""
    text = dumps(data)
    extra = ",".join(f'"{key}":{value}' for key, value in raw.items())
    if not extra:
        return text
    return text[:-1] + ("," if len(text) > 2 else "") + extra + "}"


@dataclass
class RoomContext:
    """What every room shares: the settings, the store and the workers."""

    options: ServerOptions
    store: AsyncStore
    pool: WorkerPool
    rematches: Rematches | None = None  # the server's maker of rematches (social.py)
    #: Told the id of a game whose save found it taken over by another process (scale-out
    #: mode: this process stalled past its lease and has not noticed yet).
    taken_over: Callable[[str], None] | None = None
    #: Told each chat entry of a game as it is said (scale-out mode keeps the last ones in
    #: Redis, so a process that takes the game over shows them).
    chat_said: Callable[[str, dict[str, Any]], None] | None = None
    #: Told the id of a game that ended without a finish (abandoned): the server forgets it.
    dropped: Callable[[str], None] | None = None


@dataclass(eq=False)
class Seat:
    index: int
    kind: str  # "human" or "bot"
    name: str
    bot_kind: str | None = None
    token_hash: str | None = None  # of the token its holder plays it with (None: nobody holds it)
    taken: bool = False
    #: Of the seat's one-time invite code (the invite link): the first ``hello`` with it gets
    #: the seat and a token of its own; then the code only says that the seat is taken.
    invite_hash: str | None = None
    ready: bool = False
    #: Away: the game plays the seat's decisions (each after ``away_seconds``) until its player
    #: is back; ``auto_reason`` says why: "away" (no connection for ``grace_seconds``) or
    #: "idle" (let MISSES_AWAY deadlines pass in a row while connected).
    auto: bool = False
    auto_reason: str | None = None
    missed: int = 0  # deadlines let pass in a row (a decision of its own resets it)
    away_since: float | None = None
    shown: int = 0  # the events its page has finished showing (the most of its connections)
    presets: dict[str, Any] = field(default_factory=dict)  # decision kind -> answer given ahead
    conns: list[Connection] = field(default_factory=list)  # oldest first
    drafts: dict[str, list[str | None]] = field(default_factory=dict)

    @property
    def human(self) -> bool:
        return self.kind == "human"

    @property
    def held(self) -> bool:
        """Whether somebody holds the seat (a token opens it): its invite is used up."""
        return self.token_hash is not None

    @property
    def attended(self) -> bool:
        """Whether a person plays the seat: a human seat the game does not play for them."""
        return self.human and not self.auto

    def stored(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "bot": self.bot_kind,
            "name": self.name,
            "token_hash": self.token_hash,
            "taken": self.taken,
            "invite_hash": self.invite_hash,
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
            invite_hash=data.get("invite_hash"),
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
            "auto_reason": self.auto_reason if self.auto else None,
        }


def _speed(data: dict[str, Any]) -> float | None:
    """The animation speed a ``hello`` or ``shown`` reports (``None``: not said)."""
    speed = data.get("speed")
    if speed is None:
        return None
    if isinstance(speed, bool) or not isinstance(speed, int | float) or not 0 <= speed <= 16:
        raise ProtocolError("bad_message", "'speed' must be a number from 0 (no animation) to 16")
    return float(speed)


def segments(events: list[EventOut]) -> list[dict[str, int]]:
    """Where the rounds and registers start and end in a list of events (protocol 2.3)."""
    out: list[dict[str, int]] = []
    for index, event in enumerate(events):
        key = (event.round, event.register)
        if out and (out[-1]["round"], out[-1]["register"]) == key:
            out[-1]["end"] = index + 1
        else:
            out.append({"round": key[0], "register": key[1], "start": index, "end": index + 1})
    return out


class GameRoom:
    """One game on the server (lobby, running or finished)."""

    def __init__(
        self,
        ctx: RoomContext,
        game_id: str,
        settings: GameSettings,
        seats: list[Seat],
        host_hash: str,
        created: float,
        status: str = OPEN,
    ) -> None:
        self.ctx = ctx
        self.id = game_id
        self.settings = settings
        self.seats = seats
        self.host_hash = host_hash
        self.created = created
        self.status = status
        self.creator: str | None = None  # the address that created it (per-address limits)
        self.rematch_of: str | None = None  # the finished game this one is the rematch of
        self.touched = time.time()  # the last join, connection or disconnection (lobby clean-up)
        self.lock = asyncio.Lock()
        self.conns: set[Connection] = set()
        self.deadlines: dict[str, tuple[float, str, int]] = {}
        self.timer_task: asyncio.Task[None] | None = None
        self.drive_task: asyncio.Task[None] | None = None
        self.retry_task: asyncio.Task[None] | None = None
        #: Closed: the server stops, or (scale-out mode) another process owns the game now.
        #: A closed room changes nothing, stores nothing and arms no timer.
        self.closed = False
        self.failures = 0  # automatic saves that failed in a row
        self.timer_rule = timer_rule(settings.edition)
        # The first human seat is the creator's; in tabletop mode the creator plays no seat.
        first_human = next((s.index for s in seats if s.human), None)
        self.host_seat = None if settings.table else first_human
        self.refused = 0  # messages refused (for tests and health)
        # The mirror of the game in its worker (what the store holds).
        self.saved = 0  # actions stored
        self.events: list[EventOut] = []
        self.pending: list[PendingOut] = []
        self.answered: list[tuple[str, int, Any]] = []
        self.views: dict[View, str] = {}
        self.round = 0
        self.outcome: dict[str, Any] | None = None
        self.record: str | None = None
        self.replay_text: str | None = None
        self.stored_actions: list[tuple[str, int, str]] | None = None  # to rebuild a finished game
        self.appeared: dict[str, int] = {}  # pending decision -> the events before it
        self.show_by: dict[str, float] = {}  # pending decision -> when its clock starts anyway
        self._events_texts: dict[tuple[int, int, View], str] = {}
        self.talk = social.RoomTalk()  # chat, emotes and the rematch (social.py)
        self.runtime_text = "null"  # the runtime state last saved (JSON), see runtime()
        self.runtime_save: asyncio.TimerHandle | None = None  # a save of it to come
        self.slim = False  # a finished game without its events and views (see slim_down)
        #: Since when nobody is connected to this running game: its clocks stand still and it
        #: ends as abandoned ``abandon_seconds`` later unless somebody comes back.
        self.paused_at: float | None = None
        #: Started with no seat holder connected and no person in it since: the server plays
        #: it alone (or it waits), so it counts as a game of bots only (limits, docs/server.md).
        self.unattended = False

    @property
    def store(self) -> GameStore:
        """The synchronous store (tests read it directly; the room itself never blocks on it)."""
        return self.ctx.store.sync

    @property
    def lane(self) -> str:
        """Where the game runs: games a person plays first; games of bots, games whose every
        human seat the game plays itself (nobody came, or everyone left: bot work in
        disguise), and rebuilding finished games (replays, late spectators) at the lowest
        priority. A game moves when this changes (:meth:`_call`)."""
        if self.status == FINISHED or not any(s.attended for s in self.seats):
            return BOTS
        return PEOPLE

    @property
    def attended(self) -> bool:
        """Whether a seat holder is connected (only they keep a lobby open)."""
        return any(s.conns for s in self.seats)

    @property
    def game(self) -> Game | None:
        """The engine's game when games run in this process (``workers = 0``: tests and
        embedding); ``None`` otherwise."""
        host = self.ctx.pool.inline_host(self.id)
        return None if host is None else host.game

    # ------------------------------------------------------------ building
    @classmethod
    def from_stored(cls, ctx: RoomContext, stored: StoredGame) -> GameRoom:
        """A room for a stored game; :meth:`resume` (running) or :meth:`load` (finished)
        rebuild its game in a worker."""
        settings = GameSettings.from_json(stored.settings)
        seats = [Seat.from_stored(i, s) for i, s in enumerate(stored.seats)]
        room = cls(ctx, stored.id, settings, seats, stored.host_hash, stored.created)
        room.status = stored.status
        room.touched = stored.updated or stored.created
        room.record = stored.record
        room.stored_actions = stored.actions
        if stored.status in (RUNNING, FINISHED):
            now = time.time()
            for s in seats:
                if s.human:
                    s.away_since = now
        if stored.status == RUNNING and stored.runtime:
            room.restore_runtime(stored.runtime)
        return room

    def runtime(self) -> dict[str, Any] | None:
        """What a server that runs this game next needs besides its actions, so that it goes
        on as it was (docs/server.md "Storage"): the deadlines as wall-clock times, the seats'
        drafts, presets and auto-play, and since when absent seats are away."""
        if self.status != RUNNING:
            return None
        return {
            "deadlines": {k: list(v) for k, v in self.deadlines.items()},
            "show_by": dict(self.show_by),
            "paused_at": self.paused_at,
            "unattended": self.unattended,
            "seats": [
                {
                    "auto": s.auto,
                    "auto_reason": s.auto_reason,
                    "missed": s.missed,
                    "away_since": None if s.conns else s.away_since,
                    "presets": dict(s.presets),
                    "drafts": {k: list(v) for k, v in s.drafts.items()},
                }
                for s in self.seats
            ],
        }

    def restore_runtime(self, data: dict[str, Any]) -> None:
        """Take back what :meth:`runtime` saved (a reloaded room, before :meth:`resume`)."""
        try:
            deadlines = {
                str(k): (float(at), str(reason), int(seat))
                for k, (at, reason, seat) in data["deadlines"].items()
            }
            show_by = {str(k): float(v) for k, v in data["show_by"].items()}
            seats = data["seats"]
            if len(seats) != len(self.seats):
                raise ValueError(f"{len(seats)} seats saved, the game has {len(self.seats)}")
            for seat, saved in zip(self.seats, seats, strict=True):
                seat.auto, seat.auto_reason = bool(saved["auto"]), saved["auto_reason"]
                seat.missed = int(saved.get("missed", 0))
                if saved["away_since"] is not None:
                    seat.away_since = float(saved["away_since"])
                seat.presets = dict(saved["presets"])
                seat.drafts = {str(k): list(v) for k, v in saved["drafts"].items()}
        except (KeyError, TypeError, ValueError, AttributeError) as error:
            log.warning("game %s: saved timers not used (%s); they start again", self.id, error)
            return
        self.deadlines, self.show_by = deadlines, show_by
        paused_at = data.get("paused_at")
        self.paused_at = None if paused_at is None else float(paused_at)
        self.unattended = bool(data.get("unattended", False))
        self.runtime_text = dumps(data)

    def _save_runtime(self) -> None:
        """Save :meth:`runtime` soon (``RUNTIME_SAVE_SECONDS``), in the background, if it
        changed by then."""
        if self.runtime_save is None and not self.closed:
            loop = asyncio.get_running_loop()
            self.runtime_save = loop.call_later(RUNTIME_SAVE_SECONDS, self._runtime_now)

    def _runtime_now(self) -> None:
        """Save :meth:`runtime` now if it changed (after the saves queued before)."""
        if self.runtime_save is not None:
            self.runtime_save.cancel()
            self.runtime_save = None
        if self.closed:
            return
        data = self.runtime()
        text = dumps(data)
        if text != self.runtime_text:
            self.runtime_text = text
            self.ctx.store.post(Store.save_runtime, self.id, data)

    def _spec(self, actions: list[tuple[str, int, str]]) -> HostSpec:
        return HostSpec(
            self.id,
            self.settings.to_json(),
            tuple(s.name for s in self.seats),
            {s.index: s.bot_kind or "random" for s in self.seats if not s.human},
            actions,
        )

    # ------------------------------------------------------------- queries
    def seat_for_token(self, token: str) -> int | None:
        digest = token_hash(token)
        for seat in self.seats:
            if seat.token_hash is not None and hmac.compare_digest(seat.token_hash, digest):
                return seat.index
        return None

    def invite_opens(self, index: int, code: str) -> bool:
        """Whether ``code`` is the current invite of seat ``index``."""
        digest = self.seats[index].invite_hash
        return digest is not None and hmac.compare_digest(digest, token_hash(code))

    def is_host(self, token: str) -> bool:
        return hmac.compare_digest(self.host_hash, token_hash(token))

    def board(self) -> dict[str, Any]:
        settings = self.settings
        variants = frozenset(settings.variants)
        if settings.course_text:  # a custom course: the game holds its file
            settings.course_info()  # known by id in this process while the game is
            return custom_course_board(settings.course_text, settings.edition, variants)
        return course_board(settings.course, settings.edition, variants)

    def joinable(self) -> list[Seat]:
        """Human seats that ``join`` may hand out: nobody holds them, and not the host's (the
        host holds its seat's link from the start; a joiner must not take it first)."""
        return [s for s in self.seats if s.human and not s.taken and s.index != self.host_seat]

    def name_taken(self, name: str, seat: int | None = None) -> bool:
        """Whether another seat than ``seat`` has this name (case and spacing aside)."""
        return any(same_name(s.name, name) for s in self.seats if s.index != seat)

    def public_settings(self) -> dict[str, Any]:
        return self.settings.public_json(reveal=self.status == FINISHED)

    def summary(self, base_url: str = "") -> dict[str, Any]:
        return {
            "game_id": self.id,
            "status": self.status,
            "created": self.created,
            "edition": self.settings.edition,
            "course": self.settings.course,
            "variants": list(self.settings.variants),
            "timer_seconds": self.settings.timer_seconds,
            "max_rounds": self.settings.max_rounds,
            "round": self.round,
            "public": self.settings.public,
            "seats": [s.public() for s in self.seats],
            "free_seats": [s.index for s in self.joinable()],
            "spectators": self.spectator_count(),
            "result": self.outcome["result"] if self.outcome else None,
            "seed_commitment": self.settings.commitment,
            "seed": self.public_settings()["seed"],
            "spectator_url": f"{base_url}/?game={self.id}",
        }

    def spectator_count(self) -> int:
        """Connections watching without a seat (those still to say hello not counted)."""
        return sum(1 for c in self.conns if c.hello and c.seat is None)

    # ------------------------------------------------------------ messages
    def events_text(self, first: int, end: int, viewer: View) -> str:
        """Events ``first:end`` as ``viewer`` may see them. Kept while no event is added: a
        client asking for the whole game again and again costs one join, not one each time."""
        key = (first, end, viewer)
        text = self._events_texts.get(key)
        if text is None:
            chosen = self.events[first:end]
            items = [
                e.private[viewer] if e.private and viewer in e.private else e.text for e in chosen
            ]
            head = message("events", first=first, next=end, segments=segments(chosen))
            text = with_raw(head, events="[" + ",".join(items) + "]")
            if len(self._events_texts) >= 16:
                self._events_texts.clear()
            self._events_texts[key] = text
        return text

    def state_text(self, seat: View) -> str:
        pending: list[dict[str, Any]] = []
        submitted: list[dict[str, Any]] = []
        if seat is not None:
            for decision in self.pending:
                if decision.seat == seat:
                    deadline = None if self.paused_at else self.deadlines.get(decision.id)
                    pending.append(decision.data | {"deadline": deadline[0] if deadline else None})
            submitted = [
                {"decision_id": decision_id, "choice": choice}
                for decision_id, owner, choice in self.answered
                if owner == seat
            ]
        head = message(
            "state",
            game_id=self.id,
            status=self.status,
            seat=seat,
            # How many connections hold this seat (only its holder is told): more than one
            # is another tab or device, which the holder may close (close_others).
            devices=None if seat is None else len(self.seats[seat].conns),
            server_time=time.time(),
            event_count=len(self.events),
            seats=[s.public() for s in self.seats],
            pending=pending,
            submitted=submitted,
            timers=self._timers_json(),
            # Since when nobody is connected (the game waits, its clocks stopped), or null.
            paused_since=self.paused_at,
            outcome=self.outcome,
        )
        observation = self.views.get(seat)
        return with_raw(head, observation=observation if observation is not None else "null")

    def _timers_json(self) -> list[dict[str, Any]]:
        """The running deadlines; while the game is paused only the end of the wait (the
        other clocks stand still)."""
        kinds = {d.id: d.kind for d in self.pending}
        out = []
        for key, (at, reason, s) in sorted(self.deadlines.items(), key=lambda kv: kv[1][0]):
            if self.paused_at is not None and reason != ABANDON:
                continue
            if reason == ABANDON:
                out.append(
                    {"seat": None, "decision_id": None, "kind": None, "deadline": at}
                    | {"reason": ABANDON}
                )
                continue
            decision = None if reason == GRACE else key.removeprefix(f"{SHOW}:")
            out.append(
                {
                    "seat": s,
                    "decision_id": decision,
                    "kind": kinds.get(decision) if decision else None,
                    "deadline": at,
                    "reason": reason,
                }
            )
        return out

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
            limits={"message_bytes": self.ctx.options.message_bytes},
            settings=self.public_settings(),
            board=self.board(),
            # A custom course's file, so that a remote bot can plan on it (protocol 1.11).
            **({"course_file": self.settings.course_text} if self.settings.course_text else {}),
            **self.talk.welcome(conn),
        )

    def game_over_message(self) -> dict[str, Any]:
        return message(
            "game_over",
            game_id=self.id,
            outcome=self.outcome,
            seed=self.public_settings()["seed"],
            seed_commitment=self.settings.commitment,
            record_url=f"/api/games/{self.id}/record",
            replay_url=f"/api/games/{self.id}/replay",
        )

    async def replay_json(self) -> str:
        """Events, actions and public frames of a finished game (protocol 1.8), as JSON text
        (built in a worker, then kept)."""
        if self.replay_text is None:
            async with self.lock:
                parts: dict[str, str] = await self._call("replay")
                await self._release_host()
            seats = [
                {"seat": s.index, "name": s.name, "kind": s.kind, "bot": s.bot_kind}
                for s in self.seats
            ]
            head = {
                "v": PROTOCOL_VERSION,
                "game_id": self.id,
                "settings": self.public_settings(),
                "seats": seats,
                "board": self.board(),
                "outcome": self.outcome,
            }
            self.replay_text = with_raw(head, **parts)
        text = self.replay_text
        self.slim_down()
        return text

    # ------------------------------------------------------- the worker
    def _views(self) -> list[View]:
        """The views some connection watches (their observations come with every update)."""
        return sorted({c.seat for c in self.conns if c.hello}, key=lambda v: -1 if v is None else v)

    async def _open_host(self) -> None:
        """Build the game in a worker from the stored actions (the store is the truth)."""
        if self.stored_actions is None:
            stored = await self.ctx.store.run(Store.load, self.id)
            self.stored_actions = [] if stored is None else stored.actions
        update: Update = await self.ctx.pool.open(
            self.id, self.lane, self._spec(self.stored_actions), self._views()
        )
        self.stored_actions = None
        self._absorb(update)

    async def _call(self, op: str, *args: Any) -> Any:
        """Call the game's host; a lost worker is replaced and the game rebuilt, once."""
        for attempt in (1, 2):
            if self.ctx.pool.misplaced(self.id, self.lane):  # bot work goes to the bots' lane
                log.info("game %s: moves to the %s lane", self.id, self.lane)
                await self.ctx.pool.close(self.id)
            if not self.ctx.pool.holds(self.id):
                await self._open_host()
            try:
                return await self.ctx.pool.call(self.id, op, *args)
            except (HostLost, WorkerLost):
                if attempt == 2:
                    raise
                log.warning("game %s: its worker was lost; rebuilding the game", self.id)
        raise AssertionError("unreachable")

    async def _release_host(self) -> None:
        """A finished game needs no worker: its mirror answers everyone, with every seat's
        observation fetched once before the worker forgets the game."""
        if self.status != FINISHED or not self.ctx.pool.holds(self.id):
            return
        missing = [v for v in [None, *range(len(self.seats))] if v not in self.views]
        if missing:
            self.views.update(await self.ctx.pool.call(self.id, "views", missing))
        await self.ctx.pool.close(self.id)

    async def load(self) -> None:
        """A finished game from the store: rebuild it once in a worker for its events and
        observations."""
        async with self.lock:
            await self._open_host()
            await self._release_host()
            self.slim = False

    def slim_down(self) -> None:
        """A finished game nobody watches keeps only its summary, outcome and record: its
        events, observations and replay go (most of a game's memory) and are built again from
        the store when a page connects (:meth:`_hello`) or the replay is asked for."""
        if self.status != FINISHED or self.conns:  # a page connects or watches
            return
        if self.ctx.pool.holds(self.id):  # still rebuilding (a replay under way)
            return
        self.events, self.views, self.pending, self.answered = [], {}, [], []
        self.appeared, self.show_by, self._events_texts = {}, {}, {}
        self.replay_text = self.stored_actions = None
        self.slim = True

    def _absorb(self, update: Update) -> None:
        """Take what the worker reports into the mirror (events it had sent already are
        skipped: a rebuilt game reports everything again)."""
        for offset, event in enumerate(update.events):
            index = update.first_event + offset
            if index == len(self.events):
                self.events.append(event)
                self._events_texts.clear()
        self.saved = max(self.saved, update.first_action + len(update.actions))
        for decision in update.pending:  # a new programming phase: last round's presets go
            if decision.kind == "program" and decision.id not in self.appeared:
                self.seats[decision.seat].presets.clear()
        for seat, kind in update.presets_used:
            self.seats[seat].presets.pop(kind, None)
        self.pending = update.pending
        self.appeared = {d.id: self.appeared.get(d.id, len(self.events)) for d in self.pending}
        self.show_by = {k: v for k, v in self.show_by.items() if k in self.appeared}
        self.answered = update.answered
        self.views = dict(update.views)
        self.round = update.round
        if update.outcome is not None:
            self.outcome = update.outcome
        if update.record is not None:
            self.record = update.record

    async def _change(
        self, op: str, *args: Any, stored: Callable[[], None] | None = None
    ) -> Update:
        """Run a change in the worker, store what it did, and only then make it visible
        (``stored`` runs first: the acknowledgement comes before the state it caused).

        If storing fails, the worker goes back to the stored actions and :class:`StoreError`
        is raised: nothing changed, in memory or on disk."""
        if self.closed:
            raise StoreError(f"game {self.id} is not run by this process any more")
        update: Update = await self._call(op, *args)
        new = [
            row
            for offset, row in enumerate(update.actions)
            if update.first_action + offset >= self.saved
        ]
        finishing = update.outcome is not None and self.status == RUNNING
        try:
            if new or finishing:
                await self.ctx.store.run(
                    Store.append_actions,
                    self.id,
                    self.saved,
                    new,
                    status=FINISHED if finishing else None,
                    result=update.outcome["result"] if finishing and update.outcome else None,
                    record=update.record if finishing else None,
                )
        except StoreError as error:
            log.error("game %s: could not save %d action(s): %s", self.id, len(new), error)
            rolled: Update = await self._call("rollback", self.saved, self._views())
            self._absorb(rolled)
            if isinstance(error, OwnershipLost) and self.ctx.taken_over is not None:
                self.ctx.taken_over(self.id)
            raise
        self._absorb(update)
        self.failures = 0
        if stored is not None:
            stored()
        if finishing:
            self.status = FINISHED
            log.info("game %s: over: %s", self.id, self.outcome and self.outcome["result"])
        self._after_change(finishing)
        if update.more:
            self._schedule_drive()
        elif finishing:
            await self._release_host()
            self.slim_down()
        return update

    async def _automatic(self, op: str, *args: Any) -> bool:
        """A change nobody waits for (bots, deadlines): if it fails (a save, a worker), it is
        tried again later, so the game never stops. Whether it was made (and everyone told)."""
        try:
            await self._change(op, *args)
        except StoreError:
            self._retry_later()
            return False
        except (WorkerLost, HostLost, RuntimeError) as error:
            log.error("game %s: %s failed: %s", self.id, op, error)
            self._retry_later()
            return False
        return True

    def _retry_later(self) -> None:
        if self.closed:
            return
        wait = RETRY_SECONDS[min(self.failures, len(RETRY_SECONDS) - 1)]
        self.failures += 1
        log.warning("game %s: trying the save again in %g s", self.id, wait)

        async def retry() -> None:
            await asyncio.sleep(wait)
            async with self.lock:
                if self.status == RUNNING:
                    await self._automatic("drive", self._play())
                    self._reschedule()

        self.retry_task = asyncio.get_running_loop().create_task(retry())

    def _play(self) -> Play:
        """How the worker goes on after a change (auto-played seats, presets, views)."""
        presets = {s.index: dict(s.presets) for s in self.seats if s.presets and not s.auto}
        # No person's seat is answered at once, not even one that is away: its decisions wait
        # their short clock (AWAY), so the game never runs ahead of the people watching it.
        return Play([], self._views(), self.ctx.options.slice_seconds, presets)

    def _schedule_drive(self) -> None:
        """The bots have more to do: go on in a task that takes the lock slice by slice, so
        the room's connections are served in between."""
        if self.closed or (self.drive_task is not None and not self.drive_task.done()):
            return

        async def drive() -> None:
            await asyncio.sleep(0)
            async with self.lock:
                if self.status != RUNNING:
                    return
                self.drive_task = None
                await self._automatic("drive", self._play())

        self.drive_task = asyncio.get_running_loop().create_task(drive())

    async def _refresh_view(self, view: View) -> None:
        """Fetch an observation nobody watched until now (a new connection's)."""
        if view in self.views or self.status == OPEN:
            return
        self.views.update(await self._call("views", [view]))
        await self._release_host()

    # ------------------------------------------------------- connections
    def attach(self, conn: Connection) -> None:
        self.conns.add(conn)

    async def detach(self, conn: Connection) -> None:
        async with self.lock:
            self.conns.discard(conn)
            self.slim_down()
            if conn.seat is None or not conn.hello:
                return
            self.touched = time.time()  # only seat holders keep a lobby open
            seat = self.seats[conn.seat]
            if conn in seat.conns:
                seat.conns.remove(conn)
            if not seat.conns:
                seat.away_since = time.time()
                if self.status == OPEN:
                    seat.ready = False
                log.info("game %s: seat %d disconnected", self.id, seat.index)
            self._reschedule()
            self._broadcast()

    async def handle(self, conn: Connection, text: str) -> None:
        """Handle one text frame from a client; refusals get an ``error`` reply that carries
        the client's ``id`` as ``ref``, and a log line."""
        kind: str | None = None
        ref: str | int | None = None
        try:
            msg = parse_message(text, self.ctx.options.message_bytes)
            kind, ref = msg.type, msg.ref
            if not conn.allow():
                raise ProtocolError("rate_limited", "too many messages; slow down", ref)
            if msg.type == "ping":
                conn.send(
                    message("pong", t=msg.data.get("t"), server_time=time.time(), ref=msg.ref)
                )
                return
            if not conn.hello and msg.type != "hello":
                raise ProtocolError("hello_required", "send 'hello' first", msg.ref)
            async with self.lock:
                free = await self._dispatch(conn, msg)
            if free:  # an accepted decision, a report of progress: paced by the game
                conn.refund()
            conn.strikes = 0
        except ProtocolError as error:
            if error.ref is None:
                error.ref = ref
            self.refuse(conn, error, kind)
        except Exception:  # a server bug: say so, keep the socket and the room
            log.exception("game %s: internal error on %s", self.id, kind)
            conn.send(
                error_message("internal_error", "the server failed on this message", ref, kind)
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
        reply = error_message(error.code, error.message, error.ref, kind)
        if error.retry_after:
            reply["retry_after"] = error.retry_after
        conn.send(reply)
        if error.code in ("bad_token", "bad_invite", "invite_used"):
            conn.close(CLOSE_BAD_TOKEN)
        elif error.code in ("server_full", "too_many_spectators"):
            conn.close(1013)  # "try again later"
        elif error.code == "rate_limited":
            conn.strikes += 1
            if conn.strikes >= RATE_STRIKES:
                log.warning(
                    "connection %s: closed after %d refusals for rate", conn.peer, conn.strikes
                )
                conn.close(1008)

    async def _dispatch(self, conn: Connection, msg: ClientMessage) -> bool:
        """Carry out one message; whether it costs nothing of the socket's message budget."""
        try:
            if msg.type == "hello":
                await self._hello(conn, msg)
            elif msg.type == "sync":
                since = field_index(msg.data, "since")
                await self._send_update(conn, since)
            elif msg.type == "ready":
                await self._ready(conn, msg)
            elif msg.type == "start":
                await self._start(conn, msg)
            elif msg.type == "decide":
                await self._decide(conn, msg)
                return True
            elif msg.type == "draft":
                self._draft(conn, msg)
            elif msg.type == "back":
                self._back(conn, msg)
            elif msg.type == "shown":
                return self._shown(conn, msg)
            elif msg.type == "preset":
                self._preset(conn, msg)
            elif msg.type == "preview":
                await self._preview(conn, msg)
            elif msg.type == "invite":
                await self._invite(conn, msg)
            elif msg.type == "close_others":
                await self._close_others(conn, msg)
            elif msg.type in social.TYPES:
                await social.handle(self, conn, msg)
        except ProtocolError as error:
            if error.ref is None:
                error.ref = msg.ref
            raise
        except Refused as refusal:
            raise ProtocolError(refusal.code, refusal.message, msg.ref) from None
        except StoreError:
            raise ProtocolError(
                "storage_failed",
                "the server could not save this, so nothing changed; try again in a moment",
                msg.ref,
            ) from None
        return False

    async def _send_update(self, conn: Connection, since: int | None) -> None:
        """Events from ``since`` (or the connection's cursor) and the state, to one connection."""
        total = len(self.events)
        first = conn.cursor if since is None else min(since, total)
        if first < total:
            conn.send_text(self.events_text(first, total, conn.seat))
        conn.cursor = total
        await self._refresh_view(conn.seat)
        conn.send_text(self.state_text(conn.seat))

    async def _hello(self, conn: Connection, msg: ClientMessage) -> None:
        if conn.hello:
            raise ProtocolError("out_of_phase", "'hello' was already sent")
        seat_index, by_invite = self._seat_of_hello(conn, msg.data)
        name = None
        if msg.data.get("name") is not None and seat_index is not None and self.status == OPEN:
            name = clean_name(msg.data["name"])
            if self.name_taken(name, seat_index):
                raise ProtocolError(
                    "name_taken",
                    f"another player in this game is called {self.name_like(name, seat_index)}",
                )
        since = field_index(msg.data, "since")
        speed = _speed(msg.data)
        if self.slim:  # a finished game's events and views, built again from the store
            await self._open_host()
            await self._release_host()
            self.slim = False
        seat = None if seat_index is None else self.seats[seat_index]
        minted = None if seat is None else await self._take_seat(seat, name, by_invite)
        # Accepted: from here on the room changes.
        conn.hello = True
        conn.seat = seat_index
        if speed is not None:
            conn.speed = speed
        token = msg.data.get("token") if minted is None else minted
        conn.token = token if seat_index is not None else None  # for its rematch seat
        total = len(self.events)
        conn.cursor = total if since is None else min(since, total)
        if seat is not None:
            self._seat_connected(seat, conn)
        await self._refresh_view(conn.seat)
        await social.prepare(self)
        welcome = self.welcome_message(conn)
        if minted is not None:  # the seat's own token: only this socket ever sees it
            welcome["token"] = minted
        conn.send(welcome)
        if seat is not None:  # a seat came: everyone sees it connected, its timers change
            self._reschedule()
            self._broadcast()
        else:  # a spectator changes nothing anyone else sees: no message for a hundred others
            if conn.cursor < len(self.events):
                conn.send_text(self.events_text(conn.cursor, len(self.events), None))
                conn.cursor = len(self.events)
            conn.send_text(self.state_text(None))
        if self.status == FINISHED:
            conn.send(self.game_over_message())

    def _seat_of_hello(self, conn: Connection, data: dict[str, Any]) -> tuple[int | None, bool]:
        """The seat a ``hello`` opens (``None``: a spectator's) and whether it came with the
        seat's invite (then the seat gets a token of its own)."""
        token, invite = data.get("token"), data.get("invite")
        if token is not None and invite is not None:
            raise ProtocolError("bad_message", "a hello carries a 'token' or an 'invite', not both")
        if token is not None:
            usable = isinstance(token, str) and len(token) <= 200
            index = self.seat_for_token(token) if usable else None
            if index is None:
                raise ProtocolError("bad_token", "the token is not valid for this game")
            return index, False
        if invite is not None:
            return self._invited(invite).index, True
        self._admit_spectator(conn)
        return None, False

    def _invited(self, invite: Any) -> Seat:
        """The seat an invite code opens: a seat nobody holds yet."""
        digest = token_hash(invite) if isinstance(invite, str) and len(invite) <= 200 else None
        seat = next(
            (
                s
                for s in self.seats
                if digest and s.invite_hash and hmac.compare_digest(s.invite_hash, digest)
            ),
            None,
        )
        if seat is None:
            raise ProtocolError(
                "bad_invite",
                "this invite link does not open a seat: the host may have made a new link for"
                " the seat; ask them for it, or watch the game",
            )
        if seat.held:
            raise ProtocolError(
                "invite_used",
                f"{seat.name}'s seat is taken: its invite link was used already, and only the"
                " player who used it can play the seat; you can still watch the game",
            )
        return seat

    def _admit_spectator(self, conn: Connection) -> None:
        """A spectator gets in while the game and the address have room (seat holders always
        do): a few addresses cannot fill a game's places."""
        options = self.ctx.options
        if self.spectator_count() >= options.spectators_per_game:
            raise ProtocolError(
                "server_full", "this game has as many spectators as it can take; try later"
            )
        watching = (c for c in self.conns if c.hello and c.seat is None)
        mine = sum(1 for c in watching if c.address == conn.address)
        if mine >= options.spectators_per_address:
            raise ProtocolError(
                "too_many_spectators",
                f"this address already watches this game in {mine} places (the limit is"
                f" {options.spectators_per_address}); close one of them",
            )

    async def _take_seat(self, seat: Seat, name: str | None, by_invite: bool) -> str | None:
        """Mark the seat taken (renamed, and by invite given a fresh token: returned), saved
        first: a seat is taken only if the store says so."""
        minted = secrets.token_urlsafe(18) if by_invite else None
        if minted is None and seat.taken and (name is None or name == seat.name):
            return None
        changes: dict[str, Any] = {"taken": True, "name": name or seat.name}
        if minted is not None:
            changes["token_hash"] = token_hash(minted)
        await self._change_seat(seat, **changes)
        if minted is not None:
            log.info("game %s: seat %d taken by its invite", self.id, seat.index)
        return minted

    async def _change_seat(self, seat: Seat, **changes: Any) -> None:
        """Change a seat's stored fields and save the seats; if the save fails the seat is
        as it was (a seat is taken, renamed or given a token only if the store says so)."""
        before = {key: getattr(seat, key) for key in changes}
        for key, value in changes.items():
            setattr(seat, key, value)
        try:
            await self._save_seats()
        except StoreError:
            for key, value in before.items():
                setattr(seat, key, value)
            raise

    def _seat_connected(self, seat: Seat, conn: Connection) -> None:
        seat.conns.append(conn)
        seat.away_since = None
        self.unattended = False  # a person is in it now
        self.touched = time.time()
        while len(seat.conns) > self.ctx.options.connections_per_seat:
            oldest = seat.conns.pop(0)
            oldest.send(error_message("replaced", "this seat was opened somewhere else"))
            oldest.close(CLOSE_REPLACED)
        self._seat_back(seat)

    def name_like(self, name: str, seat: int | None = None) -> str:
        """The name of the seat other than ``seat`` that ``name`` clashes with, for a
        refusal ("Ada", or "Ada (the names look the same)" for a look-alike)."""
        others = (s.name for s in self.seats if s.index != seat and same_name(s.name, name))
        other = next(others, name)
        return other if other == name else f"{other} (the names look the same)"

    async def new_invite(self, index: int | None) -> str:
        """A new invite code for human seat ``index`` that nobody holds (its old code stops
        working); the lock is held. Refused for a held seat: a seat belongs to its holder."""
        seat = next((s for s in self.seats if s.index == index and s.human), None)
        if seat is None:
            raise ProtocolError("unknown_seat", f"seat {index} is not a player's seat of this game")
        if self.status not in (OPEN, RUNNING):
            raise ProtocolError("out_of_phase", "the game is over")
        if seat.held:
            raise ProtocolError(
                "seat_taken",
                f"{seat.name} holds this seat; only a seat nobody holds gets a new invite",
            )
        code = secrets.token_urlsafe(12)
        await self._change_seat(seat, invite_hash=token_hash(code))
        log.info("game %s: a new invite for seat %d", self.id, seat.index)
        return code

    async def _invite(self, conn: Connection, msg: ClientMessage) -> None:
        """The host seat asks for a new invite link of a seat nobody holds (a rematch's
        waiting room has no host token: its host is the host seat's holder)."""
        seat = self._own_seat(conn)
        if seat.index != self.host_seat:
            raise ProtocolError("not_host", "only the host makes invite links")
        index = field_index(msg.data, "seat")
        code = await self.new_invite(index)
        conn.send(
            message(
                "ack",
                ref=msg.ref,
                seat=index,
                invite=code,
                url=social.invite_path(self.id, code),
                **{"for": "invite"},
            )
        )

    async def _close_others(self, conn: Connection, msg: ClientMessage) -> None:
        """The seat's other connections are closed and its token replaced by a new one, sent
        only to this socket: whoever else held the seat's link (a lost phone, a shared
        screen) cannot open it again."""
        seat = self._own_seat(conn)
        fresh = secrets.token_urlsafe(18)
        await self._change_seat(seat, token_hash=token_hash(fresh))
        conn.token = fresh
        others = [c for c in seat.conns if c is not conn]
        reply = message("ack", ref=msg.ref, token=fresh, closed=len(others))
        conn.send(reply | {"for": "close_others"})
        for other in others:
            seat.conns.remove(other)
            other.send(
                error_message(
                    "signed_out",
                    "your seat was closed here from another device that holds it; this link"
                    " no longer opens it",
                )
            )
            other.close(CLOSE_BAD_TOKEN)
        log.info("game %s: seat %d closed %d other connection(s)", self.id, seat.index, len(others))
        self._broadcast()

    async def _save_seats(self) -> None:
        await self.ctx.store.run(Store.update_game, self.id, seats=[s.stored() for s in self.seats])

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
        await self.start_game()
        conn.send(message("ack", ref=msg.ref, **{"for": "start"}))

    def _back(self, conn: Connection, msg: ClientMessage) -> None:
        seat = self._own_seat(conn)
        self._seat_back(seat)
        conn.send(message("ack", ref=msg.ref, **{"for": "back"}))
        self._reschedule()
        self._broadcast()

    def _shown(self, conn: Connection, msg: ClientMessage) -> bool:
        """The page has finished showing the events before ``event``: the clocks of its seat's
        decisions that waited for that start now (fair time). Whether it told something new."""
        seat = self._own_seat(conn)
        shown = field_index(msg.data, "event")
        if shown is None:
            raise ProtocolError("bad_message", "'shown' needs 'event', the next event not shown")
        speed = _speed(msg.data)
        if speed is not None:
            conn.speed = speed
        conn.reported = True
        advanced = min(shown, len(self.events)) > conn.shown
        conn.shown = min(max(conn.shown, shown), len(self.events))
        before = seat.shown
        seat.shown = max(c.shown for c in seat.conns)
        if seat.shown > before and any(k.startswith(SHOW) for k in self.deadlines):
            deadlines = self.deadlines
            self._reschedule()
            if self.deadlines != deadlines:  # a clock started: everyone sees it
                self._broadcast()
        return advanced

    def _preset(self, conn: Connection, msg: ClientMessage) -> None:
        """An answer given ahead of its question (this round): the facing a rebooted robot
        re-enters with, chosen while programming. ``choice: null`` takes it back."""
        seat = self._own_seat(conn)
        if self.status != RUNNING:
            raise ProtocolError("out_of_phase", "presets are for a running game")
        kind = field_str(msg.data, "decision_kind", max_len=40)
        if kind not in PRESETS:
            raise ProtocolError(
                "bad_message", f"only these questions take an answer ahead: {', '.join(PRESETS)}"
            )
        choice = msg.data.get("choice")
        if choice is None:
            seat.presets.pop(kind, None)
        elif choice in PRESETS[kind]:
            seat.presets[kind] = choice
        else:
            raise ProtocolError(
                "invalid_action", f"{kind} is one of {', '.join(PRESETS[kind])} (or null)"
            )
        self._save_runtime()
        conn.send(message("ack", ref=msg.ref, decision_kind=kind, **{"for": "preset"}))

    def _own_seat(self, conn: Connection) -> Seat:
        if conn.seat is None:
            raise ProtocolError("not_a_player", "spectators cannot act")
        return self.seats[conn.seat]

    def _pending_for(self, conn: Connection, decision_id: str) -> PendingOut:
        if self.status == OPEN:
            raise ProtocolError("out_of_phase", "the game has not started")
        if self.status != RUNNING:
            raise ProtocolError("out_of_phase", "the game is over")
        decision = next((d for d in self.pending if d.id == decision_id), None)
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
        seat = self._own_seat(conn)
        decision_id = field_str(msg.data, "decision_id", max_len=100)
        if "choice" not in msg.data:
            raise ProtocolError("bad_message", "'decide' needs a 'choice'")
        decision = self._pending_for(conn, decision_id)

        def acknowledge() -> None:  # saved before it is acknowledged
            seat.drafts.pop(decision.id, None)
            self._seat_back(seat)  # an answer of its own: the player is here
            conn.send(message("ack", ref=msg.ref, decision_id=decision.id, **{"for": "decide"}))

        await self._change(
            "decide",
            decision.id,
            decision.seat,
            msg.data["choice"],
            self._play(),
            stored=acknowledge,
        )

    def _program_of(self, conn: Connection, msg: ClientMessage) -> tuple[PendingOut, list[Any]]:
        """The pending program decision a ``draft`` or ``preview`` names, and its five
        registers (card names or ``None``) as sent."""
        decision_id = field_str(msg.data, "decision_id", max_len=100)
        decision = self._pending_for(conn, decision_id)
        if decision.kind != "program":
            raise ProtocolError("invalid_action", f"only a program decision takes a {msg.type}")
        program = msg.data.get("program")
        if not isinstance(program, list) or len(program) != NUM_REGISTERS:
            raise ProtocolError("invalid_action", f"a {msg.type} lists {NUM_REGISTERS} registers")
        cleaned: list[str | None] = []
        for entry in program:
            if entry is None:
                cleaned.append(None)
            elif isinstance(entry, str) and len(entry) <= 40:
                cleaned.append(entry.strip().lower())
            else:
                raise ProtocolError("invalid_action", f"{entry!r} is not a card name")
        return decision, cleaned

    async def _preview(self, conn: Connection, msg: ClientMessage) -> None:
        """Where the robot would end after each register of a (partial) program if nothing
        else moved it (the engine's own rules, computed in the game's worker): to this
        socket only. The seat's presets (the reboot facing chosen while programming) are used
        as the server will use them. Nothing changes; nothing hidden is used."""
        decision, program = self._program_of(conn, msg)
        presets = dict(self.seats[decision.seat].presets)
        registers = await self._call("preview", decision.seat, program, presets)
        conn.send(
            message(
                "preview",
                ref=msg.ref,
                decision_id=decision.id,
                program=program,
                registers=registers,
            )
        )

    def _draft(self, conn: Connection, msg: ClientMessage) -> None:
        seat = self._own_seat(conn)
        decision, cleaned = self._program_of(conn, msg)
        info = decision.data["info"]
        locked = info["locked"]
        if any(c is not None and i + 1 in locked for i, c in enumerate(cleaned)):
            raise ProtocolError("illegal_action", "a locked register cannot be programmed")
        have = Counter(info["hand"])
        for name, count in Counter(c for c in cleaned if c is not None).items():
            if have[name] < count:
                raise ProtocolError(
                    "illegal_action",
                    f"{name} is used {count} time(s) but the hand holds {have[name]}",
                )
        seat.drafts = {decision.id: cleaned}
        self._save_runtime()
        conn.send(message("ack", ref=msg.ref, decision_id=decision.id, **{"for": "draft"}))

    # ---------------------------------------------------------- changes
    async def start_game(self) -> None:
        """Start the game (the lock is held, or the room is not shared yet)."""
        if self.status != OPEN:
            return
        now = time.time()
        await self.ctx.store.run(
            Store.update_game, self.id, status=RUNNING, seats=[s.stored() for s in self.seats]
        )
        self.status = RUNNING
        for seat in self.seats:
            if seat.human and not seat.conns:
                seat.away_since = now
        log.info("game %s: started (%s, %d seats)", self.id, self.settings.course, len(self.seats))
        # Everyone connected in the lobby gets the whole game from its first event.
        for conn in self.conns:
            conn.cursor = 0
        self.stored_actions = []
        if self.lane == BOTS:  # nobody waits for a game of bots: it is built and played later
            self._schedule_drive()
            return
        await self._open_host()
        if not await self._automatic("drive", self._play()):
            self._after_change(False)

    def _after_change(self, finished: bool) -> None:
        """Reset the deadlines and tell everyone; a finished game says so."""
        self._reschedule()
        self._broadcast()
        if finished:
            text = dumps(self.game_over_message())
            for conn in self.conns:
                if conn.hello:
                    conn.send_text(text)

    def _broadcast(self) -> None:
        """Send every connection the events it has not seen, then the state as it may see it."""
        total = len(self.events)
        states: dict[View, str] = {}
        events: dict[tuple[int, View], str] = {}
        private: dict[int, bool] = {}
        for conn in list(self.conns):
            if not conn.hello or conn.closed:
                continue
            first = conn.cursor
            if first < total:
                if first not in private:
                    private[first] = any(e.private for e in self.events[first:total])
                key = (first, conn.seat if private[first] else None)
                if key not in events:
                    events[key] = self.events_text(first, total, key[1])
                conn.send_text(events[key])
                conn.cursor = total
            if conn.seat not in states:
                states[conn.seat] = self.state_text(conn.seat)
            conn.send_text(states[conn.seat])

    # ------------------------------------------------------------ timers
    def _clock(self, d: PendingOut) -> tuple[float, str]:
        """The length and kind of a decision's clock."""
        settings = self.settings
        if d.kind == "program":
            if d.timer is not None:  # the engine marks a timed decision (classic sand timer)
                return settings.timer_seconds or d.timer, TIMER
            speed = self.timer_rule.kind == "speed" and self.timer_rule.variant in settings.variants
            if speed:
                return settings.timer_seconds, TIMER
            return settings.program_seconds, IDLE
        return settings.decision_seconds, DECISION

    def _clock_start(self, d: PendingOut, seat: Seat, now: float) -> float | None:
        """When a new clock of ``d`` starts: now, if the seat's page has shown everything that
        came before the decision (or nobody is there to show it to); else once it has, and at
        the latest a few seconds per unseen event later. ``None``: not yet."""
        appeared = self.appeared.get(d.id, len(self.events))
        if seat.shown >= appeared or not seat.conns:
            return now
        wait = self._show_allowance(seat, appeared)
        start = self.show_by.setdefault(d.id, now + wait)
        return start if start <= now else None

    def _show_allowance(self, seat: Seat, appeared: int) -> float:
        """How long a decision's clock may wait for the seat's page to show the events before
        it: the server's estimate of their animation at the speed the seat's pages chose (the
        slowest of those that report), never more than ``show_seconds``; a seat none of whose
        pages has ever said ``shown`` gets only the base wait."""
        speeds = [c.speed for c in seat.conns if c.reported]
        wait = SHOW_BASE_SECONDS
        if speeds:
            unseen = (e.beats for e in self.events[seat.shown : appeared])
            wait += showtime.seconds(unseen, min(speeds))
        return min(self.ctx.options.show_seconds, wait)

    def _reschedule(self) -> None:
        """Work out every deadline (keeping those already running) and arm one timer task.
        A running game with people's seats but no person connected is paused: its clocks
        stand still until somebody comes back (only the abandon deadline runs)."""
        if self.closed:  # its clocks are the next owner's now: neither run nor save them
            return
        now = time.time()
        if self._nobody_here():
            new = self._pause(now)
        else:
            self._unpause(now)
            new = self._deadlines(now) if self.status == RUNNING else {}
        self.deadlines = new
        self._save_runtime()
        current = asyncio.current_task()
        if self.timer_task is not None and self.timer_task is not current:
            self.timer_task.cancel()
        self.timer_task = None
        running = [
            at for at, reason, _ in new.values() if self.paused_at is None or reason == ABANDON
        ]
        if running:
            self.timer_task = asyncio.get_running_loop().create_task(self._timer(min(running)))

    def _nobody_here(self) -> bool:
        """Whether this is a running game of people none of whom is connected (a game of
        bots only never waits for anyone)."""
        people = [s for s in self.seats if s.human]
        return self.status == RUNNING and bool(people) and not any(s.conns for s in people)

    def _pause(self, now: float) -> dict[str, tuple[float, str, int]]:
        """The deadlines of a paused game: the others kept as they stood (they move on by
        the pause's length when it ends), and the end of the wait."""
        if self.paused_at is None:
            self.paused_at = now
            log.info("game %s: nobody is connected; paused", self.id)
        new = {k: v for k, v in self.deadlines.items() if v[1] != ABANDON}
        new[ABANDON] = (self.paused_at + self.ctx.options.abandon_seconds, ABANDON, -1)
        return new

    def _unpause(self, now: float) -> None:
        """Somebody is back: every clock goes on from where it stood when the pause began."""
        if self.paused_at is None:
            return
        shift = now - self.paused_at
        self.paused_at = None
        self.deadlines = {
            k: (at + shift, reason, seat)
            for k, (at, reason, seat) in self.deadlines.items()
            if reason != ABANDON
        }
        self.show_by = {k: at + shift for k, at in self.show_by.items()}
        for seat in self.seats:
            if seat.away_since is not None and not seat.conns:
                seat.away_since += shift
        log.info("game %s: somebody is back after %.0f s; the clocks go on", self.id, shift)

    def _deadlines(self, now: float) -> dict[str, tuple[float, str, int]]:
        """The deadlines of a running game nobody paused: each person's pending decision has
        its clock (a seat that is away: ``away_seconds``), each absent seat its grace period."""
        old = self.deadlines
        new: dict[str, tuple[float, str, int]] = {}
        settings = self.settings
        for d in self.pending:
            seat = self.seats[d.seat]
            if not seat.human:
                continue
            length, reason = self._clock(d)
            if seat.auto:  # away: the game plays it, at a pace people can follow
                length, reason = self.ctx.options.away_seconds, AWAY
            kept = old.get(d.id)  # a running deadline stays, unless its kind changed
            if kept is not None and kept[1] == reason:
                new[d.id] = kept
                continue
            if length <= 0:
                continue
            start = now if seat.auto else self._clock_start(d, seat, now)
            if start is None:
                new[f"{SHOW}:{d.id}"] = (self.show_by[d.id], SHOW, d.seat)
            else:
                new[d.id] = (start + length, reason, d.seat)
        for seat in self.seats:
            if seat.human and not seat.auto and not seat.conns:
                away = seat.away_since if seat.away_since is not None else now
                new[f"grace:{seat.index}"] = (away + settings.grace_seconds, GRACE, seat.index)
        return new

    async def _timer(self, at: float) -> None:
        await asyncio.sleep(max(0.0, at - time.time()))
        async with self.lock:
            if asyncio.current_task() is not self.timer_task:
                return
            try:
                await self._expire()
            except Exception:
                log.exception("game %s: timer failed", self.id)
                self._reschedule()

    async def _expire(self) -> None:
        """Deadlines passed. A paused game waited long enough: it is abandoned. Otherwise a
        seat without a connection past its grace period is away; each expired decision gets
        its default (that decision only: the next one has its whole clock again), and a
        connected seat that let MISSES_AWAY deadlines pass in a row is marked away too."""
        now = time.time() + 0.002
        if self.paused_at is not None:
            if self.deadlines.get(ABANDON, (now + 1,))[0] <= now:
                await self._abandon()
            else:
                self._reschedule()
            return
        for at, reason, index in list(self.deadlines.values()):
            if reason == GRACE and at <= now and not self.seats[index].conns:
                self._mark_away(self.seats[index], "away")
        expired = [
            (d.id, self.seats[d.seat].drafts.get(d.id))
            for d in self.pending
            if d.id in self.deadlines and self.deadlines[d.id][0] <= now
        ]
        for decision_id, _ in expired:
            _, reason, index = self.deadlines[decision_id]
            log.info("game %s: %s expired (%s)", self.id, decision_id, reason)
            if reason in (DECISION, IDLE):
                self._missed(self.seats[index])
        if not expired:
            self._after_change(False)  # only clocks that start now: nothing to play
            return
        args = (expired, self._play())
        if self.status != RUNNING or not await self._automatic("expire", *args):
            self._after_change(False)

    def _missed(self, seat: Seat) -> None:
        """The seat let a deadline pass (its default was played): after MISSES_AWAY in a row
        it is away."""
        seat.missed += 1
        if seat.missed >= MISSES_AWAY:
            self._mark_away(seat, "idle")

    def _mark_away(self, seat: Seat, why: str) -> None:
        if not seat.auto:
            seat.auto, seat.auto_reason = True, why
            log.info("game %s: seat %d is away (%s); the game plays it", self.id, seat.index, why)

    def _seat_back(self, seat: Seat) -> None:
        """The seat's player is back (a socket, ``back``, a decision of their own)."""
        seat.missed = 0
        if seat.auto:
            seat.auto, seat.auto_reason = False, None
            log.info("game %s: seat %d is back", self.id, seat.index)

    async def abandon(self) -> bool:
        """End this paused game as abandoned now: the server needs its place (see
        ``GameServer._game_place``). Whether it ended: not if somebody came back first."""
        async with self.lock:
            if self.status != RUNNING or self.paused_at is None:
                return False
            await self._abandon()
            return self.status == ABANDONED

    async def _abandon(self) -> None:
        """Nobody came back for ``abandon_seconds``: the game ends unfinished (status
        ``abandoned``, its actions kept in the store), and the server forgets it."""
        log.info(
            "game %s: abandoned: nobody connected for %.0f s",
            self.id,
            time.time() - (self.paused_at or time.time()),
        )
        try:
            await self.ctx.store.run(Store.update_game, self.id, status=ABANDONED)
        except StoreError as error:  # tried again at the next timer
            log.error("game %s: could not be stored as abandoned: %s", self.id, error)
            self._retry_later()
            return
        self.status = ABANDONED
        await self.close(save=False)
        await self.ctx.pool.close(self.id)
        for conn in list(self.conns):
            conn.send(error_message("unknown_game", "this game was abandoned: nobody played it"))
            conn.close(CLOSE_UNKNOWN_GAME)
        if self.ctx.dropped is not None:
            self.ctx.dropped(self.id)

    async def close(self, save: bool = True) -> None:
        """Stop the timers and tasks for good (server shutdown, or the game's lease lost:
        then ``save=False``, the game is another process's); connections are closed by the
        app or moved by the cluster. A runtime save still to come is made first."""
        if save and self.runtime_save is not None:
            self._runtime_now()
        self.closed = True
        if self.runtime_save is not None:
            self.runtime_save.cancel()
            self.runtime_save = None
        for task in (self.timer_task, self.drive_task, self.retry_task):
            if task is not None:
                task.cancel()
        self.timer_task = self.drive_task = self.retry_task = None

    async def resume(self) -> None:
        """After loading from the store: rebuild the game, let bots catch up, and start the
        timers again."""
        async with self.lock:
            if self.status == RUNNING:
                await self._open_host()
                if await self._automatic("drive", self._play()):
                    return
            self._after_change(False)

    async def digest(self) -> dict[str, Any]:
        """The game's state digest and action count, from its worker (tests, red team)."""
        async with self.lock:
            result: dict[str, Any] = await self._call("digest")
            await self._release_host()
            return result


# Names the app module uses.
__all__ = [
    "ABANDONED",
    "BROKEN",
    "CLOSED",
    "FINISHED",
    "OPEN",
    "RUNNING",
    "Connection",
    "GameRoom",
    "GameSettings",
    "RoomContext",
    "Seat",
    "message",
    "parse_message",
    "token_hash",
]
