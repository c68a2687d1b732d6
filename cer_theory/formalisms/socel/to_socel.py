"""UCEA → SO-CEL: the SO-CEL paper Thm 6.2 (⇒, UCEA to SO-CEL+) and Thm 5.3 (⇐, *-semantics to core SO-CEL), both by
the McNaughton–Yamada state elimination over the automaton's transitions.

Each transition ``(p, P, L, q)`` becomes the one-event formula ``ψ(P, L) = OR_R ((R FILTER P_R(R)) IN A1 … IN Ak)``
over the relation names R of the schema, where ``P_R`` is P with its type tests decided for R. Then, for each
state k in turn, ``φ[p][q] := φ[p][q] OR (φ[p][k] ∘ φ[k][q]) OR (φ[p][k] ∘ φ[k][k]^+ ∘ φ[k][q])``.

* Thm 6.2 (:func:`ucea_to_socel_plus`): ``∘`` is ``:`` and ``^+`` is ``⊕`` so that every event is read; the result
  ``π_labels(START(OR_{i∈I, f∈F} φ[i][f]))`` is anchored at position 0 and drops the relation labels. Automaton
  labels that are relation names are first renamed to fresh ones and renamed back at the end.
* Thm 5.3 (:func:`ucea_to_core_socel`): over the *marking* transitions only, ``∘`` is ``;`` and ``^+`` is ``+``,
  and the relation label of a leaf is renamed into one of its labels instead of projected away. The result
  defines ``⟦A⟧*``, which is ``⟦A⟧`` exactly when A has the *-property (check it with
  :func:`~cer_theory.formalisms.socel.star_property.has_star_property`).

Both are exponential in |Q| and only meaningful over streams whose types are in ``relations``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from cer_theory.automata.cea import Transition
from cer_theory.core.budget import charge
from cer_theory.core.errors import UnsupportedError
from cer_theory.core.predicates.ast import FALSE, TRUE, And, IsType, Not, Or, Predicate, conj, disj, neg, reslot
from cer_theory.formalisms.socel.ast import (Atom, Contig, CPlus, Disj, Filter, Formula, In, Plus, Proj, Rename, Seq,
                                             Start)
from cer_theory.formalisms.socel.ucea import UCEA


def decide_types(p: Predicate, relation: str) -> Predicate:
    """``P_R``: P with every type test ``type = R'`` of the current tuple replaced by TRUE if R' = R, else FALSE."""
    if isinstance(p, IsType) and p.slot is None:
        return TRUE if p.name == relation else FALSE
    if isinstance(p, Not):
        return neg(decide_types(p.arg, relation))
    if isinstance(p, And):
        return conj(*(decide_types(a, relation) for a in p.args))
    if isinstance(p, Or):
        return disj(*(decide_types(a, relation) for a in p.args))
    return p


def _leaf(relation: str, predicate: Predicate, labels: Iterable[str]) -> Formula | None:
    """``(R FILTER P_R(R)) IN A1 … IN Ak``, or None when ``P_R`` is FALSE."""
    p = decide_types(predicate, relation)
    if p == FALSE:
        return None
    phi: Formula = Atom(relation)
    if p != TRUE:
        phi = Filter(phi, reslot(p, {None: relation}))  # universal over the one R-labelled position
    for a in sorted(labels):
        phi = In(phi, a)
    return phi


def _or(*parts: Formula | None) -> Formula | None:
    out: Formula | None = None
    for p in parts:
        if p is not None:
            out = p if out is None else Disj(out, p)
    return out


def _cat(op: type, *parts: Formula | None) -> Formula | None:
    if any(p is None for p in parts):
        return None
    out = parts[0]
    for p in parts[1:]:
        out = op(out, p)
    return out


ELIMINATION = "state elimination (the SO-CEL paper Thm 6.2, §6.3: the formula's size as a tree)"
"""What the work budget's messages call the translation back to a formula (core.budget)."""


def _eliminate(states: Sequence, edges: dict, cat: type, star: type) -> dict:
    """Kleene's state elimination. The formulas share their parts, so building them is cheap, but printing one
    costs its size as a tree, which can double with each state eliminated: that size is counted (``size``) and
    charged to the work budget as each formula is built, so a translation whose result could not be printed
    within the budget stops."""
    phi = dict(edges)
    size = {key: _tree_size(f) for key, f in phi.items()}
    for k in states:
        loop = phi.get((k, k))
        new, new_size = dict(phi), dict(size)
        for p in states:
            into_k = phi.get((p, k))
            if into_k is None:
                continue
            for q in states:
                out_k = phi.get((k, q))
                if out_k is None:
                    continue
                through = _cat(cat, into_k, out_k)
                looped = _cat(cat, into_k, star(loop), out_k) if loop is not None else None
                new[(p, q)] = _or(phi.get((p, q)), through, looped)
                grown = size[(p, k)] + size[(k, q)] + 1
                if loop is not None:
                    grown += size[(p, k)] + size[(k, k)] + size[(k, q)] + 3
                new_size[(p, q)] = size.get((p, q), 0) + grown + 2
                charge(ELIMINATION, new_size[(p, q)])
        phi, size = new, new_size
    return phi


def _tree_size(f: object) -> int:
    """The number of nodes of a (small) formula as a tree: an edge's leaf, before elimination."""
    if isinstance(f, tuple):
        return sum(_tree_size(x) for x in f)
    fields = getattr(f, "__dataclass_fields__", None)
    if fields is None:
        return 0
    return 1 + sum(_tree_size(getattr(f, name)) for name in fields)


def _fresh(name: str, taken: set[str]) -> str:
    out = name + "_"
    while out in taken:
        out += "_"
    taken.add(out)
    return out


def _states(a: UCEA) -> list:
    return a.bfs_order()


def ucea_to_socel_plus(a: UCEA, relations: Sequence[str]) -> Formula:
    """Thm 6.2 (⇒): an SO-CEL+ formula φ with ``⟦φ⟧_n(S) = ⟦A⟧_n(S)`` on streams over ``relations``."""
    if not relations:
        raise UnsupportedError("the translation needs the schema's relation names (relations=…)")
    taken = set(relations) | set(a.labels())
    rename = {lab: _fresh(lab, taken) for lab in sorted(a.labels()) if lab in relations}
    edges: dict = {}
    for t in a.transitions:
        labels = [rename.get(x, x) for x in t.labels]
        edges[(t.source, t.target)] = _or(edges.get((t.source, t.target)),
                                          *(_leaf(r, t.predicate, labels) for r in relations))
    phi = _eliminate(_states(a), edges, Contig, CPlus)
    body = _or(*(phi.get((i, f)) for i in sorted(a.initial, key=repr) for f in sorted(a.final, key=repr)))
    if body is None:
        return _never(relations[0])
    out: Formula = Proj(Start(body), tuple(rename.get(x, x) for x in a.labels()))
    for old, new in sorted(rename.items()):
        out = Rename(out, new, old)
    return out


def ucea_to_core_socel(a: UCEA, relations: Sequence[str]) -> Formula:
    """Thm 5.3 (⇐) / Cor 5.5: a core SO-CEL formula φ with ``⟦φ⟧_n(S) = ⟦A⟧*_n(S)`` on streams over
    ``relations`` (so ``= ⟦A⟧_n(S)`` when A has the *-property)."""
    if not relations:
        raise UnsupportedError("the translation needs the schema's relation names (relations=…)")
    edges: dict = {}
    for t in a.transitions:
        if t.labels:
            edges[(t.source, t.target)] = _or(edges.get((t.source, t.target)),
                                              *(_star_leaf(r, t) for r in relations))
    phi = _eliminate(_states(a), edges, Seq, Plus)
    body = _or(*(phi.get((i, f)) for i in sorted(a.initial, key=repr) for f in sorted(a.final, key=repr)))
    return body if body is not None else _never(relations[0])


def _star_leaf(relation: str, t: Transition) -> Formula | None:
    """§6.3: the relation label is renamed into one of the transition's labels unless it is one of them."""
    leaf = _leaf(relation, t.predicate, t.labels)
    if leaf is None or relation in t.labels:
        return leaf
    return Rename(leaf, relation, min(t.labels))


def _never(relation: str) -> Formula:
    """⊥: a formula with no output (R FILTER FALSE)."""
    return Filter(Atom(relation), FALSE)


__all__ = ["ucea_to_socel_plus", "ucea_to_core_socel", "decide_types"]
