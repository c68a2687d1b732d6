"""Counts in messages: ``plural(1, "event")`` is ``"1 event"``, ``plural(2, "event")`` is ``"2 events"``, so no
message says "1 events" (the one helper every message uses for a counted noun)."""

from __future__ import annotations


def plural(n: int, noun: str, many: str | None = None) -> str:
    """``n`` and ``noun``, in the plural unless ``n`` is 1 (``many`` when the plural is not ``noun + "s"``)."""
    return f"{n} {noun if n == 1 else (many or noun + 's')}"


__all__ = ["plural"]
