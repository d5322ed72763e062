"""The rules engine: rules, state, decisions and events (no sockets, no clocks).

Importing the package loads the edition registry, which checks every new game's settings.
"""

from roborally.engine import editions as _editions  # noqa: F401 - adds the settings check
