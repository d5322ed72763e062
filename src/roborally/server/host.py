"""One game as a worker holds it: the engine's :class:`Game`, its seats' bots, and what the
server's event loop needs after each change.

The event loop never runs the engine or a bot: it sends a :class:`GameHost` (in a worker
process, :mod:`roborally.server.workers`) a player's decision, an expired deadline or "let the
bots play", and gets back an :class:`Update`: the new actions to store, the new events and
decisions as JSON text, and each watched seat's observation. Everything crossing the process
boundary is plain data (strings, numbers, lists, dicts).
"""

from __future__ import annotations

import json
import logging
import random
import signal
import time
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from roborally.bots.base import Bot
from roborally.bots.random_bot import make_bot
from roborally.content.record import decode_choice, encode_choice, write_record
from roborally.engine.core.decisions import (
    TIMEOUT,
    Action,
    ActionError,
    Decision,
    DecisionKind,
    IllegalActionError,
    InvalidActionError,
    NotYourDecisionError,
)
from roborally.engine.core.rng import derive_seed
from roborally.engine.core.view import decision_to_json
from roborally.engine.game import Game
from roborally.engine.preview import preview_program
from roborally.server import showtime
from roborally.server.settings import GameSettings

log = logging.getLogger("roborally.server.worker")

#: A view: a seat's index, or ``None`` for spectators.
View = int | None


def dumps(data: Any) -> str:
    """Compact JSON as the wire carries it."""
    return json.dumps(data, separators=(",", ":"), ensure_ascii=False, check_circular=False)


class Refused(Exception):
    """A decision the engine does not accept (``code`` as in docs/protocol.md 2.4)."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


class BotTimeout(Exception):
    """A bot thought longer than its budget."""


@dataclass
class HostSpec:
    """How to build a game: its settings, the seat names and bots, and the stored actions."""

    game_id: str
    settings: dict[str, Any]
    names: tuple[str, ...]
    bots: dict[int, str]  # seat -> bot kind
    actions: list[tuple[str, int, str]] = field(default_factory=list)  # (id, seat, choice text)


@dataclass(slots=True)
class EventOut:
    """One event as JSON text: ``text`` for everyone, ``private`` for seats that see more."""

    text: str
    round: int
    register: int
    private: dict[int, str] | None = None
    beats: float = 0.0  # how long the page animates it (showtime.py)


@dataclass(slots=True)
class PendingOut:
    """A decision the game waits for, as its seat's client sees it."""

    id: str
    seat: int
    kind: str
    data: dict[str, Any]  # decision_to_json
    timer: float | None  # the engine's own timer mark (classic sand timer)


@dataclass
class Play:
    """How to go on after a change: the people's seats the game plays for (``auto``), the
    answers players gave ahead of a question (``presets``: seat -> decision kind -> choice,
    e.g. the facing to re-enter with, chosen while programming), the observations to report
    (``views``) and how long the bots may think before the worker turns to another game."""

    auto: list[int] = field(default_factory=list)
    views: list[View] = field(default_factory=list)
    budget: float = 0.05
    presets: dict[int, dict[str, Any]] = field(default_factory=dict)


@dataclass
class Update:
    """What changed in a game since the host's last update."""

    first_action: int
    actions: list[tuple[str, int, str]]  # new actions to store: (decision id, seat, choice text)
    first_event: int
    events: list[EventOut]
    pending: list[PendingOut]
    answered: list[tuple[str, int, Any]]  # simultaneous decisions already answered
    views: dict[View, str]  # observation JSON text of each watched view
    round: int
    outcome: dict[str, Any] | None
    record: str | None = None  # the record text, once the game is over
    more: bool = False  # the bots have more to do (the slice's time ran out)
    presets_used: list[tuple[int, str]] = field(default_factory=list)  # (seat, decision kind)


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


def to_json_value(value: Any) -> Any:
    """Engine values (tuples) as JSON values (lists)."""
    if isinstance(value, tuple | list):
        return [to_json_value(v) for v in value]
    return value


@contextmanager
def time_limit(seconds: float, enabled: bool) -> Iterator[None]:
    """Raise :class:`BotTimeout` in the block after ``seconds`` (a worker's main thread only)."""
    if not enabled or seconds <= 0:
        yield
        return

    def expired(signum: int, frame: Any) -> None:
        raise BotTimeout

    previous = signal.signal(signal.SIGALRM, expired)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def replay_actions(game: Game, actions: list[tuple[str, int, str]], label: str) -> None:
    """Apply stored actions (id, seat, choice text); a mismatch raises ValueError."""
    for number, (decision_id, seat, text) in enumerate(actions):
        decision = next((d for d in game.pending_decisions() if d.id == decision_id), None)
        if decision is None or decision.seat != seat:
            raise ValueError(f"{label}: action {number} ({decision_id}) is not pending")
        game.apply(Action(decision_id, seat, decode_choice(decision, text.split())))


class GameHost:
    """One game in a worker. ``bot_seconds`` is each bot decision's budget (enforced with a
    timer signal when ``budgets`` is on: only in a worker process's main thread)."""

    def __init__(self, spec: HostSpec, bot_seconds: float = 5.0, budgets: bool = False) -> None:
        self.id = spec.game_id
        self.spec = spec
        self.settings = GameSettings.from_json(spec.settings)
        self.bot_seconds = bot_seconds
        self.budgets = budgets
        self.game = self._build(spec.actions)
        self.bots: dict[int, Bot] = {}
        self.bot_failures = 0
        for seat in spec.bots:
            self._new_bot(seat)
        self.sent_events = 0
        self.sent_actions = len(self.game.actions)

    def _build(self, actions: list[tuple[str, int, str]]) -> Game:
        game = Game(self.settings.config(self.spec.names))
        replay_actions(game, actions, f"game {self.id}")
        return game

    def _new_bot(self, seat: int) -> None:
        kind = self.spec.bots[seat]
        label = f"bot/{seat}" if not self.bot_failures else f"bot/{seat}/{self.bot_failures}"
        self.bots[seat] = make_bot(kind, derive_seed(self.settings.seed, label))

    # ------------------------------------------------------------ updates
    def update(self, views: list[View], more: bool = False) -> Update:
        """Everything new since the last update, and the observations of ``views``."""
        game = self.game
        events = game.events
        first_event = self.sent_events
        out: list[EventOut] = []
        for index in range(first_event, len(events)):
            event = events[index]
            data = event.seen_by(None).to_json()
            data["i"] = index
            private = None
            if event.seat is not None and event.seen_by(None) is not event:  # its owner's secret
                mine = event.to_json()
                mine["i"] = index
                private = {event.seat: dumps(mine)}
            beats = showtime.beats(data["kind"])
            out.append(EventOut(dumps(data), event.round, event.register, private, beats))
        self.sent_events = len(events)
        first_action = self.sent_actions
        actions = [
            (a.decision_id, a.seat, encode_choice(a.choice)) for a in game.actions[first_action:]
        ]
        self.sent_actions = len(game.actions)
        over = game.is_over()
        return Update(
            first_action,
            actions,
            first_event,
            out,
            [self._pending_out(d) for d in ([] if over else game.pending_decisions())],
            [(a.decision_id, a.seat, to_json_value(a.choice)) for a in game.state.answers.values()],
            self.views(views),
            game.state.round,
            outcome_json(game),
            write_record(game, self.settings.course, self.id, self.settings.course_text or None)
            if over
            else None,
            more and not over,
        )

    @staticmethod
    def _pending_out(decision: Decision) -> PendingOut:
        timer = decision.info.get("timer") if decision.kind is DecisionKind.PROGRAM else None
        return PendingOut(
            decision.id,
            decision.seat,
            decision.kind.value,
            decision_to_json(decision),
            float(timer) if isinstance(timer, int | float) and timer > 0 else None,
        )

    def views(self, views: list[View]) -> dict[View, str]:
        return {view: dumps(self.game.observation(view)) for view in views}

    # ------------------------------------------------------------ changes
    def decide(self, decision_id: str, seat: int, choice: Any, play: Play) -> Update:
        """A player's decision: checked by the engine (a refusal changes nothing), applied,
        then the bots and auto-played seats answer for up to ``play.budget`` seconds."""
        decision = self._pending(decision_id, seat)
        self.game.apply(Action(decision.id, decision.seat, self._check(decision, choice)))
        return self.drive(play)

    def expire(self, expired: list[tuple[str, list[str | None] | None]], play: Play) -> Update:
        """Deadlines passed: each decision ``(id, draft)`` gets its fallback, then drive."""
        for decision_id, draft in expired:
            decision = next((d for d in self.game.pending_decisions() if d.id == decision_id), None)
            if decision is not None:
                self.game.apply(Action(decision.id, decision.seat, self.fallback(decision, draft)))
        return self.drive(play)

    def drive(self, play: Play) -> Update:
        """Let bots, the auto-played seats and the players' preset answers answer until a
        person must decide, the game ends or ``play.budget`` seconds have passed (then
        ``more`` is set: call again)."""
        game = self.game
        automatic = set(play.auto) | set(self.bots)
        presets = {seat: dict(kinds) for seat, kinds in play.presets.items()}
        used: list[tuple[int, str]] = []
        start = time.monotonic()
        more = False
        while not game.is_over():
            pending = game.pending_decisions()
            decision = next((d for d in pending if d.seat in automatic), None)
            choice = None
            if decision is None:  # a question a player answered ahead of time
                decision, choice = self._preset(pending, presets)
                if decision is None:
                    break
                used.append((decision.seat, decision.kind.value))
            elif decision.seat in self.bots:
                choice = self._bot_choice(decision)
            else:
                choice = self.fallback(decision, None)
            game.apply(Action(decision.id, decision.seat, choice))
            if time.monotonic() - start > play.budget:
                more = True
                break
        update = self.update(play.views, more)
        update.presets_used = used
        return update

    def _preset(
        self, pending: list[Decision], presets: dict[int, dict[str, Any]]
    ) -> tuple[Decision | None, Any]:
        """The first pending decision a player answered ahead (and that answer, checked); a
        preset the engine refuses is dropped and the question stays the player's."""
        for decision in pending:
            kinds = presets.get(decision.seat, {})
            if decision.kind.value not in kinds:
                continue
            choice = kinds.pop(decision.kind.value)
            try:
                return decision, self._check(decision, choice)
            except Refused:
                continue
        return None, None

    def rollback(self, count: int, views: list[View]) -> Update:
        """Go back to the first ``count`` actions (those the store holds): a failed save must
        leave the game as it was. Events before them were sent already."""
        stored = [
            (a.decision_id, a.seat, encode_choice(a.choice)) for a in self.game.actions[:count]
        ]
        self.game = self._build(stored)
        self.sent_events = len(self.game.events)
        self.sent_actions = count
        return self.update(views)

    # ------------------------------------------------------------ helpers
    def _pending(self, decision_id: str, seat: int) -> Decision:
        if self.game.is_over():
            raise Refused("out_of_phase", "the game is over")
        decision = next((d for d in self.game.pending_decisions() if d.id == decision_id), None)
        if decision is None:
            raise Refused("not_pending", f"the game does not wait for decision {decision_id!r}")
        if decision.seat != seat:
            raise Refused("not_your_decision", f"decision {decision_id!r} belongs to another seat")
        return decision

    def _check(self, decision: Decision, choice: Any) -> Any:
        try:
            return self.game.check(Action(decision.id, decision.seat, choice))
        except InvalidActionError as error:
            raise Refused("invalid_action", str(error)) from None
        except NotYourDecisionError as error:
            raise Refused("not_your_decision", str(error)) from None
        except (IllegalActionError, ActionError) as error:
            raise Refused("illegal_action", str(error)) from None
        except Exception as error:  # a malformed choice the engine did not foresee
            log.exception("game %s: unexpected error checking %s", self.id, decision.id)
            raise Refused("invalid_action", f"malformed choice ({error})") from None

    def fallback(self, decision: Decision, draft: list[str | None] | None) -> Any:
        """What happens when time runs out or the player is absent: the decision's default,
        except that a drafted program keeps its cards (empty registers filled at random)."""
        if decision.kind is not DecisionKind.PROGRAM or not draft or not any(draft):
            return TIMEOUT
        rest = Counter(decision.info["hand"])
        rest.subtract(c for c in draft if c is not None)
        pool = sorted(rest.elements())
        random.Random(derive_seed(self.settings.seed, f"fill/{decision.id}")).shuffle(pool)
        locked = decision.info["locked"]
        program = [
            card if card is not None else (None if i + 1 in locked or not pool else pool.pop())
            for i, card in enumerate(draft)
        ]
        try:
            return self._check(decision, program)
        except Refused:
            return TIMEOUT

    def _bot_choice(self, decision: Decision) -> Any:
        bot = self.bots[decision.seat]
        try:
            with time_limit(self.bot_seconds, self.budgets):
                choice = bot.choose(self.game.observation(decision.seat), decision)
            return self._check(decision, choice)
        except BotTimeout:
            # The bot may have been stopped half-way through its own bookkeeping: a fresh one.
            log.warning(
                "game %s: bot of seat %d took over %.1f s on %s; its default applies",
                self.id,
                decision.seat + 1,
                self.bot_seconds,
                decision.id,
            )
            self.bot_failures += 1
            self._new_bot(decision.seat)
        except Exception as error:
            log.error(
                "game %s: bot of seat %d failed on %s: %s",
                self.id,
                decision.seat + 1,
                decision.id,
                error,
            )
        return TIMEOUT

    def preview(
        self, seat: int, program: list[str | None], presets: dict[str, Any] | None = None
    ) -> list[dict[str, Any]]:
        """Where ``seat``'s robot ends after each register of ``program`` if nothing else moved
        it (:func:`roborally.engine.preview.preview_program`), with the seat's answers given
        ahead (``presets``: the reboot facing); it changes nothing."""
        try:
            return preview_program(self.game, seat, program, presets)
        except ValueError as error:
            raise Refused("illegal_action", str(error)) from None

    # ------------------------------------------------------------ records
    def record(self) -> str:
        return write_record(
            self.game, self.settings.course, self.id, self.settings.course_text or None
        )

    def digest(self) -> dict[str, Any]:
        """The state digest and action count (tests and the red-team check use it)."""
        return {"digest": self.game.digest(), "actions": len(self.game.actions)}

    def replay(self) -> dict[str, str]:
        """Events, actions and public frames of the game, each as JSON text (protocol 1.8)."""
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
        events = []
        for index, event in enumerate(game.events):
            data = event.seen_by(None).to_json()
            data["i"] = index
            events.append(data)
        return {"events": dumps(events), "actions": dumps(actions), "frames": dumps(frames)}


def check_settings(settings: dict[str, Any], names: tuple[str, ...]) -> str | None:
    """A dry run: the engine must accept this game. The error text, or None."""
    try:
        Game(GameSettings.from_json(settings).config(names))
    except ValueError as error:
        return str(error)
    return None
