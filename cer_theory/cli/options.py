"""Argument types for the numeric options of the commands: each says which values it takes (its ``domain``, shown
in the option's help) and refuses every other value while the command line is read, so that a negative count, a
NaN or infinite number of seconds, or a number too large for the platform ends in argparse's one-line message and
exit status 2, never in a traceback or a disabled limit further on (docs/robustness.md)."""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable
from typing import Protocol

MAX_SECONDS = 86_400.0
"""The longest time an option may give (a day): longer waits overflow the platform's timeouts
(``threading.TIMEOUT_MAX`` is about 49 days on some systems) and a day is past any use here."""


class OptionType(Protocol):
    """An argparse ``type=`` that declares its values: ``domain`` is a phrase for the help ("a whole number ≥ 1")."""

    domain: str

    def __call__(self, text: str) -> int | float: ...


def whole_number(minimum: int | None = None, maximum: int | None = None) -> OptionType:
    """A whole number in ``[minimum, maximum]`` (either bound may be absent: a seed is any whole number)."""
    if minimum is not None and maximum is not None:
        domain = f"a whole number from {minimum} to {maximum}"
    elif minimum is not None:
        domain = f"a whole number ≥ {minimum}"
    elif maximum is not None:
        domain = f"a whole number ≤ {maximum}"
    else:
        domain = "a whole number"

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected {domain}, got {text!r}") from None
        if (minimum is not None and value < minimum) or (maximum is not None and value > maximum):
            raise argparse.ArgumentTypeError(f"expected {domain}, got {text}")
        return value

    return _declared(parse, domain, "whole number")


def seconds(*, zero: str | None = None, maximum: float = MAX_SECONDS) -> OptionType:
    """A finite number of seconds in ``(0, maximum]``; with ``zero`` (what 0 means, e.g. "no progress lines"),
    0 too. NaN, infinities and negative numbers are refused: each would silently disable what the option times."""
    domain = f"seconds, more than 0 and at most {maximum:g}" + (f" (0: {zero})" if zero else "")

    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected {domain}, got {text!r}") from None
        if not math.isfinite(value) or value < 0 or value > maximum or (value == 0 and zero is None):
            raise argparse.ArgumentTypeError(f"expected {domain}, got {text}")
        return value

    return _declared(parse, domain, "seconds")


def _declared(parse: Callable[[str], int | float], domain: str, name: str) -> OptionType:
    parse.domain = domain  # type: ignore[attr-defined]
    parse.__name__ = name  # argparse names the type by it in "invalid <name> value"
    return parse  # type: ignore[return-value]


__all__ = ["MAX_SECONDS", "OptionType", "seconds", "whole_number"]
