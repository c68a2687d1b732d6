"""The one subset step of every determinization in cer_theory.

*A Formal Framework for Complex Event Recognition* (the CEL paper), Proposition 5.5, determinizes a CEA
``A = (Q, Δ, I, F)`` by moving a set ``R ⊆ Q`` of its states, on an event of class P and a label set L, to

    Δ(R, P, L) = {q | p ∈ R, (p, P', L, q) ∈ Δ, P ⊆ P'}

and its Theorem 7.2 builds the selection automata A_SEL from the same sets and their unions
``Δall(R,P) = ⋃_L Δ(R,P,L)`` and ``Δmark(R,P) = ⋃_{L≠∅} Δ(R,P,L)``. *CORE: a Complex Event Recognition
Engine* (the CORE paper), §4.4, runs this construction lazily, keyed by a bit vector of the event's truth values.

Here is that step, once. The event class P is given as a **key**: a bit vector over the predicates
``P_1, …, P_k`` of Δ (bit ``k-1`` set iff the class lies inside ``P_k``), so ``P ⊆ P'`` is one ``&``. Every
driver has such a key:

* a Z3-pruned minterm (a *type*, the CEL paper Def. 5.6), in the eager constructions: its positive predicates
  (:func:`minterm_key`);
* the signature ``(P_1(t), …, P_k(t))`` of one tuple, in :class:`~.lazy.LazyDeterminizer`: its true entries
  (:func:`signature_key`);
* CORE's predicate bit vector of the event, in the engine's :class:`~.bitmask.Determinizer`: as it is.

:class:`MoveTable` is Δ compiled for the step; :func:`subset_moves` is the step; :func:`select_successor` and
:func:`strict_successor` are Theorem 7.2's moves on top of it. The drivers are :mod:`.eager` (Prop. 5.5 over
minterms), :mod:`.lazy` (Prop. 5.5 per tuple), :mod:`.bitmask` (CORE's cached determinization) and
:mod:`.selection` (A_SEL over minterms; the engine's NEXT/LAST/MAX drive it by bit vector).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, NamedTuple

from cer_theory.automata.cea import CEA
from cer_theory.core.predicates.ast import Predicate
from cer_theory.core.strategies import Strategy
from cer_theory.core.wording import plural

if TYPE_CHECKING:  # (a type only: the solver loads Z3, which the bit-vector determinizer never needs)
    from cer_theory.core.predicates.solver import Minterm

Label = Hashable
"""A label set of Δ, or a driver's abstraction of one (CORE only asks whether a transition marks)."""

Move = tuple[int, Label, Hashable]
"""One transition leaving a state: (predicate bit, label, target). Bit 0 stands for a transition with no
predicate to test (TRUE): the engine's A⁺ adds such loops."""

Key = int
"""The class of the current event as a bit vector over :attr:`MoveTable.predicates`."""

_NONE: frozenset = frozenset()


class MoveTable:
    """Δ compiled for :func:`subset_moves`: per state, its transitions as :data:`Move` triples.

    ``predicates`` are 𝒫, the distinct predicates of Δ, in the order of the key's bits; ``labels`` are ℒ, the
    distinct labels of Δ; ``marking[L]`` says whether label L counts as *support* (marks a position): ``L ≠ ∅``
    for a CEA, as in Δmark. A driver that adds bookkeeping labels (the engine's start mark ⊢) says which count.
    """

    __slots__ = ("out", "predicates", "labels", "marking")

    def __init__(self, out: Mapping[Hashable, Sequence[Move]], predicates: Sequence[Predicate],
                 labels: Iterable[Label], marking: Mapping[Label, bool]) -> None:
        self.out: Mapping[Hashable, tuple[Move, ...]] = {q: tuple(ms) for q, ms in out.items()}
        self.predicates: tuple[Predicate, ...] = tuple(predicates)
        self.labels: tuple[Label, ...] = tuple(labels)
        self.marking: Mapping[Label, bool] = dict(marking)

    @classmethod
    def of(cls, cea: CEA, *, name: Callable[[Hashable], Hashable] | None = None,
           label: Callable[[frozenset[str]], Label] | None = None) -> MoveTable:
        """Δ of ``cea`` over ``cea.predicates()``. ``name`` renames states (the engine numbers them); ``label``
        abstracts label sets (a transition of the result marks iff its original label set is non-empty)."""
        rename = name or (lambda q: q)
        abstract = label or (lambda L: L)
        bit = {p: 1 << k for k, p in enumerate(cea.predicates())}
        out = {rename(q): [(bit[t.predicate], abstract(t.labels), rename(t.target)) for t in cea.out(q)]
               for q in cea.states}
        marking: dict[Label, bool] = {}  # ℒ in cea.label_sets() order, abstracted
        for L in cea.label_sets():
            marking[abstract(L)] = marking.get(abstract(L), False) or bool(L)
        return cls(out, cea.predicates(), tuple(marking), marking)

    def __repr__(self) -> str:
        return (f"MoveTable({plural(len(self.out), 'state')}, {plural(len(self.predicates), 'predicate')}, "
                f"{plural(len(self.labels), 'label')})")


def minterm_key(minterm: Minterm) -> Key:
    """The key of a type (the CEL paper Def. 5.6): the bits of its positive predicates."""
    return sum(1 << k for k, positive in enumerate(minterm.signs) if positive)


def signature_key(signature: Sequence[bool]) -> Key:
    """The key of one tuple's signature ``(P_1(t), …, P_k(t))``: the bits of its true entries."""
    return sum(1 << k for k, holds in enumerate(signature) if holds)


class Moves(NamedTuple):
    """Everything a set R of states does on one event class: ``by_label[L] = Δ(R,P,L)`` (non-empty ones only),
    ``all = Δall(R,P)``, ``mark = Δmark(R,P)`` and ``skip``, the union over non-marking labels (``Δ(R,P,∅)`` for
    a CEA)."""

    by_label: Mapping[Label, frozenset]
    all: frozenset
    mark: frozenset
    skip: frozenset


def subset_moves(table: MoveTable, states: Iterable[Hashable], key: Key) -> Moves:
    """The subset step of the CEL paper Prop. 5.5: ``Δ(R, P, L)`` for every label L, for R = ``states`` and the class P
    given by ``key``. A transition (p, P', L, q) is taken iff P ⊆ P', i.e. P' has no bit or its bit is in key."""
    out = table.out
    targets: dict[Label, set] = {}
    for p in states:
        for b, L, q in out[p]:
            if not b or key & b:
                found = targets.get(L)
                if found is None:
                    targets[L] = {q}
                else:
                    found.add(q)
    by_label = {L: frozenset(qs) for L, qs in targets.items()}
    marking = table.marking
    mark: set = set()
    skip: set = set()
    for L, qs in by_label.items():
        (mark if marking[L] else skip).update(qs)
    return Moves(by_label, frozenset(mark | skip), frozenset(mark), frozenset(skip))


class SubsetStep:
    """:func:`subset_moves` remembered per (set, key), for drivers that meet the same sets again (A_SEL's
    components recur across its states). ``limit`` bounds the memo, which is cleared when full."""

    __slots__ = ("table", "limit", "_memo")

    def __init__(self, table: MoveTable, *, limit: int | None = None) -> None:
        self.table = table
        self.limit = limit
        self._memo: dict[tuple[frozenset, Key], Moves] = {}

    def __call__(self, states: frozenset, key: Key) -> Moves:
        found = self._memo.get((states, key))
        if found is None:
            if self.limit is not None and len(self._memo) >= self.limit:
                self._memo.clear()
            found = self._memo[states, key] = subset_moves(self.table, states, key)
        return found

    def __repr__(self) -> str:
        return f"SubsetStep({self.table!r}, {len(self._memo)} remembered)"


# ---------------------------------------------------------------------------------------------- Theorem 7.2

Phase = int
"""STRICT's phase: 1 = nothing marked yet, 2 = inside the marked block, 3 = after it."""


def strict_successor(step: SubsetStep, state: tuple[frozenset, Phase], key: Key, label: Label
                     ) -> tuple[frozenset, Phase] | None:
    """STRICT of the CEL paper Thm 7.2 on states ``(R, phase)``: a marking step is allowed in phases 1–2 (→ 2), a
    non-marking one moves 1→1 and 2,3→3, so exactly the runs whose support is an interval survive;
    ``R' = Δ(R,P,L)``. None when no run survives."""
    R, phase = state
    if step.table.marking[label]:
        if phase == 3:
            return None
        phase2 = 2
    else:
        phase2 = 1 if phase == 1 else 3
    R2 = step(R, key).by_label.get(label, _NONE)
    return (R2, phase2) if R2 else None


SelectState = tuple[frozenset, frozenset, frozenset, frozenset]
"""A state ``(R, E, W, T)`` of A_SEL for NXT, LAST and MAX."""


def select_successor(step: SubsetStep, state: SelectState, key: Key, label: Label, strategy: Strategy, *,
                     ties: bool = True) -> SelectState | None:
    """NXT, MAX and LAST of the CEL paper Thm 7.2 on states ``(R, E, W, T)`` (the tie set E: docs/decisions.md D18):

    * R: states of A's runs with *this* valuation (the A_SEL run's labels so far);
    * E: the tie set [erratum fix]: runs with the same support as this run (R ⊆ E);
    * W: winners, runs whose support is already strictly better (≤_next / ⊋ / ≤_last);
    * T: LAST only, losers that a later difference can still turn into winners.

    A state reached by a winner is removed from R, E and T: every continuation from it is dominated.
    ``ties=False`` is the construction as printed, where E is R (so ties in support with a different
    valuation are forgotten: the erratum). None when no run with this valuation survives (R' = ∅).
    """
    R, E, W, T = state  # printed (ties=False): E == R is an invariant
    r, e, w = step(R, key), step(E, key), step(W, key)
    if step.table.marking[label]:
        W2 = w.all if strategy is Strategy.NXT else w.mark
        R2 = r.by_label.get(label, _NONE) - W2
        E2 = e.mark - W2 if ties else R2
    else:
        W2 = w.all | e.mark | step(T, key).mark
        R2 = r.by_label.get(label, _NONE) - W2
        E2 = e.skip - W2 if ties else R2
    if not R2:
        return None
    if strategy is Strategy.LAST:
        t = step(T, key)
        T2 = ((t.all | e.skip | w.skip) if step.table.marking[label] else t.skip) - (E2 | W2)
    else:
        T2 = _NONE
    return (R2, E2, W2, T2)


__all__ = ["MoveTable", "Moves", "Move", "Key", "Label", "SubsetStep", "subset_moves", "minterm_key",
           "signature_key", "strict_successor", "select_successor", "SelectState"]
