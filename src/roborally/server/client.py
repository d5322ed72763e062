"""A remote player over the WebSocket protocol: any bot, playing a seat from outside the server.

It shows how a client uses ``docs/protocol.md`` and drives ``roborally bot``
(:mod:`roborally.server.bot_command`), the tests and the load test (``bench/load_test.py``)::

    player = RemotePlayer("ws://127.0.0.1:8000/ws/GAME", token, seed=1)  # the random bot
    result = await player.run()
    player = RemotePlayer(url, token, bot=PlannerBot(1), reconnect=8)  # any bot; comes back
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from roborally.bots.base import Bot
from roborally.bots.random_bot import RandomBot
from roborally.content.courses import CourseFormatError, register_course_text
from roborally.engine.core.decisions import TIMEOUT
from roborally.engine.core.view import choice_to_json, decision_from_json
from roborally.server.protocol import (
    CLOSE_BAD_REQUEST,
    CLOSE_BAD_TOKEN,
    CLOSE_REPLACED,
    CLOSE_UNKNOWN_GAME,
)

PROTOCOL = 1

#: Kept for older imports: the JSON conversions live in :mod:`roborally.engine.core.view`.
json_choice = choice_to_json

#: Error codes and close codes after which coming back cannot help (the link is wrong, or the
#: player opened the seat elsewhere).
FATAL_ERRORS = frozenset(
    {"bad_token", "bad_invite", "invite_used", "signed_out", "unknown_game", "token_in_url"}
    | {"replaced"}
)
FATAL_CLOSES = frozenset({CLOSE_BAD_REQUEST, CLOSE_BAD_TOKEN, CLOSE_UNKNOWN_GAME, CLOSE_REPLACED})
#: Answers the server refuses for their content: the decision then gets its default.
BAD_ANSWERS = frozenset({"illegal_action", "invalid_action"})


class Refused(Exception):
    """The server turned the seat away for good (``code``: its error code or close code)."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


def backoff(attempt: int, longest: float = 5.0) -> float:
    """Seconds to wait before reconnection attempt ``attempt`` (1, 2, ...), as the web page
    waits: 0.3 s growing by 1.6 each time, never more than ``longest``.

    >>> [round(backoff(n), 2) for n in (1, 2, 3, 10)]
    [0.3, 0.48, 0.77, 5.0]
    """
    return min(longest, 0.3 * 1.6 ** (attempt - 1))


def hands_in(text: str) -> list[Any]:
    """Every list that follows a "hand" key in a raw frame."""
    return [json.loads(m) for m in re.findall(r'"hand":(\[[^\]]*\])', text)]


def view_leaks(text: str, viewer: int | None) -> list[str]:
    """What a raw frame received by ``viewer`` (a seat, ``None``: a spectator) shows that the
    viewer must not see (spec 4.7): another player's hand or unrevealed cards, another seat's
    decisions, a face-down Haywire's name. An empty list: nothing.

    >>> view_leaks('{"type": "pong"}', None)
    []
    """
    msg = json.loads(text)
    problems: list[str] = []
    if msg.get("type") == "state" and msg.get("observation") is not None:
        obs = msg["observation"]
        if obs["seat"] != viewer:
            problems.append(f"observation of seat {obs['seat']}")
        for player in obs["players"]:
            if player["seat"] == viewer:
                continue
            if not isinstance(player["hand"], int):
                problems.append(f"seat {player['seat']}'s hand")
            for register in player["registers"]:
                if not isinstance(register["facedown_haywire"], bool):
                    problems.append(f"seat {player['seat']}'s face-down Haywire")
                if not register["revealed"] and register["cards"] is not None:
                    problems.append(f"seat {player['seat']}'s unrevealed register")
        if any(d["seat"] != viewer for d in obs["pending"] + msg["pending"]):
            problems.append("another seat's decision")
        if viewer is None and (msg["pending"] or msg["submitted"]):
            problems.append("decisions sent to a spectator")
    if msg.get("type") == "events":
        for event in msg["events"]:
            secret = event["kind"] == "damaged" and "to register" in event.get("cause", "")
            if secret and "card" in event and event["seat"] != viewer:
                problems.append(f"seat {event['seat']}'s face-down Haywire in event {event['i']}")
    if viewer is None and '"hand":[' in text:
        problems.append("a hand sent to a spectator")
    if viewer is not None:  # the only hands in a player's frames are its own
        obs = msg.get("observation") or {}
        own = [p["hand"] for p in obs.get("players", []) if p["seat"] == viewer]
        mine = [d for d in obs.get("pending", []) + msg.get("pending", []) if d["seat"] == viewer]
        own += [d["info"]["hand"] for d in mine if "hand" in d.get("info", {})]
        problems += [
            f"a hand that is not seat {viewer}'s: {h}" for h in hands_in(text) if h not in own
        ]
    return problems


def _register_course(text: str) -> None:
    """Make a game's custom course known to this process's bots; a file that does not read
    leaves the bots to play without it (they answer safely), never stops the client."""
    with contextlib.suppress(CourseFormatError, ValueError):
        register_course_text(text)


@dataclass
class PlayResult:
    seat: int | None = None
    outcome: dict[str, Any] | None = None
    errors: list[dict[str, Any]] = field(default_factory=list)
    latencies: list[float] = field(default_factory=list)  # decide -> ack, seconds
    state_latencies: list[float] = field(default_factory=list)  # decide -> next state
    messages: int = 0
    decisions: int = 0
    raw: list[str] = field(default_factory=list)
    connections: int = 0  # sockets opened (more than 1: it reconnected)
    bot_failures: list[str] = field(default_factory=list)  # the bot raised or answered illegally


def seat_key(seat: dict[str, Any]) -> dict[str, str]:
    """What opens a seat of a create response (``POST /api/games``): the creator's seat its
    ``token``, every other human seat its one-time ``invite``; as keyword arguments of
    :class:`RemotePlayer` (``RemotePlayer(url, **seat_key(seat))``)."""
    if seat.get("token"):
        return {"token": str(seat["token"])}
    return {"invite": str(seat["invite"])}


class RemotePlayer:
    """Connects to one game (a seat with ``token`` or with its one-time ``invite``, or a
    spectator without either) and plays it with ``bot`` (default: the random bot seeded with
    ``seed``). An invite is used once: the seat's own token comes in the ``welcome`` and is
    kept in :attr:`token` for reconnecting.

    With ``act=False`` it only watches (a spectator, or a player that has left its seat idle).
    ``keep_raw`` keeps every received text frame for inspection; ``think`` waits a random time
    (up to that many seconds) before each answer, like a person.

    ``reconnect``: how many times in a row it tries again when the connection cannot be opened
    or drops before the game is over (waiting :func:`backoff` between tries; a welcome resets
    the count), as the web page does. A link the server refuses (bad token, unknown game, the
    seat opened elsewhere) raises :class:`Refused` at once. When the bot raises, or the server
    refuses its answer, the decision gets its default (``timeout``) and the game goes on; the
    failures are in ``result.bot_failures``. ``on_status`` hears ``"connected"``,
    ``"reconnecting in N s: why"`` and the like (for a command line's messages).
    """

    def __init__(
        self,
        ws_url: str,
        token: str | None = None,
        *,
        seed: int = 0,
        bot: Bot | None = None,
        name: str | None = None,
        act: bool = True,
        keep_raw: bool = False,
        ready: bool = True,
        think: float = 0.0,
        source: str | None = None,
        reconnect: int = 0,
        on_status: Callable[[str], None] | None = None,
        invite: str | None = None,
    ) -> None:
        self.url = ws_url
        self.token = token  # sent in 'hello', never in the URL
        self.invite = invite  # a seat's invite, until the welcome brings its token
        self.source = source  # a local address to connect from (tests of per-address limits)
        self.bot: Bot = RandomBot(seed) if bot is None else bot
        self.rng = random.Random(seed)
        self.name = name
        self.act = act
        self.keep_raw = keep_raw
        self.ready = ready
        self.think = think  # up to this many seconds of "thinking" before each answer
        self.reconnect = reconnect
        self.on_status = on_status
        self.result = PlayResult()
        self._answered: set[str] = set()
        self._decides: dict[int, str] = {}  # message id of a 'decide' -> its decision id
        self._sent: dict[int, float] = {}
        self._awaiting_state: list[float] = []
        self._next_id = 0
        self._tasks: set[asyncio.Task[None]] = set()
        self._welcomed = False

    def _status(self, text: str) -> None:
        if self.on_status is not None:
            self.on_status(text)

    async def _send(self, ws: Any, data: dict[str, Any]) -> int:
        self._next_id += 1
        data = {"v": PROTOCOL, "id": self._next_id, **data}
        await ws.send(json.dumps(data))
        return self._next_id

    def thinking(self) -> list[asyncio.Task[None]]:
        """The answers still waiting out their thinking time (not sent yet): whoever stops
        this player early cancels them too."""
        return list(self._tasks)

    async def run(self, timeout: float | None = 120.0) -> PlayResult:
        """Play until the game is over (``timeout`` seconds at most; ``None``: no limit)."""
        if timeout is None:
            await self._play()
        else:
            await asyncio.wait_for(self._play(), timeout)
        return self.result

    async def _play(self) -> None:
        import websockets

        extra: dict[str, Any] = {}
        if self.source is not None:
            extra["local_addr"] = (self.source, 0)
        failures = 0
        while True:
            self._welcomed = False
            try:
                async with websockets.connect(
                    self.url, max_size=None, open_timeout=30, **extra
                ) as ws:
                    self.result.connections += 1
                    await self._hello(ws)
                    await self._loop(ws)
                    code = ws.close_code
                    if self.result.outcome is not None:
                        return
                    if code in FATAL_CLOSES:
                        raise Refused(str(code), f"the server closed the connection ({code})")
                    why = f"the server closed the connection ({code})"
            except (TimeoutError, OSError, websockets.WebSocketException) as error:
                if self.result.outcome is not None:
                    return
                if isinstance(error, websockets.ConnectionClosed) and error.rcvd is not None:
                    closing = error.rcvd.code
                    if closing in FATAL_CLOSES:
                        raise Refused(str(closing), str(error)) from None
                if isinstance(error, websockets.InvalidURI):
                    raise Refused("bad_url", str(error)) from None
                why = " ".join(str(error).split()) or type(error).__name__
            if self._welcomed:
                failures = 0
            failures += 1
            if failures > self.reconnect:
                raise ConnectionError(why)
            delay = backoff(failures)
            lost = "connection lost" if self.result.connections else "cannot connect"
            self._status(f"{lost} ({why}); trying again in {delay:.1f} s")
            await asyncio.sleep(delay)
            # Decisions answered on the lost socket may not have arrived: answer them again
            # (a duplicate only gets a harmless not_pending).
            self._answered.clear()
            self._decides.clear()

    async def _hello(self, ws: Any) -> None:
        hello: dict[str, Any] = {"type": "hello"}
        if self.token is not None:
            hello["token"] = self.token
        elif self.invite is not None:
            hello["invite"] = self.invite
        if self.name:
            hello["name"] = self.name
        await self._send(ws, hello)

    async def _loop(self, ws: Any) -> None:
        readied = False
        shown = 0
        async for raw in ws:
            now = time.perf_counter()
            text = raw if isinstance(raw, str) else raw.decode()
            self.result.messages += 1
            if self.keep_raw:
                self.result.raw.append(text)
            msg = json.loads(text)
            kind = msg.get("type")
            if kind == "welcome":
                self.result.seat = msg["seat"]
                if isinstance(msg.get("course_file"), str):  # a custom course: the bots plan on it
                    _register_course(msg["course_file"])
                if msg.get("token"):  # the invite's seat is ours: its token opens it again
                    self.token, self.invite = msg["token"], None
                    self._status(f"took seat {msg['seat']} with its invite")
                if self._welcomed:  # the game moved to another server process (scale-out
                    # mode, docs/scaling.md): answers on the way may be lost, answer again
                    self._answered.clear()
                    self._decides.clear()
                self._welcomed = True
                self._status("connected")
            elif kind == "ack":
                sent = self._sent.pop(msg.get("ref"), None)
                if sent is not None and msg.get("for") == "decide":
                    self.result.latencies.append(now - sent)
            elif kind == "error":
                self.result.errors.append(msg)
                await self._refused(ws, msg)
            elif kind == "game_over":
                self.result.outcome = msg["outcome"]
                return
            elif kind == "state":
                if self._awaiting_state:
                    self.result.state_latencies.extend(now - t for t in self._awaiting_state)
                    self._awaiting_state = []
                if not self.act or self.result.seat is None:
                    continue
                if msg["event_count"] > shown:  # shown at once: no animation here
                    shown = msg["event_count"]
                    await self._send(ws, {"type": "shown", "event": shown})
                if msg["status"] == "open" and self.ready and not readied:
                    readied = True
                    await self._send(ws, {"type": "ready", "ready": True})
                for pending in msg["pending"]:
                    if pending["id"] in self._answered:
                        continue
                    self._answered.add(pending["id"])
                    decision = decision_from_json(pending)
                    try:
                        choice = self.bot.choose(msg["observation"], decision)
                    except Exception as error:  # a bot must not stop the game: play safe
                        self.result.bot_failures.append(f"{decision.id}: {error!r}")
                        self._status(f"the bot failed on {decision.id} ({error!r}): default")
                        choice = TIMEOUT
                    if self.think > 0:  # think in the background; keep reading meanwhile
                        delay = self.rng.uniform(0, self.think)
                        task = asyncio.get_running_loop().create_task(
                            self._answer(ws, decision.id, choice, delay)
                        )
                        self._tasks.add(task)
                        task.add_done_callback(self._tasks.discard)
                    else:
                        await self._answer(ws, decision.id, choice, 0.0)

    async def _refused(self, ws: Any, msg: dict[str, Any]) -> None:
        """An error reply: give up on a refused link, answer a refused decision with its
        default, and take the seat back from auto-play."""
        code = msg.get("code", "")
        if code in FATAL_ERRORS:
            raise Refused(code, msg.get("message", code))
        ref = msg.get("ref")
        decision_id = self._decides.pop(ref, None) if isinstance(ref, int) else None
        if decision_id is None or msg.get("for") != "decide":
            return
        if code in BAD_ANSWERS:
            self.result.bot_failures.append(f"{decision_id}: {msg.get('message', code)}")
            self._status(f"the server refused the answer to {decision_id}: default")
            await self._answer(ws, decision_id, TIMEOUT, 0.0)
        elif code == "auto_play":  # the seat was auto-played meanwhile: take it back
            await self._send(ws, {"type": "back"})
            self._answered.discard(decision_id)

    async def _answer(self, ws: Any, decision_id: str, choice: Any, delay: float) -> None:
        if delay > 0:
            await asyncio.sleep(delay)
        sent_at = time.perf_counter()
        ref = await self._send(
            ws, {"type": "decide", "decision_id": decision_id, "choice": choice_to_json(choice)}
        )
        self._decides[ref] = decision_id
        self._sent[ref] = sent_at
        self._awaiting_state.append(sent_at)
        self.result.decisions += 1
