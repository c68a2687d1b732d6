"""The SO-CEL paper, Lemma C.1: every SO-CEL∪{STRICT} formula is *pumpable*, as an executable check.

Pumping (the SO-CEL paper App. C.4.2, the same operation as the CEL paper App. D, :func:`~cer_theory.formalisms.cel.rewrites.pump`):
split ``(S, C)`` at two positions ``i < j`` of ``supp C`` and repeat the fragment ``S[i..j]`` with its slice of C
``k`` times. When the slice is not an interval, arbitrary streams go between the copies. ``φ`` is pumpable if some
constant N works as follows. For every output C with ``|supp C| > N``, some fragment can be pumped any number of
times with any padding, and the pumped C' stays an output of ``φ`` on the pumped stream.

The lemma is what separates ⊕ from STRICT (Thm 6.5, part 2): ``((A ; E) FILTER A.a = E.a):+`` glues iterations
back to back, and no fragment of its long outputs survives pumping. :func:`check_pumpable` looks for a fragment
for every long output of a formula on one stream, for given ``k`` and paddings, and returns the outputs that have
none. The lemma says that list is empty for a formula in :func:`in_lemma_c1_fragment`.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass

from cer_theory.core.events import Event, Stream, Valuation
from cer_theory.formalisms.cel.rewrites import pump
from cer_theory.formalisms.socel.ast import (Atom, Disj, Filter, Formula, In, Order, Plus, Rename, Seq, Strict,
                                             conjuncts)
from cer_theory.formalisms.socel.semantics import SoCelSemantics

LEMMA_C1_NODES = (Atom, In, Rename, Filter, Disj, Seq, Plus, Strict)
"""The operators of SO-CEL∪{STRICT} (the SO-CEL paper §2 and §6)."""


def in_lemma_c1_fragment(phi: Formula) -> bool:
    """SO-CEL∪{STRICT} with universal SO filters (the extensions of FO predicates, the SO-CEL paper §2).

    ``incr``/``decr`` are left out. They are order-aware, not universal, and pumping repeats values, so
    ``(R+ IN A) FILTER incr(A.x)`` loses its outputs when pumped. The lemma's predicates are the P^SO of
    Thm 6.5."""
    return all(isinstance(node, LEMMA_C1_NODES) for node in phi.walk()) and not any(
        isinstance(c, Order) for node in phi.walk() if isinstance(node, Filter) for c in conjuncts(node.condition))


def pumping_constant(phi: Formula) -> int:
    """The constant N of Lemma C.1's induction: 1 for an atom, ``N1 + N2`` for ``;``, the maximum for OR, and the
    operand's constant for IN, renaming, FILTER, ``+`` and STRICT."""
    if isinstance(phi, Atom):
        return 1
    if isinstance(phi, Seq):
        return pumping_constant(phi.left) + pumping_constant(phi.right)
    if isinstance(phi, Disj):
        return max(pumping_constant(phi.left), pumping_constant(phi.right))
    return max((pumping_constant(child) for child in phi.children()), default=1)  # type: ignore[arg-type]


def pumpable_fragment(phi: Formula, stream: Sequence[Event], c: Valuation, ks: Sequence[int],
                      paddings: Sequence[Sequence[Event]]) -> tuple[int, int] | None:
    """The first ``(i, j)``, ``i < j`` in ``supp C``, such that pumping ``[i, j]`` k times keeps the pumped C'
    in ``⟦φ⟧(S', 0, max supp C')`` for every k in ``ks`` (``paddings[:k + 1]`` between the copies)."""
    for i, j in itertools.combinations(sorted(c.support()), 2):
        if all(c2 in SoCelSemantics(s2).interval(phi, 0, max(c2.support()))
               for k in ks for s2, c2 in [pump(stream, c, i, j, k, paddings[:k + 1])]):
            return i, j
    return None


@dataclass(frozen=True)
class PumpingFailure:
    """An output of φ on ``stream`` at ``n``, larger than the constant, with no fragment that pumps."""

    stream: Stream
    n: int
    complex_event: Valuation

    def __str__(self) -> str:
        return f"no fragment of {self.complex_event!r} (output at n = {self.n}) pumps on {self.stream!r}"


def check_pumpable(phi: Formula, stream: Sequence[Event], *, ks: Sequence[int] = (1, 2),
                   paddings: Sequence[Sequence[Event]] = (), per_position: int | None = None
                   ) -> tuple[int, list[PumpingFailure]]:
    """Lemma C.1 on one stream: ``(outputs checked, failures)``. Every output at every n with more than
    ``pumping_constant(φ)`` positions is checked, at most ``per_position`` of them per n (the smallest first).
    ``paddings`` defaults to one empty stream per copy."""
    s = Stream(stream)
    pads = list(paddings) or [[] for _ in range(max(ks) + 1)]
    sem, bound = SoCelSemantics(s), pumping_constant(phi)
    checked, failures = 0, []
    for n in range(len(s)):
        large = sorted((c for c in sem.at(phi, n) if len(c.support()) > bound), key=lambda c: c.sort_key())
        for c in large[:per_position]:
            checked += 1
            if pumpable_fragment(phi, s, c, ks, pads) is None:
                failures.append(PumpingFailure(s, n, c))
    return checked, failures


__all__ = ["in_lemma_c1_fragment", "pumping_constant", "pumpable_fragment", "check_pumpable", "PumpingFailure",
           "LEMMA_C1_NODES"]
