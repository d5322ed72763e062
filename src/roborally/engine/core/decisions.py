"""Decisions and actions: the one door through which players change a game.

The game lists its pending :class:`Decision` values (who must decide what, with the legal
options and a default); a player answers with an :class:`Action`. An action that is not legal is
refused with an :class:`IllegalActionError` (or one of its relatives) and the game is unchanged.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any


class DecisionKind(StrEnum):
    START_SPACE = "start_space"  # pick a start space on the docking bay (setup)
    BLOCK_START = "block_start"  # competitive mode: block a start space with your cube
    PROGRAM = "program"  # fill the registers
    SHUTDOWN = "shutdown"  # declare a Shutdown before register 1 (yes/no)
    REBOOT_FACING = "reboot_facing"  # facing when re-entering the board
    SIDESTEP = "sidestep"  # the Haywire "Move 2 left or right": which side
    CARD_ORDER = "card_order"  # the Haywire "resolve both in the order you choose"
    UPGRADE_PHASE = "upgrade_phase"  # one step of the upgrade phase: draw, install, use, done
    UPGRADE = "upgrade"  # use an upgrade in a timing window, or a choice an upgrade offers
    # The classic editions
    POWER_DOWN = "power_down"  # announce / stay in / re-enter in a power down (yes/no)
    CHOICE = "choice"  # an option card's use, a damage shield, the 1994 first card, ...


# The members as module constants, as the engine's rules write them (like events.MOVED):
# ``DecisionKind.X`` costs about ten times a global on Python 3.11 (tests/test_enum_constants.py).
START_SPACE = DecisionKind.START_SPACE
BLOCK_START = DecisionKind.BLOCK_START
PROGRAM = DecisionKind.PROGRAM
SHUTDOWN = DecisionKind.SHUTDOWN
REBOOT_FACING = DecisionKind.REBOOT_FACING
SIDESTEP = DecisionKind.SIDESTEP
CARD_ORDER = DecisionKind.CARD_ORDER
UPGRADE_PHASE = DecisionKind.UPGRADE_PHASE
UPGRADE = DecisionKind.UPGRADE
POWER_DOWN = DecisionKind.POWER_DOWN
CHOICE = DecisionKind.CHOICE


#: The choice that asks the game to apply a decision's default (timer expired, player absent).
TIMEOUT = "timeout"


class Prompt(str):
    """A decision's question in English that also names its message: ``key`` (a text of the
    translation files, ``decision.prompt.KEY``) and the ``args`` that fill it. A client shows
    the text in its reader's language from these; the English text stays what it was.

    Values in ``args``: ``card``/``card2`` a card or upgrade id, ``player`` a seat, ``direction``
    a facing letter, ``cause`` a damage cause, anything else a number or plain text.

    >>> p = Prompt("Resolve move1 and again in which order?", "card_order", card="move1")
    >>> p == "Resolve move1 and again in which order?", p.key, p.args
    (True, 'card_order', {'card': 'move1'})
    """

    key: str
    args: dict[str, Any]

    def __new__(cls, text: str, key: str = "", **args: Any) -> Prompt:
        if not args:  # a fixed question: one object for all of its decisions
            kept = _FIXED_PROMPTS.get((text, key))
            if kept is not None:
                return kept
        prompt = super().__new__(cls, text)
        prompt.key = key
        prompt.args = args
        if not args and len(_FIXED_PROMPTS) < 1024:  # bounded: decisions read from JSON too
            _FIXED_PROMPTS[(text, key)] = prompt
        return prompt


#: The questions without values made so far (a prompt is never changed once made).
_FIXED_PROMPTS: dict[tuple[str, str], Prompt] = {}


@dataclass(frozen=True, init=False)
class Decision:
    """A question the game asks one seat.

    ``options`` lists every legal choice when there are few; for a program it is empty and
    ``info`` says what may be used (``hand``, ``locked`` registers, ``registers`` to fill).
    ``default`` describes what :data:`TIMEOUT` does.

    >>> Decision("t1-r0-p1-program", 0, DecisionKind.PROGRAM, "Program your robot").info
    {}
    """

    id: str
    seat: int
    kind: DecisionKind
    prompt: str
    options: tuple[Any, ...] = ()
    default: str = ""
    info: dict[str, Any] = field(default_factory=dict)

    def __init__(
        self,
        id: str,
        seat: int,
        kind: DecisionKind,
        prompt: str,
        options: tuple[Any, ...] = (),
        default: str = "",
        info: dict[str, Any] | None = None,
    ) -> None:
        # Straight into the instance dictionary: a frozen dataclass's own __init__ sets each
        # field through object.__setattr__, twice as slow, and the stages make many decisions.
        fields = self.__dict__
        fields["id"] = id
        fields["seat"] = seat
        fields["kind"] = kind
        fields["prompt"] = prompt
        fields["options"] = options
        fields["default"] = default
        fields["info"] = {} if info is None else info

    @property
    def prompt_key(self) -> str:
        """The message key of the question (empty: only the English ``prompt``)."""
        return getattr(self.prompt, "key", "")

    @property
    def prompt_args(self) -> dict[str, Any]:
        """The values that fill :attr:`prompt_key`'s text."""
        return getattr(self.prompt, "args", {})


@dataclass(frozen=True)
class Action:
    """An answer to one decision: ``choice`` is the option chosen (or :data:`TIMEOUT`).

    For a program the choice is a tuple of 5 entries, one per register: a card name, or
    ``None`` for a register that cannot be programmed (it holds a face-down Haywire).

    >>> Action("r1-program-p1", 0, ("move1", "move2", "again", "rotate_left", "power_up"))
    Action(decision_id='r1-program-p1', seat=0, choice=('move1', 'move2', 'again', 'rotate_left', 'power_up'))
    """  # noqa: E501

    decision_id: str
    seat: int
    choice: Any


class ActionError(ValueError):
    """Base class of the errors an action can raise; the game is unchanged after any of them."""


class InvalidActionError(ActionError):
    """The action is malformed (wrong shape or type)."""


class IllegalActionError(ActionError):
    """The action is well formed but not legal now."""


class NotYourDecisionError(ActionError):
    """The action names a decision that is not pending, or belongs to another seat."""
