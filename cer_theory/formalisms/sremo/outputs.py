"""The outputs of SREMO and SRT over a stream (seed 002, Def. 32): matches are sets of 0-based positions, and
the streaming output at position ``k`` is a set of matches."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

Match = frozenset[int]


@dataclass(frozen=True)
class StreamOutput:
    """The streaming output at position ``k`` (seed 002, Def. 32): a non-empty set of matches."""

    k: int
    matches: frozenset[Match]

    def to_json(self) -> dict[str, object]:
        """``{"k": 3, "matches": [[0, 3], [1, 3]]}``: each match sorted, the list sorted."""
        return {"k": self.k, "matches": sorted(sorted(m) for m in self.matches)}


def per_position(outputs: Iterable[StreamOutput], n: int) -> list[frozenset[Match]]:
    """The outputs as one set per position ``0..n-1`` (empty where nothing is reported)."""
    out: list[frozenset[Match]] = [frozenset()] * n
    for o in outputs:
        out[o.k] = o.matches
    return out
