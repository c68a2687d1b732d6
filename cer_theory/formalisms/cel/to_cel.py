"""CEA → unary CEL: the CEL paper, Theorem 6.3 (with the Z fix of docs/errata.md) and the back-translation of Theorem 8.9.

Both are McNaughton–Yamada constructions (the proofs of Theorems 6.3 and 8.9). The CEA is first normalised to one
initial state i* without incoming and one final state f* without outgoing transitions (copies of the
transitions out of I and into F, plus i*→f* for every I→F transition). Then, for the original states
q_1..q_m taken in turn,

    φᵏ_ij := φᵏ⁻¹_ij OR (φᵏ⁻¹_ik ∘ φᵏ⁻¹_kj) OR (φᵏ⁻¹_ik ∘ (φᵏ⁻¹_kk)^♯ ∘ φᵏ⁻¹_kj)

with ``(∘, ♯) = (:, ⊕)`` for Theorem 6.3 and ``(;, +)`` for Theorem 8.9. A missing φ (no path) is kept as
"absent" and only materialised as ``FALSE := R FILTER R[FALSE]`` at the very end, which keeps the formulas far
smaller than the paper's (the disjuncts it drops are unsatisfiable anyway). The formulas are DAGs: subformulas
are shared objects, so the reference semantics (memoised per object) evaluates them in polynomial time even
though their printed size is up to 4^|Q|. ``budget`` bounds that printed (tree) size.

**The schema.** The paper's ANY is ``R1 OR … OR Rr`` over the whole schema ℛ. CEA predicates do not list ℛ,
so it is a parameter: the formula is equivalent to the CEA on every stream whose event types all lie in
``relations`` (an event of any other type matches no atom, so a run through it is lost). The default is the
types the CEA's predicates mention plus one fresh name: CEA predicates cannot tell unmentioned types apart
by type, so a stream can be brought into the schema by renaming every other type to the fresh one.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable
from functools import reduce

from cer_theory.automata.cea import CEA, Transition
from cer_theory.core.errors import AutomatonError, SizeBudgetExceeded
from cer_theory.core.events import TYPE_KEY
from cer_theory.core.predicates.ast import FALSE, TRUE, Attr, Cmp, Const, IsType, On, Predicate
from cer_theory.formalisms.cel.ast import Atom, Contig, CPlus, Disj, Filter, Formula, In, Plus, Proj, Seq, Start

DEFAULT_BUDGET = 1_000_000
"""Default bound on the printed (tree) size of the result, in AST nodes."""

OTHER_TYPE = "Other"
"""Base name of the fresh relation of the default schema, for the types the CEA does not mention: the formula is
equivalent to the CEA on streams whose other types are renamed to it (the CEA reads all of them alike); it is a
relation like any other, not a wildcard (docs/decisions.md D13, D201)."""

COR_6_4_OPERATORS = (Atom, In, Filter, Contig, CPlus, Proj, Start, Disj)
"""The node types of :func:`cea_to_cel` outputs (the CEL paper, Corollary 6.4: IN, FILTER, :, ⊕, π, START, OR)."""

CEL_STAR_OPERATORS = (Atom, In, Filter, Seq, Plus, Disj)
"""The node types of :func:`cea_to_cel_star` outputs (the CEL paper, Def. 8.1: unary CEL*)."""

_I, _F = object(), object()  # the fresh initial and final states of the normalisation


# ---------------------------------------------------------------------------------------------- schema


def mentioned_types(cea: CEA) -> frozenset[str]:
    """The event types the CEA's predicates test: ``tuples(R)`` atoms and ``type = "R"`` comparisons."""
    out: set[str] = set()
    for p in cea.predicates():
        for node in p.walk():
            if isinstance(node, IsType):
                out.add(node.name)
            elif isinstance(node, Cmp):
                for a, b in ((node.left, node.right), (node.right, node.left)):
                    if (isinstance(a, Attr) and a.name == TYPE_KEY and isinstance(b, Const)
                            and isinstance(b.value, str)):
                        out.add(b.value)
    return frozenset(out)


def _fresh(base: str, taken: Iterable[str]) -> str:
    used = set(taken)
    if base not in used:
        return base
    k = 1
    while f"{base}{k}" in used:
        k += 1
    return f"{base}{k}"


def default_relations(cea: CEA) -> tuple[str, ...]:
    """The mentioned types (sorted) plus a fresh relation (``Other``, ``Other1``, …) for the other types (to which
    a stream's other types must be renamed: :data:`OTHER_TYPE`)."""
    types = mentioned_types(cea)
    return (*sorted(types), _fresh(OTHER_TYPE, types | cea.variables()))


def _schema(cea: CEA, relations: Iterable[str] | None) -> tuple[str, ...]:
    rels = default_relations(cea) if relations is None else tuple(dict.fromkeys(relations))
    if not rels or not all(isinstance(r, str) and r for r in rels):
        raise AutomatonError(f"relations must be a non-empty list of relation names, got {rels!r}")
    return rels


# ---------------------------------------------------------------------------------------------- sizes


class _Sizer:
    """Tree sizes of DAG-shaped formulas, memoised per object, checked against a budget."""

    def __init__(self, construction: str, budget: int | None) -> None:
        self.construction, self.budget = construction, budget
        self._size: dict[int, int] = {}
        self._keep: list[Formula] = []  # keeps measured formulas alive so their ids stay unique

    def __call__(self, phi: Formula) -> Formula:
        size = 1 + sum(self.size(c) for c in phi.children())
        self._size[id(phi)] = size
        self._keep.append(phi)
        if self.budget is not None and size > self.budget:
            raise SizeBudgetExceeded(self.construction, self.budget, size)
        return phi

    def size(self, phi: Formula) -> int:
        if id(phi) not in self._size:
            self(phi)
        return self._size[id(phi)]


def formula_size(phi: Formula) -> int:
    """The printed (tree) size of ``phi`` in AST nodes, computed in time linear in the number of *distinct*
    subformula objects (``Formula.size()`` walks the tree and is exponential on these DAGs)."""
    return _Sizer("formula_size", None).size(phi)


# ---------------------------------------------------------------------------------------------- elimination


def _normalised_edges(cea: CEA) -> dict[tuple[Hashable, Hashable], list[Transition]]:
    """Edges of the normalised CEA (proof of Theorem 6.3; the normalisation of docs/decisions.md D7):
    i* copies the transitions out of I, f* those into F, and every I→F transition also gives i*→f*. Keyed by
    (source, target); duplicates removed."""
    edges: dict[tuple[Hashable, Hashable], dict[tuple[Predicate, frozenset[str]], Transition]] = {}

    def add(p: Hashable, t: Transition, q: Hashable) -> None:
        edges.setdefault((p, q), {})[(t.predicate, t.labels)] = t

    for t in cea.transitions:
        if t.predicate == FALSE:  # never fires
            continue
        add(t.source, t, t.target)
        if t.source in cea.initial:
            add(_I, t, t.target)
        if t.target in cea.final:
            add(t.source, t, _F)
        if t.source in cea.initial and t.target in cea.final:
            add(_I, t, _F)
    return {k: list(v.values()) for k, v in edges.items()}


def _eliminate(cea: CEA, base: Callable[[list[Transition]], Formula], concat: Callable[[Formula, Formula], Formula],
               star: Callable[[Formula], Formula], sizer: _Sizer) -> Formula | None:
    """McNaughton–Yamada over the normalised CEA: φ_{i*,f*} with every original state eliminated in BFS order;
    ``None`` when no path from i* to f* exists."""
    phi: dict[tuple[Hashable, Hashable], Formula] = {
        key: sizer(base(ts)) for key, ts in _normalised_edges(cea).items()}
    order = cea.bfs_order()
    sources = [_I, *order]
    targets = [*order, _F]
    for k in order:
        kk = phi.get((k, k))
        loop = sizer(star(kk)) if kk is not None else None
        new: dict[tuple[Hashable, Hashable], Formula] = {}
        for i in sources:
            ik = phi.get((i, k))
            for j in targets:
                cur, kj = phi.get((i, j)), phi.get((k, j))
                if ik is None or kj is None:
                    if cur is not None:
                        new[(i, j)] = cur
                    continue
                terms = [] if cur is None else [cur]
                terms.append(sizer(concat(ik, kj)))
                if loop is not None:
                    terms.append(sizer(concat(sizer(concat(ik, loop)), kj)))
                new[(i, j)] = reduce(lambda a, b: sizer(Disj(a, b)), terms)
        phi = new
    return phi.get((_I, _F))


def _any(relations: tuple[str, ...], sizer: _Sizer) -> Formula:
    """ANY := R1 OR … OR Rr."""
    return reduce(lambda a, b: sizer(Disj(a, b)), (sizer(Atom(r)) for r in relations))


def _false(relations: tuple[str, ...]) -> Formula:
    """FALSE := R FILTER R[FALSE]: the filter is on the bound variable R, so it always fails (an unbound
    variable would satisfy the universal SO-extension vacuously, the CEL paper §4)."""
    r = relations[0]
    return Filter(Atom(r), On(r, FALSE))


def _in_all(phi: Formula, variables: Iterable[str], sizer: _Sizer) -> Formula:
    """``φ IN {A1..Al}`` := ``((φ IN A1) IN A2) … IN Al``."""
    for v in variables:
        phi = sizer(In(phi, v))
    return phi


def _filter_on(phi: Formula, var: str, p: Predicate, sizer: _Sizer) -> Formula:
    """``φ FILTER P^SO(var)``; omitted for P = TRUE, where it is a no-op."""
    return phi if p == TRUE else sizer(Filter(phi, On(var, p)))


# ---------------------------------------------------------------------------------------------- Theorem 6.3


def _theorem_6_3(cea: CEA, relations: Iterable[str] | None, budget: int | None, *, fixed: bool) -> Formula:
    rels = _schema(cea, relations)
    name = "CEA→CEL (Theorem 6.3)" if fixed else "CEA→CEL as printed (Theorem 6.3)"
    sizer = _Sizer(name, budget)
    variables = cea.variables()
    z = _fresh("Z", set(rels) | variables)
    any_ = _any(rels, sizer)
    cache: dict[tuple[Predicate, frozenset[str]], Formula] = {}

    def psi(t: Transition) -> Formula:
        # ψ_t := π_{L∪{Z}}((ANY IN L∪{Z}) FILTER P^SO(Z)); the paper projects on L only (see module notes).
        key = (t.predicate, t.labels)
        if key not in cache:
            body = _filter_on(_in_all(any_, [*sorted(t.labels), z], sizer), z, t.predicate, sizer)
            keep = t.labels | {z} if fixed else t.labels
            cache[key] = sizer(Proj(body, tuple(keep)))
        return cache[key]

    def base(ts: list[Transition]) -> Formula:
        return reduce(lambda a, b: sizer(Disj(a, b)), map(psi, ts))

    path = _eliminate(cea.trim(), base, lambda a, b: Contig(a, b), CPlus, sizer)
    if path is None:
        return _false(rels)
    if not fixed:
        return sizer(Start(path))  # φ_A := START(φ_1n), as printed
    return sizer(Proj(sizer(Start(path)), tuple(variables)))


def cea_to_cel(cea: CEA, relations: Iterable[str] | None = None, *, budget: int | None = DEFAULT_BUDGET) -> Formula:
    """A unary CEL formula valuation-equivalent to ``cea`` (the CEL paper, Theorem 6.3, with the fix of docs/errata.md).

    Uses only IN, FILTER, ``:``, ``⊕``, π, START and OR (Corollary 6.4). Each transition ``t = (p,P,L,q)`` is
    simulated by ``ψ_t := π_{L∪{Z}}((ANY IN L∪{Z}) FILTER Z[P])`` with a fresh variable Z, which is kept on
    every simulated transition and projected away only at the end: ``φ_A := π_{vars(A)}(START(φ_{i*f*}))``.
    [erratum] The paper projects ψ_t on L; a non-marking transition then has empty support, which ``:`` and
    START reject, so runs through ∘-transitions are lost (:func:`cea_to_cel_printed`).

    Equivalence holds on streams whose event types all lie in ``relations`` (default: the mentioned types plus
    a fresh one, see the module notes). Raises :class:`SizeBudgetExceeded` when the formula's printed size
    passes ``budget`` (it is up to 4^|Q|; the result is a DAG of shared subformulas).
    """
    return _theorem_6_3(cea, relations, budget, fixed=True)


def cea_to_cel_printed(cea: CEA, relations: Iterable[str] | None = None, *,
                       budget: int | None = DEFAULT_BUDGET) -> Formula:
    """Theorem 6.3 exactly as printed in the CEL paper: ``ψ_t := π_L(…)`` and ``φ_A := START(φ_1n)``.

    **Wrong** for CEAs with non-marking transitions (docs/errata.md; docs/decisions.md D13); kept to exhibit the counterexample
    ``({p,q}, {(p,TRUE,∅,p), (p,tuples(R),{A},q)}, {p}, {q})`` on ``T R``: the CEA outputs ``{A↦{1}}`` at n=1,
    this formula nothing.
    """
    return _theorem_6_3(cea, relations, budget, fixed=False)


# ---------------------------------------------------------------------------------------------- Theorem 8.9


def cea_to_cel_star(cea: CEA, relations: Iterable[str] | None = None, *,
                    budget: int | None = DEFAULT_BUDGET) -> Formula:
    """A unary CEL* formula φ with ``⟦φ⟧_n(S) = ⟦A⟧*_n(S)`` (the CEL paper, Theorem 8.9, back-translation).

    Complex-event level only: labels are ignored, so valuations differ (a CEA can rename variables; the
    paper's example ``(p, tuples(R), {T}, q)`` has no valuation-equivalent CEL* formula). Only marking
    transitions take part in *-runs (Def. 8.7), each simulated by ``ρ_P := (ANY IN Z) FILTER Z[P]`` (the paper
    writes the filter without a variable). The recursion uses ``;`` and ``+`` (the OCR drops the ``+``) and the
    result has no START. Same schema condition and budget as :func:`cea_to_cel`.
    """
    rels = _schema(cea, relations)
    sizer = _Sizer("CEA→CEL* (Theorem 8.9)", budget)
    z = _fresh("Z", set(rels) | cea.variables())
    any_in_z = sizer(In(_any(rels, sizer), z))
    cache: dict[Predicate, Formula] = {}

    def rho(p: Predicate) -> Formula:
        if p not in cache:
            cache[p] = _filter_on(any_in_z, z, p, sizer)
        return cache[p]

    def base(ts: list[Transition]) -> Formula:
        preds = dict.fromkeys(t.predicate for t in ts)
        return reduce(lambda a, b: sizer(Disj(a, b)), map(rho, preds))

    marking = CEA(cea.states, [t for t in cea.transitions if t.labels], cea.initial, cea.final).trim()
    path = _eliminate(marking, base, lambda a, b: Seq(a, b), Plus, sizer)
    return _false(rels) if path is None else path


__all__ = ["cea_to_cel", "cea_to_cel_printed", "cea_to_cel_star", "formula_size", "mentioned_types",
           "default_relations", "COR_6_4_OPERATORS", "CEL_STAR_OPERATORS", "DEFAULT_BUDGET"]
