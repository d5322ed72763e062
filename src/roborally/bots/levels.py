"""Bots by strength: the four levels a player picks in the lobby, weakest first.

=========  ==========  ===============================================================
id         class       how it plays
=========  ==========  ===============================================================
beginner   LevelBot    the planner's search on part of its hand, with a lot of noise,
                       careless rounds and rare upgrades
casual     LevelBot    the same with less of each
strong     PlannerBot  the best program of the whole hand (the bot once called planner)
expert     ExpertBot   the planner plus nearby robots and a look at the next hand
=========  ==========  ===============================================================

The weaker levels are the planner with human-like mistakes, never with more knowledge: every
level sees only its seat's observation. A :class:`LevelBot` makes them as follows.

* **Sight.** It searches only ``sight`` cards of its hand (those it must play, then a random
  choice of the others), as a player who does not notice every combination.
* **Noise.** It asks the search for its ``candidates`` best programs (distinct trajectories) and
  plays the one with the lowest cost plus a normal error of ``noise`` registers: a program
  about ``noise`` registers worse than the best is often taken.
* **Careless rounds.** With probability ``careless`` a round is planned without minding pits,
  edges and lasers (a fall costs only the way back from the reboot space, damage nothing).
* **Upgrades.** With probability ``upgrades`` a round uses upgrades as the planner does (buying,
  Crab Legs pairs, Brakes and the other reveal choices, the questions of the round); otherwise
  it buys nothing and answers every upgrade question with the option that changes nothing.

Every random draw comes from a generator seeded with the bot's seed and the decision (or the
round), so a decision depends only on the seed and the observation, also for a bot rebuilt in
the middle of a game.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from roborally.bots.base import Bot
from roborally.bots.expert import ExpertBot
from roborally.bots.planner import NUM_REGISTERS, PlannerBot, ProgramSearch, Weights
from roborally.bots.upgrade_play import _first_safe
from roborally.engine.core.board import Course
from roborally.engine.core.decisions import Decision


class LevelBot(PlannerBot):
    """The planner with a player's mistakes (see the module doc). With ``sight=9``,
    ``noise=0``, ``careless=0`` and ``upgrades=1`` it plays as the planner."""

    name = "level"

    def __init__(
        self,
        seed: int = 0,
        course: Course | None = None,
        variants: frozenset[str] | None = None,
        weights: Weights | None = None,
        sight: int = 9,
        noise: float = 0.0,
        candidates: int = 16,
        careless: float = 0.0,
        upgrades: float = 1.0,
    ) -> None:
        super().__init__(seed, course, variants, weights)
        self.sight = sight
        self.noise = noise
        self.candidates = candidates
        self.careless = careless
        self.upgrades = upgrades
        self.careless_weights = replace(
            self.weights, fall=0.0, damage=0.0, destroy=0.0, classic_damage=0.0
        )

    # ------------------------------------------------------------------- draws
    def _draw(self, what: str) -> random.Random:
        """A generator for one decision or round, from the bot's seed only."""
        return random.Random(f"{self.seed}:{what}")

    def _round_is(self, obs: dict[str, Any], what: str, chance: float) -> bool:
        """Whether this round is a careless one, or one that uses upgrades."""
        if chance <= 0.0 or chance >= 1.0:
            return chance >= 1.0
        return self._draw(f"{what}:{int(obs.get('round', 0))}").random() < chance

    def searcher(self, obs: dict[str, Any], seat: int | None = None) -> ProgramSearch:
        """The planner's search, with this round's state of mind for the bot's own robot."""
        search = super().searcher(obs, seat)
        if seat is not None and seat != obs.get("seat"):
            return search
        careless = self._round_is(obs, "careless", self.careless)
        upgrades = self._round_is(obs, "upgrades", self.upgrades)
        if not careless and upgrades:
            return search
        me = search.me
        if not upgrades:
            me = replace(me, upgrades=frozenset())
        weights = self.careless_weights if careless else self.weights
        return ProgramSearch(search.model, me, weights, search.variants)

    # ---------------------------------------------------------------- programs
    def choose_program(self, obs: dict[str, Any], decision: Decision) -> Any:
        rng = self._draw(decision.id)
        cards = self._seen(decision, rng)
        noisy = self.noise > 0.0 and self.candidates > 1
        result = self.plan(obs, decision, top=self.candidates if noisy else 1, usable=cards)
        best = result.best
        if noisy:
            best = min(result.top, key=lambda c: c.cost + rng.gauss(0.0, self.noise))
        return self.commit(obs, best, result)

    def _seen(self, decision: Decision, rng: random.Random) -> list[str] | None:
        """The cards of the hand the bot considers: the ones it must play, then at random,
        never fewer than it needs to fill its open registers (``None``: the whole hand)."""
        hand = [str(c) for c in decision.info.get("hand", [])]
        registers = int(decision.info.get("registers", NUM_REGISTERS))
        open_slots = registers - len(decision.info.get("locked", []))
        size = max(self.sight, open_slots)
        if size >= len(hand):
            return None
        rest = list(hand)
        seen = []
        for name in decision.info.get("forced", []):
            if name in rest:
                rest.remove(name)
                seen.append(name)
        rng.shuffle(rest)
        return seen + rest[: max(0, size - len(seen))]

    # ---------------------------------------------------------------- upgrades
    def choose_upgrade_phase(self, obs: dict[str, Any], decision: Decision) -> Any:
        if self._round_is(obs, "upgrades", self.upgrades):
            return super().choose_upgrade_phase(obs, decision)
        return _first_safe([str(o) for o in decision.options], decision)

    def choose_upgrade(self, obs: dict[str, Any], decision: Decision) -> Any:
        if self._round_is(obs, "upgrades", self.upgrades):
            return super().choose_upgrade(obs, decision)
        return _first_safe([str(o) for o in decision.options], decision)


# ================================================================================ levels
@dataclass(frozen=True)
class Level:
    """A bot a player picks by name: ``rank`` 1 is the weakest."""

    id: str
    title: str
    description: str
    rank: int
    factory: Callable[[int], Bot]

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "title": self.title,
            "description": self.description,
            "level": self.rank,
        }


def beginner(seed: int = 0) -> LevelBot:
    """The Beginner level (parameters in docs/bots.md)."""
    bot = LevelBot(seed, sight=6, noise=1.5, candidates=16, careless=0.3, upgrades=0.2)
    bot.name = "beginner"
    return bot


def casual(seed: int = 0) -> LevelBot:
    """The Casual level (parameters in docs/bots.md)."""
    bot = LevelBot(seed, sight=8, noise=1.0, candidates=16, careless=0.15, upgrades=0.5)
    bot.name = "casual"
    return bot


LEVELS: tuple[Level, ...] = (
    Level(
        "beginner",
        "Beginner",
        "Heads for the checkpoints but often picks a poor program and forgets pits and lasers.",
        1,
        beginner,
    ),
    Level(
        "casual",
        "Casual",
        "Plays sensibly with the odd slip; a fair race once you know the cards.",
        2,
        casual,
    ),
    Level(
        "strong",
        "Strong",
        "Always plays the best program its hand allows for its own robot.",
        3,
        PlannerBot,
    ),
    Level(
        "expert",
        "Expert",
        "Plays like Strong but also expects the moves of nearby robots and its next hand.",
        4,
        ExpertBot,
    ),
)

#: Bots that are not levels, still accepted by name (saved games, records, scripts).
OTHER_BOTS = {
    "planner": ("Planner", "The Strong level under its older name."),
    "random": ("Random", "Random legal moves: for tests, not a real opponent."),
}


def bot_options(known: list[str]) -> list[dict[str, Any]]:
    """The bot list of the lobby (``GET /api/options``): the levels, weakest first, then every
    other bot kind in ``known`` with ``"level": null`` (for the API and for tests)."""
    levels = [level.to_json() for level in LEVELS if level.id in known]
    listed = {level["id"] for level in levels}
    others = []
    for kind in sorted(k for k in known if k not in listed):
        title, description = OTHER_BOTS.get(kind, (kind, "A bot added to this server."))
        others.append({"id": kind, "title": title, "description": description, "level": None})
    return levels + others


__all__ = ["LEVELS", "OTHER_BOTS", "Level", "LevelBot", "beginner", "bot_options", "casual"]
