"""The SO-CEL paper Thm 4.3: for unary predicates, FO-CEL and SO-CEL define the same matches, in both directions, via the
LP normal form (every unary filter on an atom).

* :func:`fo_to_socel` (⇒): ``R AS x`` becomes ``R IN x`` and a unary filter on x its universal SO-extension on
  label x. Each ``AS`` must bind a distinct variable, so label x holds exactly the one position x is bound to.
* :func:`socel_to_fo` (⇐): every unary SO filter is pushed down to the atoms its label reaches (through ``IN``,
  which adds a label to every position, and renamings, which move one), then IN and renamings are dropped (they do
  not change the support) and each atom ``R`` with filters ``P1 … Pk`` becomes ``(R AS x) FILTER P1(x) ∧ …`` with
  a fresh x.

Equivalence is the support level of the SO-CEL paper §3: ``⟦ψ_FO⟧_n(S) = {supp(C) | C ∈ ⟦φ_SO⟧_n(S)}``.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable

from cer_theory.core.errors import NotUnaryError, UnsupportedError
from cer_theory.core.predicates.ast import Predicate, conj, reslot, unary_body
from cer_theory.formalisms.socel import ast as so
from cer_theory.formalisms.socel.focel import Bind, FoFilter, FoFormula, FoOr, FoPlus, FoSeq

LabelMap = Callable[[frozenset[str]], frozenset[str]]


def fo_to_socel(phi: FoFormula) -> so.Formula:
    """Thm 4.3 (⇒) for unary FO-CEL with distinct variables."""
    seen: set[str] = set()

    def go(f: FoFormula) -> so.Formula:
        if isinstance(f, Bind):
            if f.var in seen:
                raise UnsupportedError(f"variable {f.var!r} is bound twice; Thm 4.3's translation needs distinct "
                                       f"variables")
            seen.add(f.var)
            return so.In(so.Atom(f.relation), f.var)
        if isinstance(f, FoFilter):
            if len({s for s in f.predicate.slots() if s is not None}) > 1:
                raise NotUnaryError(f"FILTER {f.predicate.text()} compares variables; Thm 4.3 is for unary filters")
            return so.Filter(go(f.body), f.predicate)
        if isinstance(f, FoPlus):
            return so.Plus(go(f.body))
        node = so.Disj if isinstance(f, FoOr) else so.Seq
        return node(go(f.left), go(f.right))  # type: ignore[attr-defined]

    return go(phi)


def socel_to_fo(phi: so.Formula) -> FoFormula:
    """Thm 4.3 (⇐) for core SO-CEL with unary filters."""
    if not so.is_core(phi):
        raise UnsupportedError("Thm 4.3's translation is for core SO-CEL (R, IN, renaming, FILTER, OR, ';', '+')")
    fresh = (f"x{k}" for k in itertools.count())

    def go(f: so.Formula, pending: tuple[tuple[str | None, Predicate, LabelMap], ...]) -> FoFormula:
        # pending: for every filter above, (its label, its unary predicate, the map from a position's label set at
        # this level to its label set at the filter's level); label None: a constant condition, on every atom.
        if isinstance(f, so.Atom):
            here = frozenset([f.name])
            preds = [p for label, p, to_filter in pending if label is None or label in to_filter(here)]
            var = next(fresh)
            bind = Bind(f.name, var)
            return FoFilter(bind, reslot(conj(*preds), {None: var})) if preds else bind
        if isinstance(f, so.In):
            a = f.label
            return go(f.body, tuple((lab, p, (lambda L, m=m: m(L | {a}))) for lab, p, m in pending))
        if isinstance(f, so.Rename):
            src, dst = f.source, f.target
            move = (lambda L: (L - {src}) | {dst} if src in L else L)
            return go(f.body, tuple((lab, p, (lambda L, m=m: m(move(L)))) for lab, p, m in pending))
        if isinstance(f, so.Filter):
            extra = []
            for part in so.conjuncts(f.condition):
                labels = so.condition_labels(part)
                if isinstance(part, Predicate) and not labels:  # TRUE / FALSE: on every atom below
                    if not part.holds({}):
                        extra.append((None, part, (lambda L: L)))
                    continue
                if isinstance(part, so.Order) or len(labels) != 1:
                    raise NotUnaryError(f"FILTER {part.text()} is not unary; Thm 4.3 is for unary SO-CEL")
                (label,) = labels
                extra.append((label, unary_body(part, label), (lambda L: L)))
            return go(f.body, pending + tuple(extra))
        if isinstance(f, so.Plus):
            return FoPlus(go(f.body, pending))
        node = FoOr if isinstance(f, so.Disj) else FoSeq
        return node(go(f.left, pending), go(f.right, pending))  # type: ignore[attr-defined]

    return go(phi, ())


__all__ = ["fo_to_socel", "socel_to_fo"]
