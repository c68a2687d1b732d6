"""Definitions written out the slow, obvious way, for tests to compare fast paths with."""

from __future__ import annotations

from collections.abc import Sequence


def late_rows(stamps: Sequence) -> list[int]:
    """Rule 4 of a stream's row checks by definition (docs/decisions.md D30): the indexes of the rows whose
    timestamp is below the largest one before them. A late row never raises that maximum."""
    out, high = [], None
    for i, t in enumerate(stamps):
        if high is not None and t < high:
            out.append(i)
        high = t if high is None else max(high, t)
    return out
