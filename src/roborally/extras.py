"""Optional features and the extras that install their third-party packages.

``pip install roborally`` installs the engine, the content, the bots, the SVG renderer and the
command line, which need only the standard library. Each optional feature imports its packages
through :func:`require` when it is used (never when ``roborally`` is imported), so a missing
package becomes a :class:`MissingExtra` whose text is one line naming what to install:

* ``server`` (starlette, uvicorn, websockets): ``roborally serve``, the browser game;
* ``png`` (cairosvg, which also needs the system's cairo library): PNG pictures;
* ``rl`` (numpy, gymnasium, pettingzoo): reinforcement-learning environments;
* ``all``: all of the above.

>>> require("json", "server", "the game server").__name__
'json'
>>> try:
...     require("nomodule", "server", "the game server")
... except MissingExtra as error:
...     print(error)
the game server needs the server extra: pip install 'roborally[server]' (missing: nomodule)
"""

from __future__ import annotations

import importlib
from types import ModuleType

__all__ = ["EXTRAS", "MissingExtra", "install_command", "require"]

#: Each extra and the import names of the packages it installs.
EXTRAS: dict[str, tuple[str, ...]] = {
    "server": ("starlette", "uvicorn", "websockets", "segno"),
    "png": ("cairosvg",),
    "rl": ("numpy", "gymnasium", "pettingzoo"),
    "scale": ("redis", "psycopg"),
}


def install_command(extra: str) -> str:
    """The pip command that installs ``extra``."""
    return f"pip install 'roborally[{extra}]'"


class MissingExtra(ImportError):
    """An optional feature's package (or the system library it loads) is not installed.

    ``feature`` names what was asked for, ``extra`` the extra that installs it; ``str(error)``
    is one line that says both and how to install it (or ``message``, when the extra is
    installed but something outside Python is missing).
    """

    def __init__(self, feature: str, extra: str, detail: str = "", message: str = "") -> None:
        if not message:
            message = f"{feature} needs the {extra} extra: {install_command(extra)}"
            if detail:
                message += f" ({detail})"
        super().__init__(message)
        self.feature = feature
        self.extra = extra


def require(
    module: str, extra: str, feature: str, error: type[MissingExtra] = MissingExtra
) -> ModuleType:
    """Import ``module`` for ``feature``; an ``error`` (a :class:`MissingExtra`) naming
    ``extra`` if it cannot be imported (``feature`` is what the user asked for, e.g.
    ``"roborally serve"``)."""
    try:
        return importlib.import_module(module)
    except ImportError as failure:
        missing = getattr(failure, "name", None) or module
        raise error(feature, extra, f"missing: {missing}") from failure
