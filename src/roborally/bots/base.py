"""The bot interface: a bot sees its seat's observation and answers one decision at a time."""

from __future__ import annotations

from typing import Any, Protocol

from roborally.engine.core.decisions import Decision


class Bot(Protocol):
    """Anything with ``choose``. Bots get observations, never the full game state."""

    name: str

    def choose(self, observation: dict[str, Any], decision: Decision) -> Any:
        """Return a legal choice for ``decision``."""
        ...
