"""The classic card catalogue for ``roborally cards``.

The program deck and the option cards are the engine's data
(``engine/data/cards/classic-program.json`` and ``classic-options.json``), loaded and checked
by :mod:`roborally.engine.classic.cards`; this module re-exports them for the callers above
the engine.
"""

from __future__ import annotations

from typing import Any

from roborally.engine.classic.cards import OPTION_FILE as OPTION_FILE
from roborally.engine.classic.cards import PROGRAM_FILE as PROGRAM_FILE
from roborally.engine.classic.cards import ClassicCardDataError as ClassicCardDataError
from roborally.engine.classic.cards import OptionCard as OptionCard
from roborally.engine.classic.cards import ProgramCard as ProgramCard
from roborally.engine.classic.cards import option_cards as option_cards
from roborally.engine.classic.cards import parse_option_cards as parse_option_cards
from roborally.engine.classic.cards import parse_program_deck as parse_program_deck
from roborally.engine.classic.cards import program_deck as program_deck


def catalogue(edition: str) -> dict[str, list[dict[str, Any]]]:
    """The card catalogue of ``classic`` or ``classic-1994`` for ``roborally cards``.

    Both rulesets share the program deck; the option cards belong to ``classic`` (in
    ``classic-1994`` only with the ``option_cards`` rule).
    """
    if edition not in ("classic", "classic-1994"):
        raise ValueError(f"not a classic edition: {edition!r}")
    return {
        "program_cards": [card.to_json() for card in program_deck()],
        "option_cards": [card.to_json() for card in option_cards()],
    }
