"""Durations, in seconds: one grammar for every place that takes one — ``WITHIN`` and ``CREATE QUARANTINE`` in
CEQL (the CORE paper, *CORE: a Complex Event Recognition Engine*, §2.2: ``WITHIN 1 hours 30 minutes``), ``run
--lateness`` and Spark's watermark delay (``spark --stream --lateness``).

A duration is a bare number (seconds, the unit of time windows: docs/decisions.md D170) or one or more
``amount unit`` pairs, the amount written beside or apart from its unit: ``2``, ``2.5 seconds``, ``500 ms``,
``500ms``, ``1 minute 30 seconds``, ``1 min, 30 s``. Units: milliseconds (``ms``), seconds (``s``, ``sec``),
minutes (``m``, ``min``), hours (``h``), days (``d``) and weeks (``w``), singular or plural, any case. A
duration is finite and not negative.
"""

from __future__ import annotations

import math
import re

from cer_theory.core.errors import CerError

UNITS: dict[str, float] = {}
"""Seconds per unit, by every spelling the grammar accepts (lower case)."""
for _names, _seconds in ((("ms", "msec", "millisecond"), 0.001), (("s", "sec", "second"), 1.0),
                         (("m", "min", "minute"), 60.0), (("h", "hr", "hour"), 3600.0),
                         (("d", "day"), 86_400.0), (("w", "week"), 604_800.0)):
    for _name in _names:
        UNITS[_name] = _seconds
        UNITS[_name + "s"] = _seconds
del _names, _seconds, _name
UNITS["ms"] = 0.001  # (not "m" + "s")

_PAIR = re.compile(r"\s*([+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?)\s*([A-Za-z]*)\s*,?\s*")

EXAMPLES = "2, '2 seconds', '500 ms' or '1 minute 30 seconds'"


def unit_seconds(unit: str) -> float:
    """Seconds in one ``unit`` (any spelling of :data:`UNITS`); KeyError for another word."""
    return UNITS[unit.lower()]


def seconds(text: str | float, what: str = "duration") -> float:
    """``text`` read as a duration, in seconds; a :class:`CerError` naming ``what`` (e.g. ``--lateness``) if it
    is not one. A number is taken as seconds."""
    if isinstance(text, bool):
        raise CerError(f"{what} {text!r}: expected a duration such as {EXAMPLES}")
    if isinstance(text, (int, float)):
        total = float(text)
    else:
        total = _parse(str(text), what)
    if not (math.isfinite(total) and total >= 0):
        raise CerError(f"{what} {text!r}: expected a finite duration >= 0")
    return total


def _parse(text: str, what: str) -> float:
    body = text.strip()
    pos, total, pairs = 0, 0.0, 0
    while pos < len(body):
        found = _PAIR.match(body, pos)
        if found is None or found.end() == pos:
            raise CerError(f"{what} {text!r}: expected a duration such as {EXAMPLES}")
        amount, unit = found.groups()
        if not unit and (pairs or found.end() < len(body)):  # a bare number stands alone
            raise CerError(f"{what} {text!r}: expected a duration such as {EXAMPLES}")
        try:
            total += float(amount) * (unit_seconds(unit) if unit else 1.0)
        except KeyError:
            raise CerError(f"{what} {text!r}: unknown unit {unit!r} (expected one of ms, s, min, h, d, w, "
                           f"or their names)") from None
        pairs += 1
        pos = found.end()
    if not pairs:
        raise CerError(f"{what} {text!r}: expected a duration such as {EXAMPLES}")
    return total


__all__ = ["EXAMPLES", "UNITS", "seconds", "unit_seconds"]
