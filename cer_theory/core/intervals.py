"""The shape every reference semantics here shares: ``⟦φ⟧(S, i, j)``, the outputs of a formula on the interval
``[i, j]`` of one stream, computed rule by rule and memoised per (subformula, i, j).

The CEL paper (Fig. 3), the CORE paper (Fig. 2) and the SO-CEL paper (Table 1) all define their semantics by intervals. Each
formalism subclasses :class:`IntervalSemantics` and writes its rules in ``_rule``; the bounds check, the memo and
``⟦φ⟧_n(S) = ⟦φ⟧(S, 0, n)`` live here once.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import Any, Generic, TypeVar

from cer_theory.core.budget import charge
from cer_theory.core.events import Event

Outputs = TypeVar("Outputs")

SEMANTICS = "the reference semantics"
"""What the work budget's message names: each rule computed costs one unit plus one per output (core.budget), so
``eval --via semantics --budget N`` stops where brute force would run for hours."""


class IntervalSemantics(Generic[Outputs]):
    """``⟦φ⟧(S, i, j)`` for one stream S, memoised across formulas and intervals."""

    def __init__(self, stream: Sequence[Event]) -> None:
        self.stream = stream
        self._memo: dict[tuple[int, int, int], Outputs] = {}
        self._keep: list[Any] = []  # keeps memoised formulas alive so their ids stay unique

    def interval(self, phi: Any, i: int, j: int) -> Outputs:
        """``⟦φ⟧(S, i, j)`` for ``0 ≤ i ≤ j < |S|``."""
        if not 0 <= i <= j < len(self.stream):
            raise IndexError(f"interval ({i},{j}) outside the stream of length {len(self.stream)}")
        key = (id(phi), i, j)
        hit = self._memo.get(key)
        if hit is None:
            self._keep.append(phi)
            hit = self._memo[key] = self._rule(phi, i, j)
            charge(SEMANTICS, 1 + len(hit))  # type: ignore[arg-type]
        return hit

    def at(self, phi: Any, n: int) -> Outputs:
        """``⟦φ⟧_n(S) = ⟦φ⟧(S, 0, n)``: the outputs after reading ``S[0..n]``."""
        return self.interval(phi, 0, n)

    def covering_unions(self, left: Any, right: Any, i: int, j: int) -> frozenset:
        """``{μ1 ∪ μ2 | μ1 ∈ ⟦left⟧(S,i1,j1), μ2 ∈ ⟦right⟧(S,i2,j2)}`` over the pairs of intervals inside
        ``[i, j]`` with ``min(i1, i2) = i`` and ``max(j1, j2) = j``: the rule of ``ALL`` in the CEL paper (Fig. 3),
        which the SO-CEL paper (§2.1) takes over."""
        spans = [(a, b) for a in range(i, j + 1) for b in range(a, j + 1)]
        out: set = set()
        for (i1, j1), (i2, j2) in itertools.product(spans, spans):
            if min(i1, i2) != i or max(j1, j2) != j:
                continue
            lefts = self.interval(left, i1, j1)
            if lefts:
                charge(SEMANTICS, len(lefts))
                out.update(m1.union(m2) for m1 in lefts for m2 in self.interval(right, i2, j2))
        return frozenset(out)

    def _rule(self, phi: Any, i: int, j: int) -> Outputs:
        raise NotImplementedError(f"{type(self).__name__} defines the rules of its formalism")


__all__ = ["IntervalSemantics"]
