"""How long a page takes to show events: the server's own estimate, which bounds how long a
decision's clock waits for a player's page to finish its animation (fair time, docs/server.md).

The web page plays each event for a number of *beats* (``static/js/anim.js``: a beat is 330 ms
at speed 1; consecutive moves of different robots share one). The estimate counts every event's
beats on its own, so it is an upper bound of what the page really takes at that speed.
"""

from __future__ import annotations

from collections.abc import Iterable

BEAT_SECONDS = 0.33  # one beat at speed 1 (anim.js UNIT_MS)
SLOWEST_SPEED = 0.5  # the page's slowest choice; a slower claim is counted as this
#: Beats of each event kind the page animates (anim.js BEATS; other kinds take no time).
BEATS: dict[str, float] = {
    "moved": 1.0,
    "pushed": 1.0,
    "conveyed": 1.0,
    "displaced": 1.0,
    "rotated": 0.9,
    "shot": 0.9,
    "card_revealed": 1.5,
    "upgrade": 1.5,
    "damaged": 0.6,
    "fell": 1.2,
    "rebooted": 0.4,
    "destroyed": 0.8,
    "reentered": 0.8,
    "checkpoint_reached": 1.5,
    "energy_gained": 0.7,
    "register_started": 0.8,
    "placed": 0.5,
    "game_won": 1.6,
    "blocked": 0.4,
}


def beats(kind: str) -> float:
    """The beats the page spends on one event of ``kind``."""
    return BEATS.get(kind, 0.0)


def seconds(event_beats: Iterable[float], speed: float) -> float:
    """How long a page playing at ``speed`` (0: no animation) shows events of these beats.

    >>> round(seconds([1.0, 0.9, 1.5], 1), 2)
    1.12
    >>> seconds([1.0, 0.9], 0)
    0.0
    """
    if speed <= 0:
        return 0.0
    return sum(event_beats) * BEAT_SECONDS / max(speed, SLOWEST_SPEED)
