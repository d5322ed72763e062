"""Rulesets as the server sees them: editions, their programming timers, and the lobby options.

Everything the lobby offers is generated from the engine's and content's registries (the
editions registry, the courses, the bots, each edition's variants), so a new course, bot or
ruleset shows up in ``GET /api/options`` without changes to the page.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import Any

from roborally.bots.levels import bot_options
from roborally.bots.random_bot import BOTS
from roborally.content.cards import damage_deck
from roborally.content.courses import CourseInfo, list_courses
from roborally.engine.core.state import GameConfig
from roborally.engine.editions import Edition, all_editions
from roborally.engine.game import Game

PROTOCOL_VERSION = 1


@dataclass(frozen=True)
class TimerRule:
    """How an edition's programming timer works.

    ``speed``: one countdown for every player once the programming decisions appear (2023 speed
    mode, spec 11.1.6; with the ``speed`` variant). ``sand``: the engine marks the decision that
    is timed (``info["timer"]``: classic, when one player is left programming). ``none``: only
    the general decision deadline and the absent-player policy apply.
    """

    kind: str
    choices: tuple[int, ...] = ()
    default: int = 0
    variant: str | None = None
    description: str = ""

    def to_json(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "variant": self.variant,
            "choices": list(self.choices),
            "default": self.default,
            "description": self.description,
        }


NO_TIMER = TimerRule("none", description="No programming timer.")

TIMER_RULES: dict[str, TimerRule] = {
    "2023": TimerRule(
        "speed",
        (120, 180),
        180,
        "speed",
        "Speed mode (11.1.6): a countdown for everyone once the cards are drawn; empty"
        " registers are filled at random when it expires.",
    ),
    "classic": TimerRule(
        "sand",
        (30,),
        30,
        None,
        "Sand timer: when only one player is still programming, that player has 30 s; the"
        " empty registers are then filled at random (variant no_timer turns it off).",
    ),
    "classic-1994": TimerRule(
        "sand",
        (30,),
        30,
        None,
        "No timer in the 1994 rules; the variant 'timer' adds the 2005 sand timer.",
    ),
}

VARIANT_TITLES = {
    "lighter": "Lighter game (no upgrades, no energy)",
    "less_deadly": "Less deadly (outer edges are walls)",
    "less_spam": "Less SPAM (discard SPAM in hand)",
    "dynamic_archiving": "Dynamic archiving (no reboot tokens)",
    "competitive_start": "Competitive start (block start spaces)",
    "speed": "Speed mode (programming timer)",
    "less_predictable": "Less predictable (reshuffle every round)",
}


def timer_rule(edition: str) -> TimerRule:
    return TIMER_RULES.get(edition, NO_TIMER)


def course_fits(course: CourseInfo, edition: str) -> bool:
    """Courses marked for an edition serve its variants too (``classic`` for ``classic-1994``)."""
    return course.edition in ("any", edition) or edition.startswith(course.edition + "-")


def courses_for(edition: str) -> list[CourseInfo]:
    return [c for c in list_courses() if course_fits(c, edition)]


@cache
def edition_available(edition: str) -> bool:
    """Whether the engine can play ``edition`` now (probed once with a real game)."""
    candidates = courses_for(edition)
    if not candidates:
        return False
    info = candidates[0]
    seats = max(2, info.players[0])
    try:
        Game(
            GameConfig(
                info.course,
                tuple(f"P{i}" for i in range(seats)),
                edition=edition,
                damage_deck=damage_deck(),
            )
        )
    except Exception:
        return False
    return True


def available_editions() -> list[Edition]:
    return [e for e in all_editions() if edition_available(e.id)]


def find_edition(edition_id: object) -> Edition | None:
    return next((e for e in available_editions() if e.id == edition_id), None)


def options_json(defaults: dict[str, Any], limits: dict[str, Any]) -> dict[str, Any]:
    editions = available_editions()
    variants: dict[str, list[str]] = {}
    for e in editions:
        for v in e.variants:
            variants.setdefault(v, []).append(e.id)
    return {
        "v": PROTOCOL_VERSION,
        "protocol": PROTOCOL_VERSION,
        "editions": [
            {
                "id": e.id,
                "title": e.title,
                "players": [e.min_players, e.max_players],
                "variants": list(e.variants),
                "courses": [c.id for c in courses_for(e.id)],
                "timer": timer_rule(e.id).to_json(),
            }
            for e in editions
        ],
        "variants": [
            {"id": v, "title": VARIANT_TITLES.get(v, v.replace("_", " ")), "editions": ids}
            for v, ids in variants.items()
        ],
        "bots": bot_options(list(BOTS)),  # the levels (weakest first), then the other bots
        "seat_kinds": ["human", "bot"],
        "courses": [
            c.summary() for c in list_courses() if any(course_fits(c, e.id) for e in editions)
        ],
        "defaults": defaults,
        "limits": limits,
    }
