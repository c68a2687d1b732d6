"""Lazy I/O-determinization of CEA: *A Formal Framework for Complex Event Recognition* (the CEL paper), Prop. 5.5,
built on demand.

Prop. 5.5 ranges over the *types* of the predicates 𝒫 of Δ (Def. 5.6). A tuple t lies in exactly one type,
the one given by the truth values of the predicates of 𝒫 on t, so the type need never be written down:

    Δ(R, t, L) = {q | (p, P', L, q) ∈ Δ, p ∈ R, t ∈ P'}

depends on t only through its *signature* ``(P_1(t), …, P_k(t))``. :class:`LazyDeterminizer` evaluates the k
predicates once per tuple, caches successors by (subset, signature) and, on a miss, runs the one subset step
(:func:`~cer_theory.automata.determinize.step.subset_moves`) keyed by the signature's bits; only the subsets that
are reached are materialized. No solver is needed: unsatisfiable types are never met by a real tuple. The eager
driver is :func:`cer_theory.automata.determinize.eager.io_determinize`; property tests check that they agree.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from cer_theory.automata.cea import CEA
from cer_theory.automata.determinize.step import MoveTable, signature_key, subset_moves
from cer_theory.core.errors import SizeBudgetExceeded
from cer_theory.core.events import Event

Subset = frozenset
"""A state of the determinized automaton: a set of states of the input CEA."""
Signature = tuple[bool, ...]
"""The truth values of the CEA's predicates on one tuple: the tuple's type (Def. 5.6), positives = X."""


class LazyDeterminizer:
    """Prop. 5.5 (the CEL paper) on demand: states are frozensets of CEA states, built when first reached.

    ``step(R, t)`` maps each label set L of ℒ to ``Δ(R, t, L)``. With ``complete=False`` (the default) label sets
    whose target is ∅ are left out, so the dead state is never materialized; ``complete=True`` keeps them, as the
    eager :func:`~cer_theory.automata.determinize.eager.io_determinize` does. ``budget`` bounds the number of
    materialized subsets (:class:`SizeBudgetExceeded`). Counters: :attr:`predicate_evaluations`, :attr:`cache_hits`,
    :attr:`cache_misses`, and ``len(materialized())``.
    """

    __slots__ = ("cea", "predicates", "label_sets", "initial", "budget", "complete", "_table", "_final",
                 "_states", "_cache", "predicate_evaluations", "cache_hits", "cache_misses")

    def __init__(self, cea: CEA, *, budget: int | None = None, complete: bool = False) -> None:
        self.cea = cea
        self._table = MoveTable.of(cea)  # a step reads the signature's bits, never a predicate
        self.predicates = self._table.predicates
        self.label_sets = cea.label_sets()
        self.budget, self.complete = budget, complete
        self._final = cea.final
        self._states: dict[Subset, Subset] = {}  # interning: one object per subset, hash computed once
        self._cache: dict[tuple[Subset, Signature], Mapping[frozenset[str], Subset]] = {}
        self.predicate_evaluations = self.cache_hits = self.cache_misses = 0
        self.initial: Subset = self._intern(frozenset(cea.initial))

    def _intern(self, subset: Subset) -> Subset:
        known = self._states.get(subset)
        if known is not None:
            return known
        if self.budget is not None and len(self._states) >= self.budget:
            raise SizeBudgetExceeded("lazy I/O-determinization", self.budget, len(self._states) + 1)
        self._states[subset] = subset
        return subset

    def signature(self, event: Event) -> Signature:
        """The type of ``event``: one truth value per predicate of 𝒫 (|𝒫| predicate evaluations)."""
        self.predicate_evaluations += len(self.predicates)
        return tuple(p(event) for p in self.predicates)

    def step_signature(self, state: Subset, sig: Signature) -> Mapping[frozenset[str], Subset]:
        """``{L: Δ(R, P, L)}`` for the type P with signature ``sig`` (a read-only, cached mapping)."""
        key = (state, sig)
        found = self._cache.get(key)
        if found is not None:
            self.cache_hits += 1
            return found
        self.cache_misses += 1
        moves = subset_moves(self._table, state, signature_key(sig)).by_label
        labels = self.label_sets if self.complete else moves
        result = MappingProxyType({L: self._intern(moves.get(L, Subset())) for L in labels})
        self._cache[key] = result
        return result

    def step(self, state: Subset, event: Event) -> Mapping[frozenset[str], Subset]:
        """``{L: Δ(R, t, L)}`` for every label set L with a non-empty target (all of ℒ if ``complete``)."""
        return self.step_signature(state, self.signature(event))

    def is_final(self, state: Subset) -> bool:
        """``R ∩ F ≠ ∅``."""
        return not self._final.isdisjoint(state)

    def materialized(self) -> tuple[Subset, ...]:
        """The subsets built so far, in the order they were first reached (the initial subset first)."""
        return tuple(self._states)

    def __repr__(self) -> str:
        return (f"LazyDeterminizer({self.cea!r}: {len(self._states)} subsets, {self.cache_hits} hits, "
                f"{self.cache_misses} misses)")


__all__ = ["LazyDeterminizer", "Subset", "Signature"]
