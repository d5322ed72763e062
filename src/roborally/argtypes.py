"""Checked argument types for the command lines (``roborally`` and ``python -m ...``).

>>> import argparse
>>> port = whole_number(1, 65535)
>>> port("8000")
8000
>>> try:
...     port("99999")
... except argparse.ArgumentTypeError as error:
...     print(error)
99999 is out of range (it must be from 1 to 65535)
"""

from __future__ import annotations

import argparse
from collections.abc import Callable

__all__ = ["seconds", "whole_number"]


def whole_number(low: int, high: int | None = None) -> Callable[[str], int]:
    """An argparse type: a whole number from ``low`` (up to ``high``, if given)."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
        if value < low or (high is not None and value > high):
            wanted = f"from {low} to {high}" if high is not None else f"at least {low}"
            raise argparse.ArgumentTypeError(f"{value} is out of range (it must be {wanted})")
        return value

    parse.__name__ = "whole number"  # what argparse calls the type in its messages
    return parse


def seconds(text: str) -> float:
    """An argparse type: a number of seconds, 0 or more.

    >>> seconds("2.5")
    2.5
    """
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
    if not value >= 0 or value == float("inf"):  # also refuses nan
        raise argparse.ArgumentTypeError(f"{text} is out of range (it must be 0 or more)")
    return value


seconds.__name__ = "number of seconds"
