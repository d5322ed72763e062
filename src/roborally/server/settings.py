"""What a game was created with, as the server stores it, and the server's own settings.

:class:`GameSettings` is one game's options (stored with the game; the seed stays secret until
the game is over unless the host chose it, see docs/server.md "Fair shuffles").
:class:`ServerOptions` holds every server-wide default and limit; docs/server.md lists them.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any

from roborally.content.cards import damage_deck
from roborally.content.courses import CourseInfo, find_course, register_course_text
from roborally.engine.core.rng import (
    LEGACY_RNG,
    RNG_VERSION,
    parse_seed,
    seed_commitment,
    seed_text,
)
from roborally.engine.core.state import GameConfig


@dataclass
class GameSettings:
    """The options a game was created with.

    ``seed_chosen`` marks a seed the host picked: it is shown to every player before they join
    (whoever knows the seed knows every hand). A seed the server drew stays secret until the
    game is over; only its commitment (:attr:`commitment`) is public.
    """

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
    program_seconds: float = 300.0
    seed_chosen: bool = False
    rng: str = RNG_VERSION
    #: Tabletop mode: the creator's screen shows the board to the table and plays no seat, so
    #: every human seat gets an invite and no seat is the host's (the host token starts it).
    table: bool = False
    #: A custom course's file (its boards drawn inside; docs/server.md "Custom courses"): the
    #: game keeps it, so saves, restarts, workers, bots and records never need the store.
    #: Empty for a shipped course.
    course_text: str = ""
    _info: CourseInfo | None = field(default=None, init=False, repr=False, compare=False)

    @property
    def commitment(self) -> str:
        return seed_commitment(self.seed)

    def to_json(self) -> dict[str, Any]:
        """Everything, the seed included (for the store)."""
        return {
            "edition": self.edition,
            "course": self.course,
            "variants": list(self.variants),
            "timer_seconds": self.timer_seconds,
            "decision_seconds": self.decision_seconds,
            "program_seconds": self.program_seconds,
            "grace_seconds": self.grace_seconds,
            "max_rounds": self.max_rounds,
            "seed": seed_text(self.seed),
            "seed_chosen": self.seed_chosen,
            "rng": self.rng,
            "first_player": self.first_player,
            "public": self.public,
            "table": self.table,
        } | ({"course_text": self.course_text} if self.course_text else {})

    def public_json(self, reveal: bool = False) -> dict[str, Any]:
        """What every player and spectator may see: the seed only when the host chose it or
        ``reveal`` (the game is over); always its commitment."""
        data = self.to_json()
        data.pop("course_text", None)  # the board is sent as JSON; the file is the store's
        if not (reveal or self.seed_chosen):
            data["seed"] = None
        data["seed_commitment"] = self.commitment
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> GameSettings:
        seed = data["seed"]
        return cls(
            str(data["edition"]),
            str(data["course"]),
            tuple(data.get("variants", ())),
            float(data.get("timer_seconds", 0)),
            float(data.get("decision_seconds", 0)),
            float(data.get("grace_seconds", 30)),
            int(data.get("max_rounds", 0)),
            seed if isinstance(seed, int) else parse_seed(str(seed)),
            data.get("first_player"),
            bool(data.get("public", True)),
            float(data.get("program_seconds", 0)),
            bool(data.get("seed_chosen", False)),
            # Games stored before fair seeds keep the generator they started with.
            str(data.get("rng", LEGACY_RNG)),
            table=bool(data.get("table", False)),
            course_text=str(data.get("course_text") or ""),
        )

    def course_info(self) -> CourseInfo:
        """The game's course: a shipped one by id, or the custom course its text holds
        (registered in this process while these settings are kept, so that the bots and the
        records find it by id)."""
        if not self.course_text:
            return find_course(self.course)
        if self._info is None:
            info = register_course_text(self.course_text, f"{self.course}.course")
            if info.id != self.course:
                raise ValueError(f"the course text is of course {info.id!r}, not {self.course!r}")
            self._info = info
        return self._info

    def config(self, names: tuple[str, ...]) -> GameConfig:
        speed = self.edition == "2023" and "speed" in self.variants
        return GameConfig(
            self.course_info().course,
            names,
            seed=self.seed,
            edition=self.edition,
            variants=frozenset(self.variants),
            first_player=self.first_player,
            max_rounds=self.max_rounds,
            timer_seconds=round(self.timer_seconds) if speed else 0,
            damage_deck=damage_deck(),
            rng=self.rng,
        )


def _default_workers() -> int:
    return max(1, min(4, os.cpu_count() or 1))


@dataclass
class ServerOptions:
    """Server-wide defaults and limits. Every field is documented in docs/server.md; the
    command line sets the common ones (``roborally serve --help``)."""

    # Timers (seconds). A game may choose its own within [min_seconds, max_seconds].
    grace_seconds: float = 30.0  # a seat without a connection this long is away (auto-played)
    #: A seat that is away (no connection past grace_seconds, or 3 deadlines missed in a row)
    #: has this long for each decision before the game plays its default: never faster than
    #: a person could follow.
    away_seconds: float = 5.0
    #: A running game with nobody connected is paused (its clocks stop); it ends as abandoned
    #: after this long unless somebody comes back.
    abandon_seconds: float = 2 * 3600.0
    #: At max_games, a game paused this long is abandoned for a new one (the longest first);
    #: one paused for less keeps its place.
    paused_keep_seconds: float = 600.0
    show_seconds: float = 60.0  # the longest a clock waits for a page to finish its animation
    decision_seconds: float = 60.0  # deadline of a decision other than programming
    program_seconds: float = 300.0  # deadline of programming when the game has no timer
    min_seconds: float = 5.0  # the smallest timer a client may ask for
    max_seconds: float = 3600.0
    max_rounds: int = 50
    # Games.
    max_games: int = 2_000  # open and running games at once
    max_bot_games: int = 40  # running games without a human seat at once
    keep_finished: int = 200  # finished games kept in memory (the others reload on demand)
    lobby_seconds: float = 15 * 60.0  # an open game no seat holder used this long closes
    #: Open games (lobbies) at once, well below max_games: running games and new creators keep
    #: room when many addresses create lobbies nobody uses (the oldest unused one makes room).
    max_lobbies: int = 400
    # Per client address.
    connections_per_address: int = 32  # WebSockets open at once
    requests_per_second: float = 20.0  # calls of the HTTP API (/api/...) on average
    request_burst: int = 100  # API calls at once before the rate applies
    games_per_minute: int = 10  # games created (a burst of this many, then one every 6 s)
    lobbies_per_address: int = 5  # open games created and not yet started
    bot_games_per_address: int = 4  # running games without a human seat
    # Per game and per connection.
    spectators_per_game: int = 100  # connections without a seat (seat holders always get in)
    spectators_per_address: int = 8  # of one game from one address (a few cannot fill a game)
    connections_per_seat: int = 4  # a fifth connection for one seat replaces the oldest
    hello_seconds: float = 10.0  # a socket that has not said hello by then is closed
    message_bytes: int = 65_536  # the largest WebSocket message and request body (up to 1 MiB)
    messages_per_second: float = 50.0  # per socket on average; accepted decisions are free
    message_burst: int = 100  # messages a socket may send at once before the rate applies
    send_queue_bytes: int = 4 << 20  # unsent bytes a connection may have before it is dropped
    # Work off the event loop.
    engine_workers: int = (
        -1
    )  # engine worker processes for games with people (-1: one per CPU, max 4)
    bot_workers: int = -1  # worker processes for games of bots only (lower priority)
    bot_seconds: float = 5.0  # the longest one bot decision may think before its default applies
    slice_seconds: float = 0.05  # engine work a worker gives one game before serving the next
    worker_timeout: float = 120.0  # a worker call that takes longer kills and restarts the worker
    # Storage.
    busy_seconds: float = 2.0  # how long a save waits for a locked database before failing
    database: str | None = None  # a postgresql:// URL; None: SQLite in the data directory
    # Custom courses players upload (docs/server.md "Custom courses").
    custom_course_bytes: int = 256 * 1024  # the largest course file
    custom_course_boards: int = 8  # boards in one course
    custom_course_spaces: int = 2_500  # spaces of a course's boards together (50 x 50)
    custom_course_checkpoints: int = 12  # checkpoints of one course
    custom_courses_per_address: int = 20  # courses one address keeps at once
    custom_courses_total: int = 2_000  # courses the server keeps at once
    custom_uploads_per_minute: int = 6  # uploads per address (a burst of this many, then 1/10 s)
    custom_checks: int = 2  # uploads checked at once; a few more wait, the rest get 503
    # Hosting.
    public_url: str | None = None  # the base of invite links, e.g. https://rally.example.org
    # Scale-out mode (docs/scaling.md): many server processes share the games through Redis.
    redis: str | None = None  # redis://host:port/db; None: one process holds every game

    def worker_counts(self) -> tuple[int, int]:
        """(workers for games with people, workers for bot games); (0, 0) runs games in the
        server process itself (tests and embedding only: the event loop then does engine work)."""
        people = _default_workers() if self.engine_workers < 0 else self.engine_workers
        bots = _default_workers() if self.bot_workers < 0 else self.bot_workers
        if people == 0:
            return 0, 0
        return people, max(1, bots)
