"""A remote player over the WebSocket protocol: the random bot, playing from outside the server.

It shows how a client uses ``docs/protocol.md`` and drives the tests and the load test
(``bench/load_test.py``)::

    player = RemotePlayer("ws://127.0.0.1:8000/ws/GAME", token, seed=1)
    result = await player.run()
"""

from __future__ import annotations

import asyncio
import json
import re
import time
from dataclasses import dataclass, field
from typing import Any

from roborally.bots.random_bot import RandomBot
from roborally.engine.core.decisions import Decision, DecisionKind

PROTOCOL = 1


def decision_from_json(data: dict[str, Any]) -> Decision:
    """A pending decision from a ``state`` message, as the engine's bots expect it."""
    options = tuple(tuple(o) if isinstance(o, list) else o for o in data["options"])
    return Decision(
        data["id"],
        data["seat"],
        DecisionKind(data["kind"]),
        data["prompt"],
        options,
        data.get("default", ""),
        data.get("info", {}),
    )


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


def json_choice(choice: Any) -> Any:
    if isinstance(choice, tuple | list):
        return [json_choice(c) for c in choice]
    return choice


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


class RemotePlayer:
    """Connects to one game (a seat with ``token``, or a spectator without) and plays randomly.

    With ``act=False`` it only watches (a spectator, or a player that has left its seat idle).
    ``keep_raw`` keeps every received text frame for inspection; ``think`` waits a random time
    (up to that many seconds) before each answer, like a person.
    """

    def __init__(
        self,
        ws_url: str,
        token: str | None = None,
        *,
        seed: int = 0,
        name: str | None = None,
        act: bool = True,
        keep_raw: bool = False,
        ready: bool = True,
        think: float = 0.0,
        source: str | None = None,
    ) -> None:
        self.url = ws_url
        self.token = token  # sent in 'hello', never in the URL
        self.source = source  # a local address to connect from (tests of per-address limits)
        self.bot = RandomBot(seed)
        self.name = name
        self.act = act
        self.keep_raw = keep_raw
        self.ready = ready
        self.think = think  # up to this many seconds of "thinking" before each answer
        self.result = PlayResult()
        self._answered: set[str] = set()
        self._sent: dict[int, float] = {}
        self._awaiting_state: list[float] = []
        self._next_id = 0
        self._tasks: set[asyncio.Task[None]] = set()

    async def _send(self, ws: Any, data: dict[str, Any]) -> int:
        self._next_id += 1
        data = {"v": PROTOCOL, "id": self._next_id, **data}
        await ws.send(json.dumps(data))
        return self._next_id

    async def run(self, timeout: float = 120.0) -> PlayResult:
        import websockets

        extra: dict[str, Any] = {}
        if self.source is not None:
            extra["local_addr"] = (self.source, 0)
        async with websockets.connect(self.url, max_size=None, open_timeout=30, **extra) as ws:
            hello: dict[str, Any] = {"type": "hello"}
            if self.token is not None:
                hello["token"] = self.token
            if self.name:
                hello["name"] = self.name
            await self._send(ws, hello)
            await asyncio.wait_for(self._loop(ws), timeout)
        return self.result

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
            elif kind == "ack":
                sent = self._sent.pop(msg.get("ref"), None)
                if sent is not None and msg.get("for") == "decide":
                    self.result.latencies.append(now - sent)
            elif kind == "error":
                self.result.errors.append(msg)
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
                    choice = self.bot.choose(msg["observation"], decision)
                    if self.think > 0:  # think in the background; keep reading meanwhile
                        delay = self.bot.rng.uniform(0, self.think)
                        task = asyncio.get_running_loop().create_task(
                            self._answer(ws, decision.id, choice, delay)
                        )
                        self._tasks.add(task)
                        task.add_done_callback(self._tasks.discard)
                    else:
                        await self._answer(ws, decision.id, choice, 0.0)

    async def _answer(self, ws: Any, decision_id: str, choice: Any, delay: float) -> None:
        if delay > 0:
            await asyncio.sleep(delay)
        sent_at = time.perf_counter()
        ref = await self._send(
            ws, {"type": "decide", "decision_id": decision_id, "choice": json_choice(choice)}
        )
        self._sent[ref] = sent_at
        self._awaiting_state.append(sent_at)
        self.result.decisions += 1
