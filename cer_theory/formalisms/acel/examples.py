"""The witnesses of the ACEL paper §6 that ACEA are strictly more expressive than ACEL (ACEA ⊋ ACEL), both over the
monoid ``(ℕ, +, 0)`` and streams ``R[a:1]^n``, built as :class:`~cer_theory.formalisms.acel.acea.ACEA`:

* **W1 (doubling)**: a run over ``[i..j]`` emits ``[b : 2^(j−i+1)]``; ACEL's values grow only linearly in the sum of
  the stream values (with a factor fixed by the formula's nesting);
* **W2 (prefix sums)**: the run from the first event emits ``{{[b:1]@0, …, [b:n]@(n−1)}}``; in ACEL each stream value
  contributes to finitely many created events.
"""

from __future__ import annotations

from cer_theory.core.events import Event, Stream
from cer_theory.formalisms.acel.acea import ACEA, Combine, Ref, Template, Transition

_EMIT = Template.of({"b": "m"})


def w1_doubling() -> ACEA:
    """W1: ``(q0,{m←a+a},TRUE,{Y:[b↦m]},qf)``, ``(q0,{m←a+a},TRUE,∅,q1)``, ``(q1,{m←m+m},TRUE,∅,q1)``,
    ``(q1,{m←m+m},TRUE,{Y:[b↦m]},qf)``; states q0 = 0, q1 = 1, qf = 2."""
    first = {"m": Combine("sum", Ref("a"), Ref("a"))}
    double = {"m": Combine("sum", Ref("m"), Ref("m"))}
    return ACEA(frozenset({0, 1, 2}), (
        Transition.make(0, first, (), {"Y": [_EMIT]}, 2),
        Transition.make(0, first, (), {}, 1),
        Transition.make(1, double, (), {}, 1),
        Transition.make(1, double, (), {"Y": [_EMIT]}, 2),
    ), 0, frozenset({2}), name="W1 (doubling)")


def w2_prefix_sums() -> ACEA:
    """W2: ``(q0,{s←a},TRUE,{Y:[b↦s]},q1)``, ``(q1,{s←s+a},TRUE,{Y:[b↦s]},q1)``, ``q1`` final."""
    emit = Template.of({"b": "s"})
    return ACEA(frozenset({0, 1}), (
        Transition.make(0, {"s": Ref("a")}, (), {"Y": [emit]}, 1),
        Transition.make(1, {"s": Combine("sum", Ref("s"), Ref("a"))}, (), {"Y": [emit]}, 1),
    ), 0, frozenset({1}), name="W2 (prefix sums)")


def ones(n: int) -> Stream:
    """``R[a:1]^n``."""
    return Stream(Event("R", a=1) for _ in range(n))


__all__ = ["ones", "w1_doubling", "w2_prefix_sums"]
