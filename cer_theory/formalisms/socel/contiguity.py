"""The SO-CEL paper, Thm 6.5 part 1: ``SO-CEL ∪ {:} ⊆ SO-CEL ∪ {STRICT}`` for any SO predicates — the contiguous
sequence ``ψ1 : ψ2`` rewritten away with STRICT (the converse direction, Prop 6.4, is
:func:`~cer_theory.formalisms.socel.compile.strict_to_contiguity`).

The proof's rewriting, in two steps:

(i) ``IN`` is pushed down to the atoms. It distributes over ``;``, ``:``, ``OR``, ``+`` and STRICT and commutes
    with other ``IN``\\ s. Under a FILTER that reads ``A``, ``(ψ FILTER P(Ā)) IN A`` becomes
    ``(((ψ[A→D]) IN A) FILTER P(Ā[A:=D]))[D→A]`` with D fresh; under a renaming of ``A`` itself,
    ``(ψ[A→C]) IN A`` becomes ``((ψ IN D)[A→C])[D→A]``.

(ii) Every ``a : b`` is eliminated bottom-up, first by the structure of the left operand, then of the right:
     ``(a1 OR a2):b → (a1:b) OR (a2:b)``, ``(a1;a2):b → a1;(a2:b)``, ``a+:b → (a:b) OR (a+;(a:b))``, and
     symmetrically on the right (``b:(a1;a2) → (b:a1);a2``, ``b:a+ → (b:a) OR ((b:a);a+)``). A FILTER on one
     side moves on top after its labels are renamed to fresh ones (and back); a renaming on one side first
     protects the other side's labels with a fresh name. When both operands output intervals only — an atom
     with its ``IN``\\ s, a STRICT, or such a formula under FILTER or a renaming — ``a : b`` is
     ``STRICT(a ; b)`` (the paper's base cases ``leaf:leaf`` and ``STRICT(x):leaf``).

The result has no ``:`` and no fresh label in its outputs (every fresh label is renamed back). ``⊕`` is refused:
the second part of Thm 6.5 shows that it is not expressible with STRICT for some binary SO predicate.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from cer_theory.core.errors import UnsupportedError
from cer_theory.formalisms.socel.ast import (Atom, Condition, Contig, Disj, Filter, Formula, In, Plus,
                                             Rename, Seq, Strict, condition_labels, labels, relations)

_ALLOWED = (Atom, In, Rename, Filter, Disj, Seq, Plus, Contig, Strict)


def contiguity_to_strict(phi: Formula) -> Formula:
    """Thm 6.5 part 1: a formula of SO-CEL ∪ {:, STRICT} without ``:``, with the same outputs on every stream.
    Raises :class:`UnsupportedError` naming the operator outside the theorem (⊕, π, START, AND, ALL, UNLESS)."""
    bad = [n for n in phi.walk() if not isinstance(n, _ALLOWED)]
    if bad:
        raise UnsupportedError(f"Thm 6.5 (part 1) rewrites SO-CEL with ':' and STRICT; "
                               f"{type(bad[0]).__name__} is outside it")
    rewriter = _Rewriter(phi)  # one supply of fresh labels for both steps
    return rewriter.eliminate(rewriter.push_in(phi))


def rename_condition(cond: Condition, mapping: dict[str, str]) -> Condition:
    """``P(Ā[A:=D])``: the SO predicate reading the labels of ``mapping`` under their new names."""
    return _rename_slots(cond, mapping)


def _rename_slots(node: Any, mapping: dict[str, str]) -> Any:
    if isinstance(node, tuple):
        return tuple(_rename_slots(x, mapping) for x in node)
    if not dataclasses.is_dataclass(node) or isinstance(node, type):
        return node
    changes = {}
    for f in dataclasses.fields(node):
        value = getattr(node, f.name)
        if f.name in ("slot", "var", "label") and isinstance(value, str):
            changes[f.name] = mapping.get(value, value)
        elif isinstance(value, tuple) or dataclasses.is_dataclass(value):
            changes[f.name] = _rename_slots(value, mapping)
    return dataclasses.replace(node, **changes) if changes else node


class _Rewriter:
    def __init__(self, phi: Formula) -> None:
        self.taken = set(labels(phi)) | set(relations(phi))

    def fresh(self, base: str) -> str:
        name = base + "_"
        while name in self.taken:
            name += "_"
        self.taken.add(name)
        return name

    # ------------------------------------------------------------------ (i) IN down to the atoms

    def push_in(self, phi: Formula) -> Formula:
        if isinstance(phi, Atom):
            return phi
        if isinstance(phi, In):
            return self.add(self.push_in(phi.body), phi.label)
        if isinstance(phi, Rename):
            return Rename(self.push_in(phi.body), phi.source, phi.target)
        if isinstance(phi, Filter):
            return Filter(self.push_in(phi.body), phi.condition)
        if isinstance(phi, Strict):
            return Strict(self.push_in(phi.body))
        if isinstance(phi, Plus):
            return Plus(self.push_in(phi.body))
        return type(phi)(self.push_in(phi.left), self.push_in(phi.right))  # type: ignore[attr-defined]

    def add(self, phi: Formula, a: str) -> Formula:
        """``phi IN a`` with ``phi`` already IN-free above its atoms."""
        if isinstance(phi, (Atom, In)):
            return In(phi, a)
        if isinstance(phi, Strict):
            return Strict(self.add(phi.body, a))
        if isinstance(phi, Plus):
            return Plus(self.add(phi.body, a))
        if isinstance(phi, Filter):
            if a not in condition_labels(phi.condition):
                return Filter(self.add(phi.body, a), phi.condition)
            d = self.fresh(a)
            inner = self.add(Rename(phi.body, a, d), a)
            return Rename(Filter(inner, rename_condition(phi.condition, {a: d})), d, a)
        if isinstance(phi, Rename):
            if a != phi.source:
                return Rename(self.add(phi.body, a), phi.source, phi.target)
            d = self.fresh(a)
            return Rename(Rename(self.add(phi.body, d), phi.source, phi.target), d, a)
        return type(phi)(self.add(phi.left, a), self.add(phi.right, a))  # type: ignore[attr-defined]

    # ------------------------------------------------------------------ (ii) ':' eliminated bottom-up

    def eliminate(self, phi: Formula) -> Formula:
        if isinstance(phi, (Atom, In)):
            return phi
        if isinstance(phi, Contig):
            return self.contig(self.eliminate(phi.left), self.eliminate(phi.right))
        if isinstance(phi, Rename):
            return Rename(self.eliminate(phi.body), phi.source, phi.target)
        if isinstance(phi, Filter):
            return Filter(self.eliminate(phi.body), phi.condition)
        if isinstance(phi, Strict):
            return Strict(self.eliminate(phi.body))
        if isinstance(phi, Plus):
            return Plus(self.eliminate(phi.body))
        return type(phi)(self.eliminate(phi.left), self.eliminate(phi.right))  # type: ignore[attr-defined]

    def contig(self, a: Formula, b: Formula) -> Formula:
        """``a : b`` for ``:``-free ``a``, ``b``."""
        if not _intervals(a):
            if isinstance(a, Disj):
                return Disj(self.contig(a.left, b), self.contig(a.right, b))
            if isinstance(a, Seq):
                return Seq(a.left, self.contig(a.right, b))
            if isinstance(a, Plus):
                once = self.contig(a.body, b)
                return Disj(once, Seq(a, self.contig(a.body, b)))
            if isinstance(a, Filter):
                return self._filter_on_top(a, lambda body: self.contig(body, b))
            if isinstance(a, Rename):
                return self._protected(a, b, lambda body, other: self.contig(body, other))
        elif not _intervals(b):
            if isinstance(b, Disj):
                return Disj(self.contig(a, b.left), self.contig(a, b.right))
            if isinstance(b, Seq):
                return Seq(self.contig(a, b.left), b.right)
            if isinstance(b, Plus):
                once = self.contig(a, b.body)
                return Disj(once, Seq(self.contig(a, b.body), b))
            if isinstance(b, Filter):
                return self._filter_on_top(b, lambda body: self.contig(a, body))
            if isinstance(b, Rename):
                return self._protected(b, a, lambda body, other: self.contig(other, body))
        else:
            return Strict(Seq(a, b))
        raise AssertionError(f"unexpected operand of ':' {a!r} / {b!r}")  # pragma: no cover - push_in ran

    def _filter_on_top(self, side: Filter, build) -> Formula:
        """``(ψ FILTER P(Ā)) : b ≡ ((ψ[Ā→D̄] : b) FILTER P(D̄))[D̄→Ā]`` (and on the right alike)."""
        names = sorted(condition_labels(side.condition))
        fresh = {x: self.fresh(x) for x in names}
        body = side.body
        for x in names:
            body = Rename(body, x, fresh[x])
        out: Formula = Filter(build(body), rename_condition(side.condition, fresh))
        for x in names:
            out = Rename(out, fresh[x], x)
        return out

    def _protected(self, side: Rename, other: Formula, build) -> Formula:
        """``(ψ[B→C]) : b ≡ ((ψ : b[B→E])[B→C])[E→B]``: the other side's B escapes the renaming."""
        e = self.fresh(side.source)
        return Rename(Rename(build(side.body, Rename(other, side.source, e)), side.source, side.target),
                      e, side.source)


def _intervals(phi: Formula) -> bool:
    """Every output of ``phi`` has an interval support (one atom, or a STRICT, under IN/FILTER/renamings)."""
    while isinstance(phi, (In, Filter, Rename)):
        phi = phi.body
    return isinstance(phi, (Atom, Strict))


__all__ = ["contiguity_to_strict", "rename_condition"]
