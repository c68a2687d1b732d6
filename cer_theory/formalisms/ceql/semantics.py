"""Reference semantics of CEQL, the query language of CORE (the CORE paper, *CORE: a Complex Event Recognition
Engine*, §2 and Fig. 2).

Brute force by design, like :mod:`cer_theory.formalisms.cel.semantics`. It is the ground truth for the CEQL compiler
(:mod:`cer_theory.formalisms.ceql.compile`) and for the tECS engine.

CORE's valuations differ from the CEL paper's in one respect: a valuation ``V = ([i,j], μ)`` carries its own interval,
which is *tight* (``R`` gets ``[i,i]``, ``;`` gets ``[V1.start, V2.end]``), and ``π``/``SELECT`` keep it even when
they empty the start position out of the data. :class:`CoreSemantics` therefore indexes valuations by their
interval: ``interval(φ, i, j)`` is the set of μ with ``V(time) = [i, j]``.

Query-level clauses, in the order of the CORE paper §2 (FROM merges, PARTITION BY splits, then WHERE, SELECT, WITHIN run
on each substream), with our decisions where the CORE paper is silent (docs/decisions.md, D20–D22):

* **PARTITION BY** ``[a],[b]`` means the same as ``[a,b]`` (Fig. 1 Q2: "same name *and* same volume"); a tuple
  with a missing value in any listed attribute belongs to no substream. Substreams keep **global** positions,
  and a window counted in ``EVENTS`` counts global positions (D22).
* **Selection strategies** (CORE defers to the CEL paper [33]): among all CEs ending at ``j`` (every start), keep
  those whose data ``D`` the CEL paper's rule selects (§7.1, on supports, after SELECT's projection): STRICT keeps
  ``D`` without gaps, NEXT/LAST the ``≤_next``/``≤_last``-greatest ``D``, MAX the set-inclusion-maximal ``D``
  (D20). CEs that share the selected ``D`` with different intervals are all kept. This is the CEL paper's
  ``SEL(⟦φ⟧ᵛ_j(S))`` with runs starting anywhere. ``ALL`` and ``ANY`` apply no strategy. Under PARTITION BY the
  strategy runs on the substream, in its positions: STRICT's "no gap" means no gap *in the substream* (D148).
* **WITHIN** filters *after* the strategy (WHERE → SELECT → WITHIN, as CORE's automaton-level strategies and
  enumeration-time windows do): a strategy may pick a CE that the window then drops.
* **CONSUME BY** ``ANY`` ("forget every event read so far when a complex event is found", [code] reset after
  any enumeration): once some CE is output at position ``j``, later outputs come only from runs that start
  after ``j`` — in every substream. ``PARTITION`` does the same inside the substream that produced the output
  only. ``NONE`` (or no clause) consumes nothing. Consumption is applied before the strategy (a reset engine
  no longer sees the consumed runs) and the window.
* **Aggregates and HAVING** (the ACEL paper's ``Agg``, aggregation paper §4–5; :mod:`.aggregation`): each match
  ``V = ([i, j], μ)`` of the WHERE pattern yields the record ``(C_{π_L(V)}, Agg(μ))``: the complex event of
  SELECT's projection with the aggregate values folded over the *unprojected* μ (``SUM(b.volume)`` needs b's
  events even when SELECT leaves b out). Outputs are the **set** of such records, so two matches with the same
  complex event and the same values are one output, and one complex event may come with several value tuples
  (docs/decisions.md D75). The strategy selects by complex event (a record is kept iff its CE is), the window
  reads the interval, then ``HAVING`` drops the records whose created event fails it, *before* CONSUME BY
  (a record HAVING drops is not reported, so it consumes nothing) and LIMIT.
* **LIMIT n** ([code] CORE C++: a cap on each enumeration, i.e. per end position) keeps *some* ``n`` CEs ending
  at ``j``, which ones depends on the engine's enumeration order. :func:`evaluate` therefore ignores it and
  :func:`limit_conforms` checks an engine's output against the uncapped reference.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence

from cer_theory.core.budget import charge
from cer_theory.core.errors import UnsupportedError
from cer_theory.core.intervals import SEMANTICS, IntervalSemantics
from cer_theory.core.events import CoreComplexEvent, Event, Valuation
from cer_theory.core.predicates.ast import Predicate, kind
from cer_theory.core.strategies import Strategy, ceql_strategy, consume_policy
from cer_theory.core.windows import Window
from cer_theory.formalisms.cel.ast import Atom, Contig, CPlus, Disj, Filter, Formula, In, Plus, Proj, Seq
from cer_theory.formalisms.cel.semantics import FilterRule, is_interval, le_last, le_next
from cer_theory.formalisms.ceql.aggregation import having_holds, match_aggregates
from cer_theory.formalisms.ceql.ast import AggregateItem, Query

Valuations = frozenset[Valuation]
AggregatedCE = tuple[CoreComplexEvent, tuple]
"""An output of a query with aggregates: the complex event and its aggregates as ``(alias, value)`` pairs in
SELECT's order."""
EMPTY: Valuations = frozenset()

CESource = Callable[[Formula, Sequence[Event], "tuple[str, ...] | None"], Sequence[Iterable[CoreComplexEvent]]]
"""``(pattern, substream, select) -> per-end-position CEs`` in substream positions."""


# ---------------------------------------------------------------------------------------------- Fig. 2


class CoreSemantics(IntervalSemantics[Valuations]):
    """``⟦φ⟧(S)`` of the CORE paper Fig. 2 for one stream, memoised per (subformula, i, j).

    ``interval(φ, i, j)`` holds the μ of the valuations ``V = ([i, j], μ) ∈ ⟦φ⟧(S)``, for ``0 ≤ i ≤ j < |S|``.
    """

    def __init__(self, stream: Sequence[Event]) -> None:
        super().__init__(stream)
        self._from_memo: dict[tuple[int, int, int], Valuations] = {}
        self._ends_memo: dict[tuple[int, int], tuple[int, ...]] = {}
        self._filter = FilterRule(stream)

    def ending_at(self, phi: Formula, j: int) -> dict[int, Valuations]:
        """``{i: interval(φ, i, j)}`` for the starts i with at least one valuation."""
        out = {}
        for i in range(j + 1):
            mus = self.interval(phi, i, j)
            if mus:
                out[i] = mus
        return out

    def _rule(self, phi: Formula, i: int, j: int) -> Valuations:
        S, sem = self.stream, self.interval
        if isinstance(phi, Atom):
            # R: V(time) = [i,i] for an R-tuple t_i, V(R) = {i}.
            return frozenset([Valuation.single(phi.name, [i])]) if i == j and S[i].type == phi.name else EMPTY
        if isinstance(phi, In):
            # φ AS X: same interval, V(X) = every position captured in φ, over all variables.
            return frozenset(m.assign(phi.var, m.support()) for m in sem(phi.body, i, j))
        if isinstance(phi, Filter):
            # φ FILTER X[P]: V(X) ⊨ P universally (∅ passes); AND nests filters, OR unions them (footnote 1).
            return self._filter(phi, sem(phi.body, i, j))
        if isinstance(phi, Disj):
            return sem(phi.left, i, j) | sem(phi.right, i, j)
        if isinstance(phi, Seq):
            # φ1 ; φ2: V1.end < V2.start, V(time) = [V1.start, V2.end], V(X) = V1(X) ∪ V2(X).
            return self._sequence(phi.left, phi.right, i, j, contiguous=False)
        if isinstance(phi, Contig):
            # φ1 : φ2 ([code] CORE's ':'): as ';' with V1.end + 1 = V2.start.
            return self._sequence(phi.left, phi.right, i, j, contiguous=True)
        if isinstance(phi, Plus):
            # φ+ = ⟦φ⟧ ∪ ⟦φ ; φ+⟧: well-founded, the right operand's interval is strictly shorter.
            return sem(phi.body, i, j) | self._sequence(phi.body, phi, i, j, contiguous=False)
        if isinstance(phi, CPlus):
            # φ:+ = ⟦φ⟧ ∪ ⟦φ : φ:+⟧.
            return sem(phi.body, i, j) | self._sequence(phi.body, phi, i, j, contiguous=True)
        if isinstance(phi, Proj):
            # π_L(φ): same interval, variables outside L set to ∅.
            return frozenset(m.restrict(phi.variables) for m in sem(phi.body, i, j))
        raise UnsupportedError(f"{type(phi).__name__} ({phi}) is not a CEQL operator: the CORE paper Fig. 2 has R, AS, "
                               f"FILTER, OR, ';', '+' and π (plus ':' and ':+' from CORE's grammar)")

    def starting_from(self, phi: Formula, a: int, j: int) -> Valuations:
        """The μ with ``([k, j], μ) ∈ ⟦φ⟧(S)`` for some ``k ≥ a`` (memoised: ';' reads it once per split)."""
        memo, ident = self._from_memo, id(phi)
        hit = memo.get((ident, a, j))
        if hit is None:
            self._keep.append(phi)
            top = a  # fill the memo downwards from the last start still missing: no deep recursion on long streams
            while top < j and (ident, top + 1, j) not in memo:
                top += 1
            hit = memo.get((ident, top + 1, j), EMPTY)
            for b in range(top, a - 1, -1):
                hit = memo[ident, b, j] = self.interval(phi, b, j) | hit
        return hit

    def _ends(self, phi: Formula, i: int) -> tuple[int, ...]:
        """The ends k of φ's valuations that start at i, ascending (memoised; φ is a strict subformula of the
        sequence asking, so this never recurses into the interval being computed)."""
        key = (id(phi), i)
        hit = self._ends_memo.get(key)
        if hit is None:
            self._keep.append(phi)
            hit = self._ends_memo[key] = tuple(k for k in range(i, len(self.stream)) if self.interval(phi, i, k))
        return hit

    def _sequence(self, left: Formula, right: Formula, i: int, j: int, *, contiguous: bool) -> Valuations:
        out: set[Valuation] = set()
        for k in self._ends(left, i):  # V1 = ([i,k], μ1), V2 = ([k2,j], μ2) with k2 > k (k2 = k+1 for ':')
            if k >= j:
                break
            lefts = self.interval(left, i, k)
            rights = self.interval(right, k + 1, j) if contiguous else self.starting_from(right, k + 1, j)
            charge(SEMANTICS, len(lefts) * len(rights))  # each pair is a union to build (core.budget)
            out.update(m1.union(m2) for m1 in lefts for m2 in rights)
        return frozenset(out)


def pattern_complex_events(pattern: Formula, stream: Sequence[Event], *,
                           select: Iterable[str] | None = None) -> list[frozenset[CoreComplexEvent]]:
    """The CE semantics ``{C_V | V ∈ ⟦π_L(φ)⟧(S)}`` of a WHERE pattern, grouped by end position (no window,
    partition or strategy). ``select`` is SELECT's variable list L; ``None`` is ``*``."""
    sem = CoreSemantics(stream)
    keep = None if select is None else tuple(select)
    out = []
    for j in range(len(stream)):
        ces = set()
        for i, mus in sem.ending_at(pattern, j).items():
            for m in mus:
                data = (m if keep is None else m.restrict(keep)).support()
                ces.add(CoreComplexEvent(i, j, data.positions))
        out.append(frozenset(ces))
    return out


def pattern_aggregated_events(pattern: Formula, stream: Sequence[Event], aggregates: Sequence[AggregateItem], *,
                              select: Iterable[str] | None = None) -> list[frozenset[AggregatedCE]]:
    """``{(C_{π_L(V)}, Agg(μ)) | V = ([i, j], μ) ∈ ⟦φ⟧(S)}`` grouped by end position: the ACEL paper's ``Agg``
    (:func:`~cer_theory.formalisms.ceql.aggregation.match_aggregates`) on every match of the WHERE pattern, next
    to the complex event of SELECT's projection (no window, partition, strategy or HAVING)."""
    sem = CoreSemantics(stream)
    keep = None if select is None else tuple(select)
    items = tuple(aggregates)
    aliases = [it.alias for it in items]
    out = []
    for j in range(len(stream)):
        records = set()
        for i, mus in sem.ending_at(pattern, j).items():
            for m in mus:
                data = (m if keep is None else m.restrict(keep)).support()
                values = match_aggregates(items, stream, m)
                records.add((CoreComplexEvent(i, j, data.positions), tuple(zip(aliases, values))))
        out.append(frozenset(records))
    return out


# ---------------------------------------------------------------------------------------------- SELECT strategy


def select_strategy(strategy: str | Strategy | None, ces: Iterable[CoreComplexEvent]) -> frozenset[CoreComplexEvent]:
    """Apply a selection strategy to the CEs ending at one position (see the module docstring): the CEL paper §7.1's
    rule on the data sets ``D``; every CE whose ``D`` is selected is kept."""
    ces = frozenset(ces)
    strat = strategy if isinstance(strategy, Strategy) or strategy is None else ceql_strategy(strategy)
    if strat is None or not ces:
        return ces
    data = {c: frozenset(c.positions) for c in ces}
    if strat is Strategy.STRICT:
        return frozenset(c for c in ces if is_interval(data[c]))
    supports = set(data.values())
    if strat is Strategy.MAX:
        return frozenset(c for c in ces if not any(data[c] < d for d in supports))
    le = le_next if strat is Strategy.NXT else le_last
    best = None
    for d in supports:  # ≤_next and ≤_last are total orders (the CEL paper, Lemma 7.1)
        if best is None or le(best, d):
            best = d
    return frozenset(c for c in ces if data[c] == best)


def _select_in_substream(strategy: Strategy | None, ces: Iterable[CoreComplexEvent], local: Mapping[int, int]
                         ) -> frozenset[CoreComplexEvent]:
    """SELECT's strategy on CEs of one substream, judged in that substream's positions (the CORE paper §2: WHERE,
    SELECT and WITHIN run on each substream; D148). Only STRICT can tell the difference: NEXT, LAST and MAX compare
    position sets by order and inclusion, which the order-preserving map to global positions keeps, but a gap-free
    run of a substream may have gaps in the whole stream."""
    by_local = {c: CoreComplexEvent(local[c.start], local[c.end], tuple(local[d] for d in c.positions)) for c in ces}
    chosen = select_strategy(strategy, by_local.values())
    return frozenset(c for c, mine in by_local.items() if mine in chosen)


# ---------------------------------------------------------------------------------------------- PARTITION BY


def partition_attributes(partition_by: Iterable[Iterable[str]] | Iterable[str]) -> tuple[str, ...]:
    """The attributes of ``PARTITION BY [a], [b, c]`` in order, duplicates dropped: ``[a],[b]`` ≡ ``[a,b]``."""
    attrs: list[str] = []
    for group in partition_by:
        for a in ([group] if isinstance(group, str) else group):
            if a not in attrs:
                attrs.append(a)
    return tuple(attrs)


def substreams(stream: Sequence[Event], partition_by: Iterable[Iterable[str]] | Iterable[str] = ()
               ) -> list[tuple[int, ...]]:
    """The substreams of ``PARTITION BY`` as tuples of global positions, in order of first occurrence.

    A substream is a maximal subsequence whose tuples all have the listed attributes, with equal values
    (numbers compare as numbers, ``1 = 1.0``, but never equal a string or a boolean). Tuples missing any
    listed attribute belong to none. Without attributes the whole stream is one substream.
    """
    attrs = partition_attributes(partition_by)
    if not attrs:
        return [tuple(range(len(stream)))] if len(stream) else []
    groups: dict[tuple, list[int]] = {}
    for p, e in enumerate(stream):
        values = [e.get(a) for a in attrs]
        if any(v is None for v in values):
            continue
        groups.setdefault(tuple((kind(v), v) for v in values), []).append(p)
    return [tuple(g) for g in groups.values()]


# ---------------------------------------------------------------------------------------------- queries


def evaluate_pattern(pattern: Formula, stream: Sequence[Event], *, select: Iterable[str] | None = None,
                     strategy: str | Strategy | None = None, partition_by: Iterable = (),
                     within: Window | None = None, consume: str | None = None,
                     complex_events: CESource | None = None, aggregates: Sequence[AggregateItem] | None = None,
                     having: Predicate | None = None) -> list[frozenset]:
    """The outputs of a CEQL query given by its clauses, per end position (global positions).

    ``complex_events(pattern, substream, select)`` computes the per-end-position CEs of one substream (in
    substream positions); it defaults to :func:`pattern_complex_events`, and the compiler's tests pass the
    automaton's any-start runs instead so that both sides share this clause handling.

    With ``aggregates`` (a sequence, possibly empty) or ``having``, the outputs are :data:`AggregatedCE` records
    from :func:`pattern_aggregated_events` and HAVING filters them (module docstring); otherwise CEs.
    """
    aggregated = aggregates is not None or having is not None
    items = tuple(aggregates or ())
    policy = consume_policy(consume)
    strat = strategy if isinstance(strategy, Strategy) or strategy is None else ceql_strategy(strategy)
    keep = None if select is None else tuple(select)
    if aggregated:
        def records(sub: Sequence[Event]) -> Sequence[Iterable[AggregatedCE]]:
            return pattern_aggregated_events(pattern, sub, items, select=keep)
    else:
        source = complex_events or (lambda phi, sub, sel: pattern_complex_events(phi, sub, select=sel))

        def records(sub: Sequence[Event]) -> Sequence[Iterable[AggregatedCE]]:
            return [[(c, ()) for c in ces] for ces in source(pattern, sub, keep)]

    n = len(stream)
    candidates: list[set[AggregatedCE]] = [set() for _ in range(n)]
    part_of: dict[int, int] = {}
    local: dict[int, int] = {}  # global position -> its position in its substream (STRICT reads these, D148)
    for k, g in enumerate(substreams(stream, partition_by)):
        for i, p in enumerate(g):
            part_of[p] = k
            local[p] = i
        sub = [stream[p] for p in g]
        for jj, recs in enumerate(records(sub)):
            for c, values in recs:
                ce = CoreComplexEvent(g[c.start], g[c.end], tuple(g[d] for d in c.positions))
                candidates[g[jj]].add((ce, values))

    out: list[frozenset] = []
    consumed_all = -1  # CONSUME BY ANY: runs starting at or before this position are forgotten
    consumed_part: dict[int, int] = {}
    for j in range(n):
        if j not in part_of:
            out.append(frozenset())
            continue
        part = part_of[j]
        floor = consumed_all if policy == "ANY" else consumed_part.get(part, -1) if policy == "PARTITION" else -1
        alive = [(c, v) for c, v in candidates[j] if c.start > floor]
        ces = _select_in_substream(strat, (c for c, _ in alive), local)
        if within is not None:
            ces = frozenset(c for c in ces if within.admits(within.key(c.start, stream[c.start]),
                                                            within.key(c.end, stream[c.end])))
        kept = frozenset((c, v) for c, v in alive if c in ces and having_holds(having, items, [x for _, x in v]))
        out.append(kept if aggregated else frozenset(c for c, _ in kept))
        if kept:
            consumed_all = j
            consumed_part[part] = j
    return out


def evaluate(query: Query, stream: Sequence[Event]) -> list[frozenset]:
    """The reference output of a CEQL query on a (FROM-merged) stream: ``out[j]`` is the set of CEs
    ``([i, j], D)`` reported at position j, in global positions (the CORE paper §2; decisions in the module docstring),
    or of :data:`AggregatedCE` records ``(CE, values)`` when the query has aggregates or HAVING.
    ``query.limit`` is not applied (see :func:`limit_conforms`)."""
    return evaluate_pattern(query.pattern, stream, select=query.select, strategy=query.strategy,
                            partition_by=query.partition_by, within=query.within, consume=query.consume,
                            aggregates=query.aggregates if query.aggregated else None, having=query.having)


def limit_conforms(expected: Sequence[frozenset[CoreComplexEvent]], actual: Sequence[Iterable[CoreComplexEvent]],
                   limit: int | None) -> bool:
    """Whether an engine's output obeys ``LIMIT n`` against the uncapped reference: at every position it reports
    ``min(n, |expected|)`` distinct CEs, all of them expected."""
    for j, exp in enumerate(expected):
        got = list(actual[j]) if j < len(actual) else []
        want = len(exp) if limit is None else min(limit, len(exp))
        if len(got) != want or len(set(got)) != want or not set(got) <= exp:
            return False
    return len(actual) <= len(expected) or all(not list(a) for a in actual[len(expected):])


__all__ = ["AggregatedCE", "CoreSemantics", "pattern_complex_events", "pattern_aggregated_events", "select_strategy", "partition_attributes", "substreams",
           "evaluate_pattern", "evaluate", "limit_conforms"]
