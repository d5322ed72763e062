"""The classic edition's rules (2005, ``classic``) and the 1994 variant (``classic-1994``).

The game runs as named stages on the edition-free core
(:class:`~roborally.engine.core.driver.StageDriver`: the driver, ``ask`` and ``finish``; the
movement and board elements of :class:`~roborally.engine.core.mechanics.Mechanics`), beside the
2023 rules and not built on them. Every classic stage runs on a snapshot: when it needs a
decision it raises ``Suspend`` and the stage's changes are thrown away, so answering and
re-running it replays the same steps with one more answer.

:class:`RulesClassic` combines one mixin per concern, each in a module of this package, over the
shared :class:`~roborally.engine.classic.base.ClassicBase`: :mod:`.setup`, :mod:`.choices`
(observations, validation, defaults), :mod:`.round` (up to programming and the power-down
announcements), :mod:`.activation` (revealing and executing the cards, the option cards that act
on moves, the classic movement hooks), :mod:`.elements`, :mod:`.lasers` (lasers and weapon
options), :mod:`.damage` (damage, destruction, re-entry) and :mod:`.flags` (flags, the finish,
repairs and cleanup). Every method is defined in exactly one of them, so the order of the bases
decides nothing but where a ``super()`` call goes next: through the mixins to the core.

Section numbers (``6.3``) and engine decisions (``A-nn``) are those of the project's rules
specification for the classic editions, ``001: 415`` cites the printed rules by rulebook and
line; ``docs/rules-classic.md`` describes the rules as the engine plays them, in the same
numbering, and lists the decisions this engine makes on top of the spec.
"""

from __future__ import annotations

from roborally.engine.classic.activation import ClassicActivation
from roborally.engine.classic.base import ClassicBase
from roborally.engine.classic.choices import ClassicChoices
from roborally.engine.classic.damage import ClassicDamage
from roborally.engine.classic.elements import ClassicElements
from roborally.engine.classic.flags import ClassicFlags
from roborally.engine.classic.lasers import ClassicLasers
from roborally.engine.classic.round import ClassicRound
from roborally.engine.classic.setup import ClassicSetup


class RulesClassic(
    ClassicChoices,
    ClassicSetup,
    ClassicRound,
    ClassicActivation,
    ClassicElements,
    ClassicLasers,
    ClassicDamage,
    ClassicFlags,
    ClassicBase,
):
    """The classic rules, run as stages over a :class:`ClassicState`."""
