"""The game's events in words, in any of the languages (the command line's log).

The sentences are the ``log.*`` texts of the translation files, the ones the web page's log
(``static/js/words.js``) shows, chosen the same way: one sentence per event, or none for
bookkeeping events (cards drawn, a card resolved, a board element's step, a shot, the end of a
round). A robot is named in the nominative; a cause that names a card shows its title. A classic
game is told in the classic rulebooks' words (power down, flags, damage tokens, the archive
marker, lives), from texts of their own: ``log.power_down.*`` and ``KEY.classic`` beside the
2023 ``KEY`` where only the words differ.

>>> from roborally.engine.core.events import Event, EventKind
>>> from roborally.engine.core.geometry import Pos
>>> words = EventWords("uk", "2023", ("Red", "Blue"))
>>> words.sentence(Event(EventKind.MOVED, 1, 2, seat=0, pos=Pos(1, 1), to=Pos(1, 0)))
'Red рухається на північ'
>>> words.sentence(Event(EventKind.CARD_REVEALED, 1, 2, seat=1, card="move_back"))
'Blue відкриває «Рух назад»'
>>> EventWords("pl", "classic", ("Red",)).sentence(Event(EventKind.ROUND_STARTED, 3, 0))
'Runda 3'
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from functools import cache
from typing import Any

from roborally.content.catalogue import cards_json
from roborally.content.i18n import text
from roborally.engine.core.events import Event, EventKind

_DIRS = ("N", "E", "S", "W")
_UPGRADE_VERBS = {
    "installed": "installed",
    "used": "used",
    "discarded": "discarded",
    "received": "received",
    "triggered": "triggered",
    "drawn": "drawn",
    "uninstalled": "uninstalled",
    "install undone": "install_undone",
}
#: Causes of a classic power down that the sentence says itself (any other is named).
_PLAIN_POWER_DOWN = {"announced", "powered down", "shut down"}
#: Events the log leaves out (the page's log does too).
_SILENT = {
    EventKind.CARDS_DRAWN,
    EventKind.CARD_RESOLVED,
    EventKind.ELEMENT_STEP,
    EventKind.SHOT,
    EventKind.ROUND_ENDED,
}


def slug(cause: str) -> str:
    """A key's last part made of a free text: ``"repair site 2"`` -> ``"repair_site_2"``."""
    return re.sub(r"[^a-z0-9]+", "_", cause.strip().lower()).strip("_")


@cache
def _card_keys(edition: str) -> dict[str, str]:
    data = cards_json(edition)
    return {card_id: entry["key"] for card_id, entry in (data or {"cards": {}})["cards"].items()}


@cache
def _card_costs(edition: str) -> dict[str, int]:
    data = cards_json(edition) or {"cards": {}}
    return {card_id: e["cost"] for card_id, e in data["cards"].items() if "cost" in e}


#: Option verbs with a text of their own (decision.verb.*), as the page's decisions.js has
#: them; an option that is a plain word has its text at decision.word.<word>.
_OPTION_VERBS = ("install", "uninstall", "use", "draw", "put", "store", "discard", "keep", "buy")
_ARROWS = {"N": "↑", "E": "→", "S": "↓", "W": "←"}
_DIR_KEYS = {"N": "north", "E": "east", "S": "south", "W": "west"}
_SEAT_OPTIONS = (
    (re.compile(r"switch p(\d+)$"), "decision.switch_places"),
    (re.compile(r"use re_initialize p(\d+)$"), "decision.re_initialize"),
)


class EventWords:
    """Sentences for the events of a game of ``edition`` whose players are ``names``."""

    def __init__(self, lang: str, edition: str, names: tuple[str, ...] | list[str]) -> None:
        self.lang = lang
        self.classic = edition.startswith("classic")
        self.names = tuple(names)
        self.keys = _card_keys(edition)

    def t(self, key: str, **values: Any) -> str:
        return text(self.lang, key, **values)

    def has(self, key: str) -> bool:
        return self.t(key) != key

    # ---------------------------------------------------------------- words
    def is_card(self, name: str) -> bool:
        return name in self.keys or name.split("@")[0] in self.keys

    def card_title(self, name: str) -> str:
        key = self.keys.get(name) or self.keys.get(name.split("@")[0])
        return self.t(f"{key}.name") if key else name

    def cards_title(self, names: str) -> str:
        return self.t("log.card_and").join(self.card_title(n) for n in names.split() if n)

    def cause_word(self, cause: str) -> str:
        """A cause in words (see ``causeWord`` in words.js)."""
        c = cause.strip()
        if not c:
            return ""
        if ", " in c:
            return ", ".join(self.cause_word(part) for part in c.split(", "))
        if self.is_card(c):
            return self.card_title(c)
        key = slug(re.sub(r" \(.*$", "", c))
        if key and self.is_card(key):
            return self.card_title(key)
        if key and self.has(f"log.cause.{key}"):
            return self.t(f"log.cause.{key}")
        return c

    def with_cause(self, sentence: str, cause: str) -> str:
        if not cause:
            return sentence
        return self.t("log.with_cause", text=sentence, cause=self.cause_word(cause))

    def name(self, seat: int | None) -> str:
        if seat is None:
            return ""
        return self.names[seat] if 0 <= seat < len(self.names) else f"P{seat + 1}"

    def toward(self, event: Event) -> str:
        if event.pos is None or event.to is None:
            return ""
        dx, dy = event.to.x - event.pos.x, event.to.y - event.pos.y
        letter = ("E" if dx > 0 else "W") if abs(dx) >= abs(dy) else ("S" if dy > 0 else "N")
        return self.t(f"term.dir.to.{letter}")

    def facing(self, letter: str) -> str:
        return self.t(f"term.facing.{letter}") if letter in _DIRS else letter

    def question(self, key: str, args: Mapping[str, Any], english: str = "") -> str:
        """A decision's question (its message ``key`` and ``args``, see
        :class:`~roborally.engine.core.decisions.Prompt`) in words; ``english`` when the key
        is not known (see ``question`` in decisions.js).

        >>> EventWords("pl", "2023", ("Red", "Blue")).question(
        ...     "magnetic", {"count": 2, "direction": "N", "player": 1})
        'Magnetyzm: przesunąć się o 2 pola na północ razem z Blue?'
        """
        if not key or (
            not self.has(f"decision.prompt.{key}") and not self.has(f"decision.prompt.{key}.other")
        ):
            return english or key
        values: dict[str, Any] = {}
        for name, value in args.items():
            if name.startswith("card"):
                values[name] = self.card_title(str(value))
            elif name == "player":
                values[name] = self.name(int(value))
            elif name == "direction":
                values[name] = self.t(f"term.dir.to.{value}")
            elif name == "cause":
                values[name] = self.cause_word(str(value))
            else:
                values[name] = value
        return self.t(f"decision.prompt.{key}", **values)

    def option(self, kind: str, option: Any, info: Mapping[str, Any] | None = None) -> str:
        """One of a decision's options in words, as the page's buttons label it (``labelFor``
        in decisions.js); ``kind`` is the decision's kind, ``info`` its extra facts.

        >>> words = EventWords("uk", "2023", ("Red", "Blue"))
        >>> words.option("upgrade_phase", "buy spam_filter"), words.option("shutdown", False)
        ('Купити Фільтр спаму (3⚡)', 'Ні')
        >>> words.option("start_space", 3), words.option("reboot_facing", "E")
        ('Клітинка 3', '→ схід')
        """
        if isinstance(option, bool):
            return self.t("common.yes" if option else "common.no")
        if kind == "reboot_facing" and option in _ARROWS:
            return self._direction(option)
        if kind in ("start_space", "block_start"):
            return self.t("decision.space_n", n=option)
        if kind == "card_order" and isinstance(option, list | tuple):
            cards = list((info or {}).get("cards") or [])
            return " → ".join(
                self.card_title(str(cards[i]))
                if isinstance(i, int) and 0 <= i < len(cards)
                else str(i)
                for i in option
            )
        if isinstance(option, str):
            return self._option_text(option)
        if isinstance(option, list | tuple):
            return " → ".join(self.card_title(o) if isinstance(o, str) else str(o) for o in option)
        return str(option)

    def _direction(self, letter: str) -> str:
        return f"{_ARROWS[letter]} {self.t('common.dir.' + _DIR_KEYS[letter])}"

    def _with_cost(self, card: str) -> str:
        cost = _card_costs("classic" if self.classic else "2023").get(card)
        return self.card_title(card) + (f" ({cost}⚡)" if cost is not None else "")

    def _option_text(self, option: str) -> str:
        if m := re.fullmatch(r"undo install (\S+)", option):
            card = m.group(1)
            cost = _card_costs("classic" if self.classic else "2023").get(card)
            if cost:
                return self.t("decision.undo_install_refund", card=self.card_title(card), cost=cost)
            return self.t("decision.undo_install", card=self.card_title(card))
        for pattern, key in _SEAT_OPTIONS:
            if m := pattern.fullmatch(option):
                return self.t(key, name=self.name(int(m.group(1)) - 1))
        if m := re.fullmatch(r"swap p(\d+) (\S+)", option):
            who = self.name(int(m.group(1)) - 1)
            return self.t("decision.swap_for", name=who, card=self.card_title(m.group(2)))
        if m := re.fullmatch(r"(boink|zoop) ([NESW])", option):
            direction = self.t("common.dir." + _DIR_KEYS[m.group(2)])
            return self.t("decision." + m.group(1), direction=direction)
        if m := re.fullmatch(r"use ([NESW])", option):
            return self._direction(m.group(1))
        lower = option.lower()
        if self.has(word := "decision.word." + lower.replace(" ", "_")):
            return self.t(word)
        if self.is_card(option):
            return self.card_title(option)
        verb, _, rest = option.partition(" ")
        if rest and self.is_card(rest):
            card = self._with_cost(rest) if verb in ("install", "buy") else self.card_title(rest)
            if verb in _OPTION_VERBS:
                return self.t("decision.verb." + verb, card=card)
            return f"{verb.capitalize()} {card}"
        spaced = lower.replace("_", " ")
        return spaced[:1].upper() + spaced[1:]

    # ------------------------------------------------------------ sentences
    def sentence(self, event: Event) -> str | None:
        """The event in words, or ``None`` for an event the log leaves out."""
        if event.kind in _SILENT:
            return None
        who = self.name(event.seat)
        card = self.card_title(event.card) if event.card else ""
        cause = (event.cause or "").split(";")[0].strip()
        method = getattr(self, f"_{event.kind.value}", None)
        if method is not None:
            result: str | None = method(event, who, card, cause)
            return result
        bits = [who, event.kind.value.replace("_", " "), card]
        return " ".join(b for b in bits if b)

    def _game_started(self, e: Event, who: str, card: str, cause: str) -> str:
        return self.t("log.game_started")

    def _round_started(self, e: Event, who: str, card: str, cause: str) -> str:
        return self.t("log.round", round=e.round)

    def _phase_started(self, e: Event, who: str, card: str, cause: str) -> str | None:
        return self.t("log.phase", phase=self.cause_word(cause)) if e.cause else None

    def _placed(self, e: Event, who: str, card: str, cause: str) -> str:
        facing = self.facing(e.facing.letter) if e.facing else ""
        return self.t("log.placed", who=who, space=e.amount, facing=facing)

    def _deck_shuffled(self, e: Event, who: str, card: str, cause: str) -> str:
        if not who:
            return self.t("log.shuffled.damage" if cause == "damage" else "log.shuffled.discard")
        return self.t("log.shuffled.own", who=who)

    def _programmed(self, e: Event, who: str, card: str, cause: str) -> str:
        return self.t("log.programmed", who=who)

    def _shut_down(self, e: Event, who: str, card: str, cause: str) -> str:
        if self.classic:
            return self._power_down(e, who, cause)
        return self.t("log.shut_down", who=who)

    def _power_down(self, e: Event, who: str, cause: str) -> str:
        """A classic power down (7.2-7.5; 1994: 7.7): announced for the next round (no
        ``amount``), begun now with the damage removed (``amount``: how much), or kept for
        the next round. Any other cause (an option card) is named."""
        if cause == "stays powered down":
            return self.t("log.power_down.stays", who=who)
        key = "log.power_down.announced" if e.amount is None else "log.power_down.now"
        return self.with_cause(self.t(key, who=who), "" if cause in _PLAIN_POWER_DOWN else cause)

    def _register_started(self, e: Event, who: str, card: str, cause: str) -> str:
        return self.t("log.register", register=e.register)

    def _upgrade(self, e: Event, who: str, card: str, cause: str) -> str:
        verb = _UPGRADE_VERBS.get(cause)
        if verb:
            sentence = self.t(f"log.upgrade.{verb}", who=who, card=card)
        else:
            sentence = self.t("log.upgrade.verb", who=who, what=cause, card=card)
        if e.other is not None:
            return self.t("log.with_cause", text=sentence, cause=self.name(e.other))
        return sentence

    def _card_revealed(self, e: Event, who: str, card: str, cause: str) -> str:
        if cause in ("haywire", "spam filter", "lucky booster"):
            return self.t(f"log.revealed.{slug(cause)}", who=who, card=card)
        if cause == "locked register filled":  # classic 6.3: the top card, face up
            return self.t("log.revealed.locked_register", who=who, card=card, register=e.amount)
        return self.with_cause(self.t("log.revealed", who=who, card=card), cause)

    def _card_replaced(self, e: Event, who: str, card: str, cause: str) -> str:
        c = e.cause or ""
        if not e.card:
            if c in ("only rotations", "radio control ended"):
                return self.t(f"log.replaced.{slug(c)}", who=who)
            return self.t("log.replaced.cards", who=who, cause=self.cause_word(c))
        old = self.cards_title(e.card)
        if c in ("removed from the game", "scrambler", "empty deck"):
            key = {"removed from the game": "removed"}.get(c, slug(c))
            return self.t(f"log.replaced.{key}", who=who, card=old)
        how, to = c.split(": ", 1) if ": " in c else ("", c)
        if not self.is_card(to):
            return self.with_cause(self.t("log.replaced.lost", who=who, card=old), c)
        following = self.card_title(to)
        top = self.t("log.replaced.another", card=following) if to == e.card else following
        if e.card in ("spam", "again"):
            return self.t(f"log.replaced.{e.card}", who=who, card=old, top=top)
        if how:
            how_word = self.cause_word(how)
            how_word = how_word[:1].upper() + how_word[1:]
            return self.t("log.replaced.how", how=how_word, who=who, card=old, top=top)
        return self.t("log.replaced.swapped", who=who, card=old, top=top)

    def _moved(self, e: Event, who: str, card: str, cause: str) -> str:
        return self.t("log.moved", who=who, dir=self.toward(e))

    def _blocked(self, e: Event, who: str, card: str, cause: str) -> str:
        what = cause or "wall"
        key = f"log.blocked.{slug(what)}"
        return self.t(
            key if self.has(key) else "log.blocked.by", who=who, cause=self.cause_word(what)
        )

    def _pushed(self, e: Event, who: str, card: str, cause: str) -> str:
        where = self.toward(e)
        if e.other is not None:
            return self.t("log.pushed.robot", who=who, dir=where, other=self.name(e.other))
        if cause and self.has(f"log.pushed.{slug(cause)}"):
            return self.t(f"log.pushed.{slug(cause)}", who=who, dir=where)
        return self.with_cause(self.t("log.pushed", who=who, dir=where), cause)

    def _conveyed(self, e: Event, who: str, card: str, cause: str) -> str:
        key = f"log.conveyed.{slug(cause or 'belt')}"
        return self.t(key if self.has(key) else "log.conveyed.belt", who=who, dir=self.toward(e))

    def _rotated(self, e: Event, who: str, card: str, cause: str) -> str:
        turn = "any"
        if e.facing is not None and e.to_facing is not None:
            d = (_DIRS.index(e.to_facing.letter) - _DIRS.index(e.facing.letter)) % 4
            turn = {1: "right", 2: "around", 3: "left"}.get(d, "any")
        return self.with_cause(
            self.t(f"log.turns.{turn}", who=who), "" if cause == "card" else cause
        )

    def _damaged(self, e: Event, who: str, card: str, cause: str) -> str:
        if self.classic and not card:  # classic damage is tokens, counted (6.2)
            sentence = self.t("log.damaged.classic", who=who, count=e.amount or 1)
        elif e.secret and not e.card:
            sentence = self.t("log.damaged.hidden", who=who)
        elif card:
            sentence = self.t("log.damaged.card", who=who, card=card)
        else:
            sentence = self.t("log.damaged", who=who)
        return self.with_cause(sentence, cause)

    def _damage_prevented(self, e: Event, who: str, card: str, cause: str) -> str:
        if self.classic and cause.startswith("repaired"):
            what = cause[12:]
            what_word = self.cause_word(what) if what else self.t("log.one_damage")
            return self.t("log.repaired", who=who, what=what_word)
        return self.with_cause(self.t("log.damage_avoided", who=who), cause if self.classic else "")

    def _fell(self, e: Event, who: str, card: str, cause: str) -> str:
        return self.t("log.fell.pit" if e.cause == "pit" else "log.fell.edge", who=who)

    def _rebooted(self, e: Event, who: str, card: str, cause: str) -> str:
        return self.t("log.rebooted", who=who)

    def _destroyed(self, e: Event, who: str, card: str, cause: str) -> str:
        sentence = self.with_cause(self.t("log.destroyed", who=who), cause)
        if e.amount is None:
            return sentence
        return self.t("log.lives_left", text=sentence, count=e.amount)

    def _reentered(self, e: Event, who: str, card: str, cause: str) -> str:
        facing = e.to_facing or e.facing
        if facing is None:
            return self.t("log.reentered.plain", who=who)
        return self.t("log.reentered", who=who, facing=self.facing(facing.letter))

    def _displaced(self, e: Event, who: str, card: str, cause: str) -> str:
        return self.t("log.displaced", who=who)

    def _energy_gained(self, e: Event, who: str, card: str, cause: str) -> str:
        return self.with_cause(self.t("log.energy_gained", who=who, count=e.amount or 1), cause)

    def _checkpoint_reached(self, e: Event, who: str, card: str, cause: str) -> str:
        key = "log.flag_reached" if self.classic else "log.checkpoint_reached"
        return self.t(key, who=who, number=e.amount)

    def _archived(self, e: Event, who: str, card: str, cause: str) -> str:
        return self.t("log.archived.classic" if self.classic else "log.archived", who=who)

    def _priority_passed(self, e: Event, who: str, card: str, cause: str) -> str:
        return self.t("log.priority_passed", who=who)

    def _game_won(self, e: Event, who: str, card: str, cause: str) -> str:
        if cause == "place":  # classic play for places: a finisher's place
            return self.t("log.game_won.place", who=who, place=e.amount)
        if cause == "shared":  # classic shared ties: a finisher beside the winner
            return self.t("log.game_won.shared", who=who)
        return self.t("log.game_won", who=who)

    def _game_ended(self, e: Event, who: str, card: str, cause: str) -> str:
        end = (e.cause or "").replace("_", " ")
        if not end:
            return self.t("log.game_ended")
        return self.t("log.with_cause", text=self.t("log.game_ended"), cause=self.end_word(end))

    def end_word(self, end: str) -> str:
        """Why the game ended, as a cause: in the classic editions the race is to flags
        (``log.cause.KEY.classic`` where the words differ)."""
        key = f"log.cause.{slug(end)}.classic"
        return self.t(key) if self.classic and self.has(key) else self.cause_word(end)

    def termination(self, termination: str) -> str:
        """How a game ended (an :class:`~roborally.engine.game.Outcome`'s termination) in
        the words of the command line's result, the edition's own where they differ.

        >>> EventWords("en", "classic", ()).termination("checkpoints")
        'flags'
        >>> EventWords("en", "2023", ()).termination("checkpoints")
        'checkpoints'
        """
        key = f"cli.termination.{termination}"
        if self.classic and self.has(key + ".classic"):
            key += ".classic"
        return self.t(key)
